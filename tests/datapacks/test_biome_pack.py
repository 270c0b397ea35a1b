"""kind=biome → worldgen datapack (best effort for a vanilla server; statically audited only)."""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

import pytest

from mirrorcraft import gamedata
from mirrorcraft.datapacks.audit import audit_files
from mirrorcraft.datapacks.biome import BIOME_NAMES, load_biome_spec
from mirrorcraft.datapacks.biome_pack import audit_biome_files, build_biome_bytes, build_biome_files
from mirrorcraft.datapacks.cli import add_datapacks_parser


@pytest.mark.parametrize("name", BIOME_NAMES)
def test_biome_pack_builds_deterministically_and_audits(name: str) -> None:
    files = build_biome_files(name)
    assert build_biome_bytes(name) == build_biome_bytes(load_biome_spec(name))
    report = audit_files(files)
    assert report.ok and not report.warnings, report.summary()
    assert audit_biome_files(files) == []
    meta = json.loads(files["pack.mcmeta"])
    assert meta["pack"]["pack_format"] == 10


def test_plains_contents_follow_the_spec() -> None:
    spec = load_biome_spec("plains")
    files = build_biome_files(spec)
    biome = json.loads(files["data/minecraft/worldgen/biome/plains.json"])
    info = gamedata.biome("plains")
    assert (
        biome["temperature"] == pytest.approx(info.temperature)
        and biome["precipitation"] == info.precipitation
    )
    assert biome["spawners"]["creature"] == [
        {"type": "minecraft:cow", "weight": 24, "minCount": 4, "maxCount": 4}
    ]
    assert len(biome["features"]) == 11
    bands = [b for b in spec.resources.vanilla_placements + spec.resources.custom_bands if b.attempts > 0]
    assert biome["features"][6] == [f"mirrorcraft:ore_{b.name}" for b in bands]
    coal = json.loads(files["data/mirrorcraft/worldgen/placed_feature/ore_coal.json"])
    assert coal["placement"][0] == {"type": "minecraft:count", "count": 96}
    assert coal["placement"][2]["height"] == {
        "type": "minecraft:uniform",
        "min_inclusive": {"absolute": 44},
        "max_inclusive": {"absolute": 112},
    }
    ore = json.loads(files["data/mirrorcraft/worldgen/configured_feature/ore_coal.json"])
    assert ore["config"]["size"] == 20 and ore["config"]["discard_chance_on_air_exposure"] == 0.0
    assert [t["state"]["Name"] for t in ore["config"]["targets"]] == [
        "minecraft:coal_ore",
        "minecraft:deepslate_coal_ore",
    ]
    trees = json.loads(files["data/mirrorcraft/worldgen/placed_feature/trees.json"])
    assert trees["feature"] == "minecraft:oak"
    assert trees["placement"][0]["count"]["distribution"] == [
        {"weight": t.weight, "data": t.count} for t in spec.ecology.trees_per_chunk
    ]
    dim = json.loads(files["data/minecraft/dimension/overworld.json"])
    assert dim["generator"]["biome_source"] == {"type": "minecraft:fixed", "biome": "minecraft:plains"}


def test_snowy_plains_freezes_and_jungle_uses_jungle_trees() -> None:
    snowy = json.loads(build_biome_files("snowy_plains")["data/minecraft/worldgen/biome/snowy_plains.json"])
    assert snowy["features"][10] == ["minecraft:freeze_top_layer"] and snowy["precipitation"] == "snow"
    trees = json.loads(build_biome_files("jungle")["data/mirrorcraft/worldgen/placed_feature/trees.json"])
    assert trees["feature"] == "minecraft:jungle_tree"


def test_broken_references_are_named() -> None:
    files = dict(build_biome_files("taiga"))
    del files["data/mirrorcraft/worldgen/configured_feature/ore_iron.json"]
    path = "data/mirrorcraft/worldgen/placed_feature/trees.json"
    trees = json.loads(files[path])
    trees["placement"][-1]["predicate"]["state"]["Name"] = "minecraft:spruce_sappling"
    files[path] = json.dumps(trees).encode()
    problems = audit_biome_files(files)
    assert problems == [
        "data/mirrorcraft/worldgen/placed_feature/ore_iron.json at feature: unknown configured feature "
        "'mirrorcraft:ore_iron'",
        f"{path} at placement[5].predicate.state.Name: unknown block 'minecraft:spruce_sappling'",
    ]


def test_cli_biome(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_datapacks_parser(parser.add_subparsers())
    args = parser.parse_args(["datapacks", "biome", "--biome", "savanna", "--out", str(tmp_path)])
    assert args.handler(args) == 0
    with zipfile.ZipFile(tmp_path / "biome-savanna.zip") as zf:
        assert "data/minecraft/worldgen/biome/savanna.json" in zf.namelist()
