"""A side-balanced mini-study of ``cot`` against the scripted ``passive`` opponent on the embedded server, on
replayed answers: the grid's two episodes (cot red, cot blue; no ``do_nothing`` baseline, to keep the default
tier short, so S is not computed) are first played here against a local OpenAI-compatible endpoint (litellm's
real HTTP path; the only fake is the model) recording every call, then ``teams study`` runs the grid into a
fresh folder answering every call from the recording (no endpoint), and ``report`` reads that folder. 10 game
seconds per episode; at 50 ticks/s, the study with its blocks in the driver (``--workers 0``)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest_twisted
from support.llm_endpoint import FakeOpenAI, Reply
from support.team_study_support import run, study_env, teams_study_cmd, write_grid
from twisted.internet import threads

from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.agents.teams import TeamLLMRuntime, make_team_policy
from mirrorcraft.contracts.teams import read_team_record
from mirrorcraft.run import main
from mirrorcraft.study.team_episode import run_team_episode
from mirrorcraft.study.team_grid import load_team_grid

MODEL = "openai/fake-team-model"
STEPS = 2
#: The recording's pace, slower than the scripted mini-study's 200: the world runs on during a model call, and
#: each player must reach its STEPS calls within the episode. The replayed study runs at the same pace.
TICK_RATE = "50"


def _records(out: Path) -> dict[str, object]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return {r.episode_id: r for r in (read_team_record(line) for line in lines)}


async def _record(grid: Path, arenas: Path, rec: Path, work: Path, api: FakeOpenAI) -> dict[str, object]:
    """Play the grid's episodes here against the endpoint, recording every model call into ``rec``."""
    runtime = TeamLLMRuntime(models={MODEL: LLMRuntime(api_base=api.base_url)}, record_dir=rec)
    out = {}
    for k, identity in enumerate(load_team_grid(grid).expand()):
        policies = {side: make_team_policy(identity.system_of(side), runtime) for side in ("red", "blue")}
        (work / str(k)).mkdir(parents=True)
        record = await run_team_episode(identity, policies, arenas=arenas, workdir=work / str(k),
                                        tick_rate=float(TICK_RATE))  # fmt: skip
        out[record.episode_id] = record
    return out


@pytest_twisted.ensureDeferred
async def test_a_side_balanced_cot_mini_study_on_replayed_answers_and_its_report(
    tmp_path: Path, arena_saves: Path
) -> None:
    cot = {"id": "cot", "settings": {"max_steps": STEPS}, "model": {"name": MODEL, "temperature": 0}}
    grid = write_grid(
        tmp_path / "grid.yaml", name="team-llm-mini", scenarios=["mushroom_war"], systems=[cot],
        opponents={"mushroom_war": ["passive"]}, repeats=1, block_length=1, game_seconds=10, baselines=False,
    )  # fmt: skip
    rec, out = tmp_path / "calls", tmp_path / "study"
    explore = json.dumps(
        {"thought": "Look around.", "skill": "explore", "args": {"direction": "north", "distance": 8}}
    )
    with FakeOpenAI([Reply.chat(explore, 80, 10)]) as api:  # every call (the endpoint repeats its last reply)
        recorded = await _record(grid, arena_saves, rec, tmp_path / "work", api)
    assert len(api.requests) == 2 * 2 * STEPS  # two sides, two players, STEPS calls each
    # the study, on the replayed answers: no endpoint (a pytest process runs a reactor: the study is a subprocess)
    env = study_env(tmp_path / "tmp")
    cmd = teams_study_cmd(grid, out, "--workers", "0", "--tick-rate", TICK_RATE, "--llm-replay-dir", str(rec),
                          "--worlds", str(arena_saves))  # fmt: skip
    two = await threads.deferToThread(run, cmd, env)
    assert two.returncode == 0, two.stdout + two.stderr
    assert (
        "2/2 episodes recorded" in two.stdout and two.stdout.count(f"; {2 * STEPS} model calls, $0.0000") == 2
    )

    replayed = _records(out)
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
        main(["report", str(out), "--bootstrap", "100", "--no-plots"]) == 0
    )  # no episode: fine in this process
    md = (out / "report" / "teams.md").read_text()
    assert f"cot ({MODEL})" in md and "passive" in md
    assert "Model usage (study): 8 calls, 640 prompt + 80 completion tokens" in md
    assert f"  - cot ({MODEL}): 2 episodes, 8 calls" in md
    assert (out / "report" / "teams_mushroom_war.csv").is_file()


def test_usage_errors_of_llm_team_systems_exit_2_before_anything_starts(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "out"
    local = ["--api-base", "http://127.0.0.1:9/v1"]
    cot = {"id": "cot", "model": {"name": MODEL}}
    fields = {"name": "g", "scenarios": ["mushroom_war"], "opponents": {"mushroom_war": ["passive"]}}
    bad = write_grid(tmp_path / "bad.yaml", systems=[cot | {"settings": {"max_stepz": 3}}], **fields)
    good = write_grid(tmp_path / "good.yaml", systems=[cot], **fields)
    cases = [
        (["teams", "episode", "--red", "cot"], "team system cot calls a model: give one"),
        (["teams", "episode", "--red", "cot", "--red-model", MODEL, *local, "--red-setting", "max_steps"],
         "--red-setting 'max_steps': expected KEY=VALUE"),
        (["teams", "episode", "--red", "cot", "--red-model", MODEL, *local, "--red-setting", "max_stepz=3"],
         "team system cot: invalid settings: max_stepz"),
        (["teams", "episode", "--red", "cot", "--red-model", MODEL], "environment variable OPENAI_API_KEY is not set"),
        (["teams", "study", str(bad), *local], "team system cot: invalid settings: max_stepz"),
        (["teams", "study", str(good)], "environment variable OPENAI_API_KEY is not set"),
    ]  # fmt: skip
    for argv, message in cases:
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = main([*argv, "--out", str(out)])
        assert code == 2 and message in stderr.getvalue(), (argv, stderr.getvalue())
        assert not out.exists()  # nothing built, written or started
