"""The hand-authored vanilla 1.19.2 ``story`` advancements (the benchmark's milestones).

The tree, triggers and item sets follow the vanilla 1.19.2 advancement files as documented on the
Minecraft wiki "Advancement" page (Minecraft tab); display keys are checked against minecraft-data's
1.19.2 ``language.json`` and item ids against its ``items.json``, an independent source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.refdata import mcdata_path

import mirrorcraft

PACK = Path(mirrorcraft.__file__).parent / "gamedata" / "vanilla_pack"
STORY = PACK / "data" / "minecraft" / "advancements" / "story"
TAGS = PACK / "data" / "minecraft" / "tags" / "items"

# Vanilla 1.19.2's story tab: advancement → parent.
VANILLA_TREE = {
    "root": None,
    "mine_stone": "root",
    "upgrade_tools": "mine_stone",
    "smelt_iron": "upgrade_tools",
    "obtain_armor": "smelt_iron",
    "lava_bucket": "smelt_iron",
    "iron_tools": "smelt_iron",
    "deflect_arrow": "obtain_armor",
    "form_obsidian": "lava_bucket",
    "mine_diamond": "iron_tools",
    "enter_the_nether": "form_obsidian",
    "shiny_gear": "mine_diamond",
    "enchant_item": "mine_diamond",
    "cure_zombie_villager": "enter_the_nether",
    "follow_ender_eye": "enter_the_nether",
    "enter_the_end": "follow_ender_eye",
}


@pytest.fixture(scope="module")
def advancements() -> dict[str, dict[str, Any]]:
    return {f.stem: json.loads(f.read_text()) for f in sorted(STORY.glob("*.json"))}


@pytest.fixture(scope="module")
def items(node_modules: Path) -> set[str]:
    return {
        f"minecraft:{i['name']}" for i in json.loads(mcdata_path(node_modules, "1.19.2", "items").read_text())
    }


def inventory_items(criterion: dict[str, Any]) -> list[dict[str, Any]]:
    assert criterion["trigger"] == "minecraft:inventory_changed"
    return criterion["conditions"]["items"]


def test_exactly_the_sixteen_story_advancements(advancements: dict[str, dict[str, Any]]) -> None:
    assert set(advancements) == set(VANILLA_TREE)


def test_parents_form_the_vanilla_tree(advancements: dict[str, dict[str, Any]]) -> None:
    for name, adv in advancements.items():
        parent = VANILLA_TREE[name]
        assert adv.get("parent") == (f"minecraft:story/{parent}" if parent else None), name
        seen = {name}
        while (parent_id := advancements[name].get("parent")) is not None:
            name = parent_id.removeprefix("minecraft:story/")
            assert name not in seen and name in advancements
            seen.add(name)
        assert name == "root"


def test_display_and_translations(
    advancements: dict[str, dict[str, Any]], node_modules: Path, items: set[str]
) -> None:
    language = json.loads(mcdata_path(node_modules, "1.19.2", "language").read_text())
    for name, adv in advancements.items():
        display = adv["display"]
        for field in ("title", "description"):
            key = display[field]["translate"]
            assert key == f"advancements.story.{name}.{field}"
            assert key in language, key
        assert display["icon"]["item"] in items
        assert display["frame"] in {"task", "goal", "challenge"}
        assert isinstance(display["show_toast"], bool) and isinstance(display["announce_to_chat"], bool)
        assert display["hidden"] is False
    root = advancements["root"]["display"]
    assert root["background"] == "minecraft:textures/gui/advancements/backgrounds/stone.png"
    assert (root["show_toast"], root["announce_to_chat"]) == (False, False)
    assert advancements["cure_zombie_villager"]["display"]["frame"] == "goal"


def test_requirements_name_existing_criteria(
    advancements: dict[str, dict[str, Any]], items: set[str]
) -> None:
    for name, adv in advancements.items():
        criteria = adv["criteria"]
        flat = [c for group in adv["requirements"] for c in group]
        assert sorted(flat) == sorted(criteria), name
        for criterion in criteria.values():
            assert criterion["trigger"].startswith("minecraft:")
            if criterion["trigger"] == "minecraft:inventory_changed":
                for predicate in inventory_items(criterion):
                    assert set(predicate.get("items", [])) <= items


@pytest.mark.parametrize(
    ("name", "item"),
    [
        ("root", "crafting_table"),
        ("upgrade_tools", "stone_pickaxe"),
        ("smelt_iron", "iron_ingot"),
        ("iron_tools", "iron_pickaxe"),
        ("mine_diamond", "diamond"),
        ("form_obsidian", "obsidian"),
        ("lava_bucket", "lava_bucket"),
    ],
)
def test_single_item_milestones(name: str, item: str, advancements: dict[str, dict[str, Any]]) -> None:
    adv = advancements[name]
    assert len(adv["criteria"]) == 1
    (criterion,) = adv["criteria"].values()
    assert inventory_items(criterion) == [{"items": [f"minecraft:{item}"]}]


def test_mine_stone_uses_stone_tool_materials(advancements: dict[str, dict[str, Any]]) -> None:
    (criterion,) = advancements["mine_stone"]["criteria"].values()
    assert inventory_items(criterion) == [{"tag": "minecraft:stone_tool_materials"}]
    tag_file = TAGS / "stone_tool_materials.json"
    assert tag_file.is_file(), f"{tag_file} missing: regenerate with scripts/regen_gamedata.py"
    members = set(json.loads(tag_file.read_text())["values"])
    assert {"minecraft:cobblestone", "minecraft:cobbled_deepslate", "minecraft:blackstone"} == members


@pytest.mark.parametrize(("name", "material"), [("obtain_armor", "iron"), ("shiny_gear", "diamond")])
def test_armor_milestones_are_any_one_piece(
    name: str, material: str, advancements: dict[str, dict[str, Any]]
) -> None:
    adv = advancements[name]
    pieces = [f"{material}_{p}" for p in ("helmet", "chestplate", "leggings", "boots")]
    assert set(adv["criteria"]) == set(pieces)
    for piece in pieces:
        assert inventory_items(adv["criteria"][piece]) == [{"items": [f"minecraft:{piece}"]}]
    assert adv["requirements"] == [pieces]  # one OR group: any single piece completes it


def test_enchant_item_and_other_triggers(advancements: dict[str, dict[str, Any]]) -> None:
    def only(name: str) -> dict[str, Any]:
        (criterion,) = advancements[name]["criteria"].values()
        return criterion

    assert only("enchant_item") == {"conditions": {}, "trigger": "minecraft:enchanted_item"}
    assert only("enter_the_nether") == {
        "conditions": {"to": "minecraft:the_nether"},
        "trigger": "minecraft:changed_dimension",
    }
    assert only("enter_the_end") == {
        "conditions": {"to": "minecraft:the_end"},
        "trigger": "minecraft:changed_dimension",
    }
    assert only("cure_zombie_villager")["trigger"] == "minecraft:cured_zombie_villager"
    deflect = only("deflect_arrow")
    assert deflect["trigger"] == "minecraft:entity_hurt_player"
    assert deflect["conditions"]["damage"] == {"blocked": True, "type": {"is_projectile": True}}
    ender = only("follow_ender_eye")
    assert ender["trigger"] == "minecraft:location"
    (player,) = ender["conditions"]["player"]
    assert player["predicate"] == {"location": {"structure": "minecraft:stronghold"}}


@pytest.mark.parametrize(
    ("final", "milestones"),
    [
        ("obtain_armor", ["mine_stone", "upgrade_tools", "smelt_iron"]),
        ("mine_diamond", ["mine_stone", "upgrade_tools", "smelt_iron", "iron_tools"]),
        ("enchant_item", ["mine_stone", "upgrade_tools", "smelt_iron", "iron_tools", "mine_diamond"]),
    ],
)
def test_task_milestones_are_ancestors_of_the_final_one(
    final: str, milestones: list[str], advancements: dict[str, dict[str, Any]]
) -> None:
    # docs: the Iron Armor / Diamond / Enchantment tasks' milestone chains (form_obsidian is a side branch).
    ancestors = []
    name = final
    while (parent := advancements[name].get("parent")) is not None:
        name = parent.removeprefix("minecraft:story/")
        ancestors.append(name)
    assert [m for m in ancestors if m != "root"] == list(reversed(milestones))
