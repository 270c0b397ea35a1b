"""The reachability table on the sandbox: every task's scripted route completes in every world kind.

Each cell builds the real sandbox (``build_sandbox(seed=0)``), makes the Vanilla or Mirror copy the
catalogue's way (``make_world_copy``: the suite's compiled datapack enabled in ``level.dat``), starts the
embedded server on it, and drives the suite-aware route (``mirrorcraft.skills.routes``) through the real
skills. A cell passes when the route reports it completed (the goal item carried / armour worn / an item
enchanted) within the task's budget AND every milestone advancement of the task was granted by the server
(read from the advancements packets the body received), so the verdict is not only the route's bookkeeping.

Default tier: Diamond in Vanilla and in M01 (M01 is the hardest suite for iron: raw iron smelts to 3
nuggets). The full 21-cell table (3 tasks x Vanilla, M01-M06) is ``@pytest.mark.slow``; the measured table
and its command are in docs/skills.md "Reachability".
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted
from skills_support import launch_embedded

from mirrorcraft.contracts import TASKS, TaskId
from mirrorcraft.skills.controls import format_reachability, reachability
from mirrorcraft.skills.routes import WORLD_KINDS, RouteResult


@pytest.fixture(scope="module")
def sandbox_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mirrorcraft.worlds.sandbox import build_sandbox

    path = tmp_path_factory.mktemp("reach-sandbox") / "world"
    build_sandbox(path, seed=0)
    return path


def _check(rows: list[RouteResult], tasks: list[TaskId], kinds: list[str]) -> None:
    """Every cell present, completed within budget, with the task's milestones in contract order."""
    assert [(r.task, r.world.split("/")[-1]) for r in rows] == [(t.value, k) for k in kinds for t in tasks]
    failed = [r for r in rows if not r.completed]
    assert not failed, "\n" + format_reachability(rows)
    for r in rows:
        task = TASKS[TaskId(r.task)]
        assert r.budget == task.budget and 0 < r.actions == len(r.calls) <= r.budget
        expected = [m.advancement.removeprefix("minecraft:story/") for m in task.milestones]
        # Every milestone of the task was granted and the last one (the task's goal) is among them.
        assert set(expected) <= set(r.milestones), (r.task, r.world, r.milestones)
        assert all(rep.status in ("success", "failure") for _, rep in r.calls)


@pytest_twisted.ensureDeferred
@pytest.mark.parametrize("kind", ["vanilla", pytest.param("M01", marks=pytest.mark.slow)])
async def test_diamond_route_completes_in_vanilla_and_m01(
    sandbox_world: Path, tmp_path: Path, kind: str
) -> None:
    """Diamond in Vanilla (default tier) and M01 (the iron-hungry suite: 9 raw iron for the pickaxe; slow tier,
    ~5 minutes at 20 t/s on a loaded machine)."""
    rows = await reachability(sandbox_world, launch_embedded, tmp_path, [TaskId.DIAMOND], [kind])
    _check(rows, [TaskId.DIAMOND], [kind])


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_full_reachability_table_is_green(sandbox_world: Path, tmp_path: Path) -> None:
    """All 21 cells (3 tasks x 7 world kinds) complete within budget (~20-30 min on one core)."""
    tasks, kinds = list(TaskId), list(WORLD_KINDS)
    rows = await reachability(sandbox_world, launch_embedded, tmp_path, tasks, kinds)
    _check(rows, tasks, kinds)
