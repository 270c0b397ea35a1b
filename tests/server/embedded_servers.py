"""Embedded servers on fresh copies of the session's sandbox, and the control-plane Mineflayer bot
(``node/control2_bot.js``, driven with the JSON-line protocol of ``tests/control/control_node_bot.py``).

Fixtures live here, not in a ``conftest.py``, so every folder that needs them imports them: the server
tests (``tests/server/conftest.py``) and the harness's RCON test (``tests/harness``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from control_node_bot import Bot
from twisted.internet import defer, reactor

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

CONTROL_BOT_JS = Path(__file__).resolve().parent / "node" / "control2_bot.js"


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


def _sleep(seconds: float) -> defer.Deferred:
    d: defer.Deferred = defer.Deferred()
    reactor.callLater(seconds, d.callback, None)
    return d


class ControlBot(Bot):
    """``control2_bot.js``; :meth:`do` fails the test when the bot reports an error."""

    async def do(self, cmd: str, **args: Any) -> dict[str, Any]:
        res = await self.cmd(cmd, **args)
        assert res.get("ok"), f"bot command {cmd} {args} failed: {res.get('error')}"
        return res

    async def message(self, text: str, timeout: float = 10.0) -> str:
        """Wait for a chat line containing ``text`` (already received lines count)."""
        for _ in range(int(timeout / 0.05)):
            for e in self.events:
                if e["event"] == "message" and text in e["text"]:
                    return e["text"]
            await _sleep(0.05)
        lines = [e["text"] for e in self.events if e["event"] == "message"]
        raise AssertionError(f"no chat line containing {text!r}; got {lines}")

    @staticmethod
    def sleep(seconds: float) -> defer.Deferred:
        return _sleep(seconds)

    @staticmethod
    async def until(check, timeout: float = 10.0, step: float = 0.05):  # noqa: ANN001, ANN205
        """Poll an async ``check()`` until it returns a truthy value; returns the last value."""
        value = None
        for _ in range(int(timeout / step)):
            value = await check()
            if value:
                return value
            await _sleep(step)
        return value


@pytest.fixture
def spawn_control_bot():
    """Factory: ``await spawn_control_bot(server, name)`` → a ready :class:`ControlBot` (killed at teardown)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the Mineflayer tests")
    bots: list[ControlBot] = []

    async def make(server: Any, name: str) -> ControlBot:
        bot = ControlBot()
        reactor.spawnProcess(
            bot, node, [node, str(CONTROL_BOT_JS), "127.0.0.1", str(server.port), name], env=dict(os.environ)
        )
        bots.append(bot)
        await bot.event("ready", timeout=40)
        return bot

    yield make
    for b in bots:
        try:
            b.transport.signalProcess("KILL")
        except Exception:  # noqa: BLE001 - already gone
            pass
