"""Fixtures for the body tests: flying-squid 1.12.0 (an independent 1.19/1.19.2 server) run by node.

flying-squid is started by ``benchmarks/node/squid_server.js`` as a child process of the reactor that
pytest-twisted runs (``reactor.spawnProcess``), on 127.0.0.1 and a free port, with a hard timeout inside
the script and a kill at teardown. Tests ask it for ground truth (block states at positions through its
world API, a player's inventory and position) with JSON-line commands.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, protocol, reactor

REPO = Path(__file__).resolve().parents[2]
SQUID_JS = REPO / "benchmarks" / "node" / "squid_server.js"


class SquidServer(protocol.ProcessProtocol):
    """A flying-squid process: ``port`` once listening; :meth:`request` sends a command, awaits the reply."""

    def __init__(self) -> None:
        self._buf = b""
        self._next = 0
        self._replies: dict[int, defer.Deferred] = {}
        self.listening: defer.Deferred = defer.Deferred()
        self.ended: defer.Deferred = defer.Deferred()
        self.port: int | None = None
        self.errors: list[str] = []
        self.packets: list[
            dict[str, Any]
        ] = []  # serverbound packets as flying-squid decoded them (debug mode)
        self.stderr = b""

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            if not line.startswith(b"{"):
                continue  # flying-squid's own log lines
            msg = json.loads(line)
            if msg.get("event") == "listening" and not self.listening.called:
                self.port = msg["port"]
                self.listening.callback(self.port)
            elif msg.get("event") == "packet":
                self.packets.append(msg)
            elif msg.get("event") == "error":
                self.errors.append(msg["error"])
            elif "id" in msg and msg["id"] in self._replies:
                self._replies.pop(msg["id"]).callback(msg)

    def errReceived(self, data: bytes) -> None:  # noqa: N802
        self.stderr += data

    def processEnded(self, reason: Any) -> None:  # noqa: N802
        for d in list(self._replies.values()) + [self.listening]:
            if not d.called:
                d.errback(
                    RuntimeError(f"flying-squid exited: {self.stderr.decode(errors='replace')[-2000:]}")
                )
        self._replies.clear()
        if not self.ended.called:
            self.ended.callback(None)

    def request(self, op: str, timeout: float = 10.0, **kw: Any) -> defer.Deferred:
        """Send ``{"op": op, ...}``; fires with the reply dict (RuntimeError if the server reports failure)."""
        self._next += 1
        d: defer.Deferred = defer.Deferred()
        self._replies[self._next] = d
        self.transport.write((json.dumps({"id": self._next, "op": op, **kw}) + "\n").encode())
        d.addTimeout(timeout, reactor)

        def check(msg: dict[str, Any]) -> dict[str, Any]:
            if not msg.get("ok"):
                raise RuntimeError(f"flying-squid {op} failed: {msg.get('error')}")
            return msg

        return d.addCallback(check)

    def stop(self) -> defer.Deferred:
        """Ask the server to exit; kill it if it has not after 3 s."""
        if self.ended.called:
            return self.ended
        try:
            self.transport.write(b'{"op":"stop"}\n')
            self.transport.closeStdin()
        except Exception:  # noqa: BLE001 - already gone
            pass

        def kill() -> None:
            if not self.ended.called:
                self.transport.signalProcess("KILL")

        reactor.callLater(3.0, kill)
        return self.ended


def spawn_squid(version: str, generation: str = "superflat", timeout_s: int = 240) -> SquidServer:
    """Spawn flying-squid; ``await proc.listening`` (fires with the port) before connecting."""
    proc = SquidServer()
    args = json.dumps(
        {
            "port": 0,
            "version": version,
            "generation": generation,
            "viewDistance": 4,
            "timeoutS": timeout_s,
            "debug": True,
        }
    )
    reactor.spawnProcess(proc, "node", ["node", str(SQUID_JS), args], env=os.environ.copy(), path=str(REPO))
    proc.listening.addTimeout(30, reactor)
    return proc


@pytest.fixture(scope="module", params=["1.19.2", "1.19"])
def squid(request: pytest.FixtureRequest, node_modules: Path) -> Iterator[SquidServer]:
    """A superflat flying-squid server per protocol version (module-scoped)."""
    proc = spawn_squid(request.param)
    pytest_twisted.blockon(proc.listening)
    proc.version = request.param  # type: ignore[attr-defined]
    yield proc
    pytest_twisted.blockon(proc.stop())


@pytest.fixture(scope="session")
def squid_factory(node_modules: Path):
    """``spawn(version, generation)`` for tests that need their own server (await ``listening``, then
    ``stop()`` it)."""
    return spawn_squid
