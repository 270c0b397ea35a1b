"""The remaining ``CommandHost`` operations of the embedded server over a real RCON socket, with a Mineflayer
client where the player matters: experience arithmetic (vanilla ``giveExperiencePoints`` with negative
amounts), effect stacking rules, ``clear`` counting, game modes and abilities, world commands (time,
weather, game rules, difficulty), ``kill`` of cows and items, ``setblock ... destroy`` drops, ``stop``;
and the ``serve --rcon-port`` password handling."""

from __future__ import annotations

import argparse
import stat

import pytest
import pytest_twisted
from support.control_lang import L, lang
from twisted.internet import reactor

from mirrorcraft.harness.rcon import connect_rcon


async def _rcon(server):  # noqa: ANN001, ANN202
    return await connect_rcon(reactor, "127.0.0.1", server.rcon_port, server.rcon_password)


@pytest_twisted.ensureDeferred
async def test_player_commands(start_server, spawn_control_bot) -> None:
    server = start_server()
    bot = await spawn_control_bot(server, "agent")
    rcon = await _rcon(server)
    try:
        # experience: level 5 needs 17 points; -12 points from 10 drops to level 4 with 13 of 15 points
        assert await rcon.command("experience set agent 5 levels") == L(
            "commands.experience.set.levels.success.single", 5, "agent"
        )
        await rcon.command("experience add agent 10 points")
        assert await rcon.command("experience query agent points") == L(
            "commands.experience.query.points", "agent", 10
        )
        await rcon.command("experience add agent -12 points")
        assert await rcon.command("experience query agent levels") == L(
            "commands.experience.query.levels", "agent", 4
        )
        assert await rcon.command("experience query agent points") == L(
            "commands.experience.query.points", "agent", 13
        )
        assert await rcon.command("experience set agent 15 points") == L(
            "commands.experience.set.points.invalid"
        )
        await rcon.command("experience add agent -10 levels")
        assert server.game.experience.state(server.player("agent")).level == 0

        async def client_level_zero():  # noqa: ANN202
            s = await bot.do("state")
            return s["level"] == 0 and s["points"] == 0

        assert await bot.until(client_level_zero)
        # effects: the controls' Speed I (1000000 s, hidden particles) beats Speed I for 10 s; a visibility
        # change alone is an update (MobEffectInstance.update); Speed III replaces it
        reply = await rcon.command("effect give agent minecraft:speed 10 0 true")
        assert reply == L("commands.effect.give.failed")
        reply = await rcon.command("effect give agent minecraft:speed 10 0 false")
        assert reply == L("commands.effect.give.success.single", lang()["effect.minecraft.speed"], "agent")
        assert await rcon.command("effect give agent minecraft:speed 10 2") == L(
            "commands.effect.give.success.single", lang()["effect.minecraft.speed"], "agent"
        )
        assert server.game.effects.level(server.player("agent"), "minecraft:speed") == 3

        async def speed_three():  # noqa: ANN202
            eff = (await bot.do("state"))["effects"].get("1")
            return eff is not None and eff["amplifier"] == 2 and eff["duration"] <= 200

        assert await bot.until(speed_three)
        # clear: count only, then everything
        await rcon.command("give agent dirt 5")
        await rcon.command("give agent diamond 3")
        assert await rcon.command("clear agent dirt 0") == L("commands.clear.test.single", 5, "agent")
        assert await rcon.command("clear agent") == L("commands.clear.success.single", 8, "agent")
        assert server.inventory("agent") == {}
        # game mode: abilities as vanilla's creative / spectator
        assert await rcon.command("gamemode spectator agent") == L(
            "commands.gamemode.success.other", "agent", lang()["gameMode.spectator"]
        )

        async def spectator():  # noqa: ANN202
            s = await bot.do("state")
            return s["gameMode"] == "spectator" and s["abilities"] == 0x07

        assert await bot.until(spectator)
        assert await rcon.command("execute if entity @a[gamemode=spectator]") == L(
            "commands.execute.conditional.pass_count", 1
        )
    finally:
        rcon.close()
        await bot.do("quit")


