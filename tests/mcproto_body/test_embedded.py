"""The body against the project's embedded server on the sandbox world (in-process, same reactor).

The server is started by this test module (``mirrorcraft.server`` is imported here, in the test, never by
the body). Ground truth comes from the server's test hook (``block_at``, ``inventory``, ``position``) and
its event listeners, not from the body's own view.
"""

from __future__ import annotations

import itertools
import math
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.body_support import stand_spot
from twisted.internet import defer, reactor

from mirrorcraft.gamedata import block_of_state
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.pathing import Goal, PathFollower

_names = (f"emb{i}" for i in itertools.count())


@pytest.fixture(scope="module")
def sandbox(sandbox_template: Path, sandbox_info: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    return sandbox_template, sandbox_info  # read only: the server plays in its own copy


@pytest.fixture(scope="module")
def server(sandbox, tmp_path_factory: pytest.TempPathFactory):
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    world = tmp_path_factory.mktemp("body-server") / "world"
    shutil.copytree(sandbox[0], world)
    srv = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=20, view_distance=4, episode_seed=7))
    srv.start()
    yield srv
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


async def _spawn(server, protocol: int = 760) -> Body:
    body = Body(BodyConfig(port=server.port, username=next(_names), protocol=protocol, view_distance=4))
    await body.connect()
    assert await body.wait_chunks(radius=2, timeout=20)
    await body.sleep(0.5)
    return body


