"""``explore any`` once the frontier is exhausted, against the real embedded server over 127.0.0.1 (issue 21).

The sandbox is 9x9 chunks and the body's view distance is 4: every column inside the border is seen from
spawn, so the never-seen frontier is empty from the first call. Before the fix, ties then went to the
least-explored direction, and calls went north, east, south, west round the same square (plains-1 M04
Diamond spent 28 explores on it). Now the never-visited columns lead, and a tie keeps the last direction.
Positions are the server's.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytest_twisted
from support.skills_support import module_server, session


@pytest.fixture(scope="module")
def server(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox_template, tmp_path_factory, "explore-server", tick_rate=20, seed=7)


@pytest_twisted.ensureDeferred
async def test_explore_any_never_walks_back_to_where_it_was(server) -> None:
    body, skills, _ = await session(server)
    name = body.config.username
    try:
        memory = body.memory
        assert all(n == 0 for n in memory.frontier(skills.ctx.feet()).values())  # everything seen already
        spots = [server.position(name)]
        directions = []
        for _ in range(5):
            report = await skills.run("explore", distance=16)
            assert report.status == "success", report
            directions.append(report.message.split()[1])
            spots.append(server.position(name))
        opposite = {"north": "south", "south": "north", "east": "west", "west": "east"}
        for a, b in zip(directions, directions[1:], strict=False):
            assert b != opposite[a], directions  # no back and forth
        for i, p in enumerate(spots):
            for q in spots[i + 1 :]:
                assert math.dist((p[0], p[2]), (q[0], q[2])) >= 8, (directions, spots)  # never round a square
    finally:
        await body.disconnect()
