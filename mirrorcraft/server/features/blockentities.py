"""Block entities' persistence and their contents when their block breaks (furnaces, chests and hoppers).

Why one module for every kind: vanilla stores block entities in the chunk's ``block_entities`` list; the
server's chunk writer (:meth:`~mirrorcraft.server.kernel.world.World.save`) rebuilds chunks from block
states only, so the furnaces (:mod:`~mirrorcraft.server.features.furnaces`), chests
(:mod:`~mirrorcraft.server.features.chests`) and hoppers (:mod:`~mirrorcraft.server.features.hoppers`) are saved
beside the world in one side file, ``<world>/mirrorcraft/block_entities.json`` (``{"furnaces": [...],
"chests": [...], "hoppers": [...]}``), read back when the server starts. When a block breaks (the
``"block_broken"`` hook), the block entity at its position is forgotten and its contents pop out like drops.

**Reading a chunk's own block entities** (what a vanilla save holds: the PillagerBench arenas' chests of bowls,
buckets, gold nuggets and a netherite hoe, their furnaces of coal): when a column loads (the world's
``loaded_hooks``), every chest, furnace (blast furnace, smoker) and hopper of its ``block_entities`` list is
loaded — ``Items`` (``Slot``, ``id``, ``Count``, ``tag``), a furnace's ``BurnTime``, ``CookTime``,
``CookTimeTotal`` and ``RecipesUsed`` (its burn duration recomputed from the fuel slot, as vanilla's
``AbstractFurnaceBlockEntity.load`` does), a hopper's ``TransferCooldown`` — unless the side file already
holds a block entity at that position (the side file is newer: the server wrote it, and a column it saved
has no block entities left in its chunk). So a save with a side file keeps reading and writing it, a
vanilla save is read from its chunks, and a save with both loses nothing. A malformed entry raises
``WorldError`` naming the region chunk (or the side file), the entry and the field.

Partial: the cooked-unit ledger (what the evaluator traces a later take to) is not saved; after a restart,
output items count as of unknown origin (their vanilla outcome equals the actual). Other block entities of a
chunk (signs, banners, beds...) are ignored; block entities are not written back into chunks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbtlib

from mirrorcraft.errors import WorldError
from mirrorcraft.rules.cooking import CookingDevice
from mirrorcraft.rules.devices import DEVICE_RECIPE_TYPES
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.server import facts
from mirrorcraft.server.features.chests import BLOCKS_OF_ENTITY_IDS, Chests
from mirrorcraft.server.features.furnaces import Furnaces
from mirrorcraft.server.features.hoppers import Hoppers
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Behaviour, Kernel
from mirrorcraft.server.kernel.stacks import Stack

SIDECAR = Path("mirrorcraft") / "block_entities.json"

Pos = tuple[int, int, int]


def _items_json(tag: Any) -> list[dict[str, Any]]:
    """A chunk NBT ``Items`` list as the side file's JSON shape (item NBT as SNBT text)."""
    out = []
    for item in tag.get("Items", []):
        e: dict[str, Any] = {"Slot": int(item["Slot"]), "id": str(item["id"]), "Count": int(item["Count"])}
        if "tag" in item:
            e["tag"] = nbtlib.serialize_tag(item["tag"])
        out.append(e)
    return out


