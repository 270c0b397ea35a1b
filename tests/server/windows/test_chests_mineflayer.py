"""A Mineflayer bot (a client nobody here wrote) uses a chest on the embedded server.

``tests/chests/node/chest_bot.js`` places a chest it was given, opens it with ``bot.openContainer`` (so
Mineflayer's prismarine-windows must accept our ``open_window`` as a ``generic_9x3`` chest), deposits and
withdraws with Mineflayer's own click code, closes, reopens, and reports what it saw; the server's chest
block entity and inventories are the ground truth its report is checked against.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, protocol, reactor

CHEST = (10, 65, 8)
BOT_JS = Path(__file__).resolve().parents[1] / "node" / "chest_bot.js"


class ChestBot(protocol.ProcessProtocol):
    """The node process: collects its JSON event lines; ``wait(event)`` fires when one arrives."""

    def __init__(self) -> None:
        self.buf = b""
        self.events: list[dict[str, Any]] = []
        self.stderr = b""
        self.waiters: list[tuple[str, defer.Deferred]] = []

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            self.events.append(msg)
            for ev, d in list(self.waiters):
                if msg.get("event") in (ev, "error"):
                    self.waiters.remove((ev, d))
                    d.callback(msg)

    def errReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.stderr += data

    def processEnded(self, reason) -> None:  # noqa: N802 - Twisted API
        for _ev, d in self.waiters:
            d.callback(
                {"event": "error", "error": f"bot ended: {self.stderr.decode(errors='replace')[-800:]}"}
            )
        self.waiters.clear()

    async def wait(self, event: str, timeout: float) -> dict[str, Any]:
        for e in self.events:
            if e.get("event") in (event, "error"):
                return e
        d: defer.Deferred = defer.Deferred()
        self.waiters.append((event, d))
        d.addTimeout(timeout, reactor)
        return await d


@pytest.fixture
def server(start_server):
    return start_server(tick_rate=20, view_distance=4, episode_seed=5, rcon_port=None)


@pytest_twisted.ensureDeferred
async def test_mineflayer_deposits_and_withdraws_through_our_chest(server, node_modules) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the Mineflayer tests")
    name = "flaychest"
    bot = ChestBot()
    args = [node, str(BOT_JS), "127.0.0.1", str(server.port), name, *map(str, CHEST)]
    transport = reactor.spawnProcess(bot, node, args, env=dict(os.environ))
    moves: list[dict] = []
    server.subscribe(lambda ev, data: moves.append(data) if ev == "container_move" else None)
    try:
        ready = await bot.wait("ready", 40)
        assert ready["event"] == "ready", ready
        for item, n in (("chest", 1), ("oak_log", 16), ("cobblestone", 10)):
            assert server.give_item(name, item, n) == n
        done = await bot.wait("done", 60)
        assert done["event"] == "done", done
    finally:
        try:
            transport.signalProcess("KILL")
        except Exception:  # noqa: BLE001 - already ended
            pass

    assert done["placed"] == "chest" and server.block_at(*CHEST) == "chest"
    assert done["opened"]["type"] == "minecraft:generic_9x3"
    assert done["opened"]["slots"] == 63 and done["opened"]["inventoryStart"] == 27
    assert "container.chest" in json.dumps(done["opened"]["title"])
    # Mineflayer's view of the chest after each step
    assert sorted(done["afterDeposit"]) == [[0, "oak_log", 16], [1, "cobblestone", 10]]
    assert sorted(done["afterWithdraw"]) == [[0, "oak_log", 10], [1, "cobblestone", 10]]
    assert done["carried"] == done["afterClose"] == {"oak_log": 6, "cobblestone": 0}
    assert server.inventory(name) and {(i, n) for i, n in server.inventory(name).values()} == {("oak_log", 6)}
    assert sorted(done["reopened"]) == sorted(done["afterWithdraw"])  # kept across close/reopen
    # ...equals the server's block entity and inventory
    chest = server.game.chests.chest_at(CHEST)

    server_view = sorted(
        [i, s.item.removeprefix("minecraft:"), s.count] for i, s in enumerate(chest.slots) if s
    )
    assert server_view == sorted(done["afterWithdraw"])
    # the lid opened and closed twice (block_action viewer counts)
    assert [tuple(lid) for lid in done["lids"]] == [(*CHEST, True), (*CHEST, False)] * 2
    # listeners: net chest change equals what stayed in it
    net: dict[str, int] = {}
    for m in moves:
        assert m["player"] == name and tuple(m["pos"]) == CHEST
        for k, v in m["delta"].items():
            net[k] = net.get(k, 0) + v
    assert net == {"minecraft:oak_log": 10, "minecraft:cobblestone": 10}
