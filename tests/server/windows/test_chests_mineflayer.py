"""A Mineflayer bot (a client nobody here wrote) uses a chest on the embedded server.

The driver's ``chest_roundtrip`` (``tests/node/driver.js``) places a chest it was given, opens it with
``bot.openContainer`` (so Mineflayer's prismarine-windows must accept our ``open_window`` as a
``generic_9x3`` chest), deposits and withdraws with Mineflayer's own click code, closes, reopens, and reports
what it saw; the server's chest block entity and inventories are the ground truth its report is checked
against.
"""

from __future__ import annotations

import json

import pytest
import pytest_twisted
from support.nodebot import BotSpawner

CHEST = (10, 65, 8)


@pytest.fixture
def server(start_server):
    return start_server(tick_rate=20, view_distance=4, episode_seed=5, rcon_port=None)


@pytest_twisted.ensureDeferred
async def test_mineflayer_deposits_and_withdraws_through_our_chest(server, node_modules) -> None:
    name = "flaychest"
    spawner = BotSpawner(timeout=60.0, require_ok=True)
    moves: list[dict] = []
    server.subscribe(lambda ev, data: moves.append(data) if ev == "container_move" else None)
    try:
        bot = await spawner(name, server.port, ready_timeout=40)
        for item, n in (("chest", 1), ("oak_log", 16), ("cobblestone", 10)):
            assert server.give_item(name, item, n) == n
        for item, n in (("chest", 1), ("oak_log", 16), ("cobblestone", 10)):
            assert (await bot.cmd("wait_item", name=item, atLeast=n, ms=15000))["got"], item
        done = await bot.cmd("chest_roundtrip", x=CHEST[0], y=CHEST[1], z=CHEST[2])
    finally:
        spawner.kill_all()

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
