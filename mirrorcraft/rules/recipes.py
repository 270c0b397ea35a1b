"""Recipes: parsing every 1.19.2 recipe type and matching crafting grids exactly as vanilla does.

Why: a Mirror pack changes what a grid yields by overriding recipe JSON (``recipe_result`` rules), so the
embedded server must not know any recipe itself; it matches the grid against whatever the loaded packs
define. Semantics follow vanilla 1.19.2 (``ShapedRecipe``, ``ShapelessRecipe``, ``Ingredient``,
``RecipeManager``; the Minecraft wiki page "Recipe"):

* **Shaped**: the pattern (1-3 rows of equal width, at most 3 columns, ``' '`` = empty) is trimmed of
  empty border rows/columns when loaded (``ShapedRecipe.shrink``), then tried at every offset of the grid,
  mirrored left-right and as written; every grid cell outside the pattern must be empty. A 2x2 player grid
  therefore fits only patterns at most 2x2.
* **Shapeless**: the grid's non-empty stacks must be matched one-to-one to the ingredients (a perfect
  bipartite matching, as ``StackedContents``/``RecipeMatcher`` find it); any positions.
* **Ingredients**: ``{"item": id}``, ``{"tag": id}`` or a list of those (any of them); tags are resolved
  with the loaded packs' item tags when the recipe is loaded.
* **Choice between several matching recipes**: vanilla's ``RecipeManager.getRecipeFor`` returns the first
  match in the iteration order of a ``HashMap`` keyed by recipe id, i.e. an order fixed by id hashes,
  not by anything meaningful. Here the first match in **recipe-id order** wins: deterministic and, for the
  vanilla recipes (which never overlap) and the Mirror compiler's packs (which split overlapping
  ingredients, docs/datapacks.md), identical in effect.

This module parses recipes and matches one recipe against a grid; choosing among the loaded recipes (and the
remaining items a craft leaves) is :class:`~mirrorcraft.rules.recipe_book.RecipeBook`'s, above the datapack
set, so the set can import its parsers one way.

Partial by design: the ``crafting_special_*`` recipes (their results are computed by code from NBT:
armour dye, banner/shield patterns, book/map cloning, fireworks, repair, shulker colouring, suspicious
stew, tipped arrows) are parsed but never match (:data:`SPECIAL_TYPES`); stonecutting and smithing are
parsed and validated, and matched only through ``RecipeBook.stonecutting_results`` /
``RecipeBook.smithing_result``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.rules.devices import COOKING_TIMES
from mirrorcraft.rules.packs import DEFAULT_NAMESPACE, JsonAt
from mirrorcraft.rules.sidecars import parse_rule_field

__all__ = [
    "COOKING_TYPES",
    "SPECIAL_TYPES",
    "CookingRecipe",
    "CraftResult",
    "Ingredient",
    "Recipe",
    "ShapedRecipe",
    "ShapelessRecipe",
    "SimpleRecipe",
    "SmithingRecipe",
    "SpecialRecipe",
    "parse_ingredient",
    "parse_recipe",
]

_NS = DEFAULT_NAMESPACE

#: Cooking recipe types (path of the type id) and vanilla's default ``cookingtime`` for each
#: (``SimpleCookingSerializer``; the cited table is ``data/cooking.json``).
COOKING_TYPES = {t.partition(":")[2]: ticks for t, ticks in COOKING_TIMES.items()}
#: Recipe types whose result is computed by game code from NBT; parsed, never matched (see module doc).
SPECIAL_TYPES = frozenset(
    {
        "crafting_special_armordye",
        "crafting_special_bannerduplicate",
        "crafting_special_bookcloning",
        "crafting_special_firework_rocket",
        "crafting_special_firework_star",
        "crafting_special_firework_star_fade",
        "crafting_special_mapcloning",
        "crafting_special_mapextending",
        "crafting_special_repairitem",
        "crafting_special_shielddecoration",
        "crafting_special_shulkerboxcoloring",
        "crafting_special_suspiciousstew",
        "crafting_special_tippedarrow",
    }
)
_CRAFTING_TYPES = ("crafting_shaped", "crafting_shapeless")


# --------------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ingredient:
    """The items one recipe slot accepts (tags already resolved).

    Attributes:
        items: Accepted item ids; empty means the ingredient accepts only an empty slot (vanilla's
            ``Ingredient.EMPTY``, or an empty tag).
        source: The ingredient's JSON, for display and errors.
    """

    items: frozenset[str]
    source: Any = None

    def test(self, item: str | None) -> bool:
        """Vanilla ``Ingredient.test``: an empty ingredient matches only an empty slot."""
        if not self.items:
            return item is None
        return item is not None and item in self.items


_EMPTY = Ingredient(frozenset())


@dataclass(frozen=True)
class _RecipeBase:
    id: str
    type: str
    group: str
    rules: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class ShapedRecipe(_RecipeBase):
    """A shaped crafting recipe with its trimmed pattern (``cells`` row-major, ``width`` x ``height``) and
    its key (``(symbol, ingredient)`` pairs in symbol order: one ingredient per distinct symbol)."""

    width: int
    height: int
    cells: tuple[Ingredient, ...]
    result: str
    count: int
    key: tuple[tuple[str, Ingredient], ...] = ()

    def matches(self, grid: Sequence[Sequence[str | None]]) -> bool:
        """Vanilla ``ShapedRecipe.matches`` over a grid (rows, row 0 on top)."""
        gh, gw = len(grid), len(grid[0]) if grid else 0
        for x0 in range(gw - self.width + 1):
            for y0 in range(gh - self.height + 1):
                if self._at(grid, x0, y0, True) or self._at(grid, x0, y0, False):
                    return True
        return False

    def _at(self, grid: Sequence[Sequence[str | None]], x0: int, y0: int, mirrored: bool) -> bool:
        for y, row in enumerate(grid):
            for x, item in enumerate(row):
                k, r = x - x0, y - y0
                ing = _EMPTY
                if 0 <= k < self.width and 0 <= r < self.height:
                    col = self.width - k - 1 if mirrored else k
                    ing = self.cells[col + r * self.width]
                if not ing.test(item):
                    return False
        return True


@dataclass(frozen=True)
class ShapelessRecipe(_RecipeBase):
    """A shapeless crafting recipe: a multiset of ingredients."""

    ingredients: tuple[Ingredient, ...]
    result: str
    count: int

    def matches(self, grid: Sequence[Sequence[str | None]]) -> bool:
        """Every non-empty cell matched to a distinct ingredient and every ingredient used."""
        items = [c for row in grid for c in row if c is not None]
        if len(items) != len(self.ingredients):
            return False
        # Kuhn's augmenting paths; at most 9 x 9.
        owner: list[int | None] = [None] * len(self.ingredients)

        def place(i: int, seen: set[int]) -> bool:
            for j, ing in enumerate(self.ingredients):
                if j in seen or items[i] not in ing.items:
                    continue
                seen.add(j)
                if owner[j] is None or place(owner[j], seen):  # type: ignore[arg-type]
                    owner[j] = i
                    return True
            return False

        return all(place(i, set()) for i in range(len(items)))


@dataclass(frozen=True)
class CookingRecipe(_RecipeBase):
    """A smelting/blasting/smoking/campfire recipe (1.19: ``result`` is a bare item id, one item)."""

    ingredient: Ingredient
    result: str
    experience: float
    cookingtime: int


@dataclass(frozen=True)
class SimpleRecipe(_RecipeBase):
    """A stonecutting recipe: one ingredient → ``count`` x ``result``."""

    ingredient: Ingredient
    result: str
    count: int


@dataclass(frozen=True)
class SmithingRecipe(_RecipeBase):
    """A smithing recipe (``base`` + ``addition`` → ``result``, the base's NBT kept)."""

    base: Ingredient
    addition: Ingredient
    result: str


@dataclass(frozen=True)
class SpecialRecipe(_RecipeBase):
    """A ``crafting_special_*`` recipe: present in the packs, result computed by code (never matched)."""


Recipe = ShapedRecipe | ShapelessRecipe | CookingRecipe | SimpleRecipe | SmithingRecipe | SpecialRecipe


@dataclass(frozen=True)
class CraftResult:
    """What a crafting grid yields.

    Attributes:
        recipe: The matched recipe id.
        item / count: The result stack.
        remaining: Per grid cell (same shape as the grid), what stays after one craft: the crafting
            remainder of a consumed item (e.g. a bucket), else ``None``. Every non-empty cell loses one item.
        rules: Rule ids of the matched recipe (from the pack's rule index), empty for vanilla recipes.
    """

    recipe: str
    item: str
    count: int
    remaining: tuple[tuple[str | None, ...], ...]
    rules: tuple[str, ...] = field(default=())


# --------------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------------


def _item(value: Any, at: JsonAt) -> str:
    return at.known(value, "item")


def parse_ingredient(value: Any, at: JsonAt, tags: Mapping[str, frozenset[str]]) -> Ingredient:
    """Read an ingredient (``{"item"}``, ``{"tag"}`` or a list of those) with ``tags`` resolving item tags.

    Raises:
        JsonError: A malformed ingredient, an unknown item or tag.
    """
    if isinstance(value, list):
        if not value:
            raise at.fail("an ingredient list must not be empty")
        items: set[str] = set()
        for i, v in enumerate(value):
            if isinstance(v, list):
                raise at.idx(i).fail("nested ingredient lists are not allowed")
            items |= parse_ingredient(v, at.idx(i), tags).items
        return Ingredient(frozenset(items), value)
    obj = at.obj(value)
    if "item" in obj and "tag" in obj:
        raise at.fail("an ingredient is either 'item' or 'tag', not both")
    if "item" in obj:
        item = _item(obj["item"], at.key("item"))
        if item == f"{_NS}:air":
            raise at.key("item").fail("air is not an ingredient")
        return Ingredient(frozenset({item}), value)
    if "tag" in obj:
        return Ingredient(tags[at.key("tag").tag_in(obj["tag"], tags)], value)
    raise at.fail("an ingredient needs 'item' or 'tag'")


def _stack_result(obj: Mapping[str, Any], at: JsonAt) -> tuple[str, int]:
    r_at = at.key("result")
    raw = r_at.obj(at.required(obj, "result"))
    item = _item(r_at.required(raw, "item"), r_at.key("item"))
    count = r_at.key("count").int(raw.get("count", 1))
    if not 1 <= count <= 64:
        raise r_at.key("count").fail(f"count {count} is outside 1..64")
    return item, count


def parse_recipe(
    location: str, data: Any, source: str | JsonAt, item_tags: Mapping[str, frozenset[str]]
) -> Recipe:
    """Compile one recipe file.

    Args:
        location: The recipe id (``<ns>:<path>``).
        data: The parsed JSON.
        source: The file, for error messages (or a :class:`JsonAt` at its root, e.g. a collecting one).
        item_tags: Resolved item tags (tag id → items) of the loaded packs.

    Returns:
        The compiled recipe.

    Raises:
        JsonError: Unknown type, unknown item or tag, malformed pattern/key/ingredients/result; the
            message names the file and the JSON field.
    """
    at = source if isinstance(source, JsonAt) else JsonAt(source)
    obj = at.obj(data)
    rtype = at.key("type").res(at.required(obj, "type"))
    ns, _, kind = rtype.partition(":")
    group = obj.get("group", "")
    if not isinstance(group, str):
        raise at.key("group").fail(f"expected a string, got {group!r}")
    base = {
        "id": location,
        "type": rtype,
        "group": group,
        "rules": parse_rule_field(obj, at),
        "source": at.source,
    }
    if ns != _NS:
        raise at.key("type").fail(f"unknown recipe type {rtype!r}")
    if kind == "crafting_shaped":
        return _shaped(obj, at, item_tags, base)
    if kind == "crafting_shapeless":
        i_at = at.key("ingredients")
        raw = i_at.list(at.required(obj, "ingredients"))
        if not raw:
            raise i_at.fail("no ingredients for a shapeless recipe")
        if len(raw) > 9:
            raise i_at.fail(f"too many ingredients ({len(raw)}; at most 9)")
        ings = tuple(parse_ingredient(v, i_at.idx(i), item_tags) for i, v in enumerate(raw))
        item, count = _stack_result(obj, at)
        return ShapelessRecipe(**base, ingredients=ings, result=item, count=count)
    if kind in COOKING_TYPES:
        ing = parse_ingredient(at.required(obj, "ingredient"), at.key("ingredient"), item_tags)
        result = at.required(obj, "result")
        if not isinstance(result, str):
            raise at.key("result").fail(
                "a 1.19 cooking recipe's result is a bare item id (no object, no count)"
            )
        cookingtime = at.key("cookingtime").int(obj.get("cookingtime", COOKING_TYPES[kind]))
        # AbstractFurnaceBlockEntity finishes when progress == cookingtime, which never holds below 1.
        at.key("cookingtime").check(cookingtime >= 1, f"cookingtime must be positive, got {cookingtime}")
        return CookingRecipe(
            **base,
            ingredient=ing,
            result=_item(result, at.key("result")),
            experience=at.key("experience").num(obj.get("experience", 0.0)),
            cookingtime=cookingtime,
        )
    if kind == "stonecutting":
        ing = parse_ingredient(at.required(obj, "ingredient"), at.key("ingredient"), item_tags)
        result = _item(at.required(obj, "result"), at.key("result"))
        count = at.key("count").int(at.required(obj, "count"))
        return SimpleRecipe(**base, ingredient=ing, result=result, count=count)
    if kind == "smithing":
        return SmithingRecipe(
            **base,
            base=parse_ingredient(at.required(obj, "base"), at.key("base"), item_tags),
            addition=parse_ingredient(at.required(obj, "addition"), at.key("addition"), item_tags),
            result=_item(
                at.key("result").required(at.key("result").obj(obj.get("result")), "item"),
                at.key("result").key("item"),
            ),
        )
    if kind in SPECIAL_TYPES:
        return SpecialRecipe(**base)
    raise at.key("type").fail(f"unknown recipe type {rtype!r}")


def _shaped(
    obj: Mapping[str, Any], at: JsonAt, tags: Mapping[str, frozenset[str]], base: dict[str, Any]
) -> ShapedRecipe:
    p_at = at.key("pattern")
    pattern = [
        p_at.idx(i).str(r) if r != "" else "" for i, r in enumerate(p_at.list(at.required(obj, "pattern")))
    ]
    if not 1 <= len(pattern) <= 3:
        raise p_at.fail(f"a pattern has 1 to 3 rows, got {len(pattern)}")
    width = len(pattern[0])
    if not 1 <= width <= 3 or any(len(r) != width for r in pattern):
        raise p_at.fail("pattern rows must all have the same width, 1 to 3")
    k_at = at.key("key")
    key_raw = k_at.obj(at.required(obj, "key"))
    key: dict[str, Ingredient] = {}
    for sym, ing in key_raw.items():
        if len(sym) != 1:
            raise k_at.key(sym).fail("a key symbol is exactly one character")
        if sym == " ":
            raise k_at.key(sym).fail("' ' is reserved for an empty cell")
        key[sym] = parse_ingredient(ing, k_at.key(sym), tags)
    used = set("".join(pattern)) - {" "}
    missing = used - set(key)
    if missing:
        raise p_at.fail(f"pattern uses symbols the key does not define: {sorted(missing)}")
    unused = set(key) - used
    if unused:
        raise k_at.fail(f"key defines symbols the pattern does not use: {sorted(unused)}")
    # ShapedRecipe.shrink: drop empty border rows and columns.
    rows = [i for i, r in enumerate(pattern) if r.strip(" ")]
    if not rows:
        raise p_at.fail("the pattern is empty")
    cols = [j for j in range(width) if any(r[j] != " " for r in pattern)]
    pattern = [pattern[i][cols[0] : cols[-1] + 1] for i in range(rows[0], rows[-1] + 1)]
    cells = tuple(_EMPTY if c == " " else key[c] for r in pattern for c in r)
    item, count = _stack_result(obj, at)
    return ShapedRecipe(
        **base,
        width=len(pattern[0]),
        height=len(pattern),
        cells=cells,
        result=item,
        count=count,
        key=tuple(sorted(key.items())),
    )
