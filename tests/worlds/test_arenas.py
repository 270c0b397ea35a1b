"""The PillagerBench arenas as real saves: documented coordinates hold the documented blocks, the mirror.

Every coordinate below is written down here, independently of the builder and its specs: the Mushroom War
cells from the original's block list (scenarios/mushroom_war.py, ``_get_block_positions``), the Dash & Dine
points of interest from its scenario description, and our documented farm layout (docs/pillagerbench.md). The
mirrored variants are checked against their own hand-written coordinates, and block by block against a
reflection the test computes itself (z → 2·plane − 1 − z, north ↔ south), never the builder's. Saves are read
back by our reader and by the independent ``anvil-parser2``.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections import Counter
from pathlib import Path

import anvil
import nbtlib
import numpy as np
import pytest
from support.arena_facts import (
    BLUE_SLIME,
    BLUE_STEMS,
    BROWN_CAPS,
    DD_JUDGES,
    DD_SPAWNS,
    MW_CENTRES,
    MW_JUDGE,
    MW_SPAWNS,
    RED_CAPS,
    RED_SLIME,
    RED_STEMS,
    dash_and_dine_facts,
)

from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil import Save
from mirrorcraft.worlds.anvil.region import nbt_from_bytes
from mirrorcraft.worlds.arenas.spec import load_arena_spec

# ------------------------------------------------------------------------------------------- helpers


class Reader:
    """Blocks of a save through our reader (whole chunks to dense arrays)."""

    def __init__(self, path: Path) -> None:
        self.save = Save.open(path)
        self._chunks: dict = {}

    def state(self, x: int, y: int, z: int) -> tuple[str, dict[str, str]]:
        key = (x >> 4, z >> 4)
        if key not in self._chunks:
            self._chunks[key] = self.save.read_chunk(*key)
        name, props = self._chunks[key].block_at(x, y, z)
        return name.removeprefix("minecraft:"), dict(props)


class Parser2:
    """Blocks of a save through anvil-parser2 (independent of our code)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._regions: dict = {}

    def chunk(self, cx: int, cz: int) -> anvil.Chunk:
        rx, rz = cx >> 5, cz >> 5
        if (rx, rz) not in self._regions:
            self._regions[(rx, rz)] = anvil.Region.from_file(str(self.path / "region" / f"r.{rx}.{rz}.mca"))
        return anvil.Chunk.from_region(self._regions[(rx, rz)], cx, cz)

    def state(self, x: int, y: int, z: int) -> tuple[str, dict[str, str]]:
        b = self.chunk(x >> 4, z >> 4).get_block(x & 15, y, z & 15)
        return b.id, {k: str(getattr(v, "value", v)) for k, v in b.properties.items()}


def matches(state: tuple[str, dict[str, str]], text: str) -> bool:
    """``state`` is the block ``text`` ("name" or "name[k=v,...]"; listed properties must agree)."""
    name, _, rest = text.partition("[")
    props = dict(p.split("=") for p in rest.rstrip("]").split(",")) if rest else {}
    return state[0] == name and all(state[1].get(k) == v for k, v in props.items())


def dense(path: Path, y_range=(-64, -50)) -> tuple[dict[tuple[int, int, int], tuple[str, dict]], int]:
    """Every block of the save in ``y_range`` by our reader: cell → (name, props); and the x, z extents."""
    save = Save.open(path)
    out = {}
    for cx, cz in save.chunk_positions():
        chunk = save.read_chunk(cx, cz)
        for y in range(*y_range):
            for lz in range(16):
                for lx in range(16):
                    x, z = cx * 16 + lx, cz * 16 + lz
                    name, props = chunk.block_at(x, y, z)
                    out[(x, y, z)] = (name.removeprefix("minecraft:"), dict(props))
    return out, len(save.chunk_positions())


def chest_items(path: Path, pos: tuple[int, int, int]) -> list[tuple[int, str, int]]:
    """(slot, item, count) of the block entity at ``pos``, read by anvil-parser2 and cross-checked with ours."""
    cx, cz = pos[0] >> 4, pos[2] >> 4
    theirs = Parser2(path).chunk(cx, cz).get_tile_entity(*pos)
    assert theirs is not None, f"no block entity at {pos}"
    items = [(int(i["Slot"].value), i["id"].value, int(i["Count"].value)) for i in theirs["Items"]]
    ours = [
        t
        for t in Save.open(path).read_chunk(cx, cz).block_entities
        if [int(t[k]) for k in "xyz"] == list(pos)
    ]
    assert len(ours) == 1
    assert [(int(i["Slot"]), str(i["id"]), int(i["Count"])) for i in ours[0]["Items"]] == items
    return items


