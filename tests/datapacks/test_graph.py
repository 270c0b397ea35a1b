"""Dependency/reachability graph: vanilla and the six suites keep every task reachable in every biome;
hand-made manifests that break a route are rejected with the route named."""

from __future__ import annotations

import pytest

from mirrorcraft.contracts.rules import SuiteManifest
from mirrorcraft.contracts.tasks import TaskId
from mirrorcraft.datapacks.graph import (
    ENCHANT,
    analyse_suite,
    analyse_vanilla,
    biome_worlds,
    obtainable_items,
    task_dependencies,
)
from mirrorcraft.errors import DatapackError

BIOMES = ["jungle", "plains", "savanna", "snowy_plains", "taiga"]


@pytest.fixture(scope="module")
def analyses(suites):
    return {s: analyse_suite(m) for s, m in suites.items()}


def test_biome_worlds_from_specs() -> None:
    worlds = biome_worlds()
    assert sorted(worlds) == BIOMES
    assert (
        "minecraft:spruce_log" in worlds["taiga"].blocks and "minecraft:oak_log" not in worlds["taiga"].blocks
    )
    for w in worlds.values():
        assert {"minecraft:obsidian", "minecraft:deepslate_diamond_ore", "minecraft:sugar_cane"} <= w.blocks
        assert w.mobs == {"minecraft:cow"}


def test_vanilla_every_task_reachable_and_route_items_obtainable() -> None:
    v = analyse_vanilla()
    assert v.accepted, v.problems
    assert len(v.reachability) == 15 and all(r.reachable for r in v.reachability)
    have = obtainable_items({}, "plains")
    for task, deps in task_dependencies().items():
        missing = {
            i for i in deps.items if i not in have and not i.endswith("_log") and not i.endswith("_planks")
        }
        assert not missing, (task, missing)
    assert {"minecraft:oak_log", "minecraft:oak_planks", ENCHANT} <= have
    route = [s.gives for s in v.reach("iron_armor", "plains").route]
    for item in (
        "minecraft:oak_planks",
        "minecraft:stick",
        "minecraft:stone_pickaxe",
        "minecraft:raw_iron",
        "minecraft:furnace",
        "minecraft:iron_ingot",
    ):
        assert item in route
    assert (
        route.index("minecraft:stone_pickaxe")
        < route.index("minecraft:raw_iron")
        < route.index("minecraft:iron_ingot")
    )


def test_six_suites_accepted(analyses) -> None:
    for s, a in analyses.items():
        assert a.accepted, (s, a.problems)
        assert not a.warnings, (s, a.warnings)
        assert all(r.reachable for r in a.reachability)
        for r in a.rules:
            assert any(r.relevant.values()), r.rule_id
            assert r.observable, r.rule_id


def test_relevance_per_task(analyses) -> None:
    def rel(s: str, rule: str) -> set[str]:
        return {t for t, v in analyses[s].rule(f"{s}.{rule}").relevant.items() if v}

    everyone = {"iron_armor", "diamond", "enchantment"}
    assert rel("M01", "log_yields_two_planks") == everyone
    assert rel("M01", "raw_iron_smelts_to_three_nuggets") == everyone
    assert rel("M01", "three_sugar_cane_yield_one_paper") == {"enchantment"}
    assert rel("M02", "diamond_ore_adds_obsidian") == {"diamond", "enchantment"}
    assert rel("M03", "diamond_pickaxe_recipe_yields_netherite_pickaxe") == {"enchantment"}
    assert rel("M04", "coal_ore_drops_coal_block") == everyone
    assert rel("M04", "cow_drops_leather_beef_bookshelf") == {"enchantment"}
    assert rel("M05", "iron_pickaxe_recipe_yields_iron_hoe") == {"diamond", "enchantment"}
    assert rel("M06", "lapis_ore_adds_two_obsidian") == {"enchantment"}


def test_encounterability(analyses) -> None:
    # Crafting a diamond pickaxe needs diamonds, i.e. completing the Diamond task first.
    enc = analyses["M03"].rule("M03.diamond_pickaxe_recipe_yields_netherite_pickaxe").encounterable
    assert enc == {"iron_armor": True, "diamond": False, "enchantment": True}
    enc = analyses["M05"].rule("M05.diamond_hoe_blasts_to_diamond_pickaxe").encounterable
    assert enc["diamond"] is False and enc["enchantment"] is True
    assert all(analyses["M01"].rule("M01.two_planks_yield_one_stick").encounterable.values())


