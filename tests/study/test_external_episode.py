"""``episode --agent external``: a Mineflayer bot MirrorCraft does not drive plays a Mirror copy, and the episode
is recorded from the server's events — the world prepared and checked, the address printed, the client
awaited, the controls applied over RCON, its dig and placement as the trajectory's steps, the Mirror rule
it met as an encounter, the step budget ending it, and the record accepted by ``report``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
import pytest_twisted
from support.nodebot import BotSpawner, NodeBotProcess
from support.runner_support import build_worlds
from twisted.internet import defer

from mirrorcraft.contracts import EndReason, read_record
from mirrorcraft.study.external import ADDRESS_LINE, ExternalSettings, external_identity, run_external_episode
from mirrorcraft.study.runner import RunnerSettings

pytestmark = pytest.mark.npm


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("external-worlds"), ["plains-1", "plains-1/M02"])


@pytest_twisted.ensureDeferred
async def test_an_external_mineflayer_agent_plays_a_recorded_episode(worlds: Path, tmp_path: Path) -> None:
    from mirrorcraft.metrics.reporting import report

    identity = external_identity("plains-1/M02", "iron_armor", budget=2)
    out = tmp_path / "run"
    settings = RunnerSettings(
        worlds_dir=worlds, build_missing=False, tick_rate=40, records_dir=out / "episodes"
    )
    external = ExternalSettings(port=0, join_timeout_s=60, time_budget_s=60)
    spawner = BotSpawner(timeout=30.0, require_ok=True)
    lines: list[str] = []
    played: defer.Deferred = defer.Deferred()

    def started(server) -> None:  # noqa: ANN001 - the EpisodeServer, listening
        bot = spawner.start("voyager", server.port)
        defer.ensureDeferred(_play(server, bot)).chainDeferred(played)

    try:
        record = await run_external_episode(
            identity, settings, external, announce=lines.append, on_started=started
        )
        await played
    finally:
        spawner.kill_all()

    assert lines[0].startswith(f"{ADDRESS_LINE} 127.0.0.1:") and int(lines[0].rsplit(":", 1)[1]) > 0
    assert record.identity.agent == "external" and record.identity.model.name == "external"
    assert not record.infrastructure_faults, record.infrastructure_faults
    assert [s.call.name for s in record.trajectory] == ["mine", "place"]
    assert record.trajectory[0].call.args["block"] == "minecraft:oak_log"
    place = record.trajectory[1].call.args
    assert (place["item"], place["use"]) == ("minecraft:oak_planks", "build")
    assert (place["x"], place["y"], place["z"]) == PLACED["at"]
    assert record.outcome.end_reason == EndReason.BUDGET_EXHAUSTED and record.outcome.actions_used == 2
    (enc,) = record.encounters  # M02: a log drops four planks instead of the log
    assert enc.rule_id == "M02.log_drops_four_planks" and enc.action_index == 1
    assert record.controls == settings.controls and record.spawn is not None
    # the record and its run notes, as the runner writes them; `report` accepts the run folder
    saved = json.loads((out / "episodes" / f"{record.episode_id}.json").read_text())
    assert read_record(saved["record"]) == record
    assert (
        "external agent: voyager" in saved["run_notes"]["notes"]
        and saved["run_notes"]["controls_via"] == "rcon"
    )
    (out / "results.jsonl").write_text(record.model_dump_json() + "\n")
    paths = report(out, n_boot=50, plots=False)
    assert paths and any("external" in p.read_text() for p in paths if p.suffix == ".md")


PLACED: dict[str, tuple[int, int, int]] = {}


async def _play(server, bot: NodeBotProcess) -> None:  # noqa: ANN001
    """What the user's bot does: dig the log beside it, pick up the planks, place one back."""
    await bot.event("ready", timeout=40)
    srv = server.embedded
    x, y, z = (int(v // 1) for v in srv.position("voyager"))
    log = (x + 1, y, z)
    srv.set_block(*log, "oak_log", axis="y")
    srv.set_block(x + 1, y + 1, z, "air")
    srv.set_block(x + 1, y - 1, z, "stone")
    assert (await bot.do("dig", x=log[0], y=log[1], z=log[2], name="oak_log", timeout=30))["after"] == "air"
    assert (await bot.do("wait_item", name="oak_planks", atLeast=1, ms=8000))["got"]
    await bot.do("equip", name="oak_planks")
    PLACED["at"] = log
    await bot.do("place", against=[log[0], log[1] - 1, log[2]], face=[0, 1, 0])


def test_episode_cli_builds_an_external_identity() -> None:
    from mirrorcraft.study.episode_cli import _identity, add_episode_parser

    parser = argparse.ArgumentParser()
    add_episode_parser(parser.add_subparsers())
    args = parser.parse_args(
        ["episode", "--world", "plains-1/M02", "--task", "iron_armor", "--agent", "external"]
    )
    ident = _identity(args)
    assert (ident.agent, ident.model.name, ident.suite, ident.budget) == ("external", "external", "M02", 500)
    args = parser.parse_args(["episode", "--agent", "external", "--budget", "20", "--port", "0"])
    assert _identity(args).budget == 20 and args.port == 0
