"""The enchanting table: bookshelf power, the three offers, and enchanting, as vanilla 1.19.2 computes them.

Why: the Enchantment task's last milestone (``enchant_item``) is granted by enchanting, so the embedded
server must offer and apply enchantments the way a real server does. Enchantments are game code in 1.19
(no datapack registry), so this module reads the enchantment registry from :mod:`mirrorcraft.gamedata`
(weights, max levels, cost formulas ``a * level + b``, categories, exclusions from minecraft-data) and
the per-item enchantability from the hand-authored ``rules/data/enchanting.json`` (with its source).

Algorithm (``EnchantmentMenu.slotsChanged`` / ``clickMenuButton``, ``EnchantmentHelper``,
``WeightedRandom``; wiki "Enchanting mechanics"):

* **Bookshelves** (:func:`count_bookshelves`): for each of the 8 directions (dx, dz) around the table,
  if the two blocks at (dx, 0, dz) and (dx, 1, dz) are air, count bookshelves at (2dx, 0|1, 2dz) and, for
  diagonals, also at (2dx, 0|1, dz) and (dx, 0|1, 2dz). At most 15 count.
* **Costs**: ``rng.setSeed(seed)``; for slot k: ``base = nextInt(8) + 1 + (b >> 1) + nextInt(b + 1)``;
  slot 0 ``max(base / 3, 1)``, slot 1 ``base * 2 / 3 + 1``, slot 2 ``max(base, 2b)``; a cost below
  ``k + 1`` is 0 (no offer). With 15 shelves the third slot always costs 30.
* **Selection** for slot k (seeded ``seed + k``): enchantability e; ``level = cost + 1 + nextInt(e/4+1)
  + nextInt(e/4+1)``, then ``round(level * (1 + (nextFloat() + nextFloat() - 1) * 0.15))`` in float
  arithmetic; candidates: every non-treasure, discoverable enchantment whose category fits the item (any
  for a book) at the highest level whose [min cost, max cost] holds ``level``; pick one by weight, then
  while ``nextInt(50) <= level``: drop candidates incompatible with the last pick, pick again, halve
  ``level``. A book loses one random pick when it has more than one.
* **Clue** per slot: a random pick of that list (continuing the same generator).
* **Enchanting** button k: needs k+1 lapis and at least ``max(k+1, cost)`` levels; takes k+1 lapis and
  k+1 levels; a book becomes an enchanted book; the player's enchantment seed becomes the player
  generator's next ``nextInt()``.

Randomness uses :class:`JavaRandom`, a bit-exact port of ``java.util.Random`` (vanilla 1.19's
``LegacyRandomSource`` is the same LCG), so a given seed yields vanilla's own offers.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.errors import ContractError, GameDataError
from mirrorcraft.gamedata._data import load_json
from mirrorcraft.rules.mechanics import mechanics_data

__all__ = [
    "EnchantOffer",
    "EnchantResult",
    "EnchantingTable",
    "EnchantmentDef",
    "JavaRandom",
    "count_bookshelves",
]

_MASK48 = (1 << 48) - 1
_MULT = 0x5DEECE66D


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _i32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


class JavaRandom:
    """``java.util.Random`` / Minecraft 1.19 ``LegacyRandomSource``, bit for bit."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = 0
        self.set_seed(seed)

    def set_seed(self, seed: int) -> None:
        self.seed = (seed ^ _MULT) & _MASK48

    def _next(self, bits: int) -> int:
        self.seed = (self.seed * _MULT + 0xB) & _MASK48
        return _i32(self.seed >> (48 - bits))

    def next_int(self, bound: int | None = None) -> int:
        """``nextInt()`` (any int32) or ``nextInt(bound)`` in ``[0, bound)``."""
        if bound is None:
            return self._next(32)
        if bound <= 0:
            raise ValueError(f"bound must be positive, got {bound}")
        if bound & (bound - 1) == 0:
            return (bound * self._next(31)) >> 31
        while True:
            bits = self._next(31)
            val = bits % bound
            if bits - val + (bound - 1) < 1 << 31:
                return val

    def next_float(self) -> float:
        """``nextFloat()``: 24 random bits / 2^24."""
        return self._next(24) / float(1 << 24)


def _table_data() -> dict[str, Any]:
    return mechanics_data("enchanting")


@dataclass(frozen=True)
class EnchantmentDef:
    """One enchantment as the table needs it (from minecraft-data 1.19.2 via gamedata)."""

    id: int
    name: str
    weight: int
    max_level: int
    min_cost: tuple[int, int]  # (a, b): a * level + b
    max_cost: tuple[int, int]
    category: str
    exclude: frozenset[str]
    treasure_only: bool
    discoverable: bool

    def cost_range(self, level: int) -> tuple[int, int]:
        return (self.min_cost[0] * level + self.min_cost[1], self.max_cost[0] * level + self.max_cost[1])


