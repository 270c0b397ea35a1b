"""A Mineflayer user's bot against the embedded server, through Mineflayer 4.25.0's own high-level API only.

Each test is one client flow of issue 20 (docs/fidelity.md, "Client flows"), set up the way Mineflayer's
own test helpers set scenes: operator commands typed in chat, and RCON. What is checked is what the bot's
API reports — ``bot.game.gameMode``, its ``message`` events (the component's ``json``), ``bot.players``,
``bot.addChatPattern`` / ``bot.awaitMessage``, ``bot.tabComplete``, ``bot.openFurnace``,
``bot.openContainer``, ``bot.consume``, ``bot.experience``, ``bot.time`` — plus the server's view where it
is the ground truth. One module-scoped server and one op bot (``op``) serve every test; a second bot and
short-lived logins (the driver's ``login``) join where a flow needs another client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.control_lang import L
from support.nodebot import BotSpawner, NodeBotProcess
from support.shared import fresh_world
from twisted.internet import defer, reactor

from mirrorcraft.harness.rcon import connect_rcon
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

pytestmark = pytest.mark.npm

OP = "op"
TICK_RATE = (
    50  # a furnace's 200 ticks in 4 s; Mineflayer times digs itself and the server accepts late finishes
)


class Session:
    """The module's server, RCON client and bots (spawned on first use, killed at teardown)."""

    def __init__(self, server: EmbeddedServer) -> None:
        self.server = server
        self.spawner = BotSpawner(timeout=30.0, require_ok=True, view="normal")
        self.bots: dict[str, NodeBotProcess] = {}
        self.rcon: Any = None

    async def bot(self, name: str = OP) -> NodeBotProcess:
        if name not in self.bots:
            self.bots[name] = await self.spawner(name, self.server.port, ready_timeout=40)
        return self.bots[name]

    async def command(self, text: str) -> str:
        if self.rcon is None:
            s = self.server
            self.rcon = await connect_rcon(reactor, "127.0.0.1", s.rcon_port, s.rcon_password)
        return await self.rcon.command(text)


@pytest.fixture(scope="module")
def session(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory, node_modules: Path):
    world = fresh_world(sandbox_template, tmp_path_factory.mktemp("mineflayer-api"))
    cfg = ServerConfig(world=world, port=0, tick_rate=TICK_RATE, view_distance=4, ops=[OP], rcon_port=0)
    srv = EmbeddedServer(cfg)
    srv.start()
    s = Session(srv)
    yield s
    if s.rcon is not None:
        s.rcon.close()
    s.spawner.kill_all()
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


async def armed(bot: NodeBotProcess, regex: str, ms: int = 8000) -> defer.Deferred:
    """Start ``bot.awaitMessage(regex)`` and give the bot a moment to register it before the message is
    triggered; await the returned Deferred for ``{"text": ...}``."""
    waiting = defer.ensureDeferred(bot.cmd("await_message", regex=regex, ms=ms, timeout=ms / 1000 + 5))
    await bot.sleep(0.3)
    return waiting


def messages(bot: NodeBotProcess) -> list[dict]:
    return [e for e in bot.events if e["event"] == "message"]


async def chat_reply(bot: NodeBotProcess, command: str, key: str, timeout: float = 10.0) -> dict:
    """Type ``command`` and return the first new ``message`` event whose component translates ``key``
    (a failure's key sits in the red wrapper's ``extra``)."""
    seen = len(messages(bot))
    await bot.do("chat", text=command)
    for _ in range(int(timeout / 0.05)):
        for e in messages(bot)[seen:]:
            j = e.get("json") or {}
            inner = j.get("extra", [{}])[0] if "translate" not in j else j
            if inner.get("translate") == key:
                return e
        await bot.sleep(0.05)
    raise AssertionError(f"no reply {key} to {command}: {[m['json'] for m in messages(bot)[seen:]]}")


