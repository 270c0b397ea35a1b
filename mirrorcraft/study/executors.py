"""Executors (in-process, local process pool, Ray) and the study driver :func:`run_study`.

The episode runner is a callable ``run_episode(identity) -> EpisodeRecord`` (or a coroutine function
returning one); it is injected, so this module never pretends to run games. Whatever the executor, the
callable runs through :func:`execute_episode`, which always hands back a record as JSON text: the
runner's own record, or an infrastructure-fault record when the runner raised, returned something else,
or returned the record of another episode. Workers only *return* records; the driver alone appends
them to the store (single writer), so a kill of any process never corrupts more than the line being
written (see :mod:`mirrorcraft.study.store`).

Executors (architecture principle 7: "no home-made scheduler beyond a thin adapter"):

* :class:`InProcessExecutor` (``workers=0``) runs episodes one by one in the driver (debugging, tests).
* :class:`LocalExecutor` (``workers=N``) is a :class:`concurrent.futures.ProcessPoolExecutor` with the
  ``spawn`` start method: N long-lived worker processes, each running many episodes one after another
  (a Twisted reactor cannot be restarted, so a worker hosting one must live across episodes). An
  optional ``initializer`` runs once per worker. It has **no per-episode timeout** (a running process
  pool task cannot be cancelled); the runner's own per-call limits bound an episode.
* :class:`RayExecutor` (``executor="ray"``) submits each episode as a Ray task (``max_retries=0``: the
  driver does the retrying, so every attempt is recorded) with an optional timeout after which the task
  is cancelled and recorded as an infrastructure fault. Ray is the optional extra ``mirrorcraft[ray]``,
  imported only here, with a clear error when missing.
"""

from __future__ import annotations

import asyncio
import inspect
import multiprocessing
import time
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mirrorcraft.contracts import EpisodeIdentity, EpisodeRecord, StudyGrid, read_record
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault
from mirrorcraft.metrics.results import RESULTS_FILE
from mirrorcraft.metrics.synthetic import fault_record
from mirrorcraft.study.grid import check_same_grid, expand_grid, read_grid, write_grid
from mirrorcraft.study.progress import StudyProgress
from mirrorcraft.study.store import ResultsStore

EpisodeFn = Callable[[EpisodeIdentity], "EpisodeRecord | Awaitable[EpisodeRecord]"]


async def _await(result: Awaitable[EpisodeRecord]) -> EpisodeRecord:
    return await result


def execute_episode(run_episode: EpisodeFn, identity_json: str, evaluator: str = "embedded") -> str:
    """Run one episode and return its record as JSON text; never raises for a failing episode.

    Args:
        run_episode: the episode runner (sync, or returning an awaitable run with :func:`asyncio.run`).
        identity_json: the identity as JSON (plain text crosses process boundaries cheaply and exactly).
        evaluator: evaluator name written into fault records built here.

    Returns:
        The record's JSON: the runner's record, or an infrastructure-fault record (kind ``other``, with
        the traceback) when the runner raised or returned a wrong value.
    """
    identity = EpisodeIdentity.model_validate_json(identity_json)
    try:
        result = run_episode(identity)
        if inspect.isawaitable(result):
            result = asyncio.run(_await(result))
        if not isinstance(result, EpisodeRecord):
            raise ContractError(f"run_episode returned {type(result).__name__}, expected an EpisodeRecord")
        if result.episode_id != identity.episode_id:
            raise ContractError(
                f"run_episode returned the record of {result.episode_id} for episode {identity.episode_id}"
            )
        return result.model_dump_json()
    except Exception as err:  # noqa: BLE001 - every runner failure becomes a recorded, retried fault
        return fault_record(
            identity,
            "other",
            f"run_episode raised {type(err).__name__}: {err}",
            traceback=traceback.format_exc(),
            evaluator=evaluator,
        ).model_dump_json()


class Executor(ABC):
    """Runs episodes and hands back their records one at a time, in completion order."""

    evaluator: str = "embedded"

    @abstractmethod
    def start(self, run_episode: EpisodeFn) -> None:
        """Prepare workers for ``run_episode``."""

    @property
    @abstractmethod
    def capacity(self) -> int:
        """How many episodes the driver should keep in flight."""

    @abstractmethod
    def submit(self, identity: EpisodeIdentity) -> None:
        """Start one episode."""

    @abstractmethod
    def next_done(self) -> EpisodeRecord:
        """Block until a submitted episode finishes and return its record."""

    @abstractmethod
    def shutdown(self) -> None:
        """Stop workers (in-flight episodes are abandoned; they were not recorded)."""


