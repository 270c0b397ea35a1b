"""Player physics on synthetic worlds, against the vanilla values the Minecraft wiki documents.

Expected numbers are the documented ones (Minecraft wiki "Sprinting", "Jumping", "Transportation",
"Entity#Motion"), not outputs of this code: walking 4.317 m/s, sprinting 5.612 m/s, a jump rises 1.2522
blocks, terminal fall speed 3.92 blocks/tick, Speed adds 20 % per level.
"""

from __future__ import annotations

import math

import pytest

from mirrorcraft.gamedata import state_id
from mirrorcraft.mcproto_body.physics import Controls, PlayerState, step

STONE = state_id("minecraft:stone")
SLAB = state_id("minecraft:stone_slab", type="bottom")
WATER = state_id("minecraft:water", level=0)


def flat(extra: dict[tuple[int, int, int], int] | None = None, floor: int = 0):
    """Stone up to y=floor, air above, plus ``extra`` blocks."""
    extra = extra or {}

    def lookup(x: int, y: int, z: int) -> int:
        if (x, y, z) in extra:
            return extra[(x, y, z)]
        return STONE if y <= floor else 0

    return lookup


def run(lookup, st: PlayerState, ctl: Controls, ticks: int) -> list[PlayerState]:
    out = []
    for _ in range(ticks):
        st = step(lookup, st, ctl)
        out.append(st)
    return out


@pytest.mark.parametrize(
    ("sprint", "speed_level", "expected"), [(False, 0, 4.317), (True, 0, 5.612), (False, 2, 4.317 * 1.4)]
)
def test_ground_speed_matches_vanilla(sprint: bool, speed_level: int, expected: float) -> None:
    st = PlayerState(pos=(0.5, 1.0, 0.5), yaw=-90.0, on_ground=True, speed_level=speed_level)  # yaw -90 = +X
    states = run(flat(), st, Controls(forward=True, sprint=sprint), 80)
    metres_per_second = states[79].pos[0] - states[59].pos[0]  # 20 ticks = 1 s at steady state
    assert metres_per_second == pytest.approx(expected, rel=2e-3)
    # The first tick starts with vy = 0, so (as in vanilla) the ground is only touched from the second tick.
    assert all(s.pos[1] == 1.0 for s in states) and all(s.on_ground for s in states[1:])
    assert states[-1].pos[2] == pytest.approx(0.5)  # yaw -90 walks along +X only


def test_jump_height_and_landing() -> None:
    st = PlayerState(pos=(0.5, 1.0, 0.5), on_ground=True)
    states = run(flat(), st, Controls(jump=True), 1) + run(flat(), st, Controls(), 0)
    states += run(flat(), states[-1], Controls(), 20)
    top = max(s.pos[1] for s in states) - 1.0
    assert top == pytest.approx(1.2522, abs=1e-3)
    assert states[-1].on_ground and states[-1].pos[1] == 1.0
    assert 11 <= next(i for i, s in enumerate(states) if s.on_ground) + 1 <= 13  # a jump lasts ~12 ticks


def test_terminal_fall_speed() -> None:
    st = PlayerState(pos=(0.5, 500.0, 0.5))
    states = run(flat(floor=-1000), st, Controls(), 300)
    assert -states[-1].vel[1] == pytest.approx(3.92, abs=0.01)


def test_wall_stops_and_full_block_needs_a_jump() -> None:
    wall = flat({(x, 1, z): STONE for x in range(3, 12) for z in range(-5, 6)})  # a 1-high platform
    st = PlayerState(pos=(0.5, 1.0, 0.5), yaw=-90.0, on_ground=True)
    states = run(wall, st, Controls(forward=True), 60)
    assert states[-1].pos[0] == pytest.approx(3 - 0.3)  # box edge against the wall
    assert states[-1].collided_horizontally and states[-1].pos[1] == 1.0
    states = run(wall, states[-1], Controls(forward=True, jump=True), 1)
    states = run(wall, states[-1], Controls(forward=True), 20)
    assert states[-1].pos[0] > 3.3 and states[-1].pos[1] == pytest.approx(2.0) and states[-1].on_ground


def test_slab_is_stepped_up_without_jumping() -> None:
    slabs = flat({(3, 1, z): SLAB for z in range(-5, 6)})
    st = PlayerState(pos=(0.5, 1.0, 0.5), yaw=-90.0, on_ground=True)
    states = run(slabs, st, Controls(forward=True), 40)
    on_slab = [s for s in states if 3.0 <= s.pos[0] <= 3.7]
    assert on_slab and all(s.pos[1] == pytest.approx(1.5) for s in on_slab)
    assert states[-1].pos[0] > 5.0  # kept going, no jump needed
    assert max(s.pos[1] for s in states) == pytest.approx(1.5)


def test_water_slows_and_jump_swims_up() -> None:
    pool = flat({(x, y, z): WATER for x in range(-4, 5) for y in range(1, 6) for z in range(-4, 5)})
    st = PlayerState(pos=(0.5, 4.0, 0.5))
    sink = run(pool, st, Controls(), 40)
    assert sink[-1].in_water and sink[-1].pos[1] < 4.0
    assert max(-s.vel[1] for s in sink) < 0.2  # far below free fall
    rise = run(pool, sink[-1], Controls(jump=True), 40)
    assert rise[-1].pos[1] > sink[-1].pos[1] + 1.0


def test_unloaded_is_solid() -> None:
    def lookup(x: int, y: int, z: int):
        return None if x >= 2 else (STONE if y <= 0 else 0)

    st = PlayerState(pos=(0.5, 1.0, 0.5), yaw=-90.0, on_ground=True)
    states = run(lookup, st, Controls(forward=True), 40)
    assert states[-1].pos[0] == pytest.approx(2 - 0.3)
    assert math.isclose(states[-1].pos[1], 1.0)


def test_a_berry_bush_slows_walking_to_its_stuck_multiplier() -> None:
    """``Entity.makeStuckInBlock(0.8, 0.75, 0.8)`` with ``deltaMovement`` zeroed after each stuck move: inside a
    bush a walker keeps no momentum, so each tick moves only that tick's input, 0.98 x 0.1 (walking speed,
    ground friction 0.6: acceleration 0.1 x 0.216 / 0.6^3), times 0.8: 0.0784 blocks a tick, 1.568 m/s —
    derived from the vanilla code, not from this module; outside the bush the 4.317 m/s of the wiki."""
    bush = state_id("minecraft:sweet_berry_bush", age=0)  # any age slows (only the damage needs age >= 1)
    field = {(x, 1, z): bush for x in range(3, 40) for z in (-1, 0, 1)}
    st = PlayerState(pos=(0.5, 1.0, 0.5), yaw=-90.0, on_ground=True)
    states = run(flat(field), st, Controls(forward=True), 60)
    inside = [b.pos[0] - a.pos[0] for a, b in zip(states[30:], states[31:], strict=False)]
    assert inside == pytest.approx([0.98 * 0.1 * 0.8] * len(inside), rel=1e-6)
    assert all(s.vel[0] == 0.0 and s.vel[2] == 0.0 for s in states[30:])
    free = run(flat(), st, Controls(forward=True), 60)
    assert free[59].pos[0] - free[39].pos[0] == pytest.approx(4.317, rel=2e-3)
    assert states[-1].pos[1] == 1.0  # on the ground all along: the bush has no collision
