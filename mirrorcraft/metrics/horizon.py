"""Cumulative success by action k (the horizon study: SR at 100/150/200 actions) and cost summaries.

The horizon study runs one trajectory per episode under a 200-action cap and reads the cumulative SR at
several checkpoints; the checkpoints share trajectories (paper: "measure completion timing, not separate
budgets"). An episode counts as successful by action k when its score reaches 100 at some S_j with
j ≤ k (S_0 included). SR@k is then averaged **equally over tasks** (paper Table 3 caption), per
configuration and condition. For an episode whose budget is below k, SR@k is its final success.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import fmean

from mirrorcraft.contracts import EpisodeRecord
from mirrorcraft.metrics.paired import group_by, is_fault


def success_index(record: EpisodeRecord) -> int | None:
    """The first k with S_k == 100 (0 if the episode started complete), or None if never."""
    return next((k for k, s in enumerate(record.scores()) if s == 100), None)


def success_by(records: Iterable[EpisodeRecord], k: int) -> float:
    """SR in percent of ``records`` counting only completions at or before action ``k`` (NaN for none)."""
    values = []
    for r in records:
        j = success_index(r)
        values.append(100.0 if j is not None and j <= k else 0.0)
    return fmean(values) if values else float("nan")


def horizon_sr(records: Sequence[EpisodeRecord], k: int) -> float:
    """Cumulative SR@k (percent) of non-fault records, averaged equally over the tasks present."""
    by_task = group_by((r for r in records if not is_fault(r)), lambda r: r.identity.task.value)
    per_task = [success_by(rs, k) for rs in by_task.values()]
    return fmean(per_task) if per_task else float("nan")


def mean_actions(records: Sequence[EpisodeRecord]) -> float:
    """Mean actions used (budget-consuming skill calls)."""
    return fmean(r.outcome.actions_used for r in records) if records else float("nan")


def mean_minutes(records: Sequence[EpisodeRecord]) -> float:
    """Mean wall time in minutes."""
    return fmean(r.wall_time_s / 60.0 for r in records) if records else float("nan")


def mean_cost(records: Sequence[EpisodeRecord]) -> float:
    """Mean API cost in US dollars."""
    return fmean(r.usage.cost_usd for r in records) if records else float("nan")
