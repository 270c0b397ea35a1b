"""Vanilla 1.19.2 registries other than blocks: items, entities, biomes, effects, enchantments, foods,
menu (window) types, fluids, game events, and the tags the vanilla server sends.

The protocol speaks in numeric registry ids (slot item ids, spawn-entity types, open-window menu types,
tag entries) while rules and agents speak in names; this module is the single translation table. Sources:
minecraft-data 3.119.0 ``data/pc/1.19.2`` (items, entities, biomes, effects, enchantments, foods), the
captured vanilla ``tags`` packet (tags) and the login registry codec (biome ids agree with it; checked
when regenerating). Menu types, fluids and game events are fixed lists in ``scripts/regen_gamedata.py``
with their sources cited there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.errors import GameDataError
from mirrorcraft.gamedata._data import bare, load_json, mc


@dataclass(frozen=True, slots=True)
class ItemInfo:
    """One item: ``name`` is the full ``minecraft:`` name; ``max_durability`` is None for undamageable
    items; ``enchant_categories`` / ``repair_with`` as minecraft-data lists them (empty if none)."""

    id: int
    name: str
    stack_size: int
    max_durability: int | None
    enchant_categories: tuple[str, ...]
    repair_with: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class EntityInfo:
    """One entity type: ``type`` is minecraft-data's kind (mob, hostile, animal, projectile, ...)."""

    id: int
    name: str
    type: str
    category: str | None
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class BiomeInfo:
    """One biome; ``id`` is the id in the 1.19.2 login registry codec (used by chunk sections)."""

    id: int
    name: str
    category: str
    temperature: float
    precipitation: str
    dimension: str
    rainfall: float
    color: int


@dataclass(frozen=True, slots=True)
class EffectInfo:
    """One status effect (mob effect) with its 1.19.2 numeric id; ``type`` is good/bad."""

    id: int
    name: str
    type: str


@dataclass(frozen=True, slots=True)
class EnchantmentInfo:
    """One enchantment: ``exclude`` names the enchantments it cannot be combined with."""

    id: int
    name: str
    max_level: int
    weight: int
    category: str
    exclude: frozenset[str]
    treasure_only: bool
    curse: bool
    tradeable: bool
    discoverable: bool


@dataclass(frozen=True, slots=True)
class FoodInfo:
    """Food values of an edible item (hunger points and saturation restored)."""

    id: int
    name: str
    food_points: float
    saturation: float


def _index(entries: list[Any], what: str) -> tuple[dict[str, Any], dict[int, Any]]:
    by_name = {bare(e.name): e for e in entries}
    by_id = {e.id: e for e in entries}
    if len(by_name) != len(entries) or len(by_id) != len(entries):
        raise GameDataError(f"vendored {what} registry has duplicate names or ids")
    return by_name, by_id


@cache
def _items() -> tuple[dict[str, ItemInfo], dict[int, ItemInfo]]:
    return _index(
        [
            ItemInfo(
                id=i["id"],
                name=mc(i["name"]),
                stack_size=i["stack_size"],
                max_durability=i["max_durability"],
                enchant_categories=tuple(i["enchant_categories"] or ()),
                repair_with=tuple(mc(r) for r in i["repair_with"] or ()),
            )
            for i in load_json("items")
        ],
        "item",
    )


@cache
def _registries() -> dict[str, Any]:
    raw = load_json("registries")
    out: dict[str, Any] = {}
    out["entities"] = _index([EntityInfo(**{**e, "name": mc(e["name"])}) for e in raw["entities"]], "entity")
    out["biomes"] = _index([BiomeInfo(**{**b, "name": mc(b["name"])}) for b in raw["biomes"]], "biome")
    out["effects"] = _index([EffectInfo(**{**e, "name": mc(e["name"])}) for e in raw["effects"]], "effect")
    out["enchantments"] = _index(
        [
            EnchantmentInfo(
                id=e["id"],
                name=mc(e["name"]),
                max_level=e["max_level"],
                weight=e["weight"],
                category=e["category"],
                exclude=frozenset(mc(x) for x in e["exclude"]),
                treasure_only=e["treasure_only"],
                curse=e["curse"],
                tradeable=e["tradeable"],
                discoverable=e["discoverable"],
            )
            for e in raw["enchantments"]
        ],
        "enchantment",
    )
    out["foods"] = _index([FoodInfo(**{**f, "name": mc(f["name"])}) for f in raw["foods"]], "food")
    for key in ("menu_types", "game_events", "fluids"):
        out[key] = {name: i for i, name in enumerate(raw[key])}
    return out


def _get(table: dict[str, Any], name: str, what: str) -> Any:
    found = table.get(bare(name))
    if found is None:
        raise GameDataError(f"unknown {what} {name!r} (1.19.2)")
    return found


def item(name: str) -> ItemInfo:
    """Look up an item by name (``minecraft:`` optional).

    Raises:
        GameDataError: Unknown item.
    """
    return _get(_items()[0], name, "item")


