"""Furnace fuels and crafting remainders: vanilla game code as cited data (``data/fuels.json``).

Why data: burn times (``AbstractFurnaceBlockEntity.getFuel``) and crafting remainders
(``Item.craftingRemainingItem``) are Java code, not datapack resources, and minecraft-data lacks both. The
fuel table's tag entries are resolved with the loaded packs' item tags, so a pack that changes
``#minecraft:logs`` changes what burns, as in vanilla.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.mechanics import mechanics_data

__all__ = ["FuelTable", "crafting_remainder"]


def _fuel_data() -> dict[str, Any]:
    return mechanics_data("fuels")


@cache
def _remainders() -> dict[str, str]:
    return {e["item"]: e["remainder"] for e in _fuel_data()["crafting_remainders"]}


def crafting_remainder(item: str) -> str | None:
    """The item a crafting grid or furnace fuel slot keeps after consuming ``item`` (``None``: nothing)."""
    return _remainders().get(item)


class FuelTable:
    """Burn times in ticks, resolved against the loaded packs' item tags.

    Args:
        packs: The loaded packs (their item tags resolve the tag entries of ``fuels.json``).

    Raises:
        DatapackError: ``fuels.json`` names a tag the packs do not define.
    """

    def __init__(self, packs: DatapackSet) -> None:
        data = _fuel_data()
        never = packs.item_tag(data["never_fuel_tag"]) if data.get("never_fuel_tag") else frozenset()
        self._ticks: dict[str, int] = {}
        for entry in data["fuels"]:
            members = [entry["item"]] if "item" in entry else sorted(packs.item_tag(entry["tag"]))
            for item in members:
                if item not in never:
                    self._ticks[item] = int(entry["ticks"])
        self._divisor = {k: int(v) for k, v in data["device_burn_divisor"].items()}

    def burn_time(self, item: str | None, device: str | None = None) -> int:
        """Ticks one ``item`` burns in ``device`` (0: not a fuel); ``None``: the full time (a furnace's)."""
        if item is None:
            return 0
        return self._ticks.get(item, 0) // self._divisor.get(device or "", 1)

    def is_fuel(self, item: str) -> bool:
        """Whether ``item`` can go in the fuel slot."""
        return item in self._ticks

    def items(self) -> frozenset[str]:
        """Every item that burns."""
        return frozenset(self._ticks)
