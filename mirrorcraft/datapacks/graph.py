"""Static dependency/reachability graph of the three task routes under a rule suite.

Why: the spec's integrity controls require, before any evaluation, "an executable route for every task
under every suite", and a valid intervention must touch a dependency of at least one task and keep a
complete route to every objective. This module answers that from the data alone: the vanilla pack
(:data:`mirrorcraft.gamedata.VANILLA_PACK_DIR`) overlaid with the suite's *compiled* pack
(:func:`mirrorcraft.datapacks.compiler.build_suite_files`), so what is analysed is exactly what a server
loads, including substitutions such as M05's hoe → pickaxe smelting.

The graph reasons in **item sets** (no quantities): a *process* is a crafting recipe (needs one item of
each ingredient, and a crafting table when the grid is larger than 2x2), a smelting/blasting recipe
(input, the device, any fuel; the yield count of a ``cooking_yields`` sidecar is recorded), mining a
block of the biome's world (the drops its loot table can give with a non-silk-touch tool; the block's
harvest tools from :mod:`mirrorcraft.gamedata`), killing a mob (its loot), or enchanting (lapis, an
enchantable item, an enchanting table). Starting from an empty inventory, an item becomes obtainable
when some process producing it has all inputs, its station, its tool and (for cooking) a fuel
obtainable; the least fixpoint is the obtainable set. A milestone (the ``minecraft:story/*``
advancement) is reachable when its criterion is satisfiable (``inventory_changed``: one listed item is
obtainable; ``enchanted_item``: enchanting is possible). A task is reachable when every milestone is.

Per rule the analysis reports *relevance* (the rule touches a dependency of the task: a recipe, cooking
input, block or mob on the task's canonical route — :data:`TASK_DEPENDENCIES`, the routes spelled out in
the brief — or its new result is an item of that route), *encounterability* (a triggering action is
performable without completing the task first: the fixpoint is rerun with the task's final items banned)
and *observability* (the change differs from the vanilla outcome). A suite that leaves any task
unreachable in any biome is rejected; the problem names the task, biome, milestone and missing item.

Simplifications (stated, not hidden): quantities are ignored (M01 makes routes longer, not impossible);
loot conditions that depend on chance, block state, location or the killer are treated as possibly true,
``match_tool`` as false (no silk touch or shears on the route); smoking, campfire, stonecutting and
smithing recipes are not used; placed blocks are not re-mined; the world's blocks come from the biome
specs' surface, tree and ore-band blocks plus sugar cane, and its mobs are the specs' creatures.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft import gamedata
from mirrorcraft.contracts.rules import (
    BlockDropAddRule,
    BlockDropReplaceRule,
    CookingOutputRule,
    EntityLootAddRule,
    EntityLootReplaceRule,
    RecipeResultRule,
    SuiteManifest,
    overworld_logs,
)
from mirrorcraft.contracts.tasks import TASKS, TaskId
from mirrorcraft.datapacks.compiler import DEVICE_RECIPE_TYPE, build_suite_files, ingredient_items
from mirrorcraft.errors import DatapackError

__all__ = [
    "ENCHANT",
    "Process",
    "RouteStep",
    "RuleAnalysis",
    "SuiteAnalysis",
    "TaskDependencies",
    "TaskReach",
    "World",
    "analyse_files",
    "analyse_suite",
    "analyse_vanilla",
    "biome_worlds",
    "fuels",
    "obtainable_items",
    "task_dependencies",
]

#: Pseudo-item: "an item has been enchanted at an enchanting table".
ENCHANT = "#action:enchant_item"
_DEVICE_ITEM = {"furnace": "minecraft:furnace", "blast_furnace": "minecraft:blast_furnace"}
_TYPE_DEVICE = {v: k for k, v in DEVICE_RECIPE_TYPE.items()}


def _mc(names: Iterable[str]) -> frozenset[str]:
    return frozenset(n if ":" in n else f"minecraft:{n}" for n in names)


@cache
def fuels() -> frozenset[str]:
    """Items a furnace burns that a task route can hold (engine code, so listed here)."""
    return _fuels()


@cache
def _fuels() -> frozenset[str]:
    # Furnace fuels are engine code (AbstractFurnaceBlockEntity.getFuel), not datapack data: the subset
    # any task route can hold.
    base = _mc(
        "coal charcoal coal_block stick crafting_table bookshelf wooden_pickaxe wooden_axe wooden_shovel "
        "wooden_hoe wooden_sword lava_bucket".split()
    )
    return (
        base
        | gamedata.tag("item", "logs")
        | gamedata.tag("item", "planks")
        | gamedata.tag("item", "wooden_slabs")
    )


# --------------------------------------------------------------------------------------------------
# The task routes (the brief's canonical routes), for relevance
# --------------------------------------------------------------------------------------------------


class TaskDependencies(BaseModel):
    """What a task's canonical route touches: recipes, cooking (device:input), blocks mined, mobs, items."""

    model_config = ConfigDict(frozen=True)

    recipes: frozenset[str]
    cooking: frozenset[str]
    blocks: frozenset[str]
    mobs: frozenset[str]
    items: frozenset[str]


