"""The embedded server's hidden evaluator: an append-only event log, milestones and rule encounters.

It listens to the server's ``"outcome"`` events (:mod:`mirrorcraft.server.outcomes`): attach it with
:meth:`EmbeddedEvaluator.attach` before the player joins, so advancements granted at join are kept.

Why: the metrics of the paper's behaviour analysis (IRR, RL) need, per manifest rule, the first action
whose *actual* outcome differed from what vanilla rules would have given for the *same* action (spec,
"Behaviour after rule encounters"). Only the server knows both: it resolves every outcome twice, once
with the world's packs and once with the vendored vanilla pack alone
(:meth:`~mirrorcraft.rules.datapacks.DatapackSet.vanilla_only`, :mod:`mirrorcraft.rules.oracle`). Nothing here is ever sent to
the agent; the harness reads it through the :class:`~mirrorcraft.contracts.interfaces.Evaluator` methods.

How the vanilla outcome is computed: :mod:`mirrorcraft.rules.oracle`.

Resources carry rule ids through the Mirror pack's index (``data/mirrorcraft/rules/index.json``):
:meth:`DatapackSet.rule_ids`. Every event of an action (index >= 1) with an outcome *touches* the rules it
names; the encounters follow from those touches exactly as for every evaluator
(:class:`~mirrorcraft.harness.encounters.EncounterBook`: a candidate is a touch whose actual and vanilla
stacks differ; the encounter of R is its first candidate action, with the totals over all events of that
action that touched R). Touching an overridden resource with the vanilla outcome (a stripped log in M01's
planks recipe, blasting an unaffected item) is logged but is not an encounter.

Attribution to actions: the runner calls :meth:`EmbeddedEvaluator.begin_action` when skill action
``index`` starts; every server event until the next ``begin_action`` belongs to it (events after
:meth:`after_action` and before the next action are logged with ``in_action = False`` and never make
encounters); events before the first action (milestones at join) carry index 0. A runner that only calls
the ABC's ``after_action`` builds the evaluator with ``explicit_actions=False`` and gets the implicit
form: events between ``after_action(i - 1)`` and ``after_action(i)`` belong to action ``i``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.episodes import EpisodeIdentity, MilestoneEvent
from mirrorcraft.contracts.interfaces import Evaluator
from mirrorcraft.contracts.rules import RuleEncounter, SuiteManifest, load_suite
from mirrorcraft.contracts.skills import OutcomeReport, Signature, SkillCall, signature
from mirrorcraft.errors import ContractError
from mirrorcraft.harness.encounters import EncounterBook
from mirrorcraft.rules.cooking import Take
from mirrorcraft.rules.oracle import Outcome
from mirrorcraft.rules.recipes import CraftResult
from mirrorcraft.server import outcomes
from mirrorcraft.server.outcomes import EventKind, OutcomeEvent

__all__ = [
    "EmbeddedEvaluator",
    "EventKind",
    "EventRecord",
    "Outcome",
    "OutcomeEvent",
]


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
    basis = "server: embedded evaluator (server-side attribution)"

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

    @classmethod
    def attach(cls, game: Any, **kwargs: Any) -> EmbeddedEvaluator:
        """An evaluator listening to ``game``'s ``"outcome"`` events, on the game's tick clock.

        Args:
            game: The running :class:`~mirrorcraft.server.game.Game` (``EmbeddedServer.game``): its
                ``subscribe(listener)`` and ``tick_count`` are all this uses.
            kwargs: As for the constructor (``manifest_loader``, ``explicit_actions``).
        """
        ev = cls(clock=lambda: game.tick_count, **kwargs)
        game.subscribe(ev.on_event)
        return ev

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        """A server event: ``"outcome"`` events are recorded, others ignored."""
        if event == "outcome":
            self.record_event(data["outcome"])

    def _reset(self, manifest: SuiteManifest | None) -> None:
        self.manifest = manifest
        self._book = EncounterBook(r.id for r in manifest.rules) if manifest else EncounterBook()
        self._log: list[EventRecord] = []
        self._signatures: dict[int, Signature] = {}
        self._current = 0
        self._in_action = False
        self._closed = 0
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
        if outcome is not None and in_action and index >= 1:
            for rid in outcome.rules:
                self._book.touch(rid, index, outcome.actual, outcome.vanilla)
        return rec

    def record_event(self, event: OutcomeEvent) -> EventRecord:
        """Append one server event (milestones also become :class:`MilestoneEvent` once each)."""
        rec = self.record(
            event.kind, player=event.player, tick=event.tick, detail=dict(event.detail), outcome=event.outcome
        )
        advancement = event.detail.get("advancement") if event.kind == "milestone" else None
        if isinstance(advancement, str) and advancement.startswith("minecraft:story/"):
            if all(m.advancement != advancement for m in self._milestones):
                self._milestones.append(
                    MilestoneEvent(advancement=advancement, action_index=rec.action_index, tick=rec.tick)
                )
        return rec

    # Convenience forms of :meth:`record_event` (the builders of :mod:`mirrorcraft.server.outcomes`).
    def record_milestone(self, advancement: str, **kw: Any) -> EventRecord:
        return self.record_event(outcomes.milestone_event(advancement, **kw))

    def record_dig(self, block: str, outcome: Outcome, **kw: Any) -> EventRecord:
        return self.record_event(outcomes.dig_event(block, outcome, **kw))

    def record_kill(self, entity: str, outcome: Outcome, **kw: Any) -> EventRecord:
        return self.record_event(outcomes.kill_event(entity, outcome, **kw))

    def record_craft(
        self, grid: Sequence[Sequence[str | None]], result: CraftResult | None, outcome: Outcome, **kw: Any
    ) -> EventRecord:
        return self.record_event(outcomes.craft_event(grid, result, outcome, **kw))

    def record_smelt(self, device: str, take: Take, outcome: Outcome, **kw: Any) -> EventRecord:
        return self.record_event(outcomes.smelt_event(device, take, outcome, **kw))

    def record_place(self, item: str, **kw: Any) -> EventRecord:
        return self.record_event(outcomes.place_event(item, **kw))

    def record_enchant(
        self, item: str, result: str, enchantments: dict[str, int], levels: int, **kw: Any
    ) -> EventRecord:
        return self.record_event(outcomes.enchant_event(item, result, enchantments, levels, **kw))

    # -- reading -------------------------------------------------------------------------------------
    def events(self) -> list[EventRecord]:
        """The whole log, in order."""
        return list(self._log)

    def encounter_list(self) -> list[RuleEncounter]:
        """Rule encounters so far, in order of action index then rule id."""
        return self._book.encounters(self._signatures)