class InProcessExecutor(Executor):
    """Runs each episode in the driver process when the driver asks for its result."""

    def __init__(self, evaluator: str = "embedded") -> None:
        self.evaluator = evaluator
        self._fn: EpisodeFn | None = None
        self._queue: deque[EpisodeIdentity] = deque()

    def start(self, run_episode: EpisodeFn) -> None:
        self._fn = run_episode

    @property
    def capacity(self) -> int:
        return 1

    def submit(self, identity: EpisodeIdentity) -> None:
        self._queue.append(identity)

    def next_done(self) -> EpisodeRecord:
        assert self._fn is not None, "start() first"
        ident = self._queue.popleft()
        return read_record(execute_episode(self._fn, ident.model_dump_json(), self.evaluator))

    def shutdown(self) -> None:
        self._queue.clear()


class LocalExecutor(Executor):
    """A pool of ``workers`` spawned processes (see module docstring).

    Args:
        workers: number of worker processes (≥ 1).
        initializer: run once in each worker before its first episode (e.g. start a reactor thread).
        evaluator: evaluator name for fault records built by the driver side.
    """

    def __init__(
        self, workers: int, *, initializer: Callable[[], None] | None = None, evaluator: str = "embedded"
    ) -> None:
        if workers < 1:
            raise ValueError(f"LocalExecutor needs workers >= 1, got {workers} (use InProcessExecutor for 0)")
        self.workers = workers
        self.initializer = initializer
        self.evaluator = evaluator
        self._pool: ProcessPoolExecutor | None = None
        self._fn: EpisodeFn | None = None
        self._futures: dict[Future[str], EpisodeIdentity] = {}

    def start(self, run_episode: EpisodeFn) -> None:
        self._fn = run_episode
        self._new_pool()

    def _new_pool(self) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=self.initializer,
        )

    @property
    def capacity(self) -> int:
        return self.workers

    def submit(self, identity: EpisodeIdentity) -> None:
        assert self._pool is not None, "start() first"
        try:
            fut = self._pool.submit(execute_episode, self._fn, identity.model_dump_json(), self.evaluator)
        except BrokenProcessPool:
            # A worker died (crash, OOM kill): its episodes came back as faults; start a fresh pool once
            # the broken one has no futures left to report.
            if any(not f.done() for f in self._futures):
                raise
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._new_pool()
            fut = self._pool.submit(execute_episode, self._fn, identity.model_dump_json(), self.evaluator)
        self._futures[fut] = identity

    def next_done(self) -> EpisodeRecord:
        done, _ = wait(list(self._futures), return_when=FIRST_COMPLETED)
        fut = min(done, key=lambda f: list(self._futures).index(f))  # oldest first among finished
        ident = self._futures.pop(fut)
        try:
            return read_record(fut.result())
        except Exception as err:  # noqa: BLE001 - a dead worker (BrokenProcessPool) is an infrastructure fault
            return fault_record(
                ident, "other", f"worker failed: {type(err).__name__}: {err}", evaluator=self.evaluator
            )

    def shutdown(self) -> None:
        if self._pool is not None:
            # After a normal end nothing is in flight and the workers are joined; when the driver is
            # interrupted, queued episodes are cancelled and the driver does not wait for running ones
            # (their records would not be written anyway: the store has a single writer, this process).
            interrupted = bool(self._futures)
            for fut in self._futures:
                fut.cancel()
            self._pool.shutdown(wait=not interrupted, cancel_futures=True)
            self._pool = None
        self._futures.clear()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as err:
        raise ContractError(
            "executor 'ray' needs Ray, the optional extra: pip install 'mirrorcraft[ray]' "
            f"(import failed: {err})"
        ) from err
    return ray