def _ores(*names: str) -> list[str]:
    return [f"minecraft:{p}{n}_ore" for n in names for p in ("", "deepslate_")]


@cache
def _task_dependencies() -> dict[TaskId, TaskDependencies]:
    logs = overworld_logs(b.name for b in gamedata.all_blocks())
    planks = [lg.removesuffix("_log") + "_planks" for lg in logs]
    armour = _mc(["iron_helmet", "iron_chestplate", "iron_leggings", "iron_boots"])
    iron = TaskDependencies(
        recipes=_mc(
            ["stick", "crafting_table", "wooden_pickaxe", "stone_pickaxe", "furnace", *armour, *planks]
        ),
        cooking=frozenset({"furnace:minecraft:raw_iron"}),
        blocks=frozenset([*logs, "minecraft:stone", "minecraft:deepslate", *_ores("coal", "iron")]),
        mobs=frozenset(),
        items=frozenset(
            [*logs, *planks]
            + list(
                _mc(
                    "stick crafting_table wooden_pickaxe cobblestone cobbled_deepslate stone_pickaxe coal "
                    "raw_iron furnace iron_ingot".split()
                )
            )
        )
        | armour,
    )
    diamond = TaskDependencies(
        recipes=(iron.recipes - armour) | _mc(["iron_pickaxe"]),
        cooking=iron.cooking,
        blocks=iron.blocks | frozenset(_ores("diamond")),
        mobs=frozenset(),
        items=(iron.items - armour) | _mc(["iron_pickaxe", "diamond"]),
    )
    enchant = TaskDependencies(
        recipes=diamond.recipes | _mc(["diamond_pickaxe", "paper", "book", "enchanting_table"]),
        cooking=diamond.cooking,
        blocks=diamond.blocks | frozenset(_ores("lapis")) | _mc(["obsidian", "sugar_cane"]),
        mobs=_mc(["cow"]),
        items=diamond.items
        | _mc("diamond_pickaxe obsidian sugar_cane paper leather book enchanting_table lapis_lazuli".split())
        | {ENCHANT},
    )
    return {TaskId.IRON_ARMOR: iron, TaskId.DIAMOND: diamond, TaskId.ENCHANTMENT: enchant}


def task_dependencies() -> dict[TaskId, TaskDependencies]:
    """Task → what its canonical route (the brief's Iron Armor / Diamond / Enchantment routes) touches."""
    return _task_dependencies()


# --------------------------------------------------------------------------------------------------
# Worlds (what can be mined/killed), from the shipped biome specs
# --------------------------------------------------------------------------------------------------


class World(BaseModel):
    """The blocks and mobs a biome's worlds offer."""

    model_config = ConfigDict(frozen=True)

    biome: str
    blocks: frozenset[str]
    mobs: frozenset[str]


