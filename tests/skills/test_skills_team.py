"""The team-play body modules and skills (issue 24) on the embedded server over 127.0.0.1, in the Dash & Dine
arena (``arena_saves``: its wheat farm, cow, crafting tables and furnaces), at 100 ticks/s.

* wheat to bread: ``farm`` harvests ripe wheat (the loot table's drops picked up) and replants it with the
  seeds (use on farmland); the body's plant view (``body.plants``) sees the replanted wheat grow at a high
  ``randomTickSpeed``; ``farm`` harvests it again; ``craft_grid`` at the arena's table makes bread;
* cake: ``use`` a bucket on the arena's cow three times (milk buckets), ``craft_grid`` the cake from milk,
  sugar, an egg and wheat (the buckets come back); ``place_at`` the cake, ``use`` it to eat a slice;
  ``break_at`` a block; ``cook`` a potato on an arena furnace's own coal, and with carried planks in a
  furnace without fuel;
* four players, two teams: team chat reaches only the sender's team mate (with its sender), normal chat
  everyone; every body reads the same sidebar; ``give`` tosses bread to a team mate, who picks it up.

Ground truth is the server's (inventories, blocks), never only the body's view.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.skills_support import server_counts, session
from twisted.internet import defer

from mirrorcraft.server import facts

TICK_RATE = 100
WHEAT_FARM = [(x, -60, z) for x in (-20, -18) for z in range(-3, 2)]  # layout.farm_cells: crops in x0 ± 1
TABLE = (-11, -59, 0)


@pytest.fixture(scope="module")
def server(arena_saves: Path, tmp_path_factory: pytest.TempPathFactory):
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    world = tmp_path_factory.mktemp("team-skills") / "world"
    shutil.copytree(arena_saves / "arenas" / "dash_and_dine" / "original", world)
    srv = EmbeddedServer(
        ServerConfig(world=world, port=0, tick_rate=TICK_RATE, view_distance=4, episode_seed=7)
    )
    srv.start()
    yield srv
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


def _command(server: Any, text: str) -> Any:
    ex = server.game.commands.executor
    return ex.run(ex.console_source(), text)


async def _until(body: Any, cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await body.sleep(0.05)


async def _player(server: Any, name: str, pos: tuple[float, float, float]):
    body, skills, _ = await session(server, name)
    server.teleport(name, *pos)
    await _until(body, lambda: abs(body.movement.position[0] - pos[0]) < 0.01, 3.0, "the teleport")
    await body.sleep(0.2)
    from mirrorcraft.contracts import SKILL_NAMES
    from mirrorcraft.skills import SkillSet

    return body, SkillSet(body, offered=SKILL_NAMES)


@pytest_twisted.ensureDeferred
async def test_wheat_harvested_replanted_grown_and_baked_into_bread(server) -> None:
    body, skills = await _player(server, "Ryn", (-16.5, -60.0, 3.5))
    try:
        ripe = [p for p in WHEAT_FARM if body.plants.plant_at(*p) is not None]
        assert len(ripe) == 10 and all(body.plants.plant_at(*p).ripe for p in ripe)  # the arena's ripe wheat
        assert body.plants.plant_at(*WHEAT_FARM[0]).max_age == 7
        server.give_item("Ryn", "wheat_seeds", 3)  # seeds to replant with whatever the loot gives
        await body.sleep(0.2)
        report = await skills.run("farm", crop="wheat", count=3)
        assert report.status == "success" and report.completed == 3, report
        assert report.blocks_broken[0].block == "minecraft:wheat" and report.blocks_broken[0].count == 3
        assert report.inventory_delta.get("minecraft:wheat", 0) >= 3, report
        assert [(b.block, b.count) for b in report.blocks_placed] == [("minecraft:wheat", 3)], report
        young = [p for p in WHEAT_FARM if (s := body.plants.plant_at(*p)) is not None and not s.ripe]
        assert len(young) == 3 and all(server.block_at(*p) == "wheat" for p in young)
        server.give_item("Ryn", "bone_meal", 1)
        await body.sleep(0.2)
        x, y, z = young[0]
        report = await skills.run("use", item="bone_meal", x=x, y=y, z=z)
        assert report.status == "success" and report.inventory_delta == {"minecraft:bone_meal": -1}, report
        assert int(facts.state_props(server.game.world.get_block(x, y, z))["age"]) >= 2  # vanilla: 2..5 ages
        # grow them (randomTickSpeed is a game rule: the server's growth, not ours) and watch the ages rise
        assert _command(server, "gamerule randomTickSpeed 4000").success
        try:
            await _until(
                body, lambda: all(body.plants.plant_at(*p).ripe for p in young), 20.0, "wheat to grow"
            )
        finally:
            _command(server, "gamerule randomTickSpeed 200")
        report = await skills.run("farm", crop="wheat", count=3)
        assert report.status == "success" and report.completed == 3, report
        wheat = server_counts(server, "Ryn")["minecraft:wheat"]
        assert wheat >= 6
        row = ["minecraft:wheat"] * 3
        report = await skills.run(
            "craft_grid", workstation="crafting_table", grid=[[None] * 3, row, [None] * 3], count=2
        )
        assert report.status == "success", report.message
        assert report.produced[0].item == "minecraft:bread" and report.produced[0].count == 2
        counts = server_counts(server, "Ryn")
        assert counts["minecraft:bread"] == 2 and counts.get("minecraft:wheat", 0) == wheat - 6
        report = await skills.run("farm", crop="melon", count=1)  # not a plant that ripens
        assert report.status == "failure" and report.reason == "not_found"
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_milk_the_cow_and_bake_a_cake(server) -> None:
    cow = next(iter(server.game.mobs.cows.values()))
    body, skills = await _player(server, "Raze", (cow.pos[0] + 1.5, -60.0, cow.pos[2]))
    try:
        server.give_item("Raze", "bucket", 3)
        await body.sleep(0.2)
        for _ in range(3):
            report = await skills.run("use", item="bucket", entity="cow")
            assert report.status == "success", report
            assert report.inventory_delta == {"minecraft:bucket": -1, "minecraft:milk_bucket": 1}
        assert server_counts(server, "Raze")["minecraft:milk_bucket"] == 3
        for item, n in (("sugar", 2), ("egg", 1), ("wheat", 3)):
            server.give_item("Raze", item, n)
        await body.sleep(0.2)
        milk, sugar, egg, wheat = (f"minecraft:{n}" for n in ("milk_bucket", "sugar", "egg", "wheat"))
        grid = [[milk] * 3, [sugar, egg, sugar], [wheat] * 3]
        report = await skills.run("craft_grid", workstation="crafting_table", grid=grid)
        assert report.status == "success", report
        assert [(s.item, s.count) for s in report.produced] == [("minecraft:cake", 1)]
        counts = server_counts(server, "Raze")
        assert counts.get("minecraft:cake") == 1 and counts.get("minecraft:bucket") == 3  # the buckets return
        assert "minecraft:milk_bucket" not in counts
        # place the cake and eat a slice of it (use on the block); then break a block at a position
        fx, fy, fz = (int(v) for v in (body.movement.block_position()))
        spot = (fx + 2, fy, fz)
        report = await skills.run("place_at", item="cake", x=spot[0], y=spot[1], z=spot[2])
        assert report.status == "success", report
        assert server.block_at(*spot) == "cake"
        _command(server, "difficulty easy")  # no peaceful refill while we look at the food bar
        server.game.food.state(server.player("Raze")).food = 10
        await body.sleep(0.1)
        report = await skills.run("use", x=spot[0], y=spot[1], z=spot[2])
        assert report.status == "success", report
        assert facts.state_props(server.game.world.get_block(*spot))["bites"] == "1"
        assert server.game.food.state(server.player("Raze")).food == 12  # a slice: 2 food points
        report = await skills.run("break_at", x=spot[0], y=spot[1], z=spot[2])
        assert report.status == "success" and report.blocks_broken[0].block == "minecraft:cake", report
        assert server.block_at(*spot) == "air"
        report = await skills.run("break_at", x=spot[0], y=spot[1], z=spot[2])
        assert report.status == "failure" and report.reason == "not_found"
    finally:
        await body.disconnect()


def _fuel(server: Any, pos: tuple[int, int, int]) -> tuple[str, int] | None:
    """The fuel slot of the furnace at ``pos`` as the server holds it."""
    slot = server.game.furnaces.device_at(pos).slots[1]
    return None if slot is None else (slot.item, slot.count)


@pytest_twisted.ensureDeferred
async def test_cook_a_potato_on_an_arena_furnaces_own_coal(server) -> None:
    """Issue 24: the arena's furnaces hold 64 coal; ``cook`` burns it (vanilla burns whatever is in the fuel
    slot) and neither needs nor spends the carried coal, nor takes the furnace's."""
    body, skills = await _player(server, "Blink", (0.5, -60.0, -1.5))
    try:
        furnace = skills.ctx.find_blocks("minecraft:furnace")[0]
        assert _fuel(server, furnace) == ("minecraft:coal", 64)
        server.give_item("Blink", "potato", 2)
        server.give_item("Blink", "coal", 1)
        await body.sleep(0.2)
        report = await skills.run("cook", input="potato", count=2)
        assert report.status == "success", report
        assert [(s.item, s.count) for s in report.produced] == [("minecraft:baked_potato", 2)]
        assert "on the furnace's minecraft:coal" in report.message, report.message
        counts = server_counts(server, "Blink")
        assert (
            counts.get("minecraft:baked_potato") == 2 and counts.get("minecraft:coal") == 1
        )  # its own coal kept
        assert _fuel(server, furnace) == (
            "minecraft:coal",
            63,
        )  # one coal burnt, the rest stays in the furnace
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_cook_adds_carried_fuel_only_to_a_furnace_without_any(server) -> None:
    """A furnace with an empty fuel slot: without carried fuel ``cook`` fails ``missing_items`` and loads
    nothing; with planks it adds the two that two potatoes need (300 ticks each), and none is left over."""
    from mirrorcraft.contracts import FailureReason

    body, skills = await _player(server, "Bolt", (8.5, -60.0, 8.5))
    try:
        furnace = (10, -60, 8)
        assert server.block_at(*furnace) == "air" and server.block_at(10, -61, 8) != "air"
        server.set_block(*furnace, "furnace")
        await body.sleep(0.3)
        assert skills.ctx.find_blocks("minecraft:furnace")[0] == furnace
        server.give_item("Bolt", "potato", 2)
        await body.sleep(0.2)
        none = await skills.run("cook", input="potato", count=2)
        assert none.status == "failure" and none.reason == FailureReason.MISSING_ITEMS, none
        assert server_counts(server, "Bolt").get("minecraft:potato") == 2  # nothing left in the furnace
        server.give_item("Bolt", "oak_planks", 5)
        await body.sleep(0.2)
        report = await skills.run("cook", input="potato", count=2)
        assert report.status == "success", report
        assert [(s.item, s.count) for s in report.produced] == [("minecraft:baked_potato", 2)]
        assert "with 2 carried minecraft:oak_planks" in report.message, report.message
        counts = server_counts(server, "Bolt")
        assert counts.get("minecraft:baked_potato") == 2 and counts.get("minecraft:oak_planks") == 3
        assert _fuel(server, furnace) is None
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_cook_burns_the_furnaces_own_coal_when_none_is_carried(server) -> None:
    # the original's smeltItem adds fuel only when the furnace holds none of it: the arena's furnaces hold coal
    furnace = (2, -59, 0)
    body, skills = await _player(server, "Byte", (0.5, -60.0, 0.9))
    try:
        server.give_item("Byte", "potato", 1)
        await body.sleep(0.2)
        before = server.game.furnaces.device_at(furnace).slots[1]
        report = await skills.run("cook", input="potato", count=1)
        assert report.status == "success", report
        assert [(s.item, s.count) for s in report.produced] == [("minecraft:baked_potato", 1)]
        counts = server_counts(server, "Byte")
        assert counts.get("minecraft:baked_potato") == 1 and "minecraft:coal" not in counts
        after = server.game.furnaces.device_at(furnace).slots[1]  # its coal stays in it, one burnt
        assert before is not None and after is not None and after.count == before.count - 1
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_the_dash_and_dine_foods_crafted_as_the_opponents_lay_them_out(server) -> None:
    # the grids of cake_beetroot, melon_pumpkin and potato_cookie (the recipes are the server's datapack's)
    body, skills = await _player(server, "Raze", (-9.5, -60.0, 0.5))
    try:
        m = "minecraft:"
        for item, n in (("beetroot", 6), ("bowl", 1), ("pumpkin", 1), ("sugar_cane", 1), ("egg", 1),
                        ("wheat", 2), ("cocoa_beans", 1)):  # fmt: skip
            server.give_item("Raze", item, n)
        await body.sleep(0.2)
        b = m + "beetroot"
        grids = [
            ("crafting_table", [[b, b, b], [b, b, b], [m + "bowl", None, None]], "beetroot_soup", 1),
            ("inventory", [[m + "sugar_cane", None], [None, None]], "sugar", 1),
            ("inventory", [[m + "pumpkin", m + "sugar"], [m + "egg", None]], "pumpkin_pie", 1),
            (
                "crafting_table",
                [[m + "wheat", m + "cocoa_beans", m + "wheat"], [None] * 3, [None] * 3],
                "cookie",
                8,
            ),
        ]
        for station, grid, food, n in grids:
            report = await skills.run("craft_grid", workstation=station, grid=grid, count=1)
            assert report.status == "success" and report.inventory_delta.get(m + food) == n, (food, report)
        counts = server_counts(server, "Raze")
        assert (counts.get(m + "beetroot_soup"), counts.get(m + "pumpkin_pie"), counts.get(m + "cookie")) == (
            1,
            1,
            8,
        )
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_take_from_the_arena_chests(server) -> None:
    buckets, bowls, eggs = (-7, -60, -7), (-3, -59, -1), (-7, -60, 5)
    body, skills = await _player(server, "Blink", (-5.5, -60.0, -6.5))
    try:
        chests = server.game.chests
        start = chests.chest_at(buckets).contents().get("minecraft:bucket", 0)
        report = await skills.run("take", item="bucket", count=5, x=buckets[0], y=buckets[1], z=buckets[2])
        assert report.status == "success" and report.completed == 5, report
        assert report.inventory_delta == {"minecraft:bucket": 5}
        assert server_counts(server, "Blink").get("minecraft:bucket") == 5
        assert (
            chests.chest_at(buckets).contents().get("minecraft:bucket", 0) == start - 5
        )  # the rest put back
        report = await skills.run("take", item="bowl", count=64, x=bowls[0], y=bowls[1], z=bowls[2])
        assert report.status == "success" and report.inventory_delta == {"minecraft:bowl": 64}, report
        assert "minecraft:bowl" not in chests.chest_at(bowls).contents()
        report = await skills.run("take", item="egg", count=16, x=eggs[0], y=eggs[1], z=eggs[2])
        assert report.status == "failure" and report.reason == "not_found", report  # no egg laid yet
        report = await skills.run("take", item="egg", x=-5, y=-61, z=-5)  # the ground is no container
        assert report.status == "failure", report
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_sweet_berries_picked_without_breaking_the_bushes(server) -> None:
    body, skills = await _player(server, "Byte", (-8.5, -60.0, 4.5))
    bushes = [(x, -60, z) for x in (-12, -11, -10) for z in (5, 6, 7)]
    assert _command(server, "gamerule randomTickSpeed 0").success  # no regrowth while we count ages
    try:
        assert all(body.plants.plant_at(*p).age == 3 for p in bushes)  # the arena's ripe bushes
        report = await skills.run("farm", crop="sweet_berry_bush", count=2)
        assert report.status == "success" and report.completed == 2, report
        assert report.blocks_broken == [] and report.inventory_delta.get("minecraft:sweet_berries", 0) >= 4
        ages = sorted(int(facts.state_props(server.game.world.get_block(*p))["age"]) for p in bushes)
        assert ages == [1, 1, 3, 3, 3, 3, 3, 3, 3]  # picked bushes go back to age 1, none is broken
        assert (
            server_counts(server, "Byte")["minecraft:sweet_berries"]
            == report.inventory_delta["minecraft:sweet_berries"]
        )
    finally:
        await body.disconnect()