def entities(path: Path) -> list[tuple[str, tuple[float, float, float], tuple[int, int]]]:
    save = Save.open(path)
    out = []
    for cx, cz in save.entity_chunk_positions():
        for e in save.read_entities(cx, cz):
            out.append((str(e["id"]), tuple(round(float(v), 2) for v in e["Pos"]), (cx, cz)))
    return out


def level_dat(path: Path) -> nbtlib.Compound:
    return nbt_from_bytes(gzip.decompress((path / "level.dat").read_bytes()), "level.dat")["Data"]


def arena(arena_saves: Path, ident: str) -> Path:
    from mirrorcraft.worlds.arenas.build import arena_path

    return arena_path(arena_saves, ident)


# --------------------------------------------------------------------------------------- Mushroom War


@pytest.mark.parametrize("variant", ["original", "mirrored"])
@pytest.mark.parametrize("reader", [Reader, Parser2])
def test_mushroom_war_cells(arena_saves: Path, variant: str, reader) -> None:
    ident = "mushroom_war" if variant == "original" else "mushroom_war/mirrored"
    r = reader(arena(arena_saves, ident))
    # The original's halves are already mirror images (red caps reflect onto blue's cells, which take blue's
    # colour), so the mirrored Mushroom War holds the same cells: a null control for the study design.
    for cells, block in (
        (RED_CAPS, "red_mushroom_block"),
        (BROWN_CAPS, "brown_mushroom_block"),
        (RED_STEMS + BLUE_STEMS, "mushroom_stem"),
        (RED_SLIME + BLUE_SLIME, "slime_block"),
    ):
        for c in cells:
            assert matches(r.state(*c), block), (c, r.state(*c), block)
    for x, y, z in MW_SPAWNS:
        assert r.state(x, y, z)[0] == r.state(x, y + 1, z)[0] == "air"
        assert r.state(x, y - 1, z)[0] == "grass_block"
    assert r.state(*MW_JUDGE)[0] == "air"
    assert [r.state(0, y, 0)[0] for y in (-64, -63, -62, -61, -60)] == [
        "bedrock", "dirt", "dirt", "grass_block", "air",
    ]  # fmt: skip


def test_mushroom_war_counts_and_team_areas(arena_saves: Path) -> None:
    blocks, n_chunks = dense(arena(arena_saves, "mushroom_war"))
    assert n_chunks == 9
    above = Counter(s[0] for (x, y, z), s in blocks.items() if y >= -60 and s[0] != "air")
    assert above == {
        "red_mushroom_block": 15,
        "brown_mushroom_block": 15,
        "mushroom_stem": 12,
        "slime_block": 30,
    }
    for side, caps, stems, slime in (
        ("red", RED_CAPS, RED_STEMS, RED_SLIME),
        ("blue", BROWN_CAPS, BLUE_STEMS, BLUE_SLIME),
    ):
        centre = np.array(MW_CENTRES[side])
        for c in caps + stems + slime:
            assert np.linalg.norm(np.array(c) - centre) <= 7, (side, c)
        # 3 mushrooms of 5 caps: every cap touches a stem's top block or sits on it.
        tops = [s for s in stems if (s[0], s[1] + 1, s[2]) not in stems]
        assert len(tops) == 3
        for top in tops:
            near = [c for c in caps if sum(abs(a - b) for a, b in zip(c, top, strict=True)) == 1]
            assert len(near) == 5, (top, near)
    data = level_dat(arena(arena_saves, "mushroom_war"))
    rules = {str(k): str(v) for k, v in data["GameRules"].items()}
    assert int(data["DataVersion"]) == 3120 and str(data["Version"]["Name"]) == "1.19.2"
    assert rules["keepInventory"] == "true" and rules["doDaylightCycle"] == "false"
    assert rules["randomTickSpeed"] == "3" and rules["doMobSpawning"] == "false"
    assert int(data["Difficulty"]) == 0 and int(data["GameType"]) == 0
    assert [int(data[k]) for k in ("SpawnX", "SpawnY", "SpawnZ")] == [-9, -60, -2]
    assert (float(data["BorderCenterX"]), float(data["BorderCenterZ"]), float(data["BorderSize"])) == (
        -8.5,
        -1.5,
        32.0,
    )
    layers = data["WorldGenSettings"]["dimensions"]["minecraft:overworld"]["generator"]["settings"]["layers"]
    assert [(str(la["block"]), int(la["height"])) for la in layers] == [
        ("minecraft:bedrock", 1), ("minecraft:dirt", 2), ("minecraft:grass_block", 1),
    ]  # fmt: skip


