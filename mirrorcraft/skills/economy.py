"""The yields a scripted route plans with in each world kind, read from the suite manifests.

Why its own module: the routes (:mod:`mirrorcraft.skills.routes`) are a test harness that may know the suite
(player knowledge), and the one place a suite's yields are written is its manifest
(``mirrorcraft/datapacks/manifests``, read through :mod:`mirrorcraft.contracts`). :func:`derive_economy` turns
a manifest into the :class:`Economy` a route plans with; :func:`economy` caches it per world kind.
``tests/skills/test_skills_units.py`` checks every field against the manifests' rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from mirrorcraft.contracts.ids import SUITE_IDS
from mirrorcraft.contracts.rules import (
    BlockDropAddRule,
    BlockDropReplaceRule,
    CookingOutputRule,
    RecipeResultRule,
    SuiteManifest,
    load_suite,
)
from mirrorcraft.errors import ContractError

__all__ = ["M", "WORLD_KINDS", "Economy", "derive_economy", "economy"]

M = "minecraft:"
#: The world kinds a route runs in: Vanilla and every suite.
WORLD_KINDS: tuple[str, ...] = ("vanilla", *SUITE_IDS)


@dataclass(frozen=True)
class Economy:
    """The yields a route relies on in one world kind (module docstring)."""

    planks_per_log: int = 4
    log_drops: dict[str, int] | None = None  # None: the log itself; else {item suffix or id: count}
    sticks_per_craft: int = 4
    iron_ore_drop: str = "raw_iron"
    iron_ore_extra_ingot: bool = False
    raw_iron_smelts_to: tuple[str, int] = ("iron_ingot", 1)
    coal_ore_drop: str = "coal"
    diamond_ore_drop: tuple[str, int] = ("diamond", 1)
    diamond_ore_adds: dict[str, int] = field(default_factory=dict)
    lapis_ore_drop: str = "lapis_lazuli"
    lapis_ore_adds: dict[str, int] = field(default_factory=dict)
    furnace_recipe_gives: str = "furnace"
    iron_pickaxe_via_hoe: bool = False
    diamond_pickaxe_recipe_gives: str = "diamond_pickaxe"
    diamond_pickaxe_via_hoe: bool = False
    cane_recipe_gives: str = "paper"
    paper_per_cane_craft: int = 3
    book_recipe_gives: str = "book"
    leather_from_cane: bool = False


def _bare(item: str) -> str:
    return item.removeprefix(M)


def derive_economy(manifest: SuiteManifest | None) -> Economy:
    """The :class:`Economy` of a world kind, read from its suite manifest (``None``: Vanilla).

    The route's *plan* is player knowledge: what a crafted log, a mined ore or a smelt yields in this world
    kind. The manifest's rules are the only place those yields are written, so they are read here (through
    :mod:`mirrorcraft.contracts`, never from the server or the packs): every field below is the change of one
    recipe, cooking input or block drop, or the vanilla default when the suite leaves it alone.
    """
    if manifest is None:
        return Economy()
    recipes: dict[str, tuple[str, int]] = {}
    cooking: dict[tuple[str, str], tuple[str, int]] = {}
    replace: dict[str, dict[str, int]] = {}
    added: dict[str, dict[str, int]] = {}
    for rule in manifest.rules:
        if isinstance(rule, RecipeResultRule):
            recipes.update({ch.recipe: (ch.result.item, ch.result.count) for ch in rule.changes})
        elif isinstance(rule, CookingOutputRule):
            cooking.update({(ch.device, ch.input): (ch.result.item, ch.result.count) for ch in rule.changes})
        elif isinstance(rule, BlockDropReplaceRule | BlockDropAddRule):
            into = replace if isinstance(rule, BlockDropReplaceRule) else added
            for ch in rule.changes:
                into.setdefault(ch.block, {}).update({d.item: d.min for d in ch.drops})
    kw: dict[str, Any] = {}

    def recipe(name: str) -> tuple[str, int] | None:
        return recipes.get(M + name)

    if planks := recipe("oak_planks"):
        kw["planks_per_log"] = planks[1]
    if sticks := recipe("stick"):
        kw["sticks_per_craft"] = sticks[1]
    if log := replace.get(M + "oak_log"):
        kw["log_drops"] = {_bare(item).replace("oak_", ""): n for item, n in log.items()}

    def drop(block: str) -> tuple[str, int] | None:
        first = next(iter(replace.get(M + block, {}).items()), None)
        return (_bare(first[0]), first[1]) if first else None

    def adds(block: str) -> dict[str, int]:
        rest = list(replace.get(M + block, {}).items())[1:] + list(added.get(M + block, {}).items())
        return {_bare(item): n for item, n in rest}

    if iron := drop("iron_ore"):
        kw["iron_ore_drop"] = iron[0]
    kw["iron_ore_extra_ingot"] = "iron_ingot" in adds("iron_ore")
    if smelt := cooking.get(("furnace", M + "raw_iron")):
        kw["raw_iron_smelts_to"] = (_bare(smelt[0]), smelt[1])
    if coal := drop("coal_ore"):
        kw["coal_ore_drop"] = coal[0]
    if diamond := drop("diamond_ore"):
        kw["diamond_ore_drop"] = diamond
    kw["diamond_ore_adds"] = adds("diamond_ore")
    if lapis := drop("lapis_ore"):
        kw["lapis_ore_drop"] = lapis[0]
    kw["lapis_ore_adds"] = adds("lapis_ore")
    if furnace := recipe("furnace"):
        kw["furnace_recipe_gives"] = _bare(furnace[0])
    iron_pick = recipe("iron_pickaxe")
    kw["iron_pickaxe_via_hoe"] = bool(
        iron_pick
        and _bare(iron_pick[0]) == "iron_hoe"
        and _bare(cooking.get(("furnace", M + "iron_hoe"), ("", 0))[0]) == "iron_pickaxe"
    )
    diamond_pick = recipe("diamond_pickaxe")
    via_hoe = bool(
        diamond_pick
        and _bare(diamond_pick[0]) == "diamond_hoe"
        and _bare(cooking.get(("blast_furnace", M + "diamond_hoe"), ("", 0))[0]) == "diamond_pickaxe"
    )
    kw["diamond_pickaxe_via_hoe"] = via_hoe
    if diamond_pick and not via_hoe:
        kw["diamond_pickaxe_recipe_gives"] = _bare(diamond_pick[0])
    if paper := recipe("paper"):
        kw["cane_recipe_gives"], kw["paper_per_cane_craft"] = _bare(paper[0]), paper[1]
    if book := recipe("book"):
        kw["book_recipe_gives"] = _bare(book[0])
    kw["leather_from_cane"] = "leather" in adds("sugar_cane")
    return Economy(**kw)


@cache
def economy(kind: str) -> Economy:
    """The :class:`Economy` of world kind ``kind`` (``vanilla`` or a suite id), from its manifest.

    Raises:
        ContractError: Unknown world kind.
    """
    if kind not in WORLD_KINDS:
        raise ContractError(f"unknown world kind {kind!r}; expected one of {list(WORLD_KINDS)}")
    return derive_economy(None if kind == "vanilla" else load_suite(kind))
