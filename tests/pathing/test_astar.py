"""A* on synthetic numpy worlds (real 1.19.2 block-state ids): walls, steps, drops, water, digging, bounds."""

from __future__ import annotations

import numpy as np
import pytest

from mirrorcraft.gamedata import state_id
from mirrorcraft.mcproto_body.world import UNLOADED
from mirrorcraft.pathing import AIR, BLOCKED, SOLID, TALL, WATER, Goal, PathGrid, find_path, kind_table

STONE = state_id("minecraft:stone")
WATER_S = state_id("minecraft:water", level=0)
LAVA = state_id("minecraft:lava", level=0)
FENCE = state_id("minecraft:oak_fence")
BEDROCK = state_id("minecraft:bedrock")


def world(size=(40, 16, 40), floor: int = 4) -> np.ndarray:
    """``[x, y, z]`` states: stone for y < floor (feet stand at y = floor), air above."""
    w = np.zeros(size, dtype=np.uint16)
    w[:, :floor, :] = STONE
    return w


def plan(w: np.ndarray, start, goal: Goal, **kw):
    return find_path(PathGrid.from_states(w), start, goal, **kw)


def cells(res) -> list[tuple[int, int, int]]:
    return [s.cell for s in res.steps]


def test_kinds() -> None:
    k = kind_table()
    assert k[0] == AIR and k[STONE] == SOLID and k[WATER_S] == WATER and k[LAVA] == BLOCKED
    assert k[FENCE] == TALL and k[int(UNLOADED)] == BLOCKED
    assert k[state_id("minecraft:oak_slab", type="bottom", waterlogged=True)] == SOLID
    assert k[state_id("minecraft:seagrass")] == WATER


def test_straight_walk_is_optimal() -> None:
    res = plan(world(), (2, 4, 2), Goal(30, 4, 2))
    assert res.status == "found" and res.cost == pytest.approx(28)
    assert cells(res)[-1] == (30, 4, 2) and all(c[1] == 4 for c in cells(res))


def test_diagonal_costs_sqrt2() -> None:
    res = plan(world(), (2, 4, 2), Goal(12, 4, 12))
    assert res.status == "found" and res.cost == pytest.approx(10 * np.sqrt(2))


def test_wall_with_gap_is_walked_around() -> None:
    w = world()
    w[20, 4:8, :] = STONE
    w[20, 4:6, 35] = 0  # a two-high gap at z = 35
    res = plan(w, (5, 4, 5), Goal(30, 4, 5))
    assert res.status == "found"
    assert (20, 4, 35) in cells(res)
    assert all(w[c[0], c[1], c[2]] == 0 and w[c[0], c[1] + 1, c[2]] == 0 for c in cells(res))


def test_one_block_step_is_jumped_two_is_not() -> None:
    w = world()
    w[10:, 4, :] = STONE  # one-block step up at x = 10
    res = plan(w, (5, 4, 5), Goal(15, 5, 5))
    assert res.status == "found" and [s.move for s in res.steps].count("jump") == 1
    w2 = world()
    w2[10:, 4:6, :] = STONE  # two blocks high everywhere: unreachable without digging
    res2 = plan(w2, (5, 4, 5), Goal(15, 6, 5))
    assert res2.status == "no_path"


def test_jump_needs_head_room() -> None:
    w = world()
    w[10:, 4, :] = STONE
    w[:10, 6, :] = STONE  # ceiling right above the head before the step
    assert plan(w, (5, 4, 5), Goal(15, 5, 5)).status == "no_path"


def test_drops_up_to_three() -> None:
    for depth, ok in ((1, True), (3, True), (4, False)):
        w = world(floor=8)
        w[10:, 8 - depth : 8, :] = 0  # the ground drops by `depth` at x = 10
        res = plan(w, (5, 8, 5), Goal(15, 8 - depth, 5), max_nodes=20_000)
        assert (res.status == "found") is ok, depth
        if ok:
            assert "drop" in [s.move for s in res.steps]


def test_swim_out_of_a_pool() -> None:
    w = world(floor=8)
    w[5:15, 4:8, 5:15] = WATER_S  # a pool four deep, surface at y = 7
    res = plan(w, (10, 4, 10), Goal(20, 8, 10))
    assert res.status == "found"
    moves = [s.move for s in res.steps]
    assert "swim" in moves and "jump" in moves and cells(res)[-1] == (20, 8, 10)


