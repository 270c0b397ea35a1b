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


STEP_HEIGHT = 0.6  # Player.maxUpStep
_EPS = 1e-7  # vanilla Shapes.collide: movements and overlaps below this are none


def boxes_in(world: World, region: Box) -> list[Box]:
    """Every block collision box that may touch ``region`` (the cells it covers, one lower for fences)."""
    out: list[Box] = []
    for bx in range(math.floor(region[0] - _EPS), math.floor(region[3] + _EPS) + 1):
        for by in range(math.floor(region[1] - _EPS) - 1, math.floor(region[4] + _EPS) + 1):
            for bz in range(math.floor(region[2] - _EPS), math.floor(region[5] + _EPS) + 1):
                out.extend(block_boxes(world, bx, by, bz))
    return out


def _clip(boxes: list[Box], box: Box, axis: int, d: float) -> float:
    """How far ``box`` may move by ``d`` along ``axis`` (0 x, 1 y, 2 z) before it hits one of ``boxes``
    (vanilla ``Shapes.collide``: boxes it already overlaps on that axis do not stop it)."""
    if abs(d) < _EPS:
        return 0.0
    a, b = (axis + 1) % 3, (axis + 2) % 3
    for o in boxes:
        if not (o[a] < box[a + 3] - _EPS and o[a + 3] > box[a] + _EPS):
            continue
        if not (o[b] < box[b + 3] - _EPS and o[b + 3] > box[b] + _EPS):
            continue
        if d > 0 and o[axis] >= box[axis + 3] - _EPS:
            d = min(d, o[axis] - box[axis + 3])
        elif d < 0 and o[axis + 3] <= box[axis] + _EPS:
            d = max(d, o[axis + 3] - box[axis])
    return 0.0 if abs(d) < _EPS else d


def _moved(box: Box, dx: float, dy: float, dz: float) -> Box:
    return (box[0] + dx, box[1] + dy, box[2] + dz, box[3] + dx, box[4] + dy, box[5] + dz)


def _collide_box(boxes: list[Box], box: Box, dx: float, dy: float, dz: float) -> tuple[float, float, float]:
    """``Entity.collideBoundingBox``: y first, then the larger horizontal axis, then the other."""
    dy = _clip(boxes, box, 1, dy)
    box = _moved(box, 0.0, dy, 0.0)
    if abs(dx) < abs(dz):
        dz = _clip(boxes, box, 2, dz)
        box = _moved(box, 0.0, 0.0, dz)
        dx = _clip(boxes, box, 0, dx)
    else:
        dx = _clip(boxes, box, 0, dx)
        box = _moved(box, dx, 0.0, 0.0)
        dz = _clip(boxes, box, 2, dz)
    return dx, dy, dz


def collide_move(
    world: World, box: Box, dx: float, dy: float, dz: float, on_ground: bool
) -> tuple[float, float, float]:
    """The movement ``box`` really makes when it tries ``(dx, dy, dz)`` through the world's blocks: vanilla
    ``Entity.collide`` (axis by axis, with the 0.6 step-up of a player on the ground)."""
    region = (
        min(box[0], box[0] + dx), min(box[1], box[1] + dy) - STEP_HEIGHT, min(box[2], box[2] + dz),
        max(box[3], box[3] + dx), max(box[4], box[4] + dy) + STEP_HEIGHT, max(box[5], box[5] + dz),
    )  # fmt: skip
    boxes = [b for b in boxes_in(world, region) if _overlap(b, region, 0.0)]
    got = _collide_box(boxes, box, dx, dy, dz)
    hit_x, hit_y, hit_z = got[0] != dx, got[1] != dy, got[2] != dz
    if (on_ground or (hit_y and dy < 0)) and (hit_x or hit_z):
        best = _collide_box(boxes, box, dx, STEP_HEIGHT, dz)
        up = _collide_box(boxes, _expand(box, dx, dz), 0.0, STEP_HEIGHT, 0.0)
        if up[1] < STEP_HEIGHT:
            over = _collide_box(boxes, _moved(box, 0.0, up[1], 0.0), dx, 0.0, dz)
            over = (over[0], over[1] + up[1], over[2])
            if over[0] ** 2 + over[2] ** 2 > best[0] ** 2 + best[2] ** 2:
                best = over
        if best[0] ** 2 + best[2] ** 2 > got[0] ** 2 + got[2] ** 2:
            down = _collide_box(boxes, _moved(box, best[0], best[1], best[2]), 0.0, -best[1] + dy, 0.0)
            return best[0], best[1] + down[1], best[2]
    return got


def _expand(box: Box, dx: float, dz: float) -> Box:
    """``AABB.expandTowards(dx, 0, dz)``."""
    return (
        box[0] + min(dx, 0.0), box[1], box[2] + min(dz, 0.0),
        box[3] + max(dx, 0.0), box[4], box[5] + max(dz, 0.0),
    )  # fmt: skip


def collides_with_anything_new(world: World, old: Box, new: Box) -> bool:
    """``ServerGamePacketListenerImpl.isPlayerCollidingWithAnythingNew``: ``new`` (shrunk by 1e-5)
    intersects a block box that ``old`` (shrunk likewise) does not."""
    shrink = 1e-5
    n = (new[0] + shrink, new[1] + shrink, new[2] + shrink, new[3] - shrink, new[4] - shrink, new[5] - shrink)
    o = (old[0] + shrink, old[1] + shrink, old[2] + shrink, old[3] - shrink, old[4] - shrink, old[5] - shrink)
    return any(boxes_intersect(b, n) and not boxes_intersect(b, o) for b in boxes_in(world, n))


def no_blocks_around(world: World, box: Box) -> bool:
    """``ServerGamePacketListenerImpl.noBlocksAround``: every block in ``box`` grown by 0.0625 and reaching
    0.55 further down is air (the float check)."""
    g = 0.0625
    x0, y0, z0 = math.floor(box[0] - g), math.floor(box[1] - g - 0.55), math.floor(box[2] - g)
    x1, y1, z1 = math.floor(box[3] + g), math.floor(box[4] + g), math.floor(box[5] + g)
    for bx in range(x0, x1 + 1):
        for by in range(y0, y1 + 1):
            for bz in range(z0, z1 + 1):
                if not facts.is_air(world.get_block(bx, by, bz)):
                    return False
    return True
