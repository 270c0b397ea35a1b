"""Lockstep clock (issue 23, phase 1): the embedded server and our body over real sockets on 127.0.0.1.

What is checked: the server does not advance while a registered lockstep body withholds its
``tick_done``; it runs exactly one tick per acknowledgement round; a non-lockstep client (our body with
``BodyConfig(lockstep=False)``: a plain 1.19.2 client that ignores the offer) never blocks it; the stall
bound evicts a silent lockstep client (and one that disconnects stops being waited for); and the core
equality property at the body level: the same scripted actions (walk, dig a log, pick it up) paced at
20 t/s and unpaced cost the same game ticks and end in the same position and inventory.
"""

from __future__ import annotations

import itertools
import shutil
import time
from pathlib import Path
from typing import Any

import pytest_twisted
from twisted.internet import defer, reactor, task

from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.server.kernel.clock import LockstepClock

_names = (f"lock{i}" for i in itertools.count())


def _server(template: Path, root: Path, **cfg: Any) -> EmbeddedServer:
    world = root / f"world-{next(_names)}"
    shutil.copytree(template, world)
    settings: dict[str, Any] = {"tick_rate": 20.0, "clock": "lockstep", "episode_seed": 7} | cfg
    srv = EmbeddedServer(ServerConfig(world=world, port=0, view_distance=4, **settings))
    srv.start()
    return srv


def _wall(seconds: float) -> defer.Deferred:
    return task.deferLater(reactor, seconds, lambda: None)


def _clock(srv: EmbeddedServer) -> LockstepClock:
    clock = srv.game.kernel.clock
    assert isinstance(clock, LockstepClock)
    return clock


async def _join(srv: EmbeddedServer, **cfg: Any) -> Body:
    body = Body(BodyConfig(port=srv.port, username=next(_names), view_distance=4, **cfg))
    await body.connect()
    return body


