"""``RconServerControl`` / ``RconEvaluator`` over a real RCON socket to the command executor (in-memory
host): controls applied and read back, milestones by the advancement selector query, reset through the
restart callback, and harness-side rule encounters from the shipped suite manifests."""

from __future__ import annotations

import pytest
import pytest_twisted
from support.control_memory_host import MemoryHost
from twisted.internet import reactor

from mirrorcraft.contracts.episodes import Controls, EpisodeIdentity, ModelSettings, SpawnInfo
from mirrorcraft.contracts.observation import BlockPos
from mirrorcraft.contracts.rules import load_suite
from mirrorcraft.contracts.skills import OutcomeReport, SkillCall
from mirrorcraft.harness.control import EFFECT_SECONDS, ControlError, RconServerControl, match_reply
from mirrorcraft.harness.encounters import detect_encounters
from mirrorcraft.harness.rcon import connect_rcon
from mirrorcraft.harness.report_evaluators import RconEvaluator
from mirrorcraft.server.commands import CommandExecutor
from mirrorcraft.server.rcon import RconServerFactory


@pytest.fixture
def plane():
    host = MemoryHost()
    ex = CommandExecutor(host)
    factory = RconServerFactory(ex.rcon_handler(), password="pw")
    port = factory.listen(reactor)
    pn = port.getHost().port
    yield host, ex, (lambda: connect_rcon(reactor, "127.0.0.1", pn, "pw"))
    pytest_twisted.blockon(port.stopListening())


def _identity(suite: str | None = "M02") -> EpisodeIdentity:
    return EpisodeIdentity(world="plains-1", suite=suite, task="iron_armor", budget=10, agent="react",
                           model=ModelSettings(name="m"), repetition=0, study_seed=1)  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_apply_controls_sets_and_reads_back(plane) -> None:
    host, _, connect = plane
    control = RconServerControl(connect, player="agent", deterministic_server=True)
    with pytest.raises(ControlError, match="'agent' is not online"):
        await control.apply_controls(Controls())
    agent = host.add_player("agent", (8.0, 65.0, 8.0))
    host.day, host.diff = 13000, "normal"
    applied = await control.apply_controls(Controls())
    assert applied == Controls()  # everything requested was confirmed by the server's replies
    assert host.diff == "peaceful" and host.day == 6000 and host.weather == ("clear", 6000)
    assert host.xp[agent.uuid][0] == 100
    assert host.effects[agent.uuid] == {
        "minecraft:haste": (EFFECT_SECONDS * 20, 1, True),
        "minecraft:speed": (EFFECT_SECONDS * 20, 0, True),
        "minecraft:resistance": (EFFECT_SECONDS * 20, 0, True),
        "minecraft:strength": (EFFECT_SECONDS * 20, 0, True),
    }
    assert all(host.rules[k] == v for k, v in Controls().game_rules.items())
    # applying twice is fine (difficulty "already set" is accepted, effects are cleared first)
    assert await control.apply_controls(Controls(time_of_day=1000, xp_level=5)) == Controls(
        time_of_day=1000, xp_level=5
    )
    sent = [c for c, _ in control.log]
    assert (
        "effect give agent minecraft:haste 1000000 1 true" in sent and "experience set agent 5 levels" in sent
    )
    # a server that cannot seed its randomness (a vanilla jar) never reports deterministic controls
    vanilla_like = RconServerControl(connect, player="agent")
    assert (await vanilla_like.apply_controls(Controls())).deterministic is False
    bad = Controls(game_rules={"notARule": True})
    with pytest.raises(ControlError, match="'gamerule notARule true': unexpected reply 'Incorrect argument"):
        await control.apply_controls(bad)


