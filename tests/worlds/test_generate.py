"""Tests for the kind=biome specs and the biome world generator (mirrorcraft.worlds.generate / measure).

Default tier: the five biomes on a 128 x 128 square (radius 64, 64 chunks; seed 11, a seed whose small square
holds water in every biome so sugar cane and ice can be checked) built in memory and measured from the blocks,
plus a radius-48 Plains save written twice (byte determinism), read back by our reader and cross-read by the
independent ``anvil-parser2``. The ``slow`` tier builds full-size (radius 256) worlds and checks speed and the
per-biome numbers at scale.
"""

from __future__ import annotations

import copy
import json
import random
import time
from importlib import resources
from pathlib import Path

import nbtlib
import numpy as np
import pytest

from mirrorcraft.datapacks.biome import BIOME_NAMES, load_biome_spec, parse_biome_spec, shipped_biome_specs
from mirrorcraft.errors import DatapackError, WorldError
from mirrorcraft.worlds.generate import build_dense_world, generate_world
from mirrorcraft.worlds.measure import (
    ORES,
    dense_from_save,
    ground_heights,
    measure_save,
    measure_world,
    ore_histogram,
    sugar_cane_columns,
)

SEED = 11
RADIUS = 64


@pytest.fixture(scope="module")
def specs():
    return shipped_biome_specs()


@pytest.fixture(scope="module")
def worlds(specs):
    return {name: build_dense_world(spec, SEED, RADIUS) for name, spec in specs.items()}


@pytest.fixture(scope="module")
def measured(worlds):
    return {name: measure_world(w) for name, w in worlds.items()}


@pytest.fixture(scope="module")
def plains_saves(tmp_path_factory):
    base = tmp_path_factory.mktemp("worlds")
    a = generate_world("plains", 5, base / "a", radius_blocks=48)
    b = generate_world("plains", 5, base / "b", radius_blocks=48)
    return a, b


# ------------------------------------------------------------------------------------------- specs


def _raw_spec(name: str) -> dict:
    text = (resources.files("mirrorcraft.datapacks") / "biomes" / f"{name}.json").read_text()
    return json.loads(text)


def test_shipped_specs_carry_the_papers_numbers(specs):
    # spec/mirrorcraft.md "Worlds": (a, b, contour weight, undulation weight), trees/chunk, sugar cane.
    table = {
        "plains": (50, 90, 0.56, 0.18, "oak", 0.5, 4),
        "taiga": (48, 94, 0.6, 0.2, "spruce", 14.1, 4),
        "snowy_plains": (50, 88, 0.45, 0.14, "spruce", 0.5, 6),
        "jungle": (46, 94, 0.65, 0.22, "jungle", 68.1, 5),
        "savanna": (46, 96, 0.68, 0.22, "acacia", 2.5, 6),
    }
    assert tuple(specs) == BIOME_NAMES
    for name, (a, b, wc, wu, tree, trees, cane) in table.items():
        s = specs[name]
        assert s.biome == f"minecraft:{name}"
        t = s.terrain
        assert (t.gradient_top, t.gradient_bottom, t.contour_weight, t.undulation_weight) == (a, b, wc, wu)
        assert (t.final_scale, t.min_y, t.max_y, t.sea_level, t.caves, t.aquifers) == (
            0.64,
            -64,
            319,
            63,
            True,
            True,
        )
        assert (t.contour_first_octave, t.contour_amplitudes) == (-8, [1.0, 0.5, 0.25])
        assert (t.undulation_first_octave, t.undulation_amplitudes) == (-5, [1.0, 0.5])
        assert s.ecology.tree == tree
        assert s.ecology.expected_trees_per_chunk == pytest.approx(trees)
        assert s.ecology.sugar_cane_attempts == cane
        cows = [c for c in s.ecology.creatures if c.type == "minecraft:cow"]
        assert [(c.weight, c.min_count, c.max_count) for c in cows] == [(24, 4, 4)]
        r = s.runtime
        assert (r.difficulty, r.day_time, r.do_daylight_cycle, r.do_weather_cycle, r.weather) == (
            "peaceful",
            6000,
            False,
            False,
            "clear",
        )
        assert not (r.do_patrol_spawning or r.do_trader_spawning or r.do_insomnia)
        assert r.do_mob_spawning  # natural passive-mob spawning kept
        assert s.resources.large_ore_veins is False


