"""Hostile input: garbage, oversized and truncated packets close only the offending connection, with a
reason when the protocol state allows one, while a Mineflayer client keeps playing on the same server."""

from __future__ import annotations

import json
import shutil
import struct
import zlib

import pytest
import pytest_twisted
from quarry.data import packets as quarry_packets
from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol

from mirrorcraft.server.embedded import EmbeddedServer

pytestmark = pytest.mark.npm  # needs node_modules (Mineflayer / minecraft-data / minecraft-packets)


def varint(v: int) -> bytes:
    out = b""
    v &= 0xFFFFFFFF
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def frame(body: bytes) -> bytes:
    return varint(len(body)) + body


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    val = shift = 0
    while True:
        b = data[pos]
        pos += 1
        val |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return val, pos


def split_frames(data: bytes) -> list[bytes]:
    """Undo framing and (after Set Compression, login id 0x03) compression of everything received."""
    out, pos, compressed = [], 0, False
    while pos < len(data):
        try:
            length, start = read_varint(data, pos)
        except IndexError:
            break
        body = data[start : start + length]
        if len(body) < length:
            break
        pos = start + length
        if compressed:
            size, inner = read_varint(body, 0)
            body = zlib.decompress(body[inner:]) if size else body[inner:]
        out.append(body)
        if not compressed and body[:1] == b"\x03" and len(out) == 1:
            compressed = True  # login Set Compression is the first packet the server sends
    return out


class Raw(protocol.Protocol):
    def __init__(self) -> None:
        self.data = b""
        self.closed: defer.Deferred = defer.Deferred()

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.data += data

    def connectionLost(self, reason=None) -> None:  # noqa: N802 - Twisted API
        self.closed.callback(self.data)


async def connect(port: int) -> Raw:
    return await connectProtocol(TCP4ClientEndpoint(reactor, "127.0.0.1", port), Raw())


def handshake(port: int, proto: int = 760) -> bytes:
    body = varint(0) + varint(proto) + varint(9) + b"127.0.0.1" + struct.pack(">H", port) + varint(2)
    return frame(body)


def login_start(name: str) -> bytes:
    # 1.19.2 Login Start: name, has-signature false, has-uuid false (wiki.vg "Login Start")
    return frame(varint(0) + varint(len(name)) + name.encode() + b"\x00\x00")


def reason_of(packets: list[bytes], packet_id: int) -> str:
    for body in packets:
        pid, pos = read_varint(body, 0)
        if pid == packet_id:
            n, pos = read_varint(body, pos)
            return json.loads(body[pos : pos + n])["text"]
    raise AssertionError(f"no packet 0x{packet_id:02x} among {[p[:1] for p in packets]}")


async def closed_within(raw: Raw, seconds: float = 5.0) -> bytes:
    return await raw.closed.addTimeout(seconds, reactor)


PLAY_DISCONNECT = quarry_packets.packet_idents[(760, "play", "downstream", "disconnect")]
PLAY_POSITION = quarry_packets.packet_idents[(760, "play", "upstream", "player_position")]
LOGIN_DISCONNECT = 0x00


@pytest_twisted.ensureDeferred
async def test_bad_clients_are_dropped_with_a_reason_and_others_keep_playing(
    server: EmbeddedServer, spawn_bot, sandbox_info
) -> None:
    bot = await spawn_bot("survivor")
    port = server.port

    # 1. garbage before any handshake: a VarInt that never ends
    raw = await connect(port)
    raw.transport.write(b"\xff" * 64)
    await closed_within(raw)

    # 2. an oversized frame (3 MB declared) during login: refused before it is buffered
    raw = await connect(port)
    raw.transport.write(handshake(port) + varint(3_000_000) + b"\x00" * 100)
    data = await closed_within(raw)
    assert "exceeds" in reason_of(split_frames(data), LOGIN_DISCONNECT)

    # 3. a truncated Login Start (the name claims 16 bytes, 3 follow)
    raw = await connect(port)
    raw.transport.write(handshake(port) + frame(varint(0) + varint(16) + b"abc"))
    data = await closed_within(raw)
    assert "truncated" in reason_of(split_frames(data), LOGIN_DISCONNECT)

    # 4. in play state: a truncated movement packet is kicked with a Disconnect reason
    raw = await connect(port)
    raw.transport.write(handshake(port) + login_start("mallory"))
    for _ in range(100):
        if "mallory" in server.player_names():
            break
        await _sleep(0.05)
    assert "mallory" in server.player_names()
    body = varint(PLAY_POSITION) + b"\x00\x01\x02"
    raw.transport.write(varint(len(body) + 1) + b"\x00" + body)  # compressed framing, data length 0
    data = await closed_within(raw)
    assert "truncated" in reason_of(split_frames(data), PLAY_DISCONNECT)
    assert "mallory" not in server.player_names()

    # 5. in play state: an unknown packet id and a lying compression header
    for payload in (varint(0x7F) + b"junk", None):
        raw = await connect(port)
        raw.transport.write(handshake(port) + login_start("eve"))
        for _ in range(100):
            if "eve" in server.player_names():
                break
            await _sleep(0.05)
        if payload is not None:
            raw.transport.write(varint(len(payload) + 1) + b"\x00" + payload)
        else:
            bomb = varint(50_000_000) + zlib.compress(b"\x00" * 1000)
            raw.transport.write(varint(len(bomb)) + bomb)
        data = await closed_within(raw)
        assert reason_of(split_frames(data), PLAY_DISCONNECT)
        for _ in range(40):
            if "eve" not in server.player_names():
                break
            await _sleep(0.05)
        assert "eve" not in server.player_names()

    # the honest client is still connected and playing: it moves and the server follows
    assert "survivor" in server.player_names()
    await bot.cmd("walk", control="forward", ms=400)
    for _ in range(40):
        moved = await bot.cmd("position")
        if abs(server.position("survivor")[2] - moved["pos"]["z"]) < 1e-6:
            break
    assert abs(server.position("survivor")[2] - moved["pos"]["z"]) < 1e-6
    assert moved["pos"]["z"] != sandbox_info["spawn"][2] + 0.5
    await bot.cmd("quit")


async def _sleep(seconds: float) -> None:
    d: defer.Deferred = defer.Deferred()
    reactor.callLater(seconds, d.callback, None)
    await d


@pytest_twisted.ensureDeferred
async def test_silent_client_is_kicked_on_keep_alive_timeout(sandbox_template, tmp_path) -> None:
    from mirrorcraft.server.config import ServerConfig

    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    srv = EmbeddedServer(ServerConfig(world=world, port=0, keep_alive_interval=0.2, keep_alive_timeout=0.6))
    port = srv.start()
    try:
        raw = await connect(port)
        raw.transport.write(handshake(port) + login_start("sleepy"))
        data = await closed_within(raw, 5.0)
        assert reason_of(split_frames(data), PLAY_DISCONNECT) == "Timed out"
        assert "sleepy" not in srv.player_names()
    finally:
        await defer.maybeDeferred(srv.stop)
