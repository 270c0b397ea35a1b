"""``RayExecutor(concurrency=N)``: threaded Ray actors running N episodes each (issue 23, phase 2).

Episodes are the synthetic ones of ``study_episode_fn`` (deterministic records, not games); Ray is a real
local Ray with 2 CPUs, so 2 actors × 2 episodes are in flight.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from support.study_episode_fn import synthetic_episode

from mirrorcraft.contracts import StudyGrid
from mirrorcraft.study import InProcessExecutor, RayExecutor, run_study

HERE = Path(__file__).resolve().parents[1]  # tests/: where the episode function's module lives

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="Ray is the optional extra mirrorcraft[ray]"
)


def test_threaded_ray_actors_give_the_serial_records(tmp_path: Path) -> None:
    import ray

    grid = StudyGrid.model_validate(StudyGrid.smoke().model_dump() | {"repetitions": 2})
    run_study(tmp_path / "serial", grid, synthetic_episode, executor=InProcessExecutor(), progress=False)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": f"{HERE}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}},
    )
    try:
        executor = RayExecutor(concurrency=2)
        summary = run_study(tmp_path / "ray", grid, synthetic_episode, executor=executor, progress=False)
        assert executor.capacity == 4
    finally:
        ray.shutdown()
    assert summary.finished and summary.final_faults == 0 and summary.completed == grid.size() == 6
    lines = {p: sorted((tmp_path / p / "results.jsonl").read_text().splitlines()) for p in ("serial", "ray")}
    assert lines["ray"] == lines["serial"]
