"""The logging proxy between a real Mineflayer 4.25.0 client and the embedded server: the session works
through it, and the JSON-lines log holds every play packet the client received, decoded by
``mirrorcraft.protocol`` (hex and the error when a body is undecodable)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import pytest_twisted
from support.nodebot import BotSpawner
from support.shared import fresh_world
from twisted.internet import defer, reactor

from mirrorcraft.debug.proxy import PacketLog, add_proxy_parser, describe_packet, parse_target, start_proxy


@pytest.fixture(scope="module")
def embedded(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory, node_modules: Path):
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    world = fresh_world(sandbox_template, tmp_path_factory.mktemp("proxy"))
    srv = EmbeddedServer(ServerConfig(world=world, port=0, view_distance=3))
    srv.start()
    yield srv
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


@pytest_twisted.ensureDeferred
async def test_proxy_logs_a_mineflayer_session(embedded, tmp_path: Path) -> None:
    log_path = tmp_path / "session.jsonl"
    out = log_path.open("w", encoding="utf-8")
    listening = start_proxy(reactor, 0, "127.0.0.1", embedded.port, PacketLog(out))
    bot = BotSpawner().start("proxied", listening.getHost().port)
    try:
        ready = await bot.event("ready")
        assert ready["protocol"] == 760
        state = await bot.cmd("state")
        assert "proxied" in embedded.player_names()
        # controls applied by the server at join reached the client through the proxy
        assert state["level"] == 100 and state["difficulty"] == "peaceful" and len(state["effects"]) == 4
        await bot.cmd("quit")
        await bot.ended
    finally:
        bot.transport.signalProcess("KILL") if not bot.ended.called else None
        await listening.stopListening()
        out.close()
    lines = [json.loads(line) for line in log_path.read_text().splitlines()]
    events = [r["event"] for r in lines if "event" in r]
    assert events[:2] == ["session", "upstream"] and "client_disconnected" in events
    packets = [r for r in lines if "dir" in r]
    logged = Counter(r["name"] for r in packets if r["dir"] == "clientbound")
    # every play packet the client counted was logged (under the same node-minecraft-protocol name)
    for name, n in state["packets"].items():
        if name not in ("compress", "success"):  # login state: each side's own login, not forwarded
            assert logged[name] >= n, name
    assert logged["map_chunk"] >= 25
    decoded = [r for r in packets if "fields" in r]
    assert all("error" not in r for r in decoded)
    login = next(r for r in packets if r["name"] == "login")
    assert login["fields"]["game_mode"] == 0 and login["fields"]["world_name"] == "minecraft:overworld"
    chunk = next(r for r in packets if r["name"] == "map_chunk")
    assert isinstance(chunk["fields"], dict) and chunk["size"] > 100
    serverbound = {r["name"] for r in packets if r["dir"] == "serverbound"}
    assert {"settings", "teleport_confirm"} <= serverbound


def test_undecodable_packets_are_logged_as_hex() -> None:
    rec = describe_packet("downstream", "spawn_position", b"\x01\x02", 760)
    assert rec["name"] == "spawn_position" and rec["hex"] == "0102" and "spawn_position" in rec["error"]
    rec = describe_packet("upstream", "no_such_packet", b"\xff", 760)
    assert rec["hex"] == "ff" and "no_such_packet" in rec["error"]


def test_cli_parser() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_proxy_parser(parser.add_subparsers())
    args = parser.parse_args(["proxy", "--listen", "25566", "--to", "127.0.0.1:25565", "--log", "x.jsonl"])
    assert (args.listen, args.to, str(args.log)) == (25566, ("127.0.0.1", 25565), "x.jsonl")
    with pytest.raises(argparse.ArgumentTypeError, match="expected HOST:PORT"):
        parse_target("localhost")
