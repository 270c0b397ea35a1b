"""Significance and power of a paired effect: a cluster sign-flip permutation test and the minimum detectable RIE.

Why these two (beyond the paper, which gives bootstrap intervals only): a researcher who pays per episode
needs to know whether an RIE of one suite is distinguishable from zero, and how large an RIE the study can
detect at all before running it.

**Clusters.** The paired differences of one Vanilla world are not independent (every suite and
configuration of the world shares its terrain and its Vanilla episodes), so both procedures work on
**Vanilla worlds**, like the cluster bootstrap (:mod:`mirrorcraft.metrics.bootstrap`).

**Sign-flip permutation test** (:func:`sign_flip_test`). H0: within a world, the Vanilla world and its
Mirror copy are exchangeable (the rule suite changes nothing), so every world's differences may have their
sign flipped jointly. The statistic is the mean of all differences (the RIE); the two-sided p-value is the
share of the 2^k sign assignments of the k worlds whose |mean| is at least the observed |mean|. It is
exact (every assignment enumerated) for k ≤ :data:`MAX_EXACT_WORLDS` and a seeded Monte Carlo estimate
with ``(1 + hits) / (1 + draws)`` above that. Valid per suite, where each world contributes one Mirror copy;
for the pooled RIE the six Mirror copies share one Vanilla world, flipping one world's labels is no
longer a relabelling of the data, and no p-value is given.

**Minimum detectable effect** (:func:`minimum_detectable_effect`): for a two-sided test at level α with
power 1 − β on n independent units whose mean difference has standard deviation σ,

    MDE = (z_{1−α/2} + z_{1−β}) · σ / √n

(normal approximation of the paired test; α = 0.05 and power 0.8 give 2.80 · σ / √n). Here the units are
Vanilla worlds, σ is the sample standard deviation of the per-world mean differences, and n the number of
worlds. Assumptions: worlds are independent draws, the per-world mean difference is roughly normal (a mean
over many episodes), σ is estimated from the study itself (with few worlds the estimate is rough and the
normal approximation is optimistic: a t quantile would be larger). Sizing a study:
n = ((z_{1−α/2} + z_{1−β}) · σ / Δ)² worlds detect an RIE of Δ (:func:`worlds_needed`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Sequence
from statistics import NormalDist, stdev

import numpy as np

#: Up to this many worlds the sign-flip test enumerates all 2^k assignments (65,536 at 16).
MAX_EXACT_WORLDS = 16
#: Monte Carlo draws of the sign-flip test above :data:`MAX_EXACT_WORLDS` worlds.
MC_DRAWS = 20_000
ALPHA = 0.05
POWER = 0.8


def _cluster_sums(values: Sequence[float], units: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    if len(values) != len(units):
        raise ValueError(f"{len(values)} values but {len(units)} units")
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(u, len(index)) for u in units], dtype=np.int64)
    sums = np.bincount(codes, weights=np.asarray(values, dtype=float), minlength=len(index))
    counts = np.bincount(codes, minlength=len(index)).astype(float)
    return sums, counts


def sign_flip_test(values: Sequence[float], units: Sequence[Hashable], *, seed: int = 0) -> float:
    """Two-sided p-value of the mean of ``values`` under joint sign flips of whole ``units``.

    Args:
        values: paired differences (e.g. S̄_V − S̄_M of each comparison of one suite).
        units: the cluster of each value (the Vanilla world).
        seed: seed of the Monte Carlo draws (used only above :data:`MAX_EXACT_WORLDS` units).

    Returns:
        The p-value in (0, 1]; NaN without values. One unit gives 1.0 (both signs are as extreme).
    """
    if not values:
        return float("nan")
    sums, _ = _cluster_sums(values, units)
    observed = abs(float(sums.sum()))
    tol = 1e-9 * max(1.0, float(np.abs(sums).sum()))
    k = len(sums)
    if k <= MAX_EXACT_WORLDS:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=k)))
        stats = np.abs(signs @ sums)
        return float(np.mean(stats >= observed - tol))
    rng = np.random.default_rng(seed)
    signs = rng.choice((1.0, -1.0), size=(MC_DRAWS, k))
    hits = int(np.sum(np.abs(signs @ sums) >= observed - tol))
    return (1 + hits) / (1 + MC_DRAWS)


def cluster_means(values: Sequence[float], units: Sequence[Hashable]) -> list[float]:
    """The mean difference of each unit (world), in first-seen order."""
    sums, counts = _cluster_sums(values, units)
    return [float(s / c) for s, c in zip(sums, counts, strict=True)]


def z_total(alpha: float = ALPHA, power: float = POWER) -> float:
    """z_{1−α/2} + z_{power}: 2.8016 for α = 0.05 and power 0.8."""
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError(f"need 0 < alpha < 1 and 0 < power < 1, got {alpha}, {power}")
    nd = NormalDist()
    return nd.inv_cdf(1 - alpha / 2) + nd.inv_cdf(power)


def minimum_detectable_effect(sd: float, n: int, *, alpha: float = ALPHA, power: float = POWER) -> float:
    """(z_{1−α/2} + z_{power}) · sd / √n (module docstring); NaN when sd is NaN or n < 1."""
    if n < 1 or math.isnan(sd):
        return float("nan")
    return z_total(alpha, power) * sd / math.sqrt(n)


def worlds_needed(sd: float, effect: float, *, alpha: float = ALPHA, power: float = POWER) -> int:
    """Worlds needed to detect ``effect`` (same units as ``sd``) at ``alpha`` with ``power``."""
    if effect <= 0:
        raise ValueError(f"effect must be > 0, got {effect}")
    return max(2, math.ceil((z_total(alpha, power) * sd / effect) ** 2))


def world_sd(values: Sequence[float], units: Sequence[Hashable]) -> float:
    """Sample standard deviation of the per-world mean differences (NaN with fewer than two worlds)."""
    means = cluster_means(values, units) if values else []
    return stdev(means) if len(means) >= 2 else float("nan")
