"""Farmland, crops, stems, cocoa, sweet berries and sugar cane on a real game, against vanilla 1.19.2 facts.

The facts (``rules/data/plants.json``, read in the decompiled 1.19.1 client and the wiki's crop pages):
``CropBlock.randomTick`` grows one age with chance ``1 / (floor(25 / f) + 1)``; ``getGrowthSpeed`` gives
``f = 1 + 3`` on one moist farmland, ``+ 3/4`` per moist farmland around, halved next to the same crop on
both axes; beetroots skip a third of their ticks; stems grow a fruit onto a free side over dirt or farmland;
cocoa grows with chance 1/5; a ripe bush picked by use gives 2-3 berries and goes back to age 1. Statistical
checks use > 5 standard errors of the seeded sample.
"""

from __future__ import annotations

import math

from support.fakeplayer import give, use_block
from support.farm_plots import PLOT_Y, Plot

from mirrorcraft.server import facts

Y = PLOT_Y


def moist_field(
    plot: Plot, x0: int, z0: int, n: int, crop: str | None = "wheat", age: int = 0
) -> list[tuple[int, int, int]]:
    """An ``n x n`` field of moist farmland (water in its middle) at ``(x0.., Y - 1, z0..)``, planted with ``crop``."""
    plot.floor(x0 - 1, z0 - 1, x0 + n, z0 + n, "stone", y=Y - 2)
    mid = (x0 + n // 2, Y - 1, z0 + n // 2)
    cells = []
    for x in range(x0, x0 + n):
        for z in range(z0, z0 + n):
            if (x, Y - 1, z) == mid:
                plot.put(mid, "water")
                continue
            plot.put((x, Y - 1, z), "farmland", moisture=7)
            cells.append((x, Y, z))
    if crop is not None:
        for c in cells:
            plot.put(c, crop, age=age)
    return cells


def test_growth_speed_follows_get_growth_speed(plot: Plot) -> None:
    f = plot.game.farming
    wheat = facts.block("minecraft:wheat").id
    plot.floor(16, 16, 30, 30, "stone", y=Y - 2)
    plot.put((17, Y - 1, 17), "farmland", moisture=7)
    plot.put((17, Y, 17), "wheat")
    assert f.growth_speed((17, Y, 17), wheat) == 4.0  # 1 + 3: alone on moist farmland
    plot.put((17, Y - 1, 17), "farmland", moisture=0)
    assert f.growth_speed((17, Y, 17), wheat) == 2.0  # 1 + 1: dry
    cells = moist_field(plot, 20, 20, 3, crop=None)
    plot.put((20, Y, 20), "wheat")  # a corner: 2 moist neighbours (the middle cell is the water)
    assert f.growth_speed((20, Y, 20), wheat) == 1 + 3 + 2 * 3 / 4
    for c in cells:
        plot.put(c, "wheat")
    assert f.growth_speed((20, Y, 20), wheat) == (1 + 3 + 2 * 3 / 4) / 2  # wheat east and south: halved
    plot.game.kernel.set_block((20, Y, 21), 0)
    plot.game.kernel.set_block((21, Y, 20), 0)
    assert f.growth_speed((20, Y, 20), wheat) == 1 + 3 + 2 * 3 / 4  # none beside: whole
    plot.put((21, Y, 22), "wheat")  # only diagonal ... (21, 21) is water, so put one at the diagonal cell
    plot.game.kernel.set_block((21, Y - 1, 21), 0)
    plot.put((21, Y - 1, 21), "farmland", moisture=7)
    plot.put((21, Y, 21), "wheat")
    assert f.growth_speed((20, Y, 20), wheat) == (1 + 3 + 3 * 3 / 4) / 2  # a diagonal crop: halved
    for x in range(16, 26):  # the column-slice fast path agrees with the block-by-block one
        for z in range(16, 26):
            assert f.growth_speed((x, Y, z), wheat) == f._growth_speed_slow((x, Y, z), wheat), (x, z)


def test_crop_growth_chance_statistics(plot: Plot) -> None:
    """A lone wheat on moist farmland (f = 4): each random tick grows it with chance 1/7; a beetroot's with
    2/3 x 1/7 (a third of its ticks are skipped)."""
    plot.floor(16, 16, 20, 20, "stone", y=Y - 2)
    for x, crop in ((17, "wheat"), (19, "beetroots")):
        plot.put((x, Y - 1, 17), "farmland", moisture=7)
        plot.put((x, Y, 17), crop)
    f = plot.game.farming
    n = 7000
    for x, crop, p in ((17, "wheat", 1 / 7), (19, "beetroots", 2 / 3 / 7)):
        grown = 0
        young = plot.game.world.get_block(x, Y, 17)
        for _ in range(n):
            f._crop_tick((x, Y, 17), young)  # the block's random tick, as RandomTicks calls it
            if plot.age((x, Y, 17)) == 1:
                grown += 1
                plot.game.world.set_block(x, Y, 17, young)
        assert abs(grown / n - p) < 5 * math.sqrt(p * (1 - p) / n), (crop, grown / n, p)


def test_a_field_grows_to_maturity_under_random_ticks(plot: Plot) -> None:
    """At randomTickSpeed 200 a cell is drawn about 200/4096 times a tick; a corner carrot (f = 3.125, chance
    1/9) needs about 1300 ticks for its 7 ages (sd ~ 500): 3600 ticks is the mean + 4.6 sd."""
    cells = moist_field(plot, 20, 20, 5, "carrots")
    plot.speed(200)
    seen = {c: 0 for c in cells}
    for _ in range(4):
        plot.tick(900)
        for c in cells:
            age = plot.age(c)
            assert age >= seen[c], "a crop got younger"
            seen[c] = age
    assert all(a == 7 for a in seen.values()), seen
    # mature crops stop ticking (CropBlock.isRandomlyTicking); the farmland under them still ticks
    rt, world = plot.game.random_ticks, plot.game.world
    assert not any(rt.ticking[world.get_block(*c)] for c in cells)
    assert all(rt.ticking[world.get_block(c[0], c[1] - 1, c[2])] for c in cells)


def test_dark_crops_do_not_grow_and_light_lets_them(plot: Plot) -> None:
    cells = moist_field(plot, 20, 20, 3, "wheat")
    plot.floor(19, 19, 23, 23, "stone", y=Y + 2)  # a roof: sky light 0 below
    f = plot.game.farming
    young = plot.game.world.get_block(*cells[0])
    for _ in range(300):
        f._crop_tick(cells[0], young)
    assert plot.age(cells[0]) == 0  # raw brightness 0 < 9
    plot.put((cells[0][0], Y + 1, cells[0][2]), "glowstone")  # block light 15 beside it (approximated)
    for _ in range(300):
        f._crop_tick(cells[0], plot.game.world.get_block(*cells[0]))
    assert plot.age(cells[0]) > 0


def test_a_crop_pops_when_its_farmland_goes_and_farmland_under_a_block_turns_to_dirt(plot: Plot) -> None:
    cells = moist_field(plot, 20, 20, 3, "wheat", age=7)
    x, _, z = cells[0]
    plot.game.digging.break_block(None, (x, Y - 1, z))  # the farmland under a ripe wheat
    assert plot.name((x, Y, z)) == "air"
    assert plot.drops().get("wheat") == 1 and plot.drops().get("wheat_seeds", 0) >= 1  # its loot table
    x2, _, z2 = cells[1]
    plot.game.kernel.set_block((x2, Y, z2), 0)
    plot.put((x2, Y, z2), "stone")  # a solid block on farmland: dirt on the scheduled tick
    assert plot.name((x2, Y - 1, z2)) == "farmland"
    plot.tick(2)
    assert plot.name((x2, Y - 1, z2)) == "dirt"


def test_farmland_dries_without_water_and_turns_to_dirt_unless_planted(plot: Plot) -> None:
    plot.floor(16, 16, 20, 20, "stone", y=Y - 2)
    plot.put((17, Y - 1, 17), "farmland", moisture=2)
    plot.put((19, Y - 1, 17), "farmland", moisture=0)
    plot.put((19, Y, 17), "potatoes")
    f = plot.game.farming
    for _ in range(2):
        f._farmland_tick((17, Y - 1, 17), plot.game.world.get_block(17, Y - 1, 17))
    assert plot.props((17, Y - 1, 17))["moisture"] == "0"
    f._farmland_tick((17, Y - 1, 17), plot.game.world.get_block(17, Y - 1, 17))
    assert plot.name((17, Y - 1, 17)) == "dirt"  # dry, nothing on it
    f._farmland_tick((19, Y - 1, 17), plot.game.world.get_block(19, Y - 1, 17))
    assert plot.name((19, Y - 1, 17)) == "farmland"  # a crop keeps dry farmland (isUnderCrops)
    plot.put((21, Y - 1, 17), "water")
    f._farmland_tick((19, Y - 1, 17), plot.game.world.get_block(19, Y - 1, 17))
    assert plot.props((19, Y - 1, 17))["moisture"] == "7"  # water within 4 blocks


def test_planting_tilling_and_bone_meal_by_use(plot: Plot) -> None:
    g, p = plot.game, plot.player
    plot.floor(18, 18, 23, 23, "grass_block", y=Y - 1, snowy=False)
    give(p, 36, "netherite_hoe", 1)
    use_block(g, p, (20, Y - 1, 20), face=1)
    assert plot.name((20, Y - 1, 20)) == "farmland"  # HoeItem: grass -> farmland
    use_block(g, p, (21, Y - 1, 20), face=0)
    assert plot.name((21, Y - 1, 20)) == "grass_block"  # not from below
    plot.put((22, Y, 20), "stone")
    use_block(g, p, (22, Y - 1, 20), face=1)
    assert plot.name((22, Y - 1, 20)) == "grass_block"  # not with a block above
    give(p, 36, "wheat_seeds", 3)
    use_block(g, p, (20, Y - 1, 20), face=1)
    assert plot.name((20, Y, 20)) == "wheat" and plot.age((20, Y, 20)) == 0
    use_block(g, p, (21, Y - 1, 20), face=1)
    assert plot.name((21, Y, 20)) == "air"  # seeds need farmland (CropBlock.mayPlaceOn)
    assert p.inventory.slots[36].count == 2
    give(p, 36, "bone_meal", 5)
    use_block(g, p, (20, Y, 20), face=1)
    assert 2 <= plot.age((20, Y, 20)) <= 5 and p.inventory.slots[36].count == 4
    while plot.age((20, Y, 20)) < 7:
        use_block(g, p, (20, Y, 20), face=1)
    left = p.inventory.slots[36].count if p.inventory.slots[36] else 0
    use_block(g, p, (20, Y, 20), face=1)  # ripe: not a valid target, nothing used
    assert (p.inventory.slots[36].count if p.inventory.slots[36] else 0) == left


def test_stems_grow_a_fruit_on_a_free_side_and_go_back_when_it_is_taken(plot: Plot) -> None:
    plot.floor(18, 18, 24, 24, "dirt", y=Y - 1)
    plot.put((21, Y - 1, 21), "farmland", moisture=7)
    plot.put((21, Y, 21), "melon_stem", age=7)
    for x, z in ((21, 20), (21, 22), (20, 21)):
        plot.put((x, Y, z), "stone")  # only the east side is free
    f = plot.game.farming
    for _ in range(400):
        if plot.name((21, Y, 21)) != "melon_stem":
            break
        f._stem_tick((21, Y, 21), plot.game.world.get_block(21, Y, 21))
    assert plot.name((22, Y, 21)) == "melon"
    assert plot.name((21, Y, 21)) == "attached_melon_stem" and plot.props((21, Y, 21))["facing"] == "east"
    plot.game.digging.break_block(None, (22, Y, 21))
    assert 3 <= plot.drops()["melon_slice"] <= 7
    assert (
        plot.name((21, Y, 21)) == "melon_stem" and plot.age((21, Y, 21)) == 7
    )  # AttachedStemBlock.updateShape


def test_cocoa_grows_on_jungle_logs_only_and_pops_with_its_log(plot: Plot) -> None:
    g, p = plot.game, plot.player
    plot.put((22, Y, 20), "jungle_log", axis="y")
    plot.put((26, Y, 20), "oak_log", axis="y")
    give(p, 36, "cocoa_beans", 4)
    use_block(g, p, (22, Y, 20), face=4)  # the log's west face: a pod at x = 21 facing east (the log)
    assert plot.name((21, Y, 20)) == "cocoa" and plot.props((21, Y, 20))["facing"] == "east"
    use_block(g, p, (26, Y, 20), face=4)
    assert plot.name((25, Y, 20)) == "air"  # not on an oak log
    f = g.farming
    young, n, grown = g.world.get_block(21, Y, 20), 2000, 0
    for _ in range(n):
        f._cocoa_tick((21, Y, 20), young)
        if plot.age((21, Y, 20)) == 1:
            grown += 1
            g.world.set_block(21, Y, 20, young)
    assert abs(grown / n - 0.2) < 5 * math.sqrt(0.2 * 0.8 / n)  # CocoaBlock: nextInt(5) == 0
    for _ in range(200):
        f._cocoa_tick((21, Y, 20), g.world.get_block(21, Y, 20))
    assert plot.age((21, Y, 20)) == 2  # and no further
    g.digging.break_block(None, (22, Y, 20))
    assert plot.name((21, Y, 20)) == "air" and plot.drops()["cocoa_beans"] == 3  # age 2: 3 beans


def test_sweet_berries_are_picked_by_use_without_breaking_the_bush(plot: Plot) -> None:
    g, p = plot.game, plot.player
    plot.floor(18, 18, 23, 23, "grass_block", y=Y - 1, snowy=False)
    counts = {2: [], 3: []}
    for age in (3, 2):
        for _ in range(30):
            plot.put((20, Y, 20), "sweet_berry_bush", age=age)
            before = g.farming.use_rng.getstate()
            use_block(g, p, (20, Y, 20), face=1)
            assert g.farming.use_rng.getstate() != before
            assert plot.name((20, Y, 20)) == "sweet_berry_bush" and plot.age((20, Y, 20)) == 1
            counts[age].append(plot.drops()["sweet_berries"])
            plot.clear_drops()
    assert set(counts[3]) == {2, 3} and set(counts[2]) == {1, 2}  # 1 + nextInt(2), + 1 when ripe
    give(p, 36, "oak_planks", 1)
    use_block(g, p, (20, Y, 20), face=1)  # age 1: nothing to pick, the use goes on (a block is placed)
    assert plot.age((20, Y, 20)) == 1 and not plot.drops()
    plot.put((21, Y, 21), "sweet_berry_bush", age=0)
    for _ in range(200):
        g.farming._berry_tick((21, Y, 21), g.world.get_block(21, Y, 21))
    assert plot.age((21, Y, 21)) == 3  # grows (1/5 per tick) to ripe, and no further


def test_sugar_cane_grows_three_high_and_falls_when_cut(plot: Plot) -> None:
    plot.floor(18, 18, 23, 23, "sand", y=Y - 1)
    plot.put((21, Y - 1, 20), "water")
    give(plot.player, 36, "sugar_cane", 2)
    use_block(plot.game, plot.player, (20, Y - 1, 20), face=1)
    assert plot.name((20, Y, 20)) == "sugar_cane"
    use_block(plot.game, plot.player, (22, Y - 1, 22), face=1)
    assert plot.name((22, Y, 22)) == "air"  # no water beside that sand
    f = plot.game.farming
    for _ in range(200):
        for y in (Y, Y + 1, Y + 2):
            if plot.name((20, y, 20)) == "sugar_cane":
                f._cane_tick((20, y, 20), plot.game.world.get_block(20, y, 20))
    assert [plot.name((20, y, 20)) for y in (Y, Y + 1, Y + 2, Y + 3)] == ["sugar_cane"] * 3 + ["air"]
    plot.game.digging.break_block(None, (20, Y, 20))
    plot.tick(1)
    assert plot.name((20, Y + 1, 20)) == "air" and plot.name((20, Y + 2, 20)) == "sugar_cane"  # tick by tick
    plot.tick(1)
    assert plot.name((20, Y + 2, 20)) == "air"
    plot.tick(30)
    assert plot.drops().get("sugar_cane", 0) + plot.held("sugar_cane") == 1 + 3  # the one left + 3 canes