# --------------------------------------------------------------------------------------- Dash & Dine


@pytest.mark.parametrize("variant", ["original", "mirrored"])
@pytest.mark.parametrize("reader", [Reader, Parser2])
def test_dash_and_dine_cells(arena_saves: Path, variant: str, reader) -> None:
    ident = "dash_and_dine" if variant == "original" else "dash_and_dine/mirrored"
    r = reader(arena(arena_saves, ident))
    facts = dash_and_dine_facts(variant)
    for cell, block in facts.items():
        assert matches(r.state(*cell), block), (cell, r.state(*cell), block)
    # The berry farm is nearer blue's spawns in the original and nearer red's in the mirror.
    berries = [c for c, b in facts.items() if b.startswith("sweet_berry_bush")]
    assert len(berries) == 9
    mean_z = np.mean([c[2] for c in berries])
    assert (mean_z > -0.5) == (variant == "original")
    for x, y, z in DD_SPAWNS + DD_JUDGES:
        assert r.state(x, y, z)[0] == r.state(x, y + 1, z)[0] == "air", (x, y, z)
        assert r.state(x, y - 1, z)[0] == "grass_block"


@pytest.mark.parametrize("variant", ["original", "mirrored"])
def test_dash_and_dine_points_of_the_briefing(arena_saves: Path, variant: str) -> None:
    """The points of interest the briefing names (``ArenaSpec.points``) hold their blocks in the save of each
    variant; the coordinates are written down here (the original's description; the mirror: z -> -2 - z)."""
    points = load_arena_spec("dash_and_dine").points(variant)
    m = (lambda z: z) if variant == "original" else (lambda z: -2 - z)
    written = {
        "egg chest": ((-7, -60, m(5)), "chest"),
        "bucket chest": ((-7, -60, m(-7)), "chest"),
        "bowl chest": ((-3, -59, m(-1)), "chest"),
        "gold chest": ((-11, -59, m(-1)), "chest"),
        "furnace 2": ((2, -59, m(-1)), "furnace"),
        "sweet berry farm": ((-11, -60, m(6)), "sweet_berry_bush"),
        "sugar cane farm": ((-11, -60, m(-8)), None),  # the water column's cell above its water
        "melon pumpkin farm": ((-15, -60, m(-1)), None),
    }
    r = Reader(arena(arena_saves, "dash_and_dine" if variant == "original" else "dash_and_dine/mirrored"))
    for label, (cell, block) in written.items():
        assert points[label] == cell, (label, points[label], cell)
        if block is not None:
            assert r.state(*cell)[0] == block, (label, cell, r.state(*cell))


def test_dash_and_dine_has_nothing_else(arena_saves: Path) -> None:
    """Outside the documented cells and the egg farm's glass, only flat ground and air."""
    blocks, n_chunks = dense(arena(arena_saves, "dash_and_dine"))
    assert n_chunks == 12
    facts = dash_and_dine_facts("original")
    glass = {(-8, y, 6) for y in (-59, -58)} | {(-6, y, 6) for y in (-59, -58)}
    glass |= {(-7, y, z) for y in (-59, -58) for z in (5, 7)}
    ground = {-64: "bedrock", -63: "dirt", -62: "dirt", -61: "grass_block"}
    for cell, (name, _) in blocks.items():
        if cell in facts:
            continue
        want = "glass" if cell in glass else ground.get(cell[1], "air")
        assert name == want, (cell, name, want)


