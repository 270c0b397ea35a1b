"""The executor against an in-memory host: state changes, return values and vanilla reply texts.

Reply texts are formatted in the test from minecraft-data's ``language.json`` (``L``), and so are the
display names they embed (items, effects, advancement titles, game modes, difficulties).
"""

from __future__ import annotations

import pytest
from support.control_lang import L, here, lang
from support.control_memory_host import MemoryHost

from mirrorcraft.errors import ContractError
from mirrorcraft.server.commands import CommandExecutor, OpsList, rcon_text


@pytest.fixture
def host() -> MemoryHost:
    h = MemoryHost()
    h.add_player("Steve", (10.0, 65.0, 10.0))
    h.add_player("Alex", (100.0, 65.0, 100.0))
    h.add_mob("minecraft:cow", (12.0, 65.0, 10.0))
    h.add_mob("minecraft:cow", (40.0, 65.0, 40.0))
    return h


@pytest.fixture
def ex(host: MemoryHost) -> CommandExecutor:
    return CommandExecutor(host)


def run(ex: CommandExecutor, text: str):
    return ex.run(ex.console_source(), text)


def test_give_clear(ex: CommandExecutor, host: MemoryHost) -> None:
    r = run(ex, "give Steve diamond 3")
    assert (
        r.success
        and r.result == 1
        and r.messages == [L("commands.give.success.single", 3, "[Diamond]", "Steve")]
    )
    assert host.inventories[host.get("Steve").uuid] == {"minecraft:diamond": 3}
    r = run(ex, "give @a oak_log 2")
    assert r.messages == [L("commands.give.success.multiple", 2, f"[{lang()['block.minecraft.oak_log']}]", 2)]
    r = run(ex, "give Steve diamond 6401")
    assert not r.success and r.messages == [L("commands.give.failed.toomanyitems", 6400, "[Diamond]")]
    assert run(ex, "give Nobody stone").messages == [L("argument.entity.notfound.player")]
    r = run(ex, "clear Steve diamond 0")
    assert r.messages == [L("commands.clear.test.single", 3, "Steve")] and r.result == 3
    r = run(ex, "clear Steve diamond 2")
    assert r.messages == [L("commands.clear.success.single", 2, "Steve")]
    assert host.inventories[host.get("Steve").uuid] == {"minecraft:diamond": 1, "minecraft:oak_log": 2}
    r = run(ex, "clear Alex diamond")
    assert not r.success and r.messages == [L("clear.failed.single", "Alex")]
    assert run(ex, "clear").messages == [L("permissions.requires.player")]


def test_teleport_setblock_fill_kill(ex: CommandExecutor, host: MemoryHost) -> None:
    r = run(ex, "tp Steve 0 70 0")
    # TeleportCommand.formatDouble: String.format(Locale.ROOT, "%f", d)
    assert r.messages == [
        L("commands.teleport.success.location.single", "Steve", "0.500000", "70.000000", "0.500000")
    ]
    assert run(ex, "tp Steve 30000000 64 0").messages == [L("commands.teleport.invalidPosition")]
    assert host.get("Steve").position == (0.5, 70.0, 0.5)
    r = run(ex, "tp @a Alex")
    assert r.messages == [L("commands.teleport.success.entity.multiple", 2, "Alex")]
    assert host.get("Steve").position == host.get("Alex").position
    assert run(ex, "setblock 1 64 1 oak_log[axis=x]").messages == [L("commands.setblock.success", 1, 64, 1)]
    assert host.blocks[(1, 64, 1)] == ("minecraft:oak_log", {"axis": "x"})
    assert run(ex, "setblock 1 64 1 oak_log[axis=x]").messages == [L("commands.setblock.failed")]
    assert run(ex, "setblock 1 64 1 stone keep").messages == [L("commands.setblock.failed")]
    assert run(ex, "setblock 1000 64 1 stone").messages == [L("argument.pos.unloaded")]
    r = run(ex, "fill 0 0 0 2 2 2 glass hollow")
    assert r.messages == [L("commands.fill.success", 26)] and (1, 1, 1) not in host.blocks
    assert run(ex, "fill 0 0 0 2 2 2 stone replace glass").messages == [L("commands.fill.success", 26)]
    assert run(ex, "fill 0 0 0 2 2 2 dirt replace glass").messages == [L("commands.fill.failed")]
    assert run(ex, "fill 0 0 0 40 40 40 dirt").messages == [L("commands.fill.toobig", 32768, 68921)]
    cows = [e for e in host.entities() if e.type == "minecraft:cow"]
    r = run(ex, "kill @e[type=cow,sort=nearest,limit=1]")
    assert r.messages == [L("commands.kill.success.single", lang()["entity.minecraft.cow"])]
    remaining = [e for e in host.entities() if e.type == "minecraft:cow"]
    assert remaining == [cows[1]]  # the cow nearest to the spawn (8, 65, 8) died
    assert run(ex, "kill").messages == [L("permissions.requires.entity")]


