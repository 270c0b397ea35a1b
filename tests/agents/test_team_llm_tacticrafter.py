"""TactiCrafter's mechanisms on scripted model answers through litellm's real HTTP path (a local endpoint on
127.0.0.1; the only fake is the model), fed observations and outcomes built here (no server): what it sends
between episodes and what it keeps.

* the second tactics prompt holds the first episode's outcome and the score changes seen in it;
* the causal graph gains the edge a scored delivery implies, built by the system's code from the outcome
  report's inventory change and the sidebar's score change (no scripted answer names it);
* the opponent-model prompt holds the sabotage our player observed (caps fallen beyond our own mining, slime
  risen, a player of the other team near our area, their chat), and the reading is kept;
* the checkpoint round-trips through JSON, and a restored system sends the same next prompt;
* an unusable tactics answer keeps the previous tactics.
"""

from __future__ import annotations

import json
from typing import Any

import pytest_twisted
from support.llm_endpoint import FakeOpenAI, Reply

from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.agents.team_tacticrafter import check_tactics
from mirrorcraft.agents.teams import GameBriefing, TeamLLMRuntime, make_team_policy
from mirrorcraft.contracts import ModelSettings, OutcomeReport, SkillCall, TeamObservation
from mirrorcraft.contracts.teams import TeamOutcome, TeamSystem

MODEL = "openai/fake-coach"
RED_CENTRE = (-9, -60, -10)
FACTS_MW: dict[str, Any] = {
    "areas": {"red": RED_CENTRE, "blue": (-9, -60, 6)},
    "team_blocks": {"cap": {"red": "minecraft:red_mushroom_block", "blue": "minecraft:brown_mushroom_block"}},
}
FACTS_DD: dict[str, Any] = {
    "judges": {"red": "Red_Server", "blue": "Blue_Server"},
    "judge_spots": {"red": (-1, -60, -9), "blue": (-1, -60, 7)},
    "points": {"wheat farm": (-19, -60, -1)},
}
TACTICS_1 = ["1. Ryn: farm wheat and bake bread.", "2. Raze: carry bread to Red_Server."]
TACTICS_2 = ["Raze: keep giving bread to Red_Server", "Ryn: bake more bread", "Ryn and Raze: ignore blue"]
GIVE = SkillCall.create("give", {"item": "minecraft:bread", "count": 3, "player": "Red_Server"})


def tactics(items: list[str]) -> Reply:
    return Reply.chat(json.dumps({"tactics": items}))


def act(skill: str, args: dict[str, Any] | None = None) -> Reply:
    return Reply.chat(json.dumps({"thought": "As the tactics say.", "skill": skill, "args": args or {}}))


def view(player: str, *, score: tuple[int, int] = (0, 0), last: tuple[int, SkillCall, OutcomeReport] | None = None,
         pos: tuple[float, float, float] = (-5, -60, -8), blocks: dict[str, int] | None = None,
         players_at: list[tuple[float, float, float]] | None = None, chat: list[dict] | None = None,
         **held: int) -> TeamObservation:  # fmt: skip
    mate = "Raze" if player == "Ryn" else "Ryn"
    return TeamObservation(
        player=player, side="red", teammate=mate, position=dict(zip("xyz", pos, strict=True)),
        survival={"health": 20, "food": 20}, equipment={}, dropped_items=[], effects=[], failure_constraints=[],
        skills=["give", "mine", "go_to", "farm", "chat"],
        inventory=[{"item": f"minecraft:{k}", "count": n} for k, n in held.items()],
        nearby_blocks=[{"block": b, "count": n, "nearest": {"x": -9, "y": -59, "z": -10}, "distance": 1.0}
                       for b, n in (blocks or {}).items()],
        nearby_entities=[{"entity": "minecraft:player", "position": dict(zip("xyz", q, strict=True)), "distance": 3.0}
                         for q in players_at or []],
        last_result=None if last is None else {"action_index": last[0], "call": last[1], "report": last[2]},
        sidebar={"title": "Scores", "scores": [{"holder": "Red", "score": score[0]}, {"holder": "Blue", "score": score[1]}]},
        chat=chat or [],
    )  # fmt: skip


def system() -> TeamSystem:
    return TeamSystem(id="tacticrafter", model=ModelSettings(name=MODEL, temperature=0.0))


def briefing(scenario: str, index: int) -> GameBriefing:
    facts = FACTS_MW if scenario == "mushroom_war" else FACTS_DD
    return GameBriefing(scenario, "red", ("Ryn", "Raze"), index, 11, facts=facts, episode_id=f"tep-tc{index}")


