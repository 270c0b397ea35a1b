"""Chests on the embedded server: the ``chest`` block entity (27 slots), its ``generic_9x3`` menu, opening by
use, and persistence with the save.

Why a module of its own: a chest is the first *storage* container (the crafting table and enchanting table
hand their items back on close; a furnace is a machine). Its contents live in a block entity that outlives
every window, so two players looking at the same chest see one storage, and closing the window keeps the
items where they are. Clicks go through the shared click engine (:class:`~mirrorcraft.server.menus.Menu`,
vanilla ``AbstractContainerMenu.doClick``): pickup, shift-click, number keys, drag, double-click and drop
all work as for the other menus; :class:`ChestMenu` adds only vanilla ``ChestMenu.quickMoveStack``.

Layout (wiki.vg "Inventory", 1.19.2): menu type ``minecraft:generic_9x3`` (id 2 in the 1.19 ``menu``
registry), slots 0-26 the chest, 27-53 the player's main inventory, 54-62 the hotbar. The window title is
the translate component ``container.chest`` (vanilla ``ChestBlockEntity.getDefaultName``).

Persistence: vanilla keeps chests in the chunk's ``block_entities`` list (``{id: "minecraft:chest", x, y, z,
Items: [{Slot, id, Count, tag}]}``). The server's chunk writer (:meth:`~mirrorcraft.server.world.World.save`)
rebuilds chunks from block states only, so chests are saved in the same side file as the furnaces,
``<world>/mirrorcraft/block_entities.json``, under ``"chests"``, one entry per chest in vanilla's ``Items``
shape (item NBT as SNBT text). :class:`~mirrorcraft.server.blockentities.BlockEntities` owns the file.

Listeners: every click that changes a chest's contents emits ``container_move`` (player, pos, kind,
``delta`` = item → count change of the chest, positive = put in). The evaluator log has no container kind
(moving items is never rule-changed), so nothing is recorded there.

The lid follows the number of viewers (``block_action`` 1, vanilla ``ChestLidController``); breaking a
chest closes its windows first (vanilla ``stillValid``) and drops the contents.

Left out (documented in ``docs/server_part2.md``): double chests (two adjacent chests stay two single
27-slot chests; the placed block keeps ``type=single``), sounds, loot-table chests (``LootTable`` tags),
hoppers, and keeping item NBT when a broken chest drops its contents (the drops are plain item stacks).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbtlib

from mirrorcraft.errors import WorldError
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.codec import encode
from mirrorcraft.server import facts
from mirrorcraft.server.menus import Menu, Stack, name_of, open_window_body

if TYPE_CHECKING:
    from mirrorcraft.server.progress import Rules

log = logging.getLogger(__name__)

#: Blocks whose block entity is a 27-slot chest (the trapped chest is a ``ChestBlockEntity`` subclass).
CHEST_BLOCKS = ("chest", "trapped_chest")
CHEST_SIZE = 27
#: Block-entity id written for each chest block (vanilla ``BlockEntityType`` names).
ENTITY_IDS = {"chest": "minecraft:chest", "trapped_chest": "minecraft:trapped_chest"}

Pos = tuple[int, int, int]


def blocked_above(state: int) -> bool:
    """Whether the block above a chest keeps it shut (vanilla ``isRedstoneConductor``; approximated as an
    opaque full cube from minecraft-data's ``transparent`` flag and the collision shape)."""
    info = facts.block_of_state(state)
    boxes = [tuple(b) for b in facts.collision_boxes(state)]
    return not info.transparent and boxes == [(0.0, 0.0, 0.0, 1.0, 1.0, 1.0)]


class ChestEntity:
    """The contents of one chest: 27 stacks ``(item id, count[, nbt])`` or ``None``."""

    def __init__(self, block: str = "chest") -> None:
        self.block = block
        self.slots: list[Stack] = [None] * CHEST_SIZE

    def contents(self) -> dict[str, int]:
        """``{minecraft:item: total count}`` of the chest."""
        out: dict[str, int] = {}
        for s in self.slots:
            if s:
                name = name_of(s)
                out[name] = out.get(name, 0) + s[1]  # type: ignore[index]
        return out

    def to_json(self, pos: Pos) -> dict[str, Any]:
        """Vanilla's block-entity shape (``Items`` with ``Slot``/``id``/``Count``/``tag``) as JSON."""
        items = []
        for i, s in enumerate(self.slots):
            if s is None:
                continue
            entry: dict[str, Any] = {"Slot": i, "id": name_of(s), "Count": s[1]}
            if len(s) > 2 and s[2] is not None:
                entry["tag"] = nbtlib.serialize_tag(s[2])
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
            block = str(e["id"]).removeprefix("minecraft:")
            if block not in CHEST_BLOCKS:
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
                iid = facts.item_id(str(item["id"]).removeprefix("minecraft:"))
                tag = nbtlib.parse_nbt(item["tag"]) if "tag" in item else None
                chest.slots[slot] = (iid, count, tag) if tag is not None else (iid, count)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise WorldError(f"{where}.{field}: {err!r}") from err
        return pos, chest  # type: ignore[return-value]


class Chests:
    """The chest block entities of one world, by position (created the first time a chest is used)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.entities: dict[Pos, ChestEntity] = {}

    def chest_at(self, pos: Pos) -> ChestEntity | None:
        """The chest at ``pos`` (created empty on first use), or ``None`` if the block is not a chest."""
        block = facts.block_name(self.rules.game.world.get_block(*pos))
        if block not in CHEST_BLOCKS:
            self.entities.pop(pos, None)
            return None
        chest = self.entities.get(pos)
        if chest is None or chest.block != block:
            chest = ChestEntity(block)
            self.entities[pos] = chest
        return chest

    def removed(self, pos: Pos) -> list[tuple[str, int]]:
        """The chest at ``pos`` was broken: close its windows, forget it; returns its contents (to drop,
        NBT not kept). Closing first is vanilla's ``stillValid`` check, and stops a viewer taking items
        that are also dropped."""
        chest = self.entities.pop(pos, None)
        if chest is None:
            return []
        for p, menu in self.viewers(pos):
            menu.lid = False
            self.rules.close(p, menu.window_id)
            p.send("close_window", encode(cb.CloseWindow(window_id=menu.window_id)))
        return [(name_of(s), s[1]) for s in chest.slots if s]  # type: ignore[misc]

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

    def viewers(self, pos: Pos) -> list[tuple[Any, ChestMenu]]:
        """Players with the chest at ``pos`` open, and their menus."""
        out = []
        for p in list(self.rules.game.players.values()):
            st = self.rules.players.get(p.display_name)
            if st is not None and isinstance(st.menu, ChestMenu) and st.menu.pos == pos:
                out.append((p, st.menu))
        return out

    def send_lid(self, pos: Pos, block: str) -> None:
        """Vanilla ``ChestLidController``: ``block_action`` 1 with the viewer count, to players near it."""
        body = encode(
            cb.BlockAction(
                location=pos, action_id=1, action_param=len(self.viewers(pos)), block_id=facts.block(block).id
            )
        )
        key = (pos[0] >> 4, pos[2] >> 4)
        for o in list(self.rules.game.players.values()):
            if key in o.loaded_chunks:
                o.send("block_action", body)

    # ---- use ---------------------------------------------------------------------------------------------

    def use(self, p: Any, hand: int, clicked: Pos) -> bool:
        """use_item_on a chest: open its window (vanilla ``ChestBlock.use``).

        Returns:
            True if the click was consumed (no block is placed), as vanilla's ``InteractionResult``.
        """
        chest = self.chest_at(clicked)
        if chest is None:
            return False
        held = p.inventory.slots[45 if hand == 1 else 36 + p.inventory.held]
        if p.sneaking and held is not None:
            return False  # sneaking with an item: place against the chest instead
        if hand == 1:
            return True  # the main hand already opened it (the client sends the off hand only on failure)
        game = self.rules.game
        if not game._within_reach(p, clicked):
            return True
        if blocked_above(game.world.get_block(clicked[0], clicked[1] + 1, clicked[2])):
            return True  # vanilla ChestBlock.isChestBlockedAt: the lid cannot open (no window)
        rules = self.rules
        st = rules.state(p)
        if st.menu is not None:
            rules.close(p, st.menu.window_id)
        st.next_window = st.next_window % 100 + 1  # vanilla containerCounter: 1..100
        wid = st.next_window
        menu = ChestMenu(rules, p, wid, chest, clicked)
        st.menu = menu
        p.send("open_window", open_window_body(wid, "chest"))
        rules._resync(p, menu)
        self.send_lid(clicked, chest.block)
        game.emit("window_opened", player=p.display_name, kind="chest", window=wid, pos=clicked)
        return True


class ChestMenu(Menu):
    """The ``generic_9x3`` window over one :class:`ChestEntity` (vanilla ``ChestMenu.threeRows``)."""

    kind = "chest"
    n = CHEST_SIZE

    def __init__(self, rules: Rules, player: Any, window_id: int, chest: ChestEntity, pos: Pos) -> None:
        super().__init__(rules, player, window_id)
        self.chest = chest
        self.pos = pos
        self.lid = True  # send the lid's viewer count when this window closes
        self._seen = chest.contents()

    def cget(self, i: int) -> Stack:
        return self.chest.slots[i]

    def cset(self, i: int, s: Stack) -> None:
        self.chest.slots[i] = s if s and s[1] > 0 else None

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
        self.rules.game.emit(
            "container_move",
            player=self.player.display_name,
            kind="chest",
            pos=self.pos,
            delta={k: v for k, v in delta.items() if v},
        )

    def closed(self) -> list[Stack]:
        """The window closed: the items stay in the chest; the lid count drops for players nearby."""
        if self.lid:
            self.rules.block_entities.chests.send_lid(self.pos, self.chest.block)
        return []
