"""The body's world memory on an offline world: blocks remembered by kind after their column unloads,
placed workstations, unreachable marks, the frontier of unseen chunks, and the world border."""

from __future__ import annotations

import numpy as np

from mirrorcraft.gamedata import state_id
from mirrorcraft.mcproto_body.memory import EXACT_LIMIT, SAMPLE_COMMON, WorldMemory
from mirrorcraft.mcproto_body.world import World

STONE = state_id("minecraft:stone")
ORE = state_id("minecraft:diamond_ore")
TABLE = state_id("minecraft:crafting_table")


def column(world: World, ores: list[tuple[int, int, int]] = ()) -> np.ndarray:
    """A column of stone up to y=63 (index [y, z, x]) with diamond ore at the given local cells."""
    col = np.zeros((world.height, 16, 16), dtype=np.uint16)
    col[: 64 - world.min_y] = STONE
    for x, y, z in ores:
        col[y - world.min_y, z, x] = ORE
    return col


def test_blocks_are_remembered_after_their_column_unloads() -> None:
    world = World()
    memory = WorldMemory(world)
    world.set_column(0, 0, column(world, [(3, 10, 4), (5, 20, 6)]))
    world.set_column(5, 0, column(world, [(1, 12, 1)]))
    live = memory.known("minecraft:diamond_ore", (0, 10, 0), radius=96, height=48)
    assert live == [(3, 10, 4), (5, 20, 6), (81, 12, 1)]  # nearest first, from the loaded columns
    world.drop_column(5, 0)  # the far column unloads: indexed, still known
    assert memory.known("minecraft:diamond_ore", (0, 10, 0), radius=96) == live
    assert "minecraft:diamond_ore" in memory.remembered_kinds() and (5, 0) in memory.seen_chunks
    assert memory.known("minecraft:diamond_ore", (0, 10, 0), radius=40) == live[:2]  # radius respected
    # a common kind keeps only its highest cells when the column unloads
    stone = memory.known("minecraft:stone", (88, 60, 8), radius=8, height=4)
    assert stone and all(p[1] == 63 for p in stone) and len(stone) <= SAMPLE_COMMON
    assert (64 - world.min_y) * 256 > EXACT_LIMIT
    # the column comes back: the live data replace the index (an ore mined meanwhile is gone)
    world.set_column(5, 0, column(world))
    assert memory.known("minecraft:diamond_ore", (0, 10, 0), radius=96) == live[:2]


def test_placed_stations_and_unreachable_marks() -> None:
    world = World()
    memory = WorldMemory(world)
    col = column(world)
    col[64 - world.min_y, 2, 2] = TABLE
    world.set_column(0, 0, col)
    memory.note_placed((2, 64, 2), "minecraft:crafting_table")
    assert memory.placed_near("minecraft:crafting_table", (0, 64, 0)) == [(2, 64, 2)]
    world.set_state(2, 64, 2, 0)  # broken: forgotten
    assert memory.placed_near("minecraft:crafting_table", (0, 64, 0)) == []
    memory.note_unreachable((9, 70, 9), (1, 65, 1), "no walk: target 5 blocks up")
    assert memory.is_unreachable((9, 70, 9), (2, 65, 1)) is not None  # asked from near where it failed
    assert memory.is_unreachable((9, 70, 9), (12, 65, 1)) is None  # from elsewhere: try again
    world.set_state(3, 64, 3, STONE)  # the world changed near the failed place: the mark goes
    assert memory.is_unreachable((9, 70, 9), (2, 65, 1)) is None


def test_frontier_counts_unseen_chunks_inside_the_border() -> None:
    world = World()
    memory = WorldMemory(world)
    for cx in range(-2, 3):
        for cz in range(-2, 3):
            world.set_column(cx, cz, column(world))
    unseen = memory.frontier((8, 64, 8), reach=4, half_width=1)
    assert set(unseen.values()) == {6}  # 4 ahead x 3 wide, the nearest 2 rows seen, in every direction
    world.border_center, world.border_diameter = (40.0, 8.0), 96.0  # the border cuts off the west
    assert not world.inside_border(-9, 8) and world.inside_border(0, 8)
    west = memory.frontier((8, 64, 8), reach=4, half_width=1)
    assert west["west"] < west["east"] == 6


def test_unvisited_counts_columns_the_player_has_not_stood_near() -> None:
    memory = WorldMemory(World())
    here = (8, 64, 8)
    assert set(memory.unvisited(here, reach=3, half_width=1).values()) == {9}  # nothing visited yet
    memory.note_visited((8.5, 64.0, 8.5))  # the 3x3 columns around chunk (0, 0)
    memory.note_visited((8.5, 64.0, -23.5))  # and around chunk (0, -2): walked north
    ahead = memory.unvisited(here, reach=3, half_width=1)
    assert ahead["south"] == 6 and ahead["east"] == ahead["west"] == 6  # the first row of each is visited
    assert ahead["north"] == 0  # back over the track: nothing new
