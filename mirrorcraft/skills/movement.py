"""Movement skills: ``go_to``, ``explore``, ``dig_down`` and ``recover`` (the escapes are in ``escapes.py``).

Why here and not in the body: these are *semantic* moves (one agent action each) built from the body's
A* follower and digger. They obey the body rules: no subgoals, bounded time, walking plus at most one
obstruction (:mod:`mirrorcraft.skills.navigation`); when that is not enough they fail at once naming the
escape that would work. ``explore`` with direction ``any`` is frontier exploration over the body's world
memory (the direction with the most never-seen chunks ahead, then the most never-visited ones; ties keep
the last direction, then go to the least-explored one, then north, east, south, west), so repeated explores
spread out deterministically instead of walking a square or going back and forth.
"""

from __future__ import annotations

import math
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.pathing import WATER, Goal, PathFollower, PathGrid, way_out
from mirrorcraft.skills.navigation import (
    BLOCK_REACH,
    ENTITY_REACH,
    Target,
    enclosure,
    nearest_entity,
    reach_target,
    target_problem,
    walk_region,
)
from mirrorcraft.skills.runtime import (
    AIR_NAMES,
    ESCAPE_DIG_MAX_TICKS,
    LIQUIDS,
    BaseSkill,
    Progress,
    SkillFailed,
)

DIRECTIONS: dict[str, tuple[int, int]] = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
LEG = 16  #: blocks per explore leg (one plan each, inside the loaded view)
EDGE_MARGIN = 4  #: blocks of standable loaded terrain ahead that ``explore any`` wants in a direction
#: Chunks ahead (one to each side) whose never-visited columns ``explore any`` counts: about what the next
#: call walks through. Counted farther, the border's shape decided (from a chunk north of the sandbox's
#: spawn, "south" held more columns inside the border and the call walked back over its own track).
UNVISITED_REACH = 3


def _standable(grid: PathGrid, x: int, y: int, z: int) -> bool:
    from mirrorcraft.pathing import AIR, SOLID, TALL

    return (
        grid.kind(x, y, z) == AIR
        and grid.kind(x, y + 1, z) == AIR
        and grid.kind(x, y - 1, z) in (SOLID, TALL)
    )


def _passable(state: int) -> bool:
    from mirrorcraft.gamedata import state_tables

    return bool(state_tables().no_collision[state])


def surface_cell(body: Any, x: int, z: int, around_y: int, span: int = 24) -> tuple[int, int, int] | None:
    """The standable cell of column (x, z) nearest to ``around_y`` (within ``span``), ``None`` if none."""
    grid = PathGrid.around(body.world, (x, around_y, z), 0, span)
    for dy in sorted(range(-span + 1, span - 1), key=lambda d: (abs(d), d)):
        if _standable(grid, x, around_y + dy, z):
            return (x, around_y + dy, z)
    return None


class GoTo(BaseSkill):
    """Walk to a position, a block (within reach) or an entity, within the body's rules
    (:mod:`mirrorcraft.skills.navigation`); ``unreachable`` naming the way out when no walk exists."""

    name = "go_to"

    def _target(self, args: Any) -> Target:
        ctx = self.ctx
        coords = None if args.x is None else (args.x, args.y, args.z)
        if args.entity is not None:
            mob = nearest_entity(ctx, args.entity)
            if mob is None or mob.distance_to(ctx.body.movement.position) > 2 * ctx.search_radius:
                raise SkillFailed(
                    FailureReason.NOT_FOUND, f"no {args.entity} within {2 * ctx.search_radius} blocks"
                )
            p = mob.position
            return Target(
                "entity", (math.floor(p[0]), math.floor(p[1]), math.floor(p[2])), ENTITY_REACH, args.entity
            )
        if args.block is not None:
            ctx.states_of(args.block)  # not a block -> not_found
            if coords is not None:
                here = ctx.block(coords)
                if here is not None and here != args.block:
                    raise SkillFailed(FailureReason.NOT_FOUND, f"{coords} holds {here}, not {args.block}")
                return Target("block", coords, BLOCK_REACH, args.block)
            memory = ctx.body.memory
            feet = ctx.feet()
            known = [
                p for p in memory.known(args.block, feet, radius=96) if not memory.is_unreachable(p, feet)
            ]
            if not known:
                raise SkillFailed(FailureReason.NOT_FOUND, f"no {args.block} seen within 96 blocks")
            return Target("block", known[0], BLOCK_REACH, args.block)
        assert coords is not None
        return Target("position", coords, 1.0, f"target {coords}")

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        target = self._target(args)
        if target.kind == "position":
            problem = target_problem(ctx, target.cell)
            if problem is not None:
                raise SkillFailed(FailureReason.UNREACHABLE, problem)
        start = ctx.body.movement.position
        reached = await reach_target(ctx, target, self.time_left(deadline), progress)
        moved = math.dist(start, ctx.body.movement.position)
        if reached:
            progress.completed = 1
            progress.message = f"reached {target.what if target.kind != 'position' else target.cell}" + (
                f" at {target.cell}" if target.kind != "position" else ""
            )
            return
        if ctx.now() >= deadline:
            raise SkillFailed(
                FailureReason.TIMEOUT, f"did not reach {target.cell} in time (moved {moved:.1f})"
            )
        raise SkillFailed(FailureReason.UNREACHABLE, ctx.last_way_out or f"no path to {target.cell}")