@cache
def _registry() -> tuple[EnchantmentDef, ...]:
    out = []
    for e in sorted(load_json("registries")["enchantments"], key=lambda e: e["id"]):
        out.append(
            EnchantmentDef(
                id=e["id"],
                name=gamedata.enchantment(e["name"]).name,
                weight=e["weight"],
                max_level=e["max_level"],
                min_cost=(e["min_cost"]["a"], e["min_cost"]["b"]),
                max_cost=(e["max_cost"]["a"], e["max_cost"]["b"]),
                category=e["category"],
                exclude=frozenset(gamedata.enchantment(x).name for x in e["exclude"]),
                treasure_only=e["treasure_only"],
                discoverable=e["discoverable"],
            )
        )
    return tuple(out)


def _compatible(a: EnchantmentDef, b: EnchantmentDef) -> bool:
    # Enchantment.isCompatibleWith: both directions of checkCompatibility (which is `this != other` plus
    # each class's exclusions).
    return a.name != b.name and b.name not in a.exclude and a.name not in b.exclude


def count_bookshelves(
    is_bookshelf: Callable[[int, int, int], bool], is_air: Callable[[int, int, int], bool]
) -> int:
    """Bookshelves powering a table (1.19.2 ``EnchantmentMenu.slotsChanged``), not yet capped at 15.

    Args:
        is_bookshelf: ``(dx, dy, dz)`` relative to the table → whether that block is a bookshelf
            (``enchanting.json`` ``bookshelf_block``).
        is_air: ``(dx, dy, dz)`` → whether that block is air.
    """
    n = 0
    for dz in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if (dx or dz) and is_air(dx, 0, dz) and is_air(dx, 1, dz):
                for dy in (0, 1):
                    n += is_bookshelf(dx * 2, dy, dz * 2)
                    if dx and dz:
                        n += is_bookshelf(dx * 2, dy, dz)
                        n += is_bookshelf(dx, dy, dz * 2)
    return n


@dataclass(frozen=True)
class EnchantOffer:
    """One of the three buttons: level cost (0 = no offer) and the clue (enchantment id and level, or -1)."""

    slot: int
    cost: int
    clue_enchantment: int = -1
    clue_level: int = -1

    @property
    def clue_name(self) -> str | None:
        return _registry()[self.clue_enchantment].name if self.clue_enchantment >= 0 else None


@dataclass(frozen=True)
class EnchantResult:
    """The result of pressing a button.

    Attributes:
        item: The enchanted item id (a book becomes an enchanted book).
        enchantments: Enchantment id → level, in the order picked.
        levels_spent / lapis_spent: What the player paid (button + 1 each).
        new_seed: The player's next enchantment seed.
    """

    item: str
    enchantments: dict[str, int] = field(default_factory=dict)
    levels_spent: int = 0
    lapis_spent: int = 0
    new_seed: int = 0


