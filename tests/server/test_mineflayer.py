"""A real Mineflayer 4.25.0 client against the embedded server: login, chunks, digging with loot-table drops,
tools from the test hook, placement seen by a second bot, inventory clicks, players seeing each other.

Every check compares what the client sees with what the server (or the save) holds.
"""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task

from mirrorcraft.rules.digging import progress_per_tick
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.server.game import Game
from mirrorcraft.worlds.anvil.save import Save

pytestmark = pytest.mark.npm  # needs node_modules (Mineflayer / minecraft-data / minecraft-packets)


async def _teleport(server: EmbeddedServer, bot, x: float, y: float, z: float) -> None:
    server.teleport(bot.name, x, y, z)
    res = await bot.cmd("wait_position", x=x, y=y, z=z, within=0.01, ms=3000)
    assert res["reached"], res
    await bot.cmd("settle", ms=2000)


@pytest_twisted.ensureDeferred
async def test_spawn_chunks_and_blocks_match_the_save(
    server: EmbeddedServer, spawn_bot, sandbox_template, sandbox_info
) -> None:
    bot = await spawn_bot("looker")
    ready = await bot.event("ready")
    sx, sy, sz = sandbox_info["spawn"]
    assert ready["protocol"] == 760
    assert (ready["pos"]["x"], ready["pos"]["z"]) == (sx + 0.5, sz + 0.5)
    save = Save.open(sandbox_template)
    samples = [(sx, sy - 1, sz), (sx, sy, sz), (sx, 0, sz), (sx, -64, sz), (sx + 3, 30, sz - 5)]
    samples += [
        tuple(p) for name in ("coal_ore", "iron_ore", "diamond_ore") for p in sandbox_info["ores"][name][:1]
    ]
    samples += [tuple(t["base"]) for t in sandbox_info["trees"][:3]]
    samples += [(x, y, z) for x in (-20, 0, 24) for y in (55, 64, 66) for z in (-20, 2, 24)]
    res = await bot.cmd("blocks", positions=samples)
    expected = []
    for x, y, z in samples:
        chunk = save.read_chunk(x >> 4, z >> 4)
        expected.append(chunk.block_at(x, y, z)[0].removeprefix("minecraft:"))
    assert res["names"] == expected
    assert "oak_log" in expected and "diamond_ore" in expected and "grass_block" in expected
    await bot.cmd("quit")


def _stand_next_to(server: EmbeddedServer, x: int, y: int, z: int) -> tuple[float, float, float] | None:
    """A free spot (feet and head air, solid floor) beside block (x, y, z) at the same height."""
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        fx, fz = x + dx, z + dz
        if (
            server.block_at(fx, y, fz) == "air"
            and server.block_at(fx, y + 1, fz) == "air"
            and server.block_at(fx, y - 1, fz) not in ("air", "water")
        ):
            return fx + 0.5, float(y), fz + 0.5
    return None


