"""Command parsing: every implemented command in valid and invalid forms, selectors with options, and
error messages equal to minecraft-data's 1.19.2 ``language.json`` formats with Brigadier's context line.

Expected texts are formatted here from minecraft-data's own ``language.json`` (not from the vendored
copy), so a wrong key, a wrong argument or a wrong cursor position fails.
"""

from __future__ import annotations

import json

import pytest
from support.control_lang import L, here, lang
from support.refdata import NODE_MODULES

from mirrorcraft.server.commands import CommandSyntaxError, parse_command
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands._generate_texts import build
from mirrorcraft.server.commands.texts import LANG_FILE


def fails(text: str, level: int = 4) -> list[str]:
    with pytest.raises(CommandSyntaxError) as info:
        parse_command(text, level)
    return info.value.messages()


def test_vendored_texts_equal_minecraft_data() -> None:
    vendored = json.loads(LANG_FILE.read_text())
    assert vendored == build(NODE_MODULES)
    for key, text in vendored.items():
        assert lang()[key] == text


# -- valid forms ------------------------------------------------------------------------------------


def test_give_and_clear() -> None:
    g = parse_command("give @p minecraft:diamond 3")
    assert isinstance(g, m.Give) and (g.item, g.count, g.targets.kind, g.targets.limit) == (
        "minecraft:diamond",
        3,
        "@p",
        1,
    )
    assert parse_command("/give Steve iron_ingot").count == 1
    c = parse_command("clear @a oak_log 0")
    assert isinstance(c, m.Clear) and (c.item, c.max_count) == ("minecraft:oak_log", 0)
    assert parse_command("clear") == m.Clear()


def test_teleport_forms() -> None:
    t = parse_command("tp 10 64 -3")
    assert t.targets is None and t.location.resolve((0, 0, 0)) == (10.5, 64.0, -2.5)  # x/z centred
    t = parse_command("teleport @a ~1 ~ 2.25")
    assert t.targets.kind == "@a" and t.location.resolve((1.0, 70.0, 0.0)) == (2.0, 70.0, 2.25)
    t = parse_command("tp Alex Steve")
    assert (t.targets.player_name, t.destination.player_name) == ("Alex", "Steve")
    t = parse_command("tp @s 0 64 0 90 ~")
    assert t.rotation[0].value == 90.0 and t.rotation[1].relative


def test_setblock_fill_kill_gamemode() -> None:
    s = parse_command("setblock 1 2 3 oak_log[axis=z] keep")
    assert s.block == m.BlockState("minecraft:oak_log", (("axis", "z"),)) and s.mode == "keep"
    f = parse_command("fill 0 60 0 4 62 4 stone replace dirt")
    assert f.mode == "replace" and f.filter.block == "minecraft:dirt"
    assert parse_command("fill ~ ~ ~ ~1 ~1 ~1 glass outline").mode == "outline"
    assert parse_command("kill @e[type=minecraft:cow,distance=..10]").targets.types == (
        ("minecraft:cow", False),
    )
    assert parse_command("gamemode creative Steve").mode == "creative"


def test_effect_xp_time_weather() -> None:
    e = parse_command("effect give @a minecraft:haste 1000000 1 true")
    assert (e.effect, e.seconds, e.amplifier, e.hide_particles) == ("minecraft:haste", 1000000, 1, True)
    assert parse_command("effect clear @a speed").effect == "minecraft:speed"
    x = parse_command("xp set @a 100 levels")
    assert (x.action, x.amount, x.unit) == ("set", 100, "levels")
    assert parse_command("experience add Steve -5").unit == "points"
    assert parse_command("xp query Steve levels").action == "query"
    assert parse_command("time set noon") == m.TimeSet(6000)
    assert parse_command("time set 1.5d") == m.TimeSet(36000)
    assert parse_command("time add 30s") == m.TimeAdd(600)
    assert parse_command("time query gametime") == m.TimeQuery("gametime")
    assert parse_command("weather thunder 60") == m.WeatherSet("thunder", 60)