def item_by_id(item_id: int) -> ItemInfo:
    """Look up an item by its numeric id (as in slot data).

    Raises:
        GameDataError: Unknown id.
    """
    found = _items()[1].get(item_id)
    if found is None:
        raise GameDataError(f"unknown item id {item_id!r} (1.19.2)")
    return found


def all_items() -> tuple[ItemInfo, ...]:
    """Every item ordered by id."""
    return tuple(sorted(_items()[1].values(), key=lambda i: i.id))


def entity(name: str) -> EntityInfo:
    """Look up an entity type by name. Raises GameDataError if unknown."""
    return _get(_registries()["entities"][0], name, "entity type")


def entity_by_id(entity_type_id: int) -> EntityInfo:
    """Look up an entity type by numeric id. Raises GameDataError if unknown."""
    found = _registries()["entities"][1].get(entity_type_id)
    if found is None:
        raise GameDataError(f"unknown entity type id {entity_type_id!r} (1.19.2)")
    return found


def biome(name: str) -> BiomeInfo:
    """Look up a biome by name. Raises GameDataError if unknown."""
    return _get(_registries()["biomes"][0], name, "biome")


def effect(name: str) -> EffectInfo:
    """Look up a status effect by vanilla name (``speed``, ``mining_fatigue``, ``unluck``...).

    Raises:
        GameDataError: Unknown effect.
    """
    return _get(_registries()["effects"][0], name, "effect")


def enchantment(name: str) -> EnchantmentInfo:
    """Look up an enchantment by name. Raises GameDataError if unknown."""
    return _get(_registries()["enchantments"][0], name, "enchantment")


def food(name: str) -> FoodInfo:
    """Food values of an edible item. Raises GameDataError if the item is unknown or not a food."""
    return _get(_registries()["foods"][0], name, "food")


def menu_type(name: str) -> int:
    """The 1.19.2 menu registry id sent in ``open_window`` (e.g. ``crafting`` → 11, ``furnace`` → 13).

    Raises:
        GameDataError: Unknown menu type.
    """
    return _get(_registries()["menu_types"], name, "menu type")


def menu_type_name(menu_id: int) -> str:
    """Inverse of :func:`menu_type`. Raises GameDataError if out of range."""
    for name, i in _registries()["menu_types"].items():
        if i == menu_id:
            return mc(name)
    raise GameDataError(f"unknown menu type id {menu_id!r} (1.19.2)")


def fluid_id(name: str) -> int:
    """Fluid registry id (``water`` → 2). Raises GameDataError if unknown."""
    return _get(_registries()["fluids"], name, "fluid")


def game_event_id(name: str) -> int:
    """Game-event registry id (``step`` → 43). Raises GameDataError if unknown."""
    return _get(_registries()["game_events"], name, "game event")


#: Tag kinds accepted by :func:`tag` and the wire registry they come from.
TAG_KINDS: dict[str, str] = {
    "block": "minecraft:block",
    "item": "minecraft:item",
    "fluid": "minecraft:fluid",
    "entity_type": "minecraft:entity_type",
    "game_event": "minecraft:game_event",
    "worldgen/biome": "minecraft:worldgen/biome",
}


# Datapack folder names (data/<ns>/tags/<folder>/) for the same kinds.
_KIND_ALIASES = {
    "blocks": "block",
    "items": "item",
    "fluids": "fluid",
    "entity_types": "entity_type",
    "game_events": "game_event",
}


@cache
def _tags() -> dict[str, dict[str, frozenset[str]]]:
    raw = load_json("tags")
    return {kind: {n: frozenset(v) for n, v in raw[reg].items()} for kind, reg in TAG_KINDS.items()}


def tag(kind: str, name: str) -> frozenset[str]:
    """Members (full ``minecraft:`` names, nested tags already flattened) of a vanilla tag.

    Args:
        kind: ``block``, ``item``, ``fluid``, ``entity_type``, ``game_event`` or ``worldgen/biome``
            (plural folder names like ``blocks`` are accepted too).
        name: Tag name with or without ``minecraft:`` and an optional leading ``#``.

    Raises:
        GameDataError: Unknown kind or tag.
    """
    kinds = _tags()
    key = kind.removeprefix("minecraft:")
    key = _KIND_ALIASES.get(key, key)
    if key not in kinds:
        raise GameDataError(f"unknown tag kind {kind!r}; known: {sorted(kinds)}")
    found = kinds[key].get(mc(name.lstrip("#")))
    if found is None:
        raise GameDataError(f"unknown {key} tag {name!r} (1.19.2)")
    return found


def tag_names(kind: str) -> tuple[str, ...]:
    """All tag names of one kind, sorted. Raises GameDataError for an unknown kind."""
    if kind not in _tags():
        raise GameDataError(f"unknown tag kind {kind!r}; known: {sorted(_tags())}")
    return tuple(sorted(_tags()[kind]))
