"""Digging: ``player_digging`` start / cancel / finish, delayed finishes, breaking blocks and their drops.

Vanilla behaviour followed (``ServerPlayerGameMode``; the break time and whether a tool harvests a block are
:mod:`mirrorcraft.rules.digging` over the world's block tags, ``WorldRules.mining``):

* a start (status 0) out of reach or on air is refused (the block is resent); a block the player breaks in
  one tick (progress per tick >= 1) breaks at once; otherwise the dig is remembered with its start tick.
* a finish (status 2) needs a matching start; it is accepted when ``progress x (elapsed ticks + 1) >= 0.7``.
  An earlier one is *delayed*, not refused, as vanilla's ``hasDelayedDestroy``: the client's prediction is
  undone (the real block is resent), and the ``delayed digs`` tick phase breaks the block for that player
  (with its drops) on the tick the server's own progress, counted from the start with the player's
  conditions now (tool, Haste, Mining Fatigue, water, ground), reaches 1 (event ``dig_delayed``).
* every dig packet is acknowledged with its sequence; creative players break instantly without drops,
  adventure and spectator players cannot break (the block is resent).
* before a survival player's dig breaks a block, the ``"dig"`` behaviour is asked (a scenario judge may
  cancel it: the block is resent, as for a refused dig).

Breaking a block (:meth:`Digging.break_block`, also used by ``setblock ... destroy``) follows the path the
cow takes (:mod:`~mirrorcraft.server.features.mobs`): roll → spawn → publish. The block's loot table
``<ns>:blocks/<name>`` from the world's packs is rolled through the :class:`~mirrorcraft.rules.oracle.
OutcomeOracle` with the seeded ``loot`` stream (only when the breaker may harvest the block with its tool;
a player-less break always may), the stacks pop out as item entities, and the ``dig`` outcome is published
with the vanilla roll beside the actual one. Then the ``"block_broken"`` hooks run (a block entity's
contents drop; the breaker's exhaustion) and the ``block_broken`` event is published.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.blocks import WATER, liquid_of
from mirrorcraft.rules.digging import DigConditions, can_harvest, finish_accepted, progress_per_tick
from mirrorcraft.rules.loot import BlockView, EntityView, LootContext, ToolView
from mirrorcraft.rules.oracle import Outcome
from mirrorcraft.server import facts, outcomes, wire
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import PLAYER_EYE, within_reach
from mirrorcraft.server.kernel.stacks import Stack
from mirrorcraft.server.world_rules import WorldRules

log = logging.getLogger(__name__)

Pos = tuple[int, int, int]


@dataclass
class DigState:
    """One player's digging: the dig in progress and an early finish waiting to break (position, start tick)."""

    dig: tuple[Pos, int] | None = None
    delayed: tuple[Pos, int] | None = None


