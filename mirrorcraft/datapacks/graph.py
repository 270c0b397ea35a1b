"""Static dependency/reachability graph of the three task routes under a rule suite.

Why: the spec's integrity controls require, before any evaluation, "an executable route for every task
under every suite", and a valid intervention must touch a dependency of at least one task and keep a
complete route to every objective. This module answers that from the data alone: the vanilla pack
(:data:`mirrorcraft.gamedata.VANILLA_PACK_DIR`) overlaid with the suite's *compiled* pack
(:func:`mirrorcraft.datapacks.compiler.build_suite_files`), loaded by the embedded server's own parser
(:class:`~mirrorcraft.rules.datapacks.DatapackSet`), so what is analysed is exactly what a server loads,
including substitutions such as M05's hoe → pickaxe smelting. The graph walks the parsed rule objects
(recipes, compiled loot tables, advancement criteria), never the JSON.

The graph reasons in **item sets** (no quantities): a *process* is a crafting recipe (needs one item of
each ingredient, and a crafting table when the grid is larger than 2x2), a smelting/blasting recipe
(input, the device, any fuel; the yield count of a ``cooking_yields`` sidecar is recorded), mining a
block of the biome's world (the drops its loot table can give with a non-silk-touch tool; the block's
harvest tools from the packs' ``mineable/*`` and ``needs_*_tool`` tags, :mod:`mirrorcraft.rules.digging`),
killing a mob (its loot), or enchanting (lapis, an
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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
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
from mirrorcraft.datapacks.compiler import DEVICE_RECIPE_TYPE, build_suite_files
from mirrorcraft.datapacks.processes import (
    ENCHANT,
    Process,
    World,
    fixpoint,
    fuels,
    harvest_tools_of,
    load_packs,
    mc,
    needs_table,
    recipe_inputs,
    recipe_processes,
    world_processes,
)
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.rules.recipe_book import RecipeBook
from mirrorcraft.rules.recipes import ShapedRecipe, ShapelessRecipe

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
    armour = mc(["iron_helmet", "iron_chestplate", "iron_leggings", "iron_boots"])
    iron = TaskDependencies(
        recipes=mc(
            ["stick", "crafting_table", "wooden_pickaxe", "stone_pickaxe", "furnace", *armour, *planks]
        ),
        cooking=frozenset({"furnace:minecraft:raw_iron"}),
        blocks=frozenset([*logs, "minecraft:stone", "minecraft:deepslate", *_ores("coal", "iron")]),
        mobs=frozenset(),
        items=frozenset(
            [*logs, *planks]
            + list(
                mc(
                    "stick crafting_table wooden_pickaxe cobblestone cobbled_deepslate stone_pickaxe coal "
                    "raw_iron furnace iron_ingot".split()
                )
            )
        )
        | armour,
    )
    diamond = TaskDependencies(
        recipes=(iron.recipes - armour) | mc(["iron_pickaxe"]),
        cooking=iron.cooking,
        blocks=iron.blocks | frozenset(_ores("diamond")),
        mobs=frozenset(),
        items=(iron.items - armour) | mc(["iron_pickaxe", "diamond"]),
    )
    enchant = TaskDependencies(
        recipes=diamond.recipes | mc(["diamond_pickaxe", "paper", "book", "enchanting_table"]),
        cooking=diamond.cooking,
        blocks=diamond.blocks | frozenset(_ores("lapis")) | mc(["obsidian", "sugar_cane"]),
        mobs=mc(["cow"]),
        items=diamond.items
        | mc("diamond_pickaxe obsidian sugar_cane paper leather book enchanting_table lapis_lazuli".split())
        | {ENCHANT},
    )
    return {TaskId.IRON_ARMOR: iron, TaskId.DIAMOND: diamond, TaskId.ENCHANTMENT: enchant}


def task_dependencies() -> dict[TaskId, TaskDependencies]:
    """Task → what its canonical route (the brief's Iron Armor / Diamond / Enchantment routes) touches."""
    return _task_dependencies()


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
    """The item sets one criterion of a vanilla milestone needs (each set: one of its items)."""
    vanilla = DatapackSet.vanilla_only()
    c = vanilla.advancements[adv].criteria[name]
    if c.trigger == "enchanted_item":
        return (frozenset([ENCHANT]),)
    if c.trigger != "inventory_changed":
        raise DatapackError(f"advancement {adv}: trigger {c.trigger} is not evaluable statically")
    needs = []
    for pred in c.items:
        alts = set(pred.items or ())
        if pred.tag is not None:
            alts |= vanilla.tags["items"].get(pred.tag, frozenset())
        needs.append(frozenset(alts))
    return tuple(needs)


def _route(goals: Iterable[str], how: dict[str, Process], have: set[str]) -> list[RouteStep]:
    steps: list[RouteStep] = []
    done: set[str] = set()
    burns = fuels()

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
            visit(_pick(burns & have, how))
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
    return DatapackSet.vanilla_only().advancements[adv].requirements


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


def _rule_triggers(rule: Any, packs: DatapackSet) -> list[_Trigger]:
    out = []
    vanilla = DatapackSet.vanilla_only()
    if isinstance(rule, RecipeResultRule):
        for ch in rule.changes:
            original = vanilla.recipes[ch.recipe]
            mirror = packs.recipes[ch.recipe]
            assert isinstance(original, ShapedRecipe | ShapelessRecipe)
            assert isinstance(mirror, ShapedRecipe | ShapelessRecipe)
            if isinstance(mirror, ShapedRecipe):
                inputs = recipe_inputs(mirror)
            else:
                inputs = tuple(i.items for i in mirror.ingredients)
            same = original.result == ch.result.item and original.count == ch.result.count
            out.append(
                _Trigger(
                    f"craft {ch.recipe}",
                    inputs,
                    needs_table(mirror),
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
                    frozenset([namespaced(ch.device)]),
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
            out.append(
                _Trigger(
                    f"mine {ch.block}",
                    tools=harvest_tools_of(packs, ch.block),
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
    recipe = RecipeBook(DatapackSet.vanilla_only()).cooking_recipe(DEVICE_RECIPE_TYPE[device], item)
    return recipe.result if recipe else None


def _relevant(t: _Trigger, deps: TaskDependencies) -> bool:
    keys = deps.recipes | deps.cooking | deps.blocks | deps.mobs
    return bool((t.touches & keys) or (t.outputs & deps.items))


def _feasible(t: _Trigger, have: set[str], world: World) -> bool:
    if t.block is not None and t.block not in world.blocks:
        return False
    if t.mob is not None and t.mob not in world.mobs:
        return False
    p = Process("trigger", t.text, t.inputs, t.station, t.tools, t.needs_fuel)
    return p.ready(have, fuels())


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
    packs = load_packs(files)
    worlds = biome_worlds()
    names = sorted(worlds) if biomes is None else list(biomes)
    recipes = recipe_processes(packs)
    reach: list[TaskReach] = []
    problems: list[str] = []
    warnings: list[str] = []
    per_world: dict[str, list[Process]] = {}
    for b in names:
        if b not in worlds:
            raise DatapackError(f"unknown biome {b!r}; shipped: {sorted(worlds)}")
        per_world[b] = recipes + world_processes(packs, worlds[b])
        have, how = fixpoint(per_world[b])
        for task in TaskId:
            r = _reach(task, worlds[b], have, how)
            reach.append(r)
            problems.extend(r.broken)
    rules: list[RuleAnalysis] = []
    if manifest is not None:
        banned_have: dict[tuple[str, TaskId], set[str]] = {}
        for b in names:
            for task in TaskId:
                banned_have[(b, task)] = fixpoint(per_world[b], _final_items(task))[0]
        for rule in manifest.rules:
            triggers = _rule_triggers(rule, packs)
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
    packs = load_packs(files or {})
    return fixpoint(recipe_processes(packs) + world_processes(packs, worlds[biome]))[0]


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
