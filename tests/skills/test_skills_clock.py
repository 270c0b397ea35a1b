"""The skills' clock is the server's game time, on the real embedded server at 400 t/s over 127.0.0.1.

Why it matters: the per-call limits are game-time limits. The embedded server runs in the body's process;
while the body plans a path (CPU, the reactor held), the server does not tick, and afterwards it counts at
most 100 missed ticks (vanilla's "Can't keep up" catch-up). A clock of wall time x rate charged such a plan
400 ticks per wall second at 400 t/s — 20 times what the same plan costs in a real-time run — and catalogue
cells timed out on planning alone. The hard guard that stops a call that never looks at the clock counts
game time as well.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from support.skills_support import module_server, session
from twisted.internet import defer, reactor

from mirrorcraft.contracts import ActionLimits, FailureReason, SkillCall
from mirrorcraft.mcproto_body.tickrate import WORLD_AGE_SLACK
from mirrorcraft.skills.items import Eat
from mirrorcraft.skills.runtime import HARD_GUARD_SECONDS

RATE = 400.0


@pytest.fixture(scope="module")
def server(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox_template, tmp_path_factory, "clock-server", tick_rate=RATE, seed=5)


@pytest_twisted.ensureDeferred
async def test_a_held_reactor_costs_the_game_time_the_server_ran(server) -> None:
    body, skills, _ = await session(server)
    ctx = skills.ctx
    try:
        assert ctx.tick_rate == RATE and body.game_clock.world_ticks() is not None
        t0, w0, s0 = ctx.now(), ctx.clock.seconds(), server.game.tick_count
        time.sleep(1.0)  # what a long path plan does: the reactor (and the in-process server) held
        await body.sleep(0.25)
        game = (ctx.now() - t0) * RATE
        wall = (ctx.clock.seconds() - w0) * RATE
        ran = server.game.tick_count - s0
        assert wall >= 1.25 * RATE  # the wall clock would have charged >= 500 ticks
        # the server ran its catch-up (<= 100) plus the ticks of the quarter second; the clock agrees
        assert ran <= 101 + 0.25 * RATE + 20, ran
        assert abs(game - ran) <= WORLD_AGE_SLACK + 20, (game, ran)
        assert game < wall / 2, (game, wall)
    finally:
        await body.disconnect()


class _Stuck(Eat):
    """An ``eat`` whose work never ends and never looks at the clock (what the hard guard is for)."""

    async def run(self, args: Any, progress: Any, deadline: float) -> None:
        await defer.Deferred()


@pytest_twisted.ensureDeferred
async def test_the_hard_guard_stops_a_call_after_its_limit_in_game_time(server) -> None:
    body, skills, _ = await session(server)
    ctx = skills.ctx
    try:
        ctx.limits = ActionLimits(tick_limits={**ActionLimits().tick_limits, "eat": 40})
        s0 = server.game.tick_count
        report = await _Stuck(ctx).execute(SkillCall.create("eat", {}))
        ran = server.game.tick_count - s0
        assert report.status == "failure" and report.reason == FailureReason.TIMEOUT, report
        assert "game-time limit of 40 ticks" in report.message
        guard = 40 + HARD_GUARD_SECONDS * RATE
        assert guard <= report.ticks_used <= guard + 100, report.ticks_used
        assert guard - WORLD_AGE_SLACK <= ran, ran  # the server's own count: it was game time
    finally:
        await body.disconnect()


@pytest_twisted.ensureDeferred
async def test_a_call_ends_at_once_when_the_server_drops_the_player(server) -> None:
    body, skills, _ = await session(server)
    ctx = skills.ctx
    try:
        name = body.config.username
        reactor.callLater(0.2, lambda: server.player(name).kick("test: dropped"))
        w0 = time.monotonic()
        # without the check: the wall-clock backstop, 100 ticks / 20 t/s + HARD_GUARD_SECONDS (the game clock stops)
        report = await _Stuck(ctx).execute(SkillCall.create("eat", {}))
        assert report.status == "failure" and report.reason == FailureReason.OTHER, report
        assert "the connection to the server closed during the call" in report.message
        assert time.monotonic() - w0 < 2.0  # the guard looks every 50 ms
    finally:
        await body.disconnect()
