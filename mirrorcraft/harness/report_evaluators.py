"""Evaluators for servers whose events the harness cannot see: over RCON, and from the advancement packets.

Why: the embedded evaluator (:class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator`) listens to an
in-process server's outcome events. A user's vanilla jar offers only RCON, and the embedded server in a
child process (:mod:`mirrorcraft.harness.process`) shares no memory with the harness; for both, rule
encounters are derived *harness-side* from the suite manifest and the outcome reports
(:func:`~mirrorcraft.harness.encounters.report_outcomes` into the one
:class:`~mirrorcraft.harness.encounters.EncounterBook`), and milestones are polled after each action:

* :class:`RconEvaluator` — advancement queries over RCON
  (:meth:`~mirrorcraft.harness.control.RconServerControl.query_milestones`); RCON replies come between
  ticks, so the query is its own tick barrier; the tick is ``time query gametime``;
* :class:`PacketEvaluator` — the ``minecraft:story/*`` advancements the *server* marked done in the
  ``advancements`` packets it sent to the player (the body's
  :class:`~mirrorcraft.mcproto_body.advancements.Advancements` view, passed in as a callable; the agent sees
  the same done flags in its task view, never how they are decided); the tick is the server's when known,
  else wall time since the episode start × tick rate (the runner's clock).

Milestones are attributed to the action that just ended (0 = at join, :meth:`joined`). The run notes
record which evaluator and basis an episode used (``evaluator_basis``); docs/control.md lists what the
harness-side encounters detect and what they cannot.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

from mirrorcraft.contracts.episodes import EpisodeIdentity, MilestoneEvent
from mirrorcraft.contracts.interfaces import Evaluator
from mirrorcraft.contracts.rules import RuleEncounter, SuiteManifest, load_suite
from mirrorcraft.contracts.skills import OutcomeReport, Signature, SkillCall, signature
from mirrorcraft.contracts.tasks import STORY
from mirrorcraft.harness.control import RconServerControl
from mirrorcraft.harness.encounters import EncounterBook, report_outcomes

__all__ = ["PacketEvaluator", "RconEvaluator", "ReportEvaluator"]


class ReportEvaluator(Evaluator):
    """Encounters from the manifest and the outcome reports; milestones from :meth:`poll` (subclasses).

    Args:
        suites: suite id → manifest loader (default: the shipped manifests).
    """

    def __init__(self, suites: Callable[[str], SuiteManifest] = load_suite) -> None:
        self._suites = suites
        self._manifest: SuiteManifest | None = None
        self._book = EncounterBook()
        self._signatures: dict[int, Signature] = {}
        self._milestones: list[MilestoneEvent] = []

    @abstractmethod
    async def poll(self, index: int) -> list[str]:
        """Record the story advancements done since the last poll against action ``index``; returns them."""

    def _record(self, done: list[str], index: int, tick: int) -> None:
        self._milestones.extend(MilestoneEvent(advancement=a, action_index=index, tick=tick) for a in done)

    def _new(self, done: list[str]) -> list[str]:
        """Story advancements of ``done`` (in its order) not recorded yet."""
        seen = {m.advancement for m in self._milestones}
        return [a for a in done if a.startswith(STORY) and a not in seen]

    async def begin(self, identity: EpisodeIdentity) -> None:
        """Load the suite's manifest (none for a Vanilla world) and forget the previous episode."""
        self._manifest = self._suites(identity.suite) if identity.suite else None
        self._book = EncounterBook(r.id for r in self._manifest.rules) if self._manifest else EncounterBook()
        self._signatures = {}
        self._milestones = []

    async def joined(self) -> None:
        """Milestones granted at join, as action 0."""
        await self.poll(0)

    async def after_action(self, index: int, call: SkillCall, report: OutcomeReport) -> None:
        """Poll the milestones, then judge the action's report against the manifest."""
        await self.poll(index)
        if self._manifest is not None:
            self._signatures[index] = signature(call)
            for rule_id, actual, vanilla in report_outcomes(self._manifest, call, report):
                self._book.touch(rule_id, index, actual, vanilla)

    async def milestones(self) -> list[MilestoneEvent]:
        return list(self._milestones)

    async def encounters(self) -> list[RuleEncounter]:
        return self._book.encounters(self._signatures)


class RconEvaluator(ReportEvaluator):
    """An ``Evaluator`` for servers reachable only over RCON (a user's vanilla jar).

    Milestones come from advancement queries after every action; rule encounters are derived
    harness-side (:attr:`encounter_basis`, module docstring).

    Args:
        control: the RCON control of the same server.
        suites: suite id → manifest loader (default: the shipped manifests).
    """

    kind = "rcon"
    #: Where encounters come from (recorded so nobody mistakes them for server-side attribution).
    encounter_basis = "harness: suite manifest + outcome reports (no server-side attribution over RCON)"
    basis = "rcon: advancement queries; encounters " + encounter_basis

    def __init__(
        self, control: RconServerControl, suites: Callable[[str], SuiteManifest] = load_suite
    ) -> None:
        super().__init__(suites)
        self.control = control

    async def poll(self, index: int) -> list[str]:
        """Query the advancements over RCON; the tick (``time query gametime``) only when one is new."""
        new = self._new(await self.control.query_milestones())
        if new:
            self._record(new, index, await self.control.game_time())
        return new


class PacketEvaluator(ReportEvaluator):
    """Milestones from the server's advancement packets, encounters from manifest + reports (docstring).

    The runner's evaluator for the embedded server in a child process.

    Args:
        done: returns the advancement ids the player has completed (e.g. ``body.advancements.done``).
        clock_ticks: returns the tick to record with a milestone.
        suites: suite id → manifest (default: the shipped manifests).
    """

    kind = "embedded"
    basis = "harness: advancements packets + suite manifest and outcome reports"

    def __init__(
        self,
        done: Callable[[], list[str]],
        clock_ticks: Callable[[], int],
        suites: Callable[[str], SuiteManifest] = load_suite,
    ) -> None:
        super().__init__(suites)
        self._done = done
        self._ticks = clock_ticks

    async def poll(self, index: int) -> list[str]:
        """Read the body's advancement view (sorted by id)."""
        new = self._new(sorted(self._done()))
        self._record(new, index, max(0, int(self._ticks())))
        return new
