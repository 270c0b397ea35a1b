"""The predicates loot tables and advancements share: number bounds, enchantment and item predicates.

Why one module: vanilla 1.19.2 uses the same classes in both formats (``MinMaxBounds``,
``EnchantmentPredicate``, ``ItemPredicate``), so a loot table's ``match_tool`` and an advancement's
``inventory_changed`` item test read and match alike. Following vanilla's deserializers, an unknown item or
enchantment is an error; so is an unknown item tag when the loaded tags are known (vanilla binds tags after
loading; the benchmark fails early instead). Fields this engine does not model (``durability``,
``stored_enchantments``, ``potion``, ``nbt``) raise instead of being guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mirrorcraft.rules.packs import JsonAt

__all__ = [
    "UNSUPPORTED_ITEM_FIELDS",
    "Bounds",
    "EnchantmentPredicate",
    "ItemPredicate",
    "TagResolver",
    "parse_bounds",
    "parse_item_predicate",
]

TagResolver = Callable[[str], frozenset[str]]
"""Maps a tag id without ``#`` (``"<ns>:<path>"``) to the namespaced ids it contains."""

#: Item-predicate fields vanilla has and this engine does not model.
UNSUPPORTED_ITEM_FIELDS = ("durability", "stored_enchantments", "potion", "nbt")


@dataclass(frozen=True)
class Bounds:
    """``MinMaxBounds``: a number, or ``{"min": .., "max": ..}`` (either side open)."""

    low: float | None
    high: float | None

    def matches(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def parse_bounds(value: Any, at: JsonAt) -> Bounds:
    """Read bounds (an exact number, or an object with optional ``min``/``max``)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Bounds(float(value), float(value))
    obj = at.obj(value)
    return Bounds(
        at.key("min").num(obj["min"]) if "min" in obj else None,
        at.key("max").num(obj["max"]) if "max" in obj else None,
    )


@dataclass(frozen=True)
class EnchantmentPredicate:
    """``EnchantmentPredicate``: an enchantment (any if ``None``) with levels in bounds (any if ``None``)."""

    enchantment: str | None
    levels: Bounds | None

    def matches(self, enchantments: Mapping[str, int]) -> bool:
        # EnchantmentPredicate.containedIn
        if self.enchantment is not None:
            if self.enchantment not in enchantments:
                return False
            return self.levels is None or self.levels.matches(enchantments[self.enchantment])
        if self.levels is not None:
            return any(self.levels.matches(level) for level in enchantments.values())
        return True


def _enchantment_predicate(value: Any, at: JsonAt) -> EnchantmentPredicate:
    obj = at.obj(value)
    name = at.key("enchantment").known(obj["enchantment"], "enchantment") if "enchantment" in obj else None
    levels = parse_bounds(obj["levels"], at.key("levels")) if "levels" in obj else None
    return EnchantmentPredicate(name, levels)


@dataclass(frozen=True)
class ItemPredicate:
    """``ItemPredicate``: items (any if ``None``), a tag, a count range, enchantments (all must match)."""

    items: frozenset[str] | None
    tag: str | None
    count: Bounds | None
    enchantments: tuple[EnchantmentPredicate, ...]

    def matches(
        self, item: str | None, count: int, enchantments: Mapping[str, int], tags: TagResolver
    ) -> bool:
        """Whether a stack (``item`` ``None`` = empty hand, count 0) passes."""
        if self.items is not None and item not in self.items:
            return False
        if self.tag is not None and (item is None or item not in tags(self.tag)):
            return False
        if self.count is not None and not self.count.matches(count):
            return False
        return all(e.matches(enchantments) for e in self.enchantments)


def parse_item_predicate(
    value: Any, at: JsonAt, item_tags: Mapping[str, frozenset[str]] | None = None
) -> ItemPredicate:
    """Read an item predicate.

    Args:
        value: The JSON object.
        at: Where it is.
        item_tags: The loaded item tags, to check ``tag`` names one (not checked when ``None``).

    Raises:
        JsonError: An unsupported field, an unknown item, enchantment or tag, a malformed value.
    """
    obj = at.obj(value)
    for name in UNSUPPORTED_ITEM_FIELDS:
        if name in obj:
            raise at.key(name).fail(f"item predicate field {name!r} is not supported by this engine")
    items = None
    if "items" in obj:
        i_at = at.key("items")
        raw = obj["items"]
        items = frozenset(
            [i_at.known(raw, "item")]
            if isinstance(raw, str)
            else i_at.each(i_at.list(raw), lambda v, a: a.known(v, "item"))
        )
    tag = None
    if "tag" in obj:
        t_at = at.key("tag")
        tag = t_at.res(obj["tag"]) if item_tags is None else t_at.tag_in(obj["tag"], item_tags)
    e_at = at.key("enchantments")
    enchants = tuple(e_at.each(e_at.list(obj.get("enchantments", [])), _enchantment_predicate))
    count = parse_bounds(obj["count"], at.key("count")) if "count" in obj else None
    return ItemPredicate(items, tag, count, enchants)
