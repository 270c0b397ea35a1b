"""Reaching targets within the body's rules, and saying why not.

The paper's action rules (spec "Agent interface"): during a call the body may equip a tool, collect nearby
drops or clear **at most one local obstruction**. So every skill that approaches something (``go_to``, the
walk of ``mine``, ``collect``, ``craft_grid``/``smelt``/``enchant`` to their station, ``place`` at a
position, ``attack``) walks — walk, jump one, drop up to three, swim, climb out of water onto a bank,
step around fences and leaves — and may clear one obstruction (at most :data:`ONE_OBSTRUCTION` blocks
on the way, a doorway: feet and head). Towers, staircases up and tunnels are actions of their own (the escape
skills, ``skills/escapes.py``).

When no such way exists the approach fails **fast** and the failure names the way out
(:func:`no_walk`): ``"no walk: target 6 blocks up (y=65); try dig_up or pillar_up"``. Bad targets fail
before any planning, with the reason (:func:`target_problem`): outside the world border, in unloaded space,
in lava, inside unbreakable blocks.

Targets of ``go_to`` (:class:`Target`): a position (stand within 1 block of it), a block (stand within
reach of it, :data:`BLOCK_REACH`) or an entity (within 2 blocks of it). A block target without coordinates
is the nearest of that kind the body has seen (its world memory), skipping places marked unreachable from
here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from mirrorcraft.gamedata import block_of_state, state_tables
from mirrorcraft.pathing import Goal, PathFollower, PathGrid, flood, valid, way_out
from mirrorcraft.pathing.grid import hardness_table

# The skills' shared context (``runtime.SkillContext``) and progress (``runtime.Progress``): runtime calls into
# this module, so it is not imported here (import-linter keeps the package free of cycles, type-only
# imports included).
SkillContext = Any
Progress = Any

Cell = tuple[int, int, int]

#: The one obstruction a walking skill may clear: at most this many blocks broken on the way (the feet and
#: head cells of a doorway).
ONE_OBSTRUCTION = 2
#: Eye-to-block-centre distance within which a block counts as reached (vanilla survival reach is 4.5 to the
#: cursor point; the skills use 4.0 to the centre, as ``approach`` always has).
BLOCK_REACH = 4.0
#: Distance to an entity that counts as reached (a hit lands within 3 blocks).
ENTITY_REACH = 2.0
#: Horizontal half-size of the box the walk region is flooded in.
WALK_RADIUS = 24
#: Cells the walk-region flood expands before it gives up (a pit or a pocket is exhausted long before; an
#: open field is not, and then the walk is simply tried).
FLOOD_NODES = 6000

_LAVA = frozenset({"minecraft:lava"})


@dataclass(frozen=True)
class Target:
    """Where an approach goes.

    Attributes:
        kind: ``position``, ``block`` or ``entity``.
        cell: The position, the block's cell or the entity's feet cell.
        reach: Distance that counts as there (1 block for a position).
        what: How the failure message names it (``"target"``, ``"minecraft:crafting_table"``...).
    """

    kind: Literal["position", "block", "entity"]
    cell: Cell
    reach: float
    what: str = "target"


def target_problem(ctx: SkillContext, cell: Cell) -> str | None:
    """Why ``cell`` cannot be a destination at all (``None`` when it can): outside the world border, in
    unloaded space, outside the world's height, in lava, or inside unbreakable blocks with no free cell
    beside it."""
    world = ctx.body.world
    x, y, z = cell
    if not world.inside_border(x + 0.5, z + 0.5):
        return f"{cell} is outside the world border"
    if not world.is_loaded(x, z):
        return f"{cell} is in unloaded space (no chunk data there)"
    if not world.min_y <= y < world.min_y + world.height:
        return f"{cell} is outside the world's height ({world.min_y}..{world.min_y + world.height - 1})"
    state = world.state_at(x, y, z)
    name = block_of_state(state).name if state is not None else None
    if name in _LAVA:
        return f"{cell} is in lava"
    if (
        state is not None
        and math.isinf(float(hardness_table()[state]))
        and not state_tables().no_collision[state]
    ):
        around = [(x + dx, y + dy, z + dz) for dx, dy, dz in
                  ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]  # fmt: skip
        free = state_tables().no_collision
        if not any((s := world.state_at(*c)) is not None and free[s] for c in around):
            return f"{cell} is inside unbreakable blocks ({name})"
    return None


def walk_region(
    ctx: SkillContext, radius: int = WALK_RADIUS, height: int = 12
) -> tuple[dict[Cell, float], bool]:
    """Cells the player can walk to from its feet (no digging), with their costs, and whether the flood was
    exhausted (False: the region is larger than :data:`FLOOD_NODES` cells or reaches the edge of the box,
    so it goes on beyond what was searched)."""
    feet = ctx.feet()
    grid = PathGrid.around(ctx.body.world, feet, radius, height)
    region, exhausted = flood(grid, feet, max_nodes=FLOOD_NODES)
    if exhausted and any(
        abs(c[0] - feet[0]) >= radius or abs(c[2] - feet[2]) >= radius or abs(c[1] - feet[1]) >= height
        for c in region
    ):
        exhausted = False  # it reached the box's edge: the region goes on beyond it
    return region, exhausted


def stand_cell(ctx: SkillContext, target: Target) -> Cell:
    """The cell a player would stand in to be at ``target``: the nearest standable cell within its reach
    (by distance to the target) not under it, else the nearest under it (a hole dug below a crafting table
    is within reach of it but not where a player goes to use it), else the target cell itself (a buried
    block)."""
    r = max(1, math.ceil(target.reach))
    tx, ty, tz = target.cell
    grid = PathGrid.around(ctx.body.world, target.cell, r + 1, r + 2)
    best: tuple[bool, float, Cell] | None = None
    for dx in range(-r, r + 1):
        for dy in range(-r - 1, r + 1):
            for dz in range(-r, r + 1):
                c = (tx + dx, ty + dy, tz + dz)
                d = math.dist((c[0] + 0.5, c[1] + 1.62, c[2] + 0.5), (tx + 0.5, ty + 0.5, tz + 0.5))
                if target.kind != "block":
                    d = math.dist(c, target.cell)
                key = (c[1] < ty - 1, d, c)
                if d <= target.reach and valid(grid, c) and (best is None or key < best):
                    best = key
    return target.cell if best is None else best[2]


def enclosure(ctx: SkillContext, region: dict[Cell, float]) -> str | None:
    """When the walkable ``region`` is sealed by blocks the body cannot break (unbreakable ones, or ones
    :meth:`SkillContext.way_diggable` refuses with the tools carried) on every side, the reason; else
    ``None``. Why: then no escape skill helps either, and the call should say so at once."""
    world = ctx.body.world
    free = state_tables().no_collision
    walls: set[str] = set()
    occupied = set(region) | {(c[0], c[1] + 1, c[2]) for c in region}  # feet and head cells
    for c in region:
        for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1), (0, 2, 0), (0, -1, 0),
                           (1, 1, 0), (-1, 1, 0), (0, 1, 1), (0, 1, -1)):  # fmt: skip
            n = (c[0] + dx, c[1] + dy, c[2] + dz)
            if n in occupied:
                continue
            state = world.state_at(*n)
            if state is None:
                return None
            if free[state]:
                name = block_of_state(state).name
                if name in ("minecraft:water", "minecraft:lava"):
                    walls.add(name)
                    continue
                return None  # an opening: air the region does not reach (a ledge above, a gap)
            if ctx.way_diggable(state):
                return None
            walls.add(block_of_state(state).name)
    if not walls:
        return None
    return f"walled in by blocks that cannot be broken ({', '.join(sorted(walls))}): no way out"


def no_walk(ctx: SkillContext, target: Target) -> str:
    """The reason an approach found no walk, naming the way out (module docstring).

    The escape is named only when the walkable region was flooded to its end (the player is enclosed) or
    the target lies inside the flooded box; a far target in open country gets "no walk found", since the
    bounded search says nothing about what lies beyond it.
    """
    region, exhausted = walk_region(ctx)
    stand = stand_cell(ctx, target)
    feet = ctx.feet()
    far = max(abs(stand[0] - feet[0]), abs(stand[2] - feet[2])) > WALK_RADIUS - 2
    if not exhausted and far:
        d = round(math.dist(stand, feet))
        return f"no walk found to the {target.what} {d} blocks away (beyond the {WALK_RADIUS}-block search)"
    if exhausted:
        sealed = enclosure(ctx, region)
        if sealed is not None:
            return sealed
    return "no walk: " + way_out(region or {feet: 0.0}, stand, feet).text(target.what)


def region_reaches(region: dict[Cell, float], target: Target) -> bool:
    """Whether some walkable cell of ``region`` is at ``target`` (within its reach)."""
    tx, ty, tz = target.cell
    if target.kind == "block":
        return any(
            math.dist((c[0] + 0.5, c[1] + 1.62, c[2] + 0.5), (tx + 0.5, ty + 0.5, tz + 0.5)) <= target.reach
            for c in region
        )
    return any(math.dist(c, target.cell) <= target.reach for c in region)


def at_target(ctx: SkillContext, target: Target, slack: float = 0.0) -> bool:
    """Whether the player is at ``target`` now (eyes within reach of a block; feet within reach of a
    position or an entity), with ``slack`` blocks to spare."""
    if target.kind == "block":
        return ctx.in_reach(target.cell, target.reach + slack)
    return math.dist(ctx.feet(), target.cell) <= target.reach + slack


def target_goal(target: Target) -> Goal:
    """The planner's goal for ``target``: cells from which it is reached."""
    x, y, z = target.cell
    radius = target.reach - 1.0 if target.kind == "block" else target.reach
    return Goal(x, y, z, radius=max(radius, 0.0))


