"""Resumable team studies (PillagerBench): a :class:`~mirrorcraft.contracts.TeamGrid` run block by block into a
kill-safe run folder, in process, on a local process pool or on Ray.

**The block is the scheduling unit.** A block is the consecutive episodes of one pairing, side, arena variant
and repeat, and its two system objects live across them (the original's multi-round learning), so a block's
episodes run in order in **one** worker, which makes the two systems once and keeps them. Different blocks run
in parallel. A worker *streams* one event per finished episode back to the driver (a queue for the local pool,
a streaming generator task for Ray), so an episode is recorded as soon as it ends, not when its block does.

**The driver is the single writer** (:class:`~mirrorcraft.study.team_store.TeamResultsStore`): for each event it
writes the systems' ``checkpoint()`` to ``OUT/checkpoints/<episode id>.json``, then appends the record to
``OUT/results.jsonl`` (one ``os.write`` + ``fsync``). ``OUT/team_study.json`` (the manifest: the resolved grid
and a digest of its ids) is written before the first episode; a rerun into the same folder, with or without
``--resume``, must bring the same grid and then skips every episode id that has its final record. So a kill at
any moment loses at most the episodes in flight and never duplicates one.

**Resuming a block.** A block with finished and pending episodes continues at its first pending episode in a
fresh worker: the systems are made anew and ``restore()``d from the checkpoint of the block's last finished
episode (:meth:`~mirrorcraft.study.team_store.TeamResultsStore.restore_point`). Systems that keep all their
state in ``checkpoint()`` continue exactly; the default checkpoint is empty (stateless systems).

**Infrastructure faults** (the episode raised: the server did not start, a connection failed — anything outside
a system's control; a system's own crash is an agent fault inside the record): the worker records a fault record
for that episode and ends the block; the driver appends it and reschedules the rest of the block from its last
checkpoint, so the episode reruns under the same id, with systems restored as on a resume, until it has a
record or ``max_attempts`` faults (then the fault is final, the report lists it and the block goes on without
it). A worker process that dies is a fault of the episode it was playing.

**Seeds** are the identities' own (:meth:`~mirrorcraft.contracts.TeamEpisodeIdentity.seed`): nothing here draws
randomness.

Partial: no per-block timeout on Ray (a hung episode is bounded by the episode's own limits), no cost cap (the
built-in systems spend nothing).
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import queue as queue_mod
import time
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts import InfrastructureFault
from mirrorcraft.contracts.teams import (
    SIDES,
    TEAM_STUDY_MANIFEST,
    TeamEndReason,
    TeamEpisodeIdentity,
    TeamEpisodeRecord,
    TeamGrid,
    TeamOutcome,
    TeamStudyManifest,
    read_team_record,
)
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.results import RESULTS_FILE, writing
from mirrorcraft.metrics.team_results import read_team_manifest
from mirrorcraft.study.grid import check_run_settings, read_run_settings, write_run_settings
from mirrorcraft.study.team_grid import expand_team_grid
from mirrorcraft.study.team_store import TeamResultsStore

__all__ = [
    "DEFAULT_EPISODE_FN",
    "BlockExecutor",
    "InProcessBlockExecutor",
    "LocalBlockExecutor",
    "RayBlockExecutor",
    "TeamRunSettings",
    "TeamStudySummary",
    "TeamStudyUsageError",
    "check_team_run_dir",
    "make_block_executor",
    "run_block",
    "run_team_study",
    "team_fault_record",
    "unknown_systems",
]

#: ``module:callable`` playing one team episode: ``fn(identity, policies, *, arenas, tick_rate) -> record``.
DEFAULT_EPISODE_FN = "mirrorcraft.study.team_episode:play_team_episode"

Event = dict[str, Any]


class TeamStudyUsageError(ContractError):
    """The study cannot start as asked (unknown system, another grid in the folder): exit code 2, nothing run."""


class TeamRunSettings(BaseModel):
    """How a team study's episodes are played (nothing here changes an episode id).

    Attributes:
        arenas: the arena catalogue folder (``arenas/<name>/<variant>/``); missing arenas are built there.
        tick_rate: server ticks per second (20 = real time; episodes are game time at any rate).
        imports: modules imported in the driver and in every worker before the systems are made: where team
            systems outside the package register themselves (``register_team_policy``).
        episode_fn: the episode player as ``module:callable`` (default :data:`DEFAULT_EPISODE_FN`).
        llm: how LLM team systems reach their models and where their calls are recorded or replayed from
            (:class:`~mirrorcraft.agents.teams.TeamLLMRuntime`; JSON object, to reach spawned workers as is).
        clock: ``free`` (default: real time at ``tick_rate``, the world runs on while a system thinks) or
            ``lockstep`` (every body in the tick barrier, a decision charged its system's think ticks; the
            records do not depend on the machine's speed: docs/pillagerbench.md "Lockstep"). Kept in the run
            folder's ``run_settings.json``: a resume with another clock is refused.
        lockstep_paced: in lockstep, keep ``tick_rate`` as the minimum tick interval (False: unpaced).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    arenas: Path
    tick_rate: float = Field(20.0, gt=0, le=1000)
    imports: tuple[str, ...] = ()
    episode_fn: str = DEFAULT_EPISODE_FN
    llm: dict[str, Any] = Field(default_factory=dict)
    clock: Literal["free", "lockstep"] = "free"
    lockstep_paced: bool = True

    def clock_mode(self) -> str:
        """``free``, ``lockstep`` or ``lockstep-unpaced`` (what ``run_settings.json`` keeps)."""
        if self.clock == "free":
            return "free"
        return "lockstep" if self.lockstep_paced else "lockstep-unpaced"

    def episode_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of the episode player: ``arenas``, ``tick_rate``, and the clock only when it
        is not free-running (an episode player of a user's written before the clock existed keeps working)."""
        kw: dict[str, Any] = {"arenas": self.arenas, "tick_rate": self.tick_rate}
        if self.clock != "free":
            kw |= {"clock": self.clock, "lockstep_paced": self.lockstep_paced}
        return kw


def _import_all(modules: tuple[str, ...] | list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as err:
            raise TeamStudyUsageError(f"--import {name}: cannot import it: {err}") from err


def _resolve(spec: str) -> Callable[..., TeamEpisodeRecord]:
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def unknown_systems(grid: TeamGrid) -> list[str]:
    """The system ids of ``grid`` (tested, baseline and opponents) that name no registered team system."""
    from mirrorcraft.agents.teams import TEAM_POLICIES

    ids = [s.id for s in grid.tested_systems()] + [o.id for opp in grid.opponents.values() for o in opp]
    return sorted({i for i in ids if i not in TEAM_POLICIES})


def team_fault_record(
    identity: TeamEpisodeIdentity, kind: str, message: str, *, tb: str | None = None, wall_time_s: float = 0.0
) -> TeamEpisodeRecord:
    """The infrastructure-fault record of an episode that gave no record (no seconds played, no scores)."""
    return TeamEpisodeRecord(
        episode_id=identity.episode_id,
        seed=identity.seed,
        identity=identity,
        scores=[],
        outcome=TeamOutcome(
            red=0.0, blue=0.0, end_reason=TeamEndReason.INFRASTRUCTURE_FAULT, seconds_played=0
        ),
        trajectories=[],
        infrastructure_faults=[InfrastructureFault(kind=kind, message=message, traceback=tb)],  # type: ignore[arg-type]
        wall_time_s=round(wall_time_s, 3),
    )


def _fault_kind(err: BaseException) -> str:
    if isinstance(err, ConnectionError):
        return "disconnected"
    if isinstance(err, OSError | TimeoutError):
        return "server_error"
    return "other"


# ------------------------------------------------------------------------------------------------ worker


def run_block(task: dict[str, Any], settings_json: str) -> Iterator[Event]:
    """Play a block's episodes ``task["play"]`` (block indices, in order) with one pair of system objects.

    ``task``: ``identities`` (the whole block, as JSON objects), ``play``, ``restore`` (a checkpoint file's
    content or None). Yields ``{"kind": "episode", "record": json, "checkpoint": {...} | None,
    "checkpoint_error": str}`` per episode; after an infrastructure fault (a fault record) it stops.
    """
    from mirrorcraft.agents.teams import TeamLLMRuntime, make_team_policy

    settings = TeamRunSettings.model_validate_json(settings_json)
    _import_all(settings.imports)
    play_episode = _resolve(settings.episode_fn)
    block = [TeamEpisodeIdentity.model_validate(d) for d in task["identities"]]
    runtime = TeamLLMRuntime.model_validate(settings.llm)
    policies = {side: make_team_policy(block[0].system_of(side), runtime) for side in SIDES}
    restore = task.get("restore")
    if restore and restore.get("systems") is not None:
        for side in SIDES:
            policies[side].restore(restore["systems"][side])
    for index in task["play"]:
        identity = block[index]
        t0 = time.monotonic()
        try:
            record = play_episode(identity, policies, **settings.episode_kwargs())
            if not isinstance(record, TeamEpisodeRecord) or record.episode_id != identity.episode_id:
                raise ContractError(
                    f"{settings.episode_fn} returned no record of episode {identity.episode_id}"
                )
        except Exception as err:  # noqa: BLE001 - outside the systems' control: a recorded, retried fault
            fault = team_fault_record(
                identity, _fault_kind(err), f"{type(err).__name__}: {err}", tb=traceback.format_exc(),
                wall_time_s=time.monotonic() - t0,
            )  # fmt: skip
            yield {
                "kind": "episode",
                "record": fault.model_dump_json(),
                "checkpoint": None,
                "checkpoint_error": "",
            }
            return  # the driver reschedules the rest of the block from its last checkpoint
        checkpoint: dict[str, Any] | None
        try:
            checkpoint = {side: policies[side].checkpoint() for side in SIDES}
            json.dumps(checkpoint)
            problem = ""
        except Exception as err:  # noqa: BLE001 - a system's broken checkpoint: a resume starts it fresh
            checkpoint, problem = None, f"checkpoint() failed: {type(err).__name__}: {err}"
        yield {
            "kind": "episode",
            "record": record.model_dump_json(),
            "checkpoint": checkpoint,
            "checkpoint_error": problem,
        }


# ------------------------------------------------------------------------------------------------ executors


class BlockExecutor(ABC):
    """Runs blocks (:func:`run_block`) and hands back their events, one at a time, in arrival order.

    :meth:`next_event` returns ``(task id, event)``: an ``episode`` event, or ``{"kind": "end", "error": str |
    None}`` once a task is over (``error``: the worker failed).
    """

    @abstractmethod
    def start(self, settings_json: str) -> None:
        """Prepare the workers."""

    @property
    @abstractmethod
    def capacity(self) -> int:
        """How many blocks the driver keeps in flight."""

    @abstractmethod
    def submit(self, task_id: int, task: dict[str, Any]) -> None:
        """Start one block task."""

    @abstractmethod
    def next_event(self) -> tuple[int, Event]:
        """Block until the next event of a submitted task."""

    @abstractmethod
    def shutdown(self) -> None:
        """Stop the workers (what runs is abandoned: it was not recorded)."""


class InProcessBlockExecutor(BlockExecutor):
    """Blocks one after another in the driver process (``--workers 0``; the default job's demo)."""

    def __init__(self) -> None:
        self._settings = ""
        self._tasks: deque[tuple[int, Iterator[Event]]] = deque()

    def start(self, settings_json: str) -> None:
        self._settings = settings_json

    @property
    def capacity(self) -> int:
        return 1

    def submit(self, task_id: int, task: dict[str, Any]) -> None:
        self._tasks.append((task_id, run_block(task, self._settings)))

    def next_event(self) -> tuple[int, Event]:
        task_id, events = self._tasks[0]
        try:
            return task_id, next(events)
        except StopIteration:
            self._tasks.popleft()
            return task_id, {"kind": "end", "error": None}
        except Exception as err:  # noqa: BLE001 - e.g. restore() raised: the block's next episode faults
            self._tasks.popleft()
            return task_id, {"kind": "end", "error": f"{type(err).__name__}: {err}"}

    def shutdown(self) -> None:
        self._tasks.clear()


_QUEUE: Any = None


def _init_worker(events: Any) -> None:
    global _QUEUE
    _QUEUE = events


def _pool_block(task_id: int, task: dict[str, Any], settings_json: str) -> None:
    """A pool worker's task: stream the block's events to the driver through the worker's queue."""
    error = None
    try:
        for event in run_block(task, settings_json):
            _QUEUE.put((task_id, event))
    except Exception as err:  # noqa: BLE001 - reported to the driver as the block's end
        error = f"{type(err).__name__}: {err}"
    _QUEUE.put((task_id, {"kind": "end", "error": error}))


class LocalBlockExecutor(BlockExecutor):
    """``workers`` spawned processes (a :class:`~concurrent.futures.ProcessPoolExecutor`, as
    :class:`~mirrorcraft.study.executors.LocalExecutor`), each running whole blocks on its own reactor thread
    and putting each episode's event on a queue the pool's workers inherit."""

    #: Polls (0.2 s each) a task's end may lag its future after a worker died, before it is declared failed.
    GRACE_POLLS = 10

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"LocalBlockExecutor needs workers >= 1, got {workers}")
        self.workers = workers
        self._ctx = multiprocessing.get_context("spawn")
        self._queue: Any = None
        self._pool: ProcessPoolExecutor | None = None
        self._settings = ""
        self._futures: dict[int, Future[None]] = {}
        self._grace: dict[int, int] = {}

    def start(self, settings_json: str) -> None:
        self._settings = settings_json
        self._queue = self._ctx.Queue()
        self._new_pool()

    def _new_pool(self) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=self._ctx, initializer=_init_worker, initargs=(self._queue,)
        )

    @property
    def capacity(self) -> int:
        return self.workers

    def submit(self, task_id: int, task: dict[str, Any]) -> None:
        assert self._pool is not None, "start() first"
        try:
            fut = self._pool.submit(_pool_block, task_id, task, self._settings)
        except BrokenProcessPool:
            # A worker died, which breaks the whole pool: every task of it comes back as a failed end (its
            # future is done with the error); the next block starts on a fresh pool.
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._new_pool()
            fut = self._pool.submit(_pool_block, task_id, task, self._settings)
        self._futures[task_id] = fut

    def next_event(self) -> tuple[int, Event]:
        while True:
            try:
                task_id, event = self._queue.get(timeout=0.2)
            except queue_mod.Empty:
                pass
            else:
                if event["kind"] == "end":
                    self._futures.pop(task_id, None)
                return task_id, event
            for task_id, fut in list(self._futures.items()):
                if fut.done() and fut.exception() is not None:
                    self._grace[task_id] = self._grace.get(task_id, 0) + 1
                    if self._grace[task_id] >= self.GRACE_POLLS:
                        del self._futures[task_id]
                        err = fut.exception()
                        return task_id, {
                            "kind": "end",
                            "error": f"worker failed: {type(err).__name__}: {err}",
                        }

    def shutdown(self) -> None:
        if self._pool is not None:
            interrupted = any(not f.done() for f in self._futures.values())
            for fut in self._futures.values():
                fut.cancel()
            self._pool.shutdown(wait=not interrupted, cancel_futures=True)
            self._pool = None
        self._futures.clear()
        if self._queue is not None:
            self._queue.close()
            self._queue = None


def _ray_block(task: dict[str, Any], settings_json: str) -> Iterator[Event]:
    yield from run_block(task, settings_json)


class RayBlockExecutor(BlockExecutor):
    """Each block is one Ray task with a streaming generator (one item per episode; ``max_retries=0``: the
    driver does the retrying, so every attempt is recorded). Ray is the optional extra ``mirrorcraft[ray]``.

    Args:
        address: a Ray cluster address; None starts (and later stops) a local Ray unless one is running.
        num_cpus: CPUs of a local Ray started here.
        cpus_per_block: Ray CPU resources each block task requests.
        init_kwargs: extra ``ray.init`` arguments (e.g. ``runtime_env``).
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        cpus_per_block: float = 1.0,
        init_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.cpus_per_block = cpus_per_block
        self.init_kwargs = dict(init_kwargs or {})
        self._ray: Any = None
        self._owns_ray = False
        self._remote: Any = None
        self._settings = ""
        self._gens: dict[Any, int] = {}
        self._capacity = 1

    def start(self, settings_json: str) -> None:
        from mirrorcraft.study.executors import _import_ray

        ray = self._ray = _import_ray()
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False} | self.init_kwargs
            if self.address is not None:
                kwargs["address"] = self.address
            elif self.num_cpus is not None:
                kwargs["num_cpus"] = self.num_cpus
            ray.init(**kwargs)
            self._owns_ray = True
        self._remote = ray.remote(num_returns="streaming", max_retries=0, num_cpus=self.cpus_per_block)(
            _ray_block
        )
        self._settings = settings_json
        cpus = float(ray.cluster_resources().get("CPU", 1))
        self._capacity = max(1, int(cpus // self.cpus_per_block))

    @property
    def capacity(self) -> int:
        return self._capacity

    def submit(self, task_id: int, task: dict[str, Any]) -> None:
        self._gens[self._remote.remote(task, self._settings)] = task_id

    def next_event(self) -> tuple[int, Event]:
        ray = self._ray
        while True:
            ready, _ = ray.wait(list(self._gens), num_returns=1, timeout=0.2)
            for gen in ready:
                task_id = self._gens[gen]
                try:
                    ref = next(gen)
                except StopIteration:
                    del self._gens[gen]
                    return task_id, {"kind": "end", "error": None}
                try:
                    return task_id, ray.get(ref)
                except Exception as err:  # noqa: BLE001 - a lost worker or a failed task ends the block
                    del self._gens[gen]
                    return task_id, {"kind": "end", "error": f"Ray task failed: {type(err).__name__}: {err}"}

    def shutdown(self) -> None:
        if self._ray is not None:
            for gen in self._gens:
                try:
                    self._ray.cancel(gen, force=True)
                except Exception:  # noqa: BLE001 - already finished
                    pass
            self._gens.clear()
            if self._owns_ray:
                self._ray.shutdown()
                self._owns_ray = False


def make_block_executor(
    kind: Literal["local", "ray"] = "local", *, workers: int = 1, **ray_kwargs: Any
) -> BlockExecutor:
    """``local`` (``workers=0``: in the driver) or ``ray``.

    Raises:
        ContractError: unknown kind, or Ray missing for ``ray``.
    """
    if kind == "local":
        return InProcessBlockExecutor() if workers == 0 else LocalBlockExecutor(workers)
    if kind == "ray":
        from mirrorcraft.study.executors import _import_ray

        _import_ray()
        return RayBlockExecutor(**ray_kwargs)
    raise ContractError(f"unknown executor {kind!r}; expected 'local' or 'ray'")


# ------------------------------------------------------------------------------------------------ driver


@dataclass(frozen=True)
class TeamStudySummary:
    """What one :func:`run_team_study` session did."""

    run_dir: Path
    total: int  #: episodes in the grid
    already_done: int  #: episodes with a final record before this session
    completed: int  #: episodes that got their final record in this session
    retried: int  #: fault records written that were retried
    final_faults: int  #: episodes whose final record (this session) is a fault
    bad_lines: int  #: ignored lines found when the store was opened
    restored_blocks: int  #: block tasks started from a checkpoint (resumed or after a fault)
    elapsed_s: float

    @property
    def finished(self) -> bool:
        return self.already_done + self.completed == self.total


def check_team_run_dir(run_dir: Path, grid: TeamGrid, *, resume: bool) -> None:
    """Refuse a run folder this grid cannot run in, before anything is written.

    Raises:
        TeamStudyUsageError: ``resume`` without a team study in the folder; a folder holding results of no
            team study; a folder started with another grid (the message names the differing fields).
        ContractError: an unreadable manifest.
    """
    stored = read_team_manifest(run_dir)
    if stored is None:
        results = run_dir / RESULTS_FILE
        if results.exists() and results.stat().st_size > 0:  # empty: a kill before the manifest was written
            raise TeamStudyUsageError(
                f"{run_dir}: holds {RESULTS_FILE} but no {TEAM_STUDY_MANIFEST}: not a team study folder; "
                "use a new --out"
            )
        if resume:
            raise TeamStudyUsageError(f"{run_dir}: --resume, but there is no team study to resume here")
        return
    if stored.grid != grid:
        a, b = stored.grid.model_dump(mode="json"), grid.model_dump(mode="json")
        diff = sorted(k for k in a if a[k] != b.get(k))
        raise TeamStudyUsageError(
            f"{run_dir / TEAM_STUDY_MANIFEST}: the study was started with another grid (fields differ: "
            f"{', '.join(diff)}); use a new --out or the same grid, --seconds and seed"
        )


def _write_manifest(run_dir: Path, grid: TeamGrid) -> None:
    path = run_dir / TEAM_STUDY_MANIFEST
    tmp = run_dir / f".{TEAM_STUDY_MANIFEST}.tmp"
    with writing(path):
        tmp.write_text(TeamStudyManifest.of(grid).model_dump_json(indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def _build_arenas(grid: TeamGrid, arenas: Path) -> None:
    from mirrorcraft.worlds.arenas.build import arena_id, arena_path, build_arena

    for ident in sorted({arena_id(s, v) for s in grid.scenarios for v in grid.arena_variants}):
        if not (arena_path(arenas, ident) / "level.dat").is_file():
            build_arena(ident, arenas)


def _line(done: int, total: int, r: TeamEpisodeRecord) -> str:
    i = r.identity
    what = (
        f"fault ({r.infrastructure_faults[-1].message[:80]})"
        if r.is_fault
        else f"{r.tested_score:g} - {r.opponent_score:g}"
    )
    spent = ""
    if r.usage:  # an LLM system's model calls and cost this episode
        calls = sum(u.model_calls for u in r.usage.values())
        spent = f"; {calls} model calls, ${sum(u.cost_usd for u in r.usage.values()):.4f}"
    return (
        f"[{done}/{total}] {r.episode_id} {i.scenario} {i.arena_variant} {i.tested.label} ({i.tested_side}) vs "
        f"{i.opponent.label} rep {i.repeat} #{i.block_index}: {what}{spent}"
    )


def run_team_study(
    run_dir: Path | str,
    grid: TeamGrid,
    settings: TeamRunSettings,
    *,
    executor: BlockExecutor | None = None,
    resume: bool = False,
    max_attempts: int = 3,
    log: Callable[[str], None] | None = print,
) -> TeamStudySummary:
    """Run (or continue) every episode of ``grid`` not yet recorded in ``run_dir`` (module docstring).

    Args:
        run_dir: the run folder (``team_study.json``, ``results.jsonl``, ``checkpoints/``).
        grid: the team grid.
        settings: arenas, tick rate, modules to import, episode player.
        executor: where blocks run (default: in process).
        resume: the folder must already hold this study (a rerun without it continues too).
        max_attempts: attempts per episode before an infrastructure fault is final.
        log: called with one line per recorded episode (None: silent).

    Raises:
        TeamStudyUsageError: see :func:`check_team_run_dir`; a system id no registered system has.
        ContractError: records in the folder belong to no episode of the grid.
        RunFolderError: the run folder cannot be written.
    """
    run_dir = Path(run_dir)
    start = time.monotonic()
    _import_all(settings.imports)
    unknown = unknown_systems(grid)
    if unknown:
        raise TeamStudyUsageError(f"team grid {grid.name}: unknown team system(s) {', '.join(unknown)}")
    check_team_run_dir(run_dir, grid, resume=resume)
    run_settings = {"clock": settings.clock_mode()}
    try:
        check_run_settings(run_dir, run_settings, has_results=(run_dir / RESULTS_FILE).exists())
    except ContractError as err:
        raise TeamStudyUsageError(str(err)) from err
    identities = expand_team_grid(grid)
    by_id = {i.episode_id: i for i in identities}
    blocks = grid.blocks()
    block_of = {i.episode_id: b for b in blocks for i in b}
    settings = settings.model_copy(update={"arenas": settings.arenas.resolve()})
    with writing(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
    _build_arenas(grid, settings.arenas)
    if read_team_manifest(run_dir) is None:
        _write_manifest(run_dir, grid)  # before the results file exists: a team run is always told by it
    if read_run_settings(run_dir) is None:
        with writing(run_dir):
            write_run_settings(run_dir, run_settings)
    executor = executor or InProcessBlockExecutor()
    with TeamResultsStore(run_dir, max_attempts=max_attempts) as store:
        assert store.scan is not None
        foreign = sorted(set(store.scan.attempts) - set(by_id))
        if foreign:
            raise ContractError(
                f"{store.path}: {len(foreign)} records belong to no episode of grid {grid.name} (e.g. {foreign[0]})"
            )
        pending_blocks = deque(b for b in blocks if any(not store.is_done(i.episode_id) for i in b))
        already = sum(1 for i in identities if store.is_done(i.episode_id))
        done = already
        completed = retried = final_faults = restored = 0
        inflight: dict[int, list[TeamEpisodeIdentity]] = {}
        faulted: set[int] = set()
        next_id = 0

        def task_for(block: list[TeamEpisodeIdentity]) -> dict[str, Any]:
            nonlocal restored
            play = [i.block_index for i in block if not store.is_done(i.episode_id)]
            point = store.restore_point(block, play[0])
            restored += int(point is not None and point.get("systems") is not None)
            return {"identities": [i.model_dump(mode="json") for i in block], "play": play, "restore": point}

        def record(rec: TeamEpisodeRecord) -> bool:
            nonlocal done, completed, retried, final_faults
            final = store.append(rec)
            if final:
                done += 1
                completed += 1
                final_faults += int(rec.is_fault)
            else:
                retried += 1
            if log is not None:
                log(_line(done, len(identities), rec) + ("" if final else " (will rerun)"))
            return final

        executor.start(settings.model_dump_json())
        try:
            while pending_blocks or inflight:
                while pending_blocks and len(inflight) < executor.capacity:
                    block = pending_blocks.popleft()
                    inflight[next_id] = block
                    executor.submit(next_id, task_for(block))
                    next_id += 1
                task_id, event = executor.next_event()
                block = inflight.get(task_id)
                if block is None:
                    continue  # a late event of a task already declared failed
                if event["kind"] == "episode":
                    rec = read_team_record(event["record"])
                    ident = by_id.get(rec.episode_id)
                    if (
                        ident is None
                        or block_of[rec.episode_id] is not block
                        or store.is_done(rec.episode_id)
                    ):
                        raise ContractError(
                            f"block task {task_id} returned an unexpected record {rec.episode_id}"
                        )
                    if not rec.is_fault:
                        store.write_checkpoint(
                            ident, event.get("checkpoint"), event.get("checkpoint_error", "")
                        )
                    else:
                        faulted.add(task_id)
                    record(rec)
                    continue
                del inflight[task_id]
                left = [i for i in block if not store.is_done(i.episode_id)]
                if left and task_id not in faulted:
                    # The worker died or stopped early: the episode it was playing is an infrastructure fault.
                    why = event.get("error") or "the block's task ended before its episodes"
                    record(team_fault_record(left[0], "other", why))
                faulted.discard(task_id)
                if any(not store.is_done(i.episode_id) for i in block):
                    pending_blocks.appendleft(block)  # continue it from its last checkpoint
        finally:
            executor.shutdown()
        return TeamStudySummary(
            run_dir=run_dir,
            total=len(identities),
            already_done=already,
            completed=completed,
            retried=retried,
            final_faults=final_faults,
            bad_lines=len(store.scan.bad_lines),
            restored_blocks=restored,
            elapsed_s=time.monotonic() - start,
        )
