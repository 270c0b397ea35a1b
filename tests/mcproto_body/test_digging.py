"""The break-time formula against the vanilla values documented on the Minecraft wiki ("Breaking").

Expected times are the wiki's table values (seconds) or derived by hand from its formula in the
comments — e.g. stone (hardness 1.5): bare hand 1.5 × 5 = 7.5 s; wooden pickaxe 1.5 × 1.5 / 2 = 1.125 s,
rounded up to whole ticks = 1.15 s.
"""

from __future__ import annotations

import math

import pytest

from mirrorcraft.gamedata import state_id
from mirrorcraft.mcproto_body.digging import dig_ticks
from mirrorcraft.rules.digging import tool_speed


def seconds(block: str, tool: str | None = None, **kw) -> float:
    return dig_ticks(state_id(block), tool, **kw) / 20


@pytest.mark.parametrize(
    ("block", "tool", "kw", "expected_s"),
    [
        ("minecraft:stone", None, {}, 7.5),  # wiki table
        ("minecraft:stone", "minecraft:wooden_pickaxe", {}, 1.15),  # wiki table
        ("minecraft:stone", "minecraft:stone_pickaxe", {}, 0.6),  # 1.5*1.5/4 = 0.5625 -> 12 ticks
        ("minecraft:stone", "minecraft:diamond_pickaxe", {}, 0.3),  # wiki table
        ("minecraft:stone", "minecraft:golden_pickaxe", {}, 0.2),  # wiki table
        (
            "minecraft:stone",
            "minecraft:wooden_pickaxe",
            {"haste": 2},
            0.85,
        ),  # 2*1.4/1.5/30 -> 16.07 -> 17 ticks
        ("minecraft:stone", "minecraft:wooden_pickaxe", {"mining_fatigue": 1}, 3.75),  # speed 0.6 -> 75 ticks
        (
            "minecraft:stone",
            "minecraft:wooden_pickaxe",
            {"on_ground": False},
            5.65,
        ),  # /5 -> 112.5 -> 113 ticks
        ("minecraft:stone", "minecraft:wooden_pickaxe", {"in_water": True}, 5.65),
        ("minecraft:stone", "minecraft:wooden_pickaxe", {"in_water": True, "aqua_affinity": True}, 1.15),
        ("minecraft:stone", "minecraft:wooden_pickaxe", {"efficiency": 1}, 0.6),  # speed 2+2=4
        ("minecraft:oak_log", None, {}, 3.0),  # wiki: logs by hand 3 s
        ("minecraft:oak_log", "minecraft:stone_axe", {}, 0.75),  # wiki table
        ("minecraft:dirt", None, {}, 0.75),  # wiki table
        ("minecraft:dirt", "minecraft:wooden_shovel", {}, 0.4),  # wiki table
        ("minecraft:obsidian", "minecraft:diamond_pickaxe", {}, 9.4),  # wiki table
        ("minecraft:obsidian", None, {}, 250.0),  # wiki table
        (
            "minecraft:iron_ore",
            "minecraft:wooden_pickaxe",
            {},
            7.5,
        ),  # wrong tier: 3*1.5/... /100 -> 150 ticks
        ("minecraft:cobweb", "minecraft:iron_sword", {}, 0.4),  # wiki table
    ],
)
def test_break_times_match_the_wiki(block: str, tool: str | None, kw: dict, expected_s: float) -> None:
    assert seconds(block, tool, **kw) == pytest.approx(expected_s)


def test_instant_and_unbreakable() -> None:
    assert dig_ticks(state_id("minecraft:grass")) == 0  # hardness 0
    assert dig_ticks(state_id("minecraft:oak_leaves"), "minecraft:shears") == 0  # 15 / 0.2 / 30 = 2.5 >= 1
    assert dig_ticks(state_id("minecraft:stone"), "minecraft:golden_pickaxe", haste=2, efficiency=5) == 0
    assert math.isinf(dig_ticks(state_id("minecraft:bedrock"), "minecraft:netherite_pickaxe"))


def test_tool_speed_only_on_matching_material() -> None:
    assert tool_speed("mineable/axe", "minecraft:diamond_pickaxe") == 1.0
    assert tool_speed("plant;mineable/axe", "minecraft:diamond_axe") == 8.0
    assert tool_speed("mineable/pickaxe", "minecraft:stick") == 1.0
    assert tool_speed("mineable/pickaxe", None) == 1.0