def test_gamerule_difficulty_advancement_scoreboard_misc() -> None:
    assert parse_command("gamerule doDaylightCycle false") == m.GameRule("doDaylightCycle", False)
    assert parse_command("gamerule randomTickSpeed 0") == m.GameRule("randomTickSpeed", 0)
    assert parse_command("gamerule keepInventory") == m.GameRule("keepInventory")
    assert parse_command("difficulty peaceful") == m.DifficultyCmd("peaceful")
    a = parse_command("advancement grant @p only minecraft:story/mine_stone get_stone")
    assert (a.mode, a.advancement, a.criterion) == ("only", "minecraft:story/mine_stone", "get_stone")
    assert parse_command("advancement revoke @a everything").mode == "everything"
    assert (
        parse_command("advancement grant Steve through story/smelt_iron").advancement
        == "minecraft:story/smelt_iron"
    )
    say = parse_command("say hello @a and @x@p[limit=1]!")
    assert say.message == "hello @a and @x@p[limit=1]!"
    assert [(a, b, sel.kind) for a, b, sel in say.selectors] == [
        (6, 8, "@a"),
        (15, 26, "@p"),
    ]  # "@x" stays text
    assert fails("say hi @e[limit=0]") == [
        L("argument.entity.options.limit.toosmall"),
        here("say hi @e[limit=0]", 16),
    ]
    assert parse_command("list uuids") == m.ListPlayers(True)
    assert parse_command("save-all flush") == m.SaveAll(True)
    assert parse_command("stop") == m.Stop()
    o = parse_command('scoreboard objectives add kills minecraft.killed:minecraft.cow {"text":"Cows"}')
    assert (o.name, o.criterion, o.display_name) == ("kills", "minecraft.killed:minecraft.cow", "Cows")
    p = parse_command("scoreboard players add * kills 2")
    assert p.targets.wildcard and p.score == 2
    assert parse_command("scoreboard players get Steve kills").target.name == "Steve"


def test_execute_chains() -> None:
    q = parse_command("execute if entity @p[advancements={minecraft:story/mine_stone=true}]")
    assert isinstance(q, m.Execute) and q.steps == () and isinstance(q.run, m.EntityTest)
    assert q.run.selector.advancements == (("minecraft:story/mine_stone", True),)
    r = parse_command("execute as @a at @s unless entity @e[type=cow,distance=..5] run give @s beef")
    assert [s.kind for s in r.steps] == ["as", "at", "unless"] and isinstance(r.run, m.Give)
    crit = parse_command("execute unless entity @a[advancements={story/mine_stone={get_stone=false}}]")
    assert crit.run.negate and crit.run.selector.advancements == (
        ("minecraft:story/mine_stone", (("get_stone", False),)),
    )


def test_selector_options() -> None:
    s = parse_command(
        'kill @e[type=!minecraft:player,name="Bob",distance=1.5..8,x=1,y=2,z=3,limit=2,sort=furthest]'
    ).targets
    assert s.types == (("minecraft:player", True),) and s.names == (("Bob", False),)
    assert (s.distance.min, s.distance.max, s.x, s.y, s.z, s.limit, s.sort) == (
        1.5,
        8.0,
        1.0,
        2.0,
        3.0,
        2,
        "furthest",
    )
    s = parse_command("give @a[gamemode=!creative,level=10..,scores={kills=1..}] stone").targets
    assert s.gamemodes == (("creative", True),) and s.level.min == 10 and s.scores[0][0] == "kills"
    assert parse_command("kill @p[sort=furthest]").targets.sort == "furthest"  # @p is not "sorted" yet
    s = parse_command("kill 0-0-0-0-1").targets
    assert s.kind == "uuid" and s.uuid == "00000000-0000-0000-0000-000000000001"


