"""The reachability table: every task's scripted route completes in every world kind, within budget.

Each cell makes the Vanilla or Mirror copy the catalogue's way (``mirrorcraft.worlds.copies``: the
suite's compiled datapack enabled in ``level.dat``), starts the embedded server on it, and drives the
suite-aware route (``mirrorcraft.skills.routes``) through the real skills over 127.0.0.1. A cell passes
when the route reports it completed (the goal item carried / armour worn / an item enchanted) within the
task's budget AND every milestone advancement of the task was granted by the server (read from the
advancements packets the body received), so the verdict is not only the route's bookkeeping.

The tables run through the user's command, ``python -m mirrorcraft.run check reachability --json``, in
two child processes side by side (each owns a server and a body; the machine has two cores), at 400 game
ticks per second: the skills count their limits on the server's game clock (its world age), so the verdict
approaches the one a real-time run gives (docs/skills.md "Reachability" has the measured tables).

Default tier: the full 21-cell table (3 tasks x Vanilla, M01-M06) on the sandbox (~4 min).
Slow tier: the same table on every Vanilla catalogue world, each built here from scratch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.refdata import REPO_ROOT

from mirrorcraft.contracts import TASKS, TaskId
from mirrorcraft.skills.routes import WORLD_KINDS
from mirrorcraft.worlds.catalogue import VANILLA_WORLDS

#: The two halves of the world kinds, balanced by measured actions (docs/skills.md).
HALVES = (("vanilla", "M01", "M02", "M06"), ("M03", "M04", "M05"))
TICK_RATE = 400
TABLE_TIMEOUT = 1800  # seconds per child; a stuck child fails the test instead of hanging the suite


def run_table(tmp: Path, world: str, worlds_dir: Path | None = None) -> list[dict]:
    """Run the full table for ``world`` in two ``check reachability`` children; their records, in order."""
    procs = []
    for i, kinds in enumerate(HALVES):
        out = tmp / f"table-{i}.json"
        cmd = [sys.executable, "-m", "mirrorcraft.run", "check", "reachability", "--world", world]
        if worlds_dir is not None:
            cmd += ["--worlds-dir", str(worlds_dir)]
        cmd += ["--kinds", ",".join(kinds), "--tick-rate", str(TICK_RATE), "--json", str(out)]
        log = (tmp / f"table-{i}.log").open("w")
        procs.append((subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT), out, log))
    rows: list[dict] = []
    for proc, out, log in procs:
        try:
            proc.wait(timeout=TABLE_TIMEOUT)
        except subprocess.TimeoutExpired:
            for p, _, _ in procs:
                p.kill()
            pytest.fail(f"check reachability did not finish in {TABLE_TIMEOUT} s; log: {log.name}")
        finally:
            log.close()
        text = Path(log.name).read_text()
        assert out.is_file(), f"no JSON records (exit {proc.returncode}):\n{text[-3000:]}"
        rows += json.loads(out.read_text())
        # exit status: 0 only if every route of that child completed (checked per cell below as well)
        assert proc.returncode in (0, 1), text[-3000:]
    return rows


def check_table(rows: list[dict], world: str) -> None:
    """Every cell present, completed within budget, with the task's milestones granted by the server."""
    kinds = [k for half in HALVES for k in half]
    assert sorted(kinds) == sorted(WORLD_KINDS)
    assert [(r["task"], r["world"]) for r in rows] == [
        (t.value, f"{world}/{k}") for k in kinds for t in TaskId
    ]
    failed = [
        f"{r['task']} {r['world']}: {r['stopped_at']}: {r['detail']}" for r in rows if not r["completed"]
    ]
    assert not failed, "\n".join(failed)
    for r in rows:
        task = TASKS[TaskId(r["task"])]
        assert r["budget"] == task.budget and 0 < r["actions"] == len(r["calls"]) <= r["budget"]
        expected = [m.advancement.removeprefix("minecraft:story/") for m in task.milestones]
        # Every milestone of the task was granted by the server, the last one (the task's goal) included.
        assert set(expected) <= set(r["milestones"]), (r["task"], r["world"], r["milestones"])
        assert all(c["status"] in ("success", "failure") for c in r["calls"])
        if r["task"] == TaskId.ENCHANTMENT.value:
            assert r["calls"][-1]["skill"] == "enchant" and r["calls"][-1]["status"] == "success"


def test_full_sandbox_table_is_green(tmp_path: Path) -> None:
    """All 21 cells (3 tasks x 7 world kinds) on the sandbox complete within budget."""
    rows = run_table(tmp_path, "sandbox")
    check_table(rows, "sandbox")


@pytest.mark.slow
@pytest.mark.parametrize("world", VANILLA_WORLDS)
def test_catalogue_world_table_is_green(tmp_path: Path, world: str) -> None:
    """All 21 cells on a catalogue world, built here from its name (~25 s) and copied per cell."""
    out = tmp_path / "worlds"
    subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "worlds", "build", "--only", world, "--out", str(out)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    rows = run_table(tmp_path, world, out)
    check_table(rows, world)
