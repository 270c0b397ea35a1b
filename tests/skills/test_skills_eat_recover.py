"""The ``eat`` skill's success path and ``recover``'s one-block clearing, against the embedded server's
hunger (``mirrorcraft/server/features/food.py``) and real blocks.

Two halves:

* over sockets (our body, the skill set, a server at 100 ticks/s on the sandbox world): hunger drains the
  food bar on Easy under the Hunger effect, ``eat`` consumes one bread and raises the bar, a golden apple
  is eaten at a full bar, the server refuses bread at a full bar and cancels eating on a slot switch or a
  release, Peaceful refills the bar; ``recover`` breaks exactly the one block that walls it in, and
  fails without breaking anything when two blocks would be needed.
* in-process (a real ``Game`` on the sandbox, ticked by hand with a stand-in player): vanilla
  ``FoodData`` numbers tick by tick (Peaceful refill every 10 ticks, exhaustion to saturation to food on
  Easy only, ``naturalRegeneration`` off stops the refill, creative players gain no exhaustion).

Ground truth comes from the server (its inventory, blocks, food state and events), not the body's view.
"""

from __future__ import annotations

import math
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.fakeplayer import FakePlayer
from support.skills_support import module_server, server_counts, session

from mirrorcraft.contracts import FailureReason
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.serverbound import BlockDig, HeldItemSlotServerbound, UseItem
from mirrorcraft.rules.stack import Stack

TICK_RATE = 100


@pytest.fixture(scope="module")
def sandbox(sandbox_template: Path) -> Path:
    return sandbox_template  # read only: the server plays in its own copy


@pytest.fixture(scope="module")
def server(sandbox: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox, tmp_path_factory, "eat-server", tick_rate=TICK_RATE, seed=5)


def _command(server: Any, text: str) -> None:
    """Run a console command on the server's executor; it must succeed."""
    ex = server.game.commands.executor
    res = ex.run(ex.console_source(), text)
    assert res.success, (text, res.messages)


