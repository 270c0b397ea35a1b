"""The append-only results store of a study run: ``<run_dir>/results.jsonl``, one record per line.

Why this design (crafter's ``stats.jsonl``; android_world's checkpointing without its in-place pickles):
a study of thousands of episodes must survive a kill at any moment without losing or duplicating an
episode. So:

* **Single writer.** Only the driver process appends (workers return records). An exclusive
  ``flock`` on ``<run_dir>/.lock`` refuses a second driver on the same folder.
* **One write per record, then fsync.** Each record is one ``os.write`` of its JSON line on an
  ``O_APPEND`` descriptor followed by ``os.fsync``; a record counts once its line is complete.
* **Resume by reading.** :func:`~mirrorcraft.metrics.results.scan_results` keeps every complete valid
  line and reports the others (a partial last line after a kill, corrupt lines). If the file does not
  end with a newline, the store terminates that line before appending, so the fragment stays an
  isolated ignored line and nothing is ever rewritten in place.
* **Infrastructure faults.** A fault record is appended like any other; the episode stays pending until
  it has a non-fault record or ``max_attempts`` fault records (then the last fault is final and the
  report lists it). All attempts keep the same episode id. A fault of the per-episode cost cap
  (:func:`~mirrorcraft.agents.llm.is_cost_cap_fault`) is final at once: a retry would spend the cap again.
* **Spending.** :attr:`ResultsStore.cost_usd` is the API cost of every line of the file (all attempts,
  faults included: a failed episode was paid for too); the study driver stops at its cost cap with it.
* **File-system errors.** A full disk or a read-only run folder raises
  :class:`~mirrorcraft.metrics.results.RunFolderError`: one line naming the path and what to do. Every
  record already written is complete (one write per line), so ``--resume`` after freeing space continues.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType

from mirrorcraft.agents.llm import is_cost_cap_fault
from mirrorcraft.contracts import EpisodeIdentity, EpisodeRecord
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault
from mirrorcraft.metrics.results import RESULTS_FILE, BadLine, ResultsScan, scan_results, writing

__all__ = ["LOCK_FILE", "LockedAppendLog", "ResultsStore", "StoreLockedError"]

LOCK_FILE = ".lock"


class StoreLockedError(ContractError):
    """Another process holds the run folder's lock (a second driver on the same run)."""


