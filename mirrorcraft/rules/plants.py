"""Farming mechanics as cited data: crops, stems, cocoa, sweet berries, sugar cane, farmland, tilling, planting
and bone meal.

Why here: how plants grow (ages, growth chances, which soil keeps them alive, what a hoe turns into farmland)
is Java code of 1.19.2 (``CropBlock``, ``StemBlock``, ``FarmBlock``, ``HoeItem``...), not datapack data; what a
plant *drops* is its loot table (the vendored vanilla pack, overridable by a world's packs). Naming blocks
and items in engine code is what the rules-as-data guard forbids, so the names live in
``data/plants.json`` with their source, and the server's farming feature asks these functions. The tag
*names* the code uses (``#dirt``, ``#jungle_logs``) are data too; their *members* come from the world's
loaded packs (the caller resolves them), as vanilla's do.

Block and item names are namespaced (``minecraft:wheat``); bare names are accepted by the lookups.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = [
    "CaneRule",
    "CocoaRule",
    "CropGrowth",
    "CropRule",
    "FarmlandRule",
    "StemRule",
    "BerryRule",
    "Soil",
    "TillRule",
    "bone_meal_item",
    "bush_soil",
    "cane_rule",
    "cocoa_pods",
    "crop",
    "crop_growth",
    "crop_soil",
    "crops",
    "farmland_rule",
    "fruit_soil",
    "is_hoe",
    "planted_block",
    "plant_constants",
    "stem",
    "stem_max_age",
    "stems",
    "attached_stem",
    "berry_bush",
    "till",
]


def plant_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/plants.json``."""
    return mechanics_data("plants")


@dataclass(frozen=True)
class CropRule:
    """One ``CropBlock``: its block, last age, seed item, how often its random tick is skipped (beetroot:
    ``nextInt(3) == 0`` skips, 0 = never) and what bone meal's 2..5 is divided by."""

    block: str
    max_age: int
    seed: str
    skip_one_in: int
    bonemeal_divisor: int


@dataclass(frozen=True)
class CropGrowth:
    """``CropBlock.randomTick`` / ``getGrowthSpeed`` / ``canSurvive`` constants (shared by stems)."""

    min_light: int
    survive_light: int
    chance_base: float
    farmland_points: float
    moist_farmland_points: float
    neighbour_divisor: float
    crowded_divisor: float
    bonemeal_min: int
    bonemeal_max: int


@dataclass(frozen=True)
class Soil:
    """Blocks a plant stands on: explicit blocks plus members of block tags (resolved by the caller)."""

    blocks: frozenset[str]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class FarmlandRule:
    """``FarmBlock``: its block, what it dries to, the moisture range, the water search box and which plants
    above keep dry farmland from turning to dirt."""

    block: str
    dry_block: str
    max_moisture: int
    water_reach_xz: int
    water_reach_up: int
    kept_by: frozenset[str]


@dataclass(frozen=True)
class StemRule:
    """A ``StemBlock``: its fruit, the attached stem it becomes, its seed item."""

    block: str
    fruit: str
    attached: str
    seed: str


@dataclass(frozen=True)
class CocoaRule:
    """``CocoaBlock``: last age, growth chance 1/``grow_one_in`` per random tick, the support tag."""

    block: str
    max_age: int
    grow_one_in: int
    support_tag: str
    seed: str


@dataclass(frozen=True)
class BerryRule:
    """``SweetBerryBushBlock``: growth, and picking by use (``1 + nextInt(2)`` berries, + 1 when ripe)."""

    block: str
    max_age: int
    grow_one_in: int
    min_light: int
    seed: str
    harvest_item: str
    harvest_min_age: int
    harvest_base: int
    harvest_random: int
    harvest_ripe_bonus: int
    harvest_leaves_age: int
    thorn_damage: float  # entityInside: hurt for this much when moving inside a bush of age >= thorn_min_age
    thorn_min_age: int
    thorn_min_move: float  # ... having moved at least this along x or z since the tick began
    stuck_multiplier: tuple[float, float, float]  # makeStuckInBlock: the next move is scaled by this


@dataclass(frozen=True)
class CaneRule:
    """``SugarCaneBlock``: column height, the age that grows a new cane, what it may stand on."""

    block: str
    max_height: int
    max_age: int
    soil: Soil
    water_substitutes: frozenset[str]


