"""A short ``cot`` team episode on the embedded server (four real players over 127.0.0.1, the real Mushroom War
judge) against ``do_nothing``, its model calls answered by a local OpenAI-compatible endpoint through litellm
(the only fake is the model); then the same episode replayed from the recording, with no endpoint at all.

What is checked: one model call per player step, each player's calls in its own recording; an unusable answer
is a policy error of the one player that got it (raw text kept in the record), its team mate and the episode
go on; the record's usage holds the side's calls and tokens; the replay makes the same model calls (the
requests equal outside the observed sections, which depend on game timing in a free-running episode; see
``mirrorcraft.agents.team_replay``) and the same skill calls, and consumes every recorded answer.

Also: the episode's wiring of a system's hooks (a stand-in system, no model): its policy errors filed under the
player's next action or as trailing errors, its model failures as agent faults at the moment they happened, its
usage in the record. Slow tier: tacticrafter, react and reflexion each play a real block of two episodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_twisted
from support.llm_endpoint import FakeOpenAI, Reply

from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.agents.team_replay import masked_request
from mirrorcraft.agents.teams import (
    TEAM_POLICIES,
    TeamLLMRuntime,
    TeamPolicy,
    make_team_policy,
    register_team_policy,
)
from mirrorcraft.contracts import ModelSettings, PolicyError, SkillCall, TeamObservation, Usage
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem, read_team_record
from mirrorcraft.study.team_episode import run_team_episode

MODEL = "openai/fake-team-model"
STEPS = 3  # model calls per player (max_steps): both players reach them long before time-up
GARBAGE = "Let me think... we should harvest the caps first."


def _identity() -> TeamEpisodeIdentity:
    cot = TeamSystem(id="cot", settings={"max_steps": STEPS}, model=ModelSettings(name=MODEL, temperature=0))
    return TeamEpisodeIdentity(
        scenario="mushroom_war", tested=cot, opponent=TeamSystem(id="do_nothing"), tested_side="red",
        repeat=0, block_index=0, game_seconds=12,
    )  # fmt: skip


async def _play(identity: TeamEpisodeIdentity, runtime: TeamLLMRuntime, arenas: Path, work: Path):  # noqa: ANN202
    policies = {side: make_team_policy(identity.system_of(side), runtime) for side in ("red", "blue")}
    work.mkdir()
    # 12 game s at 50 ticks/s: 4.8 s of wall time, room for every player's STEPS calls on a loaded machine
    record = await run_team_episode(identity, policies, arenas=arenas, workdir=work, tick_rate=50)
    return record, policies["red"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest_twisted.ensureDeferred
async def test_a_cot_episode_is_recorded_per_player_and_replays_the_same_calls(
    arena_saves: Path, tmp_path: Path
) -> None:
    identity = _identity()
    rec, again = tmp_path / "recorded", tmp_path / "replayed"
    harvest = json.dumps({"thought": "Harvest a cap of our colour.", "skill": "mine",
                          "args": {"block": "minecraft:red_mushroom_block", "count": 1}})  # fmt: skip
    wait = json.dumps({"thought": "Hold what we have.", "skill": "wait"})
    replies = [Reply.chat(GARBAGE, 50, 9), Reply.chat(harvest, 60, 12), Reply.chat(wait, 70, 5)]
    with FakeOpenAI(replies) as api:
        runtime = TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}, record_dir=rec)
        record, _ = await _play(identity, runtime, arena_saves, tmp_path / "a")
    record = read_team_record(record.model_dump_json())  # the record passes its own checks
    assert record.agent_faults == [] and len(api.requests) == 2 * STEPS
    files = {p: rec / f"{identity.episode_id}.{p}.jsonl" for p in ("Ryn", "Raze")}
    assert sorted(f.name for f in rec.iterdir()) == sorted(f.name for f in files.values())
    calls = {p: _lines(f) for p, f in files.items()}
    assert all(len(c) == STEPS for c in calls.values())  # both players kept asking: one call per step
    # the one unusable answer is a policy error of the player that got it, raw text kept; the other went on
    red = {t.player: t for t in record.trajectories if t.side == "red"}
    errors = {
        p: [e for a in t.actions for e in a.policy_errors] + list(t.trailing_policy_errors)
        for p, t in red.items()
    }
    got_garbage = next(p for p, c in calls.items() if c[0]["response"]["text"] == GARBAGE)
    assert [e.kind for e in errors[got_garbage]] == ["unparseable"] and errors[got_garbage][
        0
    ].raw_text == GARBAGE
    assert errors[next(p for p in red if p != got_garbage)] == []
    assert any(a.call.name == "mine" for t in red.values() for a in t.actions)  # the harvest was played
    # usage: the red side's calls and tokens; do_nothing spends nothing and has no entry
    assert set(record.usage) == {"red"}
    assert record.usage["red"].model_calls == 2 * STEPS
    assert record.usage["red"].prompt_tokens == sum(
        c["response"]["prompt_tokens"] for cs in calls.values() for c in cs
    )

    # replay: no endpoint; every answer from the recording, the calls recorded once more to compare them
    replay = TeamLLMRuntime(models={MODEL: LLMRuntime(api_base="http://127.0.0.1:9/v1")},
                            replay_dir=rec, record_dir=again)  # fmt: skip
    record2, cot2 = await _play(identity, replay, arena_saves, tmp_path / "b")
    assert record2.agent_faults == []
    assert all(cot2.clients[p].backend.exhausted for p in ("Ryn", "Raze"))  # every recorded answer used
    for p, f in files.items():
        replayed = _lines(again / f.name)
        assert [masked_request(c["request"]) for c in replayed] == [
            masked_request(c["request"]) for c in calls[p]
        ]
        assert [c["response"] for c in replayed] == [c["response"] for c in calls[p]]
    red2 = {t.player: t for t in record2.trajectories if t.side == "red"}
    for p in red:
        assert [a.call for a in red2[p].actions] == [a.call for a in red[p].actions]
    assert record2.usage == record.usage


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tacticrafter", "react", "reflexion"])
@pytest_twisted.ensureDeferred
async def test_each_learning_system_plays_two_real_episodes_of_a_block(
    name: str, arena_saves: Path, tmp_path: Path
) -> None:
    """tacticrafter, react and reflexion against ``passive`` for a block of two real episodes, one system object
    (the calls between episodes on the reactor's threads): no fault, usage recorded, the state carried over."""
    harvest = json.dumps({"thought": "Harvest.", "skill": "mine",
                          "args": {"block": "minecraft:red_mushroom_block", "count": 1}})  # fmt: skip
    coach = json.dumps({"tactics": ["1. Ryn: harvest our caps.", "2. Raze: clear our slime."],
                        "opponent_tactics": "They clear slime.", "lessons": [{"text": "Harvest more."}]})  # fmt: skip
    system = TeamSystem(id=name, settings={"max_steps": 2}, model=ModelSettings(name=MODEL, temperature=0))
    with FakeOpenAI([Reply.chat(harvest)]) as api:
        runtime = TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)})
        policy = make_team_policy(system, runtime)
        records = []
        for index in (0, 1):
            identity = TeamEpisodeIdentity(
                scenario="mushroom_war", tested=system, opponent=TeamSystem(id="passive"), tested_side="red",
                repeat=0, block_index=index, block_length=2, game_seconds=8,
            )  # fmt: skip
            policies = {"red": policy, "blue": make_team_policy(TeamSystem(id="passive"))}
            (tmp_path / str(index)).mkdir()
            # tacticrafter's first game: every answer is the coach's (its players' answers are then policy errors)
            api.replies = [Reply.chat(coach if name == "tacticrafter" and index == 0 else harvest)]
            records.append(await run_team_episode(identity, policies, arenas=arena_saves,
                                                  workdir=tmp_path / str(index), tick_rate=100))  # fmt: skip
    for r in records:
        assert r.agent_faults == [] and r.usage["red"].model_calls >= 2, (r.agent_faults, r.usage)
    state = policy.checkpoint()
    assert state["prompt_template_version"].startswith(f"team-{name}/v")
    if name == "tacticrafter":
        assert state["episodes_played"] == 2 and len(state["outcomes"]) == 2 and state["tactics"]
    if name == "reflexion":
        assert state["episodes_played"] == 2 and len(state["review_log"]) >= 2


