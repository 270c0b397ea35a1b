"""Twisted process protocol driving ``control_bot.js`` (a Mineflayer 4.25.0 client) with JSON lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from twisted.internet import defer, protocol, reactor

BOT_JS = Path(__file__).resolve().parent / "control_bot.js"


class Bot(protocol.ProcessProtocol):
    """``control_bot.js`` over stdin/stdout JSON lines."""

    def __init__(self) -> None:
        self.buf = b""
        self.events: list[dict[str, Any]] = []
        self.waiters: list[tuple[str, defer.Deferred]] = []
        self.replies: dict[int, defer.Deferred] = {}
        self.n = 0
        self.stderr = b""
        self.ended = defer.Deferred()

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            msg = json.loads(line)
            if "id" in msg:
                self.replies.pop(msg["id"]).callback(msg)
            else:
                self.events.append(msg)
                for ev, d in list(self.waiters):
                    if ev == msg["event"]:
                        self.waiters.remove((ev, d))
                        d.callback(msg)

    def errReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.stderr += data

    def processEnded(self, reason) -> None:  # noqa: N802 - Twisted API
        for d in [*self.replies.values(), *(d for _, d in self.waiters)]:
            if not d.called:
                d.errback(RuntimeError(f"bot ended: {self.events[-3:]} {self.stderr[-400:]!r}"))
        self.ended.callback(None)

    async def event(self, name: str, timeout: float = 30) -> dict[str, Any]:
        for e in self.events:
            if e["event"] == name:
                return e
        d: defer.Deferred = defer.Deferred()
        self.waiters.append((name, d))
        d.addTimeout(timeout, reactor)
        return await d

    async def cmd(self, cmd: str, **args: Any) -> dict[str, Any]:
        self.n += 1
        d: defer.Deferred = defer.Deferred()
        self.replies[self.n] = d
        self.transport.write((json.dumps({"id": self.n, "cmd": cmd, **args}) + "\n").encode())
        d.addTimeout(20, reactor)
        return await d
