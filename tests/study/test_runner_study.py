"""A real paired mini-study through the study driver: ``run_study`` with 2 worker processes.

The grid is the smallest paired design: scripted Diamond in ``plains-1`` (Vanilla) and its Mirror copy
``plains-1/M01``, one action each. Each spawned worker starts its own reactor thread and runs its episode
on its own embedded server (:func:`mirrorcraft.study.runner.make_episode_fn`); the driver alone writes
``results.jsonl``. Then the metrics see one Vanilla/Mirror comparison.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.runner_support import build_worlds

from mirrorcraft.contracts import ModelSettings, StudyGrid, TaskId
from mirrorcraft.metrics.paired import is_fault, paired_comparisons
from mirrorcraft.metrics.results import load_final_records
from mirrorcraft.study.executors import LocalExecutor, run_study
from mirrorcraft.study.runner import RunnerSettings, make_episode_fn


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("runner-study-worlds"), ["plains-1", "plains-1/M01"])


@pytest.mark.slow  # ~40-50 s: two real one-action episodes in parallel (keeps the default tier well under 2 min)
def test_paired_mini_study_with_two_workers(worlds, tmp_path) -> None:
    grid = StudyGrid(
        name="runner-mini",
        worlds=["plains-1"],
        tasks=[TaskId.DIAMOND],
        models=[ModelSettings(name="scripted", temperature=0.0)],
        configurations=["scripted"],
        repetitions=1,
        suites=["M01"],
        disclosed_configurations=[],
        budget=1,
    )
    settings = RunnerSettings(
        worlds_dir=worlds, build_missing=False, work_dir=tmp_path, records_dir=tmp_path / "eps"
    )
    run_dir = tmp_path / "run"
    summary = run_study(run_dir, grid, make_episode_fn(settings), executor=LocalExecutor(2), progress=False)
    assert summary.finished and summary.completed == 2 and summary.final_faults == 0 and summary.retried == 0
    records, scan = load_final_records(run_dir)
    assert sorted(r.identity.world_id for r in records) == ["plains-1", "plains-1/M01"]
    assert not any(is_fault(r) for r in records), [r.infrastructure_faults for r in records]
    assert len({r.seed for r in records}) == 1  # Vanilla and Mirror share the pair's seed
    assert {r.episode_id for r in records} == {i.episode_id for i in grid.expand()}
    assert all(r.outcome.actions_used == 1 and r.spawn is not None for r in records)
    # Both episodes start from byte-identical terrain: same spawn, same first decision.
    assert records[0].spawn == records[1].spawn
    assert records[0].trajectory[0].call == records[1].trajectory[0].call
    comps = paired_comparisons(records)
    assert len(comps) == 1 and comps[0].suite == "M01"
    assert sorted(p.name for p in (tmp_path / "eps").glob("ep-*.json")) == sorted(
        f"{r.episode_id}.json" for r in records
    )
