"""Where a joining or respawning player appears: vanilla's ``spawnRadius`` spread around the world spawn.

Why: vanilla does not put a new player exactly on the world spawn; ``ServerPlayer.fudgeSpawnLocation``
tries the columns of a ``(2r+1)²`` square around it (``r`` = the ``spawnRadius`` game rule, capped by the
distance to the world border, at least 1 when the spawn is within one block of the border) in a
pseudo-random order that visits each once (a start index and a step coprime to the count,
``getCoprime``), and takes the first column whose surface a player can stand on
(``PlayerRespawnLogic.getOverworldRespawnPos``: no fluid on top, a block with a full top face) and where
the player does not collide. The benchmark's controls keep ``spawnRadius`` at 0 so paired worlds start
identically; then (as before) the player stands on the save's spawn point, moved up while it is inside a
block — vanilla would look for the surface of the spawn column, which is the same block whenever the
spawn point is on the surface (docs/fidelity.md). Adventure as the default game mode spreads nobody, as
vanilla.

The start index comes from the seeded ``spawn`` random stream (vanilla draws it from an unseeded
generator), so the same world, seed and join order give the same spawns.
"""

from __future__ import annotations

import math
import random
from typing import Protocol

from mirrorcraft.rules.blocks import NO_FLUID, fluid_of
from mirrorcraft.server import facts
from mirrorcraft.server.kernel.physics import collides, player_box

MIN_Y, MAX_Y = -64, 320


class _World(Protocol):
    def get_block(self, x: int, y: int, z: int) -> int: ...

    def inside_border(self, x: float, z: float) -> bool: ...


def _fluid(state: int) -> bool:
    props = facts.state_props(state)
    return fluid_of(facts.block_name(state)) != NO_FLUID or props.get("waterlogged") == "true"


def _full_top(state: int) -> bool:
    """``Block.isFaceFull(collisionShape, UP)``: one box reaches the top and covers the whole face."""
    return any(
        b[4] >= 1.0 and b[0] <= 0.0 and b[2] <= 0.0 and b[3] >= 1.0 and b[5] >= 1.0
        for b in facts.collision_boxes(state)
    )


def _blocks_motion(state: int) -> bool:
    # the MOTION_BLOCKING heightmap: blocks with a collision shape, and fluids
    return bool(facts.collision_boxes(state)) or _fluid(state)


def surface(world: _World, x: int, z: int) -> tuple[int, int, int] | None:
    """``PlayerRespawnLogic.getOverworldRespawnPos``: the block above the column's standing surface, or
    ``None`` (water on top, or no block with a full top face below the first fluid)."""
    top = next((y for y in range(MAX_Y - 1, MIN_Y - 1, -1) if _blocks_motion(world.get_block(x, y, z))), None)
    if top is None:
        return None
    motion = top + 1  # heightmaps hold the first free y
    world_surface = next(
        (y + 1 for y in range(MAX_Y - 1, MIN_Y - 1, -1) if not facts.is_air(world.get_block(x, y, z))), MIN_Y
    )
    ocean_floor = next(
        (
            y + 1
            for y in range(top, MIN_Y - 1, -1)
            if facts.collision_boxes(world.get_block(x, y, z)) and not _fluid(world.get_block(x, y, z))
        ),
        MIN_Y,
    )
    if world_surface <= motion and world_surface > ocean_floor:
        return None
    for y in range(motion + 1, MIN_Y - 1, -1):
        state = world.get_block(x, y, z)
        if _fluid(state):
            return None
        if _full_top(state):
            return (x, y + 1, z)
    return None


def _coprime(n: int) -> int:
    return n - 1 if n <= 16 else 17  # ServerPlayer.getCoprime


def spawn_point(
    world: _World,
    spawn: tuple[int, int, int],
    radius: int,
    rng: random.Random,
    *,
    border_distance: float,
    adventure: bool = False,
) -> tuple[float, float, float]:
    """The feet position of a joining or respawning player (module docstring)."""
    sx, sy, sz = spawn
    if radius > 0 and not adventure:
        r = radius
        d = math.floor(border_distance)
        if d < r:
            r = d
        if d <= 1:
            r = 1
        side = r * 2 + 1
        count = side * side
        step = _coprime(count)
        start = rng.randrange(count)
        found: tuple[float, float, float] | None = None
        for i in range(count):
            k = (start + step * i) % count
            dx, dz = k % side, k // side
            pos = surface(world, sx + dx - r, sz + dz - r)
            if pos is None:
                continue
            found = (pos[0] + 0.5, float(pos[1]), pos[2] + 0.5)
            if not collides(world, player_box(*found)):  # type: ignore[arg-type]
                break
        if found is not None:
            return found
    pos = [sx + 0.5, float(sy), sz + 0.5]
    while collides(world, player_box(*pos)) and pos[1] < MAX_Y - 1:  # type: ignore[arg-type]
        pos[1] += 1.0
    return (pos[0], pos[1], pos[2])
