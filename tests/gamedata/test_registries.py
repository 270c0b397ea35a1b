"""Items, entities, effects, enchantments, foods, menu types, game events and tags."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.refdata import mcdata_path

from mirrorcraft import gamedata as gd
from mirrorcraft.errors import GameDataError


def test_item_facts() -> None:
    assert gd.item("stone").stack_size == 64
    assert gd.item("minecraft:ender_pearl").stack_size == 16
    assert gd.item("snowball").stack_size == 16
    pick = gd.item("diamond_pickaxe")
    assert pick.stack_size == 1 and pick.max_durability == 1561
    assert "digger" in pick.enchant_categories and pick.repair_with == ("minecraft:diamond",)
    assert gd.item("stone").max_durability is None
    assert gd.item("wooden_pickaxe").max_durability == 59
    assert gd.item_by_id(gd.item("crafting_table").id).name == "minecraft:crafting_table"
    assert gd.item_by_id(0).name == "minecraft:air"
    with pytest.raises(GameDataError, match="unknown item 'flux_capacitor'"):
        gd.item("flux_capacitor")
    with pytest.raises(GameDataError, match="unknown item id 99999"):
        gd.item_by_id(99999)


def test_items_match_minecraft_data(node_modules: Path) -> None:
    src = json.loads(mcdata_path(node_modules, "1.19.2", "items").read_text())
    assert len(gd.all_items()) == len(src) == 1152
    for i in src:
        info = gd.item_by_id(i["id"])
        assert (info.name, info.stack_size, info.max_durability) == (
            f"minecraft:{i['name']}",
            i["stackSize"],
            i.get("maxDurability"),
        )


def test_captured_slot_item_ids_are_items(packets_dir: Path) -> None:
    """Every item id a vanilla server put in window_items / set_slot is a known item."""
    ids = []
    for packet in ("window_items", "set_slot"):
        for path in (packets_dir / "from-server" / packet).glob("*.json"):
            text = path.read_text()
            ids += [int(x) for x in re.findall(r'"itemId":\s*(\d+)', text)]
    assert ids, "captures contain item slots"
    for i in ids:
        gd.item_by_id(i)


def test_entities_effects_enchantments_foods_biomes() -> None:
    zombie = gd.entity("zombie")
    assert (
        zombie.type == "hostile"
        and zombie.width == pytest.approx(0.6)
        and zombie.height == pytest.approx(1.95)
    )
    assert gd.entity_by_id(zombie.id) is zombie
    assert gd.entity("minecraft:player").height == pytest.approx(1.8)
    # vanilla MobEffect ids (1-based): speed 1, haste 3, mining_fatigue 4, unluck 27, darkness 33
    assert [gd.effect(n).id for n in ("speed", "haste", "mining_fatigue", "unluck", "darkness")] == [
        1,
        3,
        4,
        27,
        33,
    ]
    assert gd.effect("minecraft:hero_of_the_village").id == 32
    eff = gd.enchantment("efficiency")
    assert eff.max_level == 5 and eff.category == "digger"
    assert gd.enchantment("sharpness").exclude == frozenset(
        {"minecraft:smite", "minecraft:bane_of_arthropods"}
    )
    assert gd.enchantment("mending").treasure_only and gd.enchantment("binding_curse").curse
    assert gd.food("bread").food_points == 5 and gd.food("cooked_beef").food_points == 8
    with pytest.raises(GameDataError, match="unknown food 'stone'"):
        gd.food("stone")
    assert gd.biome("plains").id == 1 and gd.biome("minecraft:the_void").id == 0
    assert gd.biome("desert").precipitation == "none"


def test_menu_types_captured_open_window(packets_dir: Path, packets_dir_1_19: Path) -> None:
    # Both captures open a furnace (window title container.furnace).
    for folder in (packets_dir, packets_dir_1_19):
        for path in (folder / "from-server" / "open_window").glob("*.json"):
            pkt = json.loads(path.read_text())
            title = json.loads(pkt["windowTitle"])["translate"]
            assert title == "container.furnace"
            assert pkt["inventoryType"] == gd.menu_type("furnace") == 13
    assert gd.menu_type("generic_9x1") == 0 and gd.menu_type("generic_9x3") == 2
    assert gd.menu_type("minecraft:crafting") == 11
    assert gd.menu_type("enchantment") == 12 and gd.menu_type("blast_furnace") == 9
    assert gd.menu_type_name(23) == "minecraft:stonecutter"
    with pytest.raises(GameDataError):
        gd.menu_type("chest")


def test_menu_types_match_prismarine_windows(node_modules: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not on PATH")
    script = (
        "const w=require('prismarine-windows')('1.19.2').windows;const o={};"
        "for(const [k,v] of Object.entries(w)) if(v&&v.type>=0) o[k]=v.type;console.log(JSON.stringify(o))"
    )
    out = subprocess.run(
        [node, "-e", script], cwd=node_modules.parent, capture_output=True, text=True, check=True
    )
    theirs = json.loads(out.stdout)
    # prismarine-windows calls the cartography table menu "cartography"; the registry name is cartography_table
    theirs["minecraft:cartography_table"] = theirs.pop("minecraft:cartography")
    ours = {gd.menu_type_name(i): i for i in range(len(theirs))}
    assert ours == theirs


def test_game_events_and_fluids_agree_with_captured_tags() -> None:
    assert gd.tag("game_event", "shrieker_can_listen") == {"minecraft:sculk_sensor_tendrils_clicking"}
    assert gd.tag("game_event", "allay_can_listen") == {"minecraft:note_block_play"}
    assert gd.tag("game_event", "ignore_vibrations_sneaking") == {
        f"minecraft:{n}"
        for n in (
            "hit_ground",
            "projectile_shoot",
            "step",
            "swim",
            "item_interact_start",
            "item_interact_finish",
        )
    }
    # 1.19.2's warden_can_listen = the 1.19.0 vibrations list + shriek + #shrieker_can_listen, while
    # vibrations itself gained "flap" in 1.19.1 (appended last on the wire, id 23 = alphabetical slot).
    warden = gd.tag("game_event", "warden_can_listen")
    vibrations = gd.tag("game_event", "vibrations")
    assert warden - vibrations == {"minecraft:shriek", "minecraft:sculk_sensor_tendrils_clicking"}
    assert vibrations - warden == {"minecraft:flap"}
    assert gd.game_event_id("step") == 43
    assert gd.tag("fluid", "water") == {"minecraft:water", "minecraft:flowing_water"}
    assert gd.tag("fluid", "lava") == {"minecraft:lava", "minecraft:flowing_lava"}
    assert gd.fluid_id("water") == 2


def test_tags_known_members() -> None:
    planks = gd.tag("item", "minecraft:planks")
    assert (
        "minecraft:oak_planks" in planks and "minecraft:crimson_planks" in planks and len(planks) == 9
    )  # no bamboo before 1.20
    assert "minecraft:stone" in gd.tag("block", "mineable/pickaxe")
    assert "minecraft:dirt" in gd.tag("blocks", "mineable/shovel")
    logs = gd.tag("block", "#minecraft:logs")
    assert {"minecraft:oak_log", "minecraft:stripped_birch_wood", "minecraft:crimson_stem"} <= logs
    # nested references are flattened on the wire: logs ⊇ logs_that_burn ⊇ oak_logs
    assert gd.tag("item", "oak_logs") <= gd.tag("item", "logs_that_burn") <= gd.tag("item", "logs")
    assert "minecraft:iron_ore" in gd.tag("block", "needs_stone_tool")
    assert "minecraft:obsidian" in gd.tag("block", "needs_diamond_tool")
    assert {"minecraft:skeleton", "minecraft:stray", "minecraft:wither_skeleton"} == gd.tag(
        "entity_type", "skeletons"
    )
    assert "minecraft:plains" in gd.tag("worldgen/biome", "is_overworld")
    with pytest.raises(GameDataError, match="unknown tag kind"):
        gd.tag("painting_variant", "placeable")
    with pytest.raises(GameDataError, match="unknown item tag"):
        gd.tag("item", "not_a_tag")
    assert "minecraft:planks" in gd.tag_names("item")


def test_harvest_tools_agree_with_tool_tags() -> None:
    """minecraft-data's harvest tools agree with the captured needs_*_tool / mineable tags."""
    tiers = {
        "needs_diamond_tool": {"diamond", "netherite"},
        "needs_iron_tool": {"iron", "diamond", "netherite"},
        "needs_stone_tool": {"stone", "iron", "diamond", "netherite"},
    }
    checked = 0
    for tag_name, materials in tiers.items():
        for name in gd.tag("block", tag_name):
            info = gd.block(name)
            tools = info.harvest_tools
            if tools is None or not info.material.startswith("mineable/"):
                continue
            kind = info.material.split("/")[1].split(";")[0]
            assert {f"minecraft:{m}_{kind}" for m in materials} <= tools, (name, tools)
            assert not {f"minecraft:wooden_{kind}", f"minecraft:golden_{kind}"} & tools, (name, tools)
            checked += 1
    assert checked > 50