class BlockEntities:
    """Saving, loading and breaking the block entities of one world."""

    def __init__(
        self, kernel: Kernel, furnaces: Furnaces, chests: Chests, hoppers: Hoppers, items: Items
    ) -> None:
        self.kernel = kernel
        self.furnaces = furnaces
        self.chests = chests
        self.hoppers = hoppers
        self.items = items
        self.from_side_file: set[Pos] = set()
        self.from_chunks = 0  # block entities read from chunks (stats, tests)
        kernel.events.after("block_broken", self._broken)
        if kernel.config.world is not None:
            self.load(kernel.config.world)
        kernel.world.loaded_hooks.append(self._column_loaded)
        for (cx, cz), col in list(kernel.world.columns.items()):  # columns loaded before this feature
            self._column_loaded(cx, cz, col, None)

    def _broken(self, b: Behaviour) -> None:
        pos = b["pos"]
        contents = self.furnaces.removed(pos)
        if contents is None:
            contents = self.hoppers.removed(pos)
        if contents is None:
            contents = self.chests.removed(pos)
        for s in contents:
            self.items.spawn(s, (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5), pop=True)

    # ---- chunks ------------------------------------------------------------------------------------------

    def _column_loaded(self, cx: int, cz: int, column: Any, chunk: Any) -> None:
        if chunk is None:
            return
        where = f"{self.kernel.world.save_dir}/region chunk ({cx}, {cz}): block_entities"
        for i, tag in enumerate(chunk.block_entities):
            try:
                pos = (int(tag["x"]), int(tag["y"]), int(tag["z"]))
                kind = namespaced(str(tag["id"]))
            except (KeyError, TypeError, ValueError) as err:
                raise WorldError(f"{where}[{i}]: {err!r}") from err
            if pos in self.from_side_file:
                continue
            self._load_chunk_entity(kind, pos, tag, f"{where}[{i}]")

    def _load_chunk_entity(self, kind: str, pos: Pos, tag: Any, where: str) -> None:
        if kind in BLOCKS_OF_ENTITY_IDS:
            entry = {"id": kind, "pos": list(pos), "Items": _items_json(tag)}
            self.chests.restore([entry], Path(where))
            self.from_chunks += 1
        elif kind == self.hoppers.rule.block:
            self.hoppers.restore(
                {
                    "pos": list(pos),
                    "Items": _items_json(tag),
                    "TransferCooldown": int(tag.get("TransferCooldown", -1)),
                },
                where,
            )
            self.from_chunks += 1
        elif kind.removeprefix("minecraft:") in DEVICE_RECIPE_TYPES:
            self._load_furnace(kind, pos, tag, where)
            self.from_chunks += 1

    def _load_furnace(self, kind: str, pos: Pos, tag: Any, where: str) -> None:
        """``AbstractFurnaceBlockEntity.load``: items, ``BurnTime``, ``CookTime``, ``CookTimeTotal``,
        ``RecipesUsed``; the burn duration is the fuel slot's burn time."""
        field = "id"
        try:
            dev = self.furnaces.new_device(kind.removeprefix("minecraft:"))
            for k, item in enumerate(tag.get("Items", [])):
                field = f"Items[{k}]"
                slot = int(item["Slot"])
                if not 0 <= slot < len(dev.slots):
                    raise ValueError(f"Slot {slot} outside 0..{len(dev.slots) - 1}")
                nbt = item["tag"] if "tag" in item else None
                dev.slots[slot] = Stack(facts.item_key(str(item["id"])), int(item["Count"]), nbt)
            field = "BurnTime"
            dev.lit_time = int(tag.get("BurnTime", 0))
            field = "CookTime"
            dev.cooking_progress = int(tag.get("CookTime", 0))
            field = "CookTimeTotal"
            dev.cooking_total_time = int(tag.get("CookTimeTotal", 0))
            field = "RecipesUsed"
            dev.recipes_used = {str(k): int(v) for k, v in tag.get("RecipesUsed", {}).items()}
            fuel = dev.slots[1]
            dev.lit_duration = self.furnaces.rules.fuels.burn_time(fuel.item, dev.device) if fuel else 0
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise WorldError(f"{where}.{field}: {err!r}") from err
        self.furnaces.devices[pos] = dev

    # ---- persistence -----------------------------------------------------------------------------------

    def save(self, world_dir: Path) -> Path:
        """Write every block entity to ``<world>/mirrorcraft/block_entities.json``; returns the path."""
        out = []
        for pos, d in sorted(self.furnaces.devices.items()):
            out.append(
                {
                    "pos": list(pos),
                    "device": d.device,
                    "slots": [[s.item, s.count] if s else None for s in d.slots],
                    "lit_time": d.lit_time,
                    "lit_duration": d.lit_duration,
                    "cooking_progress": d.cooking_progress,
                    "cooking_total_time": d.cooking_total_time,
                    "recipes_used": d.recipes_used,
                }
            )
        path = Path(world_dir) / SIDECAR
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"furnaces": out, "chests": self.chests.dump(), "hoppers": self.hoppers.dump()}
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        return path

    def load(self, world_dir: Path) -> int:
        """Read the side file if present; returns how many block entities were restored.

        Raises:
            WorldError: A malformed entry (names the file, entry and field).
        """
        path = Path(world_dir) / SIDECAR
        if not path.is_file():
            return 0
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise WorldError(f"{path}: not JSON ({err})") from err
        devices: dict[tuple[int, int, int], CookingDevice] = self.furnaces.devices
        for i, e in enumerate(data.get("furnaces", [])):
            field = "pos"
            try:
                pos = tuple(int(v) for v in e["pos"])
                field = "device"
                dev = self.furnaces.new_device(e["device"])
                field = "slots"
                for k, s in enumerate(e["slots"]):
                    dev.slots[k] = Stack(str(s[0]), int(s[1])) if s else None
                for field in ("lit_time", "lit_duration", "cooking_progress", "cooking_total_time"):
                    setattr(dev, field, int(e[field]))
                field = "recipes_used"
                dev.recipes_used = {str(k): int(v) for k, v in e[field].items()}
            except (KeyError, TypeError, ValueError, IndexError) as err:
                raise WorldError(f"{path}: furnaces[{i}].{field}: {err!r}") from err
            if len(pos) != 3:
                raise WorldError(f"{path}: furnaces[{i}].pos must have 3 coordinates")
            devices[pos] = dev  # type: ignore[index]
            self.from_side_file.add(pos)  # type: ignore[arg-type]
        before = set(self.chests.entities)
        chests = self.chests.restore(data.get("chests", []), path)
        self.from_side_file |= set(self.chests.entities) - before
        hoppers = data.get("hoppers", [])
        if not isinstance(hoppers, list):
            raise WorldError(f"{path}: hoppers must be a list, got {type(hoppers).__name__}")
        for i, e in enumerate(hoppers):
            self.from_side_file.add(self.hoppers.restore(e, f"{path}: hoppers[{i}]"))
        return len(devices) + chests + len(hoppers)
