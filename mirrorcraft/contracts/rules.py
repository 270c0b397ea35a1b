"""Rule-suite manifests (``kind=mirror``): the hidden rule changes of M01-M06, and rule encounters.

A manifest is data (``mirrorcraft/datapacks/manifests/M0x.json``), loaded into these models with
:func:`load_suite`. The datapack compiler turns every rule into datapack resources tagged with the
rule's stable id; the server-side evaluator attributes modified outcomes to rule ids
(:class:`RuleEncounter`). Agents never see manifests; "ReAct w/rules" is given only the suite's rule
card text (:meth:`SuiteManifest.card_text`).

Operators (one rule = one operator, one or more concrete targets, all resolved in the data):

=======================  ===============================================================================
``recipe_result``        a crafting recipe (by recipe id) yields another item and/or count;
                         ``inputs`` optionally restricts the change to grids using those ingredient items
                         (other items the vanilla recipe accepts keep the vanilla result)
``cooking_output``       smelting/blasting ``input`` in ``device`` yields another item and count (keyed by
                         device and input item, which may have no vanilla recipe, e.g. a diamond hoe)
``block_drop_replace``   a block's drops are replaced by the listed stacks
``block_drop_add``       the listed stacks are added to the block's vanilla drops ("also drops X")
``entity_loot_replace``  a mob's loot is replaced by the listed stacks
``entity_loot_add``      the listed stacks are added to the mob's vanilla loot
=======================  ===============================================================================

Decisions fixed by the spec ("Decisions the paper leaves open") and encoded here:

* An ore rule applies to every variant of that ore (stone and deepslate): :func:`ore_variants`.
* A log rule applies to every overworld ``*_log`` block, not stripped logs and not ``*_wood``; "planks
  of its wood" is the matching ``*_planks``: :func:`overworld_logs`, :func:`planks_of`. For the planks
  recipes (whose vanilla ingredient is the ``#<wood>_logs`` tag) the change is restricted by ``inputs``
  to the log itself.
* "Also drops X" adds exactly the stated count (1 where none is stated) to the vanilla drops; added
  items ignore fortune; silk touch keeps vanilla behaviour (the block itself, nothing added). Replaced
  drops are likewise fixed counts that ignore fortune, and silk touch keeps vanilla. Both policies are
  explicit fields on every drop rule (``fortune``, ``silk_touch``) so the compiler cannot guess.
* Literal reading of the suites: M01 changes *smelting* raw iron only (the paper: "raw iron smelts into
  three nuggets"), while M03 names smelting *or* blasting.

Rule ids are ``<suite>.<snake_case>`` (e.g. ``M02.iron_ore_adds_ingot``) and never change once published.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mirrorcraft.contracts.ids import SUITE_IDS
from mirrorcraft.contracts.skills import ItemStack, ResourceId, Signature
from mirrorcraft.errors import DatapackError

SuiteId = Literal["M01", "M02", "M03", "M04", "M05", "M06"]
RULE_ID_RE = re.compile(r"^(M0[1-6])\.[a-z][a-z0-9_]*$")

#: Where the shipped manifests live (package data of ``mirrorcraft.datapacks``).
MANIFEST_DIR = Path(__file__).resolve().parent.parent / "datapacks" / "manifests"

#: Wood types whose ``*_log`` blocks grow in the overworld in 1.19.2 (crimson/warped have stems).
OVERWORLD_WOODS: tuple[str, ...] = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove")


def overworld_logs(block_names: Iterable[str]) -> list[str]:
    """Resolve "a log" per the spec: every ``*_log`` block that is not stripped (``*_wood`` never matches).

    Args:
        block_names: block names or ids of the game version (e.g. minecraft-data's ``blocks.json`` names).

    Returns:
        Sorted namespaced ids, e.g. ``["minecraft:acacia_log", ...]``.
    """
    out = set()
    for name in block_names:
        bare = name.removeprefix("minecraft:")
        if bare.endswith("_log") and not bare.startswith("stripped_"):
            out.add(f"minecraft:{bare}")
    return sorted(out)


def planks_of(log_id: str) -> str:
    """ "Planks of its wood": ``minecraft:oak_log`` → ``minecraft:oak_planks``."""
    if not log_id.endswith("_log"):
        raise DatapackError(f"planks_of: {log_id!r} is not a log id")
    return log_id.removesuffix("_log") + "_planks"


def ore_variants(ore: str, block_names: Iterable[str]) -> list[str]:
    """Every overworld variant of an ore: ``<ore>_ore`` and ``deepslate_<ore>_ore`` when they exist.

    Args:
        ore: ``"coal"``, ``"iron"``, ``"diamond"``, ``"lapis"``...
        block_names: block names of the game version.

    Returns:
        Sorted namespaced ids of the variants present in ``block_names``.
    """
    names = {n.removeprefix("minecraft:") for n in block_names}
    wanted = {f"{ore}_ore", f"deepslate_{ore}_ore"}
    return sorted(f"minecraft:{n}" for n in names & wanted)


class Drop(BaseModel):
    """A stack a block or mob yields: ``min``..``max`` items (uniform), ``min == max`` for a fixed count."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item: ResourceId
    min: int = Field(ge=1)
    max: int = Field(ge=1)

    @model_validator(mode="after")
    def _range(self) -> Drop:
        if self.max < self.min:
            raise ValueError(f"{self.item}: max {self.max} < min {self.min}")
        return self


class RecipeChange(BaseModel):
    """One crafting recipe's new result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    recipe: ResourceId = Field(description="Vanilla recipe id, e.g. 'minecraft:oak_planks'.")
    inputs: list[ResourceId] | None = Field(
        None, description="Only grids using these ingredient items change; null = every grid of the recipe."
    )
    result: ItemStack


class CookingChange(BaseModel):
    """What one input yields in one cooking device."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    device: Literal["furnace", "blast_furnace"]
    input: ResourceId
    result: ItemStack


class BlockDropChange(BaseModel):
    """The stacks one block drops (replace) or adds (add)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    block: ResourceId
    drops: list[Drop] = Field(min_length=1)


class EntityLootChange(BaseModel):
    """The stacks one mob type drops (replace) or adds (add)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity: ResourceId
    drops: list[Drop] = Field(min_length=1)


class _RuleBase(BaseModel):
    """Fields every rule has; subclasses add ``operator``, ``changes`` and ``targets()`` (the changed
    resources: recipe ids, ``device:input`` keys, block ids or entity ids)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=RULE_ID_RE.pattern, description="Stable rule id '<suite>.<name>'.")
    text: str = Field(min_length=1, description="The rule as the spec states it.")


class RecipeResultRule(_RuleBase):
    """A crafting recipe yields another item and/or count."""

    operator: Literal["recipe_result"] = "recipe_result"
    changes: list[RecipeChange] = Field(min_length=1)

    def targets(self) -> list[str]:
        return [c.recipe for c in self.changes]


class CookingOutputRule(_RuleBase):
    """Smelting/blasting an input yields another item and/or count."""

    operator: Literal["cooking_output"] = "cooking_output"
    changes: list[CookingChange] = Field(min_length=1)

    def targets(self) -> list[str]:
        return [f"{c.device}:{c.input}" for c in self.changes]


class _DropPolicy(BaseModel):
    """The spec's fixed drop policy, explicit in the data."""

    fortune: Literal["ignored"] = Field(
        "ignored", description="Fortune does not multiply changed/added drops."
    )
    silk_touch: Literal["vanilla"] = Field(
        "vanilla", description="Silk touch keeps vanilla: the block, nothing added."
    )


class BlockDropReplaceRule(_RuleBase, _DropPolicy):
    """A block drops the listed stacks instead of its vanilla drops (silk touch keeps vanilla)."""

    operator: Literal["block_drop_replace"] = "block_drop_replace"
    changes: list[BlockDropChange] = Field(min_length=1)

    def targets(self) -> list[str]:
        return [c.block for c in self.changes]


class BlockDropAddRule(_RuleBase, _DropPolicy):
    """A block drops the listed stacks in addition to its vanilla drops (silk touch keeps vanilla)."""

    operator: Literal["block_drop_add"] = "block_drop_add"
    changes: list[BlockDropChange] = Field(min_length=1)

    def targets(self) -> list[str]:
        return [c.block for c in self.changes]


class EntityLootReplaceRule(_RuleBase):
    """A mob drops the listed stacks instead of its vanilla loot."""

    operator: Literal["entity_loot_replace"] = "entity_loot_replace"
    changes: list[EntityLootChange] = Field(min_length=1)

    def targets(self) -> list[str]:
        return [c.entity for c in self.changes]


class EntityLootAddRule(_RuleBase):
    """A mob drops the listed stacks in addition to its vanilla loot."""

    operator: Literal["entity_loot_add"] = "entity_loot_add"
    changes: list[EntityLootChange] = Field(min_length=1)

    def targets(self) -> list[str]:
        return [c.entity for c in self.changes]


Rule = Annotated[
    RecipeResultRule
    | CookingOutputRule
    | BlockDropReplaceRule
    | BlockDropAddRule
    | EntityLootReplaceRule
    | EntityLootAddRule,
    Field(discriminator="operator"),
]

# Operators that act on the same game resource (a rule of each kind on one target would conflict).
_RESOURCE_KIND = {
    "recipe_result": "recipe",
    "cooking_output": "cooking",
    "block_drop_replace": "block",
    "block_drop_add": "block",
    "entity_loot_replace": "entity",
    "entity_loot_add": "entity",
}


class RuleCard(BaseModel):
    """The text "ReAct w/rules" is shown: the suite's Rules text plus its Effect line (paper appendix K)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    rules: str
    effect: str

    def text(self) -> str:
        """The card as one string: ``"<title>\\nRules. <rules>\\nEffect. <effect>"``."""
        return f"{self.title}\nRules. {self.rules}\nEffect. {self.effect}"


class SuiteManifest(BaseModel):
    """One rule suite: id, name, rule card and its rules (``kind=mirror`` manifest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = Field(1, ge=1, description="Version of the manifest format.")
    kind: Literal["mirror"] = "mirror"
    suite: SuiteId
    name: str
    archive_name: str = Field(description="The paper's archive label (Mirror01-04, 06, 08 became M01-M06).")
    card: RuleCard
    rules: list[Rule] = Field(min_length=1)

    @model_validator(mode="after")
    def _check(self) -> SuiteManifest:
        seen: set[str] = set()
        touched: dict[tuple[str, str], str] = {}
        for rule in self.rules:
            if not rule.id.startswith(f"{self.suite}."):
                raise ValueError(f"rule {rule.id!r} does not belong to suite {self.suite}")
            if rule.id in seen:
                raise ValueError(f"duplicate rule id {rule.id!r}")
            seen.add(rule.id)
            for target in rule.targets():
                key = (_RESOURCE_KIND[rule.operator], target)
                if key in touched:
                    raise ValueError(f"rules {touched[key]!r} and {rule.id!r} both change {key[0]} {target}")
                touched[key] = rule.id
        return self

    def rule(self, rule_id: str) -> Rule:
        """The rule with id ``rule_id``.

        Raises:
            DatapackError: no such rule in this suite.
        """
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise DatapackError(f"suite {self.suite}: no rule {rule_id!r}; rules: {[r.id for r in self.rules]}")

    def card_text(self) -> str:
        """The rule card shown to "ReAct w/rules" (and only to it)."""
        return self.card.text()


def load_manifest(path: Path) -> SuiteManifest:
    """Load and validate one manifest file.

    Raises:
        DatapackError: the file is missing, not JSON, or fails validation (message names file and field).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DatapackError(f"{path}: manifest file not found") from None
    except json.JSONDecodeError as err:
        raise DatapackError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}"
        ) from err
    try:
        return SuiteManifest.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {str(e['msg']).removeprefix('Value error, ')}"
            for e in err.errors()
        )
        raise DatapackError(f"{path}: invalid manifest: {problems}") from err


def load_suite(suite: str) -> SuiteManifest:
    """Load a shipped suite manifest, e.g. ``load_suite("M03")``.

    Raises:
        DatapackError: unknown suite id, or the file is invalid, or it declares another suite.
    """
    if suite not in SUITE_IDS:
        raise DatapackError(f"unknown suite {suite!r}; expected one of {', '.join(SUITE_IDS)}")
    path = MANIFEST_DIR / f"{suite}.json"
    manifest = load_manifest(path)
    if manifest.suite != suite:
        raise DatapackError(f"{path}: declares suite {manifest.suite!r}, expected {suite!r}")
    return manifest


def load_all_suites() -> dict[str, SuiteManifest]:
    """All six shipped suites keyed by id."""
    return {s: load_suite(s) for s in SUITE_IDS}


class RuleEncounter(BaseModel):
    """The first action in an episode whose actual outcome differs from vanilla's, per manifest rule.

    Recorded by the server-side evaluator (invisible to the agent). ``vanilla_outcome`` and
    ``actual_outcome`` are the item stacks the action yielded under vanilla rules and under the
    Mirror rules (produced by a recipe/device, or dropped by a block/mob); they must differ.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    rule_id: str = Field(pattern=RULE_ID_RE.pattern)
    action_index: int = Field(ge=1)
    signature: Signature
    vanilla_outcome: list[ItemStack]
    actual_outcome: list[ItemStack]

    @model_validator(mode="after")
    def _differs(self) -> RuleEncounter:
        def norm(stacks: list[ItemStack]) -> list[tuple[str, int]]:
            return sorted((s.item, s.count) for s in stacks)

        if norm(self.vanilla_outcome) == norm(self.actual_outcome):
            raise ValueError(
                f"encounter of {self.rule_id} at action {self.action_index}: outcomes are identical"
            )
        if not self.signature:
            raise ValueError("signature must not be empty")
        return self

    @property
    def suite(self) -> str:
        """The suite the rule belongs to (``"M02"`` for ``"M02.iron_ore_adds_ingot"``)."""
        return self.rule_id.split(".", 1)[0]
