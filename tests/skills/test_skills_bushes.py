"""Walking past sweet berry bushes, against the real embedded server over 127.0.0.1 (issue 24).

Vanilla players walk through berry bushes, slowed and (from age 1) hurt (``mirrorcraft/pathing/grid.py``
cites the numbers); the planner used to treat them as walls, so a field of them closed the way. Now a
bush costs extra: ``go_to`` walks through a field when it is the only way and round a patch when it can.
Positions are the server's, sampled while the skill runs.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytest_twisted
from support.skills_support import module_server, session
from twisted.internet import defer


@pytest.fixture(scope="module")
def server(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox_template, tmp_path_factory, "bushes-server", tick_rate=20, seed=9)


def _floor(server, c: tuple[int, int, int], xs: range, zs: range) -> None:
    """Grass under ``c``'s height, air for three blocks above it, over ``xs`` x ``zs`` around ``c``."""
    cx, cy, cz = c
    for dx in xs:
        for dz in zs:
            server.set_block(cx + dx, cy - 1, cz + dz, "grass_block")
            for dy in range(0, 3):
                server.set_block(cx + dx, cy + dy, cz + dz, "air")


async def _walk(body, skills, server, name: str, goal: tuple[int, int, int]):
    """``go_to`` ``goal``; returns (report, the server's positions every 2 game ticks on the way)."""
    seen: list[tuple[float, float, float]] = []
    call = defer.ensureDeferred(skills.run("go_to", x=goal[0], y=goal[1], z=goal[2]))
    while not call.called:
        seen.append(server.position(name))
        await body.sleep(0.1)
    return await call, seen


def _cells(seen) -> set[tuple[int, int, int]]:
    return {(math.floor(p[0]), math.floor(p[1]), math.floor(p[2])) for p in seen}


@pytest_twisted.ensureDeferred
async def test_go_to_walks_through_a_field_of_berry_bushes_when_it_is_the_only_way(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        c = (fx + 24, fy + 16, fz + 24)  # in the air: the test owns every block
        cx, cy, cz = c
        _floor(server, c, range(-1, 11), range(-2, 3))
        for dx in range(-1, 11):  # a corridor one wide: walls beside it, a roof over it
            for dy in range(0, 3):
                server.set_block(cx + dx, cy + dy, cz - 1, "stone")
                server.set_block(cx + dx, cy + dy, cz + 1, "stone")
            server.set_block(cx + dx, cy + 2, cz, "stone")
        server.set_block(cx - 1, cy, cz, "stone")
        server.set_block(cx - 1, cy + 1, cz, "stone")
        field = [(cx + dx, cy, cz) for dx in range(2, 8)]
        for p in field:
            server.set_block(*p, "sweet_berry_bush", age="3")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        await body.sleep(0.5)
        assert skills.ctx.feet() == c
        goal = (cx + 9, cy, cz)
        report, seen = await _walk(body, skills, server, name, goal)
        assert report.status == "success", report
        assert math.dist(server.position(name), (goal[0] + 0.5, goal[1], goal[2] + 0.5)) <= 1.5
        assert set(field) & _cells(seen)  # through the bushes: there is no other way
        assert report.blocks_broken == [] and all(server.block_at(*p) == "sweet_berry_bush" for p in field)
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_go_to_walks_round_berry_bushes_when_it_can(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        c = (fx - 24, fy + 16, fz - 24)
        cx, cy, cz = c
        _floor(server, c, range(-2, 14), range(-6, 7))
        patch = [(cx + dx, cy, cz + dz) for dx in range(4, 8) for dz in range(-2, 3)]  # 4 x 5 across the line
        for p in patch:
            server.set_block(*p, "sweet_berry_bush", age="3")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        await body.sleep(0.5)
        assert skills.ctx.feet() == c
        goal = (cx + 11, cy, cz)
        report, seen = await _walk(body, skills, server, name, goal)
        assert report.status == "success", report
        assert math.dist(server.position(name), (goal[0] + 0.5, goal[1], goal[2] + 0.5)) <= 1.5
        assert not set(patch) & _cells(seen), sorted(set(patch) & _cells(seen))  # round the patch
    finally:
        await body.disconnect()
