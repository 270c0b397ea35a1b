"""A body in lockstep plans without the wall-clock bound (issue 23): the plan depends on the grid alone.

Real embedded server over 127.0.0.1 (the session's sandbox copy), one lockstep body and one free-running
body (``BodyConfig(lockstep=False)``) on it. ``PathFollower(max_seconds=0.0)`` would cut every search after
256 expansions on a free-running body; in lockstep the same call must plan to the goal, the same way twice.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest_twisted
from twisted.internet import reactor, task

from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.pathing import Goal, PathFollower, search_seconds
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer


@pytest_twisted.ensureDeferred
async def test_a_lockstep_body_plans_without_the_time_bound(sandbox_template: Path, tmp_path: Path) -> None:
    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    srv = EmbeddedServer(
        ServerConfig(world=world, port=0, view_distance=4, clock="lockstep", lockstep_paced=False)
    )
    srv.start()
    stepper = Body(BodyConfig(port=srv.port, username="planner", view_distance=4))
    free = Body(BodyConfig(port=srv.port, username="freebody", view_distance=4, lockstep=False))
    try:
        await stepper.connect()
        await free.connect()
        end = time.monotonic() + 5.0
        while stepper.lockstep.announced is None:
            assert time.monotonic() < end, "the lockstep offer never came"
            await task.deferLater(reactor, 0.01, lambda: None)
        assert stepper.lockstep.active and not free.lockstep.active
        assert search_seconds(stepper, 0.0) is None
        assert search_seconds(free, 0.0) == 0.0
        # A goal 10 blocks up in the air: no plan reaches it, so the search floods the whole 33 x 33 box
        # (far more than the 256 expansions after which a zero time bound cuts it).
        x, y, z = stepper.movement.block_position()
        goal = Goal(x, y + 10, z)
        plans = [PathFollower(stepper, max_seconds=0.0, min_half=16).plan(goal) for _ in range(2)]
        assert plans[0].status == "no_path" and plans[0].nodes > 512
        a, b = ((p.status, p.nodes, p.cost, p.steps, p.closest) for p in plans)
        assert a == b
        fx, fy, fz = free.movement.block_position()
        cut = PathFollower(free, max_seconds=0.0, min_half=16).plan(Goal(fx, fy + 10, fz))
        assert cut.status == "partial" and cut.nodes <= 257  # free-running: cut at the first time check
    finally:
        await stepper.disconnect()
        await free.disconnect()
        await srv.stop()
