"""Natural passive-mob (cow) spawning on the embedded server, driven through ``Game.tick`` on a real sandbox
world: spawns happen only every 400 ticks, only while ``doMobSpawning`` is true (changed live), only on
valid spots (checked here against the save's own blocks and stored sky light, not through the spawner's
helpers), never within 24 blocks of a player or the world spawn, up to the creature cap; the same seeds
spawn the same cows; spawned cows behave like saved ones; and the spawn packets reach our body and
Mineflayer over a real connection.
"""

from __future__ import annotations

import math
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.fakeplayer import FakePlayer, join, new_game
from twisted.internet import defer

from mirrorcraft.contracts.episodes import Controls
from mirrorcraft.harness.evaluators import EmbeddedEvaluator
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.features.mobs import NO_ACTION_IDLE
from mirrorcraft.server.features.spawning import (
    CAP_CHUNKS,
    COUNTER_RADIUS,
    CREATURE_CAP,
    MAX_CLUSTER,
    SPAWN_INTERVAL,
    mob_cap,
)
from mirrorcraft.server.game import Game
from mirrorcraft.server.kernel.world import MIN_Y


def _game(world: Path, **kw: Any) -> Game:
    """A game with the harness's evaluator listening (``game.evaluator``, set here for the tests)."""
    game = new_game(world, **kw)
    game.evaluator = EmbeddedEvaluator.attach(game)  # type: ignore[attr-defined]
    return game


def _join(game: Game, pos: tuple[float, float, float], name: str = "alex") -> FakePlayer:
    return join(game, FakePlayer(name), pos)


def _at_spawn(game: Game, info: dict[str, Any]) -> FakePlayer:
    sx, sy, sz = info["spawn"]
    return _join(game, (sx + 0.5, float(sy), sz + 0.5))


def _living(game: Game) -> int:
    return sum(1 for c in game.mobs.cows.values() if c.dead_for < 0)


Pos = tuple[float, float, float]


def _run_cycles(
    game: Game, cycles: int, before: list[list[Pos]] | None = None
) -> list[tuple[int, list[tuple[int, Pos]]]]:
    """Tick the game ``cycles`` x 400 times; per spawn event: (tick, [(eid, spawn position)]). ``before``
    receives, per event, the positions of the living cows that were there before the cycle."""
    log: list[tuple[int, list[tuple[int, Pos]]]] = []
    known = set(game.mobs.cows)

    def on_event(event: str, data: dict) -> None:
        if event != "mobs_spawned":
            return
        cows = game.mobs.cows
        new = [(eid, tuple(c.pos)) for eid, c in cows.items() if eid not in known]
        if before is not None:
            before.append([tuple(c.pos) for eid, c in cows.items() if eid in known and c.dead_for < 0])
        known.update(eid for eid, _ in new)
        assert len(new) == data["count"] and data["entity"] == "minecraft:cow"
        log.append((data["tick"], new))  # type: ignore[arg-type]

    game.subscribe(on_event)
    try:
        for _ in range(cycles * SPAWN_INTERVAL):
            game.tick()
    finally:
        game.events.unsubscribe(on_event)
    return log


def _check_spot(game: Game, pos: tuple[float, float, float], players: list[FakePlayer]) -> None:
    """A spawn spot, checked against the world's blocks and the save's stored sky light."""
    world = game.world
    x, y, z = math.floor(pos[0]), int(pos[1]), math.floor(pos[2])
    assert (pos[0] - x, pos[2] - z) == (0.5, 0.5) and pos[1] == y, pos
    assert facts.block_name(world.get_block(x, y - 1, z)) == "grass_block", pos
    for dy in (0, 1):  # feet and head: no collision box, no fluid (cow box is 1.4 high)
        state = world.get_block(x, y + dy, z)
        assert facts.collision_boxes(state) == () and facts.block_name(state) not in ("water", "lava"), pos
    col = world.column(x >> 4, z >> 4)
    assert col.sky is not None  # the sandbox stores its light: the check is independent of the spawner
    assert int(col.sky[y - MIN_Y, z & 15, x & 15]) >= 9, pos
    for p in players:
        assert math.dist(p.pos, pos) > 24.0, (pos, p.pos)
    sx, sy, sz = world.level.spawn
    assert math.dist((sx + 0.5, sy + 0.5, sz + 0.5), pos) >= 24.0, pos
    assert world.inside_border(pos[0] - 0.45, pos[2] - 0.45) and world.inside_border(
        pos[0] + 0.45, pos[2] + 0.45
    )


