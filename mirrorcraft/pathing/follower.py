"""Following a planned path with the body's movement: steering, jumping, digging, stuck detection, replanning.

Why a follower separate from A*: planning is pure and testable on synthetic grids; following is where the
real world answers back (a mob in the way, a block that changed, a server that teleported us). The
follower steers each tick towards the centre of the next cell (jumping for "jump"/"swim" steps or when
blocked), breaks the blocks a "dig" step lists, and replans from where it stands when it makes no
progress for ``stuck_ticks`` ticks, when a planned cell changes, or after a server correction — up to
``max_replans`` times. It never raises for in-game failures: it returns a :class:`FollowResult`.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from twisted.internet import task

from mirrorcraft.mcproto_body.physics import yaw_to
from mirrorcraft.pathing.astar import Goal, PathResult, Step, find_path, search_seconds, valid
from mirrorcraft.pathing.grid import PathGrid


@dataclass
class FollowResult:
    """Outcome of :meth:`PathFollower.goto`.

    Attributes:
        reached: The goal was reached.
        reason: Why not (empty when reached).
        replans: How many times the path was re-planned.
        steps_done: Steps completed over all plans.
        dug: Blocks broken on the way.
        seconds: Wall time.
        last_plan: The last :class:`PathResult`.
    """

    reached: bool
    reason: str
    replans: int
    steps_done: int
    dug: int
    seconds: float
    last_plan: PathResult | None = None


class PathFollower:
    """Moves a :class:`~mirrorcraft.mcproto_body.bot.Body` along A* paths.

    Args:
        body: The body (uses its world, movement, digger, health).
        search_radius: Horizontal half-size of the planning box around start and goal.
        dig_cost: Passed to :func:`find_path` (0 = never dig).
        max_nodes / max_seconds: Planning bounds per plan. ``max_seconds`` applies only while the body runs
            free; in lockstep the plan is bounded by ``max_nodes`` alone (:func:`~.astar.search_seconds`).
        stuck_ticks: Ticks without getting closer to the next cell before replanning.
        max_replans: Replans before giving up.
        sprint: Sprint while walking.
        max_dug: Blocks this follower may break over all its plans (None: no bound); past it, ``goto``
            stops with reason ``"dig budget spent"``.
        before_dig: Awaited with each cell just before it is dug (the skills hold the best tool for it:
            the pathing layer knows no tools).
        diggable: Asked per block state whether a plan may dig through it (see
            :meth:`~mirrorcraft.pathing.grid.PathGrid.from_states`); None: anything breakable.
        max_dig_blocks: Passed to :func:`find_path` (at most this many blocks on a plan: 2 is the one
            obstruction a walking skill may clear).
        height: Vertical half-size of the planning box beyond the start and goal heights.
        min_half: Least horizontal half-size of the planning box (a detour round a wall needs room beyond
            the straight line between start and goal).
    """

    def __init__(
        self,
        body: Any,
        *,
        search_radius: int = 48,
        dig_cost: float = 0.0,
        max_nodes: int = 50_000,
        max_seconds: float | None = 2.0,
        stuck_ticks: int = 30,
        max_replans: int = 5,
        sprint: bool = False,
        max_dug: int | None = None,
        before_dig: Callable[[tuple[int, int, int]], Awaitable[Any]] | None = None,
        diggable: Callable[[int], bool] | None = None,
        max_dig_blocks: int | None = None,
        height: int = 12,
        min_half: int = 8,
    ) -> None:
        self.body = body
        self.search_radius = search_radius
        self.dig_cost = dig_cost
        self.max_nodes = max_nodes
        self.max_seconds = max_seconds
        self.stuck_ticks = stuck_ticks
        self.max_replans = max_replans
        self.sprint = sprint
        self.max_dug = max_dug
        self.before_dig = before_dig
        self.diggable = diggable
        self.max_dig_blocks = max_dig_blocks
        self.height = height
        self.min_half = min_half

    def plan(self, goal: Goal) -> PathResult:
        """Plan from the body's current cell (the grid covers start and goal)."""
        start = self.body.movement.block_position()
        cx, cz = (start[0] + goal.x) // 2, (start[2] + goal.z) // 2
        half = max(abs(goal.x - start[0]), abs(goal.z - start[2])) // 2 + 8
        half = min(max(half, self.min_half), self.search_radius)
        gy = goal.y if goal.y is not None else start[1]
        cy = (start[1] + gy) // 2
        height = abs(start[1] - gy) // 2 + self.height
        grid = PathGrid.around(self.body.world, (cx, cy, cz), half, height, self.diggable)
        return find_path(
            grid, start, goal, dig_cost=self.dig_cost, max_nodes=self.max_nodes,
            max_seconds=search_seconds(self.body, self.max_seconds),
            max_dig_blocks=self.max_dig_blocks,
        )  # fmt: skip

    async def goto(self, goal: Goal, timeout: float = 60.0) -> FollowResult:
        """Walk to ``goal``; returns what happened."""
        body = self.body
        clock = body.clock
        t0 = clock.seconds()
        replans, done, dug = -1, 0, 0
        plan: PathResult | None = None
        try:
            while replans < self.max_replans:
                replans += 1
                if body.health.dead:
                    return FollowResult(False, "died", replans, done, dug, clock.seconds() - t0, plan)
                here = body.movement.block_position()
                if goal.reached(here):
                    return FollowResult(True, "", replans, done, dug, clock.seconds() - t0, plan)
                plan = self.plan(goal)
                if plan.status in ("no_path", "invalid_start") or len(plan.steps) < 2:
                    return FollowResult(
                        False, f"no path ({plan.status})", replans, done, dug, clock.seconds() - t0, plan
                    )
                corrections = body.movement.corrections
                ok = True
                for step in plan.steps[1:]:
                    if clock.seconds() - t0 > timeout:
                        return FollowResult(False, "timeout", replans, done, dug, clock.seconds() - t0, plan)
                    if step.dig:
                        for cell in step.dig:
                            if self.max_dug is not None and dug >= self.max_dug:
                                return FollowResult(
                                    False, "dig budget spent", replans, done, dug, clock.seconds() - t0, plan
                                )
                            if self.before_dig is not None:
                                await self.before_dig(cell)
                            res = await body.digger.dig(cell)
                            if not res.broken:
                                ok = False
                                break
                            dug += 1
                        if not ok:
                            break
                    elif not self._still_valid(step):
                        ok = False
                        break
                    if not await self.move_step(step):
                        ok = False
                        break
                    if body.movement.corrections != corrections:
                        ok = False
                        break
                    done += 1
                if ok and goal.reached(body.movement.block_position()):
                    return FollowResult(True, "", replans, done, dug, clock.seconds() - t0, plan)
            return FollowResult(
                False, "stuck: too many replans", replans, done, dug, clock.seconds() - t0, plan
            )
        finally:
            body.movement.stop()

    def _still_valid(self, step: Step) -> bool:
        x, y, z = step.cell
        grid = PathGrid.around(self.body.world, (x, y, z), 1, 3)
        return valid(grid, step.cell)

    async def move_step(self, step: Step) -> bool:
        """Steer to the centre of ``step.cell`` (jumping for a ``jump``/``swim`` step or when blocked); False
        when stuck. The escape skills use it for single steps (a stair step up, a tunnel step)."""
        mv = self.body.movement
        target = (step.cell[0] + 0.5, step.cell[1], step.cell[2] + 0.5)
        best = math.inf
        since = 0
        while True:
            st = mv.state
            if st is None or self.body.health.dead:
                return False
            d = math.hypot(target[0] - st.pos[0], target[2] - st.pos[2])
            cell_ok = math.floor(st.pos[1] + 1e-6) == step.cell[1] or (step.move == "drop" and st.on_ground)
            if d < 0.3 and cell_ok and (st.on_ground or st.in_water):
                return True
            if d < best - 0.02:
                best, since = d, 0
            else:
                since += 1
                if since > self.stuck_ticks:
                    return False
            rising = step.cell[1] > math.floor(st.pos[1] + 1e-6)
            mv.look(yaw_to(st.pos, target) if d > 0.05 else st.yaw, 0.0)
            mv.set_controls(
                forward=d > 0.15,
                sprint=self.sprint and d > 2.0,
                jump=(rising and (st.collided_horizontally or step.move in ("jump", "swim") or st.in_water))
                or (st.in_water and step.move != "drop"),
            )
            await task.deferLater(self.body.clock, mv.tick_seconds, lambda: None)
