"""The animals the embedded server simulates, as cited data: their sizes, health and walk, egg laying, milking.

Why here: an animal's body and behaviour are Java code of 1.19.2 (``EntityType``, ``Cow``, ``Chicken``), not
datapack data; what it drops when killed is its loot table (``<ns>:entities/<type>``, from the world's
packs). Naming entities and items in engine code is what the rules-as-data guard forbids, so the names live
in ``data/animals.json`` with their source and the server's mobs feature asks these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = [
    "AnimalRule",
    "LayRule",
    "animal",
    "animal_constants",
    "animal_types",
    "dropped_item",
    "layer",
    "milking",
]


def animal_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/animals.json``."""
    return mechanics_data("animals")


@dataclass(frozen=True)
class AnimalRule:
    """One simulated animal type: its box, health and walking speed (blocks per tick)."""

    type: str
    width: float
    height: float
    health: float
    walk: float


@dataclass(frozen=True)
class LayRule:
    """An animal that lays an item: the next one after ``min_ticks + randrange(random_ticks)`` ticks."""

    item: str
    min_ticks: int
    random_ticks: int
    saved_as: str


@cache
def animal_types() -> dict[str, AnimalRule]:
    """Every simulated animal type (namespaced entity id) and its rule."""
    return {t: AnimalRule(t, float(r["width"]), float(r["height"]), float(r["health"]), float(r["walk"]))
            for t, r in animal_constants()["animals"].items()}  # fmt: skip


def animal(entity_type: str) -> AnimalRule | None:
    """The rule of ``entity_type``, or ``None`` when the server does not simulate it."""
    return animal_types().get(namespaced(entity_type))


def layer(entity_type: str) -> LayRule | None:
    """How ``entity_type`` lays items (chickens' eggs), else ``None``."""
    r = animal_constants()["layers"].get(namespaced(entity_type))
    return (
        None if r is None else LayRule(r["item"], int(r["min_ticks"]), int(r["random_ticks"]), r["saved_as"])
    )


def milking(entity_type: str) -> tuple[str, str] | None:
    """``(empty item, filled item)`` when using the empty item on ``entity_type`` fills it, else ``None``."""
    r = animal_constants()["milkable"].get(namespaced(entity_type))
    return None if r is None else (r["empty"], r["filled"])


def dropped_item() -> dict[str, float]:
    """``Entity.spawnAtLocation``'s item: sideways velocity bound, upward velocity, pickup delay."""
    return dict(animal_constants()["dropped_item"])
