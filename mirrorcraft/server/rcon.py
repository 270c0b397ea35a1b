"""The embedded server's RCON listener: vanilla 1.19.2's remote console over the Source RCON protocol.

Why: the paper's harness controls its vanilla servers over RCON (effects, time, game rules, advancement
queries); serving the same protocol from the embedded server keeps one control path for both
(docs/control.md). The packets and their limits are :mod:`mirrorcraft.protocol.rcon` (shared with the
harness's clients, :mod:`mirrorcraft.harness.rcon`); this module is the server side only.

Vanilla's behaviour (``net.minecraft.server.rcon.thread.RconClient``), reproduced by
:class:`RconServerProtocol`:

* login: the reply has the request id (type 2, empty body) on success, id ``-1`` on a wrong password;
* a command before a successful login is answered like a failed login (id ``-1``);
* a reply longer than 4096 characters is split into several type-0 packets of at most 4096 characters
  (``sendCmdResponse``); an unknown type is answered ``Unknown request <hex type>``;
* vanilla reads each request with one 1460-byte socket read, so a request is at most 1460 bytes;
  bigger ones close the connection here (:data:`~mirrorcraft.protocol.rcon.MAX_REQUEST`).
"""

from __future__ import annotations

import inspect
import logging
import secrets
from collections.abc import Awaitable, Callable

from twisted.internet import defer
from twisted.internet.interfaces import IListeningPort
from twisted.internet.protocol import Factory, Protocol
from twisted.python.failure import Failure

from mirrorcraft.protocol.rcon import (
    AUTH_FAILED_ID,
    MAX_REQUEST,
    TYPE_AUTH_RESPONSE,
    TYPE_COMMAND,
    TYPE_LOGIN,
    TYPE_RESPONSE,
    Packet,
    PacketReader,
    RconError,
    encode_packet,
    fragments,
    random_password,
)

__all__ = ["CommandHandler", "RconError", "RconServerFactory", "RconServerProtocol", "random_password"]

log = logging.getLogger(__name__)

CommandHandler = Callable[[str], "str | defer.Deferred[str] | Awaitable[str]"]


class RconServerProtocol(Protocol):
    """One RCON connection (vanilla ``RconClient`` semantics, module docstring)."""

    factory: RconServerFactory

    def connectionMade(self) -> None:  # noqa: N802 - Twisted API
        self.authed = False
        self.reader = PacketReader(MAX_REQUEST, "request")
        self._queue: defer.Deferred[None] = defer.succeed(None)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        try:
            packets = self.reader.feed(data)
        except RconError as err:
            log.warning("closing RCON connection from %s: %s", self.transport.getPeer(), err)
            self.transport.loseConnection()
            return
        for p in packets:
            # Answer in order even when a command handler is asynchronous.
            self._queue.addCallback(lambda _, p=p: self._handle(p))
            self._queue.addErrback(self._internal_error)

    def _internal_error(self, failure: Failure) -> None:
        log.error("RCON connection from %s: %s", self.transport.getPeer(), failure.getTraceback())
        self.transport.loseConnection()

    def _send(self, request_id: int, type_: int, body: str) -> None:
        self.transport.write(encode_packet(request_id, type_, body))

    def _handle(self, p: Packet) -> defer.Deferred[None] | None:
        if p.type == TYPE_LOGIN:
            if secrets.compare_digest(p.body.encode("utf-8"), self.factory.password.encode("utf-8")):
                self.authed = True
                self._send(p.request_id, TYPE_AUTH_RESPONSE, "")
            else:
                self.authed = False
                self._send(AUTH_FAILED_ID, TYPE_AUTH_RESPONSE, "")
            return None
        if p.type == TYPE_COMMAND:
            if not self.authed:
                self._send(AUTH_FAILED_ID, TYPE_AUTH_RESPONSE, "")
                return None
            d = _as_deferred(self.factory.handler, p.body)
            d.addCallback(lambda reply: self._reply(p.request_id, reply))
            d.addErrback(self._handler_failed, p)
            return d
        self._reply(p.request_id, f"Unknown request {p.type & 0xFFFFFFFF:x}")
        return None

    def _reply(self, request_id: int, text: str) -> None:
        for chunk in fragments(text):
            self._send(request_id, TYPE_RESPONSE, chunk)

    def _handler_failed(self, failure: Failure, p: Packet) -> None:
        log.error("RCON command %r failed: %s", p.body, failure.getTraceback())
        # Vanilla's console prints the exception and replies with whatever the source received.
        self._reply(p.request_id, "")


def _as_deferred(handler: CommandHandler, body: str) -> defer.Deferred[str]:
    try:
        result = handler(body)
    except Exception:
        return defer.fail(Failure())
    if isinstance(result, defer.Deferred):
        return result
    if inspect.isawaitable(result):
        return defer.ensureDeferred(result)  # type: ignore[arg-type]
    return defer.succeed(result)


class RconServerFactory(Factory):
    """Twisted factory of the RCON server.

    Args:
        handler: runs one command text and returns the reply (a string, a Deferred or a coroutine).
        password: the RCON password (default: :func:`random_password`).
    """

    protocol = RconServerProtocol

    def __init__(self, handler: CommandHandler, password: str | None = None) -> None:
        if password is not None and not password:
            raise RconError("RCON password must not be empty (vanilla refuses to start RCON without one)")
        self.handler = handler
        self.password = password if password is not None else random_password()

    def listen(self, reactor, port: int = 0, interface: str = "127.0.0.1") -> IListeningPort:
        """Listen on ``interface:port`` (127.0.0.1 and a free port by default)."""
        return reactor.listenTCP(port, self, interface=interface)
