"""A raw 1.19.2 client over a real socket, for abuse tests: it sends exactly the packets a test writes.

Why not Mineflayer or the body: a hostile client sends what no honest client would (handshakes that never
log in, bursts of moves, positions inside walls, 32 KB chat lines), and the tests must control every byte.
The client does the offline login (handshake, ``login_start``, Set Compression), confirms the server's
teleports (``position`` → ``teleport_confirm``) unless told not to, records every clientbound packet by
name, and keeps the disconnect reason. Packets are built with ``mirrorcraft.protocol`` (the same codec the
server and the body use).
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.protocol.codec import CLIENTBOUND, Packet, decode, encode_frame, packet_name


def varint(v: int) -> bytes:
    out = b""
    v &= 0xFFFFFFFF
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    val = shift = 0
    while True:
        if pos >= len(data):
            raise IndexError("varint")
        b = data[pos]
        pos += 1
        val |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return val, pos


def frame(body: bytes) -> bytes:
    return varint(len(body)) + body


def handshake(port: int, proto: int = 760, intention: int = 2) -> bytes:
    """A framed handshake (17 bytes for 127.0.0.1): next state login (2) or status (1)."""
    return frame(
        varint(0) + varint(proto) + varint(9) + b"127.0.0.1" + struct.pack(">H", port) + varint(intention)
    )


def login_start(name: str) -> bytes:
    """1.19.2 Login Start: name, no signature, no UUID (wiki.vg "Login Start")."""
    raw = name.encode("utf-8")
    return frame(varint(0) + varint(len(raw)) + raw + b"\x00\x00")


class RawClient(protocol.Protocol):
    """One raw connection. ``packets`` holds ``(name, body)`` of every clientbound play packet."""

    def __init__(self, auto_confirm: bool = True) -> None:
        self.auto_confirm = auto_confirm
        self.buf = b""
        self.state = "login"
        self.compression = -1
        self.packets: list[tuple[str, bytes]] = []
        self.reason: str | None = None  # the disconnect text (login or play)
        self.closed: defer.Deferred = defer.Deferred()
        self.in_play: defer.Deferred = defer.Deferred()
        self.teleports = 0
        self.is_closed = False

    # ---- Twisted ----------------------------------------------------------------------------------
    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.buf += data
        while True:
            try:
                length, start = read_varint(self.buf, 0)
            except IndexError:
                return
            if len(self.buf) < start + length:
                return
            body, self.buf = self.buf[start : start + length], self.buf[start + length :]
            if self.compression >= 0:
                size, inner = read_varint(body, 0)
                body = zlib.decompress(body[inner:]) if size else body[inner:]
            self._packet(body)

    def connectionLost(self, reason: Any = None) -> None:  # noqa: N802 - Twisted API
        self.is_closed = True
        if not self.closed.called:
            self.closed.callback(self.reason)

    # ---- packets ----------------------------------------------------------------------------------
    def _packet(self, body: bytes) -> None:
        pid, pos = read_varint(body, 0)
        if self.state == "login":
            if pid == 0x00:  # login disconnect
                n, p2 = read_varint(body, pos)
                self.reason = _text(json.loads(body[p2 : p2 + n]))
            elif pid == 0x03:  # set compression
                self.compression, _ = read_varint(body, pos)
            elif pid == 0x02:  # login success
                self.state = "play"
                self.in_play.callback(self)
            return
        name = packet_name(pid, 760, CLIENTBOUND)
        self.packets.append((name, body[pos:]))
        if name == "kick_disconnect":
            self.reason = _text(json.loads(decode(name, body[pos:]).reason))
        elif name == "position":
            self.teleports += 1
            if self.auto_confirm:
                pkt = decode(name, body[pos:])
                self.send(sb.TeleportConfirm(teleport_id=pkt.teleport_id))

    def decoded(self, name: str) -> list[Any]:
        """The clientbound packets called ``name``, decoded, in order."""
        return [decode(n, b) for n, b in self.packets if n == name]

    def send_raw(self, data: bytes) -> None:
        self.transport.write(data)

    def send(self, pkt: Packet) -> None:
        """Send one play packet (compressed framing once compression is on)."""
        self.transport.write(self.framed(pkt))

    def framed(self, pkt: Packet) -> bytes:
        data = encode_frame(pkt)
        if self.compression >= 0:
            if len(data) >= self.compression:
                data = varint(len(data)) + zlib.compress(data)
            else:
                data = varint(0) + data
        return frame(data)

    def move(self, x: float, y: float, z: float, on_ground: bool = True) -> None:
        self.send(sb.PlayerPosition(x=x, y=y, z=z, on_ground=on_ground))


def _text(component: Any) -> str:
    if isinstance(component, str):
        return component
    out = component.get("text", "") or component.get("translate", "")
    return out + "".join(_text(c) for c in component.get("extra", []))


async def connect(port: int, auto_confirm: bool = True) -> RawClient:
    """A connected raw client (nothing sent yet)."""
    client = RawClient(auto_confirm)
    return await connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", port), client)


async def login(port: int, name: str, timeout: float = 10.0, auto_confirm: bool = True) -> RawClient:
    """A raw client logged in to play (the join's teleport confirmed unless ``auto_confirm`` is False).

    Raises:
        AssertionError: the server refused the login (the reason in the message).
    """
    client = await connect(port, auto_confirm)
    client.send_raw(handshake(port) + login_start(name))
    first = defer.DeferredList([client.in_play, client.closed], fireOnOneCallback=True, consumeErrors=True)
    first.addTimeout(timeout, reactor)
    await first
    if client.state != "play":
        raise AssertionError(f"login of {name} refused: {client.reason}")
    return client


async def until(predicate: Any, timeout: float = 5.0, step: float = 0.02) -> bool:
    """Poll ``predicate()`` on the reactor until true or ``timeout`` seconds passed."""
    from twisted.internet import task

    waited = 0.0
    while not predicate():
        if waited >= timeout:
            return False
        await task.deferLater(reactor, step, lambda: None)
        waited += step
    return True