@pytest.mark.parametrize("protocol", [760, 759])
@pytest_twisted.ensureDeferred
async def test_login_and_chunks_agree_with_the_save(server, protocol: int) -> None:
    body = await _spawn(server, protocol)
    try:
        assert body.conn.protocol_errors == []
        rng = random.Random(3)
        cols = sorted(body.world.columns)
        for _ in range(300):
            cx, cz = rng.choice(cols)
            p = (cx * 16 + rng.randrange(16), rng.randrange(-64, 120), cz * 16 + rng.randrange(16))
            assert block_of_state(body.world.state_at(*p)).name.removeprefix("minecraft:") == server.block_at(
                *p
            ), p
        assert math.dist(server.position(body.config.username), body.movement.position) < 1e-6
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_biomes_come_with_the_chunks(server) -> None:
    """The body's world keeps each column's biomes, named from the login registry codec (the observation's
    biome comes from here)."""
    body = await _spawn(server)
    try:
        world = body.world
        assert set(world.biomes) == set(world.columns) and world.columns
        assert len(world.biome_names) > 50 and "minecraft:plains" in world.biome_names.values()
        x, y, z = body.movement.block_position()
        assert world.biome_at(x, y, z) == "minecraft:plains"  # the sandbox is one plains biome
        assert world.biome_at(x, y - 200, z) == world.biome_at(x, y + 400, z) == "minecraft:plains"  # clamped
        assert world.biome_at(x + 16 * 64, y, z) is None  # not loaded
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_walk_to_a_tree_dig_a_log_and_pick_it_up(server, sandbox) -> None:
    info = sandbox[1]
    body = await _spawn(server)
    events: list[tuple[str, dict[str, Any]]] = []
    server.game.listeners.append(lambda ev, data: events.append((ev, data)))
    try:
        me = body.movement.block_position()
        trees = sorted(info["trees"], key=lambda t: math.dist(t["base"], me))
        tree, spot = next((t["base"], s) for t in trees if (s := stand_spot(server, *t["base"])) is not None)
        assert server.block_at(*tree) == "oak_log"
        result = await PathFollower(body, search_radius=64).goto(Goal(*spot), timeout=60)
        assert result.reached, result
        assert body.movement.corrections == 0
        await body.sleep(0.5)  # let the last bit of momentum die out
        assert math.dist(server.position(body.config.username), body.movement.position) < 1e-6
        dug, drops = await body.dig_and_collect(tuple(tree))
        assert dug.broken and dug.block == "minecraft:oak_log", dug
        # The benchmark controls give Haste II (amplifier 1): the body learnt it from entity_effect, so a
        # bare-hand log takes 2.0 * 1.5 s / 1.4 = 42.9 -> 43 ticks instead of 60.
        assert body.health.effect_level("minecraft:haste") == 2
        assert dug.expected_ticks == 43
        assert server.block_at(*tree) == "air"
        assert ("oak_log", 1) in server.inventory(body.config.username).values()
        assert body.inventory.count("minecraft:oak_log") == 1
        assert [d.count for d in drops] and all(d.item is not None for d in drops)
        assert any(ev == "block_broken" and d["block"] == "minecraft:oak_log" for ev, d in events)
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_clicks_are_confirmed_by_the_server(server) -> None:
    body = await _spawn(server)
    name = body.config.username
    events: list[tuple[str, dict[str, Any]]] = []
    server.game.listeners.append(lambda ev, data: events.append((ev, data)))
    try:
        server.give_item(name, "cobblestone", 20)
        server.give_item(name, "oak_planks", 7)
        await body.sleep(0.5)
        assert body.inventory.count("minecraft:cobblestone") == 20
        inv = body.inventory
        cob = inv.find("minecraft:cobblestone")
        results = [await inv.click(cob, 1, 0), await inv.click(20, 0, 0), await inv.click(20, 0, 1)]
        results.append(await inv.click(20 if inv.player.slots[20] else cob, 3, 2))
        results.append(await inv.move_stack(inv.find("minecraft:oak_planks"), 30))
        results.append(await inv.drop(30, whole_stack=False))
        await body.sleep(0.3)
        assert all(r.confirmed for r in results), results
        theirs = server.inventory(name)
        ours = {i: (s.item_id, s.count) for i, s in enumerate(inv.player.slots) if s is not None}
        from mirrorcraft.gamedata import item_by_id

        assert {i: (item_by_id(a).name.removeprefix("minecraft:"), c) for i, (a, c) in ours.items()} == theirs
        assert not any(ev == "click" and d.get("resync") for ev, d in events)
        assert inv.count("minecraft:oak_planks") == 6
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_kick_reason_is_reported_and_reconnect_restores_state(server) -> None:
    body = await _spawn(server)
    name = body.config.username
    try:
        lost = defer.Deferred()
        body.conn.on_disconnect(lambda: lost.called or lost.callback(None))
        server.player(name).kick("Kicked by the MirrorCraft test")
        await lost.addTimeout(5, reactor)
        assert "Kicked by the MirrorCraft test" in (body.conn.disconnect_reason or "")
        assert body.movement.state is not None  # state survives until the next connect resets it
        await body.reconnect()
        assert await body.wait_chunks(radius=2, timeout=20)
        assert body.conn.disconnect_reason is None and body.movement.corrections == 0
        assert name in server.player_names()
        assert math.dist(server.position(name), body.movement.position) < 1e-6
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_into_the_pit_mine_coal_with_a_pickaxe_and_climb_out(server, sandbox) -> None:
    """The sandbox quarry pit (floor 7 blocks down, a one-block staircase on its north side): the follower
    walks down, the body equips a wooden pickaxe from the test hook, mines coal ore in the east wall (the
    break time the server accepts is the vanilla formula with the controls' Haste II), picks the coal up and
    climbs back out — all without a single server correction."""
    from mirrorcraft.gamedata import state_id
    from mirrorcraft.mcproto_body import dig_ticks

    info = sandbox[1]
    body = await _spawn(server)
    name = body.config.username
    try:
        server.give_item(name, "wooden_pickaxe", 1)
        await body.sleep(0.4)
        assert await body.inventory.equip("minecraft:wooden_pickaxe")
        await body.sleep(0.2)
        assert body.inventory.held_item_name() == "minecraft:wooden_pickaxe"
        coal = next(tuple(p) for p in info["ores"]["coal_ore"] if p[1] == info["pit_floor_y"] + 2)
        stand = Goal(coal[0] - 1, info["pit_floor_y"] + 1, coal[2])
        down = await PathFollower(body, search_radius=40).goto(stand, timeout=60)
        assert down.reached, down
        assert any(s.move == "drop" for s in down.last_plan.steps) or body.movement.position[1] < 64
        dug, drops = await body.dig_and_collect(coal)
        assert dug.broken and dug.block == "minecraft:coal_ore", dug
        assert dug.expected_ticks == dig_ticks(
            state_id("minecraft:coal_ore"), "minecraft:wooden_pickaxe", haste=2
        )
        assert server.block_at(*coal) == "air"
        await body.sleep(0.3)
        assert ("coal", 1) in server.inventory(name).values() and body.inventory.count("minecraft:coal") == 1
        up = await PathFollower(body, search_radius=40).goto(Goal(*info["spawn"]), timeout=60)
        assert up.reached, up
        assert any(s.move == "jump" for s in up.last_plan.steps)
        assert body.movement.corrections == 0
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_placing_against_a_crafting_table_sneaks_instead_of_opening_it(server) -> None:
    """The only face touching the target belongs to a crafting table: the body sneaks while clicking it, so
    the server places the furnace on top instead of opening the table's menu (vanilla ``use`` order)."""
    body = await _spawn(server)
    name = body.config.username
    try:
        x, y, z = body.movement.block_position()
        table = (x + 2, y + 1, z)  # a floating table: air all round, the cell above it touches nothing else
        above = (table[0], table[1] + 1, table[2])
        for c in (table, above, (x + 2, y, z), (x + 1, y + 1, z), (x + 1, y + 2, z)):
            server.set_block(*c, "air")
        server.set_block(*table, "crafting_table")
        await body.sleep(0.3)
        assert server.give_item(name, "furnace", 1) == 1
        await body.sleep(0.3)
        assert body.placer.reference_for(above) == (table, 1)  # the table's top face: nothing else touches
        opened: list[Any] = []
        body.conn.on("open_window", opened.append)
        res = await body.place(above, "minecraft:furnace")
        assert res.placed and res.new_block == "minecraft:furnace", res
        assert server.block_at(*above) == "furnace"
        assert opened == []
        assert not server.player(name).sneaking  # sneaking ended after the click
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_a_berry_field_slows_the_walk_and_its_thorns_hurt(server) -> None:
    """Walking straight through a row of grown sweet berry bushes on the embedded server: inside, each tick
    moves only that tick's input times 0.8 (no momentum: ``makeStuckInBlock``), against the steady free walk's
    input / (1 - 0.6 x 0.91) — a ratio of 0.8 x 0.454 = 0.363 whatever the Speed level; the server accepts every
    move (no correction) and hurts the walker with ``sweetBerryBush`` (the body sees its health fall)."""
    body = await _spawn(server)
    name = body.config.username
    hurts: list[dict[str, Any]] = []
    server.game.listeners.append(
        lambda ev, d: hurts.append(d) if ev == "player_hurt" and d["player"] == name else None
    )
    try:
        x0, y, z = body.movement.block_position()
        for x in range(x0 - 1, x0 + 30):  # a flat grass lane along +X, two blocks of air above it
            server.set_block(x, y - 1, z, "grass_block", snowy="false")
            for dy in (0, 1):
                server.set_block(x, y + dy, z, "air")
        for x in range(x0 + 12, x0 + 22):
            server.set_block(x, y, z, "sweet_berry_bush", age="3")
        server.teleport(name, x0 + 0.5, float(y), z + 0.5)
        await body.sleep(3.5)  # past the 60 ticks of spawn invulnerability, settled after the teleport
        corrections = body.movement.corrections  # the teleport's
        xs: list[float] = []
        seen_health: list[float | None] = []  # the body's own view, sampled every tick of the walk
        body.movement.on_tick(lambda st: (xs.append(st.pos[0]), seen_health.append(body.health.health)))
        body.movement.look(-90.0, 0.0)  # +X
        body.movement.set_controls(forward=True)
        while not xs or xs[-1] < x0 + 20:
            await body.movement.wait_ticks(1)
        body.movement.stop()
        steps = [b - a for a, b in zip(xs, xs[1:], strict=False)]
        free = [
            s for s, x in zip(steps, xs, strict=False) if x0 + 6 < x < x0 + 11
        ]  # steady, before the bushes
        inside = [s for s, x in zip(steps, xs, strict=False) if x0 + 13 < x < x0 + 20]
        assert free and inside
        assert sum(inside) / len(inside) == pytest.approx(
            0.8 * (1 - 0.6 * 0.91) * sum(free) / len(free), rel=0.02
        )
        assert body.movement.corrections == corrections
        assert hurts and {d["cause"] for d in hurts} == {"sweetBerryBush"}
        # the controls' saturation regenerates a point every 10 ticks, as fast as the thorns take one, so the
        # fall shows while walking, not necessarily after it
        assert min(h for h in seen_health if h is not None) < 20.0
    finally:
        body.movement.stop()
        await body.disconnect()
