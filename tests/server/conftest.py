"""Fixtures of the embedded-server tests: fresh copies of the session's sandbox, the one fake player, running
servers, and remote-controlled Mineflayer bots.

The server runs **in-process** on the reactor that pytest-twisted runs in a greenlet (the same single
reactor the agent side uses), so tests call the server's test hook directly. Each Mineflayer bot is a
``node`` child process spawned with ``reactor.spawnProcess`` (``tests/node/bot.js`` for the basics,
``node/bot2.js`` for windows and mobs, ``node/control2_bot.js`` for the control plane); tests send it JSON
commands and await its JSON replies, each with a hard timeout, and the process is killed at teardown.
In-process tests without a socket drive a real :class:`~mirrorcraft.server.game.Game` with
:class:`fakeplayer.FakePlayer` (``fake_player``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from embedded_servers import spawn_control_bot, start_server  # noqa: F401 - fixtures for this tree
from fakeplayer import FakePlayer, join
from nodebot import NodeBotProcess
from shared import fresh_world
from twisted.internet import defer, reactor

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

HERE = Path(__file__).resolve().parent
BOT_JS = HERE.parents[1] / "tests" / "node" / "bot.js"
BOT2_JS = HERE / "node" / "bot2.js"


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


class NodeBot(NodeBotProcess):
    """A ``tests/node/bot.js`` process (see :class:`nodebot.NodeBotProcess`)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, timeout=20.0)


class NodeBot2(NodeBotProcess):
    """A ``node/bot2.js`` process; a failed command raises with the bot's error."""

    def __init__(self, name: str) -> None:
        super().__init__(name, timeout=30.0, require_ok=True)


def _spawner(script: Path, bot_cls: type[NodeBotProcess], ready_timeout: float):
    """``(make, bots)``: ``await make(name, port, *extra)`` spawns ``node script 127.0.0.1 port name *extra``
    and waits for its ``ready`` event; ``bots`` lists them (for the fixture's teardown)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the Mineflayer tests")
    bots: list[NodeBotProcess] = []

    async def make(name: str, port: int, *extra: str) -> NodeBotProcess:
        bot = bot_cls(name)  # type: ignore[call-arg]
        argv = [node, str(script), "127.0.0.1", str(port), name, *extra]
        reactor.spawnProcess(bot, node, argv, env=dict(os.environ))
        bots.append(bot)
        await bot.event("ready", timeout=ready_timeout)
        return bot

    return make, bots


@pytest.fixture
def spawn_bot(server: EmbeddedServer, node_modules: Path):
    """Factory: ``await spawn_bot(name, version="1.19.2", port=None)`` → a ready NodeBot (killed at teardown);
    ``port`` defaults to the module's server."""
    make, bots = _spawner(BOT_JS, NodeBot, 30)

    async def spawn(name: str, version: str = "1.19.2", port: int | None = None) -> NodeBotProcess:
        return await make(name, server.port if port is None else port, version)

    yield spawn
    for b in bots:
        b.kill()


@pytest.fixture
def spawn_bot2(node_modules: Path):
    """Factory: ``await spawn_bot2(port, name)`` → a ready NodeBot2 (killed at teardown)."""
    make, bots = _spawner(BOT2_JS, NodeBot2, 40)

    async def spawn(port: int, name: str) -> NodeBotProcess:
        return await make(name, port)

    yield spawn
    for b in bots:
        b.kill()
