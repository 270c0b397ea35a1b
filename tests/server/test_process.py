"""Child-process mode and the CLI's world resolution: a Mineflayer client joins a ``ServerProcess``."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support.nodebot import DRIVER_JS

from mirrorcraft.errors import WorldError
from mirrorcraft.harness.process import ServerProcess
from mirrorcraft.harness.serve_cli import fresh_copy, resolve_world
from mirrorcraft.server.config import ServerConfig

pytestmark = pytest.mark.npm  # needs node_modules (Mineflayer / minecraft-data / minecraft-packets)


def test_server_process_serves_a_mineflayer_client_and_stops_cleanly(
    sandbox_template: Path, tmp_path: Path
) -> None:
    world = fresh_copy(sandbox_template, tmp_path / "world")
    proc = ServerProcess(ServerConfig(world=world, port=0, tick_rate=20))
    port = proc.start(timeout=60)
    try:
        node = shutil.which("node")
        assert node is not None
        bot = subprocess.Popen(
            [node, str(DRIVER_JS), "127.0.0.1", str(port), "child", "1.19.2"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            ready = None
            for line in bot.stdout:  # type: ignore[union-attr]
                msg = json.loads(line)
                if msg.get("event") == "ready":
                    ready = msg
                    break
            assert ready is not None and ready["protocol"] == 760
            bot.stdin.write(json.dumps({"id": 1, "cmd": "blocks", "positions": [[8, 64, 8]]}) + "\n")  # type: ignore[union-attr]
            bot.stdin.flush()  # type: ignore[union-attr]
            reply = next(r for r in map(json.loads, bot.stdout) if r.get("id") == 1)  # type: ignore[arg-type]
            assert reply["names"] == ["grass_block"]
        finally:
            bot.kill()
            bot.wait(10)
    finally:
        assert proc.stop() == 0


def test_resolve_world(sandbox_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_world(str(sandbox_template)) == sandbox_template
    with pytest.raises(WorldError, match="unknown world"):
        resolve_world("no-such-world")
    (tmp_path / "empty").mkdir()
    with pytest.raises(WorldError, match="no level.dat"):
        resolve_world(str(tmp_path / "empty"))
    monkeypatch.setenv("MIRRORCRAFT_CACHE", str(tmp_path / "cache"))
    built = resolve_world("sandbox")
    assert (built / "level.dat").is_file() and built.parent == tmp_path / "cache" / "worlds"
    assert resolve_world("sandbox") == built  # cached
