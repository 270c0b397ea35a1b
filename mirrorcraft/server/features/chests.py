"""Chests: the ``chest`` block entity (27 slots), single and double chests, their windows, opening by use, and
the lids.

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

Double chests (vanilla ``ChestBlock``): a chest placed beside a single chest of the same block that faces
the same way becomes its partner (``getStateForPlacement``: ``type=left`` when the partner is on its
clockwise side, ``right`` on the other; sneaking against a chest's side pairs with that chest), and the
neighbour takes the opposite type (``updateShape``, run on every block change: both rules are registered
with :mod:`~mirrorcraft.server.features.blockupdates`, the one machinery of shape updates and placement
states, so ``/setblock`` and ``/fill`` pair and split chests as vanilla does). Using
either half opens one ``generic_9x6`` window (menu id 5, title ``container.chestDouble``) over both block
entities, the ``right`` half's 27 slots first (``DoubleBlockCombiner``: ``right`` is the first block); a
solid block above either half keeps both shut. Each half sends its own lid ``block_action`` with the
number of players viewing it. Breaking a half closes the windows that show it, drops that half's items
and turns the other half back into a single chest.

Persistence (the block-entities feature's side file, under ``"chests"``): one entry per chest in vanilla's
``Items`` shape (``{id, pos, Items: [{Slot, id, Count, tag}]}``, item NBT as SNBT text); each half of a
double chest is its own entry, as in vanilla. Left out: sounds, loot-table chests, hoppers, cats on
chests, waterlogging, and item NBT on the drops of a broken chest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbtlib

from mirrorcraft.errors import WorldError
from mirrorcraft.rules.blocks import block_entity_type, menu_blocks
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.server import facts, wire
from mirrorcraft.server.features.blockupdates import BlockUpdates, PlaceContext
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
#: The global state ids of each chest block (a fast test in the ``"block_changed"`` hook).
CHEST_STATES = {b: range(facts.block(b).min_state, facts.block(b).max_state + 1) for b in CHEST_BLOCKS}

Pos = tuple[int, int, int]

# Horizontal directions (vanilla Direction): offsets, and turning clockwise seen from above.
OFFSETS = {"north": (0, 0, -1), "south": (0, 0, 1), "west": (-1, 0, 0), "east": (1, 0, 0)}
CLOCKWISE = {"north": "east", "east": "south", "south": "west", "west": "north"}
COUNTER_CLOCKWISE = {v: k for k, v in CLOCKWISE.items()}
OPPOSITE = {"north": "south", "south": "north", "west": "east", "east": "west"}
OTHER_TYPE = {"left": "right", "right": "left"}


def chest_block(state: int) -> str | None:
    """The chest block (bare name) of a state, or ``None``."""
    for block, states in CHEST_STATES.items():
        if state in states:
            return block
    return None


def step(pos: Pos, direction: str) -> Pos:
    dx, dy, dz = OFFSETS[direction]
    return (pos[0] + dx, pos[1] + dy, pos[2] + dz)


def connected_direction(props: dict[str, str]) -> str:
    """``ChestBlock.getConnectedDirection``: where a ``left`` / ``right`` half's partner is."""
    facing = props["facing"]
    return CLOCKWISE[facing] if props["type"] == "left" else COUNTER_CLOCKWISE[facing]


