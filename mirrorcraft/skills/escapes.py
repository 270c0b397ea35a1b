"""The escape skills: ``pillar_up``, ``dig_up`` and ``tunnel`` — each one action of its own.

Why separate actions: the paper's action rules let a call clear at most one local obstruction, so walking
skills never tower or dig their way out (``skills/navigation.py``). A player in a pit, a sealed shaft, a
sunken pond or on the wrong side of a ravine needs more: these skills do it deliberately, one call each,
and report every block broken and placed (a rule that changes what a block drops is met and recorded as in
any dig: the drops land in the inventory delta and ``drops_collected``).

* ``pillar_up(height, block)`` — jump and place a carried solid block under the feet (vanilla "towering":
  a jump lifts the feet 1.2522 blocks, wiki "Jumping", so the cell the player left is free to place into
  at the top of the jump), ``height`` times; clears one block over the head when it is in the way. Uses
  only blocks the player carries (the body never creates items).
* ``dig_up(target_y)`` — a one-wide staircase up: each step clears the cell above the head (room to jump)
  and the feet and head cells of the next step, then jumps onto it; a missing step is filled with a
  carried block when there is one. Never digs a block that holds back a liquid.
* ``tunnel(direction, length)`` — a straight 1×2 passage at feet level: digs what is in the way, bridges a
  missing floor with a carried block (vanilla places into air and water beside a solid block), stops at
  liquids, lava and blocks it cannot break.

Blocks broken only because they are in the way follow :meth:`SkillContext.way_diggable` (never the
player's workstations; only what the fastest carried item breaks within ``WAY_DIG_MAX_TICKS``). Falling
blocks (sand, gravel) that refill a cleared cell are dug again, a few times at most.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from mirrorcraft.contracts import FailureReason
from mirrorcraft.errors import GameDataError
from mirrorcraft.gamedata import block, state_tables
from mirrorcraft.pathing import Goal, PathFollower, Step
from mirrorcraft.skills.movement import DIRECTIONS
from mirrorcraft.skills.runtime import (
    ESCAPE_DIG_MAX_TICKS,
    KEEP_BLOCKS,
    LIQUIDS,
    BaseSkill,
    Progress,
    SkillContext,
    SkillFailed,
)

Cell = tuple[int, int, int]
log = logging.getLogger(__name__)
#: Failed stair steps that moved the player (a slip off the step) after which dig_up starts again from there.
MAX_SLIPS = 4
#: Sideways steps dig_up takes when the cell over the head cannot be cleared (a kept crafting table).
MAX_SIDESTEPS = 2

#: Carried blocks the body builds with, best first (cheap, full, not falling). Planks come after these; a
#: block not in the list is placed only when the agent names it.
BUILDING_BLOCKS = tuple(
    "minecraft:" + n
    for n in (
        "dirt", "cobblestone", "cobbled_deepslate", "netherrack", "coarse_dirt", "rooted_dirt", "andesite",
        "diorite", "granite", "tuff", "stone", "deepslate", "blackstone", "basalt", "calcite", "sandstone",
        "mud", "packed_mud", "end_stone", "moss_block", "clay",
    )
)  # fmt: skip
#: Blocks that fall when nothing holds them (vanilla ``FallingBlock``): never a tower or bridge block.
FALLING = frozenset(
    "minecraft:" + n for n in ("sand", "red_sand", "gravel", "anvil", "chipped_anvil", "damaged_anvil",
                               "pointed_dripstone", "scaffolding")
) | frozenset(f"minecraft:{c}_concrete_powder" for c in (
    "white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
    "purple", "blue", "brown", "green", "red", "black"))  # fmt: skip
#: Times a cleared cell is dug again when a falling block refills it.
REFILLS = 6
#: Game ticks to wait for a jump to lift the feet a block, and for a placed block to appear.
JUMP_TICKS = 12
PLACE_ANSWER_TICKS = 10


def placeable_block(name: str) -> bool:
    """Whether item ``name`` is a block a player can stand on that stays put: a full collision cube, not a
    falling block, not a workstation."""
    if name in FALLING or name in KEEP_BLOCKS:
        return False
    try:
        info = block(name)
    except GameDataError:
        return False
    return bool(state_tables().full_cube[info.default_state])


def building_block(ctx: SkillContext, wanted: str | None) -> str | None:
    """The carried block to build with: ``wanted`` (when carried and placeable), else the first carried of
    :data:`BUILDING_BLOCKS`, else carried planks; ``None`` when there is none."""
    have = ctx.inventory()
    if wanted is not None:
        return wanted if have.get(wanted, 0) > 0 and placeable_block(wanted) else None
    for name in BUILDING_BLOCKS:
        if have.get(name, 0) > 0:
            return name
    planks = sorted(n for n, c in have.items() if c > 0 and n.endswith("_planks"))
    return planks[0] if planks else None


def _free_state(state: int | None) -> bool:
    return state is not None and bool(state_tables().no_collision[state])


def _leaky(ctx: SkillContext, c: Cell) -> str | None:
    """A liquid above or beside ``c`` (breaking ``c`` would let it in): its name, else ``None``."""
    x, y, z = c
    for n in ((x, y + 1, z), (x + 1, y, z), (x - 1, y, z), (x, y, z + 1), (x, y, z - 1)):
        name = ctx.block(n)
        if name in LIQUIDS:
            return f"{name} beside {c}"
    return None


async def clear_cell(ctx: SkillContext, c: Cell, progress: Progress) -> str:
    """Make cell ``c`` passable (dig it, and again if a falling block refills it); ``""`` when it is, else
    why not (a liquid, an unloaded cell, a block the body may not or cannot break)."""
    for _ in range(REFILLS):
        state = ctx.body.world.state_at(*c)
        name = ctx.block(c)
        if state is None or name is None:
            return f"{c} is not loaded"
        if name in LIQUIDS:
            return f"{name} at {c}"
        if _free_state(state):
            return ""
        leak = _leaky(ctx, c)
        if leak is not None:
            return f"{name} at {c} holds back {leak.split(' beside ')[0]}"
        if not ctx.way_diggable(state, ESCAPE_DIG_MAX_TICKS):
            if name in KEEP_BLOCKS:
                return f"{name} at {c} not dug (a workstation or container is kept)"
            return f"{name} at {c} not dug" + (
                " (unbreakable)"
                if math.isinf(ctx.way_tool(state)[1])
                else " (too slow with the tools carried)"
            )
        await ctx.hold(ctx.way_tool(state)[0])
        res = await ctx.body.dig(c)
        if not res.broken:
            return f"could not break {name} at {c}: {res.reason}"
        progress.broke(res.block)
        await ctx.sleep_ticks(3)  # a falling block above starts to fall on the next ticks
    return f"{c} keeps refilling (falling blocks)"


async def place_block(ctx: SkillContext, c: Cell, item: str, progress: Progress) -> str:
    """Place carried ``item`` into ``c`` (air, a plant or water); ``""`` once the server placed it."""
    name = ctx.block(c)
    if name == "minecraft:lava":
        return f"lava at {c}"
    if not await ctx.hold(item):
        return f"no {item} left"
    res = await ctx.body.place(c, item)
    if not res.placed:
        return f"could not place {item} at {c}: {res.reason}"
    progress.placed(res.new_block or item)
    return ""


class PillarUp(BaseSkill):
    """Tower up ``height`` blocks on carried blocks (module docstring)."""

    name = "pillar_up"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        height = min(args.height, ctx.limits.pillar_max_height)
        item = building_block(ctx, args.block)
        if item is None:
            what = args.block or "building block (dirt, cobblestone, planks...)"
            raise SkillFailed(FailureReason.MISSING_ITEMS, f"no {what} to place in the inventory")
        start_y = ctx.feet()[1]
        why = ""
        await ctx.settle()
        while progress.completed < height:
            self.check_time(deadline)
            if not ctx.has(item):
                why = f"ran out of {item}"
                break
            st = ctx.body.movement.state
            if st is not None and st.in_water:
                why = "cannot tower while swimming (no ground to jump from); try dig_up"
                break
            x, y, z = ctx.feet()
            why = await clear_cell(ctx, (x, y + 2, z), progress)  # head room for the jump
            if why:
                break
            why = await self._jump_and_place((x, y, z), item, progress)
            if why:
                break
            progress.completed += 1
        climbed = ctx.feet()[1] - start_y
        progress.message = f"towered from y={start_y} to y={ctx.feet()[1]} on {progress.completed} {item}"
        if progress.completed < 1:
            raise SkillFailed(FailureReason.CANNOT_PLACE if "place" in why else FailureReason.OTHER,
                              f"could not tower: {why}")  # fmt: skip
        if climbed < progress.completed:
            progress.reason = FailureReason.OTHER
            progress.message += f" (standing at y={ctx.feet()[1]})"
        elif progress.completed < height:
            progress.reason = FailureReason.MISSING_ITEMS if "ran out" in why else FailureReason.OTHER
            progress.message += f"; {why}"

    async def _jump_and_place(self, cell: Cell, item: str, progress: Progress) -> str:
        """Jump from ``cell`` and place ``item`` into it at the top of the jump; ``""`` when standing on it."""
        ctx = self.ctx
        body = ctx.body
        mv = body.movement
        x, y, z = cell
        if not await ctx.hold(item):
            return f"no {item} left"
        await ctx.settle()
        mv.look(mv.state.yaw if mv.state is not None else 0.0, 90.0)
        mv.set_controls(jump=True)
        placed = False
        try:
            for _ in range(JUMP_TICKS):
                await ctx.sleep_ticks(1)
                st = mv.state
                if st is None:
                    return "no position"
                if st.pos[1] >= y + 1.02:
                    mv.set_controls(jump=False)
                    body.placer.use_on((x, y - 1, z), 1)  # the top face of the block under the feet
                    placed = True
                    break
            if not placed:
                return "the jump did not lift the feet a block (a ceiling?)"
            for _ in range(PLACE_ANSWER_TICKS):
                state = body.world.state_at(x, y, z)
                if state is not None and not _free_state(state):
                    break
                await ctx.sleep_ticks(1)
        finally:
            mv.stop()
        state = body.world.state_at(x, y, z)
        if state is None or _free_state(state):
            return f"the server placed nothing at {cell}"
        progress.placed(ctx.block(cell) or item)
        await ctx.settle()
        if ctx.feet()[1] != y + 1:
            return f"did not land on the placed block (feet at y={ctx.feet()[1]})"
        return ""


class DigUp(BaseSkill):
    """Dig a staircase up to ``target_y`` (module docstring)."""

    name = "dig_up"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        start_y = ctx.feet()[1]
        if start_y >= args.target_y:
            raise SkillFailed(
                FailureReason.OTHER, f"already at y={start_y}, not below target_y {args.target_y}"
            )
        cap = ctx.limits.dig_up_max_blocks
        yaw = body.movement.state.yaw if body.movement.state is not None else 0.0
        facing = ["south", "west", "north", "east"][int(((yaw % 360) + 45) // 90) % 4]
        order = [facing] + [d for d in DIRECTIONS if d != facing]
        await ctx.settle()
        wall = await self._leave_water(deadline)
        order.sort(key=lambda d: (d != wall, -self._openness(d)))
        last_why = ""
        sidesteps = 0
        slips = 0  # failed climbs that left the player elsewhere (off the step's far side, into a hole)
        while ctx.feet()[1] < args.target_y:
            self.check_time(deadline)
            x, y, z = ctx.feet()
            why: dict[str, str] = {}
            stepped = moved = False
            # a step with no floor beyond it lets the jump's momentum carry the player off into a hole (the
            # shaft a dig_down left): such steps come last
            for name in sorted(order, key=lambda d: not self._guarded((x, y, z), d)):
                dx, dz = DIRECTIONS[name]
                floor = (x + dx, y, z + dz)
                cells = [(x, y + 2, z), (x + dx, y + 2, z + dz), (x + dx, y + 1, z + dz)]
                problem = self._refuse(cells, floor)
                if problem:
                    why[name] = problem
                    continue
                todo = [c for c in cells if not _free_state(body.world.state_at(*c))]
                broken = sum(progress.blocks_broken.values())
                if broken + len(todo) > cap:
                    why[name] = f"the cap of {cap} blocks"
                    continue
                failed = ""
                for c in cells:
                    self.check_time(deadline)
                    failed = await clear_cell(ctx, c, progress)
                    if failed:
                        break
                if not failed and _free_state(body.world.state_at(*floor)):
                    item = building_block(ctx, None)
                    failed = "no floor for the step and no block to place" if item is None else (
                        await place_block(ctx, floor, item, progress)
                    )  # fmt: skip
                if failed:
                    why[name] = failed
                    continue
                step = Step((x + dx, y + 1, z + dz), "jump")
                await PathFollower(body, stuck_ticks=20).move_step(step)
                await ctx.settle()
                if ctx.feet()[1] != y + 1:
                    log.debug("dig_up: from %s %s failed, now at %s", (x, y, z), name, body.movement.position)
                    why[name] = "could not climb onto the step"
                    if ctx.feet() != (x, y, z) and slips < MAX_SLIPS:
                        slips += 1
                        moved = True  # start again from where the player now stands
                        break
                    continue
                order = [name] + [d for d in order if d != name]
                stepped = True
                break
            if moved:
                continue
            if (
                not stepped
                and sidesteps < MAX_SIDESTEPS
                and await self._sidestep((x, y, z), order, progress, deadline)
            ):
                sidesteps += 1  # the cell over the head could not be cleared (a kept table): start beside it
                continue
            if not stepped:
                last_why = ", ".join(f"{d}: {w}" for d, w in why.items())
                break
        progress.completed = max(0, ctx.feet()[1] - start_y)
        dug = sum(progress.blocks_broken.values())
        progress.message = f"climbed from y={start_y} to y={ctx.feet()[1]}, {dug} blocks dug"
        if progress.completed < 1:
            raise SkillFailed(FailureReason.UNREACHABLE, f"no staircase up from y={start_y} ({last_why})")
        if ctx.feet()[1] < args.target_y:
            progress.reason = FailureReason.UNREACHABLE
            progress.message += f"; no step further ({last_why})" if last_why else ""

    async def _leave_water(self, deadline: float) -> str | None:
        """Swimming: rise to the surface and swim to the nearest wall at that level, so the staircase can
        start in it (a sunken pond's banks stand above the water); returns the wall's direction."""
        ctx = self.ctx
        body = ctx.body
        mv = body.movement
        if mv.state is None or not mv.state.in_water:
            return None
        try:
            for _ in range(40):  # up to the surface: the head out of the water
                x, y, z = ctx.feet()
                if ctx.block((x, y + 1, z)) not in LIQUIDS:
                    break
                mv.set_controls(jump=True)
                await ctx.sleep_ticks(1)
        finally:
            mv.stop()
        x, y, z = ctx.feet()
        best: tuple[int, str, Cell] | None = None
        for name, (dx, dz) in DIRECTIONS.items():
            for k in range(1, 9):
                c = (x + dx * k, y, z + dz * k)
                state = body.world.state_at(*c)
                if state is None or (_free_state(state) and ctx.block(c) not in LIQUIDS):
                    break  # unloaded, or open air at this level: no wall that way
                if not _free_state(state):
                    if best is None or (k, name) < best[:2]:
                        best = (k, name, (x + dx * (k - 1), y, z + dz * (k - 1)))
                    break
        if best is None:
            return None
        if best[0] > 1:
            await PathFollower(body, search_radius=10, max_replans=1).goto(
                Goal(*best[2]), timeout=min(self.time_left(deadline), 10.0)
            )
        return best[1]

    def _openness(self, direction: str) -> int:
        """Free cells in the column two ahead in ``direction`` above the feet (prefer digging towards air)."""
        ctx = self.ctx
        x, y, z = ctx.feet()
        dx, dz = DIRECTIONS[direction]
        return sum(_free_state(ctx.body.world.state_at(x + dx * k, y + h, z + dz * k))
                   for k in (1, 2, 3) for h in (1, 2, 3, 4))  # fmt: skip

    async def _sidestep(self, feet: Cell, order: list[str], progress: Progress, deadline: float) -> bool:
        """When the cell over the head cannot be cleared, step one cell sideways at the same level (clearing
        feet and head there) where it can; True once the player stands there."""
        ctx = self.ctx
        world = ctx.body.world
        x, y, z = feet
        if _free_state(world.state_at(x, y + 2, z)):
            return False  # the head room was not the problem
        for name in order:
            dx, dz = DIRECTIONS[name]
            side = (x + dx, y, z + dz)
            cells = [side, (side[0], y + 1, side[2])]
            over = world.state_at(side[0], y + 2, side[2])
            floor = world.state_at(side[0], y - 1, side[2])
            if over is None or floor is None or _free_state(floor) or self._refuse(cells, side):
                continue
            if not (_free_state(over) or ctx.way_diggable(over, ESCAPE_DIG_MAX_TICKS)):
                continue
            failed = ""
            for c in cells:
                self.check_time(deadline)
                failed = await clear_cell(ctx, c, progress)
                if failed:
                    break
            if failed:
                continue
            await PathFollower(ctx.body, stuck_ticks=20).move_step(Step(side, "walk"))
            await ctx.settle()
            if ctx.feet() == side:
                return True
        return False

    def _guarded(self, feet: Cell, direction: str) -> bool:
        """Whether a step up in ``direction`` has something beyond it to stop on: a floor or a wall."""
        x, y, z = feet
        dx, dz = DIRECTIONS[direction]
        world = self.ctx.body.world
        return any(not _free_state(world.state_at(x + 2 * dx, y + h, z + 2 * dz)) for h in (0, 1))

    def _refuse(self, cells: list[Cell], floor: Cell) -> str:
        ctx = self.ctx
        for c in [*cells, floor]:
            name = ctx.block(c)
            if name is None:
                return f"{c} not loaded"
            if name in LIQUIDS:
                return f"{name} at {c}"
        if not ctx.body.world.inside_border(floor[0] + 0.5, floor[2] + 0.5):
            return "the world border"
        return ""


class Tunnel(BaseSkill):
    """A straight passage at feet level, bridging gaps (module docstring)."""

    name = "tunnel"

    async def run(self, args: Any, progress: Progress, deadline: float) -> None:
        ctx = self.ctx
        body = ctx.body
        length = min(args.length, ctx.limits.tunnel_max_length)
        dx, dz = DIRECTIONS[args.direction]
        start = ctx.feet()
        why = ""
        await ctx.settle()
        while progress.completed < length:
            self.check_time(deadline)
            x, y, z = ctx.feet()
            nxt = (x + dx, y, z + dz)
            if not body.world.inside_border(nxt[0] + 0.5, nxt[2] + 0.5):
                why = "the world border"
                break
            floor = (nxt[0], y - 1, nxt[2])
            for c in ((nxt[0], y + 1, nxt[2]), nxt):
                why = await clear_cell(ctx, c, progress)
                if why:
                    break
            if why:
                break
            floor_state = body.world.state_at(*floor)
            if floor_state is None:
                why = f"{floor} not loaded"
                break
            if ctx.block(floor) == "minecraft:lava":
                why = f"lava at {floor}"
                break
            if _free_state(floor_state):
                item = building_block(ctx, None)
                if item is None:
                    why = f"a gap at {floor} and no block to bridge it"
                    break
                why = await place_block(ctx, floor, item, progress)
                if why:
                    break
            if not await body.walk_straight(
                (nxt[0] + 0.5, y, nxt[2] + 0.5), 0.2, timeout=ctx.step_walk_timeout
            ):
                why = f"could not walk into {nxt}"
                break
            await ctx.settle()
            if ctx.feet() != nxt:
                why = f"ended at {ctx.feet()} instead of {nxt}"
                break
            progress.completed += 1
        progress.message = (
            f"tunnelled {progress.completed} blocks {args.direction} from {start[0]} {start[1]} {start[2]}"
        )
        if progress.completed < 1:
            raise SkillFailed(FailureReason.UNREACHABLE, f"could not tunnel {args.direction}: {why}")
        if progress.completed < length:
            progress.reason = FailureReason.UNREACHABLE
            progress.message += f"; stopped: {why}"


__all__ = [
    "BUILDING_BLOCKS",
    "DigUp",
    "PillarUp",
    "Tunnel",
    "building_block",
    "clear_cell",
    "placeable_block",
]
