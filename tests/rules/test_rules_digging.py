"""Digging reads which tools speed up and harvest a block from the packs' block tags (``mineable/*``,
``needs_*_tool``, ``leaves``, ``wool``), not from minecraft-data's baked ``material``/``harvestTools``.

The vanilla pack's tags must reproduce minecraft-data's per-block facts (the reference the old code used and
Mineflayer still uses), except where the tags are vanilla and minecraft-data is not; a pack's own tags change
the outcome as they would on a vanilla server. The 1,680-case comparison with Mineflayer's ``digTime`` is
``tests/server/test_digging.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

from support.rules_support import VANILLA, make_pack

from mirrorcraft import gamedata
from mirrorcraft.mcproto_body.digging import dig_ticks as body_dig_ticks
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.digging import (
    DigConditions,
    MiningTags,
    can_harvest,
    dig_categories,
    dig_ticks,
    mining_constants,
    tool_speed,
)

#: Blocks whose vanilla tags say more than minecraft-data's material key: moss carpet is in
#: ``#minecraft:mineable/hoe`` (vanilla 1.19.2 data/minecraft/tags/blocks/mineable/hoe.json).
TAGS_AHEAD_OF_MINECRAFT_DATA = {"minecraft:moss_carpet": {"mineable/hoe"}}


def tool_items() -> list[str]:
    c = mining_constants()
    return [*c["diggers"], *c["sword_items"], *c["shear_items"], "minecraft:stick"]


def test_speed_categories_from_the_vanilla_tags_match_minecraft_data() -> None:
    checked = 0
    for block in gamedata.all_blocks():
        expected = set(block.material.split(";")) - {"default"}
        expected |= TAGS_AHEAD_OF_MINECRAFT_DATA.get(block.name, set())
        assert dig_categories(block) == expected, block.name
        checked += 1
    assert checked == len(gamedata.all_blocks()) == 933  # every 1.19.2 block


def test_harvest_from_the_vanilla_tags_matches_minecraft_data_harvest_tools() -> None:
    checked = 0
    for block in gamedata.all_blocks():
        for item in [None, *tool_items()]:
            expected = not block.harvest_tools or (item is not None and item in block.harvest_tools)
            assert can_harvest(block, item) == expected, (block.name, item)
            # bare and namespaced names are the same item
            if item is not None:
                assert can_harvest(block, item.removeprefix("minecraft:")) == expected
            checked += 1
    assert checked > 30_000


def test_moss_carpet_follows_the_vanilla_hoe_tag() -> None:
    moss = gamedata.block("minecraft:moss_carpet")
    assert tool_speed(moss.material, "minecraft:wooden_hoe") == 1.0  # minecraft-data's material: "plant"
    assert tool_speed(dig_categories(moss), "minecraft:wooden_hoe") == 2.0  # the tag: a wooden hoe's speed
    assert dig_ticks(moss, DigConditions(item="minecraft:wooden_hoe")) == 2 < dig_ticks(moss, DigConditions())


def test_a_packs_block_tags_change_digging(tmp_path: Path) -> None:
    pack = make_pack(
        tmp_path / "p",
        {
            # stone now needs a diamond tier, and shovels dig it
            "data/minecraft/tags/blocks/needs_diamond_tool.json": {"values": ["minecraft:stone"]},
            "data/minecraft/tags/blocks/mineable/shovel.json": {"values": ["minecraft:stone"]},
        },
    )
    tags = MiningTags.of(DatapackSet.load([VANILLA, pack]))
    stone = gamedata.block("minecraft:stone")
    assert can_harvest(stone, "minecraft:iron_pickaxe") and not can_harvest(
        stone, "minecraft:iron_pickaxe", tags
    )
    assert can_harvest(stone, "minecraft:diamond_pickaxe", tags)
    # DiggerItem.isCorrectToolForDrops: the item's mineable tag holds the block and its tier is high enough
    assert can_harvest(stone, "minecraft:diamond_shovel", tags) and not can_harvest(
        stone, "minecraft:diamond_shovel"
    )
    assert not can_harvest(stone, "minecraft:iron_shovel", tags)
    shovel = DigConditions(item="minecraft:iron_shovel")
    assert dig_ticks(stone, shovel) == 150  # vanilla: no help, and no drop (1.5 * 100 / 1)
    assert dig_ticks(stone, shovel, tags) == 25  # 6 speed, but an iron tier: no drop, 1.5 * 100 / 6
    iron = DigConditions(item="minecraft:iron_pickaxe")
    assert dig_ticks(stone, iron) == 8 and dig_ticks(stone, iron, tags) == 25  # 30 → 100 divisor


def test_the_body_waits_what_the_server_computes() -> None:
    """The body's dig time (by block state) is the rules' own, for every block and tool."""
    for block in gamedata.all_blocks():
        for item in [None, "minecraft:wooden_pickaxe", "minecraft:diamond_axe", "minecraft:shears"]:
            rules = dig_ticks(block, DigConditions(item=item, haste=2))
            body = body_dig_ticks(block.default_state, item, haste=2)
            assert rules == body or (math.isinf(rules) and math.isinf(body)), (block.name, item)
