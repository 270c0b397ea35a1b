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
from twisted.internet import defer, protocol, reactor


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


class NodeBot2(protocol.ProcessProtocol):
    """A ``tests/server2/node/bot2.js`` process: JSON commands in, replies and events out (with timeouts)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._buf = b""
        self._next = 0
        self._replies: dict[int, defer.Deferred] = {}
        self.events: list[dict[str, Any]] = []
        self._waiters: list[tuple[str, defer.Deferred]] = []
        self.stderr = b""

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "id" in msg and msg["id"] in self._replies:
                self._replies.pop(msg["id"]).callback(msg)
            elif "event" in msg:
                self.events.append(msg)
                for ev, d in list(self._waiters):
                    if ev == msg["event"]:
                        self._waiters.remove((ev, d))
                        d.callback(msg)

    def errReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.stderr += data

    def processEnded(self, reason) -> None:  # noqa: N802 - Twisted API
        err = RuntimeError(
            f"bot {self.name} ended: {self.events[-3:]} {self.stderr.decode(errors='replace')[-800:]}"
        )
        for d in list(self._replies.values()) + [d for _, d in self._waiters]:
            if not d.called:
                d.errback(err)
        self._replies.clear()
        self._waiters.clear()

    async def event(self, name: str, timeout: float = 30.0) -> dict[str, Any]:
        for e in self.events:
            if e["event"] == name:
                return e
        d: defer.Deferred = defer.Deferred()
        self._waiters.append((name, d))
        d.addTimeout(timeout, reactor)
        return await d

    async def cmd(self, cmd: str, timeout: float = 30.0, **args: Any) -> dict[str, Any]:
        """Send a command and await its reply; a failed command raises with the bot's error."""
        self._next += 1
        d: defer.Deferred = defer.Deferred()
        self._replies[self._next] = d
        self.transport.write((json.dumps({"id": self._next, "cmd": cmd, **args}) + "\n").encode())
        d.addTimeout(timeout, reactor)
        res = await d
        if not res.get("ok"):
            raise AssertionError(f"bot command {cmd} {args} failed: {res.get('error')}")
        return res

    def kill(self) -> None:
        try:
            self.transport.signalProcess("KILL")
        except Exception:  # noqa: BLE001 - already gone
            pass


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
