"""A side-balanced mini-study of ``cot`` against the scripted ``passive`` opponent through ``teams study``, on the embedded server: first recorded against a local
OpenAI-compatible endpoint (litellm's real HTTP path; the only fake is the model), then the same grid run
into a fresh folder **on the replayed answers** (no endpoint), and ``report`` on that folder. 2 episodes (red
and blue; no ``do_nothing`` baseline, to keep the default tier short: S is then not computed) of 8 game seconds
at 50 ticks/s per study, the blocks in the driver (``--workers 0``)."""

from __future__ import annotations

import json
from pathlib import Path

from support.llm_endpoint import FakeOpenAI, Reply
from support.team_study_support import run, study_env, teams_study_cmd, write_grid

from mirrorcraft.contracts.teams import read_team_record
from mirrorcraft.run import main

MODEL = "openai/fake-team-model"
STEPS = 2
#: Slower than the scripted mini-study's 200: the world runs on during a model call, and each player must
#: reach its STEPS calls within the episode in the recording run too.
TICK_RATE = "50"


def _records(out: Path) -> dict[str, object]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return {r.episode_id: r for r in (read_team_record(line) for line in lines)}


def test_a_side_balanced_cot_mini_study_on_replayed_answers_and_its_report(tmp_path: Path) -> None:
    cot = {"id": "cot", "settings": {"max_steps": STEPS}, "model": {"name": MODEL, "temperature": 0}}
    grid = write_grid(
        tmp_path / "grid.yaml", name="team-llm-mini", scenarios=["mushroom_war"], systems=[cot],
        opponents={"mushroom_war": ["passive"]}, repeats=1, block_length=1, game_seconds=8, baselines=False,
    )  # fmt: skip
    env = study_env(tmp_path / "tmp")
    rec, first, second = tmp_path / "calls", tmp_path / "recorded", tmp_path / "replayed"
    explore = json.dumps(
        {"thought": "Look around.", "skill": "explore", "args": {"direction": "north", "distance": 8}}
    )
    replies = [Reply.chat(explore, 80, 10)]  # every call (the endpoint repeats its last reply)
    with FakeOpenAI(replies) as api:
        one = run(teams_study_cmd(grid, first, "--workers", "0", "--tick-rate", TICK_RATE, "--api-base", api.base_url,
                                  "--llm-record-dir", str(rec)), env)  # fmt: skip
    assert one.returncode == 0, one.stdout + one.stderr
    assert len(api.requests) == 2 * 2 * STEPS  # two sides, two players, STEPS calls each
    two = run(
        teams_study_cmd(
            grid, second, "--workers", "0", "--tick-rate", TICK_RATE, "--llm-replay-dir", str(rec)
        ),
        env,
    )
    assert two.returncode == 0, two.stdout + two.stderr
    assert "2/2 episodes recorded" in two.stdout

    recorded, replayed = _records(first), _records(second)
    assert set(recorded) == set(replayed) and len(replayed) == 2
    tested = [r for r in replayed.values() if r.identity.tested.id == "cot"]
    assert sorted(r.identity.tested_side for r in tested) == ["blue", "red"]  # side-balanced
    for r in tested:
        side = r.identity.tested_side
        assert r.agent_faults == [] and r.usage[side].model_calls == 2 * STEPS
        assert r.usage == recorded[r.episode_id].usage  # the same calls and tokens, replayed
        calls = {t.player: [a.call for a in t.actions] for t in r.trajectories if t.side == side}
        before = {
            t.player: [a.call for a in t.actions]
            for t in recorded[r.episode_id].trajectories
            if t.side == side
        }
        assert calls == before and all([c.name for c in cs] == ["explore"] * STEPS for cs in calls.values())
        # the scripted opponent played its part
        assert any(t.actions for t in r.trajectories if t.side == r.identity.opponent_side)

    assert (
        main(["report", str(second), "--bootstrap", "100", "--no-plots"]) == 0
    )  # in this process: no episode
    md = (second / "report" / "teams.md").read_text()
    assert f"cot ({MODEL})" in md and "passive" in md
    assert "Model usage (study): 8 calls, 640 prompt + 80 completion tokens" in md
    assert f"  - cot ({MODEL}): 2 episodes, 8 calls" in md
    assert (second / "report" / "teams_mushroom_war.csv").is_file()
