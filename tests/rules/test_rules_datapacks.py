"""DatapackSet: load order, overrides, tag ``replace`` semantics, pack.mcmeta, the rule index, yield
sidecars, and broken packs failing with errors that name the file and the field."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from support.rules_support import VANILLA, make_pack

from mirrorcraft import gamedata
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet, save_pack_roots


def test_vanilla_pack_contents(vanilla: DatapackSet) -> None:
    vanilla_files = list((VANILLA / "data" / "minecraft" / "recipes").glob("*.json"))
    assert len(vanilla.recipes) == len(vanilla_files) == 1089
    assert list(vanilla.recipes) == sorted(vanilla.recipes)  # recipe-id order
    assert len(vanilla.advancements) == 16
    assert "minecraft:blocks/stone" in vanilla.loot
    # flattened vanilla tags agree with the tags packet the vanilla server sent (gamedata)
    for name in (
        "minecraft:logs",
        "minecraft:planks",
        "minecraft:stone_tool_materials",
        "minecraft:oak_logs",
    ):
        assert vanilla.item_tag(name) == gamedata.tag("item", name)
    assert vanilla.rule_index == {}
    assert vanilla.rule_ids("recipes", "minecraft:stick") == ()
    assert DatapackSet.vanilla_only() is vanilla  # cached


def test_later_pack_overrides_recipe_and_tags_append(tmp_path: Path) -> None:
    override = make_pack(
        tmp_path / "p",
        {
            "data/minecraft/recipes/stick.json": {
                "type": "minecraft:crafting_shapeless",
                "ingredients": [{"item": "minecraft:dirt"}],
                "result": {"item": "minecraft:stick", "count": 9},
            },
            # appends to the vanilla tag (replace defaults to false)
            "data/minecraft/tags/items/planks.json": {"values": ["minecraft:dirt"]},
            # replace=true drops the vanilla members
            "data/minecraft/tags/items/oak_logs.json": {"replace": True, "values": ["minecraft:stone"]},
            # a nested reference, and an optional missing element
            "data/mirrortest/tags/items/nested.json": {
                "values": ["#minecraft:oak_logs", {"id": "minecraft:not_an_item", "required": False}]
            },
        },
    )
    packs = DatapackSet.load([VANILLA, override])
    stick = packs.recipes["minecraft:stick"]
    assert stick.type == "minecraft:crafting_shapeless" and stick.count == 9
    assert packs.provider["minecraft:recipes/stick"] == 1
    assert packs.provider["minecraft:recipes/torch"] == 0
    assert packs.item_tag("planks") == gamedata.tag("item", "planks") | {"minecraft:dirt"}
    assert packs.item_tag("oak_logs") == {"minecraft:stone"}
    # references are flattened after all packs are read, so #mirrortest:nested sees the replaced members
    assert packs.item_tag("mirrortest:nested") == {"minecraft:stone"}


def test_zip_pack_and_save_roots(tmp_path: Path) -> None:
    world = tmp_path / "world"
    (world / "datapacks").mkdir(parents=True)
    with zipfile.ZipFile(world / "datapacks" / "b.zip", "w") as z:
        z.writestr("pack.mcmeta", json.dumps({"pack": {"pack_format": 10, "description": "z"}}))
        z.writestr(
            "data/minecraft/recipes/torch.json",
            json.dumps(
                {
                    "type": "minecraft:crafting_shaped",
                    "pattern": ["A"],
                    "key": {"A": {"item": "minecraft:dirt"}},
                    "result": {"item": "minecraft:torch", "count": 2},
                }
            ),
        )
    make_pack(world / "datapacks" / "a_folder", {})
    (world / "datapacks" / "not_a_pack").mkdir()
    roots = save_pack_roots(world)
    assert roots == [VANILLA, world / "datapacks" / "a_folder", world / "datapacks" / "b.zip"]
    packs = DatapackSet.load(roots)
    assert packs.recipes["minecraft:torch"].count == 2
    assert packs.provider["minecraft:recipes/torch"] == 2


def test_compiled_mirror_pack_index_and_sidecar(mirror: Callable[[str], DatapackSet]) -> None:
    m01 = mirror("M01")
    assert m01.rule_ids("recipes", "minecraft:stick") == ("M01.two_planks_yield_one_stick",)
    assert m01.rule_ids("recipes", "minecraft:oak_planks") == ("M01.log_yields_two_planks",)
    y = m01.cooking_yields[("furnace", "minecraft:raw_iron")]
    assert (y.item, y.count, y.rule) == ("minecraft:iron_nugget", 3, "M01.raw_iron_smelts_to_three_nuggets")
    assert y.recipe == "minecraft:iron_ingot_from_smelting_raw_iron"
    assert m01.recipes[y.recipe].result == "minecraft:iron_nugget"  # the overridden recipe
    assert ("blast_furnace", "minecraft:raw_iron") not in m01.cooking_yields  # M01 is smelting only
    assert m01.rule_ids("cooking_yields", y.location) == ("M01.raw_iron_smelts_to_three_nuggets",)
    m02 = mirror("M02")
    assert m02.rule_ids("loot_tables", "minecraft:blocks/iron_ore") == ("M02.iron_ore_adds_ingot",)
    assert m02.rule_ids("loot_tables", "minecraft:blocks/stone") == ()


def test_index_follows_the_winning_pack(tmp_path: Path, suite_pack: Callable[[str], Path]) -> None:
    # A later pack re-overriding the stick recipe takes the resource away from the M01 rule.
    later = make_pack(
        tmp_path / "later",
        {
            "data/minecraft/recipes/stick.json": json.loads(
                (VANILLA / "data/minecraft/recipes/stick.json").read_text()
            )
        },
    )
    packs = DatapackSet.load([VANILLA, suite_pack("M01"), later])
    assert packs.rule_ids("recipes", "minecraft:stick") == ()
    assert packs.rule_ids("recipes", "minecraft:paper") == ("M01.three_sugar_cane_yield_one_paper",)


# ---------------------------------------------------------------------------------------------------
# Broken packs
# ---------------------------------------------------------------------------------------------------

GOOD_RECIPE = {
    "type": "minecraft:crafting_shaped",
    "pattern": ["AA"],
    "key": {"A": {"item": "minecraft:dirt"}},
    "result": {"item": "minecraft:stone"},
}


@pytest.mark.parametrize(
    ("rel", "content", "expected"),
    [
        ("data/minecraft/recipes/x.json", "{not json", r"x\.json: not valid JSON \(line 1"),
        (
            "data/minecraft/recipes/x.json",
            {**GOOD_RECIPE, "type": "minecraft:crafting_magic"},
            r"x\.json: type: unknown recipe type 'minecraft:crafting_magic'",
        ),
        (
            "data/minecraft/recipes/x.json",
            {**GOOD_RECIPE, "key": {"A": {"item": "minecraft:no_such_item"}}},
            r"x\.json: key\.A\.item: unknown item 'minecraft:no_such_item'",
        ),
        (
            "data/minecraft/recipes/x.json",
            {**GOOD_RECIPE, "key": {"A": {"tag": "minecraft:no_such_tag"}}},
            r"x\.json: key\.A\.tag: unknown item tag #minecraft:no_such_tag",
        ),
        (
            "data/minecraft/recipes/x.json",
            {**GOOD_RECIPE, "pattern": ["AB"]},
            r"x\.json: pattern: pattern uses symbols the key does not define: \['B'\]",
        ),
        (
            "data/minecraft/recipes/x.json",
            {"type": "minecraft:smelting", "ingredient": {"item": "minecraft:dirt"},
             "result": {"item": "minecraft:stone", "count": 2}},
            r"x\.json: result: a 1\.19 cooking recipe's result is a bare item id",
        ),
        (
            "data/minecraft/tags/items/x.json",
            {"values": ["#minecraft:no_such_tag"]},
            r"x\.json: values\[0\]: tag items #minecraft:x references unknown tag #minecraft:no_such_tag",
        ),
        (
            "data/minecraft/tags/items/x.json",
            {"values": ["minecraft:dirt", "minecraft:not_an_item"]},
            r"x\.json: values\[1\]: tag items #minecraft:x names unknown element 'minecraft:not_an_item'",
        ),
        (
            "data/minecraft/advancements/x.json",
            {"criteria": {"c": {"trigger": "minecraft:teleported"}}},
            r"x\.json: criteria\.c\.trigger: unknown criterion trigger 'minecraft:teleported'",
        ),
        (
            "data/minecraft/advancements/x.json",
            {"parent": "minecraft:story/nope", "criteria": {"c": {"trigger": "minecraft:tick"}}},
            r"x\.json: parent: unknown advancement 'minecraft:story/nope'",
        ),
        (
            "data/minecraft/loot_tables/blocks/x.json",
            {"pools": [{"rolls": 1, "entries": [{"type": "minecraft:wishful"}]}]},
            r"x\.json: loot table minecraft:blocks/x: pools\[0\]\.entries\[0\]\.type",
        ),
        (
            "data/mirrorcraft/cooking_yields/furnace_dirt.json",
            {"format": 1, "device": "furnace", "recipe_type": "minecraft:smelting",
             "recipe": "minecraft:glass", "input": "minecraft:dirt",
             "result": {"item": "minecraft:glass", "count": 2}, "rule": "M01.x"},
            r"furnace_dirt\.json: input: recipe minecraft:glass does not accept minecraft:dirt",
        ),
        (
            "data/mirrorcraft/cooking_yields/furnace_sand.json",
            {"format": 2, "device": "furnace"},
            r"furnace_sand\.json: format: unsupported sidecar format 2",
        ),
        (
            "data/mirrorcraft/rules/index.json",
            {"format": 1, "suite": "M01", "resources": {"minecraft:recipes/stick": "M01.x"}},
            r"index\.json: resources\.minecraft:recipes/stick: expected a JSON array",
        ),
    ],
)  # fmt: skip
def test_broken_pack_names_file_and_field(tmp_path: Path, rel: str, content: object, expected: str) -> None:
    pack = make_pack(tmp_path / "broken", {rel: content})
    with pytest.raises(DatapackError, match=expected):
        DatapackSet.load([VANILLA, pack])


def test_pack_mcmeta_is_checked(tmp_path: Path) -> None:
    with pytest.raises(DatapackError, match=r"pack\.mcmeta is missing"):
        DatapackSet.load([VANILLA, make_pack(tmp_path / "a", {}, pack_format=None)])
    with pytest.raises(DatapackError, match=r"pack\.mcmeta: pack\.pack_format: pack_format 9 is not 10"):
        DatapackSet.load([VANILLA, make_pack(tmp_path / "b", {}, pack_format=9)])
    with pytest.raises(DatapackError, match=r"no such pack"):
        DatapackSet.load([VANILLA, tmp_path / "missing"])
    bad_zip = tmp_path / "c.zip"
    bad_zip.write_bytes(b"PK not really")
    with pytest.raises(DatapackError, match=r"c\.zip: not a zip file"):
        DatapackSet.load([VANILLA, bad_zip])


def test_two_sidecars_for_one_input_are_an_error(tmp_path: Path, suite_pack: Callable[[str], Path]) -> None:
    # M01's sidecar is furnace_raw_iron; a second file for the same (device, input) under another name
    sidecar = json.loads(
        zipfile.ZipFile(suite_pack("M01")).read("data/mirrorcraft/cooking_yields/furnace_raw_iron.json")
    )
    extra = make_pack(tmp_path / "x", {"data/mirrorcraft/cooking_yields/again.json": sidecar})
    with pytest.raises(DatapackError, match=r"a second cooking-yield sidecar for furnace minecraft:raw_iron"):
        DatapackSet.load([VANILLA, suite_pack("M01"), extra])
