"""Executors: in-process, local process pool (2 workers) and Ray give the same records; runner failures
become fault records; Ray timeouts cancel the task. Episodes are deterministic synthetic records."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from support.study_episode_fn import (
    async_synthetic_episode,
    crashing_episode,
    sleepy_episode,
    synthetic_episode,
)

from mirrorcraft.contracts import ModelSettings, StudyGrid, read_record
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault
from mirrorcraft.metrics.results import scan_results
from mirrorcraft.study import (
    InProcessExecutor,
    LocalExecutor,
    RayExecutor,
    execute_episode,
    expand_grid,
    make_executor,
    run_study,
)

HERE = Path(__file__).resolve().parents[1]  # tests/: the support package (support.study_episode_fn)

GRID = StudyGrid(
    name="executor-test",
    study_seed=3,
    worlds=["savanna-1"],
    tasks=["iron_armor", "enchantment"],
    models=[ModelSettings(name="scripted", temperature=0.0)],
    configurations=["react"],
    repetitions=1,
)  # 2 tasks × (Vanilla + 6 suites + 6 disclosed) = 26 episodes


def _records(run_dir: Path) -> dict[str, str]:
    return {k: v.model_dump_json() for k, v in scan_results(run_dir / "results.jsonl").final().items()}


@pytest.fixture(scope="module")
def serial_records(tmp_path_factory) -> dict[str, str]:
    run = tmp_path_factory.mktemp("serial")
    run_study(run, GRID, synthetic_episode, executor=InProcessExecutor(), progress=False)
    return _records(run)


def test_local_pool_matches_serial(tmp_path: Path, serial_records: dict[str, str]):
    assert len(serial_records) == GRID.size() == 26
    summary = run_study(tmp_path / "pool", GRID, synthetic_episode, executor=LocalExecutor(2), progress=False)
    assert summary.finished and summary.final_faults == 0
    assert _records(tmp_path / "pool") == serial_records


def test_a_dead_worker_is_a_retried_fault(tmp_path: Path, serial_records: dict[str, str], monkeypatch):
    crash_id = expand_grid(GRID)[3].episode_id
    monkeypatch.setenv("MC_TEST_CRASH_ID", crash_id)  # inherited by the spawned workers
    monkeypatch.setenv("MC_TEST_FAULT_DIR", str(tmp_path))
    run = tmp_path / "crash"
    summary = run_study(run, GRID, crashing_episode, executor=LocalExecutor(2), progress=False)
    assert summary.finished and summary.final_faults == 0 and summary.retried >= 1
    scan = scan_results(run / "results.jsonl")
    first = scan.attempts[crash_id][0]
    assert is_fault(first) and "BrokenProcessPool" in first.infrastructure_faults[0].message
    assert _records(run) == serial_records


def test_async_runner_is_accepted(tmp_path: Path, serial_records: dict[str, str]):
    run_study(tmp_path / "a", GRID, async_synthetic_episode, executor=InProcessExecutor(), progress=False)
    assert _records(tmp_path / "a") == serial_records


def test_execute_episode_turns_runner_failures_into_fault_records():
    first, second = expand_grid(GRID)[:2]

    def wrong_record(identity):
        return synthetic_episode(second)

    def not_a_record(identity):
        return {"score": 100}

    for fn, message in [
        (wrong_record, f"returned the record of {second.episode_id} for episode {first.episode_id}"),
        (not_a_record, "returned dict, expected an EpisodeRecord"),
    ]:
        rec = read_record(execute_episode(fn, first.model_dump_json(), "rcon"))
        assert is_fault(rec) and rec.episode_id == first.episode_id
        assert message in rec.infrastructure_faults[0].message
        assert rec.evaluator == "rcon" and rec.spawn is None and rec.trajectory == []


def test_make_executor():
    assert isinstance(make_executor("local", workers=0), InProcessExecutor)
    assert isinstance(make_executor("local", workers=3), LocalExecutor)
    with pytest.raises(ContractError, match="unknown executor"):
        make_executor("slurm")  # type: ignore[arg-type]


needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="Ray is the optional extra mirrorcraft[ray] and is not installed (pip install 'mirrorcraft[ray]')",
)


@pytest.fixture(scope="module")
def ray_local():
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}},
    )
    yield ray
    ray.shutdown()


@needs_ray
def test_ray_matches_serial(ray_local, tmp_path: Path, serial_records: dict[str, str]):
    summary = run_study(tmp_path / "ray", GRID, synthetic_episode, executor=RayExecutor(), progress=False)
    assert summary.finished and summary.final_faults == 0
    assert _records(tmp_path / "ray") == serial_records
    assert ray_local.is_initialized()  # the executor did not shut down a Ray it did not start


@needs_ray
def test_ray_timeout_records_a_fault(ray_local, tmp_path: Path):
    smoke_one = StudyGrid.model_validate(
        GRID.model_dump() | {"tasks": ["iron_armor"], "suites": [], "disclosed_configurations": []}
    )
    assert smoke_one.size() == 1
    summary = run_study(
        tmp_path / "slow",
        smoke_one,
        sleepy_episode,
        executor=RayExecutor(timeout_s=2.0),
        max_attempts=1,
        progress=False,
    )
    assert (summary.completed, summary.final_faults) == (1, 1)
    (rec,) = scan_results(tmp_path / "slow" / "results.jsonl").final().values()
    assert "exceeded the 2.0s timeout" in rec.infrastructure_faults[0].message