def user(request: dict[str, Any]) -> str:
    return request["messages"][-1]["content"]


async def _delivery_episode(api: FakeOpenAI) -> Any:
    """Episode 1 of Dash & Dine: Raze gives 3 bread to Red_Server; the sidebar then shows red +33, blue +5."""
    tc = make_team_policy(system(), TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}))
    await tc.apre_game(briefing("dash_and_dine", 0))  # the first tactics
    given = OutcomeReport(
        skill="give", status="success", completed=3, inventory_delta={"minecraft:bread": -3}
    )
    assert await tc.act(view("Raze", bread=3)) == GIVE
    assert await tc.act(view("Raze", last=(1, GIVE, given))) is None  # wait: the judge has not scored yet
    assert await tc.act(view("Raze", last=(1, GIVE, given), score=(33, 5))) is None
    await tc.apost_game(TeamOutcome(red=33, blue=5, end_reason="time_up", seconds_played=120))
    return tc


@pytest_twisted.ensureDeferred
async def test_the_second_tactics_prompt_holds_the_outcome_and_the_causal_edge_of_a_delivery() -> None:
    replies = [
        tactics(TACTICS_1), act("give", GIVE.args), act("wait"), act("wait"),
        Reply.chat(json.dumps({"opponent_tactics": "Blue delivers little."})), tactics(TACTICS_2),
    ]  # fmt: skip
    with FakeOpenAI(replies) as api:
        tc = await _delivery_episode(api)
    sent = api.requests
    assert len(sent) == 6
    first, second = user(sent[0]), user(sent[5])
    assert "(none: the first game is next)" in first and "CURRENT TACTICS:\n(none yet)" in first
    # what the second tactics prompt holds: the outcome, the score changes in order, the causal edge
    assert "- game 1 (we played red): we 33, they 5: won" in second
    assert "- our score +33 (now 33) after give minecraft:bread" in second
    assert "- their score +5 (now 5)" in second
    assert (
        "give minecraft:bread -> inventory minecraft:bread -3 -> own score + (+33 in all; +11.00 per"
        in second
    )
    assert (
        "CURRENT TACTICS:\n1. Ryn: farm wheat and bake bread.\n2. Raze: carry bread to Red_Server." in second
    )
    assert "Blue delivers little." in second  # the opponent model's reading
    # the edge was built by our code from the report's inventory change and the sidebar (no answer names it)
    edge = tc.causal.edges[("give minecraft:bread", "minecraft:bread -", "own score +")]
    assert (edge.count, edge.units, edge.score, edge.episodes) == (1, {"minecraft:bread": -3}, 33.0, [0])
    assert not any(
        "own score" in r["messages"][-1]["content"] for r in sent[:2]
    )  # nothing before the delivery
    # what it keeps: the revised tactics (renumbered), every revision, the outcome
    assert tc.tactics == [
        "1. Raze: keep giving bread to Red_Server", "2. Ryn: bake more bread", "3. Ryn and Raze: ignore blue",
    ]  # fmt: skip
    assert [e["accepted"] for e in tc.tactics_log] == [True, True] and tc.episodes_played == 1
    assert tc.usage().model_calls == 6  # the tokens of the calls between episodes count too


