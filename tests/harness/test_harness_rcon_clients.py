"""RCON end to end on 127.0.0.1 with real sockets: the embedded server's listener
(:mod:`mirrorcraft.server.rcon`) and the harness's clients (:mod:`mirrorcraft.harness.rcon`): login
ok/refused, command round trip, vanilla's 4096-character fragmentation, requests before login, unknown
request types, vanilla's request size limit. The packet codec alone: tests/protocol/test_protocol_rcon.py."""

from __future__ import annotations

import socket

import pytest
import pytest_twisted
from support.control_lang import L
from support.control_memory_host import MemoryHost
from twisted.internet import reactor, threads

from mirrorcraft.harness.rcon import RconClient, connect_rcon
from mirrorcraft.protocol.rcon import FRAGMENT_CHARS, PacketReader, RconError, encode_packet
from mirrorcraft.server.commands import CommandExecutor
from mirrorcraft.server.rcon import RconServerFactory

LONG = "é" * 5000 + "x" * 4000  # 9000 characters, 14000 UTF-8 bytes: three fragments


@pytest.fixture
def rcon_server():
    host = MemoryHost()
    host.add_player("Steve", (10.0, 65.0, 10.0))
    ex = CommandExecutor(host)

    def handler(cmd: str) -> str:
        if cmd == "long":
            return LONG
        return ex.run(ex.console_source(), cmd).text

    factory = RconServerFactory(handler, password="s3cret")
    port = factory.listen(reactor)
    yield port.getHost().port, host
    pytest_twisted.blockon(port.stopListening())


def _raw_exchange(port: int, *packets: bytes, expect: int) -> list[tuple[int, int, str]]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        for p in packets:
            s.sendall(p)
        reader = PacketReader(20000, "response")
        out: list = []
        while len(out) < expect:
            data = s.recv(65536)
            assert data, "server closed the connection"
            out += reader.feed(data)
    return [(p.request_id, p.type, p.body) for p in out]


@pytest_twisted.ensureDeferred
async def test_login_command_and_fragmentation_raw_bytes(rcon_server) -> None:
    port, _ = rcon_server
    got = await threads.deferToThread(
        _raw_exchange, port,
        encode_packet(9, 2, "list"),  # before login: refused like a failed login
        encode_packet(10, 3, "wrong"),
        encode_packet(11, 3, "s3cret"),
        encode_packet(12, 2, "long"),
        encode_packet(13, 0x7F, ""),
        expect=7,
    )  # fmt: skip
    assert got[:3] == [(-1, 2, ""), (-1, 2, ""), (11, 2, "")]
    assert [(i, t, len(b)) for i, t, b in got[3:6]] == [(12, 0, 4096), (12, 0, 4096), (12, 0, 808)]
    assert "".join(b for _, _, b in got[3:6]) == LONG
    assert got[6] == (13, 0, "Unknown request 7f")


@pytest_twisted.ensureDeferred
async def test_sync_client_round_trip(rcon_server) -> None:
    port, host = rcon_server

    def talk() -> tuple[str, str, str]:
        with RconClient("127.0.0.1", port, "s3cret") as c:
            return c.command("give Steve diamond 2"), c.command("long"), c.command("list")

    give, long, listing = await threads.deferToThread(talk)
    assert give == L("commands.give.success.single", 2, "[Diamond]", "Steve")
    assert long == LONG
    assert listing == L("commands.list.players", 1, 20, "Steve")
    assert host.inventories[host.get("Steve").uuid] == {"minecraft:diamond": 2}

    def bad() -> None:
        RconClient("127.0.0.1", port, "nope").connect()

    with pytest.raises(RconError, match="login refused"):
        await threads.deferToThread(bad)


@pytest_twisted.ensureDeferred
async def test_twisted_client_round_trip(rcon_server) -> None:
    port, host = rcon_server
    client = await connect_rcon(reactor, "127.0.0.1", port, "s3cret")
    a, b, c = client.command("time set noon"), client.command("long"), client.command("notacommand")
    assert await a == L("commands.time.set", 6000) and host.day == 6000
    assert await b == LONG and len(LONG) > 2 * FRAGMENT_CHARS
    # vanilla's RCON source concatenates the two failure lines with no separator
    assert await c == L("command.unknown.command") + "notacommand" + L("command.context.here")
    client.close()
    with pytest.raises(RconError, match="login refused"):
        await connect_rcon(reactor, "127.0.0.1", port, "wrong")
    with pytest.raises(RconError, match="cannot connect"):
        await connect_rcon(reactor, "127.0.0.1", 1, "x", timeout=2)


def test_request_size_limit_is_vanillas() -> None:
    c = RconClient("127.0.0.1", 1, "pw")
    c._sock = socket.socket()  # never connected: the size check comes first
    try:
        with pytest.raises(RconError, match="exceeds vanilla's 1460-byte limit"):
            c.command("say " + "a" * 1500)
    finally:
        c.close()