@pytest_twisted.ensureDeferred
async def test_dig_log_stone_and_pickaxe_with_loot_drops(
    server: EmbeddedServer, spawn_bot, sandbox_info
) -> None:
    bot = await spawn_bot("digger")
    events: list[tuple[str, dict[str, Any]]] = []
    server.subscribe(lambda ev, data: events.append((ev, data)))
    # 1. a log, bare-handed: the oak_log loot table drops one log, which falls and is picked up
    tree, spot = next(
        (t["base"], s) for t in sandbox_info["trees"] if (s := _stand_next_to(server, *t["base"])) is not None
    )
    await _teleport(server, bot, *spot)
    res = await bot.cmd("dig", x=tree[0], y=tree[1], z=tree[2], timeout=20)
    assert res["ok"] and res["block"] == "oak_log" and res["after"] == "air", res
    got = await bot.cmd("wait_item", name="oak_log", atLeast=1, ms=4000)
    assert got["got"], got
    assert server.block_at(*tree) == "air"
    assert (
        "block_broken",
        {"player": "digger", "pos": tuple(tree), "block": "minecraft:oak_log", "drops": [("oak_log", 1)]},
    ) in events
    assert any(ev == "pickup" and d["item"] == "oak_log" for ev, d in events)

    # 2. stone, bare-handed: it breaks (slowly) but drops nothing
    x0, _, z0, _ = sandbox_info["pit"]
    floor = sandbox_info["pit_floor_y"]
    stand = (x0 + 0.5, float(floor + 1), z0 + 3.5)
    wall = (x0 - 1, floor + 2, z0 + 3)
    assert server.block_at(*wall) == "stone"
    await _teleport(server, bot, *stand)
    res = await bot.cmd("dig", x=wall[0], y=wall[1], z=wall[2], timeout=20)
    assert res["ok"] and res["after"] == "air", res
    assert server.block_at(*wall) == "air"
    got = await bot.cmd("wait_item", name="cobblestone", atLeast=1, ms=1500)
    assert not got["got"] and got["count"] == 0
    assert (
        "block_broken",
        {"player": "digger", "pos": wall, "block": "minecraft:stone", "drops": []},
    ) in events

    # 3. a wooden pickaxe from the test hook, then stone drops cobblestone
    assert server.give_item("digger", "wooden_pickaxe") == 1
    got = await bot.cmd("wait_item", name="wooden_pickaxe", atLeast=1, ms=3000)
    assert got["got"], got
    await bot.cmd("equip", name="wooden_pickaxe")
    wall2 = (wall[0], wall[1], wall[2] + 1)
    assert server.block_at(*wall2) == "stone"
    res = await bot.cmd("dig", x=wall2[0], y=wall2[1], z=wall2[2], timeout=20)
    assert res["ok"], res
    got = await bot.cmd("wait_item", name="cobblestone", atLeast=1, ms=4000)
    assert got["got"], got
    inv = server.inventory("digger")
    assert ("cobblestone", 1) in inv.values() and ("oak_log", 1) in inv.values()

    # 5. the client's inventory equals the server's after a series of clicks: pickup, put, right-click
    #    split, swap with the cursor, shift-click, number-key swap, drop one (Q over a slot)
    clicks = [
        (36, 0, 0),
        (20, 0, 0),
        (20, 1, 0),
        (37, 0, 0),
        (37, 0, 0),
        (22, 0, 0),
        (22, 0, 1),
        (11, 2, 2),
        (11, 0, 4),
    ]
    for slot, button, mode in clicks:
        res = await bot.cmd("click", slot=slot, button=button, mode=mode)
        assert res["ok"], res
    client = await bot.cmd("inventory")
    server_view = {str(k): [n, c] for k, (n, c) in server.inventory("digger").items()}
    assert client["slots"] == server_view
    assert server_view == {"36": ["oak_log", 1], "37": ["wooden_pickaxe", 1]}
    assert not any(ev == "click" and d["resync"] for ev, d in events), [
        d for ev, d in events if ev == "click"
    ]
    assert any(ev == "drop" and d["item"] == "cobblestone" for ev, d in events)

    # 4. a finish sent at once after the start is not a break: the block stays, and the server breaks it
    #    itself once its own count reaches the dig time (vanilla's delayed destroy), for the digger
    await bot.cmd("equip", name="wooden_pickaxe")
    wall3 = (wall[0], wall[1] - 1, wall[2] + 1)
    assert server.block_at(*wall3) == "stone"
    at: dict[str, int] = {}
    server.subscribe(
        lambda ev, d: at.setdefault(ev, server.game.tick_count) if d.get("pos") == wall3 else None
    )
    await bot.cmd("dig_too_fast", x=wall3[0], y=wall3[1], z=wall3[2])
    for _ in range(60):
        if server.block_at(*wall3) == "air":
            break
        await task.deferLater(reactor, 0.05, lambda: None)
    assert server.block_at(*wall3) == "air"
    digger = server.player("digger")
    need = math.ceil(
        1
        / progress_per_tick(
            facts.block_of_state(facts.state_id("stone")), server.game.digging.conditions(digger)
        )
    )
    assert need > 5 and "dig_delayed" in at, at
    assert at["block_broken"] - at["dig_delayed"] >= need - 2, (at, need)  # not before the dig time
    assert (
        "block_broken",
        {"player": "digger", "pos": wall3, "block": "minecraft:stone", "drops": [("cobblestone", 1)]},
    ) in events
    await bot.cmd("quit")


