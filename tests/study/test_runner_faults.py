"""Fault classification of the episode runner on real catalogue worlds that were damaged on purpose.

Each damaged world is a real ``plains-1`` save or Mirror copy with one thing broken (the rule pack file
removed, the pack not enabled in ``level.dat``, a rule pack in a Vanilla world, the world missing, a
milestone advancement missing from the vanilla pack). The runner must return an infrastructure-fault
record of the right kind, with the real controls, without playing (no trajectory, no score), and the
record must pass the contracts' checks when read back. The last test kicks the player mid-episode on the
real embedded server and expects ``disconnected``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_twisted
from support.runner_support import build_worlds, scripted_identity

from mirrorcraft.contracts import Controls, EndReason, read_record
from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("runner-fault-worlds"), ["plains-1", "plains-1/M01"])


def _clone(worlds: Path, tmp_path: Path) -> Path:
    out = tmp_path / "worlds"
    shutil.copytree(worlds, out)
    return out


def _assert_fault(record, kind: str, settings: RunnerSettings) -> None:
    assert record.outcome.end_reason == EndReason.INFRASTRUCTURE_FAULT
    assert [f.kind for f in record.infrastructure_faults] == [kind]
    assert record.trajectory == [] and record.outcome.score == 0 and record.outcome.actions_used == 0
    assert record.controls == settings.controls
    again = read_record(record.model_dump_json())
    assert again == record


@pytest_twisted.ensureDeferred
async def test_mirror_copy_without_its_rule_pack_is_a_missing_datapack_fault(worlds, tmp_path) -> None:
    root = _clone(worlds, tmp_path)
    pack = root / "mirror" / "plains-1" / "M01" / "datapacks" / "mirrorcraft_rules.zip"
    pack.unlink()
    settings = RunnerSettings(worlds_dir=root, build_missing=False, work_dir=tmp_path)
    runner = EpisodeRunner(settings)
    record = await runner.run(scripted_identity("M01"))
    _assert_fault(record, "missing_datapack", settings)
    assert str(pack) in record.infrastructure_faults[0].message
    assert runner.last_notes is not None and runner.last_notes.port is None  # no server was started
    assert record.spawn is None


@pytest_twisted.ensureDeferred
async def test_rule_pack_not_enabled_in_level_dat_is_a_missing_datapack_fault(worlds, tmp_path) -> None:
    root = _clone(worlds, tmp_path)
    # The Vanilla level.dat differs from the Mirror one only in Data.DataPacks.Enabled (catalogue docstring).
    shutil.copyfile(
        root / "vanilla" / "plains-1" / "level.dat", root / "mirror" / "plains-1" / "M01" / "level.dat"
    )
    settings = RunnerSettings(worlds_dir=root, build_missing=False, work_dir=tmp_path)
    record = await EpisodeRunner(settings).run(scripted_identity("M01"))
    _assert_fault(record, "missing_datapack", settings)
    assert "does not enable file/mirrorcraft_rules.zip" in record.infrastructure_faults[0].message


@pytest_twisted.ensureDeferred
async def test_vanilla_world_carrying_a_rule_pack_is_refused(worlds, tmp_path) -> None:
    root = _clone(worlds, tmp_path)
    shutil.copy(
        root / "mirror" / "plains-1" / "M01" / "datapacks" / "mirrorcraft_rules.zip",
        root / "vanilla" / "plains-1" / "datapacks" / "mirrorcraft_rules.zip",
    )
    settings = RunnerSettings(worlds_dir=root, build_missing=False, work_dir=tmp_path)
    record = await EpisodeRunner(settings).run(scripted_identity(None))
    _assert_fault(record, "missing_datapack", settings)


@pytest_twisted.ensureDeferred
async def test_missing_world_that_may_not_be_built_is_a_server_fault(tmp_path) -> None:
    settings = RunnerSettings(worlds_dir=tmp_path / "empty", build_missing=False, work_dir=tmp_path)
    record = await EpisodeRunner(settings).run(scripted_identity("M02"))
    _assert_fault(record, "server_error", settings)
    assert "plains-1/M02" in record.infrastructure_faults[0].message


@pytest_twisted.ensureDeferred
async def test_task_milestone_without_advancement_is_advancement_unavailable(
    worlds, tmp_path, monkeypatch
) -> None:
    import mirrorcraft.gamedata as gamedata

    real = Path(gamedata.VANILLA_PACK_DIR)
    fake = tmp_path / "vanilla_pack"
    story = fake / "data" / "minecraft" / "advancements" / "story"
    story.mkdir(parents=True)
    for f in (real / "data" / "minecraft" / "advancements" / "story").glob("*.json"):
        if f.name != "mine_diamond.json":
            shutil.copy(f, story / f.name)
    monkeypatch.setattr(gamedata, "VANILLA_PACK_DIR", fake)
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=tmp_path)
    record = await EpisodeRunner(settings).run(scripted_identity(None))
    _assert_fault(record, "advancement_unavailable", settings)
    assert "minecraft:story/mine_diamond" in record.infrastructure_faults[0].message


@pytest_twisted.ensureDeferred
async def test_player_kicked_mid_episode_is_a_disconnected_fault(worlds, tmp_path) -> None:
    from twisted.internet import reactor

    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=tmp_path)
    kicked: list[str] = []

    def kick_later(server) -> None:
        def kick() -> None:
            names = server.embedded.player_names()
            for name in names:
                server.embedded.player(name).kick("kicked by the fault-injection test")
            kicked.extend(names)

        reactor.callLater(3.0, kick)

    runner = EpisodeRunner(settings, on_server_started=kick_later)
    record = await runner.run(scripted_identity(None, budget=5))
    assert kicked == ["agent"]
    fault = record.infrastructure_faults[0]
    assert [f.kind for f in record.infrastructure_faults] == ["disconnected"], fault
    assert fault.action_index == 1 and "during action 1" in fault.message  # kicked while mining logs
    assert record.controls == Controls()
    assert record.spawn is not None  # the body had joined before the kick
    assert list(tmp_path.glob("ep-*")) == []  # the world copy was removed
