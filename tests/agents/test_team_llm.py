"""The LLM team systems' own mechanisms (``cot``; the shared base: parsing, policy errors, timeouts, usage,
record and replay) on scripted model answers through litellm's real completion entry point and HTTP client:
the only fake is the model, a local OpenAI-compatible endpoint on 127.0.0.1 (``support.llm_endpoint``). The
observations are built here, so no server is needed; the tests assert on what the system sends and keeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.llm_endpoint import FakeOpenAI, Reply

from mirrorcraft.agents.errors import ReplayMismatchError
from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.agents.team_replay import MASK, mask_observed
from mirrorcraft.agents.teams import GameBriefing, TeamLLMRuntime, make_team_policy
from mirrorcraft.contracts import ModelSettings, TeamObservation
from mirrorcraft.contracts.teams import TeamSystem
from mirrorcraft.errors import ContractError

MODEL = "openai/fake-team-model"
FACTS: dict[str, Any] = {
    "areas": {"red": (-9, -60, -10), "blue": (-9, -60, 6)},
    "team_blocks": {"cap": {"red": "minecraft:red_mushroom_block", "blue": "minecraft:brown_mushroom_block"}},
    "judges": {},
    "judge_spots": {},
    "points": {},
}


def answer(skill: str, args: dict[str, Any] | None = None, thought: str = "t") -> str:
    return json.dumps({"thought": thought, "skill": skill, "args": args or {}})


def view(player: str = "Ryn", side: str = "red", **held: int) -> TeamObservation:
    players = {"red": ("Ryn", "Raze"), "blue": ("Byte", "Blink")}[side]
    mate = next(p for p in players if p != player)
    return TeamObservation(
        player=player, side=side, teammate=mate, position={"x": -7, "y": -60, "z": -10},
        survival={"health": 20, "food": 20}, equipment={}, nearby_blocks=[], nearby_entities=[],
        dropped_items=[], last_result=None, effects=[], skills=["mine", "go_to", "chat", "give"],
        failure_constraints=[],
        inventory=[{"item": f"minecraft:{k}", "count": n} for k, n in held.items()],
    )  # fmt: skip


def system(name: str = "cot", **settings: Any) -> TeamSystem:
    return TeamSystem(id=name, settings=settings, model=ModelSettings(name=MODEL, temperature=0.0))


def runtime(api: FakeOpenAI, **kw: Any) -> TeamLLMRuntime:
    models = {MODEL: LLMRuntime(api_base=api.base_url, **kw.pop("llm", {}))}
    return TeamLLMRuntime(models=models, **kw)


def briefing(side: str = "red", index: int = 0, episode: str = "tep-test") -> GameBriefing:
    players = {"red": ("Ryn", "Raze"), "blue": ("Byte", "Blink")}[side]
    return GameBriefing("mushroom_war", side, players, index, 7, facts=FACTS, episode_id=f"{episode}{index}")


def user_text(request: dict[str, Any]) -> str:
    return request["messages"][-1]["content"]


def test_an_llm_team_system_needs_a_model_and_valid_settings() -> None:
    with pytest.raises(ContractError, match="calls a model"):
        make_team_policy(TeamSystem(id="cot"))
    with pytest.raises(ContractError, match="invalid settings: max_stepz"):
        make_team_policy(system(max_stepz=3))


@pytest_twisted.ensureDeferred
async def test_cot_sends_scenario_observation_and_its_own_reasoning() -> None:
    replies = [
        Reply.chat(answer("mine", {"block": "minecraft:red_mushroom_block", "count": 1}, "Harvest our caps."),
                   prompt_tokens=100, completion_tokens=20),
        Reply.chat(answer("wait", thought="Let the mate move."), prompt_tokens=120, completion_tokens=10),
    ]  # fmt: skip
    with FakeOpenAI(replies) as api:
        cot = make_team_policy(system(), runtime(api))
        cot.pre_game(briefing())
        first = await cot.act(view(red_mushroom=2))
        second = await cot.act(view(red_mushroom=3))
    assert (
        first is not None and first.name == "mine" and first.args["block"] == "minecraft:red_mushroom_block"
    )
    assert second is None  # wait: one game second passes
    sent = api.requests
    assert len(sent) == 2 and sent[0]["model"] == "fake-team-model" and sent[0]["temperature"] == 0.0
    system_text = sent[0]["messages"][0]["content"]
    # the scenario's public description from the briefing: goal, sides, areas, team blocks
    assert (
        "Mushroom War" in system_text and "You are Ryn" in system_text and "team mate is Raze" in system_text
    )
    assert "area of team blue: centre (-9, -60, 6)" in system_text
    assert "cap block of team red: minecraft:red_mushroom_block" in system_text
    # the observation, canonical, in the user message
    obs = json.loads(user_text(sent[0]).split("CURRENT OBSERVATION (observed):\n")[1].split("\n")[0])
    assert obs["player"] == "Ryn" and obs["inventory"] == [{"count": 2, "item": "minecraft:red_mushroom"}]
    # its own previous reasoning: none at first, then the first thought with the call it chose
    assert "YOUR PREVIOUS REASONING: (none yet)" in user_text(sent[0])
    assert "[step 1] Harvest our caps. -> " in user_text(sent[1]) and '"skill":"mine"' in user_text(sent[1])
    assert cot.usage().model_dump() == {
        "model_calls": 2, "prompt_tokens": 220, "completion_tokens": 30, "cost_usd": 0.0,
    }  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_an_unparseable_answer_is_a_policy_error_of_that_player_only() -> None:
    replies = [
        Reply.chat("I think we should harvest, but I will not say how."),  # Ryn: no JSON
        Reply.chat(answer("mine", {"block": "minecraft:slime_block", "count": 2})),  # Raze: fine
        Reply.chat(answer("fly", {})),  # Ryn: a skill not offered
        Reply.chat(answer("go_to", {"x": -9, "y": -60, "z": -10})),  # Ryn: fine again
    ]
    with FakeOpenAI(replies) as api:
        cot = make_team_policy(system(), runtime(api))
        cot.pre_game(briefing())
        assert await cot.act(view("Ryn")) is None
        raze = await cot.act(view("Raze"))
        assert await cot.act(view("Ryn")) is None
        ryn = await cot.act(view("Ryn"))
    assert raze is not None and raze.name == "mine" and ryn is not None and ryn.name == "go_to"
    errors = cot.take_policy_errors("Ryn")
    assert [e.kind for e in errors] == ["unparseable", "unknown_skill"]
    assert errors[0].raw_text == "I think we should harvest, but I will not say how."
    assert cot.take_policy_errors("Raze") == [] and cot.take_policy_errors("Ryn") == []  # drained once
    # the rejection is shown to Ryn in its next prompt, never to Raze
    assert "REJECTED (unparseable)" in user_text(api.requests[2])
    assert "REJECTED (unknown_skill)" in user_text(api.requests[3]) and "'fly'" in user_text(api.requests[3])
    assert "REJECTED" not in user_text(api.requests[1])


@pytest_twisted.ensureDeferred
async def test_a_model_that_times_out_is_bounded_and_recorded() -> None:
    with FakeOpenAI([Reply.chat(answer("wait"), delay_s=2.0)]) as api:
        cot = make_team_policy(
            system(max_model_failures=2), runtime(api, llm={"timeout_s": 0.3, "max_retries": 0})
        )
        cot.pre_game(briefing())
        for _ in range(4):
            assert await cot.act(view("Ryn")) is None
        faults = cot.take_faults("Ryn")
    assert len(api.requests) == 2  # after 2 failures in a row Ryn stops asking for the episode
    assert [k for k, _ in faults] == ["unresponsive", "unresponsive"]
    assert "no answer within 0.3s" in faults[0][1] and cot.take_faults("Raze") == []
    assert cot.usage().model_calls == 0  # failed calls cost nothing recorded


@pytest_twisted.ensureDeferred
async def test_max_steps_bounds_the_calls_of_each_player() -> None:
    with FakeOpenAI([Reply.chat(answer("wait"))]) as api:
        cot = make_team_policy(system(max_steps=2), runtime(api))
        cot.pre_game(briefing())
        for _ in range(3):
            await cot.act(view("Ryn"))
            await cot.act(view("Raze"))
        assert len(api.requests) == 4
        cot.pre_game(briefing(index=1))  # a new episode: new steps, a fresh meter
        await cot.act(view("Ryn"))
    assert len(api.requests) == 5 and cot.usage().model_calls == 1


@pytest_twisted.ensureDeferred
async def test_record_then_replay_per_player_files(tmp_path: Path) -> None:
    rec = tmp_path / "rec"

    def replies() -> list[Reply]:  # a fresh script each time (the endpoint pops its replies)
        return [
            Reply.chat(answer("mine", {"block": "minecraft:slime_block", "count": 1})),
            Reply.chat(answer("wait")),
        ]

    with FakeOpenAI(replies()) as api:
        cot = make_team_policy(system(), runtime(api, record_dir=rec))
        cot.pre_game(briefing())
        calls = [await cot.act(view("Ryn")), await cot.act(view("Raze"))]
    assert sorted(p.name for p in rec.iterdir()) == ["tep-test0.Raze.jsonl", "tep-test0.Ryn.jsonl"]
    # the same episode played again (a study's rerun after a fault): its recording is rewritten whole
    with FakeOpenAI(replies()) as api2:
        rerun = make_team_policy(system(), runtime(api2, record_dir=rec))
        rerun.pre_game(briefing())
        assert await rerun.act(view("Ryn")) == calls[0]
    assert len((rec / "tep-test0.Ryn.jsonl").read_text().splitlines()) == 1
    assert not (rec / "tep-test0.Raze.jsonl").exists()
    with FakeOpenAI(replies()) as api3:  # and once more whole, for the replay below
        cot.configure_llm(runtime(api3, record_dir=rec))
        cot.pre_game(briefing())
        assert [await cot.act(view("Ryn")), await cot.act(view("Raze"))] == calls
    # replay: no endpoint at all; the same calls come back; an observed section may differ (game timing)
    again = make_team_policy(system(), TeamLLMRuntime(replay_dir=rec))
    again.pre_game(briefing())
    assert [await again.act(view("Ryn", red_mushroom=1)), await again.act(view("Raze"))] == calls
    assert await again.act(view("Ryn")) is None  # past the recording's end: Ryn asks no more (logged)
    assert "was not recorded" in again.log[-1] and await again.act(view("Ryn")) is None
    strict_end = make_team_policy(system(), TeamLLMRuntime(replay_dir=rec, replay_strict=True))
    strict_end.pre_game(briefing())
    await strict_end.act(view("Ryn"))
    with pytest.raises(ReplayMismatchError, match="was not recorded"):
        await strict_end.act(view("Ryn"))
    # strict replay compares the observation too
    strict = make_team_policy(system(), TeamLLMRuntime(replay_dir=rec, replay_strict=True))
    strict.pre_game(briefing())
    with pytest.raises(ReplayMismatchError, match="differs"):
        await strict.act(view("Ryn", red_mushroom=1))
    # and a difference outside the observed sections fails the lenient replay (here: another player's name)
    other = make_team_policy(system(), TeamLLMRuntime(replay_dir=rec))
    other.pre_game(briefing(episode="tep-other"))
    with pytest.raises(ReplayMismatchError, match="no recording"):
        await other.act(view("Ryn"))


def test_observed_sections_are_masked_to_the_blank_line() -> None:
    text = 'A\nCURRENT OBSERVATION (observed):\n{"x": 1}\nmore\n\nInstruction\nB (observed):\n1'
    assert (
        mask_observed(text)
        == f"A\nCURRENT OBSERVATION (observed):\n{MASK}\n\nInstruction\nB (observed):\n{MASK}"
    )


@pytest.mark.parametrize("scenario", ["mushroom_war", "dash_and_dine"])
def test_the_scenario_description_comes_from_the_arena_and_never_names_the_variant(scenario: str) -> None:
    from mirrorcraft.study.team_episode import briefing_facts
    from mirrorcraft.worlds.arenas.spec import load_arena_spec

    spec = load_arena_spec(scenario)
    texts = {}
    for variant in ("original", "mirrored"):
        cot = make_team_policy(system())
        cot.pre_game(
            GameBriefing(scenario, "blue", ("Byte", "Blink"), 0, 1, facts=briefing_facts(spec, variant))
        )
        texts[variant] = cot.system_message("Blink")  # refuses a leak (find_team_leaks), else the text
        for label, pos in spec.points(variant).items():
            assert f"- {label}: {tuple(int(v) for v in pos)}" in texts[variant]
    assert "mirror" not in texts["mirrored"].lower() and "original" not in texts["original"].lower()
    goal = {"mushroom_war": "Mushroom War.", "dash_and_dine": "Dash & Dine."}[scenario]
    assert all(goal in t and "You are Blink" in t for t in texts.values())
    if scenario == "dash_and_dine":  # the arena is not symmetric: the mirror moves the shared points
        assert texts["original"] != texts["mirrored"]


@pytest_twisted.ensureDeferred
async def test_the_cost_cap_is_the_sides_per_episode_shared_by_its_players() -> None:
    """Prices 1e-4 $/token, 1 output token at most: a call's worst case is its prompt (~4.5k tokens: < $0.5).
    Ryn's answer reports 20,000 prompt tokens ($2.0): with a $2.4 cap Raze's first call is refused before it is
    made (the side's meter), recorded as Raze's model failure naming the cap; a new episode starts afresh."""
    prices = {"input_cost_per_token": 1e-4, "output_cost_per_token": 1e-4, "max_cost_usd": 2.4}
    capped = TeamSystem(id="cot", model=ModelSettings(name=MODEL, temperature=0.0, max_output_tokens=1))
    with FakeOpenAI([Reply.chat(answer("wait"), prompt_tokens=20_000, completion_tokens=1)]) as api:
        cot = make_team_policy(capped, runtime(api, llm=prices))
        cot.pre_game(briefing())
        await cot.act(view("Ryn"))
        await cot.act(view("Raze"))
        assert len(api.requests) == 1 and cot.take_faults("Ryn") == []
        [(kind, message)] = cot.take_faults("Raze")
        assert kind == "unresponsive" and "cost cap reached: $2.0001 spent of $2.4000 per episode" in message
        assert cot.usage().cost_usd == pytest.approx(2.0001)
        cot.pre_game(briefing(index=1))
        await cot.act(view("Raze"))
    assert len(api.requests) == 2 and cot.usage().model_calls == 1