def test_custom_ore_bands_match_the_shared_table(specs):
    expected = {
        "coal": (96, 20, 44, 112), "iron": (84, 16, 40, 92), "copper": (72, 20, 40, 96),
        "gold": (48, 12, 32, 72), "redstone": (48, 14, 28, 68), "lapis": (36, 12, 30, 68),
        "emerald": (24, 8, 40, 80), "diamond_main": (40, 10, 36, 68), "diamond_shallow": (8, 6, 52, 72),
        "obsidian_main": (8, 12, 36, 64), "obsidian_shallow": (10, 10, 50, 72),
    }  # fmt: skip
    for spec in specs.values():
        got = {b.name: (b.attempts, b.size, b.min_y, b.max_y) for b in spec.resources.custom_bands}
        assert got == expected
        assert all(
            b.distribution == "uniform" and b.discard_on_air_chance == 0.0
            for b in spec.resources.custom_bands
        )
        # emerald and obsidian occur only through the custom entries (paper, appendix J)
        vanilla_blocks = {b.block for b in spec.resources.vanilla_placements}
        assert "minecraft:emerald_ore" not in vanilla_blocks and "minecraft:obsidian" not in vanilla_blocks


def test_surface_patches_per_biome(specs):
    patch = {
        name: {p.block.removeprefix("minecraft:"): p.intervals for p in s.surface.patches}
        for name, s in specs.items()
    }
    assert patch["plains"]["podzol"] == [(-0.95, -0.80)]
    assert patch["plains"]["coarse_dirt"] == [(0.51, 0.60), (0.66, 0.79)]
    assert patch["taiga"]["moss_block"] == [(0.88, 0.95)]
    assert patch["jungle"]["moss_block"] == [(-0.95, -0.80)]
    assert patch["savanna"]["terracotta"] == [(0.88, 0.95)]
    assert patch["savanna"]["coarse_dirt"] == [(-0.95, -0.80), (0.51, 0.60)]
    assert specs["snowy_plains"].surface.snow_layers and specs["snowy_plains"].surface.freeze_water
    assert not any(specs[n].surface.snow_layers for n in ("plains", "taiga", "jungle", "savanna"))


@pytest.mark.parametrize(
    ("mutate", "field", "reason"),
    [
        (lambda d: d["terrain"].update(gradient_top=95), "terrain", "gradient_top"),
        (
            lambda d: d["surface"]["patches"][0].update(block="minecraft:diamond_block"),
            "surface.patches.0.block",
            "not an allowed surface block",
        ),
        (
            lambda d: d["resources"]["custom_bands"][0].update(attempts=-1),
            "resources.custom_bands.0.attempts",
            "greater than or equal to 0",
        ),
        (
            lambda d: d["resources"]["custom_bands"][1].update(min_y=100),
            "resources.custom_bands.1",
            "min_y (100) must be <= max_y (92)",
        ),
        (
            lambda d: d["ecology"].update(trees_per_hectare=3),
            "ecology.trees_per_hectare",
            "Extra inputs are not permitted",
        ),
        (
            lambda d: d["ecology"].update(
                creatures=[{"type": "minecraft:pig", "weight": 10, "min_count": 4, "max_count": 4}]
            ),
            "ecology",
            "cows are required",
        ),
        (
            lambda d: d["ecology"].update(tree="birch"),
            "ecology.tree",
            "'oak', 'spruce', 'jungle' or 'acacia'",
        ),
        (lambda d: d.update(biome="minecraft:desert"), "biome", "not an allowed biome id"),
        (
            lambda d: d["runtime"].update(do_daylight_cycle=True),
            "runtime.do_daylight_cycle",
            "Input should be False",
        ),
        (lambda d: d["terrain"].update(final_scale=0), "terrain.final_scale", "greater than 0"),
    ],
)
def test_spec_validation_errors_name_the_field(mutate, field, reason):
    data = copy.deepcopy(_raw_spec("plains"))
    mutate(data)
    with pytest.raises(DatapackError) as info:
        parse_biome_spec(data, source="plains-mutated.json")
    msg = str(info.value)
    assert "plains-mutated.json" in msg
    assert f"{field}" in msg and reason in msg


