"""The embedded evaluator's encounter semantics with real Mirror packs: first differing action per rule,
vanilla-equal outcomes are not encounters, rule ids traced through the pack index, action attribution."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

import pytest

from mirrorcraft.contracts.rules import load_suite
from mirrorcraft.contracts.skills import ItemStack, OutcomeReport, SkillCall, signature
from mirrorcraft.errors import ContractError
from mirrorcraft.harness.evaluators import EmbeddedEvaluator
from mirrorcraft.rules.cooking import FUEL, INPUT, CookingDevice, Stack
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.loot import BlockView, LootContext, ToolView
from mirrorcraft.rules.oracle import OutcomeOracle

N = None
P = "minecraft:oak_planks"


def craft_call(grid: list[list[str | None]]) -> SkillCall:
    return SkillCall.create("craft_grid", {"workstation": "inventory", "grid": grid})


def report(skill: str) -> OutcomeReport:
    return OutcomeReport(skill=skill, status="success", completed=1)


def evaluator(suite: str) -> EmbeddedEvaluator:
    ev = EmbeddedEvaluator()
    ev.begin_manifest(load_suite(suite))
    return ev


def dig_ctx(block: str, tool: str = "minecraft:iron_pickaxe", **ench: int) -> LootContext:
    return LootContext(
        tool=ToolView(item=tool, enchantments={f"minecraft:{k}": v for k, v in ench.items()}),
        block=BlockView(name=block),
    )


def test_craft_encounter_first_per_rule(mirror: Callable[[str], DatapackSet]) -> None:
    oracle = OutcomeOracle(mirror("M01"))
    ev = evaluator("M01")
    sticks = [[P, N], [P, N]]
    # action 1: planks from a stripped log touch the overridden recipe family but give vanilla's 4
    grid1 = [["minecraft:stripped_oak_log", N], [N, N]]
    ev.begin_action(1, craft_call(grid1))
    result, out = oracle.craft(grid1)
    assert out.rules == ["M01.log_yields_two_planks"] and out.actual == out.vanilla
    ev.record_craft(grid1, result, out, tick=10)
    asyncio.run(ev.after_action(1, craft_call(grid1), report("craft_grid")))
    assert ev.encounter_list() == []
    # action 2: two sticks' worth taken twice -> 1 stick each instead of 4
    ev.begin_action(2, craft_call(sticks))
    for _ in range(2):
        result, out = oracle.craft(sticks)
        ev.record_craft(sticks, result, out, tick=20)
    # action 3: the same again is not a new encounter
    ev.begin_action(3, craft_call(sticks))
    result, out = oracle.craft(sticks)
    ev.record_craft(sticks, result, out, tick=30)
    # action 4: a log gives 2 planks instead of 4
    grid4 = [["minecraft:oak_log", N], [N, N]]
    ev.begin_action(4, craft_call(grid4))
    result, out = oracle.craft(grid4)
    ev.record_craft(grid4, result, out, tick=40)
    encounters = asyncio.run(ev.encounters())
    assert [(e.rule_id, e.action_index) for e in encounters] == [
        ("M01.two_planks_yield_one_stick", 2),
        ("M01.log_yields_two_planks", 4),
    ]
    stick = encounters[0]
    assert stick.signature == signature(craft_call(sticks))
    assert stick.vanilla_outcome == [ItemStack(item="minecraft:stick", count=8)]  # both takes of action 2
    assert stick.actual_outcome == [ItemStack(item="minecraft:stick", count=2)]
    assert [e.kind for e in ev.events()] == ["craft"] * 5
    assert [e.seq for e in ev.events()] == list(range(5))


def test_loot_encounter_uses_a_cloned_rng(mirror: Callable[[str], DatapackSet], vanilla: DatapackSet) -> None:
    m02 = mirror("M02")
    oracle = OutcomeOracle(m02)
    rng = random.Random(5)
    twin = random.Random(5)
    actual, out = oracle.loot("minecraft:blocks/iron_ore", dig_ctx("minecraft:iron_ore"), rng)
    # the world's RNG advanced exactly as a lone roll of the Mirror table would have advanced it
    alone = m02.loot.roll(
        "minecraft:blocks/iron_ore", dig_ctx("minecraft:iron_ore"), twin, m02.tag_resolver()
    )
    assert actual == alone and rng.getstate() == twin.getstate()
    assert out.rules == ["M02.iron_ore_adds_ingot"]
    assert {s.item for s in out.actual} == {"minecraft:raw_iron", "minecraft:iron_ingot"}
    assert [s.item for s in out.vanilla] == ["minecraft:raw_iron"]
    raw = lambda stacks: [s.count for s in stacks if s.item == "minecraft:raw_iron"]  # noqa: E731
    assert raw(out.actual) == raw(out.vanilla)  # same random numbers on both sides

    ev = evaluator("M02")
    ev.begin_action(1, SkillCall.create("mine", {"block": "stone"}))
    _, stone = oracle.loot("minecraft:blocks/stone", dig_ctx("minecraft:stone"), rng)
    assert stone.rules == [] and stone.actual == stone.vanilla
    ev.record_dig("minecraft:stone", stone, tick=5)
    # silk touch keeps vanilla: the overridden table is touched but the outcome is vanilla's
    ev.begin_action(2, SkillCall.create("mine", {"block": "iron_ore"}))
    _, silk = oracle.loot("minecraft:blocks/iron_ore", dig_ctx("minecraft:iron_ore", silk_touch=1), rng)
    assert silk.actual == silk.vanilla == [ItemStack(item="minecraft:iron_ore", count=1)]
    assert silk.rules == ["M02.iron_ore_adds_ingot"]
    ev.record_dig("minecraft:iron_ore", silk, pos=(1, 2, 3), tick=6)
    assert ev.encounter_list() == []
    ev.begin_action(3, SkillCall.create("mine", {"block": "iron_ore"}))
    ev.record_dig("minecraft:iron_ore", out, tick=7)
    (enc,) = ev.encounter_list()
    assert (enc.rule_id, enc.action_index, enc.signature) == (
        "M02.iron_ore_adds_ingot",
        3,
        ("mine", "minecraft:iron_ore"),
    )
    # a vanilla world: no rules anywhere
    v_actual, v_out = OutcomeOracle(vanilla).loot(
        "minecraft:blocks/iron_ore", dig_ctx("minecraft:iron_ore"), random.Random(5)
    )
    assert v_out.rules == [] and v_out.actual == v_out.vanilla


def test_entity_loot_replace(mirror: Callable[[str], DatapackSet]) -> None:
    oracle = OutcomeOracle(mirror("M04"))
    _, out = oracle.loot("minecraft:entities/cow", LootContext(), random.Random(1))
    assert out.rules == ["M04.cow_drops_leather_beef_bookshelf"]
    assert "minecraft:bookshelf" in {s.item for s in out.actual}
    assert "minecraft:bookshelf" not in {s.item for s in out.vanilla}


def test_smelt_take_encounter(mirror: Callable[[str], DatapackSet]) -> None:
    m01 = mirror("M01")
    oracle = OutcomeOracle(m01)
    ev = evaluator("M01")
    f = CookingDevice("furnace", m01, book=oracle.book)
    f.put(INPUT, Stack("minecraft:raw_iron", 2))
    f.put(FUEL, Stack("minecraft:coal", 1))
    call = SkillCall.create("smelt", {"input": "raw_iron", "fuel": "coal", "count": 2})
    ev.begin_action(1, call)
    f.run(400)
    take = f.take_output(rng=random.Random(0))
    assert take is not None
    out = oracle.cook_take("furnace", take)
    assert out.actual == [ItemStack(item="minecraft:iron_nugget", count=6)]
    assert out.vanilla == [ItemStack(item="minecraft:iron_ingot", count=2)]
    ev.record_smelt("furnace", take, out, tick=400)
    (enc,) = ev.encounter_list()
    assert enc.rule_id == "M01.raw_iron_smelts_to_three_nuggets" and enc.signature == signature(call)


def test_blasting_something_unaffected_is_no_encounter(mirror: Callable[[str], DatapackSet]) -> None:
    m05 = mirror("M05")
    oracle = OutcomeOracle(m05)
    ev = evaluator("M05")
    b = CookingDevice("blast_furnace", m05, book=oracle.book)
    b.put(
        INPUT, Stack("minecraft:iron_sword", 1)
    )  # iron_nugget_from_blasting: overridden by M05 (hoe removed)
    b.put(FUEL, Stack("minecraft:coal", 1))
    ev.begin_action(
        1, SkillCall.create("smelt", {"input": "iron_sword", "device": "blast_furnace", "fuel": "coal"})
    )
    b.run(100)
    take = b.take_output(rng=random.Random(0))
    assert take is not None
    out = oracle.cook_take("blast_furnace", take)
    assert "M05.iron_hoe_cooks_to_iron_pickaxe" in out.rules
    assert out.actual == out.vanilla == [ItemStack(item="minecraft:iron_nugget", count=1)]
    ev.record_smelt("blast_furnace", take, out)
    assert ev.encounter_list() == []


def test_attribution_milestones_and_manifest_filter(mirror: Callable[[str], DatapackSet]) -> None:
    ticks = iter(range(100, 200))
    ev = EmbeddedEvaluator(clock=lambda: next(ticks))
    asyncio.run(ev.begin(_identity("M01")))
    assert ev.manifest is not None and ev.manifest.suite == "M01"
    ev.record_milestone("minecraft:story/root")  # before any action
    oracle = OutcomeOracle(mirror("M01"))
    sticks = [[P, N], [P, N]]
    call = craft_call(sticks)
    ev.begin_action(1, call)
    ev.record_milestone("minecraft:story/mine_stone", tick=3)
    ev.record_milestone("minecraft:story/mine_stone", tick=4)  # once only
    ev.record_milestone("minecraft:recipes/misc/stick", tick=5)  # not a milestone
    asyncio.run(ev.after_action(1, call, report("craft_grid")))
    # between actions: logged, never an encounter
    result, out = oracle.craft(sticks)
    rec = ev.record_craft(sticks, result, out)
    assert (rec.action_index, rec.in_action) == (1, False)
    assert ev.encounter_list() == []
    milestones = asyncio.run(ev.milestones())
    assert [(m.advancement, m.action_index, m.tick) for m in milestones] == [
        ("minecraft:story/root", 0, 100),
        ("minecraft:story/mine_stone", 1, 3),
    ]
    with pytest.raises(ContractError, match="indices must increase"):
        ev.begin_action(1, call)
    # rule ids outside the episode's manifest never make encounters (an M01 pack under an M02 manifest)
    other = evaluator("M02")
    other.begin_action(1, call)
    other.record_craft(sticks, result, out)
    assert other.encounter_list() == []


def test_implicit_attribution_with_after_action_only(mirror: Callable[[str], DatapackSet]) -> None:
    oracle = OutcomeOracle(mirror("M01"))
    ev = EmbeddedEvaluator(explicit_actions=False)
    ev.begin_manifest(load_suite("M01"))
    grid = [["minecraft:oak_log", N], [N, N]]
    call = craft_call(grid)
    asyncio.run(ev.after_action(1, SkillCall.create("explore", {}), report("explore")))
    result, out = oracle.craft(grid)
    rec = ev.record_craft(grid, result, out)
    assert (rec.action_index, rec.in_action) == (2, True)
    assert ev.encounter_list() == []  # the signature of action 2 is known only when it ends
    asyncio.run(ev.after_action(2, call, report("craft_grid")))
    (enc,) = ev.encounter_list()
    assert (enc.action_index, enc.signature, enc.rule_id) == (2, signature(call), "M01.log_yields_two_planks")
    with pytest.raises(ContractError, match="explicit_actions=False"):
        ev.begin_action(3, call)


def _identity(suite: str):  # noqa: ANN202
    from mirrorcraft.contracts.episodes import EpisodeIdentity

    return EpisodeIdentity.model_validate(
        {
            "world": "plains-1",
            "suite": suite,
            "task": "iron_armor",
            "budget": 50,
            "agent": "react",
            "model": {"name": "test-model"},
            "repetition": 0,
            "study_seed": 0,
        }
    )
