"""A real paired mini-study in the default tier: the ``study`` CLI with the real runner, killed and resumed.

Issue 10's CI check. The grid (``ministudy_support.GRID_YAML``) is ``plains-1`` Iron Armor with the
scripted policy in Vanilla, M02 hidden and M02 disclosed, 3 actions each, on 48-block catalogue worlds.
``python -m mirrorcraft.run study`` runs it with 2 worker processes, each playing its episodes on its own
embedded server through ``mirrorcraft.study.runner:run_episode_blocking``. The driver's whole process group
is SIGKILLed as soon as the first record lands (the third episode is then running on a worker), the study
is resumed, and ``report`` is run on the folder. Checked: exactly the grid's episode ids, one record each,
every record valid and fault-free, the M02 rule encountered at action 1 in the Mirror copies only, the
report's Markdown, CSV and PNG files.

Then the same grid runs in-process through the Ray executor on a local Ray (``num_cpus=2``) and its
records must equal the local ones apart from timings (``ministudy_support.without_timings`` lists the
excluded fields and why). One known nondeterminism is split out instead of failing the test: how many
grass blocks the path follower digs on the way to the logs (2 or 3 in the same action, seen once in five
runs; ``ministudy_support.split_collateral``). It is compared too and reported as a ``UserWarning``; every
other field — calls, σ, statuses, completed counts, target drops, S_k, encounters, outcome — must match.

Cost (measured on the shared 2-core machine, ``--durations``): one episode ≈ 37 s (its first action mines
6 logs, ~670 ticks at 20 t/s); the killed + resumed local study with its report ≈ 80 s (fixture setup),
the Ray study ≈ 80-85 s; ≈ 165 s for the file.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.ministudy_support import (
    RULE,
    SUITE,
    WORLDS,
    compare,
    start_study,
    study_cmd,
    study_env,
    wait_for_final_records,
    without_timings,
    write_grid_file,
)
from support.refdata import REPO_ROOT
from support.runner_support import build_worlds

from mirrorcraft.contracts import EpisodeRecord, read_record
from mirrorcraft.metrics.paired import is_fault, paired_comparisons
from mirrorcraft.metrics.results import scan_results
from mirrorcraft.study.executors import RayExecutor, run_study
from mirrorcraft.study.grid import expand_grid, load_grid
from mirrorcraft.study.runner import RunnerSettings, make_episode_fn


@dataclass
class LocalStudy:
    """What the killed-then-resumed local study left behind."""

    run_dir: Path
    grid_file: Path
    worlds: Path
    episodes_dir: Path
    recorded_at_kill: int
    kill_returncode: int
    resume: subprocess.CompletedProcess[str]
    report: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("ministudy-worlds"), WORLDS)


@pytest.fixture(scope="module")
def local_study(worlds: Path, tmp_path_factory: pytest.TempPathFactory) -> LocalStudy:
    base = tmp_path_factory.mktemp("ministudy")
    grid_file = write_grid_file(base)
    run_dir = base / "run"
    episodes_dir = base / "episodes"
    env = study_env(worlds, episodes_dir, base / "tmp")
    log = base / "study-killed.log"
    proc = start_study(study_cmd(grid_file, run_dir, "--workers", "2"), env, log)
    try:
        recorded = wait_for_final_records(run_dir / "results.jsonl", proc, log, count=1)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the driver and both workers, mid-episode
        proc.wait(timeout=30)
    resume = subprocess.run(
        study_cmd(grid_file, run_dir, "--workers", "2", "--resume"),
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "report", str(run_dir), "--bootstrap", "200"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return LocalStudy(run_dir, grid_file, worlds, episodes_dir, recorded, proc.returncode, resume, report)


def test_killed_study_resumes_to_exactly_the_grid(local_study: LocalStudy) -> None:
    grid = load_grid(local_study.grid_file)
    ids = sorted(i.episode_id for i in expand_grid(grid))
    assert len(ids) == 3
    # Killed mid-run: SIGKILL reached the driver after its first record and before the grid was done.
    assert local_study.kill_returncode == -signal.SIGKILL
    assert 1 <= local_study.recorded_at_kill < 3
    assert local_study.resume.returncode == 0, local_study.resume.stdout + local_study.resume.stderr
    assert "3/3 episodes recorded" in local_study.resume.stdout
    assert f"({3 - local_study.recorded_at_kill} this session" in local_study.resume.stdout
    scan = scan_results(local_study.run_dir / "results.jsonl")
    assert sorted(scan.final()) == ids
    assert scan.duplicates == [] and all(len(v) == 1 for v in scan.attempts.values())
    assert scan.bad_lines == []  # one os.write per record (store.py): a SIGKILL leaves no partial line


def test_every_record_is_valid_and_shows_the_rule(local_study: LocalStudy) -> None:
    lines = (local_study.run_dir / "results.jsonl").read_text().splitlines()
    records = [read_record(line) for line in lines]  # contract checks: id, seed, σ, S_k, outcome
    assert len(records) == 3 and not any(is_fault(r) for r in records), [
        r.infrastructure_faults for r in records
    ]
    by_world = {(r.identity.world_id, r.identity.disclosure): r for r in records}
    vanilla = by_world[("plains-1", "hidden")]
    mirrors = [by_world[(f"plains-1/{SUITE}", "hidden")], by_world[(f"plains-1/{SUITE}", "disclosed")]]
    for r in records:
        assert r.outcome.actions_used == 3 == len(r.trajectory) and r.spawn is not None
        assert r.evaluator == "embedded" and r.controls.deterministic
        assert r.trajectory[0].call.name == "mine" and r.trajectory[0].report.status == "success"
    assert len({r.seed for r in records}) == 1 and len({r.spawn for r in records}) == 1
    # M02: mined logs drop planks, so the Mirror copies' first action yields planks and no log.
    assert vanilla.encounters == []
    assert vanilla.trajectory[0].report.inventory_delta.get("minecraft:oak_log", 0) > 0
    for r in mirrors:
        assert [(e.rule_id, e.action_index) for e in r.encounters][:1] == [(RULE, 1)]
        delta = r.trajectory[0].report.inventory_delta
        assert delta.get("minecraft:oak_planks", 0) > 0 and "minecraft:oak_log" not in delta
    # The scripted policy ignores disclosure: the hidden and disclosed M02 episodes play the same game.
    # (Records equal apart from timings and, see ministudy_support.split_collateral, the grass cleared
    # on the way.)
    hidden, disclosed = (without_timings(r) for r in mirrors)
    for data in (hidden, disclosed):
        data.pop("episode_id")
        data["identity"].pop("disclosure")
    exact, collateral = compare(hidden, disclosed)
    assert exact == []
    warn_collateral("M02 hidden vs disclosed", collateral)
    assert {c.suite for c in paired_comparisons(records)} == {SUITE}
    # Every episode also wrote its record + run notes (MIRRORCRAFT_EPISODE_DIR); the finished ones match.
    for r in records:
        saved = json.loads((local_study.episodes_dir / f"{r.episode_id}.json").read_text())
        assert EpisodeRecord.model_validate(saved["record"]) == r
        assert saved["run_notes"]["episode_id"] == r.episode_id and saved["run_notes"]["fault"] is None


def test_report_files_are_written(local_study: LocalStudy) -> None:
    assert local_study.report.returncode == 0, local_study.report.stderr
    listed = [Path(p) for p in local_study.report.stdout.split()]
    out = local_study.run_dir / "report"
    assert listed and all(p.parent == out and p.stat().st_size > 0 for p in listed)
    suffixes = {p.suffix for p in listed}
    assert suffixes == {".md", ".csv", ".png", ".html"} and listed[-1].name == "index.html"  # + episode pages
    md = (out / "report.md").read_text()
    assert SUITE in md
    for png in (p for p in listed if p.suffix == ".png"):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    by_suite = (out / "by_suite.csv").read_text().splitlines()
    assert by_suite[0].count(",") >= 1 and any(line.startswith(SUITE) for line in by_suite[1:])


needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is the optional extra mirrorcraft[ray] and is not installed (pip install 'mirrorcraft[ray]')",
)


@needs_ray
def test_ray_gives_the_same_records_as_local(local_study: LocalStudy, tmp_path: Path) -> None:
    grid = load_grid(local_study.grid_file)
    settings = RunnerSettings(worlds_dir=local_study.worlds, build_missing=False, work_dir=tmp_path)
    assert settings.controls.deterministic
    summary = run_study(
        tmp_path / "ray",
        grid,
        make_episode_fn(settings),
        executor=RayExecutor(num_cpus=2),  # starts (and shuts down) a local Ray: ray.init(num_cpus=2)
        progress=False,
    )
    assert summary.finished and summary.completed == 3 and summary.final_faults == 0 and summary.retried == 0
    ray_records = scan_results(tmp_path / "ray" / "results.jsonl").final()
    local_records = scan_results(local_study.run_dir / "results.jsonl").final()
    assert sorted(ray_records) == sorted(local_records)
    for eid, local in local_records.items():
        exact, collateral = compare(without_timings(local), without_timings(ray_records[eid]))
        assert exact == [], eid
        warn_collateral(f"{eid} local vs Ray", collateral)


def warn_collateral(what: str, collateral: list[str]) -> None:
    """Surface the known nondeterminism (ministudy_support.split_collateral) without failing on it."""
    if collateral:
        warnings.warn(f"{what}: blocks cleared on the way differ: {collateral}", stacklevel=2)