def test_gamemode_effects_experience(ex: CommandExecutor, host: MemoryHost) -> None:
    creative = lang()["gameMode.creative"]
    r = run(ex, "gamemode creative @a")
    assert (
        r.messages
        == [
            L("commands.gamemode.success.other", "Steve", creative),
            L("commands.gamemode.success.other", "Alex", creative),
        ]
        and r.result == 2
    )
    assert host.told == [
        ("Steve", L("gameMode.changed", creative)),
        ("Alex", L("gameMode.changed", creative)),
    ]
    assert run(ex, "gamemode creative Steve").result == 0  # unchanged: nobody counted, no message
    steve = host.get("Steve")
    r = ex.run(ex.player_source(steve), "gamemode survival")
    assert r.messages == [L("command.unknown.command"), here("gamemode survival", 0)]  # not an op
    ex.ops.add("Steve", level=2)
    r = ex.run(ex.player_source(host.get("Steve")), "gamemode survival")
    assert r.messages == [L("commands.gamemode.success.self", lang()["gameMode.survival"])]

    r = run(ex, "effect give @a minecraft:haste 1000000 1 true")
    assert r.messages == [L("commands.effect.give.success.multiple", lang()["effect.minecraft.haste"], 2)]
    assert host.effects[steve.uuid]["minecraft:haste"] == (20_000_000, 1, True)
    r = run(ex, "effect give Steve haste 10 0")
    assert not r.success and r.messages == [L("commands.effect.give.failed")]  # a stronger one is active
    assert run(ex, "effect clear Steve speed").messages == [L("commands.effect.clear.specific.failed")]
    r = run(ex, "effect clear Steve")
    assert r.messages == [L("commands.effect.clear.everything.success.single", "Steve")]

    assert run(ex, "xp set Steve 100 levels").messages == [
        L("commands.experience.set.levels.success.single", 100, "Steve")
    ]
    assert run(ex, "xp add @a 5 levels").messages == [
        L("commands.experience.add.levels.success.multiple", 5, 2)
    ]
    r = run(ex, "experience query Steve levels")
    assert r.messages == [L("commands.experience.query.levels", "Steve", 105)] and r.result == 105
    assert run(ex, "xp set Steve 100000 points").messages == [L("commands.experience.set.points.invalid")]
    assert run(ex, "give @a[level=100..] diamond").messages == [
        L("commands.give.success.single", 1, "[Diamond]", "Steve")
    ]


