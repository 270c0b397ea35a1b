"""The hand-authored vanilla 1.19.2 loot tables, rolled through the interpreter with seeded randomness.

Expectations are vanilla 1.19.2 behaviour as documented on the Minecraft wiki block/mob pages and the
architecture notes (stone → cobblestone, lapis 4–9, cow 0–2 leather + 1–3 beef, Fortune III on diamond ore
≈ 2.2 diamonds on average, ...). Ids are checked against minecraft-data 1.19.2 (an independent source).
Statistical tolerances are > 5 standard errors of the seeded sample.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mirrorcraft
from mirrorcraft.rules.loot import BlockView, EntityView, LootContext, LootTableSet, ToolView

PACK = Path(mirrorcraft.__file__).parent / "gamedata" / "vanilla_pack"
TABLES_DIR = PACK / "data" / "minecraft" / "loot_tables"
TABLE_FILES = sorted(TABLES_DIR.rglob("*.json"))
RECIPES_DIR = PACK / "data" / "minecraft" / "recipes"

WOODS = ["oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove"]
ORES = ["coal", "iron", "copper", "gold", "redstone", "lapis", "diamond", "emerald"]


def mcdata_path(node_modules: Path, version: str, key: str) -> Path:
    """minecraft-data's file for ``key`` in ``version`` (resolved through ``dataPaths.json``).

    Kept local so this file stands alone (shared paths live in tests/refdata.py).
    """
    base = node_modules / "minecraft-data" / "minecraft-data" / "data"
    folder = json.loads((base / "dataPaths.json").read_text())["pc"][version][key]
    return base / folder / f"{key}.json"


def no_tags(tag: str) -> frozenset[str]:
    raise AssertionError(f"the authored tables use no tags, but {tag} was asked for")


@pytest.fixture(scope="module")
def tables() -> LootTableSet:
    return LootTableSet.from_pack_dirs([PACK])


@pytest.fixture(scope="module")
def mc_names(node_modules: Path) -> dict[str, set[str]]:
    def names(key: str) -> set[str]:
        return {
            f"minecraft:{e['name']}" for e in json.loads(mcdata_path(node_modules, "1.19.2", key).read_text())
        }

    return {k: names(k) for k in ("items", "blocks", "entities", "enchantments")}


def player() -> EntityView:
    return EntityView(type="minecraft:player")


def tool(item: str | None = "minecraft:iron_pickaxe", **enchantments: int) -> LootContext:
    enchants = {f"minecraft:{k}": v for k, v in enchantments.items()}
    return LootContext(tool=ToolView(item=item, enchantments=enchants), this_entity=player())


HAND = LootContext(tool=ToolView(), this_entity=player())
SILK = tool(silk_touch=1)


def sample(
    tables: LootTableSet, loc: str, ctx: LootContext, n: int, seed: int = 1, **kw: Any
) -> list[Counter]:
    rng = random.Random(seed)
    return [Counter({s.item: s.count for s in tables.roll(loc, ctx, rng, no_tags, **kw)}) for _ in range(n)]


def mean(results: list[Counter], item: str) -> float:
    return sum(r[item] for r in results) / len(results)


# ---------------------------------------------------------------------------------------------- files

#: Tables vanilla's generator writes with no pools (``BlockLoot.noDrop()``).
NO_DROP_TABLES = {"blocks/cake"}


def walk(node: Any, path: str = "") -> Iterator[tuple[str, str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key, value
            yield from walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}[{i}]")


def test_every_required_table_exists() -> None:
    required = [
        "stone", "cobblestone", "deepslate", "cobbled_deepslate", "grass_block", "dirt", "coarse_dirt", "podzol",
        "sand", "red_sand", "gravel", "clay", "snow_block", "snow", "ice", "terracotta", "moss_block", "grass",
        "tall_grass", "fern", "crafting_table", "furnace", "blast_furnace", "smoker", "chest", "enchanting_table",
        "bookshelf", "torch", "sugar_cane", "obsidian", "coal_block", "iron_block", "raw_iron_block",
        "diamond_block", "lapis_block",
    ]  # fmt: skip
    required += [f"{w}_{kind}" for w in WOODS for kind in ("log", "planks", "leaves")]
    required += [f"{p}{o}_ore" for o in ORES for p in ("", "deepslate_")]
    missing = [b for b in required if not (TABLES_DIR / "blocks" / f"{b}.json").is_file()]
    assert missing == []
    assert (TABLES_DIR / "entities" / "cow.json").is_file()


@pytest.mark.parametrize("file", TABLE_FILES, ids=lambda f: f.relative_to(TABLES_DIR).as_posix())
def test_table_parses_and_uses_real_ids(
    file: Path, tables: LootTableSet, mc_names: dict[str, set[str]]
) -> None:
    data = json.loads(file.read_text())
    rel = file.relative_to(TABLES_DIR).with_suffix("").as_posix()
    assert f"minecraft:{rel}" in tables
    kind, _, name = rel.partition("/")
    expected_type = {"blocks": "minecraft:block", "entities": "minecraft:entity"}[kind]
    assert data["type"] == expected_type
    assert f"minecraft:{name}" in mc_names[kind]  # the table belongs to a real block / entity
    if rel in NO_DROP_TABLES:  # BlockLoot.noDrop(): a table with no pools (the cake drops nothing)
        assert set(data) == {"type"}
        return
    checked = 0
    for path, key, value in walk(data):
        if key == "name" and path.split(".")[-1] != "predicate":
            assert value in mc_names["items"], (rel, path, value)
            checked += 1
        elif key == "items":
            assert set(value) <= mc_names["items"], (rel, path, value)
        elif key in ("block", "blocks") and isinstance(value, str | list):
            assert set([value] if isinstance(value, str) else value) <= mc_names["blocks"], (rel, path, value)
        elif key == "enchantment":
            assert value in mc_names["enchantments"], (rel, path, value)
    assert checked >= 1


# ---------------------------------------------------------------------------------------------- exact drops

SELF_DROPS = [
    "cobblestone", "cobbled_deepslate", "dirt", "coarse_dirt", "sand", "red_sand", "terracotta", "moss_block",
    "sugar_cane", "torch", "obsidian", "crafting_table", "furnace", "blast_furnace", "smoker", "chest",
    "enchanting_table", "coal_block", "iron_block", "raw_iron_block", "diamond_block", "lapis_block",
]  # fmt: skip
SELF_DROPS += [f"{w}_log" for w in WOODS] + [f"{w}_planks" for w in WOODS]

EXACT = {b: (b, 1) for b in SELF_DROPS}
EXACT |= {
    "stone": ("cobblestone", 1),
    "deepslate": ("cobbled_deepslate", 1),
    "grass_block": ("dirt", 1),
    "podzol": ("dirt", 1),
    "clay": ("clay_ball", 4),
    "snow_block": ("snowball", 4),
    "bookshelf": ("book", 3),
}
for prefix in ("", "deepslate_"):
    EXACT |= {
        f"{prefix}coal_ore": ("coal", 1),
        f"{prefix}iron_ore": ("raw_iron", 1),
        f"{prefix}gold_ore": ("raw_gold", 1),
        f"{prefix}diamond_ore": ("diamond", 1),
        f"{prefix}emerald_ore": ("emerald", 1),
    }


@pytest.mark.parametrize(("block", "drop"), sorted(EXACT.items()))
def test_exact_drop_without_enchantments(block: str, drop: tuple[str, int], tables: LootTableSet) -> None:
    expected = Counter({f"minecraft:{drop[0]}": drop[1]})
    for ctx in (HAND, tool()):
        assert sample(tables, f"blocks/{block}", ctx, 40) == [expected] * 40


SILK_BLOCKS = [
    "stone",
    "deepslate",
    "grass_block",
    "podzol",
    "gravel",
    "clay",
    "snow_block",
    "bookshelf",
    "ice",
]
SILK_BLOCKS += [f"{p}{o}_ore" for o in ORES for p in ("", "deepslate_")]
SILK_BLOCKS += [f"{w}_leaves" for w in WOODS]


@pytest.mark.parametrize("block", SILK_BLOCKS)
def test_silk_touch_gives_the_block(block: str, tables: LootTableSet) -> None:
    assert (
        sample(tables, f"blocks/{block}", tool(silk_touch=1, fortune=0), 40)
        == [Counter({f"minecraft:{block}": 1})] * 40
    )


def test_ice_drops_nothing_without_silk_touch(tables: LootTableSet) -> None:
    assert sample(tables, "blocks/ice", tool(), 40) == [Counter()] * 40


@pytest.mark.parametrize(
    ("block", "item", "low", "high"),
    [
        ("lapis_ore", "lapis_lazuli", 4, 9),
        ("deepslate_lapis_ore", "lapis_lazuli", 4, 9),
        ("copper_ore", "raw_copper", 2, 5),
        ("deepslate_copper_ore", "raw_copper", 2, 5),
        ("redstone_ore", "redstone", 4, 5),
        ("deepslate_redstone_ore", "redstone", 4, 5),
    ],
)
def test_ranged_ore_drops_without_fortune(
    block: str, item: str, low: int, high: int, tables: LootTableSet
) -> None:
    results = sample(tables, f"blocks/{block}", tool(), 1500)
    assert all(set(r) == {f"minecraft:{item}"} for r in results)
    assert {r[f"minecraft:{item}"] for r in results} == set(range(low, high + 1))


# ---------------------------------------------------------------------------------------------- fortune


def test_diamond_ore_fortune_distribution(tables: LootTableSet) -> None:
    for level, expected in [(1, 4 / 3), (2, 7 / 4), (3, 2.2)]:  # mean of max(U{-1..L}, 0) + 1
        results = sample(tables, "blocks/diamond_ore", tool(fortune=level), 20000, seed=level)
        assert abs(mean(results, "minecraft:diamond") - expected) < 0.05, level
    values = {r["minecraft:diamond"] for r in sample(tables, "blocks/diamond_ore", tool(fortune=3), 2000)}
    assert values == {1, 2, 3, 4}


def test_lapis_fortune_three_multiplies(tables: LootTableSet) -> None:
    results = sample(tables, "blocks/lapis_ore", tool(fortune=3), 20000)
    assert abs(mean(results, "minecraft:lapis_lazuli") - 6.5 * 2.2) < 0.2
    assert max(r["minecraft:lapis_lazuli"] for r in results) == 36


def test_redstone_fortune_is_uniform_bonus(tables: LootTableSet) -> None:
    results = sample(tables, "blocks/redstone_ore", tool(fortune=3), 8000)
    assert {r["minecraft:redstone"] for r in results} == set(range(4, 9))
    assert abs(mean(results, "minecraft:redstone") - 6.0) < 0.06


def test_grass_seeds_chance_and_fortune(tables: LootTableSet) -> None:
    for block in ("grass", "fern"):
        plain = sample(tables, f"blocks/{block}", HAND, 20000)
        assert abs(mean(plain, "minecraft:wheat_seeds") - 0.125) < 0.015
        assert {r["minecraft:wheat_seeds"] for r in plain} == {0, 1}
        lucky = sample(tables, f"blocks/{block}", tool("minecraft:iron_sword", fortune=3), 20000)
        # 12.5% chance of 1 + U{0..6} seeds
        assert abs(mean(lucky, "minecraft:wheat_seeds") - 0.5) < 0.05
        assert max(r["minecraft:wheat_seeds"] for r in lucky) == 7
        sheared = sample(tables, f"blocks/{block}", tool("minecraft:shears"), 20)
        assert sheared == [Counter({f"minecraft:{block}": 1})] * 20


def test_gravel_flint_table_bonus(tables: LootTableSet) -> None:
    results = sample(tables, "blocks/gravel", tool("minecraft:iron_shovel"), 20000)
    assert all(sum(r.values()) == 1 for r in results)
    assert abs(mean(results, "minecraft:flint") - 0.1) < 0.012
    assert (
        sample(tables, "blocks/gravel", tool("minecraft:iron_shovel", fortune=3), 50)
        == [Counter({"minecraft:flint": 1})] * 50
    )


@pytest.mark.parametrize(
    ("leaves", "sapling", "sapling_chance", "apple_chance"),
    [
        ("oak_leaves", "oak_sapling", 0.05, 0.005),
        ("dark_oak_leaves", "dark_oak_sapling", 0.05, 0.005),
        ("spruce_leaves", "spruce_sapling", 0.05, 0.0),
        ("birch_leaves", "birch_sapling", 0.05, 0.0),
        ("acacia_leaves", "acacia_sapling", 0.05, 0.0),
        ("jungle_leaves", "jungle_sapling", 0.025, 0.0),
        ("mangrove_leaves", None, 0.0, 0.0),
    ],
)
def test_leaves(
    leaves: str, sapling: str | None, sapling_chance: float, apple_chance: float, tables: LootTableSet
) -> None:
    results = sample(tables, f"blocks/{leaves}", HAND, 20000)
    saplings = sum(1 for r in results if sapling and r[f"minecraft:{sapling}"]) / len(results)
    assert abs(saplings - sapling_chance) < 0.008
    apples = sum(1 for r in results if r["minecraft:apple"]) / len(results)
    assert abs(apples - apple_chance) < 0.003
    sticks = [r["minecraft:stick"] for r in results if r["minecraft:stick"]]
    assert abs(len(sticks) / len(results) - 0.02) < 0.006  # 2% chance of 1–2 sticks
    assert set(sticks) == {1, 2}
    allowed = {f"minecraft:{x}" for x in (sapling, "stick", "apple") if x}
    assert all(set(r) <= allowed for r in results)
    assert (
        sample(tables, f"blocks/{leaves}", tool("minecraft:shears"), 20)
        == [Counter({f"minecraft:{leaves}": 1})] * 20
    )


# ---------------------------------------------------------------------------------------------- explosions


def test_explosion_decay_and_survival(tables: LootTableSet) -> None:
    blast = LootContext(explosion_radius=4.0)  # keep chance 1/4 per item
    lapis = sample(tables, "blocks/lapis_ore", blast, 20000)
    assert abs(mean(lapis, "minecraft:lapis_lazuli") - 6.5 / 4) < 0.05
    stone = sample(tables, "blocks/stone", blast, 20000)
    assert abs(mean(stone, "minecraft:cobblestone") - 0.25) < 0.02
    clay = sample(tables, "blocks/clay", blast, 20000)
    assert abs(mean(clay, "minecraft:clay_ball") - 1.0) < 0.04


# ---------------------------------------------------------------------------------------------- state-dependent


def test_snow_layers(tables: LootTableSet) -> None:
    for layers in range(1, 9):
        block = BlockView(name="minecraft:snow", state={"layers": str(layers)})
        shovel = LootContext(tool=ToolView(item="minecraft:iron_shovel"), block=block, this_entity=player())
        assert sample(tables, "blocks/snow", shovel, 5) == [Counter({"minecraft:snowball": layers})] * 5
        silk = shovel.model_copy(
            update={"tool": ToolView(item="minecraft:iron_shovel", enchantments={"minecraft:silk_touch": 1})}
        )
        expected = Counter({"minecraft:snow": layers}) if layers < 8 else Counter({"minecraft:snow_block": 1})
        assert sample(tables, "blocks/snow", silk, 5) == [expected] * 5
        no_entity = LootContext(tool=ToolView(item="minecraft:iron_shovel"), block=block)
        assert sample(tables, "blocks/snow", no_entity, 5) == [Counter()] * 5


@pytest.mark.parametrize(("block", "small"), [("tall_grass", "grass"), ("large_fern", "fern")])
def test_double_plants(block: str, small: str, tables: LootTableSet) -> None:
    name = f"minecraft:{block}"
    assert tables.get(f"blocks/{block}").neighbour_offsets == {(0, 1, 0), (0, -1, 0)}
    assert tables.get("blocks/stone").neighbour_offsets == frozenset()
    lower = BlockView(name=name, state={"half": "lower"})
    upper = BlockView(name=name, state={"half": "upper"})
    for broken, offset, other in ((lower, (0, 1, 0), upper), (upper, (0, -1, 0), lower)):
        base = {"block": broken, "neighbours": {offset: other}, "this_entity": player()}
        sheared = LootContext(tool=ToolView(item="minecraft:shears"), **base)
        assert sample(tables, f"blocks/{block}", sheared, 10) == [Counter({f"minecraft:{small}": 2})] * 10
        plain = sample(tables, f"blocks/{block}", LootContext(tool=ToolView(), **base), 20000)
        assert abs(mean(plain, "minecraft:wheat_seeds") - 0.125) < 0.015
    orphan = LootContext(
        tool=ToolView(item="minecraft:shears"),
        block=lower,
        neighbours={(0, 1, 0): BlockView(name="minecraft:air")},
    )
    assert sample(tables, f"blocks/{block}", orphan, 10) == [Counter()] * 10


# ---------------------------------------------------------------------------------------------- cow


def smelting_lookup() -> dict[str, str]:
    out = {}
    for file in RECIPES_DIR.glob("*.json"):
        recipe = json.loads(file.read_text())
        if recipe.get("type") == "minecraft:smelting" and isinstance(recipe.get("ingredient"), dict):
            if "item" in recipe["ingredient"]:
                out[recipe["ingredient"]["item"]] = recipe["result"]
    return out


def test_cow_vanilla_counts(tables: LootTableSet) -> None:
    ctx = LootContext(this_entity=EntityView(type="minecraft:cow"), killer=player(), killer_player=player())
    results = sample(tables, "entities/cow", ctx, 3000)
    assert {r["minecraft:leather"] for r in results} == {0, 1, 2}
    assert {r["minecraft:beef"] for r in results} == {1, 2, 3}
    assert all(set(r) <= {"minecraft:leather", "minecraft:beef"} for r in results)
    assert abs(mean(results, "minecraft:leather") - 1.0) < 0.06
    assert abs(mean(results, "minecraft:beef") - 2.0) < 0.06


def test_cow_looting_and_fire(tables: LootTableSet) -> None:
    looting = LootContext(this_entity=EntityView(type="minecraft:cow"), killer=player(), looting=3)
    results = sample(tables, "entities/cow", looting, 8000)
    assert {r["minecraft:leather"] for r in results} == set(range(0, 6))
    assert {r["minecraft:beef"] for r in results} == set(range(1, 7))
    assert abs(mean(results, "minecraft:beef") - 3.5) < 0.06  # 2 + round(3 * U[0,1)) ≈ 2 + 1.5
    assert RECIPES_DIR.is_dir(), f"{RECIPES_DIR} missing: regenerate with scripts/regen_gamedata.py"
    smelt = smelting_lookup()
    assert smelt["minecraft:beef"] == "minecraft:cooked_beef"
    burning = LootContext(this_entity=EntityView(type="minecraft:cow", on_fire=True), killer=player())
    fired = sample(tables, "entities/cow", burning, 500, smelt=smelt.get)
    assert all("minecraft:beef" not in r for r in fired)
    assert {r["minecraft:cooked_beef"] for r in fired} == {1, 2, 3}


# ---------------------------------------------------------------------------------------------- farms and arenas
# Expectations from vanilla 1.19.2's loot generator (BlockLoot/EntityLoot, read in the decompiled 1.19.1 client)
# and the wiki pages of the crops: an item starts at count 1, ``binomial_with_bonus_count`` adds Bin(3 + L, p),
# ``uniform`` counts are Java's inclusive nextInt.


def broke(block: str, **state: str | int) -> LootContext:
    """A block broken by hand (no enchantments) in the given state."""
    return LootContext(
        tool=ToolView(),
        block=BlockView(name=f"minecraft:{block}", state={k: str(v) for k, v in state.items()}),
        this_entity=player(),
    )


@pytest.mark.parametrize(
    ("crop", "produce", "seeds", "mature"),
    [("wheat", "wheat", "wheat_seeds", 7), ("beetroots", "beetroot", "beetroot_seeds", 3)],
)
def test_crop_drops_produce_and_seeds_with_their_bonus_roll(
    crop: str, produce: str, seeds: str, mature: int, tables: LootTableSet
) -> None:
    young = sample(tables, f"blocks/{crop}", broke(crop, age=0), 200)
    assert young == [Counter({f"minecraft:{seeds}": 1})] * 200  # not mature: the seed only
    ripe = sample(tables, f"blocks/{crop}", broke(crop, age=mature), 20000)
    assert all(r[f"minecraft:{produce}"] == 1 for r in ripe)
    assert {r[f"minecraft:{seeds}"] for r in ripe} == {1, 2, 3, 4}  # 1 + Bin(3, 4/7)
    assert abs(mean(ripe, f"minecraft:{seeds}") - (1 + 3 * 0.5714286)) < 0.03
    lucky = sample(tables, f"blocks/{crop}", LootContext(
        tool=ToolView(item="minecraft:iron_hoe", enchantments={"minecraft:fortune": 3}),
        block=BlockView(name=f"minecraft:{crop}", state={"age": str(mature)}), this_entity=player(),
    ), 20000)  # fmt: skip
    assert abs(mean(lucky, f"minecraft:{seeds}") - (1 + 6 * 0.5714286)) < 0.04  # Bin(3 + 3, 4/7)


def test_carrots_and_potatoes(tables: LootTableSet) -> None:
    for crop, item in (("carrots", "carrot"), ("potatoes", "potato")):
        assert (
            sample(tables, f"blocks/{crop}", broke(crop, age=3), 100)
            == [Counter({f"minecraft:{item}": 1})] * 100
        )
        ripe = sample(tables, f"blocks/{crop}", broke(crop, age=7), 20000)
        assert {r[f"minecraft:{item}"] for r in ripe} == {2, 3, 4, 5}  # 1 + (1 + Bin(3, 4/7))
        assert abs(mean(ripe, f"minecraft:{item}") - (2 + 3 * 0.5714286)) < 0.03
    ripe = sample(tables, "blocks/potatoes", broke("potatoes", age=7), 20000)
    assert abs(mean(ripe, "minecraft:poisonous_potato") - 0.02) < 0.005  # random_chance 0.02
    young = sample(tables, "blocks/potatoes", broke("potatoes", age=6), 5000)
    assert all(r["minecraft:poisonous_potato"] == 0 for r in young)


def test_sweet_berry_bush_drops_by_age(tables: LootTableSet) -> None:
    """The bush's table (when broken): 2-3 berries at age 3, 1-2 at age 2, none younger."""
    for age, values in ((3, {2, 3}), (2, {1, 2})):
        results = sample(tables, "blocks/sweet_berry_bush", broke("sweet_berry_bush", age=age), 4000)
        assert {r["minecraft:sweet_berries"] for r in results} == values
        assert abs(mean(results, "minecraft:sweet_berries") - (min(values) + 0.5)) < 0.05
    for age in (0, 1):
        assert (
            sample(tables, "blocks/sweet_berry_bush", broke("sweet_berry_bush", age=age), 100)
            == [Counter()] * 100
        )


