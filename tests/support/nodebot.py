"""The Python side of the one Mineflayer test client, ``tests/node/driver.js`` (``from support.nodebot import ...``).

The driver reads JSON commands ``{"id", "cmd", ...}`` on stdin (one command per feature: world, movement,
digging and placing, inventory, windows and crafting, chests, enchanting, entities, chat, client state; see
its header) and prints JSON lines: replies carrying the command's ``id`` and events carrying ``event``.
:class:`NodeBotProcess` sends commands and awaits replies and events, each with a hard timeout, and fails
every pending wait with the bot's last events and stderr when the process ends. :class:`BotSpawner` starts
drivers for a test and kills them at teardown; the fixtures of each test tree wrap it.

The driver is its own npm package, ``tests/node/package.json`` (Mineflayer 4.25.0 with the minecraft-data
3.83.1 and minecraft-protocol 1.54.0 of its release line, locked by ``tests/node/package-lock.json``), so
the repository's minecraft-data 3.119.0 stays the source of generated game data; :func:`ensure_client`
installs it with ``npm ci`` on first use.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from twisted.internet import defer, protocol, reactor

from support.installs import npm_ci_once

DRIVER_JS = Path(__file__).resolve().parents[1] / "node" / "driver.js"
CLIENT_DIR = DRIVER_JS.parent  # the Mineflayer client's npm package


def ensure_client() -> Path:
    """The client package's ``node_modules`` (installed with ``npm ci`` when missing, once across workers)."""
    return npm_ci_once(
        CLIENT_DIR, CLIENT_DIR / "node_modules" / "mineflayer" / "package.json", "the Mineflayer tests"
    )


def sleep(seconds: float) -> defer.Deferred:
    """A Deferred that fires after ``seconds`` on the reactor."""
    d: defer.Deferred = defer.Deferred()
    reactor.callLater(seconds, d.callback, None)
    return d


