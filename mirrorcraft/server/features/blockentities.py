"""Block entities' persistence and their contents when their block breaks (furnaces and chests).

Why one module for both kinds: vanilla stores block entities in the chunk's ``block_entities`` list; the
server's chunk writer (:meth:`~mirrorcraft.server.kernel.world.World.save`) rebuilds chunks from block
states only, so the furnaces (:mod:`~mirrorcraft.server.features.furnaces`) and chests
(:mod:`~mirrorcraft.server.features.chests`) are saved beside the world in one side file,
``<world>/mirrorcraft/block_entities.json`` (``{"furnaces": [...], "chests": [...]}``), read back when the
server starts. When a block breaks (the ``"block_broken"`` hook), the block entity at its position is
forgotten and its contents pop out like drops.

Partial: the cooked-unit ledger (what the evaluator traces a later take to) is not saved; after a restart,
output items count as of unknown origin (their vanilla outcome equals the actual).
"""

from __future__ import annotations

import json
from pathlib import Path

from mirrorcraft.errors import WorldError
from mirrorcraft.rules.cooking import CookingDevice
from mirrorcraft.server.features.chests import Chests
from mirrorcraft.server.features.furnaces import Furnaces
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Behaviour, Kernel
from mirrorcraft.server.kernel.stacks import Stack

SIDECAR = Path("mirrorcraft") / "block_entities.json"


class BlockEntities:
    """Saving, loading and breaking the block entities of one world."""

    def __init__(self, kernel: Kernel, furnaces: Furnaces, chests: Chests, items: Items) -> None:
        self.kernel = kernel
        self.furnaces = furnaces
        self.chests = chests
        self.items = items
        kernel.events.after("block_broken", self._broken)
        if kernel.config.world is not None:
            self.load(kernel.config.world)

    def _broken(self, b: Behaviour) -> None:
        pos = b["pos"]
        contents = self.furnaces.removed(pos)
        if contents is None:
            contents = self.chests.removed(pos)
        for s in contents:
            self.items.spawn(s, (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5), pop=True)

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
        data = {"furnaces": out, "chests": self.chests.dump()}
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
        chests = self.chests.restore(data.get("chests", []), path)
        return len(devices) + chests
