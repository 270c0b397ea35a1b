"""Fixtures of the embedded-server tests: fresh copies of the session's sandbox, the one fake player, running
servers, and remote-controlled Mineflayer bots.

The server runs **in-process** on the reactor that pytest-twisted runs in a greenlet (the same single
reactor the agent side uses), so tests call the server's test hook directly. Each Mineflayer bot is a
``node tests/node/driver.js`` child process spawned with ``reactor.spawnProcess`` (:mod:`nodebot`); tests
send it JSON commands and await its JSON replies, each with a hard timeout, and the process is killed at
teardown.
In-process tests without a socket drive a real :class:`~mirrorcraft.server.game.Game` with
:class:`fakeplayer.FakePlayer` (``fake_player``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.embedded_servers import spawn_control_bot, start_server  # noqa: F401 - fixtures for this tree
from support.fakeplayer import FakePlayer, join
from support.nodebot import BotSpawner, NodeBotProcess
from support.shared import fresh_world
from twisted.internet import defer

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer


@pytest.fixture
def world(sandbox_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the session's sandbox (an episode reset), for one test."""
    return fresh_world(sandbox_template, tmp_path)


@pytest.fixture
def fake_player():
    """Factory: ``fake_player(game, name="alex", pos=(8.5, 65.0, 8.5))`` → a :class:`fakeplayer.FakePlayer`
    logged in to ``game`` through the real join sequence, standing at ``pos``."""

    def make(game: Any, name: str = "alex", pos: tuple[float, float, float] = (8.5, 65.0, 8.5)) -> FakePlayer:
        return join(game, FakePlayer(name), pos)

    return make


@pytest.fixture(scope="module")
def server(
    sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory, node_modules: Path
) -> Iterator[EmbeddedServer]:
    """An embedded server on a free port, ticking at 40/s (accelerated: Mineflayer times digs itself)."""
    world = fresh_world(sandbox_template, tmp_path_factory.mktemp("server"))
    srv = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=40, view_distance=4, episode_seed=7))
    srv.start()
    yield srv
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


@pytest.fixture
def spawn_bot(server: EmbeddedServer, node_modules: Path):
    """Factory: ``await spawn_bot(name, version="1.19.2", port=None)`` → a ready driver bot (killed at
    teardown; Mineflayer's "normal" view distance); ``port`` defaults to the module's server."""
    spawner = BotSpawner(timeout=20.0, view="normal")

    async def spawn(name: str, version: str = "1.19.2", port: int | None = None) -> NodeBotProcess:
        return await spawner(name, server.port if port is None else port, version=version, ready_timeout=30)

    yield spawn
    spawner.kill_all()


@pytest.fixture
def spawn_bot2(node_modules: Path):
    """Factory: ``await spawn_bot2(port, name)`` → a ready driver bot whose failed commands raise (killed at
    teardown)."""
    spawner = BotSpawner(timeout=30.0, require_ok=True)

    async def spawn(port: int, name: str) -> NodeBotProcess:
        return await spawner(name, port, ready_timeout=40)

    yield spawn
    spawner.kill_all()