@pytest.mark.parametrize("variant", ["original", "mirrored"])
def test_dash_and_dine_containers_and_animals(arena_saves: Path, variant: str) -> None:
    path = arena(arena_saves, "dash_and_dine" if variant == "original" else "dash_and_dine/mirrored")
    cow_chest, egg_chest = (
        ((-7, -60, -7), (-7, -60, 5)) if variant == "original" else ((-7, -60, 5), (-7, -60, -7))
    )
    assert chest_items(path, (-3, -59, -1)) == [(0, "minecraft:bowl", 64)]
    assert chest_items(path, cow_chest) == [(0, "minecraft:bucket", 16)]
    assert chest_items(path, egg_chest) == []
    assert chest_items(path, (-11, -59, -1)) == [
        (0, "minecraft:gold_nugget", 64),
        (1, "minecraft:netherite_hoe", 1),
    ]
    for z in (-2, -1, 0):
        assert chest_items(path, (2, -59, z)) == [(1, "minecraft:coal", 64)]
    hoe = Parser2(path).chunk(-1, -1).get_tile_entity(-11, -59, -1)["Items"][1]
    assert hoe["tag"]["Damage"].value == 0
    found = entities(path)
    cows = [e for e in found if e[0] == "minecraft:cow"]
    chickens = [e for e in found if e[0] == "minecraft:chicken"]
    if (
        variant == "original"
    ):  # the original's entity chunks: the cow by its chest, 14 chickens in the egg farm
        assert cows == [("minecraft:cow", (-6.69, -60.0, -8.93), (-1, -1))]
        assert chickens == [("minecraft:chicken", (-6.5, -59.0, 6.5), (-1, 0))] * 14
    else:
        assert cows == [("minecraft:cow", (-6.69, -60.0, 7.93), (-1, 0))]
        assert chickens == [("minecraft:chicken", (-6.5, -59.0, -7.5), (-1, -1))] * 14
    data = level_dat(path)
    rules = {str(k): str(v) for k, v in data["GameRules"].items()}
    assert rules["randomTickSpeed"] == "200" and rules["keepInventory"] == "true"
    assert rules["doDaylightCycle"] == "false" and int(data["Difficulty"]) == 0


#: Team-coloured blocks change colour when they cross into the other half (docs: a cap is its half's colour).
TEAM_COLOURS = {"red_mushroom_block": "brown_mushroom_block", "brown_mushroom_block": "red_mushroom_block"}


def _reflect_z(state: tuple[str, dict[str, str]]) -> tuple[str, dict[str, str]]:
    """The test's own reflection across a plane normal to z (north ↔ south)."""
    swap = {"north": "south", "south": "north"}
    name, props = state
    name = TEAM_COLOURS.get(name, name)
    out = {}
    for k, v in props.items():
        out[swap.get(k, k)] = swap.get(v, v) if k == "facing" else v
    return name, out


@pytest.mark.parametrize(("name", "plane2"), [("mushroom_war", -3), ("dash_and_dine", -1)])
def test_mirrored_is_an_exact_reflection(arena_saves: Path, name: str, plane2: int) -> None:
    """Block by block over every chunk: mirrored(x, y, z) == reflect(original(x, y, 2·plane − 1 − z))."""
    orig, _ = dense(arena(arena_saves, name))
    mirr, _ = dense(arena(arena_saves, f"{name}/mirrored"))
    assert orig.keys() == mirr.keys()
    changed = 0
    for (x, y, z), state in mirr.items():
        src = (x, y, plane2 - 1 - z)
        if src not in orig:  # the reflected cell lies outside the pregenerated square: ground/air both
            assert state == orig[(x, y, z)]
            continue
        assert state == _reflect_z(orig[src]), ((x, y, z), state, orig[src])
        changed += state != orig[(x, y, z)]
    # Mushroom War is symmetric (nothing changes); Dash & Dine's halves differ.
    assert (changed > 100) == (name == "dash_and_dine")


# ------------------------------------------------------------------------- a mirror on asymmetric input

SMALL = """
id: small
version: 1
title: Small
level:
  game_rules: {randomTickSpeed: 3}
  spawn: [0, -60, 0]
  border: {center: [0.5, 0.0], size: 30}
ground: {layers: [bedrock, dirt, dirt, grass_block], ground_y: -61}
mirror: {axis: z, plane: 0.0, red_half: negative}
teams:
  red: {players: [Ryn], spawns: [[4, -60, -3]]}
  blue: {players: [Byte], spawns: [[4, -60, 2]]}
team_blocks:
  flag: {red: red_wool, blue: blue_wool}
features:
  - {kind: chest, label: chest, at: [2, -60, -3], facing: north, items: [{item: bowl, count: 3, slot: 5}]}
  - {kind: furnace, label: furnace, at: [1, -60, -2], facing: south, fuel: {item: coal, count: 2}}
  - {kind: blocks, label: flag, block: "@flag", at: [[1, -60, -5]]}
  - {kind: blocks, label: fence, block: oak_fence, at: [[5, -60, -6], [5, -60, -5]]}
  - {kind: entities, label: cow, entity: cow, at: [3.25, -60.0, -4.75], yaw: 30}
"""


