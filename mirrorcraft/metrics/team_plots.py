"""PNG figures of a team report (matplotlib, Agg backend, as :mod:`mirrorcraft.metrics.plots`).

* :func:`plot_team_scores` — one scenario: for each tested system × opponent (× arena variant), the tested
  system's and the opponent's mean score at every game second, with a 95 % percentile bootstrap band that
  resamples **blocks** (the units of :func:`~mirrorcraft.metrics.teams.resampling_units`: a block, or the pair of
  a repeat's red and blue blocks on the same seeds), sides pooled as the tables pool them (the mean of the two
  sides' means);
* :func:`plot_d_heatmap` — one scenario: D (own − opponent) by tested system × opponent, side-balanced (the
  ``pooled`` rows of the results table; a cell played from one side only shows that side and says so).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)
import numpy as np  # noqa: E402

from mirrorcraft.contracts.teams import SIDES, TeamEpisodeRecord  # noqa: E402
from mirrorcraft.metrics.tables import Table  # noqa: E402
from mirrorcraft.metrics.teams import resampling_units  # noqa: E402

__all__ = ["plot_d_heatmap", "plot_team_scores", "score_band"]

_TITLES = {"mushroom_war": "Mushroom War", "dash_and_dine": "Dash & Dine"}
TESTED_COLOUR, OPPONENT_COLOUR = "#4477aa", "#ee6677"


def score_band(
    values: np.ndarray,
    units: Sequence[Hashable],
    strata: Sequence[Hashable],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column (game second) the stratum-balanced mean of ``values`` (episodes × seconds) and its percentile
    band, resampling whole units — :func:`~mirrorcraft.metrics.teams.stratified_ci` for every second at once
    (each stratum weighs ``1 / number of strata``; units drawn jointly when every unit holds every stratum,
    within each stratum otherwise). Fewer than two units: NaN bands.
    """
    vals = np.asarray(values, dtype=float)
    names = sorted(set(strata), key=str)
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(u, len(index)) for u in units], dtype=np.int64)
    scode = np.array([names.index(s) for s in strata], dtype=np.int64)
    n_units, n_t = len(index), vals.shape[1]
    sums = np.zeros((len(names), n_units, n_t))
    counts = np.zeros((len(names), n_units))
    np.add.at(sums, (scode, codes), vals)
    np.add.at(counts, (scode, codes), 1.0)
    mean = np.mean([sums[j].sum(axis=0) / counts[j].sum() for j in range(len(names))], axis=0)
    nan = np.full(n_t, math.nan)
    if n_units < 2:
        return mean, nan, nan.copy()
    rng = np.random.default_rng(seed)
    alpha = (1.0 - level) / 2.0
    parts = []
    joint = (counts > 0).all()
    draws = rng.integers(0, n_units, size=(n_boot, n_units)) if joint else None
    for j in range(len(names)):
        if joint:
            pick = draws
        else:
            mine = np.flatnonzero(counts[j] > 0)
            if len(mine) < 2:
                return mean, nan, nan.copy()
            pick = mine[rng.integers(0, len(mine), size=(n_boot, len(mine)))]
        mult = np.zeros((n_boot, n_units))
        np.add.at(mult, (np.repeat(np.arange(n_boot), pick.shape[1]), pick.ravel()), 1.0)
        parts.append((mult @ sums[j]) / (mult @ counts[j])[:, None])
    stat = np.mean(parts, axis=0)
    low, high = np.quantile(stat, [alpha, 1.0 - alpha], axis=0)
    return mean, low, high


def _series(r: TeamEpisodeRecord, side: str, n_t: int) -> list[float]:
    return [getattr(s, side) for s in r.scores[:n_t]]


def _cells(records: Sequence[TeamEpisodeRecord]) -> list[tuple[str, str, str, list[TeamEpisodeRecord]]]:
    keys: dict[tuple[str, str, str], list[TeamEpisodeRecord]] = {}
    for r in records:
        i = r.identity
        keys.setdefault((i.tested.label, i.opponent.label, i.arena_variant), []).append(r)
    order = sorted(keys, key=lambda k: (k[2] != "original", k[0] != "do_nothing", k[0], k[1]))
    return [(*k, keys[k]) for k in order]


