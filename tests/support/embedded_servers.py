"""Embedded servers on fresh copies of the session's sandbox, and Mineflayer bots for the control-plane tests
(``tests/node/driver.js`` through :mod:`nodebot`).

Fixtures live here, not in a ``conftest.py``, so every folder that needs them imports them: the server
tests (``tests/server/conftest.py``) and the harness's RCON test (``tests/harness``).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from support.nodebot import BotSpawner, NodeBotProcess


@pytest.fixture
def start_server(sandbox_template: Path, tmp_path: Path):
    """Factory: ``start_server(name, **config)`` → a started EmbeddedServer on a fresh copy of the sandbox
    (RCON on a free port unless ``rcon_port=None``; view distance 3 unless given); stopped at teardown."""
    servers: list[EmbeddedServer] = []

    def make(name: str = "a", **config: Any) -> EmbeddedServer:
        world = tmp_path / name / "world"
        shutil.copytree(sandbox_template, world)
        config.setdefault("rcon_port", 0)
        config.setdefault("view_distance", 3)
        srv = EmbeddedServer(ServerConfig(world=world, port=0, **config))
        srv.start()
        servers.append(srv)
        return srv

    yield make
    for srv in servers:
        pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


@pytest.fixture
def spawn_control_bot():
    """Factory: ``await spawn_control_bot(server, name)`` → a ready driver bot (killed at teardown)."""
    spawner = BotSpawner(timeout=20.0)

    async def make(server: Any, name: str) -> NodeBotProcess:
        return await spawner(name, server.port, ready_timeout=40)

    yield make
    spawner.kill_all()
