"""Hoppers: the 5-slot block entity that pulls item entities (and chest contents) from above and pushes one item
at a time into the chest or hopper it faces.

Why: the Dash & Dine egg farm's chickens stand on a hopper that feeds the egg chest; without it the eggs would
lie out of every player's reach. Vanilla 1.19.2 ``HopperBlockEntity.pushItemsTick`` (facts in
``rules/data/shapes.json``, :func:`mirrorcraft.rules.shapes.hopper`): every tick the cooldown counts down;
at 0, an enabled hopper first pushes one item (the first non-empty slot whose item fits) into the container
it faces, then, if it is not full, pulls — one item from the first non-empty slot of a container above, or
else a whole item entity (as much as fits) whose box touches the suck shape (the bowl and the cell above).
If anything moved, the cooldown becomes 8 ticks; an item pushed into an empty hopper gives that hopper a
cooldown of 8 (7 when it ticked before the pusher this tick).

Containers: chests (:mod:`~mirrorcraft.server.features.chests`) and other hoppers. Partial (docs/farming.md):
furnaces, other containers and minecart hoppers are not sources or targets; the hopper has no window (its
contents are seen by breaking it: they drop, or through the chest it feeds); ``entityInside`` (an item
falling *into* the hopper is pulled at once) is left to the next periodic pull; redstone (``enabled``) is read
from the state but nothing powers it. Hopper contents are saved in the block-entity side file and read from a
chunk's ``block_entities`` (``Items``, ``TransferCooldown``).
"""

from __future__ import annotations

from typing import Any

import nbtlib
import numpy as np

from mirrorcraft.errors import WorldError
from mirrorcraft.rules.shapes import hopper_rule
from mirrorcraft.server import facts, wire
from mirrorcraft.server.features.chests import Chests
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Behaviour, Kernel
from mirrorcraft.server.kernel.physics import boxes_intersect
from mirrorcraft.server.kernel.stacks import Stack
from mirrorcraft.server.kernel.world import MIN_Y

Pos = tuple[int, int, int]
FACING = {"down": (0, -1, 0), "north": (0, 0, -1), "south": (0, 0, 1), "west": (-1, 0, 0), "east": (1, 0, 0)}


class HopperEntity:
    """One hopper's slots and cooldown (vanilla ``cooldownTime`` starts at -1)."""

    def __init__(self, size: int) -> None:
        self.slots: list[Stack | None] = [None] * size
        self.cooldown = -1
        self.ticked = -1  # the game tick it last ticked (tickedGameTime)

    def full(self) -> bool:
        return all(s is not None and s.count >= facts.max_stack(s.item) for s in self.slots)

    def empty(self) -> bool:
        return all(s is None for s in self.slots)

    def to_json(self, pos: Pos) -> dict[str, Any]:
        items = [
            {
                "Slot": i,
                "id": s.item,
                "Count": s.count,
                **({"tag": nbtlib.serialize_tag(s.nbt)} if s.nbt else {}),
            }
            for i, s in enumerate(self.slots)
            if s is not None
        ]
        return {"pos": list(pos), "Items": items, "TransferCooldown": self.cooldown}


def add_stack(slots: list[Stack | None], stack: Stack) -> Stack | None:
    """``HopperBlockEntity.addItem`` into ``slots`` (first empty slot or merge, in slot order); the rest, if any."""
    count = stack.count
    limit = facts.max_stack(stack.item)
    for i, s in enumerate(slots):
        if count <= 0:
            break
        if s is None:
            slots[i] = Stack(stack.item, count, stack.nbt)
            count = 0
        elif s.item == stack.item and s.nbt == stack.nbt and s.count < limit:
            n = min(count, limit - s.count)
            slots[i] = s._replace(count=s.count + n)
            count -= n
    return None if count <= 0 else Stack(stack.item, count, stack.nbt)


