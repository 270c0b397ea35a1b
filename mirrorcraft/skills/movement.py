"""Movement skills: ``go_to``, ``explore``, ``dig_down`` and ``recover``.

Why here and not in the body: these are *semantic* moves (one agent action each) built from the body's
A* follower and digger. They obey the body rules: no subgoals, bounded time, at most the one obstruction
``recover`` may clear. ``explore`` with direction ``any`` picks the least-visited compass direction
(counts kept per episode in :attr:`SkillContext.explore_counts`; ties in the fixed order north, east,
south, west) so that repeated explores fan out deterministically.
"""

from __future__ import annotations

import math
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.pathing import WATER, Goal, PathFollower, PathGrid
from mirrorcraft.skills.runtime import AIR_NAMES, LIQUIDS, BaseSkill, Progress, SkillFailed

DIRECTIONS: dict[str, tuple[int, int]] = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
LEG = 16  #: blocks per explore leg (one plan each, inside the loaded view)


def _standable(grid: PathGrid, x: int, y: int, z: int) -> bool:
    from mirrorcraft.pathing import AIR, SOLID, TALL

    return (
        grid.kind(x, y, z) == AIR
        and grid.kind(x, y + 1, z) == AIR
        and grid.kind(x, y - 1, z) in (SOLID, TALL)
    )


def surface_cell(body: Any, x: int, z: int, around_y: int, span: int = 24) -> tuple[int, int, int] | None:
    """The standable cell of column (x, z) nearest to ``around_y`` (within ``span``), ``None`` if none."""
    grid = PathGrid.around(body.world, (x, around_y, z), 0, span)
    for dy in sorted(range(-span + 1, span - 1), key=lambda d: (abs(d), d)):
        if _standable(grid, x, around_y + dy, z):
            return (x, around_y + dy, z)
    return None


class GoTo(BaseSkill):
    """Walk to (x, y, z) with the A* follower; ``unreachable`` when no path gets within 1 block."""

    name = "go_to"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        target = (args.x, args.y, args.z)
        if not ctx.body.world.is_loaded(args.x, args.z):
            raise SkillFailed(FailureReason.UNREACHABLE, f"{target} is outside the loaded world")
        start = ctx.body.movement.position
        follower = PathFollower(ctx.body, search_radius=64, max_replans=4)
        res = await follower.goto(Goal(*target, radius=1.0), timeout=self.time_left(deadline))
        moved = math.dist(start, ctx.body.movement.position)
        if res.reached:
            progress.completed = 1
            progress.message = f"reached {target}"
            return
        if res.reason == "timeout":
            raise SkillFailed(FailureReason.TIMEOUT, f"did not reach {target} in time (moved {moved:.1f})")
        raise SkillFailed(FailureReason.UNREACHABLE, f"no path to {target} ({res.reason})")


class Explore(BaseSkill):
    """Walk up to ``distance`` blocks in a compass direction, leg by leg, over the loaded terrain."""

    name = "explore"

    def _direction(self, wanted: str) -> str:
        if wanted != "any":
            return wanted
        counts = self.ctx.explore_counts
        return min(DIRECTIONS, key=lambda d: (counts.get(d, 0), list(DIRECTIONS).index(d)))

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        direction = self._direction(args.direction)
        ctx.explore_counts[direction] = ctx.explore_counts.get(direction, 0) + 1
        dx, dz = DIRECTIONS[direction]
        start = ctx.body.movement.position
        travelled = 0.0
        blocked = ""
        while travelled < args.distance - 1 and ctx.now() < deadline:
            here = ctx.feet()
            leg = min(LEG, args.distance - int(travelled))
            target = None
            for step in range(leg, 1, -1):  # the farthest standable, loaded cell of this leg
                tx, tz = here[0] + dx * step, here[2] + dz * step
                if not ctx.body.world.is_loaded(tx, tz):
                    continue
                target = surface_cell(ctx.body, tx, tz, here[1])
                if target is not None:
                    break
            if target is None:
                blocked = "no standable loaded terrain ahead"
                break
            res = await PathFollower(ctx.body, search_radius=32, max_replans=2).goto(
                Goal(target[0], None, target[2], radius=1.5), timeout=self.time_left(deadline)
            )
            pos = ctx.body.movement.position
            new = abs((pos[0] - start[0]) * dx + (pos[2] - start[2]) * dz)
            if new <= travelled + 0.5:
                blocked = f"stuck ({res.reason or 'no progress'})"
                break
            travelled = new
            await ctx.sleep_ticks(6)  # let the server stream the chunks ahead
        progress.completed = int(travelled)
        progress.message = f"explored {direction} {int(travelled)} blocks" + (
            f"; {blocked}" if blocked else ""
        )
        if progress.completed < 1:
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"could not move {direction}: {blocked or 'timeout'}"
            )
        if blocked:
            progress.reason = FailureReason.UNREACHABLE
        elif ctx.now() >= deadline and travelled < args.distance - 1:
            progress.reason = FailureReason.TIMEOUT


