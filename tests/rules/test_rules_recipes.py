"""Crafting matching over the real vanilla recipes (and minecraft-data's independent recipe list), and
over real Mirror packs compiled from the shipped suites."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.refdata import NODE_MODULES, mcdata_path
from support.rules_support import VANILLA, make_pack

from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.recipe_book import RecipeBook
from mirrorcraft.rules.recipes import SPECIAL_TYPES, ShapedRecipe, SpecialRecipe

P, S, N = "minecraft:oak_planks", "minecraft:stick", None


def result(book: RecipeBook, grid: list[list[str | None]]) -> tuple[str, int] | None:
    r = book.match(grid)
    return (r.item, r.count) if r else None


def test_axe_is_mirrored_and_placed_anywhere(vanilla_book: RecipeBook) -> None:
    as_written = [[P, P, N], [P, S, N], [N, S, N]]
    mirrored = [[N, P, P], [N, S, P], [N, S, N]]
    shifted = [[N, P, P], [N, P, S], [N, N, S]]
    for grid in (as_written, mirrored, shifted):
        r = vanilla_book.match(grid)
        assert r is not None and (r.recipe, r.item, r.count) == ("minecraft:wooden_axe",) * 2 + (1,)
    # 2x2 player grid: a 2x3 pattern cannot fit
    assert vanilla_book.match([[P, P], [P, S]]) is None
    # an extra item anywhere spoils a shaped match
    assert vanilla_book.match([[P, P, N], [P, S, N], [N, S, S]]) is None
    # upside-down is not a mirror
    assert vanilla_book.match([[N, S, N], [P, S, N], [P, P, N]]) is None


def test_planks_from_any_log_by_tag(vanilla_book: RecipeBook, vanilla: DatapackSet) -> None:
    for log in sorted(vanilla.item_tag("oak_logs")):
        assert result(vanilla_book, [[N, N], [N, log]]) == ("minecraft:oak_planks", 4)
    assert result(vanilla_book, [[N, N, N], [N, N, N], ["minecraft:stripped_birch_wood", N, N]]) == (
        "minecraft:birch_planks",
        4,
    )
    # two logs are not a recipe
    assert vanilla_book.match([["minecraft:oak_log", "minecraft:oak_log"], [N, N]]) is None


def test_shapeless_book_any_positions(vanilla_book: RecipeBook) -> None:
    pa, le = "minecraft:paper", "minecraft:leather"
    for grid in ([[pa, pa], [pa, le]], [[le, N, N], [N, pa, N], [pa, N, pa]], [[pa, le], [pa, pa]]):
        assert result(vanilla_book, grid) == ("minecraft:book", 1)
    assert vanilla_book.match([[pa, pa], [le, le]]) is None  # wrong multiset
    assert vanilla_book.match([[pa, pa], [pa, N]]) is None


def test_two_by_two_vs_three_by_three(vanilla_book: RecipeBook) -> None:
    table = [[P, P], [P, P]]
    assert result(vanilla_book, table) == ("minecraft:crafting_table", 1)
    assert result(vanilla_book, [[N, N, N], [N, P, P], [N, P, P]]) == ("minecraft:crafting_table", 1)
    pick = [[P, P, P], [N, S, N], [N, S, N]]
    assert result(vanilla_book, pick) == ("minecraft:wooden_pickaxe", 1)
    c = "minecraft:cobblestone"
    assert result(vanilla_book, [[c, c, c], [c, N, c], [c, c, c]]) == ("minecraft:furnace", 1)
    assert result(vanilla_book, [["minecraft:coal", N], [S, N]]) == ("minecraft:torch", 4)
    assert vanilla_book.match([[N, N], [N, N]]) is None
    assert vanilla_book.match([["minecraft:dirt", N], [N, N]]) is None


def test_remaining_items(vanilla_book: RecipeBook) -> None:
    milk, su, eg, wh = "minecraft:milk_bucket", "minecraft:sugar", "minecraft:egg", "minecraft:wheat"
    r = vanilla_book.match([[milk, milk, milk], [su, eg, su], [wh, wh, wh]])
    assert r is not None and r.item == "minecraft:cake"
    assert r.remaining == (("minecraft:bucket",) * 3, (None,) * 3, (None,) * 3)
    r = vanilla_book.match([["minecraft:honey_bottle", N], [N, N]])
    assert r is not None and r.item == "minecraft:sugar" and r.remaining[0][0] == "minecraft:glass_bottle"


def test_bad_grid_shapes(vanilla_book: RecipeBook) -> None:
    with pytest.raises(DatapackError, match="same width"):
        vanilla_book.match([[P, P], [P]])
    with pytest.raises(DatapackError, match="1 to 3 rows"):
        vanilla_book.match([[P]] * 4)


def test_special_recipes_are_parsed_and_never_match(vanilla: DatapackSet, vanilla_book: RecipeBook) -> None:
    special = {r.type.split(":")[1] for r in vanilla.recipes.values() if isinstance(r, SpecialRecipe)}
    assert special <= SPECIAL_TYPES and len(special) == 13
    # map cloning would need an NBT'd filled map: a filled map + an empty map is no recipe here
    assert vanilla_book.match([["minecraft:filled_map", "minecraft:map"], [N, N]]) is None


def test_every_vanilla_shaped_pattern_yields_its_recipe(
    vanilla: DatapackSet, vanilla_book: RecipeBook
) -> None:
    """Lay out each shaped recipe's pattern with the first accepted item of every cell: the book must
    give that recipe's result (vanilla recipes never overlap, so the first match is that recipe)."""
    checked = 0
    for recipe in vanilla.recipes.values():
        if not isinstance(recipe, ShapedRecipe):
            continue
        grid = [[None] * 3 for _ in range(3)]
        for y in range(recipe.height):
            for x in range(recipe.width):
                ing = recipe.cells[x + y * recipe.width]
                grid[y][x] = min(ing.items) if ing.items else None
        r = vanilla_book.match(grid)
        assert r is not None and (r.item, r.count) == (recipe.result, recipe.count), recipe.id
        checked += 1
    assert checked == 556


