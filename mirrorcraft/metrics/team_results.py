"""Reading a team study's run folder: ``results.jsonl`` (one team record per line) and ``team_study.json``.

The team counterpart of :mod:`mirrorcraft.metrics.results`, with the same reading rules (docs/studies.md,
docs/pillagerbench.md "Running a team study"), because a team study is written by the same kind of
append-only, single-writer store (:mod:`mirrorcraft.study.team_store`):

* a line that is not a complete, valid team record (a partial last line after a kill, bad JSON, a record
  failing the contract's checks) is ignored and reported as a :class:`~mirrorcraft.metrics.results.BadLine`;
* several lines may share an episode id: infrastructure-fault attempts, then the final record. The final
  record of an id is its first non-fault record, else its last fault (the study gave up);
* a second non-fault record of an id that equals the first is an ignored duplicate; a differing one is a
  conflict, which :func:`load_team_run` refuses (the single writer never writes one).

Why in metrics: the study writes and the report reads, and the dependency order is study → metrics.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from mirrorcraft.contracts.teams import (
    TEAM_STUDY_MANIFEST,
    TeamEpisodeRecord,
    TeamStudyManifest,
    read_team_record,
)
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.results import RESULTS_FILE, BadLine, read_jsonl_records

__all__ = [
    "TeamResultsScan",
    "is_team_run",
    "load_team_run",
    "read_team_manifest",
    "scan_team_results",
]


@dataclass
class TeamResultsScan:
    """Everything read from one team results file."""

    path: Path
    #: Episode id → its attempts in file order (fault records, then at most one non-fault record).
    attempts: dict[str, list[TeamEpisodeRecord]] = field(default_factory=dict)
    bad_lines: list[BadLine] = field(default_factory=list)
    duplicates: list[tuple[int, str]] = field(default_factory=list)
    #: Episode id → line numbers of differing non-fault records beyond the first.
    conflicts: dict[str, list[int]] = field(default_factory=dict)
    ends_with_newline: bool = True

    def final(self) -> dict[str, TeamEpisodeRecord]:
        """Episode id → its final record (the first non-fault record, else the last fault)."""
        out = {}
        for eid, recs in self.attempts.items():
            ok = [r for r in recs if not r.is_fault]
            out[eid] = ok[0] if ok else recs[-1]
        return out

    def fault_count(self, episode_id: str) -> int:
        """Infrastructure-fault attempts recorded for ``episode_id``."""
        return sum(1 for r in self.attempts.get(episode_id, []) if r.is_fault)


def scan_team_results(path: Path) -> TeamResultsScan:
    """Read a team results file, keeping every valid line and reporting the others (a missing file is empty)."""
    scan = TeamResultsScan(path=path)
    for lineno, record in read_jsonl_records(path, read_team_record, scan):
        recs = scan.attempts.setdefault(record.episode_id, [])
        if not record.is_fault:
            first = next((r for r in recs if not r.is_fault), None)
            if first is not None:
                if first == record:
                    scan.duplicates.append((lineno, record.episode_id))
                else:
                    scan.conflicts.setdefault(record.episode_id, []).append(lineno)
                continue
        recs.append(record)
    return scan


def read_team_manifest(run_dir: Path) -> TeamStudyManifest | None:
    """The run folder's ``team_study.json``, or None without one.

    Raises:
        ContractError: the file is not valid JSON or not a valid manifest (the message names the file).
    """
    path = Path(run_dir) / TEAM_STUDY_MANIFEST
    if not path.exists():
        return None
    try:
        return TeamStudyManifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, ValueError) as err:
        raise ContractError(f"{path}: not a valid team study manifest: {err}") from err


def is_team_run(run_dir: Path) -> bool:
    """True when ``run_dir`` is a team run: it has a team study manifest, or (a folder without one, e.g. made
    by hand or by ``run_team_grid``) the first non-empty line of its results file is a team record."""
    run_dir = Path(run_dir)
    if (run_dir / TEAM_STUDY_MANIFEST).exists():
        return True
    path = run_dir / RESULTS_FILE
    if not path.exists():
        return False
    with path.open("rb") as f:
        for raw in f:
            if raw.strip():
                try:
                    data = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return False
                identity = data.get("identity") if isinstance(data, dict) else None
                return isinstance(identity, dict) and "scenario" in identity and "tested_side" in identity
    return False


def load_team_run(
    run_dir: Path,
) -> tuple[list[TeamEpisodeRecord], TeamResultsScan, TeamStudyManifest | None]:
    """The final team record of every episode of a run folder, the scan and the manifest (if any).

    Raises:
        ContractError: no results file, an invalid manifest, or conflicting records of one episode id.
    """
    path = Path(run_dir) / RESULTS_FILE
    if not path.exists():
        raise ContractError(f"{path}: no results file (is {run_dir} a study run folder?)")
    manifest = read_team_manifest(run_dir)
    scan = scan_team_results(path)
    if scan.conflicts:
        eid, lines = next(iter(scan.conflicts.items()))
        raise ContractError(
            f"{path}: {len(scan.conflicts)} episode(s) have differing records, e.g. {eid} (also on line(s) "
            f"{', '.join(map(str, lines))}); a single study writer never writes these: remove the copied lines"
        )
    return list(scan.final().values()), scan, manifest
