"""The results store and the driver: grid specs, kill-safety, resume, infrastructure-fault retries.

Episodes come from ``study_episode_fn`` (deterministic records computed from the identity, not games).
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from support.refdata import REPO_ROOT
from support.study_episode_fn import always_faulting_episode, flaky_episode, synthetic_episode

from mirrorcraft.contracts import StudyGrid
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault
from mirrorcraft.metrics.results import scan_results
from mirrorcraft.study import ResultsStore, StoreLockedError, expand_grid, load_grid, run_study
from mirrorcraft.study.report_cli import main as cli_main

HERE = Path(__file__).resolve().parents[1]  # tests/: the support package (support.study_episode_fn)

# 2 worlds × 2 tasks × 1 model × (direct_llm: 7 conditions + react: 7 + 6 disclosed) × 2 reps = 160.
GRID_YAML = {
    "preset": "main",
    "name": "store-test",
    "study_seed": 11,
    "worlds": ["plains-1", "taiga-2"],
    "tasks": ["iron_armor", "diamond"],
    "models": [{"name": "scripted", "temperature": 0.0}],
    "configurations": ["direct_llm", "react"],
    "repetitions": 2,
}


@pytest.fixture
def grid_file(tmp_path: Path) -> Path:
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(GRID_YAML))
    return path


@pytest.fixture
def grid(grid_file: Path) -> StudyGrid:
    return load_grid(grid_file)


def _lines(run_dir: Path) -> list[bytes]:
    return (run_dir / "results.jsonl").read_bytes().split(b"\n")


def _final_ids(run_dir: Path) -> list[str]:
    scan = scan_results(run_dir / "results.jsonl")
    return [eid for eid, r in scan.final().items() if not is_fault(r)]


def test_grid_spec_presets_and_yaml(grid: StudyGrid, tmp_path: Path):
    assert grid.size() == 160 and len(expand_grid(grid)) == 160
    assert load_grid("main").size() == 8640
    assert len(expand_grid(load_grid("smoke"))) == 3
    ids = [i.episode_id for i in expand_grid(grid)]
    assert ids == [i.episode_id for i in expand_grid(load_grid(tmp_path / "grid.yaml"))]  # same ids
    assert load_grid("smoke", study_seed=5).study_seed == 5
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: main\nrepetitions: 0\n")
    with pytest.raises(ContractError, match=r"bad.yaml: invalid study grid: repetitions"):
        load_grid(bad)
    with pytest.raises(ContractError, match="not a preset"):
        load_grid("no-such-grid")


def test_store_survives_a_line_cut_mid_write(grid: StudyGrid, tmp_path: Path):
    run = tmp_path / "run"
    run_study(run, grid, synthetic_episode, progress=False)
    lines = _lines(run)
    assert len(lines) == 161 and lines[-1] == b""  # 160 records, newline-terminated
    # Simulate a kill in the middle of writing record 41: keep 40 full lines and half of line 41.
    cut = sum(len(x) + 1 for x in lines[:40]) + len(lines[40]) // 2
    with (run / "results.jsonl").open("r+b") as fh:
        fh.truncate(cut)
    scan = scan_results(run / "results.jsonl")
    assert len(scan.final()) == 40
    assert [(b.lineno, b.partial) for b in scan.bad_lines] == [(41, True)]
    summary = run_study(run, grid, synthetic_episode, resume=True, progress=False)
    assert (summary.already_done, summary.completed, summary.bad_lines) == (40, 120, 1)
    ids = [i.episode_id for i in expand_grid(grid)]
    final = _final_ids(run)
    assert sorted(final) == sorted(ids)
    # No duplicates: every episode id has exactly one line; the fragment stays an ignored line.
    scan = scan_results(run / "results.jsonl")
    assert all(len(v) == 1 for v in scan.attempts.values())
    assert scan.duplicates == [] and [b.partial for b in scan.bad_lines] == [False]
    # The resumed records equal what the (deterministic) episode function gives for each identity.
    final_records = scan.final()
    for ident in expand_grid(grid)[::16]:
        assert final_records[ident.episode_id] == synthetic_episode(ident)


def test_corrupt_middle_line_is_reported_and_rerun(grid: StudyGrid, tmp_path: Path):
    run = tmp_path / "run"
    run_study(run, grid, synthetic_episode, progress=False)
    lines = _lines(run)
    lost = json.loads(lines[9])["episode_id"]
    lines[9] = b'{"schema_version": 2, "episode_id": "' + lost.encode() + b'", "garbage'
    (run / "results.jsonl").write_bytes(b"\n".join(lines))
    scan = scan_results(run / "results.jsonl")
    assert [(b.lineno, b.partial) for b in scan.bad_lines] == [(10, False)]
    assert "line 10 (byte" in str(scan.bad_lines[0]) and "not valid JSON" in str(scan.bad_lines[0])
    summary = run_study(run, grid, synthetic_episode, resume=True, progress=False)
    assert summary.completed == 1
    assert scan_results(run / "results.jsonl").final()[lost].episode_id == lost


def test_complete_last_record_without_newline_is_kept(grid: StudyGrid, tmp_path: Path):
    run = tmp_path / "run"
    run_study(run, grid, synthetic_episode, progress=False)
    data = (run / "results.jsonl").read_bytes()
    (run / "results.jsonl").write_bytes(data[:-1])  # the kill struck between the record and its newline
    summary = run_study(run, grid, synthetic_episode, resume=True, progress=False)
    assert (summary.completed, summary.bad_lines) == (0, 0)
    assert (run / "results.jsonl").read_bytes() == data


def test_resume_guards(grid: StudyGrid, tmp_path: Path):
    run = tmp_path / "run"
    run_study(run, load_grid("smoke"), synthetic_episode, progress=False)
    with pytest.raises(ContractError, match="already holds results; pass --resume"):
        run_study(run, load_grid("smoke"), synthetic_episode, progress=False)
    with pytest.raises(ContractError, match="started with another grid"):
        run_study(run, grid, synthetic_episode, resume=True, progress=False)
    with ResultsStore(run):
        with pytest.raises(StoreLockedError, match="another study process"):
            ResultsStore(run).open()


def test_infrastructure_faults_are_retried_under_the_same_id(grid: StudyGrid, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("MC_TEST_FAULT_DIR", str(tmp_path))
    run = tmp_path / "run"
    summary = run_study(run, grid, flaky_episode, max_attempts=3, progress=False)
    ids = [i.episode_id for i in expand_grid(grid)]
    flaky = [e for e in ids if e[-1] in "01234567"]
    assert summary.retried == len(flaky) > 0 and summary.final_faults == 0
    scan = scan_results(run / "results.jsonl")
    for eid in ids:
        recs = scan.attempts[eid]
        kinds = ["fault" if is_fault(r) else "ok" for r in recs]
        assert kinds == (["fault", "ok"] if eid in flaky else ["ok"]), eid
        assert all(r.episode_id == eid for r in recs)
    fault = scan.attempts[flaky[0]][0]
    assert fault.infrastructure_faults[0].message.startswith("run_episode raised ConnectionError")
    assert "Traceback" in (fault.infrastructure_faults[0].traceback or "")
    # Only the final record counts: it equals the fault-free function's record.
    assert scan.final()[flaky[0]] == synthetic_episode(expand_grid(grid)[ids.index(flaky[0])])


def test_faults_stop_after_bounded_attempts(tmp_path: Path):
    run = tmp_path / "run"
    smoke = load_grid("smoke")
    summary = run_study(run, smoke, always_faulting_episode, max_attempts=2, progress=False)
    assert (summary.completed, summary.retried, summary.final_faults) == (3, 3, 3)
    counts = collections.Counter(json.loads(x)["episode_id"] for x in _lines(run) if x)
    assert sorted(counts.values()) == [2, 2, 2]
    again = run_study(run, smoke, always_faulting_episode, max_attempts=2, resume=True, progress=False)
    assert (again.already_done, again.completed) == (3, 0)  # given up: not retried on resume


def _study_cmd(run: Path, grid_file: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mirrorcraft.study.report_cli",
        "study",
        str(grid_file),
        "--run-dir",
        str(run),
        "--episode-fn",
        "support.study_episode_fn:synthetic_episode",
        "--no-progress",
        *extra,
    ]


def test_sigkill_mid_run_then_resume_gives_exactly_the_grid(grid: StudyGrid, grid_file: Path, tmp_path: Path):
    run = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    env["MC_TEST_EPISODE_SLEEP"] = "0.03"
    proc = subprocess.Popen(
        _study_cmd(run, grid_file, "--workers", "2"),
        cwd=REPO_ROOT,
        env=env,
        start_new_session=True,  # its own process group: the kill reaches the driver and its workers
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    results = run / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= 30:
            break
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    else:
        pytest.fail("the study did not record 30 episodes within 60 s")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    recorded = len(scan_results(results).final())
    assert 30 <= recorded < 160
    env.pop("MC_TEST_EPISODE_SLEEP")
    done = subprocess.run(
        _study_cmd(run, grid_file, "--workers", "0", "--resume"),
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "160/160 episodes recorded" in done.stdout
    scan = scan_results(results)
    assert sorted(_final_ids(run)) == sorted(i.episode_id for i in expand_grid(grid))
    assert all(len(v) == 1 for v in scan.attempts.values()) and scan.duplicates == []


def test_cli_study_dry_run_and_a_bad_episode_fn_is_refused(tmp_path: Path, capsys):
    """``--dry-run`` lists the grid; an unusable ``--episode-fn`` fails clearly and writes nothing. (Without
    ``--episode-fn`` the study uses the real runner, exercised by tests/study/test_runner_ministudy.py.)"""
    assert cli_main(["study", "smoke", "--dry-run", "--list", "3"]) == 0
    out = capsys.readouterr().out
    assert "grid smoke: 3 episodes" in out and "plains-1/M01" in out
    run_dir = tmp_path / "r"
    args = [
        "study",
        "smoke",
        "--run-dir",
        str(run_dir),
        "--episode-fn",
        "mirrorcraft.study.runner:no_such_fn",
    ]
    assert cli_main(args) == 1
    assert "has no attribute 'no_such_fn'" in capsys.readouterr().err
    assert not run_dir.exists()


def test_progress_bar_shows_eta_and_live_score(tmp_path: Path):
    import io

    from rich.console import Console

    from mirrorcraft.study import StudyProgress

    smoke = load_grid("smoke")
    buf = io.StringIO()
    bar = StudyProgress(3, enabled=True, console=Console(file=buf, force_terminal=True, width=160))
    run_study(tmp_path / "run", smoke, synthetic_episode, progress=bar)
    records = [synthetic_episode(i) for i in expand_grid(smoke)]
    mean = sum(r.outcome.score for r in records) / 3
    sr = 100 * sum(r.outcome.success for r in records) / 3
    assert (bar.done, bar.valid) == (3, 3)
    assert bar.mean_score == pytest.approx(mean) and bar.success_rate == pytest.approx(sr)
    out = buf.getvalue()
    assert "3/3" in out and "ETA" in out and f"Score {mean:.1f}  SR {sr:.1f}%" in out
