"""One episode of a Gymnasium env, driven from outside: the runner's episode with the agent turned inside out.

Why this shape: the benchmark's episode — world copy, server in lockstep, body, RCON controls, evaluator,
agent loop, record — is :meth:`mirrorcraft.study.runner.EpisodeRunner.run`, one coroutine that *calls*
its agent. A Gymnasium env is called *by* its agent. So the session runs that same coroutine with a
:class:`PolicyBridge` as the agent: each time the loop asks the bridge to ``decide()``, the bridge parks
a Deferred and the env's ``reset``/``step`` returns; the next ``step(action)`` fires that Deferred with the
action. Nothing of the episode is re-implemented here, so an env episode gets the same world checks, tick
barriers, evaluator, end conditions and record as a study episode (the record is kept as
:attr:`EpisodeSession.record`).

Everything here runs on the reactor thread (:mod:`mirrorcraft.study.runner_reactor`); the env calls
:meth:`EpisodeSession.start`, :meth:`~EpisodeSession.act` and :meth:`~EpisodeSession.abort` through
``call_on_reactor``. In lockstep the game stands still while the bridge waits (the body acts only inside
a skill call and its barrier), so the caller's thinking time costs no game time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from twisted.internet import defer

from mirrorcraft.contracts import (
    Agent,
    AgentContext,
    EndReason,
    EpisodeIdentity,
    EpisodeRecord,
    Observation,
    PolicyError,
    SkillCall,
    TaskSpec,
    task_spec,
)
from mirrorcraft.errors import MirrorCraftError
from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings, RunNotes

#: The run notes' agent id of env episodes.
AGENT_REGISTRY_ID = "gymnasium"


class EpisodeAborted(MirrorCraftError):
    """The env was reset or closed mid-episode: the runner records it as an ``other`` fault and tears down."""


@dataclass
class DecisionPoint:
    """Where the episode stands when control returns to the env's caller.

    Attributes:
        observation: the latest observation the loop handed the agent.
        actions_used: executed actions so far.
        score: Score after them (the record's S_k; at the end the record's final score).
        finished: the episode ended (the record is built, the server stopped).
        record: the episode record once finished.
        encounters: the hidden rule encounters so far (JSON), only when the session reveals them.
    """

    observation: Observation | None
    actions_used: int
    score: int
    finished: bool
    record: EpisodeRecord | None = None
    encounters: list[dict[str, Any]] = field(default_factory=list)


class PolicyBridge(Agent):
    """The agent of an env episode: it decides whatever the env's caller passes to ``step``."""

    def __init__(self, session: EpisodeSession) -> None:
        self.session = session
        self.context: AgentContext | None = None

    def reset(self, context: AgentContext) -> None:
        self.context = context

    def observe(self, observation: Observation) -> None:
        self.session.observation = observation

    async def decide(self) -> SkillCall | PolicyError:
        if self.session.aborted:  # abort() came while a call ran (the caller was interrupted mid-step)
            raise EpisodeAborted("the env was reset or closed mid-episode")
        pending: defer.Deferred[SkillCall | PolicyError] = defer.Deferred()
        self.session.pending = pending
        self.session.reached()
        return await pending

    @property
    def prompt_template_version(self) -> str:
        """No prompt: the record says so."""
        return "none"


class EpisodeSession:
    """One env episode on the reactor thread (module docstring).

    Args:
        identity: the episode (world copy, task, budget, seed).
        settings: how the runner runs it (the env passes lockstep settings).
        reveal_hidden: fill :attr:`DecisionPoint.encounters` from the hidden evaluator.
    """

    def __init__(self, identity: EpisodeIdentity, settings: RunnerSettings, *, reveal_hidden: bool) -> None:
        self.identity = identity
        self.spec: TaskSpec = task_spec(identity.task, budget=identity.budget)
        self.reveal_hidden = reveal_hidden
        self.bridge = PolicyBridge(self)
        self.runner = EpisodeRunner(settings, agent_factory=self._agent)
        self.observation: Observation | None = None
        self.pending: defer.Deferred[SkillCall | PolicyError] | None = None
        self.record: EpisodeRecord | None = None
        self.actions_used = 0
        self._waiter: defer.Deferred[None] | None = None
        self._run: defer.Deferred[EpisodeRecord] | None = None
        self.error: Any = None
        self.aborted = False
        self._last_score = 0  # Score at the last decision point (a fault record's score is 0: not a loss)

    def _agent(
        self, identity: EpisodeIdentity, settings: RunnerSettings, notes: RunNotes
    ) -> tuple[Agent, list[str] | None]:
        notes.agent_registry_id = AGENT_REGISTRY_ID
        return self.bridge, None

    # -- reactor-side control ----------------------------------------------------------------------
    def reached(self) -> None:
        """The loop asks for a decision, or the episode ended: wake the env's call."""
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.called:
            waiter.callback(None)

    def _finished(self, record: EpisodeRecord) -> EpisodeRecord:
        self.record = record
        self.pending = None
        self.reached()
        return record

    def _crashed(self, failure: Any) -> None:
        # EpisodeRunner.run records every failure as a fault record; this is the harness bug it cannot be.
        self.error = failure
        self.pending = None
        self.reached()

    async def start(self) -> DecisionPoint:
        """Start the episode and wait for its first decision point (or its end: a fault at setup)."""
        self._waiter = defer.Deferred()
        waiter = self._waiter
        self._run = defer.ensureDeferred(self.runner.run(self.identity))
        self._run.addCallbacks(self._finished, self._crashed)
        await waiter
        return await self._point()

    async def act(self, decision: SkillCall | PolicyError) -> DecisionPoint:
        """Hand the parked ``decide()`` its answer and wait for the next decision point or the end."""
        if self.pending is None:
            raise MirrorCraftError("the episode is not waiting for an action")
        pending, self.pending = self.pending, None
        self._waiter = defer.Deferred()
        waiter = self._waiter
        if isinstance(decision, SkillCall):
            self.actions_used += 1
        pending.callback(decision)
        await waiter
        return await self._point()

    async def abort(self) -> EpisodeRecord | None:
        """End the episode now (reset or close mid-episode): the runner tears the server down."""
        if self._run is None:
            return None
        self.aborted = True  # a decide() still to come ends the episode too
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending.errback(EpisodeAborted("the env was reset or closed mid-episode"))
        if not self._run.called:
            await self._run
        return self.record

    async def _point(self) -> DecisionPoint:
        if self.error is not None:
            self.error.raiseException()
        record = self.record
        if record is not None:
            faulted = record.outcome.end_reason == EndReason.INFRASTRUCTURE_FAULT
            return DecisionPoint(
                observation=self.observation,
                actions_used=record.outcome.actions_used,
                score=self._last_score if faulted else record.outcome.score,
                finished=True,
                record=record,
                encounters=[e.model_dump(mode="json") for e in record.encounters]
                if self.reveal_hidden
                else [],
            )
        evaluator = self.runner.last_evaluator
        k = self.actions_used
        values = self.spec.values()
        seen = [m for m in await evaluator.milestones() if m.advancement in values and m.action_index <= k]
        score = self.spec.score(m.advancement for m in seen)
        self._last_score = score
        encounters: list[dict[str, Any]] = []
        if self.reveal_hidden:
            encounters = [e.model_dump(mode="json") for e in await evaluator.encounters()]
        return DecisionPoint(self.observation, k, score, finished=False, encounters=encounters)


__all__ = ["AGENT_REGISTRY_ID", "DecisionPoint", "EpisodeAborted", "EpisodeSession", "PolicyBridge"]