def test_cows_spawn_every_400_ticks_on_valid_spots_up_to_the_cap(world: Path, sandbox_info) -> None:
    game = _game(world)
    assert game.admin.difficulty == "peaceful" and game.admin.game_rules["doMobSpawning"] is True
    p = _at_spawn(game, sandbox_info)
    start = _living(game)
    assert start == len(sandbox_info["cows"])
    # one player: 17 x 17 chunks around it are counted, so the cap is vanilla's 10
    cap = mob_cap((2 * COUNTER_RADIUS + 1) ** 2)
    assert cap == CREATURE_CAP * (2 * COUNTER_RADIUS + 1) ** 2 // CAP_CHUNKS

    log = _run_cycles(game, 12)
    assert log, "no cow spawned in 12 spawn cycles"
    spawned = [c for _, group in log for c in group]
    for tick, group in log:
        assert tick % SPAWN_INTERVAL == 0  # creatures only every 400 ticks
        assert group
        for _, pos in group:
            _check_spot(game, pos, [p])
    # The cap: a cycle only starts a chunk while fewer than ``cap`` cows are counted, and one chunk adds at
    # most one cluster (4), so the total never exceeds cap + 3; once at the cap nothing more spawns.
    total = start
    for _, group in log:
        assert total < cap, f"spawned with {total} cows counted (cap {cap})"
        total += len(group)
    assert total == _living(game) <= cap + MAX_CLUSTER - 1
    assert total >= cap, f"only {total} cows after 12 cycles: the cap was never reached"
    # The client saw every spawned cow: spawn_object with the cow type at the spawn position.
    cow_type = facts.entity_type("cow")
    seen = {q.entity_id: (q.x, q.y, q.z) for q in p.packets("spawn_object") if q.type == cow_type}
    for eid, pos in spawned:
        assert seen[eid] == pytest.approx(pos)


def test_two_players_raise_the_cap_and_the_local_cap_holds(world: Path, sandbox_info) -> None:
    game = _game(world)
    # opposite corners of the sandbox: their 17 x 17 chunk squares overlap in 9 x 9 chunks
    a = _join(game, (-55.5, 65.0, -55.5), "a")
    b = _join(game, (71.5, 65.0, 71.5), "b")
    cap = mob_cap(2 * 17 * 17 - 9 * 9)
    before: list[list[Pos]] = []
    log = _run_cycles(game, 20, before)
    assert log
    for (_, group), old in zip(log, before, strict=True):
        assert len(old) < cap
        for _, pos in group:
            _check_spot(game, pos, [a, b])
        # local cap: some player had fewer than 10 cows in chunks whose centre is within 128 blocks of it
        local = [
            sum(
                1
                for c in old
                if (p.pos[0] - ((math.floor(c[0]) >> 4) * 16 + 8)) ** 2
                + (p.pos[2] - ((math.floor(c[2]) >> 4) * 16 + 8)) ** 2
                < 128.0**2
            )
            for p in (a, b)
        ]
        assert min(local) < CREATURE_CAP, local
    total = _living(game)
    assert total <= cap + MAX_CLUSTER - 1
    # more than one player's cap (10, at most 13 with the last cluster) fits in the larger area
    assert total > CREATURE_CAP + MAX_CLUSTER - 1, total


