"""The machinery every skill shares: the call context, game-time limits, progress tracking and the report.

Why one base: every skill must obey the same body rules (docs/skills.md) — stay within its quantity cap
and its per-call game-time limit, never raise for an in-game failure, and report what *actually*
happened as the game state shows it (inventory delta from the body's inventory, drops from ``collect``
packets whose collector is us, blocks broken from the body's dig results, items produced from the result
or output slot it took). :class:`BaseSkill.execute` does the bookkeeping once: it snapshots the
inventory, runs the skill's :meth:`BaseSkill.run` under a hard deadline, and turns the
:class:`Progress` the skill filled in into an :class:`~mirrorcraft.contracts.OutcomeReport`.

Game time: the body ticks at the server's rate (``Body.tick_rate``: what the embedded server announces on
``mirrorcraft:tick_rate``; vanilla sends nothing), so ticks are counted as wall time ×
:attr:`SkillContext.tick_rate` — the announced rate, else :attr:`SkillContext.ticks_per_second` (default 20).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from twisted.internet import defer, task

from mirrorcraft.contracts import (
    SKILL_SPECS,
    ActionLimits,
    FailureReason,
    ItemStack,
    OutcomeReport,
    Skill,
    SkillCall,
    SkillSpec,
)
from mirrorcraft.contracts.skills import BlockTally
from mirrorcraft.errors import ContractError, GameDataError, ProtocolError
from mirrorcraft.gamedata import block_of_state, item, state_tables
from mirrorcraft.mcproto_body.connection import State
from mirrorcraft.mcproto_body.digging import FACES, dig_ticks
from mirrorcraft.mcproto_body.entities import CollectEvent
from mirrorcraft.mcproto_body.world import UNLOADED
from mirrorcraft.pathing import Goal, PathFollower, PathGrid, valid
from mirrorcraft.rules.digging import can_harvest, dig_categories, tool_speed

_log = logging.getLogger(__name__)

#: Extra seconds of game time past a call's limit before the hard guard cancels it (the skill's own
#: deadline checks normally stop it first; the guard only catches a wait that does not look at the clock).
HARD_GUARD_SECONDS = 2.0

AIR_NAMES = frozenset({"minecraft:air", "minecraft:cave_air", "minecraft:void_air"})
LIQUIDS = frozenset({"minecraft:water", "minecraft:lava"})


class SkillFailed(Exception):  # noqa: N818 - a control-flow signal inside skills, not an error class
    """Raised inside a skill to stop it with a failure reason (caught by :meth:`BaseSkill.execute`).

    Never escapes :meth:`BaseSkill.execute`: it becomes a ``failure`` report (or a partial ``success``
    if the skill had already completed units).
    """

    def __init__(self, reason: FailureReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class Progress:
    """What a running call has achieved so far (filled in by the skill, read by the report)."""

    completed: int = 0
    produced: list[tuple[str, int]] = field(default_factory=list)
    blocks_broken: dict[str, int] = field(default_factory=dict)
    blocks_placed: dict[str, int] = field(default_factory=dict)
    message: str = ""
    reason: FailureReason | None = None  # set when the call stopped early

    def broke(self, block: str) -> None:
        """Count one broken block."""
        self.blocks_broken[block] = self.blocks_broken.get(block, 0) + 1

    def placed(self, block: str) -> None:
        """Count one block placed in the world."""
        self.blocks_placed[block] = self.blocks_placed.get(block, 0) + 1


_LIQUIDS: np.ndarray | None = None


def _liquid_states() -> np.ndarray:
    """Boolean mask over global state ids: water and lava (any level)."""
    global _LIQUIDS
    if _LIQUIDS is None:
        from mirrorcraft.gamedata import block as block_info

        mask = np.zeros(len(state_tables().no_collision), dtype=bool)
        for name in ("minecraft:water", "minecraft:lava"):
            info = block_info(name)
            mask[info.min_state : info.max_state + 1] = True
        _LIQUIDS = mask
    return _LIQUIDS


#: Game ticks the body spends at most on one block that is only in its way (a staircase step, a tunnel to a
#: buried block, one obstruction), with the fastest item it carries: 5 s at 20 t/s. Stone with a wooden pickaxe
#: takes 23, dirt by hand 15; obsidian without a diamond pickaxe 5,000 (a catalogue staircase that dug one
#: spent its whole 2,400-tick limit on it). Targets of ``mine`` are not bounded by this.
WAY_DIG_MAX_TICKS = 100

#: The same bound for the escape skills (``dig_up``, ``pillar_up``, ``tunnel``) and ``dig_down``: actions of
#: their own whose point is to get through, so a block in the way may take longer — copper or gold ore with a
#: wooden pickaxe (150 ticks, no drop) around a pit dug with the first pickaxe — but obsidian without a
#: diamond pickaxe still does not.
ESCAPE_DIG_MAX_TICKS = 400

#: Blocks a drop may lie below the feet for ``collect_near`` to walk after it: a walk's drop (vanilla fall
#: damage starts above 3 blocks). At 2, a diamond mined 3 below the feet (its ore dug out of the floor of
#: the hole a ``mine`` made) was left behind and the Diamond episode explored to the end of its budget.
DROP_SAFE = 3

#: Blocks the body never breaks on its way: the workstations and containers a player places. A staircase
#: through the crafting table placed a moment ago costs the table (catalogue runs lost tables and furnaces
#: to ``dig_down`` and then failed ``no_workstation``).
KEEP_BLOCKS = frozenset(
    {"minecraft:crafting_table", "minecraft:furnace", "minecraft:blast_furnace", "minecraft:smoker",
     "minecraft:enchanting_table", "minecraft:anvil", "minecraft:chipped_anvil", "minecraft:damaged_anvil",
     "minecraft:chest", "minecraft:trapped_chest", "minecraft:barrel"}
)  # fmt: skip

#: Blocks :meth:`SkillContext.approach` may break to get out of a dead end: one obstruction, feet and head.
MAX_CLEARED_BLOCKS = 2

#: Game ticks a one-block staircase step may take to walk into (3 s at 20 t/s, the old wall-clock bound):
#: counted in ticks so an accelerated run does not give up on a step after a fraction of a game second.
STEP_WALK_TICKS = 60


@dataclass
class SkillContext:
    """Everything skills need: the body, the limits and small shared helpers.

    Args:
        body: A connected :class:`~mirrorcraft.mcproto_body.Body`.
        limits: Quantity caps and per-call tick limits.
        ticks_per_second: Game ticks per wall second assumed when the server announces no rate (limits
            and ``ticks_used`` are counted on the server's world age when it sends one; see :meth:`now`).
        search_radius: Blocks (Chebyshev) searched for targets of ``mine`` and workstations.
    """

    body: Any
    limits: ActionLimits = field(default_factory=ActionLimits)
    ticks_per_second: float = 20.0
    search_radius: int = 32
    explore_counts: dict[str, int] = field(default_factory=dict)
    #: Failed ``explore`` calls per direction (frontier exploration avoids them).
    explore_failed: dict[str, int] = field(default_factory=dict)
    #: The direction of the last ``explore`` call (``explore any`` keeps it on a tie: no back and forth).
    explore_last: str | None = None
    #: Why the last failed :meth:`approach` found no way, naming the escape (empty after a success).
    last_way_out: str = ""

    # ------------------------------------------------------------------------------------------ time
    @property
    def clock(self) -> Any:
        """The reactor."""
        return self.body.clock

    def now(self) -> float:
        """The skills' clock, in seconds of game time: the server's world age (see
        :meth:`~mirrorcraft.mcproto_body.tickrate.GameClock.world_ticks`) over :attr:`tick_rate`; reactor
        seconds when the server has sent no world age.

        Why game time: the per-call limits are game-time limits. When the server runs fewer ticks than the
        wall clock allows (it falls behind, or in-process it waits while the body plans a path), those
        ticks never happened in the game and are not charged to the call. Durations taken from this clock
        are used as wall timeouts below it (walks, digs): game time never runs faster than the wall clock
        at the announced rate, so those waits are never longer than the time left.
        """
        gc = getattr(self.body, "game_clock", None)
        ticks = gc.world_ticks() if gc is not None else None
        return self.clock.seconds() if ticks is None else ticks / self.tick_rate

    @property
    def tick_rate(self) -> float:
        """Game ticks per wall second: the rate the server announced to the body, else ``ticks_per_second``."""
        gc = getattr(self.body, "game_clock", None)
        return gc.rate if gc is not None and gc.announced else self.ticks_per_second

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of reactor time."""
        await task.deferLater(self.clock, seconds, lambda: None)

    @property
    def step_walk_timeout(self) -> float:
        """Wall seconds a one-block staircase step may take to walk into (:data:`STEP_WALK_TICKS`)."""
        return max(0.3, STEP_WALK_TICKS / self.tick_rate)

    async def sleep_ticks(self, ticks: float, floor: float = 0.005) -> None:
        """Wait ``ticks`` game ticks at the server's rate (at least ``floor`` wall seconds).

        Why: waits for the server (a window's contents, a pickup, a polled furnace) cost game time, which
        is what the per-call limits count; a fixed wall-clock wait would eat 5x more of the limit at
        100 t/s than at 20 t/s and make accelerated runs slower and less reliable than real-time ones.
        """
        await self.sleep(max(floor, ticks / self.tick_rate))

    # ------------------------------------------------------------------------------------ inventory
    def inventory(self) -> dict[str, int]:
        """``{item: count}`` the player carries (main, hotbar, off hand, armour, and the cursor)."""
        inv = self.body.inventory
        out: dict[str, int] = dict(inv.contents())
        for s in inv.player.slots[5:9] + [inv.active.cursor]:
            if s is not None:
                name = _item_name(s.item_id)
                out[name] = out.get(name, 0) + s.count
        return out

    def has(self, name: str, count: int = 1) -> bool:
        """Whether the player carries at least ``count`` of ``name``."""
        return self.inventory().get(name, 0) >= count

    # ---------------------------------------------------------------------------------------- world
    def feet(self) -> tuple[int, int, int]:
        """The block the feet are in."""
        return self.body.movement.block_position()

    def block(self, pos: tuple[int, int, int]) -> str | None:
        """Block name at ``pos`` (``None`` if not loaded)."""
        return self.body.world.block_name(*pos)

    def states_of(self, block_name: str) -> list[int]:
        """Every global state id of block ``block_name``.

        Raises:
            SkillFailed: not a block (``not_found``: nothing of that name can be in the world).
        """
        from mirrorcraft.gamedata import block as block_info

        try:
            info = block_info(block_name)
        except GameDataError:
            raise SkillFailed(FailureReason.NOT_FOUND, f"{block_name} is not a block") from None
        return list(range(info.min_state, info.max_state + 1))

    def find_blocks(self, block_name: str, radius: int | None = None) -> list[tuple[int, int, int]]:
        """Loaded positions of ``block_name`` within ``radius`` of the feet, nearest first."""
        r = self.search_radius if radius is None else radius
        return self.body.world.find_blocks(self.states_of(block_name), self.feet(), r)

    def exposed_among(
        self, positions: list[tuple[int, int, int]], dry: bool = False
    ) -> list[tuple[int, int, int]]:
        """The positions (order kept) with a face touching a non-colliding cell (air, plants, water), all at once.

        With ``dry``, a face touching water or lava does not count: a block reachable only through a
        pond or a lava pool is not a target a player would pick first.
        """
        if not positions:
            return []
        open_ = state_tables().no_collision
        if dry:
            open_ = open_ & ~_liquid_states()
        pos = np.asarray(positions, dtype=np.int64)
        hit = np.zeros(len(pos), dtype=bool)
        for n in FACES:
            s = self.body.world.states_at(pos + np.asarray(n, dtype=np.int64))
            known = s != UNLOADED
            hit[known] |= open_[s[known]]
        return [positions[i] for i in np.flatnonzero(hit)]

    def in_reach(self, pos: tuple[int, int, int], reach: float = 4.5) -> bool:
        """Eye to block centre within ``reach``."""
        eye = self.body.movement.eye
        return math.dist(eye, (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5)) <= reach

    async def approach(
        self,
        pos: tuple[int, int, int],
        reach: float = 4.0,
        timeout: float = 30.0,
        progress: Progress | None = None,
        what: str = "target",
    ) -> bool:
        """Walk until the block at ``pos`` is within ``reach`` of the eyes; False when no walk gets there.

        Within the body's rules (:mod:`mirrorcraft.skills.navigation`): a walking path, else one that clears
        one local obstruction (one dig step of at most :data:`MAX_CLEARED_BLOCKS` blocks, a doorway: feet and
        head), whose blocks are counted in ``progress`` (the report's ``blocks_broken``). When neither exists
        it returns at once: :attr:`last_way_out` then says why and which escape would work
        (``"no walk: minecraft:crafting_table 6 blocks up (y=65); try dig_up or pillar_up"``), and the world
        memory marks the place unreachable from here. ``what`` names the target in that message.
        """
        from mirrorcraft.skills.navigation import Target, reach_target

        return await reach_target(self, Target("block", pos, reach, what), timeout, progress)

    async def reach_drop(
        self, pos: tuple[float, float, float], timeout: float, progress: Progress | None = None
    ) -> bool:
        """Get within pickup range of an item lying at ``pos``: into its cell or one beside it, by a
        walking path, else by one that clears at most :data:`MAX_CLEARED_BLOCKS` blocks (the one
        obstruction the body may clear); then press on towards the item.

        Why: a drop that slid into a one-high gap (under a ledge, beside a mined ore) cannot be walked
        onto; vanilla picks up items touching the player's box grown by one block sideways, so a player
        digs out the ceiling beside the gap and leans in. Blocks broken are counted in ``progress``.
        """
        cell = (math.floor(pos[0]), math.floor(pos[1]), math.floor(pos[2]))
        goal = Goal(*cell, radius=1.0)
        t0 = self.now()
        reached = False
        if self.standing_room(goal):
            follower = PathFollower(self.body, search_radius=16, max_replans=2, max_seconds=0.5)
            reached = (await follower.goto(goal, timeout=timeout)).reached
        if not reached and self.now() - t0 < timeout:
            reached = await self.dig_path(
                goal, MAX_CLEARED_BLOCKS, timeout - (self.now() - t0), progress,
                search_radius=12, max_nodes=20_000, max_seconds=0.5, bounded=True,
            )  # fmt: skip
        if reached:
            spot = (cell[0] + 0.5, pos[1], cell[2] + 0.5)
            await self.body.walk_straight(spot, tolerance=0.2, timeout=max(0.05, 20 / self.tick_rate))
        return reached

    def standing_room(self, goal: Goal) -> bool:
        """Whether any cell within ``goal`` is one a player can stand in (feet and head free, supported).

        Why: with none (a block buried in rock), a walking plan cannot succeed and its search would
        exhaust the whole planning box first — up to 2 s of CPU, which at 400 t/s is 800 game ticks of
        the caller's limit. Checking the goal's few hundred cells is cheap.
        """
        r = math.ceil(goal.radius)
        y = goal.y if goal.y is not None else self.feet()[1]
        grid = PathGrid.around(self.body.world, (goal.x, y, goal.z), r + 1, r + 2)
        return any(
            goal.reached((x, yy, z)) and valid(grid, (x, yy, z))
            for x in range(goal.x - r, goal.x + r + 1)
            for yy in range(y - r, y + r + 1)
            for z in range(goal.z - r, goal.z + r + 1)
        )

    async def dig_path(
        self,
        goal: Goal,
        max_cleared: int,
        timeout: float,
        progress: Progress | None = None,
        *,
        search_radius: int = 24,
        dig_cost: float = 4.0,
        max_nodes: int = 50_000,
        max_seconds: float = 2.0,
        bounded: bool = False,
    ) -> bool:
        """Walk to ``goal`` along a path that breaks at most ``max_cleared`` blocks; False if none exists.

        The path may go through solid blocks (walking, jumping or stepping down a staircase, never next to
        a liquid; see :mod:`mirrorcraft.pathing.astar`); before each block the best carried tool for it is
        held. Blocks broken are counted in ``progress`` (the report's ``blocks_broken``). The keyword
        arguments bound the plan (the planning box, the cost of a block against a step, the search);
        ``bounded`` makes the search itself respect ``max_cleared`` (states count the blocks broken), which
        fails fast where no such plan exists: the one obstruction of walking skills uses it.
        """
        broken: list[str] = []

        async def hold_for(cell: tuple[int, int, int]) -> None:
            state = self.body.world.state_at(*cell)
            name = block_of_state(state).name if state is not None else None
            if state is not None and name not in AIR_NAMES:
                broken.append(name)
                await self.hold(self.way_tool(state)[0])

        digger = PathFollower(
            self.body, search_radius=search_radius, dig_cost=dig_cost, max_nodes=max_nodes,
            max_seconds=max_seconds, max_replans=1 if max_cleared <= 2 else 3, max_dug=max_cleared,
            before_dig=hold_for, diggable=self.way_diggable, max_dig_blocks=max_cleared if bounded else None,
        )  # fmt: skip
        plan = digger.plan(goal)
        cells = [c for st in plan.steps for c in st.dig]
        if plan.status != "found" or not 0 < len(cells) <= max_cleared:
            return False
        result = await digger.goto(goal, timeout=timeout)
        if progress is not None:
            for name in broken[: result.dug]:
                progress.broke(name)
        return result.reached

    # ------------------------------------------------------------------------------------------ tools
    def way_tool(self, state: int) -> tuple[str | None, float]:
        """The carried item (``None``: the hand) that breaks block state ``state`` fastest, drops or not,
        and its break time in ticks: for a block that is only in the way, its drop does not matter (a stone
        pickaxe clears gold ore in 75 ticks without dropping it; the hand would take 300)."""
        best: tuple[float, str | None] = (dig_ticks(state, None), None)
        for name in sorted(self.inventory()):
            if name != "minecraft:air":
                best = min(best, (dig_ticks(state, name), name), key=lambda t: t[0])
        return best[1], best[0]

    def way_diggable(self, state: int, max_ticks: float = WAY_DIG_MAX_TICKS) -> bool:
        """Whether the body may break block state ``state`` only because it is in the way: not one of
        :data:`KEEP_BLOCKS`, and broken within ``max_ticks`` (:data:`WAY_DIG_MAX_TICKS`; the escape skills
        pass :data:`ESCAPE_DIG_MAX_TICKS`) with the fastest item carried."""
        info = block_of_state(state)
        if info.name in KEEP_BLOCKS:
            return False
        if info.name in AIR_NAMES:
            return True
        return self.way_tool(state)[1] <= max_ticks

    def best_tool(self, block_name: str) -> tuple[str | None, bool]:
        """The carried item that breaks ``block_name`` fastest among those that harvest it.

        Which tools harvest the block and how fast each is are :mod:`mirrorcraft.rules.digging`'s, over the
        vanilla pack's ``mineable/*`` and ``needs_*_tool`` tags (the player's knowledge of vanilla, as the
        body's dig times use it).

        Returns:
            ``(item or None for the hand, harvestable)``; ``harvestable`` is False when the block needs a
            tool the player does not carry (vanilla ``requiresCorrectToolForDrops``).
        """
        from mirrorcraft.gamedata import block as block_info

        info = block_info(block_name)
        carried = [name for name in self.inventory() if name != "minecraft:air"]
        categories = dig_categories(info)
        best: tuple[float, str | None] = (1.0, None)
        ok_hand = can_harvest(info, None)
        for name in sorted(carried):
            if not can_harvest(info, name):
                continue
            speed = tool_speed(categories, name)
            if speed > best[0]:
                best = (speed, name)
        if best[1] is not None:
            return best[1], True
        return None, ok_hand

    async def hold(self, name: str | None) -> bool:
        """Hold ``name`` in the main hand (``None``: keep whatever is held). True when held."""
        if name is None:
            return True
        return await self.body.inventory.equip(name)

    # ------------------------------------------------------------------------------------------ drops
    def watch_collects(self) -> tuple[list[CollectEvent], Callable[[], None]]:
        """Start recording collect events whose collector is us; returns (events, stop)."""
        got: list[CollectEvent] = []
        ents = self.body.entities

        def listener(ev: CollectEvent) -> None:
            if ev.collector_id == ents.self_id:
                got.append(ev)

        ents.on_collect(listener)

        def stop() -> None:
            if listener in ents._collect_listeners:
                ents._collect_listeners.remove(listener)

        return got, stop

    async def collect_near(
        self,
        centre: tuple[float, float, float],
        radius: float,
        timeout: float,
        progress: Progress | None = None,
        expect: bool = False,
    ) -> list[Any]:
        """Walk onto the item entities within ``radius`` of ``centre`` until none is left or ``timeout``.

        ``expect``: the caller knows something dropped (a broken crop always drops its seed or produce), so
        an empty neighbourhood means its spawn has not reached the body yet, not that there is nothing: keep
        looking until the first item shows up or ``timeout`` (under load the spawn packets lag the break by
        more than the short wait below, and a farm then left a wheat in every few on the ground).

        Walks to the centre of the block an item lies in (not the item's exact point), so the player
        drops into the one-block hole a broken block leaves: vanilla picks up items that touch the
        player's box grown by 1 block sideways and 0.5 up/down, which a player standing on the rim of
        the hole does not reach. When no straight walk gets there, a path that may clear one obstruction
        (:meth:`reach_drop`) does, as ``collect`` does: a drop lying one block below the feet in a hole
        under a ceiling (the ore dug diagonally down from the block the player stands on, the dirt over
        the hole at head height) is 0.25 below the pickup box and cannot be walked into; the Diamond
        episodes of issue 21 left their diamond there and explored to the end of the budget.

        Returns:
            The item entities still lying within ``radius`` that could not be reached (the caller says so).
        """
        end = self.now() + timeout
        skipped: set[int] = set()
        await self.sleep(max(0.03, 6 / self.tick_rate))  # drops pop out with a short delay, fly a few ticks
        seen = not expect
        while self.now() < end:
            items = [
                e
                for e in self.body.entities.items()
                if e.id not in skipped and math.dist(e.position, centre) <= radius
            ]
            if not items:
                if seen:
                    return self._left_near(centre, radius, skipped)
                await self.sleep_ticks(2)  # the expected drop has not reached the body yet
                continue
            seen = True
            me = self.body.movement.position
            target = min(items, key=lambda e: (e.distance_to(me), e.id))
            spot = (
                math.floor(target.position[0]) + 0.5,
                target.position[1],
                math.floor(target.position[2]) + 0.5,
            )
            below = self._drop_below(spot)
            if below > DROP_SAFE:
                # it fell deeper than a walk drops (a shaft, a cave under the ore): walking straight after
                # it is a fall; a path may still get there by safe drops (one obstruction at most)
                _log.debug("collect_near: drop %s lies %d below the feet %s", spot, below, self.feet())
                await self.reach_drop(target.position, min(3.0, max(0.05, end - self.now())), progress)
                await self.sleep(max(0.03, 6 / self.tick_rate))
                skipped.add(target.id)
                continue
            walk = max(10 / self.tick_rate, min(80 / self.tick_rate, end - self.now()))  # 10..80 ticks
            walked = await self.body.walk_straight(spot, tolerance=0.2, timeout=walk)
            await self.sleep(max(0.03, 6 / self.tick_rate))  # the pickup happens on a server tick
            if target.id in self.body.entities.by_id and not walked:
                # no straight way (a hole under a ceiling, a one-high gap): a path, one obstruction at most
                _log.debug("collect_near: no straight walk to the drop at %s from %s", spot, self.feet())
                await self.reach_drop(target.position, min(3.0, max(0.05, end - self.now())), progress)
                await self.sleep(max(0.03, 6 / self.tick_rate))
            if target.id in self.body.entities.by_id and self._touches(target.position):
                # within pickup range but still there: its pickup delay (10 ticks for a block's drop) had
                # not run out on the server, which lags the wall clock under load; wait once more
                await self.sleep_ticks(10)
            if target.id in self.body.entities.by_id:
                skipped.add(target.id)
        return self._left_near(centre, radius, skipped)

    def _touches(self, pos: tuple[float, float, float]) -> bool:
        """Whether an item at ``pos`` touches the player's pickup box (vanilla ``Player.aiStep``: the
        player's box grown by 1 sideways and 0.5 up and down; the item's box is 0.25 wide and high)."""
        x, y, z = self.body.movement.position
        ix, iy, iz = pos
        return (
            abs(ix - x) <= 0.3 + 1.0 + 0.125
            and abs(iz - z) <= 0.3 + 1.0 + 0.125
            and y - 0.75 <= iy <= y + 2.3
        )

    def _left_near(self, centre: tuple[float, float, float], radius: float, ids: set[int]) -> list[Any]:
        """The item entities of ``ids`` still lying within ``radius`` of ``centre``."""
        return [
            e for e in self.body.entities.items() if e.id in ids and math.dist(e.position, centre) <= radius
        ]

    def _drop_below(self, spot: tuple[float, float, float]) -> int:
        """How many blocks below the feet the ground of ``spot``'s column lies (0: level or higher)."""
        from mirrorcraft.gamedata import state_tables

        free = state_tables().no_collision
        x, z = math.floor(spot[0]), math.floor(spot[2])
        fy = self.feet()[1]
        for depth in range(0, 8):
            st = self.body.world.state_at(x, fy - 1 - depth, z)
            if st is None or not free[st]:
                return depth
        return 8

    async def settle(self, timeout: float = 1.5) -> None:
        """Wait until the player stands (on the ground or in water), e.g. after a jump or a fall."""
        end = self.now() + timeout
        while self.now() < end:
            st = self.body.movement.state
            if st is None or st.on_ground or st.in_water:
                return
            await self.sleep_ticks(1)

    def item_entities(self, item_name: str | None, radius: float) -> list[Any]:
        """Item entities within ``radius`` of the feet (optionally only ``item_name``), nearest first."""
        pos = self.body.movement.position
        out = [
            e
            for e in self.body.entities.items()
            if e.distance_to(pos) <= radius and (item_name is None or e.item_name == item_name)
        ]
        return sorted(out, key=lambda e: (e.distance_to(pos), e.id))


def _item_name(item_id: int) -> str:
    from mirrorcraft.gamedata import item_by_id

    return item_by_id(item_id).name


def block_name_of_state(state: int | None) -> str | None:
    """Block name of a state id, ``None`` for unknown."""
    return None if state is None else block_of_state(state).name


def require_item(name: str) -> None:
    """Raise :class:`SkillFailed` (``missing_items``) if ``name`` is not an item of the game version."""
    try:
        item(name)
    except GameDataError:
        raise SkillFailed(FailureReason.MISSING_ITEMS, f"{name} is not an item") from None


def inventory_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """``after - before`` per item, zero entries dropped, sorted by id."""
    keys = sorted(set(before) | set(after))
    return {k: after.get(k, 0) - before.get(k, 0) for k in keys if after.get(k, 0) != before.get(k, 0)}


class BaseSkill(Skill):
    """A skill: subclasses set :attr:`name` and implement :meth:`run`.

    Args:
        ctx: The shared :class:`SkillContext`.
    """

    name: str = ""

    def __init__(self, ctx: SkillContext) -> None:
        if self.name not in SKILL_SPECS:
            raise ContractError(f"{type(self).__name__}: {self.name!r} is not a skill of the contracts")
        self.ctx = ctx

    @property
    def spec(self) -> SkillSpec:
        """The contracts' spec of this skill."""
        return SKILL_SPECS[self.name]

    @property
    def tick_limit(self) -> int:
        """The call's game-time limit in ticks."""
        return self.ctx.limits.tick_limits[self.name]

    def deadline(self, t0: float) -> float:
        """Reactor second at which the call's limit is reached."""
        return t0 + self.tick_limit / self.ctx.tick_rate

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        """Do the work; fill ``progress``; raise :class:`SkillFailed` to stop with a reason.

        Must check ``deadline`` (reactor seconds) in its loops and stop with ``timeout`` when passed.
        """
        raise NotImplementedError

    def check_time(self, deadline: float) -> None:
        """Raise ``SkillFailed(timeout)`` once the reactor clock passed ``deadline``."""
        if self.ctx.now() > deadline:
            raise SkillFailed(
                FailureReason.TIMEOUT, f"{self.name}: game-time limit of {self.tick_limit} ticks"
            )

    def time_left(self, deadline: float) -> float:
        """Seconds until ``deadline`` (never negative)."""
        return max(0.0, deadline - self.ctx.now())

    def _guard(self, d: defer.Deferred, deadline: float) -> task.LoopingCall:
        """The hard guard: cancel ``d`` once the game clock is :data:`HARD_GUARD_SECONDS` past
        ``deadline`` (a wait that never looks at the clock), or once the wall clock has run the limit's
        real-time length (20 t/s) past it: the backstop for a server whose clock stopped; and at once when the
        body's connection has closed (the game clock stops with it: without this a call of a dropped player
        waited out the whole wall-clock backstop, a minute for ``explore``). Sets ``self._lost[0]``."""
        ctx = self.ctx
        wall_end = ctx.clock.seconds() + self.tick_limit / min(ctx.tick_rate, 20.0) + HARD_GUARD_SECONDS
        lost = self._lost = [False]

        def check() -> None:
            if d.called:
                return
            if ctx.body.conn.state is State.CLOSED:  # no world age will come again: end the call now
                lost[0] = True
                d.cancel()
            elif ctx.now() > deadline + HARD_GUARD_SECONDS or ctx.clock.seconds() > wall_end:
                d.cancel()

        loop = task.LoopingCall(check)
        loop.clock = ctx.clock
        loop.start(0.05, now=False)
        return loop

    async def execute(self, call: SkillCall) -> OutcomeReport:
        """Run ``call`` within its caps and game-time limit and report what actually happened.

        Raises:
            ContractError: ``call`` is for another skill (a harness bug, not an in-game failure).
        """
        if call.name != self.name:
            raise ContractError(f"skill {self.name!r} was given a call of {call.name!r}")
        ctx = self.ctx
        args = call.parsed_args()
        before = ctx.inventory()
        collects, stop_watch = ctx.watch_collects()
        progress = Progress()
        t0 = ctx.now()
        deadline = self.deadline(t0)
        deaths = ctx.body.health.deaths
        d = defer.ensureDeferred(self.run(args, progress, deadline))
        guard = self._guard(d, deadline)
        try:
            await d
        except SkillFailed as stop:
            progress.reason, progress.message = stop.reason, stop.message
        except defer.CancelledError:
            if self._lost[0]:
                progress.reason = FailureReason.OTHER
                progress.message = f"{self.name}: the connection to the server closed during the call"
            else:
                progress.reason = FailureReason.TIMEOUT
                progress.message = f"{self.name}: game-time limit of {self.tick_limit} ticks"
        except (ContractError, GameDataError, ProtocolError, TimeoutError, ConnectionError) as err:
            # the body refused something mid-call (a chunk unloaded under a dig, a window that never
            # opened, a lost connection): an in-game failure of this call, not a harness error
            progress.reason = FailureReason.OTHER
            progress.message = f"{self.name}: {type(err).__name__}: {err}"
        finally:
            if guard.running:
                guard.stop()
            ctx.body.movement.stop()
            stop_watch()
        if ctx.body.health.deaths != deaths:
            progress.reason = FailureReason.INTERRUPTED
            progress.message = progress.message or "the player died during the call"
        await ctx.sleep(max(0.02, 2 / ctx.tick_rate))  # late set_slot packets of the last pickup (2 ticks)
        after = ctx.inventory()
        ticks = max(0, math.ceil((ctx.now() - t0) * ctx.tick_rate - 1e-9))
        drops: list[ItemStack] = []
        for ev in collects:
            if ev.item is not None and ev.count > 0:
                drops.append(ItemStack(item=_item_name(ev.item.item_id), count=ev.count))
        success = progress.completed >= 1
        if not success and progress.reason is None:
            progress.reason = FailureReason.OTHER
            progress.message = progress.message or f"{self.name}: nothing was achieved"
        return OutcomeReport(
            skill=self.name,
            status="success" if success else "failure",
            reason=progress.reason,
            message=progress.message,
            completed=progress.completed if success else 0,
            inventory_delta=inventory_delta(before, after),
            produced=[ItemStack(item=i, count=n) for i, n in progress.produced if n > 0],
            drops_collected=drops,
            blocks_broken=[BlockTally(block=b, count=n) for b, n in progress.blocks_broken.items() if n > 0],
            blocks_placed=[BlockTally(block=b, count=n) for b, n in progress.blocks_placed.items() if n > 0],
            ticks_used=ticks,
        )
