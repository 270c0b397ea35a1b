"""The enchanting table with fixed seeds: Java's generator, bookshelf geometry, cost bounds, offers and
enchanting (self-consistent properties of vanilla's algorithm, plus java.util.Random's documented values)."""

from __future__ import annotations

import pytest

from mirrorcraft import gamedata
from mirrorcraft.errors import ContractError
from mirrorcraft.rules.enchanting import EnchantingTable, JavaRandom, count_bookshelves

PICK, SWORD, BOOK = "minecraft:iron_pickaxe", "minecraft:diamond_sword", "minecraft:book"
SEEDS = range(-100, 200)


@pytest.fixture(scope="module")
def table() -> EnchantingTable:
    return EnchantingTable()


def test_java_random_matches_java() -> None:
    # Values of java.util.Random (the OpenJDK algorithm; LegacyRandomSource is the same LCG).
    assert JavaRandom(0).next_int() == -1155484576
    assert JavaRandom(42).next_int() == -1170105035
    r = JavaRandom(42)
    assert [r.next_int(10) for _ in range(5)] == [0, 3, 8, 4, 0]
    assert abs(JavaRandom(42).next_float() - 0.7275637) < 1e-7
    r = JavaRandom(7)
    values = [r.next_int(16) for _ in range(1000)]  # power-of-two path
    assert min(values) == 0 and max(values) == 15
    with pytest.raises(ValueError):
        JavaRandom(1).next_int(0)


def ring(levels: tuple[int, ...] = (0,)) -> set[tuple[int, int, int]]:
    """Bookshelf positions of the 5x5 ring two blocks from the table, at the given heights."""
    return {(x, y, z) for y in levels for x in range(-2, 3) for z in range(-2, 3) if max(abs(x), abs(z)) == 2}


def test_bookshelf_count_geometry() -> None:
    shelves = ring((0, 1))
    assert len(shelves) == 32
    assert count_bookshelves(lambda *p: p in shelves, lambda *p: True) == 32
    one_layer = ring((0,))
    assert count_bookshelves(lambda *p: p in one_layer, lambda *p: True) == 16
    # a block between table and shelves (either height) hides the shelves behind it
    blocked = {(1, 1, 0)}
    n = count_bookshelves(lambda *p: p in one_layer, lambda *p: p not in blocked)
    assert n == 15  # only (2, 0, 0) is hidden: direction (1, 0) covers just the straight-ahead column
    blocked = {(1, 0, 1)}  # a diagonal covers the corner and both neighbours of it
    assert count_bookshelves(lambda *p: p in one_layer, lambda *p: p not in blocked) == 13
    # shelves right next to the table, or three away, do not count
    near = {(1, 0, 0), (3, 0, 0), (0, 0, -1)}
    assert count_bookshelves(lambda *p: p in near, lambda *p: p not in near) == 0


def test_costs_with_fifteen_shelves(table: EnchantingTable) -> None:
    for seed in SEEDS:
        c0, c1, c2 = table.costs(PICK, 15, seed)
        assert 2 <= c0 <= 10 and 6 <= c1 <= 21 and c2 == 30, seed
        assert table.costs(PICK, 32, seed) == [c0, c1, c2]  # capped at 15


def test_costs_without_shelves(table: EnchantingTable) -> None:
    seen = set()
    for seed in SEEDS:
        c = table.costs(PICK, 0, seed)
        assert c[0] in (1, 2) and c[1] in (0, 2, 3, 4, 5, 6) and c[2] in (0, *range(3, 9)), (seed, c)
        seen.add(tuple(c))
    assert len(seen) > 5
    assert table.costs("minecraft:stick", 15, 1) == [0, 0, 0]
    assert table.costs("minecraft:shears", 15, 1) == [0, 0, 0]  # enchantability 0


def test_offers_are_deterministic_and_consistent(table: EnchantingTable) -> None:
    allowed = {"minecraft:efficiency", "minecraft:silk_touch", "minecraft:unbreaking", "minecraft:fortune"}
    distinct = set()
    for seed in SEEDS:
        offers = table.offers(PICK, 15, seed)
        assert offers == table.offers(PICK, 15, seed)
        assert [o.cost for o in offers] == table.costs(PICK, 15, seed)
        for o in offers:
            assert o.clue_name in allowed
            assert 1 <= o.clue_level <= gamedata.enchantment(o.clue_name).max_level
        distinct.add(tuple((o.cost, o.clue_enchantment, o.clue_level) for o in offers))
    assert len(distinct) > 100


def test_enchanting_consumes_and_respects_the_clue(table: EnchantingTable) -> None:
    for seed in range(60):
        offers = table.offers(SWORD, 15, seed)
        for button, offer in enumerate(offers):
            res = table.enchant(SWORD, button, 15, seed, levels=30, lapis=3, player_random=JavaRandom(seed))
            assert res is not None
            assert res.item == SWORD and res.levels_spent == res.lapis_spent == button + 1
            assert res.enchantments.get(offer.clue_name) == offer.clue_level  # the clue is one of them
            names = set(res.enchantments)
            assert (
                len(names & {"minecraft:sharpness", "minecraft:smite", "minecraft:bane_of_arthropods"}) <= 1
            )
            assert all(
                gamedata.enchantment(n).category in gamedata.item(SWORD).enchant_categories for n in names
            )
            assert res.new_seed == JavaRandom(seed).next_int()
            assert not names & {"minecraft:mending", "minecraft:frost_walker"}  # treasure never offered


def test_enchanting_refusals(table: EnchantingTable) -> None:
    seed = 1234
    costs = table.costs(PICK, 15, seed)
    rnd = JavaRandom(9)
    assert table.enchant(PICK, 2, 15, seed, levels=29, lapis=3, player_random=rnd) is None  # needs 30 levels
    assert table.enchant(PICK, 2, 15, seed, levels=30, lapis=2, player_random=rnd) is None  # needs 3 lapis
    assert table.enchant(PICK, 0, 15, seed, levels=costs[0], lapis=1, player_random=rnd) is not None
    assert table.enchant("minecraft:stick", 0, 15, seed, levels=30, lapis=3, player_random=rnd) is None
    with pytest.raises(ContractError, match="button must be 0, 1 or 2"):
        table.enchant(PICK, 3, 15, seed, levels=30, lapis=3, player_random=rnd)


def test_book_becomes_enchanted_book(table: EnchantingTable) -> None:
    categories = set()
    for seed in range(100):
        res = table.enchant(BOOK, 2, 15, seed, levels=30, lapis=3, player_random=JavaRandom(0))
        assert res is not None and res.item == "minecraft:enchanted_book" and res.enchantments
        categories |= {gamedata.enchantment(n).category for n in res.enchantments}
    assert len(categories) >= 5  # books take enchantments of every category


def test_window_properties(table: EnchantingTable) -> None:
    offers = table.offers(PICK, 15, 0x12345678)
    props = table.properties(offers, 0x12345678)
    assert props[3] == 0x12345670
    assert [props[i] for i in range(3)] == [o.cost for o in offers]
    assert [props[i] for i in (4, 5, 6)] == [o.clue_enchantment for o in offers]
    assert [props[i] for i in (7, 8, 9)] == [o.clue_level for o in offers]
