"""A vanilla-style harness uses a chest on the embedded server: an op Mineflayer bot builds the scene with
commands typed in chat (``/setblock ... chest``, ``/give``) and deposits and withdraws items through
``bot.openContainer`` (``deposit`` / ``withdraw``), as it would on a vanilla server.

Every step is checked on both sides: what the client received (chat replies in vanilla's text, the
``generic_9x3`` window's slots, the player's inventory) and the server's chest block entity
(``server.game.chests``). Re-opening the chest after closing it shows the storage
outlived the window (vanilla ``ChestBlockEntity``).
"""

from __future__ import annotations

import pytest_twisted
from support.control_lang import L, lang

OP = "chestop"


def _item(name: str) -> str:
    texts = lang()  # block items are named by their block (vanilla BlockItem.getDescriptionId)
    return "[" + texts.get(f"item.minecraft.{name}", texts.get(f"block.minecraft.{name}", name)) + "]"


def _chest_view(server, pos) -> dict[int, tuple[str, int]]:  # noqa: ANN001
    chest = server.game.chests.chest_at(pos)
    assert chest is not None, f"no chest block entity at {pos}"
    return {i: (s.item.removeprefix("minecraft:"), s.count) for i, s in enumerate(chest.slots) if s}


@pytest_twisted.ensureDeferred
async def test_vanilla_harness_deposits_and_withdraws_through_a_chest(
    start_server, spawn_control_bot
) -> None:
    server = start_server(ops=[OP], rcon_port=None)
    bot = await spawn_control_bot(server, OP)
    sx, sy, sz = server.game.world.level.spawn  # the sandbox's surface is y = sy - 1
    pos = (sx + 2, sy, sz + 1)

    async def run(command: str, reply: str) -> None:
        await bot.do("chat", text="/" + command)
        await bot.message(reply)

    # -- the scene, by op commands only ------------------------------------------------------------
    await run("setblock {} {} {} chest".format(*pos), L("commands.setblock.success", *pos))
    assert (await bot.do("wait_block", x=pos[0], y=pos[1], z=pos[2], name="chest"))["reached"]
    assert server.block_at(*pos) == "chest"
    for item, n in [("oak_log", 16), ("cobblestone", 10)]:
        await run(f"give @s {item} {n}", L("commands.give.success.single", n, _item(item), OP))
    assert (await bot.do("wait_item", name="oak_log", atLeast=16))["got"]
    assert (await bot.do("wait_item", name="cobblestone", atLeast=10))["got"]

    # -- deposit 5 logs and all the cobblestone -----------------------------------------------------
    done = await bot.do(
        "chest", x=pos[0], y=pos[1], z=pos[2], deposit=[["oak_log", 5], ["cobblestone", 10]], withdraw=[]
    )
    assert done["opened"]["type"] == "minecraft:generic_9x3" and done["opened"]["items"] == []  # empty
    assert sorted(done["afterDeposit"]) == [[0, "oak_log", 5], [1, "cobblestone", 10]]
    assert _chest_view(server, pos) == {0: ("oak_log", 5), 1: ("cobblestone", 10)}
    held = {}
    for name, n in (await bot.do("inventory"))["items"]:
        held[name] = held.get(name, 0) + n
    assert held == {"oak_log": 11}, held
    assert server.inventory(OP) and sorted(server.inventory(OP).values()) == [("oak_log", 11)]

    # -- the storage outlives the window; withdraw the logs -----------------------------------------
    done = await bot.do("chest", x=pos[0], y=pos[1], z=pos[2], withdraw=[["oak_log", 5]])
    assert sorted(done["opened"]["items"]) == [[0, "oak_log", 5], [1, "cobblestone", 10]]
    assert done["afterWithdraw"] == [[1, "cobblestone", 10]]
    assert (await bot.do("wait_item", name="oak_log", atLeast=16))["got"]
    assert _chest_view(server, pos) == {1: ("cobblestone", 10)}
    logs = sum(n for name, n in server.inventory(OP).values() if name == "oak_log")
    assert logs == 16
