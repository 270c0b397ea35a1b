"""A harness written for vanilla runs unchanged against the embedded server: a Mineflayer bot that is an op
sets up its scene only with op commands typed in chat (``/gamemode``, ``/give``, ``/clear``, ``/fill``,
``/setblock``, ``/tp``, ``/gamerule``, ``/kill``) and a creative inventory slot, then digs, builds, crafts
(``bot.craft`` with ``bot.recipesFor``, the 2x2 grid), smelts (``bot.openFurnace``) and enchants
(``bot.openEnchantmentTable``) as a Mineflayer user's bot does, and dies and respawns with
``keepInventory``. Chest use by the same kind of harness is in ``test_chest_harness.py``.
Every check reads what the *client* received (through Mineflayer's API: ``bot.game.gameMode``, its
chat messages, its windows), plus the server's view where useful.
"""

from __future__ import annotations

import pytest_twisted
from support.control_lang import L, lang

OP = "builder"


def _item(name: str) -> str:
    texts = lang()  # block items are named by their block (vanilla BlockItem.getDescriptionId)
    return "[" + texts.get(f"item.minecraft.{name}", texts.get(f"block.minecraft.{name}", name)) + "]"


@pytest_twisted.ensureDeferred
async def test_vanilla_harness_sets_up_its_scene_with_op_commands(start_server, spawn_control_bot) -> None:
    server = start_server(ops=[OP], rcon_port=None)
    bot = await spawn_control_bot(server, OP)
    sx, sy, sz = server.game.world.level.spawn  # (8, 65, 8) in the sandbox; the surface is y = 64

    async def run(command: str, reply: str) -> None:
        await bot.do("chat", text="/" + command)
        await bot.message(reply)

    # -- creative set-up ---------------------------------------------------------------------------
    await run("gamemode creative", L("commands.gamemode.success.self", lang()["gameMode.creative"]))
    assert (await bot.do("wait_mode", mode="creative"))["reached"]
    assert (await bot.do("state"))["abilities"] == 0x0D  # invulnerable, may fly, instant build
    await bot.do("creative_set", slot=36, name="stone_pickaxe", count=1)
    assert server.inventory(OP)[36] == ("stone_pickaxe", 1)
    for item, n in [("oak_log", 2), ("dirt", 5), ("raw_iron", 1), ("coal", 1), ("lapis_lazuli", 3)]:
        await run(f"give @s {item} {n}", L("commands.give.success.single", n, _item(item), OP))
    await run("give @s iron_pickaxe", L("commands.give.success.single", 1, _item("iron_pickaxe"), OP))
    await run("clear @s dirt 2", L("commands.clear.success.single", 2, OP))
    assert (await bot.do("wait_item", name="dirt", atLeast=3))["count"] == 3
    floor = (sx - 3, sy - 1, sz + 2, sx + 3, sy - 1, sz + 4)
    await run("fill {} {} {} {} {} {} stone".format(*floor), L("commands.fill.success", 21))
    # beside the bot's feet, so the drop lands in pickup range
    await run(f"setblock {sx} {sy} {sz + 1} stone", L("commands.setblock.success", sx, sy, sz + 1))
    furnace, table = (sx + 2, sy, sz + 2), (sx - 2, sy, sz + 2)
    await run("setblock {} {} {} furnace".format(*furnace), L("commands.setblock.success", *furnace))
    await run("setblock {} {} {} enchanting_table".format(*table), L("commands.setblock.success", *table))
    # two bookshelves two blocks west of the table: every offer costs at least one level (with none, an
    # offer may cost 0, which vanilla never resends, and Mineflayer's enchant() waits for all three)
    for dy in (0, 1):
        shelf = (table[0] - 2, table[1] + dy, table[2])
        await run("setblock {} {} {} bookshelf".format(*shelf), L("commands.setblock.success", *shelf))
    for (x, y, z), name in [
        (furnace, "furnace"),
        (table, "enchanting_table"),
        ((sx, sy - 1, sz + 3), "stone"),
    ]:
        assert (await bot.do("wait_block", x=x, y=y, z=z, name=name))["reached"]
    # creative digging: instant, no drops
    items_before = len(server.game.kernel.items)
    assert (await bot.do("dig", x=sx + 3, y=sy - 1, z=sz + 4, name="stone"))["after"] == "air"
    assert (await bot.do("wait_block", x=sx + 3, y=sy - 1, z=sz + 4, name="air"))["reached"]
    assert server.block_at(sx + 3, sy - 1, sz + 4) == "air" and len(server.game.kernel.items) == items_before
    await run(f"tp @s {sx + 0.5} {sy} {sz + 0.5}", "Teleported " + OP)
    await run("gamemode survival", L("commands.gamemode.success.self", lang()["gameMode.survival"]))
    assert (await bot.do("wait_mode", mode="survival"))["reached"]

    # -- survival play -----------------------------------------------------------------------------
    await bot.do("equip", name="stone_pickaxe")
    assert (await bot.do("dig", x=sx, y=sy, z=sz + 1, name="stone"))["after"] == "air"
    assert (await bot.do("wait_item", name="cobblestone", atLeast=1))["got"]
    await bot.do("equip", name="dirt")
    placed = await bot.do("place", against=[sx + 1, sy - 1, sz + 3], face=[0, 1, 0])
    assert placed["placed"] == "dirt" and server.block_at(sx + 1, sy, sz + 3) == "dirt"
    crafted = await bot.do("craft", item="oak_planks")
    assert crafted["made"] == 4
    assert (await bot.do("wait_item", name="oak_planks", atLeast=4))["got"]
    smelted = await bot.do(
        "smelt", x=furnace[0], y=furnace[1], z=furnace[2], input="raw_iron", n=1, fuel="coal", ms=20000
    )
    assert smelted["type"] == "minecraft:furnace" and smelted["took"] == ["iron_ingot", 1], smelted
    assert (await bot.do("wait_item", name="iron_ingot", atLeast=1))["got"]
    level = (await bot.do("state"))["level"]
    ench = await bot.do(
        "enchant", x=table[0], y=table[1], z=table[2], item="iron_pickaxe", choice=0, takeBack=True
    )
    assert ench["item"] == "iron_pickaxe" and ench["enchants"], ench
    assert ench["xp"] == level - 1

    # -- death and respawn with keepInventory --------------------------------------------------------
    await run("gamerule keepInventory true", L("commands.gamerule.set", "keepInventory", "true"))
    await run(f"tp @s {sx + 0.5} {sy + 3} {sz - 2.5}", "Teleported " + OP)
    await bot.do("chat", text="/kill @s")
    await bot.event("death")
    await bot.event("respawn")

    async def respawned():  # noqa: ANN202
        s = await bot.do("state")
        return s if s["health"] == 20 and abs(s["pos"]["z"] - (sz + 0.5)) < 0.01 else None

    assert await bot.until(respawned), await bot.do("state")
    assert (await bot.do("wait_item", name="iron_ingot", atLeast=1))["got"]  # kept
    await bot.do("quit")
