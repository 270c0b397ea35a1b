"""World catalogue: 10 Vanilla + 60 Mirror worlds; a Mirror copy is its Vanilla save plus the rule pack.

Default tier builds one Vanilla world and its copies at a small radius; ``-m slow`` builds and checks all
70 worlds at the default radius.
"""

from __future__ import annotations

import argparse
import hashlib
import zipfile
from pathlib import Path

import pytest

from mirrorcraft.contracts.episodes import VANILLA_WORLDS
from mirrorcraft.contracts.rules import load_suite
from mirrorcraft.datapacks.compiler import RULE_PACK_FILENAME, build_suite_bytes
from mirrorcraft.errors import WorldError
from mirrorcraft.worlds import catalogue as cat
from mirrorcraft.worlds.anvil import LevelData
from mirrorcraft.worlds.check import check_catalogue, check_pair, check_world, level_dat_diff
from mirrorcraft.worlds.cli import add_worlds_parser

RADIUS = 48


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("catalogue")
    records = cat.build_catalogue(out, only="plains-1/*", radius_blocks=RADIUS)
    assert [r.name for r in records] == ["plains-1"] + [f"plains-1/M0{i}" for i in range(1, 7)]
    assert all(r.built for r in records)
    return out


def test_catalogue_names_and_seeds() -> None:
    entries = cat.catalogue()
    assert len(entries) == 70
    vanilla = [e for e in entries if not e.is_mirror]
    assert [e.name for e in vanilla] == list(VANILLA_WORLDS)
    assert len({e.seed for e in vanilla}) == 10
    for e in entries:
        digest = hashlib.sha256(f"mirrorcraft_{e.vanilla}".encode()).digest()
        assert e.seed == int.from_bytes(digest[:8], "big") >> 1 < 2**63
    assert cat.entry("snowy_plains-2/M05").biome == "snowy_plains"
    assert len(cat.select("taiga")) == 14 and len(cat.select("mirror")) == 60
    with pytest.raises(WorldError, match="unknown world"):
        cat.entry("plains-3")


def test_mirror_copy_differs_only_by_rule_pack(built: Path) -> None:
    v = cat.world_path(built, "plains-1")
    for suite in ("M01", "M03", "M06"):
        m = cat.world_path(built, f"plains-1/{suite}")
        pair = check_pair(v, m, suite)
        assert pair.ok, pair.problems
        assert pair.level_dat_diff == ["Data.DataPacks.Enabled"]
        assert pair.datapacks == [f"datapacks/{RULE_PACK_FILENAME}"]
        assert pair.identical_files >= 2  # region + entities files, byte for byte
        assert (m / "datapacks" / RULE_PACK_FILENAME).read_bytes() == build_suite_bytes(load_suite(suite))
        assert LevelData.load(v / "level.dat").enabled_datapacks == ["vanilla"]
        assert LevelData.load(m / "level.dat").enabled_datapacks == ["vanilla", f"file/{RULE_PACK_FILENAME}"]
        for rel in ("region", "entities"):
            for f in sorted((v / rel).iterdir()):
                assert (m / rel / f.name).read_bytes() == f.read_bytes()
    # the six copies' level.dat files are byte-identical to each other (same pack file name)
    dats = {(cat.world_path(built, f"plains-1/M0{i}") / "level.dat").read_bytes() for i in range(1, 7)}
    assert len(dats) == 1
    with zipfile.ZipFile(cat.world_path(built, "plains-1/M02") / "datapacks" / RULE_PACK_FILENAME) as zf:
        assert "pack.mcmeta" in zf.namelist()


def test_pair_check_catches_tampering(built: Path, tmp_path: Path) -> None:
    import shutil

    m = tmp_path / "m"
    shutil.copytree(cat.world_path(built, "plains-1/M04"), m)
    region = sorted((m / "region").iterdir())[0]
    data = bytearray(region.read_bytes())
    data[-1] ^= 0xFF
    region.write_bytes(bytes(data))
    (m / "datapacks" / "extra.zip").write_bytes(b"PK")
    pair = check_pair(cat.world_path(built, "plains-1"), m, "M05")
    assert not pair.ok
    text = "\n".join(pair.problems)
    assert f"region/{region.name}: bytes differ" in text
    assert "extra.zip" in text
    assert level_dat_diff(cat.world_path(built, "plains-1") / "level.dat", m / "level.dat") == [
        "Data.DataPacks.Enabled"
    ]


def test_vanilla_world_check(built: Path) -> None:
    result = check_world(cat.world_path(built, "plains-1"), radius=RADIUS)
    assert result.spawn_safe, result.spawn_details
    assert set(result.resources) == {
        "logs",
        "stone",
        "coal",
        "iron",
        "diamond",
        "lapis",
        "obsidian",
        "sugar_cane_at_water",
        "cows",
    }
    assert result.ok, result.problems
    tiny = check_world(cat.world_path(built, "plains-1"), radius=2)
    assert not tiny.ok and any(p.startswith("logs:") or p.startswith("cows:") for p in tiny.problems)


def test_existing_worlds_are_kept_and_record_written(built: Path) -> None:
    again = cat.build_world("plains-1/M02", built, RADIUS)
    assert not again.built
    record = (built / cat.CATALOGUE_FILE).read_text()
    assert '"plains-1/M06"' in record and '"radius_blocks": 48' in record
    with pytest.raises(WorldError, match="radius"):
        cat.build_world("plains-1/M02", built, 96, force=True)


def test_failed_build_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mirrorcraft.worlds.generate as gen

    def boom(*args, **kwargs):
        out = Path(args[2])
        out.mkdir(parents=True)
        (out / "level.dat").write_bytes(b"half")
        raise WorldError("simulated failure")

    monkeypatch.setattr(gen, "generate_world", boom)
    with pytest.raises(WorldError, match="simulated"):
        cat.build_world("jungle-2", tmp_path, 32)
    assert [p for p in (tmp_path / "vanilla").iterdir()] == []


def test_worlds_cli(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_worlds_parser(parser.add_subparsers())
    args = parser.parse_args(["worlds", "list", "--out", str(built), "--only", "plains-1/*"])
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert out.count("built") == 7
    args = parser.parse_args(["worlds", "check", "plains-1/*", "--out", str(built), "--radius", str(RADIUS)])
    assert args.handler(args) == 0
    assert capsys.readouterr().out.count(" ok") == 7
    args = parser.parse_args(["worlds", "check", "savanna-1", "--out", str(built)])
    assert args.handler(args) == 2  # not built


@pytest.mark.slow
def test_all_seventy_worlds(tmp_path: Path) -> None:
    records = cat.build_catalogue(tmp_path)
    assert len(records) == 70
    results = check_catalogue(tmp_path)
    failed = [r for r in results if not r.ok]
    assert not failed, [(getattr(r, "path", getattr(r, "mirror", "")), r.problems) for r in failed]
