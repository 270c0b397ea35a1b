"""Fixtures for the embedded-server tests: a sandbox save, a running server, remote-controlled Mineflayer bots.

The server runs **in-process** on the reactor that pytest-twisted runs in a greenlet (the same single
reactor the agent side uses), so tests call the server's test hook directly. Each Mineflayer bot is a
``node tests/node/bot.js`` child process spawned with ``reactor.spawnProcess``; tests send it JSON commands
and await its JSON replies, each with a hard timeout, and the process is killed at teardown.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_twisted
from nodebot import NodeBotProcess
from shared import fresh_world
from twisted.internet import defer, reactor

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[2]
BOT_JS = REPO / "tests" / "node" / "bot.js"


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


@pytest.fixture
def spawn_bot(server: EmbeddedServer, node_modules: Path):
    """Factory: ``await spawn_bot(name, version="1.19.2", port=None)`` → a ready NodeBot (killed at teardown);
    ``port`` defaults to the module's server."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the Mineflayer tests")
    bots: list[NodeBot] = []

    async def make(name: str, version: str = "1.19.2", port: int | None = None) -> NodeBot:
        bot = NodeBot(name)
        port = server.port if port is None else port
        reactor.spawnProcess(
            bot, node, [node, str(BOT_JS), "127.0.0.1", str(port), name, version], env=dict(os.environ)
        )
        bots.append(bot)
        await bot.event("ready", timeout=30)
        return bot

    yield make
    for b in bots:
        b.kill()