async def _until(body: Any, cond, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await body.sleep(0.05)


def _events(server: Any, name: str) -> list[tuple[str, dict]]:
    got: list[tuple[str, dict]] = []
    server.game.listeners.append(
        lambda ev, data: got.append((ev, data)) if data.get("player") == name else None
    )
    return got


# ---- eat over sockets ----------------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_eat_bread_when_hungry_and_peaceful_refills(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    p = server.player(name)
    food = server.game.food
    events = _events(server, name)
    try:
        assert body.health.food == 20 and math.isclose(body.health.saturation, 5.0)  # vanilla start values
        _command(server, "difficulty easy")
        # Hunger CXXVIII for 4 s = 80 ticks x 0.005 x 128 = 51.2 exhaustion: 12 drains of 4, the first five
        # empty the saturation (5.0), the next seven take food 20 -> 13.
        _command(server, f"effect give {name} minecraft:hunger 4 127")
        await _until(body, lambda: not any(e.effect == "minecraft:hunger" for e in server.game.effects.effects_of(p)),
                     5.0, "the hunger effect to expire")  # fmt: skip
        await body.sleep(0.1)
        assert food.state(p).food == 13 and food.state(p).saturation == 0.0
        assert body.health.food == 13 and body.health.saturation == 0.0  # update_health carried them
        server.give_item(name, "bread", 2)
        await body.sleep(0.2)
        before = server_counts(server, name)
        report = await skills.run("eat", item="bread")
        assert report.status == "success", report
        assert report.inventory_delta == {"minecraft:bread": -1}
        assert server_counts(server, name)["minecraft:bread"] == before["minecraft:bread"] - 1 == 1
        # FoodData.eat: 13 + 5 points = 18, saturation 0 + 6.0 (bread: 5 x 0.6 x 2) capped at 18
        assert food.state(p).food == 18 and food.state(p).saturation == 6.0
        assert body.health.food == 18 and body.health.saturation == 6.0
        assert "food 13 -> 18" in report.message
        started = [d for ev, d in events if ev == "eat_started"]
        ate = [d for ev, d in events if ev == "ate"]
        assert [(d["item"], d["ticks"]) for d in started] == [("bread", 32)]
        assert [(d["item"], d["food"]) for d in ate] == [("bread", 18)]
        # Peaceful with naturalRegeneration: +1 food every 10 ticks up to 20
        _command(server, "difficulty peaceful")
        await _until(body, lambda: body.health.food == 20, 2.0, "the food bar to refill")
        assert food.state(p).food == 20
    finally:
        if server.game.admin.difficulty != "peaceful":
            _command(server, "difficulty peaceful")
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_golden_apple_is_eaten_at_a_full_bar_and_bread_is_refused(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    p = server.player(name)
    events = _events(server, name)
    try:
        server.give_item(name, "bread", 1)
        server.give_item(name, "golden_apple", 1)
        await body.sleep(0.2)
        assert body.health.food == 20
        # the skill refuses bread at a full bar; the server would too (Player.canEat): no use starts
        full = await skills.run("eat", item="bread")
        assert full.status == "failure" and full.reason == FailureReason.OTHER
        assert await skills.ctx.hold("minecraft:bread")
        body.conn.send(UseItem(hand=0, sequence=body.conn.next_sequence()))
        await body.sleep(0.5)  # 50 ticks: longer than the 32-tick eat
        assert server_counts(server, name)["minecraft:bread"] == 1
        assert not [ev for ev, _ in events if ev == "eat_started"]
        report = await skills.run("eat", item="golden_apple")
        assert report.status == "success", report
        assert report.inventory_delta == {"minecraft:golden_apple": -1}
        assert "minecraft:golden_apple" not in server_counts(server, name)
        st = server.game.food.state(p)
        assert st.food == 20 and math.isclose(st.saturation, 5.0 + 9.6, rel_tol=1e-6)  # 4 x 1.2 x 2
        # ServerPlayer.doTick resends only on a health/food change or saturation reaching/leaving 0:
        # the bar stayed at 20 and saturation stayed > 0, so the client still has the old value
        assert body.health.food == 20 and body.health.saturation == 5.0
        effects = {e.effect: e.amplifier for e in server.game.effects.effects_of(p)}
        assert effects.get("minecraft:regeneration") == 1 and effects.get("minecraft:absorption") == 0
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_switching_slot_or_releasing_cancels_eating(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    events = _events(server, name)
    try:
        server.give_item(name, "golden_apple", 2)  # always edible: no need to be hungry
        await body.sleep(0.2)
        assert await skills.ctx.hold("minecraft:golden_apple")
        held = server.player(name).inventory.held
        body.conn.send(UseItem(hand=0, sequence=body.conn.next_sequence()))
        await body.sleep(0.1)
        body.conn.send(HeldItemSlotServerbound(slot_id=(held + 1) % 9))
        await body.sleep(0.5)
        assert server_counts(server, name)["minecraft:golden_apple"] == 2
        body.conn.send(HeldItemSlotServerbound(slot_id=held))
        await body.sleep(0.1)
        body.conn.send(UseItem(hand=0, sequence=body.conn.next_sequence()))
        await body.sleep(0.1)
        body.conn.send(BlockDig(status=5, location=(0, 0, 0), face=0, sequence=0))  # release use item
        await body.sleep(0.5)
        assert server_counts(server, name)["minecraft:golden_apple"] == 2
        assert [d["reason"] for ev, d in events if ev == "eat_cancelled"] == ["switched slot", "released"]
        assert [ev for ev, _ in events if ev == "ate"] == []
    finally:
        await body.disconnect()


# ---- recover over sockets ------------------------------------------------------------------------------


def _flat_spots(server: Any, count: int) -> list[tuple[int, int]]:
    """Columns (x, z) near spawn whose 7x7 surroundings are flat grass at y=64 with air up to y=68."""
    out: list[tuple[int, int]] = []
    for x in range(2, 14, 6):
        for z in range(-10, 4, 6):
            cells = [(x + dx, z + dz) for dx in range(-3, 4) for dz in range(-3, 4)]
            if all(
                server.block_at(cx, 64, cz) == "grass_block"
                and all(server.block_at(cx, y, cz) == "air" for y in range(65, 69))
                for cx, cz in cells
            ):
                out.append((x, z))
    assert len(out) >= count, f"only {len(out)} flat spots near spawn"
    return out[:count]


def _build_shell(server: Any, x: int, z: int, open_feet_east: bool) -> list[tuple[int, int, int]]:
    """A 3x4x3 dirt shell (y 64..67) around column (x, z), hollow at feet and head (y 65, 66).

    ``open_feet_east``: also air at the east cell's feet level, so breaking its head block (x+1, 66, z)
    is the one dig that frees the player. Returns the positions left as dirt.
    """
    left = []
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            for y in range(64, 68):
                hollow = (dx, dz) == (0, 0) and y in (65, 66)
                hollow |= open_feet_east and (dx, dz, y) == (1, 0, 65)
                server.set_block(x + dx, y, z + dz, "air" if hollow else "dirt")
                if not hollow:
                    left.append((x + dx, y, z + dz))
    return left


@pytest_twisted.ensureDeferred
async def test_recover_breaks_the_one_block_that_walls_it_in(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        (x, z), (x2, z2) = _flat_spots(server, 2)
        shell = _build_shell(server, x, z, open_feet_east=True)
        server.teleport(name, x + 0.5, 65.0, z + 0.5)
        await body.sleep(0.5)
        report = await skills.run("recover")
        assert report.status == "success", report
        assert "clearing one block" in report.message
        assert [(b.block, b.count) for b in report.blocks_broken] == [("minecraft:dirt", 1)]
        broken = [
            c for c in shell if server.block_at(*c) not in ("dirt", "grass_block")
        ]  # grass may spread onto the shell (random ticks)
        assert broken == [(x + 1, 66, z)]  # exactly the east head-level block, nothing else
        px, py, pz = server.position(name)
        assert (math.floor(px), math.floor(pz)) != (x, z) and abs(py - 65.0) < 0.01  # out, on the ground
        # two blocks would be needed: recover refuses and breaks nothing
        shell2 = _build_shell(server, x2, z2, open_feet_east=False)
        server.teleport(name, x2 + 0.5, 65.0, z2 + 0.5)
        await body.sleep(0.5)
        stuck = await skills.run("recover")
        assert stuck.status == "failure" and stuck.reason == FailureReason.UNREACHABLE, stuck
        assert stuck.blocks_broken == []
        assert all(server.block_at(*c) == "dirt" for c in shell2)
        assert (math.floor(server.position(name)[0]), math.floor(server.position(name)[2])) == (x2, z2)
    finally:
        await body.disconnect()


# ---- FoodData tick by tick, in process -------------------------------------------------------------------


class FoodTestPlayer(FakePlayer):
    """The server tests' fake player (a real game-side player with a recording transport), standing at
    ``pos``, with a reader for its ``update_health`` packets."""

    def __init__(self, name: str, pos: tuple[float, float, float]) -> None:
        super().__init__(name)
        self.eid = 9100
        self.pos = list(pos)
        self.on_ground = True

    def health_packets(self) -> list[tuple[float, int, float]]:
        from mirrorcraft.protocol.codec import CLIENTBOUND, decode

        out = []
        for n, b in self.sent:
            if n == "update_health":
                pkt = decode("update_health", b, 760, CLIENTBOUND)
                out.append((pkt.health, pkt.food, pkt.food_saturation))
        return out


@pytest.fixture
def game(sandbox: Path, tmp_path: Path):
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.game import Game

    world = tmp_path / "world"
    shutil.copytree(sandbox, world)
    g = Game(ServerConfig(world=world, port=0))
    p = FoodTestPlayer("steve", (8.5, 65.0, 8.5))
    g.players.add(p)
    g.events.notify("joined", p)
    return g, p


def _tick_to(g: Any, multiple: int) -> None:
    """Tick until the game tick is a multiple of ``multiple`` (so the 10/20-tick phases are known)."""
    while g.tick_count % multiple:
        g.tick()


def test_peaceful_refills_one_food_every_ten_ticks(game) -> None:
    g, p = game
    _tick_to(g, 10)
    st = g.food.state(p)
    st.food, st.saturation = 10, 0.0
    p.sent.clear()
    seen = []
    for _ in range(100):
        g.tick()
        seen.append((g.tick_count, st.food))
    changed = [t for (t, f), (_, prev) in zip(seen[1:], seen, strict=False) if f != prev]
    assert all(t % 10 == 0 for t in changed) and len(changed) == 10  # +1 only on multiples of 10
    assert [f for t, f in seen if t % 10 == 0] == list(range(11, 21))
    # one update_health per change (the first carries the value set by hand)
    assert [f for _, f, _ in p.health_packets()] == list(range(10, 21))
    # with naturalRegeneration off nothing refills
    g.admin.set_game_rule("naturalRegeneration", False)
    st.food = 15
    for _ in range(40):
        g.tick()
    assert st.food == 15


def test_exhaustion_drains_saturation_then_food_except_in_peaceful(game) -> None:
    g, p = game
    st = g.food.state(p)
    g.effects.add(p, "minecraft:hunger", 10_000, 9, False)  # 0.005 x 10 = 0.05 exhaustion per tick
    for _ in range(79):  # 79 x 0.05 = 3.95: no drain yet (FoodData drains when exhaustion > 4)
        g.tick()
    assert st.saturation == 5.0 and st.food == 20
    g.tick()
    g.tick()  # 4.05 > 4: one drain, and Peaceful only takes saturation
    assert st.saturation == 4.0 and st.food == 20
    st.saturation, st.exhaustion = 0.0, 0.0
    for _ in range(81):
        g.tick()
    assert st.food == 20 and st.exhaustion < 4.0  # Peaceful: food is never lost to exhaustion
    g.admin.set_difficulty("easy")
    st.exhaustion = 0.0
    for _ in range(79):
        g.tick()
    assert st.food == 20
    g.tick()
    g.tick()
    assert st.food == 19 and st.saturation == 0.0
    assert p.health_packets()[-1] == (20.0, 19, 0.0)
    # creative players gain no exhaustion (Player.causeFoodExhaustion checks invulnerability)
    g.admin.set_game_mode(p, "creative")
    before = st.exhaustion
    for _ in range(50):
        g.tick()
    assert st.exhaustion == before and st.food == 19


def test_eating_takes_32_ticks_and_dried_kelp_16(game) -> None:

    g, p = game
    g.admin.set_difficulty("easy")
    st = g.food.state(p)
    st.food, st.saturation = 10, 0.0
    p.inventory.slots[36] = Stack("minecraft:bread", 3)
    p.inventory.slots[37] = Stack("minecraft:dried_kelp", 1)
    p.inventory.held = 0
    assert g.food.use_item(p, 0)  # type: ignore[arg-type]
    for _ in range(31):
        g.tick()
    assert st.food == 10 and p.inventory.slots[36][1] == 3
    g.tick()
    assert st.food == 15 and st.saturation == 6.0 and p.inventory.slots[36][1] == 2
    p.inventory.held = 1
    assert g.food.use_item(p, 0)  # type: ignore[arg-type]
    for _ in range(15):
        g.tick()
    assert st.food == 15
    g.tick()
    assert st.food == 16 and math.isclose(st.saturation, 6.6, rel_tol=1e-6) and p.inventory.slots[37] is None
    # not a food: nothing starts
    p.inventory.slots[38] = Stack("minecraft:cobblestone", 1)
    p.inventory.held = 2
    assert not g.food.use_item(p, 0)  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="hand 2"):
        g.food.use_item(p, 2)  # type: ignore[arg-type]
