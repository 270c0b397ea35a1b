"""The runner applies the benchmark controls over RCON, and the vanilla-jar path fails fast from the CLIs.

A real short episode on the embedded server (scripted agent, budget 1): the controls went over the
server's RCON socket (the run notes keep every command and reply), the record's controls are what the
server read back (equal to ``Controls()``), and the body — which only sees packets — has the effects and
XP level 100 the controls ask for. No vanilla jar exists here, so the vanilla path is tested through its
error messages (``serve``/``episode``/``study --server vanilla``) and with Python standing in for java (a
real process that exits at once: folder preparation and the exit report); a ``real_server`` test plays one
short episode on the user's jar when ``MIRRORCRAFT_SERVER_JAR`` is set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from support.runner_support import build_worlds, scripted_identity

from mirrorcraft.contracts import Controls, EndReason
from mirrorcraft.harness.vanilla import VanillaLaunchError
from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings, vanilla_preflight


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("runner-control-worlds"), ["plains-1", "plains-1/M03"])


@pytest_twisted.ensureDeferred
async def test_embedded_episode_controls_go_over_rcon(worlds, tmp_path) -> None:
    seen: dict[str, object] = {}
    settings = RunnerSettings(
        worlds_dir=worlds, build_missing=False, work_dir=tmp_path, records_dir=tmp_path / "eps"
    )
    runner = EpisodeRunner(settings)
    orig_teardown = runner._teardown

    async def teardown(body, server, copy_root, notes):
        # What the body saw (packets only) and the server's own admin state, before teardown.
        if body is not None:
            seen["level"] = body.health.level
            seen["effects"] = {
                n: body.health.effect_level(n)
                for n in ("minecraft:haste", "minecraft:speed", "minecraft:resistance", "minecraft:strength")
            }
        if server is not None and server.embedded is not None:
            seen["rcon_port"] = server.embedded.rcon_port
        await orig_teardown(body, server, copy_root, notes)

    runner._teardown = teardown  # type: ignore[method-assign]
    record = await runner.run(scripted_identity(None, budget=1))

    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert record.outcome.end_reason == EndReason.BUDGET_EXHAUSTED
    assert record.controls == Controls()  # read back from the server over RCON
    assert record.evaluator == "embedded"
    notes = json.loads((tmp_path / "eps" / f"{record.episode_id}.json").read_text())["run_notes"]
    assert notes["controls_via"] == "rcon"
    sent = [cmd for cmd, _reply in notes["rcon_log"]]
    assert "experience set agent 100 levels" in sent and "difficulty" in sent
    assert "effect give agent minecraft:haste 1000000 1 true" in sent
    replies = dict((cmd, reply) for cmd, reply in notes["rcon_log"])
    assert replies["experience query agent levels"] == "agent has 100 experience levels"
    assert replies["time query daytime"] == "The time is 6000"
    assert isinstance(seen["rcon_port"], int) and seen["rcon_port"] > 0
    # The body's own view: XP level 100 and the four effects at their amplifier + 1.
    assert seen["level"] == 100
    assert seen["effects"] == {
        "minecraft:haste": 2,
        "minecraft:speed": 1,
        "minecraft:resistance": 1,
        "minecraft:strength": 1,
    }


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_child_process_episode_controls_go_over_rcon(worlds, tmp_path) -> None:
    # The child reports only its game port: the runner chose the RCON port and password itself.
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=tmp_path, server="child")
    runner = EpisodeRunner(settings)
    record = await runner.run(scripted_identity(None, budget=1))
    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert record.controls == Controls()
    notes = runner.last_notes
    assert notes is not None and notes.server == "child" and notes.controls_via == "rcon"
    assert ("experience query agent levels", "agent has 100 experience levels") in notes.rcon_log


@pytest_twisted.ensureDeferred
async def test_vanilla_fault_record_names_the_missing_jar(worlds, tmp_path) -> None:
    settings = RunnerSettings(
        worlds_dir=worlds,
        build_missing=False,
        work_dir=tmp_path,
        server="vanilla",
        server_jar=tmp_path / "nope" / "server.jar",
        accept_eula=True,
        java=sys.executable,  # a real executable, so the jar check is the one that fails
    )
    record = await EpisodeRunner(settings).run(scripted_identity(None, budget=1))
    (fault,) = record.infrastructure_faults
    assert fault.kind == "server_error" and "server jar" in fault.message and "not found" in fault.message
    assert record.evaluator == "rcon"
    assert list(tmp_path.glob("ep-*")) == []


def test_vanilla_preflight_messages(tmp_path) -> None:
    jar = tmp_path / "server.jar"
    jar.write_bytes(b"PK\x05\x06" + bytes(18))  # an (empty) zip: the check is about the path only
    with pytest.raises(VanillaLaunchError, match="--server-jar PATH"):
        vanilla_preflight(None, True, sys.executable)
    with pytest.raises(VanillaLaunchError, match="--accept-eula"):
        vanilla_preflight(jar, False, sys.executable)
    with pytest.raises(VanillaLaunchError, match="20 ticks/s"):
        vanilla_preflight(jar, True, sys.executable, tick_rate=100)
    with pytest.raises(VanillaLaunchError, match="java executable 'no-such-java-17' not found"):
        vanilla_preflight(jar, True, "no-such-java-17")
    assert vanilla_preflight(jar, True, sys.executable) == sys.executable


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", *args], capture_output=True, text=True, timeout=60, cwd=cwd
    )


@pytest.mark.parametrize("command", ["serve", "episode", "study"])
def test_vanilla_cli_error_paths(command, tmp_path) -> None:
    jar = tmp_path / "server.jar"
    jar.write_bytes(b"PK\x05\x06" + bytes(18))
    base = {
        "serve": ["serve", "--world", "sandbox", "--server-dir", str(tmp_path / "srv")],
        "episode": ["episode", "--out", str(tmp_path / "out")],
        "study": ["study", "smoke", "--run-dir", str(tmp_path / "run")],
    }[command]
    java = ["--java", sys.executable]  # a real executable: the checks after the java one are reached
    cases = [
        ([], "--server-jar PATH"),
        (["--server-jar", str(jar), *java], "--accept-eula"),
        (["--server-jar", str(tmp_path / "missing.jar"), "--accept-eula", *java], "missing.jar not found"),
        (
            ["--server-jar", str(jar), "--accept-eula", "--java", "no-such-java-17"],
            "'no-such-java-17' not found",
        ),
    ]
    for extra, expected in cases:
        res = _cli(*base, "--server", "vanilla", *extra, cwd=tmp_path)
        assert res.returncode == 2, (extra, res.stdout, res.stderr)
        assert res.stderr.startswith(f"{command}: ") and expected in res.stderr, (extra, res.stderr)
    # Nothing was prepared or run: no server folder, no episode output, no run folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.jar"]


def test_serve_vanilla_prepares_the_folder_and_reports_a_server_that_exits(tmp_path) -> None:
    # Python stands in for java (a real process, not a game): it refuses `-Xmx2G -jar ... nogui` and exits,
    # so the prepared folder and the launch/exit report are checked without a Minecraft jar.
    jar = tmp_path / "server.jar"
    jar.write_bytes(b"PK\x05\x06" + bytes(18))
    srv = tmp_path / "srv"
    res = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "serve", "--world", "sandbox", "--server", "vanilla",
         "--server-jar", str(jar), "--accept-eula", "--java", sys.executable, "--server-dir", str(srv),
         "--ready-timeout", "30"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env=dict(os.environ, MIRRORCRAFT_CACHE=str(tmp_path / "cache")),
    )  # fmt: skip
    assert res.returncode == 1, (res.stdout, res.stderr)
    assert "serve: server exited with code" in res.stderr and "before it was ready" in res.stderr
    from mirrorcraft.harness.vanilla import parse_properties

    props = parse_properties((srv / "server.properties").read_text())
    assert props["enable-rcon"] == "true" and props["online-mode"] == "false" and props["rcon.password"]
    assert (srv / "eula.txt").read_text().strip().endswith("eula=true")
    assert (srv / "world" / "level.dat").is_file()


@pytest_twisted.ensureDeferred
async def test_vanilla_server_that_exits_is_a_server_error_fault(worlds, tmp_path) -> None:
    jar = tmp_path / "server.jar"
    jar.write_bytes(b"PK\x05\x06" + bytes(18))
    settings = RunnerSettings(
        worlds_dir=worlds,
        build_missing=False,
        work_dir=tmp_path,
        server="vanilla",
        server_jar=jar,
        accept_eula=True,
        java=sys.executable,  # exits at once on `-Xmx2G -jar server.jar nogui`
        vanilla_ready_timeout=30,
        keep_world=True,
    )
    runner = EpisodeRunner(settings)
    record = await runner.run(scripted_identity("M03", budget=1))
    (fault,) = record.infrastructure_faults
    assert fault.kind == "server_error" and "server exited with code" in fault.message, fault.message
    assert record.evaluator == "rcon" and record.controls == Controls()
    assert runner.last_notes is not None and runner.last_notes.controls_via == "none"
    # The server folder was prepared from the Mirror copy: its rule pack came along, RCON was configured.
    (server_dir,) = tmp_path.glob("ep-*/server")
    assert (server_dir / "world" / "datapacks" / "mirrorcraft_rules.zip").is_file()
    assert "enable-rcon=true" in (server_dir / "server.properties").read_text()


@pytest.mark.real_server
@pytest_twisted.ensureDeferred
async def test_one_short_episode_on_a_real_vanilla_jar(worlds, tmp_path) -> None:
    jar = os.environ.get("MIRRORCRAFT_SERVER_JAR")
    if not jar:
        pytest.skip("MIRRORCRAFT_SERVER_JAR is not set (a user-supplied vanilla 1.19.2 server jar)")
    settings = RunnerSettings(
        worlds_dir=worlds,
        build_missing=False,
        work_dir=tmp_path,
        records_dir=tmp_path / "eps",
        server="vanilla",
        server_jar=Path(jar),
        accept_eula=True,
        java=os.environ.get("MIRRORCRAFT_JAVA", "java"),
    )
    record = await EpisodeRunner(settings).run(scripted_identity(None, budget=2))
    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert record.evaluator == "rcon" and record.outcome.actions_used == 2
    assert record.controls == Controls(deterministic=False)  # a jar cannot seed its randomness
    notes = json.loads((tmp_path / "eps" / f"{record.episode_id}.json").read_text())["run_notes"]
    assert notes["controls_via"] == "rcon" and notes["evaluator_basis"].startswith("rcon")
