"""``react`` and ``reflexion`` as team systems, on scripted answers through litellm's real HTTP path (a local
endpoint on 127.0.0.1; the only fake is the model) and observations built here: each player's own trace, the
team memory both players are shown, Reflexion's triggered and end-of-game reviews, lessons shared by the team
and kept across episodes, and the checkpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest_twisted
from support.llm_endpoint import FakeOpenAI, Reply

from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.agents.teams import GameBriefing, TeamLLMRuntime, make_team_policy
from mirrorcraft.contracts import ModelSettings, OutcomeReport, SkillCall, TeamObservation
from mirrorcraft.contracts.teams import TeamOutcome, TeamSystem

MODEL = "openai/fake-react"
MINE = SkillCall.create("mine", {"block": "minecraft:red_mushroom_block", "count": 1})
GOT = OutcomeReport(
    skill="mine", status="success", completed=1, inventory_delta={"minecraft:red_mushroom": 1}
)
MISSED = OutcomeReport(skill="mine", status="failure", message="no such block in reach", reason="not_found")


def act(skill: str, args: dict[str, Any] | None = None, thought: str = "go") -> Reply:
    return Reply.chat(json.dumps({"thought": thought, "skill": skill, "args": args or {}}))


def view(player: str, last: tuple[int, OutcomeReport] | None = None, score: int = 0) -> TeamObservation:
    mate = "Raze" if player == "Ryn" else "Ryn"
    return TeamObservation(
        player=player, side="red", teammate=mate, position={"x": -9, "y": -60, "z": -10},
        survival={"health": 20, "food": 20}, equipment={}, inventory=[], nearby_blocks=[], nearby_entities=[],
        dropped_items=[], effects=[], skills=["mine", "go_to"], failure_constraints=[],
        last_result=None if last is None else {"action_index": last[0], "call": MINE, "report": last[1]},
        sidebar={"title": "Scores", "scores": [{"holder": "Red", "score": score}, {"holder": "Blue", "score": 0}]},
    )  # fmt: skip


def make(name: str, api: FakeOpenAI, **settings: Any) -> Any:
    system = TeamSystem(id=name, settings=settings, model=ModelSettings(name=MODEL, temperature=0.0))
    return make_team_policy(system, TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}))


def briefing(index: int = 0) -> GameBriefing:
    return GameBriefing(
        "mushroom_war", "red", ("Ryn", "Raze"), index, 3, facts={}, episode_id=f"tep-r{index}"
    )


def user(request: dict[str, Any]) -> str:
    return request["messages"][-1]["content"]


@pytest_twisted.ensureDeferred
async def test_react_keeps_each_players_trace_and_shows_both_the_team_memory() -> None:
    with FakeOpenAI([act("mine", MINE.args, "Harvest a cap.")]) as api:
        react = make("react", api)
        react.pre_game(briefing())
        await react.act(view("Ryn"))
        await react.act(view("Ryn", last=(1, GOT), score=1))  # Ryn's harvest reported, our score rose
        await react.act(view("Raze", score=1))
    ryn2, raze1 = user(api.requests[1]), user(api.requests[2])
    assert "YOUR RECENT TRACE (last 1 of at most 16" in ryn2 and "[step 1] thought: Harvest a cap." in ryn2
    assert "YOUR RECENT TRACE: (no actions yet)" in raze1  # Raze's own trace is its own
    # the team memory: Ryn's transition, with the score change seen after it, in Raze's prompt
    memory = raze1.split("TEAM MEMORY (both players' recent actions; observed):\n")[1]
    assert memory.startswith("[Ryn step 1] thought: Harvest a cap.")
    assert "minecraft:red_mushroom +1" in memory and "our score then +1 (now 1)" in memory


@pytest_twisted.ensureDeferred
async def test_reflexion_reviews_on_repeated_failure_and_after_the_game_and_keeps_lessons() -> None:
    review = Reply.chat(
        json.dumps({"lessons": [{"text": "Ryn: walk to a cap before mining it.", "replaces": None}]})
    )
    after = Reply.chat(json.dumps({"lessons": [{"text": "Raze: guard our caps.", "replaces": None}]}))
    goto = act("go_to", {"x": 1, "y": -60, "z": 1})
    replies = [act("mine", MINE.args), act("mine", MINE.args), review, act("mine", MINE.args), after, goto]
    with FakeOpenAI(replies) as api:
        rx = make("reflexion", api, repeated_failure=2)
        rx.pre_game(briefing())
        await rx.act(view("Ryn"))
        await rx.act(view("Ryn", last=(1, MISSED)))
        await rx.act(view("Ryn", last=(2, MISSED)))  # the second failure in a row: a review, then the call
        await rx.apost_game(TeamOutcome(red=0, blue=4, end_reason="time_up", seconds_played=120))
        state = json.loads(json.dumps(rx.checkpoint()))
        fresh = make("reflexion", api, repeated_failure=2)
        fresh.restore(state)
        for sys_ in (rx, fresh):
            sys_.pre_game(briefing(1))
            await sys_.act(view("Raze"))
    sent = api.requests
    assert [r["messages"][0]["role"] for r in sent].count("user") == 2  # two reviews: a single user message
    rev1, rev2 = user(sent[2]), user(sent[4])
    assert "Review trigger: repeated failure: Ryn's mine minecraft:red_mushroom_block failed 2 times" in rev1
    assert "no such block in reach" in rev1  # the team memory it reviews
    assert "TEAM LESSONS" in user(
        sent[3]
    ) and "0. Ryn: walk to a cap before mining it. (from game 1)" in user(sent[3])
    assert "Review trigger: end of game 1: we 0, they 4 (lost)" in rev2
    # kept across episodes: both lessons, shown to the other player in the next game; restored the same
    assert [ls.text for ls in rx.lessons] == ["Ryn: walk to a cap before mining it.", "Raze: guard our caps."]
    assert "1. Raze: guard our caps. (from game 1)" in user(sent[-1]) and sent[-1] == sent[-2]
    assert state["lessons"][1] == {"text": "Raze: guard our caps.", "episode": 0}
