"""A live progress bar for a study: episodes done, ETA, faults, and the running Score / SR.

Built on rich's :class:`~rich.progress.Progress`. Score and SR are running means over the final
non-fault records of this session (a quick sanity signal, not a paired metric; the report computes the
real ones). Disabled (silent) progress is the same object with ``enabled=False``, so the driver has one
code path.
"""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from mirrorcraft.contracts import EpisodeRecord
from mirrorcraft.metrics.paired import is_fault


class StudyProgress:
    """Progress of one study session.

    Args:
        total: episodes of the grid.
        already_done: episodes that had their final record before this session (resume).
        enabled: draw the bar (False: only count).
        console: rich console to draw on (default: stderr).
    """

    def __init__(
        self, total: int, already_done: int = 0, *, enabled: bool = True, console: Console | None = None
    ) -> None:
        self.total = total
        self.done = already_done
        self.valid = 0
        self.score_sum = 0
        self.successes = 0
        self.faults = 0
        self.retries = 0
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._console = console

    def __enter__(self) -> StudyProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("[bold]study"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("{task.fields[stats]}"),
                console=self._console or Console(stderr=True),
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("study", total=self.total, completed=self.done, stats="")
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.__exit__(exc_type, exc, tb)

    @property
    def mean_score(self) -> float:
        """Running mean Score of this session's valid final records (NaN before the first)."""
        return self.score_sum / self.valid if self.valid else float("nan")

    @property
    def success_rate(self) -> float:
        """Running SR (percent) of this session's valid final records (NaN before the first)."""
        return 100.0 * self.successes / self.valid if self.valid else float("nan")

    def stats_text(self) -> str:
        """``Score 71.2 SR 40.0% faults 1 retries 2`` (what the bar shows)."""
        return f"Score {self.mean_score:.1f}  SR {self.success_rate:.1f}%  faults {self.faults}  retries {self.retries}"

    def update(self, record: EpisodeRecord, final: bool) -> None:
        """Account one appended record.

        Args:
            record: the record just stored.
            final: whether it was the episode's final record (False: a fault that will be retried).
        """
        if not final:
            self.retries += 1
        else:
            self.done += 1
            if is_fault(record):
                self.faults += 1
            else:
                self.valid += 1
                self.score_sum += record.outcome.score
                self.successes += int(record.outcome.success)
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self.done, stats=self.stats_text())
