"""Fixtures for the part-2 server tests: a sandbox save built once, fresh copies per test, a fake player.

The menu tests drive a real :class:`~mirrorcraft.server.game.Game` (real world, real datapacks, real rules
engines) through its packet-level entry points (``click``, ``place``, ``close_window``) with a
:class:`FakePlayer` standing in for the network connection; it records the packets the server sends, so
the tests decode them with ``mirrorcraft.protocol``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from nodebot import NodeBotProcess
from twisted.internet import reactor


@pytest.fixture(scope="session")
def sandbox2_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox world, built once per session (tests copy it)."""
    from mirrorcraft.worlds.sandbox import build_sandbox

    path = tmp_path_factory.mktemp("sandbox2") / "world"
    build_sandbox(path, seed=0)
    return path


@pytest.fixture(scope="session")
def sandbox2_info(sandbox2_template: Path) -> dict[str, Any]:
    return json.loads((sandbox2_template / "sandbox.json").read_text())


@pytest.fixture
def world2(sandbox2_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sandbox (an episode reset)."""
    dst = tmp_path / "world"
    shutil.copytree(sandbox2_template, dst)
    return dst


BOT2_JS = Path(__file__).resolve().parent / "node" / "bot2.js"


class NodeBot2(NodeBotProcess):
    """A ``tests/server2/node/bot2.js`` process; a failed command raises with the bot's error."""

    def __init__(self, name: str) -> None:
        super().__init__(name, timeout=30.0, require_ok=True)


@pytest.fixture
def spawn_bot2(node_modules: Path):
    """Factory: ``await spawn_bot2(port, name)`` → a ready NodeBot2 (killed at teardown)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the Mineflayer tests")
    bots: list[NodeBot2] = []

    async def make(port: int, name: str) -> NodeBot2:
        bot = NodeBot2(name)
        reactor.spawnProcess(
            bot, node, [node, str(BOT2_JS), "127.0.0.1", str(port), name], env=dict(os.environ)
        )
        bots.append(bot)
        await bot.event("ready", timeout=40)
        return bot

    yield make
    for b in bots:
        b.kill()
