"""Block states ↔ global ids, block facts and collision boxes, checked against minecraft-data and captures."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from support.refdata import mcdata_path

from mirrorcraft import gamedata as gd
from mirrorcraft.errors import GameDataError


@pytest.mark.parametrize(
    ("name", "props", "expected"),
    [
        ("oak_log", {"axis": "y"}, 118),
        ("minecraft:furnace", {"facing": "north", "lit": "false"}, 3629),
        ("furnace", {"facing": "north", "lit": False}, 3629),
        ("grass_block", {"snowy": False}, 9),
        ("iron_ore", {}, 112),
        ("deepslate_diamond_ore", {}, 3609),
        ("crafting_table", {}, 3611),
        ("minecraft:obsidian", {}, 1688),
        ("air", {}, 0),
        ("stone", {}, 1),
    ],
)
def test_known_state_ids(name: str, props: dict, expected: int) -> None:
    assert gd.state_id(name, **props) == expected


def test_defaults_and_value_types() -> None:
    # omitted properties take the default state's values: oak_log's default is axis=y
    assert gd.state_id("oak_log") == 118
    assert gd.state_id("furnace", lit=True) == 3628  # facing stays north (default); true sorts first
    # integer properties accept ints and strings
    assert gd.state_id("wheat", age=7) == gd.state_id("wheat", age="7")
    assert gd.state_of(gd.state_id("wheat", age=7)) == ("minecraft:wheat", {"age": "7"})


def test_state_of_examples() -> None:
    assert gd.state_of(3629) == ("minecraft:furnace", {"facing": "north", "lit": "false"})
    assert gd.state_of(118) == ("minecraft:oak_log", {"axis": "y"})
    assert gd.state_of(0) == ("minecraft:air", {})
    assert gd.state_of(np.int64(1688)) == ("minecraft:obsidian", {})
    assert gd.state_of(gd.NUM_BLOCK_STATES - 1)[0] == gd.all_blocks()[-1].name


def test_round_trip_every_state() -> None:
    assert gd.NUM_BLOCK_STATES == 21448
    seen = np.zeros(gd.NUM_BLOCK_STATES, dtype=bool)
    for sid in range(gd.NUM_BLOCK_STATES):
        name, props = gd.state_of(sid)
        assert gd.state_id(name, **props) == sid, (sid, name, props)
        seen[sid] = True
    assert seen.all()


def test_state_ranges_are_contiguous_and_consistent() -> None:
    blocks = gd.all_blocks()
    expected_min = 0
    for i, b in enumerate(blocks):
        assert b.id == i
        assert b.min_state == expected_min, b.name
        n = 1
        for _, values in b.properties:
            assert len(values) == len(set(values)) > 0
            n *= len(values)
        assert b.num_states == n, b.name
        assert b.min_state <= b.default_state <= b.max_state
        assert gd.block_of_state(b.min_state) is b and gd.block_of_state(b.max_state) is b
        expected_min = b.max_state + 1
    assert expected_min == gd.NUM_BLOCK_STATES
    # the global palette is 15 bits wide in 1.19.2 (ceil(log2(21448)))
    assert int(np.ceil(np.log2(gd.NUM_BLOCK_STATES))) == 15


def test_against_minecraft_data_blocks(node_modules: Path) -> None:
    """Vendored facts equal minecraft-data's blocks.json (the file they were generated from)."""
    src = json.loads(mcdata_path(node_modules, "1.19.2", "blocks").read_text())
    items = {i["id"]: i["name"] for i in json.loads(mcdata_path(node_modules, "1.19.2", "items").read_text())}
    assert len(src) == len(gd.all_blocks())
    for b in src:
        info = gd.block(b["name"])
        assert (info.id, info.min_state, info.max_state, info.default_state) == (
            b["id"],
            b["minStateId"],
            b["maxStateId"],
            b["defaultState"],
        )
        assert [p for p, _ in info.properties] == [s["name"] for s in b["states"]]
        tools = b.get("harvestTools")
        expected_tools = None if not tools else frozenset(f"minecraft:{items[int(t)]}" for t in tools)
        assert info.harvest_tools == expected_tools, b["name"]


