"""Executors (in-process, local process pool, Ray) and the study driver :func:`run_study`.

The episode runner is a callable ``run_episode(identity) -> EpisodeRecord`` (or a coroutine function
returning one); it is injected, so this module never pretends to run games. Whatever the executor, the
callable runs through :func:`execute_episode`, which always hands back a record as JSON text: the
runner's own record, or an infrastructure-fault record when the runner raised, returned something else,
or returned the record of another episode. Workers only *return* records; the driver alone appends
them to the store (single writer), so a kill of any process never corrupts more than the line being
written (see :mod:`mirrorcraft.study.store`).

Executors (architecture principle 7: "no home-made scheduler beyond a thin adapter"):

* :class:`InProcessExecutor` (``workers=0``) runs episodes one by one in the driver (debugging, tests);
  with ``concurrency=N`` it runs N at once, each in a thread of the driver.
* :class:`LocalExecutor` (``workers=N``) is a :class:`concurrent.futures.ProcessPoolExecutor` with the
  ``spawn`` start method: N long-lived worker processes, each running many episodes one after another
  (a Twisted reactor cannot be restarted, so a worker hosting one must live across episodes). An
  optional ``initializer`` runs once per worker. It has **no per-episode timeout** (a running process
  pool task cannot be cancelled); the runner's own per-call limits bound an episode. With
  ``concurrency=C`` > 1 each of the N spawned workers runs C episodes at once (:class:`_ThreadedWorker`:
  C threads, each blocking on one episode that runs on the worker's single reactor).
* :class:`RayExecutor` (``executor="ray"``) submits each episode as a Ray task (``max_retries=0``: the
  driver does the retrying, so every attempt is recorded) with an optional timeout after which the task
  is cancelled and recorded as an infrastructure fault. With ``concurrency=C`` > 1 episodes go to
  threaded Ray actors instead (``max_concurrency=C``: C episodes per actor process). Ray is the optional
  extra ``mirrorcraft[ray]``, imported only here, with a clear error when missing.

**Many episodes per process** (issue 23): the episodes of one process share its reactor, its read-only
game data (module-level caches) and its bounded model-call gate
(:mod:`mirrorcraft.study.runner_concurrency`); each still has its own world copy, embedded server and
body. One episode's failure is its own record: an exception of the runner becomes that episode's
fault record (:func:`execute_episode`), and a worker process that dies turns each of its in-flight
episodes into a fault record, retried by the driver like any other.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import multiprocessing
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_connections
from pathlib import Path
from typing import Any, Literal

from mirrorcraft.contracts import EpisodeIdentity, EpisodeRecord, StudyGrid, read_record
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault
from mirrorcraft.metrics.results import RESULTS_FILE
from mirrorcraft.metrics.synthetic import fault_record
from mirrorcraft.study.grid import (
    check_run_settings,
    check_same_grid,
    expand_grid,
    read_grid,
    read_run_settings,
    write_grid,
    write_run_settings,
)
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


def _check_concurrency(concurrency: int) -> None:
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1 episode per process, got {concurrency}")


def _oldest_done(futures: dict[Future[str], EpisodeIdentity]) -> Future[str]:
    done, _ = wait(list(futures), return_when=FIRST_COMPLETED)
    return min(done, key=lambda f: list(futures).index(f))  # oldest first among finished


class InProcessExecutor(Executor):
    """Runs episodes in the driver process: one by one when the driver asks for a result
    (``concurrency=1``), or ``concurrency`` at once, each in a thread of the driver.

    Args:
        evaluator: evaluator name for fault records.
        concurrency: episodes in flight at once (≥ 1).
    """

    def __init__(self, evaluator: str = "embedded", *, concurrency: int = 1) -> None:
        _check_concurrency(concurrency)
        self.evaluator = evaluator
        self.concurrency = concurrency
        self._fn: EpisodeFn | None = None
        self._queue: deque[EpisodeIdentity] = deque()
        self._threads: ThreadPoolExecutor | None = None
        self._futures: dict[Future[str], EpisodeIdentity] = {}

    def start(self, run_episode: EpisodeFn) -> None:
        self._fn = run_episode
        if self.concurrency > 1:
            self._threads = ThreadPoolExecutor(self.concurrency, thread_name_prefix="episode")

    @property
    def capacity(self) -> int:
        return self.concurrency

    def submit(self, identity: EpisodeIdentity) -> None:
        if self._threads is None:
            self._queue.append(identity)
            return
        fut = self._threads.submit(execute_episode, self._fn, identity.model_dump_json(), self.evaluator)
        self._futures[fut] = identity

    def next_done(self) -> EpisodeRecord:
        assert self._fn is not None, "start() first"
        if self._threads is None:
            ident = self._queue.popleft()
            return read_record(execute_episode(self._fn, ident.model_dump_json(), self.evaluator))
        fut = _oldest_done(self._futures)
        del self._futures[fut]
        return read_record(fut.result())  # execute_episode never raises for an episode

    def shutdown(self) -> None:
        self._queue.clear()
        if self._threads is not None:
            # Interrupted: queued episodes are cancelled; running ones are not waited for (not recorded).
            self._threads.shutdown(wait=not self._futures, cancel_futures=True)
            self._threads = None
        self._futures.clear()


def _threaded_worker_main(
    tasks: Connection,
    results: Connection,
    run_episode: EpisodeFn,
    concurrency: int,
    evaluator: str,
    initializer: Callable[[], None] | None,
) -> None:
    """A spawned worker of :class:`_ThreadedWorker`: receive ``(key, identity JSON)``, run up to
    ``concurrency`` episodes at once in threads, send ``(key, record JSON)`` back; ``None`` or a closed
    pipe ends it (after the running episodes)."""
    if initializer is not None:
        initializer()
    lock = threading.Lock()

    def run(key: int, identity_json: str) -> None:
        text = execute_episode(run_episode, identity_json, evaluator)
        with lock:  # one message at a time on the pipe
            results.send((key, text))

    with ThreadPoolExecutor(concurrency, thread_name_prefix="episode") as threads:
        while True:
            try:
                item = tasks.recv()
            except (EOFError, OSError):
                break
            if item is None:
                break
            threads.submit(run, *item)


class _ThreadedWorker:
    """One spawned worker process running ``concurrency`` episodes at once (driver side)."""

    def __init__(
        self, run_episode: EpisodeFn, concurrency: int, evaluator: str, initializer: Callable[[], None] | None
    ) -> None:
        ctx = multiprocessing.get_context("spawn")
        task_r, self.tasks = ctx.Pipe(duplex=False)
        self.results, result_w = ctx.Pipe(duplex=False)
        self.process = ctx.Process(
            target=_threaded_worker_main,
            args=(task_r, result_w, run_episode, concurrency, evaluator, initializer),
            name="mirrorcraft-episodes",
            daemon=True,
        )
        self.process.start()
        task_r.close()
        result_w.close()
        self.inflight: dict[int, EpisodeIdentity] = {}

    def close(self, *, wait_s: float) -> None:
        try:
            self.tasks.send(None)
        except OSError:
            pass
        self.process.join(wait_s)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        self.tasks.close()
        self.results.close()


class LocalExecutor(Executor):
    """A pool of ``workers`` spawned processes (see module docstring).

    Args:
        workers: number of worker processes (≥ 1).
        initializer: run once in each worker before its first episode (e.g. start a reactor thread).
        evaluator: evaluator name for fault records built by the driver side.
    """

    def __init__(
        self,
        workers: int,
        *,
        concurrency: int = 1,
        initializer: Callable[[], None] | None = None,
        evaluator: str = "embedded",
    ) -> None:
        if workers < 1:
            raise ValueError(f"LocalExecutor needs workers >= 1, got {workers} (use InProcessExecutor for 0)")
        _check_concurrency(concurrency)
        self.workers = workers
        self.concurrency = concurrency
        self.initializer = initializer
        self.evaluator = evaluator
        self._pool: ProcessPoolExecutor | None = None
        self._fn: EpisodeFn | None = None
        self._futures: dict[Future[str], EpisodeIdentity] = {}
        self._procs: list[_ThreadedWorker] = []
        self._ready: deque[EpisodeRecord] = deque()
        self._keys = itertools.count()

    def start(self, run_episode: EpisodeFn) -> None:
        self._fn = run_episode
        if self.concurrency > 1:
            self._procs = [self._new_worker() for _ in range(self.workers)]
            return
        self._new_pool()

    def _new_worker(self) -> _ThreadedWorker:
        assert self._fn is not None
        return _ThreadedWorker(self._fn, self.concurrency, self.evaluator, self.initializer)

    def _new_pool(self) -> None:
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=self.initializer,
        )

    @property
    def capacity(self) -> int:
        return self.workers * self.concurrency

    def submit(self, identity: EpisodeIdentity) -> None:
        if self._procs:
            worker = min(self._procs, key=lambda w: len(w.inflight))
            key = next(self._keys)
            worker.inflight[key] = identity
            try:
                worker.tasks.send((key, identity.model_dump_json()))
            except OSError:
                pass  # the worker just died: its sentinel turns this episode into a fault (next_done)
            return
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
        if self._procs:
            return self._next_threaded()
        fut = _oldest_done(self._futures)
        ident = self._futures.pop(fut)
        try:
            return read_record(fut.result())
        except Exception as err:  # noqa: BLE001 - a dead worker (BrokenProcessPool) is an infrastructure fault
            return fault_record(
                ident, "other", f"worker failed: {type(err).__name__}: {err}", evaluator=self.evaluator
            )

    def _next_threaded(self) -> EpisodeRecord:
        """The next record of the threaded workers; a dead worker's in-flight episodes become faults and
        a fresh worker takes its place."""
        while not self._ready:
            by_conn: dict[Any, _ThreadedWorker] = {}
            for w in self._procs:
                by_conn[w.results] = w
                by_conn[w.process.sentinel] = w
            for ready in wait_connections(list(by_conn)):
                w = by_conn[ready]
                if ready is w.results:
                    self._receive(w)
                elif w in self._procs:
                    self._replace_dead(w)
        return self._ready.popleft()

    def _receive(self, w: _ThreadedWorker) -> bool:
        """Take one record from ``w``; False at the pipe's end (the worker is dying: its sentinel says)."""
        try:
            key, text = w.results.recv()
        except (EOFError, OSError):
            return False
        ident = w.inflight.pop(key)
        try:
            self._ready.append(read_record(text))
        except Exception as err:  # noqa: BLE001 - a garbled record is the worker's fault, not the episode's
            self._ready.append(
                fault_record(
                    ident, "other", f"worker sent an unreadable record: {err}", evaluator=self.evaluator
                )
            )
        return True

    def _replace_dead(self, w: _ThreadedWorker) -> None:
        while w.inflight:
            try:
                if not w.results.poll():
                    break
            except (EOFError, OSError):
                break
            if not self._receive(w):  # records the worker finished before it died, up to the pipe's end
                break
        w.process.join(5)  # the sentinel can fire a moment before the exit status is there
        code = w.process.exitcode
        for ident in w.inflight.values():
            self._ready.append(
                fault_record(
                    ident,
                    "other",
                    f"worker process died (exit code {code}) with {len(w.inflight)} episodes in flight",
                    evaluator=self.evaluator,
                )
            )
        w.inflight.clear()
        w.close(wait_s=0)
        self._procs[self._procs.index(w)] = self._new_worker()

    def shutdown(self) -> None:
        for w in self._procs:
            w.close(wait_s=0 if w.inflight else 30)
        self._procs = []
        self._ready.clear()
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
        concurrency: episodes per Ray worker process. 1: one task per episode. More: threaded actors
            (``max_concurrency``), each requesting ``cpus_per_episode`` CPUs for all its episodes. A
            timed-out episode of an actor is recorded as a fault but cannot be killed without its
            siblings: it runs on until it ends (partial; see docs/studies.md).
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
        concurrency: int = 1,
    ) -> None:
        _check_concurrency(concurrency)
        self.concurrency = concurrency
        self._actors: list[Any] = []
        self._actor_of: dict[Any, Any] = {}
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
        if self.concurrency > 1:
            actor = ray.remote(num_cpus=self.cpus_per_episode, max_restarts=-1)(_EpisodeActor)
            self._actor_cls = actor.options(max_concurrency=self.concurrency)
            self._actors = [self._actor_cls.remote(run_episode) for _ in range(self._capacity)]
            self._capacity *= self.concurrency

    @property
    def capacity(self) -> int:
        return self._capacity

    def submit(self, identity: EpisodeIdentity) -> None:
        if self._actors:
            load = {id(a): 0 for a in self._actors}
            for a in self._actor_of.values():
                load[id(a)] = load.get(id(a), 0) + 1
            actor = min(self._actors, key=lambda a: load[id(a)])
            ref = actor.run.remote(identity.model_dump_json(), self.evaluator)
            self._actor_of[ref] = actor
        else:
            ref = self._remote.remote(self._fn_ref, identity.model_dump_json(), self.evaluator)
        deadline = time.monotonic() + self.timeout_s if self.timeout_s else None
        self._inflight[ref] = (identity, deadline)

    def next_done(self) -> EpisodeRecord:
        ray = self._ray
        while True:
            ready, _ = ray.wait(list(self._inflight), num_returns=1, timeout=0.2)
            if ready:
                ident, _ = self._inflight.pop(ready[0])
                self._actor_of.pop(ready[0], None)
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
                    if self._actor_of.pop(ref, None) is None:
                        ray.cancel(ref, force=True)
                    else:
                        ray.cancel(
                            ref
                        )  # an actor task cannot be force-killed (its siblings share the process)
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
                self._ray.cancel(ref, force=ref not in self._actor_of)
            self._inflight.clear()
            for actor in self._actors:
                self._ray.kill(actor)
            self._actors, self._actor_of = [], {}
            if self._owns_ray:
                self._ray.shutdown()
                self._owns_ray = False