def plot_team_scores(
    records: Sequence[TeamEpisodeRecord], scenario: str, path: Path, *, n_boot: int = 2000, seed: int = 0
) -> Path | None:
    """Score over time with bootstrap bands for one scenario (module docstring); None when there is nothing
    to plot (no valid record with score samples)."""
    recs = [r for r in records if not r.is_fault and r.identity.scenario == scenario and r.scores]
    if not recs:
        return None
    units = resampling_units(recs)
    cells = _cells(recs)
    ncols = min(3, len(cells))
    nrows = math.ceil(len(cells) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), dpi=110, squeeze=False)
    for ax, (tested, opponent, variant, sel) in zip(axes.flat, cells, strict=False):
        n_t = min(len(r.scores) for r in sel)
        x = np.arange(1, n_t + 1)
        sides = [r.identity.tested_side for r in sel]
        u = [units[r.episode_id] for r in sel]
        for who, colour, label in ((0, TESTED_COLOUR, tested), (1, OPPONENT_COLOUR, opponent)):
            vals = np.array(
                [
                    _series(r, r.identity.tested_side if who == 0 else r.identity.opponent_side, n_t)
                    for r in sel
                ]
            )
            mean, lo, hi = score_band(vals, u, sides, n_boot=n_boot, seed=seed)
            ax.plot(x, mean, color=colour, label=label, linewidth=1.4)
            if not np.isnan(lo).all():
                ax.fill_between(x, lo, hi, color=colour, alpha=0.25, linewidth=0)
        played = "+".join(s for s in SIDES if s in sides)
        ax.set_title(
            f"{tested} vs {opponent}" + (f" ({variant})" if variant != "original" else "")
            + f"\n{len(sel)} episodes, {len(set(u))} units, tested side {played}",
            fontsize=8,
        )  # fmt: skip
        ax.set_xlabel("game second", fontsize=8)
        ax.set_ylabel("score", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper left")
    for ax in list(axes.flat)[len(cells) :]:
        ax.set_visible(False)
    fig.suptitle(
        f"{_TITLES.get(scenario, scenario)}: score over time (mean; band: 95% bootstrap over blocks; sides pooled)",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_d_heatmap(results: Table, scenario: str, path: Path) -> Path | None:
    """Heat map of D by tested system × opponent from :func:`~mirrorcraft.metrics.teams.team_results`'s table,
    one panel per arena variant (module docstring); None when the table has no opponent rows."""
    rows = [r for r in results.rows if r["opponent"] != "all" and r.get("d") is not None]
    variants = [v for v in ("original", "mirrored") if any(r["arena"] == v for r in rows)]
    if not variants:
        return None
    fig, axes = plt.subplots(1, len(variants), figsize=(0.1, 0.1), dpi=110, squeeze=False)
    widths = []
    for ax, variant in zip(axes.flat, variants, strict=True):
        mine = [r for r in rows if r["arena"] == variant]
        systems = sorted({r["system"] for r in mine}, key=lambda s: (s == "do_nothing", s))
        opponents = sorted({r["opponent"] for r in mine})
        grid = np.full((len(systems), len(opponents)), math.nan)
        marks: dict[tuple[int, int], str] = {}
        for a, system in enumerate(systems):
            for b, opponent in enumerate(opponents):
                cell = [r for r in mine if r["system"] == system and r["opponent"] == opponent]
                pooled = [r for r in cell if r["side"] == "pooled"]
                pick = pooled or cell
                if pick:
                    grid[a, b] = pick[0]["d"]
                    marks[(a, b)] = "" if pooled else f"\n({pick[0]['side']} only)"
        span = float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 1.0
        span = span or 1.0
        im = ax.imshow(grid, cmap="RdBu", vmin=-span, vmax=span, aspect="auto")
        for (a, b), mark in marks.items():
            colour = "white" if abs(grid[a, b]) > 0.6 * span else "black"  # legible on the dark ends
            ax.text(b, a, f"{grid[a, b]:+.1f}{mark}", ha="center", va="center", fontsize=8, color=colour)
        ax.set_xticks(range(len(opponents)), opponents, rotation=20, fontsize=8)
        ax.set_yticks(range(len(systems)), systems, fontsize=8)
        ax.set_xlabel("opponent", fontsize=8)
        ax.set_ylabel("tested system", fontsize=8)
        ax.set_title(f"{variant} arena", fontsize=9)
        fig.colorbar(im, ax=ax, label="D (own − opponent)", shrink=0.8)
        widths.append(max(4.0, 1.3 * len(opponents) + 2.5))
    fig.set_size_inches(sum(widths), max(3.0, 0.7 * max(len({r["system"] for r in rows}), 1) + 2.0))
    fig.suptitle(f"{_TITLES.get(scenario, scenario)}: mean D by system × opponent (sides pooled)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
