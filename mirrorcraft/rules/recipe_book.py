"""The recipe book: which of the loaded recipes a crafting grid or a cooking input matches, and what stays.

Why apart from :mod:`~mirrorcraft.rules.recipes`: the book looks recipes up in a
:class:`~mirrorcraft.rules.datapacks.DatapackSet` (and their rule ids in its rule index), while the set
imports the recipe parser; keeping the book above the set keeps those imports one way.

* **Choice between several matching recipes**: the first match in **recipe-id order** wins (see the
  :mod:`~mirrorcraft.rules.recipes` docstring for why that equals vanilla in effect).
* **Remaining items**: every consumed slot leaves its item's crafting remainder (``milk_bucket`` →
  ``bucket``...): :func:`~mirrorcraft.rules.fuels.crafting_remainder`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.fuels import crafting_remainder
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.rules.recipes import (
    CookingRecipe,
    CraftResult,
    ShapedRecipe,
    ShapelessRecipe,
    SimpleRecipe,
    SmithingRecipe,
)

__all__ = ["RecipeBook"]


def _accepted(recipe: ShapedRecipe | ShapelessRecipe) -> frozenset[str]:
    cells = recipe.cells if isinstance(recipe, ShapedRecipe) else recipe.ingredients
    return frozenset().union(*(c.items for c in cells))


class RecipeBook:
    """The crafting/cooking lookups over a :class:`DatapackSet` (build once per loaded set).

    Args:
        packs: The loaded packs.
    """

    def __init__(self, packs: DatapackSet) -> None:
        self.packs = packs
        crafting = [r for r in packs.recipes.values() if isinstance(r, ShapedRecipe | ShapelessRecipe)]
        # Pre-filter: a recipe can only match grids whose items it accepts somewhere.
        self._crafting = [(r, _accepted(r)) for r in crafting]
        self._cooking_by_type: dict[str, tuple[CookingRecipe, ...]] = {}

    def match(self, grid: Sequence[Sequence[str | None]]) -> CraftResult | None:
        """What a crafting grid yields, or ``None``.

        Args:
            grid: Rows of item ids (``None`` = empty), row 0 the top row: 2x2 (player) or 3x3 (table).
                Bare names get ``minecraft:``.

        Returns:
            The first matching recipe in recipe-id order (see module docstring), or ``None``.

        Raises:
            DatapackError: The grid is not rectangular or larger than 3x3.
        """
        norm = _normalise_grid(grid)
        present = {c for row in norm for c in row if c is not None}
        if not present:
            return None
        for recipe, accepted in self._crafting:
            if not present <= accepted:
                continue
            if recipe.matches(norm):
                remaining = tuple(
                    tuple(crafting_remainder(c) if c is not None else None for c in row) for row in norm
                )
                return CraftResult(
                    recipe=recipe.id,
                    item=recipe.result,
                    count=recipe.count,
                    remaining=remaining,
                    rules=self.packs.rule_ids("recipes", recipe.id),
                )
        return None

    def cooking_recipe(self, recipe_type: str, item: str | None) -> CookingRecipe | None:
        """The first cooking recipe of ``recipe_type`` (e.g. ``<ns>:smelting``) accepting ``item``."""
        if item is None:
            return None
        for r in self._cooking(recipe_type):
            if r.ingredient.test(item):
                return r
        return None

    def _cooking(self, recipe_type: str) -> tuple[CookingRecipe, ...]:
        found = self._cooking_by_type.get(recipe_type)
        if found is None:
            found = tuple(
                r
                for r in self.packs.recipes.values()
                if isinstance(r, CookingRecipe) and r.type == recipe_type
            )
            self._cooking_by_type[recipe_type] = found
        return found

    def stonecutting_results(self, item: str) -> list[SimpleRecipe]:
        """Stonecutter options for ``item`` in recipe-id order."""
        return [
            r for r in self.packs.recipes.values() if isinstance(r, SimpleRecipe) and r.ingredient.test(item)
        ]

    def smithing_result(self, base: str, addition: str) -> SmithingRecipe | None:
        """The smithing recipe for ``base`` + ``addition``, or ``None``."""
        for r in self.packs.recipes.values():
            if isinstance(r, SmithingRecipe) and r.base.test(base) and r.addition.test(addition):
                return r
        return None


def _normalise_grid(grid: Sequence[Sequence[str | None]]) -> list[list[str | None]]:
    if not grid or not 1 <= len(grid) <= 3:
        raise DatapackError(f"crafting grid must have 1 to 3 rows, got {len(grid)}")
    width = len(grid[0])
    if not 1 <= width <= 3 or any(len(row) != width for row in grid):
        raise DatapackError(f"crafting grid rows must have the same width (1 to 3): {grid!r}")
    out: list[list[str | None]] = []
    for row in grid:
        out.append([None if c in (None, "") else namespaced(c) for c in row])
    return out