@pytest_twisted.ensureDeferred
async def test_placed_block_is_seen_by_a_second_bot_and_bots_see_each_other_move(
    server: EmbeddedServer, spawn_bot, sandbox_info
) -> None:
    a = await spawn_bot("builder")
    b = await spawn_bot("watcher")
    sx, sy, sz = sandbox_info["spawn"]
    target = (sx + 2, sy, sz)
    assert server.block_at(*target) == "air"
    server.give_item("builder", "cobblestone", 3)
    assert (await a.cmd("wait_item", name="cobblestone", atLeast=3))["got"]
    await a.cmd("equip", name="cobblestone")
    res = await a.cmd("place", against=[target[0], target[1] - 1, target[2]], face=[0, 1, 0])
    assert res["ok"] and res["placed"] == "cobblestone", res
    assert server.block_at(*target) == "cobblestone"
    seen = await b.cmd("wait_block", x=target[0], y=target[1], z=target[2], name="cobblestone")
    assert seen["ok"]
    assert server.inventory("builder") == {36: ("cobblestone", 2)}

    # the watcher sees the builder move
    before = await b.cmd("seen", username="builder")
    assert before["listed"] and before["pos"] is not None
    await a.cmd("look", yaw=0, pitch=0)  # Mineflayer yaw 0 faces north (-z), away from the placed block
    await a.cmd("walk", control="forward", ms=600)
    for _ in range(40):  # the builder may still slide a little: wait until all three views agree
        moved = await a.cmd("position")
        server_pos = server.position("builder")
        after = await b.cmd("seen", username="builder")
        if abs(server_pos[2] - moved["pos"]["z"]) < 1e-6 and abs(after["pos"]["z"] - server_pos[2]) < 0.01:
            break
        # a pause between polls: without it the 40 polls could all fall within the watcher's packet delay
        await task.deferLater(reactor, 0.05, lambda: None)
    assert abs(server_pos[2] - moved["pos"]["z"]) < 1e-6
    assert abs(after["pos"]["z"] - server_pos[2]) < 0.01, (after, server_pos)
    assert server_pos[2] < sz + 0.5 - 0.5
    # and sees it leave
    await a.cmd("quit")
    await a.ended
    for _ in range(100):
        gone = await b.cmd("seen", username="builder")
        if not gone["listed"] and not gone["spawned"]:
            break
        await task.deferLater(reactor, 0.05, lambda: None)
    assert not gone["listed"] and not gone["spawned"]
    await b.cmd("quit")


@pytest_twisted.ensureDeferred
async def test_protocol_759_client_logs_in_and_sees_the_save(
    server: EmbeddedServer, spawn_bot, sandbox_template, sandbox_info
) -> None:
    bot = await spawn_bot("old", version="1.19")
    ready = await bot.event("ready")
    assert ready["protocol"] == 759
    save = Save.open(sandbox_template)
    sx, sy, sz = sandbox_info["spawn"]
    samples = [
        (sx, sy - 1, sz),
        (sx, 10, sz),
        tuple(sandbox_info["ores"]["iron_ore"][0]),
        tuple(sandbox_info["trees"][1]["base"]),
    ]
    res = await bot.cmd("blocks", positions=samples)
    assert res["names"] == [
        save.read_chunk(x >> 4, z >> 4).block_at(x, y, z)[0].removeprefix("minecraft:") for x, y, z in samples
    ]
    await bot.cmd("quit")


@pytest_twisted.ensureDeferred
async def test_chunks_load_and_unload_as_the_player_moves(server: EmbeddedServer, spawn_bot) -> None:
    bot = await spawn_bot("traveller")
    r = server.config.view_distance

    def square(cx: int, cz: int) -> set[tuple[int, int]]:
        return {(x, z) for x in range(cx - r, cx + r + 1) for z in range(cz - r, cz + r + 1)}

    cols = await bot.cmd("columns")
    assert {tuple(c) for c in cols["columns"]} == square(0, 0)
    x, z = -50, -50
    y = next(y for y in range(100, -64, -1) if server.block_at(x, y - 1, z) != "air")
    await _teleport(server, bot, x + 0.5, float(y), z + 0.5)
    for _ in range(100):  # the unloads and the new columns arrive over a few hundred milliseconds
        cols = await bot.cmd("columns")
        if {tuple(c) for c in cols["columns"]} == square(x >> 4, z >> 4):
            break
        await task.deferLater(reactor, 0.05, lambda: None)
    assert {tuple(c) for c in cols["columns"]} == square(x >> 4, z >> 4)
    res = await bot.cmd("blocks", positions=[[x, y - 1, z]])
    assert res["names"] == [server.block_at(x, y - 1, z)]
    await bot.cmd("quit")


