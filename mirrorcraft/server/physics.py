"""Collision checks for players and the motion of dropped items.

Why server-side physics at all: the client simulates its own player and the server only *checks* the
result (vanilla ``ServerGamePacketListenerImpl.handleMovePlayer``: reject moves that are too fast or that
end inside blocks, answering with a teleport back). Dropped items are simulated by the server alone
(vanilla ``ItemEntity.tick``: gravity 0.04 per tick, drag 0.98, ground friction 0.6 × 0.98, merge with
equal stacks nearby, picked up when a player's box inflated by (1, 0.5, 1) touches them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from uuid import UUID

from mirrorcraft.server import facts
from mirrorcraft.server.world import World

PLAYER_WIDTH = 0.6
PLAYER_HEIGHT = 1.8
PLAYER_EYE = 1.62
ITEM_SIZE = 0.25

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


def _highest_top(world: World, box: Box, lowest: float) -> float | None:
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


@dataclass
class ItemEntity:
    """A dropped item stack in the world."""

    eid: int
    uuid: UUID
    item: int
    count: int
    pos: list[float]
    vel: list[float]
    pickup_delay: int = 10
    age: int = 0
    on_ground: bool = False
    sent_pos: tuple[float, float, float] = field(default=(0.0, 0.0, 0.0))

    def box(self) -> Box:
        """Bounding box (0.25 cube centred on x/z, from the feet up)."""
        h = ITEM_SIZE / 2
        x, y, z = self.pos
        return (x - h, y, z - h, x + h, y + ITEM_SIZE, z + h)

    def tick(self, world: World) -> None:
        """One game tick of motion: gravity, axis-by-axis collision, drag and ground friction."""
        self.age += 1
        if self.pickup_delay > 0:
            self.pickup_delay -= 1
        if self.on_ground and abs(self.vel[0]) < 1e-3 and abs(self.vel[2]) < 1e-3:
            below = (
                self.pos[0] - 0.1,
                self.pos[1] - 0.01,
                self.pos[2] - 0.1,
                self.pos[0] + 0.1,
                self.pos[1],
                self.pos[2] + 0.1,
            )
            if collides(world, below):
                self.vel = [0.0, 0.0, 0.0]
                return
            self.on_ground = False
        self.vel[1] -= 0.04
        self.on_ground = False
        for axis in (1, 0, 2):
            d = self.vel[axis]
            if d == 0:
                continue
            self.pos[axis] += d
            if collides(world, self.box()):
                self.pos[axis] -= d
                if axis == 1 and d < 0:
                    # land exactly on the highest collision box top between the old and new feet
                    top = _highest_top(world, self.box(), self.pos[1] + d)
                    if top is not None:
                        self.pos[1] = top
                    self.on_ground = True
                self.vel[axis] = 0.0
        friction = 0.98 * (0.6 if self.on_ground else 1.0)
        self.vel[0] *= friction
        self.vel[2] *= friction
        self.vel[1] *= 0.98