def test_skipped_ticks_still_run_one_cycle_per_boundary(world: Path, sandbox_info) -> None:
    game = _game(world)
    _at_spawn(game, sandbox_info)
    game.kernel.clock.count = 350
    game.kernel.clock.advance(101)  # the reactor fell behind: 100 ticks counted, then one run (tick 451)
    assert game.tick_count == 451 and game.spawning.cycles == 1
    game.kernel.clock.advance(1)
    assert game.spawning.cycles == 1


def test_do_mob_spawning_is_read_live(world: Path, sandbox_info) -> None:
    game = _game(world)
    _at_spawn(game, sandbox_info)
    start = _living(game)
    game.admin.set_game_rule("doMobSpawning", False)
    assert _run_cycles(game, 6) == [] and _living(game) == start
    assert game.spawning.cycles == 0
    game.admin.set_game_rule("doMobSpawning", True)
    log = _run_cycles(game, 12)
    assert game.spawning.cycles == 12
    assert log and _living(game) > start


def test_do_mob_spawning_false_in_the_controls(world: Path, sandbox_info) -> None:
    game = _game(world, controls=Controls(game_rules={"doMobSpawning": False}))
    _at_spawn(game, sandbox_info)
    assert _run_cycles(game, 6) == [] and game.spawning.spawned == 0


def test_same_seeds_spawn_identically(
    world: Path, sandbox_template: Path, sandbox_info, tmp_path: Path
) -> None:
    runs = []
    for i, seed in enumerate((2, 2, 3)):
        w = world if i == 0 else tmp_path / f"copy{i}"
        if i:
            shutil.copytree(sandbox_template, w)
        game = _game(w, episode_seed=seed)
        _at_spawn(game, sandbox_info)
        log = _run_cycles(game, 8)
        runs.append([(tick, [(pos, game.mobs.cows[eid].uuid) for eid, pos in group]) for tick, group in log])
    assert runs[0], "seed 2 spawned nothing in 8 cycles"
    assert runs[0] == runs[1]
    assert runs[2] != runs[0]


def test_spawned_cow_wanders_is_hit_dies_and_drops_loot(world: Path, sandbox_info) -> None:
    game = _game(world)
    _at_spawn(game, sandbox_info)
    log = _run_cycles(game, 12)
    assert log
    eid, pos = log[0][1][0]
    cow = game.mobs.cows[eid]
    # a player within 32 blocks keeps it active (vanilla noActionTime; spawns are 24+ blocks away)
    hunter = _join(game, (pos[0] + 8.0, pos[1], pos[2]), name="steve")
    for _ in range(600):  # strolls start with chance 1/120 per tick
        game.tick()
    assert math.dist(cow.pos, pos) > 1.0, "the spawned cow never wandered"
    hunter.inventory.slots[36] = Stack("minecraft:diamond_sword", 1)
    for _ in range(5):
        if cow.health <= 0:
            break
        hunter.pos = [cow.pos[0] + 1.5, cow.pos[1], cow.pos[2]]
        assert game.mobs.attack(hunter, eid)
        for _ in range(11):  # past the invulnerability window
            game.tick()
    assert cow.health == 0
    kills = [e for e in game.evaluator.events() if e.kind == "kill"]
    assert kills and kills[-1].detail["entity"] == "minecraft:cow"
    # its loot table (1-3 beef, always) popped out as items, or is already in the hunter's inventory
    beef = "minecraft:beef"
    dropped = sum(it.count for it in game.kernel.items.values() if it.item == beef)
    held = sum(s.count for s in hunter.inventory.slots if s and s.item == beef)
    assert 1 <= dropped + held <= 3
    for _ in range(25):
        game.tick()
    assert eid not in game.mobs.cows
    assert any(q.entity_ids == [eid] for q in hunter.packets("destroy_entities"))


def _start_server(sandbox_template: Path, tmp_path: Path) -> Any:
    from mirrorcraft.server.embedded import EmbeddedServer

    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    server = EmbeddedServer(
        ServerConfig(world=world, port=0, tick_rate=200, view_distance=4, episode_seed=10)
    )
    server.start()
    return server