class _EpisodeActor:
    """A Ray actor process running several episodes at once (``max_concurrency`` threads, one reactor)."""

    def __init__(self, run_episode: EpisodeFn) -> None:
        self.run_episode = run_episode

    def run(self, identity_json: str, evaluator: str) -> str:
        return execute_episode(self.run_episode, identity_json, evaluator)


def make_executor(
    kind: Literal["local", "ray"] = "local",
    *,
    workers: int = 1,
    concurrency: int = 1,
    address: str | None = None,
    timeout_s: float | None = None,
    evaluator: str = "embedded",
    **kwargs: Any,
) -> Executor:
    """Build an executor by name: ``local`` (``workers=0`` runs in process) or ``ray``; ``concurrency``
    episodes run at once in each process.

    Raises:
        ContractError: unknown kind, or Ray missing for ``ray``.
    """
    if kind == "local":
        if workers == 0:
            return InProcessExecutor(evaluator, concurrency=concurrency)
        return LocalExecutor(workers, concurrency=concurrency, evaluator=evaluator, **kwargs)
    if kind == "ray":
        _import_ray()
        return RayExecutor(
            address, timeout_s=timeout_s, evaluator=evaluator, concurrency=concurrency, **kwargs
        )
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
    run_settings: dict[str, Any] | None = None,
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
        run_settings: how the episodes are played where it changes the game (the study CLI passes
            ``{"clock": "lockstep-unpaced", "tick_rate": 20.0}``): stored in ``run_settings.json`` by the
            first session; a resume with other values is refused
            (:func:`~mirrorcraft.study.grid.check_run_settings`).

    Returns:
        The session summary.

    Raises:
        ContractError: the folder has results and ``resume`` is False, or it was started with another
            grid or other run settings, or records in it belong to no episode of the grid.
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
        if run_settings is not None:
            results = run_dir / RESULTS_FILE
            has_results = results.exists() and results.stat().st_size > 0
            check_run_settings(run_dir, run_settings, has_results=has_results)
        if read_grid(run_dir) is None:
            write_grid(run_dir, grid)
        if run_settings is not None and read_run_settings(run_dir) is None:
            write_run_settings(run_dir, run_settings)
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
