"""RCON: the Source remote-console protocol as vanilla 1.19.2 speaks it — server factory and clients.

Why: the paper's harness controls its vanilla servers over RCON (effects, time, game rules, advancement
queries); speaking the same protocol to the embedded server keeps one control path for both
(docs/control.md).

Wire format (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol, and vanilla's
``net.minecraft.server.rcon.thread.RconClient``): every packet is a little-endian int32 *length* of the
rest, then int32 *request id*, int32 *type*, the body bytes (UTF-8), a NUL terminator and one NUL pad byte
(so length = 10 + body size). Types: 3 = login, 2 = command (and the login reply), 0 = response.
Vanilla's behaviour, reproduced by :class:`RconServerProtocol`:

* login: the reply has the request id (type 2, empty body) on success, id ``-1`` on a wrong password;
* a command before a successful login is answered like a failed login (id ``-1``);
* a reply longer than 4096 characters is split into several type-0 packets of at most 4096 characters
  (``sendCmdResponse``); an unknown type is answered ``Unknown request <hex type>``;
* vanilla reads each request with one 1460-byte socket read, so a request is at most 1460 bytes;
  bigger ones close the connection here (:data:`MAX_REQUEST`).

The clients detect the end of a fragmented reply without relying on packet timing: a fragment shorter
than 4096 characters is the last one; after a full-size fragment they send an unknown-type sentinel and
read until its ``Unknown request`` reply comes back (vanilla answers requests in order).
"""

from __future__ import annotations

import inspect
import logging
import secrets
import socket
import struct
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from twisted.internet import defer
from twisted.internet.interfaces import IListeningPort
from twisted.internet.protocol import ClientFactory, Factory, Protocol, connectionDone
from twisted.python.failure import Failure

from mirrorcraft.errors import MirrorCraftError

log = logging.getLogger(__name__)

TYPE_RESPONSE = 0
TYPE_COMMAND = 2
TYPE_AUTH_RESPONSE = 2
TYPE_LOGIN = 3
AUTH_FAILED_ID = -1
FRAGMENT_CHARS = 4096  # vanilla RconClient.sendCmdResponse splits replies at 4096 characters
MAX_REQUEST = 1460  # vanilla reads a request with one read into a 1460-byte buffer
MAX_RESPONSE = 4096 * 4 + 14  # a 4096-character fragment of 4-byte UTF-8 characters plus the header
SENTINEL_TYPE = 0x7F  # any type vanilla does not know; answered "Unknown request 7f"


class RconError(MirrorCraftError, ConnectionError):
    """RCON failed: cannot connect, wrong password, malformed packet, or the connection closed."""


@dataclass(frozen=True, slots=True)
class Packet:
    """One RCON packet."""

    request_id: int
    type: int
    body: str


def encode_packet(request_id: int, type_: int, body: str) -> bytes:
    """Serialize a packet (length, id, type, body, NUL, NUL)."""
    payload = struct.pack("<ii", request_id, type_) + body.encode("utf-8") + b"\x00\x00"
    return struct.pack("<i", len(payload)) + payload


class PacketReader:
    """Reassembles packets from a byte stream.

    Args:
        max_length: the largest accepted packet (length field + 4); bigger ones raise.
        what: name used in error messages (``"request"`` / ``"response"``).
    """

    def __init__(self, max_length: int, what: str) -> None:
        self._buf = bytearray()
        self._offset = 0
        self.max_length = max_length
        self.what = what

    def feed(self, data: bytes) -> list[Packet]:
        """Add bytes; return the complete packets they finish.

        Raises:
            RconError: a length below 10 or above the limit, or a body without its NUL terminator
                (names the stream offset of the bad packet).
        """
        self._buf += data
        out: list[Packet] = []
        while len(self._buf) >= 4:
            (length,) = struct.unpack_from("<i", self._buf, 0)
            if length < 10 or length + 4 > self.max_length:
                raise RconError(
                    f"RCON {self.what} at stream offset {self._offset}: length field {length} outside "
                    f"10..{self.max_length - 4}"
                )
            if len(self._buf) < 4 + length:
                break
            request_id, type_ = struct.unpack_from("<ii", self._buf, 4)
            raw = bytes(self._buf[12 : 4 + length])
            if raw[-2:] != b"\x00\x00":
                raise RconError(
                    f"RCON {self.what} at stream offset {self._offset}: body of request {request_id} "
                    "is not terminated by two NUL bytes"
                )
            try:
                body = raw[:-2].decode("utf-8")
            except UnicodeDecodeError as err:
                raise RconError(
                    f"RCON {self.what} at stream offset {self._offset}: body is not UTF-8 ({err.reason} at "
                    f"byte {err.start})"
                ) from err
            out.append(Packet(request_id, type_, body))
            del self._buf[: 4 + length]
            self._offset += 4 + length
        return out