def update_shape(state: int, direction: str, neighbour: int) -> int:
    """``ChestBlock.updateShape``: ``state``'s chest after the block towards ``direction`` became
    ``neighbour`` (pairs with a half that points at it, or falls back to single when its partner left)."""
    if direction not in OPPOSITE:  # vanilla: only a horizontal neighbour pairs or splits a chest
        return state
    block = chest_block(state)
    props = facts.state_props(state)
    if block is not None and chest_block(neighbour) == block:
        other = facts.state_props(neighbour)
        if (
            props["type"] == "single"
            and other["type"] != "single"
            and props["facing"] == other["facing"]
            and connected_direction(other) == OPPOSITE[direction]
        ):
            props["type"] = OTHER_TYPE[other["type"]]
            return facts.state_id(block, props)
    elif props["type"] != "single" and connected_direction(props) == direction:
        props["type"] = "single"
        return facts.state_id(block or facts.block_name(state), props)
    return state


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
    """A chest window over one or two :class:`ChestEntity` halves (vanilla ``ChestMenu.threeRows`` /
    ``sixRows``): ``halves`` in window order, 27 slots each."""

    def __init__(
        self, chests: Chests, player: Player, window_id: int, halves: list[tuple[Pos, ChestEntity]]
    ) -> None:
        super().__init__(player, window_id)
        self.chests = chests
        self.halves = halves
        self.n = CHEST_SIZE * len(halves)
        self.kind = "chest" if len(halves) == 1 else "chest_double"
        self.pos = halves[0][0]
        self.lid_positions = [pos for pos, _ in halves]  # lids told when this window closes
        self._seen = [chest.contents() for _, chest in halves]

    @property
    def positions(self) -> list[Pos]:
        return [pos for pos, _ in self.halves]

    def cget(self, i: int) -> Stack | None:
        return self.halves[i // CHEST_SIZE][1].slots[i % CHEST_SIZE]

    def cset(self, i: int, s: Stack | None) -> None:
        self.halves[i // CHEST_SIZE][1].slots[i % CHEST_SIZE] = s if s and s.count > 0 else None

    def quick_move(self, i: int) -> None:
        """Vanilla ``ChestMenu.quickMoveStack``: chest → inventory (hotbar end first), inventory → chest."""
        if i < self.n:
            self.move_into(i, self.n, self.n + 36, reverse=True)
        else:
            self.move_into(i, 0, self.n)

    def slots_changed(self) -> None:
        """Tell listeners how each half's contents changed (``container_move``, one per changed half)."""
        for k, (pos, chest) in enumerate(self.halves):
            now = chest.contents()
            if now == self._seen[k]:
                continue
            before = self._seen[k]
            delta = {key: now.get(key, 0) - before.get(key, 0) for key in sorted(set(now) | set(before))}
            self._seen[k] = now
            self.chests.kernel.emit(
                "container_move",
                player=self.player.display_name,
                kind="chest",
                pos=pos,
                delta={key: v for key, v in delta.items() if v},
            )

    def closed(self) -> list[Stack]:
        """The window closed: the items stay in the chest; each half's lid count drops for players nearby."""
        for pos in self.lid_positions:
            block = facts.block_name(self.chests.kernel.world.get_block(*pos))
            if block in CHEST_BLOCKS:
                self.chests.send_lid(pos, block)
        return []


class Chests:
    """The chest block entities of one world, by position (created the first time a chest is used)."""

    def __init__(self, kernel: Kernel, windows: Windows) -> None:
        self.kernel = kernel
        self.windows = windows
        self.entities: dict[Pos, ChestEntity] = {}
        kernel.events.before("use_block", self._on_use_block)

    def use_block_updates(self, updates: BlockUpdates) -> None:
        """Register the chests' placement state and shape update (``getStateForPlacement``, ``updateShape``).

        Separate from the constructor because chests are built before block updates (hoppers and block
        entities need the chests; block updates need digging, built later); the game calls it once both exist.
        """
        blocks = [namespaced(b) for b in sorted(CHEST_BLOCKS)]
        updates.on_place(blocks, self._placement_state)
        updates.on_shape(
            blocks, lambda pos, state, direction, neighbour: update_shape(state, direction, neighbour)
        )

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
            menu.lid_positions = [q for q in menu.lid_positions if q != pos]
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
        """Players with a window showing the chest at ``pos`` (single, or either half of a double), and their
        menus."""
        out = []
        for p in self.kernel.players.values():
            menu = self.windows.menu_of(p)
            if isinstance(menu, ChestMenu) and pos in menu.positions:
                out.append((p, menu))
        return out

    def send_lid(self, pos: Pos, block: str) -> None:
        """Vanilla ``ChestLidController``: ``block_action`` 1 with the viewer count, to players near it."""
        self.kernel.send_near(pos, "block_action", wire.block_action(pos, 1, len(self.viewers(pos)), block))

    def halves(self, pos: Pos) -> list[tuple[Pos, ChestEntity]] | None:
        """The chest at ``pos`` as the window shows it: its own entity, or both halves of a double chest,
        the ``right`` half first (``DoubleBlockCombiner``); ``None`` if ``pos`` holds no chest."""
        chest = self.chest_at(pos)
        if chest is None:
            return None
        props = facts.state_props(self.kernel.world.get_block(*pos))
        if props.get("type", "single") == "single":
            return [(pos, chest)]
        other_pos = step(pos, connected_direction(props))
        other_state = self.kernel.world.get_block(*other_pos)
        other_props = facts.state_props(other_state)
        if (
            chest_block(other_state) != chest.block
            or other_props.get("type") != OTHER_TYPE[props["type"]]
            or other_props.get("facing") != props["facing"]
        ):
            return [(pos, chest)]  # a half without its partner behaves as a single chest
        other = self.chest_at(other_pos)
        assert other is not None
        pair = [(pos, chest), (other_pos, other)]
        return pair if props["type"] == "right" else pair[::-1]

    def _on_use_block(self, b: Behaviour) -> None:
        """use_item_on a chest: open its window (vanilla ``ChestBlock.use``), both halves of a double chest."""
        p, pos = b.player, b["pos"]
        halves = self.halves(pos)
        if halves is None:
            return
        how = self.windows.interaction(p, b["hand"], pos)
        if how == "place":
            return
        b.cancel("chests")
        if how != "open":
            return
        world = self.kernel.world
        if any(blocked_above(world.get_block(q[0], q[1] + 1, q[2])) for q, _ in halves):
            return  # vanilla ChestBlock.isChestBlockedAt (either half): the lid cannot open (no window)
        kind = "chest" if len(halves) == 1 else "chest_double"
        self.windows.open(
            p,
            kind,
            pos,
            lambda wid: ChestMenu(self, p, wid, halves),
            then=lambda menu: [self.send_lid(q, c.block) for q, c in halves],
        )

    # ---- double chests ---------------------------------------------------------------------------------

    def _candidate_facing(self, target: Pos, direction: str, block: str) -> str | None:
        """``ChestBlock.candidatePartnerFacing``: the facing of a single chest of ``block`` beside ``target``."""
        state = self.kernel.world.get_block(*step(target, direction))
        if chest_block(state) != block:
            return None
        props = facts.state_props(state)
        return props["facing"] if props["type"] == "single" else None

    def _placement_state(self, ctx: PlaceContext) -> int:
        """``ChestBlock.getStateForPlacement``: a placed chest pairs with a single chest beside it."""
        block = facts.block_name(ctx.state)
        props = facts.state_props(ctx.state)
        facing, kind = props["facing"], "single"
        clicked = ctx.face
        sneaking = ctx.player is not None and ctx.player.sneaking
        target = ctx.pos
        if clicked in OFFSETS and sneaking:
            d = self._candidate_facing(target, OPPOSITE[clicked], block)
            if d is not None and d not in (clicked, OPPOSITE[clicked]):  # another axis than the face's
                facing = d
                kind = "right" if COUNTER_CLOCKWISE[d] == OPPOSITE[clicked] else "left"
        if kind == "single" and not sneaking:
            if facing == self._candidate_facing(target, CLOCKWISE[facing], block):
                kind = "left"
            elif facing == self._candidate_facing(target, COUNTER_CLOCKWISE[facing], block):
                kind = "right"
        props.update(facing=facing, type=kind)
        return facts.state_id(block, props)
