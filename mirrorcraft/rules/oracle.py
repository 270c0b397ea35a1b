"""Outcomes resolved twice: with the world's datapacks and with vanilla's, side by side.

Why here, below the server: the hidden evaluator's rule encounters (spec, "Behaviour after rule
encounters") need, for every dig, kill, craft and smelt, what the world's rules gave *and* what vanilla
rules would have given for the same action. That is a question about rules only, so it lives with them;
the server asks it while it plays, the harness reads the answers.

* **loot** (dig, kill): the real roll uses the server's ``random.Random``; the vanilla roll uses a
  *clone* of that generator taken just before (``setstate(getstate())``), so both rolls see the same
  random numbers and the world's RNG advances exactly as if only the real roll happened. A table that
  only one side defines yields nothing on the other side.
* **crafting**: the grid is matched by both recipe books; the rules touched are those of the actual
  recipe and, when a pack overrides it, of the recipe vanilla would have used.
* **cooking**: a take from an output slot is traced to the cooked units it holds
  (:class:`~mirrorcraft.rules.cooking.Take`); each unit's vanilla outcome is the vanilla device's result
  for its input item, one item (docs/smelting_yields.md point 4).

Resources carry rule ids through the Mirror pack's index (``data/mirrorcraft/rules/index.json``):
:meth:`DatapackSet.rule_ids`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.skills import ItemStack
from mirrorcraft.rules.cooking import Take, vanilla_cook_result
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.loot import LootContext
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.rules.recipe_book import RecipeBook
from mirrorcraft.rules.recipes import CraftResult
from mirrorcraft.rules.stack import Stack

__all__ = ["Outcome", "OutcomeOracle", "merge_stacks", "same_stacks"]

#: The recipe type the ``furnace_smelt`` loot function cooks with (vanilla ``SmeltItemFunction``).
_LOOT_SMELT_TYPE = namespaced("smelting")


def merge_stacks(stacks: Iterable[tuple[str, int]]) -> list[ItemStack]:
    total: dict[str, int] = {}
    for item, count in stacks:
        if count > 0:
            total[item] = total.get(item, 0) + count
    return [ItemStack(item=k, count=v) for k, v in sorted(total.items())]


def same_stacks(a: Sequence[ItemStack], b: Sequence[ItemStack]) -> bool:
    return [(s.item, s.count) for s in merge_stacks((s.item, s.count) for s in a)] == [
        (s.item, s.count) for s in merge_stacks((s.item, s.count) for s in b)
    ]


class Outcome(BaseModel):
    """One action's outcome resolved both ways.

    Attributes:
        actual: What the world's rules yielded.
        vanilla: What vanilla rules would have yielded for the same action.
        rules: Rule ids of the resources the action touched (may be empty).
        resources: The resources touched (``recipes/<id>``, ``loot_tables/<id>``...), for the log.
    """

    model_config = ConfigDict(frozen=True)

    actual: list[ItemStack]
    vanilla: list[ItemStack]
    rules: list[str] = Field(default_factory=list)
    resources: list[str] = Field(default_factory=list)


class OutcomeOracle:
    """Resolves outcomes with the world's packs and with vanilla's, side by side.

    Args:
        packs: The world's packs.
        vanilla: The vanilla-only set (default :meth:`DatapackSet.vanilla_only`).
    """

    def __init__(self, packs: DatapackSet, vanilla: DatapackSet | None = None) -> None:
        self.packs = packs
        self.vanilla = vanilla or DatapackSet.vanilla_only()
        self.book = RecipeBook(packs)
        self.vanilla_book = RecipeBook(self.vanilla) if self.vanilla is not packs else self.book

    # -- crafting -----------------------------------------------------------------------------------
    def craft(
        self, grid: Sequence[Sequence[str | None]], times: int = 1
    ) -> tuple[CraftResult | None, Outcome]:
        """Match ``grid`` both ways; the outcome of taking the result ``times`` times."""
        actual = self.book.match(grid)
        vanilla = self.vanilla_book.match(grid)
        rules: list[str] = []
        resources: list[str] = []
        for r in (actual, vanilla):
            if r is not None:
                resources.append(f"recipes/{r.recipe}")
                for rid in self.packs.rule_ids("recipes", r.recipe):
                    if rid not in rules:
                        rules.append(rid)
        out = Outcome(
            actual=merge_stacks([(actual.item, actual.count * times)] if actual else []),
            vanilla=merge_stacks([(vanilla.item, vanilla.count * times)] if vanilla else []),
            rules=rules,
            resources=list(dict.fromkeys(resources)),
        )
        return actual, out

    # -- loot ---------------------------------------------------------------------------------------
    def loot(self, location: str, ctx: LootContext, rng: random.Random) -> tuple[list[Stack], Outcome]:
        """Roll loot table ``location`` with the world's packs (advancing ``rng``) and vanilla's (a clone).

        Returns:
            The actual stacks (to spawn) and the outcome record.
        """
        clone = random.Random()
        clone.setstate(rng.getstate())
        actual = self._roll(self.packs, self.book, location, ctx, rng)
        vanilla = self._roll(self.vanilla, self.vanilla_book, location, ctx, clone)
        loc = namespaced(location)
        out = Outcome(
            actual=merge_stacks((s.item, s.count) for s in actual),
            vanilla=merge_stacks((s.item, s.count) for s in vanilla),
            rules=list(self.packs.rule_ids("loot_tables", loc)),
            resources=[f"loot_tables/{loc}"],
        )
        return actual, out

    @staticmethod
    def _roll(
        packs: DatapackSet, book: RecipeBook, location: str, ctx: LootContext, rng: random.Random
    ) -> list[Stack]:
        if location not in packs.loot:
            return []

        def smelt(item: str) -> str | None:
            r = book.cooking_recipe(_LOOT_SMELT_TYPE, item)
            return r.result if r else None

        return packs.loot.roll(location, ctx, rng, packs.tag_resolver(), smelt)

    # -- cooking ------------------------------------------------------------------------------------
    def cook_take(self, device: str, take: Take) -> Outcome:
        """The outcome of a take from a cooking device's output slot."""
        rules: list[str] = []
        vanilla: list[tuple[str, int]] = []
        resources: list[str] = []
        for unit in take.units:
            for rid in unit.rules:
                if rid not in rules:
                    rules.append(rid)
            resources.append(f"recipes/{unit.recipe}")
            v = vanilla_cook_result(self.vanilla_book, device, unit.input)
            if v is not None:
                vanilla.append(v)
        return Outcome(
            actual=merge_stacks([(take.item, take.count)]),
            vanilla=merge_stacks(vanilla),
            rules=rules,
            resources=list(dict.fromkeys(resources)),
        )