def test_cocoa_and_stems(tables: LootTableSet) -> None:
    assert (
        sample(tables, "blocks/cocoa", broke("cocoa", age=2), 50)
        == [Counter({"minecraft:cocoa_beans": 3})] * 50
    )
    for age in (0, 1):
        assert (
            sample(tables, "blocks/cocoa", broke("cocoa", age=age), 50)
            == [Counter({"minecraft:cocoa_beans": 1})] * 50
        )
    for stem, seeds in (("melon_stem", "melon_seeds"), ("pumpkin_stem", "pumpkin_seeds")):
        for age in (0, 7):
            results = sample(tables, f"blocks/{stem}", broke(stem, age=age), 15000)
            assert {r[f"minecraft:{seeds}"] for r in results} <= {0, 1, 2, 3}
            assert abs(mean(results, f"minecraft:{seeds}") - 3 * (age + 1) / 15) < 0.03  # Bin(3, (age+1)/15)
        attached = sample(tables, f"blocks/attached_{stem}", broke(f"attached_{stem}", facing="west"), 15000)
        assert abs(mean(attached, f"minecraft:{seeds}") - 3 * 8 / 15) < 0.03


def test_melon_gives_three_to_seven_slices(tables: LootTableSet) -> None:
    results = sample(tables, "blocks/melon", HAND, 6000)
    assert {r["minecraft:melon_slice"] for r in results} == set(range(3, 8))
    assert abs(mean(results, "minecraft:melon_slice") - 5.0) < 0.06
    lucky = sample(tables, "blocks/melon", tool("minecraft:iron_axe", fortune=3), 6000)
    assert max(r["minecraft:melon_slice"] for r in lucky) == 9  # uniform bonus, limited to 9
    assert sample(tables, "blocks/melon", SILK, 20) == [Counter({"minecraft:melon": 1})] * 20


