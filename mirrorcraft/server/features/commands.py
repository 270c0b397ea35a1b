"""Commands on the embedded server: the :class:`~mirrorcraft.server.commands.CommandHost` over the game, the
command executor, chat commands and chat.

Why an adapter: the control plane must drive the embedded server through exactly the commands a vanilla
server accepts (docs/control.md); the command package (:mod:`mirrorcraft.server.commands`: grammar,
selectors, executor, reply texts) knows nothing of the game. :class:`KernelCommandHost` maps each
``CommandHost`` method onto the kernel and the features' public API; the vanilla packets are sent by those
owners. :class:`Commands` builds the executor (ops from ``ServerConfig.ops``; ``never_ops`` can never be
ops), runs commands typed in chat with the player's op level (replies as system chat, red on failure), and
broadcasts chat as ``<name> text`` (unsigned system chat; no chat signing).

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
from typing import Any, Protocol

from twisted.internet import reactor

from mirrorcraft.errors import ContractError
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands import CommandExecutor, OpEntry, OpsList
from mirrorcraft.server.commands.host import AdvancementInfo, EntityRef
from mirrorcraft.server.commands.texts import display_name
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.advancements import Advancements
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
        self._rng = random.Random(seed)
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
            out.append(EntityRef(str(it.uuid), name, facts.ITEM_TYPE, tuple(it.pos), False))  # type: ignore[arg-type]
        cow_name = display_name("entity", facts.COW_TYPE)
        for cow in self.mobs.living():
            out.append(EntityRef(str(cow.uuid), cow_name, facts.COW_TYPE, tuple(cow.pos), False))  # type: ignore[arg-type]
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

    # -- server ------------------------------------------------------------------------------------
    def broadcast(self, text: str) -> None:
        log.info("[broadcast] %s", text)
        for p in self.kernel.players.values():
            tell(p, text)

    def tell(self, player: EntityRef, text: str) -> None:
        tell(self._player(player), text)

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
    """The command executor over the game (through ``host``), and commands and chat typed by players."""

    def __init__(self, kernel: Kernel, host: KernelCommandHost) -> None:
        self.kernel = kernel
        self.host = host
        cfg = kernel.config
        ops = OpsList([OpEntry(name=n) for n in cfg.ops], never_ops=set(cfg.never_ops))
        self.executor = CommandExecutor(host, ops)
        kernel.handlers.register("chat_command", lambda p, pkt: self.chat_command(p, pkt.command))
        kernel.handlers.register("chat_message", lambda p, pkt: self.chat(p, pkt.message))

    def chat_command(self, p: Player, text: str) -> None:
        """A command typed in chat: run with the player's op level; replies as system chat (red on failure)."""
        result = self.executor.run(self.executor.player_source(self.host.entity_ref(p)), text)
        for line in result.messages:
            msg: dict[str, Any] = {"text": line}
            if not result.success:
                msg["color"] = "red"
            tell(p, msg)
        log.info("%s issued server command: /%s", p.display_name, text)

    def chat(self, p: Player, text: str) -> None:
        """A chat message: broadcast as ``<name> text`` (unsigned system chat; no chat signing)."""
        line = {"translate": "chat.type.text", "with": [p.display_name, text]}
        for o in self.kernel.players.values():
            tell(o, line)


def tell(p: Player, text: str | dict) -> None:
    """One system chat message to ``p`` (JSON text component or plain text)."""
    component = text if isinstance(text, dict) else {"text": text}
    p.send("system_message", wire.system_chat(component, p.protocol_version))