def test_world_state_commands(ex: CommandExecutor, host: MemoryHost) -> None:
    host.day = 30000
    assert run(ex, "time query daytime").messages == [L("commands.time.query", 6000)]
    assert run(ex, "time query day").result == 1
    assert run(ex, "time set noon").messages == [L("commands.time.set", 6000)] and host.day == 6000
    assert run(ex, "time add 1d").messages == [L("commands.time.set", 6000)] and host.day == 30000
    host.game = 123
    assert run(ex, "time query gametime").messages == [L("commands.time.query", 123)]
    assert run(ex, "weather thunder 10").messages == [L("commands.weather.set.thunder")]
    assert host.weather == ("thunder", 200)
    r = run(ex, "gamerule doDaylightCycle false")
    assert (
        r.messages == [L("commands.gamerule.set", "doDaylightCycle", "false")]
        and host.rules["doDaylightCycle"] is False
    )
    r = run(ex, "gamerule randomTickSpeed")
    assert r.messages == [L("commands.gamerule.query", "randomTickSpeed", 3)] and r.result == 3
    peaceful = lang()["options.difficulty.peaceful"]
    assert run(ex, "difficulty peaceful").messages == [L("commands.difficulty.success", peaceful)]
    r = run(ex, "difficulty peaceful")
    assert not r.success and r.messages == [L("commands.difficulty.failure", peaceful)]
    assert run(ex, "difficulty").messages == [L("commands.difficulty.query", peaceful)]
    assert run(ex, "say hello").result == 1 and host.broadcasts == [
        L("chat.type.announcement", "Rcon", "hello")
    ]
    run(ex, "say hi @a, bye @e[type=pig]")
    assert host.broadcasts[-1] == L("chat.type.announcement", "Rcon", "hi Steve, Alex, bye ")
    r = run(ex, "list")
    assert r.messages == [L("commands.list.players", 2, 20, "Steve, Alex")]
    r = run(ex, "save-all")
    assert r.messages == [L("commands.save.saving"), L("commands.save.success")] and host.saved == 1
    assert rcon_text(r.messages) == L("commands.save.saving") + L("commands.save.success")
    assert run(ex, "stop").messages == [L("commands.stop.stopping")] and host.stopped


def _title(code: str) -> str:
    return "[" + lang()[f"advancements.story.{code}.title"] + "]"


def test_advancements_and_the_milestone_query(ex: CommandExecutor, host: MemoryHost) -> None:
    q = "execute if entity @a[name=Steve,advancements={minecraft:story/mine_stone=true}]"
    assert run(ex, q).messages == [L("commands.execute.conditional.fail")]
    r = run(ex, "advancement grant Steve only minecraft:story/mine_stone")
    assert r.messages == [L("commands.advancement.grant.one.to.one.success", _title("mine_stone"), "Steve")]
    r = run(ex, q)
    assert r.success and r.messages == [L("commands.execute.conditional.pass_count", 1)]
    r = run(ex, "advancement grant Steve only minecraft:story/mine_stone")
    assert not r.success
    assert r.messages == [L("commands.advancement.grant.one.to.one.failure", _title("mine_stone"), "Steve")]
    r = run(ex, "execute unless entity @p[advancements={story/mine_stone=true}]")
    assert r.messages == [L("commands.execute.conditional.fail_count", 1)]
    # until: the advancement and its parents (story/root ← mine_stone ← upgrade_tools ← smelt_iron)
    r = run(ex, "advancement grant Alex until minecraft:story/smelt_iron")
    assert r.messages == [L("commands.advancement.grant.many.to.one.success", 4, "Alex")]
    r = run(ex, "advancement revoke @a only minecraft:story/upgrade_tools")
    # one of the two players had it: vanilla still reports the target count
    assert r.messages == [L("commands.advancement.revoke.one.to.many.success", _title("upgrade_tools"), 2)]
    assert r.result == 1
    r = run(ex, "advancement grant Steve only minecraft:story/smelt_iron nope")
    assert r.messages == [L("commands.advancement.criterionNotFound", _title("smelt_iron"), "nope")]
    r = run(ex, "advancement grant Steve only minecraft:story/smelt_iron iron")
    assert r.messages == [
        L("commands.advancement.grant.criterion.to.one.success", "iron", _title("smelt_iron"), "Steve")
    ]
    assert run(ex, "advancement grant Steve only minecraft:story/nope").messages == [
        L("advancement.advancementNotFound", "minecraft:story/nope")
    ]
    r = run(ex, "advancement revoke Steve everything")
    assert r.messages == [L("commands.advancement.revoke.many.to.one.success", 16, "Steve")] and r.result == 2
    crit = "execute if entity @a[advancements={minecraft:story/smelt_iron={iron=true}}]"
    assert run(ex, crit).messages == [L("commands.execute.conditional.pass_count", 1)]  # Alex still has it
    assert run(ex, crit.replace("@a[", "@a[name=Steve,")).messages == [L("commands.execute.conditional.fail")]


