"""Percentile bootstrap confidence intervals that resample whole clusters (cluster bootstrap).

Paired differences of one Vanilla world are not independent draws: its Mirror copies share its terrain,
spawn and placed resources, and every suite's comparison shares the same Vanilla episodes. The tables
therefore pass the **Vanilla world** as the unit: each bootstrap replicate draws as many worlds as there
are, with replacement, each drawn world bringing all its comparisons (every suite, task, model and
configuration of it), and recomputes the statistic (the mean over every paired difference of the drawn
worlds, with multiplicity). The generator is numpy's PCG64 seeded with ``seed``, so the interval is a
deterministic function of (values, units, n_boot, seed). Fewer than two units give no interval (NaN,
shown as "–"): one world cannot say how much the RIE varies between worlds.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    units: Sequence[Hashable],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of the mean of ``values`` resampling whole ``units``.

    Args:
        values: one number per paired difference (e.g. S̄_V − S̄_M of each comparison); may also be a
            2-D array (rows = differences, columns = statistics) resampled jointly.
        units: the resampling unit of each value (the tables pass the Vanilla world), same length as
            ``values``.
        n_boot: number of replicates.
        seed: seed of the numpy generator.
        level: coverage, e.g. 0.95.

    Returns:
        ``(low, high)``; for 2-D input, arrays of lows and highs per column.

    Raises:
        ValueError: lengths differ, or ``n_boot``/``level`` out of range.
    """
    vals = np.asarray(values, dtype=float)
    if len(vals) != len(units):
        raise ValueError(f"bootstrap_ci: {len(vals)} values but {len(units)} units")
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"bootstrap_ci: need n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(u, len(index)) for u in units], dtype=np.int64)
    n_units = len(index)
    if n_units < 2:
        nan = np.full(vals.shape[1:], np.nan) if vals.ndim > 1 else float("nan")
        return nan, nan  # type: ignore[return-value]
    two_d = vals.reshape(len(vals), -1)
    sums = np.zeros((n_units, two_d.shape[1]))
    np.add.at(sums, codes, two_d)
    counts = np.bincount(codes, minlength=n_units).astype(float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_units, size=(n_boot, n_units))
    stat = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)[:, None]
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(stat, [alpha, 1.0 - alpha], axis=0)
    if vals.ndim == 1:
        return float(low[0]), float(high[0])
    return low, high
