"""What every LLM team system shares: one model client per player, the scenario text, parsing, accounting.

Why a base: the PillagerBench systems (``cot``, ``tacticrafter``) and our MirrorCraft configurations in team
play (``react``, ``reflexion``) differ in their memory and their procedures between episodes, not in how they
talk to the model, so the client set-up, record/replay, the answer's parsing, policy errors, timeouts and
the usage of an episode are written once here (as :class:`~mirrorcraft.agents.base.LLMAgent` does for the
MirrorCraft configurations).

* **One client per player** (and one, ``team``, for the system's own calls between episodes): a player's
  calls are sequential, so each player's recording (``<episode id>.<player>.jsonl``) replays in order although
  the two players run concurrently. Every client is the existing :class:`~mirrorcraft.agents.llm.LLMClient`
  (litellm, temperature, max tokens, per-attempt timeout, retries on transient errors, cost cap, token and
  cost accounting); the model and its sampling settings are the :class:`~mirrorcraft.contracts.TeamSystem`'s
  ``model``, the endpoint and limits the :class:`~mirrorcraft.agents.teams.TeamLLMRuntime`'s.
* **Answers**: the MirrorCraft parser (:func:`~mirrorcraft.agents.parsing.parse_action`) against the skills
  the observation offers, plus ``{"skill": "wait"}`` (let one game second pass). An unusable answer is a
  :class:`~mirrorcraft.contracts.PolicyError` of that player only (raw text kept); the player waits one game
  second and is shown the rejection in its next prompt; its team mate and the episode go on.
* **Model failures** (every attempt timed out, a permanent error, the cost cap): an ``unresponsive`` agent fault
  of that player at that moment (:meth:`take_faults`); the player waits one game second and asks again, and
  after ``max_model_failures`` failures in a row it stops asking for the rest of the episode. So a hung
  endpoint costs at most ``max_model_failures`` × (attempts × timeout) per player. A replay mismatch is not a
  model failure: it raises (the replay is wrong, not the model); a replay past its recording's end stops that
  player's asking for the episode (logged; strict replays raise).
* **Usage and the cost cap**: the clients share one :class:`~mirrorcraft.agents.llm.UsageMeter` (reset in
  ``pre_game``), so :meth:`usage` is the side's episode usage, which the episode writes to the team record's
  ``usage[side]``, and ``max_cost_usd`` caps the side's spending per episode (a refused call is a model
  failure of that player: ``unresponsive``, naming the cap).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mirrorcraft.agents.errors import ReplayMismatchError
from mirrorcraft.agents.llm import (
    LiteLLMBackend,
    LLMClient,
    LLMError,
    LLMSettings,
    Purpose,
    UsageMeter,
    import_litellm,
)
from mirrorcraft.agents.parsing import extract_json_object, parse_action
from mirrorcraft.agents.prompting import load_template, render, render_skills, templates_digest
from mirrorcraft.agents.team_replay import ReplayExhaustedError, TeamReplayBackend
from mirrorcraft.agents.teams import GameBriefing, TeamLLMRuntime, TeamPolicy
from mirrorcraft.contracts import (
    SKILL_SPECS,
    PolicyError,
    SkillCall,
    TeamObservation,
    Usage,
    serialize_team_observation,
)
from mirrorcraft.contracts.team_observation import find_team_leaks
from mirrorcraft.contracts.teams import TeamSystem, other_side
from mirrorcraft.errors import ContractError

#: Hand-bumped version of the team prompt templates (``team_*.md``), recorded with the hash of every template.
TEAM_PROMPT_TEMPLATE_VERSION = 1
#: The client of the system's own calls between episodes (tactics, opponent model, reviews).
TEAM_CLIENT = "team"
#: The pseudo-skill that lets one game second pass.
WAIT = "wait"


class TeamLLMSettings(BaseModel):
    """Settings every LLM team system takes (``TeamSystem.settings``; they enter the episode id).

    Attributes:
        show_time_left: show the time left in the observation (the documented team-observation setting).
        max_steps: at most this many action calls per player and episode, then the player waits out the
            episode (None: no limit). A cost control, and what makes a replayed free-running episode ask
            exactly as often as the recorded one.
        max_model_failures: failed model calls in a row after which a player stops asking for the episode.
        think_ticks: game ticks each decision (one ``act``, its model calls) costs in a lockstep team episode
            (docs/pillagerbench.md "Lockstep"): the world runs on for this long while the player thinks, then
            stands still until the answer is in. Default 100 (5 game seconds, about one answer of a hosted
            chat model; the wall latency ``benchmarks/llm_bound.py`` simulates). Free-running episodes ignore
            it: there the world runs on for the model's real latency.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    show_time_left: bool = False
    max_steps: int | None = Field(None, ge=1)
    max_model_failures: int = Field(3, ge=1)
    think_ticks: int = Field(100, ge=0, le=72_000)


