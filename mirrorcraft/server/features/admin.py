"""The world and player state vanilla's op commands act on: time, weather, difficulty, game rules, game modes,
death and respawn, and the creative-mode inventory packet.

Why a feature: the benchmark ``Controls`` (``ServerConfig.controls``) are only the *starting* values; the
vanilla commands (docs/control.md) change them while the game runs — ``time set``, ``weather``,
``difficulty``, ``gamerule``, ``gamemode``, ``kill``. :class:`Admin` holds that state, starts from the
controls (so the built-in defaults equal what :class:`~mirrorcraft.harness.control.RconServerControl` applies
over RCON) and sends the vanilla packets when it changes. Status effects are their own feature
(:mod:`~mirrorcraft.server.features.effects`); the commands feature (:mod:`~mirrorcraft.server.features.
commands`) maps each command onto these methods.

Vanilla behaviour followed (wiki.vg "Protocol" 1.19.2 for packets, the Minecraft Wiki for rules):

* time: day time advances one per tick while ``doDaylightCycle`` is true; ``update_time`` is sent every
  20 ticks (vanilla ``MinecraftServer.tickChildren``) with a negative time of day when the cycle is frozen.
  Game time a late reactor skipped counts too (day time and effect durations stay in step with ``time
  query gametime``): this tick also counts the effects' durations down.
* weather: ``game_state_change`` 1/2 (start/stop rain), 7 (rain level), 8 (thunder level). With
  ``doWeatherCycle`` true a commanded weather counts down and then clears; vanilla's random weather
  changes after that are **not** simulated (the benchmark runs with ``doWeatherCycle false``).
* game mode: ``game_state_change`` 3, ``abilities`` (creative: invulnerable, may fly, instant build;
  spectator: invulnerable, flying) and the player-list game mode. Creative players break blocks instantly
  without drops (the digging feature reads :meth:`Admin.game_mode`) and may set inventory slots
  (``set_creative_slot``; vanilla 1.19.2 answers with the slot, and Mineflayer waits for it); adventure
  and spectator players cannot break blocks. Creative placement still consumes the item (vanilla does not
  consume) — a known difference.
* kill: a player dies (inventory dropped unless ``keepInventory``, experience reset unless
  ``keepInventory``, effects cleared, health 0 and the death screen; no experience orbs; the ``"death"``
  hooks run: a dig in progress is dropped, eating stops and the health bar is sent) and respawns at the
  world spawn when the client sends ``client_command`` 0 (``respawn`` packet, position, abilities,
  inventory, experience, time, weather; the ``"respawn"`` hooks give a fresh food bar).
* game rules: all 36 are stored, starting from vanilla's defaults, then the save's ``level.dat``
  ``GameRules`` (as a vanilla server reads them: an arena's ``randomTickSpeed 200``), then the controls'
  ``game_rules`` (what the harness sets over RCON on a vanilla server, so they win). A ``level.dat`` rule
  that 1.19.2 does not know, or whose text does not parse as its type, is skipped as vanilla skips it.
  Honoured: ``doDaylightCycle``, ``doWeatherCycle``, ``keepInventory``, ``sendCommandFeedback`` (by the
  executor), ``doMobSpawning`` (natural spawning), ``naturalRegeneration`` (food), ``randomTickSpeed`` (random
  ticks). Stored only (the server has no such mechanic): the rest.
* admin state is not written to ``level.dat`` by ``save-all``: an episode always starts from a fresh copy
  of its world. It is kept by player name (a reconnect keeps the game mode).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from mirrorcraft.errors import ContractError
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.vocabulary import GAME_RULES
from mirrorcraft.server.features.chat import Chat
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.experience import Experience
from mirrorcraft.server.features.inventory import Inventory
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.features.movement import Movement
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.spawn import spawn_point
from mirrorcraft.server.kernel.stacks import Stack, from_slot

log = logging.getLogger(__name__)


def level_game_rules(saved: dict[str, str]) -> dict[str, bool | int]:
    """``level.dat``'s ``GameRules`` (text values) as typed values of the rules 1.19.2 knows (others skipped,
    as vanilla's ``GameRules.loadFromTag`` only reads registered rules and its parsers fall back on bad
    text)."""
    out: dict[str, bool | int] = {}
    for name, text in saved.items():
        default = GAME_RULES.get(name)
        if default is None:
            continue
        if isinstance(default, bool):
            if text in ("true", "false"):
                out[name] = text == "true"
            else:
                log.info("level.dat game rule %s=%r is not a boolean: kept %s", name, text, default)
        else:
            try:
                out[name] = int(text)
            except ValueError:
                log.info("level.dat game rule %s=%r is not an integer: kept %s", name, text, default)
    return out


GAME_MODE_IDS = {"survival": 0, "creative": 1, "adventure": 2, "spectator": 3}
DIFFICULTY_IDS = {"peaceful": 0, "easy": 1, "normal": 2, "hard": 3}
# abilities flags (wiki.vg "Player Abilities (clientbound)"): 0x01 invulnerable, 0x02 flying,
# 0x04 allow flying, 0x08 creative mode (instant break)
ABILITY_FLAGS = {"survival": 0x00, "creative": 0x0D, "adventure": 0x00, "spectator": 0x07}
TIME_PACKET_INTERVAL = 20  # ticks between update_time packets (vanilla)
# window-0 slots a creative client may set: crafting grid, armour, main inventory, hotbar, off hand
INVENTORY_SLOTS = range(1, 46)


@dataclass
class PlayerAdmin:
    """Per-player admin state (kept by name across reconnects)."""

    game_mode: str = "survival"
    dead: bool = False


class Admin:
    """Mutable world and player state the op commands act on, for one game.

    Raises:
        ContractError: ``controls.game_rules`` names a rule 1.19.2 does not have, or gives it a value of
            the wrong type.
    """

    def __init__(
        self,
        kernel: Kernel,
        effects: Effects,
        items: Items,
        inventory: Inventory,
        experience: Experience,
        movement: Movement,
        chat: Chat,
    ) -> None:
        ctl = kernel.config.controls
        self.kernel = kernel
        self.effects = effects
        self.items = items
        self.inventory = inventory
        self.experience = experience
        self.movement = movement
        movement.game_mode_of = self.game_mode  # creative and spectator are not checked or kicked for flying
        self.chat = chat
        self.default_game_mode: str = kernel.config.default_game_mode
        self._spawn_rng = kernel.rng.stream("spawn")
        self.game_rules: dict[str, bool | int] = dict(GAME_RULES)
        self.game_rules.update(level_game_rules(kernel.world.level.game_rules))
        for rule, value in ctl.game_rules.items():
            if rule not in GAME_RULES:
                raise ContractError(f"controls.game_rules: unknown game rule {rule!r} (1.19.2)")
            if isinstance(GAME_RULES[rule], bool) != isinstance(value, bool):
                raise ContractError(f"controls.game_rules.{rule}: {value!r} has the wrong type")
            self.game_rules[rule] = value
        self.day_time = ctl.time_of_day
        self.weather = ctl.weather
        self.weather_ticks = -1  # -1: no countdown
        self.difficulty = ctl.difficulty
        self.players: dict[str, PlayerAdmin] = {}
        kernel.events.after("forget", lambda b: self.players.pop(b["who"], None))  # Join: bounded
        self._last_tick: int | None = None
        kernel.events.after("joined", self._joined)
        kernel.events.after("advancement_made", self._announce)
        kernel.handlers.register(
            "set_creative_slot", lambda p, pkt: self.creative_slot(p, pkt.slot, pkt.item)
        )
        kernel.handlers.register("client_command", self._on_client_command)

    # ---- per-player state --------------------------------------------------------------------------

    def state(self, p: Player) -> PlayerAdmin:
        """Admin state of ``p`` (created on first use)."""
        st = self.players.get(p.display_name)
        if st is None:  # a new player gets the default game mode (calculateGameModeForNewPlayer)
            st = self.players[p.display_name] = PlayerAdmin(game_mode=self.default_game_mode)
        return st

    def game_mode(self, p: Player) -> str:
        """``survival``, ``creative``, ``adventure`` or ``spectator``."""
        return self.state(p).game_mode

    def is_dead(self, p: Player) -> bool:
        """Whether ``p`` is dead (between a kill and its respawn)."""
        return self.state(p).dead

    # ---- joining and ticking -----------------------------------------------------------------------

    def _joined(self, b: Behaviour) -> None:
        """After the join sequence: send the current state where it differs from the join defaults."""
        p = b.player
        st = self.state(p)
        st.dead = False
        p.send(
            "server_difficulty", wire.difficulty(DIFFICULTY_IDS[self.difficulty], True, p.protocol_version)
        )
        self._send_time(p)
        self._send_weather(p)
        self.effects.resend(p)

    def spawn_position(self) -> tuple[float, float, float]:
        """Where a joining or respawning player appears: the ``spawnRadius`` spread around the world
        spawn (:mod:`~mirrorcraft.server.kernel.spawn`)."""
        level = self.kernel.world.level
        (cx, cz), half = level.border_center, level.border_size / 2
        sx, _, sz = level.spawn
        to_border = min(sx - (cx - half), (cx + half) - sx, sz - (cz - half), (cz + half) - sz)
        return spawn_point(
            self.kernel.world,
            level.spawn,
            int(self.game_rules["spawnRadius"]),
            self._spawn_rng,
            border_distance=to_border,
            adventure=self.default_game_mode == "adventure",
        )

    def abilities(self, p: Player) -> bytes:
        """The ``player_abilities`` body of ``p``'s game mode."""
        return wire.abilities(ABILITY_FLAGS[self.game_mode(p)], 0.05, 0.1)

    def _announce(self, b: Behaviour) -> None:
        """``PlayerAdvancements.award``: an advancement with a display that announces to chat is told to
        everyone while ``announceAdvancements`` is on (``chat.type.advancement.<frame>``)."""
        display = b["display"]
        if (
            not display
            or not display.get("announce_to_chat", True)
            or not self.game_rules["announceAdvancements"]
        ):
            return
        frame = str(display.get("frame", "task"))
        self.chat.broadcast(
            C.translatable(
                f"chat.type.advancement.{frame}", self.chat.name_of(b.player), C.advancement_chat(display)
            )
        )

    def tick(self) -> None:
        """One tick: day time, weather countdown, effect durations, the periodic time packet."""
        now = self.kernel.tick_count
        elapsed = max(1, now - self._last_tick) if self._last_tick is not None else 1
        periodic = (
            self._last_tick is None or now // TIME_PACKET_INTERVAL != self._last_tick // TIME_PACKET_INTERVAL
        )
        self._last_tick = now
        if self.game_rules["doDaylightCycle"]:
            self.day_time += elapsed
        if self.game_rules["doWeatherCycle"] and self.weather_ticks > 0:
            self.weather_ticks = max(0, self.weather_ticks - elapsed)
            if self.weather_ticks == 0:
                self.set_weather("clear", -1)
        for p in self.kernel.players.values():
            self.effects.elapse(p, elapsed)
            if periodic:
                self._send_time(p)

    # ---- packets -----------------------------------------------------------------------------------

    def _send_time(self, p: Player) -> None:
        # wiki.vg "Update Time": a negative time of day stops the client's daylight cycle.
        tod = self.day_time if self.game_rules["doDaylightCycle"] else -self.day_time
        p.send("time_update", wire.update_time(self.kernel.tick_count, tod))

    def _send_weather(self, p: Player) -> None:
        wet = self.weather != "clear"
        # reason 1 starts and 2 stops rain (vanilla START_RAINING / STOP_RAINING; wiki.vg's labels are swapped)
        p.send("change_game_state", wire.game_state_change(1 if wet else 2, 0.0))
        p.send("change_game_state", wire.game_state_change(7, 1.0 if wet else 0.0))
        p.send("change_game_state", wire.game_state_change(8, 1.0 if self.weather == "thunder" else 0.0))

    def _send_game_mode(self, p: Player, mode: str) -> None:
        p.send("change_game_state", wire.game_state_change(3, float(GAME_MODE_IDS[mode])))
        p.send("player_abilities", wire.abilities(ABILITY_FLAGS[mode], 0.05, 0.1))
        for o in self.kernel.players:
            o.send(
                "player_list_item",
                wire.player_info_game_mode(p.uuid, GAME_MODE_IDS[mode], o.protocol_version),
            )

    # ---- world state -------------------------------------------------------------------------------

    def set_day_time(self, ticks: int) -> None:
        """``time set`` / ``time add``: change the day time and tell everyone."""
        self.day_time = ticks
        for p in self.kernel.players:
            self._send_time(p)

    def set_weather(self, weather: str, duration_ticks: int) -> None:
        """``weather``: clear / rain / thunder (``-1``: no countdown)."""
        if weather not in ("clear", "rain", "thunder"):
            raise ContractError(f"set_weather: unknown weather {weather!r}")
        self.weather = weather
        self.weather_ticks = duration_ticks
        for p in self.kernel.players:
            self._send_weather(p)

    def set_difficulty(self, difficulty: str) -> None:
        """``difficulty``: store and send the difficulty packet."""
        self.difficulty = difficulty
        for p in self.kernel.players:
            p.send("server_difficulty", wire.difficulty(DIFFICULTY_IDS[difficulty], True, p.protocol_version))

    def set_game_rule(self, name: str, value: bool | int) -> None:
        """``gamerule``: store (the day-time freeze is sent at once)."""
        if name not in GAME_RULES:
            raise ContractError(f"set_game_rule: unknown game rule {name!r}")
        self.game_rules[name] = value
        if name == "doDaylightCycle":
            for p in self.kernel.players:
                self._send_time(p)

    # ---- players -----------------------------------------------------------------------------------

    def set_game_mode(self, p: Player, mode: str) -> None:
        """``gamemode``: change ``p``'s mode and tell the clients."""
        if mode not in GAME_MODE_IDS:
            raise ContractError(f"set_game_mode: unknown game mode {mode!r}")
        self.state(p).game_mode = mode
        self._send_game_mode(p, mode)

    def kill_player(self, p: Player, death: C.Component | None = None) -> None:
        """Vanilla death: drops (unless ``keepInventory``), effects cleared, health 0 (death screen).

        ``death`` is the death message (``CombatTracker.getDeathMessage``); default ``kill``'s
        ``death.attack.outOfWorld``."""
        st = self.state(p)
        st.dead = True
        if not self.game_rules["keepInventory"]:
            inv = p.inventory
            at = (p.pos[0], p.pos[1] + 1.0, p.pos[2])
            for i, s in enumerate(inv.slots):
                if s:
                    self.items.spawn(Stack(s.item, s.count), at, pop=True, pickup_delay=40)
                    inv.slots[i] = None
            self.inventory.send_inventory(p)
            self.experience.reset(p)
        self.effects.remove(p, None)
        p.health = 0.0
        # ServerPlayer.die: the death message on the death screen, and to everyone with showDeathMessages
        # (``kill`` is DamageSource.OUT_OF_WORLD: death.attack.outOfWorld with the player's display name)
        if death is None:
            death = C.translatable("death.attack.outOfWorld", self.chat.name_of(p))
        if self.game_rules["showDeathMessages"]:
            p.send("death_combat_event", wire.death_combat_event(p.eid, death, p.protocol_version))
            self.chat.broadcast(death)
        else:
            p.send("death_combat_event", wire.death_combat_event(p.eid, C.empty(), p.protocol_version))
        self.kernel.events.notify("death", p)
        self.kernel.emit("player_died", player=p.display_name)

    def _on_client_command(self, p: Player, pkt: sb.ClientCommand) -> None:
        if pkt.action_id == 0:  # 0: respawn after death
            self.respawn(p)

    def respawn(self, p: Player) -> None:
        """``client_command`` 0 after death: respawn at the world spawn (vanilla ``PlayerList.respawn``)."""
        st = self.state(p)
        if not st.dead:
            return
        st.dead = False
        p.send("respawn", wire.respawn(GAME_MODE_IDS[st.game_mode], p.protocol_version))
        p.health = 20.0
        self.movement.teleport(p, *self.spawn_position())
        p.send("player_abilities", wire.abilities(ABILITY_FLAGS[st.game_mode], 0.05, 0.1))
        self.inventory.send_inventory(p)
        self.experience.send(p)
        self._send_time(p)
        self._send_weather(p)
        self.kernel.events.notify("respawn", p)
        self.kernel.emit("player_respawned", player=p.display_name)

    def creative_slot(self, p: Player, slot: int, item: Any) -> None:
        """``set_creative_slot``: a creative player sets a window-0 slot (``-1``: throw the stack).

        Vanilla 1.19.2 answers with the slot's content (Mineflayer waits for that ``set_slot``).
        Non-creative players and out-of-range slots are ignored, as vanilla does.

        Raises:
            GameDataError: an unknown item id (the connection closes on it).
        """
        if self.game_mode(p) != "creative":
            return
        stack = from_slot(item)
        if stack is not None:
            stack = stack._replace(count=min(stack.count, facts.max_stack(stack.item)))
        if slot == -1:
            if stack is not None:
                self.items.throw(p, Stack(stack.item, stack.count))
            return
        if slot not in INVENTORY_SLOTS:
            return
        inv = p.inventory
        inv.slots[slot] = stack
        p.send_slot(0, slot, stack)
