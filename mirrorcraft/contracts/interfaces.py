"""Abstract interfaces the parts implement (no implementations here).

All I/O methods are ``async def``: the agent side runs on one Twisted reactor and calls them through
``ensureDeferred`` (architecture principle 5). The agent interface receives an :class:`AgentContext`,
never an :class:`~mirrorcraft.contracts.episodes.EpisodeIdentity`, so an agent cannot learn the world,
the suite or the seed; "ReAct w/rules" gets the rule cards as plain text in ``rule_cards``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.episodes import Controls, EpisodeIdentity, MilestoneEvent, PolicyError, SpawnInfo
from mirrorcraft.contracts.observation import Observation
from mirrorcraft.contracts.rules import RuleEncounter
from mirrorcraft.contracts.skills import OutcomeReport, SkillCall, SkillSpec
from mirrorcraft.contracts.tasks import TaskSpec


class AgentContext(BaseModel):
    """What an agent is told at the start of an episode (and nothing about world or rules identity)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: TaskSpec
    skills: list[SkillSpec]
    rule_cards: list[str] | None = Field(None, description="Only for 'ReAct w/rules': the exact card texts.")
    max_consecutive_policy_errors: int = Field(3, ge=1)
    rng_seed: int = Field(ge=0, description="Seed for the agent's own sampling choices, if any.")


class Agent(ABC):
    """An agent configuration: cleared per episode, observes, decides one skill call at a time."""

    @abstractmethod
    def reset(self, context: AgentContext) -> None:
        """Clear all state (traces, lessons, libraries, graphs) and start a new episode."""

    @abstractmethod
    def observe(self, observation: Observation) -> None:
        """Receive the observation after the previous action (or the initial one)."""

    @abstractmethod
    async def decide(self) -> SkillCall | PolicyError:
        """Return the next skill call, or a policy error (raw text kept; it costs no budget)."""


class Skill(ABC):
    """One semantic skill executed by the body."""

    @property
    @abstractmethod
    def spec(self) -> SkillSpec:
        """The skill's spec (name, description, parameters schema)."""

    @abstractmethod
    async def execute(self, call: SkillCall) -> OutcomeReport:
        """Run the call within its caps and game-time limit and report what actually happened.

        Must not raise for in-game failures: those are a ``failure`` report with a reason.
        """


class ServerControl(ABC):
    """Control of the server hosting an episode (embedded server or a user's vanilla server via RCON)."""

    @abstractmethod
    async def reset(self, identity: EpisodeIdentity) -> SpawnInfo:
        """Load a fresh copy of the episode's world (Vanilla or Mirror), seed its randomness from
        ``identity.seed``, and return where the player spawned (recorded in the episode record)."""

    @abstractmethod
    async def apply_controls(self, controls: Controls) -> Controls:
        """Apply the runtime controls and return what was actually applied (recorded in the record)."""

    @abstractmethod
    async def query_milestones(self) -> list[str]:
        """Advancement ids the player has completed, after a tick barrier (all effects processed)."""


class Evaluator(ABC):
    """The hidden evaluator of a running episode: milestones and rule encounters, never shown to the agent.

    What every evaluator answers, in the order the episode runner calls it:

    1. :meth:`begin` — a new episode, before the player joins (so an evaluator that listens to the
       server keeps what is granted at join);
    2. :meth:`joined` — the player is in and a tick barrier passed, before the first action: read what
       the server granted so far (attributed to action 0);
    3. per action ``i`` (1, 2, ...): :meth:`begin_action` when it starts, then — after it ran and a tick
       barrier passed — :meth:`after_action`;
    4. :meth:`milestones` and :meth:`encounters` at any time (the record takes them at the end).

    Attributes:
        kind: what the episode record's ``evaluator`` field says: ``"embedded"`` (the harness reads the
            server's own state: in-process events or the packets it sent) or ``"rcon"`` (advancement
            queries over RCON, for a server the harness can only reach that way).
        basis: how milestones and encounters are derived, in words (the run notes' ``evaluator_basis``), so
            nobody mistakes harness-side guesses for server-side attribution.
    """

    kind: ClassVar[Literal["embedded", "rcon"]] = "embedded"
    basis: ClassVar[str] = ""

    @abstractmethod
    async def begin(self, identity: EpisodeIdentity) -> None:
        """Start evaluating a new episode (the player is not in the game yet)."""

    async def joined(self) -> None:  # noqa: B027 - optional hook with a documented default
        """The player joined and a tick barrier passed; no action ran yet.

        Default: nothing — right for an evaluator that has listened to the server since :meth:`begin`. An
        evaluator that polls (advancement queries, the advancement packets) reads the milestones granted
        at join here, as action 0.
        """

    def begin_action(self, index: int, call: SkillCall) -> None:  # noqa: B027 - optional, documented default
        """Skill action ``index`` starts: what the server does from now on belongs to it.

        Default: nothing — right for an evaluator that attributes per action in :meth:`after_action`. An
        evaluator that sees server events as they happen attributes them to ``index`` from here on.
        """

    @abstractmethod
    async def after_action(self, index: int, call: SkillCall, report: OutcomeReport) -> None:
        """Called after action ``index`` has been executed and a tick barrier passed."""

    @abstractmethod
    async def milestones(self) -> list[MilestoneEvent]:
        """Milestones granted so far, with the action index and tick at which they were seen."""

    @abstractmethod
    async def encounters(self) -> list[RuleEncounter]:
        """Rule encounters so far: per manifest rule, the first action whose outcome differed from vanilla."""