def _settings(cls: type[BaseModel], system: TeamSystem) -> Any:
    try:
        return cls.model_validate(system.settings)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors())
        raise ContractError(f"team system {system.id}: invalid settings: {problems}") from err


def describe_scenario(briefing: GameBriefing) -> str:
    """The scenario's public description as prompt text: the goal (``team_scenario_<scenario>.md``), the sides
    and their players, and the briefing's facts (areas, team blocks, judge players, points of interest)."""
    me, them = briefing.side, other_side(briefing.side)
    facts = briefing.facts
    lines = [load_template(f"team_scenario_{briefing.scenario}").template.strip(), ""]
    lines.append(f"Your team: {me} ({', '.join(briefing.players)}). The other team: {them}.")
    for side, centre in sorted(facts.get("areas", {}).items()):
        lines.append(f"- area of team {side}: centre {tuple(int(v) for v in centre)}")
    for role, by_side in sorted(facts.get("team_blocks", {}).items()):
        for side, block in sorted(by_side.items()):
            lines.append(f"- {role} block of team {side}: {block}")
    for side, name in sorted(facts.get("judges", {}).items()):
        spot = facts.get("judge_spots", {}).get(side)
        where = f" at {tuple(int(v) for v in spot)}" if spot is not None else ""
        lines.append(f"- judge player of team {side} (takes its deliveries): {name}{where}")
    points = facts.get("points", {})
    if points:
        lines.append("Points of interest:")
        lines.extend(f"- {label}: {tuple(int(v) for v in pos)}" for label, pos in sorted(points.items()))
    return "\n".join(lines)


def observation_text(view: TeamObservation) -> str:
    """The canonical team observation (leak-checked) as one line of text."""
    return serialize_team_observation(view).decode("utf-8")


def render_call(call: SkillCall | None) -> str:
    """A call as compact JSON (``wait`` for None)."""
    if call is None:
        return json.dumps({"skill": WAIT})
    return json.dumps({"skill": call.name, "args": call.args}, sort_keys=True, separators=(",", ":"))