# -- invalid forms: exact vanilla messages ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "args", "cursor"),
    [
        ("notacommand foo", "command.unknown.command", (), 0),
        ("give", "command.unknown.command", (), 4),
        ("give @s diamond 1 extra", "command.unknown.argument", (), 18),
        ("time sett", "command.unknown.argument", (), 5),
        ("give @s notanitem", "argument.item.id.invalid", ("minecraft:notanitem",), 8),
        ("give @s diamond 0", "argument.integer.low", (1, 0), 16),
        ("give @s diamond 1x", "command.expected.separator", (), 17),
        ("give @e diamond", "argument.player.entities", (), 0),
        ("xp query @a levels", "argument.player.toomany", (), 0),
        # Brigadier ranks an error-free partial parse (destination = @s) above failed ones:
        ("tp @s @e", "command.unknown.argument", (), 6),
        ("effect give @a speed 10 0 true extra", "command.unknown.argument", (), 31),
        ("give @x diamond", "argument.entity.selector.unknown", ("@x",), 5),
        ("give @", "argument.entity.selector.missing", (), 6),
        ("give @ diamond", "argument.entity.selector.unknown", ("@ ",), 5),
        ("give @a[foo=1] diamond", "argument.entity.options.unknown", ("foo",), 8),
        ("kill @e[limit=0]", "argument.entity.options.limit.toosmall", (), 14),
        ("kill @e[distance=-1]", "argument.entity.options.distance.negative", (), 17),
        ("kill @e[distance=5..1]", "argument.range.swapped", (), 17),
        ("give @a[level=1.5] stone", "parsing.int.invalid", ("1.5",), 14),
        ("kill @e[distance=1..-]", "parsing.double.invalid", ("-",), 17),
        ("kill @e[distance=..]", "argument.range.empty", (), 17),
        ("kill @e[sort=sideways]", "argument.entity.options.sort.irreversible", ("sideways",), 13),
        ("kill @s[sort=random]", "argument.entity.options.inapplicable", ("sort",), 8),
        ("kill @e[sort=random,sort=nearest]", "argument.entity.options.inapplicable", ("sort",), 20),
        ("kill @a[type=cow]", "argument.entity.options.inapplicable", ("type",), 8),
        ("kill @e[gamemode=hardcore]", "argument.entity.options.mode.invalid", ("hardcore",), 17),
        ("kill @e[limit=1", "argument.entity.options.unterminated", (), 15),
        ("give ThisNameIsFarTooLong stone", "argument.entity.invalid", (), 5),
        ("setblock 1 2", "argument.pos3d.incomplete", (), 9),
        ("setblock 1 2 stone", "parsing.int.expected", (), 13),
        ("setblock 1.5 2 3 stone", "parsing.int.invalid", ("1.5",), 9),
        ("setblock 1 2 3 notablock", "argument.block.id.invalid", ("minecraft:notablock",), 15),
        (
            "setblock 1 2 3 oak_log[facing=up]",
            "argument.block.property.unknown",
            ("minecraft:oak_log", "facing"),
            23,
        ),
        (
            "setblock 1 2 3 oak_log[axis=w]",
            "argument.block.property.invalid",
            ("minecraft:oak_log", "w", "axis"),
            28,
        ),
        ("setblock 1 2 3 #logs", "argument.block.tag.disallowed", (), 15),
        ("give @s #logs", "argument.item.tag.disallowed", (), 8),
        ("gamerule keepInventory maybe", "parsing.bool.invalid", ("maybe",), 23),
        ("gamerule randomTickSpeed x", "parsing.int.expected", (), 25),
        ("effect give @a haste 0", "argument.integer.low", (1, 0), 21),
        ("effect give @a haste 10 256", "argument.integer.big", (255, 256), 24),
        ("weather rain 1000001", "argument.integer.big", (1000000, 1000001), 13),
        ("xp set @a -1 levels", "argument.integer.low", (0, -1), 10),
        ("execute run", "command.unknown.command", (), 11),
        ("execute if entity", "command.unknown.command", (), 17),
        ("give @s diamond 2147483648", "parsing.int.invalid", ("2147483648",), 16),
        ("advancement grant @a only a:b:c", "argument.id.invalid", (), 26),
        ("advancement grant @a only Story", "command.expected.separator", (), 26),
    ],
)
def test_syntax_errors_are_vanilla(text: str, key: str, args: tuple, cursor: int) -> None:
    assert fails(text) == [L(key, *args), here(text, cursor)]


@pytest.mark.parametrize(
    ("text", "key", "args"),
    [
        ("effect give @a minecraft:nope", "effect.effectNotFound", ("minecraft:nope",)),
        ("time set 5x", "argument.time.invalid_unit", ()),
        ("scoreboard objectives add k nonsense", "argument.criteria.invalid", ("nonsense",)),
    ],
)
def test_errors_without_context(text: str, key: str, args: tuple) -> None:
    assert fails(text) == [L(key, *args)]


@pytest.mark.parametrize(
    "text",
    [
        "give @s diamond",
        "gamemode creative",
        "time set day",
        "gamerule keepInventory true",
        "tp 0 0 0",
        "effect give @s speed",
        "execute if entity @s",
        "advancement grant @s everything",
        "say hi",
        "scoreboard objectives list",
        "kill",
    ],
)
def test_non_ops_get_the_unknown_command_refusal(text: str) -> None:
    # Brigadier skips nodes the source may not use, so a level-0 player sees the unknown-command error.
    assert fails(text, level=0) == [L("command.unknown.command"), here(text, 0)]
    parse_command(text, 2)  # an op (level 2) may run it


def test_levels_of_list_save_and_stop() -> None:
    assert parse_command("list", 0) == m.ListPlayers(False)
    for text in ("save-all", "stop"):
        assert fails(text, level=3) == [L("command.unknown.command"), here(text, 0)]
        parse_command(text, 4)


def test_unsupported_vanilla_syntax_fails_clearly() -> None:
    for text, word in (
        ("kill @e[nbt={}]", "nbt"),
        ("give @s diamond{x:1}", "NBT"),
        ("setblock ^ ^ ^1 stone", "Local"),
    ):
        msgs = fails(text)
        assert word in msgs[0] and "not supported by MirrorCraft" in msgs[0]
