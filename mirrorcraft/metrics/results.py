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
  with its last fault (the study gave up after its bounded attempts). A second non-fault record of the
  same id (which the single-writer store never writes) is reported as a duplicate and ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mirrorcraft.contracts import EpisodeRecord, read_record
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.paired import is_fault

RESULTS_FILE = "results.jsonl"


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


@dataclass
class ResultsScan:
    """Everything read from one results file."""

    path: Path
    attempts: dict[str, list[EpisodeRecord]] = field(default_factory=dict)
    bad_lines: list[BadLine] = field(default_factory=list)
    duplicates: list[tuple[int, str]] = field(default_factory=list)  #: (line number, episode id)
    ends_with_newline: bool = True

    def final(self) -> dict[str, EpisodeRecord]:
        """Episode id → its final record (first non-fault record, else the last fault record)."""
        out = {}
        for eid, recs in self.attempts.items():
            ok = [r for r in recs if not is_fault(r)]
            out[eid] = ok[0] if ok else recs[-1]
        return out

    def fault_count(self, episode_id: str) -> int:
        """Number of infrastructure-fault attempts recorded for ``episode_id``."""
        return sum(1 for r in self.attempts.get(episode_id, []) if is_fault(r))

    def has_final_success(self, episode_id: str) -> bool:
        """True when ``episode_id`` has a non-fault record."""
        return any(not is_fault(r) for r in self.attempts.get(episode_id, []))


def scan_results(path: Path) -> ResultsScan:
    """Read a results file, keeping every valid line and reporting the others.

    Args:
        path: the ``results.jsonl`` file (a missing file reads as empty).

    Returns:
        The scan: attempts per episode id in file order, bad lines, duplicates.
    """
    scan = ResultsScan(path=path)
    if not path.exists():
        return scan
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
            record = read_record(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            scan.bad_lines.append(BadLine(lineno, start, f"not UTF-8: {err}", partial))
            continue
        except ContractError as err:
            scan.bad_lines.append(BadLine(lineno, start, str(err)[:300], partial))
            continue
        # A complete, valid record on a last line without its newline is kept: the write was cut short
        # after the record's bytes (the store terminates the line before appending on resume).
        recs = scan.attempts.setdefault(record.episode_id, [])
        if not is_fault(record) and any(not is_fault(r) for r in recs):
            scan.duplicates.append((lineno, record.episode_id))
            continue
        recs.append(record)
    return scan


def load_final_records(run_dir: Path) -> tuple[list[EpisodeRecord], ResultsScan]:
    """The final record of every episode of a run folder, and the scan that found them.

    Args:
        run_dir: a study run folder containing ``results.jsonl``.

    Returns:
        ``(records, scan)``; records in first-seen order.

    Raises:
        ContractError: the folder has no results file.
    """
    path = Path(run_dir) / RESULTS_FILE
    if not path.exists():
        raise ContractError(f"{path}: no results file (is {run_dir} a study run folder?)")
    scan = scan_results(path)
    return list(scan.final().values()), scan