def test_agrees_with_minecraft_data_recipes(vanilla_book: RecipeBook) -> None:
    """minecraft-data's recipe list (an independent extraction) gives the same result for every grid."""
    items = {
        i["id"]: f"minecraft:{i['name']}"
        for i in json.loads(mcdata_path(NODE_MODULES, "1.19.2", "items").read_text())
    }
    recipes = json.loads(mcdata_path(NODE_MODULES, "1.19.2", "recipes").read_text())
    checked = 0
    mismatches = []
    for variants in recipes.values():
        for v in variants:
            want = (items[v["result"]["id"]], v["result"]["count"])
            if "inShape" in v:
                rows = [[items[c] if c is not None else None for c in row] for row in v["inShape"]]
                grid = [[None] * 3 for _ in range(3)]
                for y, row in enumerate(rows):
                    for x, c in enumerate(row):
                        grid[y][x] = c
            else:
                cells = [items[c] for c in v["ingredients"]] + [None] * (9 - len(v["ingredients"]))
                grid = [cells[0:3], cells[3:6], cells[6:9]]
            got = result(vanilla_book, grid)
            checked += 1
            if got != want:
                mismatches.append((want, got, grid))
    assert checked > 1300
    assert mismatches == []


# ---------------------------------------------------------------------------------------------------
# Mirror packs (compiled from the shipped manifests by mirrorcraft.datapacks.compiler)
# ---------------------------------------------------------------------------------------------------


def test_m01_overrides_change_results(mirror: Callable[[str], DatapackSet], vanilla_book: RecipeBook) -> None:
    book = RecipeBook(mirror("M01"))
    sticks = [[P, N], [P, N]]
    assert result(vanilla_book, sticks) == ("minecraft:stick", 4)
    r = book.match(sticks)
    assert r is not None and (r.item, r.count) == ("minecraft:stick", 1)
    assert r.rules == ("M01.two_planks_yield_one_stick",)
    # "one log -> 2 planks" applies to the log itself...
    r = book.match([["minecraft:oak_log", N], [N, N]])
    assert r is not None and (r.recipe, r.count) == ("minecraft:oak_planks", 2)
    # ...while the other members of #oak_logs keep the vanilla 4, via the compiler's extra recipe
    r = book.match([["minecraft:stripped_oak_log", N], [N, N]])
    assert r is not None and (r.recipe, r.item, r.count) == (
        "mirrorcraft:oak_planks_unchanged_inputs",
        "minecraft:oak_planks",
        4,
    )
    assert r.rules == ("M01.log_yields_two_planks",)


def test_m02_book_recipe_yields_enchanting_table(mirror: Callable[[str], DatapackSet]) -> None:
    book = RecipeBook(mirror("M02"))
    pa, le = "minecraft:paper", "minecraft:leather"
    r = book.match([[le, pa], [pa, pa]])
    assert r is not None and (r.item, r.count) == ("minecraft:enchanting_table", 1)
    assert r.rules == ("M02.book_recipe_yields_enchanting_table",)


def test_recipe_override_in_a_hand_built_pack(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        {
            "data/minecraft/recipes/wooden_axe.json": {
                "type": "minecraft:crafting_shaped",
                "pattern": ["AA", "AB", " B"],
                "key": {"A": {"tag": "minecraft:planks"}, "B": {"item": "minecraft:stick"}},
                "result": {"item": "minecraft:diamond_axe", "count": 1},
                "mirrorcraft:rule": "M05.test_rule",
            }
        },
    )
    book = RecipeBook(DatapackSet.load([VANILLA, pack]))
    r = book.match([[N, P, P], [N, S, P], [N, S, N]])
    assert r is not None and r.item == "minecraft:diamond_axe" and r.rules == ("M05.test_rule",)