async def off_loop(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a thread: ``asyncio.to_thread`` in an asyncio task, ``deferToThread`` on a running
    Twisted reactor, else a plain call (as :meth:`~mirrorcraft.agents.llm.LLMClient.acomplete` chooses)."""
    import asyncio
    import sys

    try:
        in_task = asyncio.current_task() is not None
    except RuntimeError:
        in_task = False
    if in_task:
        return await asyncio.to_thread(fn, *args)
    if "twisted.internet.reactor" in sys.modules:
        from twisted.internet import reactor

        if getattr(reactor, "running", False):
            from twisted.internet.threads import deferToThread

            return await deferToThread(fn, *args)
    return fn(*args)


class _Unrecorded:
    """The backend of a replayed client with no recording for this episode: every call is a mismatch."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, request: Any) -> Any:
        raise ReplayMismatchError(f"replay: no recording {self.path} for this {request.purpose} call")


class LLMTeamPolicy(TeamPolicy):
    """Base of the LLM team systems (module docstring). Subclasses set ``id``, ``settings_model`` and
    ``configuration`` and implement :meth:`act` with :meth:`ask` and :meth:`parse`."""

    settings_model: ClassVar[type[TeamLLMSettings]] = TeamLLMSettings
    #: The name in the prompt template version (``<configuration>/v<N>/<hash>``).
    configuration: ClassVar[str]

    def __init__(self, system: TeamSystem) -> None:
        super().__init__(system)
        if system.model is None:
            raise ContractError(
                f"team system {system.id} calls a model: give one (a grid's `model: {{name: ...}}`, or "
                f"--red-model/--blue-model)"
            )
        self.settings = _settings(self.settings_model, system)
        self.runtime = TeamLLMRuntime()
        self.llm_settings = LLMSettings.from_model_settings(system.model)
        self.clients: dict[str, LLMClient] = {}
        #: The side's meter, shared by its clients (reset in ``pre_game``): the episode's usage, and what
        #: ``max_cost_usd`` caps (the side's spending per episode, every player and the calls between episodes).
        self.meter = UsageMeter()
        self._errors: dict[str, list[PolicyError]] = {}
        self._faults: dict[str, list[tuple[str, str]]] = {}
        self.failures: dict[str, int] = {}
        self.steps: dict[str, int] = {}
        self.feedback: dict[str, str] = {}
        #: What went wrong in the system's own calls (unusable answers, failed calls), oldest first.
        self.log: deque[str] = deque(maxlen=50)
        self.episode_key = ""

    @property
    def prompt_template_version(self) -> str:
        """``team-<configuration>/v<N>/<hash>``: N is :data:`TEAM_PROMPT_TEMPLATE_VERSION`, the hash the one
        over every template file (:func:`~mirrorcraft.agents.prompting.templates_digest`; docs/prompts.md)."""
        return f"team-{self.configuration}/v{TEAM_PROMPT_TEMPLATE_VERSION}/{templates_digest()}"

    def checkpoint(self) -> dict[str, Any]:
        """The prompt template version and the log of the system's own failed calls (what a stateless LLM
        system keeps; the learning systems add their state)."""
        return {"prompt_template_version": self.prompt_template_version, "log": list(self.log)}

    def restore(self, state: dict[str, Any]) -> None:
        self.log = deque(state.get("log", []), maxlen=self.log.maxlen)

    def configure_llm(self, runtime: TeamLLMRuntime) -> None:
        self.runtime = runtime
        assert self.system.model is not None
        self.llm_settings = LLMSettings.from_model_settings(
            self.system.model, runtime.models.get(self.system.model.name)
        )
        self.clients = {}

    # ---- clients -------------------------------------------------------------------------------------

    def client(self, who: str) -> LLMClient:
        """The client of ``who`` (a player, or :data:`TEAM_CLIENT`), set up for the current episode."""
        if who not in self.clients:
            self.clients[who] = LLMClient(self.llm_settings)
            self.clients[who].meter = self.meter  # one meter per side: usage and the cost cap are the side's
            self._bind(who)
        return self.clients[who]

    def _bind(self, who: str) -> None:
        """Point ``who``'s client at this episode's recording or replay file and reset its meter."""
        c = self.clients[who]
        name = f"{self.episode_key}.{who}.jsonl"
        rt = self.runtime
        c.record_path = rt.record_dir / name if rt.record_dir is not None else None
        if rt.replay_dir is not None:
            path = rt.replay_dir / name
            c.backend = (
                TeamReplayBackend(path, strict=rt.replay_strict) if path.is_file() else _Unrecorded(path)
            )
        else:
            c.backend = LiteLLMBackend(self.llm_settings)

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        self.episode_key = briefing.episode_id or f"episode-{briefing.block_index}"
        self.meter.reset()
        rt = self.runtime
        if rt.record_dir is not None and rt.record_dir != rt.replay_dir:
            # an episode's recording is written whole each time it is played: a study's rerun of a faulted
            # episode (same id) must not append to, or keep, the failed attempt's calls
            for who in (*briefing.players, TEAM_CLIENT):
                (rt.record_dir / f"{self.episode_key}.{who}.jsonl").unlink(missing_ok=True)
        for who in list(self.clients):
            self._bind(who)
        self._errors = {p: [] for p in briefing.players}
        self._faults = {p: [] for p in briefing.players}
        self.failures = {p: 0 for p in briefing.players}
        self.steps = {p: 0 for p in briefing.players}
        self.feedback = {p: "" for p in briefing.players}

    async def apre_game(self, briefing: GameBriefing) -> None:
        """:meth:`pre_game`, then litellm imported off the event loop before the clock starts (its import
        takes seconds, which a first call would otherwise spend in game time; nothing to import on replay)."""
        self.pre_game(briefing)
        if self.runtime.replay_dir is None:
            await off_loop(import_litellm)

    def usage(self) -> Usage | None:
        return self.meter.usage()

    def think_ticks(self, player: str) -> int:
        return self.settings.think_ticks

    # ---- the episode's drains ------------------------------------------------------------------------

    def take_policy_errors(self, player: str) -> list[PolicyError]:
        out, self._errors[player] = self._errors.get(player, []), []
        return out

    def take_faults(self, player: str) -> list[tuple[str, str]]:
        out, self._faults[player] = self._faults.get(player, []), []
        return out

    # ---- asking and parsing --------------------------------------------------------------------------

    def may_act(self, player: str) -> bool:
        """False once the player used its ``max_steps`` or failed ``max_model_failures`` calls in a row."""
        s = self.settings
        if s.max_steps is not None and self.steps.get(player, 0) >= s.max_steps:
            return False
        return self.failures.get(player, 0) < s.max_model_failures

    async def ask(self, who: str, messages: list[dict[str, str]], purpose: Purpose = "action") -> str | None:
        """The model's answer text, or None when the call failed (recorded: a fault of a player, a log line of
        the team client). A replay mismatch raises."""
        if purpose == "action":
            self.steps[who] = self.steps.get(who, 0) + 1
        try:
            response = await self.client(who).acomplete(messages, purpose)
        except ReplayExhaustedError as err:
            if self.runtime.replay_strict:
                raise
            self.failures[who] = self.settings.max_model_failures  # this player asks no more this episode
            self.log.append(f"{self.episode_key} {who}: {err}; it asks no more this episode")
            return None
        except ReplayMismatchError:
            raise
        except LLMError as err:
            self.failures[who] = self.failures.get(who, 0) + 1
            message = f"{purpose} call failed: {err}"
            if who in self._faults:
                self._faults[who].append(("unresponsive", message))
            self.log.append(f"{self.episode_key} {who}: {message}")
            return None
        self.failures[who] = 0
        return response.text

    def parse(self, player: str, text: str, view: TeamObservation) -> tuple[SkillCall | None, str, bool]:
        """``(call, thought, ok)``: the call (None = wait) and thought of an answer; ``ok`` False for a policy
        error, which is recorded for ``player`` with the raw text and shown in its next prompt."""
        obj = extract_json_object(text)
        thought = ""
        if obj is not None:
            raw_thought = obj.get("thought", "")
            thought = raw_thought if isinstance(raw_thought, str) else str(raw_thought)
            name = obj.get("skill", obj.get("name"))
            if isinstance(name, str) and name.strip() == WAIT:
                self.feedback[player] = ""
                return None, thought, True
        parsed = parse_action(text, allowed=set(view.skills))
        if isinstance(parsed, PolicyError):
            self._errors.setdefault(player, []).append(parsed)
            self.feedback[player] = (
                f"YOUR PREVIOUS ANSWER WAS REJECTED ({parsed.kind}): {parsed.message}. Answer with one JSON "
                "object as the format says.\n"
            )
            return None, thought, False
        self.feedback[player] = ""
        return parsed.call, parsed.thought, True

    # ---- prompts ---------------------------------------------------------------------------------------

    def system_message(self, player: str) -> str:
        """The system message of ``player``: role, the scenario's public description, skills, answer format."""
        assert self.briefing is not None
        mate = next(p for p in self.briefing.players if p != player)
        skills = [SKILL_SPECS[n] for n in SKILL_SPECS]
        text = render(
            "team_system",
            player=player,
            side=self.briefing.side,
            teammate=mate,
            scenario=describe_scenario(self.briefing),
            skills=render_skills(skills),
        )
        leaks = find_team_leaks(
            text
        )  # the briefing's facts reach the prompt: the observation's guard applies
        if leaks:
            raise ContractError(f"team system prompt would leak {', '.join(leaks)} to the model")
        return text

    def turn_message(self, view: TeamObservation, memory: str, instruction: str) -> str:
        """The per-step user message: the player, its memory, the last rejection, the observation."""
        return render(
            "team_turn",
            player=view.player,
            side=view.side,
            teammate=view.teammate,
            step=self.steps.get(view.player, 0) + 1,
            memory=memory,
            feedback=self.feedback.get(view.player, ""),
            observation=observation_text(view),
            instruction=load_template(instruction).template.strip(),
        )


__all__ = [
    "TEAM_PROMPT_TEMPLATE_VERSION",
    "TEAM_CLIENT",
    "WAIT",
    "LLMTeamPolicy",
    "TeamLLMSettings",
    "describe_scenario",
    "observation_text",
    "render_call",
]
