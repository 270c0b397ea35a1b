"""RCON end to end against the embedded server (real sockets on 127.0.0.1) with Mineflayer clients.

* The benchmark controls applied through :class:`RconServerControl` reach the client as vanilla packets
  (effects, experience level 100, frozen noon, difficulty, weather) and change the server's mechanics
  (Haste feeds the dig time).
* Applying ``Controls()`` over RCON to a server started with neutral controls yields the same player state
  as a server whose built-in join defaults are ``Controls()`` (server side and as the client sees it).
* The milestone query answers false, then true once the bot really mined stone (the advancements
  feature's ``inventory_changed`` trigger on the picked-up cobblestone, not ``advancement grant``).
* A non-op player typing a command gets vanilla's refusal; an op's chat command runs.
"""

from __future__ import annotations

import pytest_twisted
from support import embedded_servers
from support.control_lang import L, here, lang
from twisted.internet import reactor

from mirrorcraft.contracts.episodes import Controls
from mirrorcraft.harness.control import EFFECT_SECONDS, RconServerControl
from mirrorcraft.harness.rcon import connect_rcon

# the fixtures of tests/server/embedded_servers.py (servers on fresh sandbox copies, control-plane bots)
start_server = embedded_servers.start_server
spawn_control_bot = embedded_servers.spawn_control_bot

# a world that differs from the benchmark controls in every field they set
# The saves' level.dat stops the daylight cycle (worlds/anvil/level.py BENCHMARK_GAME_RULES; read by the server as
# vanilla reads it): a neutral start turns it back on, so the benchmark controls are seen to stop it.
NEUTRAL = Controls(
    difficulty="easy", time_of_day=1000, weather="rain", effects=(), xp_level=0,
    game_rules={"doDaylightCycle": True},
)  # fmt: skip
# entity_effect ids of the default effects (minecraft-data 1.19.2 effects.json)
EFFECT_IDS = {"minecraft:haste": 3, "minecraft:speed": 1, "minecraft:resistance": 11, "minecraft:strength": 5}


def _control(server, player: str = "agent") -> RconServerControl:
    return RconServerControl(
        lambda: connect_rcon(reactor, "127.0.0.1", server.rcon_port, server.rcon_password),
        player=player,
        deterministic_server=True,
    )


def _player_state(server, name: str) -> dict:
    """What the server holds for a player (effect durations ignored: they tick)."""
    game = server.game
    p = server.player(name)
    prog = game.experience.state(p)
    return {
        "effects": sorted((e.effect, e.amplifier, e.hide_particles) for e in game.effects.effects_of(p)),
        "level": prog.level,
        "progress": prog.progress,
        "day_time": game.admin.day_time,
        "weather": game.admin.weather,
        "difficulty": game.admin.difficulty,
        "rules": dict(game.admin.game_rules),
        "game_mode": game.admin.game_mode(p),
    }


def _client_view(state: dict) -> dict:
    return {
        "level": state["level"],
        "effects": {k: (v["amplifier"], v["flags"]) for k, v in state["effects"].items()},
        "timeOfDay": state["timeOfDay"],
        "difficulty": state["difficulty"],
        "rain": state["rain"],
        "gameMode": state["gameMode"],
    }


@pytest_twisted.ensureDeferred
async def test_controls_over_rcon_reach_the_client_and_the_mechanics(start_server, spawn_control_bot) -> None:
    server = start_server("neutral", controls=NEUTRAL)
    bot = await spawn_control_bot(server, "agent")
    before = await bot.do("state")
    assert (before["level"], before["effects"], before["difficulty"]) == (0, {}, "easy")
    assert before["rain"] == 1 and before["timeOfDay"] >= 0  # raining, daylight cycle running

    control = _control(server)
    readback = await control.apply_controls(Controls())
    assert readback == Controls()  # every value read back with query commands equals the request
    # every command of the control sequence got vanilla's success reply
    assert (
        "experience set agent 100 levels",
        L("commands.experience.set.levels.success.single", 100, "agent"),
    ) in (control.log)

    async def applied():  # noqa: ANN202
        s = await bot.do("state")
        return s if s["level"] == 100 and len(s["effects"]) == 4 and s["timeOfDay"] == -6000 else None

    state = await bot.until(applied)
    assert state, f"client never saw the controls: {await bot.do('state')}"
    assert {int(k): v["amplifier"] for k, v in state["effects"].items()} == {3: 1, 1: 0, 11: 0, 5: 0}
    assert all(v["duration"] > (EFFECT_SECONDS - 60) * 20 for v in state["effects"].values())
    assert state["difficulty"] == "peaceful" and state["rain"] == 0
    # the effects feed the mechanics: Haste II in the dig-time check, Speed I in the movement check
    p = server.player("agent")
    assert server.game.digging.conditions(p).haste == 2
    assert server.game.effects.level(p, "minecraft:speed") == 1
    # time stays frozen at noon (doDaylightCycle false): the next periodic update_time says the same
    await bot.sleep(1.2)
    assert (await bot.do("state"))["timeOfDay"] == -6000
    assert await control.command("time query daytime") == L("commands.time.query", 6000)
    # effect clear over RCON reaches the client (remove_entity_effect) and the mechanics
    assert await control.command("effect clear agent minecraft:haste") == L(
        "commands.effect.clear.specific.success.single", lang()["effect.minecraft.haste"], "agent"
    )
    assert await bot.until(lambda: _no_haste(bot))
    assert server.game.digging.conditions(p).haste == 0


