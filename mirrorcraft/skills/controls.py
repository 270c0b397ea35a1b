"""The scripted controls: reachability (every task × world kind within budget) and paired observations.

Why controls: a Mirror world is only a fair test if (a) every task stays completable within its budget
under the suite's rules — the *reachability control*, run with the suite-aware scripted routes of
:mod:`mirrorcraft.skills.routes` — and (b) an agent cannot tell a Mirror world from its Vanilla twin
before it triggers a changed rule — the *paired-observation control*: one scripted sequence that
triggers no changed rule must produce byte-identical serialized observations in the Vanilla world and in
each Mirror copy, with the same episode seed on a seeded server.

Server- and world-agnostic: this module drives the body and the skills only (contract
"players-never-see-the-server": no server, worlds or datapacks imports). It is given a :class:`WorldSource`
that hands out a fresh save folder of each world kind per cell, and a :data:`Launcher` that starts a server
on a save folder and returns its port and a stop function. The ``check`` command
(:mod:`mirrorcraft.study.check_cli`) and the tests supply them: the world catalogue's copies
(:class:`mirrorcraft.worlds.copies.WorldCopies`: Mirror copies made exactly as the catalogue makes them)
and the embedded server.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mirrorcraft.contracts import TASKS, SkillCall, TaskId, canonical_json
from mirrorcraft.errors import ContractError
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.skills.observe import ActionHistory, ObservationBuilder
from mirrorcraft.skills.registry import SkillSet
from mirrorcraft.skills.routes import WORLD_KINDS, RouteResult, run_route

#: ``await launcher(save_folder, episode_seed)`` -> ``(port, stop)``; ``stop()`` may return a Deferred.
Launcher = Callable[[Path, int], Awaitable[tuple[int, Callable[[], Any]]]]


class WorldSource(Protocol):
    """Hands out fresh save folders (:class:`mirrorcraft.worlds.copies.WorldCopies` is one)."""

    def fresh(self, kind: str, name: str, *, keep_mobs: bool = True) -> Path:
        """A new save folder of world kind ``kind`` (``vanilla`` or a suite id), labelled ``name``;
        ``keep_mobs=False``: without the world's saved mobs.

        Raises:
            ContractError: unknown kind.
        """
        ...


#: A sequence that triggers no rule of any suite in the sandbox: walking, grass (drops dirt, unchanged in
#: every suite), a refused stone dig (no pickaxe: nothing breaks), placing and holding dirt, exploring.
NEUTRAL_SEQUENCE: tuple[tuple[str, dict[str, Any]], ...] = (
    ("go_to", {"x": 4, "y": 65, "z": 4}),
    ("mine", {"block": "grass_block", "count": 2}),
    ("mine", {"block": "stone", "count": 1}),
    ("place", {"item": "dirt", "use": "build"}),
    ("equip", {"item": "dirt"}),
    ("explore", {"direction": "west", "distance": 16}),
)


async def _session(launcher: Launcher, world: Path, seed: int, username: str, task: TaskId):
    port, stop = await launcher(world, seed)
    body = Body(BodyConfig(port=port, username=username, view_distance=4))
    builder = ObservationBuilder(body, TASKS[task])
    try:
        await body.connect()
        if not await body.wait_chunks(radius=2, timeout=30):
            raise ContractError(f"{world}: chunks around spawn did not arrive in 30 s")
        with body.lockstep.acting():  # a lockstep server runs game time only while the body acts
            await body.sleep(0.5)
    except BaseException:
        await _close(body, stop)
        raise
    return body, builder, stop


async def _close(body: Body, stop: Callable[[], Any]) -> None:
    try:
        await body.disconnect()
    finally:
        res = stop()
        if hasattr(res, "addCallback"):
            await res


async def reachability(
    worlds: WorldSource,
    launcher: Launcher,
    tasks: Sequence[TaskId] = tuple(TaskId),
    kinds: Sequence[str] = WORLD_KINDS,
    episode_seed: int = 0,
    world_name: str = "world",
    progress: Callable[[RouteResult], None] | None = None,
    log: Callable[[int, SkillCall, Any], None] | None = None,
) -> list[RouteResult]:
    """Run every task's scripted route in a fresh copy of every world kind.

    Args:
        worlds: Fresh copies of the world of each kind (one per cell, ``<task>-<kind>``).
        launcher: Starts a server on a save (see :data:`Launcher`).
        tasks / kinds: Which cells to run.
        episode_seed: Seed of the server's randomness.
        world_name: Label for the table.
        progress: Called with each finished row.
        log: Called with (index, call, report) after every action of every route.

    Returns:
        One :class:`RouteResult` per (task, kind), in order.
    """
    rows = []
    for kind in kinds:
        for task in tasks:
            world = worlds.fresh(kind, f"{task.value}-{kind}")
            body, _builder, stop = await _session(launcher, world, episode_seed, "route", task)
            try:
                row = await run_route(SkillSet(body), task, kind, f"{world_name}/{kind}", log)
            finally:
                await _close(body, stop)
            rows.append(row)
            if progress is not None:
                progress(row)
    return rows


@dataclass
class PairedRun:
    """Serialized observations of one world kind: the initial one, then one after each action."""

    kind: str
    observations: list[bytes]
    reports: list[str] = field(default_factory=list)


@dataclass
class PairedResult:
    """The paired-observation control's verdict."""

    runs: list[PairedRun]
    mismatches: list[str]

    @property
    def identical(self) -> bool:
        """Every kind's observations equal the Vanilla ones, byte for byte."""
        return not self.mismatches


