"""The one item-stack type of the game engine: what a slot, a drop, a cooked output or a loot roll holds.

Why one type: the server's inventory, its menus, the cooking devices and the loot interpreter each had their
own (an ``(id, count[, nbt])`` tuple, two dataclasses, a pydantic model), with conversions at every border.
A :class:`Stack` names its item by namespaced id, as datapacks do; the numeric protocol id is the wire's
business (``mirrorcraft.server`` converts when it encodes a slot). ``nbt`` carries what vanilla keeps in the
item's tag (enchantments, stored enchantments) and is ``None`` for plain items. An empty slot is ``None``,
never a stack of count 0.

The agent-facing :class:`~mirrorcraft.contracts.skills.ItemStack` stays a separate, validated record type:
it is what the benchmark's data model stores, not an engine value.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Stack"]


class Stack(NamedTuple):
    """An item stack.

    Attributes:
        item: Namespaced item id (``minecraft:oak_log``).
        count: How many (>= 1).
        nbt: The item's tag (an ``nbtlib.Compound``) or ``None``.
    """

    item: str
    count: int
    nbt: Any = None

    def with_count(self, count: int) -> Stack | None:
        """This stack with ``count`` items (its tag kept); ``None`` when ``count`` <= 0."""
        return self._replace(count=count) if count > 0 else None