# ---- 1. components end to end ------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_command_feedback_is_vanilla_components(session: Session) -> None:
    bot = await session.bot()
    e = await chat_reply(bot, "/gamemode creative", "commands.gamemode.success.self")
    assert e["json"] == {
        "translate": "commands.gamemode.success.self",
        "with": [{"translate": "gameMode.creative"}],
    }
    assert e["text"] == "Set own game mode to Creative Mode"
    assert (await bot.do("wait_mode", mode="creative"))["reached"]  # bot.game.gameMode follows
    await chat_reply(bot, "/gamemode survival", "commands.gamemode.success.self")
    assert (await bot.do("wait_mode", mode="survival"))["reached"]
    e = await chat_reply(bot, "/give @s diamond 2", "commands.give.success.single")
    item, who = e["json"]["with"][1], e["json"]["with"][2]
    assert e["json"]["with"][0] == "2" and item["translate"] == "chat.square_brackets"
    assert item["hoverEvent"] == {"action": "show_item", "contents": {"id": "minecraft:diamond"}}
    assert who["insertion"] == OP and who["hoverEvent"]["contents"]["type"] == "minecraft:player"
    assert (await bot.do("wait_item", name="diamond", atLeast=2))["got"]
    e = await chat_reply(bot, "/clear @s diamond", "commands.clear.success.single")
    assert e["text"] == L("commands.clear.success.single", 2, OP)
    e = await chat_reply(bot, "/gamemode sideways", "command.unknown.argument")
    assert e["json"]["color"] == "red"
    # RCON gets vanilla's rendered English
    assert await session.command(f"xp set {OP} 3 levels") == L(
        "commands.experience.set.levels.success.single", 3, OP
    )
    # the death message and an advancement announcement are components with the player's display name
    await session.command("gamerule keepInventory true")
    e = await chat_reply(bot, "/kill @s", "death.attack.outOfWorld")
    assert e["json"]["with"][0]["insertion"] == OP and e["text"] == f"{OP} fell out of the world"
    await bot.event("death")
    waiting = await armed(bot, r"has made the advancement \[Stone Age\]$")
    await session.command(f"advancement grant {OP} only minecraft:story/mine_stone")
    text = (await waiting)["text"]
    assert text == f"{OP} has made the advancement [Stone Age]"


# ---- 2. execute ----------------------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_execute_in_positioned_if_store(session: Session) -> None:
    bot = await session.bot()
    x, y, z = session.server.game.world.level.spawn
    target = (x + 3, y, z - 3)
    e = await chat_reply(
        bot,
        "/execute in minecraft:overworld run setblock {} {} {} stone".format(*target),
        "commands.setblock.success",
    )
    assert e["text"] == L("commands.setblock.success", *target)
    assert (await bot.do("wait_block", x=target[0], y=target[1], z=target[2], name="stone"))["reached"]
    e = await chat_reply(bot, "/execute in minecraft:the_nether run say x", "argument.dimension.invalid")
    assert e["text"] == L("argument.dimension.invalid", "minecraft:the_nether")
    over = (target[0], target[1] + 1, target[2])
    cmd = "/execute positioned {} {} {} if block ~ ~-1 ~ stone run setblock ~ ~ ~ oak_planks".format(*over)
    await chat_reply(bot, cmd, "commands.setblock.success")
    assert (await bot.do("wait_block", x=over[0], y=over[1], z=over[2], name="oak_planks"))["reached"]
    await session.command("scoreboard objectives add t dummy")
    await session.command("time set 1234")
    await bot.do("chat", text="/execute as @a store result score @s t run time query daytime")
    await bot.sleep(0.3)
    e = await chat_reply(bot, f"/execute if score {OP} t matches 1234", "commands.execute.conditional.pass")
    assert e["text"] == L("commands.execute.conditional.pass")


# ---- 3. tellraw, title, msg, me, op/deop, defaultgamemode, spawnRadius -------------------------------------


@pytest_twisted.ensureDeferred
async def test_tellraw_patterns_title_msg_me_and_operators(session: Session) -> None:
    bot = await session.bot()
    await bot.do("pattern", name="score", regex=r"^Score: (\d+) of (\d+)$")
    assert await session.command(f'tellraw {OP} {{"text":"Score: 42 of 100","color":"gold"}}') == ""
    pattern = await bot.event("pattern")
    assert pattern["name"] == "score" and pattern["matches"] == [["42", "100"]]
    waiting = await armed(bot, r"^Round \d over$")
    await session.command('tellraw @a ["Round ", {"text":"3","bold":true}, " over"]')
    assert (await waiting)["text"] == "Round 3 over"
    assert await session.command(f'title {OP} title {{"text":"Go!"}}') == L(
        "commands.title.show.title.single", OP
    )
    title = await bot.event("title")
    assert json.loads(title["text"]) == {"text": "Go!"} and title["type"] == "title"
    second = await session.bot("second")
    waiting = await armed(second, f"^{OP} whispers to you: meet at spawn$")
    e = await chat_reply(bot, "/msg second meet at spawn", "commands.message.display.outgoing")
    assert e["text"] == L("commands.message.display.outgoing", "second", "meet at spawn")
    assert (await waiting)["text"] == f"{OP} whispers to you: meet at spawn"
    waiting = await armed(second, rf"^\* {OP} waves$")
    await bot.do("chat", text="/me waves")
    assert (await waiting)["text"] == f"* {OP} waves"
    # op / deop with ops semantics: the second bot may use op commands only while it is an op
    e = await chat_reply(second, "/time set day", "command.unknown.command")
    assert await session.command("op second") == L("commands.op.success", "second")
    await chat_reply(second, "/time set day", "commands.time.set")
    assert await session.command("deop second") == L("commands.deop.success", "second")
    await chat_reply(second, "/time set day", "command.unknown.command")
    # the default game mode and spawnRadius apply to the next player joining
    assert await session.command("defaultgamemode creative") == L(
        "commands.defaultgamemode.success", "Creative Mode"
    )
    assert await session.command("gamerule spawnRadius 5") == L("commands.gamerule.set", "spawnRadius", "5")
    joined = await bot.do("login", name="newcomer", version="1.19.2", timeout=30)
    await session.command("gamerule spawnRadius 0")
    await session.command("defaultgamemode survival")
    assert joined["outcome"] == "spawn" and joined["gameMode"] == "creative", joined
    sx, sy, sz = session.server.game.world.level.spawn
    pos = joined["pos"]
    assert abs(pos["x"] - (sx + 0.5)) <= 5 and abs(pos["z"] - (sz + 0.5)) <= 5
    assert (pos["x"], pos["z"]) != (sx + 0.5, sz + 0.5)  # spread off the spawn point (seeded)