async def reach_target(
    ctx: SkillContext, target: Target, timeout: float, progress: Progress | None = None
) -> bool:
    """Get to ``target`` within the body's rules (module docstring); False, with :attr:`SkillContext.
    last_way_out` saying why and naming the escape, when no walk (plus one obstruction) gets there.

    Fails fast: the walk is tried only when the walkable region reaches the target or is too large to
    have been flooded; the one-obstruction plan is bounded (20,000 states, 0.5 s) and, from a pit or a
    pocket, is exhausted in a few hundred.
    """
    ctx.last_way_out = ""
    if at_target(ctx, target):
        return True
    problem = target_problem(ctx, target.cell)
    if problem is not None and (target.kind != "block" or "unbreakable" not in problem):
        ctx.last_way_out = problem
        return False
    goal = target_goal(target)
    t0 = ctx.now()
    region, exhausted = walk_region(ctx)
    walkable = region_reaches(region, target)
    reached = False
    stuck = ""
    if (not exhausted or walkable) and ctx.standing_room(goal):
        follower = PathFollower(
            ctx.body, search_radius=48, max_replans=3, max_nodes=30_000, max_seconds=1.0,
            min_half=WALK_RADIUS if walkable else 8,
        )  # fmt: skip
        res = await follower.goto(goal, timeout=timeout)
        reached, stuck = res.reached, res.reason
    if not reached and not at_target(ctx, target, 0.5) and ctx.now() - t0 < timeout:
        reached = await ctx.dig_path(
            goal, ONE_OBSTRUCTION, timeout - (ctx.now() - t0), progress,
            max_nodes=20_000, max_seconds=0.5, bounded=True,
        )  # fmt: skip
    await ctx.sleep(max(0.02, 2 / ctx.tick_rate))  # two ticks for the last position to land
    ok = at_target(ctx, target, 0.5) or reached
    if not ok:
        if ctx.now() - t0 >= timeout:
            ctx.last_way_out = f"the time limit ran out on the way to the {target.what}"
        elif walkable:
            ctx.last_way_out = (
                f"the walk to the {target.what} got stuck ({stuck or 'no progress'}); try recover"
            )
        else:
            ctx.last_way_out = no_walk(ctx, target)
        memory = getattr(ctx.body, "memory", None)
        if memory is not None:
            memory.note_unreachable(target.cell, ctx.feet(), ctx.last_way_out)
    return ok


def nearest_entity(ctx: SkillContext, kind: str) -> Any:
    """The nearest entity of type ``kind`` the body sees (``None`` when there is none)."""
    me = ctx.body.movement.position
    return ctx.body.entities.nearest(me, lambda e: e.type == kind)


__all__ = [
    "BLOCK_REACH",
    "ENTITY_REACH",
    "FLOOD_NODES",
    "ONE_OBSTRUCTION",
    "Target",
    "at_target",
    "enclosure",
    "no_walk",
    "reach_target",
    "region_reaches",
    "stand_cell",
    "target_goal",
    "target_problem",
    "walk_region",
]
