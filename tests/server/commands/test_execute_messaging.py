"""The executor's ``execute`` sub-commands and the chat, title and operator commands against the in-memory
host: vanilla's results, forking rules, reply components and texts (minecraft-data's ``language.json``)."""

from __future__ import annotations

import pytest
from support.control_lang import L, lang
from support.control_memory_host import MemoryHost

from mirrorcraft.server.commands import CommandExecutor
from mirrorcraft.server.commands import components as C

T = C.translatable


@pytest.fixture
def host() -> MemoryHost:
    h = MemoryHost()
    h.add_player("Steve", (10.0, 65.0, 10.0))
    h.add_player("Alex", (100.0, 65.0, 100.0))
    return h


@pytest.fixture
def ex(host: MemoryHost) -> CommandExecutor:
    return CommandExecutor(host)


def run(ex: CommandExecutor, text: str):
    return ex.run(ex.console_source(), text)


def test_execute_in_positioned_and_block_conditions(ex: CommandExecutor, host: MemoryHost) -> None:
    r = run(ex, "execute in minecraft:overworld run setblock 1 64 1 stone")
    assert r.success and r.messages == [L("commands.setblock.success", 1, 64, 1)]
    r = run(ex, "execute in minecraft:the_nether run setblock 1 64 1 stone")
    assert not r.success and r.messages == [L("argument.dimension.invalid", "minecraft:the_nether")]
    # positioned: ~ is relative to the new position; if block tests the block there
    r = run(ex, "execute positioned 1 64 1 if block ~ ~ ~ stone run setblock ~ ~1 ~ dirt")
    assert (
        r.messages == [L("commands.setblock.success", 1, 65, 1)]
        and host.blocks[(1, 65, 1)][0] == "minecraft:dirt"
    )
    assert run(ex, "execute if block 1 64 1 stone").messages == [L("commands.execute.conditional.pass")]
    r = run(ex, "execute unless block 1 64 1 stone")
    assert not r.success and r.messages == [L("commands.execute.conditional.fail")]
    run(ex, "setblock 2 64 2 oak_log[axis=x]")
    assert run(ex, "execute if block 2 64 2 oak_log[axis=x]").success
    assert not run(ex, "execute if block 2 64 2 oak_log[axis=y]").success
    # a forked command's failure is swallowed: as @a, give to the one player not at the spawn
    r = run(ex, "execute as @a at @s if block ~ ~-1 ~ air run clear @s diamond")
    assert r.success and r.result == 0 and r.messages == []  # both failed silently (nothing to clear)
    r = run(ex, "execute in minecraft:overworld run clear Steve diamond")  # no fork: the failure shows
    assert not r.success and r.messages == [L("clear.failed.single", "Steve")]


def test_execute_store_and_score_conditions(ex: CommandExecutor, host: MemoryHost) -> None:
    run(ex, "scoreboard objectives add t dummy")
    run(ex, "time set 1234")
    r = run(ex, "execute store result score Steve t run time query daytime")
    assert r.success and ex.scoreboard.score("Steve", "t") == 1234
    r = run(ex, "execute store success score Alex t run clear Alex diamond")
    assert not r.success and ex.scoreboard.score("Alex", "t") == 0
    assert run(ex, "execute if score Steve t matches 1000..2000").messages == [
        L("commands.execute.conditional.pass")
    ]
    assert not run(ex, "execute if score Steve t matches ..5").success
    assert run(ex, "execute if score Steve t > Alex t run say big").success
    assert host.broadcasts[-1] == L("chat.type.announcement", "Rcon", "big")
    assert not run(ex, "execute if score Steve t < Alex t").success
    assert not run(ex, "execute if score Nobody t = Alex t").success  # a missing score never matches
    r = run(ex, "execute store result score @a t if entity @a")
    assert ex.scoreboard.score("Alex", "t") == 2 and r.result == 2
    r = run(ex, "execute store result entity @s Health run say x")
    assert not r.success and "not supported by MirrorCraft" in r.messages[0]


