"""The processes of the reachability graph: every way to obtain items, read from the parsed rules.

Why its own module: the graph (:mod:`mirrorcraft.datapacks.graph`) reasons over *processes* — a crafting
recipe, a cooking recipe, mining a block, killing a mob, enchanting — and their least fixpoint; building
them from a :class:`~mirrorcraft.rules.datapacks.DatapackSet` (its recipes, compiled loot tables and block
tags) is this module's job, the task-level analysis is the graph's.

Loot is evaluated statically over the compiled tables: conditions that depend on chance, block state,
location or the killer are treated as possibly true, ``match_tool`` as false (no silk touch or shears on the
route), ``survives_explosion`` as true (mined, not exploded); a drop is *certain* when every condition on its
way is certainly true.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, ConfigDict

from mirrorcraft import gamedata
from mirrorcraft.datapacks.compiler import DEVICE_RECIPE_TYPE
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.digging import MiningTags, harvest_tools
from mirrorcraft.rules.fuels import FuelTable
from mirrorcraft.rules.loot import LootTable
from mirrorcraft.rules.loot.conditions import AnyOf, Condition, Inverted, MatchTool, SurvivesExplosion
from mirrorcraft.rules.loot.entries import Composite, Entry, Singleton
from mirrorcraft.rules.loot.functions import SetCount
from mirrorcraft.rules.packs import Pack, namespaced, vanilla_pack
from mirrorcraft.rules.recipes import CookingRecipe, ShapedRecipe, ShapelessRecipe

__all__ = [
    "ENCHANT",
    "Process",
    "World",
    "fixpoint",
    "fuels",
    "harvest_tools_of",
    "load_packs",
    "mc",
    "needs_table",
    "recipe_processes",
    "recipe_inputs",
    "world_processes",
]

#: Pseudo-item: "an item has been enchanted at an enchanting table".
ENCHANT = "#action:enchant_item"
_TYPE_DEVICE = {v: k for k, v in DEVICE_RECIPE_TYPE.items()}


def mc(names: Iterable[str]) -> frozenset[str]:
    return frozenset(namespaced(n) for n in names)


@cache
def fuels() -> frozenset[str]:
    """Items a furnace burns (the fuel table of ``rules/data/fuels.json`` over the vanilla pack's tags)."""
    return FuelTable(DatapackSet.vanilla_only()).items()


# --------------------------------------------------------------------------------------------------
# Worlds (what can be mined/killed), from the shipped biome specs
# --------------------------------------------------------------------------------------------------


class World(BaseModel):
    """The blocks and mobs a biome's worlds offer."""

    model_config = ConfigDict(frozen=True)

    biome: str
    blocks: frozenset[str]
    mobs: frozenset[str]


# --------------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Process:
    """One way to obtain items.

    Attributes:
        kind: ``craft``, ``cook``, ``mine``, ``kill`` or ``enchant``.
        name: Recipe id, ``<device>:<input>``, block or mob id.
        inputs: All needed; each a set of alternatives.
        station: One of these must be obtainable (crafting table, furnace...), or empty.
        tools: One of these must be obtainable (harvest tools), or empty for a bare hand.
        outputs: Items this process can give.
        chance_only: Outputs that only a chance/condition-dependent loot branch gives.
        count: Yield count where known (cooking sidecars, recipe results), else 1.
        rules: Rule ids of the resources this process comes from (from the pack's rule index).
    """

    kind: str
    name: str
    inputs: tuple[frozenset[str], ...]
    station: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    needs_fuel: bool = False
    outputs: frozenset[str] = frozenset()
    chance_only: frozenset[str] = frozenset()
    count: int = 1
    rules: tuple[str, ...] = ()

    def ready(self, have: set[str], fuels: frozenset[str]) -> bool:
        """Whether everything this process needs is in ``have``."""
        if self.station and not (self.station & have):
            return False
        if self.tools and not (self.tools & have):
            return False
        if self.needs_fuel and not (fuels & have):
            return False
        return all(alt & have for alt in self.inputs)

    def describe(self) -> str:
        """One line: ``craft minecraft:stick (needs ...)``."""
        parts = [f"{self.kind} {self.name}"]
        if self.inputs:
            parts.append(
                "from "
                + " + ".join("|".join(sorted(a)[:3]) + ("|…" if len(a) > 3 else "") for a in self.inputs)
            )
        if self.station:
            parts.append("at " + "|".join(sorted(self.station)))
        if self.tools:
            parts.append("with " + "|".join(sorted(self.tools)[:2]) + ("|…" if len(self.tools) > 2 else ""))
        parts.append("→ " + ", ".join(sorted(self.outputs)))
        if self.rules:
            parts.append(f"[{', '.join(self.rules)}]")
        return " ".join(parts)


def load_packs(files: Mapping[str, bytes]) -> DatapackSet:
    """The vanilla pack overlaid with a rule pack's files, parsed by the engine's own loader."""
    if not files:
        return DatapackSet.vanilla_only()
    return DatapackSet.from_packs([vanilla_pack(), Pack.of_files(files)])


def recipe_inputs(r: ShapedRecipe) -> tuple[frozenset[str], ...]:
    return tuple(ing.items for _sym, ing in r.key)


def needs_table(r: ShapedRecipe | ShapelessRecipe) -> frozenset[str]:
    """A crafting table when the grid is larger than the player's 2x2."""
    big = r.width > 2 or r.height > 2 if isinstance(r, ShapedRecipe) else len(r.ingredients) > 4
    return mc(["crafting_table"]) if big else frozenset()


def recipe_processes(packs: DatapackSet) -> list[Process]:
    yields = {y.recipe: y.count for y in packs.cooking_yields.values()}
    out = []
    for rid, r in packs.recipes.items():
        rules = packs.rule_ids("recipes", rid)
        if isinstance(r, ShapedRecipe | ShapelessRecipe):
            inputs = (
                recipe_inputs(r) if isinstance(r, ShapedRecipe) else tuple(i.items for i in r.ingredients)
            )
            out.append(
                Process(
                    "craft",
                    rid,
                    tuple(dict.fromkeys(inputs)) if isinstance(r, ShapelessRecipe) else inputs,
                    needs_table(r),
                    outputs=frozenset([r.result]),
                    count=r.count,
                    rules=rules,
                )
            )
        elif isinstance(r, CookingRecipe) and r.type in _TYPE_DEVICE:
            device = _TYPE_DEVICE[r.type]
            for item in sorted(r.ingredient.items):
                out.append(
                    Process(
                        "cook",
                        f"{device}:{item}",
                        (frozenset([item]),),
                        frozenset([namespaced(device)]),
                        needs_fuel=True,
                        outputs=frozenset([r.result]),
                        count=yields.get(rid, 1),
                        rules=rules,
                    )
                )
    return out


# ---- static loot evaluation (over the compiled tables) -----------------------------------------------
_TRUE, _MAYBE, _FALSE = 2, 1, 0


def _cond(c: Condition) -> int:
    if isinstance(c, Inverted):
        return 2 - _cond(c.term)
    if isinstance(c, AnyOf):
        return max((_cond(t) for t in c.terms), default=_FALSE)
    if isinstance(c, MatchTool):
        return _FALSE  # no silk touch / shears on any route
    if isinstance(c, SurvivesExplosion):
        return _TRUE  # mined, not exploded
    return _MAYBE  # chance, block state, location, killer...: possible


def _conds(conditions: Iterable[Condition]) -> int:
    return min((_cond(c) for c in conditions), default=_TRUE)


def _entry_items(e: Entry, packs: DatapackSet, seen: tuple[str, ...], ctx: int) -> tuple[dict[str, int], int]:
    """(item → certainty ``_TRUE``/``_MAYBE`` the entry can give, condition status of the entry).

    ``ctx`` is the certainty of the enclosing pool/entries: an item is certain only when every condition
    on its way is certainly true.
    """
    status = _conds(e.conditions)
    if status == _FALSE:
        return {}, _FALSE
    here = min(ctx, status)
    items: dict[str, int] = {}

    def add(got: Mapping[str, int]) -> None:
        for k, v in got.items():
            items[k] = max(items.get(k, _FALSE), v)

    if isinstance(e, Singleton) and e.name is not None:
        if e.kind == "item":
            n = 1.0
            for f in e.functions:
                if isinstance(f, SetCount) and _conds(f.conditions) == _TRUE:
                    n = f.count.upper() + (n if f.add else 0)
            if n > 0:
                add({e.name: here})
        elif e.kind == "tag":
            add(dict.fromkeys(packs.tags["items"].get(e.name, frozenset()), here))
        elif e.kind == "loot_table" and e.name not in seen and e.name in packs.loot:
            add(_table_items(packs.loot.get(e.name), packs, (*seen, e.name), here))
    elif isinstance(e, Composite):
        for child in e.children:
            got, st = _entry_items(child, packs, seen, here)
            add(got)
            if e.kind == "alternatives" and st == _TRUE:
                break
            if e.kind == "sequence" and st == _FALSE:
                break
    return items, status


def _table_items(
    table: LootTable, packs: DatapackSet, seen: tuple[str, ...] = (), ctx: int = _TRUE
) -> dict[str, int]:
    """Item → certainty for everything a table can drop with a non-silk tool."""
    out: dict[str, int] = {}
    for pool in table.pools:
        status = min(ctx, _conds(pool.conditions))
        if status == _FALSE or pool.rolls.upper() <= 0:
            continue
        for e in pool.entries:
            for k, v in _entry_items(e, packs, seen, status)[0].items():
                out[k] = max(out.get(k, _FALSE), v)
    return out


def harvest_tools_of(packs: DatapackSet, block: str) -> frozenset[str]:
    """The tools that make ``block`` drop under the packs' tags (empty: a bare hand does)."""
    return harvest_tools(gamedata.block(block), MiningTags.of(packs)) or frozenset()


def _loot_process(packs: DatapackSet, kind: str, thing: str, folder: str, missing: str) -> Process:
    """Mining a block or killing a mob: whatever its loot table (``<ns>:<folder>/<path>``) can drop."""
    ns, name = thing.split(":", 1)
    location = f"{ns}:{folder}/{name}"
    if location not in packs.loot:
        raise DatapackError(missing)
    drops = _table_items(packs.loot.get(location), packs)
    return Process(
        kind,
        thing,
        (),
        tools=harvest_tools_of(packs, thing) if kind == "mine" else frozenset(),
        outputs=frozenset(drops),
        chance_only=frozenset(k for k, v in drops.items() if v != _TRUE),
        rules=packs.rule_ids("loot_tables", location),
    )


def world_processes(packs: DatapackSet, world: World) -> list[Process]:
    out = [
        _loot_process(
            packs,
            "mine",
            b,
            "blocks",
            f"no loot table for world block {b} (neither vanilla pack nor rule pack)",
        )
        for b in sorted(world.blocks)
    ]
    out += [
        _loot_process(packs, "kill", m, "entities", f"no loot table for mob {m}") for m in sorted(world.mobs)
    ]
    enchantable = frozenset(i.name for i in gamedata.all_items() if i.enchant_categories) | mc(["book"])
    out.append(
        Process(
            "enchant",
            "enchanting_table",
            (mc(["lapis_lazuli"]), enchantable),
            mc(["enchanting_table"]),
            outputs=frozenset([ENCHANT]),
        )
    )
    return out


def fixpoint(
    processes: list[Process], banned: frozenset[str] = frozenset()
) -> tuple[set[str], dict[str, Process]]:
    burns = fuels()
    have: set[str] = set()
    how: dict[str, Process] = {}
    # Phase 1 uses only certain outputs, phase 2 adds chance-only drops (saplings, sticks from leaves), so
    # derived routes prefer the dependable way while reachability still counts every possible drop.
    for allow_chance in (False, True):
        changed = True
        while changed:
            changed = False
            new: dict[str, Process] = {}
            for p in processes:
                if p.ready(have, burns):
                    for o in sorted(p.outputs):
                        if o in p.chance_only and not allow_chance:
                            continue
                        if o not in have and o not in banned and o not in new:
                            new[o] = p
            if new:
                have |= set(new)
                how.update(new)
                changed = True
    return have, how