# ---- 4. status and versions ------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_status_ping_of_any_protocol_and_version_discovery(session: Session) -> None:
    bot = await session.bot()
    status = (await bot.do("ping"))["status"]  # minecraft-protocol's newest: 1.21.1, protocol 767
    assert status["version"] == {"name": "1.19.2", "protocol": 760}, status
    assert status["players"]["online"] >= 1 and {"name": OP}.items() <= status["players"]["sample"][0].items()
    found = await bot.do("login", name="autover", version=False, timeout=30)  # createBot without a version
    assert found["outcome"] == "spawn" and found["version"] == "1.19.2" and found["protocol"] == 760, found
    # a 1.20.4 login gets vanilla's disconnect component, from which minecraft-protocol reads the version
    refused = await bot.do("login", name="newer", version="1.20.4", timeout=30)
    assert refused["outcome"] == "error", refused
    assert refused["error"].startswith("Error: This server is version 1.19.2, you are using version 1.20.4")


# ---- 5. join and leave lines; the pin trap: bot.players ------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_join_leave_lines_and_bot_players(session: Session) -> None:
    bot = await session.bot()
    waiting = await armed(bot, r"^third joined the game$", ms=40000)
    third = await session.bot("third")
    assert (await waiting)["text"] == "third joined the game"
    line = [e for e in messages(bot) if e["text"] == "third joined the game"][-1]
    assert line["json"]["color"] == "yellow" and line["json"]["translate"] == "multiplayer.player.joined"

    async def sees(a: NodeBotProcess, name: str) -> bool:
        p = (await a.do("players"))["players"].get(name)
        return bool(p and p["entity"])

    assert await bot.until(lambda: sees(bot, "third"))  # Mineflayer's own player list and entity
    assert await third.until(lambda: sees(third, OP))
    listed = (await third.do("players"))["players"][OP]
    assert listed["uuid"] == str(session.server.player(OP).uuid)
    waiting = await armed(bot, r"^third left the game$")
    await third.do("quit")
    assert (await waiting)["text"] == "third left the game"
    session.bots.pop("third")

    async def gone() -> bool:
        return "third" not in (await bot.do("players"))["players"]

    assert await bot.until(gone)


# ---- 6. tab completion -------------------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_tab_complete_from_the_command_tree(session: Session) -> None:
    bot = await session.bot()
    matches = (await bot.do("tab_complete", text="/weather "))["matches"]
    assert [m["match"] for m in matches] == ["clear", "rain", "thunder"]
    matches = (await bot.do("tab_complete", text="/gamerule keepInv"))["matches"]
    assert [m["match"] for m in matches] == ["keepInventory"]
    names = [m["match"] for m in (await bot.do("tab_complete", text="/give "))["matches"]]
    assert "@a" in names and OP in names