def test_m05_routes_go_through_hoes(analyses) -> None:
    for biome in BIOMES:
        steps = analyses["M05"].reach("enchantment", biome).route
        made = {s.gives: s for s in steps}
        assert made["minecraft:iron_pickaxe"].process.endswith(":minecraft:iron_hoe")
        assert made["minecraft:iron_pickaxe"].rules == ["M05.iron_hoe_cooks_to_iron_pickaxe"]
        assert made["minecraft:diamond_pickaxe"].process == "blast_furnace:minecraft:diamond_hoe"
        assert "minecraft:blast_furnace" in made


def test_m04_diamonds_come_from_the_block(analyses) -> None:
    made = {s.gives: s for s in analyses["M04"].reach("diamond", "plains").route}
    assert made["minecraft:diamond"].process == "minecraft:diamond"  # crafting 9 diamonds from a block
    assert made["minecraft:diamond_block"].process.endswith("diamond_ore")


def _manifest(*rules: dict) -> SuiteManifest:
    return SuiteManifest.model_validate(
        {
            "suite": "M01",
            "name": "broken",
            "archive_name": "x",
            "card": {"title": "t", "rules": "r", "effect": "e"},
            "rules": list(rules),
        }
    )


def _dirt(block: str) -> dict:
    return {"block": block, "drops": [{"item": "minecraft:dirt", "min": 1, "max": 1}]}


def test_iron_ingots_unobtainable_is_rejected() -> None:
    m = _manifest(
        {
            "id": "M01.raw_iron_to_dirt",
            "operator": "cooking_output",
            "text": "raw iron smelts into dirt",
            "changes": [
                {"device": d, "input": "minecraft:raw_iron", "result": {"item": "minecraft:dirt", "count": 1}}
                for d in ("furnace", "blast_furnace")
            ],
        },
        {
            "id": "M01.iron_ore_drops_dirt",
            "operator": "block_drop_replace",
            "text": "iron ore drops dirt",
            "changes": [_dirt("minecraft:iron_ore"), _dirt("minecraft:deepslate_iron_ore")],
        },
    )
    a = analyse_suite(m, biomes=["plains"])
    assert not a.accepted
    assert {r.task for r in a.reachability if not r.reachable} == {"iron_armor", "diamond", "enchantment"}
    broken = a.reach("iron_armor", "plains").broken
    assert broken == [
        "Iron Armor in plains: milestone smelt_iron needs minecraft:iron_ingot, which is unobtainable",
        "Iron Armor in plains: milestone obtain_armor needs one of minecraft:iron_boots, minecraft:iron_chestplate, "
        "minecraft:iron_helmet, minecraft:iron_leggings, which is unobtainable",
    ]
    assert a.reach("iron_armor", "plains").milestones == {
        "mine_stone": True,
        "upgrade_tools": True,
        "smelt_iron": False,
        "obtain_armor": False,
    }
    with pytest.raises(DatapackError, match=r"iron_ingot"):
        a.raise_if_rejected()


def test_only_the_dependent_tasks_break() -> None:
    m = _manifest(
        {
            "id": "M01.diamond_ore_drops_dirt",
            "operator": "block_drop_replace",
            "text": "diamond ore drops dirt",
            "changes": [_dirt("minecraft:diamond_ore"), _dirt("minecraft:deepslate_diamond_ore")],
        }
    )
    a = analyse_suite(m, biomes=["taiga"])
    assert a.reach(TaskId.IRON_ARMOR.value, "taiga").reachable
    assert not a.reach("diamond", "taiga").reachable
    assert a.reach("diamond", "taiga").milestones["mine_diamond"] is False
    assert a.reach("enchantment", "taiga").milestones["iron_tools"] is True
    assert any("mine_diamond needs minecraft:diamond" in p for p in a.problems)


def test_irrelevant_rule_warns() -> None:
    m = _manifest(
        {
            "id": "M01.glass_pane",
            "operator": "recipe_result",
            "text": "glass panes give glass",
            "changes": [
                {"recipe": "minecraft:glass_pane", "result": {"item": "minecraft:glass", "count": 1}}
            ],
        }
    )
    a = analyse_suite(m, biomes=["plains"])
    assert a.accepted
    assert a.warnings == ["rule M01.glass_pane touches no dependency of any task"]
    assert a.rule("M01.glass_pane").relevant == {"iron_armor": False, "diamond": False, "enchantment": False}