class NodeBotProcess(protocol.ProcessProtocol):
    """A node bot process spawned with ``reactor.spawnProcess``.

    Args:
        name: The bot's player name (for error messages).
        timeout: Default seconds to wait for a reply or an event.
        require_ok: If true, a reply without ``"ok": true`` raises AssertionError with the bot's error.
    """

    def __init__(self, name: str, timeout: float = 20.0, require_ok: bool = False) -> None:
        self.name = name
        self.timeout = timeout
        self.require_ok = require_ok
        self._buf = b""
        self._next = 0
        self._replies: dict[int, defer.Deferred] = {}
        self._event_waiters: list[tuple[str, defer.Deferred]] = []
        self.events: list[dict[str, Any]] = []
        self.stderr = b""
        self.ended: defer.Deferred = defer.Deferred()

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue  # node's own log lines
            if "id" in msg and msg["id"] in self._replies:
                self._replies.pop(msg["id"]).callback(msg)
            elif "event" in msg:
                self.events.append(msg)
                for ev, d in list(self._event_waiters):
                    if ev == msg["event"]:
                        self._event_waiters.remove((ev, d))
                        d.callback(msg)

    def errReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.stderr += data

    def processEnded(self, reason) -> None:  # noqa: N802 - Twisted API
        err = RuntimeError(
            f"bot {self.name} ended: events {self.events[-3:]} "
            f"stderr {self.stderr.decode(errors='replace')[-800:]}"
        )
        for d in list(self._replies.values()) + [d for _, d in self._event_waiters]:
            if not d.called:
                d.errback(err)
        self._replies.clear()
        self._event_waiters.clear()
        if not self.ended.called:
            self.ended.callback(None)

    async def event(self, name: str, timeout: float | None = None) -> dict[str, Any]:
        """Wait for an event line (returns at once if it already came)."""
        for e in self.events:
            if e["event"] == name:
                return e
        d: defer.Deferred = defer.Deferred()
        self._event_waiters.append((name, d))
        d.addTimeout(self.timeout if timeout is None else timeout, reactor)
        return await d

    async def cmd(self, cmd: str, timeout: float | None = None, **args: Any) -> dict[str, Any]:
        """Send a command and await its reply."""
        self._next += 1
        d: defer.Deferred = defer.Deferred()
        self._replies[self._next] = d
        self.transport.write((json.dumps({"id": self._next, "cmd": cmd, **args}) + "\n").encode())
        d.addTimeout(self.timeout if timeout is None else timeout, reactor)
        res = await d
        if self.require_ok and not res.get("ok"):
            raise AssertionError(f"bot command {cmd} {args} failed: {res.get('error')}")
        return res

    async def do(self, cmd: str, timeout: float | None = None, **args: Any) -> dict[str, Any]:
        """:meth:`cmd`, failing the test when the bot reports an error."""
        res = await self.cmd(cmd, timeout=timeout, **args)
        assert res.get("ok"), f"bot command {cmd} {args} failed: {res.get('error')}"
        return res

    async def message(self, text: str, timeout: float = 10.0) -> str:
        """Wait for a chat line containing ``text`` (lines already received count)."""
        for _ in range(int(timeout / 0.05)):
            for e in self.events:
                if e["event"] == "message" and text in e["text"]:
                    return e["text"]
            await sleep(0.05)
        lines = [e["text"] for e in self.events if e["event"] == "message"]
        raise AssertionError(f"no chat line containing {text!r}; got {lines}")

    @staticmethod
    def sleep(seconds: float) -> defer.Deferred:
        return sleep(seconds)

    @staticmethod
    async def until(check: Callable[[], Awaitable[Any]], timeout: float = 10.0, step: float = 0.05) -> Any:
        """Poll an async ``check()`` until it returns a truthy value; returns the last value."""
        value = None
        for _ in range(int(timeout / step)):
            value = await check()
            if value:
                return value
            await sleep(step)
        return value

    def kill(self) -> None:
        """Kill the process if it still runs."""
        try:
            self.transport.signalProcess("KILL")
        except Exception:  # noqa: BLE001 - already gone
            pass


class BotSpawner:
    """Starts ``driver.js`` bots for one test and kills them all at :meth:`kill_all`.

    Args:
        timeout: Default seconds a command or event wait may take.
        require_ok: Bots raise on a failed command (see :class:`NodeBotProcess`).
        view: Mineflayer's ``viewDistance`` option (``None``: its default).
    """

    def __init__(self, *, timeout: float = 20.0, require_ok: bool = False, view: str | None = None) -> None:
        node = shutil.which("node")
        if node is None:
            raise AssertionError("node is required for the Mineflayer tests")
        ensure_client()
        self.node = node
        self.timeout = timeout
        self.require_ok = require_ok
        self.view = view
        self.bots: list[NodeBotProcess] = []

    def start(
        self, name: str, port: int, *, version: str = "1.19.2", host: str = "127.0.0.1"
    ) -> NodeBotProcess:
        """Spawn a bot (not yet ready: await ``bot.event("ready")``)."""
        bot = NodeBotProcess(name, timeout=self.timeout, require_ok=self.require_ok)
        argv = [self.node, str(DRIVER_JS), host, str(port), name, version]
        if self.view is not None:
            argv.append(self.view)
        reactor.spawnProcess(bot, self.node, argv, env=dict(os.environ))
        self.bots.append(bot)
        return bot

    async def __call__(
        self, name: str, port: int, *, version: str = "1.19.2", ready_timeout: float = 30.0
    ) -> NodeBotProcess:
        """Spawn a bot and wait until it is ready (spawned, chunks around it loaded)."""
        bot = self.start(name, port, version=version)
        await bot.event("ready", timeout=ready_timeout)
        return bot

    def kill_all(self) -> None:
        for b in self.bots:
            b.kill()
        self.bots.clear()