@cache
def biome_worlds() -> dict[str, World]:
    """One :class:`World` per shipped biome spec (surface, patches, tree, ore bands, sugar cane, mobs)."""
    from mirrorcraft.datapacks.biome import shipped_biome_specs

    out = {}
    for name, spec in sorted(shipped_biome_specs().items()):
        s = spec.surface
        blocks = {s.top_block, s.under_block, s.underwater_block, s.deep_block, s.deep_block_below_zero}
        blocks |= {p.block for p in s.patches}
        tree = spec.ecology.tree
        blocks |= {f"minecraft:{tree}_log", f"minecraft:{tree}_leaves", "minecraft:sugar_cane"}
        blocks |= {"minecraft:gravel", "minecraft:sand"}
        for band in spec.resources.custom_bands:
            blocks.add(band.block)
            deep = band.deepslate_block
            if deep:
                blocks.add(deep)
        blocks = {b for b in blocks if b}
        mobs = frozenset(c.type for c in spec.ecology.creatures)
        out[name] = World(biome=name, blocks=frozenset(blocks), mobs=mobs)
    return out


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


class _Data:
    """The effective pack: vanilla files overlaid with a rule pack's files."""

    def __init__(self, overlay: Mapping[str, bytes]) -> None:
        self.overlay = {k: v for k, v in overlay.items()}
        idx_raw = self.overlay.get("data/mirrorcraft/rules/index.json")
        self.index: dict[str, list[str]] = json.loads(idx_raw)["resources"] if idx_raw else {}

    def rules_of(self, path: str) -> tuple[str, ...]:
        from mirrorcraft.datapacks.compiler import resource_location

        return tuple(self.index.get(resource_location(path), ()))

    def json(self, path: str) -> Any | None:
        if path in self.overlay:
            return json.loads(self.overlay[path])
        return _vanilla_file(path)

    def recipe_paths(self) -> list[str]:
        vanilla = [f"data/minecraft/recipes/{p.name}" for p in _vanilla_recipe_files()]
        own = [p for p in self.overlay if p.split("/")[2:3] == ["recipes"] and p.endswith(".json")]
        return sorted(set(vanilla) | set(own))

    def cooking_yields(self) -> dict[str, int]:
        out = {}
        for p, raw in self.overlay.items():
            if p.startswith("data/mirrorcraft/cooking_yields/"):
                y = json.loads(raw)
                out[y["recipe"]] = int(y["result"]["count"])
        return out


@cache
def _vanilla_file_text(path: str) -> str | None:
    f = Path(gamedata.VANILLA_PACK_DIR) / path
    return f.read_text(encoding="utf-8") if f.is_file() else None


def _vanilla_file(path: str) -> Any | None:
    """A fresh parse of a vendored vanilla file (callers may not mutate a shared object)."""
    text = _vanilla_file_text(path)
    return None if text is None else json.loads(text)


@cache
def _vanilla_recipe_files() -> tuple[Path, ...]:
    return tuple(sorted((Path(gamedata.VANILLA_PACK_DIR) / "data" / "minecraft" / "recipes").glob("*.json")))


def _recipe_processes(data: _Data) -> list[Process]:
    yields = data.cooking_yields()
    out = []
    for path in data.recipe_paths():
        r = data.json(path)
        rtype = r.get("type")
        rid = f"{path.split('/')[1]}:{'/'.join(path.split('/')[3:]).removesuffix('.json')}"
        rules = data.rules_of(path)
        if rtype == "minecraft:crafting_shaped":
            pattern = r["pattern"]
            used = sorted({c for row in pattern for c in row if c != " "})
            inputs = tuple(frozenset(ingredient_items(r["key"][c], f"{path}: key.{c}")) for c in used)
            big = len(pattern) > 2 or max(len(row) for row in pattern) > 2
            out.append(
                Process(
                    "craft",
                    rid,
                    inputs,
                    _mc(["crafting_table"]) if big else frozenset(),
                    outputs=frozenset([r["result"]["item"]]),
                    count=int(r["result"].get("count", 1)),
                    rules=rules,
                )
            )
        elif rtype == "minecraft:crafting_shapeless":
            inputs = tuple(
                frozenset(ingredient_items(ing, f"{path}: ingredients[{i}]"))
                for i, ing in enumerate(r["ingredients"])
            )
            big = len(inputs) > 4
            out.append(
                Process(
                    "craft",
                    rid,
                    tuple(dict.fromkeys(inputs)),
                    _mc(["crafting_table"]) if big else frozenset(),
                    outputs=frozenset([r["result"]["item"]]),
                    count=int(r["result"].get("count", 1)),
                    rules=rules,
                )
            )
        elif rtype in _TYPE_DEVICE:
            device = _TYPE_DEVICE[rtype]
            items = ingredient_items(r["ingredient"], f"{path}: ingredient")
            for item in items:
                out.append(
                    Process(
                        "cook",
                        f"{device}:{item}",
                        (frozenset([item]),),
                        frozenset([_DEVICE_ITEM[device]]),
                        needs_fuel=True,
                        outputs=frozenset([r["result"]]),
                        count=yields.get(rid, 1),
                        rules=rules,
                    )
                )
    return out