class Explore(BaseSkill):
    """Walk up to ``distance`` blocks in a compass direction, leg by leg, over the loaded terrain.

    ``any`` is frontier exploration: the direction with the most never-seen chunk columns ahead (inside
    the world border, from the body's world memory), less those that failed before; then the most
    never-visited columns (where the player has not stood, so exploring goes on once everything in view
    was seen); ties keep the last direction, then go to the least-explored one, then north, east, south, west.
    """

    name = "explore"

    def _direction(self, wanted: str, distance: int) -> str:
        if wanted != "any":
            return wanted
        ctx = self.ctx
        counts, failed = ctx.explore_counts, ctx.explore_failed
        order = list(DIRECTIONS)
        memory = ctx.body.memory
        memory.note_visited(ctx.body.movement.position)
        unseen = memory.frontier(ctx.feet())
        unvisited = memory.unvisited(ctx.feet(), reach=UNVISITED_REACH, half_width=1)
        # never-seen columns first, then never-visited ones, then straight on (the last direction), then the
        # least-explored direction: ranked by counts alone once the frontier was exhausted, calls went
        # north, east, south, west round the same square (plains-1 M04 Diamond: 28 explores round it)
        ranked = sorted(
            DIRECTIONS,
            key=lambda d: (
                unseen.get(d, 0) - 16 * failed.get(d, 0),
                unvisited.get(d, 0) - 16 * failed.get(d, 0),
                d == ctx.explore_last,
                -counts.get(d, 0),
                -order.index(d),
            ),
            reverse=True,
        )
        # never-seen columns may be unloaded space beyond the world's edge: the best direction that has
        # standable loaded terrain at least EDGE_MARGIN blocks ahead within the first leg (else the best
        # one, to fail saying so); at the edge the farthest standable cell was 2 blocks ahead, inside the
        # walk's goal radius, and the call failed having moved less than a block
        here = ctx.feet()
        leg = min(LEG, distance)
        for d in ranked:
            dx, dz = DIRECTIONS[d]
            target = self._leg_target(here, (dx, dz), leg)
            if target is not None and (target[0] - here[0]) * dx + (target[2] - here[2]) * dz >= EDGE_MARGIN:
                return d
        return ranked[0]

    def _leg_target(
        self, here: tuple[int, int, int], step_dir: tuple[int, int], leg: int
    ) -> tuple[int, int, int] | None:
        """The farthest standable, loaded cell of a leg of ``leg`` blocks from ``here`` (``None``: none)."""
        ctx = self.ctx
        dx, dz = step_dir
        for step in range(leg, 1, -1):
            tx, tz = here[0] + dx * step, here[2] + dz * step
            if not ctx.body.world.is_loaded(tx, tz) or not ctx.body.world.inside_border(tx + 0.5, tz + 0.5):
                continue
            target = surface_cell(ctx.body, tx, tz, here[1])
            if target is not None:
                return target
        return None

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        direction = self._direction(args.direction, args.distance)
        ctx.explore_counts[direction] = ctx.explore_counts.get(direction, 0) + 1
        ctx.explore_last = direction
        dx, dz = DIRECTIONS[direction]
        start = ctx.body.movement.position
        travelled = 0.0
        blocked = ""
        while travelled < args.distance - 1 and ctx.now() < deadline:
            _note_walked(ctx.body.memory, ctx.body.movement.position, start, (dx, dz), travelled)
            here = ctx.feet()
            leg = min(LEG, args.distance - int(travelled))
            target = self._leg_target(here, (dx, dz), leg)
            if target is None:
                blocked = "no standable loaded terrain ahead"
                break
            res = await PathFollower(ctx.body, search_radius=32, max_replans=2, max_seconds=1.0).goto(
                Goal(target[0], None, target[2], radius=1.5), timeout=self.time_left(deadline)
            )
            pos = ctx.body.movement.position
            new = abs((pos[0] - start[0]) * dx + (pos[2] - start[2]) * dz)
            if new <= travelled + 0.5:
                if travelled < 1:
                    region, _ = walk_region(ctx)
                    way = way_out(region or {here: 0.0}, target, here)
                    blocked = f"no walk: {way.text('the way')}"
                else:
                    blocked = f"stuck ({res.reason or 'no progress'})"
                break
            travelled = new
            await ctx.sleep_ticks(6)  # let the server stream the chunks ahead
        _note_walked(ctx.body.memory, ctx.body.movement.position, start, (dx, dz), travelled)
        progress.completed = int(travelled)
        progress.message = f"explored {direction} {int(travelled)} blocks" + (
            f"; {blocked}" if blocked else ""
        )
        if progress.completed < 1:
            ctx.explore_failed[direction] = ctx.explore_failed.get(direction, 0) + 1
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"could not move {direction}: {blocked or 'timeout'}"
            )
        if blocked:
            progress.reason = FailureReason.UNREACHABLE
        elif ctx.now() >= deadline and travelled < args.distance - 1:
            progress.reason = FailureReason.TIMEOUT


