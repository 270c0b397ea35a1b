"""RCON clients: how the harness talks to any server's remote console (the embedded one or a vanilla jar).

Why in the harness: the clients are how a study *controls* a server (docs/control.md); the server only
listens (:mod:`mirrorcraft.server.rcon`). Both sides share the packets and limits of
:mod:`mirrorcraft.protocol.rcon`.

Two clients over one exchange logic (:class:`_Exchange`, no I/O): :class:`RconClient` blocks (scripts, the
vanilla launcher's readiness probe, tests); :class:`RconClientProtocol` runs on the Twisted reactor
(:func:`connect_rcon`; the episode runner's control). Both detect the end of a fragmented reply without
relying on packet timing: a fragment shorter than 4096 characters is the last one; after a full-size
fragment they send an unknown-type sentinel and read until its ``Unknown request`` reply comes back
(vanilla answers requests in order).
"""

from __future__ import annotations

import socket
from collections import deque

from twisted.internet import defer
from twisted.internet.protocol import ClientFactory, Protocol, connectionDone
from twisted.python.failure import Failure

from mirrorcraft.protocol.rcon import (
    AUTH_FAILED_ID,
    FRAGMENT_CHARS,
    MAX_RESPONSE,
    SENTINEL_TYPE,
    TYPE_COMMAND,
    TYPE_LOGIN,
    Packet,
    PacketReader,
    RconError,
    RequestIds,
    encode_request,
    random_password,
)

__all__ = ["RconClient", "RconClientProtocol", "RconError", "connect_rcon", "random_password"]


class _Exchange:
    """One command and its reply, packet by packet (no I/O: both clients drive it).

    Send :attr:`request`; pass every packet read to :meth:`receive` until it returns True, sending
    :attr:`outgoing` whenever it is set (the sentinel after a full-size first fragment); then :attr:`reply`
    is the whole reply text.

    Args:
        ids: the connection's request ids.
        text: the command.
        where: error-message prefix (``"RCON host:port:"``, ``"RCON"``).

    Raises:
        RconError: (construction) the request is longer than vanilla reads.
    """

    def __init__(self, ids: RequestIds, text: str, where: str) -> None:
        self._ids = ids
        self.where = where
        self.request_id = ids.next()
        self.request = encode_request(self.request_id, TYPE_COMMAND, text)
        self.outgoing: bytes | None = None
        self._sentinel: int | None = None
        self._parts: list[str] = []

    def receive(self, p: Packet) -> bool:
        """Take the next packet; True once the reply is complete.

        Raises:
            RconError: the server refused the command (not logged in).
        """
        if self._sentinel is None:
            if p.request_id == AUTH_FAILED_ID:
                raise RconError(f"{self.where} command refused (not logged in)")
            self._parts.append(p.body)
            if len(p.body) < FRAGMENT_CHARS:
                return True
            self._sentinel = self._ids.next()
            self.outgoing = encode_request(self._sentinel, SENTINEL_TYPE, "")
            return False
        if p.request_id == self._sentinel:
            return True
        if p.request_id == self.request_id:
            self._parts.append(p.body)
        return False

    def take_outgoing(self) -> bytes | None:
        """The bytes to send now, if any (each returned once)."""
        data, self.outgoing = self.outgoing, None
        return data

    @property
    def reply(self) -> str:
        """The fragments joined."""
        return "".join(self._parts)


# -- synchronous client --------------------------------------------------------------------------------


class RconClient:
    """A blocking RCON client (for scripts, the vanilla launcher and tests).

    Use as a context manager, or call :meth:`connect` then :meth:`close`.

    Args:
        host: server address.
        port: RCON port.
        password: RCON password.
        timeout: seconds for connecting and for each reply.
    """

    def __init__(self, host: str, port: int, password: str, timeout: float = 10.0) -> None:
        self.host, self.port, self.password, self.timeout = host, port, password, timeout
        self._sock: socket.socket | None = None
        self._reader = PacketReader(MAX_RESPONSE, "response")
        self._pending: deque[Packet] = deque()
        self._ids = RequestIds()

    def __enter__(self) -> RconClient:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> None:
        """Connect and log in.

        Raises:
            RconError: connection refused/timed out, or the password was rejected.
        """
        try:
            self._sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as err:
            raise RconError(f"RCON {self.host}:{self.port}: cannot connect: {err}") from err
        rid = self._ids.next()
        self._write(encode_request(rid, TYPE_LOGIN, self.password))
        reply = self._read()
        if reply.request_id == AUTH_FAILED_ID:
            self.close()
            raise RconError(f"RCON {self.host}:{self.port}: login refused (wrong rcon.password)")
        if reply.request_id != rid:
            self.close()
            raise RconError(
                f"RCON {self.host}:{self.port}: login reply has id {reply.request_id}, sent {rid}"
            )

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def command(self, text: str) -> str:
        """Run one command and return the whole reply (fragments joined).

        Raises:
            RconError: not connected, the request is too long, or the connection broke.
        """
        exchange = _Exchange(self._ids, text, f"RCON {self.host}:{self.port}:")
        self._write(exchange.request)
        while not exchange.receive(self._read()):
            outgoing = exchange.take_outgoing()
            if outgoing is not None:
                self._write(outgoing)
        return exchange.reply

    def _write(self, data: bytes) -> None:
        if self._sock is None:
            raise RconError("RCON client is not connected")
        try:
            self._sock.sendall(data)
        except OSError as err:
            raise RconError(f"RCON {self.host}:{self.port}: send failed: {err}") from err

    def _read(self) -> Packet:
        if self._sock is None:
            raise RconError("RCON client is not connected")
        while not self._pending:
            try:
                data = self._sock.recv(65536)
            except TimeoutError as err:
                raise RconError(f"RCON {self.host}:{self.port}: no reply within {self.timeout} s") from err
            except OSError as err:
                raise RconError(f"RCON {self.host}:{self.port}: receive failed: {err}") from err
            if not data:
                raise RconError(f"RCON {self.host}:{self.port}: connection closed by the server")
            self._pending.extend(self._reader.feed(data))
        return self._pending.popleft()


