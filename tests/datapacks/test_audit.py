"""Static audit: the six compiled packs and the vendored vanilla pack pass; hand-broken packs fail with
the file and the JSON field (or line) named."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from mirrorcraft import gamedata
from mirrorcraft.datapacks.audit import audit_files, audit_pack
from mirrorcraft.datapacks.cli import add_datapacks_parser
from mirrorcraft.datapacks.compiler import compile_suite, dump_json, zip_files


def test_six_packs_pass(suites, tmp_path: Path) -> None:
    for m in suites.values():
        report = audit_pack(compile_suite(m, tmp_path))
        assert report.ok, report.summary()
        assert not report.warnings, report.summary()
        assert report.counts["files"] >= 3


def test_counts(packs) -> None:
    r = audit_files(packs["M01"])
    assert r.counts["recipes"] == 17  # 7 planks + 7 unchanged-input planks + stick + paper + smelting
    assert r.counts["cooking_yields"] == 1 and r.counts["functions"] == 3


def test_vanilla_pack_passes_with_its_displays() -> None:
    report = audit_pack(gamedata.VANILLA_PACK_DIR, allow_display=True)
    assert report.ok, report.summary()
    assert report.counts["recipes"] == 1089
    strict = audit_pack(gamedata.VANILLA_PACK_DIR)
    assert {e.file for e in strict.errors} == {
        p.relative_to(gamedata.VANILLA_PACK_DIR).as_posix()
        for p in Path(gamedata.VANILLA_PACK_DIR, "data/minecraft/advancements").rglob("*.json")
        if "display" in json.loads(p.read_text())
    }


def test_folder_and_zip_give_same_report(packs, tmp_path: Path) -> None:
    folder = tmp_path / "pack"
    for rel, raw in packs["M02"].items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(raw)
    z = tmp_path / "pack.zip"
    z.write_bytes(zip_files(packs["M02"]))
    a, b = audit_pack(folder), audit_pack(z)
    assert a.ok and a.counts == b.counts


def broken(packs, suite: str, path: str, new: bytes | dict | None) -> dict[str, bytes]:
    files = dict(packs[suite])
    if new is None:
        del files[path]
    else:
        files[path] = new if isinstance(new, bytes) else dump_json(new)
    return files


def only_error(files: dict[str, bytes]):
    report = audit_files(files)
    assert not report.ok
    return report.errors


def test_bad_json_names_file_and_line(packs) -> None:
    path = "data/minecraft/recipes/stick.json"
    errs = only_error(
        broken(packs, "M01", path, b'{\n  "type": "minecraft:crafting_shaped",\n  "pattern": [\n')
    )
    assert errs[0].file == path and errs[0].where.startswith("line ")
    assert "invalid JSON" in errs[0].message


def test_unknown_item_names_field(packs) -> None:
    path = "data/minecraft/recipes/stick.json"
    recipe = json.loads(packs["M01"][path])
    recipe["result"]["item"] = "minecraft:stik"
    errs = only_error(broken(packs, "M01", path, recipe))
    assert [(e.file, e.where) for e in errs] == [(path, "result.item")]
    assert "minecraft:stik" in str(errs[0])


def test_unknown_item_in_loot_entry(packs) -> None:
    path = "data/minecraft/loot_tables/blocks/oak_log.json"
    table = json.loads(packs["M02"][path])
    table["pools"][-1]["entries"][0]["name"] = "minecraft:oak_plank"
    errs = only_error(broken(packs, "M02", path, table))
    assert (errs[0].file, errs[0].where) == (path, f"pools[{len(table['pools']) - 1}].entries[0].name")


def test_unknown_loot_function_and_condition(packs) -> None:
    path = "data/minecraft/loot_tables/entities/cow.json"
    table = json.loads(packs["M04"][path])
    table["pools"][0]["entries"][0]["functions"][0]["function"] = "minecraft:set_amount"
    table["pools"][1]["conditions"] = [{"condition": "minecraft:is_raining"}]
    errs = only_error(broken(packs, "M04", path, table))
    assert {e.where for e in errs} == {
        "pools[0].entries[0].functions[0].function",
        "pools[1].conditions[0].condition",
    }


def test_bad_pack_format(packs) -> None:
    errs = only_error(broken(packs, "M03", "pack.mcmeta", {"pack": {"pack_format": 9, "description": "x"}}))
    assert [(e.file, e.where) for e in errs] == [("pack.mcmeta", "pack.pack_format")]


def test_missing_pack_mcmeta(packs) -> None:
    errs = only_error(broken(packs, "M03", "pack.mcmeta", None))
    assert errs[0].file == "pack.mcmeta" and "missing" in errs[0].message


def test_displayed_advancement(packs) -> None:
    adv = {
        "display": {"title": "You found a rule", "description": "x", "icon": {"item": "minecraft:stick"}},
        "criteria": {"c": {"trigger": "minecraft:inventory_changed"}},
    }
    path = "data/mirrorcraft/advancements/leak.json"
    errs = only_error(broken(packs, "M01", path, adv))
    assert [(e.file, e.where) for e in errs] == [(path, "display")]


@pytest.mark.parametrize(
    "line",
    [
        'tellraw @a {"text":"three nuggets!"}',
        "say hello",
        'execute as @a run title @s title {"text":"x"}',
        "execute as @a at @s run me smelts",
    ],
)
def test_chat_in_function(packs, line: str) -> None:
    path = "data/mirrorcraft/functions/yields/tick.mcfunction"
    text = packs["M01"][path].decode() + line + "\n"
    errs = only_error(broken(packs, "M01", path, text.encode()))
    n = len(text.splitlines())
    assert [(e.file, e.where) for e in errs] == [(path, f"line {n}")]
    assert "chat" in errs[0].message


def test_command_not_on_allow_list_and_missing_function(packs) -> None:
    path = "data/mirrorcraft/functions/yields/tick.mcfunction"
    text = packs["M01"][path].decode() + "setblock ~ ~ ~ minecraft:stone\nfunction mirrorcraft:nope\n"
    errs = only_error(broken(packs, "M01", path, text.encode()))
    assert ["allow-list" in errs[0].message, "does not exist" in errs[1].message] == [True, True]


def test_cooking_result_with_count_is_the_119_trap(packs) -> None:
    path = "data/minecraft/recipes/iron_ingot_from_smelting_raw_iron.json"
    recipe = json.loads(packs["M03"][path])
    recipe["result"] = {"item": "minecraft:iron_ingot", "count": 2}
    errs = only_error(broken(packs, "M03", path, recipe))
    assert errs[0].where == "result" and "1.19" in errs[0].message
    # ... and the sidecar now disagrees with the recipe's result
    assert any(e.file.endswith("furnace_raw_iron.json") for e in errs)


def test_sidecar_inconsistent_with_recipe(packs) -> None:
    path = "data/mirrorcraft/cooking_yields/furnace_raw_iron.json"
    y = json.loads(packs["M01"][path])
    y["result"]["item"] = "minecraft:iron_ingot"
    y["device"] = "blast_furnace"
    errs = only_error(broken(packs, "M01", path, y))
    assert {e.where for e in errs} == {"recipe_type", "result.item"}


def test_sidecar_schema(packs) -> None:
    path = "data/mirrorcraft/cooking_yields/furnace_raw_iron.json"
    y = json.loads(packs["M01"][path])
    y["result"]["count"] = 0
    del y["rule"]
    errs = only_error(broken(packs, "M01", path, y))
    assert {e.where for e in errs} >= {"rule"}


def test_index_names_missing_resource_and_bad_rule(packs) -> None:
    path = "data/mirrorcraft/rules/index.json"
    idx = json.loads(packs["M02"][path])
    idx["resources"]["minecraft:recipes/nothing"] = ["M02.book_recipe_yields_enchanting_table"]
    idx["resources"]["minecraft:recipes/book"] = ["M03.not_this_suite"]
    errs = only_error(broken(packs, "M02", path, idx))
    assert {e.where for e in errs} == {
        "resources.minecraft:recipes/nothing",
        "resources.minecraft:recipes/book[0]",
    }


def test_rule_field_must_be_rule_id(packs) -> None:
    path = "data/minecraft/recipes/book.json"
    recipe = json.loads(packs["M02"][path])
    recipe["mirrorcraft:rule"] = "book rule"
    errs = only_error(broken(packs, "M02", path, recipe))
    assert [(e.file, e.where) for e in errs] == [(path, "mirrorcraft:rule")]


def test_unknown_tag_and_recipe_type(packs) -> None:
    path = "data/minecraft/recipes/oak_planks.json"
    recipe = json.loads(packs["M01"][path])
    recipe["ingredients"] = [{"tag": "minecraft:oak_logz"}]
    errs = only_error(broken(packs, "M01", path, recipe))
    assert [e.where for e in errs] == ["ingredients[0].tag"]
    recipe["type"] = "minecraft:crafting_fancy"
    errs = only_error(broken(packs, "M01", path, recipe))
    assert [e.where for e in errs] == ["type"]


def test_cli_audit_exit_codes(packs, tmp_path: Path, capsys) -> None:
    parser = argparse.ArgumentParser()
    add_datapacks_parser(parser.add_subparsers())
    good = tmp_path / "good.zip"
    good.write_bytes(zip_files(packs["M04"]))
    bad = tmp_path / "bad.zip"
    bad.write_bytes(
        zip_files(broken(packs, "M04", "pack.mcmeta", {"pack": {"pack_format": 12, "description": ""}}))
    )
    args = parser.parse_args(["datapacks", "audit", str(good)])
    assert args.handler(args) == 0
    args = parser.parse_args(["datapacks", "audit", str(bad)])
    assert args.handler(args) == 1
    assert "pack.mcmeta at pack.pack_format" in capsys.readouterr().out
    args = parser.parse_args(["datapacks", "audit", str(tmp_path / "missing.zip")])
    assert args.handler(args) == 2
