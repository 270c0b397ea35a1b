"""Server internals without a client: chunk packets decode back to the save, saves round-trip, loot drops are
seeded and deterministic, items fall and rest on the ground, impossible moves are refused.

A fake player (a real game-side player with a recording transport, ``fakeplayer.py``) stands in for the
network where a test needs a player, and sends its packets through the features' handlers; the network
path itself is covered with a real client in test_mineflayer.py.
"""

from __future__ import annotations

import math
from pathlib import Path

from support.fakeplayer import FakePlayer, new_game, send

from mirrorcraft.protocol.codec import decode
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.game import Game
from mirrorcraft.server.kernel.world import World
from mirrorcraft.worlds.anvil.save import Save


def test_map_chunk_decodes_to_the_saved_blocks(sandbox_template: Path) -> None:
    world = World(sandbox_template)
    save = Save.open(sandbox_template)
    for cx, cz in [(0, 0), (-4, 3), (1, -1)]:
        for proto in (760, 759):
            pkt = decode("map_chunk", world.map_chunk_body(cx, cz, proto), proto)
            col = pkt.column()
            chunk = save.read_chunk(cx, cz)
            dense, palette, _, _ = chunk.to_dense()
            names = [facts.state_id(n, dict(p)) for n, p in palette]
            assert (col.blocks == __import__("numpy").array(names, dtype="uint16")[dense]).all()
            assert pkt.x == cx and pkt.z == cz
            assert len(pkt.light.sky_light) >= 1


def test_set_block_save_and_reload(world: Path) -> None:
    w = World(world)
    stone = facts.state_id("stone")
    log_x = facts.state_id("oak_log", {"axis": "x"})
    w.set_block(3, 70, -5, log_x)
    w.set_block(-60, -64, -60, stone)
    assert w.save() == 2
    again = World(world)
    assert again.get_block(3, 70, -5) == log_x and again.get_block(-60, -64, -60) == stone
    chunk = Save.open(world).read_chunk(0, -1)  # the worlds package's reader
    assert chunk.block_at(3, 70, -5) == ("minecraft:oak_log", (("axis", "x"),))
    import anvil  # anvil-parser2: an Anvil reader nobody here wrote

    other = anvil.Chunk.from_region(anvil.Region.from_file(str(world / "region" / "r.0.-1.mca")), 0, -1)
    block = other.get_block(3, 70, 11)  # chunk-local x/z
    assert (block.id, str(block.properties["axis"])) == ("oak_log", "x")
    assert other.get_block(3, 64, 11).id == facts.block_name(again.get_block(3, 64, -5))


def _game(world: Path, episode_seed: int = 0) -> Game:
    return new_game(world, episode_seed=episode_seed)


def test_loot_is_seeded_and_deterministic(world: Path, sandbox_info) -> None:
    lapis = [tuple(p) for p in sandbox_info["ores"]["lapis_ore"]]

    def run(seed: int) -> tuple[list, list]:
        g = _game(world, seed)
        drops = [g.digging.break_block(None, pos) for pos in lapis]
        items = [(it.item, it.count, tuple(round(v, 9) for v in it.pos)) for it in g.kernel.items.values()]
        return drops, items

    a, b, c = run(1), run(1), run(2)
    assert a == b
    assert all(name == "lapis_lazuli" and 4 <= n <= 9 for drops in a[0] for name, n in drops)
    assert a != c  # another episode seed scatters/rolls differently


def test_items_fall_and_rest_on_the_ground_and_merge(world: Path, sandbox_info) -> None:
    g = _game(world)
    sx, sy, sz = sandbox_info["spawn"]
    cobble = "minecraft:cobblestone"
    g.items.spawn(Stack(cobble, 3), (sx + 0.5, sy + 3.0, sz + 0.5))
    g.items.spawn(Stack(cobble, 4), (sx + 0.6, sy + 2.0, sz + 0.5))
    for _ in range(80):
        g.tick()
    assert len(g.kernel.items) == 1
    (it,) = g.kernel.items.values()
    assert it.count == 7 and it.on_ground and math.isclose(it.pos[1], sy, abs_tol=1e-6)


def _recording_player(pos: list[float]) -> FakePlayer:
    """A player standing at ``pos`` whose chunks are already streamed (a move sends nothing by itself)."""
    p = FakePlayer("rec", strict=False)
    p.pos = pos
    p.on_ground = True
    p.center_chunk = (math.floor(pos[0]) >> 4, math.floor(pos[2]) >> 4)
    return p


def _move(g: Game, p: FakePlayer, x: float, y: float, z: float) -> None:
    send(g, p, "position", x=x, y=y, z=z, on_ground=True)


def test_impossible_moves_are_refused_with_a_teleport_back(world: Path, sandbox_info) -> None:
    g = _game(world)
    sx, sy, sz = sandbox_info["spawn"]
    start = [sx + 0.5, float(sy), sz + 0.5]
    p = _recording_player(list(start))
    _move(g, p, start[0] + 0.2, start[1], start[2])  # a normal step
    assert p.pos[0] == start[0] + 0.2 and not p.sent
    here = list(p.pos)
    for target in [
        (here[0] + 20, here[1], here[2]),  # > 10 blocks in one tick: "moved too quickly"
        (here[0], here[1] - 1.5, here[2]),
    ]:  # into the grass/dirt below ("moved into a block"; 4 blocks in one packet is legal, as vanilla)
        p.sent.clear()
        p.pending_teleport = None
        _move(g, p, *target)
        assert p.pos == here
        assert [n for n, _ in p.sent][:1] == ["player_position_and_look"]
        assert p.pending_teleport is not None
    # moves are ignored until the teleport is confirmed
    _move(g, p, here[0] + 0.1, here[1], here[2])
    assert p.pos == here
    _move(g, p, math.nan, 0.0, 0.0)
    assert p.pos == here
    p.pending_teleport = None
    _move(g, p, math.inf, 0.0, 0.0)
    assert p.kicked
