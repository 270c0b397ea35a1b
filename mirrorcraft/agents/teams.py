"""Team systems (PillagerBench): what controls a team's two players, behind one small ABC with a registry.

A team system is one object per pairing that lives across the consecutive episodes of a block (the
original's multi-round learning): :meth:`TeamPolicy.pre_game` before each episode, :meth:`TeamPolicy.act`
for each of its players whenever that player is free (the two players run concurrently), and
:meth:`TeamPolicy.post_game` with the episode's outcome; :meth:`checkpoint` / :meth:`restore` carry its
state across a resumed study.

What a player is shown is the versioned :class:`~mirrorcraft.contracts.TeamObservation` (the player part
of the MirrorCraft observation, its side and team mate, the sidebar, recent chat, and the time left only with
the documented setting ``show_time_left``; ``docs/schemas/team_observation.schema.json``). It never shows the
judges' rules, the arena's identity or the episode length. The scenario's public description is the
:class:`GameBriefing`'s, given once before an episode.

Built-in here: ``do_nothing`` (the baseline S's normal score is measured against) and ``random`` (random skill
calls with random valid arguments, seeded from the episode seed and the player). The scenario opponents
(passive, balanced, aggressive, slimy; berries, cake_beetroot, melon_pumpkin, potato_cookie) are in
:mod:`mirrorcraft.agents.team_opponents`.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.contracts import PolicyError, SkillCall, TeamObservation, Usage
from mirrorcraft.contracts.teams import TeamOutcome, TeamSystem
from mirrorcraft.errors import ContractError


@dataclass(frozen=True)
class GameBriefing:
    """What a system is told before an episode: its side and players, the scenario, the episode's index in
    its block (never the episode length: the original does not tell agents)."""

    scenario: str
    side: str
    players: tuple[str, str]
    block_index: int
    seed: int
    #: The scenario's public description, as the original gives every system: each side's area centre
    #: (``areas``: side → (x, y, z)), team blocks (``team_blocks``: role → side → block id), the judge
    #: player who takes a side's deliveries (``judges``: side → name; ``judge_spots``: side → where it stands)
    #: and the points of interest with their coordinates in the arena being played (``points``: label →
    #: (x, y, z), e.g. ``"egg chest"``, ``"wheat farm"``; the original's description lists them). Never the
    #: judges' rules or numbers.
    facts: dict[str, Any] = field(default_factory=dict)
    #: The episode's id (an LLM system names its recorded-call files after it); empty when played by hand.
    episode_id: str = ""


class TeamLLMRuntime(BaseModel):
    """How an LLM team system reaches its model, beyond its identity (nothing here enters an episode id).

    ``models``: model name → :class:`~mirrorcraft.agents.llm.LLMRuntime` (endpoint, key variable, timeout,
    retries, cost cap, prices), as the MirrorCraft runner's ``RunnerSettings.llm``. ``record_dir`` /
    ``replay_dir``: record every model call to, or answer them from, ``<dir>/<episode id>.<player>.jsonl`` (one
    file per player, whose calls are sequential, and ``<episode id>.team.jsonl`` for the system's calls between
    episodes). ``replay_strict``: compare whole requests on replay (else the sections marked ``(observed)``,
    which depend on game timing in free-running episodes, are left out of the comparison;
    :mod:`mirrorcraft.agents.team_replay`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    models: dict[str, LLMRuntime] = Field(default_factory=dict)
    record_dir: Path | None = None
    replay_dir: Path | None = None
    replay_strict: bool = False


class TeamPolicy(ABC):
    """A team system (one per pairing and side, kept across the episodes of a block)."""

    id: ClassVar[str]

    def __init__(self, system: TeamSystem) -> None:
        self.system = system
        self.briefing: GameBriefing | None = None

    def pre_game(self, briefing: GameBriefing) -> None:
        """Before an episode (the system's state from earlier episodes of the block is kept)."""
        self.briefing = briefing

    @abstractmethod
    async def act(self, view: TeamObservation) -> SkillCall | None:
        """The next skill call of ``view.player``, or ``None`` to let one game second pass."""

    def post_game(self, outcome: TeamOutcome) -> None:  # noqa: B027 - optional hook
        """After an episode, with its final scores (a learning system revises itself here)."""

    def checkpoint(self) -> dict[str, Any]:
        """JSON-able state to resume a block from (default: nothing to keep)."""
        return {}

    def restore(self, state: dict[str, Any]) -> None:  # noqa: B027 - optional hook
        """Restore :meth:`checkpoint`'s state."""

    # ---- hooks the episode uses; the defaults suit systems that call no model ---------------------------

    async def apre_game(self, briefing: GameBriefing) -> None:
        """What the episode awaits before it starts: :meth:`pre_game` by default. An LLM system that calls its
        model between episodes overrides this (the call then runs off the reactor, not blocking the server)."""
        self.pre_game(briefing)

    async def apost_game(self, outcome: TeamOutcome) -> None:
        """What the episode awaits after time-up: :meth:`post_game` by default (see :meth:`apre_game`)."""
        self.post_game(outcome)

    def configure_llm(self, runtime: TeamLLMRuntime) -> None:  # noqa: B027 - optional hook
        """Take the model runtime (endpoint, limits, record/replay folders); systems without a model ignore it."""

    def think_ticks(self, player: str) -> int:
        """Game ticks one :meth:`act` for ``player`` costs in a lockstep team episode (the world runs on while
        the player thinks; docs/pillagerbench.md "Lockstep"). 0 for systems that call no model: they answer
        at once."""
        return 0

    def take_policy_errors(self, player: str) -> list[PolicyError]:
        """The policy errors (unusable model answers, raw text kept) of ``player`` since the last call;
        the episode files them under the player's next action (or its trailing errors)."""
        return []

    def take_faults(self, player: str) -> list[tuple[str, str]]:
        """``(kind, message)`` of the faults of ``player`` since the last call that did not stop it (a model call
        that timed out: ``unresponsive``); the episode records each as an agent fault at that moment."""
        return []

    def usage(self) -> Usage | None:
        """The model calls, tokens and cost of the current episode (None: the system calls no model)."""
        return None


TEAM_POLICIES: dict[str, type[TeamPolicy]] = {}


def register_team_policy(cls: type[TeamPolicy]) -> type[TeamPolicy]:
    if cls.id in TEAM_POLICIES:
        raise ContractError(f"two team systems named {cls.id!r}")
    TEAM_POLICIES[cls.id] = cls
    return cls


def make_team_policy(system: TeamSystem, llm: TeamLLMRuntime | None = None) -> TeamPolicy:
    """The registered system ``system.id``, given the model runtime ``llm`` (LLM systems; the default runtime
    reaches the model with litellm's defaults and records nothing).

    Raises:
        ContractError: no such system (the message lists the known ones), or bad settings for it.
    """
    cls = TEAM_POLICIES.get(system.id)
    if cls is None:
        raise ContractError(f"unknown team system {system.id!r}; known: {', '.join(sorted(TEAM_POLICIES))}")
    policy = cls(system)
    policy.configure_llm(llm or TeamLLMRuntime())
    return policy


@register_team_policy
class DoNothing(TeamPolicy):
    """Stands still: the baseline an opponent's normal score is measured against (S)."""

    id = "do_nothing"

    async def act(self, view: TeamObservation) -> SkillCall | None:
        return None


#: Blocks a random player may try to mine, per scenario (the scenario description names them to every
#: system; nothing here is a rule of the world).
RANDOM_BLOCKS: dict[str, tuple[str, ...]] = {
    "mushroom_war": ("red_mushroom_block", "brown_mushroom_block", "mushroom_stem", "slime_block"),
    "dash_and_dine": ("wheat", "carrots", "potatoes", "beetroots", "melon", "pumpkin", "sugar_cane", "cocoa"),
}


@register_team_policy
class RandomPolicy(TeamPolicy):
    """Random skill calls with random valid arguments (explore, mine a scenario block, collect), seeded from
    the episode seed and the player's name, so an episode repeats."""

    id = "random"

    def __init__(self, system: TeamSystem) -> None:
        super().__init__(system)
        self._rngs: dict[str, random.Random] = {}

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        self._rngs = {p: random.Random(f"{briefing.seed}_{p}") for p in briefing.players}

    async def act(self, view: TeamObservation) -> SkillCall | None:
        rng = self._rngs.setdefault(view.player, random.Random(view.player))
        kind = rng.choice(("explore", "mine", "collect"))
        if kind == "explore":
            return SkillCall.create(
                "explore", {"direction": rng.choice(["north", "south", "east", "west"]), "distance": 8}
            )
        if kind == "mine":
            scenario = self.briefing.scenario if self.briefing is not None else ""
            block = rng.choice(RANDOM_BLOCKS.get(scenario, ("dirt",)))
            return SkillCall.create("mine", {"block": block, "count": 1})
        return SkillCall.create("collect", {})