def test_bad_json_and_unknown_spec_name(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "biome",')
    with pytest.raises(DatapackError, match="bad.json: not valid JSON at line 1"):
        load_biome_spec(bad)
    with pytest.raises(DatapackError, match="no biome spec named 'mesa'"):
        load_biome_spec("mesa")


def test_bad_radius_and_existing_folder(tmp_path):
    with pytest.raises(WorldError, match="radius_blocks must be in 16..4096"):
        build_dense_world(load_biome_spec("plains"), 1, 8)
    (tmp_path / "w").mkdir()
    with pytest.raises(WorldError, match="already exists"):
        generate_world("plains", 1, tmp_path / "w", 48)


# --------------------------------------------------------------------------------------- features


def test_ore_bands_are_visible_in_the_height_histogram(worlds, specs):
    world = worlds["plains"]
    hist = ore_histogram(world)
    ys = np.arange(world.blocks.shape[0]) + world.min_y

    def per_y(ore: str, lo: int, hi: int) -> float:
        sel = (ys >= lo) & (ys <= hi)
        return float(hist[ore][sel].sum() / sel.sum())

    # Emerald and obsidian come only from the custom bands: every block near its band (blob spread <= 8).
    for ore, lo, hi in (("emerald", 40, 80), ("obsidian", 36, 72)):
        assert hist[ore].sum() > 0
        present = ys[hist[ore] > 0]
        assert present.min() >= lo - 8 and present.max() <= hi + 8, (ore, present.min(), present.max())
    # Diamond: the vanilla population (origins <= 16) and the custom bands (origins >= 36) leave a gap.
    assert per_y("diamond", -64, 16) > 0 and per_y("diamond", 36, 68) > 0
    assert hist["diamond"][(ys >= 24) & (ys <= 29)].sum() == 0
    assert per_y("diamond", 36, 60) > 5 * per_y("diamond", -64, 16)
    # Each custom band is much denser (per Y level, below the surface) than the vanilla placements far from it.
    for ore, lo, hi in (("coal", 44, 60), ("iron", 40, 60), ("copper", 40, 60), ("gold", 32, 60),
                        ("redstone", 28, 60), ("lapis", 30, 60)):  # fmt: skip
        assert per_y(ore, lo, hi) > 3 * per_y(ore, -40, -10), ore
    # The measured totals (counted from the blocks) match what the generator placed, less the few ore
    # blocks that lakes dug out afterwards.
    placed = {ore: 0 for ore in ORES}
    for band in [*specs["plains"].resources.vanilla_placements, *specs["plains"].resources.custom_bands]:
        ore = band.block.removeprefix("minecraft:").removesuffix("_ore")
        placed[ore] += world.stats[f"ore_{band.name}"]
    for ore, n in placed.items():
        assert 0.99 * n <= int(hist[ore].sum()) <= n, ore


def test_ores_only_replace_rock_and_use_deepslate_variants_below_zero(worlds):
    world = worlds["taiga"]
    names = world.palette.names()
    ground = ground_heights(world)
    for i, name in enumerate(names):
        if not any(name in blocks for blocks in ORES.values()):
            continue
        iy, iz, ix = np.nonzero(world.blocks == i)
        if len(iy) == 0:
            continue  # in the palette but never placed (e.g. deepslate emerald: its band is above Y 40)
        y = iy + world.min_y
        assert (y <= ground[iz, ix]).all(), f"{name} above the ground"
        if name.startswith("minecraft:deepslate_"):
            assert y.max() < 8, name
        elif name != "minecraft:obsidian":
            assert y.min() >= 0, name


def test_trees_per_chunk_follow_the_spec(measured, specs, worlds):
    tpc = {name: m.trees_per_chunk for name, m in measured.items()}
    assert tpc["jungle"] > 3 * tpc["taiga"] > 3 * tpc["savanna"]
    assert tpc["savanna"] > 2 * tpc["plains"]
    assert abs(tpc["plains"] - tpc["snowy_plains"]) < 0.3
    for name, m in measured.items():
        # Attempts fail on water, gravel/terracotta or an occupied column, so realised <= expected.
        expected = specs[name].ecology.expected_trees_per_chunk
        assert 0.6 * expected <= m.trees_per_chunk <= 1.1 * expected, (name, m.trees_per_chunk, expected)
    for name, world in worlds.items():
        logs = [s for s in world.palette.states if s[0].endswith("_log")]
        assert logs and all(s[1] == (("axis", "y"),) for s in logs), name
        leaves = [s for s in world.palette.states if s[0].endswith("_leaves")]
        assert {dict(s[1])["distance"] for s in leaves} >= {"1", "2", "3"}


def test_sugar_cane_only_beside_water(worlds, measured):
    for name, world in worlds.items():
        cols = sugar_cane_columns(world)
        assert cols, f"{name}: no sugar cane"
        assert all(beside for *_, beside in cols), name
        assert measured[name].sugar_cane_beside_water == measured[name].sugar_cane_columns == len(cols)
        cane = world.palette.where(lambda s: s[0] == "minecraft:sugar_cane")[world.blocks]
        heights = cane.sum(axis=0)
        assert set(np.unique(heights[heights > 0])) <= {1, 2, 3}


def test_snow_and_ice_only_on_snowy_plains(measured, worlds):
    snowy = measured["snowy_plains"]
    assert snowy.snow_coverage > 0.9 and snowy.ice_blocks > 0
    for name in ("plains", "taiga", "jungle", "savanna"):
        assert measured[name].snow_coverage == 0 and measured[name].ice_blocks == 0
    states = worlds["snowy_plains"].palette.states
    assert ("minecraft:grass_block", (("snowy", "true"),)) in states
    assert ("minecraft:snow", (("layers", "1"),)) in states


def test_surface_patches_appear(measured):
    assert measured["savanna"].surface_blocks.get("minecraft:terracotta", 0) > 0
    for name in ("plains", "taiga", "snowy_plains", "jungle"):
        assert "minecraft:terracotta" not in measured[name].surface_blocks
    assert measured["taiga"].surface_blocks.get("minecraft:moss_block", 0) > 0
    assert measured["jungle"].surface_blocks.get("minecraft:moss_block", 0) > 0
    assert measured["plains"].surface_blocks.get("minecraft:podzol", 0) > 0
    assert measured["plains"].surface_blocks.get("minecraft:coarse_dirt", 0) > 0
    for m in measured.values():
        assert max(m.surface_blocks, key=m.surface_blocks.get) == "minecraft:grass_block"


def test_relief_is_ordered_as_the_spec_orders_it(measured):
    std = {name: m.relief_std for name, m in measured.items()}
    assert min(std, key=std.get) == "snowy_plains"
    assert max(std, key=std.get) == "savanna"
    assert std["snowy_plains"] < std["plains"] < std["taiga"] < std["jungle"] < std["savanna"]
    for m in measured.values():  # open terrain near sea level, no cliffs out of the gradient band
        assert 55 <= m.relief_p5 and m.relief_p95 <= 100


def test_cows_and_safe_spawn(measured, worlds):
    for name, m in measured.items():
        assert m.cows > 0, name
        assert m.spawn is not None and m.spawn.safe, (name, m.spawn)
        sx, _, sz = m.spawn.spawn
        assert sx * sx + sz * sz <= 64 * 64
        world = worlds[name]
        for etype, (x, y, z), _, _ in world.entities:
            assert etype == "minecraft:cow"
            assert (
                world.block_at(int(np.floor(x)), int(y) - 1, int(np.floor(z)))[0] == "minecraft:grass_block"
            )


# ------------------------------------------------------------------------------------------- saves


def test_same_seed_gives_identical_bytes(plains_saves):
    a, b = plains_saves
    files_a = sorted(p.relative_to(a.path) for p in Path(a.path).rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b.path) for p in Path(b.path).rglob("*") if p.is_file())
    assert files_a == files_b
    assert any(str(f).startswith("region/") for f in files_a) and any(
        str(f).startswith("entities/") for f in files_a
    )
    for rel in files_a:
        assert (Path(a.path) / rel).read_bytes() == (Path(b.path) / rel).read_bytes(), rel
    assert a.spawn == b.spawn and a.counts == b.counts


