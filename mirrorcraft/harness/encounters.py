"""Rule encounters: per manifest rule, the first action whose actual outcome differed from vanilla's.

Why one module: the metrics of the paper's behaviour analysis (IRR, RL) need, per manifest rule, the first
action whose *actual* outcome differed from what vanilla rules would have given for the *same* action
(spec, "Behaviour after rule encounters"). Every evaluator answers that question the same way
(:class:`EncounterBook`); they differ only in where the (actual, vanilla) outcomes come from:

* the embedded evaluator (:class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator`): the server's
  outcome events, each resolved twice by the server (world packs / vanilla only,
  :mod:`mirrorcraft.rules.oracle`) and tagged with the rule ids of the resources it touched —
  server-side attribution;
* the RCON and the advancement-packet evaluators (:mod:`mirrorcraft.harness.report_evaluators`):
  :func:`report_outcomes`, judged harness-side from the suite manifest and the skill's outcome report
  (no server-side attribution exists over RCON or from a child process) — docs/control.md lists what
  that detects and what it cannot.

**The bookkeeping.** An outcome *touches* rule R when R is among the rules it names and R is a rule of the
episode's manifest. It is a *candidate* when its actual and vanilla stacks differ (merged per item, order
ignored); touching with the vanilla outcome (a stripped log in M01's planks recipe, blasting an unaffected
item) is not. The **encounter** of R is its first candidate action (index >= 1); its outcomes are the
totals over every outcome of that action that touched R (when the differences cancel out over the action,
the first candidate's own stacks). Encounters are listed by action index, then rule id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.contracts.rules import (
    BlockDropAddRule,
    BlockDropReplaceRule,
    CookingOutputRule,
    EntityLootAddRule,
    EntityLootReplaceRule,
    RecipeResultRule,
    RuleEncounter,
    SuiteManifest,
)
from mirrorcraft.contracts.skills import ItemStack, OutcomeReport, Signature, SkillCall, signature
from mirrorcraft.rules.devices import YIELD_DEVICES
from mirrorcraft.rules.oracle import merge_stacks, same_stacks
from mirrorcraft.rules.packs import JsonAt
from mirrorcraft.rules.recipes import parse_ingredient
from mirrorcraft.rules.tags import vanilla_tags

__all__ = ["EncounterBook", "RuleOutcome", "detect_encounters", "report_outcomes"]

#: ``(rule id, actual stacks, vanilla stacks)``: one outcome of one action that touched one rule.
RuleOutcome = tuple[str, list[ItemStack], list[ItemStack]]


class EncounterBook:
    """Per manifest rule: its first candidate action and every outcome of that action touching the rule.

    Feed it with :meth:`touch` in action order (indices never decrease); read :meth:`encounters`.

    Args:
        rules: the rule ids of the episode's manifest (only those can be encountered).
    """

    def __init__(self, rules: Iterable[str] = ()) -> None:
        self.rules = frozenset(rules)
        self._first: dict[str, int] = {}  # rule id → action index of its encounter
        # rule id → (action index, outcomes of that action): the encounter's action once known, else the
        # latest action that touched the rule (an earlier one can no longer become the encounter)
        self._touches: dict[str, tuple[int, list[tuple[Sequence[ItemStack], Sequence[ItemStack]]]]] = {}

    def touch(
        self, rule_id: str, index: int, actual: Sequence[ItemStack], vanilla: Sequence[ItemStack]
    ) -> None:
        """An outcome of action ``index`` (>= 1) touched ``rule_id`` (ignored unless it is a manifest rule)."""
        if rule_id not in self.rules:
            return
        first = self._first.get(rule_id)
        if first is not None and index != first:
            return  # the encounter is the first candidate action; later actions do not change it
        entry = self._touches.get(rule_id)
        if entry is None or entry[0] != index:
            entry = (index, [])
            self._touches[rule_id] = entry
        entry[1].append((actual, vanilla))
        if first is None and not same_stacks(actual, vanilla):
            self._first[rule_id] = index

    def first_actions(self) -> dict[str, int]:
        """Rule id → the action index of its encounter, for the rules encountered so far."""
        return dict(self._first)

    def encounters(self, signatures: Mapping[int, Signature]) -> list[RuleEncounter]:
        """The encounters so far, by action index then rule id (module docstring).

        Args:
            signatures: action index → σ of its call; an encounter whose action has none yet is left out
                (a valid record needs it; it appears once the signature is known).
        """
        out = []
        for rid, index in sorted(self._first.items(), key=lambda kv: (kv[1], kv[0])):
            sig = signatures.get(index)
            if not sig:
                continue
            touches = self._touches[rid][1]
            actual = merge_stacks((s.item, s.count) for a, _ in touches for s in a)
            vanilla = merge_stacks((s.item, s.count) for _, v in touches for s in v)
            if same_stacks(actual, vanilla):  # differences cancelled out over the action: the first one
                a, v = next((a, v) for a, v in touches if not same_stacks(a, v))
                actual, vanilla = list(a), list(v)
            out.append(
                RuleEncounter(
                    rule_id=rid,
                    action_index=index,
                    signature=sig,
                    vanilla_outcome=vanilla,
                    actual_outcome=actual,
                )
            )
        return out


# -- harness-side outcomes from the manifest and the outcome reports ---------------------------------------


def _stacks(counts: dict[str, int]) -> list[ItemStack]:
    return [ItemStack(item=k, count=v) for k, v in sorted(counts.items()) if v > 0]


def _counts(stacks: Sequence[ItemStack]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in stacks:
        out[s.item] = out.get(s.item, 0) + s.count
    return out


@cache
def _vanilla_recipe(recipe_id: str) -> dict[str, Any] | None:
    path = gamedata.VANILLA_PACK_DIR / "data" / "minecraft" / "recipes" / f"{recipe_id.split(':', 1)[1]}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _ingredient_items(ing: Any) -> set[str]:
    """The items a vanilla recipe ingredient accepts (the recipe parser's reader, the vanilla item tags)."""
    if ing == []:
        return set()
    return set(parse_ingredient(ing, JsonAt("vanilla recipe ingredient"), vanilla_tags()["items"]).items)


def _recipe_items(recipe: dict[str, Any]) -> set[str]:
    if "key" in recipe:
        return set().union(*(_ingredient_items(v) for v in recipe["key"].values()))
    if "ingredients" in recipe:
        return set().union(*(_ingredient_items(v) for v in recipe["ingredients"]))
    return _ingredient_items(recipe.get("ingredient", []))


def _result(recipe: dict[str, Any]) -> tuple[str, int]:
    r = recipe["result"]
    return (r, 1) if isinstance(r, str) else (r["item"], int(r.get("count", 1)))


@cache
def _vanilla_cooking() -> dict[tuple[str, str], tuple[str, int]]:
    """``(device, input item) -> (result, count)`` of vanilla smelting and blasting recipes."""
    out: dict[tuple[str, str], tuple[str, int]] = {}
    folder = gamedata.VANILLA_PACK_DIR / "data" / "minecraft" / "recipes"
    devices = {recipe_type: device for device, recipe_type in YIELD_DEVICES.items()}  # furnace, blast furnace
    for path in sorted(folder.glob("*.json")):
        recipe = json.loads(path.read_text(encoding="utf-8"))
        device = devices.get(recipe.get("type", ""))
        if device:
            for item in _ingredient_items(recipe["ingredient"]):
                out[(device, item)] = _result(recipe)
    return out


@cache
def _vanilla_entity_items(entity: str) -> tuple[str, ...]:
    path = (
        gamedata.VANILLA_PACK_DIR
        / "data"
        / "minecraft"
        / "loot_tables"
        / "entities"
        / (entity.split(":", 1)[1] + ".json")
    )
    if not path.exists():
        return ()
    table = json.loads(path.read_text(encoding="utf-8"))
    items = [
        e["name"]
        for pool in table.get("pools", [])
        for e in pool.get("entries", [])
        if e.get("type") == "minecraft:item"
    ]
    return tuple(sorted(set(items)))


def _without_added(drops: dict[str, int], added: Sequence[Any], times: int) -> dict[str, int]:
    """The collected ``drops`` minus what an add rule's ``added`` stacks contributed (at most ``max`` each,
    ``times`` blocks or kills): the vanilla side of an ``*_add`` rule."""
    vanilla = dict(drops)
    for d in added:
        vanilla[d.item] -= min(drops[d.item], d.max * times)
    return vanilla


def _rule_outcome(
    rule: Any,
    call: SkillCall,
    produced: dict[str, int],
    drops: dict[str, int],
    broken: dict[str, int],
    n: int,
) -> tuple[dict[str, int], dict[str, int]] | None:
    """``(vanilla, actual)`` counts when the action (``n`` completions) touched ``rule`` with its Mirror
    outcome (:func:`report_outcomes`), else None."""
    if isinstance(rule, RecipeResultRule) and call.name == "craft_grid":
        grid = {c for row in call.args["grid"] for c in row if c}
        for ch in rule.changes:
            recipe = _vanilla_recipe(ch.recipe)
            if recipe is None or not grid <= _recipe_items(recipe):
                continue
            if ch.inputs is not None and not grid <= set(ch.inputs):
                continue
            if produced != {ch.result.item: ch.result.count * n}:
                continue
            item, count = _result(recipe)
            return {item: count * n}, produced
    elif isinstance(rule, CookingOutputRule) and call.name == "smelt":
        for ch in rule.changes:
            if call.args["input"] != ch.input or call.args["device"] != ch.device:
                continue
            if produced != {ch.result.item: ch.result.count * n}:
                continue
            vanilla = _vanilla_cooking().get((ch.device, ch.input))
            return ({vanilla[0]: vanilla[1] * n} if vanilla else {}), produced
    elif isinstance(rule, (BlockDropAddRule, BlockDropReplaceRule)) and call.name == "mine":
        for ch in rule.changes:
            k = broken.get(ch.block, 0)
            if not k or any(drops.get(d.item, 0) < d.min * k for d in ch.drops):
                continue
            if isinstance(rule, BlockDropAddRule):
                return _without_added(drops, ch.drops, k), drops
            return {item: k for item in gamedata.block(ch.block).drops}, drops
    elif isinstance(rule, (EntityLootAddRule, EntityLootReplaceRule)) and call.name == "attack":
        for ch in rule.changes:
            if call.args["mob"] != ch.entity or any(drops.get(d.item, 0) < d.min * n for d in ch.drops):
                continue
            if isinstance(rule, EntityLootAddRule):
                return _without_added(drops, ch.drops, n), drops
            return {item: n for item in _vanilla_entity_items(ch.entity)}, drops
    return None


def report_outcomes(manifest: SuiteManifest, call: SkillCall, report: OutcomeReport) -> list[RuleOutcome]:
    """The rules of ``manifest`` an action visibly touched, with its actual and vanilla outcome for each.

    Judged from the call and its outcome report: a rule is touched when the action touched one of its
    targets and the report shows the Mirror outcome (which differs from the vanilla outcome, so every
    result is a candidate):

    * ``recipe_result``: a ``craft_grid`` whose items all belong to the vanilla recipe (and to ``inputs``)
      produced exactly the changed result per craft; vanilla = the vanilla recipe's result per craft.
    * ``cooking_output``: a ``smelt`` of the changed ``input`` in the changed ``device`` produced the changed
      result per item; vanilla = the vanilla cooking result (nothing if vanilla has no recipe).
    * ``block_drop_add`` / ``entity_loot_add``: a ``mine`` / ``attack`` of the target collected at least the
      added stacks; vanilla = the collected drops minus the added ones.
    * ``block_drop_replace`` / ``entity_loot_replace``: the collected drops contain the replacement
      stacks; vanilla = one of each usual vanilla drop per block (minecraft-data's block ``drops``) or
      per mob (the vendored vanilla loot table's items). This vanilla side is approximate (fortune and
      random counts are not modelled) — docs/control.md.

    Only successful actions are judged (a failed one reports no outcome to compare).
    """
    out: list[RuleOutcome] = []
    if report.status != "success":
        return out
    produced = _counts(report.produced)
    drops = _counts(report.drops_collected)
    broken = {b.block: b.count for b in report.blocks_broken}
    for rule in manifest.rules:
        found = _rule_outcome(rule, call, produced, drops, broken, report.completed)
        if found is not None:
            vanilla, actual = found
            out.append((rule.id, _stacks(actual), _stacks(vanilla)))
    return out


def detect_encounters(
    manifest: SuiteManifest, index: int, call: SkillCall, report: OutcomeReport
) -> list[RuleEncounter]:
    """The rule encounters one action would make on its own (:func:`report_outcomes` through a fresh
    :class:`EncounterBook`): the rules it touched whose vanilla outcome differs from the actual one."""
    book = EncounterBook(r.id for r in manifest.rules)
    for rule_id, actual, vanilla in report_outcomes(manifest, call, report):
        book.touch(rule_id, index, actual, vanilla)
    return book.encounters({index: signature(call)})
