"""The body against flying-squid 1.12.0, an independent 1.19 / 1.19.2 server nobody here wrote.

Each test logs a fresh player into a superflat world (grass on dirt on bedrock) served by flying-squid for
both protocol versions (fixture ``squid``), and checks the outcome against what the *server* reports
through its own API (block states, the player's inventory and position), not against the body's own
view. One test uses flying-squid's diamond-square terrain for a richer chunk-decoding check.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest
import pytest_twisted

from mirrorcraft.gamedata import block_of_state, item, state_id
from mirrorcraft.mcproto_body import Body, BodyConfig

pytestmark = pytest.mark.npm

_names = (f"body{i}" for i in itertools.count())


async def _spawn(squid, **kw) -> Body:
    proto = 760 if squid.version == "1.19.2" else 759  # type: ignore[attr-defined]
    body = Body(BodyConfig(port=squid.port, protocol=proto, username=next(_names), view_distance=4, **kw))
    await body.connect()
    assert await body.wait_chunks(radius=2, timeout=20), "chunks around the spawn never arrived"
    await body.sleep(0.3)
    return body


@pytest_twisted.ensureDeferred
async def test_login_position_agrees_with_the_server(squid) -> None:
    body = await _spawn(squid)
    try:
        assert body.login.entity_id == body.entities.self_id
        assert body.world.min_y == -64 and body.world.height == 384
        me = await squid.request("player", player=body.config.username)
        assert me["position"] == pytest.approx(list(body.movement.position), abs=1e-6)
        assert body.health.health is not None and body.health.health > 0
        assert body.conn.protocol_errors == []
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_chunk_decode_matches_flying_squid_world_api(squid_factory) -> None:
    """Diamond-square terrain (stone, dirt, sand, water...): 600 sampled blocks equal the server's states."""
    server = squid_factory("1.19.2", generation="diamond_square")
    server.version = "1.19.2"  # type: ignore[attr-defined]
    try:
        await server.listening
        body = await _spawn(server)
        rng = random.Random(5)
        cols = sorted(body.world.columns)
        positions = []
        for _ in range(600):
            cx, cz = rng.choice(cols)
            positions.append(
                [cx * 16 + rng.randrange(16), rng.randrange(-64, 100), cz * 16 + rng.randrange(16)]
            )
        truth = (await server.request("blocks", positions=positions))["states"]
        ours = [body.world.state_at(*p) for p in positions]
        assert ours == truth
        kinds = {block_of_state(s).name for s in truth}
        assert len(kinds) >= 4, f"terrain too uniform for a meaningful check: {kinds}"
        await body.disconnect()
    finally:
        await server.stop()


