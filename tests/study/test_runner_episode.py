"""A real episode: the scripted agent plays Diamond in ``plains-1`` on the embedded server (in-process).

Everything is real: the catalogue world (small radius) copied per episode, the embedded server on this
reactor, the pure-Python body joining over TCP, the skills, the scripted policy and the record checks of the
contracts. The budget is small (one action: the scripted policy's first action mines six logs, ~40 s at
20 t/s). Ground truth for the report is the server's own view of the player's inventory at the end of the
action (read through the test hook just before teardown).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_twisted
from support.runner_support import build_worlds, scripted_identity

from mirrorcraft.contracts import Controls, EndReason, read_record, signature, task_spec
from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("runner-episode-worlds"), ["plains-1"])


@pytest_twisted.ensureDeferred
async def test_scripted_diamond_episode_gives_a_complete_record(worlds, tmp_path) -> None:
    servers = []
    inventories: list[dict[int, tuple[str, int]]] = []
    settings = RunnerSettings(
        worlds_dir=worlds, build_missing=False, work_dir=tmp_path, records_dir=tmp_path / "eps"
    )
    runner = EpisodeRunner(settings, on_server_started=servers.append)
    # Read the server's truth about the inventory right before the runner tears the server down.
    orig_teardown = runner._teardown

    async def teardown(body, server, copy_root, notes):
        if server is not None and server.embedded is not None:
            inventories.append(server.embedded.inventory("agent"))
        await orig_teardown(body, server, copy_root, notes)

    runner._teardown = teardown  # type: ignore[method-assign]
    ident = scripted_identity(None, budget=1)
    record = await runner.run(ident)

    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert record.episode_id == ident.episode_id and record.seed == ident.seed
    assert record.identity == ident and record.controls == Controls()
    assert record.spawn is not None and record.spawn.biome == "minecraft:plains"
    assert record.milestone_values == task_spec("diamond").values()
    assert record.outcome.actions_used == len(record.trajectory) == 1
    assert record.outcome.end_reason == EndReason.BUDGET_EXHAUSTED
    assert record.prompt_template_version == "scripted/none" and record.evaluator == "embedded"
    step = record.trajectory[0]
    assert step.index == 1 and tuple(step.signature) == signature(step.call)
    assert step.score_after == record.outcome.score
    assert record.wall_time_s > 0 and step.report.ticks_used > 0
    # The report's inventory delta is what the server says the player holds (it started empty).
    held: dict[str, int] = {}
    for name, count in inventories[0].values():
        held[f"minecraft:{name}"] = held.get(f"minecraft:{name}", 0) + count
    assert step.report.inventory_delta == held
    # The record survives the store's round trip and the run notes say how it was run.
    assert read_record(record.model_dump_json()) == record
    saved = json.loads((tmp_path / "eps" / f"{record.episode_id}.json").read_text())
    assert read_record(saved["record"]) == record
    notes = saved["run_notes"]
    assert notes["server"] == "embedded" and notes["controls_via"] == "rcon"
    assert notes["barrier"] == {"ticks": 2} and notes["agent_registry_id"] == "scripted"
    assert notes["server_ticks"] > 0 and notes["port"] == servers[0].port
    assert list(tmp_path.glob("ep-*")) == []  # world copy removed


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_episode_with_the_server_in_a_child_process(worlds, tmp_path) -> None:
    settings = RunnerSettings(
        worlds_dir=worlds,
        build_missing=False,
        work_dir=tmp_path,
        server="child",
        records_dir=tmp_path / "eps",
    )
    runner = EpisodeRunner(settings)
    record = await runner.run(scripted_identity(None, budget=2))
    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert record.outcome.actions_used == 2 and record.spawn is not None
    notes = runner.last_notes
    assert notes is not None and notes.server == "child" and notes.server_ticks is None
    assert notes.barrier == {"wall": 3}  # no in-process tick counter: the weaker, timed barrier
    assert notes.evaluator_basis.startswith("harness")
    assert read_record(record.model_dump_json()) == record
