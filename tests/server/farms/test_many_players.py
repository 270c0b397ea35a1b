"""Several agents on one server: four players plus two server-side judge players in one Dash & Dine episode,
each with its own inventory, window and food state — in-process (the fake players a scenario's judges will
be) and over real sockets (four of our bodies, driven through their low-level API, beside two judges)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest_twisted
from support.fakeplayer import FakePlayer, click, join, new_game, use_block
from twisted.internet import defer, task

from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.protocol.serverbound import UseEntity
from mirrorcraft.rules.stack import Stack

TEAMS = {
    "Ryn": (-5.5, -60.0, -9.5),
    "Raze": (-5.5, -60.0, -7.5),
    "Byte": (-5.5, -60.0, 6.5),
    "Blink": (-5.5, -60.0, 8.5),
}
JUDGES = {"Red_Server": (-0.5, -60.0, -8.5), "Blue_Server": (-0.5, -60.0, 7.5)}
BOWLS, BUCKETS, TABLE, FURNACE = (-3, -59, -1), (-7, -60, -7), (-11, -59, 0), (2, -59, -1)


def test_four_players_and_two_judges_keep_their_own_state(arena) -> None:  # noqa: ANN001
    game = new_game(arena("dash_and_dine"), episode_seed=4)
    players = {n: join(game, FakePlayer(n), pos) for n, pos in TEAMS.items()}
    judges = {n: join(game, FakePlayer(n), pos) for n, pos in JUDGES.items()}
    for j in judges.values():
        game.admin.set_game_mode(j, "creative")
    assert len(game.players) == 6
    opened = {"Ryn": (BOWLS, (-3.5, -60.0, -2.5)), "Raze": (TABLE, (-9.5, -60.0, 0.5)),
              "Byte": (FURNACE, (0.5, -60.0, -1.5)), "Blink": (BUCKETS, (-8.5, -60.0, -6.5))}  # fmt: skip
    for n, (pos, stand) in opened.items():
        players[n].pos = list(stand)
        use_block(game, players[n], pos, face=1)
    kinds = {n: game.windows.menu_of(p).kind for n, p in players.items()}
    assert kinds == {"Ryn": "chest", "Raze": "crafting", "Byte": "furnace", "Blink": "chest"}
    click(game, players["Ryn"], game.windows.menu_of(players["Ryn"]).window_id, 0, mode=1)  # shift: the bowls
    click(game, players["Blink"], game.windows.menu_of(players["Blink"]).window_id, 0, mode=1)  # the buckets
    held = {n: {s.item: s.count for s in p.inventory.slots if s} for n, p in players.items()}
    assert held["Ryn"] == {"minecraft:bowl": 64} and held["Blink"] == {"minecraft:bucket": 16}
    assert held["Raze"] == {} and held["Byte"] == {}
    assert game.chests.chest_at(BOWLS).contents() == {} and game.chests.chest_at(BUCKETS).contents() == {}
    game.windows.close(players["Raze"], game.windows.menu_of(players["Raze"]).window_id)
    assert game.windows.menu_of(players["Raze"]) is None and game.windows.menu_of(players["Ryn"]) is not None
    # a judge picks up what is thrown to it; nobody else does
    game.items.spawn(Stack("minecraft:bread", 3), JUDGES["Red_Server"])
    for _ in range(15):
        game.tick()
    assert {s.item: s.count for s in judges["Red_Server"].inventory.slots if s} == {"minecraft:bread": 3}
    assert all(
        not any(s and s.item == "minecraft:bread" for s in p.inventory.slots) for p in players.values()
    )
    # food is per player
    game.food.state(players["Byte"]).food = 3
    assert [game.food.state(p).food for p in players.values()] == [20, 20, 3, 20]


@pytest_twisted.ensureDeferred
async def test_four_real_clients_and_two_judges_on_one_server(arena_saves: Path, tmp_path: Path) -> None:
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    world = tmp_path / "world"
    shutil.copytree(arena_saves / "arenas" / "dash_and_dine" / "original", world)
    server = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=20, view_distance=3, episode_seed=5))
    server.start()
    bodies = {n: Body(BodyConfig(port=server.port, username=n, view_distance=3)) for n in TEAMS}
    try:
        await defer.gatherResults([defer.ensureDeferred(b.connect()) for b in bodies.values()])
        game = server.game
        for n, pos in JUDGES.items():  # server-side judge players beside the four clients
            game.admin.set_game_mode(join(game, FakePlayer(n, strict=False), pos), "creative")
        assert server.player_names() == sorted([*TEAMS, *JUDGES])
        for n, pos in TEAMS.items():
            server.teleport(n, *pos)
        for k, n in enumerate(TEAMS):
            server.give_item(n, "minecraft:bucket" if n == "Ryn" else "minecraft:bread", k + 1)
        await task.deferLater(server_reactor(), 0.5, lambda: None)
        for k, (n, b) in enumerate(bodies.items()):
            assert b.inventory.contents() == {
                "minecraft:bucket" if n == "Ryn" else "minecraft:bread": k + 1
            }, n
            assert b.movement.position is not None and abs(b.movement.position[2] - TEAMS[n][2]) < 0.01
        ryn = bodies["Ryn"]
        cow = next(iter(game.mobs.cows.values()))
        server.teleport("Ryn", cow.pos[0] + 1.5, -60.0, cow.pos[2])
        await task.deferLater(server_reactor(), 0.3, lambda: None)
        seen = [e for e in ryn.entities.by_id.values() if e.type == "minecraft:cow"]
        assert len(seen) == 1 and seen[0].id == cow.eid  # every client sees the arena's animals
        ryn.conn.send(UseEntity(target=cow.eid, mouse=0, hand=0, sneaking=False))  # milk it, low level
        await task.deferLater(server_reactor(), 0.5, lambda: None)
        assert ryn.inventory.contents() == {"minecraft:milk_bucket": 1}
        assert server.inventory("Raze") == {36: ("bread", 2)}  # the others are untouched
    finally:
        await defer.gatherResults([defer.ensureDeferred(b.disconnect()) for b in bodies.values()])
        await defer.maybeDeferred(server.stop)


def server_reactor():  # noqa: ANN201 - the running reactor (pytest-twisted's)
    from twisted.internet import reactor

    return reactor
