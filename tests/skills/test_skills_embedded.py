"""Every skill against the real embedded server on the sandbox world, over 127.0.0.1.

Ground truth comes from the server's test hook (``block_at``, ``inventory``, ``position``, its events),
never from the body's own view. Each test connects its own player at the world spawn; the module shares
one server (the world changes as tests mine it, so tests pick targets that remain).

Every skill's success path is proven here; ``eat`` with a hungry player and ``recover``'s one-block clearing
(the walk out of water is here) are in ``test_skills_eat_recover.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytest_twisted
from support.skills_support import module_server, server_counts, session

from mirrorcraft.contracts import FailureReason, SkillCall, signature
from mirrorcraft.skills import ActionHistory
from mirrorcraft.skills.gather import MAX_TUNNEL_STEPS, MINE_DIG_BLOCKS
from mirrorcraft.skills.routes import SHAFT_SPACING, RouteRunner


@pytest.fixture(scope="module")
def sandbox(sandbox_template: Path) -> Path:
    return sandbox_template  # read only: the server plays in its own copy


@pytest.fixture(scope="module")
def server(sandbox: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox, tmp_path_factory, "skills-server", tick_rate=20, seed=3)


def _agrees(report, before: dict[str, int], after: dict[str, int]) -> None:
    """The report's inventory delta equals the server's inventory change."""
    keys = set(before) | set(after)
    truth = {k: after.get(k, 0) - before.get(k, 0) for k in keys if after.get(k, 0) != before.get(k, 0)}
    assert report.inventory_delta == dict(sorted(truth.items())), (report.inventory_delta, truth)


def _events(server) -> list[tuple[str, dict]]:
    """A list that collects the server's game events from now on."""
    events: list[tuple[str, dict]] = []
    server.game.listeners.append(lambda ev, data: events.append((ev, data)))
    return events


def _placed_by(events: list[tuple[str, dict]], name: str) -> list:
    """Positions of the server's ``block_placed`` events by player ``name``."""
    return [d["pos"] for ev, d in events if ev == "block_placed" and d.get("player") == name]


def _stone_mass(server, c: tuple[int, int, int], xs: range, zs: range, ys: range) -> None:
    """Fill the box around ``c`` (offsets ``xs``, ``zs``, ``ys``): stone below ``c``'s height, air from it
    up; built in the air, so the test owns every block of it."""
    cx, cy, cz = c
    for dx in xs:
        for dz in zs:
            for dy in ys:
                server.set_block(cx + dx, cy + dy, cz + dz, "stone" if dy < 0 else "air")


async def _place_table_from(server, body, skills, c: tuple[int, int, int]):
    """Teleport the player to cell ``c`` with one crafting table and ``place`` it; the (successful) report."""
    name = body.config.username
    server.teleport(name, c[0] + 0.5, c[1], c[2] + 0.5)
    server.give_item(name, "crafting_table", 1)
    await body.sleep(0.5)
    assert skills.ctx.feet() == c
    report = await skills.run("place", item="crafting_table", use="workstation")
    assert report.status == "success", report
    return report