class Hoppers:
    """The hoppers of one world, by position."""

    def __init__(self, kernel: Kernel, chests: Chests, items: Items) -> None:
        self.kernel = kernel
        self.chests = chests
        self.items = items
        self.rule = hopper_rule()
        self.block = facts.block(self.rule.block)
        self.entities: dict[Pos, HopperEntity] = {}
        self.moved = 0  # items moved (stats, tests)
        kernel.events.after("block_changed", self._changed)
        kernel.world.loaded_hooks.append(self._column_loaded)
        for (cx, cz), col in list(kernel.world.columns.items()):  # columns loaded before this feature
            self._column_loaded(cx, cz, col, None)

    # ---- the block entities ------------------------------------------------------------------------

    def _is_hopper(self, state: int) -> bool:
        return self.block.min_state <= state <= self.block.max_state

    def _changed(self, b: Behaviour) -> None:
        pos = b["pos"]
        if not (self._is_hopper(b["new"]) or self._is_hopper(b["old"])):
            return
        if self._is_hopper(self.kernel.world.get_block(*pos)):
            self.entities.setdefault(pos, HopperEntity(self.rule.slots))

    def _column_loaded(self, cx: int, cz: int, column: Any, chunk: Any) -> None:
        """A hopper block found in a loaded column gets its block entity (empty unless its chunk or the side
        file holds one)."""
        blocks = column.blocks
        ys, zs, xs = np.nonzero((blocks >= self.block.min_state) & (blocks <= self.block.max_state))
        for y, z, x in zip(ys.tolist(), zs.tolist(), xs.tolist(), strict=True):
            self.entities.setdefault((cx * 16 + x, MIN_Y + y, cz * 16 + z), HopperEntity(self.rule.slots))

    def hopper_at(self, pos: Pos) -> HopperEntity | None:
        """The hopper at ``pos`` (created on first use), or ``None`` when the block is not a hopper."""
        if not self._is_hopper(self.kernel.world.get_block(*pos)):
            self.entities.pop(pos, None)
            return None
        return self.entities.setdefault(pos, HopperEntity(self.rule.slots))

    def removed(self, pos: Pos) -> list[Stack] | None:
        """The hopper at ``pos`` was broken: forget it; its contents (``None``: no hopper there)."""
        h = self.entities.pop(pos, None)
        return None if h is None else [s for s in h.slots if s is not None]

    def restore(self, entry: dict[str, Any], where: str) -> Pos:
        """Load one entry (the side file's or a chunk's, as JSON: ``pos``, ``Items``, ``TransferCooldown``).

        Raises:
            WorldError: a malformed entry (``where`` names the file and entry, the message adds the field).
        """
        field = "pos"
        try:
            pos = tuple(int(v) for v in entry["pos"])
            if len(pos) != 3:
                raise ValueError("pos must have 3 coordinates")
            h = HopperEntity(self.rule.slots)
            for k, item in enumerate(entry.get("Items", [])):
                field = f"Items[{k}]"
                slot = int(item["Slot"])
                if not 0 <= slot < self.rule.slots:
                    raise ValueError(f"Slot {slot} outside 0..{self.rule.slots - 1}")
                tag = nbtlib.parse_nbt(item["tag"]) if "tag" in item else None
                h.slots[slot] = Stack(facts.item_key(str(item["id"])), int(item["Count"]), tag)
            field = "TransferCooldown"
            h.cooldown = int(entry.get("TransferCooldown", -1))
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise WorldError(f"{where}.{field}: {err!r}") from err
        self.entities[pos] = h  # type: ignore[index]
        return pos  # type: ignore[return-value]

    def dump(self) -> list[dict[str, Any]]:
        """JSON entries of every hopper, sorted by position."""
        return [h.to_json(pos) for pos, h in sorted(self.entities.items())]

    # ---- containers --------------------------------------------------------------------------------

    def _container(self, pos: Pos) -> list[Stack | None] | None:
        """The slots of the chest or hopper at ``pos`` (the live list), else ``None``."""
        chest = self.chests.chest_at(pos)
        if chest is not None:
            return chest.slots
        h = self.hopper_at(pos)
        return None if h is None else h.slots

    # ---- ticking ---------------------------------------------------------------------------------------

    def tick(self) -> None:
        """Every hopper: count the cooldown down, and at 0 push then pull (``pushItemsTick``)."""
        now = self.kernel.tick_count
        world = self.kernel.world
        for pos, h in list(self.entities.items()):
            state = world.get_block(*pos)
            if not self._is_hopper(state):
                self.entities.pop(pos, None)
                continue
            h.cooldown -= 1
            h.ticked = now
            if h.cooldown > 0:
                continue
            h.cooldown = 0
            props = facts.state_props(state)
            if props.get("enabled") != "true":
                continue
            moved = False
            if not h.empty():
                moved = self._push(pos, h, props["facing"])
            if not h.full():
                moved |= self._pull(pos, h)
            if moved:
                h.cooldown = self.rule.cooldown

    def _push(self, pos: Pos, h: HopperEntity, facing: str) -> bool:
        d = FACING[facing]
        target_pos = (pos[0] + d[0], pos[1] + d[1], pos[2] + d[2])
        target = self._container(target_pos)
        if target is None or all(s is not None and s.count >= facts.max_stack(s.item) for s in target):
            return False
        target_hopper = self.entities.get(target_pos)
        was_empty = all(s is None for s in target)
        for i, s in enumerate(h.slots):
            if s is None:
                continue
            if add_stack(target, Stack(s.item, 1, s.nbt)) is None:
                h.slots[i] = s._replace(count=s.count - 1) if s.count > 1 else None
                self.moved += 1
                if was_empty and target_hopper is not None and target_hopper.cooldown <= self.rule.cooldown:
                    target_hopper.cooldown = self.rule.cooldown - (
                        1 if target_hopper.ticked >= h.ticked else 0
                    )
                self.kernel.emit("hopper_moved", pos=pos, to=target_pos, item=s.item, count=1)
                return True
        return False

    def _pull(self, pos: Pos, h: HopperEntity) -> bool:
        above = (pos[0], pos[1] + 1, pos[2])
        source = self._container(above)
        if source is not None:
            for i, s in enumerate(source):
                if s is None:
                    continue
                if add_stack(h.slots, Stack(s.item, 1, s.nbt)) is None:
                    source[i] = s._replace(count=s.count - 1) if s.count > 1 else None
                    self.moved += 1
                    return True
            return False
        boxes = [(pos[0] + b[0], pos[1] + b[1], pos[2] + b[2], pos[0] + b[3], pos[1] + b[4], pos[2] + b[5])
                 for b in self.rule.suck_boxes]  # fmt: skip
        for it in list(self.items.entities.values()):
            if not any(boxes_intersect(it.box(), b) for b in boxes):
                continue
            rest = add_stack(h.slots, Stack(it.item, it.count))
            taken = it.count - (rest.count if rest else 0)
            if taken <= 0:
                continue
            self.moved += taken
            self.kernel.emit("hopper_pulled", pos=pos, item=it.item, count=taken)
            if rest is None:  # HopperBlockEntity.addItem(container, entity): true only when it is all taken
                self.items.remove(it)
                return True
            it.count = rest.count
            self.kernel.broadcast("entity_metadata", wire.item_entity_metadata(it.eid, it.item, it.count))
        return False
