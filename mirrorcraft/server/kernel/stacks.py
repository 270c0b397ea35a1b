"""Helpers over the one engine :class:`~mirrorcraft.rules.stack.Stack` type, shared by every feature.

Why in the kernel: the inventory, the container menus, the furnaces, the chests, the mobs (weapon
enchantments) and the advancements (item predicates) all ask the same questions of a stack — may two
stacks merge, how many fit in a slot, which enchantments does it carry — and none of them may import
another feature for the answer. A stack names its item by namespaced id (``minecraft:oak_log``); the
numeric protocol id is the wire's business, except where the server compares its own slots with a
client's *prediction*, which arrives as ``(item id, count)`` (:func:`ids`).
"""

from __future__ import annotations

from typing import Any

import nbtlib

from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts

__all__ = [
    "Stack",
    "enchanted_nbt",
    "enchantments_of",
    "from_slot",
    "ids",
    "max_stack_of",
    "same_kind",
    "stack",
    "with_count",
]


def stack(item: str, count: int, nbt: Any = None) -> Stack:
    """A stack of ``item`` (bare or namespaced; validated and namespaced).

    Raises:
        GameDataError: unknown item.
    """
    return Stack(facts.item_key(item), count, nbt)


def with_count(s: Stack | None, n: int) -> Stack | None:
    """``s`` with count ``n`` (its NBT kept); ``None`` when ``s`` is empty or ``n`` <= 0."""
    if s is None or n <= 0:
        return None
    return s._replace(count=n)


def same_kind(a: Stack | None, b: Stack | None) -> bool:
    """Whether two stacks may merge (same item and NBT, vanilla ``ItemStack.isSameItemSameTags``)."""
    return a is not None and b is not None and a.item == b.item and a.nbt == b.nbt


def max_stack_of(s: Stack | None) -> int:
    """Maximum stack size of the stack's item (64 for an empty slot)."""
    return facts.max_stack(s.item) if s else 64


def ids(s: Stack | None) -> tuple[int, int] | None:
    """``(item id, count)``: the form a client's click prediction takes (NBT is not compared)."""
    return (facts.item_id(s.item), s.count) if s else None


def from_slot(slot: Any) -> Stack | None:
    """A protocol :class:`~mirrorcraft.protocol.buffer.Slot` as a stack (``None`` for empty or count <= 0).

    Raises:
        GameDataError: unknown item id.
    """
    if slot is None or slot.count <= 0:
        return None
    return Stack(facts.item_key_of(slot.item_id), slot.count, slot.nbt)


def enchantments_of(s: Stack | None) -> dict[str, int]:
    """Enchantment id → level stored in a stack's NBT (``Enchantments`` or ``StoredEnchantments``)."""
    if s is None or s.nbt is None:
        return {}
    out: dict[str, int] = {}
    for key in ("Enchantments", "StoredEnchantments"):
        for e in s.nbt.get(key, []):
            out[str(e["id"])] = int(e["lvl"])
    return out


def enchanted_nbt(item: str, enchantments: dict[str, int], book_item: str) -> nbtlib.Compound:
    """Item NBT for enchantments as vanilla stores them (``EnchantmentHelper`` / ``EnchantedBookItem``)."""
    key = "StoredEnchantments" if item == book_item else "Enchantments"
    return nbtlib.Compound(
        {
            key: nbtlib.List[nbtlib.Compound](
                [
                    nbtlib.Compound({"id": nbtlib.String(e), "lvl": nbtlib.Short(lvl)})
                    for e, lvl in enchantments.items()
                ]
            )
        }
    )