# -- Twisted client -------------------------------------------------------------------------------------


class RconClientProtocol(Protocol):
    """An asynchronous RCON client: :meth:`command` returns a Deferred of the reply text.

    Commands are sent one at a time (the next waits for the previous reply), so fragment handling never
    interleaves. Use :func:`connect_rcon` to create one.
    """

    def __init__(self, password: str) -> None:
        self.password = password
        self.reader = PacketReader(MAX_RESPONSE, "response")
        self._ids = RequestIds()
        self._waiting: defer.Deferred[Packet] | None = None
        self._inbox: deque[Packet] = deque()
        self._lock = defer.DeferredLock()
        self._closed: Failure | None = None
        self.logged_in: defer.Deferred[RconClientProtocol] = defer.Deferred()

    def connectionMade(self) -> None:  # noqa: N802 - Twisted API
        defer.ensureDeferred(self._login())

    async def _login(self) -> None:
        rid = self._ids.next()
        self.transport.write(encode_request(rid, TYPE_LOGIN, self.password))
        try:
            reply = await self._next()
        except Exception:
            if not self.logged_in.called:
                self.logged_in.errback(Failure())
            return
        if reply.request_id != rid:
            self.transport.loseConnection()
            self.logged_in.errback(Failure(RconError("RCON login refused (wrong rcon.password)")))
            return
        self.logged_in.callback(self)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        try:
            packets = self.reader.feed(data)
        except RconError as err:
            self._fail(Failure(err))
            self.transport.loseConnection()
            return
        self._inbox.extend(packets)
        self._deliver()

    def connectionLost(self, reason: Failure = connectionDone) -> None:  # noqa: N802 - Twisted API
        self._fail(Failure(RconError(f"RCON connection closed: {reason.getErrorMessage()}")))

    def _fail(self, failure: Failure) -> None:
        if self._closed is None:
            self._closed = failure
        if self._waiting is not None:
            d, self._waiting = self._waiting, None
            d.errback(failure)
        if not self.logged_in.called:
            self.logged_in.errback(failure)

    def _deliver(self) -> None:
        if self._waiting is not None and self._inbox:
            d, self._waiting = self._waiting, None
            d.callback(self._inbox.popleft())

    def _next(self) -> defer.Deferred[Packet]:
        if self._inbox:
            return defer.succeed(self._inbox.popleft())
        if self._closed is not None:
            return defer.fail(self._closed)
        self._waiting = defer.Deferred()
        return self._waiting

    def command(self, text: str) -> defer.Deferred[str]:
        """Send one command; the Deferred fires with the whole reply text.

        Raises (as a failed Deferred):
            RconError: the connection closed, or the request is longer than vanilla accepts.
        """
        return self._lock.run(lambda: defer.ensureDeferred(self._command(text)))

    async def _command(self, text: str) -> str:
        exchange = _Exchange(self._ids, text, "RCON")
        self.transport.write(exchange.request)
        while not exchange.receive(await self._next()):
            outgoing = exchange.take_outgoing()
            if outgoing is not None:
                self.transport.write(outgoing)
        return exchange.reply

    def close(self) -> None:
        """Close the connection."""
        if self.transport is not None:
            self.transport.loseConnection()


class _ClientFactory(ClientFactory):
    def __init__(self, password: str) -> None:
        self.password = password
        self.connected: defer.Deferred[RconClientProtocol] = defer.Deferred()

    def buildProtocol(self, addr) -> RconClientProtocol:  # noqa: N802 - Twisted API
        p = RconClientProtocol(self.password)
        p.factory = self
        p.logged_in.chainDeferred(self.connected)
        return p

    def clientConnectionFailed(self, connector, reason: Failure) -> None:  # noqa: N802 - Twisted API
        if not self.connected.called:
            self.connected.errback(
                Failure(
                    RconError(
                        f"RCON {connector.host}:{connector.port}: cannot connect: {reason.getErrorMessage()}"
                    )
                )
            )


def connect_rcon(
    reactor, host: str, port: int, password: str, timeout: float = 10.0
) -> defer.Deferred[RconClientProtocol]:
    """Connect and log in on the running reactor; fires with a logged-in :class:`RconClientProtocol`.

    Raises (as a failed Deferred):
        RconError: connection refused, or the password rejected.
    """
    factory = _ClientFactory(password)
    reactor.connectTCP(host, port, factory, timeout=timeout)
    return factory.connected
