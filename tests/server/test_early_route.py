"""The early route by hand with a real Mineflayer 4.25.0 client over 127.0.0.1, on the sandbox world.

Vanilla world: log → planks (2x2 grid) → crafting table → sticks, wooden pickaxe → cobblestone → stone
pickaxe → raw iron → furnace → iron ingots (coal) → iron chestplate; the advancements mine_stone,
upgrade_tools, smelt_iron and obtain_armor arrive in the advancements packet; then an enchantment at a
table and a cow killed. Mirror world (the M02 pack in ``datapacks/``): a log drops four planks, sugar cane
also drops leather, the book recipe yields an enchanting table — the bot sees those outcomes and the
evaluator logs exactly those three rule encounters.

The test hook only sets blocks, gives raw materials and teleports; every craft, smelt, enchant and kill
goes through Mineflayer's public API as a user's bot would (``bot.craft`` with ``bot.recipesFor``,
``bot.openFurnace``, ``bot.openEnchantmentTable``, ``bot.attack``). The Mirror world's recipes are crafted
with raw window clicks: ``bot.craft`` knows only Mineflayer's static vanilla recipes, never a datapack's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest_twisted
from support.refdata import NODE_MODULES, mcdata_path
from twisted.internet import defer, reactor, task

from mirrorcraft.harness.evaluators import EmbeddedEvaluator
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

TICK_RATE = 100.0
BOT = (8.5, 65.0, 8.5)


def _result_count(result: str) -> int:
    """minecraft-data's result count for ``result`` (independent of our engines)."""
    items = json.loads(mcdata_path(NODE_MODULES, "1.19.2", "items").read_text())
    rid = next(i["id"] for i in items if i["name"] == result)
    recipes = json.loads(mcdata_path(NODE_MODULES, "1.19.2", "recipes").read_text())
    return recipes[str(rid)][0]["result"]["count"]


def _start(world: Path) -> EmbeddedServer:
    srv = EmbeddedServer(
        ServerConfig(world=world, port=0, tick_rate=TICK_RATE, view_distance=4, episode_seed=3)
    )
    srv.start()
    srv.test_evaluator = EmbeddedEvaluator.attach(srv.game)  # type: ignore[attr-defined]
    return srv


def _clear(srv: EmbeddedServer, x: int, z: int) -> None:
    srv.set_block(x, 64, z, "grass_block", snowy="false")
    srv.set_block(x, 65, z, "air")
    srv.set_block(x, 66, z, "air")


async def _sleep(s: float) -> None:
    await task.deferLater(reactor, s, lambda: None)


async def _teleport(srv: EmbeddedServer, bot, x: float, y: float, z: float) -> None:
    srv.teleport(bot.name, x, y, z)
    await _sleep(0.5)


async def _dig_and_collect(srv: EmbeddedServer, bot, x: int, z: int) -> None:
    """Dig the block at (x, 65, z) by hand, step onto its drops, and come back."""
    name = srv.block_at(x, 65, z)
    assert (await bot.cmd("dig", x=x, y=65, z=z, name=name))["after"] == "air"
    await _teleport(srv, bot, x + 0.5, 65.0, z + 0.5)
    await _teleport(srv, bot, *BOT)


async def _craft_at_table(bot, table: tuple[int, int, int], grid: list[list], shift: bool = False) -> dict:
    """A datapack's recipe by raw clicks in the table's 3x3 grid (no Mineflayer API knows it)."""
    opened = await bot.cmd("open", x=table[0], y=table[1], z=table[2])
    assert opened["type"] == "minecraft:crafting", opened
    res = await bot.cmd("craft_clicks", grid=grid, shift=shift)
    await bot.cmd("close")
    return res


@pytest_twisted.ensureDeferred
async def test_early_route_vanilla(sandbox_template: Path, tmp_path: Path, spawn_bot2) -> None:
    import shutil

    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    srv = _start(world)
    try:
        await _route(srv, spawn_bot2)
    finally:
        await defer.maybeDeferred(srv.stop)