# ---- 7. furnaces -----------------------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_open_furnace_put_fuel_input_take_output(session: Session) -> None:
    bot = await session.bot()
    sx, sy, sz = session.server.game.world.level.spawn
    furnace = (sx - 2, sy, sz - 2)
    await session.command("setblock {} {} {} furnace".format(*furnace))
    await session.command(f"give {OP} raw_iron 2")
    await session.command(f"give {OP} coal 1")
    assert (await bot.do("wait_item", name="raw_iron", atLeast=2))["got"]
    await bot.do("wait_block", x=furnace[0], y=furnace[1], z=furnace[2], name="furnace")
    done = await bot.do(
        "smelt",
        x=furnace[0],
        y=furnace[1],
        z=furnace[2],
        input="raw_iron",
        n=2,
        fuel="coal",
        take=1,
        ms=15000,
    )
    assert done["totalProgress"] == 200 and done["progressed"], done  # furnace.progress moved
    assert done["took"] == ["iron_ingot", 1], done
    assert (await bot.do("wait_item", name="iron_ingot", atLeast=1))["got"]


# ---- 8. double chests ------------------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_double_chest_one_window_lids_and_split(session: Session) -> None:
    bot = await session.bot()
    srv = session.server
    sx, sy, sz = srv.game.world.level.spawn
    await session.command(f"tp {OP} {sx} {sy} {sz}")
    await bot.do("wait_position", x=sx + 0.5, y=sy, z=sz + 0.5, within=0.01)
    a, b = (sx, sy, sz + 3), (sx + 1, sy, sz + 3)  # south of the bot: both face north
    for pos in (a, b):
        await session.command("setblock {} {} {} air".format(*pos))
    await session.command(f"give {OP} chest 2")
    await session.command(f"give {OP} oak_log 20")
    assert (await bot.do("wait_item", name="oak_log", atLeast=20))["got"]
    await bot.do("equip", name="chest")
    for pos in (a, b):
        placed = await bot.do("place", against=[pos[0], pos[1] - 1, pos[2]], face=[0, 1, 0])
        assert placed["placed"] == "chest"
    for pos, kind in ((a, "left"), (b, "right")):
        seen = await bot.do("block", x=pos[0], y=pos[1], z=pos[2])
        assert seen["props"]["type"] == kind and seen["props"]["facing"] == "north", (pos, seen)
    done = await bot.do("chest", x=a[0], y=a[1], z=a[2], deposit=[["oak_log", 20]], withdraw=[["oak_log", 4]])
    assert done["opened"]["type"] == "minecraft:generic_9x6" and done["opened"]["slots"] == 54 + 36
    assert done["afterDeposit"] == [[0, "oak_log", 20]] and done["afterWithdraw"] == [[0, "oak_log", 16]]
    # slot 0 is the right half's (b) first slot
    assert [(s.item, s.count) for s in srv.game.chests.chest_at(b).slots if s] == [("minecraft:oak_log", 16)]
    # the lid: Mineflayer reports one half's action with its partner found from the block states (and skips
    # the other half's, which the server sends too: test_vanilla_flows.py checks both on the wire)
    assert [list(a), list(b)] in done["partners"], done["partners"]
    assert [list(a) + [1], list(a) + [0]] == [x for x in done["lids"] if x[:3] == list(a)][-2:]
    # breaking the right half leaves a single chest and drops its logs
    await bot.do("dig", x=b[0], y=b[1], z=b[2])
    assert (await bot.do("wait_block", x=b[0], y=b[1], z=b[2], name="air"))["reached"]

    async def single() -> bool:
        return (await bot.do("block", x=a[0], y=a[1], z=a[2]))["props"]["type"] == "single"

    assert await bot.until(single)
    await session.command("tp {} {} {} {}".format(OP, *b))  # onto the dropped logs
    assert (await bot.do("wait_item", name="oak_log", atLeast=20, ms=8000))["got"]


# ---- the rest of a Mineflayer user's ordinary flows --------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_consume_hotbar_experience_time_and_no_recipes(session: Session) -> None:
    bot = await session.bot()
    await session.command(f"give {OP} golden_apple 1")
    assert (await bot.do("wait_item", name="golden_apple", atLeast=1))["got"]
    ate = await bot.do("consume", name="golden_apple")
    assert ate["count"] == 0 and {10, 22} <= {eid for eid, _ in ate["effects"]}, (
        ate
    )  # regeneration, absorption
    held = await bot.do("hotbar", slot=4)
    assert held["held"] == 4 and session.server.player(OP).inventory.held == 4
    await session.command(f"xp set {OP} 7 levels")
    await session.command("time set 1000")

    async def caught_up() -> dict | None:
        s = await bot.do("state")
        return s if s["level"] == 7 and s["time"]["timeOfDay"] == 1000 else None

    state = await bot.until(caught_up)
    assert state, await bot.do("state")
    # nothing that would reveal a world's rules ever reaches a client
    assert not {"declare_recipes", "unlock_recipes", "tags"} & set(state["packets"]), state["packets"]
