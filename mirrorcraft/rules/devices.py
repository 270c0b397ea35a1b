"""Cooking devices as data: which recipe type each one runs, the cooking recipes' default times, and what
their fuel slot takes besides fuel.

Why data: which block entity cooks which recipe type is Java code (``FurnaceBlockEntity`` runs
``RecipeType.SMELTING``...), not datapack data, and the device names are block ids; keeping both in the
cited ``data/cooking.json`` lets the cooking engine, the sidecar schema, the compiler and the graph share
one table and keeps ids out of engine code (the rules-as-data guard, docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = ["COOKING_TIMES", "DEVICE_RECIPE_TYPES", "YIELD_DEVICES", "device_of", "fuel_slot_accepts"]


def _data() -> dict[str, Any]:
    return mechanics_data("cooking")


#: Device name (its block id's path: ``furnace``...) → the namespaced recipe type it runs.
DEVICE_RECIPE_TYPES: dict[str, str] = {name: d["recipe_type"] for name, d in _data()["devices"].items()}
#: Devices a cooking-yield sidecar may name → their recipe type (docs/smelting_yields.md).
YIELD_DEVICES: dict[str, str] = {
    name: d["recipe_type"] for name, d in _data()["devices"].items() if d["yield_sidecar"]
}
#: Cooking recipe type (namespaced) → vanilla's default ``cookingtime`` (``SimpleCookingSerializer``).
COOKING_TIMES: dict[str, int] = {k: int(v) for k, v in _data()["default_cooking_time"].items()}


def device_of(recipe_type: str) -> str | None:
    """The device that runs ``recipe_type`` (namespaced), or ``None`` (campfire cooking has none here)."""
    return next((d for d, t in DEVICE_RECIPE_TYPES.items() if t == recipe_type), None)


def fuel_slot_accepts(item: str, is_fuel: Callable[[str], bool]) -> bool:
    """Whether a cooking device's fuel slot takes ``item`` (vanilla ``FurnaceFuelSlot.mayPlace``): a fuel
    (``is_fuel``, the world's :class:`~mirrorcraft.rules.fuels.FuelTable`) or an empty bucket."""
    return is_fuel(item) or namespaced(item) in _data()["fuel_slot_extra_items"]