@pytest_twisted.ensureDeferred
async def test_mine_a_log_with_bare_hands_and_pick_it_up(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    events = _events(server)
    try:
        before = server_counts(server, name)
        report = await skills.run("mine", block="oak_log", count=2)
        assert report.status == "success" and report.completed == 2, report
        assert [(b.block, b.count) for b in report.blocks_broken] == [("minecraft:oak_log", 2)]
        assert [(d.item, d.count) for d in report.drops_collected] == [("minecraft:oak_log", 2)]
        _agrees(report, before, server_counts(server, name))
        broken = [d["pos"] for ev, d in events if ev == "block_broken" and d.get("player") == name]
        assert len(broken) == 2 and all(server.block_at(*p) == "air" for p in broken)
        assert 0 < report.ticks_used <= skills.ctx.limits.tick_limits["mine"]
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_mine_stone_without_a_pickaxe_fails_and_breaks_nothing(server) -> None:
    body, skills, _ = await session(server)
    try:
        target = skills.ctx.find_blocks("minecraft:stone")[0]
        report = await skills.run("mine", block="stone")
        assert report.status == "failure" and report.reason == FailureReason.TOOL_TOO_WEAK
        assert report.blocks_broken == [] and report.drops_collected == [] and report.inventory_delta == {}
        assert server.block_at(*target) == "stone"
        missing = await skills.run("mine", block="diamond_block")
        assert missing.status == "failure" and missing.reason == FailureReason.NOT_FOUND
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_mine_stone_with_a_given_pickaxe_drops_cobblestone(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        server.give_item(name, "wooden_pickaxe", 1)
        await body.sleep(0.3)
        before = server_counts(server, name)
        report = await skills.run("mine", block="stone", count=2)
        assert report.status == "success" and report.completed == 2, report
        assert body.inventory.held_item_name() == "minecraft:wooden_pickaxe"  # the body equipped the tool
        assert [(d.item, d.count) for d in report.drops_collected] == [("minecraft:cobblestone", 2)]
        _agrees(report, before, server_counts(server, name))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_go_to_reaches_the_target_and_reports_unreachable(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        report = await skills.run("go_to", x=0, y=65, z=0)
        assert report.status == "success", report
        x, y, z = server.position(name)
        assert math.dist((x, z), (0.5, 0.5)) <= 1.6 and abs(y - 65) < 0.01
        blocked = await skills.run("go_to", x=0, y=-40, z=0)  # inside deepslate: no path
        assert blocked.status == "failure" and blocked.reason == FailureReason.UNREACHABLE
        far = await skills.run("go_to", x=5000, y=65, z=0)
        assert far.status == "failure" and far.reason == FailureReason.UNREACHABLE
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_explore_walks_the_asked_direction_and_any_fans_out(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        z0 = server.position(name)[2]
        report = await skills.run("explore", direction="north", distance=16)
        assert report.status == "success" and report.completed >= 8, report
        assert z0 - server.position(name)[2] >= 8  # north is -z
        assert SkillCall.create("explore", {"direction": "north"}).args["distance"] == 32
        # 'any': everything in view is seen; north, east and west hold as many never-visited columns, and
        # a tie keeps the last direction (never back south over the track: tests/skills/test_skills_explore.py)
        first = await skills.run("explore", distance=8)
        assert first.message.startswith("explored north"), first.message
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_collect_picks_up_dropped_items_and_reports_not_found(server) -> None:
    from mirrorcraft.rules.stack import Stack

    body, skills, _ = await session(server)
    name = body.config.username
    try:
        none = await skills.run("collect")
        assert none.status == "failure" and none.reason == FailureReason.NOT_FOUND
        x, y, z = server.position(name)
        server.game.items.spawn(Stack("minecraft:apple", 3), (x + 4.5, y + 0.5, z + 0.5))
        await body.sleep(0.8)
        before = server_counts(server, name)
        report = await skills.run("collect", item="apple")
        assert report.status == "success", report
        assert [(d.item, d.count) for d in report.drops_collected] == [("minecraft:apple", 3)]
        _agrees(report, before, server_counts(server, name))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_collect_digs_out_a_drop_in_a_one_high_gap(server) -> None:
    """A drop that slid into a one-high gap (under a ledge) cannot be walked onto: ``collect`` clears the
    one obstruction the body may (at most 2 blocks, in ``blocks_broken``) and picks it up."""
    from mirrorcraft.rules.stack import Stack

    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx - 14, fy + 8, fz - 14  # in the air: the stone mass is all ours
        _stone_mass(server, (cx, cy, cz), range(-3, 7), range(-3, 4), range(-2, 4))
        for dx in range(1, 7):  # a one-high gap east of the player, under a stone slab of ceiling
            for dz in range(-3, 4):
                server.set_block(cx + dx, cy + 1, cz + dz, "stone")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "stone_pickaxe", 1)
        await body.sleep(0.5)
        server.game.items.spawn(Stack("minecraft:apple", 2), (cx + 3.5, cy + 0.2, cz + 0.5))
        await body.sleep(0.8)
        before = server_counts(server, name)
        report = await skills.run("collect", item="apple")
        assert report.status == "success", report
        assert ("minecraft:apple", 2) in [(d.item, d.count) for d in report.drops_collected]
        broken = sum(b.count for b in report.blocks_broken)
        assert 1 <= broken <= 2 and server.block_at(cx + 2, cy + 1, cz) == "air", report.blocks_broken
        _agrees(report, before, server_counts(server, name))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_place_equip_and_wear(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    events = _events(server)
    try:
        missing = await skills.run("place", item="cobblestone", use="build")
        assert missing.status == "failure" and missing.reason == FailureReason.MISSING_ITEMS
        server.give_item(name, "cobblestone", 2)
        server.give_item(name, "iron_boots", 1)
        await body.sleep(0.3)
        report = await skills.run("place", item="cobblestone", use="build")
        assert report.status == "success", report
        placed = _placed_by(events, name)
        assert len(placed) == 1 and server.block_at(*placed[0]) == "cobblestone"
        assert report.inventory_delta == {"minecraft:cobblestone": -1}
        assert signature(SkillCall.create("place", {"item": "cobblestone", "use": "build"})) == (
            "place", "minecraft:cobblestone", "build")  # fmt: skip
        held = await skills.run("equip", item="cobblestone")
        assert held.status == "success"
        slots = server.inventory(name)
        assert slots.get(36 + server.player(name).inventory.held, ("", 0))[0] == "cobblestone"
        worn = await skills.run("equip", item="iron_boots")  # auto: armour goes on the feet
        assert worn.status == "success", worn
        assert server.inventory(name).get(8) == ("iron_boots", 1)
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_place_a_workstation_in_grass(server) -> None:
    """In a savanna every free spot may hold grass: placing replaces it, as vanilla does (it used to fail
    with "no free spot with solid ground")."""
    body, skills, _ = await session(server)
    name = body.config.username
    events = _events(server)
    try:
        fx, fy, fz = skills.ctx.feet()
        ring = [
            (fx + dx, fy + dy, fz + dz) for dx in range(-2, 3) for dz in range(-2, 3) for dy in (-1, 0, 1)
        ]
        for x, y, z in ring:  # a flat lawn: stone under the feet' level, grass at it, air above
            if (x, z) != (fx, fz):
                server.set_block(x, y, z, {-1: "stone", 0: "grass", 1: "air"}[y - fy])
        server.give_item(name, "crafting_table", 1)
        await body.sleep(0.3)
        report = await skills.run("place", item="crafting_table", use="workstation")
        assert report.status == "success", report
        placed = _placed_by(events, name)
        assert len(placed) == 1 and server.block_at(*placed[0]) == "crafting_table"
        assert placed[0][1] == fy  # it took a grass cell of the lawn
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_place_never_takes_the_players_last_exit(server) -> None:
    """In a corner with one free side, ``place`` puts the workstation elsewhere (a diagonal or two blocks
    away), never in the one cell the player could walk out through (a table and a furnace placed in the two
    free sides of a pit corner walled the player in)."""
    body, skills, _ = await session(server)
    name = body.config.username
    events = _events(server)
    try:
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx - 14, fy + 8, fz - 14  # in the air: the platform is all ours
        for dx in range(-3, 4):
            for dz in range(-3, 4):
                for dy in range(-1, 3):
                    server.set_block(cx + dx, cy + dy, cz + dz, "stone" if dy == -1 else "air")
        for dx, dz in ((-1, 0), (0, -1), (0, 1)):  # walls west, north and south: east is the one exit
            for dy in (0, 1):
                server.set_block(cx + dx, cy + dy, cz + dz, "stone")
        await _place_table_from(server, body, skills, (cx, cy, cz))
        placed = _placed_by(events, name)
        assert len(placed) == 1 and server.block_at(*placed[0]) == "crafting_table"
        assert placed[0] != (cx + 1, cy, cz) and server.block_at(cx + 1, cy, cz) == "air", placed
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_place_in_a_shaft_clears_one_block_for_the_workstation(server) -> None:
    """Walled in a one-wide shaft (no free spot within 2 blocks), ``place`` breaks the one block beside the
    feet (the body's one local obstruction), reports it in ``blocks_broken`` and places there."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx + 12, fy + 6, fz - 12  # in the air: the shaft is all ours
        for dx in range(-3, 4):
            for dz in range(-3, 4):
                for dy in range(-1, 3):
                    inside = (dx, dz) == (0, 0) and dy in (0, 1)
                    server.set_block(cx + dx, cy + dy, cz + dz, "air" if inside else "stone")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        await body.sleep(0.5)
        assert skills.ctx.feet() == (cx, cy, cz)
        server.give_item(name, "crafting_table", 1)
        server.give_item(name, "stone_pickaxe", 1)
        await body.sleep(0.3)
        report = await skills.run("place", item="crafting_table", use="workstation")
        assert report.status == "success", report
        assert [(b.block, b.count) for b in report.blocks_broken] == [("minecraft:stone", 1)]
        beside = [(cx + dx, cy, cz + dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        assert sorted(server.block_at(*c) for c in beside) == ["crafting_table", "stone", "stone", "stone"]
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_place_in_a_sunken_pond_puts_the_workstation_into_the_water(server) -> None:
    """Standing in a pond sunk in rock (no dry spot within 2 blocks, nothing solid beside the feet to clear),
    ``place`` puts the table into a water cell beside the player, as vanilla allows (water is replaceable),
    and breaks nothing. The taiga-2 catalogue run stopped here: cane cut from a pond three blocks below
    the land, and every ``place`` failed."""
    body, skills, _ = await session(server)
    name = body.config.username
    events = _events(server)
    try:
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx + 14, fy + 8, fz + 14  # in the air: the pit is all ours
        for dx in range(-3, 4):
            for dz in range(-3, 4):
                for dy in range(-1, 3):
                    inner = abs(dx) <= 1 and abs(dz) <= 1 and dy >= 0
                    block = "stone" if not inner else ("water" if dy == 0 else "air")
                    server.set_block(cx + dx, cy + dy, cz + dz, block)
        report = await _place_table_from(server, body, skills, (cx, cy, cz))
        assert report.blocks_broken == []
        placed = _placed_by(events, name)
        assert len(placed) == 1 and server.block_at(*placed[0]) == "crafting_table", placed
        px, py, pz = placed[0]
        assert py == cy and max(abs(px - cx), abs(pz - cz)) == 1, placed  # one of the pond's water cells
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_mine_digs_its_way_to_a_buried_block(server) -> None:
    """A block with no walkable spot in reach (inside a solid stone mass) is reached by a bounded staircase
    dug by ``mine`` itself, as Mineflayer's collectBlock does; every block cleared is in ``blocks_broken``."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        assert skills.ctx.find_blocks("minecraft:lapis_block") == []
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx - 14, fy + 8, fz + 14  # in the air: the stone mass is all ours
        _stone_mass(server, (cx, cy, cz), range(-3, 14), range(-5, 6), range(-9, 3))
        ore = (cx + 5, cy - 5, cz)
        server.set_block(*ore, "lapis_block")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "stone_pickaxe", 1)
        await body.sleep(0.5)
        assert skills.ctx.feet() == (cx, cy, cz) and not skills.ctx.in_reach(ore)
        before = server_counts(server, name)
        report = await skills.run("mine", block="lapis_block")
        assert report.status == "success" and report.completed == 1, report
        assert server.block_at(*ore) == "air"
        assert ("minecraft:lapis_block", 1) in [(d.item, d.count) for d in report.drops_collected]
        stone = sum(b.count for b in report.blocks_broken if b.block == "minecraft:stone")
        # at most the dig budget plus the final tunnel (three blocks a step)
        assert 3 <= stone <= MINE_DIG_BLOCKS + 3 * MAX_TUNNEL_STEPS, report.blocks_broken
        assert server.position(name)[1] < cy - 1  # it went down into the mass
        _agrees(report, before, server_counts(server, name))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_mine_digs_to_ore_in_rock_before_swimming_to_ore_under_water(server) -> None:
    """With no block of the type open to the air, one sealed in the rock within dig reach is mined before
    one open only to a pond, even a shallow one: pond floors are where the body swims and often cannot
    reach (savanna-2 Diamond M01 swam to pond-bottom iron call after call while iron lay in the rock)."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        assert skills.ctx.find_blocks("minecraft:emerald_block") == []
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx + 14, fy + 8, fz - 14  # in the air: the stone mass is all ours
        _stone_mass(server, (cx, cy, cz), range(-9, 6), range(-4, 5), range(-7, 3))
        for dx in range(-7, -4):  # a pond, its floor of emerald open only to the water
            for dz in range(-1, 2):
                server.set_block(cx + dx, cy - 1, cz + dz, "water")
        pond = (cx - 6, cy - 2, cz)
        rock = (cx + 4, cy - 3, cz)
        server.set_block(*pond, "emerald_block")
        server.set_block(*rock, "emerald_block")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "iron_pickaxe", 1)
        await body.sleep(0.5)
        assert skills.ctx.feet() == (cx, cy, cz)
        assert skills.ctx.exposed_among([pond, rock]) == [pond]  # open to the water only
        report = await skills.run("mine", block="emerald_block", count=1)
        assert report.status == "success" and report.completed == 1, report
        assert server.block_at(*rock) == "air" and server.block_at(*pond) == "emerald_block"
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_mine_leaves_a_block_whose_drop_would_stay_on_a_ledge(server) -> None:
    """A block set in a wall above the player's reach of pickup (three up, solid below it) would keep its
    drop on a ledge: ``mine`` takes a block whose drop it can pick up instead (savanna-1 and taiga-2
    Enchantment mined six coal ores in a row whose coal stayed in the wall)."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        assert skills.ctx.find_blocks("minecraft:gold_block") == []
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx - 14, fy + 8, fz + 28  # in the air: the stone mass is all ours
        for dx in range(-7, 6):
            for dz in range(-3, 4):
                for dy in range(-2, 6):
                    wall = dx >= 3 and dy <= 4
                    server.set_block(cx + dx, cy + dy, cz + dz, "stone" if dy < 0 or wall else "air")
        ledge = (cx + 3, cy + 3, cz)  # in the wall, its face to the player; stone under and over it
        floor = (cx - 5, cy, cz)  # standing free on the floor
        server.set_block(*ledge, "gold_block")
        server.set_block(*floor, "gold_block")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "iron_pickaxe", 1)
        await body.sleep(0.5)
        assert skills.ctx.feet() == (cx, cy, cz) and skills.ctx.in_reach(ledge)
        before = server_counts(server, name)
        report = await skills.run("mine", block="gold_block", count=1)
        assert report.status == "success" and report.completed == 1, report
        assert server.block_at(*ledge) == "gold_block" and server.block_at(*floor) == "air"
        assert [(d.item, d.count) for d in report.drops_collected] == [("minecraft:gold_block", 1)]
        _agrees(report, before, server_counts(server, name))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_route_search_does_not_dig_down_where_it_dug_before(server) -> None:
    """A route's search for a block never starts a staircase beside one it started for that block before
    (it would walk down the same steps to the same searched rock): it explores a spiral leg first and digs
    from where that ends."""
    body, skills, _ = await session(server)
    try:
        runner = RouteRunner(skills, "vanilla", budget=8)
        feet = skills.ctx.feet()
        runner.shafts.append(("stone", (feet[0] + 2, feet[1] - 1, feet[2] - 1)))
        await runner.search("minecraft:stone")
        calls = [(r.skill, r.status) for _, r in runner.calls]
        assert calls[0] == ("explore", "success") and calls[-1][0] == "dig_down", calls
        block, start = runner.shafts[-1]
        assert block == "stone" and max(abs(start[0] - feet[0]), abs(start[2] - feet[2])) > SHAFT_SPACING
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_dig_down_descends_by_a_staircase(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        await skills.run("go_to", x=2, y=65, z=4)
        y0 = server.position(name)[1]
        report = await skills.run("dig_down", target_y=int(y0) - 3)
        assert report.status == "success" and report.completed == 3, report
        assert server.position(name)[1] <= y0 - 3 + 0.01
        assert sum(b.count for b in report.blocks_broken) >= 3
        again = await skills.run("dig_down", target_y=int(server.position(name)[1]) + 5)
        assert again.status == "failure"
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_dig_down_goes_around_slow_blocks_and_workstations(server) -> None:
    """A staircase step is never dug through the player's workstation or a block too slow to break with the
    tools carried (obsidian without a diamond pickaxe): it takes the one free direction, clearing what is
    there with the fastest tool (drops or not); with none it fails at once, unreachable, instead of spending
    its whole limit on one block."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fx, fy, fz = skills.ctx.feet()
        cx, cy, cz = fx + 14, fy + 8, fz - 14  # in the air: the stone mass is all ours
        _stone_mass(server, (cx, cy, cz), range(-4, 5), range(-4, 5), range(-6, 3))
        # north: obsidian under the step; east: a crafting table at feet level; south: obsidian at head
        for dy in (-1, -2, -3):
            server.set_block(cx, cy + dy, cz - 1, "obsidian")
        server.set_block(cx + 1, cy, cz, "crafting_table")
        server.set_block(cx, cy + 1, cz + 1, "obsidian")
        # west: gold ore, which a stone pickaxe cannot harvest but clears in 75 ticks (the hand: 300)
        server.set_block(cx - 1, cy, cz, "gold_ore")
        server.teleport(name, cx + 0.5, cy, cz + 0.5)
        server.give_item(name, "stone_pickaxe", 1)
        await body.sleep(0.5)
        assert skills.ctx.feet() == (cx, cy, cz)
        report = await skills.run("dig_down", target_y=cy - 1)
        assert report.status == "success" and report.completed == 1, report
        assert {b.block for b in report.blocks_broken} == {"minecraft:stone", "minecraft:gold_ore"}, report
        assert server.position(name)[0] < cx  # the west step, the only one left
        assert report.ticks_used < 300, report.ticks_used  # the gold ore went with the pickaxe
        assert server.block_at(cx + 1, cy, cz) == "crafting_table"
        assert (
            server.block_at(cx, cy - 1, cz - 1) == "obsidian"
            and server.block_at(cx, cy + 1, cz + 1) == "obsidian"
        )
        # walled in by obsidian on all four sides: no step at all, and no time spent on obsidian
        x, y, z = skills.ctx.feet()
        for ddx, ddz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            for dy in (-1, 0, 1):
                server.set_block(x + ddx, y + dy, z + ddz, "obsidian")
        await body.sleep(0.3)
        walled = await skills.run("dig_down", target_y=y - 1)
        assert walled.status == "failure" and walled.reason == FailureReason.UNREACHABLE, walled
        assert walled.blocks_broken == [] and walled.ticks_used < 100, walled
        assert walled.message.count("minecraft:obsidian not dug") == 4, walled.message  # why, per direction
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_recover_leaves_the_water_and_refuses_when_not_stuck(server, sandbox) -> None:
    from support.skills_support import sandbox_info

    body, skills, _ = await session(server)
    name = body.config.username
    try:
        fine = await skills.run("recover")
        assert fine.status == "failure" and fine.reason == FailureReason.OTHER
        x0, z0, x1, z1 = sandbox_info(sandbox)["pool"]
        server.teleport(name, (x0 + x1) / 2 + 0.5, 63.0, (z0 + z1) / 2 + 0.5)  # into the pool
        await body.sleep(1.0)
        report = await skills.run("recover")
        assert report.status == "success", report
        x, y, z = server.position(name)
        assert server.block_at(math.floor(x), math.floor(y), math.floor(z)) != "water"
        assert server.block_at(math.floor(x), math.floor(y) - 1, math.floor(z)) not in ("water", "air")
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_eat_attack_and_workstation_skills_fail_cleanly_without_their_means(server) -> None:
    body, skills, _ = await session(server)
    try:
        eat = await skills.run("eat")
        assert eat.status == "failure" and eat.reason == FailureReason.MISSING_ITEMS
        smelt = await skills.run("smelt", input="raw_iron", fuel="coal")
        assert smelt.status == "failure" and smelt.reason == FailureReason.MISSING_ITEMS
        server.give_item(body.config.username, "raw_iron", 1)
        server.give_item(body.config.username, "coal", 1)
        await body.sleep(0.3)
        smelt = await skills.run("smelt", input="raw_iron", fuel="coal")
        assert smelt.status == "failure" and smelt.reason == FailureReason.NO_WORKSTATION
        enchant = await skills.run("enchant", item="raw_iron")
        assert enchant.status == "failure" and enchant.reason == FailureReason.NOT_ENOUGH_LEVELS  # no lapis
        craft = await skills.run("craft_grid", workstation="crafting_table", grid=[["raw_iron"] * 3] * 3)
        assert craft.status == "failure" and craft.reason == FailureReason.MISSING_ITEMS
        wolf = await skills.run("attack", mob="wolf")
        assert wolf.status == "failure" and wolf.reason == FailureReason.NOT_FOUND
        assert all(r.inventory_delta == {} for r in (eat, smelt, enchant, craft, wolf))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_craft_grid_in_the_inventory_takes_what_the_result_slot_offers(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        server.give_item(name, "oak_log", 2)
        await body.sleep(0.3)
        before = server_counts(server, name)
        report = await skills.run(
            "craft_grid", workstation="inventory", grid=[["oak_log", None], [None, None]], count=2
        )
        after = server_counts(server, name)
        _agrees(report, before, after)
        assert all(i not in server.inventory(name) for i in range(1, 5))  # grid emptied
        assert report.status == "success" and report.completed == 2, report
        assert [(p.item, p.count) for p in report.produced] == [
            ("minecraft:oak_planks", 8)
        ]  # vanilla 4 per log
        empty = await skills.run(
            "craft_grid", workstation="inventory", grid=[["oak_planks", None], [None, "oak_planks"]]
        )
        assert empty.status == "failure" and empty.reason == FailureReason.NO_OUTPUT  # no such recipe
        assert empty.inventory_delta == {} and all(i not in server.inventory(name) for i in range(1, 5))
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_table_furnace_and_enchanting_table_end_to_end(server) -> None:
    """Place the stations, craft at the table, smelt in the furnace, enchant: all through windows."""
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        for item, n in (("oak_planks", 5), ("crafting_table", 1), ("furnace", 1), ("raw_iron", 1), ("coal", 1),
                        ("enchanting_table", 1), ("lapis_lazuli", 2)):  # fmt: skip
            server.give_item(name, item, n)
        await body.sleep(0.3)
        assert (await skills.run("place", item="crafting_table")).status == "success"
        before = server_counts(server, name)
        sticks = await skills.run(
            "craft_grid",
            workstation="crafting_table",
            grid=[["oak_planks", None, None], ["oak_planks", None, None], [None] * 3],
        )
        assert sticks.status == "success" and [(p.item, p.count) for p in sticks.produced] == [
            ("minecraft:stick", 4)
        ]
        pick = await skills.run(
            "craft_grid",
            workstation="crafting_table",
            grid=[["oak_planks"] * 3, [None, "stick", None], [None, "stick", None]],
        )
        assert pick.status == "success" and pick.produced[0].item == "minecraft:wooden_pickaxe", pick
        after = server_counts(server, name)
        assert after.get("minecraft:wooden_pickaxe") == 1 and before.get("minecraft:wooden_pickaxe") is None
        assert (await skills.run("place", item="furnace")).status == "success"
        before = server_counts(server, name)
        smelt = await skills.run("smelt", input="raw_iron", fuel="coal", count=1)
        assert smelt.status == "success" and [(p.item, p.count) for p in smelt.produced] == [
            ("minecraft:iron_ingot", 1)
        ]
        _agrees(smelt, before, server_counts(server, name))
        assert (await skills.run("place", item="enchanting_table")).status == "success"
        ench = await skills.run("enchant", item="wooden_pickaxe", option=1)
        assert ench.status == "success", ench
        assert ench.inventory_delta == {"minecraft:lapis_lazuli": -1}
        # the server keeps the enchantment NBT on its stack (its window-0 resync does not send NBT yet)
        stacks = [s for s in server.player(name).inventory.slots if s and s.nbt is not None]
        assert len(stacks) == 1 and "Enchantments" in stacks[0].nbt
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_attack_a_cow_and_collect_its_loot(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        cows = [e for e in body.entities.by_id.values() if e.type == "minecraft:cow"]
        assert cows, "the sandbox's cows are spawned by the server"
        before = server_counts(server, name)
        report = await skills.run("attack", mob="cow", count=1)
        assert report.status == "success" and report.completed == 1, report
        _agrees(report, before, server_counts(server, name))
        got = {d.item for d in report.drops_collected}
        assert got and got <= {"minecraft:beef", "minecraft:leather"}
        server.give_item(name, "bread", 1)
        await body.sleep(0.3)
        full = await skills.run("eat")
        assert (
            full.status == "failure" and full.reason == FailureReason.OTHER and "not hungry" in full.message
        )
        assert full.inventory_delta == {}
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_observation_bytes_are_deterministic_and_track_the_state(server) -> None:
    body, skills, builder = await session(
        server, task=__import__("mirrorcraft.contracts").contracts.TaskId.DIAMOND
    )
    try:
        history = ActionHistory()
        a = builder.serialize(history)
        assert a == builder.serialize(history)  # same state, same bytes
        obs = builder.build(history)
        assert obs.biome == "minecraft:plains" and obs.task.budget == 50
        assert obs.task.next_milestone == "minecraft:story/mine_stone"
        assert any(b.block == "minecraft:grass_block" for b in obs.nearby_blocks)
        call = SkillCall.create("mine", {"block": "stone"})
        report, sigma = await skills.execute(call)
        history.record(call, report)
        b = builder.serialize(history)
        assert b == builder.serialize(history) and a != b
        obs = builder.build(history)
        assert obs.last_result is not None and obs.last_result.report.reason == FailureReason.TOOL_TOO_WEAK
        assert [(c.signature, c.reason) for c in obs.failure_constraints] == [
            (sigma, FailureReason.TOOL_TOO_WEAK)
        ]
    finally:
        await body.disconnect()