class Digging:
    """Digging and breaking blocks for one game."""

    def __init__(
        self, kernel: Kernel, rules: WorldRules, items: Items, admin: Admin, effects: Effects
    ) -> None:
        self.kernel = kernel
        self.rules = rules
        self.mining = rules.mining  # the world's block tags: dig speed and harvest follow its packs
        self.items = items
        self.admin = admin
        self.effects = effects
        self.loot_rng = kernel.rng.stream("loot")
        self.players: dict[Player, DigState] = {}
        kernel.handlers.register("block_dig", self._on_block_dig)
        kernel.events.after("death", lambda b: self.players.pop(b.player, None))
        kernel.events.after("left", lambda b: self.players.pop(b.player, None))

    def state(self, p: Player) -> DigState:
        st = self.players.get(p)
        if st is None:
            st = self.players[p] = DigState()
        return st

    def conditions(self, p: Player) -> DigConditions:
        """What the break time depends on for ``p`` now: the held item, Haste, Mining Fatigue, water, ground.

        "In water" is the eyes in the water block itself (``rules.blocks.liquid_of``); vanilla's
        ``isEyeInFluid(WATER)`` also counts waterlogged states and water plants (a known difference, the
        body counts those)."""
        held = p.inventory.held_stack
        world = self.kernel.world
        eye = world.get_block(math.floor(p.pos[0]), math.floor(p.pos[1] + PLAYER_EYE), math.floor(p.pos[2]))
        return DigConditions(
            item=held.item.removeprefix("minecraft:") if held else None,
            haste=self.effects.level(p, "minecraft:haste"),
            mining_fatigue=self.effects.level(p, "minecraft:mining_fatigue"),
            in_water=liquid_of(facts.block_name(eye)) == WATER,  # the water block only (docstring)
            on_ground=p.on_ground,
        )

    # ---- player_digging ----------------------------------------------------------------------------------

    def _on_block_dig(self, p: Player, pkt: sb.BlockDig) -> None:
        if pkt.status in (3, 4, 5, 6):
            return  # drops and hand swaps are the inventory's, releasing a use is food's
        self.dig(p, pkt.status, tuple(pkt.location), pkt.sequence)  # type: ignore[arg-type]

    def dig(self, p: Player, status: int, pos: Pos, sequence: int) -> None:
        """One ``player_digging`` with status 0 (start), 1 (cancel) or 2 (finish); acknowledged with ``sequence``."""
        k = self.kernel
        if status in (0, 2) and self.admin.game_mode(p) != "survival":
            self._game_mode_dig(p, status, pos)
            p.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))
            return
        st = self.state(p)
        state = k.world.get_block(*pos)
        block = facts.block_of_state(state)
        if status == 0:
            if not within_reach(p.pos, pos) or facts.is_air(state):
                self._refuse(p, pos, state)
            elif progress_per_tick(block, self.conditions(p), self.mining) >= 1.0:
                self._player_break(p, pos, state)
            else:
                st.dig = (pos, k.tick_count)
        elif status == 1:
            st.dig = None
        elif status == 2:
            started = st.dig
            st.dig = None
            if started is None or started[0] != pos or facts.is_air(state):
                log.info(
                    "%s: finish at %s without a matching start (%s) or on air", p.display_name, pos, started
                )
                self._refuse(p, pos, state)
            elif not finish_accepted(
                block, cond := self.conditions(p), k.tick_count - started[1], self.mining
            ):
                # Vanilla (ServerPlayerGameMode, STOP_DESTROY_BLOCK below 0.7 progress): not refused but
                # *delayed* — the server keeps counting from the start and breaks the block itself once its
                # own progress reaches 1 (see tick). The client's prediction is undone now (vanilla's client
                # restores the block when the sequence is acknowledged).
                elapsed = k.tick_count - started[1]
                log.info(
                    "%s: early finish of %s at %s after %d ticks (%s): delayed", p.display_name, block.name,
                    pos, elapsed, cond,
                )  # fmt: skip
                if st.delayed is None:
                    st.delayed = (pos, started[1])
                k.emit("dig_delayed", player=p.display_name, pos=pos, elapsed=elapsed)
                self._refuse(p, pos, state)
            else:
                self._player_break(p, pos, state)
        p.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))

    def _game_mode_dig(self, p: Player, status: int, pos: Pos) -> None:
        """Creative: the start breaks the block at once with no drops (vanilla ``ServerPlayerGameMode.
        handleBlockBreakAction``), the finish is ignored. Adventure and spectator: the block is resent."""
        world = self.kernel.world
        state = world.get_block(*pos)
        mode = self.admin.game_mode(p)
        if mode == "creative" and status == 0 and not facts.is_air(state) and within_reach(p.pos, pos):
            block = facts.block_of_state(state)
            self.kernel.set_block(pos, 0)
            self.kernel.emit("block_broken_creative", player=p.display_name, pos=pos, block=block.name)
        elif mode != "creative":
            p.send("block_change", wire.block_change(*pos, state))

    def tick(self) -> None:
        """Finish the early-finished digs whose progress, counted from their start with the player's
        conditions now, reached 1 (vanilla's ``hasDelayedDestroy``); a block already gone drops the dig."""
        k = self.kernel
        for p in k.players.values():
            st = self.players.get(p)
            if st is None or st.delayed is None:
                continue
            pos, start = st.delayed
            state = k.world.get_block(*pos)
            if facts.is_air(state):
                st.delayed = None
                continue
            block = facts.block_of_state(state)
            if progress_per_tick(block, self.conditions(p), self.mining) * (k.tick_count - start + 1) >= 1.0:
                st.delayed = None
                self._player_break(p, pos, state)

    def _refuse(self, p: Player, pos: Pos, state: int) -> None:
        p.send("block_change", wire.block_change(*pos, state))

    def _player_break(self, p: Player, pos: Pos, state: int) -> None:
        if self.kernel.events.behaviour("dig", p, pos=pos, block=facts.block_of_state(state).name).cancelled:
            self._refuse(p, pos, state)
            return
        self.break_block(p, pos)

    # ---- breaking ------------------------------------------------------------------------------------------

    def break_block(self, p: Player | None, pos: Pos) -> list[tuple[str, int]]:
        """Break the block at ``pos`` as ``p`` (None = no player): roll its loot, spawn the drops, publish the
        ``dig`` outcome, run the ``"block_broken"`` hooks. Returns the drops as (bare item name, count)."""
        k = self.kernel
        state = k.world.get_block(*pos)
        block = facts.block_of_state(state)
        k.set_block(pos, 0)
        held = p.inventory.held_stack if p is not None else None
        tool = held.item.removeprefix("minecraft:") if held else None
        stacks: list[Stack] = []
        outcome = Outcome(actual=[], vanilla=[])  # not harvestable with that tool: nothing either way
        if p is None or can_harvest(block, tool, self.mining):
            stacks, outcome = self.roll_block_loot(state, tool, p)
            for s in stacks:
                self.items.spawn(s, (pos[0] + 0.5, pos[1] + 0.25, pos[2] + 0.5), pop=True)
        player = p.display_name if p else None
        k.report(outcomes.dig_event(block.name, outcome, pos=pos, player=player))
        k.events.notify("block_broken", p, pos=pos, block=block.name)
        drops = [(s.item.removeprefix("minecraft:"), s.count) for s in stacks]
        k.emit("block_broken", player=player, pos=pos, block=block.name, drops=drops)
        return drops

    def roll_block_loot(self, state: int, tool: str | None, p: Player | None) -> tuple[list[Stack], Outcome]:
        """Roll ``<ns>:blocks/<name>`` for a broken block state through the oracle (nothing, and an empty
        outcome, if no pack of the world defines the table)."""
        block = facts.block_of_state(state)
        ns, name = block.name.split(":", 1)
        location = f"{ns}:blocks/{name}"
        if location not in self.rules.loot:
            return [], Outcome(actual=[], vanilla=[])
        ctx = LootContext(
            tool=ToolView(item=f"minecraft:{tool}" if tool else None),
            block=BlockView(name=block.name, state=block.state_properties(state)),
            this_entity=EntityView(type=facts.PLAYER_TYPE, sneaking=bool(p and p.sneaking)) if p else None,
        )
        return self.rules.roll_loot(location, ctx, self.loot_rng)