def _note_walked(
    memory: Any,
    pos: tuple[float, float, float],
    start: tuple[float, float, float],
    step: tuple[int, int],
    done: float,
) -> None:
    """Mark the columns along an explore's line as visited: every 8 blocks from ``start`` over ``done``
    blocks in direction ``step``, and where the player stands now."""
    for k in range(0, int(done) + 1, 8):
        memory.note_visited((start[0] + step[0] * k, start[1], start[2] + step[1] * k))
    memory.note_visited(pos)


class DigDown(BaseSkill):
    """Dig a one-wide staircase down to ``target_y`` (at most ``dig_down_max_blocks`` blocks dug).

    Each stair step clears the column ahead at head, feet and one below, then walks into it. Stops at
    liquids (never digs into water or lava), at the player's workstations and at blocks it cannot break
    within :data:`~mirrorcraft.skills.runtime.ESCAPE_DIG_MAX_TICKS` with the tools carried (an action of its
    own, like ``dig_up``: gold or copper ore with a wooden pickaxe, 150 ticks, is dug), trying the other
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
                below_state = body.world.state_at(x + dx, y - 2, z + dz)
                if below_state is None or _passable(below_state):
                    why[name] = "no floor under the step"
                    continue
                states = [body.world.state_at(*c) for c in cells]
                refused = [
                    n
                    for n, st in zip(names, states, strict=True)
                    if st is None or not ctx.way_diggable(st, ESCAPE_DIG_MAX_TICKS)
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
            if not step_done and all(w == "no floor under the step" for w in why.values()):
                # on a pillar or a ledge (open air all round): dig the block underfoot and drop one, as a
                # player does, when the one under it holds
                dropped = await self._straight_down(progress, dug, cap)
                if dropped:
                    dug += 1
                    continue
                why["down"] = "the block underfoot cannot be dug safely"
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

    async def _straight_down(self, progress: Progress, dug: int, cap: int) -> bool:
        """Dig the block under the feet and drop into its cell; only with solid ground under that block, no
        liquid beside it and within the cap."""
        ctx = self.ctx
        body = ctx.body
        x, y, z = ctx.feet()
        under, floor = (x, y - 1, z), (x, y - 2, z)
        st, fl = body.world.state_at(*under), body.world.state_at(*floor)
        if dug + 1 > ctx.limits.dig_down_max_blocks or st is None or fl is None or _passable(fl):
            return False
        if (
            ctx.block(under) in LIQUIDS
            or ctx.block(floor) in LIQUIDS
            or not ctx.way_diggable(st, ESCAPE_DIG_MAX_TICKS)
        ):
            return False
        around = [(x + 1, y - 1, z), (x - 1, y - 1, z), (x, y - 1, z + 1), (x, y - 1, z - 1)]
        if any(ctx.block(c) in LIQUIDS for c in around):
            return False
        await ctx.hold(ctx.way_tool(st)[0])
        res = await body.dig(under)
        if not res.broken:
            return False
        progress.broke(res.block)
        await ctx.settle(timeout=max(0.5, 20 / ctx.tick_rate))
        return ctx.feet()[1] == y - 1


#: A walkable region counts as open (the player is not stuck) when its dry cells span this many blocks
#: horizontally, or when it has more than :data:`OPEN_NODES` cells.
OPEN_SPAN = 8
OPEN_NODES = 600
#: Dig moves (one obstruction each) recover examines, nearest first.
RECOVER_CANDIDATES = 48
#: Blocks recover's one obstruction may be: one (a walled-in player breaks the block beside its head or
#: feet; a full doorway of two is an escape, ``tunnel``). Walking skills' approaches may clear two.
RECOVER_BLOCKS = 1
#: Columns searched for open ground when recover has to say where it is (horizontal radius, blocks up).
GROUND_RADIUS = 6
GROUND_UP = 14


def _dry(grid: PathGrid, region: dict) -> list:
    return [c for c in region if grid.kind(*c) != WATER]


def _open(grid: PathGrid, region: dict, exhausted: bool) -> bool:
    dry = _dry(grid, region)
    if not exhausted and dry:
        return True
    if not dry:
        return False
    xs, zs = [c[0] for c in dry], [c[2] for c in dry]
    return max(max(xs) - min(xs), max(zs) - min(zs)) + 1 >= OPEN_SPAN


class Recover(BaseSkill):
    """Move to the nearest safe standing spot (out of water, a hole or an enclosure), within the one
    obstruction the body may clear; fail fast, saying why and which escape would work, when there is none.

    A safe spot is a dry cell from which the walkable region is open (its dry cells span
    :data:`OPEN_SPAN` blocks, or it is larger than :data:`OPEN_NODES` cells). Recover floods the walkable
    region from the feet; on dry ground in an open region it refuses ("not stuck"). Otherwise it takes the
    nearest dry cell of an open region the player can walk to, else the cheapest single dig step breaking
    one block (:data:`RECOVER_BLOCKS`) after which the region is open. Planning is bounded floods, no
    walking, so a failure comes within a few game ticks: walled in by unbreakable blocks, or the nearest
    open ground N blocks up (``dig_up`` / ``pillar_up``) or beyond a wall (``tunnel``).
    """

    name = "recover"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        from mirrorcraft.pathing import flood, neighbours

        ctx = self.ctx
        body = ctx.body
        await ctx.settle(timeout=max(0.2, 10 / ctx.tick_rate))
        here = ctx.feet()
        grid = PathGrid.around(body.world, here, 12, 10, diggable=ctx.way_diggable)
        in_water = grid.kind(*here) == WATER or (
            body.movement.state is not None and body.movement.state.in_water
        )
        region, exhausted = flood(grid, here, max_nodes=OPEN_NODES)
        if _open(grid, region, exhausted):
            if not in_water:
                raise SkillFailed(
                    FailureReason.OTHER, "not stuck: standing on a safe spot with a walkable exit"
                )
            spot = min(_dry(grid, region), key=lambda c: (region[c], c))
            await self._go(spot, (), progress, deadline)
            return
        candidates = []
        for cell, cost in sorted(region.items(), key=lambda kv: (kv[1], kv[0])):
            for nxt, step_cost, step in neighbours(grid, cell, dig_cost=4.0):
                if step.move == "dig" and 0 < len(step.dig) <= RECOVER_BLOCKS:
                    candidates.append((cost + step_cost, cell, nxt, step.dig))
        candidates.sort()
        for _, origin, nxt, dig in candidates[:RECOVER_CANDIDATES]:
            after, ex = flood(grid, nxt, max_nodes=OPEN_NODES, opened=dig)
            if _open(grid, after, ex):
                self.check_time(deadline)
                spot = min(_dry(grid, after), key=lambda c: (after[c], c))
                await self._go(spot, dig, progress, deadline, origin=origin)
                return
        raise SkillFailed(FailureReason.UNREACHABLE, self._why(region))

    async def _go(
        self, spot: tuple, dig: tuple, progress: Progress, deadline: float, origin: tuple | None = None
    ) -> None:
        ctx = self.ctx
        body = ctx.body
        follower = PathFollower(body, search_radius=12, max_replans=2, max_seconds=0.5)
        if origin is not None and ctx.feet() != origin:
            res = await follower.goto(Goal(*origin), timeout=self.time_left(deadline))
            if not res.reached:
                raise SkillFailed(FailureReason.UNREACHABLE, f"could not walk to {origin} to clear the way")
        for cell in dig:
            self.check_time(deadline)
            state = body.world.state_at(*cell)
            if state is None or _passable(state):
                continue
            await ctx.hold(ctx.way_tool(state)[0])
            res = await body.dig(cell)
            if not res.broken:
                raise SkillFailed(
                    FailureReason.UNREACHABLE, f"could not break {res.block} at {cell}: {res.reason}"
                )
            progress.broke(res.block)
        res = await follower.goto(Goal(*spot), timeout=self.time_left(deadline))
        if not res.reached:
            raise SkillFailed(
                FailureReason.UNREACHABLE, f"could not walk to the safe spot {spot} ({res.reason})"
            )
        progress.completed = 1
        n = sum(progress.blocks_broken.values())
        progress.message = f"moved to the safe spot {spot}" + (
            f" clearing {'one block' if n == 1 else f'{n} blocks'}" if n else ""
        )

    def _why(self, region: dict) -> str:
        """Why no safe spot is within one obstruction, and which escape would work."""
        ctx = self.ctx
        here = ctx.feet()
        sealed = enclosure(ctx, region)
        if sealed is not None:
            return sealed
        ground = self._open_ground(here)
        if ground is None:
            return ("no safe spot within one obstruction and no open ground within "
                    f"{GROUND_UP} blocks up; try dig_up")  # fmt: skip
        way = way_out(region or {here: 0.0}, ground, here)
        return f"no safe spot within one obstruction: {way.text('open ground')}"

    def _open_ground(self, here: tuple) -> tuple | None:
        """The nearest cell with open sky around ``here``: the top standable cell of the nearby columns."""
        from mirrorcraft.pathing import valid

        ctx = self.ctx
        x0, y0, z0 = here
        grid = PathGrid.around(
            ctx.body.world, (x0, y0 + GROUND_UP // 2, z0), GROUND_RADIUS, GROUND_UP // 2 + 2
        )
        best = None
        for dx in range(-GROUND_RADIUS, GROUND_RADIUS + 1):
            for dz in range(-GROUND_RADIUS, GROUND_RADIUS + 1):
                x, z = x0 + dx, z0 + dz
                for y in range(y0 + GROUND_UP, y0 - 3, -1):  # the column's top standable cell
                    if valid(grid, (x, y, z)):
                        if grid.kind(x, y, z) != WATER and self._sky(x, y, z):
                            key = (math.hypot(dx, dz) + abs(y - y0), (x, y, z))
                            if best is None or key < best:
                                best = key
                        break
        return None if best is None else best[1]

    def _sky(self, x: int, y: int, z: int) -> bool:
        """Nothing solid above the head up to 24 blocks (or the world's top)."""
        world = self.ctx.body.world
        for yy in range(y + 2, min(y + 26, world.min_y + world.height)):
            st = world.state_at(x, yy, z)
            if st is None:
                return False
            if not _passable(st):
                return False
        return True


__all__ = ["DIRECTIONS", "DigDown", "Explore", "GoTo", "Recover", "surface_cell"]
