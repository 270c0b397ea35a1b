"""The walkable-region flood, plans that clear at most one obstruction, and the way out (synthetic worlds)."""

from __future__ import annotations

import time

import numpy as np

from mirrorcraft.gamedata import state_id
from mirrorcraft.pathing import Goal, PathGrid, find_path, flood, way_out

STONE = state_id("minecraft:stone")
WATER = state_id("minecraft:water", level=0)


def ground(size=(40, 24, 40), top: int = 10) -> np.ndarray:
    """Stone up to ``top`` (feet stand at y = top + 1... cells y <= top are stone)."""
    w = np.zeros(size, dtype=np.uint16)
    w[:, : top + 1, :] = STONE
    return w


def pit(depth: int, width: int = 2, at=(18, 18), top: int = 10) -> np.ndarray:
    w = ground(top=top)
    x, z = at
    w[x : x + width, top + 1 - depth : top + 1, z : z + width] = 0
    return w


def test_flood_of_a_pit_is_its_floor_and_exhausted() -> None:
    region, exhausted = flood(PathGrid.from_states(pit(6)), (18, 5, 18))
    assert exhausted and sorted(region) == [(18, 5, 18), (18, 5, 19), (19, 5, 18), (19, 5, 19)]
    open_, ex2 = flood(PathGrid.from_states(ground()), (5, 11, 5), max_nodes=100)
    assert not ex2 and len(open_) > 100  # the open field is larger than the bound
    # cells a caller is about to clear count as air: a doorway in the wall lets the flood through
    w = ground()
    w[10, 11:14, :] = STONE  # a wall 3 high across the field at x = 10
    shut, _ = flood(PathGrid.from_states(w), (5, 11, 5))
    assert all(c[0] < 10 for c in shut)
    through, _ = flood(PathGrid.from_states(w), (5, 11, 5), opened=((10, 11, 5), (10, 12, 5)))
    assert any(c[0] > 10 for c in through)


def test_way_out_names_up_down_and_across() -> None:
    w = pit(6)
    region, _ = flood(PathGrid.from_states(w), (18, 5, 18))
    up = way_out(region, (22, 11, 18))
    assert (up.kind, up.dy, up.target_y, up.escapes) == ("up", 6, 11, ("dig_up", "pillar_up"))
    assert up.text() == "target 6 blocks up (y=11); try dig_up or pillar_up"
    pillar = ground()
    pillar[5, 11:16, 5] = STONE  # on top of a 5-high pillar
    region, _ = flood(PathGrid.from_states(pillar), (5, 16, 5))
    down = way_out(region, (9, 11, 5))
    assert (down.kind, down.dy, down.escapes) == ("down", -5, ("dig_down",))
    assert down.text() == "target 5 blocks down (y=11); try dig_down"
    wall = ground()
    wall[10, 11:16, :] = STONE
    region, _ = flood(PathGrid.from_states(wall), (5, 11, 5))
    across = way_out(region, (15, 11, 5))
    assert (across.kind, across.direction, across.escapes) == ("across", "east", ("tunnel",))
    assert across.text() == "target 6 blocks east, the way is shut; try tunnel east"
    # a drop of 3 is walkable (it is the planner's own move), so a target 3 down is "across", never "down"
    assert way_out({(0, 10, 0): 0.0}, (5, 7, 0)).kind == "across"


def test_one_obstruction_plans_clear_at_most_two_blocks_and_fail_fast_in_a_pit() -> None:
    w = ground()
    w[10, 11:16, :] = STONE  # a full wall: one doorway (two blocks) opens it
    g = PathGrid.from_states(w)
    res = find_path(g, (5, 11, 5), Goal(15, 11, 5), dig_cost=4.0, max_dig_blocks=2)
    assert res.status == "found"
    assert sorted(c for s in res.steps for c in s.dig) == [(10, 11, 5), (10, 12, 5)]
    w[11, 11:16, :] = STONE  # two blocks thick: four blocks, more than one obstruction
    g = PathGrid.from_states(w)
    assert find_path(g, (5, 11, 5), Goal(15, 11, 5), dig_cost=4.0, max_dig_blocks=2).status != "found"
    assert find_path(g, (5, 11, 5), Goal(15, 11, 5), dig_cost=4.0).status == "found"  # unbounded: digs
    deep = PathGrid.from_states(pit(6))
    t0 = time.perf_counter()
    res = find_path(deep, (18, 5, 18), Goal(24, 11, 18), dig_cost=4.0, max_dig_blocks=2, max_nodes=20_000)
    assert res.status == "no_path" and res.nodes < 2000  # exhausted quickly, not the whole box
    assert time.perf_counter() - t0 < 0.5


def test_swimming_stays_in_water_and_a_one_high_bank_is_climbed() -> None:
    w = ground()
    w[15:20, 9:11, 15:20] = WATER  # a pool whose surface (y 10) lies one below the land (y 11)
    region, _ = flood(PathGrid.from_states(w), (17, 9, 17))
    assert (17, 11, 17) not in region  # nobody floats above the water
    assert any(c[1] == 11 and not (15 <= c[0] < 20 and 15 <= c[2] < 20) for c in region)  # out onto the bank


def test_a_way_the_player_already_stands_at_the_height_of_is_across() -> None:
    # a region reaching down into a hole beside the target named "4 blocks down (y=68)" to a player at
    # y=68 (the default job, after a partial mine of stone): from the feet it is a tunnel across
    region = [(0, 72, 0), (1, 72, 0), (5, 72, 0), (0, 68, 3)]
    assert way_out(region, (6, 68, 0)).kind == "down"
    way = way_out(region, (6, 68, 0), feet=(0, 68, 3))
    assert (way.kind, way.direction) == ("across", "east") and "try tunnel east" in way.text()
    assert way_out(region, (6, 68, 0), feet=(0, 72, 0)).kind == "down"  # from up there it is down
