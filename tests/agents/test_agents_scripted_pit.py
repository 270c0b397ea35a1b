"""The default job's M01 case, replayed: the scripted agent in the pit it dug, with no planks left.

Tried as a new user would, the default job's M01 episode in ``plains-1`` spent 35 of its 50 actions failing
after ``dig_down`` (y 65 → 59): ``go_to`` the crafting table "no path", ``mine oak_log`` "no reachable
oak_log nearby", then explores, recovers and digs in a loop while the surface was 6 blocks up (issue 21).
This is a seeded, deterministic replay of that situation, not a rerun of the job: on the sandbox (embedded
server, 100 ticks/s) the player stands at y=59 in a pit whose walls were mined sheer, carrying the wooden
pickaxe, some cobblestone and dirt from the dig, no planks and no logs; the crafting table it placed and an
oak tree stand on the surface. The real scripted policy, the real skills and observations: within 3 actions
it is out and back at work (a ``mine`` that broke logs).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytest_twisted
from support.agents_support import context
from support.skills_support import module_server, session

from mirrorcraft.agents import ScriptedAgent
from mirrorcraft.contracts import TaskId
from mirrorcraft.skills import ActionHistory

X0, Z0 = 52, -48  # the sandbox's free plain (support.predicaments.SITES)
FLOOR_FEET = 59  # after dig_down 65 -> 59
SURFACE_FEET = 65


@pytest.fixture(scope="module")
def server(sandbox_template: Path, tmp_path_factory: pytest.TempPathFactory):
    yield from module_server(sandbox_template, tmp_path_factory, "pit-server", tick_rate=100, seed=21)


def _build(server) -> tuple[int, int, int]:
    """The pit (2x2, sheer stone and dirt walls, 6 deep), the table and an oak tree; returns the table."""
    for x in (X0, X0 + 1):
        for z in (Z0, Z0 + 1):
            for y in range(FLOOR_FEET, SURFACE_FEET):
                server.set_block(x, y, z, "air")
    table = (X0 - 2, SURFACE_FEET, Z0)
    server.set_block(*table, "crafting_table")
    tx, tz = X0 + 5, Z0 + 1
    for y in range(SURFACE_FEET, SURFACE_FEET + 5):
        server.set_block(tx, y, tz, "oak_log", axis="y")
    for dx in (-1, 0, 1):
        for dz in (-1, 0, 1):
            if (dx, dz) != (0, 0):
                server.set_block(tx + dx, SURFACE_FEET + 4, tz + dz, "oak_leaves", persistent="true")
    return table


@pytest_twisted.ensureDeferred
async def test_scripted_agent_gets_out_of_the_pit_and_back_to_work_within_3_actions(server) -> None:
    body, skills, builder = await session(server, task=TaskId.DIAMOND)
    name = body.config.username
    try:
        _build(server)
        for item, n in (("wooden_pickaxe", 1), ("cobblestone", 5), ("dirt", 4)):
            server.give_item(name, item, n)
        server.teleport(name, X0 + 0.5, float(FLOOR_FEET), Z0 + 0.5)
        await body.sleep(0.5)
        agent = ScriptedAgent()
        agent.reset(context("diamond"))
        history = ActionHistory()
        calls, reports = [], []
        for _ in range(3):
            agent.observe(builder.build(history))
            call = await agent.decide()
            report, _sigma = await skills.execute(call)
            history.record(call, report)
            calls.append(call)
            reports.append(report)
            if call.name == "mine" and report.status == "success":
                break
        trace = [(c.name, r.status, r.message, r.ticks_used) for c, r in zip(calls, reports, strict=True)]
        assert len(calls) <= 3, trace
        assert math.floor(server.position(name)[1]) >= SURFACE_FEET, trace  # out of the pit
        assert calls[-1].name == "mine" and reports[-1].status == "success", trace  # back to work: logs
        assert any(b.block == "minecraft:oak_log" for b in reports[-1].blocks_broken), trace
        escapes = [c.name for c in calls if c.name in {"dig_up", "pillar_up", "tunnel"}]
        assert escapes, trace  # it got out by an escape action of its own, not by a walking skill
        first = reports[0]
        if first.status == "failure":  # the failure named the way out, and came fast
            assert "try dig_up or pillar_up" in first.message and first.ticks_used <= 100, trace
    finally:
        await body.disconnect()
