"""Item mechanics as cited data: eating (always-edible and fast foods, what a food leaves behind, the golden
apples' effects) and which armor slot takes an item.

Why here: these are facts of the game's code (``Foods.java``, ``BowlFoodItem``, ``HoneyBottleItem``,
``Mob.getEquipmentSlotForItem``), not of any datapack, and the server's food feature and inventory need
them. Naming items in engine code is what the rules-as-data guard forbids, so the names live in
``data/items.json`` with their source and the engine asks these functions. A food's points and saturation
are minecraft-data's (``mirrorcraft.gamedata.food``). Item names are namespaced (``minecraft:bowl``); bare
names are accepted.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = [
    "EQUIPMENT_SLOTS",
    "always_edible",
    "block_food",
    "chance_effects",
    "cures",
    "drink",
    "eaten_remainder",
    "fast_food",
    "fits_equipment_slot",
    "food_effects",
    "food_value",
    "item_constants",
    "use_ticks",
]


def item_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/items.json``."""
    return mechanics_data("items")


#: The armor slots of :func:`fits_equipment_slot` (vanilla ``EquipmentSlot`` names), head to feet, the order
#: of window 0's slots 5-8.
EQUIPMENT_SLOTS: tuple[str, ...] = tuple(item_constants()["equipment_slots"])


def always_edible(item: str) -> bool:
    """Whether ``item`` may be eaten with a full food bar (``FoodProperties.canAlwaysEat``)."""
    return namespaced(item) in item_constants()["always_edible"]


def fast_food(item: str) -> bool:
    """Whether ``item`` is eaten in half the time (``FoodProperties.isFastFood``)."""
    return namespaced(item) in item_constants()["fast_foods"]


def eaten_remainder(item: str) -> str | None:
    """The item (namespaced) that eating ``item`` leaves behind (a stew's bowl...), else ``None``."""
    return item_constants()["eaten_remainders"].get(namespaced(item))


def food_effects(item: str) -> tuple[tuple[str, int, int], ...]:
    """The effects eating ``item`` always gives, as ``(effect id, duration ticks, amplifier)``."""
    return tuple(
        (str(e), int(t), int(a)) for e, t, a in item_constants()["food_effects"].get(namespaced(item), ())
    )


def fits_equipment_slot(slot: str, item: str) -> bool:
    """Whether armor slot ``slot`` (one of :data:`EQUIPMENT_SLOTS`) takes ``item``.

    Raises:
        KeyError: ``slot`` is not an armor slot.
    """
    table = item_constants()["equipment_slots"][slot]
    name = namespaced(item)
    return name in table["items"] or name.partition(":")[2].endswith(tuple(table["suffixes"]))


def chance_effects(item: str) -> tuple[tuple[str, int, int, float], ...]:
    """The effects eating ``item`` gives by chance, as ``(effect id, duration ticks, amplifier, probability)``
    (vanilla rolls ``nextFloat() < probability`` for each)."""
    return tuple(
        (str(e), int(t), int(a), float(pr))
        for e, t, a, pr in item_constants()["chance_effects"].get(namespaced(item), ())
    )


def use_ticks(item: str) -> int | None:
    """How many ticks using ``item`` takes when it differs from a food's 32 / 16 (honey 40, milk 32)."""
    v = item_constants()["use_ticks"].get(namespaced(item))
    return None if v is None else int(v)


def drink(item: str) -> dict[str, Any] | None:
    """A non-food item finished by use (milk): ``{"clears_effects": bool, "leaves": item}``, else ``None``."""
    d = item_constants()["drinks"].get(namespaced(item))
    return None if d is None else dict(d)


def cures(item: str) -> tuple[str, ...]:
    """The effects consuming ``item`` removes (honey: poison)."""
    return tuple(item_constants()["cures"].get(namespaced(item), ()))


def block_food() -> dict[str, Any]:
    """``CakeBlock`` (a food eaten from the placed block): ``block``, ``max_bites``, ``nutrition``, ``saturation_modifier`` (a slice restores
    ``nutrition`` and ``nutrition x modifier x 2`` saturation, ``FoodData.eat``)."""
    return dict(item_constants()["block_food"])


@cache
def foods() -> tuple[str, ...]:
    """Every item :func:`food_value` scores (namespaced, sorted): what a judge over RCON asks a player's
    inventory for, since a command can only count named items."""
    from mirrorcraft.gamedata import registries

    return tuple(
        sorted(n for n in (namespaced(i.name) for i in registries.all_items()) if food_value(n) is not None)
    )


def food_value(item: str) -> float | None:
    """What eating all of ``item`` restores, hunger points plus saturation (``None``: not a food).

    PillagerBench's Dash & Dine scores a delivered food by this sum (rabbit stew 10 + 12 = 22, cooked beef
    8 + 12.8 = 20.8); minecraft-data's foods give it for eaten items, and the cake, eaten from its placed
    block slice by slice, restores ``max_bites + 1`` slices (bites 0 to ``max_bites``) of ``nutrition`` +
    ``nutrition x modifier x 2`` (7 x (2 + 0.4) = 16.8, ``CakeBlock`` / ``FoodData.eat``). Rounded to 4
    decimals: minecraft-data carries Java's float saturations (golden carrot 14.399999...).
    """
    from mirrorcraft.errors import GameDataError
    from mirrorcraft.gamedata import registries

    name = namespaced(item)
    cake = block_food()
    if name == namespaced(cake["block"]):
        slice_ = cake["nutrition"] + cake["nutrition"] * cake["saturation_modifier"] * 2
        return round((cake["max_bites"] + 1) * slice_, 4)
    try:
        info = registries.food(name)
    except GameDataError:
        return None
    return round(info.food_points + info.saturation, 4)