def test_different_seed_gives_different_terrain(tmp_path, plains_saves):
    a, _ = plains_saves
    c = generate_world("plains", 6, tmp_path / "c", radius_blocks=48)
    assert (Path(a.path) / "region/r.0.0.mca").read_bytes() != (
        Path(c.path) / "region/r.0.0.mca"
    ).read_bytes()


def test_level_dat_has_the_benchmark_controls(plains_saves):
    report, _ = plains_saves
    data = nbtlib.load(Path(report.path) / "level.dat")["Data"]
    assert int(data["DataVersion"]) == 3120
    assert int(data["Difficulty"]) == 0 and int(data["DayTime"]) == 6000
    assert int(data["raining"]) == 0 and int(data["thundering"]) == 0
    rules = {k: str(v) for k, v in data["GameRules"].items()}
    for rule in ("doDaylightCycle", "doWeatherCycle", "doPatrolSpawning", "doTraderSpawning", "doInsomnia"):
        assert rules[rule] == "false", rule
    assert rules["doMobSpawning"] == "true"
    assert (int(data["SpawnX"]), int(data["SpawnY"]), int(data["SpawnZ"])) == report.spawn
    assert float(data["BorderSize"]) == report.border_size == 96.0
    assert (float(data["BorderCenterX"]), float(data["BorderCenterZ"])) == (0.0, 0.0)
    assert report.chunks == 36 and report.chunk_min == (-3, -3) and report.chunk_max == (2, 2)


