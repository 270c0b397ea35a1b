"""The embedded server's hidden evaluator: an append-only event log, milestones and rule encounters.

Why: the metrics of the paper's behaviour analysis (IRR, RL) need, per manifest rule, the first action
whose *actual* outcome differed from what vanilla rules would have given for the *same* action (spec,
"Behaviour after rule encounters"). Only the server knows both: it resolves every outcome twice, once
with the world's packs and once with the vendored vanilla pack alone
(:meth:`~mirrorcraft.server.rules.datapacks.DatapackSet.vanilla_only`). Nothing here is ever sent to
the agent; the harness reads it through the :class:`~mirrorcraft.contracts.interfaces.Evaluator` methods.

How the vanilla outcome is computed (:class:`OutcomeOracle`):

* **loot** (dig, kill): the real roll uses the server's ``random.Random``; the vanilla roll uses a
  *clone* of that generator taken just before (``setstate(getstate())``), so both rolls see the same
  random numbers and the world's RNG advances exactly as if only the real roll happened. A table that
  only one side defines yields nothing on the other side.
* **crafting**: the grid is matched by both recipe books; the rules touched are those of the actual
  recipe and, when a pack overrides it, of the recipe vanilla would have used.
* **cooking**: a take from an output slot is traced to the cooked units it holds
  (:class:`~mirrorcraft.server.rules.cooking.Take`); each unit's vanilla outcome is the vanilla
  device's result for its input item, one item (docs/smelting_yields.md point 4).
* **enchanting / placing**: no datapack rule changes them in 1.19; they are logged with equal outcomes.

Resources carry rule ids through the Mirror pack's index (``data/mirrorcraft/rules/index.json``):
:meth:`DatapackSet.rule_ids`. An event is an **encounter candidate** for rule R when R is among the
rule ids of the resources it touched, R is a rule of the episode's manifest, and the actual and vanilla
stacks differ (merged per item, order ignored). Touching an overridden resource with the vanilla outcome
(a stripped log in M01's planks recipe, blasting an unaffected item) is logged but is not an encounter.
The **encounter** of R is its first candidate in an action (index >= 1); its outcomes are the totals over
all events of that action that touched R.

Attribution to actions: the runner calls :meth:`EmbeddedEvaluator.begin_action` when skill action
``index`` starts; every server event until the next ``begin_action`` belongs to it (events after
:meth:`after_action` and before the next action are logged with ``in_action = False`` and never make
encounters); events before the first action (milestones at join) carry index 0. A runner that only calls
the ABC's ``after_action`` builds the evaluator with ``explicit_actions=False`` and gets the implicit
form: events between ``after_action(i - 1)`` and ``after_action(i)`` belong to action ``i``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.episodes import EpisodeIdentity, MilestoneEvent
from mirrorcraft.contracts.interfaces import Evaluator
from mirrorcraft.contracts.rules import RuleEncounter, SuiteManifest, load_suite
from mirrorcraft.contracts.skills import ItemStack, OutcomeReport, Signature, SkillCall, signature
from mirrorcraft.errors import ContractError
from mirrorcraft.server.rules.cooking import Take, vanilla_cook_result
from mirrorcraft.server.rules.datapacks import DatapackSet
from mirrorcraft.server.rules.loot import ItemStack as LootStack
from mirrorcraft.server.rules.loot import LootContext
from mirrorcraft.server.rules.recipes import CraftResult, RecipeBook

__all__ = [
    "EmbeddedEvaluator",
    "EventKind",
    "EventRecord",
    "Outcome",
    "OutcomeOracle",
]

EventKind = Literal["milestone", "dig", "craft", "smelt", "kill", "place", "enchant"]
_SMELT_TYPES = {"furnace": "smelting", "blast_furnace": "blasting", "smoker": "smoking"}


def _merge(stacks: Iterable[tuple[str, int]]) -> list[ItemStack]:
    total: dict[str, int] = {}
    for item, count in stacks:
        if count > 0:
            total[item] = total.get(item, 0) + count
    return [ItemStack(item=k, count=v) for k, v in sorted(total.items())]


def _same(a: Sequence[ItemStack], b: Sequence[ItemStack]) -> bool:
    return [(s.item, s.count) for s in _merge((s.item, s.count) for s in a)] == [
        (s.item, s.count) for s in _merge((s.item, s.count) for s in b)
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


class EventRecord(BaseModel):
    """One entry of the append-only log.

    Attributes:
        seq: Position in the log (0-based).
        kind: What happened.
        action_index: The skill action it is attributed to (0 = before the first action).
        in_action: False for events between the end of an action and the start of the next.
        tick: Server tick.
        player: The player's name, if any.
        detail: Kind-specific facts (block, grid, recipe, device, input, advancement...).
        outcome: Actual and vanilla outcomes with rule ids (``None`` for milestones).
    """

    model_config = ConfigDict(frozen=True)

    seq: int
    kind: EventKind
    action_index: int
    in_action: bool
    tick: int
    player: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)
    outcome: Outcome | None = None


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
            actual=_merge([(actual.item, actual.count * times)] if actual else []),
            vanilla=_merge([(vanilla.item, vanilla.count * times)] if vanilla else []),
            rules=rules,
            resources=list(dict.fromkeys(resources)),
        )
        return actual, out

    # -- loot ---------------------------------------------------------------------------------------
    def loot(self, location: str, ctx: LootContext, rng: random.Random) -> tuple[list[LootStack], Outcome]:
        """Roll loot table ``location`` with the world's packs (advancing ``rng``) and vanilla's (a clone).

        Returns:
            The actual stacks (to spawn) and the outcome record.
        """
        clone = random.Random()
        clone.setstate(rng.getstate())
        actual = self._roll(self.packs, self.book, location, ctx, rng)
        vanilla = self._roll(self.vanilla, self.vanilla_book, location, ctx, clone)
        loc = location if ":" in location else f"minecraft:{location}"
        out = Outcome(
            actual=_merge((s.name, s.count) for s in actual),
            vanilla=_merge((s.name, s.count) for s in vanilla),
            rules=list(self.packs.rule_ids("loot_tables", loc)),
            resources=[f"loot_tables/{loc}"],
        )
        return actual, out

    @staticmethod
    def _roll(
        packs: DatapackSet, book: RecipeBook, location: str, ctx: LootContext, rng: random.Random
    ) -> list[LootStack]:
        if location not in packs.loot:
            return []

        def smelt(item: str) -> str | None:
            r = book.cooking_recipe(f"minecraft:{_SMELT_TYPES['furnace']}", item)
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
            actual=_merge([(take.item, take.count)]),
            vanilla=_merge(vanilla),
            rules=rules,
            resources=list(dict.fromkeys(resources)),
        )


class EmbeddedEvaluator(Evaluator):
    """The in-process evaluator of the embedded server.

    Args:
        manifest_loader: Suite id → manifest (default: the shipped manifests). Only rule ids of the
            episode's manifest can be encountered.
        clock: Returns the server tick (used when an event is recorded without one).
        explicit_actions: True (default): the runner calls :meth:`begin_action`; False: the implicit form
            for runners that only call ``after_action`` (see the module docstring).
    """

    kind = "embedded"

    def __init__(
        self,
        manifest_loader: Callable[[str], SuiteManifest] = load_suite,
        clock: Callable[[], int] | None = None,
        *,
        explicit_actions: bool = True,
    ) -> None:
        self._load_manifest = manifest_loader
        self._clock = clock or (lambda: 0)
        self._explicit = explicit_actions
        self._reset(None)

    def _reset(self, manifest: SuiteManifest | None) -> None:
        self.manifest = manifest
        self._rules = {r.id for r in manifest.rules} if manifest else set()
        self._log: list[EventRecord] = []
        self._signatures: dict[int, Signature] = {}
        self._current = 0
        self._in_action = False
        self._closed = 0
        self._first: dict[str, int] = {}  # rule id → action index of its encounter
        self._milestones: list[MilestoneEvent] = []

    # -- the Evaluator ABC ---------------------------------------------------------------------------
    async def begin(self, identity: EpisodeIdentity) -> None:
        """Start a new episode: clear the log and load the suite's manifest (none for a Vanilla world)."""
        self._reset(self._load_manifest(identity.suite) if identity.suite else None)

    def begin_manifest(self, manifest: SuiteManifest | None) -> None:
        """Start a new episode with an explicit manifest (tests, tools)."""
        self._reset(manifest)

    def begin_action(self, index: int, sig: Signature | SkillCall) -> None:
        """Skill action ``index`` starts; server events from now on are attributed to it.

        Raises:
            ContractError: ``index`` does not increase, or the evaluator was built with
                ``explicit_actions=False``.
        """
        if not self._explicit:
            raise ContractError("begin_action on an evaluator built with explicit_actions=False")
        if index <= self._current:
            raise ContractError(f"begin_action({index}) after action {self._current}: indices must increase")
        self._current = index
        self._in_action = True
        self._signatures[index] = signature(sig) if isinstance(sig, SkillCall) else tuple(sig)

    async def after_action(self, index: int, call: SkillCall, report: OutcomeReport) -> None:
        """Action ``index`` ended (tick barrier passed): later events are between actions."""
        self._signatures.setdefault(index, signature(call))
        self._closed = max(self._closed, index)
        if self._explicit:
            self._in_action = False

    async def milestones(self) -> list[MilestoneEvent]:
        return list(self._milestones)

    async def encounters(self) -> list[RuleEncounter]:
        return self.encounter_list()

    # -- recording (called by the server) ------------------------------------------------------------
    def _attribution(self) -> tuple[int, bool]:
        if self._explicit:
            return self._current, self._in_action
        return self._closed + 1, True

    def record(
        self,
        kind: EventKind,
        *,
        player: str | None = None,
        tick: int | None = None,
        detail: dict[str, Any] | None = None,
        outcome: Outcome | None = None,
    ) -> EventRecord:
        """Append one event (attributed to the current action) and note encounters.

        Returns:
            The stored record.
        """
        index, in_action = self._attribution()
        rec = EventRecord(
            seq=len(self._log),
            kind=kind,
            action_index=index,
            in_action=in_action,
            tick=self._clock() if tick is None else tick,
            player=player,
            detail=detail or {},
            outcome=outcome,
        )
        self._log.append(rec)
        if outcome is not None and in_action and index >= 1 and not _same(outcome.actual, outcome.vanilla):
            for rid in outcome.rules:
                if rid in self._rules and rid not in self._first:
                    self._first[rid] = index
        return rec

    def record_milestone(
        self, advancement: str, *, tick: int | None = None, player: str | None = None
    ) -> None:
        """An advancement was completed (story advancements become milestones)."""
        rec = self.record("milestone", player=player, tick=tick, detail={"advancement": advancement})
        if advancement.startswith("minecraft:story/") and all(
            m.advancement != advancement for m in self._milestones
        ):
            self._milestones.append(
                MilestoneEvent(advancement=advancement, action_index=rec.action_index, tick=rec.tick)
            )

    def record_dig(
        self, block: str, outcome: Outcome, *, pos: tuple[int, int, int] | None = None, **kw: Any
    ) -> EventRecord:
        """A block was broken; ``outcome`` from :meth:`OutcomeOracle.loot`."""
        return self.record(
            "dig", detail={"block": block, "pos": list(pos) if pos else None}, outcome=outcome, **kw
        )

    def record_kill(self, entity: str, outcome: Outcome, **kw: Any) -> EventRecord:
        """A mob died to the player; ``outcome`` from :meth:`OutcomeOracle.loot`."""
        return self.record("kill", detail={"entity": entity}, outcome=outcome, **kw)

    def record_craft(
        self, grid: Sequence[Sequence[str | None]], result: CraftResult | None, outcome: Outcome, **kw: Any
    ) -> EventRecord:
        """A crafting result was taken; ``result``/``outcome`` from :meth:`OutcomeOracle.craft`."""
        detail = {"grid": [list(r) for r in grid], "recipe": result.recipe if result else None}
        return self.record("craft", detail=detail, outcome=outcome, **kw)

    def record_smelt(self, device: str, take: Take, outcome: Outcome, **kw: Any) -> EventRecord:
        """Items were taken from a cooking device; ``outcome`` from :meth:`OutcomeOracle.cook_take`."""
        inputs = sorted({u.input for u in take.units})
        return self.record(
            "smelt", detail={"device": device, "inputs": inputs, "xp": take.experience}, outcome=outcome, **kw
        )

    def record_place(self, item: str, *, pos: tuple[int, int, int] | None = None, **kw: Any) -> EventRecord:
        """A block or item was placed (no outcome: placing is not rule-changed)."""
        return self.record("place", detail={"item": item, "pos": list(pos) if pos else None}, **kw)

    def record_enchant(
        self, item: str, result: str, enchantments: dict[str, int], levels: int, **kw: Any
    ) -> EventRecord:
        """An item was enchanted (not rule-changed in 1.19: actual = vanilla)."""
        stacks = [ItemStack(item=result, count=1)]
        return self.record(
            "enchant",
            detail={"item": item, "enchantments": enchantments, "levels": levels},
            outcome=Outcome(actual=stacks, vanilla=stacks),
            **kw,
        )

    # -- reading -------------------------------------------------------------------------------------
    def events(self) -> list[EventRecord]:
        """The whole log, in order."""
        return list(self._log)

    def encounter_list(self) -> list[RuleEncounter]:
        """Rule encounters so far, in order of action index then rule id."""
        out = []
        for rid, index in sorted(self._first.items(), key=lambda kv: (kv[1], kv[0])):
            events = [
                e
                for e in self._log
                if e.action_index == index
                and e.in_action
                and e.outcome is not None
                and rid in e.outcome.rules
            ]
            actual = _merge((s.item, s.count) for e in events for s in e.outcome.actual)  # type: ignore[union-attr]
            vanilla = _merge((s.item, s.count) for e in events for s in e.outcome.vanilla)  # type: ignore[union-attr]
            if _same(actual, vanilla):  # differences cancelled out over the action: report the first one
                first = next(e for e in events if not _same(e.outcome.actual, e.outcome.vanilla))  # type: ignore[union-attr]
                actual, vanilla = list(first.outcome.actual), list(first.outcome.vanilla)  # type: ignore[union-attr]
            sig = self._signatures.get(index)
            if not sig:
                continue  # the action never told us its signature: cannot build a valid record yet
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