# ---- static loot evaluation ------------------------------------------------------------------------
_TRUE, _MAYBE, _FALSE = 2, 1, 0


def _cond(c: dict[str, Any]) -> int:
    kind = str(c.get("condition", "")).removeprefix("minecraft:")
    if kind == "inverted":
        return 2 - _cond(c["term"])
    if kind == "alternative":
        return max((_cond(t) for t in c.get("terms", [])), default=_FALSE)
    if kind == "match_tool":
        return _FALSE  # no silk touch / shears on any route
    if kind == "survives_explosion":
        return _TRUE  # mined, not exploded
    return _MAYBE  # chance, block state, location, killer...: possible


def _conds(obj: dict[str, Any]) -> int:
    return min((_cond(c) for c in obj.get("conditions", [])), default=_TRUE)


def _max_count(value: Any) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, dict):
        t = str(value.get("type", "minecraft:uniform")).removeprefix("minecraft:")
        if t == "constant":
            return _max_count(value.get("value", 0))
        if t == "uniform":
            return _max_count(value.get("max", 0))
        if t == "binomial":
            return _max_count(value.get("n", 0))
    return 1.0


def _entry_items(
    e: dict[str, Any], data: _Data, seen: tuple[str, ...], ctx: int
) -> tuple[dict[str, int], int]:
    """(item → certainty ``_TRUE``/``_MAYBE`` the entry can give, condition status of the entry).

    ``ctx`` is the certainty of the enclosing pool/entries: an item is certain only when every condition
    on its way is certainly true.
    """
    status = _conds(e)
    if status == _FALSE:
        return {}, _FALSE
    here = min(ctx, status)
    kind = str(e.get("type", "")).removeprefix("minecraft:")
    items: dict[str, int] = {}

    def add(got: Mapping[str, int]) -> None:
        for k, v in got.items():
            items[k] = max(items.get(k, _FALSE), v)

    if kind == "item":
        n = 1.0
        for f in e.get("functions", []):
            if str(f.get("function", "")).removeprefix("minecraft:") == "set_count" and _conds(f) == _TRUE:
                n = _max_count(f.get("count", 1)) + (n if f.get("add") else 0)
        if n > 0:
            add({e["name"]: here})
    elif kind == "tag":
        add(dict.fromkeys(gamedata.tag("item", e["name"]), here))
    elif kind == "loot_table":
        ref = e["name"] if ":" in e["name"] else f"minecraft:{e['name']}"
        if ref not in seen:
            ns, p = ref.split(":", 1)
            add(_table_items(data.json(f"data/{ns}/loot_tables/{p}.json") or {}, data, (*seen, ref), here))
    elif kind in ("alternatives", "group", "sequence"):
        for child in e.get("children", []):
            got, st = _entry_items(child, data, seen, here)
            add(got)
            if kind == "alternatives" and st == _TRUE:
                break
            if kind == "sequence" and st == _FALSE:
                break
    return items, status


def _table_items(
    table: dict[str, Any], data: _Data, seen: tuple[str, ...] = (), ctx: int = _TRUE
) -> dict[str, int]:
    """Item → certainty for everything a table can drop with a non-silk tool."""
    out: dict[str, int] = {}
    for pool in table.get("pools", []):
        status = min(ctx, _conds(pool))
        if status == _FALSE or _max_count(pool.get("rolls", 1)) <= 0:
            continue
        for e in pool.get("entries", []):
            for k, v in _entry_items(e, data, seen, status)[0].items():
                out[k] = max(out.get(k, _FALSE), v)
    return out


