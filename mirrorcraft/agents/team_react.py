"""Our MirrorCraft configurations in team play: ``react`` and ``reflexion`` as team systems (issue 26), so the two
benchmarks compare the same agent families.

Each player runs its own loop, as a MirrorCraft agent does (docs/agents.md): one model call per step, with **its
own trace** — its last ``trace_length`` (16) transitions, each thought, action and observed outcome — in the
prompt. What team play adds is a **shared team memory**: the last ``team_memory`` (8) transitions of *both*
players, each with the change of our score seen after it, shown to both, so a player knows what its mate did.

``reflexion`` adds **lessons** (at most ``max_lessons``, 3), shared by the team: a review (an auxiliary
``reflection`` call on the ``team`` client, ``team_reflexion_review.md``) writes or revises them when a trigger
fires — a player's same σ failed ``repeated_failure`` times in a row, no rise of our score for ``stall_steps``
steps of the team, or the end of an episode (Reflexion's reflection after a trial) — at most
``max_reviews`` in-episode reviews per episode. Lessons are kept across the episodes of a block (in the
checkpoint), so what one game taught is carried into the next; a lesson beyond the limit replaces the one it
names, else the oldest. An unusable review answer writes no lesson and is logged.

Differences from the MirrorCraft loops, on purpose: no action budget (team episodes are timed), no lesson
expiry by action count (lessons live until replaced), and the triggers read team scores, not milestones.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from mirrorcraft.agents.base import render_outcome
from mirrorcraft.agents.parsing import extract_json_object
from mirrorcraft.agents.prompting import render
from mirrorcraft.agents.team_llm import TEAM_CLIENT, LLMTeamPolicy, TeamLLMSettings, render_call
from mirrorcraft.agents.teams import GameBriefing, register_team_policy
from mirrorcraft.contracts import OutcomeReport, SkillCall, TeamObservation, signature
from mirrorcraft.contracts.teams import TeamOutcome


class TeamReactSettings(TeamLLMSettings):
    """``react``: ``trace_length`` (a player's own trace, 16 as in MirrorCraft) and ``team_memory``."""

    trace_length: int = Field(16, ge=1, le=64)
    team_memory: int = Field(8, ge=0, le=64)


class TeamReflexionSettings(TeamReactSettings):
    """``reflexion``: plus the lessons and their review triggers (module docstring)."""

    max_lessons: int = Field(3, ge=1, le=10)
    repeated_failure: int = Field(3, ge=2)
    stall_steps: int = Field(12, ge=2)
    max_reviews: int = Field(4, ge=0)


@dataclass
class TeamTransition:
    """One executed call of one player and what followed."""

    player: str
    step: int
    thought: str
    call: SkillCall
    report: OutcomeReport
    score_after: str = ""

    def render(self, *, with_player: bool) -> str:
        who = f"{self.player} " if with_player else ""
        text = (
            f"[{who}step {self.step}] thought: {self.thought or '-'}\n  action: {render_call(self.call)}\n"
            f"  observation: {render_outcome(self.report)}"
        )
        return text + (f"; {self.score_after}" if self.score_after else "")


@register_team_policy
class TeamReact(LLMTeamPolicy):
    """ReAct per player, with the team memory (module docstring)."""

    id = "react"
    configuration = "react"
    settings_model: ClassVar[type[TeamLLMSettings]] = TeamReactSettings
    settings: TeamReactSettings
    instruction = "team_instruction_react"

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        s = self.settings
        self.traces: dict[str, deque[TeamTransition]] = {
            p: deque(maxlen=s.trace_length) for p in briefing.players
        }
        self.team_memory: deque[TeamTransition] = deque(maxlen=max(1, s.team_memory))
        self.pending: dict[str, tuple[int, str]] = {}  # player -> (step, thought) of its call in flight
        self.seen_index = {p: 0 for p in briefing.players}
        self.own_score: int | None = None

    def observe(self, view: TeamObservation) -> TeamTransition | None:
        """The transition ``view`` reports (its player's previous call), filed in both memories."""
        player = view.player
        t: TeamTransition | None = None
        last = view.last_result
        if last is not None and last.action_index > self.seen_index.get(player, 0):
            self.seen_index[player] = last.action_index
            step, thought = self.pending.pop(player, (self.steps.get(player, 0), ""))
            t = TeamTransition(player, step, thought, last.call, last.report)
            self.traces[player].append(t)
            self.team_memory.append(t)
        if view.sidebar is not None and self.briefing is not None:
            own = next((s.score for s in view.sidebar.scores if s.holder.lower() == self.briefing.side), None)
            if own is not None:
                if self.own_score is not None and own != self.own_score and self.team_memory:
                    self.team_memory[-1].score_after = f"our score then {own - self.own_score:+d} (now {own})"
                    self.score_rose(own > self.own_score)
                self.own_score = own
        return t

    def score_rose(self, rose: bool) -> None:
        """Hook: our score changed (up when ``rose``)."""

    def memory(self, player: str) -> str:
        trace = self.traces.get(player) or deque()
        n = self.settings.trace_length
        text = (
            f"YOUR RECENT TRACE (last {len(trace)} of at most {n}, oldest first; observed):\n"
            + "\n".join(t.render(with_player=False) for t in trace)
            if trace
            else "YOUR RECENT TRACE: (no actions yet)"
        ) + "\n\n"
        if self.settings.team_memory:
            shared = list(self.team_memory)[-self.settings.team_memory :]
            body = "\n".join(t.render(with_player=True) for t in shared) if shared else "(nothing yet)"
            text += f"TEAM MEMORY (both players' recent actions; observed):\n{body}\n\n"
        return text

    def messages(self, view: TeamObservation) -> list[dict[str, str]]:
        """What the next call of ``view.player`` sends."""
        return [
            {"role": "system", "content": self.system_message(view.player)},
            {"role": "user", "content": self.turn_message(view, self.memory(view.player), self.instruction)},
        ]

    async def before_asking(self, view: TeamObservation) -> None:
        """Hook: auxiliary procedures before a player's call (Reflexion's reviews)."""

    async def act(self, view: TeamObservation) -> SkillCall | None:
        self.observe(view)
        player = view.player
        if not self.may_act(player):
            return None
        await self.before_asking(view)
        text = await self.ask(player, self.messages(view))
        if text is None:
            return None
        call, thought, ok = self.parse(player, text, view)
        if ok and call is not None:
            self.pending[player] = (self.steps[player], thought)
        return call


@dataclass
class TeamLesson:
    text: str
    episode: int


@register_team_policy
class TeamReflexion(TeamReact):
    """Reflexion per player, lessons shared by the team and kept across episodes (module docstring)."""

    id = "reflexion"
    configuration = "reflexion"
    settings_model: ClassVar[type[TeamLLMSettings]] = TeamReflexionSettings
    settings: TeamReflexionSettings

    def __init__(self, system: Any) -> None:
        super().__init__(system)
        self.lessons: list[TeamLesson] = []
        self.outcomes: list[str] = []
        self.review_log: list[dict[str, Any]] = []
        self.episodes_played = 0

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        self.reviews = 0
        self.fail_streak: dict[tuple[str, tuple[str, ...]], int] = {}
        self.steps_since_rise = 0
        self.trigger: str | None = None

    def observe(self, view: TeamObservation) -> TeamTransition | None:
        t = super().observe(view)
        if t is not None:
            key = (t.player, tuple(signature(t.call)))
            if t.report.status == "failure":
                self.fail_streak[key] = self.fail_streak.get(key, 0) + 1
                if self.fail_streak[key] >= self.settings.repeated_failure:
                    self.trigger = f"repeated failure: {t.player}'s {' '.join(key[1])} failed {self.fail_streak[key]} times"
                    self.fail_streak[key] = 0
            else:
                self.fail_streak[key] = 0
            self.steps_since_rise += 1
            if self.trigger is None and self.steps_since_rise >= self.settings.stall_steps:
                self.trigger = f"stalled: our score did not rise for {self.steps_since_rise} team steps"
                self.steps_since_rise = 0
        return t

    def score_rose(self, rose: bool) -> None:
        if rose:
            self.steps_since_rise = 0

    def lessons_text(self) -> str:
        return "\n".join(f"{i}. {ls.text} (from game {ls.episode + 1})" for i, ls in enumerate(self.lessons))

    def memory(self, player: str) -> str:
        text = super().memory(player)
        if self.lessons:
            text += f"TEAM LESSONS (your team's own, kept until revised):\n{self.lessons_text()}\n\n"
        return text

    def add_lesson(self, text: str, replaces: int | None = None) -> None:
        lesson = TeamLesson(text.strip(), self.episodes_played)
        if replaces is not None and 0 <= replaces < len(self.lessons):
            self.lessons[replaces] = lesson
        elif len(self.lessons) < self.settings.max_lessons:
            self.lessons.append(lesson)
        else:
            self.lessons[0:1] = []
            self.lessons.append(lesson)

    async def review(self, trigger: str) -> None:
        """One review call: write or revise lessons (an unusable answer writes none, logged)."""
        prompt = render(
            "team_reflexion_review",
            trigger=trigger,
            memory="\n".join(t.render(with_player=True) for t in self.team_memory) or "(nothing yet)",
            outcomes="\n".join(self.outcomes) or "(none yet)",
            lessons=self.lessons_text() or "(none)",
            max_lessons=self.settings.max_lessons,
        )
        text = await self.ask(TEAM_CLIENT, [{"role": "user", "content": prompt}], "reflection")
        obj = extract_json_object(text or "") or {}
        written = []
        items = obj.get("lessons") if isinstance(obj.get("lessons"), list) else []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
                rep = item.get("replaces")
                self.add_lesson(item["text"], rep if isinstance(rep, int) else None)
                written.append(item["text"].strip())
        if not written:
            self.log.append(f"{self.episode_key} review ({trigger}): no usable lesson in the answer")
        self.review_log.append({"episode": self.episodes_played, "trigger": trigger, "lessons": written})

    async def before_asking(self, view: TeamObservation) -> None:
        trigger, self.trigger = self.trigger, None
        if trigger is not None and self.reviews < self.settings.max_reviews:
            self.reviews += 1
            await self.review(trigger)

    async def apost_game(self, outcome: TeamOutcome) -> None:
        assert self.briefing is not None
        side = self.briefing.side
        own = outcome.red if side == "red" else outcome.blue
        their = outcome.blue if side == "red" else outcome.red
        result = "won" if own > their else "lost" if own < their else "draw"
        self.outcomes.append(
            f"- game {self.episodes_played + 1} (we played {side}): we {own:g}, they {their:g}: {result}"
        )
        await self.review(f"end of game {self.episodes_played + 1}: we {own:g}, they {their:g} ({result})")
        self.episodes_played += 1

    def post_game(self, outcome: TeamOutcome) -> None:
        """:meth:`apost_game` driven to its end here (by hand, with no event loop running in this thread)."""
        asyncio.run(self.apost_game(outcome))

    def checkpoint(self) -> dict[str, Any]:
        return {
            "prompt_template_version": self.prompt_template_version,
            "episodes_played": self.episodes_played,
            "lessons": [{"text": ls.text, "episode": ls.episode} for ls in self.lessons],
            "outcomes": list(self.outcomes),
            "review_log": list(self.review_log),
            "log": list(self.log),
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.episodes_played = int(state["episodes_played"])
        self.lessons = [TeamLesson(str(d["text"]), int(d["episode"])) for d in state.get("lessons", [])]
        self.outcomes = [str(o) for o in state.get("outcomes", [])]
        self.review_log = list(state.get("review_log", []))
        self.log = deque(state.get("log", []), maxlen=self.log.maxlen)


__all__ = ["TeamReact", "TeamReactSettings", "TeamReflexion", "TeamReflexionSettings", "TeamTransition"]