@pytest_twisted.ensureDeferred
async def test_walk_without_being_teleported_back(squid) -> None:
    body = await _spawn(squid)
    try:
        x, y, z = body.movement.position
        target = (x + 9.5, y, z - 6.5)
        assert await body.walk_straight(target, timeout=10)
        await body.sleep(0.5)
        assert body.movement.corrections == 0
        me = await squid.request("player", player=body.config.username)
        assert math.dist(me["position"], body.movement.position) < 1e-6
        assert math.hypot(me["position"][0] - target[0], me["position"][2] - target[2]) < 0.5
        assert me["position"][1] == pytest.approx(y)  # superflat: still on the grass
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_dig_pick_up_and_place_back(squid) -> None:
    body = await _spawn(squid)
    try:
        bx, by, bz = body.movement.block_position()
        hole = (bx + 2, by - 1, bz)
        assert body.world.block_name(*hole) == "minecraft:grass_block"
        result, drops = await body.dig_and_collect(hole)
        assert result.broken and result.new_block == "minecraft:air", result
        assert result.expected_ticks == 18  # grass block 0.6 hardness, bare hand: 0.6*1.5 s
        truth = (await squid.request("blocks", positions=[list(hole)]))["states"]
        assert truth == [0]
        assert [d.item.item_id for d in drops if d.item] == [item("minecraft:dirt").id]
        me = await squid.request("player", player=body.config.username)
        assert {(s["name"], s["count"]) for s in me["slots"]} == {("dirt", 1)}
        assert body.inventory.count("minecraft:dirt") == 1
        # Step away from the hole and put the dirt back.
        await body.walk_straight((hole[0] - 1.5, by, hole[2] + 0.5), tolerance=0.3)
        placed = await body.place(hole, "minecraft:dirt")
        assert placed.placed and placed.new_block == "minecraft:dirt", placed
        truth = (await squid.request("blocks", positions=[list(hole)]))["states"]
        assert truth == [state_id("minecraft:dirt")]
        await body.sleep(0.3)
        assert body.inventory.count("minecraft:dirt") == 0
        assert body.movement.corrections == 0
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_chest_opens_and_clicks_reach_the_server_as_predicted(squid) -> None:
    """Place a chest, open it, shift-click logs into it, close it.

    flying-squid 1.12.0 opens a chest window (27 slots, no stored contents) but does not apply clicks
    (prismarine-windows' ``acceptClick`` needs a ``click.item`` that flying-squid never fills in), so the
    server-side effect of clicks is checked against the embedded server (tests/mcproto_body/test_embedded.py);
    here we check that flying-squid's independent decoder reads our click exactly as predicted.
    """
    body = await _spawn(squid)
    try:
        name = body.config.username
        await squid.request("give", player=name, slot=36, item="chest", count=1)
        await squid.request("give", player=name, slot=20, item="oak_log", count=5)
        await body.sleep(0.4)
        assert body.inventory.count("minecraft:chest") == 1
        assert body.inventory.player.slots[20].count == 5
        bx, by, bz = body.movement.block_position()
        spot = (bx + 2, by, bz)
        placed = await body.place(spot, "minecraft:chest")
        assert placed.placed and placed.new_block == "minecraft:chest", placed
        truth = (await squid.request("blocks", positions=[list(spot)]))["states"]
        assert block_of_state(truth[0]).name == "minecraft:chest"
        window = await body.open_container(spot)
        assert window.type == "minecraft:generic_9x3" and window.container_slots == 27
        await body.sleep(0.3)
        logs_in_window = window.player_slot(20)
        assert logs_in_window == 27 + 11 and window.slots[logs_in_window].count == 5
        del squid.packets[:]
        result = await body.inventory.shift_click(logs_in_window)
        assert result.prediction.changed == {0: window.slots[0], logs_in_window: None}
        assert window.slots[0].count == 5 and window.slots[0].item_id == item("minecraft:oak_log").id
        await body.inventory.close()
        await body.sleep(0.3)
        got = [p for p in squid.packets if p["name"] in ("window_click", "close_window")]
        assert [p["name"] for p in got] == ["window_click", "close_window"]
        click = got[0]["data"]
        assert (click["windowId"], click["slot"], click["mode"], click["mouseButton"]) == (
            window.id,
            38,
            1,
            0,
        )
        changed = {
            c["location"]: (c["item"].get("itemId"), c["item"].get("itemCount"))
            for c in click["changedSlots"]
        }
        assert changed == {0: (item("minecraft:oak_log").id, 5), 38: (None, None)}
        assert got[1]["data"]["windowId"] == window.id
        assert body.inventory.window is None
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_probe_cli_traces_packets_both_ways(squid, tmp_path) -> None:
    """``python -m mirrorcraft.mcproto_body --trace-packets FILE`` in its own process."""
    import json
    import subprocess
    import sys

    from twisted.internet.threads import deferToThread

    trace = tmp_path / "trace.jsonl"
    proto = "760" if squid.version == "1.19.2" else "759"
    cmd = [sys.executable, "-m", "mirrorcraft.mcproto_body", "--port", str(squid.port), "--protocol", proto,
           "--username", next(_names), "--trace-packets", str(trace), "--seconds", "0.5"]  # fmt: skip
    out = await deferToThread(subprocess.run, cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout)
    assert (
        summary["chunks_around_loaded"] and summary["protocol_errors"] == [] and summary["corrections"] == 0
    )
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    names = {(r["dir"], r["name"]) for r in rows}
    assert {("in", "login"), ("in", "map_chunk"), ("in", "position"), ("out", "teleport_confirm")} <= names
    assert {("out", "settings"), ("out", "position_look")} <= names
    confirm = next(r for r in rows if r["name"] == "teleport_confirm")
    teleport = next(r for r in rows if r["dir"] == "in" and r["name"] == "position")
    assert confirm["fields"]["teleport_id"] == teleport["fields"]["teleport_id"]
    assert rows.index(confirm) < next(i for i, r in enumerate(rows) if r["name"] == "position_look")


@pytest_twisted.ensureDeferred
async def test_follow_a_planned_path_around_a_wall_and_up_a_step(squid) -> None:
    """Build a wall with one gap and a one-block step with flying-squid's world API, then let the A* follower
    walk there; the server must agree on the final position and never teleport us back."""
    from mirrorcraft.pathing import Goal, PathFollower

    body = await _spawn(squid)
    try:
        bx, by, bz = body.movement.block_position()
        stone = state_id("minecraft:stone")
        wall_x = bx + 4
        for z in range(bz - 6, bz + 7):
            if z != bz + 4:  # the gap
                for y in (by, by + 1, by + 2):
                    await squid.request("setBlock", pos=[wall_x, y, z], state=stone)
        for x in range(wall_x + 3, wall_x + 7):
            for z in range(bz - 2, bz + 3):
                await squid.request("setBlock", pos=[x, by, z], state=stone)  # a one-block-high platform
        await body.sleep(0.5)
        assert body.world.block_name(wall_x, by + 1, bz) == "minecraft:stone"  # we saw the block changes
        goal = Goal(wall_x + 5, by + 1, bz)
        result = await PathFollower(body).goto(goal, timeout=30)
        assert result.reached, result
        assert body.movement.corrections == 0
        assert any(s.move == "jump" for s in result.last_plan.steps)
        assert (wall_x, by, bz + 4) in [s.cell for s in result.last_plan.steps]  # through the gap
        await body.sleep(0.3)
        me = await squid.request("player", player=body.config.username)
        assert math.dist(me["position"], body.movement.position) < 1e-6
        assert [math.floor(v) for v in me["position"]] == [goal.x, goal.y, goal.z]
    finally:
        await body.disconnect()
