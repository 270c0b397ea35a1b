"""Chests: the ``chest`` block entity (27 slots), its ``generic_9x3`` window, opening by use, and the lid.

Why a feature of its own: a chest is the one *storage* container (the crafting and enchanting tables hand
their items back on close; a furnace is a machine). Its contents live in a block entity that outlives every
window, so two players looking at the same chest see one storage, and closing the window keeps the items
where they are. Clicks go through the shared click engine (:class:`~mirrorcraft.server.features.windows.
Menu`, vanilla ``AbstractContainerMenu.doClick``); :class:`ChestMenu` adds only vanilla
``ChestMenu.quickMoveStack``.

Layout (wiki.vg "Inventory", 1.19.2): menu type ``minecraft:generic_9x3`` (id 2), slots 0-26 the chest,
27-53 the player's main inventory, 54-62 the hotbar; title ``container.chest`` (vanilla
``ChestBlockEntity.getDefaultName``). The lid follows the number of viewers (``block_action`` 1, vanilla
``ChestLidController``); a solid block above keeps it shut (``ChestBlock.isChestBlockedAt``: no window);
breaking a chest closes its windows first (vanilla ``stillValid``) and the block-entities feature drops the
contents. Every click that changes a chest's contents publishes ``container_move`` (player, pos, kind,
``delta`` = item → count change of the chest, positive = put in); the evaluator log has no container kind
(moving items is never rule-changed).

Persistence (the block-entities feature's side file, under ``"chests"``): one entry per chest in vanilla's
``Items`` shape (``{id, pos, Items: [{Slot, id, Count, tag}]}``, item NBT as SNBT text). Left out: double
chests (two adjacent chests stay two single chests; the placed block keeps ``type=single``), sounds,
loot-table chests, hoppers, and item NBT on the drops of a broken chest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbtlib

from mirrorcraft.errors import WorldError
from mirrorcraft.rules.blocks import block_entity_type, menu_blocks
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.server import facts, wire
from mirrorcraft.server.features.windows import Menu, Windows
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.stacks import Stack

#: Blocks (bare names) whose use opens a 27-slot chest window over their ``ChestBlockEntity`` (the chest and
#: the trapped chest, ``rules/data/blocks.json``).
CHEST_BLOCKS = facts.bare_names(menu_blocks("generic_9x3"))
CHEST_SIZE = 27
#: Block-entity id written for each chest block (vanilla ``BlockEntityType``, ``rules.blocks``), and back.
ENTITY_IDS = {b: block_entity_type(b) for b in CHEST_BLOCKS}
BLOCKS_OF_ENTITY_IDS = {e: b for b, e in ENTITY_IDS.items()}

Pos = tuple[int, int, int]


def blocked_above(state: int) -> bool:
    """Whether the block above a chest keeps it shut (vanilla ``isRedstoneConductor``; approximated as an
    opaque full cube from minecraft-data's ``transparent`` flag and the collision shape)."""
    info = facts.block_of_state(state)
    boxes = [tuple(b) for b in facts.collision_boxes(state)]
    return not info.transparent and boxes == [(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)]


class ChestEntity:
    """The contents of one chest: 27 stacks or ``None``."""

    def __init__(self, block: str) -> None:
        self.block = block
        self.slots: list[Stack | None] = [None] * CHEST_SIZE

    def contents(self) -> dict[str, int]:
        """``{minecraft:item: total count}`` of the chest."""
        out: dict[str, int] = {}
        for s in self.slots:
            if s:
                out[s.item] = out.get(s.item, 0) + s.count
        return out

    def to_json(self, pos: Pos) -> dict[str, Any]:
        """Vanilla's block-entity shape (``Items`` with ``Slot``/``id``/``Count``/``tag``) as JSON."""
        items = []
        for i, s in enumerate(self.slots):
            if s is None:
                continue
            entry: dict[str, Any] = {"Slot": i, "id": s.item, "Count": s.count}
            if s.nbt is not None:
                entry["tag"] = nbtlib.serialize_tag(s.nbt)
            items.append(entry)
        return {"id": ENTITY_IDS[self.block], "pos": list(pos), "Items": items}

    @classmethod
    def from_json(cls, e: dict[str, Any], where: str) -> tuple[Pos, ChestEntity]:
        """Inverse of :meth:`to_json`.

        Raises:
            WorldError: A malformed entry; ``where`` names the file and entry, the message adds the field.
        """
        field = "id"
        try:
            block = BLOCKS_OF_ENTITY_IDS.get(namespaced(str(e["id"])))
            if block is None:
                raise ValueError(f"not a chest block entity: {e['id']!r}")
            chest = cls(block)
            field = "pos"
            pos = tuple(int(v) for v in e["pos"])
            if len(pos) != 3:
                raise ValueError("pos must have 3 coordinates")
            for k, item in enumerate(e["Items"]):
                field = f"Items[{k}]"
                slot = int(item["Slot"])
                if not 0 <= slot < CHEST_SIZE:
                    raise ValueError(f"Slot {slot} outside 0..{CHEST_SIZE - 1}")
                count = int(item["Count"])
                if count <= 0:
                    raise ValueError(f"Count {count} must be positive")
                name = facts.item_key(str(item["id"]).removeprefix("minecraft:"))
                tag = nbtlib.parse_nbt(item["tag"]) if "tag" in item else None
                chest.slots[slot] = Stack(name, count, tag)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise WorldError(f"{where}.{field}: {err!r}") from err
        return pos, chest  # type: ignore[return-value]


class ChestMenu(Menu):
    """The ``generic_9x3`` window over one :class:`ChestEntity` (vanilla ``ChestMenu.threeRows``)."""

    kind = "chest"
    n = CHEST_SIZE

    def __init__(self, chests: Chests, player: Player, window_id: int, chest: ChestEntity, pos: Pos) -> None:
        super().__init__(player, window_id)
        self.chests = chests
        self.chest = chest
        self.pos = pos
        self.lid = True  # send the lid's viewer count when this window closes
        self._seen = chest.contents()

    def cget(self, i: int) -> Stack | None:
        return self.chest.slots[i]

    def cset(self, i: int, s: Stack | None) -> None:
        self.chest.slots[i] = s if s and s.count > 0 else None

    def quick_move(self, i: int) -> None:
        """Vanilla ``ChestMenu.quickMoveStack``: chest → inventory (hotbar end first), inventory → chest."""
        if i < self.n:
            self.move_into(i, self.n, self.n + 36, reverse=True)
        else:
            self.move_into(i, 0, self.n)

    def slots_changed(self) -> None:
        """Tell listeners how the chest's contents changed (``container_move``)."""
        now = self.chest.contents()
        if now == self._seen:
            return
        delta = {k: now.get(k, 0) - self._seen.get(k, 0) for k in sorted(set(now) | set(self._seen))}
        self._seen = now
        self.chests.kernel.emit(
            "container_move",
            player=self.player.display_name,
            kind=self.kind,
            pos=self.pos,
            delta={k: v for k, v in delta.items() if v},
        )

    def closed(self) -> list[Stack]:
        """The window closed: the items stay in the chest; the lid count drops for players nearby."""
        if self.lid:
            self.chests.send_lid(self.pos, self.chest.block)
        return []


class Chests:
    """The chest block entities of one world, by position (created the first time a chest is used)."""

    def __init__(self, kernel: Kernel, windows: Windows) -> None:
        self.kernel = kernel
        self.windows = windows
        self.entities: dict[Pos, ChestEntity] = {}
        kernel.events.before("use_block", self._on_use_block)

    def chest_at(self, pos: Pos) -> ChestEntity | None:
        """The chest at ``pos`` (created empty on first use), or ``None`` if the block is not a chest."""
        block = facts.block_name(self.kernel.world.get_block(*pos))
        if block not in CHEST_BLOCKS:
            self.entities.pop(pos, None)
            return None
        chest = self.entities.get(pos)
        if chest is None or chest.block != block:
            chest = ChestEntity(block)
            self.entities[pos] = chest
        return chest

    def removed(self, pos: Pos) -> list[Stack]:
        """The chest at ``pos`` was broken: close its windows, forget it; returns its contents (to drop,
        NBT not kept). Closing first is vanilla's ``stillValid`` check, and stops a viewer taking items
        that are also dropped."""
        chest = self.entities.pop(pos, None)
        if chest is None:
            return []
        for p, menu in self.viewers(pos):
            menu.lid = False
            self.windows.close(p, menu.window_id)
            p.send("close_window", wire.close_window(menu.window_id))
        return [Stack(s.item, s.count) for s in chest.slots if s]

    def dump(self) -> list[dict[str, Any]]:
        """JSON entries of every chest, sorted by position (empty chests included: they exist)."""
        return [c.to_json(pos) for pos, c in sorted(self.entities.items())]

    def restore(self, entries: list[Any], path: Path) -> int:
        """Load entries written by :meth:`dump`; returns how many chests were restored.

        Raises:
            WorldError: A malformed entry (names the file, entry and field).
        """
        if not isinstance(entries, list):
            raise WorldError(f"{path}: chests must be a list, got {type(entries).__name__}")
        for i, e in enumerate(entries):
            pos, chest = ChestEntity.from_json(e, f"{path}: chests[{i}]")
            self.entities[pos] = chest
        return len(entries)

    def viewers(self, pos: Pos) -> list[tuple[Player, ChestMenu]]:
        """Players with the chest at ``pos`` open, and their menus."""
        out = []
        for p in self.kernel.players.values():
            menu = self.windows.menu_of(p)
            if isinstance(menu, ChestMenu) and menu.pos == pos:
                out.append((p, menu))
        return out

    def send_lid(self, pos: Pos, block: str) -> None:
        """Vanilla ``ChestLidController``: ``block_action`` 1 with the viewer count, to players near it."""
        self.kernel.send_near(pos, "block_action", wire.block_action(pos, 1, len(self.viewers(pos)), block))

    def _on_use_block(self, b: Behaviour) -> None:
        """use_item_on a chest: open its window (vanilla ``ChestBlock.use``)."""
        p, pos = b.player, b["pos"]
        chest = self.chest_at(pos)
        if chest is None:
            return
        how = self.windows.interaction(p, b["hand"], pos)
        if how == "place":
            return
        b.cancel("chests")
        if how != "open":
            return
        if blocked_above(self.kernel.world.get_block(pos[0], pos[1] + 1, pos[2])):
            return  # vanilla ChestBlock.isChestBlockedAt: the lid cannot open (no window)
        self.windows.open(
            p,
            ChestMenu.kind,
            pos,
            lambda wid: ChestMenu(self, p, wid, chest, pos),
            then=lambda menu: self.send_lid(pos, chest.block),
        )
