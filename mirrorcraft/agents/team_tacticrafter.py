"""``tacticrafter``: tactics, a causal model and an opponent model that learn across a block's episodes, and base
agents that execute the tactics through skills (the original's TactiCrafter, shared/spec/pillagerbench.md).

Four parts, all kept in the system object across the episodes of a block and in its :meth:`checkpoint`:

* **Tactics module** — at most ``max_tactics`` (6) numbered natural-language instructions, each naming the
  player(s) it is for, so that every player has one. Written by the model before the first episode (``apre_game``)
  and revised after each episode (``apost_game``) from the episode's outcome, the score changes observed in it,
  the causal graph and the opponent model (``team_tactics.md``, purpose ``reflection``). An answer that is not such
  a list (too many, a player left without one, not JSON) keeps the previous tactics and is logged.
* **Causal model** — :class:`~mirrorcraft.agents.team_causal.CausalGraph`: action → cause → effect edges built by
  our code from the outcome reports' inventory changes, the sidebar's score changes and the chat heard; the model
  is shown it, never asked to build it.
* **Opponent model** — :class:`~mirrorcraft.agents.team_opponent_model.OpponentModel`: events built by our code
  from what our players observe (the other team's players near our area, sabotage of our area's blocks beyond our
  own doing, their score changes, their chat); after each episode the model reads them into a short description
  of the other team's tactics (``team_opponent.md``, purpose ``analysis``), kept and shown to the base agents and
  the tactics module.
* **Base agents** — one model call per player step (as ``cot``), shown the tactics, the causal graph, the
  opponent model, the observation and their own previous reasoning (``team_instruction_tactics.md``).

The calls between episodes go through the ``team`` client (recorded as ``<episode id>.team.jsonl``); they are
made after time-up, so they cost no game time, and their tokens count in the episode they follow.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from typing import Any, ClassVar

from pydantic import Field

from mirrorcraft.agents.parsing import extract_json_object
from mirrorcraft.agents.prompting import render
from mirrorcraft.agents.team_causal import CausalGraph
from mirrorcraft.agents.team_llm import (
    TEAM_CLIENT,
    LLMTeamPolicy,
    TeamLLMSettings,
    describe_scenario,
    render_call,
)
from mirrorcraft.agents.team_opponent_model import OpponentModel
from mirrorcraft.agents.teams import GameBriefing, register_team_policy
from mirrorcraft.contracts import SKILL_NAMES, SkillCall, TeamObservation
from mirrorcraft.contracts.teams import TEAM_PLAYERS, TeamOutcome, other_side

#: Score changes of an episode kept for the tactics prompt (the most recent).
MAX_SCORE_CHANGES = 30
_NUMBER = re.compile(r"^\s*\d+\s*[.)]\s*")


class TactiCrafterSettings(TeamLLMSettings):
    """``tacticrafter``'s settings: ``max_tactics`` (at most 6, the original's) and ``reasoning_length``."""

    max_tactics: int = Field(6, ge=1, le=6)
    reasoning_length: int = Field(4, ge=0, le=32)


def check_tactics(value: Any, players: tuple[str, ...], limit: int) -> list[str]:
    """The numbered tactics of an answer's ``tactics`` list.

    Raises:
        ValueError: not a list of 1..``limit`` non-empty texts, or a player no instruction names.
    """
    if not isinstance(value, list) or not value or not all(isinstance(t, str) and t.strip() for t in value):
        raise ValueError('"tactics" must be a non-empty list of instruction texts')
    if len(value) > limit:
        raise ValueError(f"{len(value)} instructions; at most {limit}")
    texts = [_NUMBER.sub("", t.strip()) for t in value]
    missing = [p for p in players if not any(p.lower() in t.lower() for t in texts)]
    if missing:
        raise ValueError(f"no instruction names {', '.join(missing)}")
    return [f"{k}. {t}" for k, t in enumerate(texts, start=1)]


@register_team_policy
class TactiCrafterTeam(LLMTeamPolicy):
    """TactiCrafter (module docstring)."""

    id = "tacticrafter"
    configuration = "tacticrafter"
    settings_model: ClassVar[type[TeamLLMSettings]] = TactiCrafterSettings
    settings: TactiCrafterSettings

    def __init__(self, system: Any) -> None:
        super().__init__(system)
        self.tactics: list[str] = []
        #: Every revision: {"episode": index of the episode it was written after (-1 before the first),
        #: "tactics": [...], "accepted": bool, "note": why not}.
        self.tactics_log: list[dict[str, Any]] = []
        self.causal = CausalGraph()
        self.opponent = OpponentModel()
        #: Each finished episode: side, own and their final score, result, the score changes seen in it.
        self.outcomes: list[dict[str, Any]] = []
        self.episodes_played = 0
        self.last_prompts: dict[str, str] = {}

    # ---- episode life ----------------------------------------------------------------------------------

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        self.causal.start_episode(self.episodes_played)
        self.opponent.start_episode(self.episodes_played, briefing.side, briefing.facts, briefing.scenario)
        n = self.settings.reasoning_length
        self.reasoning: dict[str, deque[str]] = {p: deque(maxlen=n) for p in briefing.players}
        self.seen_index = {p: 0 for p in briefing.players}
        self.own_score: int | None = None
        self.their_score: int | None = None
        self.score_changes: list[str] = []
        self.heard: set[tuple[int, str, str]] = set()

    async def apre_game(self, briefing: GameBriefing) -> None:
        await super().apre_game(briefing)
        if not self.tactics:
            await self.revise()

    async def apost_game(self, outcome: TeamOutcome) -> None:
        """Close the episode's evidence, read the other team, revise the tactics (module docstring)."""
        assert self.briefing is not None
        self.causal.end_episode()
        self.opponent.end_episode()
        side = self.briefing.side
        own = outcome.red if side == "red" else outcome.blue
        their = outcome.blue if side == "red" else outcome.red
        result = "won" if own > their else "lost" if own < their else "draw"
        self.outcomes.append({
            "episode": self.episodes_played, "side": side, "own": own, "their": their, "result": result,
            "score_changes": self.score_changes[-MAX_SCORE_CHANGES:],
        })  # fmt: skip
        await self.infer_opponent(own, their)
        self.episodes_played += 1
        await self.revise()

    def post_game(self, outcome: TeamOutcome) -> None:
        """:meth:`apost_game` driven to its end here (by hand, with no event loop running in this thread)."""
        asyncio.run(self.apost_game(outcome))

    # ---- evidence from each observation ----------------------------------------------------------------

    def observe(self, view: TeamObservation) -> None:
        """Feed one of our players' observations to the causal and opponent models (their docstrings)."""
        player = view.player
        last = view.last_result
        if last is not None and last.action_index > self.seen_index.get(player, 0):
            self.seen_index[player] = last.action_index
            self.causal.transition(last.call, last.report)
            broken = {b.block: b.count for b in last.report.blocks_broken}
            placed = {b.block: b.count for b in last.report.blocks_placed}
            self.opponent.our_outcome(broken, placed)
        for line in view.chat:
            key = (line.t, line.sender, line.text)
            if key not in self.heard:
                self.heard.add(key)
                self.causal.heard(f"{line.sender}: {line.text}")
        if view.sidebar is not None:
            assert self.briefing is not None
            me, them = self.briefing.side, other_side(self.briefing.side)
            scores = {s.holder.lower(): s.score for s in view.sidebar.scores}
            own, their = scores.get(me), scores.get(them)
            if own is not None:
                if self.own_score is not None and own != self.own_score:
                    edge = self.causal.score_change(own - self.own_score)
                    after = (
                        f" after {edge.action}" if edge is not None else " (no action of ours to explain it)"
                    )
                    self.score_changes.append(f"our score {own - self.own_score:+d} (now {own}){after}")
                self.own_score = own
            if their is not None:
                if self.their_score is not None and their != self.their_score:
                    self.score_changes.append(f"their score {their - self.their_score:+d} (now {their})")
                self.their_score = their
        self.score_changes = self.score_changes[-MAX_SCORE_CHANGES:]
        self.opponent.observe(view, self.steps.get(player, 0))

    # ---- base agents --------------------------------------------------------------------------------------

    def tactics_text(self) -> str:
        return "\n".join(self.tactics) if self.tactics else "(none yet)"

    def memory(self, player: str) -> str:
        """The base agent's memory: tactics, causal graph, opponent model, its own previous reasoning."""
        kept = self.reasoning.get(player)
        reasoning = (
            f"YOUR PREVIOUS REASONING (last {len(kept)}, oldest first):\n" + "\n".join(kept)
            if kept
            else "YOUR PREVIOUS REASONING: (none yet)"
        )
        return (
            f"TEAM TACTICS (follow the instructions that name you):\n{self.tactics_text()}\n\n"
            f"WHAT OUR ACTIONS DID (observed):\n{self.causal.render()}\n\n"
            f"THE OTHER TEAM (our opponent model):\n{self.opponent.inferred or '(no reading yet)'}\n\n"
            f"{reasoning}\n"
        )

    def messages(self, view: TeamObservation) -> list[dict[str, str]]:
        """What the next call of ``view.player`` sends."""
        return [
            {"role": "system", "content": self.system_message(view.player)},
            {
                "role": "user",
                "content": self.turn_message(view, self.memory(view.player), "team_instruction_tactics"),
            },
        ]

    async def act(self, view: TeamObservation) -> SkillCall | None:
        self.observe(view)
        player = view.player
        if not self.may_act(player):
            return None
        text = await self.ask(player, self.messages(view))
        if text is None:
            return None
        call, thought, ok = self.parse(player, text, view)
        if ok:
            self.reasoning[player].append(
                f"[step {self.steps[player]}] {thought or '-'} -> {render_call(call)}"
            )
        return call

    # ---- between episodes ------------------------------------------------------------------------------

    def coach_system(self) -> str:
        assert self.briefing is not None
        return render(
            "team_coach_system",
            side=self.briefing.side,
            players=", ".join(self.briefing.players),
            skill_names=", ".join(SKILL_NAMES),
            scenario=describe_scenario(self.briefing),
        )

    def outcomes_text(self) -> str:
        if not self.outcomes:
            return "(none: the first game is next)"
        return "\n".join(
            f"- game {o['episode'] + 1} (we played {o['side']}): we {o['own']:g}, they {o['their']:g}: {o['result']}"
            for o in self.outcomes
        )

    def tactics_prompt(self) -> list[dict[str, str]]:
        """The tactics module's request (``team_tactics.md``)."""
        assert self.briefing is not None
        changes = self.outcomes[-1]["score_changes"] if self.outcomes else []
        user = render(
            "team_tactics",
            outcomes=self.outcomes_text(),
            score_changes="\n".join(f"- {c}" for c in changes) or "(none seen)",
            causal=self.causal.render(),
            opponent=self.opponent.inferred or "(no reading yet)",
            tactics=self.tactics_text(),
            max_tactics=self.settings.max_tactics,
            players=", ".join(self.briefing.players),
        )
        return [{"role": "system", "content": self.coach_system()}, {"role": "user", "content": user}]

    def opponent_prompt(self, own: float, their: float) -> list[dict[str, str]]:
        """The opponent model's request (``team_opponent.md``)."""
        assert self.briefing is not None
        them = other_side(self.briefing.side)
        earlier = "\n".join(f"- after game {i['episode'] + 1}: {i['text']}" for i in self.opponent.inferences)
        user = render(
            "team_opponent",
            them=them,
            their_players=", ".join(TEAM_PLAYERS[them]),
            game=self.episodes_played + 1,
            events=self.opponent.render_events(),
            final=f"we {own:g}, they {their:g}",
            earlier=earlier or "(none)",
        )
        return [{"role": "system", "content": self.coach_system()}, {"role": "user", "content": user}]

    async def infer_opponent(self, own: float, their: float) -> None:
        messages = self.opponent_prompt(own, their)
        self.last_prompts["opponent"] = messages[-1]["content"]
        text = await self.ask(TEAM_CLIENT, messages, "analysis")
        obj = extract_json_object(text or "") or {}
        reading = obj.get("opponent_tactics")
        if isinstance(reading, str) and reading.strip():
            self.opponent.inferences.append({"episode": self.episodes_played, "text": reading.strip()})
        else:
            self.log.append(f"{self.episode_key} opponent model: unusable answer, the reading is unchanged")

    async def revise(self) -> None:
        """Write (or revise) the tactics; an unusable answer keeps the previous ones (logged)."""
        assert self.briefing is not None
        messages = self.tactics_prompt()
        self.last_prompts["tactics"] = messages[-1]["content"]
        text = await self.ask(TEAM_CLIENT, messages, "reflection")
        entry: dict[str, Any] = {"episode": self.episodes_played - 1, "accepted": False}
        obj = extract_json_object(text or "")
        try:
            if obj is None:
                raise ValueError(
                    "no JSON object in the answer" if text is not None else "the model call failed"
                )
            tactics = check_tactics(obj.get("tactics"), self.briefing.players, self.settings.max_tactics)
        except ValueError as err:
            entry["note"] = str(err)
            self.log.append(f"{self.episode_key} tactics: {err}; the previous tactics are kept")
            if not self.tactics:  # nothing to keep before the first game: one instruction per player
                self.tactics = [
                    f"{k}. {p}: raise our team's score as the scenario describes."
                    for k, p in enumerate(self.briefing.players, start=1)
                ]
        else:
            self.tactics = tactics
            entry["accepted"] = True
        entry["tactics"] = list(self.tactics)
        self.tactics_log.append(entry)

    # ---- checkpoint ------------------------------------------------------------------------------------

    def checkpoint(self) -> dict[str, Any]:
        return {
            "prompt_template_version": self.prompt_template_version,
            "episodes_played": self.episodes_played,
            "tactics": list(self.tactics),
            "tactics_log": list(self.tactics_log),
            "causal": self.causal.to_json(),
            "opponent": self.opponent.to_json(),
            "outcomes": list(self.outcomes),
            "log": list(self.log),
        }

    def restore(self, state: dict[str, Any]) -> None:
        self.episodes_played = int(state["episodes_played"])
        self.tactics = [str(t) for t in state["tactics"]]
        self.tactics_log = list(state.get("tactics_log", []))
        self.causal = CausalGraph.from_json(state["causal"])
        self.opponent = OpponentModel.from_json(state["opponent"])
        self.outcomes = list(state.get("outcomes", []))
        self.log = deque(state.get("log", []), maxlen=self.log.maxlen)


__all__ = ["TactiCrafterSettings", "TactiCrafterTeam", "check_tactics"]
