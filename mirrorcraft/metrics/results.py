"""Reading a study's ``results.jsonl``: one episode record per line, written append-only by the study store.

Why here and not in :mod:`mirrorcraft.study`: the study writes results and the metrics read them, and the
dependency direction is study → metrics. This module is the single reader; the store
(:mod:`mirrorcraft.study.store`) uses it to resume.

Reading rules (docs/studies.md):

* A line that is not a complete, valid record (a partial last line left by a kill, bad JSON, a record
  failing the contract checks) is **ignored and reported** as a :class:`BadLine` with its line number,
  byte offset and the reason.
* Several lines may share an episode id: infrastructure-fault attempts followed by the final record.
  The **final** record of an id is its first non-fault record; an id with only fault records is final
  with its last fault (the study gave up after its bounded attempts).
* A second non-fault record of the same id (which the single-writer store never writes: a copied or
  merged file did) is an **identical duplicate** when its bytes, as a record, equal the kept one: it is
  counted and ignored. A **differing** one is a :class:`Conflict`: the scan keeps every version with its
  line number and does not choose. :func:`load_final_records` refuses a conflict
  (:class:`RecordConflictError`, naming the episode and both lines) unless the caller says which wins:
  ``keep="first"`` / ``keep="last"`` (file order) or ``keep_lines`` (the line that wins its episode).
  File order alone never settles it: a record placed first by hand must not win silently.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from mirrorcraft.contracts import EpisodeRecord, read_record
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault

_R = TypeVar("_R")

RESULTS_FILE = "results.jsonl"

#: How :func:`load_final_records` settles a conflict: refuse it, or keep the first / last version in file order.
ConflictPolicy = Literal["refuse", "first", "last"]


class RecordConflictError(ContractError):
    """Two valid, differing non-fault records share an episode id and nobody said which one wins."""


class RunFolderError(ContractError):
    """A run folder (or a file in it) cannot be written: one line naming the path and what to do."""


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READ_ONLY = {errno.EROFS, errno.EACCES, errno.EPERM}


def run_folder_error(err: OSError, path: Path | str, then: str, *, exact: bool = False) -> RunFolderError:
    """The one-line error of a failed write into a run folder.

    Args:
        err: the operating system's error.
        path: the file or folder being written (used when ``err`` names none, e.g. ``os.write`` on a
            descriptor, or always with ``exact``).
        then: what to do once the cause is fixed (e.g. "rerun with --resume").
        exact: name ``path`` even when ``err`` names a file (e.g. a hidden temporary one).
    """
    where = path if exact else (err.filename or path)
    code = errno.errorcode.get(err.errno or 0, str(err.errno))
    if err.errno in _FULL:
        return RunFolderError(
            f"{where}: no space left on the device ({code}): free space or pick another folder, then {then}"
        )
    if err.errno in _READ_ONLY:
        return RunFolderError(
            f"{where}: not writable ({code}: {err.strerror}): make it writable or pick another folder, "
            f"then {then}"
        )
    return RunFolderError(f"{where}: cannot write ({code}: {err.strerror}); then {then}")


@contextmanager
def writing(
    path: Path | str,
    then: str = "rerun with --resume (every complete record is kept)",
    *,
    exact: bool = False,
) -> Iterator[None]:
    """Turn an ``OSError`` of the writes inside the block into a :class:`RunFolderError` (one line).

    Why: a full disk or a read-only run folder otherwise surfaces as a raw ``OSError: [Errno 28]`` without
    a path, or as a traceback; the data already written is safe either way (append-only results, atomic
    report), so the researcher needs only the path and the next step.
    """
    try:
        yield
    except RunFolderError:
        raise
    except OSError as err:
        raise run_folder_error(err, path, then, exact=exact) from err


@dataclass(frozen=True)
class BadLine:
    """A line of the results file that was ignored."""

    lineno: int
    offset: int
    reason: str
    partial: bool  #: the file's last line, without its terminating newline (a write cut short)

    def __str__(self) -> str:
        kind = "partial last line" if self.partial else "invalid line"
        return f"line {self.lineno} (byte {self.offset}): {kind}: {self.reason}"


@dataclass(frozen=True)
class Conflict:
    """Differing non-fault records of one episode id: every version with its line number, in file order."""

    episode_id: str
    versions: tuple[tuple[int, EpisodeRecord], ...]

    @property
    def lines(self) -> list[int]:
        """Line numbers of the versions (1-based)."""
        return [line for line, _ in self.versions]

    def __str__(self) -> str:
        parts = [
            f"line {line}: score {r.outcome.score}, {r.outcome.end_reason.value}, {r.outcome.actions_used} actions"
            for line, r in self.versions
        ]
        return f"{self.episode_id} ({self.versions[0][1].identity.world_id}): " + "; ".join(parts)


@dataclass
class ResultsScan:
    """Everything read from one results file."""

    path: Path
    attempts: dict[str, list[EpisodeRecord]] = field(default_factory=dict)
    bad_lines: list[BadLine] = field(default_factory=list)
    #: Identical duplicates, ignored: (line number, episode id).
    duplicates: list[tuple[int, str]] = field(default_factory=list)
    #: Episode id → (line, record) of every *distinct* non-fault version, in file order (first = in attempts).
    versions: dict[str, list[tuple[int, EpisodeRecord]]] = field(default_factory=dict)
    ends_with_newline: bool = True

    @property
    def conflicts(self) -> list[Conflict]:
        """Episodes with more than one distinct non-fault record (see module docstring)."""
        return [Conflict(eid, tuple(v)) for eid, v in self.versions.items() if len(v) > 1]

    def final(self) -> dict[str, EpisodeRecord]:
        """Episode id → its final record (first non-fault record, else the last fault record).

        Conflicts are *not* settled here (the first version is returned): use :func:`load_final_records`,
        which refuses them unless told which version wins.
        """
        out = {}
        for eid, recs in self.attempts.items():
            ok = [r for r in recs if not is_fault(r)]
            out[eid] = ok[0] if ok else recs[-1]
        return out

    def resolved(
        self, keep: ConflictPolicy = "refuse", keep_lines: Iterable[int] = ()
    ) -> dict[str, EpisodeRecord]:
        """:meth:`final` with every conflict settled by ``keep_lines`` first, then by ``keep``.

        Raises:
            RecordConflictError: a conflict is left unsettled (``keep="refuse"`` and no line of it in
                ``keep_lines``), or a line in ``keep_lines`` holds no version of any conflict; the message
                names the episode and the line numbers of its versions.
        """
        wanted = set(keep_lines)
        out = self.final()
        unsettled: list[Conflict] = []
        used: set[int] = set()
        for conflict in self.conflicts:
            chosen = [(line, r) for line, r in conflict.versions if line in wanted]
            if len(chosen) > 1:
                raise RecordConflictError(
                    f"{self.path}: --keep-line names {len(chosen)} versions of {conflict}; name one"
                )
            if chosen:
                used.add(chosen[0][0])
                out[conflict.episode_id] = chosen[0][1]
            elif keep == "first":
                out[conflict.episode_id] = conflict.versions[0][1]
            elif keep == "last":
                out[conflict.episode_id] = conflict.versions[-1][1]
            else:
                unsettled.append(conflict)
        stray = sorted(wanted - used)
        if stray:
            raise RecordConflictError(
                f"{self.path}: --keep-line {', '.join(map(str, stray))}: no conflicting record on that line"
            )
        if unsettled:
            first = unsettled[0]
            raise RecordConflictError(
                f"{self.path}: {len(unsettled)} episode(s) have conflicting records, e.g. {first}. "
                f"Say which wins: --keep-line {first.lines[0]} (or another line), or --conflicts first|last"
            )
        return out

    def fault_count(self, episode_id: str) -> int:
        """Number of infrastructure-fault attempts recorded for ``episode_id``."""
        return sum(1 for r in self.attempts.get(episode_id, []) if is_fault(r))

    def has_final_success(self, episode_id: str) -> bool:
        """True when ``episode_id`` has a non-fault record."""
        return any(not is_fault(r) for r in self.attempts.get(episode_id, []))


def read_jsonl_records(
    path: Path, parse: Callable[[str], _R], scan: ResultsScan | Any
) -> Iterator[tuple[int, _R]]:
    """The valid records of a JSON-lines results file with their line numbers, in file order; every other
    non-blank line goes to ``scan.bad_lines`` (a partial last line after a kill, corrupt lines) and
    ``scan.ends_with_newline`` is set. A missing file yields nothing. ``parse`` raises
    :class:`~mirrorcraft.errors.ContractError` for a line that is not a valid record. Shared by the
    MirrorCraft and the team results scans (one reader of the file format).
    """
    if not path.exists():
        return
    data = path.read_bytes()
    scan.ends_with_newline = not data or data.endswith(b"\n")
    offset = 0
    lines = data.split(b"\n")
    for lineno, raw in enumerate(lines, start=1):
        start = offset
        offset += len(raw) + 1
        last = lineno == len(lines)
        if last and raw == b"":
            break
        if raw.strip() == b"":
            continue
        partial = last  # the final chunk after the last newline never got its newline
        try:
            record = parse(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            scan.bad_lines.append(BadLine(lineno, start, f"not UTF-8: {err}", partial))
            continue
        except ContractError as err:
            scan.bad_lines.append(BadLine(lineno, start, str(err)[:300], partial))
            continue
        yield lineno, record


def scan_results(path: Path) -> ResultsScan:
    """Read a results file, keeping every valid line and reporting the others.

    Args:
        path: the ``results.jsonl`` file (a missing file reads as empty).

    Returns:
        The scan: attempts per episode id in file order, bad lines, duplicates.
    """
    scan = ResultsScan(path=path)
    for lineno, record in read_jsonl_records(path, read_record, scan):
        # A complete, valid record on a last line without its newline is kept: the write was cut short
        # after the record's bytes (the store terminates the line before appending on resume).
        recs = scan.attempts.setdefault(record.episode_id, [])
        if not is_fault(record):
            versions = scan.versions.setdefault(record.episode_id, [])
            if versions:
                if any(r == record for _, r in versions):
                    scan.duplicates.append((lineno, record.episode_id))
                else:
                    versions.append((lineno, record))
                continue
            versions.append((lineno, record))
        recs.append(record)
    return scan


def load_final_records(
    run_dir: Path, *, keep: ConflictPolicy = "refuse", keep_lines: Iterable[int] = ()
) -> tuple[list[EpisodeRecord], ResultsScan]:
    """The final record of every episode of a run folder, and the scan that found them.

    Args:
        run_dir: a study run folder containing ``results.jsonl``.
        keep: how a conflict (differing non-fault records of one id) is settled; ``"refuse"`` raises.
        keep_lines: line numbers whose record wins its conflict (checked before ``keep``).

    Returns:
        ``(records, scan)``; records in first-seen order.

    Raises:
        ContractError: the folder has no results file.
        RecordConflictError: an unsettled conflict (see :meth:`ResultsScan.resolved`).
    """
    path = Path(run_dir) / RESULTS_FILE
    if not path.exists():
        raise ContractError(f"{path}: no results file (is {run_dir} a study run folder?)")
    scan = scan_results(path)
    return list(scan.resolved(keep, keep_lines).values()), scan
