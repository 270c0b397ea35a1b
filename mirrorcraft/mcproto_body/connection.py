"""The body's socket: a quarry ``ClientProtocol`` that logs in (offline mode) and hands decoded play packets on.

Why quarry: it already does the parts of the protocol that are the same for every version we speak —
handshake, offline login, compression, framing, (encryption) — so this module only replaces its *play*
state: play packets are named and (de)coded by :mod:`mirrorcraft.protocol` (node-minecraft-protocol names,
one codec for 1.19 = 759 and 1.19.2 = 760), because quarry's own play readers predate 1.18 chunks and
1.19 metadata.

The feature modules (world, entities, inventory, ...) never see bytes: they subscribe to packet names with
:meth:`Connection.on` and send packet objects with :meth:`Connection.send`. This module itself answers
``keep_alive`` and confirms teleports (wiki.vg "Synchronize Player Position": the client must answer with
Confirm Teleportation before its next position packet), records disconnect reasons, can reconnect, and can
trace every packet to a JSON-lines file (``trace_packets``).

Packets that reveal rules — ``declare_recipes``, ``unlock_recipes``, ``tags`` — are dropped *unparsed*
here: they are never decoded, never stored, never handed to any module (architecture principle 4). Only
their name and length reach the trace file.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field
from quarry.net.auth import OfflineProfile
from quarry.net.client import ClientFactory, ClientProtocol
from twisted.internet import defer, reactor
from twisted.internet.interfaces import IReactorTime

from mirrorcraft import PROTOCOL_1_19, PROTOCOL_1_19_2
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol import CLIENTBOUND, SERVERBOUND, Packet, Reader, decode, encode, implemented
from mirrorcraft.protocol.codec import PACKET_IDS, PACKET_NAMES, packet_id

log = logging.getLogger(__name__)

#: Play packets the body must never parse or keep (they would reveal the world's rules to an agent).
DROPPED_PACKETS: frozenset[str] = frozenset({"declare_recipes", "unlock_recipes", "tags"})

Handler = Callable[[Packet], None]


class BodyConfig(BaseModel):
    """How the body connects.

    Attributes:
        host / port: The server address.
        username: Offline-mode player name (3..16 chars).
        protocol: 760 (1.19.2, default) or 759 (1.19).
        view_distance: Sent in the client settings packet (the server may use less).
        trace_packets: If set, append one JSON line per packet (both directions) to this file.
        connect_timeout: Seconds to wait for the TCP connection and login.
        reconnect_attempts / reconnect_delay: Used by :meth:`Connection.connect` on refused connections.
        lockstep: Take part in lockstep when the server offers it (:mod:`~mirrorcraft.mcproto_body.lockstep`;
            a free-running server never offers it, so this changes nothing there).
        lockstep_heartbeat: Wall seconds between "deciding" heartbeats while the agent thinks in lockstep
            (``None``: none — a client the server's stall bound then evicts after ``lockstep_timeout``).
    """

    model_config = ConfigDict(frozen=True)

    host: str = "127.0.0.1"
    port: int = 25565
    username: str = Field(default="mirror", min_length=3, max_length=16)
    protocol: int = PROTOCOL_1_19_2
    view_distance: int = Field(default=8, ge=2, le=32)
    trace_packets: Path | None = None
    connect_timeout: float = 20.0
    reconnect_attempts: int = 0
    reconnect_delay: float = 1.0
    lockstep: bool = True
    lockstep_heartbeat: float | None = Field(default=5.0, gt=0)

    def model_post_init(self, __context: Any) -> None:  # noqa: D401 - pydantic hook
        if self.protocol not in (PROTOCOL_1_19, PROTOCOL_1_19_2):
            raise ProtocolError(f"BodyConfig.protocol: {self.protocol} unsupported (759 or 760)")


class State(enum.Enum):
    """Connection lifecycle."""

    IDLE = "idle"
    CONNECTING = "connecting"
    PLAYING = "playing"
    CLOSED = "closed"


def _jsonable(value: Any, depth: int = 0) -> Any:
    if depth > 4:
        return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v, depth + 1) for v in value[:64]]
    if isinstance(value, bytes):
        return {"bytes": len(value)}
    if isinstance(value, int | float | str | bool) or value is None:
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    return repr(value)[:200]


class PacketTracer:
    """Writes one JSON line per packet: time, direction, name, body length and (small packets) fields.

    Args:
        path: The JSONL file (appended to).
        clock: Time source (the reactor).
        max_fields_bytes: Packets with a longer body are traced without their fields.
    """

    def __init__(self, path: Path, clock: IReactorTime, max_fields_bytes: int = 512) -> None:
        self.path = Path(path)
        self._fh: IO[str] = self.path.open(
            "a", encoding="utf-8", buffering=1
        )  # line-buffered: survives crashes
        self._clock = clock
        self._max = max_fields_bytes

    def record(self, direction: str, name: str, size: int, pkt: Packet | None = None, note: str = "") -> None:
        """Append one line (``pkt`` is omitted for dropped or undecoded packets)."""
        row: dict[str, Any] = {
            "t": round(self._clock.seconds(), 4),
            "dir": direction,
            "name": name,
            "len": size,
        }
        if pkt is not None and size <= self._max:
            row["fields"] = _jsonable(pkt)
        if note:
            row["note"] = note
        self._fh.write(json.dumps(row, separators=(",", ":")) + "\n")

    def close(self) -> None:
        """Flush and close the file."""
        if not self._fh.closed:
            self._fh.close()


class _Protocol(ClientProtocol):
    """quarry protocol whose play state is delegated to :class:`Connection`."""

    conn: Connection

    def setup(self) -> None:
        self.conn = self.factory.conn
        self.conn._protocol = self

    # quarry names play packets with its own table; in play we use mirrorcraft.protocol's (nmp names).
    def get_packet_name(self, ident: int) -> str:
        if self.protocol_mode == "play":
            return PACKET_NAMES[self.protocol_version][CLIENTBOUND].get(ident, f"unknown_0x{ident:02x}")
        return super().get_packet_name(ident)

    def get_packet_ident(self, name: str) -> int:
        if self.protocol_mode == "play":
            return packet_id(name, self.protocol_version, SERVERBOUND)
        return super().get_packet_ident(name)

    def packet_received(self, buff: Any, name: str) -> None:
        if self.protocol_mode == "play":
            self.conn._received(name, buff.read())
        else:
            super().packet_received(buff, name)

    def packet_login_disconnect(self, buff: Any) -> None:
        self.conn._kicked(buff.unpack_string(), during_login=True)
        self.close()

    def player_joined(self) -> None:
        super().player_joined()
        self.conn._joined()

    def connection_lost(self, reason: Any = None) -> None:
        super().connection_lost(reason)
        self.conn._lost(reason)

    def protocol_error(self, err: Exception) -> None:
        self.conn._fail(f"quarry protocol error: {err}")
        self.close("Protocol error")


class _Factory(ClientFactory):
    protocol = _Protocol
    log_level = logging.WARNING

    def __init__(self, conn: Connection) -> None:
        super().__init__(OfflineProfile(conn.config.username))
        self.conn = conn
        self.force_protocol_version = conn.config.protocol
        self.connection_timeout = max(30, int(conn.config.connect_timeout) + 10)

    def clientConnectionFailed(self, connector: Any, reason: Any) -> None:  # noqa: N802 - twisted API
        self.conn._connect_failed(reason)


class Connection:
    """One player connection (reusable: :meth:`connect` again after a disconnect to reconnect).

    Args:
        config: Address, name, protocol, tracing.
        clock: The Twisted reactor (injectable for tests).

    Attributes:
        state: Lifecycle state.
        disconnect_reason: The server's kick text (JSON chat) or the local reason, after a disconnect.
        protocol_errors: Decoding/handler errors seen (the connection keeps going; each names the packet).
        dropped_counts: How many rule-revealing packets were dropped unparsed, by name.
        received_counts: Packets received per name (for benchmarks and tests).
        sent_count: Packets sent (the lockstep flush round compares it before and after).
    """

    def __init__(self, config: BodyConfig, clock: Any = None) -> None:
        self.config = config
        self.clock = clock if clock is not None else reactor
        self.state = State.IDLE
        self.disconnect_reason: str | None = None
        self.protocol_errors: list[str] = []
        self.dropped_counts: dict[str, int] = defaultdict(int)
        self.received_counts: dict[str, int] = defaultdict(int)
        self.sent_count = 0
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self._reset_hooks: list[Callable[[], None]] = []
        self._protocol: _Protocol | None = None
        self._login: defer.Deferred | None = None
        self._closed_waiters: list[defer.Deferred] = []
        self._sequence = 0
        self._decodable = set(implemented(CLIENTBOUND))
        self.tracer = PacketTracer(config.trace_packets, self.clock) if config.trace_packets else None
        self.acked_sequence = 0
        self.on("keep_alive", self._keep_alive)
        self.on("position", self._teleport)
        self.on("acknowledge_player_digging", self._ack)

    # ------------------------------------------------------------------------------------------ public API
    @property
    def protocol_version(self) -> int:
        """The protocol spoken (759 or 760)."""
        return self.config.protocol

    def on(self, name: str, handler: Handler) -> None:
        """Call ``handler(packet)`` for every decoded clientbound packet ``name``.

        Raises:
            ProtocolError: ``name`` is a dropped (rule-revealing) packet or not a clientbound packet.
        """
        if name in DROPPED_PACKETS:
            raise ProtocolError(f"{name} is dropped unparsed by the body; it cannot be subscribed to")
        if name not in PACKET_IDS[self.config.protocol][CLIENTBOUND] and name not in self._decodable:
            raise ProtocolError(f"no clientbound packet named {name!r}")
        self._handlers[name].append(handler)

    def off(self, name: str, handler: Handler) -> None:
        """Remove a handler added with :meth:`on` (no error if absent)."""
        if handler in self._handlers.get(name, []):
            self._handlers[name].remove(handler)

    def on_reset(self, hook: Callable[[], None]) -> None:
        """Register ``hook()`` to run before each (re)connection, so modules drop stale state."""
        self._reset_hooks.append(hook)

    def send(self, pkt: Packet) -> None:
        """Encode and send a serverbound packet (silently ignored when not playing)."""
        proto = self._protocol
        if proto is None or self.state is not State.PLAYING or proto.closed:
            return
        body = encode(pkt, self.config.protocol)
        self.sent_count += 1
        if self.tracer:
            self.tracer.record("out", pkt.NAME, len(body), pkt)
        proto.send_packet(pkt.NAME, body)

    def next_sequence(self) -> int:
        """Next block-interaction sequence number (1.19 ``sequence`` in block_dig/block_place/use_item)."""
        self._sequence += 1
        return self._sequence

    def wait_for(
        self, name: str, predicate: Callable[[Packet], bool] | None = None, timeout: float | None = 10.0
    ) -> defer.Deferred:
        """A Deferred firing with the next packet ``name`` matching ``predicate`` (TimeoutError on timeout)."""
        d: defer.Deferred = defer.Deferred()

        def handler(pkt: Packet) -> None:
            if not d.called and (predicate is None or predicate(pkt)):
                self.off(name, handler)
                d.callback(pkt)

        self.on(name, handler)
        if timeout is not None:
            d.addTimeout(timeout, self.clock, onTimeoutCancel=lambda *_: self._timeout(name, handler))
        return d

    def _timeout(self, name: str, handler: Handler) -> None:
        self.off(name, handler)
        raise TimeoutError(f"no {name} packet arrived in time")

    def connect(self) -> defer.Deferred:
        """Connect and log in; fires with the ``login`` packet. Retries refused connections
        ``config.reconnect_attempts`` times.

        Raises (through the Deferred):
            ConnectionError: refused/closed before the login packet, with the server's reason if it sent one.
            TimeoutError: no login within ``config.connect_timeout``.
        """
        return defer.ensureDeferred(self._connect_with_retries())

    async def _connect_with_retries(self) -> Packet:
        attempts = self.config.reconnect_attempts + 1
        last: Exception | None = None
        for i in range(attempts):
            try:
                return await self._connect_once()
            except (ConnectionError, TimeoutError) as err:
                last = err
                log.info("connect attempt %d/%d failed: %s", i + 1, attempts, err)
                if i + 1 < attempts:
                    await _sleep(self.clock, self.config.reconnect_delay)
        assert last is not None
        raise last

    def _connect_once(self) -> defer.Deferred:
        if self.state in (State.CONNECTING, State.PLAYING):
            raise ConnectionError("already connected")
        for hook in self._reset_hooks:
            hook()
        self.state = State.CONNECTING
        self.disconnect_reason = None
        self._sequence = 0
        self.acked_sequence = 0
        self._login = defer.Deferred()
        login = self._login
        self.clock.connectTCP(self.config.host, self.config.port, _Factory(self), self.config.connect_timeout)
        login.addTimeout(self.config.connect_timeout, self.clock)
        return login

    def disconnect(self, reason: str = "client quit") -> defer.Deferred:
        """Close the connection; fires when the socket is closed."""
        d: defer.Deferred = defer.Deferred()
        if self._protocol is None or self._protocol.closed or self.state is State.CLOSED:
            self.state = State.CLOSED
            d.callback(self.disconnect_reason)
            return d
        self._closed_waiters.append(d)
        self.disconnect_reason = reason
        self._protocol.close(reason)
        return d

    def close_trace(self) -> None:
        """Close the trace file (if tracing)."""
        if self.tracer:
            self.tracer.close()

    # --------------------------------------------------------------------------------------- quarry hooks
    def _joined(self) -> None:
        # Login success: quarry switched to play. The login packet itself completes connect().
        self.state = State.PLAYING

    def _received(self, name: str, body: bytes) -> None:
        self.received_counts[name] += 1
        if name in DROPPED_PACKETS:
            self.dropped_counts[name] += 1
            if self.tracer:
                self.tracer.record("in", name, len(body), note="dropped unparsed")
            return
        if name == "kick_disconnect":
            # No codec in mirrorcraft.protocol: the body is one chat String (wiki.vg "Disconnect (play)").
            try:
                reason = Reader(body, context=name).string("reason")
            except ProtocolError as err:
                reason = f"<undecodable reason: {err}>"
            self._kicked(reason, during_login=False)
            return
        if name not in self._decodable:
            if self.tracer:
                self.tracer.record("in", name, len(body), note="no codec")
            return
        try:
            pkt = decode(name, body, self.config.protocol, CLIENTBOUND)
        except ProtocolError as err:
            self.protocol_errors.append(str(err))
            log.warning("cannot decode %s: %s", name, err)
            if self.tracer:
                self.tracer.record("in", name, len(body), note=f"decode error: {err}")
            return
        if self.tracer:
            self.tracer.record("in", name, len(body), pkt)
        for handler in list(self._handlers.get(name, ())):
            try:
                handler(pkt)
            except Exception as err:  # a bug in one module must not kill the connection; it is recorded
                msg = f"handler {getattr(handler, '__qualname__', handler)} failed on {name}: {err!r}"
                self.protocol_errors.append(msg)
                log.exception(msg)
        if name == "login" and self._login is not None and not self._login.called:
            self._after_login()
            self._login.callback(pkt)

    def _after_login(self) -> None:
        from mirrorcraft.protocol.serverbound import CustomPayloadServerbound, Settings

        self.send(
            Settings(
                locale="en_us",
                view_distance=self.config.view_distance,
                chat_flags=0,
                chat_colors=True,
                skin_parts=0x7F,
                main_hand=1,
                enable_text_filtering=False,
                enable_server_listing=True,
            )
        )
        # The vanilla client announces its brand on minecraft:brand (a String); servers may log it.
        self.send(CustomPayloadServerbound(channel="minecraft:brand", data=b"\x0bmirrorcraft"))

    def _kicked(self, reason: str, during_login: bool) -> None:
        self.disconnect_reason = reason
        log.warning("disconnected by server%s: %s", " during login" if during_login else "", reason)
        if self._protocol is not None:
            self._protocol.close("kicked")

    def _fail(self, why: str) -> None:
        self.protocol_errors.append(why)
        if self.disconnect_reason is None:
            self.disconnect_reason = why

    def _connect_failed(self, reason: Any) -> None:
        self.state = State.CLOSED
        if self._login is not None and not self._login.called:
            self._login.errback(
                ConnectionError(
                    f"cannot connect to {self.config.host}:{self.config.port}: {reason.getErrorMessage()}"
                )
            )

    def _lost(self, reason: Any) -> None:
        self.state = State.CLOSED
        if self.disconnect_reason is None:
            self.disconnect_reason = f"connection lost: {reason.getErrorMessage() if reason else 'unknown'}"
        if self._login is not None and not self._login.called:
            self._login.errback(ConnectionError(f"disconnected before login: {self.disconnect_reason}"))
        waiters, self._closed_waiters = self._closed_waiters, []
        for d in waiters:
            d.callback(self.disconnect_reason)
        for handler in list(self._handlers.get("_disconnect", ())):
            handler(None)  # type: ignore[arg-type]

    # ------------------------------------------------------------------------------------- built-in replies
    def _keep_alive(self, pkt: Packet) -> None:
        from mirrorcraft.protocol.serverbound import KeepAliveServerbound

        self.send(KeepAliveServerbound(keep_alive_id=pkt.keep_alive_id))  # type: ignore[attr-defined]

    def _ack(self, pkt: Packet) -> None:
        self.acked_sequence = max(self.acked_sequence, pkt.sequence_id)  # type: ignore[attr-defined]

    async def wait_ack(self, sequence: int, timeout: float = 3.0) -> bool:
        """Wait until the server acknowledged block-interaction ``sequence``; False on timeout."""
        deadline = self.clock.seconds() + timeout
        while self.acked_sequence < sequence:
            if self.clock.seconds() > deadline or self.state is not State.PLAYING:
                return False
            await _sleep(self.clock, 0.02)
        return True

    def _teleport(self, pkt: Packet) -> None:
        from mirrorcraft.protocol.serverbound import TeleportConfirm

        self.send(TeleportConfirm(teleport_id=pkt.teleport_id))  # type: ignore[attr-defined]

    def on_disconnect(self, handler: Callable[[], None]) -> None:
        """Call ``handler()`` whenever the connection closes."""
        self._handlers["_disconnect"].append(lambda _pkt: handler())


def _sleep(clock: Any, seconds: float) -> defer.Deferred:
    from twisted.internet import task

    return task.deferLater(clock, seconds, lambda: None)
