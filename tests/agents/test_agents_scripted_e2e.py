"""End-to-end: the offline scripted policy completes Vanilla tasks on the embedded server (issue 8).

Everything is real: the runner (:class:`~mirrorcraft.study.runner.EpisodeRunner`) copies the world, starts
the embedded server on this reactor at 100 ticks/s, the pure-Python body joins over TCP, and the scripted
policy plays through the skills until the final milestone (Score 100) or the task budget (50 actions).

Worlds:

* ``sandbox`` (:func:`mirrorcraft.worlds.sandbox.build_sandbox`): every resource within ~16 blocks of
  spawn. The runner resolves worlds through the catalogue, so the sandbox save is built in the slot where
  it looks for ``plains-1`` (``<worlds>/vanilla/plains-1``); the record's world id therefore reads
  ``plains-1``, but the blocks are the sandbox's. The policy is never told which world it is in.
  Diamond completes here in ~19 actions (~45 s wall). Iron Armor cannot: the sandbox holds 3 iron ores
  and the cheapest armour piece (boots) needs 4 ingots, so Iron Armor is checked in ``plains-1`` only.
* ``plains-1`` (catalogue, radius 96): stone and ores lie underground (``dig_down``), checked in the
  ``slow`` tier.

Default tier: sandbox Diamond (~45 s). Slow tier: Iron Armor and Diamond in ``plains-1``.
"""

from __future__ import annotations

import itertools
import time
import warnings
from pathlib import Path

import pytest
import pytest_twisted
from support.runner_support import scripted_identity

from mirrorcraft.contracts import EndReason, TaskId, task_spec
from mirrorcraft.contracts.tasks import DEFAULT_BUDGETS
from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings

TICK_RATE = 100.0


@pytest.fixture(scope="module")
def sandbox_worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mirrorcraft.worlds.sandbox import build_sandbox

    out = tmp_path_factory.mktemp("scripted-e2e-sandbox")
    build_sandbox(out / "vanilla" / "plains-1")
    return out


@pytest.fixture(scope="module")
def plains_worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mirrorcraft.worlds.catalogue import build_world

    out = tmp_path_factory.mktemp("scripted-e2e-plains")
    build_world("plains-1", out, 96)
    return out


async def _play(worlds: Path, work: Path, task: TaskId) -> tuple[object, float]:
    work.mkdir(parents=True, exist_ok=True)
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=work, tick_rate=TICK_RATE)
    ident = scripted_identity(None, budget=DEFAULT_BUDGETS[task], task=task.value)
    t0 = time.monotonic()
    record = await EpisodeRunner(settings).run(ident)
    return record, time.monotonic() - t0


def _print_trail(record) -> None:
    """The whole trail in the captured output (an assertion's repr of it is cut)."""
    for step in record.trajectory:
        print(step.index, step.call.name, step.call.args, step.report.status, step.report.message)


def _check_success(record, task: TaskId, wall: float) -> None:
    trail = [(s.index, s.call.name, s.report.status, s.report.message) for s in record.trajectory]
    if record.outcome.score != 100:
        _print_trail(record)
    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert record.outcome.score == 100, (record.outcome.score, trail)
    assert record.outcome.end_reason == EndReason.FINAL_MILESTONE, trail
    assert record.outcome.actions_used == len(record.trajectory) <= DEFAULT_BUDGETS[task]
    assert record.milestone_values == task_spec(task.value).values()
    assert record.trajectory[-1].score_after == 100
    print(f"{task.value}: score 100 in {record.outcome.actions_used} actions, {wall:.1f} s wall")


@pytest_twisted.ensureDeferred
async def test_scripted_policy_mines_a_diamond_in_the_sandbox(sandbox_worlds, tmp_path) -> None:
    """Diamond within budget, in at most two episodes.

    Why two: the scripted policy is not seeded-deterministic (cows and item drops move in real server time,
    and what it sees depends on when it looks). Measured 2026-11-30: 14 of 15 episodes completed in ~18
    actions; one (in CI) ran out of its 50 actions at Score 50. A first failure is printed in full and
    warned about, never hidden; two failures in a row fail the test.
    """
    record, wall = await _play(sandbox_worlds, tmp_path / "first", TaskId.DIAMOND)
    if record.outcome.score != 100:
        _print_trail(record)
        warnings.warn(
            f"scripted Diamond episode 1 ended at Score {record.outcome.score} after "
            f"{record.outcome.actions_used} actions; running a second episode",
            stacklevel=1,
        )
        record, wall = await _play(sandbox_worlds, tmp_path / "second", TaskId.DIAMOND)
    _check_success(record, TaskId.DIAMOND, wall)
    names = [s.call.name for s in record.trajectory]
    # the policy adapted its stations and tools itself: it crafted at a placed table and smelted
    assert "place" in names and "smelt" in names and names[-1] == "mine"


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_scripted_policy_obtains_iron_armor_in_plains(plains_worlds, tmp_path) -> None:
    record, wall = await _play(plains_worlds, tmp_path, TaskId.IRON_ARMOR)
    _check_success(record, TaskId.IRON_ARMOR, wall)


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_scripted_policy_mines_a_diamond_in_plains(plains_worlds, tmp_path) -> None:
    record, wall = await _play(plains_worlds, tmp_path, TaskId.DIAMOND)
    _check_success(record, TaskId.DIAMOND, wall)


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_scripted_policy_does_not_repeat_a_refused_staircase(tmp_path) -> None:
    """savanna-1 Iron Armor seed 0 (issue 21's full reliability table): water all round the spawn refuses
    every staircase; the policy called the same ``dig_down`` 43 times to the end of its budget (Score 0). It
    now turns to its unstick cycle (recover, a short staircase, explore) after two failed moves in a row."""
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings
    from mirrorcraft.worlds.catalogue import build_world

    worlds = tmp_path / "worlds"
    build_world("savanna-1", worlds, 256)  # the catalogue radius the table used
    work = tmp_path / "work"
    work.mkdir()
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=work, tick_rate=TICK_RATE)
    ident = EpisodeIdentity(
        world="savanna-1", suite=None, task="iron_armor", budget=DEFAULT_BUDGETS[TaskId.IRON_ARMOR],
        agent="scripted", model=ModelSettings(name="scripted", temperature=0.0), repetition=0, study_seed=0,
    )  # fmt: skip
    t0 = time.monotonic()
    record = await EpisodeRunner(settings).run(ident)
    calls = [(s.call.name, s.call.args, s.report.status) for s in record.trajectory]
    repeats = max((sum(1 for _ in g) for k, g in itertools.groupby(calls) if k[2] == "failure"), default=0)
    _print_trail(record)
    assert repeats <= 2, calls  # never the same failing call three times running
    _check_success(record, TaskId.IRON_ARMOR, time.monotonic() - t0)
