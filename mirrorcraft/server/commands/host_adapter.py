"""``CommandHost`` over the embedded server: every vanilla command of docs/control.md runs against the game.

Why an adapter: the control plane must drive the embedded server through exactly the commands a vanilla
server accepts (docs/control.md), and the game's state lives in three places — part 1's
:class:`~mirrorcraft.server.game.Game` (players, blocks, item entities, inventories), part 2's
:class:`~mirrorcraft.server.progress.Rules` (experience, per-player advancements, cows) and
:class:`~mirrorcraft.server.admin.ServerAdmin` (time, weather, game rules, difficulty, game modes,
effects). This module maps each :class:`CommandHost` method onto their public API; the vanilla packets
are sent by those owners.

Entities (``@e``): players (join order), then item entities, then living cows. Approximations (each
documented where it is decided): effects apply to players only; ``setblock ... destroy`` drops the old
block's loot as if broken without a tool (recorded by the evaluator as a player-less dig); ``kill`` of a
cow rolls its loot table without a killer and is not recorded as a player kill; advancements granted by
command are sent to the client but are not recorded as evaluator milestones (they are not the agent's
progress), although the advancement query sees them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from twisted.internet import reactor

from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.codec import encode
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands.host import AdvancementInfo, EntityRef
from mirrorcraft.server.commands.texts import display_name

if TYPE_CHECKING:
    from mirrorcraft.server.connection import PlayerConnection
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

_OVERWORLD_MIN_Y, _OVERWORLD_MAX_Y = -64, 320
# vanilla Inventory.clearOrCountMatchingItems order, as window-0 slots: main (hotbar first), armour
# (feet first), off hand; then the carried stack and the 2x2 crafting grid (ClearInventoryCommands).
_CLEAR_ORDER = [*range(36, 45), *range(9, 36), 8, 7, 6, 5, 45]
_CRAFT_GRID = (1, 2, 3, 4)


def entity_ref(game: Game, p: PlayerConnection) -> EntityRef:
    """The selector snapshot of a connected player."""
    admin = game.admin
    return EntityRef(
        uuid=str(p.uuid),
        name=p.display_name,
        type="minecraft:player",
        position=(p.pos[0], p.pos[1], p.pos[2]),
        is_player=True,
        alive=not admin.state(p).dead,
        game_mode=admin.game_mode(p),  # type: ignore[arg-type]
        xp_level=game.rules.state(p).level,
    )


def _title(d: Any) -> str | None:
    """A display title that is plain text (a ``translate`` title uses the vanilla language text)."""
    title = (d.display or {}).get("title")
    if isinstance(title, str):
        return title
    if isinstance(title, dict) and isinstance(title.get("text"), str):
        return title["text"]
    return None


class EmbeddedCommandHost:
    """The embedded server as a :class:`CommandHost`.

    Args:
        server: a started :class:`~mirrorcraft.server.embedded.EmbeddedServer`.
        seed: seed of ``@r`` / ``sort=random`` choices.
    """

    def __init__(self, server: Any, seed: int = 0) -> None:
        self.server = server
        self._rng = random.Random(seed)
        self._advancements: dict[str, AdvancementInfo] | None = None

    @property
    def game(self) -> Game:
        return self.server.game

    # -- lookups -----------------------------------------------------------------------------------
    def _player(self, ref: EntityRef) -> PlayerConnection:
        for p in self.game.players.values():
            if str(p.uuid) == ref.uuid:
                return p
        return self.server.player(ref.name)  # ContractError naming the player

    def _online(self) -> list[PlayerConnection]:
        return list(self.game.players.values())  # dict order = join order

    # -- world and entities ------------------------------------------------------------------------
    def players(self) -> list[EntityRef]:
        return [entity_ref(self.game, p) for p in self._online()]

    def entities(self) -> list[EntityRef]:
        out = self.players()
        for it in self.game.items.values():
            name = display_name("item", "minecraft:" + facts.item_name(it.item))
            out.append(EntityRef(str(it.uuid), name, "minecraft:item", tuple(it.pos), False))  # type: ignore[arg-type]
        cow_name = display_name("entity", "minecraft:cow")
        for cow in self.game.rules.mobs.cows.values():
            if cow.dead_for < 0:
                out.append(EntityRef(str(cow.uuid), cow_name, "minecraft:cow", tuple(cow.pos), False))  # type: ignore[arg-type]
        return out

    def spawn_point(self) -> tuple[float, float, float]:
        x, y, z = self.game.world.level.spawn
        return (float(x), float(y), float(z))

    def max_players(self) -> int:
        return self.server.config.max_players

    def random_int(self, bound: int) -> int:
        return self._rng.randrange(bound)

    # -- inventory ---------------------------------------------------------------------------------
    def give(self, player: EntityRef, item: str, count: int) -> None:
        given = self.server.give_item(player.name, item.removeprefix("minecraft:"), count)
        if given < count:  # vanilla GiveCommand: what does not fit drops at the feet, no pickup delay
            p = self._player(player)
            self.game.spawn_item(facts.item_id(item.removeprefix("minecraft:")), count - given,
                                 tuple(p.pos), pickup_delay=0)  # fmt: skip

    def clear(self, player: EntityRef, item: str | None, max_count: int) -> int:
        p = self._player(player)
        inv = p.inventory
        want = None if item is None else facts.item_id(item.removeprefix("minecraft:"))
        limit = None if max_count < 0 else max_count
        removed = 0

        def take(stack: Any) -> Any:
            nonlocal removed
            if not stack or (want is not None and stack[0] != want):
                return stack
            if max_count == 0:
                removed += stack[1]
                return stack
            n = stack[1] if limit is None else min(stack[1], limit - removed)
            removed += n
            return None if n >= stack[1] else (stack[0], stack[1] - n, *stack[2:])

        for idx in _CLEAR_ORDER:
            if limit is None or removed < limit or max_count == 0:
                inv.slots[idx] = take(inv.slots[idx])
        if limit is None or removed < limit or max_count == 0:
            inv.cursor = take(inv.cursor)
        for idx in _CRAFT_GRID:
            if limit is None or removed < limit or max_count == 0:
                inv.slots[idx] = take(inv.slots[idx])
        if removed and max_count != 0:
            self.game.send_inventory(p)
        return removed

    # -- movement and blocks -----------------------------------------------------------------------
    def teleport(self, entity: EntityRef, x: float, y: float, z: float, yaw=None, pitch=None) -> None:
        if entity.is_player:
            p = self._player(entity)
            if yaw is not None:
                p.yaw = float(yaw)
            if pitch is not None:
                p.pitch = float(pitch)
            self.game.teleport(p, x, y, z)
            return
        target = self._non_player(entity)
        target.pos = [x, y, z]
        body = wire.entity_teleport(target.eid, x, y, z, float(yaw or 0.0), float(pitch or 0.0), False)
        for o in self.game.players.values():
            o.send("entity_teleport", body)

    def is_loaded(self, x: int, y: int, z: int) -> bool:
        return _OVERWORLD_MIN_Y <= y < _OVERWORLD_MAX_Y and self.game.world.inside_border(x + 0.5, z + 0.5)

    def block_at(self, x: int, y: int, z: int) -> str:
        return "minecraft:" + self.server.block_at(x, y, z)

    def set_block(self, x: int, y: int, z: int, block: str, properties: Mapping[str, str], mode: str) -> bool:
        old = self.game.world.get_block(x, y, z)
        if mode == "keep" and not facts.is_air(old):
            return False
        new = facts.state_id(block.removeprefix("minecraft:"), dict(properties))
        if new == old:
            return False
        if mode == "destroy" and not facts.is_air(old):
            self.game.break_block(None, (x, y, z))  # drops as Level.destroyBlock(pos, true): no tool
        self.game.set_block((x, y, z), new)
        return True

    # -- entities, modes, effects, experience ------------------------------------------------------
    def _non_player(self, ref: EntityRef) -> Any:
        for it in self.game.items.values():
            if str(it.uuid) == ref.uuid:
                return it
        for cow in self.game.rules.mobs.cows.values():
            if str(cow.uuid) == ref.uuid:
                return cow
        raise LookupError(f"no entity {ref.uuid} ({ref.type}) in the world")

    def kill(self, entity: EntityRef) -> None:
        if entity.is_player:
            self.game.admin.kill_player(self._player(entity))
            return
        target = self._non_player(entity)
        if entity.type == "minecraft:item":
            self.game._remove_item(target)
            return
        self._kill_cow(target)

    def _kill_cow(self, cow: Any) -> None:
        """``/kill`` of a cow: death animation and loot rolled without a killer (vanilla ``Entity.kill``)."""
        from mirrorcraft.rules.loot import EntityView, LootContext

        cow.dead_for, cow.health, cow.vel = 0, 0.0, [0.0, 0.0, 0.0]
        body = encode(cb.EntityStatus(entity_id=cow.eid, status=3))
        for o in self.game.players.values():
            o.send("entity_status", body)
        rules = self.game.rules
        ctx = LootContext(this_entity=EntityView(type="minecraft:cow", on_fire=cow.on_fire))
        stacks, _ = rules.oracle.loot("minecraft:entities/cow", ctx, self.game.loot_rng)
        for s in stacks:
            self.game.spawn_item(facts.item_id(s.name.removeprefix("minecraft:")), s.count,
                                 (cow.pos[0], cow.pos[1] + 0.5, cow.pos[2]), pop=True)  # fmt: skip

    def set_game_mode(self, player: EntityRef, mode: str) -> None:
        self.game.admin.set_game_mode(self._player(player), mode)

    def add_effect(
        self, entity: EntityRef, effect: str, seconds: int, amplifier: int, hide_particles: bool
    ) -> bool:
        if not entity.is_player:
            return False  # players only (module docstring)
        return self.game.admin.add_effect(
            self._player(entity), effect, seconds * 20, amplifier, hide_particles
        )

    def remove_effects(self, entity: EntityRef, effect: str | None) -> bool:
        if not entity.is_player:
            return False
        return self.game.admin.remove_effects(self._player(entity), effect)

    def experience(self, player: EntityRef, unit: str) -> int:
        from mirrorcraft.server.progress import xp_needed

        st = self.game.rules.state(self._player(player))
        return st.level if unit == "levels" else int(st.progress * xp_needed(st.level))

    def add_experience(self, player: EntityRef, amount: int, unit: str) -> None:
        from mirrorcraft.server.progress import xp_needed

        p = self._player(player)
        st = self.game.rules.state(p)
        if unit == "levels":
            _add_levels(st, amount)
        else:  # vanilla Player.giveExperiencePoints, negative amounts included
            st.progress += amount / xp_needed(st.level)
            while st.progress < 0.0:
                rest = st.progress * xp_needed(st.level)
                if st.level > 0:
                    _add_levels(st, -1)
                    st.progress = 1.0 + rest / xp_needed(st.level)
                else:
                    _add_levels(st, -1)
                    st.progress = 0.0
            while st.progress >= 1.0:
                st.progress = (st.progress - 1.0) * xp_needed(st.level)
                _add_levels(st, 1)
                st.progress /= xp_needed(st.level)
        self.game.rules.send_xp(p)

    def set_experience(self, player: EntityRef, amount: int, unit: str) -> bool:
        from mirrorcraft.server.progress import xp_needed

        p = self._player(player)
        st = self.game.rules.state(p)
        if unit == "levels":
            st.level = max(0, amount)  # Player.setExperienceLevels
        else:
            if amount >= xp_needed(st.level):  # ExperienceCommand: points must stay within the level
                return False
            st.progress = amount / xp_needed(st.level)
        self.game.rules.send_xp(p)
        return True

    # -- world state -------------------------------------------------------------------------------
    def day_time(self) -> int:
        return self.game.admin.day_time

    def game_time(self) -> int:
        return self.game.tick_count

    def set_day_time(self, ticks: int) -> None:
        self.game.admin.set_day_time(ticks)

    def set_weather(self, weather: str, duration_ticks: int) -> None:
        self.game.admin.set_weather(weather, duration_ticks)

    def game_rule(self, name: str) -> bool | int:
        return self.game.admin.game_rules[name]

    def set_game_rule(self, name: str, value: bool | int) -> None:
        self.game.admin.set_game_rule(name, value)

    def difficulty(self):  # noqa: ANN201 - Difficulty literal
        return self.game.admin.difficulty

    def set_difficulty(self, difficulty: str) -> None:
        self.game.admin.set_difficulty(difficulty)

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
                for a, d in sorted(self.game.rules.packs.advancements.items())
            }
        return self._advancements

    def advancement_criteria(self, player: EntityRef, advancement: str) -> frozenset[str]:
        adv = self.game.rules.state(self._player(player)).advancements
        return frozenset(adv.progress.get(advancement, {}))

    def grant_criterion(self, player: EntityRef, advancement: str, criterion: str) -> bool:
        p = self._player(player)
        adv = self.game.rules.state(p).advancements
        if criterion in adv.progress.get(advancement, {}):
            return False
        if adv.award(advancement, criterion, self.game.tick_count):
            self.game.emit("advancement", player=p.display_name, advancement=advancement, source="command")
        self.game.rules.send_advancements(p, reset=True)
        return True

    def revoke_criterion(self, player: EntityRef, advancement: str, criterion: str) -> bool:
        p = self._player(player)
        adv = self.game.rules.state(p).advancements
        progress = adv.progress.get(advancement, {})
        if criterion not in progress:
            return False
        del progress[criterion]
        if advancement in adv.completed and not adv.is_done(advancement):
            del adv.completed[advancement]
        self.game.rules.send_advancements(p, reset=True)
        return True

    # -- server ------------------------------------------------------------------------------------
    def broadcast(self, text: str) -> None:
        log.info("[broadcast] %s", text)
        for p in self._online():
            self.game.admin.tell(p, text)

    def tell(self, player: EntityRef, text: str) -> None:
        self.game.admin.tell(self._player(player), text)

    def save(self, flush: bool) -> bool:
        try:
            self.server.save()
        except OSError as err:
            log.error("save-all failed: %s", err)
            return False
        return True

    def stop(self) -> None:
        # after the reply is sent (vanilla halts once the command returns); callbacks in admin.on_stop run
        reactor.callLater(0, self.game.admin.stop_requested, self.server)


def _add_levels(st: Any, levels: int) -> None:
    """Vanilla ``Player.giveExperienceLevels``: below zero resets level and progress."""
    st.level += levels
    if st.level < 0:
        st.level, st.progress = 0, 0.0