def test_mirror_of_an_asymmetric_spec(tmp_path: Path) -> None:
    from mirrorcraft.worlds.arenas.build import write_arena_save
    from mirrorcraft.worlds.arenas.spec import parse_arena_spec

    spec = parse_arena_spec(SMALL, "small.yaml")
    for variant in ("original", "mirrored"):
        write_arena_save(spec, variant, tmp_path / variant)
    o, m = Reader(tmp_path / "original"), Reader(tmp_path / "mirrored")
    # Plane z = 0 (a block boundary): cell z → -1 - z; facings and fence joints swap north/south.
    assert o.state(2, -60, -3) == ("chest", {"facing": "north", "type": "single", "waterlogged": "false"})
    assert m.state(2, -60, 2) == ("chest", {"facing": "south", "type": "single", "waterlogged": "false"})
    assert o.state(1, -60, -2)[1]["facing"] == "south" and m.state(1, -60, 1)[1]["facing"] == "north"
    assert o.state(1, -60, -5)[0] == "red_wool" and m.state(1, -60, 4)[0] == "blue_wool"
    assert m.state(1, -60, -5)[0] == "air" and o.state(1, -60, 4)[0] == "air"
    assert o.state(5, -60, -6)[1] | {} == {
        "east": "false",
        "north": "false",
        "south": "true",
        "waterlogged": "false",
        "west": "false",
    }
    assert m.state(5, -60, 5)[1]["north"] == "true" and m.state(5, -60, 5)[1]["south"] == "false"
    assert chest_items(tmp_path / "mirrored", (2, -60, 2)) == [(5, "minecraft:bowl", 3)]
    assert chest_items(tmp_path / "mirrored", (1, -60, 1)) == [(1, "minecraft:coal", 2)]
    cow_o = Save.open(tmp_path / "original").read_entities(0, -1)[0]
    cow_m = Save.open(tmp_path / "mirrored").read_entities(0, 0)[0]
    assert [float(v) for v in cow_o["Pos"]] == [3.25, -60.0, -4.75]
    assert [float(v) for v in cow_m["Pos"]] == [3.25, -60.0, 4.75]
    assert float(cow_o["Rotation"][0]) == 30.0 and float(cow_m["Rotation"][0]) == 150.0
    assert cow_o["UUID"] == cow_m["UUID"]  # the same animal in both variants


def test_builds_are_reproducible(tmp_path: Path) -> None:
    from mirrorcraft.worlds.arenas.build import build_arena

    for k in (1, 2):
        build_arena("dash_and_dine/mirrored", tmp_path / str(k))
    a, b = (sorted((tmp_path / str(k)).rglob("*")) for k in (1, 2))
    assert [p.relative_to(tmp_path / "1") for p in a] == [p.relative_to(tmp_path / "2") for p in b]
    for p, q in zip(a, b, strict=True):
        if p.is_file():
            assert p.read_bytes() == q.read_bytes(), p


# ------------------------------------------------------------------------------------------ bad specs


def _bad(tmp_path: Path, old: str, new: str) -> str:
    from mirrorcraft.worlds.arenas.spec import load_arena_spec

    assert old in SMALL
    path = tmp_path / "bad.yaml"
    path.write_text(SMALL.replace(old, new))
    with pytest.raises(WorldError) as err:
        load_arena_spec(path)
    return str(err.value)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'block: "@flag"',
            "block: slim_block",
            r"bad\.yaml: invalid arena spec: features\.2\.block: .*slim_block",
        ),
        (
            "label: fence, block",
            "label: fence, colour: red, block",
            r"bad\.yaml: .*features\.3\.colour: Extra inputs",
        ),
        ("facing: north", "facing: up", r"features\.0\.facing"),
        ("item: bowl, count: 3", "item: bucket, count: 17", r"features\.0\.items\.0: .*bucket stacks to 16"),
        ("[[4, -60, 2]]", "[[4, -60, 3]]", r"blue's spawns must be the mirror images of red's"),
        ("ground_y: -61", "ground_y: -60", r"ground\.ground_y|ground: ground_y -60"),
        ("plane: 0.0", "plane: 0.25", r"mirror\.plane: .*block centre or a block boundary"),
        ('"@flag"', '"@banner"', r"features\.2 \(flag\): unknown team block '@banner'"),
        ("oak_fence, at", '"oak_fence[north=maybe]", at', r"features\.3\.block: .*north=.*maybe"),
        ("version: 1", "version: [", r"bad\.yaml: not valid YAML"),
    ],
)
def test_a_bad_spec_names_the_file_and_the_field(tmp_path: Path, old: str, new: str, message: str) -> None:
    text = _bad(tmp_path, old, new)
    assert re.search(message, text), text


