"""The escape skills and the walking skills' fail-fast way out, against the embedded server (100 ticks/s).

Seeded predicaments from ``support.predicaments`` on the sandbox's free plain; ground truth is the server's
blocks, inventory and position. What each test proves:

* in a pit, ``go_to`` the surface fails within a few game ticks naming the way out ("6 blocks up (y=65);
  try dig_up or pillar_up"); ``dig_up`` climbs out by a staircase (every block broken in the report, the
  drops in the inventory delta) and ``go_to`` then walks there;
* ``pillar_up`` towers on carried cobblestone: the server holds the blocks under the column, the report
  lists them placed, the inventory lost exactly them; without blocks it fails and places nothing;
* ``tunnel`` bridges a ravine with carried blocks and digs through rock beyond it;
* ``recover`` sealed in bedrock fails within 100 game ticks, saying why, breaking nothing; bad ``go_to``
  targets (bedrock, lava, outside the border) fail with their reason at once.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytest_twisted
from support.predicaments import FEET, SITES, build
from support.skills_support import module_server, server_counts, session

from mirrorcraft.contracts import FailureReason

TICK_RATE = 100


@pytest.fixture(scope="module")
def server(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox_template, tmp_path_factory, "escape-server", tick_rate=TICK_RATE, seed=7)


def _setup(
    server, body, kind: str, seed: int, site: tuple[int, int], inventory: dict[str, int] | None = None
):
    """Build a predicament, put the player in it with its (or the given) inventory."""
    pred = build(kind, seed, lambda x, y, z, b: server.set_block(x, y, z, b), site)
    name = body.config.username
    for item, n in (pred.inventory if inventory is None else inventory).items():
        server.give_item(name, item.removeprefix("minecraft:"), n)
    server.teleport(name, *pred.start)
    return pred


def _truth_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    keys = set(before) | set(after)
    return dict(
        sorted((k, after.get(k, 0) - before.get(k, 0)) for k in keys if after.get(k, 0) != before.get(k, 0))
    )


@pytest_twisted.ensureDeferred
async def test_pit_go_to_fails_fast_naming_dig_up_and_dig_up_climbs_out(server) -> None:
    body, skills, _ = await session(server)
    try:
        pred = _setup(server, body, "pit", 4, SITES[1])  # seed 4: a pit of the depth below, one wide
        depth = pred.params["depth"]
        await body.sleep(0.5)
        stuck = await skills.run("go_to", x=pred.goal[0], y=pred.goal[1], z=pred.goal[2])
        assert stuck.status == "failure" and stuck.reason == FailureReason.UNREACHABLE, stuck
        assert (
            f"no walk: target {pred.goal} {depth} blocks up (y={FEET}); try dig_up or pillar_up"
            in stuck.message
        )
        # fails fast, breaks nothing: the flood is wall-clock work that showed as 23-26
        # game ticks at 100 t/s when the 2 cores are shared (the spec bound for recover is 100)
        assert stuck.ticks_used <= 40 and stuck.blocks_broken == []
        before = server_counts(server, body.config.username)
        out = await skills.run("dig_up", target_y=FEET)
        assert out.status == "success" and out.completed == depth, out
        after = server_counts(server, body.config.username)
        assert out.inventory_delta == _truth_delta(before, after)
        dug = sum(b.count for b in out.blocks_broken)
        assert dug >= depth and {b.block for b in out.blocks_broken} <= {
            "minecraft:stone", "minecraft:dirt", "minecraft:grass_block"
        }  # fmt: skip
        assert math.floor(server.position(body.config.username)[1]) == FEET
        walk = await skills.run("go_to", x=pred.goal[0], y=pred.goal[1], z=pred.goal[2])
        assert walk.status == "success", walk
        assert pred.reached(server.position(body.config.username))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_pillar_up_towers_on_carried_blocks_and_refuses_without(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        pred = _setup(server, body, "pit", 0, SITES[2], inventory={})
        x, y, z = (math.floor(v) for v in pred.start)
        await body.sleep(0.5)
        none = await skills.run("pillar_up", height=3)
        assert none.status == "failure" and none.reason == FailureReason.MISSING_ITEMS, none
        assert none.blocks_placed == [] and server.block_at(x, y, z) == "air"
        server.give_item(name, "cobblestone", 5)
        await body.sleep(0.3)
        report = await skills.run("pillar_up", height=3)
        assert report.status == "success" and report.completed == 3, report
        assert [(b.block, b.count) for b in report.blocks_placed] == [("minecraft:cobblestone", 3)]
        assert report.inventory_delta == {"minecraft:cobblestone": -3}
        assert server_counts(server, name)["minecraft:cobblestone"] == 2
        assert [server.block_at(x, y + k, z) for k in range(3)] == ["cobblestone"] * 3
        assert math.floor(server.position(name)[1]) == y + 3
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_tunnel_bridges_a_ravine_and_the_walk_names_it(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        pred = _setup(
            server,
            body,
            "ravine",
            1,
            SITES[0],
            inventory={"minecraft:cobblestone": 6, "minecraft:stone_pickaxe": 1},
        )
        width = pred.params["width"]
        x0, _, z0 = (math.floor(v) for v in pred.start)
        for y in (FEET, FEET + 1):  # a rock wall on the far side too, beyond the ravine
            server.set_block(x0 + width + 1, y, z0, "stone")
        await body.sleep(0.5)
        stuck = await skills.run("go_to", x=pred.goal[0], y=pred.goal[1], z=pred.goal[2])
        assert stuck.status == "failure" and "try tunnel east" in stuck.message, stuck
        report = await skills.run("tunnel", direction="east", length=width + 1)
        assert report.status == "success" and report.completed == width + 1, report.message
        assert [(b.block, b.count) for b in report.blocks_placed] == [("minecraft:cobblestone", width)]
        assert [(b.block, b.count) for b in report.blocks_broken] == [("minecraft:stone", 2)]
        assert [server.block_at(x0 + k, FEET - 1, z0) for k in range(1, width + 1)] == ["cobblestone"] * width
        assert server.block_at(x0 + width + 1, FEET, z0) == "air"
        assert (
            server_counts(server, name).get("minecraft:cobblestone", 0) == 6 - width + 2
        )  # two dug, picked up
        walk = await skills.run("go_to", x=pred.goal[0], y=pred.goal[1], z=pred.goal[2])
        assert walk.status == "success", walk
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_sealed_in_bedrock_and_bad_targets_fail_fast_with_the_reason(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        pred = _setup(server, body, "bedrock", 0, SITES[3])
        x, y, z = (math.floor(v) for v in pred.start)
        await body.sleep(0.5)
        report = await skills.run("recover")
        assert report.status == "failure" and report.reason == FailureReason.UNREACHABLE, report
        assert "walled in by blocks that cannot be broken (minecraft:bedrock)" in report.message
        assert report.ticks_used <= 100 and report.blocks_broken == []
        up = await skills.run("dig_up", target_y=FEET)
        assert up.status == "failure" and "minecraft:bedrock" in up.message and up.blocks_broken == [], up
        assert up.ticks_used <= 100
        tower = await skills.run("pillar_up", height=2)
        assert tower.status == "failure" and "bedrock" in tower.message and tower.blocks_placed == [], tower
        go = await skills.run("go_to", x=pred.goal[0], y=pred.goal[1], z=pred.goal[2])
        assert go.status == "failure" and "no way out" in go.message and go.ticks_used <= 100, go
        # bad targets: inside unbreakable blocks, in lava, outside the world border
        server.set_block(x + 1, y - 8, z, "lava")
        await body.sleep(0.2)
        cases = [((x - 1, y - 1, z - 1), "inside unbreakable blocks"), ((x + 1, y - 8, z), "in lava"),
                 ((200, FEET, z), "outside the world border")]  # fmt: skip
        for cell, why in cases:
            bad = await skills.run("go_to", x=cell[0], y=cell[1], z=cell[2])
            assert (
                bad.status == "failure" and bad.reason == FailureReason.UNREACHABLE and why in bad.message
            ), bad
            assert bad.ticks_used <= 20 and bad.blocks_broken == [] and bad.blocks_placed == []
        assert (math.floor(server.position(name)[0]), math.floor(server.position(name)[2])) == (x, z)
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_go_to_a_block_and_an_entity(server) -> None:
    """A block target: stand within reach of it (the one at x, y, z, or the nearest one seen); an entity
    target: walk up to the nearest of that type."""
    import uuid

    body, skills, _ = await session(server)
    name = body.config.username
    try:
        x0, z0 = SITES[4]
        server.teleport(name, x0 + 0.5, float(FEET), z0 + 0.5)
        table = (x0 + 9, FEET, z0 + 2)
        server.set_block(*table, "crafting_table")
        await body.sleep(0.5)
        report = await skills.run("go_to", block="crafting_table")
        assert report.status == "success" and str(table) in report.message, report
        eye = (server.position(name)[0], server.position(name)[1] + 1.62, server.position(name)[2])
        assert math.dist(eye, (table[0] + 0.5, table[1] + 0.5, table[2] + 0.5)) <= 4.5
        assert skills.ctx.block(table) == "minecraft:crafting_table"  # stood beside it, not in it
        wrong = await skills.run("go_to", block="furnace", x=table[0], y=table[1], z=table[2])
        assert wrong.status == "failure" and wrong.reason == FailureReason.NOT_FOUND, wrong
        cow = server.game.mobs.add_cow((x0 - 6.5, float(FEET), z0 + 0.5), 0.0, uuid.uuid4())
        await body.sleep(0.3)
        report = await skills.run("go_to", entity="cow")
        assert report.status == "success" and "reached minecraft:cow at (" in report.message, report
        where = tuple(int(v) for v in report.message.split(" at (")[1].rstrip(")").split(", "))
        assert math.dist(server.position(name), where) <= 3.5
        assert math.dist(server.position(name), cow.pos) <= 12  # the cow wanders on; it was where we went
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_dig_up_breaks_ore_a_wooden_pickaxe_cannot_harvest(server) -> None:
    # the default job's M01 pit (issue 21): dug with the first (wooden) pickaxe, copper ore in the walls near
    # the top; the staircase breaks it without a drop (150 ticks a block, an escape's bound is 400) where a
    # walk's one obstruction would not (100)
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        x0, z0 = 46, -36  # on the free plain, clear of every SITES box and of the ravine
        depth = 3
        for y in range(FEET - depth, FEET + 2):
            server.set_block(x0, y, z0, "air")
        server.set_block(x0, FEET - depth - 1, z0, "stone")
        for dx in (-1, 0, 1):
            for dz in (-1, 0, 1):
                if (dx, dz) != (0, 0):
                    server.set_block(x0 + dx, FEET - 1, z0 + dz, "copper_ore")
        server.give_item(name, "wooden_pickaxe", 1)
        server.teleport(name, x0 + 0.5, float(FEET - depth), z0 + 0.5)
        await body.sleep(0.5)
        before = server_counts(server, name)
        out = await skills.run("dig_up", target_y=FEET)
        assert out.status == "success" and out.completed == depth, out
        assert "minecraft:copper_ore" in {b.block for b in out.blocks_broken}
        assert "minecraft:raw_copper" not in out.inventory_delta  # broken in the way, not harvested
        assert out.inventory_delta == _truth_delta(before, server_counts(server, name))
        assert math.floor(server.position(name)[1]) == FEET
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_dig_up_steps_aside_from_a_kept_table_over_the_head(server) -> None:
    # seen in the default job: a staircase that ended under the player's own crafting table; every step up
    # needs the cell over the head, which the body never breaks (a kept block): it steps aside and goes on
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        x0, z0 = 46, -24
        depth = 3
        for y in range(FEET - depth, FEET + 2):
            server.set_block(x0, y, z0, "air")
        server.set_block(x0, FEET - depth + 2, z0, "crafting_table")
        server.give_item(name, "stone_pickaxe", 1)
        server.teleport(name, x0 + 0.5, float(FEET - depth), z0 + 0.5)
        await body.sleep(0.5)
        out = await skills.run("dig_up", target_y=FEET)
        assert out.status == "success" and math.floor(server.position(name)[1]) == FEET, out
        assert server.block_at(x0, FEET - depth + 2, z0) == "crafting_table"
        assert "minecraft:crafting_table" not in {b.block for b in out.blocks_broken}
    finally:
        await body.disconnect()