def fragments(text: str) -> list[str]:
    """Split a reply as vanilla does: chunks of at most 4096 characters, at least one (maybe empty)."""
    if not text:
        return [""]
    return [text[i : i + FRAGMENT_CHARS] for i in range(0, len(text), FRAGMENT_CHARS)]


def random_password() -> str:
    """A fresh RCON password (``secrets``; 24 URL-safe characters)."""
    return secrets.token_urlsafe(18)


# -- server ------------------------------------------------------------------------------------------

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
        self._next_id = 1

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
        rid = self._id()
        self._write(rid, TYPE_LOGIN, self.password)
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
        rid = self._id()
        self._write(rid, TYPE_COMMAND, text)
        parts: list[str] = []
        first = self._read()
        if first.request_id == AUTH_FAILED_ID:
            raise RconError(f"RCON {self.host}:{self.port}: command refused (not logged in)")
        parts.append(first.body)
        if len(first.body) < FRAGMENT_CHARS:
            return first.body
        sentinel = self._id()
        self._write(sentinel, SENTINEL_TYPE, "")
        while True:
            p = self._read()
            if p.request_id == sentinel:
                return "".join(parts)
            if p.request_id == rid:
                parts.append(p.body)

    def _id(self) -> int:
        rid = self._next_id
        self._next_id = self._next_id % 0x7FFFFFFF + 1
        return rid

    def _write(self, rid: int, type_: int, body: str) -> None:
        if self._sock is None:
            raise RconError("RCON client is not connected")
        data = encode_packet(rid, type_, body)
        if len(data) > MAX_REQUEST:
            raise RconError(
                f"RCON request of {len(data)} bytes exceeds vanilla's {MAX_REQUEST}-byte limit: {body[:40]!r}..."
            )
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
        self._next_id = 1
        self._waiting: defer.Deferred[Packet] | None = None
        self._inbox: deque[Packet] = deque()
        self._lock = defer.DeferredLock()
        self._closed: Failure | None = None
        self.logged_in: defer.Deferred[RconClientProtocol] = defer.Deferred()

    def connectionMade(self) -> None:  # noqa: N802 - Twisted API
        defer.ensureDeferred(self._login())

    async def _login(self) -> None:
        rid = self._id()
        self._write(rid, TYPE_LOGIN, self.password)
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

    def _id(self) -> int:
        rid = self._next_id
        self._next_id = self._next_id % 0x7FFFFFFF + 1
        return rid

    def _write(self, rid: int, type_: int, body: str) -> None:
        data = encode_packet(rid, type_, body)
        if len(data) > MAX_REQUEST:
            raise RconError(
                f"RCON request of {len(data)} bytes exceeds vanilla's {MAX_REQUEST}-byte limit: {body[:40]!r}..."
            )
        self.transport.write(data)

    def command(self, text: str) -> defer.Deferred[str]:
        """Send one command; the Deferred fires with the whole reply text.

        Raises (as a failed Deferred):
            RconError: the connection closed, or the request is longer than vanilla accepts.
        """
        return self._lock.run(lambda: defer.ensureDeferred(self._command(text)))

    async def _command(self, text: str) -> str:
        rid = self._id()
        self._write(rid, TYPE_COMMAND, text)
        first = await self._next()
        if first.request_id == AUTH_FAILED_ID:
            raise RconError("RCON command refused (not logged in)")
        if len(first.body) < FRAGMENT_CHARS:
            return first.body
        parts = [first.body]
        sentinel = self._id()
        self._write(sentinel, SENTINEL_TYPE, "")
        while True:
            p = await self._next()
            if p.request_id == sentinel:
                return "".join(parts)
            if p.request_id == rid:
                parts.append(p.body)

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