async def _route(srv: EmbeddedServer, spawn_bot2) -> None:
    for x, z in [(10, 8), (10, 7), (10, 9), (8, 10), (7, 10), (6, 8)]:
        _clear(srv, x, z)
    log: list = []
    srv.subscribe(lambda e, d: log.append((e, d)) if e not in ("click",) else None)
    bot = await spawn_bot2(srv.port, "router")
    await _teleport(srv, bot, *BOT)
    st = await bot.cmd("state")
    assert st["seen"]["tickRate"] == repr(TICK_RATE)
    ev = srv.test_evaluator

    # log → planks in the 2x2 grid (bot.recipesFor finds the recipe, bot.craft clicks it)
    srv.set_block(10, 65, 8, "oak_log", axis="y")
    await _dig_and_collect(srv, bot, 10, 8)
    assert (await bot.cmd("wait_item", name="oak_log", atLeast=1))["got"], log
    srv.give_item("router", "oak_log", 2)
    await bot.cmd("wait_item", name="oak_log", atLeast=3)
    per_log = _result_count("oak_planks")
    res = await bot.cmd("craft", item="oak_planks", times=3)
    assert res["made"] == 3 * per_log, res

    # crafting table (2x2), placed, then sticks and a wooden pickaxe in its 3x3 window
    made = await bot.cmd("craft", item="crafting_table", watch=True)
    assert made["made"] == 1
    # bot.craft takes the result and puts it away in two back-to-back clicks; the server's answer to the
    # first must not undo the client's prediction of the second (vanilla broadcastChanges sends only the
    # mispredicted grid slots; a whole-window resync there made the table vanish for a moment, and a
    # bot.equip right after the craft failed under load)
    first = made["history"].index(1)
    assert made["history"][first:] == [1] * (len(made["history"]) - first), made["history"]
    await bot.cmd("equip", name="crafting_table")
    assert (await bot.cmd("place", against=[8, 64, 10], face=[0, 1, 0]))["placed"] == "crafting_table"
    table = [8, 65, 10]
    assert (await bot.cmd("craft", item="stick", table=table))["made"] == _result_count("stick")
    assert (await bot.cmd("craft", item="wooden_pickaxe", table=table))["made"] == 1

    # cobblestone with the wooden pickaxe, then a stone pickaxe
    await bot.cmd("equip", name="wooden_pickaxe")
    for x, z in [(10, 7), (10, 8), (10, 9)]:
        srv.set_block(x, 65, z, "stone")
        await _sleep(0.1)
        await _dig_and_collect(srv, bot, x, z)
    assert (await bot.cmd("wait_item", name="cobblestone", atLeast=3))["got"]
    srv.give_item("router", "stick", 2)
    await bot.cmd("wait_item", name="stick", atLeast=4)
    assert (await bot.cmd("craft", item="stone_pickaxe", table=table))["made"] == 1

    # raw iron with the stone pickaxe; a furnace; eight ingots with one coal; the chestplate
    await bot.cmd("equip", name="stone_pickaxe")
    srv.set_block(10, 65, 8, "iron_ore")
    await _sleep(0.1)
    await _dig_and_collect(srv, bot, 10, 8)
    assert (await bot.cmd("wait_item", name="raw_iron", atLeast=1))["got"]
    srv.give_item("router", "raw_iron", 7)
    srv.give_item("router", "coal", 1)
    srv.give_item("router", "cobblestone", 8)
    await bot.cmd("wait_item", name="cobblestone", atLeast=8)
    assert (await bot.cmd("craft", item="furnace", table=table))["made"] == 1
    await bot.cmd("equip", name="furnace")
    assert (await bot.cmd("place", against=[7, 64, 10], face=[0, 1, 0]))["placed"] == "furnace"
    done = await bot.cmd(
        "smelt", x=7, y=65, z=10, input="raw_iron", n=8, fuel="coal", take=8, ms=40000, timeout=60
    )
    assert done["type"] == "minecraft:furnace" and done["took"] == ["iron_ingot", 8], done
    assert done["progressed"] and done["totalProgress"] == 200, done  # the properties reached Mineflayer
    assert (await bot.cmd("wait_item", name="iron_ingot", atLeast=8))["got"]
    assert (await bot.cmd("craft", item="iron_chestplate", table=table))["made"] == 1
    await _sleep(0.3)
    seen = (await bot.cmd("state"))["seen"]["advancements"]
    for adv in ("mine_stone", "upgrade_tools", "smelt_iron", "obtain_armor"):
        assert seen.get(f"minecraft:story/{adv}"), (adv, seen)
    milestones = {e.detail["advancement"] for e in ev.events() if e.kind == "milestone"}
    assert {"minecraft:story/mine_stone", "minecraft:story/obtain_armor"} <= milestones

    # enchant the chestplate at a table (levels from the episode controls); two bookshelves make every
    # offer cost at least one level (a 0-cost offer is never resent, and Mineflayer's enchant() waits for
    # all three, against vanilla too)
    srv.set_block(6, 65, 8, "enchanting_table")
    for y in (65, 66):
        srv.set_block(5, y, 8, "air")
        srv.set_block(4, y, 8, "bookshelf")
    srv.give_item("router", "lapis_lazuli", 3)
    await bot.cmd("wait_item", name="lapis_lazuli", atLeast=3)
    before = (await bot.cmd("state"))["xp"]
    ench = await bot.cmd("enchant", x=6, y=65, z=8, item="iron_chestplate", choice=0)
    assert ench["enchants"], ench
    assert ench["lapis"] == 2 and ench["xp"] == before - 1

    # kill a cow
    cow = next(iter(srv.game.mobs.cows.values()))
    await bot.cmd("equip", name="stone_pickaxe")
    hits = []
    for _ in range(12):  # the cow strolls and is knocked back (fast at 100 ticks/s): follow it
        await _teleport(srv, bot, cow.pos[0] + 1.2, cow.pos[1], cow.pos[2])
        hits.append(await bot.cmd("hit", entity=cow.eid))
        if hits[-1]["dead"]:
            break
        # vanilla's hurt invulnerability (10 game ticks): a hit inside it deals only the excess, so the next
        # swing waits for those ticks on the server's clock (not wall time: the server runs at 100 t/s)
        hit_tick = srv.tick_count
        while srv.tick_count - hit_tick <= 10:
            await _sleep(0.02)
    assert hits[-1]["dead"], hits
    # 10 health; a stone pickaxe (3) with the controls' Strength I (+3) deals 6: two blows the server dealt.
    # Counted from the server's own mob_hurt events, not from swings: a swing the cow strolled out of reach of
    # (or that landed inside its invulnerability under load) is no blow, and vanilla deals nothing for it too.
    blows = [d["damage"] for e, d in log if e == "mob_hurt" and d["entity"] == cow.eid]
    assert blows == [6.0, 6.0], (blows, hits)
    await _teleport(srv, bot, cow.pos[0], cow.pos[1], cow.pos[2])
    assert (await bot.cmd("wait_item", name="beef", atLeast=1, ms=5000))["got"]

    kinds = {e.kind for e in ev.events()}
    assert {"dig", "craft", "smelt", "place", "enchant", "kill", "milestone"} <= kinds
    assert all(e.outcome.actual == e.outcome.vanilla for e in ev.events() if e.outcome is not None)
    await bot.cmd("quit")


