"""Furnace block entities: one :class:`~mirrorcraft.rules.cooking.CookingDevice` per furnace, blast
furnace or smoker block, ticked every game tick whether or not a window is open, and persisted with the save.

Why separate from the menus: a furnace keeps cooking after its window closes (vanilla
``AbstractFurnaceBlockEntity.serverTick`` runs for every loaded furnace), and several players may look at
the same one; the menu is only a view. The block's ``lit`` state follows the device like vanilla's
``setBlock(... LIT ...)``.

Persistence: vanilla stores block entities in the chunk's ``block_entities`` list; part 1's chunk writer
does not write block entities, so the devices are saved beside the world in
``<world>/mirrorcraft/block_entities.json`` (slots, burn and cook state, stored recipe counts) and read back
when the server starts (chests, :mod:`mirrorcraft.server.chests`, are in the same file under ``"chests"``).
Partial: the cooked-unit ledger (what the evaluator traces a later take to) is not
saved; after a restart, output items count as of unknown origin (their vanilla outcome equals the actual).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from mirrorcraft.errors import WorldError
from mirrorcraft.rules.cooking import CookingDevice, Stack
from mirrorcraft.server import facts
from mirrorcraft.server.chests import Chests

if TYPE_CHECKING:
    from mirrorcraft.server.progress import Rules

DEVICES = ("furnace", "blast_furnace", "smoker")
SIDECAR = Path("mirrorcraft") / "block_entities.json"

Pos = tuple[int, int, int]


class BlockEntities:
    """The cooking block entities of one world, by block position."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.devices: dict[Pos, CookingDevice] = {}
        self.last_tick = 0
        self.chests = Chests(rules)  # 27-slot storage (mirrorcraft.server.chests), same side file

    def device_at(self, pos: Pos) -> CookingDevice | None:
        """The device of the furnace-family block at ``pos`` (created on first use), or ``None``."""
        name = facts.block_name(self.rules.game.world.get_block(*pos))
        if name not in DEVICES:
            self.devices.pop(pos, None)
            return None
        dev = self.devices.get(pos)
        if dev is None or dev.device != name:
            dev = self._new(name)
            self.devices[pos] = dev
        return dev

    def _new(self, device: str) -> CookingDevice:
        r = self.rules
        return CookingDevice(device, r.packs, book=r.oracle.book, fuels=r.fuels)  # type: ignore[arg-type]

    def removed(self, pos: Pos) -> list[tuple[str, int]]:
        """The block at ``pos`` was broken: forget its device; returns its contents (to drop)."""
        dev = self.devices.pop(pos, None)
        if dev is None:
            return self.chests.removed(pos)
        return [(s.item, s.count) for s in dev.slots if s is not None]

    def tick(self, now: int) -> list[tuple[Pos, CookingDevice]]:
        """Run every device up to game tick ``now`` (skipped ticks are caught up, so cook times stay in
        ticks at any tick rate); returns the devices whose ``lit`` state changed."""
        steps = max(0, min(now - self.last_tick, 200))
        self.last_tick = now
        changed = []
        for pos, dev in list(self.devices.items()):
            was = dev.lit
            for _ in range(steps):
                dev.tick()
            if dev.lit != was:
                changed.append((pos, dev))
        return changed

    # ---- persistence -----------------------------------------------------------------------------------

    def save(self, world_dir: Path) -> Path:
        """Write every device to ``<world>/mirrorcraft/block_entities.json``; returns the path."""
        out = []
        for pos, d in sorted(self.devices.items()):
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
        """Read the sidecar if present; returns how many devices were restored.

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
        for i, e in enumerate(data.get("furnaces", [])):
            field = "pos"
            try:
                pos = tuple(int(v) for v in e["pos"])
                field = "device"
                dev = self._new(e["device"])
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
            self.devices[pos] = dev  # type: ignore[index]
        chests = self.chests.restore(data.get("chests", []), path)
        return len(self.devices) + chests
