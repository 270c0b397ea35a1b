"""Item entities: spawning dropped stacks, their motion, merging, pickup, throwing and despawning.

Vanilla behaviour followed (``ItemEntity.tick``, ``Block.popResource``, ``Player.drop``): a stack pops out of
a broken block at ±0.25 with a velocity of ±0.1 sideways and 0.2 up; a thrown stack leaves the eyes at 0.3
blocks per tick in the look direction with a pickup delay of 40 ticks. Items fall (gravity 0.04 per tick,
drag 0.98), collide axis by axis and land exactly on the highest collision box below, slow on the ground
(friction 0.6 x 0.98), merge with equal stacks within (0.5, 0.25, 0.5), are picked up when a player's box
inflated by (1, 0.5, 1) touches them (``collect``, ``set_slot``, ``destroy_entities``) and despawn after
6000 ticks or below y = -128. Stacks larger than the item's stack size are split on spawn.

Item entities carry an item and a count, no NBT (a thrown enchanted tool loses its enchantments: partial,
as before the kernel split). The entities themselves are the kernel's registry (``kernel.items``); this
feature owns what they do. Their motion also runs for the skipped ticks a late reactor catches up (the
clock's catch-up phase).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from uuid import UUID

from mirrorcraft.server import facts, wire
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import (
    PLAYER_EYE,
    Box,
    boxes_intersect,
    collides,
    highest_top,
    player_box,
)
from mirrorcraft.server.kernel.stacks import Stack
from mirrorcraft.server.kernel.world import World

ITEM_SIZE = 0.25
DESPAWN_AGE = 6000


@dataclass
class ItemEntity:
    """A dropped item stack in the world (``item`` is a namespaced item id)."""

    eid: int
    uuid: UUID
    item: str
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
                    top = highest_top(world, self.box(), self.pos[1] + d)
                    if top is not None:
                        self.pos[1] = top
                    self.on_ground = True
                self.vel[axis] = 0.0
        friction = 0.98 * (0.6 if self.on_ground else 1.0)
        self.vel[0] *= friction
        self.vel[2] *= friction
        self.vel[1] *= 0.98


class Items:
    """The item entities of one game."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.entities: dict[int, ItemEntity] = kernel.items
        self.scatter = kernel.rng.stream("scatter")

    def spawn(
        self,
        stack: Stack,
        pos: tuple[float, float, float],
        *,
        pop: bool = False,
        velocity: tuple[float, float, float] | None = None,
        pickup_delay: int = 10,
    ) -> list[ItemEntity]:
        """Spawn item entities for ``stack`` (split into max-size stacks; its NBT is not kept).

        ``pop`` scatters them like a broken block's drops (seeded ``scatter`` stream); otherwise they start at
        ``pos`` with ``velocity``.
        """
        out = []
        item, count = stack.item, stack.count
        limit = facts.max_stack(item)
        while count > 0:
            n = min(count, limit)
            count -= n
            rng = self.scatter
            if pop:  # vanilla Block.popResource: ±0.25 offset, velocity ±0.1 / 0.2 up
                p = [
                    pos[0] + rng.uniform(-0.25, 0.25),
                    pos[1] + rng.uniform(-0.25, 0.25),
                    pos[2] + rng.uniform(-0.25, 0.25),
                ]
                v = [rng.uniform(-0.1, 0.1), 0.2, rng.uniform(-0.1, 0.1)]
            else:
                p = list(pos)
                v = list(velocity or (0.0, 0.0, 0.0))
            k = self.kernel
            it = ItemEntity(k.new_eid(), k.new_uuid(), item, n, p, v, pickup_delay=pickup_delay)
            self.entities[it.eid] = it
            for o in k.players:
                self.send_spawn(o, it)
            out.append(it)
        return out

    def send_spawn(self, o: Player, it: ItemEntity) -> None:
        """Show one item entity to player ``o`` (spawn, metadata, velocity)."""
        o.send(
            "spawn_object",
            wire.spawn_entity(it.eid, it.uuid, facts.entity_type("item"), *it.pos, tuple(it.vel), 1),
        )
        o.send("entity_metadata", wire.item_entity_metadata(it.eid, it.item, it.count))
        o.send("entity_velocity", wire.entity_velocity(it.eid, tuple(it.vel)))
        it.sent_pos = tuple(it.pos)

    def remove(self, it: ItemEntity) -> None:
        """Remove an item entity and tell every player."""
        self.entities.pop(it.eid, None)
        self.kernel.broadcast("destroy_entities", wire.entity_destroy([it.eid]))

    def throw(self, p: Player, stack: Stack) -> None:
        """Throw a stack from ``p``'s eyes in its look direction (vanilla Player.drop: speed 0.3, delay 40)."""
        yaw, pitch = math.radians(p.yaw), math.radians(p.pitch)
        v = (
            -math.sin(yaw) * math.cos(pitch) * 0.3,
            -math.sin(pitch) * 0.3 + 0.1,
            math.cos(yaw) * math.cos(pitch) * 0.3,
        )
        self.spawn(stack, (p.pos[0], p.pos[1] + PLAYER_EYE - 0.3, p.pos[2]), velocity=v, pickup_delay=40)
        self.kernel.emit(
            "drop", player=p.display_name, item=stack.item.removeprefix("minecraft:"), count=stack.count
        )

    # ---- ticking -----------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One tick of every item: motion, despawn, merge, position broadcast, pickup."""
        world = self.kernel.world
        for it in list(self.entities.values()):
            if it.eid not in self.entities:
                continue
            it.tick(world)
            if it.age >= DESPAWN_AGE or it.pos[1] < -128:
                self.remove(it)
                continue
            self._merge(it)
            if it.eid not in self.entities:
                continue
            if tuple(it.pos) != it.sent_pos:
                self.kernel.broadcast(
                    "entity_teleport", wire.entity_teleport(it.eid, *it.pos, 0.0, 0.0, it.on_ground)
                )
                it.sent_pos = tuple(it.pos)
            if it.pickup_delay == 0:
                self._pickup(it)

    def _merge(self, it: ItemEntity) -> None:
        limit = facts.max_stack(it.item)
        if it.count >= limit:
            return
        for other in list(self.entities.values()):
            if other is it or other.item != it.item or other.count + it.count > limit:
                continue
            if (
                abs(other.pos[0] - it.pos[0]) <= 0.5
                and abs(other.pos[1] - it.pos[1]) <= 0.25
                and abs(other.pos[2] - it.pos[2]) <= 0.5
            ):
                it.count += other.count
                it.pickup_delay = max(it.pickup_delay, other.pickup_delay)
                self.remove(other)
                self.kernel.broadcast("entity_metadata", wire.item_entity_metadata(it.eid, it.item, it.count))

    def _pickup(self, it: ItemEntity) -> None:
        for p in self.kernel.players:
            x0, y0, z0, x1, y1, z1 = player_box(*p.pos)
            reach = (x0 - 1.0, y0 - 0.5, z0 - 1.0, x1 + 1.0, y1 + 0.5, z1 + 1.0)
            if not boxes_intersect(reach, it.box()):
                continue
            left, changed = p.inventory.add(it.item, it.count)
            taken = it.count - left
            if taken <= 0:
                continue
            self.kernel.broadcast("collect_item", wire.collect(it.eid, p.eid, taken))
            p.send_slots(changed)
            self.kernel.emit(
                "pickup", player=p.display_name, item=it.item.removeprefix("minecraft:"), count=taken
            )
            if left == 0:
                self.remove(it)
                return
            it.count = left
            self.kernel.broadcast("entity_metadata", wire.item_entity_metadata(it.eid, it.item, it.count))
