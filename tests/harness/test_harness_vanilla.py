"""The vanilla-jar path without a jar: folder preparation, ``server.properties`` content, EULA handling,
clear errors when java or the jar is missing, and the launch/wait/stop logic against a real child process
that prints log lines (``python -c``: a process-harness test, not a game server)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import reactor, threads

from mirrorcraft.harness.vanilla import (
    VanillaLaunchError,
    VanillaServer,
    VanillaServerConfig,
    check_launch_requirements,
    format_properties,
    parse_properties,
    prepare_server_dir,
    server_properties,
    spawn_info,
)
from mirrorcraft.server.rcon import RconServerFactory
from mirrorcraft.worlds.anvil.level import LevelData


@pytest.fixture
def world(tmp_path: Path) -> Path:
    w = tmp_path / "src-world"
    (w / "region").mkdir(parents=True)
    LevelData(level_name="plains-1", seed=42, spawn=(3, 70, -5)).save(w / "level.dat")
    (w / "region" / "r.0.0.mca").write_bytes(b"\0" * 8192)
    return w


def test_prepare_folder_properties_and_eula(tmp_path: Path, world: Path) -> None:
    pack = tmp_path / "M02.zip"
    pack.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip archive
    cfg = VanillaServerConfig(jar=tmp_path / "server.jar", server_dir=tmp_path / "srv", view_distance=6)
    ready = prepare_server_dir(cfg, world, [pack])
    sd = tmp_path / "srv"
    assert ready.port > 0 and ready.rcon_port > 0 and ready.port != ready.rcon_port
    assert (sd / "world" / "level.dat").read_bytes() == (world / "level.dat").read_bytes()
    assert (sd / "world" / "region" / "r.0.0.mca").stat().st_size == 8192
    assert (sd / "world" / "datapacks" / "M02.zip").read_bytes() == pack.read_bytes()
    assert (sd / "ops.json").read_text() == "[]\n"
    assert not (sd / "eula.txt").exists()  # never written without accept_eula
    props = parse_properties((sd / "server.properties").read_text())
    assert props == server_properties(ready)
    for key, value in {
        "server-ip": "127.0.0.1", "online-mode": "false", "enable-rcon": "true", "spawn-protection": "0",
        "enforce-secure-profile": "false", "view-distance": "6", "level-name": "world", "difficulty": "peaceful",
        "gamemode": "survival", "spawn-monsters": "false", "allow-nether": "false",
        "rcon.port": str(ready.rcon_port), "server-port": str(ready.port),
    }.items():  # fmt: skip
        assert props[key] == value, key
    assert len(props["rcon.password"]) >= 20 and props["rcon.password"] == cfg.rcon_password
    other = VanillaServerConfig(jar=cfg.jar, server_dir=cfg.server_dir)
    assert other.rcon_password != cfg.rcon_password  # random per config (secrets)
    prepare_server_dir(cfg.model_copy(update={"accept_eula": True}), world)  # a fresh copy again
    assert "eula=true" in (sd / "eula.txt").read_text()
    assert not (sd / "world" / "datapacks").exists()  # the previous copy was replaced


def test_properties_escaping_round_trips() -> None:
    props = {"motd": "a=b: c\\d é", "level-name": "w"}
    text = format_properties(props)
    assert "motd=a\\=b\\: c" not in text and "motd=a=b: c\\\\d \\u00e9" in text
    assert parse_properties(text) == props


def test_clear_errors(tmp_path: Path, world: Path) -> None:
    with pytest.raises(VanillaLaunchError, match="not a world save"):
        prepare_server_dir(VanillaServerConfig(jar=tmp_path / "j", server_dir=tmp_path / "s"), tmp_path)
    with pytest.raises(VanillaLaunchError, match="datapack .*missing.zip does not exist"):
        prepare_server_dir(VanillaServerConfig(jar=tmp_path / "j", server_dir=tmp_path / "s"), world,
                           [tmp_path / "missing.zip"])  # fmt: skip
    cfg = VanillaServerConfig(jar=tmp_path / "server.jar", server_dir=tmp_path / "s", java="no-such-java-17")
    with pytest.raises(VanillaLaunchError, match="java executable 'no-such-java-17' not found"):
        check_launch_requirements(cfg)
    cfg = cfg.model_copy(update={"java": sys.executable})  # any existing executable passes the java check
    with pytest.raises(
        VanillaLaunchError, match="server.jar not found: MirrorCraft does not download Minecraft"
    ):
        check_launch_requirements(cfg)
    cfg.jar.write_bytes(b"PK")
    (tmp_path / "s").mkdir()
    with pytest.raises(VanillaLaunchError, match="EULA is not accepted"):
        check_launch_requirements(cfg)
    (tmp_path / "s" / "eula.txt").write_text("eula=true\n")
    assert check_launch_requirements(cfg) == sys.executable
    with pytest.raises(VanillaLaunchError, match="choose port and rcon_port first"):
        server_properties(cfg)


def test_spawn_info_reads_level_dat(world: Path) -> None:
    s = spawn_info(world, "plains")
    assert (s.position.x, s.position.y, s.position.z, s.biome) == (3, 70, -5, "minecraft:plains")


def _proc(tmp_path: Path, code: str) -> VanillaServer:
    cfg = VanillaServerConfig(jar=tmp_path / "none.jar", server_dir=tmp_path, port=1, rcon_port=1)
    return VanillaServer(cfg, command=[sys.executable, "-u", "-c", code])


def test_wait_ready_sees_done_line(tmp_path: Path) -> None:
    code = ("import time\nprint('[Server thread/INFO]: Preparing level \"world\"')\ntime.sleep(0.3)\n"
            "print('[Server thread/INFO]: Done (0.3s)! For help, type \"help\"')\ntime.sleep(30)")  # fmt: skip
    srv = _proc(tmp_path, code)
    srv.start()
    try:
        srv.wait_ready(timeout=20, check_rcon=False)
        assert any("Done (" in line for line in srv.lines)
    finally:
        assert srv.stop(timeout=1) != 0  # no RCON to send `stop` to: terminated
    assert "Preparing level" in (tmp_path / "mirrorcraft-server.log").read_text()


def test_wait_ready_errors(tmp_path: Path) -> None:
    srv = _proc(
        tmp_path, "import sys\nprint('Error: LinkageError occurred while loading main class')\nsys.exit(1)"
    )
    srv.start()
    with pytest.raises(
        VanillaLaunchError, match="exited with code 1 before it was ready; last lines:\nError: Linkage"
    ):
        srv.wait_ready(timeout=20)
    srv.stop(timeout=1)
    srv = _proc(tmp_path, "import time\nprint('Loading libraries')\ntime.sleep(30)")
    srv.start()
    try:
        with pytest.raises(
            VanillaLaunchError, match="not ready after 1 s .no 'Done \\(' line.; last lines:\nLoading"
        ):
            srv.wait_ready(timeout=1.0)
    finally:
        srv.stop(timeout=1)


@pytest_twisted.ensureDeferred
async def test_wait_ready_waits_for_rcon(tmp_path: Path) -> None:
    # A real RCON listener (our server factory on the test reactor) must accept the login after "Done (".
    factory = RconServerFactory(lambda cmd: "", password="pw")
    listening = factory.listen(reactor)
    cfg = VanillaServerConfig(jar=tmp_path / "none.jar", server_dir=tmp_path, port=1,
                              rcon_port=listening.getHost().port, rcon_password="pw")  # fmt: skip
    srv = VanillaServer(
        cfg, command=[sys.executable, "-u", "-c", "import time\nprint('Done (1.0s)!')\ntime.sleep(30)"]
    )
    srv.start()
    try:
        await threads.deferToThread(srv.wait_ready, 20)  # Done seen and an RCON login succeeded
        bad = VanillaServer(cfg.model_copy(update={"rcon_password": "wrong"}), command=srv.argv())
        bad.start()
        with pytest.raises(VanillaLaunchError, match="RCON 127.0.0.1:.* did not accept a login within 2 s"):
            await threads.deferToThread(bad.wait_ready, 2)
        await threads.deferToThread(bad.stop, 1)
    finally:
        await threads.deferToThread(srv.stop, 1)
        await listening.stopListening()


def _catalogue_world(root: Path, rel: str, spawn: tuple[int, int, int], pack: bool) -> None:
    w = root / rel
    (w / "region").mkdir(parents=True)
    LevelData(level_name=rel, seed=1, spawn=spawn).save(w / "level.dat")
    if pack:
        (w / "datapacks").mkdir()
        (w / "datapacks" / "mirrorcraft-M02.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)


@pytest_twisted.ensureDeferred
async def test_episodes_restart_with_a_fresh_world_copy(tmp_path: Path) -> None:
    from mirrorcraft.contracts.episodes import EpisodeIdentity, ModelSettings
    from mirrorcraft.harness.vanilla import VanillaEpisodes

    root = tmp_path / "worlds"
    _catalogue_world(root, "vanilla/plains-1", (1, 70, 2), pack=False)
    _catalogue_world(root, "mirror/plains-1/M02", (1, 70, 2), pack=True)
    cfg = VanillaServerConfig(jar=tmp_path / "none.jar", server_dir=tmp_path / "srv")
    done = "import time\nprint('Done (0.1s)!')\ntime.sleep(30)"
    episodes = VanillaEpisodes(
        cfg,
        root,
        ready_timeout=20,
        command=[sys.executable, "-u", "-c", done],
        check_rcon=False,
        stop_timeout=0.5,
    )
    ident = EpisodeIdentity(world="plains-1", suite="M02", task="iron_armor", budget=5, agent="react",
                            model=ModelSettings(name="m"), repetition=0, study_seed=0)  # fmt: skip
    try:
        spawn = await episodes.restart(ident)
        assert (spawn.position.x, spawn.position.y, spawn.position.z, spawn.biome) == (
            1,
            70,
            2,
            "minecraft:plains",
        )
        world = tmp_path / "srv" / "world"
        assert (world / "datapacks" / "mirrorcraft-M02.zip").exists()
        (world / "played.marker").write_text("the episode changed the world")
        first = episodes.server
        await episodes.restart(ident.model_copy(update={"suite": None}))
        assert first.process.returncode is not None  # the previous server was stopped
        assert not (world / "played.marker").exists() and not (world / "datapacks").exists()
        assert episodes.config.rcon_port == cfg.rcon_port or cfg.rcon_port == 0
        with pytest.raises(VanillaLaunchError, match="unknown world 'mars-1'"):
            episodes.restart_blocking("mars-1")
        with pytest.raises(VanillaLaunchError, match="not built: .*taiga-1 does not exist"):
            episodes.restart_blocking("taiga-1")
    finally:
        await threads.deferToThread(episodes.close)
