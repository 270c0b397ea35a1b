"""Resumable team studies end to end on the embedded server (real players over 127.0.0.1, the real judges).

* A side-balanced mini-study in the default tier: ``teams study`` with 2 worker processes, ``random`` tested
  against the scripted ``aggressive`` opponent from both sides, plus the ``do_nothing`` baseline of S; 2
  repeats of one-episode blocks, 5 game seconds at 200 ticks/s (8 episodes). Then ``report`` on its folder
  (the team tables, the score-over-time plot with bands, the D heat map) and a rerun into the same folder
  (nothing to do, nothing duplicated).
* Kill and resume: the ``counting`` system (``support.team_study_support``: its checkpoint counts the
  episodes its object played) against ``do_nothing`` in blocks of 2, both sides, 2 workers; the driver's
  process group is SIGKILLed as soon as the first record lands, the study is resumed, and every id must have
  exactly one record and every checkpoint must say ``block_index + 1`` — which only holds if the resumed
  block's systems were ``restore()``d.
* Infrastructure faults (one pool worker — pytest-twisted runs a reactor in the test process, so episodes
  cannot run in it — and a staged ``ConnectionError`` before a real episode): rerun under the same
  id with the systems restored from the last checkpoint; final after ``max_attempts``, the block going on.
* Ray (``slow`` tier; skipped without the optional extra): a local Ray runs a block as a streaming task.

Cost measured on the shared 2-core machine (``--durations``): see docs/pillagerbench.md "Running a team study".
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.team_study_support import (
    FLAKY_ENV,
    MODULE,
    flaky_play,
    run,
    study_env,
    teams_study_cmd,
    write_grid,
)

from mirrorcraft.contracts.teams import TeamGrid, read_team_record
from mirrorcraft.metrics.team_results import scan_team_results
from mirrorcraft.run import main
from mirrorcraft.study.team_grid import load_team_grid
from mirrorcraft.study.team_study import (
    LocalBlockExecutor,
    RayBlockExecutor,
    TeamRunSettings,
    run_team_study,
)

TICK_RATE = "200"


def _checkpoint(run_dir: Path, episode_id: str) -> dict:
    return json.loads((run_dir / "checkpoints" / f"{episode_id}.json").read_text())


# ---- the side-balanced mini-study ----------------------------------------------------------------------


@dataclass
class MiniStudy:
    grid: TeamGrid
    out: Path
    study: subprocess.CompletedProcess[str]
    report: subprocess.CompletedProcess[str]
    rerun: subprocess.CompletedProcess[str]
    lines_before_rerun: list[str]


@pytest.fixture(scope="module")
def ministudy(tmp_path_factory: pytest.TempPathFactory) -> MiniStudy:
    base = tmp_path_factory.mktemp("team-ministudy")
    grid_file = write_grid(
        base / "grid.yaml", name="team-mini", scenarios=["mushroom_war"], systems=["random"],
        opponents={"mushroom_war": ["aggressive"]}, repeats=2, block_length=1, game_seconds=5,
    )  # fmt: skip
    out = base / "run"
    env = study_env(base / "tmp")
    study = run(teams_study_cmd(grid_file, out, "--workers", "2", "--tick-rate", TICK_RATE), env)
    lines = (out / "results.jsonl").read_text().splitlines() if (out / "results.jsonl").exists() else []
    # In this process (no episode left to play, so no reactor is needed): the report, then a rerun.
    report = _main(["report", str(out), "--bootstrap", "200"])
    rerun = _main(["teams", "study", str(grid_file), "--out", str(out), "--workers", "2"])
    return MiniStudy(load_team_grid(grid_file), out, study, report, rerun, lines)


def _main(argv: list[str]) -> subprocess.CompletedProcess[str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(argv)
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


def test_the_mini_study_records_every_episode_once_side_balanced(ministudy: MiniStudy) -> None:
    assert ministudy.study.returncode == 0, ministudy.study.stdout + ministudy.study.stderr
    assert "8/8 episodes recorded (8 this session, 0 retried faults, 0 final faults" in ministudy.study.stdout
    ids = [i.episode_id for i in ministudy.grid.expand()]
    records = [read_team_record(line) for line in ministudy.lines_before_rerun]
    assert sorted(r.episode_id for r in records) == sorted(ids)  # each exactly once
    assert not any(r.is_fault for r in records)
    sides = Counter((r.identity.tested.id, r.identity.tested_side) for r in records)
    assert sides == {(s, side): 2 for s in ("random", "do_nothing") for side in ("red", "blue")}
    for r in records:
        assert len(r.scores) == 5 and r.outcome.end_reason == "time_up"
        # the scripted aggressive opponent acts; do_nothing never does
        assert any(t.actions for t in r.trajectories if t.side == r.identity.opponent_side), r.trajectories
        if r.identity.tested.id == "do_nothing":
            assert not any(t.actions for t in r.trajectories if t.side == r.identity.tested_side)
        cp = _checkpoint(ministudy.out, r.episode_id)  # beside every record: both systems' checkpoints
        assert cp["block_id"] == r.identity.block_id and set(cp["systems"]) == {"red", "blue"}
    manifest = json.loads((ministudy.out / "team_study.json").read_text())
    assert manifest["kind"] == "team_study" and manifest["episodes"] == 8 and manifest["blocks"] == 8
    # the same seeds from both sides (paired), so the report's units join a repeat's red and blue blocks
    by_key = {(r.identity.tested.id, r.identity.repeat, r.identity.tested_side): r.seed for r in records}
    assert by_key[("random", 0, "red")] == by_key[("random", 0, "blue")] == by_key[("do_nothing", 0, "red")]


def test_rerunning_into_the_same_folder_continues_and_duplicates_nothing(ministudy: MiniStudy) -> None:
    assert ministudy.rerun.returncode == 0, ministudy.rerun.stderr
    assert "8/8 episodes recorded (0 this session" in ministudy.rerun.stdout
    assert (ministudy.out / "results.jsonl").read_text().splitlines() == ministudy.lines_before_rerun


def test_the_report_of_the_mini_study(ministudy: MiniStudy) -> None:
    assert ministudy.report.returncode == 0, ministudy.report.stderr
    out = ministudy.out / "report"
    listed = [Path(p) for p in ministudy.report.stdout.split()]
    assert {p.name for p in listed} == {
        "teams.md", "teams_mushroom_war.csv", "side_balance_mushroom_war.csv", "normal_scores_mushroom_war.csv",
        "ratings_mushroom_war.csv", "scores_mushroom_war.png", "d_heatmap_mushroom_war.png", "index.html",
    }  # fmt: skip
    # one viewer page per episode beside index.html (listed on stderr), with its four paths (docs/viewer.md)
    pages = sorted(out.glob("tep-*.html"))
    assert len(pages) == 8 and all('class="action' in p.read_text() for p in pages)
    assert all(p.parent == out and p.stat().st_size > 0 for p in listed)
    for png in (p for p in listed if p.suffix == ".png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "teams.md").read_text()
    assert "Grid: team-mini, 8 episodes" in md and "Episodes recorded: 8 of 8; pending 0" in md
    assert "### Mushroom War: points, sabotage" in md and "| random | aggressive | original | pooled |" in md
    rows = (out / "teams_mushroom_war.csv").read_text().splitlines()
    header = rows[0].split(",")
    pooled = [dict(zip(header, r.split(","), strict=True)) for r in rows[1:] if ",pooled," in r]
    random_row = next(r for r in pooled if r["system"] == "random" and r["opponent"] == "aggressive")
    assert random_row["episodes"] == "4" and random_row["units"] == "2"  # two repeats, sides paired
    assert (
        random_row["d_ci_lo"] != "" and random_row["s"] != ""
    )  # two units: an interval; S from the baseline
    normal = (out / "normal_scores_mushroom_war.csv").read_text()
    assert "aggressive" in normal


# ---- kill and resume -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def killed(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, list[str], int, subprocess.CompletedProcess[str]]:
    base = tmp_path_factory.mktemp("team-killed")
    grid_file = write_grid(
        base / "grid.yaml", name="team-kill", scenarios=["mushroom_war"], systems=["counting"],
        opponents={"mushroom_war": ["do_nothing"]}, repeats=1, block_length=2, game_seconds=4,
        baselines=False,
    )  # fmt: skip
    out = base / "run"
    env = study_env(base / "tmp")
    log = (base / "killed.log").open("wb")
    cmd = teams_study_cmd(grid_file, out, "--workers", "2", "--tick-rate", TICK_RATE)
    proc = subprocess.Popen(cmd, cwd=Path(__file__).parents[2], env=env, start_new_session=True, stdout=log,
                            stderr=subprocess.STDOUT)  # fmt: skip
    results = out / "results.jsonl"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and scan_team_results(results).final():
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the driver and both workers, mid-block
        proc.wait(timeout=30)
    at_kill = results.read_text().splitlines() if results.exists() else []
    resume = run([*cmd, "--resume"], env)
    return grid_file, out, at_kill, proc.returncode, resume


def test_a_killed_team_study_resumes_to_exactly_the_grid(killed) -> None:  # noqa: ANN001
    grid_file, out, at_kill, returncode, resume = killed
    grid = load_team_grid(grid_file)
    assert returncode == -signal.SIGKILL
    done_at_kill = {read_team_record(line).episode_id for line in at_kill if line.strip()}
    assert 1 <= len(done_at_kill) < 4
    assert resume.returncode == 0, resume.stdout + resume.stderr
    assert (
        "4/4 episodes recorded" in resume.stdout and f"({4 - len(done_at_kill)} this session" in resume.stdout
    )
    scan = scan_team_results(out / "results.jsonl")
    assert sorted(scan.final()) == sorted(i.episode_id for i in grid.expand())
    assert scan.duplicates == [] and all(len(v) == 1 for v in scan.attempts.values())
    # Blocks the kill cut in the middle were restored from their last checkpoint, not started afresh.
    partial = [b for b in grid.blocks() if 0 < sum(i.episode_id in done_at_kill for i in b) < len(b)]
    assert f"{len(partial)} blocks restored from checkpoints" in resume.stdout
    for block in grid.blocks():
        for ident in block:
            cp = _checkpoint(out, ident.episode_id)
            tested = cp["systems"][ident.tested_side]
            assert tested["episodes"] == ident.block_index + 1, (ident.block_index, cp)
    for block in partial:
        restored = _checkpoint(out, block[-1].episode_id)["systems"][block[0].tested_side]["restored"]
        assert restored == [sum(i.episode_id in done_at_kill for i in block)]


# ---- infrastructure faults -----------------------------------------------------------------------------


def test_infrastructure_faults_rerun_under_the_same_id_then_become_final(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grid = TeamGrid(
        name="team-faults", scenarios=["mushroom_war"], systems=["counting"],
        opponents={"mushroom_war": ["do_nothing"]}, repeats=1, block_length=2, game_seconds=3, baselines=False,
    )  # fmt: skip
    red, blue = grid.blocks()
    assert red[0].tested_side == "red"
    plan = tmp_path / "flaky.json"  # red #1 fails once; blue #0 always
    plan.write_text(json.dumps({red[1].episode_id: 1, blue[0].episode_id: 99}))
    monkeypatch.setenv(FLAKY_ENV, str(plan))  # before the worker is spawned: it inherits the variable
    settings = TeamRunSettings(
        arenas=tmp_path / "worlds", tick_rate=200, imports=(MODULE,),
        episode_fn=f"{MODULE}:{flaky_play.__name__}",
    )  # fmt: skip
    lines: list[str] = []
    summary = run_team_study(tmp_path / "run", grid, settings, executor=LocalBlockExecutor(1),
                             max_attempts=2, log=lines.append)  # fmt: skip
    assert summary.finished and summary.completed == 4, lines
    assert summary.retried == 2 and summary.final_faults == 1 and summary.restored_blocks == 1
    scan = scan_team_results(tmp_path / "run" / "results.jsonl")
    assert [len(scan.attempts[i.episode_id]) for i in (*red, *blue)] == [1, 2, 2, 1]
    assert scan.fault_count(red[1].episode_id) == 1 and not scan.final()[red[1].episode_id].is_fault
    final_fault = scan.final()[blue[0].episode_id]
    assert final_fault.is_fault and final_fault.infrastructure_faults[0].kind == "disconnected"
    assert "staged" in final_fault.infrastructure_faults[0].message
    # red's rerun restored the state after #0; blue's #1 started fresh (its #0 never finished)
    assert _checkpoint(tmp_path / "run", red[1].episode_id)["systems"]["red"] == {
        "episodes": 2,
        "restored": [1],
    }
    assert _checkpoint(tmp_path / "run", blue[1].episode_id)["systems"]["blue"] == {
        "episodes": 1,
        "restored": [],
    }
    assert not (tmp_path / "run" / "checkpoints" / f"{blue[0].episode_id}.json").exists()
    assert sum("(will rerun)" in line for line in lines) == 2


# ---- Ray -----------------------------------------------------------------------------------------------

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is the optional extra mirrorcraft[ray] and is not installed (pip install 'mirrorcraft[ray]')",
)


@pytest.mark.slow  # ~25 s on the shared 2-core machine (Ray's start included): python -m pytest -m slow ...
@needs_ray
def test_a_team_study_on_a_local_ray(tmp_path: Path) -> None:
    repo = Path(__file__).parents[2]
    grid = TeamGrid(
        name="team-ray", scenarios=["mushroom_war"], systems=["counting"], opponents={"mushroom_war": ["random"]},
        sides=["blue"], repeats=1, block_length=2, game_seconds=3, baselines=False,
    )  # fmt: skip
    path = os.pathsep.join([str(repo), str(repo / "tests"), os.environ.get("PYTHONPATH", "")])
    executor = RayBlockExecutor(num_cpus=2, init_kwargs={"runtime_env": {"env_vars": {"PYTHONPATH": path}}})
    summary = run_team_study(
        tmp_path / "ray", grid, TeamRunSettings(arenas=tmp_path / "worlds", tick_rate=200, imports=(MODULE,)),
        executor=executor, log=None,
    )  # fmt: skip
    assert summary.finished and summary.completed == 2 and summary.final_faults == 0
    scan = scan_team_results(tmp_path / "ray" / "results.jsonl")
    assert sorted(scan.final()) == sorted(i.episode_id for i in grid.expand())
    for ident in grid.expand():  # one object played the whole block in one Ray task
        assert (
            _checkpoint(tmp_path / "ray", ident.episode_id)["systems"]["blue"]["episodes"]
            == ident.block_index + 1
        )
