"""Collision geometry of the kernel: player boxes, block collision boxes, box tests and reach.

Why in the kernel: every feature that moves something or acts on a block asks the same questions (does this
box hit a block, is that block within the player's reach); the client simulates its own player and the
server only *checks* the result (vanilla ``ServerGamePacketListenerImpl.handleMovePlayer``), while dropped
items and mobs are moved by the features that own them (:mod:`~mirrorcraft.server.features.items`,
:mod:`~mirrorcraft.server.features.mobs`) with these helpers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mirrorcraft.server import facts
from mirrorcraft.server.kernel.world import World

PLAYER_WIDTH = 0.6
PLAYER_HEIGHT = 1.8
PLAYER_EYE = 1.62
REACH = 6.0  # blocks from the eyes; vanilla allows sqrt(36) for digging/placing (ServerPlayerGameMode)

Box = tuple[float, float, float, float, float, float]


def player_box(x: float, y: float, z: float) -> Box:
    """A player's bounding box at feet position ``(x, y, z)``."""
    h = PLAYER_WIDTH / 2
    return (x - h, y, z - h, x + h, y + PLAYER_HEIGHT, z + h)


def _overlap(a: Box, b: Box, eps: float = 1e-4) -> bool:
    return (
        a[0] < b[3] - eps
        and a[3] > b[0] + eps
        and a[1] < b[4] - eps
        and a[4] > b[1] + eps
        and a[2] < b[5] - eps
        and a[5] > b[2] + eps
    )


def block_boxes(world: World, bx: int, by: int, bz: int) -> list[Box]:
    """World-space collision boxes of the block at ``(bx, by, bz)``."""
    state = world.get_block(bx, by, bz)
    if state == 0:
        return []
    return [
        (bx + b[0], by + b[1], bz + b[2], bx + b[3], by + b[4], bz + b[5])
        for b in facts.collision_boxes(state)
    ]


def collides(world: World, box: Box) -> bool:
    """True when ``box`` intersects any block collision box."""
    for bx in range(math.floor(box[0]), math.floor(box[3]) + 1):
        for by in range(math.floor(box[1]) - 1, math.floor(box[4]) + 1):  # -1: fences are 1.5 high
            for bz in range(math.floor(box[2]), math.floor(box[5]) + 1):
                for b in block_boxes(world, bx, by, bz):
                    if _overlap(box, b):
                        return True
    return False


def highest_top(world: World, box: Box, lowest: float) -> float | None:
    """Highest block-box top under ``box``'s footprint between ``lowest`` and the box's feet."""
    best = None
    for bx in range(math.floor(box[0]), math.floor(box[3]) + 1):
        for by in range(math.floor(lowest) - 1, math.floor(box[1]) + 1):
            for bz in range(math.floor(box[2]), math.floor(box[5]) + 1):
                for b in block_boxes(world, bx, by, bz):
                    footprint = b[0] < box[3] and b[3] > box[0] and b[2] < box[5] and b[5] > box[2]
                    if footprint and lowest - 1e-7 <= b[4] <= box[1] + 1e-7 and (best is None or b[4] > best):
                        best = b[4]
    return best


def boxes_intersect(a: Box, b: Box) -> bool:
    """Strict intersection of two boxes."""
    return _overlap(a, b, 0.0)


def within_reach(pos: Sequence[float], block: tuple[int, int, int]) -> bool:
    """Whether block ``block``'s centre is within reach of a player standing at feet position ``pos``
    (:data:`REACH` + 1 from the eyes: the slack vanilla's ``ServerPlayerGameMode`` checks with)."""
    ex, ey, ez = pos[0], pos[1] + PLAYER_EYE, pos[2]
    cx, cy, cz = block[0] + 0.5, block[1] + 0.5, block[2] + 0.5
    return (ex - cx) ** 2 + (ey - cy) ** 2 + (ez - cz) ** 2 <= (REACH + 1.0) ** 2