def test_mushroom_blocks_drop_none_seven_times_in_nine(tables: LootTableSet) -> None:
    for cap, drop in (("red_mushroom_block", "red_mushroom"), ("brown_mushroom_block", "brown_mushroom")):
        results = sample(tables, f"blocks/{cap}", HAND, 18000)
        counts = Counter(r[f"minecraft:{drop}"] for r in results)
        assert set(counts) == {0, 1, 2}  # uniform(-6, 2) limited to >= 0
        assert abs(counts[0] / 18000 - 7 / 9) < 0.016 and abs(counts[2] / 18000 - 1 / 9) < 0.012
        assert sample(tables, f"blocks/{cap}", SILK, 10) == [Counter({f"minecraft:{cap}": 1})] * 10
    assert sample(tables, "blocks/mushroom_stem", HAND, 20) == [Counter()] * 20  # silk touch only
    assert sample(tables, "blocks/mushroom_stem", SILK, 5) == [Counter({"minecraft:mushroom_stem": 1})] * 5


def test_arena_blocks(tables: LootTableSet) -> None:
    for block in (
        "slime_block",
        "hay_block",
        "oak_fence",
        "cobblestone_wall",
        "hopper",
        "smooth_stone",
        "red_mushroom",
    ):
        assert sample(tables, f"blocks/{block}", HAND, 5) == [Counter({f"minecraft:{block}": 1})] * 5
    assert sample(tables, "blocks/farmland", HAND, 5) == [Counter({"minecraft:dirt": 1})] * 5
    assert sample(tables, "blocks/glass", HAND, 5) == [Counter()] * 5
    assert sample(tables, "blocks/cake", HAND, 5) == [Counter()] * 5  # noDrop


def test_chicken_vanilla_counts(tables: LootTableSet) -> None:
    ctx = LootContext(
        this_entity=EntityView(type="minecraft:chicken"), killer=player(), killer_player=player()
    )
    results = sample(tables, "entities/chicken", ctx, 3000)
    assert {r["minecraft:feather"] for r in results} == {0, 1, 2}
    assert {r["minecraft:chicken"] for r in results} == {1}
    burning = LootContext(this_entity=EntityView(type="minecraft:chicken", on_fire=True), killer=player())
    fired = sample(tables, "entities/chicken", burning, 50, smelt=smelting_lookup().get)
    assert all(r["minecraft:cooked_chicken"] == 1 and "minecraft:chicken" not in r for r in fired)
