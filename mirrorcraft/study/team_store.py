"""The kill-safe store of a team study: ``OUT/results.jsonl`` (team records) and ``OUT/checkpoints/``.

The same design as the MirrorCraft store (:mod:`mirrorcraft.study.store`, whose reasons hold here): one driver
process writes (an exclusive ``flock`` on ``OUT/.lock``), each record is one ``os.write`` of its JSON line on
an ``O_APPEND`` descriptor followed by ``fsync``, a cut-short last line is terminated before the next append,
and resuming means reading the file (:func:`~mirrorcraft.metrics.team_results.scan_team_results`). An
infrastructure fault is appended like any record; its episode stays pending until it has a non-fault record
or ``max_attempts`` faults, all under the same id.

**Checkpoints.** After every finished episode the two systems' ``checkpoint()`` states are written to
``OUT/checkpoints/<episode id>.json`` (a temporary file, fsync, rename) **before** the record is appended. So
a recorded episode always has its checkpoint, and a checkpoint without a record (a kill between the two) is
ignored and later overwritten when the episode reruns. A resumed block restores its systems from the
checkpoint of its last finished episode (:meth:`TeamResultsStore.restore_point`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamEpisodeRecord
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics.results import writing
from mirrorcraft.metrics.team_results import TeamResultsScan, scan_team_results
from mirrorcraft.study.store import LockedAppendLog

__all__ = ["CHECKPOINT_DIR", "TeamResultsStore"]

CHECKPOINT_DIR = "checkpoints"


class TeamResultsStore(LockedAppendLog):
    """Append-only, kill-safe store of team records and system checkpoints (module docstring).

    Args:
        run_dir: the run folder (created if missing).
        max_attempts: attempts per episode id before an infrastructure fault becomes final.
    """

    def __init__(self, run_dir: Path | str, *, max_attempts: int = 3) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        super().__init__(run_dir)
        self.checkpoints = self.run_dir / CHECKPOINT_DIR
        self.max_attempts = max_attempts
        self._faults: dict[str, int] = {}
        self._done: set[str] = set()
        self._ok: set[str] = set()
        self.scan: TeamResultsScan | None = None

    def open(self) -> TeamResultsStore:
        """Lock the folder, read what is there and open the results file for appending.

        Raises:
            StoreLockedError: another process holds the lock.
            RunFolderError: the folder cannot be written (read-only, full disk).
        """
        self._lock()
        created = not self.path.exists()
        self.scan = scan_team_results(self.path)
        for eid, recs in self.scan.attempts.items():
            self._faults[eid] = sum(1 for r in recs if r.is_fault)
            if any(not r.is_fault for r in recs):
                self._ok.add(eid)
                self._done.add(eid)
            elif self._faults[eid] >= self.max_attempts:
                self._done.add(eid)
        self._open_append(ends_with_newline=self.scan.ends_with_newline, created=created)
        return self

    def __enter__(self) -> TeamResultsStore:
        return self.open()

    # -- queries -------------------------------------------------------------------------------------

    def is_done(self, episode_id: str) -> bool:
        """True when the episode has its final record (non-fault, or ``max_attempts`` faults)."""
        return episode_id in self._done

    def succeeded(self, episode_id: str) -> bool:
        """True when the episode has a non-fault record."""
        return episode_id in self._ok

    def attempts(self, episode_id: str) -> int:
        """Infrastructure-fault attempts recorded so far."""
        return self._faults.get(episode_id, 0)

    def restore_point(self, block: list[TeamEpisodeIdentity], start: int) -> dict[str, Any] | None:
        """The checkpoint a block restarted at ``block_index == start`` restores from: that of the latest
        earlier episode of the block with a non-fault record (None: fresh systems)."""
        for ident in reversed(block[:start]):
            if ident.episode_id in self._ok:
                path = self.checkpoints / f"{ident.episode_id}.json"
                if path.exists():
                    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
                    return data
                return None  # recorded without a checkpoint (a folder from before checkpoints): start fresh
        return None

    # -- writing -------------------------------------------------------------------------------------

    def write_checkpoint(
        self, identity: TeamEpisodeIdentity, systems: dict[str, Any] | None, error: str = ""
    ) -> Path:
        """``checkpoints/<episode id>.json``: the systems' states after ``identity`` (atomically)."""
        data = {
            "episode_id": identity.episode_id,
            "block_id": identity.block_id,
            "block_index": identity.block_index,
            "system_ids": {side: identity.system_of(side).id for side in ("red", "blue")},
            "systems": systems,
            "error": error,
        }
        path = self.checkpoints / f"{identity.episode_id}.json"
        tmp = self.checkpoints / f".{identity.episode_id}.json.tmp"
        with writing(path):
            self.checkpoints.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, (json.dumps(data, sort_keys=True) + "\n").encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        return path

    def append(self, record: TeamEpisodeRecord) -> bool:
        """Append one record (one line, fsync'd). Returns True when it made its episode final.

        Raises:
            ContractError: the episode already has its final record (the single writer never does this).
        """
        eid = record.episode_id
        if eid in self._done:
            raise ContractError(f"{self.path}: episode {eid} already has its final record")
        self._write(record.model_dump_json().encode("utf-8") + b"\n")
        if record.is_fault:
            self._faults[eid] = self._faults.get(eid, 0) + 1
            if self._faults[eid] < self.max_attempts:
                return False
        else:
            self._ok.add(eid)
        self._done.add(eid)
        return True