class _Noisy(TeamPolicy):
    """A stand-in for an LLM system at the episode's hooks (no model: what is checked is the episode's wiring).
    Ryn's first step yields a policy error and a model failure and waits; its second says a line; Raze waits."""

    id = "test_noisy_llm"

    def __init__(self, system: TeamSystem) -> None:
        super().__init__(system)
        self.asked: dict[str, int] = {}
        self.errors: dict[str, list[PolicyError]] = {}
        self.faults: dict[str, list[tuple[str, str]]] = {}

    async def act(self, view: TeamObservation) -> SkillCall | None:
        n = self.asked[view.player] = self.asked.get(view.player, 0) + 1
        if view.player != "Ryn":
            return None
        if n == 1:
            self.errors["Ryn"] = [PolicyError(kind="unparseable", raw_text="no JSON here", message="no JSON")]
            self.faults["Ryn"] = [("unresponsive", "action call failed: staged timeout")]
            return None
        if n == 2:
            return SkillCall.create("chat", {"text": "hello", "team": True})
        if n == 3:
            self.errors["Ryn"] = [
                PolicyError(kind="unknown_skill", raw_text='{"skill": "fly"}', message="fly")
            ]
        return None

    def take_policy_errors(self, player: str) -> list[PolicyError]:
        return self.errors.pop(player, [])

    def take_faults(self, player: str) -> list[tuple[str, str]]:
        return self.faults.pop(player, [])

    def usage(self) -> Usage:
        return Usage(model_calls=3, prompt_tokens=30, completion_tokens=6, cost_usd=0.25)