def test_lava_and_fences_are_avoided() -> None:
    w = world()
    w[10, 3, :] = LAVA  # a lava trench in the floor...
    w[10, 3, 30] = STONE  # ...with a bridge at z = 30
    w[20, 4, :] = FENCE
    w[20, 4, 8] = 0  # a gate at z = 8
    res = plan(w, (5, 4, 5), Goal(30, 4, 5))
    assert res.status == "found"
    assert (10, 4, 30) in cells(res) and (20, 4, 8) in cells(res)


def test_dig_through_only_when_allowed_and_cheaper() -> None:
    w = world()
    w[20, 4:16, :] = STONE  # a full wall, no gap
    assert plan(w, (5, 4, 5), Goal(30, 4, 5)).status == "no_path"
    res = plan(w, (5, 4, 5), Goal(30, 4, 5), dig_cost=1.0)
    assert res.status == "found"
    digs = [s for s in res.steps if s.dig]
    assert len(digs) == 1 and set(digs[0].dig) == {(20, 4, 5), (20, 5, 5)}
    assert res.cost == pytest.approx(25 + 2 * (1 + 1.5))  # walk 25 + two stone blocks (hardness 1.5)
    w[20, 4:6, 5] = BEDROCK
    res = plan(w, (5, 4, 5), Goal(30, 4, 5), dig_cost=1.0)
    assert res.status == "found" and all(5 not in (c[2] for c in s.dig) for s in res.steps if s.dig)


def test_dig_descends_by_a_staircase_to_a_buried_goal() -> None:
    w = world(floor=12)  # solid stone up to y = 11; the player stands on top at y = 12
    goal = Goal(10, 6, 5, radius=1.0)
    assert plan(w, (5, 12, 5), goal).status == "no_path"
    res = plan(w, (5, 12, 5), goal, dig_cost=1.0)
    assert res.status == "found", res.status
    path = cells(res)
    # Every step goes down at most one block and moves one block sideways: a staircase, walkable back up.
    for a, b in zip(path, path[1:], strict=False):
        assert abs(a[0] - b[0]) + abs(a[2] - b[2]) == 1 and a[1] - b[1] in (0, 1), (a, b)
    assert path[-1][1] <= 7 and goal.reached(path[-1])
    for s in res.steps[1:]:
        if s.move == "dig" and s.cell[1] < 12:
            assert all(c[0] == s.cell[0] and c[2] == s.cell[2] for c in s.dig)  # only the step's own column


def test_dig_never_opens_a_block_beside_a_liquid() -> None:
    w = world()
    w[20, 4:16, :] = STONE  # a full wall...
    w[21, 4:16, :] = WATER_S  # ...holding back water on the far side, then more wall
    w[22, 4:16, :] = STONE
    assert plan(w, (5, 4, 5), Goal(30, 4, 5), dig_cost=1.0).status == "no_path"
    w[21, 4:16, :] = LAVA
    assert plan(w, (5, 4, 5), Goal(30, 4, 5), dig_cost=1.0).status == "no_path"
    w[21, 4:16, :] = STONE  # solid all through: three blocks thick, dug
    assert plan(w, (5, 4, 5), Goal(30, 4, 5), dig_cost=1.0).status == "found"


def test_refused_states_are_not_dug_through() -> None:
    """A ``diggable`` predicate (the skills refuse workstations and blocks too slow for the tools carried)
    makes those blocks undiggable; the plan digs elsewhere or finds none."""
    obsidian = state_id("minecraft:obsidian")
    w = world()
    w[20, 4:16, :] = obsidian  # a full wall of obsidian...
    w[20, 4:6, 30] = STONE  # ...but for one column of stone far to the side
    goal = Goal(30, 4, 5)
    direct = find_path(PathGrid.from_states(w), (5, 4, 5), goal, dig_cost=1.0)
    assert direct.status == "found" and any(
        c[2] == 5 for s in direct.steps for c in s.dig
    )  # cheapest: straight
    asked: list[int] = []

    def no_obsidian(s: int) -> bool:
        asked.append(s)
        return s != obsidian

    around = find_path(PathGrid.from_states(w, diggable=no_obsidian), (5, 4, 5), goal, dig_cost=1.0)
    assert around.status == "found"
    dug = [c for s in around.steps for c in s.dig]
    assert dug and all(w[c] != obsidian for c in dug), dug  # through stone: the column or under the wall
    assert len(asked) == len(set(asked)) == len(np.unique(w))  # asked once per distinct state
    w[20, :, :] = obsidian  # the wall through the floor as well, and no stone column
    refused = find_path(PathGrid.from_states(w, diggable=no_obsidian), (5, 4, 5), goal, dig_cost=1.0)
    assert refused.status == "no_path"
    assert find_path(PathGrid.from_states(w), (5, 4, 5), goal, dig_cost=1.0).status == "found"