TEAMS = {  # the arena's team spawns (cell centres; the chicken pens' fences are one cell west)
    "Ryn": (-4.5, -60.0, -9.5),
    "Raze": (-4.5, -60.0, -7.5),
    "Byte": (-4.5, -60.0, 6.5),
    "Blink": (-4.5, -60.0, 8.5),
}


@pytest_twisted.ensureDeferred
async def test_four_players_two_teams_team_chat_sidebar_and_give(server) -> None:
    players = {}
    try:
        for n, pos in TEAMS.items():
            players[n] = await _player(server, n, pos)
        _command(server, "team add red")
        _command(server, "team add blue")
        for n in TEAMS:
            assert _command(server, f"team join {'red' if n in ('Ryn', 'Raze') else 'blue'} {n}").success
        assert _command(server, "scoreboard objectives add points dummy").success
        assert _command(server, "scoreboard objectives setdisplay sidebar points").success
        assert _command(server, "scoreboard players set Ryn points 5").success
        assert _command(server, "scoreboard players set Byte points 3").success
        bodies = {n: b for n, (b, _) in players.items()}
        ryn = bodies["Ryn"]
        await _until(ryn, lambda: all(b.scoreboard.sidebar() is not None and len(b.scoreboard.sidebar()[1]) == 2
                                      for b in bodies.values()), 3.0, "the sidebar")  # fmt: skip
        for b in bodies.values():
            assert b.scoreboard.sidebar() == ("points", [("Ryn", 5), ("Byte", 3)])
            assert b.scoreboard.team_of("Raze").name == "red"
            assert b.scoreboard.team_of("Blink").members == {"Byte", "Blink"}
        report = await players["Ryn"][1].run("chat", text="wheat is ripe", team=True)
        assert report.status == "success", report
        report = await players["Byte"][1].run("chat", text="hello everyone")
        assert report.status == "success", report
        await ryn.sleep(0.3)

        def heard(name: str, text: str) -> list[tuple[str, str | None]]:
            return [(ln.kind, ln.sender) for ln in bodies[name].chat.lines if ln.text == text]

        assert heard("Raze", "wheat is ripe") == [("team", "Ryn")]
        assert heard("Ryn", "wheat is ripe") == [("team_sent", "Ryn")]
        assert heard("Byte", "wheat is ripe") == [] and heard("Blink", "wheat is ripe") == []
        assert all(heard(n, "hello everyone") == [("chat", "Byte")] for n in TEAMS)
        team_line = next(ln for ln in bodies["Raze"].chat.lines if ln.text == "wheat is ripe")
        assert "red" in (team_line.team or "")
        # give: Ryn walks to Raze and tosses two bread; Raze picks them up
        server.give_item("Ryn", "bread", 3)
        await ryn.sleep(0.2)
        report = await players["Ryn"][1].run("give", item="bread", count=2, player="Raze")
        assert report.status == "success" and report.completed == 2, report
        assert "Raze picked up 2" in report.message, report
        assert server_counts(server, "Raze").get("minecraft:bread") == 2
        assert server_counts(server, "Ryn").get("minecraft:bread") == 1
        report = await players["Ryn"][1].run("give", item="bread", count=1, player="Nobody")
        assert report.status == "failure" and report.reason == "not_found"
    finally:
        for b, _ in players.values():
            await b.disconnect()