@pytest_twisted.ensureDeferred
async def test_milestones_reset_and_evaluator(plane) -> None:
    host, ex, connect = plane
    host.add_player("agent", (8.0, 65.0, 8.0))
    host.add_player("other", (9.0, 65.0, 8.0))
    spawns: list[EpisodeIdentity] = []

    async def restart(identity: EpisodeIdentity) -> SpawnInfo:
        spawns.append(identity)
        return SpawnInfo(position=BlockPos(x=8, y=65, z=8), biome="minecraft:plains")

    control = RconServerControl(connect, restart=restart, player="agent")
    assert await control.query_milestones() == []
    ex.run(ex.console_source(), "advancement grant other only minecraft:story/mine_stone")
    assert await control.query_milestones() == []  # another player's advancement does not count
    ex.run(ex.console_source(), "advancement grant agent until minecraft:story/upgrade_tools")
    assert await control.query_milestones() == ["minecraft:story/root", "minecraft:story/mine_stone",
                                                "minecraft:story/upgrade_tools"]  # fmt: skip
    ident = _identity()
    spawn = await control.reset(ident)
    assert spawns == [ident] and spawn.biome == "minecraft:plains"
    assert await RconServerControl(connect).query_milestones()  # @p form works too

    evaluator = RconEvaluator(control)
    assert evaluator.kind == "rcon" and "harness" in evaluator.encounter_basis
    host.game = 500
    await evaluator.begin(ident)
    await evaluator.joined()  # the player is in: milestones granted so far count for action 0
    ex.run(ex.console_source(), "advancement grant agent only minecraft:story/smelt_iron")
    host.game = 740
    call = SkillCall.create("mine", {"block": "iron_ore", "count": 1})
    report = OutcomeReport(skill="mine", status="success", completed=1,
                           drops_collected=[{"item": "minecraft:raw_iron", "count": 1},
                                            {"item": "minecraft:iron_ingot", "count": 1}],
                           blocks_broken=[{"block": "minecraft:iron_ore", "count": 1}])  # fmt: skip
    await evaluator.after_action(1, call, report)
    events = await evaluator.milestones()
    assert [(e.advancement, e.action_index, e.tick) for e in events] == [
        ("minecraft:story/root", 0, 500), ("minecraft:story/mine_stone", 0, 500),
        ("minecraft:story/upgrade_tools", 0, 500), ("minecraft:story/smelt_iron", 1, 740),
    ]  # fmt: skip
    [enc] = await evaluator.encounters()
    assert enc.rule_id == "M02.iron_ore_adds_ingot" and enc.action_index == 1
    assert [(s.item, s.count) for s in enc.vanilla_outcome] == [("minecraft:raw_iron", 1)]
    await evaluator.after_action(2, call, report)  # the first encounter per rule is kept
    assert len(await evaluator.encounters()) == 1


def test_reply_patterns() -> None:
    assert match_reply("commands.gamerule.query", "Gamerule doDaylightCycle is currently set to: false") == (
        "doDaylightCycle", "false")  # fmt: skip
    assert match_reply("commands.execute.conditional.pass_count", "Test failed") is None


def _grid(*rows: list[str | None]) -> list[list[str | None]]:
    return [list(r) for r in rows]


def test_encounters_from_manifests_and_reports() -> None:
    m01 = load_suite("M01")
    craft = SkillCall.create("craft_grid", {"workstation": "inventory", "grid": _grid(["oak_log", None], [None, None]),
                                            "count": 3})  # fmt: skip
    mirror = OutcomeReport(skill="craft_grid", status="success", completed=3,
                           produced=[{"item": "minecraft:oak_planks", "count": 6}])  # fmt: skip
    [enc] = detect_encounters(m01, 4, craft, mirror)
    assert enc.rule_id == "M01.log_yields_two_planks"
    assert [(s.item, s.count) for s in enc.vanilla_outcome] == [
        ("minecraft:oak_planks", 12)
    ]  # vanilla 4 per log
    vanilla = OutcomeReport(skill="craft_grid", status="success", completed=3,
                            produced=[{"item": "minecraft:oak_planks", "count": 12}])  # fmt: skip
    assert detect_encounters(m01, 4, craft, vanilla) == []  # vanilla outcome: nothing encountered
    smelt = SkillCall.create("smelt", {"input": "raw_iron", "device": "furnace", "fuel": "coal", "count": 2})
    rep = OutcomeReport(skill="smelt", status="success", completed=2,
                        produced=[{"item": "minecraft:iron_nugget", "count": 6}])  # fmt: skip
    [enc] = detect_encounters(m01, 5, smelt, rep)
    assert [(s.item, s.count) for s in enc.vanilla_outcome] == [("minecraft:iron_ingot", 2)]
    m04 = load_suite("M04")
    mine = SkillCall.create("mine", {"block": "coal_ore", "count": 2})
    rep = OutcomeReport(skill="mine", status="success", completed=2,
                        drops_collected=[{"item": "minecraft:coal_block", "count": 2}],
                        blocks_broken=[{"block": "minecraft:coal_ore", "count": 2}])  # fmt: skip
    [enc] = detect_encounters(m04, 6, mine, rep)
    assert enc.rule_id == "M04.coal_ore_drops_coal_block"
    assert [(s.item, s.count) for s in enc.vanilla_outcome] == [("minecraft:coal", 2)]
    m06 = load_suite("M06")
    attack = SkillCall.create("attack", {"mob": "cow", "count": 1})
    rep = OutcomeReport(
        skill="attack",
        status="success",
        completed=1,
        drops_collected=[{"item": "minecraft:beef", "count": 2}, {"item": "minecraft:paper", "count": 2}],
    )
    [enc] = detect_encounters(m06, 7, attack, rep)
    assert enc.rule_id == "M06.cow_adds_two_paper" and [(s.item, s.count) for s in enc.vanilla_outcome] == [
        ("minecraft:beef", 2)]  # fmt: skip