def _world_processes(data: _Data, world: World) -> list[Process]:
    out = []
    for b in sorted(world.blocks):
        ns, name = b.split(":", 1)
        path = f"data/{ns}/loot_tables/blocks/{name}.json"
        table = data.json(path)
        if table is None:
            raise DatapackError(f"no loot table for world block {b} (neither vanilla pack nor rule pack)")
        tools = gamedata.block(b).harvest_tools or frozenset()
        drops = _table_items(table, data)
        out.append(
            Process(
                "mine",
                b,
                (),
                tools=frozenset(tools),
                outputs=frozenset(drops),
                chance_only=frozenset(k for k, v in drops.items() if v != _TRUE),
                rules=data.rules_of(path),
            )
        )
    for m in sorted(world.mobs):
        ns, name = m.split(":", 1)
        path = f"data/{ns}/loot_tables/entities/{name}.json"
        table = data.json(path)
        if table is None:
            raise DatapackError(f"no loot table for mob {m}")
        drops = _table_items(table, data)
        out.append(
            Process(
                "kill",
                m,
                (),
                outputs=frozenset(drops),
                chance_only=frozenset(k for k, v in drops.items() if v != _TRUE),
                rules=data.rules_of(path),
            )
        )
    enchantable = frozenset(i.name for i in gamedata.all_items() if i.enchant_categories) | _mc(["book"])
    out.append(
        Process(
            "enchant",
            "enchanting_table",
            (_mc(["lapis_lazuli"]), enchantable),
            _mc(["enchanting_table"]),
            outputs=frozenset([ENCHANT]),
        )
    )
    return out


def _fixpoint(
    processes: list[Process], banned: frozenset[str] = frozenset()
) -> tuple[set[str], dict[str, Process]]:
    fuels = _fuels()
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
                if p.ready(have, fuels):
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


# --------------------------------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------------------------------


class RouteStep(BaseModel):
    """One step of a derived route."""

    model_config = ConfigDict(frozen=True)

    kind: str
    process: str
    gives: str
    detail: str
    rules: list[str] = Field(default_factory=list)


class TaskReach(BaseModel):
    """Reachability of one task in one biome's world."""

    model_config = ConfigDict(frozen=True)

    task: str
    biome: str
    reachable: bool
    milestones: dict[str, bool]
    broken: list[str] = Field(default_factory=list)
    route: list[RouteStep] = Field(default_factory=list)


class RuleAnalysis(BaseModel):
    """What one rule touches, per task."""

    model_config = ConfigDict(frozen=True)

    rule_id: str
    operator: str
    relevant: dict[str, bool]
    encounterable: dict[str, bool]
    observable: bool
    triggers: list[str]


class SuiteAnalysis(BaseModel):
    """The whole analysis of a suite (or of vanilla, ``suite`` = ``"vanilla"``)."""

    model_config = ConfigDict(frozen=True)

    suite: str
    accepted: bool
    problems: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    reachability: list[TaskReach]
    rules: list[RuleAnalysis] = Field(default_factory=list)

    def reach(self, task: str, biome: str) -> TaskReach:
        """The :class:`TaskReach` of ``task`` in ``biome``."""
        for r in self.reachability:
            if r.task == task and r.biome == biome:
                return r
        raise KeyError((task, biome))

    def rule(self, rule_id: str) -> RuleAnalysis:
        """The :class:`RuleAnalysis` of ``rule_id``."""
        for r in self.rules:
            if r.rule_id == rule_id:
                return r
        raise KeyError(rule_id)

    def raise_if_rejected(self) -> None:
        """Raise :class:`DatapackError` naming every broken route when the suite is rejected."""
        if not self.accepted:
            raise DatapackError(f"suite {self.suite} rejected: " + "; ".join(self.problems))