class DigDown(BaseSkill):
    """Dig a one-wide staircase down to ``target_y`` (at most ``dig_down_max_blocks`` blocks dug).

    Each stair step clears the column ahead at head, feet and one below, then walks into it. Stops at
    liquids (never digs into water or lava), at the player's workstations and at blocks it cannot break
    within :data:`~mirrorcraft.skills.runtime.WAY_DIG_MAX_TICKS` with the tools carried, trying the other
    directions first.
    """

    name = "dig_down"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        start_y = ctx.feet()[1]
        if start_y <= args.target_y:
            raise SkillFailed(
                FailureReason.OTHER, f"already at y={start_y}, not above target_y {args.target_y}"
            )
        cap = ctx.limits.dig_down_max_blocks
        dug = 0
        yaw = body.movement.state.yaw if body.movement.state is not None else 0.0
        facing = ["south", "west", "north", "east"][int(((yaw % 360) + 45) // 90) % 4]
        order = [facing] + [d for d in DIRECTIONS if d != facing]
        last_why = ""
        while ctx.feet()[1] > args.target_y:
            self.check_time(deadline)
            x, y, z = ctx.feet()
            step_done = False
            why: dict[str, str] = {}  # direction -> why no step was taken there (for the report)
            for name in order:
                dx, dz = DIRECTIONS[name]
                cells = [(x + dx, y + 1, z + dz), (x + dx, y, z + dz), (x + dx, y - 1, z + dz)]
                names = [ctx.block(c) for c in cells]
                below = ctx.block((x + dx, y - 2, z + dz))
                if any(n is None or n in LIQUIDS for n in names) or below in LIQUIDS or below is None:
                    why[name] = "liquid or unloaded"
                    continue
                states = [body.world.state_at(*c) for c in cells]
                refused = [
                    n for n, st in zip(names, states, strict=True) if st is None or not ctx.way_diggable(st)
                ]
                if refused:  # a workstation, or too slow to break with the tools carried (obsidian)
                    why[name] = f"{refused[0]} not dug"
                    continue
                todo = [c for c, n in zip(cells, names, strict=True) if n not in AIR_NAMES]
                if dug + len(todo) > cap:
                    progress.message = f"stopped at the cap of {cap} blocks"
                    progress.completed = max(progress.completed, start_y - ctx.feet()[1])
                    if progress.completed < 1:
                        raise SkillFailed(FailureReason.OTHER, progress.message)
                    progress.reason = FailureReason.OTHER
                    return
                ok = True
                for c in todo:
                    self.check_time(deadline)
                    st = body.world.state_at(*c)
                    if st is None:
                        ok = False
                        break
                    await ctx.hold(ctx.way_tool(st)[0])
                    res = await body.dig(c)
                    if not res.broken:
                        why[name] = f"dig failed: {res.reason}"
                        ok = False
                        break
                    dug += 1
                    progress.broke(res.block)
                if not ok:
                    continue
                step = (x + dx + 0.5, y - 1, z + dz + 0.5)
                if not await body.walk_straight(step, 0.25, timeout=ctx.step_walk_timeout):
                    why[name] = "could not walk into the step"
                    continue
                await ctx.sleep(max(0.05, 8 / ctx.tick_rate))  # fall into the step (8 ticks)
                order = [name] + [d for d in order if d != name]
                step_done = True
                break
            if not step_done:
                last_why = ", ".join(f"{d}: {w}" for d, w in why.items())
                break
        progress.completed = max(0, start_y - ctx.feet()[1])
        progress.message = f"descended from y={start_y} to y={ctx.feet()[1]}, {dug} blocks dug"
        if progress.completed < 1:
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"no diggable staircase down from y={start_y} ({last_why})"
            )
        if ctx.feet()[1] > args.target_y:
            progress.reason = FailureReason.UNREACHABLE
            progress.message += f"; no step further ({last_why})" if last_why else ""


class Recover(BaseSkill):
    """Move to the nearest safe standing spot (out of water, a hole or an enclosure).

    Tries spots by distance (up to 8 blocks): first a walkable path, then a path that breaks at most one
    block (the one obstruction the body may clear). A player already on dry ground with a walkable exit
    gets a ``failure`` with reason ``other`` ("not stuck"): nothing to recover from.
    """

    name = "recover"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        here = ctx.feet()
        grid = PathGrid.around(body.world, here, 9, 6)
        in_water = grid.kind(*here) == WATER or (
            body.movement.state is not None and body.movement.state.in_water
        )
        spots = []
        for dx in range(-8, 9):
            for dz in range(-8, 9):
                for dy in range(-3, 4):
                    c = (here[0] + dx, here[1] + dy, here[2] + dz)
                    if (
                        (dx, dz) != (0, 0)
                        and _standable(grid, *c)
                        and grid.kind(c[0], c[1] - 1, c[2]) != WATER
                    ):
                        spots.append((math.dist(c, here), c))
        spots.sort()
        if not in_water:
            from mirrorcraft.pathing import find_path

            far = [c for d, c in spots if d >= 3]
            free = any(find_path(grid, here, Goal(*c), max_nodes=4000).status == "found" for c in far[:6])
            if free:
                raise SkillFailed(
                    FailureReason.OTHER, "not stuck: standing on a safe spot with a walkable exit"
                )
        for dig_cost in (0.0, 4.0):
            for _, c in spots[:12]:
                self.check_time(deadline)
                follower = PathFollower(
                    body, search_radius=12, dig_cost=dig_cost, max_replans=1, diggable=ctx.way_diggable
                )
                plan = follower.plan(Goal(*c))
                if plan.status != "found" or sum(len(s.dig) for s in plan.steps) > (1 if dig_cost else 0):
                    continue
                to_clear = [ctx.block(cell) for s in plan.steps for cell in s.dig]
                res = await follower.goto(Goal(*c), timeout=self.time_left(deadline))
                for name in to_clear[: res.dug]:
                    if name is not None:
                        progress.broke(name)
                if res.reached:
                    progress.completed = 1
                    progress.message = f"moved to the safe spot {c}" + (
                        " clearing one block" if res.dug else ""
                    )
                    return
        raise SkillFailed(FailureReason.UNREACHABLE, "no safe spot within 8 blocks is reachable")


__all__ = ["DigDown", "Explore", "GoTo", "Recover", "surface_cell"]