def test_tellraw_title_msg_me(ex: CommandExecutor, host: MemoryHost) -> None:
    run(ex, "scoreboard objectives add pts dummy")
    run(ex, "scoreboard players set Steve pts 7")
    r = run(
        ex,
        'tellraw @a ["Hi ", {"selector": "@a"}, {"score": {"name": "*", "objective": "pts"}, "color": "gold"}]',
    )
    assert r.success and r.result == 2 and r.messages == []  # tellraw has no reply
    (steve, to_steve), (alex, to_alex) = host.told_components
    assert (steve, alex) == ("Steve", "Alex")
    assert to_steve["text"] == "Hi " and to_steve["extra"][1] == {"color": "gold", "text": "7"}
    assert C.render(to_steve) == "Hi Steve, Alex7" and C.render(to_alex) == "Hi Steve, Alex"
    bad = run(ex, 'tellraw @a {"text": 1')
    assert not bad.success and bad.messages[0].startswith(lang()["argument.component.invalid"].split("%")[0])
    r = run(ex, 'title @a title {"text": "Round 1", "bold": true}')
    assert r.messages == [L("commands.title.show.title.multiple", 2)]
    assert host.titles[-1] == ("Alex", "title", {"bold": True, "text": "Round 1"}, None)
    assert run(ex, "title Steve times 10 70 20").messages == [L("commands.title.times.single", "Steve")]
    assert host.titles[-1] == ("Steve", "times", None, (10, 70, 20))
    assert run(ex, "title Steve clear").messages == [L("commands.title.cleared.single", "Steve")]
    host.told_components.clear()
    r = run(ex, "msg Steve meet @p")
    assert r.messages == [L("commands.message.display.outgoing", "Steve", "meet Steve")]
    ((name, incoming),) = host.told_components
    assert name == "Steve" and incoming["italic"] is True and incoming["color"] == "gray"
    assert C.render(incoming) == L("commands.message.display.incoming", "Rcon", "meet Steve")
    steve = ex.player_source(host.get("Steve"))
    assert ex.run(steve, "w Alex hi").success  # msg, tell and w need no permission
    r = ex.run(steve, "me waves")
    assert r.success and host.broadcasts[-1] == L("chat.type.emote", "Steve", "waves")
    assert host.broadcast_components[-1]["with"][0]["insertion"] == "Steve"  # the player's display name
    assert ex.run(steve, 'tellraw @a "x"').messages[0] == L("command.unknown.command")  # level 2


def test_op_deop_defaultgamemode(ex: CommandExecutor, host: MemoryHost) -> None:
    assert run(ex, "op Steve").messages == [L("commands.op.success", "Steve")]
    assert host.levels == [("Steve", 4)] and ex.ops.is_op("Steve")
    assert run(ex, "op Steve").messages == [L("commands.op.failed")]
    assert run(ex, "op Nobody").messages == [L("argument.player.unknown")]
    r = run(ex, "op @a")  # vanilla names the first profile in every line
    assert r.messages == [L("commands.op.success", "Steve")] and r.result == 1
    steve = ex.player_source(host.get("Steve"))
    assert ex.run(steve, "time set day").success  # an op now
    assert ex.run(steve, "deop Steve").messages == [L("commands.deop.success", "Steve")]
    steve = ex.player_source(host.get("Steve"))  # a source carries its level: a new one after deop
    assert ex.run(steve, "time set day").messages[0] == L("command.unknown.command")
    assert run(ex, "deop Alex").messages == [L("commands.deop.success", "Alex")]
    assert run(ex, "deop Alex").messages == [L("commands.deop.failed")]
    ex.ops.never_ops.add("alex")
    r = run(ex, "op Alex")
    assert not r.success and "agent players are never ops" in r.messages[0]
    r = run(ex, "defaultgamemode creative")
    assert r.result == 0 and r.messages == [
        L("commands.defaultgamemode.success", lang()["gameMode.creative"])
    ]
    assert host.default_mode == "creative"
    assert r.components == [T("commands.defaultgamemode.success", T("gameMode.creative"))]


def test_admin_lines_go_to_the_other_ops(ex: CommandExecutor, host: MemoryHost) -> None:
    run(ex, "op Steve")
    host.told_components.clear()
    run(ex, "time set 1000")
    ((who, line),) = host.told_components
    assert who == "Steve" and line["translate"] == "chat.type.admin" and line["italic"] is True
    assert C.render(line) == "[Rcon: " + L("commands.time.set", 1000) + "]"
    host.told_components.clear()
    run(ex, "time query daytime")  # a query is not logged to the ops
    assert host.told_components == []