def _milestone_ok(adv: str, have: set[str]) -> tuple[bool, list[frozenset[str]]]:
    """Whether a milestone is satisfiable, and for each failed requirement group the items it lacks.

    Requirements are AND over groups, OR within a group; each criterion is AND over its item sets. A
    failed group is reported as the union of what its criteria lack ("one of ...").
    """
    missing: list[frozenset[str]] = []
    for group in _requirements(adv):
        lacking: set[str] = set()
        for name in group:
            crit = _criterion_needs(adv, name)
            if all(alt & have for alt in crit):
                break
            for alt in crit:
                if not alt & have:
                    lacking |= alt
        else:
            missing.append(frozenset(lacking))
    return not missing, missing


@cache
def _criterion_needs(adv: str, name: str) -> tuple[frozenset[str], ...]:
    ns, path = adv.split(":", 1)
    data = json.loads(
        (Path(gamedata.VANILLA_PACK_DIR) / "data" / ns / "advancements" / f"{path}.json").read_text()
    )
    c = data["criteria"][name]
    if c["trigger"] == "minecraft:enchanted_item":
        return (frozenset([ENCHANT]),)
    if c["trigger"] != "minecraft:inventory_changed":
        raise DatapackError(f"advancement {adv}: trigger {c['trigger']} is not evaluable statically")
    needs = []
    for pred in c.get("conditions", {}).get("items", []):
        alts = set(pred.get("items", []))
        if "tag" in pred:
            alts |= set(gamedata.tag("item", pred["tag"]))
        needs.append(frozenset(alts))
    return tuple(needs)


def _route(goals: Iterable[str], how: dict[str, Process], have: set[str]) -> list[RouteStep]:
    steps: list[RouteStep] = []
    done: set[str] = set()
    fuels = _fuels()

    def visit(item: str) -> None:
        if item in done or item not in how:
            return
        done.add(item)
        p = how[item]
        for alt in p.inputs:
            visit(_pick(alt, how))
        for group in (p.station, p.tools):
            if group:
                visit(_pick(group & have, how))
        if p.needs_fuel:
            visit(_pick(fuels & have, how))
        steps.append(
            RouteStep(kind=p.kind, process=p.name, gives=item, detail=p.describe(), rules=list(p.rules))
        )

    for g in goals:
        visit(g)
    return steps


def _pick(alts: Iterable[str], how: dict[str, Process]) -> str:
    """The alternative obtained earliest (fewest derivation steps), ties by name."""
    order = {item: i for i, item in enumerate(how)}
    cands = [a for a in alts if a in order]
    return min(cands, key=lambda a: (order[a], a)) if cands else ""


def _item_label(alts: frozenset[str]) -> str:
    names = sorted(alts)
    return names[0] if len(names) == 1 else "one of " + ", ".join(names[:4]) + ("…" if len(names) > 4 else "")


def _reach(task: TaskId, world: World, have: set[str], how: dict[str, Process]) -> TaskReach:
    spec = TASKS[task]
    milestones: dict[str, bool] = {}
    broken: list[str] = []
    goals: list[str] = []
    for m in spec.milestones:
        ok, missing = _milestone_ok(m.advancement, have)
        milestones[m.code] = ok
        if not ok:
            names = "; ".join(_item_label(a) for a in missing)
            broken.append(
                f"{spec.title} in {world.biome}: milestone {m.code} needs {names}, which is unobtainable"
            )
        else:
            for group in _requirements(m.advancement):
                for name in group:
                    crit = _criterion_needs(m.advancement, name)
                    if all(alt & have for alt in crit):
                        goals.extend(_pick(alt & have, how) for alt in crit)
                        break
    return TaskReach(
        task=task.value,
        biome=world.biome,
        reachable=not broken,
        milestones=milestones,
        broken=broken,
        route=_route(goals, how, have) if not broken else [],
    )


@cache
def _requirements(adv: str) -> tuple[tuple[str, ...], ...]:
    ns, path = adv.split(":", 1)
    data = json.loads(
        (Path(gamedata.VANILLA_PACK_DIR) / "data" / ns / "advancements" / f"{path}.json").read_text()
    )
    return tuple(tuple(g) for g in data["requirements"])


def _final_items(task: TaskId) -> frozenset[str]:
    adv = TASKS[task].final.advancement
    out: set[str] = set()
    for group in _requirements(adv):
        for name in group:
            for alt in _criterion_needs(adv, name):
                out |= alt
    return frozenset(out)


