"""Determinism: two runs of the same episode (same identity, so the same seed) in deterministic mode.

The records must be equal apart from timings: wall time, each report's ``ticks_used`` (game time is
measured from the wall clock, docs/skills.md), the milestones' ticks and each action's ``position`` (where
the body stopped, up to about a block apart between runs in free-running time). Everything else (spawn, calls, σ,
statuses, reasons, inventory deltas, drops, blocks broken, S_k, milestones, encounters, end reason) must
match exactly. Slow tier: two real episodes of two actions each (~90 s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.runner_support import build_worlds, scripted_identity

from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("runner-det-worlds"), ["plains-1", "plains-1/M03"])


def _without_timings(record: Any) -> dict[str, Any]:
    data = record.model_dump(mode="json")
    data.pop("wall_time_s")
    for step in data["trajectory"]:
        step["report"].pop("ticks_used")
        step.pop("position", None)  # where the body stopped: up to ~a block apart between runs
    for m in data["milestones"]:
        m.pop("tick")
    return data


@pytest.mark.slow
@pytest.mark.parametrize("suite", [None, "M03"])
@pytest_twisted.ensureDeferred
async def test_same_seed_gives_the_same_record_apart_from_timings(worlds, tmp_path, suite) -> None:
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=tmp_path)
    assert settings.controls.deterministic
    ident = scripted_identity(suite, budget=2)
    first = await EpisodeRunner(settings).run(ident)
    second = await EpisodeRunner(settings).run(ident)
    assert first.infrastructure_faults == [] and second.infrastructure_faults == []
    assert _without_timings(first) == _without_timings(second)
