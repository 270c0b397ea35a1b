"""The kind=mirror compiler: determinism, vanilla-format overrides per rule, and rolled loot.

Loot tables are checked by *rolling* them with the embedded server's loot interpreter
(``mirrorcraft.rules.loot``, written independently from the vanilla loot-table semantics), over
the vendored vanilla pack plus the compiled zip, exactly as the server stacks packs.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from mirrorcraft import gamedata
from mirrorcraft.contracts.rules import SuiteManifest
from mirrorcraft.datapacks.compiler import (
    PACK_DESCRIPTION,
    RULE_FIELD,
    build_suite_bytes,
    build_suite_files,
    compile_suite,
    rule_cards,
)
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.loot import EntityView, LootContext, LootTableSet, ToolView

PICK = LootContext(tool=ToolView(item="minecraft:iron_pickaxe"))
AXE = LootContext(tool=ToolView(item="minecraft:iron_axe"))
FORTUNE = LootContext(tool=ToolView(item="minecraft:iron_pickaxe", enchantments={"minecraft:fortune": 3}))
SILK = LootContext(tool=ToolView(item="minecraft:iron_pickaxe", enchantments={"minecraft:silk_touch": 1}))
COW = LootContext(this_entity=EntityView(type="minecraft:cow"))


def load(files: dict[str, bytes], path: str) -> dict:
    return json.loads(files[path])


def tables(tmp_path: Path, manifest: SuiteManifest) -> LootTableSet:
    z = compile_suite(manifest, tmp_path)
    return LootTableSet.from_pack_dirs([gamedata.VANILLA_PACK_DIR, z])


def rolls(
    ts: LootTableSet, table: str, ctx: LootContext, n: int = 200, seed: int = 7
) -> list[dict[str, int]]:
    rng = random.Random(seed)
    tag = lambda t: gamedata.tag("item", t)  # noqa: E731
    return [{s.item: s.count for s in ts.roll(table, ctx, rng, tag)} for _ in range(n)]


# -- determinism and packaging -----------------------------------------------------------------------


def test_same_manifest_same_bytes(suites: dict[str, SuiteManifest], tmp_path: Path) -> None:
    for s, m in suites.items():
        a, b = build_suite_bytes(m), build_suite_bytes(m.model_copy(deep=True))
        assert a == b, s
        written = compile_suite(m, tmp_path / "out")
        assert written == tmp_path / "out" / f"{s}.zip"
        assert written.read_bytes() == a
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]  # no temp files left


def test_zip_entries_sorted_with_fixed_metadata(suites: dict[str, SuiteManifest]) -> None:
    with zipfile.ZipFile(io.BytesIO(build_suite_bytes(suites["M03"]))) as zf:
        names = zf.namelist()
        assert names == sorted(names)
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert zf.testzip() is None


def test_pack_mcmeta_is_neutral(packs: dict[str, dict[str, bytes]], suites: dict[str, SuiteManifest]) -> None:
    metas = {s: load(f, "pack.mcmeta") for s, f in packs.items()}
    assert len({json.dumps(m, sort_keys=True) for m in metas.values()}) == 1  # identical for every suite
    meta = metas["M01"]
    assert meta["pack"]["pack_format"] == 10
    assert meta["pack"]["description"] == PACK_DESCRIPTION
    words = {w.lower().strip(".,;") for m in suites.values() for w in m.card.rules.split() if len(w) > 4}
    assert not words & set(PACK_DESCRIPTION.lower().split())


def test_every_rule_is_indexed_and_tagged(
    packs: dict[str, dict[str, bytes]], suites: dict[str, SuiteManifest]
) -> None:
    for s, files in packs.items():
        index = load(files, "data/mirrorcraft/rules/index.json")
        assert index["suite"] == s
        indexed = {rid for ids in index["resources"].values() for rid in ids}
        assert indexed == {r.id for r in suites[s].rules}
        for path, raw in files.items():
            if path.split("/")[2:3] in (["recipes"], ["loot_tables"]):
                data = json.loads(raw)
                loc = f"{path.split('/')[1]}:{'/'.join(path.split('/')[2:])[: -len('.json')]}"
                field = data[RULE_FIELD]
                assert (field if isinstance(field, list) else [field]) == index["resources"][loc]


def test_nothing_visible_to_players(packs: dict[str, dict[str, bytes]]) -> None:
    for s, files in packs.items():
        assert not [p for p in files if "/advancements/" in p], s
        for p, raw in files.items():
            if p.endswith(".mcfunction"):
                heads = {ln.split()[0] for ln in raw.decode().splitlines() if ln and not ln.startswith("#")}
                assert heads <= {"give", "scoreboard", "execute"}, (p, heads)


def test_rule_cards_match_manifests(suites: dict[str, SuiteManifest]) -> None:
    for m in suites.values():
        card = rule_cards(m)
        assert card == m.card_text()
        assert card.splitlines() == [m.card.title, f"Rules. {m.card.rules}", f"Effect. {m.card.effect}"]


# -- M01 ---------------------------------------------------------------------------------------------


def test_m01_recipes(packs: dict[str, dict[str, bytes]]) -> None:
    f = packs["M01"]
    planks = load(f, "data/minecraft/recipes/oak_planks.json")
    assert planks["type"] == "minecraft:crafting_shapeless"
    assert planks["ingredients"] == [{"item": "minecraft:oak_log"}]
    assert planks["result"] == {"item": "minecraft:oak_planks", "count": 2}
    rest = load(f, "data/mirrorcraft/recipes/oak_planks_unchanged_inputs.json")
    accepted = {i["item"] for i in rest["ingredients"][0]}
    assert accepted == set(gamedata.tag("item", "oak_logs")) - {"minecraft:oak_log"}
    assert rest["result"] == {"item": "minecraft:oak_planks", "count": 4}  # the vanilla result
    for wood in ("spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove"):
        assert load(f, f"data/minecraft/recipes/{wood}_planks.json")["result"]["count"] == 2
    stick = load(f, "data/minecraft/recipes/stick.json")
    assert stick["pattern"] == ["A", "A"] and stick["result"] == {"item": "minecraft:stick", "count": 1}
    assert load(f, "data/minecraft/recipes/paper.json")["result"] == {"item": "minecraft:paper", "count": 1}


def test_m01_smelting_yield_three_nuggets(packs: dict[str, dict[str, bytes]]) -> None:
    f = packs["M01"]
    recipe = load(f, "data/minecraft/recipes/iron_ingot_from_smelting_raw_iron.json")
    assert recipe["type"] == "minecraft:smelting"
    assert recipe["result"] == "minecraft:iron_nugget"  # 1.19: a bare id, no count
    assert recipe["ingredient"] == {"item": "minecraft:raw_iron"} and recipe["cookingtime"] == 200
    sidecar = load(f, "data/mirrorcraft/cooking_yields/furnace_raw_iron.json")
    assert sidecar == {
        "format": 1,
        "device": "furnace",
        "recipe_type": "minecraft:smelting",
        "recipe": "minecraft:iron_ingot_from_smelting_raw_iron",
        "input": "minecraft:raw_iron",
        "result": {"item": "minecraft:iron_nugget", "count": 3},
        "rule": "M01.raw_iron_smelts_to_three_nuggets",
    }
    # M01 changes smelting only: blasting raw iron stays vanilla (not overridden).
    assert "data/minecraft/recipes/iron_ingot_from_blasting_raw_iron.json" not in f
    # The vanilla-server mechanism: tick tag → tick function → top-up of count-1 per unit taken.
    assert load(f, "data/minecraft/tags/functions/tick.json")["values"] == ["mirrorcraft:yields/tick"]
    load_fn = f["data/mirrorcraft/functions/yields/load.mcfunction"].decode()
    assert "scoreboard objectives add mcy0 minecraft.crafted:minecraft.iron_nugget" in load_fn
    give = f["data/mirrorcraft/functions/yields/give_0.mcfunction"].decode()
    assert "give @s minecraft:iron_nugget 2\n" in give


# -- M02 ---------------------------------------------------------------------------------------------


def test_m02_log_drops_four_planks_silk_touch_keeps_log(
    suites: dict[str, SuiteManifest], tmp_path: Path
) -> None:
    ts = tables(tmp_path, suites["M02"])
    for ctx in (AXE, PICK, LootContext(tool=ToolView())):
        assert all(r == {"minecraft:oak_planks": 4} for r in rolls(ts, "minecraft:blocks/oak_log", ctx, 20))
    silk = LootContext(tool=ToolView(item="minecraft:iron_axe", enchantments={"minecraft:silk_touch": 1}))
    assert all(r == {"minecraft:oak_log": 1} for r in rolls(ts, "minecraft:blocks/oak_log", silk, 20))
    assert all(r == {"minecraft:jungle_planks": 4} for r in rolls(ts, "minecraft:blocks/jungle_log", AXE, 5))


def test_m02_iron_ore_adds_ingot_fortune_ignored(suites: dict[str, SuiteManifest], tmp_path: Path) -> None:
    ts = tables(tmp_path, suites["M02"])
    got = rolls(ts, "minecraft:blocks/deepslate_iron_ore", FORTUNE, 300)
    assert {r["minecraft:iron_ingot"] for r in got} == {1}  # the added stack ignores fortune
    assert max(r["minecraft:raw_iron"] for r in got) > 1  # the vanilla stack keeps fortune
    assert all(r == {"minecraft:iron_ore": 1} for r in rolls(ts, "minecraft:blocks/iron_ore", SILK, 20))
    cane = rolls(ts, "minecraft:blocks/sugar_cane", AXE, 20)
    assert all(r == {"minecraft:sugar_cane": 1, "minecraft:leather": 1} for r in cane)
    book = json.loads(build_suite_files(suites["M02"])["data/minecraft/recipes/book.json"])
    assert book["result"] == {"item": "minecraft:enchanting_table", "count": 1}


# -- M03 ---------------------------------------------------------------------------------------------


def test_m03(packs: dict[str, dict[str, bytes]], suites: dict[str, SuiteManifest], tmp_path: Path) -> None:
    f = packs["M03"]
    for dev in ("furnace", "blast_furnace"):
        y = load(f, f"data/mirrorcraft/cooking_yields/{dev}_raw_iron.json")
        assert y["result"] == {"item": "minecraft:iron_ingot", "count": 2}
    blast = load(f, "data/minecraft/recipes/iron_ingot_from_blasting_raw_iron.json")
    assert blast["type"] == "minecraft:blasting" and blast["result"] == "minecraft:iron_ingot"
    assert (
        "give @s minecraft:iron_ingot 1\n"
        in f["data/mirrorcraft/functions/yields/give_0.mcfunction"].decode()
    )
    assert load(f, "data/minecraft/recipes/oak_planks.json")["result"]["count"] == 6
    assert load(f, "data/minecraft/recipes/paper.json")["result"] == {"item": "minecraft:book", "count": 1}
    pick = load(f, "data/minecraft/recipes/diamond_pickaxe.json")
    assert pick["result"]["item"] == "minecraft:netherite_pickaxe"
    ts = tables(tmp_path, suites["M03"])
    got = rolls(ts, "minecraft:blocks/diamond_ore", FORTUNE, 100)
    assert all(r == {"minecraft:diamond": 2, "minecraft:lapis_lazuli": 1} for r in got)
    assert rolls(ts, "minecraft:blocks/deepslate_diamond_ore", SILK, 1) == [
        {"minecraft:deepslate_diamond_ore": 1}
    ]


# -- M04 ---------------------------------------------------------------------------------------------


def test_m04_compressed_drops_and_cow(suites: dict[str, SuiteManifest], tmp_path: Path) -> None:
    ts = tables(tmp_path, suites["M04"])
    expect = {
        "coal_ore": "coal_block",
        "deepslate_coal_ore": "coal_block",
        "iron_ore": "raw_iron_block",
        "diamond_ore": "diamond_block",
        "lapis_ore": "lapis_block",
        "deepslate_lapis_ore": "lapis_block",
    }
    for block, item in expect.items():
        assert all(r == {f"minecraft:{item}": 1} for r in rolls(ts, f"minecraft:blocks/{block}", FORTUNE, 30))
    assert rolls(ts, "minecraft:blocks/coal_ore", SILK, 1) == [{"minecraft:coal_ore": 1}]
    cows = rolls(ts, "minecraft:entities/cow", COW, 400)
    assert {r["minecraft:leather"] for r in cows} == {1, 2}
    assert {r["minecraft:beef"] for r in cows} == {1, 2, 3}
    assert {r["minecraft:bookshelf"] for r in cows} == {1}


# -- M05 ---------------------------------------------------------------------------------------------


def test_m05_route_substitution(packs: dict[str, dict[str, bytes]]) -> None:
    f = packs["M05"]
    assert load(f, "data/minecraft/recipes/furnace.json")["result"]["item"] == "minecraft:blast_furnace"
    assert load(f, "data/minecraft/recipes/iron_pickaxe.json")["result"]["item"] == "minecraft:iron_hoe"
    assert load(f, "data/minecraft/recipes/diamond_pickaxe.json")["result"]["item"] == "minecraft:diamond_hoe"
    for dev, rtype in (("furnace", "smelting"), ("blast_furnace", "blasting")):
        hoe = load(f, f"data/mirrorcraft/recipes/{dev}/iron_hoe.json")
        assert hoe["type"] == f"minecraft:{rtype}"
        assert (
            hoe["ingredient"] == {"item": "minecraft:iron_hoe"} and hoe["result"] == "minecraft:iron_pickaxe"
        )
        # the vanilla nugget recipe no longer accepts the hoe (it would compete), but keeps the rest
        nug = load(f, f"data/minecraft/recipes/iron_nugget_from_{rtype}.json")
        items = {i["item"] for i in nug["ingredient"]}
        assert "minecraft:iron_hoe" not in items and "minecraft:iron_pickaxe" in items and len(items) == 13
    dia = load(f, "data/mirrorcraft/recipes/blast_furnace/diamond_hoe.json")
    assert dia["type"] == "minecraft:blasting" and dia["result"] == "minecraft:diamond_pickaxe"
    assert dia["cookingtime"] == 100
    assert "data/mirrorcraft/recipes/furnace/diamond_hoe.json" not in f
    assert not [p for p in f if p.endswith(".mcfunction")]  # every M05 yield count is 1


# -- M06 ---------------------------------------------------------------------------------------------


def test_m06_byproducts(suites: dict[str, SuiteManifest], tmp_path: Path) -> None:
    ts = tables(tmp_path, suites["M06"])
    assert all(
        r == {"minecraft:spruce_planks": 4, "minecraft:stick": 2}
        for r in rolls(ts, "minecraft:blocks/spruce_log", AXE, 10)
    )
    lapis = rolls(ts, "minecraft:blocks/lapis_ore", PICK, 100)
    assert {r["minecraft:obsidian"] for r in lapis} == {2}
    assert {r["minecraft:lapis_lazuli"] for r in lapis} <= set(range(4, 10))
    cows = rolls(ts, "minecraft:entities/cow", COW, 300)
    assert {r["minecraft:paper"] for r in cows} == {2}
    assert {r.get("minecraft:leather", 0) for r in cows} == {0, 1, 2}  # vanilla leather kept


# -- errors --------------------------------------------------------------------------------------------


def _manifest_with(rule: dict) -> SuiteManifest:
    return SuiteManifest.model_validate(
        {
            "suite": "M01",
            "name": "test",
            "archive_name": "test",
            "card": {"title": "t", "rules": "r", "effect": "e"},
            "rules": [rule],
        }
    )


def test_unknown_recipe_names_rule() -> None:
    m = _manifest_with(
        {
            "id": "M01.bad",
            "operator": "recipe_result",
            "text": "x",
            "changes": [
                {"recipe": "minecraft:no_such_recipe", "result": {"item": "minecraft:stick", "count": 1}}
            ],
        }
    )
    with pytest.raises(DatapackError, match=r"no_such_recipe"):
        build_suite_bytes(m)


def test_unknown_item_names_rule_and_item() -> None:
    m = _manifest_with(
        {
            "id": "M01.bad_item",
            "operator": "block_drop_add",
            "text": "x",
            "changes": [
                {"block": "minecraft:stone", "drops": [{"item": "minecraft:unobtainium", "min": 1, "max": 1}]}
            ],
        }
    )
    with pytest.raises(DatapackError, match=r"M01\.bad_item.*unobtainium"):
        build_suite_bytes(m)


def test_inputs_not_in_vanilla_ingredient_rejected() -> None:
    m = _manifest_with(
        {
            "id": "M01.bad_inputs",
            "operator": "recipe_result",
            "text": "x",
            "changes": [
                {
                    "recipe": "minecraft:oak_planks",
                    "inputs": ["minecraft:birch_log"],
                    "result": {"item": "minecraft:oak_planks", "count": 2},
                }
            ],
        }
    )
    with pytest.raises(DatapackError, match=r"oak_planks.*birch_log"):
        build_suite_bytes(m)


def test_conflicting_yield_counts_for_one_item_rejected() -> None:
    m = _manifest_with(
        {
            "id": "M01.two_counts",
            "operator": "cooking_output",
            "text": "x",
            "changes": [
                {
                    "device": "furnace",
                    "input": "minecraft:raw_iron",
                    "result": {"item": "minecraft:iron_ingot", "count": 2},
                },
                {
                    "device": "blast_furnace",
                    "input": "minecraft:raw_iron",
                    "result": {"item": "minecraft:iron_ingot", "count": 3},
                },
            ],
        }
    )
    with pytest.raises(DatapackError, match="different counts"):
        build_suite_bytes(m)


def test_vanilla_cow_without_rule_pack() -> None:
    # Without a rule pack the cow is vanilla's 0-2 leather (the M04/M06 differences come from the pack).
    ts = LootTableSet.from_pack_dirs([gamedata.VANILLA_PACK_DIR])
    c = Counter(r.get("minecraft:leather", 0) for r in rolls(ts, "minecraft:entities/cow", COW, 300))
    assert set(c) == {0, 1, 2}