def test_execute_as_at_and_feedback_rule(ex: CommandExecutor, host: MemoryHost) -> None:
    # as every player, at themselves: the cow within 3 blocks of Steve only
    r = run(ex, "execute as @a at @s if entity @e[type=cow,distance=..3] run give @s beef")
    assert r.messages == [L("commands.give.success.single", 1, f"[{lang()['item.minecraft.beef']}]", "Steve")]
    assert "minecraft:beef" not in host.inventories[host.get("Alex").uuid]
    ex.ops.add("Alex", level=2)
    host.rules["sendCommandFeedback"] = False
    r = ex.run(ex.player_source(host.get("Alex")), "give @s stone")
    assert r.success and r.messages == []  # players see no success feedback without sendCommandFeedback
    assert run(ex, "give Alex stone").messages  # the console always does


def test_scoreboard(ex: CommandExecutor, host: MemoryHost) -> None:
    assert run(ex, "scoreboard objectives list").messages == [L("commands.scoreboard.objectives.list.empty")]
    assert run(ex, "scoreboard objectives add k dummy").messages == [
        L("commands.scoreboard.objectives.add.success", "[k]")
    ]
    assert run(ex, "scoreboard objectives add k dummy").messages == [
        L("commands.scoreboard.objectives.add.duplicate")
    ]
    run(ex, 'scoreboard objectives add hp health "Health"')
    assert run(ex, "scoreboard objectives list").messages == [
        L("commands.scoreboard.objectives.list.success", 2, "[k], [Health]")
    ]
    assert run(ex, "scoreboard players set Steve k 5").messages == [
        L("commands.scoreboard.players.set.success.single", "[k]", "Steve", 5)
    ]
    assert run(ex, "scoreboard players add Steve k 2").messages == [
        L("commands.scoreboard.players.add.success.single", 2, "[k]", "Steve", 7)
    ]
    assert run(ex, "scoreboard players remove @a k 1").messages == [
        L("commands.scoreboard.players.remove.success.multiple", 1, "[k]", 2)
    ]
    r = run(ex, "scoreboard players get Steve k")
    assert r.messages == [L("commands.scoreboard.players.get.success", "Steve", 6, "[k]")] and r.result == 6
    assert run(ex, "scoreboard players get Nobody k").messages == [
        L("commands.scoreboard.players.get.null", "k", "Nobody")
    ]
    assert run(ex, "scoreboard players set Steve hp 1").messages == [L("arguments.objective.readonly", "hp")]
    assert run(ex, "scoreboard players set Steve nope 1").messages == [
        L("arguments.objective.notFound", "nope")
    ]
    assert run(ex, "give @a[scores={k=5..}] stone").messages == [
        L("commands.give.success.single", 1, "[Stone]", "Steve")
    ]
    assert run(ex, "scoreboard players list").messages == [
        L("commands.scoreboard.players.list.success", 2, "Steve, Alex")
    ]
    assert run(ex, "scoreboard players list Steve").messages == [
        L("commands.scoreboard.players.list.entity.success", "Steve", 1),
        L("commands.scoreboard.players.list.entity.entry", "[k]", 6),
    ]
    assert run(ex, "scoreboard players reset * k").messages == [
        L("commands.scoreboard.players.reset.specific.multiple", "[k]", 2)
    ]
    assert run(ex, "scoreboard objectives remove k").messages == [
        L("commands.scoreboard.objectives.remove.success", "[k]")
    ]