def test_lookup_tables() -> None:
    t = gd.state_tables()
    assert t.block_id.shape == (gd.NUM_BLOCK_STATES,)
    assert gd.block_id_of_state is t.block_id
    assert t.block_id[3629] == gd.block("furnace").id
    assert t.default_state[gd.block("oak_log").id] == 118
    assert t.is_air[[0, gd.state_id("cave_air"), gd.state_id("void_air")]].all() and t.is_air.sum() == 3
    assert t.full_cube[gd.state_id("stone")] and not t.full_cube[gd.state_id("oak_slab", type="bottom")]
    assert t.no_collision[0] and t.no_collision[gd.state_id("grass")] and not t.no_collision[1]
    assert t.hardness[gd.state_id("bedrock")] == -1 and t.hardness[1] == pytest.approx(1.5)
    assert t.emit_light[gd.state_id("glowstone")] == 15
    with pytest.raises(ValueError):
        t.block_id[0] = 5  # read-only
    # map a whole random chunk-section-sized array in one go and compare with scalar lookups
    rng = np.random.default_rng(0)
    states = rng.integers(0, gd.NUM_BLOCK_STATES, size=4096)
    ids = t.block_id[states]
    for s, bid in zip(states[:200], ids[:200], strict=True):
        assert gd.block_of_state(int(s)).id == bid


def test_unknown_names_raise() -> None:
    with pytest.raises(GameDataError, match="unknown block 'nonesuch'"):
        gd.state_id("nonesuch")
    with pytest.raises(GameDataError, match="no property 'color'.*axis"):
        gd.state_id("oak_log", color="red")
    with pytest.raises(GameDataError, match="axis='w' is not allowed"):
        gd.state_id("oak_log", axis="w")
    with pytest.raises(GameDataError, match="out of range"):
        gd.state_of(gd.NUM_BLOCK_STATES)
    with pytest.raises(GameDataError, match="out of range"):
        gd.state_of(-1)
    with pytest.raises(GameDataError, match="integer"):
        gd.state_of("12")  # type: ignore[arg-type]
    with pytest.raises(KeyError):  # GameDataError is a KeyError for dict-like callers
        gd.block("minecraft:not_a_block")


def test_block_facts() -> None:
    stone = gd.block("stone")
    assert stone.hardness == 1.5 and stone.material == "mineable/pickaxe" and stone.diggable
    assert gd.block("bedrock").hardness is None and not gd.block("bedrock").diggable
    assert gd.block("obsidian").harvest_tools == frozenset(
        {"minecraft:diamond_pickaxe", "minecraft:netherite_pickaxe"}
    )
    iron = gd.block("iron_ore").harvest_tools
    assert iron == frozenset(
        {
            "minecraft:stone_pickaxe",
            "minecraft:iron_pickaxe",
            "minecraft:diamond_pickaxe",
            "minecraft:netherite_pickaxe",
        }
    )
    assert "minecraft:wooden_pickaxe" not in iron and "minecraft:golden_pickaxe" not in iron
    assert gd.block("dirt").harvest_tools is None  # anything (even a hand) makes it drop
    assert gd.block("glowstone").emit_light == 15
    assert gd.block("furnace").properties == (
        ("facing", ("north", "south", "west", "east")),
        ("lit", ("true", "false")),
    )


def test_collision_boxes() -> None:
    full = (0.0, 0.0, 0.0, 1.0, 1.0, 1.0)
    assert gd.collision_boxes(gd.state_id("stone")) == (full,)
    assert gd.collision_boxes(gd.state_id("oak_slab", type="bottom")) == ((0.0, 0.0, 0.0, 1.0, 0.5, 1.0),)
    assert gd.collision_boxes(gd.state_id("oak_slab", type="top")) == ((0.0, 0.5, 0.0, 1.0, 1.0, 1.0),)
    assert gd.collision_boxes(gd.state_id("oak_slab", type="double")) == (full,)
    assert gd.collision_boxes(0) == ()  # air
    assert len(gd.collision_boxes(gd.state_id("oak_stairs"))) == 2  # default: facing north, bottom, straight
    # fences are 1.5 blocks tall for collision
    assert max(b[4] for b in gd.collision_boxes(gd.state_id("oak_fence"))) == 1.5
    with pytest.raises(GameDataError, match="not a state of minecraft:stone"):
        gd.block("stone").collision_boxes(0)


def test_import_is_cheap_and_first_lookup_fast() -> None:
    code = (
        "import time;t=time.perf_counter();import mirrorcraft.gamedata as g;t1=time.perf_counter();"
        "g.state_id('oak_log',axis='y');t2=time.perf_counter();print(t1-t,t2-t1)"
    )
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    import_s, lookup_s = map(float, out.split())
    assert import_s < 0.3, f"import took {import_s:.3f}s"
    assert lookup_s < 0.3, f"first lookup took {lookup_s:.3f}s"
    assert time.perf_counter() - start < 10
