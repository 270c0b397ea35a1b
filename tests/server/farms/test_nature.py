"""The world ticking by itself, against vanilla 1.19.2 (``LeavesBlock``, ``SpreadingSnowyDirtBlock``,
``SnowLayerBlock``, ``IceBlock``, the chunk tick's ice-and-snow pass): leaves whose log is cut creep to distance
7 tick by tick and then decay with their loot, placed leaves never do; grass spreads onto lit dirt and dies
under a block; snow and ice melt beside a light; water freezes and snow falls in a cold biome."""

from __future__ import annotations

from support.fakeplayer import give, use_block
from support.farm_plots import PLOT_CHUNK, PLOT_Y, Plot

from mirrorcraft.gamedata import codec_registry_ids

Y = PLOT_Y


def test_leaves_decay_after_their_log_is_cut_and_placed_leaves_persist(plot: Plot) -> None:
    g = plot.game
    for y in range(Y, Y + 3):
        plot.put((20, y, 20), "oak_log", axis="y")
    for x, d in ((21, 1), (22, 2), (23, 3)):
        plot.put((x, Y + 1, 20), "oak_leaves", distance=d, persistent=False)
    plot.put((25, Y + 1, 20), "stone")
    give(plot.player, 36, "oak_leaves", 1)
    use_block(g, plot.player, (25, Y + 1, 20), face=5)  # placed against the stone's east face: persistent
    assert plot.props((26, Y + 1, 20))["persistent"] == "true"
    plot.tick(40)
    assert [plot.props((x, Y + 1, 20))["distance"] for x in (21, 22, 23)] == ["1", "2", "3"]  # the log holds
    assert g.nature.decayed == 0
    for y in range(Y, Y + 3):
        g.digging.break_block(None, (20, y, 20))
    plot.tick(1)
    assert plot.props((21, Y + 1, 20))["distance"] == "3"  # 1 + its neighbour's 2: vanilla creeps up
    plot.tick(20)
    assert [plot.props((x, Y + 1, 20))["distance"] for x in (21, 22, 23)] == ["7"] * 3
    plot.speed(400)
    plot.tick(200)
    assert [plot.name((x, Y + 1, 20)) for x in (21, 22, 23)] == ["air"] * 3  # decayed on random ticks
    assert g.nature.decayed == 3
    assert plot.name((26, Y + 1, 20)) == "oak_leaves"  # placed leaves never decay


def test_grass_spreads_onto_lit_dirt_and_dies_under_a_block(plot: Plot) -> None:
    plot.floor(17, 17, 27, 23, "stone", y=Y - 2)
    plot.floor(17, 17, 27, 23, "dirt", y=Y - 1)
    plot.put((17, Y - 1, 20), "grass_block", snowy=False)
    plot.put((22, Y - 1, 20), "grass_block", snowy=False)
    plot.put((22, Y, 20), "stone")  # grass under a full opaque block
    plot.speed(400)
    plot.tick(300)
    grown = sum(plot.name((x, Y - 1, z)) == "grass_block" for x in range(17, 28) for z in range(17, 24))
    assert grown > 3  # spread from (17, .., 20) over the lit dirt
    assert plot.name((22, Y - 1, 20)) == "dirt"  # canBeGrass failed: turned to dirt
    nature = plot.game.nature  # the per-column counts that let settled grass be skipped stay exact
    assert nature._counts
    for key, kept in list(nature._counts.items()):
        del nature._counts[key]
        assert nature._spread_counts(key) == kept, key
    assert plot.name((17, Y - 1, 20)) == "grass_block"
    plot.put((17, Y, 20), "snow", layers=1)
    assert plot.props((17, Y - 1, 20))["snowy"] == "true"  # SnowyDirtBlock.updateShape from above


def test_snow_and_ice_melt_beside_a_light_only(plot: Plot) -> None:
    plot.floor(17, 17, 30, 26, "stone", y=Y - 1)
    plot.put((20, Y, 20), "snow", layers=2)
    plot.put((21, Y, 20), "glowstone")  # light 15: 14 beside it > 11
    plot.put((28, Y, 20), "snow", layers=2)  # far from any light
    plot.put((20, Y, 24), "ice")
    plot.put((21, Y, 24), "glowstone")
    plot.put((28, Y, 24), "ice")
    plot.speed(400)
    plot.tick(150)
    assert plot.name((20, Y, 20)) == "air" and plot.name((28, Y, 20)) == "snow"
    assert plot.name((20, Y, 24)) == "water" and plot.name((28, Y, 24)) == "ice"
    assert not plot.drops().get("snowball")  # melting snow drops nothing without a player (its table)


def test_water_freezes_at_its_edges_and_snow_falls_in_a_cold_biome(plot: Plot) -> None:
    g = plot.game
    col = g.world.column(*PLOT_CHUNK)
    col.biomes[:] = codec_registry_ids("minecraft:worldgen/biome")["minecraft:snowy_plains"]
    plot.floor(16, 16, 31, 31, "stone", y=Y - 2)
    plot.floor(16, 16, 31, 23, "water", y=Y - 1)
    plot.floor(16, 24, 31, 31, "stone", y=Y - 1)
    plot.tick(600)
    ice = {(x, z) for x in range(16, 32) for z in range(16, 24) if plot.name((x, Y - 1, z)) == "ice"}
    assert ice, "no water froze in 600 ticks (expected ~9)"
    assert not any(plot.name((x, Y, z)) == "snow" for x in range(16, 32) for z in range(24, 32))  # clear sky
    g.admin.set_weather("rain", -1)
    plot.tick(600)
    snow = sum(plot.name((x, Y, z)) == "snow" for x in range(16, 32) for z in range(24, 32))
    assert snow > 0  # Biome.shouldSnow while it rains
    plot.game.world.column(*PLOT_CHUNK).biomes[:] = codec_registry_ids("minecraft:worldgen/biome")[
        "minecraft:plains"
    ]
    before = {(x, z) for x in range(16, 32) for z in range(16, 24) if plot.name((x, Y - 1, z)) == "ice"}
    plot.tick(300)
    after = {(x, z) for x in range(16, 32) for z in range(16, 24) if plot.name((x, Y - 1, z)) == "ice"}
    assert after == before  # a warm biome freezes nothing