class LockedAppendLog:
    """The kill-safe mechanics both stores share (this module's docstring): the run folder's exclusive lock,
    an ``O_APPEND`` descriptor on ``results.jsonl``, one ``os.write`` + ``fsync`` per line, the cut-short last
    line terminated before the first append, the folder fsync'd when the file is new. Subclasses read the
    file between :meth:`_lock` and :meth:`_open_append` and keep their own bookkeeping.
    """

    def __init__(self, run_dir: Path | str) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / RESULTS_FILE
        self._fd: int | None = None
        self._lock_fd: int | None = None

    def _lock(self) -> None:
        """Create the folder and take its lock.

        Raises:
            StoreLockedError: another process holds the lock.
            RunFolderError: the folder cannot be created or written.
        """
        with writing(self.run_dir):
            self.run_dir.mkdir(parents=True, exist_ok=True)
            lock_fd = os.open(self.run_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise StoreLockedError(
                f"{self.run_dir}: another study process is writing this run folder"
            ) from None
        self._lock_fd = lock_fd

    def _open_append(self, *, ends_with_newline: bool, created: bool) -> None:
        """Open the file for appending (after the subclass read it); closes everything on failure."""
        try:
            with writing(self.path):
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            if not ends_with_newline:
                # Terminate the cut-short last line so the next record starts on a line of its own.
                self._write(b"\n")
            if created:
                dir_fd = os.open(self.run_dir, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close the file and release the lock."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _write(self, data: bytes) -> None:
        if self._fd is None:
            raise ContractError(f"{self.path}: store is not open")
        view = memoryview(data)
        with writing(self.path):
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            os.fsync(self._fd)


class ResultsStore(LockedAppendLog):
    """Append-only, kill-safe store of episode records with resume bookkeeping.

    Use as a context manager::

        with ResultsStore(run_dir, max_attempts=3) as store:
            for ident in store.pending(identities):
                store.append(run(ident))

    Args:
        run_dir: the run folder (created if missing).
        max_attempts: attempts per episode id before an infrastructure fault becomes final.
    """

    def __init__(self, run_dir: Path | str, *, max_attempts: int = 3) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        super().__init__(run_dir)
        self.max_attempts = max_attempts
        self._faults: dict[str, int] = {}
        self._done: set[str] = set()
        self.scan: ResultsScan | None = None
        #: API cost (US dollars) of every record line in the file, all attempts included.
        self.cost_usd = 0.0

    # -- lifecycle ---------------------------------------------------------------------------------

    def open(self) -> ResultsStore:
        """Lock the folder, read what is there and open the file for appending.

        Raises:
            StoreLockedError: another process holds the lock.
            RunFolderError: the folder cannot be created or written (read-only, full disk).
        """
        self._lock()
        created = not self.path.exists()
        self.scan = scan_results(self.path)
        for eid, recs in self.scan.attempts.items():
            self._faults[eid] = sum(1 for r in recs if is_fault(r))
            self.cost_usd += sum(r.usage.cost_usd for r in recs)
            if (
                any(not is_fault(r) for r in recs)
                or self._faults[eid] >= self.max_attempts
                or is_cost_cap_fault(recs[-1])
            ):
                self._done.add(eid)
        self.cost_usd += sum(r.usage.cost_usd for _, r in self._extra_versions())
        self._open_append(ends_with_newline=self.scan.ends_with_newline, created=created)
        return self

    def _extra_versions(self) -> list[tuple[int, EpisodeRecord]]:
        """Non-fault versions beyond the first of each id (conflicts), which were paid for as well."""
        assert self.scan is not None
        return [v for versions in self.scan.versions.values() for v in versions[1:]]

    def __enter__(self) -> ResultsStore:
        return self.open()

    # -- queries -----------------------------------------------------------------------------------

    @property
    def bad_lines(self) -> list[BadLine]:
        """Lines ignored when the store was opened (partial or corrupt)."""
        return list(self.scan.bad_lines) if self.scan else []

    def is_done(self, episode_id: str) -> bool:
        """True when the episode has its final record (a non-fault one, or ``max_attempts`` faults)."""
        return episode_id in self._done

    def attempts(self, episode_id: str) -> int:
        """Infrastructure-fault attempts recorded so far for ``episode_id``."""
        return self._faults.get(episode_id, 0)

    def pending(self, identities: Iterable[EpisodeIdentity]) -> list[EpisodeIdentity]:
        """The identities without a final record, in the given order."""
        return [i for i in identities if i.episode_id not in self._done]

    def done_ids(self) -> set[str]:
        """Episode ids that have their final record."""
        return set(self._done)

    # -- writing -----------------------------------------------------------------------------------

    def append(self, record: EpisodeRecord) -> bool:
        """Append one record (one line, flushed and fsync'd) and update the bookkeeping.

        Args:
            record: the record of an attempt.

        Returns:
            True when the record made its episode final (non-fault, or the last allowed fault).

        Raises:
            ContractError: the episode already has its final record (the single writer never does this).
        """
        eid = record.episode_id
        if eid in self._done:
            raise ContractError(f"{self.path}: episode {eid} already has its final record")
        self._write(record.model_dump_json().encode("utf-8") + b"\n")
        self.cost_usd += record.usage.cost_usd
        if is_fault(record):
            self._faults[eid] = self._faults.get(eid, 0) + 1
            if self._faults[eid] < self.max_attempts and not is_cost_cap_fault(record):
                return False
        self._done.add(eid)
        return True
