"""Server-side admin state of the embedded server, the state vanilla's op commands act on, and its control
plane (command executor, RCON listener, chat commands, creative-mode packets).

Why a separate module: part 1 (:mod:`~mirrorcraft.server.game`) only knew the benchmark ``Controls`` as
fixed join-time values and part 2 (:mod:`~mirrorcraft.server.progress`) owns experience and advancements.
The vanilla commands (docs/control.md) need that state to be *mutable*: ``time set``, ``weather``,
``difficulty``, ``gamerule``, ``gamemode``, ``effect give|clear``, ``kill``. :class:`ServerAdmin` holds it,
starts from the server's ``Controls`` (so the built-in defaults equal what
:class:`~mirrorcraft.harness.control.RconServerControl` applies over RCON), sends the vanilla packets when
it changes, and enters the game through a few one-line hooks (``game.admin.<hook>``). Experience and
advancements stay in part 2's per-player state and are only read and written through it.

Vanilla behaviour followed (wiki.vg "Protocol" 1.19.2 for packets, the Minecraft Wiki for rules):

* time: day time advances one per tick while ``doDaylightCycle`` is true; ``update_time`` is sent every
  20 ticks (vanilla ``MinecraftServer.tickChildren``) with a negative time of day when the cycle is frozen.
* weather: ``game_state_change`` 1/2 (start/stop rain), 7 (rain level), 8 (thunder level). With
  ``doWeatherCycle`` true a commanded weather counts down and then clears; vanilla's random weather
  changes after that are **not** simulated (the benchmark runs with ``doWeatherCycle false``).
* effects: one active instance per effect with vanilla ``MobEffectInstance.update`` rules (a stronger
  amplifier replaces, the same amplifier extends, a weaker one is refused); durations tick down and expire
  with ``remove_entity_effect``. Haste, Mining Fatigue and Speed feed part 1's dig-time and movement
  checks through :meth:`ServerAdmin.effects_of`. Effects apply to players only (cows and items are not
  living entities the server gives effects to: ``effect give`` on them reports vanilla's failure).
* game mode: ``game_state_change`` 3, ``abilities`` (creative: invulnerable, may fly, instant build;
  spectator: invulnerable, flying) and the player-list game mode. Creative players break blocks
  instantly without drops and may set inventory slots (``set_creative_slot``); adventure and spectator
  players cannot break blocks. Creative placement still consumes the item (part 1's placement code;
  vanilla does not consume) — a known difference.
* kill: a player dies (``update_health`` with health 0, inventory dropped unless ``keepInventory``,
  effects cleared, experience reset unless ``keepInventory``; no experience orbs) and respawns at the
  world spawn when the client sends ``client_command`` 0 (``respawn`` packet, position, abilities,
  inventory, health; a fresh food bar, ``server/food.py``). Items vanish; cows die with the death
  animation and their loot table rolled without a killer.
* game rules: all 36 are stored. Honoured: ``doDaylightCycle``, ``doWeatherCycle``, ``keepInventory``,
  ``sendCommandFeedback`` (by the executor), ``doMobSpawning`` (natural cow spawning,
  ``server/spawning.py``), ``naturalRegeneration`` (``server/food.py``). Stored only (the server has no
  such mechanic): the rest, including ``randomTickSpeed`` (no random ticks: crops do not grow).
* admin state (time, weather, rules, difficulty, game modes, effects) is not written to ``level.dat`` by
  ``save-all``: an episode always starts from a fresh copy of its world.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twisted.internet import reactor

from mirrorcraft.contracts.episodes import EFFECT_SECONDS
from mirrorcraft.errors import ContractError
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.codec import encode
from mirrorcraft.protocol.quarry_names import quarry_name
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands.grammar import GAME_RULES

if TYPE_CHECKING:
    from mirrorcraft.server.commands.executor import CommandExecutor
    from mirrorcraft.server.connection import PlayerConnection
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

GAME_MODE_IDS = {"survival": 0, "creative": 1, "adventure": 2, "spectator": 3}
DIFFICULTY_IDS = {"peaceful": 0, "easy": 1, "normal": 2, "hard": 3}
# abilities flags (wiki.vg "Player Abilities (clientbound)"): 0x01 invulnerable, 0x02 flying,
# 0x04 allow flying, 0x08 creative mode (instant break)
ABILITY_FLAGS = {"survival": 0x00, "creative": 0x0D, "adventure": 0x00, "spectator": 0x07}
TIME_PACKET_INTERVAL = 20  # ticks between update_time packets (vanilla)
# window-0 slots a creative client may set: crafting grid, armour, main inventory, hotbar, off hand
INVENTORY_SLOTS = range(1, 46)


@dataclass
class ActiveEffect:
    """One status effect on a player: ``remaining`` in ticks."""

    effect: str
    amplifier: int
    remaining: int
    hide_particles: bool = False

    def flags(self) -> int:
        """``entity_effect`` flags: 0x02 show particles, 0x04 show icon (the command always shows it)."""
        return (0 if self.hide_particles else 0x02) | 0x04


@dataclass
class PlayerAdmin:
    """Per-player admin state (kept by name across reconnects, like part 2's progress)."""

    game_mode: str = "survival"
    effects: dict[str, ActiveEffect] = field(default_factory=dict)
    dead: bool = False


def _send(p: PlayerConnection, pkt: cb.Packet) -> None:
    """Send one of our packet objects to ``p`` (quarry name resolved through the packet id)."""
    p.send(quarry_name(pkt.NAME, p.protocol_version, "clientbound"), encode(pkt, p.protocol_version))


class ServerAdmin:
    """Mutable world and player state the op commands act on, for one :class:`Game`.

    Args:
        game: the game (its ``config.controls`` give the starting values).

    Raises:
        ContractError: ``controls.game_rules`` names a rule 1.19.2 does not have, or gives it a value of
            the wrong type.
    """

    def __init__(self, game: Game) -> None:
        ctl = game.config.controls
        self.game = game
        self.game_rules: dict[str, bool | int] = dict(GAME_RULES)
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
        self.executor: CommandExecutor | None = None
        self.rcon_password: str | None = None
        self._rcon_listening: Any = None
        self._last_tick: int | None = None
        self.on_stop: list[Callable[[], object]] = []  # run after a ``stop`` command stopped the server
        game.listeners.append(self._on_event)

    # ---- per-player state --------------------------------------------------------------------------

    def state(self, p: PlayerConnection) -> PlayerAdmin:
        """Admin state of ``p`` (created with the controls' effects at first use)."""
        st = self.players.get(p.display_name)
        if st is None:
            # The same instances RconServerControl gives (``effect give ... 1000000 <amp> <hide>``).
            st = PlayerAdmin(
                effects={
                    e.effect: ActiveEffect(e.effect, e.amplifier, EFFECT_SECONDS * 20, e.hide_particles)
                    for e in self.game.config.controls.effects
                }
            )
            self.players[p.display_name] = st
        return st

    def effects_of(self, p: PlayerConnection) -> list[ActiveEffect]:
        """Active effects of ``p`` (read by part 1's dig-time and movement checks)."""
        return list(self.state(p).effects.values())

    def game_mode(self, p: PlayerConnection) -> str:
        """``survival``, ``creative``, ``adventure`` or ``spectator``."""
        return self.state(p).game_mode

    # ---- events and ticking ------------------------------------------------------------------------

    def _on_event(self, event: str, data: dict) -> None:
        if event != "join":
            return
        for p in self.game.players.values():
            if p.display_name == data.get("player"):
                self.joined(p)

    def joined(self, p: PlayerConnection) -> None:
        """After the join sequence: send the current state where it differs from the join defaults."""
        st = self.state(p)
        st.dead = False
        _send(p, cb.Difficulty(difficulty=DIFFICULTY_IDS[self.difficulty], locked=True))
        self._send_time(p)
        self._send_weather(p)
        for e in self.game.config.controls.effects:
            if e.effect not in st.effects:
                _send(p, cb.RemoveEntityEffect(entity_id=p.eid, effect_id=facts.effect_id(e.effect)))
        for eff in st.effects.values():
            self._send_effect(p, eff)
        if st.game_mode != "survival":
            self._send_game_mode(p, st.game_mode)

    def tick(self) -> None:
        """One tick: day time, weather countdown, effect durations, the periodic time packet.

        Game time skipped by part 1's catch-up (a late reactor) counts too, so the day time and the effect
        durations stay in step with ``time query gametime``.
        """
        now = self.game.tick_count
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
        for p in list(self.game.players.values()):
            st = self.state(p)
            for eff in list(st.effects.values()):
                eff.remaining -= elapsed
                if eff.remaining <= 0:
                    del st.effects[eff.effect]
                    _send(p, cb.RemoveEntityEffect(entity_id=p.eid, effect_id=facts.effect_id(eff.effect)))
            if periodic:
                self._send_time(p)

    # ---- packets -----------------------------------------------------------------------------------

    def _send_time(self, p: PlayerConnection) -> None:
        # wiki.vg "Update Time": a negative time of day stops the client's daylight cycle.
        tod = self.day_time if self.game_rules["doDaylightCycle"] else -self.day_time
        p.send("time_update", wire.update_time(self.game.tick_count, tod))

    def _send_weather(self, p: PlayerConnection) -> None:
        wet = self.weather != "clear"
        # reason 1 starts and 2 stops rain (vanilla START_RAINING / STOP_RAINING; wiki.vg's labels are swapped)
        p.send("change_game_state", wire.game_state_change(1 if wet else 2, 0.0))
        p.send("change_game_state", wire.game_state_change(7, 1.0 if wet else 0.0))
        p.send("change_game_state", wire.game_state_change(8, 1.0 if self.weather == "thunder" else 0.0))

    def _send_effect(self, p: PlayerConnection, eff: ActiveEffect) -> None:
        body = wire.entity_effect(
            p.eid, facts.effect_id(eff.effect), eff.amplifier, eff.remaining, eff.flags()
        )
        p.send("entity_effect", body)

    def _send_game_mode(self, p: PlayerConnection, mode: str) -> None:
        p.send("change_game_state", wire.game_state_change(3, float(GAME_MODE_IDS[mode])))
        p.send("player_abilities", wire.abilities(ABILITY_FLAGS[mode], 0.05, 0.1))
        row = cb.PlayerInfo(action=1, entries=[cb.PlayerInfoEntry(p.uuid, gamemode=GAME_MODE_IDS[mode])])
        for o in self.game.players.values():
            _send(o, row)

    # ---- world state -------------------------------------------------------------------------------

    def set_day_time(self, ticks: int) -> None:
        """``time set`` / ``time add``: change the day time and tell everyone."""
        self.day_time = ticks
        for p in self.game.players.values():
            self._send_time(p)

    def set_weather(self, weather: str, duration_ticks: int) -> None:
        """``weather``: clear / rain / thunder (``-1``: no countdown)."""
        if weather not in ("clear", "rain", "thunder"):
            raise ContractError(f"set_weather: unknown weather {weather!r}")
        self.weather = weather
        self.weather_ticks = duration_ticks
        for p in self.game.players.values():
            self._send_weather(p)

    def set_difficulty(self, difficulty: str) -> None:
        """``difficulty``: store and send the difficulty packet."""
        self.difficulty = difficulty
        for p in self.game.players.values():
            _send(p, cb.Difficulty(difficulty=DIFFICULTY_IDS[difficulty], locked=True))

    def set_game_rule(self, name: str, value: bool | int) -> None:
        """``gamerule``: store (the day-time freeze is sent at once)."""
        if name not in GAME_RULES:
            raise ContractError(f"set_game_rule: unknown game rule {name!r}")
        self.game_rules[name] = value
        if name == "doDaylightCycle":
            for p in self.game.players.values():
                self._send_time(p)

    # ---- players -----------------------------------------------------------------------------------

    def set_game_mode(self, p: PlayerConnection, mode: str) -> None:
        """``gamemode``: change ``p``'s mode and tell the clients."""
        if mode not in GAME_MODE_IDS:
            raise ContractError(f"set_game_mode: unknown game mode {mode!r}")
        self.state(p).game_mode = mode
        self._send_game_mode(p, mode)

    def add_effect(self, p: PlayerConnection, effect: str, ticks: int, amplifier: int, hide: bool) -> bool:
        """Vanilla ``LivingEntity.addEffect``; False when nothing changed (a stronger one is active)."""
        facts.effect_id(effect)  # unknown effect: KeyError naming it
        st = self.state(p)
        cur = st.effects.get(effect)
        if cur is None:
            cur = st.effects[effect] = ActiveEffect(effect, amplifier, ticks, hide)
            changed = True
        else:  # MobEffectInstance.update
            changed = False
            if amplifier > cur.amplifier:
                cur.amplifier, cur.remaining, changed = amplifier, ticks, True
            elif amplifier == cur.amplifier and ticks > cur.remaining:
                cur.remaining, changed = ticks, True
            if hide != cur.hide_particles:
                cur.hide_particles, changed = hide, True
        if changed:
            self._send_effect(p, cur)
        return changed

    def remove_effects(self, p: PlayerConnection, effect: str | None) -> bool:
        """``effect clear``: one effect or all; False when nothing was removed."""
        st = self.state(p)
        names = list(st.effects) if effect is None else [effect] if effect in st.effects else []
        for name in names:
            del st.effects[name]
            _send(p, cb.RemoveEntityEffect(entity_id=p.eid, effect_id=facts.effect_id(name)))
        return bool(names)

    def kill_player(self, p: PlayerConnection) -> None:
        """Vanilla death: drops (unless ``keepInventory``), effects cleared, health 0 (death screen)."""
        st = self.state(p)
        st.dead = True
        p.dig = None
        p.delayed_dig = None
        keep = bool(self.game_rules["keepInventory"])
        if not keep:
            inv = p.inventory
            at = (p.pos[0], p.pos[1] + 1.0, p.pos[2])
            for i, s in enumerate(inv.slots):
                if s:
                    self.game.spawn_item(s[0], s[1], at, pop=True, pickup_delay=40)
                    inv.slots[i] = None
            self.game.send_inventory(p)
            prog = self.game.rules.state(p)
            prog.level, prog.progress = 0, 0.0
            self.game.rules.send_xp(p)
        self.remove_effects(p, None)
        p.health = 0.0
        death = json.dumps({"translate": "death.attack.outOfWorld", "with": [p.display_name]})
        _send(p, cb.DeathCombatEvent(player_id=p.eid, entity_id=-1, message=death))
        self.game.food.state(p).eating = None
        p.send("update_health", self.game.food.health_body(p))
        self.game.emit("player_died", player=p.display_name)

    def respawn(self, p: PlayerConnection) -> None:
        """``client_command`` 0 after death: respawn at the world spawn (vanilla ``PlayerList.respawn``)."""
        st = self.state(p)
        if not st.dead:
            return
        st.dead = False
        mode = GAME_MODE_IDS[st.game_mode]
        _send(
            p,
            cb.Respawn(
                dimension_type="minecraft:overworld",
                world_name="minecraft:overworld",
                hashed_seed=0,
                game_mode=mode,
                previous_game_mode=-1,
                is_debug=False,
                is_flat=False,
                copy_metadata=False,
                death=None,
            ),
        )
        p.health = 20.0
        sx, sy, sz = self.game.world.level.spawn
        self.game.teleport(p, sx + 0.5, float(sy), sz + 0.5)
        p.send("player_abilities", wire.abilities(ABILITY_FLAGS[st.game_mode], 0.05, 0.1))
        self.game.send_inventory(p)
        self.game.rules.send_xp(p)
        self._send_time(p)
        self._send_weather(p)
        self.game.food.reset(p)  # vanilla respawns a new player: food 20, saturation 5
        p.send("update_health", self.game.food.health_body(p))
        self.game.emit("player_respawned", player=p.display_name)

    # ---- serverbound packets (hooks in connection.py) ----------------------------------------------

    def handle_dig(self, p: PlayerConnection, status: int, pos: tuple[int, int, int]) -> bool:
        """Game-mode rules of ``player_digging`` 0/2; True if handled here (the caller acknowledges).

        Creative: the start packet breaks the block at once with no drops (vanilla
        ``ServerPlayerGameMode.handleBlockBreakAction``), the finish packet is ignored. Adventure and
        spectator: the block is resent (they cannot break blocks).
        """
        if status not in (0, 2):
            return False
        mode = self.game_mode(p)
        if mode == "survival":
            return False
        state = self.game.world.get_block(*pos)
        if mode == "creative" and status == 0 and not facts.is_air(state) and self.game._within_reach(p, pos):
            block = facts.block_of_state(state)
            self.game.set_block(pos, 0)
            self.game.emit("block_broken_creative", player=p.display_name, pos=pos, block=block.name)
        elif mode != "creative":
            p.send("block_change", wire.block_change(*pos, state))
        return True

    def creative_slot(self, p: PlayerConnection, slot: int, item: Any) -> None:
        """``set_creative_slot``: a creative player sets a window-0 slot (``-1``: throw the stack).

        Vanilla 1.19.2 answers with the slot's content (Mineflayer waits for that ``set_slot``).
        Non-creative players and out-of-range slots are ignored, as vanilla does.
        """
        if self.game_mode(p) != "creative":
            return
        stack: tuple | None = None
        if item is not None and item.count > 0:
            facts.item_name(item.item_id)  # unknown id: error naming it
            count = min(item.count, facts.stack_size(item.item_id))
            stack = (item.item_id, count, item.nbt) if item.nbt is not None else (item.item_id, count)
        if slot == -1:
            if stack is not None:
                self.game.throw(p, (stack[0], stack[1]))
            return
        if slot not in INVENTORY_SLOTS:
            return
        from mirrorcraft.server.menus import set_slot_body

        inv = p.inventory
        inv.slots[slot] = stack
        inv.state_id += 1
        p.send("set_slot", set_slot_body(0, inv.state_id, slot, stack))

    def chat_command(self, p: PlayerConnection, text: str) -> None:
        """A command typed in chat: run with the player's op level; replies as system chat (red on failure)."""
        if self.executor is None:
            return
        from mirrorcraft.server.commands.host_adapter import entity_ref

        result = self.executor.run(self.executor.player_source(entity_ref(self.game, p)), text)
        for line in result.messages:
            msg: dict[str, Any] = {"text": line}
            if not result.success:
                msg["color"] = "red"
            self.tell(p, msg)
        log.info("%s issued server command: /%s", p.display_name, text)

    def chat(self, p: PlayerConnection, text: str) -> None:
        """A chat message: broadcast as ``<name> text`` (unsigned system chat; no chat signing)."""
        line = {"translate": "chat.type.text", "with": [p.display_name, text]}
        for o in self.game.players.values():
            self.tell(o, line)

    def tell(self, p: PlayerConnection, text: str | dict) -> None:
        """One system chat message to ``p`` (JSON text component or plain text)."""
        content = json.dumps(text if isinstance(text, dict) else {"text": text})
        _send(p, cb.SystemChat(content=content, type=1, overlay=False))

    # ---- control plane -----------------------------------------------------------------------------

    def start_control(self, server: Any) -> None:
        """Build the command executor over ``server`` and listen for RCON if ``config.rcon_port`` is set.

        The RCON listener binds 127.0.0.1 only; the password is ``config.rcon_password`` or a random one
        (:class:`~mirrorcraft.server.rcon.RconServerFactory`), readable as :attr:`rcon_password`.
        """
        from mirrorcraft.server.commands import CommandExecutor, OpEntry, OpsList
        from mirrorcraft.server.commands.host_adapter import EmbeddedCommandHost

        cfg = self.game.config
        ops = OpsList([OpEntry(name=n) for n in cfg.ops], never_ops=set(cfg.never_ops))
        self.executor = CommandExecutor(EmbeddedCommandHost(server, seed=cfg.episode_seed), ops)
        if cfg.rcon_port is None:
            return
        from mirrorcraft.server.rcon import RconServerFactory

        factory = RconServerFactory(self.executor.rcon_handler(), password=cfg.rcon_password)
        self.rcon_password = factory.password
        self._rcon_listening = factory.listen(reactor, cfg.rcon_port, "127.0.0.1")

    @property
    def rcon_port(self) -> int | None:
        """The bound RCON port (None when RCON is off)."""
        return None if self._rcon_listening is None else self._rcon_listening.getHost().port

    def stop_control(self) -> Any:
        """Stop listening for RCON; returns the listener's Deferred (or None)."""
        listening, self._rcon_listening = self._rcon_listening, None
        return listening.stopListening() if listening is not None else None

    def stop_requested(self, server: Any) -> None:
        """The ``stop`` command: close RCON, save and stop the server, then run :attr:`on_stop`."""
        self.stop_control()
        server.stop(save=True)
        for fn in list(self.on_stop):
            fn()