async def _no_haste(bot) -> bool:  # noqa: ANN001
    return "3" not in (await bot.do("state"))["effects"]


@pytest_twisted.ensureDeferred
async def test_rcon_controls_equal_the_builtin_defaults(start_server, spawn_control_bot) -> None:
    builtin = start_server("builtin")  # ServerConfig's default controls: Controls()
    viarcon = start_server("viarcon", controls=NEUTRAL)
    bot_a = await spawn_control_bot(builtin, "agent")
    bot_b = await spawn_control_bot(viarcon, "agent")
    await _control(viarcon).apply_controls(Controls())
    assert _player_state(builtin, "agent") == _player_state(viarcon, "agent")
    durations = [
        e.remaining for s in (builtin, viarcon) for e in s.game.effects.effects_of(s.player("agent"))
    ]
    assert all(abs(d - EFFECT_SECONDS * 20) < 20 * 60 for d in durations)

    async def seen(bot):  # noqa: ANN001, ANN202
        s = _client_view(await bot.do("state"))
        return s if s["level"] == 100 and len(s["effects"]) == 4 and s["timeOfDay"] == -6000 else None

    view_a, view_b = await bot_a.until(lambda: seen(bot_a)), await bot_b.until(lambda: seen(bot_b))
    assert view_a and view_a == view_b


@pytest_twisted.ensureDeferred
async def test_milestone_query_follows_a_real_dig(start_server, spawn_control_bot) -> None:
    server = start_server()
    bot = await spawn_control_bot(server, "agent")
    control = _control(server)
    assert await control.has_advancement("minecraft:story/mine_stone") is False
    assert await control.query_milestones() == []
    sx, sy, sz = server.game.world.level.spawn
    x, y, z = sx, sy, sz + 1  # beside the bot's feet: the dropped cobblestone lands in pickup range
    assert await control.command(f"setblock {x} {y} {z} stone") == L("commands.setblock.success", x, y, z)
    reply = await control.command("give agent minecraft:wooden_pickaxe")
    assert reply == L(
        "commands.give.success.single", 1, "[" + lang()["item.minecraft.wooden_pickaxe"] + "]", "agent"
    )
    await bot.do("wait_item", name="wooden_pickaxe", atLeast=1)
    await bot.do("equip", name="wooden_pickaxe")
    assert (await bot.do("dig", x=x, y=y, z=z, name="stone"))["after"] == "air"
    assert (await bot.do("wait_item", name="cobblestone", atLeast=1))["got"]

    async def mined():  # noqa: ANN202
        return await control.has_advancement("minecraft:story/mine_stone")

    assert await bot.until(mined)
    assert "minecraft:story/mine_stone" in await control.query_milestones()
    assert await control.has_advancement("minecraft:story/smelt_iron") is False

    # the client got the advancement progress too (the packet may still be on its way when RCON answers)
    async def client_has():  # noqa: ANN202
        return (await bot.do("state"))["advancements"].get("minecraft:story/mine_stone")

    assert await bot.until(client_has), await bot.do("state")
    # revoke over RCON: the query turns false again
    assert await control.command("advancement revoke agent only minecraft:story/mine_stone") == L(
        "commands.advancement.revoke.one.to.one.success", "[" + lang()["advancements.story.mine_stone.title"] + "]",
        "agent",
    )  # fmt: skip
    assert await control.has_advancement("minecraft:story/mine_stone") is False


@pytest_twisted.ensureDeferred
async def test_chat_commands_use_the_players_op_level(start_server, spawn_control_bot) -> None:
    server = start_server(ops=["admin"], never_ops=["agent"])
    agent = await spawn_control_bot(server, "agent")
    admin = await spawn_control_bot(server, "admin")
    await agent.do("chat", text="/give @s diamond 3")
    assert await agent.message(L("command.unknown.command")) == L("command.unknown.command")
    assert await agent.message(lang()["command.context.here"]) == here("give @s diamond 3", 0)
    assert server.inventory("agent") == {}
    await admin.do("chat", text="/give agent diamond 3")
    await admin.message(
        L("commands.give.success.single", 3, "[" + lang()["item.minecraft.diamond"] + "]", "agent")
    )
    assert (await agent.do("wait_item", name="diamond", atLeast=3))["got"]
    await admin.do("chat", text="/time set 13000")
    await admin.message(L("commands.time.set", 13000))
    assert server.game.admin.day_time == 13000
    # `say` from RCON reaches every player as system chat
    await _control(server).command("say hello")
    for bot in (agent, admin):
        assert await bot.message("[Rcon] hello") == L("chat.type.announcement", "Rcon", "hello")


def test_rcon_is_off_unless_configured(start_server) -> None:
    server = start_server(rcon_port=None)
    assert server.rcon_port is None and server.game.commands.executor is not None