@dataclass
class _Trigger:
    text: str
    inputs: tuple[frozenset[str], ...] = ()
    station: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    needs_fuel: bool = False
    block: str | None = None
    mob: str | None = None
    touches: set[str] = field(default_factory=set)  # route keys: recipe ids, cook keys, blocks, mobs
    outputs: set[str] = field(default_factory=set)  # new result items
    observable: bool = True


def _rule_triggers(rule: Any, data: _Data) -> list[_Trigger]:
    out = []
    if isinstance(rule, RecipeResultRule):
        for ch in rule.changes:
            ns, name = ch.recipe.split(":", 1)
            vanilla = json.loads(
                (Path(gamedata.VANILLA_PACK_DIR) / f"data/{ns}/recipes/{name}.json").read_text()
            )
            mirror = data.json(f"data/{ns}/recipes/{name}.json")
            if vanilla["type"] == "minecraft:crafting_shaped":
                used = sorted({c for row in mirror["pattern"] for c in row if c != " "})
                inputs = tuple(frozenset(ingredient_items(mirror["key"][c], ch.recipe)) for c in used)
                big = len(mirror["pattern"]) > 2 or max(len(r) for r in mirror["pattern"]) > 2
            else:
                inputs = tuple(frozenset(ingredient_items(i, ch.recipe)) for i in mirror["ingredients"])
                big = len(inputs) > 4
            vres = vanilla["result"]
            same = vres["item"] == ch.result.item and int(vres.get("count", 1)) == ch.result.count
            out.append(
                _Trigger(
                    f"craft {ch.recipe}",
                    inputs,
                    _mc(["crafting_table"]) if big else frozenset(),
                    touches={ch.recipe},
                    outputs={ch.result.item},
                    observable=not same,
                )
            )
    elif isinstance(rule, CookingOutputRule):
        for ch in rule.changes:
            out.append(
                _Trigger(
                    f"{ch.device} {ch.input}",
                    (frozenset([ch.input]),),
                    frozenset([_DEVICE_ITEM[ch.device]]),
                    needs_fuel=True,
                    touches={f"{ch.device}:{ch.input}"},
                    outputs={ch.result.item},
                    observable=not (
                        _vanilla_cook(ch.device, ch.input) == ch.result.item and ch.result.count == 1
                    ),
                )
            )
    elif isinstance(rule, BlockDropReplaceRule | BlockDropAddRule):
        for ch in rule.changes:
            tools = frozenset(gamedata.block(ch.block).harvest_tools or ())
            out.append(
                _Trigger(
                    f"mine {ch.block}",
                    tools=tools,
                    block=ch.block,
                    touches={ch.block},
                    outputs={d.item for d in ch.drops},
                )
            )
    elif isinstance(rule, EntityLootReplaceRule | EntityLootAddRule):
        for ch in rule.changes:
            out.append(
                _Trigger(
                    f"kill {ch.entity}",
                    mob=ch.entity,
                    touches={ch.entity},
                    outputs={d.item for d in ch.drops},
                )
            )
    return out


@cache
def _vanilla_cook(device: str, item: str) -> str | None:
    rtype = DEVICE_RECIPE_TYPE[device]
    for f in _vanilla_recipe_files():
        r = json.loads(f.read_text(encoding="utf-8"))
        if r.get("type") == rtype and item in ingredient_items(r["ingredient"], f.name):
            return r["result"]
    return None


def _relevant(t: _Trigger, deps: TaskDependencies) -> bool:
    keys = deps.recipes | deps.cooking | deps.blocks | deps.mobs
    return bool((t.touches & keys) or (t.outputs & deps.items))


def _feasible(t: _Trigger, have: set[str], world: World) -> bool:
    if t.block is not None and t.block not in world.blocks:
        return False
    if t.mob is not None and t.mob not in world.mobs:
        return False
    p = Process("trigger", t.text, t.inputs, t.station, t.tools, t.needs_fuel)
    return p.ready(have, _fuels())