def test_layout_errors(tmp_path: Path) -> None:
    from mirrorcraft.worlds.arenas.layout import expand
    from mirrorcraft.worlds.arenas.spec import parse_arena_spec

    overlap = SMALL.replace("at: [[5, -60, -6], [5, -60, -5]]", "at: [[5, -60, -6], [2, -60, -3]]")
    with pytest.raises(
        WorldError, match=r"features\.3 \(fence\) and 'chest' both place a block at \[2, -60, -3\]"
    ):
        expand(parse_arena_spec(overlap, "x.yaml"))
    stairs = SMALL.replace("block: oak_fence", "block: oak_stairs")
    spec = parse_arena_spec(stairs, "x.yaml")
    expand(spec, "original")
    with pytest.raises(WorldError, match=r"cannot mirror minecraft:oak_stairs: property 'shape'"):
        expand(spec, "mirrored")
    outside = SMALL.replace("[[1, -60, -5]]", "[[40, -60, -5]]")
    with pytest.raises(WorldError, match=r"features\.2 \(flag\): cell \[40, -60, -5\] is outside the arena"):
        expand(parse_arena_spec(outside, "x.yaml"))
    with pytest.raises(WorldError, match="unknown arena 'mushroom_war/original'"):
        from mirrorcraft.worlds.arenas.build import parse_arena_id

        parse_arena_id("mushroom_war/original")


# ------------------------------------------------------------------------------------------------ CLI


def test_worlds_cli_builds_lists_and_checks_arenas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mirrorcraft.worlds.cli import add_worlds_parser

    parser = argparse.ArgumentParser()
    add_worlds_parser(parser.add_subparsers())

    def run(*argv: str) -> int:
        args = parser.parse_args(["worlds", *argv, "--out", str(tmp_path)])
        return args.handler(args)

    assert run("build", "--only", "mushroom_war") == 0
    assert run("build", "--only", "dash_and_dine/*") == 0
    out = capsys.readouterr().out
    assert "mushroom_war: " in out and "dash_and_dine/mirrored: " in out and "built in" in out
    assert run("build", "--only", "mushroom_war") == 0 and "exists, kept" in capsys.readouterr().out
    assert run("list", "--only", "arenas") == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == [
        "mushroom_war", "mushroom_war/mirrored", "dash_and_dine", "dash_and_dine/mirrored",
    ]  # fmt: skip
    assert [line.split()[-1] for line in listed] == ["built", "-", "built", "built"]
    assert run("check", "dash_and_dine/*") == 0 and capsys.readouterr().out.count(": ok") == 2
    # Tamper with one block: the check finds it.
    save = Save.open(tmp_path / "arenas" / "dash_and_dine" / "mirrored")
    chunk = save.read_chunk(-1, -1)
    blocks, palette, biomes, bpal = chunk.to_dense()
    palette.append(("minecraft:diamond_block", ()))
    blocks[-60 + 64, 8, 4] = len(palette) - 1  # (-12, -60, -8): a berry bush of the mirror
    from mirrorcraft.worlds.anvil import Chunk

    again = Chunk.from_dense(-1, -1, blocks, palette, biomes, bpal, block_entities=chunk.block_entities)
    save.write_chunks([again])
    assert run("check", "dash_and_dine/mirrored") == 1
    assert (
        "[-12, -60, -8]: minecraft:diamond_block, expected minecraft:sweet_berry_bush"
        in capsys.readouterr().out
    )
    assert run("check", "mushroom_war/mirrored") == 2  # not built
    assert run("build", "--only", "mushroom_war", "--radius", "32") == 2
    catalogue = (tmp_path / "catalogue.json").read_text()
    assert '"arenas/dash_and_dine/mirrored"' in catalogue