class EnchantingTable:
    """The table's computations (stateless: the menu state is the item, the shelves and the seed)."""

    def __init__(self) -> None:
        data = _table_data()
        self.enchantability: Mapping[str, int] = data["enchantability"]
        self.book = data["book_item"]
        self.enchanted_book = data["enchanted_book_item"]
        self.lapis = data["lapis_item"]
        self.bookshelf = data["bookshelf_block"]
        self.max_bookshelves = int(data["max_bookshelves"])

    def item_enchantability(self, item: str) -> int:
        """Enchantability (0: the table offers nothing)."""
        return int(self.enchantability.get(item, 0))

    def _fits(self, e: EnchantmentDef, item: str) -> bool:
        if item == self.book:
            return True
        try:
            return e.category in gamedata.item(item).enchant_categories
        except GameDataError:
            return False

    # -- offers -------------------------------------------------------------------------------------
    def costs(self, item: str, bookshelves: int, seed: int) -> list[int]:
        """The three level costs (``EnchantmentHelper.getEnchantmentCost``), 0 where no offer."""
        rng = JavaRandom(_i32(seed))
        return self._costs(rng, item, bookshelves)

    def _costs(self, rng: JavaRandom, item: str, bookshelves: int) -> list[int]:
        e = self.item_enchantability(item)
        b = min(bookshelves, self.max_bookshelves)
        out = []
        for k in range(3):
            if e <= 0:
                cost = 0
            else:
                base = rng.next_int(8) + 1 + (b >> 1) + rng.next_int(b + 1)
                cost = max(base // 3, 1) if k == 0 else (base * 2 // 3 + 1 if k == 1 else max(base, b * 2))
            out.append(cost if cost >= k + 1 else 0)
        return out

    def select(self, rng: JavaRandom, item: str, level: int) -> list[tuple[EnchantmentDef, int]]:
        """``EnchantmentHelper.selectEnchantment`` (no treasure) with ``rng`` already seeded."""
        e = self.item_enchantability(item)
        picked: list[tuple[EnchantmentDef, int]] = []
        if e <= 0:
            return picked
        level += 1 + rng.next_int(e // 4 + 1) + rng.next_int(e // 4 + 1)
        f = _f32(_f32(_f32(rng.next_float() + rng.next_float()) - 1.0) * _f32(0.15))
        lv = _f32(float(level))
        level = max(1, math.floor(_f32(lv + _f32(lv * f)) + 0.5))
        candidates = self._available(item, level)
        if not candidates:
            return picked
        picked.append(self._weighted(rng, candidates))
        while rng.next_int(50) <= level:
            last = picked[-1][0]
            candidates = [c for c in candidates if _compatible(last, c[0])]
            if not candidates:
                break
            picked.append(self._weighted(rng, candidates))
            level //= 2
        return picked

    def _available(self, item: str, level: int) -> list[tuple[EnchantmentDef, int]]:
        out = []
        for e in _registry():
            if e.treasure_only or not e.discoverable or not self._fits(e, item):
                continue
            for lvl in range(e.max_level, 0, -1):
                low, high = e.cost_range(lvl)
                if low <= level <= high:
                    out.append((e, lvl))
                    break
        return out

    @staticmethod
    def _weighted(rng: JavaRandom, items: list[tuple[EnchantmentDef, int]]) -> tuple[EnchantmentDef, int]:
        total = sum(e.weight for e, _ in items)
        j = rng.next_int(total)
        for e, lvl in items:
            j -= e.weight
            if j < 0:
                return e, lvl
        raise AssertionError("unreachable: weights sum to total")

    def _list(
        self, rng: JavaRandom, item: str, slot: int, cost: int, seed: int
    ) -> list[tuple[EnchantmentDef, int]]:
        # EnchantmentMenu.getEnchantmentList
        rng.set_seed(_i32(seed + slot))
        picked = self.select(rng, item, cost)
        if item == self.book and len(picked) > 1:
            picked.pop(rng.next_int(len(picked)))
        return picked

    def offers(self, item: str, bookshelves: int, seed: int) -> list[EnchantOffer]:
        """The three offers shown for ``item`` with ``bookshelves`` and the player's enchantment ``seed``."""
        rng = JavaRandom(_i32(seed))
        costs = self._costs(rng, item, bookshelves)
        out = []
        for k, cost in enumerate(costs):
            offer = EnchantOffer(k, cost)
            if cost > 0:
                picked = self._list(rng, item, k, cost, seed)
                if picked:
                    e, lvl = picked[rng.next_int(len(picked))]
                    offer = EnchantOffer(k, cost, e.id, lvl)
            out.append(offer)
        return out

    @staticmethod
    def properties(offers: list[EnchantOffer], seed: int) -> dict[int, int]:
        """Window properties 0-9 (wiki.vg "Window Property", enchantment table): costs, seed & -16, clues."""
        props = {k: o.cost for k, o in enumerate(offers)}
        props[3] = _i32(seed) & -16
        props.update({4 + k: o.clue_enchantment for k, o in enumerate(offers)})
        props.update({7 + k: o.clue_level for k, o in enumerate(offers)})
        return props

    # -- enchanting ---------------------------------------------------------------------------------
    def enchant(
        self,
        item: str,
        button: int,
        bookshelves: int,
        seed: int,
        *,
        levels: int,
        lapis: int,
        player_random: JavaRandom,
    ) -> EnchantResult | None:
        """Press button ``button`` (0-2) (``EnchantmentMenu.clickMenuButton``).

        Args:
            item: The item in the table.
            button: 0, 1 or 2.
            bookshelves: Shelf count (capped at 15 here).
            seed: The player's enchantment seed.
            levels: The player's experience levels.
            lapis: Lapis lazuli in the table's second slot.
            player_random: The player's generator; its next ``nextInt()`` is the new seed.

        Returns:
            The result, or ``None`` when vanilla refuses (no offer, too few levels or lapis, empty list).

        Raises:
            ContractError: ``button`` is not 0-2.
        """
        if button not in (0, 1, 2):
            raise ContractError(f"enchant button must be 0, 1 or 2, got {button}")
        need = button + 1
        rng = JavaRandom(_i32(seed))
        costs = self._costs(rng, item, bookshelves)
        if lapis < need or costs[button] <= 0 or levels < need or levels < costs[button]:
            return None
        picked = self._list(rng, item, button, costs[button], seed)
        if not picked:
            return None
        result = self.enchanted_book if item == self.book else item
        return EnchantResult(
            item=result,
            enchantments={e.name: lvl for e, lvl in picked},
            levels_spent=need,
            lapis_spent=need,
            new_seed=player_random.next_int(),
        )