def test_search_is_bounded_and_returns_partial() -> None:
    w = world(size=(200, 10, 200))
    w[100, 4:10, :] = STONE
    res = plan(w, (5, 4, 100), Goal(190, 4, 100), max_nodes=500)
    assert res.status == "partial" and res.nodes <= 501
    assert cells(res)[-1][0] > 50  # made progress towards the goal
    res = plan(w, (5, 4, 100), Goal(190, 4, 100), max_seconds=0.0)
    assert res.status == "partial"


def test_no_wall_clock_bound_gives_the_same_plan_whatever_the_time() -> None:
    """``max_seconds=None`` (a body in lockstep): a search a zero time bound cuts runs to the end, twice alike."""
    w = world(size=(200, 10, 200))
    w[100, 4:10, :190] = STONE  # a wall with a gap far to one side: thousands of expansions
    start, goal = (5, 4, 100), Goal(190, 4, 100)
    cut = plan(w, start, goal, max_seconds=0.0)
    assert cut.status == "partial" and cut.nodes < 300  # the time bound is checked every 256 expansions
    a = plan(w, start, goal, max_seconds=None)
    b = plan(w, start, goal, max_seconds=None)
    assert a.status == "found" and a.nodes > 1000
    assert (a.status, a.nodes, a.cost, a.steps) == (b.status, b.nodes, b.cost, b.steps)


def test_unloaded_cells_block() -> None:
    w = world()
    w[20:, :, :] = UNLOADED
    assert plan(w, (5, 4, 5), Goal(30, 4, 5)).status == "no_path"


def test_goal_radius_and_xz_goal() -> None:
    res = plan(world(), (2, 4, 2), Goal(30, None, 2, radius=3))
    assert res.status == "found" and cells(res)[-1] == (27, 4, 2)


def test_64_block_plan_is_fast() -> None:
    w = world(size=(80, 12, 80))
    res = plan(w, (4, 4, 4), Goal(68, 4, 4))
    assert res.status == "found" and res.seconds < 0.5 and res.cost == pytest.approx(64)


BUSH_0 = state_id("minecraft:sweet_berry_bush", age=0)
BUSH_3 = state_id("minecraft:sweet_berry_bush", age=3)


def test_berry_bushes_are_walkable_at_a_cost() -> None:
    from mirrorcraft.pathing import BUSH, THORNS
    from mirrorcraft.pathing.grid import ENTER_COST

    k = kind_table()
    assert k[BUSH_0] == BUSH and k[BUSH_3] == THORNS  # no longer BLOCKED (issue 24)
    assert 0 < ENTER_COST[BUSH] < ENTER_COST[THORNS]


def test_a_field_of_berry_bushes_is_walked_through_when_it_is_the_only_way() -> None:
    w = world()
    w[17:24, 4, 17:24] = BUSH_3  # a field of ripe bushes...
    w[20, 4:8, :] = STONE  # ...cut by a wall across the world...
    w[20, 4, 20], w[20, 5, 20] = BUSH_3, 0  # ...whose one two-high gap is in the field
    res = plan(w, (5, 4, 20), Goal(35, 4, 20))
    assert res.status == "found", res.status
    assert (20, 4, 20) in cells(res)
    through = [c for c in cells(res) if w[c] == BUSH_3]
    assert 0 < len(through) <= 7  # straight across the field, not wandering in it


def test_a_path_goes_round_berry_bushes_when_it_can() -> None:
    w = world()
    w[18:23, 4, 14:27] = BUSH_3  # a 5 x 13 patch across the straight line
    res = plan(w, (5, 4, 20), Goal(35, 4, 20))
    assert res.status == "found"
    assert all(w[c] != BUSH_3 for c in cells(res)), cells(res)  # round the patch (7 blocks aside)
    young = world()
    young[18:23, 4, 14:27] = BUSH_0  # bushes of age 0 only slow: straight through them
    res = plan(young, (5, 4, 20), Goal(35, 4, 20))
    assert res.status == "found" and any(young[c] == BUSH_0 for c in cells(res))