def test_save_reads_back_to_the_same_measurements(plains_saves):
    report, _ = plains_saves
    world = build_dense_world(load_biome_spec("plains"), 5, 48)
    fresh = measure_world(world)
    back = measure_save(report.path)
    assert back.model_dump(exclude={"spawn"}) == fresh.model_dump(exclude={"spawn"})
    assert back.spawn is not None and back.spawn.safe
    assert back.cows == report.counts["entities"]


def test_biomes_and_sky_light_in_the_save(plains_saves):
    from mirrorcraft.worlds.anvil import Save

    report, _ = plains_saves
    save = Save.open(Path(report.path))
    assert len(save.chunk_positions()) == 36
    world, _ = dense_from_save(report.path)
    ground = ground_heights(world)
    for cx, cz in ((0, 0), (-3, 2)):
        chunk = save.read_chunk(cx, cz)
        assert {b for sec in chunk.sections.values() for b in sec.biome_palette} == {"minecraft:plains"}
        x, z = cx * 16 + 5, cz * 16 + 9
        top = int(ground[z - world.z0, x - world.x0])
        sec_hi = chunk.sections[(top + 2) >> 4]
        assert sec_hi.sky_light[(top + 2) & 15, z & 15, x & 15] == 15
        sec_lo = chunk.sections[(top - 5) >> 4]
        assert sec_lo.sky_light[(top - 5) & 15, z & 15, x & 15] == 0


def test_independent_reader_anvil_parser2_agrees(plains_saves):
    anvil = pytest.importorskip("anvil")
    report, _ = plains_saves
    world, _ = dense_from_save(report.path)
    rnd = random.Random(0)
    regions: dict = {}
    checked = 0
    for _ in range(400):
        x = rnd.randrange(-48, 48)
        z = rnd.randrange(-48, 48)
        y = rnd.randrange(-64, 100)
        rx, rz = x >> 9, z >> 9
        if (rx, rz) not in regions:
            regions[(rx, rz)] = anvil.Region.from_file(str(Path(report.path) / f"region/r.{rx}.{rz}.mca"))
        chunk = anvil.Chunk.from_region(regions[(rx, rz)], (x >> 4) & 31, (z >> 4) & 31)
        block = chunk.get_block(x & 15, y, z & 15)
        name, props = world.block_at(x, y, z)
        assert f"{block.namespace}:{block.id}" == name, (x, y, z)
        if props:
            assert {k: str(v) for k, v in block.properties.items()} == dict(props), (x, y, z)
        checked += 1
    assert checked == 400


# -------------------------------------------------------------------------------------------- slow


@pytest.mark.slow
@pytest.mark.parametrize("name", BIOME_NAMES)
def test_full_size_world(tmp_path, name):
    spec = load_biome_spec(name)
    t0 = time.perf_counter()
    report = generate_world(spec, 1, tmp_path / name)
    elapsed = time.perf_counter() - t0
    assert report.chunks == 1024 and report.border_size == 512.0
    assert elapsed < 60, f"{name}: {elapsed:.1f}s (target <= 40 s on an idle core)"
    m = measure_save(report.path)
    expected = spec.ecology.expected_trees_per_chunk
    assert 0.6 * expected <= m.trees_per_chunk <= 1.1 * expected
    assert m.sugar_cane_columns > 100 and m.sugar_cane_beside_water == m.sugar_cane_columns
    assert m.cows > 100 and m.spawn is not None and m.spawn.safe
    assert m.ore_blocks["diamond"] > 0 and m.ore_blocks["obsidian"] > 0 and m.ore_blocks["emerald"] > 0