@pytest_twisted.ensureDeferred
async def test_mirror_pack_outcomes_and_encounters(
    sandbox_template: Path, tmp_path: Path, spawn_bot2
) -> None:
    import shutil

    from mirrorcraft.contracts.rules import load_suite
    from mirrorcraft.datapacks.compiler import compile_suite

    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    compile_suite(load_suite("M02"), world / "datapacks")
    srv = _start(world)
    try:
        for x, z in [(10, 8), (10, 7), (10, 9), (8, 10)]:
            _clear(srv, x, z)
        ev = srv.test_evaluator
        ev.begin_manifest(load_suite("M02"))
        bot = await spawn_bot2(srv.port, "mirror")
        await _teleport(srv, bot, *BOT)

        ev.begin_action(1, ("dig", "oak_log"))
        srv.set_block(10, 65, 8, "oak_log", axis="y")
        await _dig_and_collect(srv, bot, 10, 8)
        got = await bot.cmd("wait_item", name="oak_planks", atLeast=4)
        assert got["count"] == 4 and "oak_log" not in json.dumps(got["slots"])

        ev.begin_action(2, ("dig", "sugar_cane"))
        for x, z in [(10, 7), (10, 8), (10, 9)]:
            srv.set_block(x, 65, z, "sugar_cane")
            await _sleep(0.1)
            await _dig_and_collect(srv, bot, x, z)
        assert (await bot.cmd("wait_item", name="sugar_cane", atLeast=3))["got"]
        assert (await bot.cmd("wait_item", name="leather", atLeast=3))["got"]

        ev.begin_action(3, ("craft", "crafting_table"))
        res = await bot.cmd("craft_clicks", grid=[[k, "oak_planks"] for k in (1, 2, 3, 4)])
        assert res["result"] == ["crafting_table", 1]
        await bot.cmd("equip", name="crafting_table")
        await bot.cmd("place", against=[8, 64, 10], face=[0, 1, 0])
        res = await _craft_at_table(bot, (8, 65, 10), [[k, "sugar_cane"] for k in (1, 2, 3)])
        assert res["result"] == ["paper", _result_count("paper")]

        ev.begin_action(4, ("craft", "book"))
        res = await bot.cmd("craft_clicks", grid=[[1, "paper"], [2, "paper"], [3, "paper"], [4, "leather"]])
        assert res["result"] == ["enchanting_table", 1], res  # vanilla: a book
        await bot.cmd("quit")

        enc = {e.rule_id: e for e in ev.encounter_list()}
        assert set(enc) == {
            "M02.log_drops_four_planks",
            "M02.sugar_cane_adds_leather",
            "M02.book_recipe_yields_enchanting_table",
        }
        assert enc["M02.log_drops_four_planks"].action_index == 1
        assert enc["M02.sugar_cane_adds_leather"].action_index == 2
        book = enc["M02.book_recipe_yields_enchanting_table"]
        assert book.action_index == 4
        assert [s.item for s in book.vanilla_outcome] == ["minecraft:book"]
        assert [s.item for s in book.actual_outcome] == ["minecraft:enchanting_table"]
    finally:
        await defer.maybeDeferred(srv.stop)
