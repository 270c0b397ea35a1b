"""Picking up what ``mine`` breaks, against the real embedded server over 127.0.0.1 (issue 21).

The default job's Diamond episodes in ``plains-1`` M03-M06 (and Vanilla in other runs) broke the diamond ore
and picked up nothing: the ore lay one block down and ahead of the block the player stood on, under a block
at head height, so its drop lay in a two-high hole the player could not walk into (the ceiling stops the
head) and 0.25 below the pickup box (vanilla: the player's box grown by 1 sideways, 0.5 up and down).
``collect_near`` tried a straight walk only and gave the drop up; it now takes a path that may clear one
obstruction, as ``collect`` does. Ground truth is the server's inventory, never the body's view.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted
from support.skills_support import module_server, server_counts, session


@pytest.fixture(scope="module")
def server(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox_template, tmp_path_factory, "drops-server", tick_rate=20, seed=5)


def _room(server, c: tuple[int, int, int]) -> None:
    """A stone box in the air around ``c`` (the test owns every block): floor below ``c``'s height, air
    from it up to a stone roof three above."""
    cx, cy, cz = c
    for dx in range(-4, 5):
        for dz in range(-4, 5):
            for dy in range(-3, 4):
                wall = abs(dx) == 4 or abs(dz) == 4
                server.set_block(cx + dx, cy + dy, cz + dz, "stone" if dy < 0 or dy == 3 or wall else "air")


@pytest_twisted.ensureDeferred
async def test_mine_picks_up_a_drop_in_a_hole_under_a_ceiling(server) -> None:
    """The ore one down and one ahead of the player, a block over the hole at head height: the diamond is
    picked up (before the fix: "mined 1 minecraft:diamond_ore", nothing collected)."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        c = (fx + 20, fy + 12, fz - 20)  # in the air: nothing of the sandbox around
        cx, cy, cz = c
        _room(server, c)
        ore = (cx, cy - 1, cz + 1)  # in the floor, one ahead: its top face open to the air cell above it
        server.set_block(*ore, "diamond_ore")
        server.set_block(cx, cy + 1, cz + 1, "stone")  # the ceiling over the hole, at head height
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "iron_pickaxe", 1)
        await body.sleep(0.5)
        assert skills.ctx.feet() == c and skills.ctx.find_blocks("minecraft:diamond_ore")[0] == ore
        before = server_counts(server, name)
        report = await skills.run("mine", block="diamond_ore", count=1)
        assert report.status == "success" and report.completed == 1, report
        assert server.block_at(*ore) == "air"
        after = server_counts(server, name)
        assert after.get("minecraft:diamond", 0) - before.get("minecraft:diamond", 0) == 1, report
        assert ("minecraft:diamond", 1) in [(d.item, d.count) for d in report.drops_collected], report
        assert report.inventory_delta.get("minecraft:diamond") == 1, report
        assert "left lying" not in report.message, report.message
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_mine_says_which_drop_it_left_lying(server) -> None:
    """A drop no walk (plus one obstruction) reaches is named in the report, with where it lies, instead
    of a bare "mined 1": here the block is in reach behind a wall of obsidian (which the iron pickaxe may
    not break in time) that closes the room."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        c = (fx - 20, fy + 14, fz + 20)
        cx, cy, cz = c
        _room(server, c)
        for dz in range(-3, 4):
            for dy in range(0, 3):
                server.set_block(cx + 2, cy + dy, cz + dz, "obsidian")
        ore = (cx + 3, cy, cz)  # on the far side of the wall, 3.2 blocks from the eyes
        server.set_block(*ore, "emerald_block")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "iron_pickaxe", 1)
        await body.sleep(0.5)
        assert skills.ctx.feet() == c and skills.ctx.find_blocks("minecraft:emerald_block") == [ore]
        report = await skills.run("mine", block="emerald_block", count=1)
        assert report.status == "success" and report.completed == 1, report
        assert server.block_at(*ore) == "air"
        assert report.drops_collected == [], report
        assert "left lying out of reach: 1 minecraft:emerald_block at (" in report.message, report.message
    finally:
        await body.disconnect()