def test_ops_list_and_agents(tmp_path, host: MemoryHost) -> None:
    path = tmp_path / "ops.json"
    path.write_text('[{"uuid": "", "name": "Admin", "level": 4, "bypassesPlayerLimit": false}]')
    ops = OpsList.load(path, never_ops={"agent"})
    assert ops.level("admin") == 4 and ops.level("Agent") == 0 and ops.level("Steve") == 0
    with pytest.raises(ContractError, match="agent players are never ops"):
        ops.add("Agent")
    path.write_text('{"name": "x"}')
    with pytest.raises(ContractError, match="ops.json: expected a JSON list"):
        OpsList.load(path)
    ex = CommandExecutor(host, ops)
    agent = host.add_player("agent", (0.0, 65.0, 0.0))
    r = ex.run(ex.player_source(agent), "give @s diamond")
    assert r.messages == [L("command.unknown.command"), here("give @s diamond", 0)]
    assert ex.run(ex.player_source(agent), "list").success  # level 0 command


def test_unexpected_host_errors_answer_command_failed(ex: CommandExecutor, host: MemoryHost) -> None:
    from mirrorcraft.server.commands import HostUnsupported

    def missing(*args: object) -> bool:
        raise HostUnsupported("MemoryHost.add_effect: not available")

    host.add_effect = missing  # type: ignore[method-assign]
    r = run(ex, "effect give Steve speed")
    assert not r.success and r.messages == [L("command.failed")]  # vanilla's answer to any exception


def test_selector_resolution(host: MemoryHost) -> None:
    from mirrorcraft.server.commands import parse_selector
    from mirrorcraft.server.commands.reader import StringReader

    ex = CommandExecutor(host)
    console = ex.console_source()  # at the spawn (8, 65, 8)

    def names(text: str, source=console) -> list[str]:
        return [e.name for e in parse_selector(StringReader(text)).resolve(host, source)]

    assert names("@p") == ["Steve"]  # nearest to the spawn
    assert names("@a[sort=furthest]") == ["Alex", "Steve"]
    assert names("@e[type=cow,sort=nearest]") == ["Cow", "Cow"]
    assert names("@e[distance=..5]") == ["Steve", "Cow"]  # world order, not sorted
    assert names("@e[x=40,y=65,z=40,distance=..1]") == ["Cow"]
    assert names("@e[x=99,y=60,z=99,dx=2,dy=10,dz=2]") == ["Alex"]
    assert names("@a[name=!Steve]") == ["Alex"]
    assert names("@s") == []  # the console is no entity
    assert names("@s", ex.player_source(host.get("Alex"))) == ["Alex"]
    picks = {tuple(names("@r")) for _ in range(30)}
    assert picks == {("Steve",), ("Alex",)}  # both reachable; seeded by the host
    again = MemoryHost(seed=0)
    for n, pos in (("Steve", (10.0, 65.0, 10.0)), ("Alex", (100.0, 65.0, 100.0))):
        again.add_player(n, pos)
    same = [e.name for e in parse_selector(StringReader("@a[sort=random]")).resolve(again, console)]
    fresh = MemoryHost(seed=0)
    for n, pos in (("Steve", (10.0, 65.0, 10.0)), ("Alex", (100.0, 65.0, 100.0))):
        fresh.add_player(n, pos)
    assert [e.name for e in parse_selector(StringReader("@a[sort=random]")).resolve(fresh, console)] == same


def test_advancement_tree_modes(ex: CommandExecutor) -> None:
    # every story advancement descends from story/root: "from root" selects all 16
    assert run(ex, "advancement grant Steve from minecraft:story/root").messages == [
        L("commands.advancement.grant.many.to.one.success", 16, "Steve")
    ]
    # through smelt_iron: its parents (root, mine_stone, upgrade_tools), itself, and its descendants
    r = run(ex, "advancement revoke Steve through minecraft:story/smelt_iron")
    expected = {"root", "mine_stone", "upgrade_tools", "smelt_iron", "obtain_armor", "lava_bucket", "iron_tools",
                "deflect_arrow", "form_obsidian", "mine_diamond", "enter_the_nether", "shiny_gear", "enchant_item",
                "cure_zombie_villager", "follow_ender_eye", "enter_the_end"}  # fmt: skip
    assert r.messages == [L("commands.advancement.revoke.many.to.one.success", len(expected), "Steve")]