if _Noisy.id not in TEAM_POLICIES:
    register_team_policy(_Noisy)


@pytest_twisted.ensureDeferred
async def test_the_episode_files_policy_errors_faults_and_usage_of_a_system(
    arena_saves: Path, tmp_path: Path
) -> None:
    identity = TeamEpisodeIdentity(
        scenario="mushroom_war", tested=TeamSystem(id=_Noisy.id), opponent=TeamSystem(id="do_nothing"),
        tested_side="red", repeat=0, block_index=0, game_seconds=4,
    )  # fmt: skip
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    (tmp_path / "w").mkdir()
    record = await run_team_episode(
        identity, policies, arenas=arena_saves, workdir=tmp_path / "w", tick_rate=100
    )
    record = read_team_record(record.model_dump_json())
    ryn = next(t for t in record.trajectories if t.player == "Ryn")
    assert [a.call.name for a in ryn.actions] == ["chat"]
    assert [e.raw_text for e in ryn.actions[0].policy_errors] == [
        "no JSON here"
    ]  # filed under its next action
    assert [e.kind for e in ryn.trailing_policy_errors] == ["unknown_skill"]  # none followed: trailing
    [fault] = record.agent_faults
    assert (fault.player, fault.side, fault.kind, fault.message) == ("Ryn", "red", "unresponsive",
                                                                     "action call failed: staged timeout")  # fmt: skip
    assert 0 <= fault.t < 4
    assert record.usage == {"red": Usage(model_calls=3, prompt_tokens=30, completion_tokens=6, cost_usd=0.25)}


@pytest_twisted.ensureDeferred
async def test_in_lockstep_a_strict_replay_gives_the_same_record(arena_saves: Path, tmp_path: Path) -> None:
    """Lockstep (each decision charged its ``think_ticks``, the game waiting for a slower answer): the replayed
    episode sees the same observations, so the strict replay (whole requests compared, observed sections
    included) passes and the record is the recorded one, model usage included."""
    cot = TeamSystem(id="cot", settings={"max_steps": STEPS, "think_ticks": 20},
                     model=ModelSettings(name=MODEL, temperature=0))  # fmt: skip
    identity = TeamEpisodeIdentity(
        scenario="mushroom_war", tested=cot, opponent=TeamSystem(id="balanced"), tested_side="red",
        repeat=0, block_index=0, game_seconds=10,
    )  # fmt: skip
    harvest = json.dumps({"thought": "Harvest a cap of our colour.", "skill": "mine",
                          "args": {"block": "minecraft:red_mushroom_block", "count": 1}})  # fmt: skip
    rec = tmp_path / "recorded"

    async def play(runtime: TeamLLMRuntime, work: Path):  # noqa: ANN202
        policies = {side: make_team_policy(identity.system_of(side), runtime) for side in ("red", "blue")}
        work.mkdir()
        record = await run_team_episode(identity, policies, arenas=arena_saves, workdir=work, tick_rate=20,
                                        clock="lockstep", lockstep_paced=False)  # fmt: skip
        return record, policies["red"]

    with FakeOpenAI([Reply.chat(harvest, 60, 12)] * (2 * STEPS)) as api:
        runtime = TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}, record_dir=rec)
        recorded, _ = await play(runtime, tmp_path / "a")
    assert len(api.requests) == 2 * STEPS and recorded.agent_faults == []
    replay = TeamLLMRuntime(models={MODEL: LLMRuntime(api_base="http://127.0.0.1:9/v1")}, replay_dir=rec,
                            replay_strict=True)  # fmt: skip
    replayed, cot2 = await play(replay, tmp_path / "b")
    assert all(cot2.clients[p].backend.exhausted for p in ("Ryn", "Raze"))
    assert replayed.agent_faults == []  # a strict mismatch would be a fault of the player
    assert replayed.model_dump(mode="json") == recorded.model_dump(mode="json")
    mined = [a for t in recorded.trajectories if t.side == "red" for a in t.actions if a.call.name == "mine"]
    assert len(mined) == 2 * STEPS