@dataclass(frozen=True)
class TillRule:
    """One ``HoeItem.TILLABLES`` entry."""

    becomes: str
    needs_air_above: bool
    pops: str | None


def _soil(d: dict[str, Any]) -> Soil:
    return Soil(frozenset(d["blocks"]), tuple(d["tags"]))


@cache
def crops() -> dict[str, CropRule]:
    """Every crop block (namespaced) and its rule."""
    return {b: CropRule(b, int(r["max_age"]), r["seed"], int(r["skip_one_in"]), int(r["bonemeal_divisor"]))
            for b, r in plant_constants()["crops"].items()}  # fmt: skip


def crop(block: str) -> CropRule | None:
    """The rule of crop ``block``, else ``None``."""
    return crops().get(namespaced(block))


@cache
def crop_growth() -> CropGrowth:
    """The shared growth constants."""
    return CropGrowth(**plant_constants()["crop_growth"])


@cache
def farmland_rule() -> FarmlandRule:
    """The farmland rule."""
    d = plant_constants()["farmland_rule"]
    return FarmlandRule(
        d["block"], d["dry_block"], int(d["max_moisture"]), int(d["water_reach_xz"]), int(d["water_reach_up"]),
        frozenset(d["kept_by"]),
    )  # fmt: skip


@cache
def stems() -> dict[str, StemRule]:
    """Every stem block (namespaced) and its rule."""
    return {
        b: StemRule(b, r["fruit"], r["attached"], r["seed"]) for b, r in plant_constants()["stems"].items()
    }


def stem(block: str) -> StemRule | None:
    """The rule of stem ``block`` (not attached), else ``None``."""
    return stems().get(namespaced(block))


def attached_stem(block: str) -> StemRule | None:
    """The rule of the stem whose attached form is ``block``, else ``None``."""
    name = namespaced(block)
    for r in stems().values():
        if r.attached == name:
            return r
    return None


def stem_max_age() -> int:
    """A stem's last age (``StemBlock.MAX_AGE``)."""
    return int(plant_constants()["stem_max_age"])


@cache
def fruit_soil() -> Soil:
    """What the block under a new melon or pumpkin may be."""
    return _soil(plant_constants()["fruit_soil"])


@cache
def bush_soil() -> Soil:
    """``BushBlock.mayPlaceOn`` (sweet berry bushes)."""
    return _soil(plant_constants()["bush_soil"])


@cache
def crop_soil() -> Soil:
    """``CropBlock.mayPlaceOn`` / ``StemBlock.mayPlaceOn`` (farmland only)."""
    return _soil(plant_constants()["crop_soil"])


@cache
def cocoa_pods() -> CocoaRule:
    """The cocoa rule."""
    d = plant_constants()["cocoa_pods"]
    return CocoaRule(d["block"], int(d["max_age"]), int(d["grow_one_in"]), d["support_tag"], d["seed"])


@cache
def berry_bush() -> BerryRule:
    """The sweet berry bush rule."""
    d = dict(plant_constants()["berry_bush"])
    d["stuck_multiplier"] = tuple(float(v) for v in d["stuck_multiplier"])
    return BerryRule(**d)


@cache
def cane_rule() -> CaneRule:
    """The sugar cane rule."""
    d = plant_constants()["cane_rule"]
    soil = Soil(frozenset(d["soil_blocks"]), tuple(d["soil_tags"]))
    return CaneRule(
        d["block"], int(d["max_height"]), int(d["max_age"]), soil, frozenset(d["water_substitutes"])
    )


def planted_block(item: str) -> str | None:
    """The plant block a seed item places (``ItemNameBlockItem``), else ``None``."""
    return plant_constants()["planted_by"].get(namespaced(item))


def is_hoe(item: str | None) -> bool:
    """Whether ``item`` is a hoe (``HoeItem``)."""
    return item is not None and namespaced(item) in plant_constants()["tilling"]["hoes"]


def till(block: str) -> TillRule | None:
    """What a hoe turns ``block`` into, else ``None``."""
    r = plant_constants()["tilling"]["results"].get(namespaced(block))
    return None if r is None else TillRule(r["becomes"], bool(r["needs_air_above"]), r["pops"])


def bone_meal_item() -> str:
    """The bone meal item (namespaced)."""
    return str(plant_constants()["bone_meal_item"])