class RayExecutor(Executor):
    """Each episode is one Ray task (see module docstring).

    Args:
        address: Ray cluster address (``"auto"``, ``"ray://host:10001"``); None starts a local Ray.
        num_cpus: CPUs of a local Ray started here (ignored with ``address``).
        timeout_s: per-episode wall-clock limit; the task is cancelled and recorded as a fault.
        cpus_per_episode: Ray CPU resources each episode task requests.
        init_kwargs: extra ``ray.init`` arguments (e.g. ``runtime_env``).
        evaluator: evaluator name for fault records.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        timeout_s: float | None = None,
        cpus_per_episode: float = 1.0,
        init_kwargs: dict[str, Any] | None = None,
        evaluator: str = "embedded",
    ) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.timeout_s = timeout_s
        self.cpus_per_episode = cpus_per_episode
        self.init_kwargs = dict(init_kwargs or {})
        self.evaluator = evaluator
        self._ray: Any = None
        self._owns_ray = False
        self._remote: Any = None
        self._fn_ref: Any = None
        self._inflight: dict[Any, tuple[EpisodeIdentity, float | None]] = {}
        self._capacity = 1

    def start(self, run_episode: EpisodeFn) -> None:
        ray = self._ray = _import_ray()
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False} | self.init_kwargs
            if self.address is not None:
                kwargs["address"] = self.address
            elif self.num_cpus is not None:
                kwargs["num_cpus"] = self.num_cpus
            ray.init(**kwargs)
            self._owns_ray = True
        self._remote = ray.remote(num_cpus=self.cpus_per_episode, max_retries=0)(execute_episode)
        self._fn_ref = ray.put(run_episode)
        cpus = float(ray.cluster_resources().get("CPU", 1))
        self._capacity = max(1, int(cpus // self.cpus_per_episode))

    @property
    def capacity(self) -> int:
        return self._capacity

    def submit(self, identity: EpisodeIdentity) -> None:
        ref = self._remote.remote(self._fn_ref, identity.model_dump_json(), self.evaluator)
        deadline = time.monotonic() + self.timeout_s if self.timeout_s else None
        self._inflight[ref] = (identity, deadline)

    def next_done(self) -> EpisodeRecord:
        ray = self._ray
        while True:
            ready, _ = ray.wait(list(self._inflight), num_returns=1, timeout=0.2)
            if ready:
                ident, _ = self._inflight.pop(ready[0])
                try:
                    return read_record(ray.get(ready[0]))
                except Exception as err:  # noqa: BLE001 - a lost worker/node is an infrastructure fault
                    return fault_record(
                        ident,
                        "other",
                        f"Ray task failed: {type(err).__name__}: {err}",
                        evaluator=self.evaluator,
                    )
            now = time.monotonic()
            for ref, (ident, deadline) in list(self._inflight.items()):
                if deadline is not None and now > deadline:
                    ray.cancel(ref, force=True)
                    del self._inflight[ref]
                    return fault_record(
                        ident,
                        "other",
                        f"episode exceeded the {self.timeout_s}s timeout; Ray task cancelled",
                        evaluator=self.evaluator,
                    )

    def shutdown(self) -> None:
        if self._ray is not None:
            for ref in self._inflight:
                self._ray.cancel(ref, force=True)
            self._inflight.clear()
            if self._owns_ray:
                self._ray.shutdown()
                self._owns_ray = False


def make_executor(
    kind: Literal["local", "ray"] = "local",
    *,
    workers: int = 1,
    address: str | None = None,
    timeout_s: float | None = None,
    evaluator: str = "embedded",
    **kwargs: Any,
) -> Executor:
    """Build an executor by name: ``local`` (``workers=0`` runs in process) or ``ray``.

    Raises:
        ContractError: unknown kind, or Ray missing for ``ray``.
    """
    if kind == "local":
        if workers == 0:
            return InProcessExecutor(evaluator)
        return LocalExecutor(workers, evaluator=evaluator, **kwargs)
    if kind == "ray":
        _import_ray()
        return RayExecutor(address, timeout_s=timeout_s, evaluator=evaluator, **kwargs)
    raise ContractError(f"unknown executor {kind!r}; expected 'local' or 'ray'")


@dataclass(frozen=True)
class StudySummary:
    """What one :func:`run_study` session did."""

    run_dir: Path
    total: int  #: episodes in the grid
    already_done: int  #: episodes with a final record before this session
    completed: int  #: episodes that got their final record in this session
    retried: int  #: fault records written that were retried
    final_faults: int  #: episodes whose final record (this session) is a fault
    bad_lines: int  #: ignored lines found when the store was opened
    elapsed_s: float
    cost_usd: float = 0.0  #: API cost of every record in the run folder (all sessions, all attempts)
    stopped_by_cost: bool = False  #: the study cost cap stopped the session before the grid was done
    all_faults: bool = False  #: no episode of the grid has a non-fault final record

    @property
    def finished(self) -> bool:
        return self.already_done + self.completed == self.total


def run_study(
    run_dir: Path | str,
    grid: StudyGrid,
    run_episode: EpisodeFn,
    *,
    executor: Executor | None = None,
    resume: bool = False,
    max_attempts: int = 3,
    progress: bool | StudyProgress = True,
    max_cost_usd: float | None = None,
    episode_cost_usd: float | None = None,
) -> StudySummary:
    """Run (or resume) every episode of ``grid`` not yet recorded in ``run_dir``.

    Args:
        run_dir: the run folder (``grid.json``, ``results.jsonl``).
        grid: the study grid.
        run_episode: the episode runner (see module docstring).
        executor: where episodes run (default: :class:`InProcessExecutor`).
        resume: continue a folder that already has results (required when it does).
        max_attempts: attempts per episode before an infrastructure fault is final.
        progress: draw a progress bar (or pass a :class:`StudyProgress`).
        max_cost_usd: the study's spending cap: the cost of every record in the folder (all sessions,
            faults included). No episode is started once it is reached; with ``episode_cost_usd`` (the
            per-episode cap the runner enforces) an episode starts only if the cap still holds when every
            running episode and the new one spend their whole episode cap, so the study never exceeds it.
            Running episodes finish and are recorded; the summary says ``stopped_by_cost``, and a later
            ``resume`` with a higher cap continues.
        episode_cost_usd: the per-episode cap (see ``max_cost_usd``).

    Returns:
        The session summary.

    Raises:
        ContractError: the folder has results and ``resume`` is False, or it was started with another
            grid, or records in it belong to no episode of the grid.
        RunFolderError: the run folder cannot be written (full disk, read-only), naming the path.
    """
    from mirrorcraft.metrics.results import writing

    run_dir = Path(run_dir)
    start = time.monotonic()
    if (run_dir / RESULTS_FILE).exists() and not resume:
        raise ContractError(f"{run_dir}: already holds results; pass --resume to continue it")
    with writing(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
        check_same_grid(run_dir, grid)
        if read_grid(run_dir) is None:
            write_grid(run_dir, grid)
    identities = expand_grid(grid)
    by_id = {i.episode_id: i for i in identities}
    executor = executor or InProcessExecutor()
    with ResultsStore(run_dir, max_attempts=max_attempts) as store:
        foreign = sorted(set(store.scan.attempts if store.scan else ()) - set(by_id))
        if foreign:
            raise ContractError(
                f"{store.path}: {len(foreign)} records belong to no episode of grid {grid.name} "
                f"(e.g. {foreign[0]})"
            )
        queue = deque(store.pending(identities))
        already = len(identities) - len(queue)
        bar = (
            progress
            if isinstance(progress, StudyProgress)
            else StudyProgress(len(identities), already, enabled=bool(progress))
        )
        completed = retried = final_faults = 0
        inflight = 0
        stopped = False

        def affordable() -> bool:
            if max_cost_usd is None:
                return True
            if episode_cost_usd is None:
                return store.cost_usd < max_cost_usd
            return store.cost_usd + (inflight + 1) * episode_cost_usd <= max_cost_usd

        executor.start(run_episode)
        try:
            with bar:
                while queue or inflight:
                    while queue and inflight < executor.capacity and affordable():
                        executor.submit(queue.popleft())
                        inflight += 1
                    if inflight == 0:
                        stopped = True  # episodes are left and the cost cap allows none of them
                        break
                    record = executor.next_done()
                    inflight -= 1
                    final = store.append(record)
                    bar.update(record, final)
                    if not final:
                        retried += 1
                        queue.append(by_id[record.episode_id])
                    else:
                        completed += 1
                        final_faults += int(is_fault(record))
        finally:
            executor.shutdown()
        earlier = store.scan.attempts.values() if store.scan else []
        ok = completed > final_faults or any(not is_fault(r) for recs in earlier for r in recs)
        done = already + completed
        return StudySummary(
            run_dir=run_dir,
            total=len(identities),
            already_done=already,
            completed=completed,
            retried=retried,
            final_faults=final_faults,
            bad_lines=len(store.bad_lines),
            elapsed_s=time.monotonic() - start,
            cost_usd=store.cost_usd,
            stopped_by_cost=stopped,
            all_faults=done > 0 and not ok,
        )