def _mirror_pack(world: Path) -> None:
    """A rule pack (zip) in the save's datapacks/: mining a log gives 2-4 sticks instead of the log."""
    table = {
        "type": "minecraft:block",
        "pools": [
            {
                "rolls": 1,
                "entries": [
                    {
                        "type": "minecraft:item",
                        "name": "minecraft:stick",
                        "functions": [
                            {
                                "function": "minecraft:set_count",
                                "count": {"type": "minecraft:uniform", "min": 2, "max": 4},
                            }
                        ],
                    }
                ],
            }
        ],
    }
    (world / "datapacks").mkdir(exist_ok=True)
    with zipfile.ZipFile(world / "datapacks" / "mirror_test.zip", "w") as z:
        z.writestr("pack.mcmeta", json.dumps({"pack": {"pack_format": 10, "description": "test rule"}}))
        z.writestr("data/minecraft/loot_tables/blocks/oak_log.json", json.dumps(table))


@pytest_twisted.ensureDeferred
async def test_a_saves_datapack_overrides_vanilla_loot_end_to_end(
    sandbox_template: Path, tmp_path: Path, spawn_bot
) -> None:
    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    _mirror_pack(world)
    info = json.loads((world / "sandbox.json").read_text())
    srv = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=40, episode_seed=3))
    srv.start()
    events: list[tuple[str, dict[str, Any]]] = []
    srv.subscribe(lambda ev, data: events.append((ev, data)))
    try:
        bot = await spawn_bot("miner", port=srv.port)
        tree, spot = next(
            (t["base"], s) for t in info["trees"] if (s := _stand_next_to(srv, *t["base"])) is not None
        )
        await _teleport(srv, bot, *spot)
        res = await bot.cmd("dig", x=tree[0], y=tree[1], z=tree[2])
        assert res["ok"], res
        (drops,) = [d["drops"] for ev, d in events if ev == "block_broken"]
        assert len(drops) == 1 and drops[0][0] == "stick" and 2 <= drops[0][1] <= 4
        got = await bot.cmd("wait_item", name="stick", atLeast=drops[0][1], ms=4000)
        assert got["got"] and got["count"] == drops[0][1], got
        assert "oak_log" not in {n for n, _ in srv.inventory("miner").values()}
        # the same world, seed and dig roll the same count (seeded loot RNG)
        copy = sandbox_copy(sandbox_template, tmp_path / "again")
        _mirror_pack(copy)
        again = Game(ServerConfig(world=copy, port=0, episode_seed=3))
        stacks, _ = again.digging.roll_block_loot(facts.state_id("oak_log", {"axis": "y"}), None, None)
        assert [(s.item.removeprefix("minecraft:"), s.count) for s in stacks] == [tuple(drops[0])]
    finally:
        await defer.maybeDeferred(srv.stop)


def sandbox_copy(template: Path, dst: Path) -> Path:
    shutil.copytree(template, dst)
    return dst


@pytest_twisted.ensureDeferred
async def test_impossible_moves_are_teleported_back(server: EmbeddedServer, spawn_bot, sandbox_info) -> None:
    bot = await spawn_bot("cheater")
    events: list[tuple[str, dict[str, Any]]] = []
    server.subscribe(lambda ev, data: events.append((ev, data)))
    start = server.position("cheater")
    sx, sy, sz = sandbox_info["spawn"]
    for target, reason in [
        ((start[0] + 30, start[1], start[2]), "moved too quickly"),
        ((start[0], sy - 2.0, start[2]), "moved into a block"),
    ]:
        res = await bot.cmd("raw_move", x=target[0], y=target[1], z=target[2])
        assert (res["after"]["x"], res["after"]["y"], res["after"]["z"]) == start, res
        assert server.position("cheater") == start
        assert ("move_refused", {"player": "cheater", "reason": reason}) in events
    await bot.cmd("quit")