def analyse_files(
    files: Mapping[str, bytes],
    *,
    suite: str = "vanilla",
    manifest: SuiteManifest | None = None,
    biomes: Iterable[str] | None = None,
) -> SuiteAnalysis:
    """Analyse the vanilla pack overlaid with ``files`` (a compiled rule pack, or ``{}`` for vanilla).

    Args:
        files: The rule pack's files (``{path: bytes}``), e.g. from ``build_suite_files``.
        suite: Name for the report.
        manifest: The suite's manifest, for the per-rule analysis (none for vanilla).
        biomes: Biomes to check (default: every shipped biome spec).

    Returns:
        The :class:`SuiteAnalysis`; ``accepted`` is false when any task is unreachable in any biome.
    """
    data = _Data(files)
    worlds = biome_worlds()
    names = sorted(worlds) if biomes is None else list(biomes)
    recipes = _recipe_processes(data)
    reach: list[TaskReach] = []
    problems: list[str] = []
    warnings: list[str] = []
    per_world: dict[str, list[Process]] = {}
    for b in names:
        if b not in worlds:
            raise DatapackError(f"unknown biome {b!r}; shipped: {sorted(worlds)}")
        per_world[b] = recipes + _world_processes(data, worlds[b])
        have, how = _fixpoint(per_world[b])
        for task in TaskId:
            r = _reach(task, worlds[b], have, how)
            reach.append(r)
            problems.extend(r.broken)
    rules: list[RuleAnalysis] = []
    if manifest is not None:
        banned_have: dict[tuple[str, TaskId], set[str]] = {}
        for b in names:
            for task in TaskId:
                banned_have[(b, task)] = _fixpoint(per_world[b], _final_items(task))[0]
        for rule in manifest.rules:
            triggers = _rule_triggers(rule, data)
            relevant = {
                t.value: any(_relevant(tr, task_dependencies()[t]) for tr in triggers) for t in TaskId
            }
            enc = {
                t.value: any(_feasible(tr, banned_have[(b, t)], worlds[b]) for tr in triggers for b in names)
                for t in TaskId
            }
            observable = all(tr.observable for tr in triggers)
            if not any(relevant.values()):
                warnings.append(f"rule {rule.id} touches no dependency of any task")
            if not observable:
                warnings.append(f"rule {rule.id} has a change identical to vanilla (no observable outcome)")
            rules.append(
                RuleAnalysis(
                    rule_id=rule.id,
                    operator=rule.operator,
                    relevant=relevant,
                    encounterable=enc,
                    observable=observable,
                    triggers=[tr.text for tr in triggers],
                )
            )
    return SuiteAnalysis(
        suite=suite,
        accepted=not problems,
        problems=problems,
        warnings=warnings,
        reachability=reach,
        rules=rules,
    )


def obtainable_items(files: Mapping[str, bytes] | None = None, biome: str = "plains") -> set[str]:
    """Every item obtainable in ``biome``'s world under the vanilla pack overlaid with ``files``.

    Includes the pseudo-item :data:`ENCHANT` when enchanting is possible.

    Raises:
        DatapackError: unknown biome.
    """
    worlds = biome_worlds()
    if biome not in worlds:
        raise DatapackError(f"unknown biome {biome!r}; shipped: {sorted(worlds)}")
    data = _Data(files or {})
    return _fixpoint(_recipe_processes(data) + _world_processes(data, worlds[biome]))[0]


def analyse_suite(manifest: SuiteManifest, *, biomes: Iterable[str] | None = None) -> SuiteAnalysis:
    """Compile ``manifest`` and analyse relevance, reachability and encounterability of its rules.

    Args:
        manifest: The suite.
        biomes: Biomes to check (default: all five).

    Returns:
        The :class:`SuiteAnalysis` (call :meth:`SuiteAnalysis.raise_if_rejected` to enforce it).

    Raises:
        DatapackError: the suite does not compile.
    """
    return analyse_files(build_suite_files(manifest), suite=manifest.suite, manifest=manifest, biomes=biomes)


def analyse_vanilla(*, biomes: Iterable[str] | None = None) -> SuiteAnalysis:
    """The same analysis for the vanilla rules (every task must be reachable)."""
    return analyse_files({}, suite="vanilla", biomes=biomes)