def first_difference(a: bytes, b: bytes) -> str:
    """A short description of where two serialized observations differ (top-level keys)."""
    da, db = json.loads(a), json.loads(b)
    keys = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
    return ", ".join(
        f"{k}: {canonical_json(da.get(k))[:160]!r} != {canonical_json(db.get(k))[:160]!r}" for k in keys
    )


async def paired_observations(
    worlds: WorldSource,
    launcher: Launcher,
    kinds: Sequence[str] = WORLD_KINDS,
    sequence: Sequence[tuple[str, dict[str, Any]]] = NEUTRAL_SEQUENCE,
    episode_seed: int = 0,
    task: TaskId = TaskId.IRON_ARMOR,
    keep_mobs: bool = False,
) -> PairedResult:
    """Play ``sequence`` in a fresh copy of each world kind and compare the observations byte for byte.

    The first kind is the reference (put ``vanilla`` first). Same player name, same episode seed; each
    kind plays in a fresh copy from ``worlds`` (``paired-<kind>``).

    Mobs: on a free-running server its cows wander on a seeded per-tick AI, so *which* game tick an
    observation samples depends on the wall clock, and two runs see a wandering cow at different points
    (measured: 0.1-2 blocks apart after a few actions); so by default (``keep_mobs=False``) every copy —
    Vanilla and Mirror alike — is asked of ``worlds`` without its saved mobs (the save's ``entities/``
    folder) before the server starts (the pairing stays fair: all copies differ from the save in the same
    way). A lockstep launcher (``embedded_launcher(lockstep=True)``) takes every observation at a fixed game
    tick, so ``keep_mobs=True`` and random ticks compare byte for byte too: each call and the settling wait
    after it run inside ``body.lockstep.acting()`` (no effect on a free-running server).
    """
    calls = [SkillCall.create(n, a) for n, a in sequence]
    runs: list[PairedRun] = []
    for kind in kinds:
        world = worlds.fresh(kind, f"paired-{kind}", keep_mobs=keep_mobs)
        body, builder, stop = await _session(launcher, world, episode_seed, "paired", task)
        try:
            skills = SkillSet(body)
            history = ActionHistory()
            obs = [builder.serialize(history)]
            reports = []
            for call in calls:
                with body.lockstep.acting():
                    report, _ = await skills.execute(call)
                    history.record(call, report)
                    reports.append(
                        f"{call.name}: {report.status} {report.reason or ''} {report.message}".strip()
                    )
                    await body.sleep(0.5)  # let item entities and block updates settle before observing
                obs.append(builder.serialize(history))
        finally:
            await _close(body, stop)
        runs.append(PairedRun(kind, obs, reports))
    mismatches = []
    ref = runs[0]
    for run in runs[1:]:
        for i, (a, b) in enumerate(zip(ref.observations, run.observations, strict=True)):
            if a != b:
                mismatches.append(f"{run.kind} step {i}: {first_difference(a, b)}")
    return PairedResult(runs, mismatches)


def format_reachability(rows: Sequence[RouteResult]) -> str:
    """The reachability table as text (one line per task × world)."""
    head = f"{'task':<12} {'world':<18} {'done':<5} {'actions':>7} {'budget':>6}  milestones / stopped at"
    lines = [head, "-" * len(head)]
    for r in rows:
        tail = ",".join(r.milestones) or "-"
        if r.stopped_at:
            tail += f" | stopped at '{r.stopped_at}': {r.detail}"
        lines.append(
            f"{r.task:<12} {r.world:<18} {'yes' if r.completed else 'no':<5} {r.actions:>7} {r.budget:>6}  {tail}"
        )
    return "\n".join(lines)


def reachability_records(rows: Sequence[RouteResult]) -> list[dict[str, Any]]:
    """The table as JSON-ready records (``check reachability --json``): one per cell, with every call.

    Why: the slow and default-tier tests run cells in parallel child processes and check their records;
    a researcher can also keep the file beside a study as evidence that the worlds were fair.
    """
    out = []
    for r in rows:
        out.append(
            {
                "task": r.task,
                "world": r.world,
                "completed": r.completed,
                "actions": r.actions,
                "budget": r.budget,
                "milestones": list(r.milestones),
                "stopped_at": r.stopped_at,
                "detail": r.detail,
                "calls": [
                    {
                        "skill": call.name,
                        "args": json.loads(canonical_json(call.args)),
                        "status": rep.status,
                        "reason": None if rep.reason is None else str(rep.reason.value),
                        "message": rep.message,
                    }
                    for call, rep in r.calls
                ],
            }
        )
    return out


__all__ = [
    "NEUTRAL_SEQUENCE",
    "Launcher",
    "PairedResult",
    "PairedRun",
    "WorldSource",
    "first_difference",
    "format_reachability",
    "paired_observations",
    "reachability",
    "reachability_records",
]
