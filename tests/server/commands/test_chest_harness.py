"""A vanilla-style harness uses a chest on the embedded server: an op Mineflayer bot builds the scene with
commands typed in chat (``/setblock ... chest``, ``/give``) and deposits and withdraws items through the
chest window with Mineflayer's own click code, as it would on a vanilla server.

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

    # -- deposit: right-click 5 logs one by one into chest slot 0, shift-click all cobblestone in ---
    opened = await bot.do("open", x=pos[0], y=pos[1], z=pos[2])
    assert opened["type"] == "minecraft:generic_9x3" and opened["slots"] != {}
    assert all(int(i) >= 27 for i in opened["slots"])  # an empty chest: only the player's slots
    await bot.do("put", slot=0, name="oak_log", n=5)
    window = (await bot.do("wait_slot", slot=0, name="oak_log", atLeast=5))["slots"]
    assert window["0"] == ["oak_log", 5]
    cobble_slot = next(int(i) for i, (name, _n) in window.items() if name == "cobblestone" and int(i) >= 27)
    after = (await bot.do("shift", slot=cobble_slot))["slots"]
    assert after["1"] == ["cobblestone", 10] and str(cobble_slot) not in after
    assert _chest_view(server, pos) == {0: ("oak_log", 5), 1: ("cobblestone", 10)}
    inv = await bot.do("close")
    held = {}
    for name, n in (await bot.do("inventory"))["items"]:
        held[name] = held.get(name, 0) + n
    assert held == {"oak_log": 11}, (held, inv)
    assert server.inventory(OP) and sorted(server.inventory(OP).values()) == [("oak_log", 11)]

    # -- the storage outlives the window; withdraw the logs by shift-click ---------------------------
    reopened = await bot.do("open", x=pos[0], y=pos[1], z=pos[2])
    assert reopened["slots"]["0"] == ["oak_log", 5] and reopened["slots"]["1"] == ["cobblestone", 10]
    after = (await bot.do("shift", slot=0))["slots"]
    assert "0" not in after and after["1"] == ["cobblestone", 10]
    await bot.do("close")
    assert (await bot.do("wait_item", name="oak_log", atLeast=16))["got"]
    assert _chest_view(server, pos) == {1: ("cobblestone", 10)}
    logs = sum(n for name, n in server.inventory(OP).values() if name == "oak_log")
    assert logs == 16