@pytest_twisted.ensureDeferred
async def test_world_commands_and_entities(start_server, spawn_control_bot) -> None:
    server = start_server()
    bot = await spawn_control_bot(server, "agent")
    rcon = await _rcon(server)
    admin = server.game.admin
    try:
        assert await rcon.command("time add 100") == L("commands.time.set", 6100)
        assert admin.day_time == 6100  # frozen: doDaylightCycle false in the controls
        assert await rcon.command("weather thunder 600") == L("commands.weather.set.thunder")
        assert (admin.weather, admin.weather_ticks) == ("thunder", 600 * 20)  # seconds → ticks

        async def thunder():  # noqa: ANN202
            s = await bot.do("state")
            return s["rain"] == 1 and s["thunder"] == 1 and s["timeOfDay"] == -6100

        assert await bot.until(thunder)
        assert await rcon.command("gamerule randomTickSpeed") == L(
            "commands.gamerule.query", "randomTickSpeed", 3
        )
        await rcon.command("gamerule doDaylightCycle true")
        tick = server.game.tick_count
        await bot.sleep(0.5)
        assert admin.day_time - 6100 == server.game.tick_count - tick  # the day time runs again
        assert await rcon.command("difficulty hard") == L(
            "commands.difficulty.success", lang()["options.difficulty.hard"]
        )

        async def hard():  # noqa: ANN202
            return (await bot.do("state"))["difficulty"] == "hard"

        assert await bot.until(hard)
        # entities: the sandbox's four cows die (loot rolled without a killer), then the items go
        # The sandbox's own four cows (naturally spawned ones, if any, would also die: count the saved ones).
        cows = [c for c in server.game.mobs.cows.values() if c.dead_for < 0]
        assert len(cows) >= 4
        assert await rcon.command("kill @e[type=minecraft:cow]") == L("commands.kill.success.multiple", 4)
        assert all(c.dead_for >= 0 for c in cows)
        sx, sy, sz = server.game.world.level.spawn
        await rcon.command(f"setblock {sx + 3} {sy} {sz} stone")
        assert await rcon.command(f"setblock {sx + 3} {sy} {sz} air destroy") == L(
            "commands.setblock.success", sx + 3, sy, sz
        )
        assert {"beef", "cobblestone"} <= {
            it.item.removeprefix("minecraft:") for it in server.game.kernel.items.values()
        }
        n_items = len(server.game.kernel.items)  # at least two: beef and cobblestone never merge
        assert await rcon.command("kill @e[type=minecraft:item]") == L(
            "commands.kill.success.multiple", n_items
        )
        assert server.game.kernel.items == {}
        # stop: the reply first, then the server stops and the on_stop callbacks run
        stopped: list[bool] = []
        server.on_stop.append(lambda: stopped.append(True))
        assert await rcon.command("stop") == L("commands.stop.stopping")
        await bot.event("end", timeout=10)
        assert stopped == [True] and server.rcon_port is None
    finally:
        rcon.close()


def test_serve_rcon_password_file(tmp_path, capsys) -> None:
    from mirrorcraft.harness.serve_cli import _rcon_settings, add_serve_parser

    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers())
    pw_file = tmp_path / "rcon.txt"
    pw_file.write_text("old")
    pw_file.chmod(0o644)
    args = parser.parse_args(
        ["serve", "--world", "sandbox", "--rcon-port", "25575", "--rcon-password-file", str(pw_file)]
    )
    settings = _rcon_settings(args)
    assert settings["rcon_port"] == 25575 and pw_file.read_text() == settings["rcon_password"] + "\n"
    assert stat.S_IMODE(pw_file.stat().st_mode) == 0o600
    assert len(settings["rcon_password"]) >= 20
    args = parser.parse_args(["serve", "--world", "sandbox", "--rcon-port", "25575"])
    settings = _rcon_settings(args)
    assert capsys.readouterr().err == f"rcon password: {settings['rcon_password']}\n"
    assert _rcon_settings(parser.parse_args(["serve", "--world", "sandbox"])) == {}
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--world", "sandbox", "--rcon-port", "0"])
