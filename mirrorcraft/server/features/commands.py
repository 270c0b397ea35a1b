"""Commands on the embedded server: the :class:`~mirrorcraft.server.commands.CommandHost` over the game, the
command executor, chat commands and chat.

Why an adapter: the control plane must drive the embedded server through exactly the commands a vanilla
server accepts (docs/control.md); the command package (:mod:`mirrorcraft.server.commands`: grammar,
selectors, executor, reply texts) knows nothing of the game. :class:`KernelCommandHost` maps each
``CommandHost`` method onto the kernel and the features' public API; the vanilla packets are sent by those
owners. :class:`Commands` builds the executor (ops from ``ServerConfig.ops`` and ``ServerConfig.ops_file``,
vanilla's ``ops.json``, which ``op`` / ``deop`` rewrite; ``never_ops`` can never be ops) and runs commands
typed in chat with the player's op level; each reply is sent as the vanilla component the executor built
(a failure wrapped red, as ``sendFailure`` does). Chat lines are the chat feature's.

Entities (``@e``): players (join order), then item entities, then living cows. Approximations (each
documented where it is decided): effects apply to players only; ``setblock ... destroy`` drops the old
block's loot as if broken without a tool (published as a player-less dig); ``kill`` of a cow rolls its loot
table without a killer and is not published as a player kill; advancements granted by command are sent to
the client but are not published as milestones (they are not the agent's progress), although the
advancement query sees them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from twisted.internet import reactor

from mirrorcraft.errors import ContractError
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands import CommandExecutor, OpsList, Scoreboard
from mirrorcraft.server.commands.host import AdvancementInfo, EntityRef
from mirrorcraft.server.commands.suggestions import complete
from mirrorcraft.server.commands.texts import display_name, item_key
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.advancements import Advancements
from mirrorcraft.server.features.chat import Chat
from mirrorcraft.server.features.digging import Digging
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.experience import Experience
from mirrorcraft.server.features.inventory import Inventory
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.features.mobs import Mobs
from mirrorcraft.server.features.movement import Movement
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.stacks import stack
from mirrorcraft.server.world_rules import WorldRules

log = logging.getLogger(__name__)

_OVERWORLD_MIN_Y, _OVERWORLD_MAX_Y = -64, 320
# vanilla Inventory.clearOrCountMatchingItems order, as window-0 slots: main (hotbar first), armour
# (feet first), off hand; then the carried stack and the 2x2 crafting grid (ClearInventoryCommands).
_CLEAR_ORDER = [*range(36, 45), *range(9, 36), 8, 7, 6, 5, 45]
_CRAFT_GRID = (1, 2, 3, 4)


class Lifecycle(Protocol):
    """What the ``save-all`` and ``stop`` commands need from the server around the game."""

    def save(self) -> int:
        """Save the world (and its block entities); returns the chunks written."""
        ...

    def request_stop(self) -> None:
        """Stop the server (saving first), as the ``stop`` command does."""
        ...


def _title(d: Any) -> str | None:
    """A display title that is plain text (a ``translate`` title uses the vanilla language text)."""
    title = (d.display or {}).get("title")
    if isinstance(title, str):
        return title
    if isinstance(title, dict) and isinstance(title.get("text"), str):
        return title["text"]
    return None


class KernelCommandHost:
    """The embedded game as a :class:`~mirrorcraft.server.commands.CommandHost`.

    Args:
        lifecycle: ``save-all`` and ``stop`` (the composition root).
        seed: seed of ``@r`` / ``sort=random`` choices (the episode seed).
    """

    def __init__(
        self,
        kernel: Kernel,
        rules: WorldRules,
        lifecycle: Lifecycle,
        *,
        items: Items,
        inventory: Inventory,
        movement: Movement,
        experience: Experience,
        advancements: Advancements,
        effects: Effects,
        mobs: Mobs,
        admin: Admin,
        digging: Digging,
        chat: Chat,
        seed: int = 0,
    ) -> None:
        self.kernel = kernel
        self.rules = rules
        self.lifecycle = lifecycle
        self.items = items
        self.inventory = inventory
        self.movement = movement
        self._xp = experience
        self._adv = advancements
        self.effects = effects
        self.mobs = mobs
        self.admin = admin
        self.digging = digging
        self.chat = chat
        self._rng = random.Random(seed)
        #: Called with ``(name, level)`` after ``op`` / ``deop`` (the commands feature saves ``ops.json``).
        self.on_ops_changed: list[Any] = []
        self._advancements: dict[str, AdvancementInfo] | None = None

    # -- lookups -----------------------------------------------------------------------------------
    def entity_ref(self, p: Player) -> EntityRef:
        """The selector snapshot of a player in the game."""
        return EntityRef(
            uuid=str(p.uuid),
            name=p.display_name,
            type=facts.PLAYER_TYPE,
            position=(p.pos[0], p.pos[1], p.pos[2]),
            is_player=True,
            alive=not self.admin.is_dead(p),
            game_mode=self.admin.game_mode(p),  # type: ignore[arg-type]
            xp_level=self._xp.state(p).level,
        )

    def _player(self, ref: EntityRef) -> Player:
        p = self.kernel.players.by_uuid(ref.uuid) or self.kernel.players.by_name(ref.name)
        if p is None:
            raise ContractError(f"no player named {ref.name!r} is connected")
        return p

    # -- world and entities ------------------------------------------------------------------------
    def players(self) -> list[EntityRef]:
        return [self.entity_ref(p) for p in self.kernel.players.values()]  # join order

    def entities(self) -> list[EntityRef]:
        out = self.players()
        for it in self.items.entities.values():
            name = display_name("item", it.item)
            key = item_key(it.item)
            out.append(EntityRef(str(it.uuid), name, facts.ITEM_TYPE, tuple(it.pos), False, name_key=key))  # type: ignore[arg-type]
        cow_name = display_name("entity", facts.COW_TYPE)
        cow_key = "entity." + facts.COW_TYPE.replace(":", ".")
        for cow in self.mobs.living():
            out.append(
                EntityRef(str(cow.uuid), cow_name, facts.COW_TYPE, tuple(cow.pos), False, name_key=cow_key)  # type: ignore[arg-type]
            )
        return out

    def spawn_point(self) -> tuple[float, float, float]:
        x, y, z = self.kernel.world.level.spawn
        return (float(x), float(y), float(z))

    def max_players(self) -> int:
        return self.kernel.config.max_players

    def random_int(self, bound: int) -> int:
        return self._rng.randrange(bound)

    # -- inventory ---------------------------------------------------------------------------------
    def give(self, player: EntityRef, item: str, count: int) -> None:
        p = self._player(player)
        given = self.inventory.give_item(p, item, count)
        if given < count:  # vanilla GiveCommand: what does not fit drops at the feet, no pickup delay
            self.items.spawn(stack(item, count - given), tuple(p.pos), pickup_delay=0)  # type: ignore[arg-type]

    def clear(self, player: EntityRef, item: str | None, max_count: int) -> int:
        p = self._player(player)
        inv = p.inventory
        want = None if item is None else facts.item_key(item)
        limit = None if max_count < 0 else max_count
        removed = 0

        def take(stack: Any) -> Any:
            nonlocal removed
            if not stack or (want is not None and stack.item != want):
                return stack
            if max_count == 0:
                removed += stack.count
                return stack
            n = stack.count if limit is None else min(stack.count, limit - removed)
            removed += n
            return None if n >= stack.count else stack._replace(count=stack.count - n)

        for idx in _CLEAR_ORDER:
            if limit is None or removed < limit or max_count == 0:
                inv.slots[idx] = take(inv.slots[idx])
        if limit is None or removed < limit or max_count == 0:
            inv.cursor = take(inv.cursor)
        for idx in _CRAFT_GRID:
            if limit is None or removed < limit or max_count == 0:
                inv.slots[idx] = take(inv.slots[idx])
        if removed and max_count != 0:
            self.inventory.send_inventory(p)
        return removed

    # -- movement and blocks -----------------------------------------------------------------------
    def teleport(self, entity: EntityRef, x: float, y: float, z: float, yaw=None, pitch=None) -> None:
        if entity.is_player:
            p = self._player(entity)
            if yaw is not None:
                p.yaw = float(yaw)
            if pitch is not None:
                p.pitch = float(pitch)
            self.movement.teleport(p, x, y, z)
            return
        target = self._non_player(entity)
        target.pos = [x, y, z]
        body = wire.entity_teleport(target.eid, x, y, z, float(yaw or 0.0), float(pitch or 0.0), False)
        self.kernel.broadcast("entity_teleport", body)

    def is_loaded(self, x: int, y: int, z: int) -> bool:
        return _OVERWORLD_MIN_Y <= y < _OVERWORLD_MAX_Y and self.kernel.world.inside_border(x + 0.5, z + 0.5)

    def block_at(self, x: int, y: int, z: int) -> str:
        return "minecraft:" + facts.block_name(self.kernel.world.get_block(x, y, z))

    def block_properties(self, x: int, y: int, z: int) -> Mapping[str, str]:
        return facts.state_props(self.kernel.world.get_block(x, y, z))

    def set_block(self, x: int, y: int, z: int, block: str, properties: Mapping[str, str], mode: str) -> bool:
        world = self.kernel.world
        old = world.get_block(x, y, z)
        if mode == "keep" and not facts.is_air(old):
            return False
        new = facts.state_id(block.removeprefix("minecraft:"), dict(properties))
        if new == old:
            return False
        if mode == "destroy" and not facts.is_air(old):
            self.digging.break_block(None, (x, y, z))  # drops as Level.destroyBlock(pos, true): no tool
        self.kernel.set_block((x, y, z), new)
        return True

    # -- entities, modes, effects, experience ------------------------------------------------------
    def _non_player(self, ref: EntityRef) -> Any:
        for it in self.items.entities.values():
            if str(it.uuid) == ref.uuid:
                return it
        for cow in self.mobs.cows.values():
            if str(cow.uuid) == ref.uuid:
                return cow
        raise LookupError(f"no entity {ref.uuid} ({ref.type}) in the world")

    def kill(self, entity: EntityRef) -> None:
        if entity.is_player:
            self.admin.kill_player(self._player(entity))
            return
        target = self._non_player(entity)
        if entity.type == facts.ITEM_TYPE:
            self.items.remove(target)
            return
        self.mobs.kill(target)

    def set_game_mode(self, player: EntityRef, mode: str) -> None:
        self.admin.set_game_mode(self._player(player), mode)

    def add_effect(
        self, entity: EntityRef, effect: str, seconds: int, amplifier: int, hide_particles: bool
    ) -> bool:
        if not entity.is_player:
            return False  # players only (module docstring)
        return self.effects.add(self._player(entity), effect, seconds * 20, amplifier, hide_particles)

    def remove_effects(self, entity: EntityRef, effect: str | None) -> bool:
        if not entity.is_player:
            return False
        return self.effects.remove(self._player(entity), effect)

    def experience(self, player: EntityRef, unit: str) -> int:
        p = self._player(player)
        return self._xp.state(p).level if unit == "levels" else self._xp.points_in_level(p)

    def add_experience(self, player: EntityRef, amount: int, unit: str) -> None:
        p = self._player(player)
        if unit == "levels":
            self._xp.state(p).add_levels(amount)
            self._xp.send(p)
        else:
            self._xp.give_points(p, amount)

    def set_experience(self, player: EntityRef, amount: int, unit: str) -> bool:
        p = self._player(player)
        if unit == "levels":
            self._xp.state(p).level = max(0, amount)  # Player.setExperienceLevels
            self._xp.send(p)
            return True
        return self._xp.set_points(p, amount)  # points must stay within the level

    # -- world state -------------------------------------------------------------------------------
    def day_time(self) -> int:
        return self.admin.day_time

    def game_time(self) -> int:
        return self.kernel.tick_count

    def set_day_time(self, ticks: int) -> None:
        self.admin.set_day_time(ticks)

    def set_weather(self, weather: str, duration_ticks: int) -> None:
        self.admin.set_weather(weather, duration_ticks)

    def game_rule(self, name: str) -> bool | int:
        return self.admin.game_rules[name]

    def set_game_rule(self, name: str, value: bool | int) -> None:
        self.admin.set_game_rule(name, value)

    def function(self, name: str) -> tuple[str, ...] | None:
        return self.rules.packs.functions.get(name)

    def difficulty(self):  # noqa: ANN201 - Difficulty literal
        return self.admin.difficulty

    def set_difficulty(self, difficulty: str) -> None:
        self.admin.set_difficulty(difficulty)

    # -- advancements ------------------------------------------------------------------------------
    def advancements(self) -> Mapping[str, AdvancementInfo]:
        if self._advancements is None:
            self._advancements = {
                a: AdvancementInfo(
                    id=a,
                    parent=d.parent,
                    criteria=tuple(d.criteria),
                    title=_title(d),
                    requirements=tuple(tuple(g) for g in d.requirements),
                    display=d.display,
                )
                for a, d in sorted(self.rules.packs.advancements.items())
            }
        return self._advancements

    def advancement_criteria(self, player: EntityRef, advancement: str) -> frozenset[str]:
        adv = self._adv.of(self._player(player))
        return frozenset(adv.progress.get(advancement, {}))

    def grant_criterion(self, player: EntityRef, advancement: str, criterion: str) -> bool:
        return self._adv.grant(self._player(player), advancement, criterion)

    def revoke_criterion(self, player: EntityRef, advancement: str, criterion: str) -> bool:
        return self._adv.revoke(self._player(player), advancement, criterion)

    def dimensions(self) -> list[str]:
        return [facts.OVERWORLD]  # the embedded server runs one level

    def default_game_mode(self):  # noqa: ANN201 - GameMode literal
        return self.admin.default_game_mode

    def set_default_game_mode(self, mode: str) -> None:
        self.admin.default_game_mode = mode

    # -- chat and messages ---------------------------------------------------------------------------
    def broadcast(self, message: Mapping[str, Any]) -> None:
        self.chat.broadcast(message)

    def tell(self, player: EntityRef, message: Mapping[str, Any]) -> None:
        self.chat.tell(self._player(player), message)

    def title(self, player: EntityRef, action: str, message: Any, times: Any) -> None:
        p = self._player(player)
        if action == "title":
            p.send("set_title_text", wire.title_text(message))
        elif action == "subtitle":
            p.send("set_title_subtitle", wire.title_subtitle(message))
        elif action == "actionbar":
            p.send("action_bar", wire.action_bar(message))
        elif action == "times":
            p.send("set_title_time", wire.title_times(*times))
        else:
            p.send("clear_titles", wire.clear_titles(action == "reset"))

    def profile(self, name: str) -> str | None:
        online = self.kernel.players.by_name(name)
        if online is not None:
            return online.display_name
        return next((n for n in self.admin.players if n.lower() == name.lower()), None)

    def permission_level_changed(self, name: str, level: int) -> None:
        p = self.kernel.players.by_name(name)
        if (
            p is not None
        ):  # ServerPlayer op level: entity event 24 + level (PlayerList.sendPlayerPermissionLevel)
            p.send("entity_status", wire.entity_status(p.eid, 24 + level))
        for fn in self.on_ops_changed:
            fn(name, level)

    # -- server ------------------------------------------------------------------------------------

    def save(self, flush: bool) -> bool:
        try:
            self.lifecycle.save()
        except OSError as err:
            log.error("save-all failed: %s", err)
            return False
        return True

    def stop(self) -> None:
        # after the reply is sent (vanilla halts once the command returns)
        reactor.callLater(0, self.lifecycle.request_stop)


class Commands:
    """The command executor over the game (through ``host``), and the commands players type in chat.

    Ops come from ``ServerConfig.ops`` (level 4) and, when ``ServerConfig.ops_file`` is set, vanilla's
    ``ops.json`` there (read at start, rewritten by every ``op`` / ``deop``).
    """

    def __init__(
        self, kernel: Kernel, host: KernelCommandHost, chat: Chat, scoreboard: Scoreboard | None = None
    ) -> None:
        self.kernel = kernel
        self.host = host
        self.chat = chat
        cfg = kernel.config
        self.ops_file: Path | None = Path(cfg.ops_file) if cfg.ops_file is not None else None
        ops = (
            OpsList.load(self.ops_file, set(cfg.never_ops))
            if self.ops_file
            else OpsList(never_ops=set(cfg.never_ops))
        )
        for name in cfg.ops:
            if not ops.is_op(name):
                ops.add(name)
        self.executor = CommandExecutor(host, ops, scoreboard)
        chat.is_op = lambda p: self.executor.ops.is_op(p.display_name)  # ops are exempt from the spam kick
        host.on_ops_changed.append(self._save_ops)
        kernel.handlers.register("chat_command", lambda p, pkt: self.chat_command(p, pkt.command))
        kernel.handlers.register("tab_complete", self._on_tab_complete)

    def _on_tab_complete(self, p: Player, pkt: Any) -> None:
        """``ServerGamePacketListenerImpl.handleCustomCommandSuggestions``: completions of the text from the
        command tree, answered with the request's transaction id (:mod:`~mirrorcraft.server.commands.
        suggestions`)."""
        level = self.executor.ops.level(p.display_name)
        players = lambda: [o.display_name for o in self.kernel.players.values()]  # noqa: E731
        s = complete(pkt.text, level, players)
        p.send("tab_complete", wire.tab_complete(pkt.transaction_id, s.start, s.length, s.matches))

    def _save_ops(self, name: str, level: int) -> None:
        if self.ops_file is not None:
            self.executor.ops.save(self.ops_file)

    def chat_command(self, p: Player, text: str) -> None:
        """A command typed in chat: run with the player's op level; each reply as system chat."""
        result = self.executor.run(self.executor.player_source(self.host.entity_ref(p)), text)
        for message in result.components:
            self.chat.tell(p, message)
        log.info("%s issued server command: /%s", p.display_name, text)