async def _first_spawn(game: Game, timeout: float = 60.0) -> dict[int, Any]:
    """Wait (at the server's accelerated rate) for the first spawn cycle that spawned cows; the new cows."""
    from twisted.internet import reactor

    known = set(game.mobs.cows)
    spawned: defer.Deferred = defer.Deferred()

    def on_event(event: str, data: dict) -> None:
        if event == "mobs_spawned" and not spawned.called:
            spawned.callback(data)

    game.subscribe(on_event)
    spawned.addTimeout(timeout, reactor)
    try:
        await spawned
    finally:
        game.events.unsubscribe(on_event)
    return {eid: c for eid, c in game.mobs.cows.items() if eid not in known}


@pytest_twisted.ensureDeferred
async def test_spawned_cows_reach_the_body(sandbox_template: Path, tmp_path: Path) -> None:
    from mirrorcraft.mcproto_body import Body, BodyConfig

    server = _start_server(sandbox_template, tmp_path)
    body = Body(BodyConfig(port=server.port, username="herder", view_distance=4))
    try:
        await body.connect()
        assert await body.wait_chunks(radius=2, timeout=20)
        new = await _first_spawn(server.game)
        await body.sleep(0.3)
        assert new
        me = body.movement.position
        for eid, cow in new.items():
            seen = body.entities.by_id.get(eid)
            assert seen is not None and seen.type == "minecraft:cow", eid
            assert seen.uuid == cow.uuid
            assert math.dist(seen.position, cow.pos) < 1.5  # cows walk 0.1 block per tick
            assert math.dist(seen.position, me) > 20.0
    finally:
        await body.disconnect()
        await defer.maybeDeferred(server.stop)


@pytest_twisted.ensureDeferred
async def test_spawned_cows_reach_mineflayer(sandbox_template: Path, tmp_path: Path, spawn_bot2) -> None:
    from twisted.internet import reactor, task

    server = _start_server(sandbox_template, tmp_path)
    try:
        bot = await spawn_bot2(server.port, "drover")
        new = await _first_spawn(server.game)
        await task.deferLater(reactor, 0.3, lambda: None)
        assert new
        cows = {c["id"]: c["pos"] for c in (await bot.cmd("cows"))["cows"]}
        for eid, cow in new.items():
            assert eid in cows, (eid, sorted(cows))
            pos = cows[eid]
            assert math.dist((pos["x"], pos["y"], pos["z"]), cow.pos) < 1.5
    finally:
        await defer.maybeDeferred(server.stop)


def test_cows_far_from_every_player_stop_strolling(world: Path, sandbox_info) -> None:
    """Vanilla's noActionTime: a cow more than 32 blocks from every player starts no stroll after 100
    ticks; one within 32 blocks keeps strolling. Two cows on the same flat ground, one near, one far."""
    game = _game(world)
    player = _at_spawn(game, sandbox_info)
    mobs = game.mobs
    for cow in list(mobs.cows.values()):
        del mobs.animals[cow.eid]  # the animals registry (``cows`` is a filtered snapshot)
    px, py, pz = player.pos
    ground = [mobs._ground_y(px + dx, py, pz) for dx in (4.0, 40.0)]
    assert None not in ground, ground
    near = mobs.add_cow((px + 4.0, ground[0], pz), 0.0, uuid.UUID(int=1))
    far = mobs.add_cow((px + 40.0, ground[1], pz), 0.0, uuid.UUID(int=2))
    for _ in range(NO_ACTION_IDLE):
        game.tick()
    far.target, far.vel = None, [0.0, 0.0, 0.0]  # whatever it started in its first 100 ticks is over
    start_far, moved_near = list(far.pos), 0
    last_near = list(near.pos)
    for _ in range(1200):  # ten stroll intervals
        game.tick()
        moved_near += near.pos != last_near
        last_near = list(near.pos)
    assert far.no_action >= NO_ACTION_IDLE + 1200 and near.no_action == 0
    assert far.pos == start_far, "a cow 40 blocks from the only player kept strolling"
    assert moved_near > 0, "the cow beside the player never strolled"
