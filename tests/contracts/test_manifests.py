"""The six suite manifests against the spec, and their targets against real 1.19.2 data.

Game facts come from minecraft-data 1.19.2 (blocks, items, entities) and from the vanilla 1.19.2
``declare_recipes`` capture in minecraft-packets (all 1,089 recipes with their real recipe ids).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.refdata import mcdata_path

from mirrorcraft.contracts import SUITE_IDS, load_all_suites, load_suite
from mirrorcraft.contracts.rules import MANIFEST_DIR, load_manifest, ore_variants, overworld_logs, planks_of
from mirrorcraft.errors import DatapackError

LOGS = [f"minecraft:{w}_log" for w in ("acacia", "birch", "dark_oak", "jungle", "mangrove", "oak", "spruce")]


def ore(name: str) -> list[str]:
    return sorted([f"minecraft:deepslate_{name}_ore", f"minecraft:{name}_ore"])


def drops(rule) -> dict[str, list[tuple[str, int, int]]]:
    return {
        c.block if hasattr(c, "block") else c.entity: [(d.item, d.min, d.max) for d in c.drops]
        for c in rule.changes
    }


@pytest.fixture(scope="module")
def suites():
    return load_all_suites()


def rules_of(suites, sid):
    return {r.id: r for r in suites[sid].rules}


# Stable ids: renaming one breaks records and encounter statistics, so the full list is pinned here.
EXPECTED_IDS = {
    "M01": ["M01.log_yields_two_planks", "M01.two_planks_yield_one_stick", "M01.raw_iron_smelts_to_three_nuggets",
            "M01.three_sugar_cane_yield_one_paper"],
    "M02": ["M02.log_drops_four_planks", "M02.iron_ore_adds_ingot", "M02.diamond_ore_adds_obsidian",
            "M02.sugar_cane_adds_leather", "M02.book_recipe_yields_enchanting_table"],
    "M03": ["M03.log_yields_six_planks", "M03.raw_iron_cooks_to_two_ingots",
            "M03.diamond_pickaxe_recipe_yields_netherite_pickaxe", "M03.three_sugar_cane_yield_one_book",
            "M03.diamond_ore_drops_two_diamonds_and_lapis"],
    "M04": ["M04.coal_ore_drops_coal_block", "M04.iron_ore_drops_raw_iron_block", "M04.diamond_ore_drops_diamond_block",
            "M04.lapis_ore_drops_lapis_block", "M04.cow_drops_leather_beef_bookshelf"],
    "M05": ["M05.furnace_recipe_yields_blast_furnace", "M05.iron_pickaxe_recipe_yields_iron_hoe",
            "M05.diamond_pickaxe_recipe_yields_diamond_hoe", "M05.iron_hoe_cooks_to_iron_pickaxe",
            "M05.diamond_hoe_blasts_to_diamond_pickaxe"],
    "M06": ["M06.log_drops_four_planks_and_two_sticks", "M06.iron_ore_adds_paper", "M06.diamond_ore_adds_lapis",
            "M06.lapis_ore_adds_two_obsidian", "M06.cow_adds_two_paper"],
}  # fmt: skip


def test_rule_ids_stable_and_unique(suites):
    assert list(suites) == list(SUITE_IDS)
    for sid, manifest in suites.items():
        assert [r.id for r in manifest.rules] == EXPECTED_IDS[sid]
    all_ids = [r.id for m in suites.values() for r in m.rules]
    assert len(all_ids) == len(set(all_ids)) == 29


def test_rule_cards(suites):
    names = {"M01": "Quantity scarcity", "M02": "Byproduct redistribution", "M03": "Yield expansion",
             "M04": "Compressed resource drops", "M05": "Route substitution", "M06": "Byproduct redistribution"}  # fmt: skip
    archive = {"M01": "Mirror01", "M02": "Mirror02", "M03": "Mirror03", "M04": "Mirror04", "M05": "Mirror06",
               "M06": "Mirror08"}  # fmt: skip
    for sid, m in suites.items():
        text = m.card_text()
        assert text.startswith(f"{sid}: {names[sid]}\nRules. ")
        assert "\nEffect. " in text and len(m.card.rules) > 80 and len(m.card.effect) > 40
        assert m.archive_name == archive[sid]
        assert sid not in m.card.rules  # the card states rules, not ids
    assert "raw iron smelts into three nuggets" in suites["M01"].card.rules
    assert "the book recipe yields an enchanting table" in suites["M02"].card.rules
    assert "blasting a diamond hoe yields a diamond pickaxe" in suites["M05"].card.rules


def test_m01(suites):
    r = rules_of(suites, "M01")
    planks = r["M01.log_yields_two_planks"]
    assert [(c.recipe, c.inputs, c.result.item, c.result.count) for c in planks.changes] == [
        (planks_of(log), [log], planks_of(log), 2) for log in LOGS
    ]
    stick = r["M01.two_planks_yield_one_stick"].changes
    assert [(c.recipe, c.result.item, c.result.count) for c in stick] == [
        ("minecraft:stick", "minecraft:stick", 1)
    ]
    iron = r["M01.raw_iron_smelts_to_three_nuggets"].changes
    assert [(c.device, c.input, c.result.item, c.result.count) for c in iron] == [
        ("furnace", "minecraft:raw_iron", "minecraft:iron_nugget", 3)
    ]
    paper = r["M01.three_sugar_cane_yield_one_paper"].changes
    assert [(c.recipe, c.result.item, c.result.count) for c in paper] == [
        ("minecraft:paper", "minecraft:paper", 1)
    ]


def test_m02(suites):
    r = rules_of(suites, "M02")
    logs = r["M02.log_drops_four_planks"]
    assert logs.operator == "block_drop_replace"
    assert drops(logs) == {log: [(planks_of(log), 4, 4)] for log in LOGS}
    assert r["M02.iron_ore_adds_ingot"].operator == "block_drop_add"
    assert drops(r["M02.iron_ore_adds_ingot"]) == {b: [("minecraft:iron_ingot", 1, 1)] for b in ore("iron")}
    assert drops(r["M02.diamond_ore_adds_obsidian"]) == {
        b: [("minecraft:obsidian", 1, 1)] for b in ore("diamond")
    }
    assert drops(r["M02.sugar_cane_adds_leather"]) == {"minecraft:sugar_cane": [("minecraft:leather", 1, 1)]}
    book = r["M02.book_recipe_yields_enchanting_table"].changes
    assert [(c.recipe, c.result.item, c.result.count) for c in book] == [
        ("minecraft:book", "minecraft:enchanting_table", 1)
    ]


def test_m03(suites):
    r = rules_of(suites, "M03")
    assert {c.result.count for c in r["M03.log_yields_six_planks"].changes} == {6}
    assert [c.recipe for c in r["M03.log_yields_six_planks"].changes] == [planks_of(log) for log in LOGS]
    iron = r["M03.raw_iron_cooks_to_two_ingots"].changes
    assert [(c.device, c.input, c.result.item, c.result.count) for c in iron] == [
        ("furnace", "minecraft:raw_iron", "minecraft:iron_ingot", 2),
        ("blast_furnace", "minecraft:raw_iron", "minecraft:iron_ingot", 2),
    ]
    pick = r["M03.diamond_pickaxe_recipe_yields_netherite_pickaxe"].changes
    assert [(c.recipe, c.result.item) for c in pick] == [
        ("minecraft:diamond_pickaxe", "minecraft:netherite_pickaxe")
    ]
    book = r["M03.three_sugar_cane_yield_one_book"].changes
    assert [(c.recipe, c.result.item, c.result.count) for c in book] == [
        ("minecraft:paper", "minecraft:book", 1)
    ]
    dia = r["M03.diamond_ore_drops_two_diamonds_and_lapis"]
    assert dia.operator == "block_drop_replace"
    assert drops(dia) == {
        b: [("minecraft:diamond", 2, 2), ("minecraft:lapis_lazuli", 1, 1)] for b in ore("diamond")
    }


def test_m04(suites):
    r = rules_of(suites, "M04")
    for rid, name, block in [
        ("M04.coal_ore_drops_coal_block", "coal", "coal_block"),
        ("M04.iron_ore_drops_raw_iron_block", "iron", "raw_iron_block"),
        ("M04.diamond_ore_drops_diamond_block", "diamond", "diamond_block"),
        ("M04.lapis_ore_drops_lapis_block", "lapis", "lapis_block"),
    ]:
        assert r[rid].operator == "block_drop_replace"
        assert drops(r[rid]) == {b: [(f"minecraft:{block}", 1, 1)] for b in ore(name)}
    cow = r["M04.cow_drops_leather_beef_bookshelf"]
    assert cow.operator == "entity_loot_replace"
    assert drops(cow) == {
        "minecraft:cow": [
            ("minecraft:leather", 1, 2),
            ("minecraft:beef", 1, 3),
            ("minecraft:bookshelf", 1, 1),
        ]
    }


def test_m05(suites):
    r = rules_of(suites, "M05")
    recipes = {
        rid: [(c.recipe, c.result.item, c.result.count) for c in r[rid].changes]
        for rid in EXPECTED_IDS["M05"][:3]
    }
    assert recipes == {
        "M05.furnace_recipe_yields_blast_furnace": [("minecraft:furnace", "minecraft:blast_furnace", 1)],
        "M05.iron_pickaxe_recipe_yields_iron_hoe": [("minecraft:iron_pickaxe", "minecraft:iron_hoe", 1)],
        "M05.diamond_pickaxe_recipe_yields_diamond_hoe": [
            ("minecraft:diamond_pickaxe", "minecraft:diamond_hoe", 1)
        ],
    }
    hoe = [(c.device, c.input, c.result.item) for c in r["M05.iron_hoe_cooks_to_iron_pickaxe"].changes]
    assert hoe == [("furnace", "minecraft:iron_hoe", "minecraft:iron_pickaxe"),
                   ("blast_furnace", "minecraft:iron_hoe", "minecraft:iron_pickaxe")]  # fmt: skip
    dia = [(c.device, c.input, c.result.item) for c in r["M05.diamond_hoe_blasts_to_diamond_pickaxe"].changes]
    assert dia == [("blast_furnace", "minecraft:diamond_hoe", "minecraft:diamond_pickaxe")]


def test_m06(suites):
    r = rules_of(suites, "M06")
    logs = r["M06.log_drops_four_planks_and_two_sticks"]
    assert logs.operator == "block_drop_replace"
    assert drops(logs) == {log: [(planks_of(log), 4, 4), ("minecraft:stick", 2, 2)] for log in LOGS}
    assert drops(r["M06.iron_ore_adds_paper"]) == {b: [("minecraft:paper", 1, 1)] for b in ore("iron")}
    assert drops(r["M06.diamond_ore_adds_lapis"]) == {
        b: [("minecraft:lapis_lazuli", 1, 1)] for b in ore("diamond")
    }
    assert drops(r["M06.lapis_ore_adds_two_obsidian"]) == {
        b: [("minecraft:obsidian", 2, 2)] for b in ore("lapis")
    }
    cow = r["M06.cow_adds_two_paper"]
    assert cow.operator == "entity_loot_add"
    assert drops(cow) == {"minecraft:cow": [("minecraft:paper", 2, 2)]}


def test_drop_policies_are_explicit(suites):
    for m in suites.values():
        for rule in m.rules:
            if rule.operator.startswith("block_drop"):
                assert (rule.fortune, rule.silk_touch) == ("ignored", "vanilla")


# ---- targets against real 1.19.2 data ------------------------------------------------------------


@pytest.fixture(scope="module")
def mcdata(node_modules):
    def names(key: str) -> list[dict]:
        return json.loads(mcdata_path(node_modules, "1.19.2", key).read_text())

    return {k: names(k) for k in ("blocks", "items", "entities")}


@pytest.fixture(scope="module")
def captured_recipes(packets_dir, mcdata):
    by_id = {i["id"]: f"minecraft:{i['name']}" for i in mcdata["items"]}
    data = json.loads((packets_dir / "from-server" / "declare_recipes" / "1.json").read_text())
    out = {}
    for r in data["recipes"]:
        d = r.get("data", {})
        ingredients: set[str] = set()
        raw = d.get("ingredients", []) if "ingredients" in d else [d.get("ingredient", [])]
        stack = list(raw)
        while stack:
            x = stack.pop()
            if isinstance(x, list):
                stack.extend(x)
            elif isinstance(x, dict) and x.get("present"):
                ingredients.add(by_id[x["itemId"]])
        result = d.get("result")
        out[r["recipeId"]] = {
            "type": r["type"],
            "ingredients": ingredients,
            "result": (by_id[result["itemId"]], result["itemCount"]) if result else None,
        }
    assert len(out) == 1089
    return out


def test_log_and_ore_targets_resolve_from_game_data(suites, mcdata):
    blocks = [b["name"] for b in mcdata["blocks"]]
    assert overworld_logs(blocks) == LOGS  # stripped logs, *_wood and nether stems excluded
    for sid, rid in [
        ("M02", "M02.log_drops_four_planks"),
        ("M06", "M06.log_drops_four_planks_and_two_sticks"),
    ]:
        assert sorted(suites[sid].rule(rid).targets()) == overworld_logs(blocks)
    for sid, rid, name in [
        ("M02", "M02.iron_ore_adds_ingot", "iron"), ("M02", "M02.diamond_ore_adds_obsidian", "diamond"),
        ("M03", "M03.diamond_ore_drops_two_diamonds_and_lapis", "diamond"),
        ("M04", "M04.coal_ore_drops_coal_block", "coal"), ("M04", "M04.iron_ore_drops_raw_iron_block", "iron"),
        ("M04", "M04.diamond_ore_drops_diamond_block", "diamond"), ("M04", "M04.lapis_ore_drops_lapis_block", "lapis"),
        ("M06", "M06.iron_ore_adds_paper", "iron"), ("M06", "M06.diamond_ore_adds_lapis", "diamond"),
        ("M06", "M06.lapis_ore_adds_two_obsidian", "lapis"),
    ]:  # fmt: skip
        assert sorted(suites[sid].rule(rid).targets()) == ore_variants(name, blocks) == ore(name)


def test_every_referenced_id_exists_in_1_19_2(suites, mcdata):
    items = {f"minecraft:{i['name']}" for i in mcdata["items"]}
    blocks = {f"minecraft:{b['name']}" for b in mcdata["blocks"]}
    entities = {f"minecraft:{e['name']}" for e in mcdata["entities"]}
    for m in suites.values():
        for rule in m.rules:
            for c in rule.changes:
                data = c.model_dump()
                if "block" in data:
                    assert c.block in blocks, (rule.id, c.block)
                if "entity" in data:
                    assert c.entity in entities, (rule.id, c.entity)
                if "input" in data:
                    assert c.input in items, (rule.id, c.input)
                for stack in data.get("drops", []) + ([data["result"]] if "result" in data else []):
                    assert stack["item"] in items, (rule.id, stack["item"])
                for i in data.get("inputs") or []:
                    assert i in items, (rule.id, i)


def test_recipe_targets_are_real_vanilla_recipes_and_change_them(suites, captured_recipes):
    checked = 0
    for m in suites.values():
        for rule in m.rules:
            if rule.operator != "recipe_result":
                continue
            for c in rule.changes:
                vanilla = captured_recipes[c.recipe]
                assert vanilla["type"].startswith("minecraft:crafting_"), (rule.id, c.recipe)
                assert set(c.inputs or []) <= vanilla["ingredients"], (rule.id, c.recipe)
                assert vanilla["result"] != (c.result.item, c.result.count), f"{rule.id} changes nothing"
                checked += 1
    assert checked == (7 + 1 + 1) + 1 + (7 + 1 + 1) + 3  # M01, M02, M03, M05
    # The vanilla facts the spec phrases rely on.
    assert captured_recipes["minecraft:oak_planks"]["result"] == ("minecraft:oak_planks", 4)
    assert (
        "minecraft:oak_wood" in captured_recipes["minecraft:oak_planks"]["ingredients"]
    )  # why `inputs` exists
    assert captured_recipes["minecraft:stick"]["result"] == ("minecraft:stick", 4)
    assert captured_recipes["minecraft:paper"]["ingredients"] == {"minecraft:sugar_cane"}
    assert captured_recipes["minecraft:paper"]["result"] == ("minecraft:paper", 3)


def test_cooking_targets_against_vanilla_cooking(suites, captured_recipes):
    device_type = {"furnace": "minecraft:smelting", "blast_furnace": "minecraft:blasting"}

    def vanilla_output(device: str, item: str):
        outs = {r["result"] for r in captured_recipes.values()
                if r["type"] == device_type[device] and item in r["ingredients"]}  # fmt: skip
        assert len(outs) <= 1
        return outs.pop() if outs else None

    expected_vanilla = {
        ("furnace", "minecraft:raw_iron"): ("minecraft:iron_ingot", 1),
        ("blast_furnace", "minecraft:raw_iron"): ("minecraft:iron_ingot", 1),
        ("furnace", "minecraft:iron_hoe"): ("minecraft:iron_nugget", 1),
        ("blast_furnace", "minecraft:iron_hoe"): ("minecraft:iron_nugget", 1),
        ("blast_furnace", "minecraft:diamond_hoe"): None,  # M05 opens a route vanilla does not have
    }
    seen = set()
    for m in suites.values():
        for rule in m.rules:
            if rule.operator == "cooking_output":
                for c in rule.changes:
                    key = (c.device, c.input)
                    assert vanilla_output(*key) == expected_vanilla[key]
                    assert expected_vanilla[key] != (c.result.item, c.result.count)
                    seen.add(key)
    assert seen == set(expected_vanilla)


def test_loader_errors_name_the_file_and_field(tmp_path):
    with pytest.raises(DatapackError, match="unknown suite 'M07'"):
        load_suite("M07")
    bad = json.loads((MANIFEST_DIR / "M02.json").read_text())
    bad["rules"][1]["id"] = bad["rules"][0]["id"]
    path = tmp_path / "M02.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(DatapackError, match=r"M02\.json: invalid manifest: .*duplicate rule id"):
        load_manifest(path)
    bad = json.loads((MANIFEST_DIR / "M04.json").read_text())
    bad["rules"][0]["changes"][0]["drops"][0]["max"] = 0
    path.write_text(json.dumps(bad))
    with pytest.raises(DatapackError, match=r"rules\.0\.block_drop_replace\.changes\.0\.drops\.0\.max"):
        load_manifest(path)
    bad = json.loads((MANIFEST_DIR / "M06.json").read_text())
    bad["rules"].append(dict(bad["rules"][1], id="M06.iron_ore_adds_more_paper"))
    path.write_text(json.dumps(bad))
    with pytest.raises(DatapackError, match="both change block minecraft:iron_ore"):
        load_manifest(path)
    path.write_text("{")
    with pytest.raises(DatapackError, match="not valid JSON"):
        load_manifest(path)
    assert load_manifest(Path(MANIFEST_DIR / "M01.json")).suite == "M01"
