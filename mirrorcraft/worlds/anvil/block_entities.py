"""Container block entities as a 1.19.2 chunk stores them in its ``block_entities`` list.

Vanilla writes a chest as ``{id: "minecraft:chest", x, y, z, keepPacked: 0b, Items: [...]}`` and a furnace
with its fuel/cook timers besides (https://minecraft.wiki/w/Chunk_format, "Block entity format";
``AbstractFurnaceBlockEntity.saveAdditional`` in 1.19.2: ``BurnTime``, ``CookTime``, ``CookTimeTotal`` as
shorts and ``RecipesUsed``). An item stack is ``{Slot: b, id: "minecraft:…", Count: b}`` plus ``tag`` when it
has one (``{Damage: i}`` for a tool). The PillagerBench arenas (:mod:`mirrorcraft.worlds.arenas`) use these
for their chests of bowls, buckets, gold nuggets and a netherite hoe, and their furnaces of coal.
"""

from __future__ import annotations

from collections.abc import Sequence

import nbtlib

__all__ = ["chest_nbt", "furnace_nbt", "item_nbt"]

#: Furnace slots (vanilla ``AbstractFurnaceBlockEntity``): 0 input, 1 fuel, 2 result.
FURNACE_INPUT, FURNACE_FUEL, FURNACE_RESULT = 0, 1, 2


def item_nbt(slot: int, item: str, count: int, damage: int | None = None) -> nbtlib.Compound:
    """One stack of a container's ``Items`` list (``damage`` adds vanilla's ``tag: {Damage}``).

    Raises:
        ValueError: a slot or count outside a byte, or an item id without namespace.
    """
    if not 0 <= slot <= 127 or not 1 <= count <= 127:
        raise ValueError(f"slot {slot} / count {count} out of range")
    if ":" not in item:
        raise ValueError(f"item {item!r} must be namespaced")
    tag = nbtlib.Compound({"Slot": nbtlib.Byte(slot), "id": nbtlib.String(item), "Count": nbtlib.Byte(count)})
    if damage is not None:
        tag["tag"] = nbtlib.Compound({"Damage": nbtlib.Int(damage)})
    return tag


def _container(block_id: str, pos: tuple[int, int, int], items: Sequence[nbtlib.Compound]) -> nbtlib.Compound:
    slots = [int(i["Slot"]) for i in items]
    if len(set(slots)) != len(slots):
        raise ValueError(f"{block_id} at {pos}: slots {slots} repeat")
    x, y, z = pos
    return nbtlib.Compound(
        {
            "id": nbtlib.String(block_id),
            "x": nbtlib.Int(x),
            "y": nbtlib.Int(y),
            "z": nbtlib.Int(z),
            "keepPacked": nbtlib.Byte(0),
            "Items": nbtlib.List[nbtlib.Compound](list(items)),
        }
    )


def chest_nbt(pos: tuple[int, int, int], items: Sequence[nbtlib.Compound] = ()) -> nbtlib.Compound:
    """A chest block entity holding ``items`` (from :func:`item_nbt`, slots 0..26)."""
    if any(int(i["Slot"]) > 26 for i in items):
        raise ValueError(f"chest at {pos}: a chest has slots 0..26")
    return _container("minecraft:chest", pos, items)


def furnace_nbt(pos: tuple[int, int, int], items: Sequence[nbtlib.Compound] = ()) -> nbtlib.Compound:
    """An unlit furnace block entity (slots 0 input, 1 fuel, 2 result; timers zero)."""
    if any(int(i["Slot"]) > 2 for i in items):
        raise ValueError(f"furnace at {pos}: a furnace has slots 0..2")
    tag = _container("minecraft:furnace", pos, items)
    tag["BurnTime"] = nbtlib.Short(0)
    tag["CookTime"] = nbtlib.Short(0)
    tag["CookTimeTotal"] = nbtlib.Short(0)
    tag["RecipesUsed"] = nbtlib.Compound()
    return tag