async def _until(pred: Any, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "condition not reached in time"
        await _wall(0.01)


def test_default_is_free_running(tmp_path: Path) -> None:
    cfg = ServerConfig(world=tmp_path)
    assert cfg.clock == "free" and cfg.lockstep_paced and cfg.lockstep_timeout == 300.0
    assert BodyConfig().lockstep is True  # takes part only when a server offers it


@pytest_twisted.ensureDeferred
async def test_withheld_ack_holds_the_server_and_each_round_runs_one_tick(sandbox_template, tmp_path) -> None:
    srv = _server(sandbox_template, tmp_path, lockstep_paced=False, lockstep_timeout=30.0)
    body = await _join(srv)
    try:
        await _until(lambda: body.lockstep.announced is not None)
        assert body.lockstep.active and srv.tick_count == 0  # held at tick 0 until the body registered
        await _wall(0.4)  # the agent "decides": no acknowledgement, so no tick (unpaced, it would race)
        assert srv.tick_count == 0 and body.movement.ticks == 0
        seen: list[tuple[int, int]] = []  # (tick the body processes, the server's count at that moment)
        body.movement.on_tick(lambda _st: seen.append((body.lockstep.tick, srv.tick_count)))
        with body.lockstep.acting():
            await body.movement.wait_ticks(10)
        assert body.lockstep.acked == 9  # tick 10's flush round was in flight when the wait fired
        await _wall(0.3)
        # One tick per round: the body saw every tick in order, the server never ran ahead of it.
        assert [n for n, _ in seen] == list(range(len(seen))) and all(n == c for n, c in seen)
        assert len(seen) == 11  # tick 0 (the registration's) and the 10 waited for
        # After the body stopped acting the round in flight completes; then nothing until the next act.
        assert body.lockstep.acked == 10 and srv.tick_count == 11 and _clock(srv).barrier_ticks == 11
        assert body.game_clock.world_ticks() == 10 and _clock(srv).stalls == []
        assert srv.position(body.config.username) == body.movement.position
    finally:
        await body.disconnect()
        await srv.stop()


@pytest_twisted.ensureDeferred
async def test_a_non_lockstep_client_never_blocks(sandbox_template, tmp_path) -> None:
    srv = _server(sandbox_template, tmp_path)  # holds at tick 0 for the first lockstep client...
    plain = await _join(srv, lockstep=False)  # ...but this one ignores the offer: a plain client
    try:
        await _until(lambda: srv.tick_count > 5, timeout=5.0)  # the hold ended after the grace (1 s)
        assert _clock(srv).stalls == [] and not plain.lockstep.active and plain.movement.ticks > 0
        t0 = srv.tick_count
        await _wall(0.5)
        assert srv.tick_count - t0 >= 5
        locked = await _join(srv)
        try:
            await _until(lambda: locked.lockstep.announced is not None)
            with locked.lockstep.acting():
                await locked.movement.wait_ticks(5)
            held = srv.tick_count
            await _wall(0.4)  # the lockstep body decides; the plain one is not waited for, never acks
            assert srv.tick_count <= held + 1
            assert _clock(srv).members == [srv.player(locked.config.username)]
        finally:
            await locked.disconnect()
        await _until(lambda: not _clock(srv).members)
        t1 = srv.tick_count
        await _wall(0.5)  # the last lockstep client left: free-running at 20 t/s again
        assert srv.tick_count - t1 >= 5 and _clock(srv).stalls == []
    finally:
        await plain.disconnect()
        await srv.stop()


@pytest_twisted.ensureDeferred
async def test_stall_bound_evicts_a_silent_client_and_a_leaver_is_not_waited_for(
    sandbox_template, tmp_path
) -> None:
    srv = _server(sandbox_template, tmp_path, lockstep_timeout=1.0)
    t0 = time.monotonic()  # before the silent client registers: the barrier's bound starts after this
    silent = await _join(srv, lockstep_heartbeat=None)  # a client that went silent: no deciding heartbeat
    active = await _join(srv)
    try:
        await _until(lambda: silent.lockstep.announced is not None and active.lockstep.announced is not None)
        with active.lockstep.acting():
            await active.movement.wait_ticks(3)  # waits for the silent client until the bound evicts it
        assert 0.95 <= time.monotonic() - t0 <= 8.0
        stalls = [s for s in _clock(srv).stalls if s["evicted"]]  # (a start hold under load has none)
        assert len(stalls) == 1, _clock(srv).stalls
        (stall,) = stalls
        assert stall["evicted"] == [repr(srv.player(silent.config.username))]
        await _until(lambda: silent.lockstep.evicted and not silent.lockstep.active)
        assert silent.movement._loop is not None and silent.movement._loop.running  # ticks on its own again
        # A client that disconnects while owed stops being waited for at once (no second stall).
        late = await _join(srv, lockstep_heartbeat=None)
        await _until(lambda: late.lockstep.announced is not None)
        await late.disconnect()
        t1 = time.monotonic()
        with active.lockstep.acting():
            await active.movement.wait_ticks(5)
        assert time.monotonic() - t1 < 0.95 and len([s for s in _clock(srv).stalls if s["evicted"]]) == 1
    finally:
        await silent.disconnect()
        await active.disconnect()
        await srv.stop()


@pytest_twisted.ensureDeferred
async def test_a_deciding_client_is_waited_for_until_the_think_bound(sandbox_template, tmp_path) -> None:
    # the stall bound is 0.5 s; the deciding body heartbeats every 0.1 s: it is kept for 1.5 s (the think
    # bound), then evicted like a silent one
    srv = _server(sandbox_template, tmp_path, lockstep_timeout=0.5, lockstep_think_timeout=1.5)
    thinker = await _join(srv, lockstep_heartbeat=0.1)
    active = await _join(srv)
    try:
        await _until(lambda: thinker.lockstep.announced is not None and active.lockstep.announced is not None)
        t0 = time.monotonic()
        with active.lockstep.acting():
            await active.movement.wait_ticks(2)  # held by the deciding thinker, past three stall bounds
        waited = time.monotonic() - t0
        assert 1.4 <= waited <= 5.0, waited
        assert thinker.lockstep.heartbeats >= 5
        stalls = [s for s in _clock(srv).stalls if s["evicted"]]  # (a start hold under load has none)
        assert len(stalls) == 1, _clock(srv).stalls
        (stall,) = stalls
        assert stall["evicted"] == [repr(srv.player(thinker.config.username))]
        assert stall["waited_s"] >= 1.4
    finally:
        await thinker.disconnect()
        await active.disconnect()
        await srv.stop()


@pytest_twisted.ensureDeferred
async def test_hold_before_the_first_client_is_bounded(sandbox_template, tmp_path) -> None:
    srv = _server(sandbox_template, tmp_path, lockstep_timeout=0.3)
    try:
        await _wall(0.15)
        assert srv.tick_count == 0
        await _until(lambda: srv.tick_count > 3, timeout=3.0)
        assert _clock(srv).stalls == [{"tick": 0, "waited_s": 0.3, "evicted": []}]
    finally:
        await srv.stop()


async def _scripted(template: Path, root: Path, paced: bool) -> dict[str, Any]:
    """Walk 4 blocks east, dig an oak log put 2 blocks further, pick it up: ticks and end state."""
    srv = _server(template, root, lockstep_paced=paced, lockstep_timeout=30.0)
    body = await _join(srv)
    try:
        await _until(lambda: body.lockstep.announced is not None)
        x, y, z = (int(v // 1) for v in body.movement.position)
        log_at = (x + 6, y, z)
        srv.set_block(*log_at, "oak_log")
        srv.set_block(log_at[0], y + 1, z, "air")
        marks: list[int] = []
        t0 = time.perf_counter()
        with body.lockstep.acting():
            pos = body.movement.position
            walked = await body.walk_straight((pos[0] + 4, pos[1], pos[2]), timeout=10)
            marks.append(srv.tick_count)
            dug, drops = await body.dig_and_collect(log_at)
            marks.append(srv.tick_count)
            await body.movement.wait_ticks(4)
            marks.append(srv.tick_count)
        return {
            "walked": walked,
            "broken": dug.broken,
            "drops": len(drops),
            "marks": marks,
            "position": body.movement.position,
            "server_position": srv.position(body.config.username),
            "inventory": srv.inventory(body.config.username),
            "wall": time.perf_counter() - t0,
        }
    finally:
        await body.disconnect()
        await srv.stop()


@pytest_twisted.ensureDeferred
async def test_same_actions_paced_and_unpaced_give_the_same_game(sandbox_template, tmp_path) -> None:
    paced = await _scripted(sandbox_template, tmp_path, paced=True)
    unpaced = await _scripted(sandbox_template, tmp_path, paced=False)
    assert paced["walked"] and paced["broken"] and paced["drops"] == 1, paced
    assert ("oak_log", 1) in paced["inventory"].values()
    for key in ("walked", "broken", "drops", "marks", "position", "server_position", "inventory"):
        assert paced[key] == unpaced[key], (key, paced, unpaced)
    assert paced["position"] == paced["server_position"]
    # paced: at least 1/20 s per tick; unpaced is not held to the pace
    assert paced["wall"] >= paced["marks"][-1] / 20.0 * 0.95


async def _two_bodies(template: Path, root: Path, paced: bool) -> dict[str, Any]:
    """Two lockstep bodies acting at once: one walks east, the other north, then both wait 5 ticks."""
    srv = _server(template, root, lockstep_paced=paced, lockstep_timeout=30.0)
    a, b = await _join(srv), await _join(srv)
    try:
        await _until(lambda: a.lockstep.announced is not None and b.lockstep.announced is not None)

        async def walk(body: Body, dx: float, dz: float) -> int:
            with body.lockstep.acting():
                x, y, z = body.movement.position
                await body.walk_straight((x + dx, y, z + dz), timeout=10)
                await body.movement.wait_ticks(5)
                return srv.tick_count

        ends = await defer.gatherResults(
            [defer.ensureDeferred(walk(a, 4, 0)), defer.ensureDeferred(walk(b, 0, -4))]
        )
        await _wall(0.3)  # the rounds in flight complete; then nobody acts and the server holds
        return {
            "ticks": srv.tick_count,
            "ends": ends,
            "positions": [a.movement.position, b.movement.position],
            "server": [srv.position(a.config.username), srv.position(b.config.username)],
            "stalls": _clock(srv).stalls,
        }
    finally:
        await a.disconnect()
        await b.disconnect()
        await srv.stop()


@pytest_twisted.ensureDeferred
async def test_two_bodies_paced_and_unpaced_give_the_same_game(sandbox_template, tmp_path) -> None:
    paced = await _two_bodies(sandbox_template, tmp_path, paced=True)
    unpaced = await _two_bodies(sandbox_template, tmp_path, paced=False)
    assert paced["stalls"] == [] and paced["positions"] == paced["server"]
    assert paced == unpaced


@pytest_twisted.ensureDeferred
async def test_batching_holds_a_clients_packets_to_the_next_tick_and_runs_them_in_name_order(
    sandbox_template, tmp_path
) -> None:
    """``ServerConfig.lockstep_batch``: a lockstep client's play packets wait for the next tick (vanilla runs
    its queued packets between ticks) and two clients' batches run in name order, not arrival order."""
    srv = _server(
        sandbox_template, tmp_path, lockstep_paced=False, lockstep_timeout=30.0, lockstep_batch=True
    )
    first, second = await _join(srv), await _join(srv)  # names lockN < lockN+1
    heard: dict[str, list[str]] = {"first": [], "second": []}
    try:
        await _until(lambda: first.lockstep.announced is not None and second.lockstep.announced is not None)
        for key, b in (("first", first), ("second", second)):
            b.chat.on_line(
                lambda line, got=heard[key]: got.append(line.text) if line.kind == "chat" else None
            )
        tick = srv.tick_count
        second.chat.say("from the second")  # arrives first...
        await _wall(0.2)
        first.chat.say("from the first")  # ...this one later
        await _wall(0.3)  # nobody acts: no tick runs, so neither line was handled
        assert heard == {"first": [], "second": []} and srv.tick_count == tick
        assert srv.game.lockstep.batched == 0
        with first.lockstep.acting(), second.lockstep.acting():
            await first.movement.wait_ticks(2)
        await _until(lambda: len(heard["first"]) + len(heard["second"]) == 4)  # each line to both players
        # handled at the next tick's start, the first client's batch before the second's
        assert heard["first"] == heard["second"] == ["from the first", "from the second"], heard
        assert srv.game.lockstep.batched >= 2
    finally:
        for b in (first, second):
            await b.disconnect()
        await srv.stop()