@pytest_twisted.ensureDeferred
async def test_the_opponent_model_prompt_holds_the_observed_sabotage() -> None:
    mined = SkillCall.create("mine", {"block": "minecraft:red_mushroom_block", "count": 1})
    report = OutcomeReport(skill="mine", status="success", completed=1,
                           blocks_broken=[{"block": "minecraft:red_mushroom_block", "count": 1}])  # fmt: skip
    centre = (float(RED_CENTRE[0]), float(RED_CENTRE[1]), float(RED_CENTRE[2]))
    blue_near = [(-6.0, -60.0, -13.0)]  # 4.2 from Ryn: not one of ours
    taunt = [{"t": 3, "sender": "Byte", "channel": "all", "text": "enjoy the slime"}]
    replies = [tactics(TACTICS_1[:1] + ["2. Raze: clear slime."]), act("mine", mined.args), act("wait"),
               Reply.chat(json.dumps({"opponent_tactics": "Byte dumps slime on us; Blink breaks our caps."})),
               tactics(["1. Ryn: harvest.", "2. Raze: guard the caps against Blink."])]  # fmt: skip
    with FakeOpenAI(replies) as api:
        tc = make_team_policy(system(), TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}))
        await tc.apre_game(briefing("mushroom_war", 0))
        blocks0 = {"minecraft:red_mushroom_block": 15, "minecraft:slime_block": 15}
        await tc.act(view("Ryn", pos=centre, blocks=blocks0, players_at=blue_near))
        blocks1 = {"minecraft:red_mushroom_block": 9, "minecraft:slime_block": 23}  # 6 caps fewer, we broke 1
        await tc.act(view("Ryn", pos=centre, blocks=blocks1, players_at=blue_near, last=(1, mined, report),
                          chat=taunt, score=(0, 2)))  # fmt: skip
        await tc.apost_game(TeamOutcome(red=0, blue=2, end_reason="time_up", seconds_played=120))
    prompt = user(api.requests[3])
    assert "Infer the other team's tactics (team blue: Byte, Blink)" in prompt
    assert "[sabotage] our minecraft:red_mushroom_block blocks fell by 5 that we did not break (now 9) while a " \
           "player of the other team was near" in prompt  # fmt: skip
    assert "[sabotage] minecraft:slime_block near our area rose by 8 that we did not place (now 23)" in prompt
    assert prompt.count("[near] a player of the other team near our area - seen by Ryn") == 2
    assert "[chat] Byte said (all): enjoy the slime" in prompt and "[score] their score +2 (now 2)" in prompt
    assert "FINAL SCORE OF GAME 1 (observed):\nwe 0, they 2" in prompt
    # kept: the reading (shown to the tactics module and to the players), the episode's events
    assert tc.opponent.inferred == "Byte dumps slime on us; Blink breaks our caps."
    assert "Byte dumps slime on us" in user(api.requests[4])
    assert any("fell by 5" in e for e in tc.opponent.past[0]["events"])


@pytest_twisted.ensureDeferred
async def test_the_checkpoint_round_trips_and_a_restored_system_sends_the_same_next_prompt() -> None:
    replies = [
        tactics(TACTICS_1), act("give", GIVE.args), act("wait"), act("wait"),
        Reply.chat(json.dumps({"opponent_tactics": "Blue delivers little."})), tactics(TACTICS_2), act("wait"),
    ]  # fmt: skip
    with FakeOpenAI(replies) as api:
        tc = await _delivery_episode(api)
        state = json.loads(json.dumps(tc.checkpoint()))
        fresh = make_team_policy(system(), TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}))
        fresh.restore(state)
        assert json.loads(json.dumps(fresh.checkpoint())) == state
        for sys_ in (tc, fresh):
            await sys_.apre_game(briefing("dash_and_dine", 1))  # tactics exist: no call before the game
            await sys_.act(view("Ryn", wheat=3))
    original, restored = api.requests[-2], api.requests[-1]
    assert len(api.requests) == 8 and original == restored
    assert "2. Ryn: bake more bread" in user(restored) and "give minecraft:bread -> inventory" in user(
        restored
    )
    assert "Blue delivers little." in user(restored)
    assert state["prompt_template_version"].startswith("team-tacticrafter/v")


@pytest_twisted.ensureDeferred
async def test_an_unusable_tactics_answer_keeps_the_previous_tactics() -> None:
    replies = [tactics(TACTICS_1), Reply.chat(json.dumps({"opponent_tactics": "?"})),
               tactics(["1. Ryn: everything."])]  # Raze left without an instruction  # fmt: skip
    with FakeOpenAI(replies) as api:
        tc = make_team_policy(system(), TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}))
        await tc.apre_game(briefing("dash_and_dine", 0))
        await tc.apost_game(TeamOutcome(red=0, blue=0, end_reason="time_up", seconds_played=120))
    assert tc.tactics == TACTICS_1 and tc.tactics_log[-1] == {
        "episode": 0, "accepted": False, "note": "no instruction names Raze", "tactics": TACTICS_1,
    }  # fmt: skip
    assert "no instruction names Raze; the previous tactics are kept" in tc.log[-1]


def test_tactics_are_at_most_six_and_name_every_player() -> None:
    assert check_tactics(["Ryn and Raze: harvest"], ("Ryn", "Raze"), 6) == ["1. Ryn and Raze: harvest"]
    for bad, why in (
        (["x"] * 7, "at most 6"),
        ([], "non-empty"),
        ("Ryn: go", "non-empty"),
        (["Ryn: go"], "Raze"),
    ):
        try:
            check_tactics(bad, ("Ryn", "Raze"), 6)
        except ValueError as err:
            assert why in str(err)
        else:
            raise AssertionError(f"{bad!r} accepted")
