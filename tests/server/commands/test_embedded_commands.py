"""RCON end to end against the embedded server with a Mineflayer client: commands sent over a real RCON
socket run through the executor and the game's command host (:class:`~mirrorcraft.server.features.commands.
KernelCommandHost`), and the client sees the result
(inventory, position, blocks, player list).

Controls over RCON (effects, XP, time, difficulty, game rules) and the advancement query against the
embedded server are tested in ``tests/server/commands/`` and ``tests/harness/test_rcon_control_embedded.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted
from support.control_lang import L, lang
from support.nodebot import BotSpawner
from support.shared import fresh_world
from twisted.internet import defer, reactor

from mirrorcraft.harness.rcon import connect_rcon
from mirrorcraft.server.commands import CommandExecutor, OpsList
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.server.rcon import RconServerFactory


@pytest.fixture(scope="module")
def embedded(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory, node_modules: Path):
    world = fresh_world(sandbox_template, tmp_path_factory.mktemp("rcon-embedded"))
    srv = EmbeddedServer(ServerConfig(world=world, port=0, view_distance=3))
    srv.start()
    yield srv
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


@pytest_twisted.ensureDeferred
async def test_rcon_commands_reach_a_mineflayer_client(embedded) -> None:
    executor = CommandExecutor(embedded.game.commands.host, OpsList(never_ops={"agent"}))
    factory = RconServerFactory(executor.rcon_handler())
    listening = factory.listen(reactor)
    bot = BotSpawner().start("agent", embedded.port)
    rcon = None
    try:
        await bot.event("ready")
        rcon = await connect_rcon(reactor, "127.0.0.1", listening.getHost().port, factory.password)
        assert await rcon.command("list") == L("commands.list.players", 1, 20, "agent")
        reply = await rcon.command("give @p minecraft:diamond 3")
        assert reply == L(
            "commands.give.success.single", 3, "[" + lang()["item.minecraft.diamond"] + "]", "agent"
        )
        for _ in range(40):
            inv = await bot.cmd("inventory")
            if ["diamond", 3] in inv["items"]:
                break
            await _sleep(0.05)
        assert ["diamond", 3] in inv["items"]
        sx, sy, sz = embedded.game.world.level.spawn
        x, y, z = sx + 2, sy + 5, sz + 2
        assert await rcon.command(f"setblock {x} {y} {z} gold_block") == L(
            "commands.setblock.success", x, y, z
        )
        assert embedded.block_at(x, y, z) == "gold_block"
        for _ in range(40):
            seen = await bot.cmd("block", x=x, y=y, z=z)
            if seen["name"] == "gold_block":
                break
            await _sleep(0.05)
        assert seen["name"] == "gold_block"
        reply = await rcon.command(f"tp agent {sx} {sy + 10} {sz}")
        assert reply == L(
            "commands.teleport.success.location.single",
            "agent",
            f"{sx + 0.5:f}",
            f"{sy + 10:f}",
            f"{sz + 0.5:f}",
        )
        for _ in range(40):
            state = await bot.cmd("state")
            if abs(state["pos"]["y"] - (sy + 10)) < 0.01:
                break
            await _sleep(0.05)
        assert (state["pos"]["x"], state["pos"]["z"]) == (sx + 0.5, sz + 0.5)
        # the agent is never an op: typing a command in chat-command form is refused by the parser
        agent = executor.host.players()[0]
        refused = executor.run(executor.player_source(agent), "give @s diamond")
        assert refused.messages[0] == L("command.unknown.command")
    finally:
        if rcon is not None:
            rcon.close()
        await bot.cmd("quit")
        await bot.ended
        await listening.stopListening()


def _sleep(seconds: float) -> defer.Deferred:
    d: defer.Deferred = defer.Deferred()
    reactor.callLater(seconds, d.callback, None)
    return d
