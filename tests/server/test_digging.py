"""Dig speed: the server's formula and constants against two independent references.

* minecraft-data 3.119.0 ``materials.json`` (tool speed of every tool on every block material);
* Mineflayer's own client-side dig time (prismarine-block ``digTime``), computed by a node script for a
  matrix of blocks × tools × effects × water/air conditions. The server must agree with the client to the
  tick, or a real client's digs would be refused.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from mirrorcraft.rules.digging import DigConditions, can_harvest, dig_ticks, finish_accepted, tool_speed
from mirrorcraft.server import facts

pytestmark = pytest.mark.npm  # needs node_modules (Mineflayer / minecraft-data / minecraft-packets)

REPO = Path(__file__).resolve().parents[2]


def mcdata_path(node_modules: Path, version: str, key: str) -> Path:
    base = node_modules / "minecraft-data" / "minecraft-data" / "data"
    folder = json.loads((base / "dataPaths.json").read_text())["pc"][version][key]
    return base / folder / f"{key}.json"


TOOLS = [
    f"{tier}_{kind}"
    for tier in ("wooden", "stone", "iron", "golden", "diamond", "netherite")
    for kind in ("pickaxe", "axe", "shovel", "hoe", "sword")
] + ["shears"]


def test_tool_speeds_match_minecraft_data_materials(node_modules: Path) -> None:
    materials = json.loads(mcdata_path(node_modules, "1.19.2", "materials").read_text())
    items = {i["id"]: i["name"] for i in json.loads(mcdata_path(node_modules, "1.19.2", "items").read_text())}
    checked = 0
    for material, table in materials.items():
        by_name = {items[int(k)]: v for k, v in table.items()}
        for tool in TOOLS:
            # minecraft-data lists the best applicable multiplier for joined materials (a;b)
            assert tool_speed(material, tool) == by_name.get(tool, 1.0), (material, tool)
            checked += 1
    assert checked == len(materials) * len(TOOLS)
    assert tool_speed("mineable/pickaxe", None) == 1.0


BLOCKS = [
    "stone",
    "oak_log",
    "dirt",
    "grass_block",
    "iron_ore",
    "diamond_ore",
    "obsidian",
    "oak_leaves",
    "sand",
    "cobweb",
    "bedrock",
    "sugar_cane",
    "deepslate",
    "crafting_table",
]
ITEMS = [
    None,
    "wooden_pickaxe",
    "stone_pickaxe",
    "iron_pickaxe",
    "diamond_pickaxe",
    "wooden_axe",
    "golden_shovel",
    "shears",
    "iron_sword",
    "stick",
]


def test_dig_ticks_agree_with_mineflayer_to_the_tick() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required")
    cases = []
    for block, item, (haste, fatigue, eff), (water, air) in itertools.product(
        BLOCKS,
        ITEMS,
        [(0, 0, 0), (2, 0, 0), (0, 1, 0), (2, 0, 3)],
        [(False, False), (True, False), (False, True)],
    ):
        cases.append(
            {
                "block": block,
                "item": item,
                "haste": haste,
                "fatigue": fatigue,
                "efficiency": eff,
                "inWater": water,
                "notOnGround": air,
            }
        )
    proc = subprocess.run(
        [node, str(REPO / "tests" / "node" / "dig_times.js")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    client = json.loads(proc.stdout)
    assert len(client) == len(cases)
    for case, ms in zip(cases, client, strict=True):
        cond = DigConditions(
            item=case["item"],
            efficiency=case["efficiency"],
            haste=case["haste"],
            mining_fatigue=case["fatigue"],
            in_water=case["inWater"],
            on_ground=not case["notOnGround"],
        )
        ticks = dig_ticks(facts.block(case["block"]), cond)
        if ms is None:
            assert ticks == math.inf, case
        else:
            assert ticks * 50 == ms, (case, ticks, ms)


def test_known_break_times_from_the_wiki() -> None:
    stone, log, obsidian = facts.block("stone"), facts.block("oak_log"), facts.block("obsidian")
    assert dig_ticks(stone, DigConditions()) == 150  # 7.5 s by hand (wiki "Breaking": stone)
    assert dig_ticks(stone, DigConditions(item="wooden_pickaxe")) == 23  # 1.15 s
    assert dig_ticks(log, DigConditions()) == 60  # 3 s
    assert dig_ticks(obsidian, DigConditions(item="diamond_pickaxe")) == 188  # 9.4 s
    assert dig_ticks(facts.block("bedrock"), DigConditions(item="netherite_pickaxe")) == math.inf
    assert dig_ticks(facts.block("sugar_cane"), DigConditions()) == 0


def test_harvest_and_the_server_acceptance_window() -> None:
    stone = facts.block("stone")
    assert not can_harvest(stone, None) and can_harvest(stone, "wooden_pickaxe")
    assert not can_harvest(facts.block("diamond_ore"), "stone_pickaxe")
    assert can_harvest(facts.block("diamond_ore"), "iron_pickaxe")
    assert can_harvest(facts.block("oak_log"), None)
    cond = DigConditions(item="wooden_pickaxe")  # 23 ticks; vanilla accepts at 70 %: progress*(t+1) >= 0.7
    assert not finish_accepted(stone, cond, 0)
    assert not finish_accepted(stone, cond, 14)
    assert finish_accepted(stone, cond, 16)
    assert finish_accepted(facts.block("sugar_cane"), DigConditions(), 0)
