"""One driver for the Mineflayer bots the tests run as node child processes (importable: ``from nodebot import``).

Each bot script (``tests/node/bot.js``, ``tests/server2/node/bot2.js``…) reads JSON commands
``{"id", "cmd", ...}`` on stdin and prints JSON lines: replies carrying the command's ``id`` and events
carrying ``event``. This protocol object sends commands and awaits replies and events, each with a hard
timeout, and fails every pending wait with the bot's last events and stderr when the process ends.
"""

from __future__ import annotations

import json
from typing import Any

from twisted.internet import defer, protocol, reactor


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

    def kill(self) -> None:
        """Kill the process if it still runs."""
        try:
            self.transport.signalProcess("KILL")
        except Exception:  # noqa: BLE001 - already gone
            pass
