"""Lockstep through the episode runner (issue 23): the same scripted episode paced at 20 t/s and unpaced.

In lockstep the body acts only during a skill call and the barrier after it, and every wait of the skills
written against the body's clock counts ticks, so the two records must be equal apart from the wall time
— ticks used, milestone ticks and server ticks included (docs/lockstep.md says what could still break
this: the waits in the skills that are not on the body's clock). Slow tier: two real episodes.
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
    return build_worlds(tmp_path_factory.mktemp("runner-lockstep-worlds"), ["plains-1"])


def _without_wall(record: Any) -> dict[str, Any]:
    data = record.model_dump(mode="json")
    data.pop("wall_time_s")
    return data


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_lockstep_paced_and_unpaced_give_the_same_record(worlds, tmp_path) -> None:
    ident = scripted_identity(budget=3)
    records, notes = [], []
    for paced in (True, False):
        settings = RunnerSettings(
            worlds_dir=worlds,
            build_missing=False,
            work_dir=tmp_path,
            clock="lockstep",
            lockstep_paced=paced,
            lockstep_timeout=60.0,
        )
        runner = EpisodeRunner(settings)
        records.append(await runner.run(ident))
        notes.append(runner.last_notes)
    paced_record, unpaced_record = records
    assert paced_record.infrastructure_faults == [] and unpaced_record.infrastructure_faults == []
    assert [n.clock for n in notes] == ["lockstep", "lockstep-unpaced"]
    assert all(n.lockstep["stalls"] == [] and n.lockstep["body_in_lockstep"] for n in notes)
    assert notes[0].server_ticks == notes[1].server_ticks
    assert _without_wall(paced_record) == _without_wall(unpaced_record)
    assert sum(s.report.ticks_used for s in paced_record.trajectory) > 0
