"""Using items on blocks and entities, and tossing items (drop with aim).

Why a module of its own: farming and team play are "use": plant a seed on farmland, pick a sweet berry
bush, bone-meal a crop (use item on a block face, ``block_place``), milk a cow with a bucket (use item on
an entity, ``use_entity`` type interact, mineflayer's ``bot.activateEntity``), hand items to a team mate
(look at them and throw, as a player does with Q; the window click mode 4 throws the slot's item from the
eyes in the look direction, vanilla ``Player.drop``). What happens is the server's decision; every call
reports what changed in the world view and the inventory, never what the rules predict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from twisted.internet import task

from mirrorcraft.gamedata import block_of_state
from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.mcproto_body.digging import FACES, _facing
from mirrorcraft.mcproto_body.entities import Entities
from mirrorcraft.mcproto_body.inventory import Inventory
from mirrorcraft.mcproto_body.movement import Movement
from mirrorcraft.mcproto_body.placing import Placer
from mirrorcraft.mcproto_body.world import World
from mirrorcraft.protocol.serverbound import ArmAnimation, UseEntity

TOP = 1  #: the +Y face


@dataclass
class UseResult:
    """What one use did.

    Attributes:
        pos: The block (or entity position, floored) used on.
        before / after: Block names at ``pos`` before and after (``None`` when unknown or an entity).
        changed_cell: The cell whose state changed (``pos`` or the cell in front of the face), else ``None``.
        inventory_delta: ``{item: change}`` of the carried items.
        reason: Why nothing changed (empty when something did).
    """

    pos: tuple[int, int, int]
    before: str | None
    after: str | None
    changed_cell: tuple[int, int, int] | None
    inventory_delta: dict[str, int]
    reason: str = ""

    @property
    def changed(self) -> bool:
        return self.changed_cell is not None or bool(self.inventory_delta)


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after.get(k, 0) - before.get(k, 0) for k in sorted(set(before) | set(after))
            if after.get(k, 0) != before.get(k, 0)}  # fmt: skip


class Using:
    """Use the held item on blocks and entities; toss items.

    Args:
        conn / world / inventory / movement / placer / entities: The body's modules.
        reach: Eye-to-target reach (vanilla survival: 4.5 to a block's face, 3 to an entity... the embedded
            server and vanilla check 6 blocks for entities).
        answer_timeout: Wall seconds to wait for the server's answer.
    """

    def __init__(
        self,
        conn: Connection,
        world: World,
        inventory: Inventory,
        movement: Movement,
        placer: Placer,
        entities: Entities,
        reach: float = 4.5,
        answer_timeout: float = 2.0,
    ) -> None:
        self.conn, self.world, self.inventory, self.movement = conn, world, inventory, movement
        self.placer, self.entities = placer, entities
        self.reach = reach
        self.answer_timeout = answer_timeout

    async def _wait(self, cond, timeout: float) -> bool:
        clock = self.conn.clock
        deadline = clock.seconds() + timeout
        while not cond():
            if clock.seconds() > deadline:
                return False
            await task.deferLater(clock, 0.02, lambda: None)
        return True

    async def use_on_block(
        self, pos: tuple[int, int, int], item: str | None = None, face: int | None = None
    ) -> UseResult:
        """Hold ``item`` (if given) and use it on the block at ``pos`` (default face: the one towards the
        eyes; the top face for planting is ``face=1``); waits for the block there, the cell in front of the
        face or the inventory to change."""
        name = lambda p: (lambda s: None if s is None else block_of_state(s).name)(self.world.state_at(*p))  # noqa: E731
        before_name = name(pos)
        if item is not None and not await self.inventory.equip(item):
            return UseResult(pos, before_name, before_name, None, {}, f"no {item} in the inventory")
        await self.inventory.close()
        if self.world.state_at(*pos) is None:
            return UseResult(pos, None, None, None, {}, "target not loaded")
        f = _facing(self.movement.eye, pos) if face is None else face
        n = FACES[f]
        point = (pos[0] + 0.5 + 0.5 * n[0], pos[1] + 0.5 + 0.5 * n[1], pos[2] + 0.5 + 0.5 * n[2])
        if math.dist(self.movement.eye, point) > self.reach + 0.5:
            return UseResult(pos, before_name, before_name, None, {}, "out of reach")
        front = (pos[0] + n[0], pos[1] + n[1], pos[2] + n[2])
        cells = {pos: self.world.state_at(*pos), front: self.world.state_at(*front)}
        inv_before = self.inventory.contents()
        self.placer.use_on(pos, f)

        def changed() -> bool:
            return any(self.world.state_at(*c) != s for c, s in cells.items()) or (
                self.inventory.contents() != inv_before
            )

        await self._wait(changed, self.answer_timeout)
        await task.deferLater(self.conn.clock, 0.05, lambda: None)  # the matching set_slot / block change
        cell = next((c for c, s in cells.items() if self.world.state_at(*c) != s), None)
        delta = _delta(inv_before, self.inventory.contents())
        after = name(pos)
        reason = "" if cell is not None or delta else "nothing changed"
        return UseResult(pos, before_name, after, cell, delta, reason)

    async def use_on_entity(self, entity_id: int, item: str | None = None, hand: int = 0) -> UseResult:
        """Hold ``item`` (if given) and interact with an entity (mineflayer's ``bot.activateEntity``:
        ``use_entity`` type interact); waits for the inventory to change (a bucket filled with milk)."""
        ent = self.entities.by_id.get(entity_id)
        if ent is None:
            return UseResult((0, 0, 0), None, None, None, {}, "no such entity")
        cell = tuple(math.floor(c) for c in ent.position)
        if item is not None and not await self.inventory.equip(item):
            return UseResult(cell, None, None, None, {}, f"no {item} in the inventory")  # type: ignore[arg-type]
        await self.inventory.close()
        x, y, z = ent.position
        self.movement.look_at((x, y + 0.8, z))
        inv_before = self.inventory.contents()
        self.conn.send(UseEntity(target=entity_id, mouse=0, hand=hand, sneaking=False))
        self.conn.send(ArmAnimation(hand=hand))
        await self._wait(lambda: self.inventory.contents() != inv_before, self.answer_timeout)
        await task.deferLater(self.conn.clock, 0.05, lambda: None)
        delta = _delta(inv_before, self.inventory.contents())
        return UseResult(cell, None, None, None, delta, "" if delta else "nothing changed")  # type: ignore[arg-type]

    async def toss(self, item: str, count: int, towards: tuple[float, float, float] | None = None) -> int:
        """Throw ``count`` of ``item`` (whole stacks while they fit, then one at a time), looking at
        ``towards`` first (a point, e.g. a player's chest); returns how many the body's view says left."""
        await self.inventory.close()
        if towards is not None:
            self.movement.look_at(towards)
            await task.deferLater(self.conn.clock, 0.06, lambda: None)  # the look goes out with the next tick
        before = self.inventory.count(item)
        left = min(count, before)
        win = self.inventory.player
        while left > 0:
            slot = self.inventory.find(item, win)
            if slot is None:
                break
            s = win.slots[slot]
            if s is not None and s.count <= left:
                left -= s.count
                await self.inventory.drop(slot, whole_stack=True)
            else:
                left -= 1
                await self.inventory.drop(slot, whole_stack=False)
        return before - self.inventory.count(item)
