"""Team metrics (PillagerBench): P, S, D, W per episode, side-balanced aggregates with block-bootstrap CIs,
side and arena asymmetry, measured normal scores, an OpenSkill rating table, and their Markdown/CSV tables.

Per episode, from the tested system's side (shared/spec/pillagerbench.md):

* **P** — the tested system's points at the end (the last per-second sample);
* **S** — sabotage: the opponent's **normal** score minus its actual score. The normal score is measured,
  never a constant: the opponent's final score against the do-nothing baseline (``NORMAL_SCORE_BASELINE``)
  on the **same seed**, scenario, arena variant and opponent side (:func:`normal_scores` takes those baseline
  records). The seed of a team episode ignores the tested system and the side, so the grid's baseline
  episodes meet exactly the seeds of the episodes they measure; the mean of S over a cell is then the
  opponent's mean against do-nothing over the same seeds minus its mean actual score. An episode whose seed
  has no baseline episode has no S (counted in the notes);
* **D** — own minus opponent; **W** — 1 for a win, 0.5 for a tie, 0 for a loss (tables show W in percent).

**Resampling unit** (:func:`resampling_units`): a block (the consecutive episodes of one pairing, side, arena
variant and repeat — not independent when a system learns across them). When the same repeat was played from
both sides on the same seeds, the two blocks are **one** unit (paired across sides), and the side contrasts
are within-unit differences. Percentile bootstrap, 95 %, 2,000 replicates, numpy PCG64 seeded, resampling
whole units (:func:`stratified_ci`, the cluster bootstrap of :mod:`mirrorcraft.metrics.bootstrap` with strata);
fewer than two units give no interval ("–" in Markdown, an empty CSV cell).

**Side balance.** Every statistic pooled over sides is the mean of the two sides' means (each side weighs
one half whatever its episode count); rows per side are shown too. The mirrored arena is a separate condition,
never pooled with the original: with both variants, :func:`arena_asymmetry` splits the side gap
``gap_v = D(red, v) − D(blue, v)`` into the arena's **content** asymmetry ``(gap_original − gap_mirrored) / 4``
(what the original red half's resources are worth to the side that has them) and the **residual** side
asymmetry ``(gap_original + gap_mirrored) / 4`` (what stays with the team when the halves' contents swap:
spawn order, judge code, anything not mirrored).

**No cross-scenario scaling** in the headline tables: each table is one scenario. The original's ÷ 10 for
Dash & Dine exists only in :func:`scaled_pool`, labelled as such. docs/pillagerbench.md states all of this.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from mirrorcraft.contracts.teams import NORMAL_SCORE_BASELINE, SIDES, TeamEpisodeRecord
from mirrorcraft.metrics.tables import Column, Table

__all__ = [
    "EpisodeMetrics",
    "Estimate",
    "arena_asymmetry",
    "episode_metrics",
    "normal_score_table",
    "normal_scores",
    "ratings",
    "resampling_units",
    "scaled_pool",
    "side_balance",
    "stratified_ci",
    "team_results",
    "team_tables",
    "win_value",
    "write_team_tables",
]

ALL = "all"
POOLED = "pooled"
NormalKey = tuple[str, str, str, str]  # scenario, arena variant, opponent label, opponent side


def win_value(own: float, other: float) -> float:
    """W: 1 for a win, 0.5 for a tie, 0 for a loss."""
    return 1.0 if own > other else 0.5 if own == other else 0.0


@dataclass(frozen=True)
class EpisodeMetrics:
    """One valid team episode seen from its tested system."""

    episode_id: str
    scenario: str
    variant: str
    tested: str
    opponent: str
    side: str
    repeat: int
    seed: int
    unit: Hashable
    p: float
    o: float
    s: float | None

    @property
    def d(self) -> float:
        """Own minus opponent."""
        return self.p - self.o

    @property
    def w(self) -> float:
        """1 / 0.5 / 0."""
        return win_value(self.p, self.o)


def _valid(records: Sequence[TeamEpisodeRecord]) -> list[TeamEpisodeRecord]:
    return [r for r in records if not r.is_fault]


def _normal_key(r: TeamEpisodeRecord) -> NormalKey:
    i = r.identity
    return (i.scenario, i.arena_variant, i.opponent.label, i.opponent_side)


def normal_scores(
    baseline_records: Sequence[TeamEpisodeRecord], baseline: str = NORMAL_SCORE_BASELINE
) -> dict[NormalKey, dict[int, float]]:
    """The measured normal scores: for each (scenario, arena variant, opponent, opponent side), seed → the
    opponent's mean final score against ``baseline`` at that seed (fault records excluded).

    Args:
        baseline_records: records to take the baseline episodes from (others are ignored).
        baseline: the tested system id whose episodes measure the normal score.
    """
    acc: dict[NormalKey, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in _valid(baseline_records):
        i = r.identity
        if i.tested.id == baseline and not i.tested.settings and i.tested.model is None:
            acc[_normal_key(r)][i.seed].append(r.opponent_score)
    return {k: {s: float(np.mean(v)) for s, v in by_seed.items()} for k, by_seed in acc.items()}


def resampling_units(records: Sequence[TeamEpisodeRecord]) -> dict[str, Hashable]:
    """Episode id → its bootstrap unit: its block, or its pair of blocks when the same repeat was played from
    both sides on the same seeds (module docstring)."""
    valid = _valid(records)
    pair_of: dict[tuple, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for r in valid:
        i = r.identity
        pair_of[_pair_key(r)][i.tested_side].add(i.seed)
    out: dict[str, Hashable] = {}
    for r in valid:
        sides = pair_of[_pair_key(r)]
        paired = len(sides) == 2 and sides["red"] == sides["blue"]
        out[r.episode_id] = ("pair", *_pair_key(r)) if paired else ("block", r.identity.block_id)
    return out


def _pair_key(r: TeamEpisodeRecord) -> tuple:
    i = r.identity
    return (
        i.scenario,
        i.arena_variant,
        i.tested.label,
        i.opponent.label,
        i.repeat,
        i.study_seed,
        i.block_length,
    )


def episode_metrics(
    records: Sequence[TeamEpisodeRecord], baseline_records: Sequence[TeamEpisodeRecord] | None = None
) -> list[EpisodeMetrics]:
    """P, S, D, W of every valid record (fault records excluded).

    Args:
        records: the episodes to score.
        baseline_records: where the normal scores come from (default: ``records`` themselves, as a grid with
            ``baselines`` holds them).
    """
    valid = _valid(records)
    normals = normal_scores(valid if baseline_records is None else baseline_records)
    units = resampling_units(valid)
    out = []
    for r in valid:
        i = r.identity
        normal = normals.get(_normal_key(r), {}).get(i.seed)
        out.append(
            EpisodeMetrics(
                episode_id=r.episode_id,
                scenario=i.scenario,
                variant=i.arena_variant,
                tested=i.tested.label,
                opponent=i.opponent.label,
                side=i.tested_side,
                repeat=i.repeat,
                seed=i.seed,
                unit=units[r.episode_id],
                p=r.tested_score,
                o=r.opponent_score,
                s=None if normal is None else normal - r.opponent_score,
            )
        )
    return out


@dataclass(frozen=True)
class Estimate:
    """A statistic, its 95 % interval (NaN bounds with fewer than two units), episodes and units."""

    value: float
    ci: tuple[float, float]
    n: int
    units: int


def stratified_ci(
    values: Sequence[float] | np.ndarray,
    units: Sequence[Hashable],
    strata: Sequence[Hashable],
    weights: dict[Hashable, float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Estimate:
    """``Σ_s weights[s] · mean(values of stratum s)`` and its percentile interval, resampling whole units.

    Every stratum in ``weights`` must have values (else the value is NaN). When every unit holds every
    stratum (paired blocks), each replicate draws as many units as there are, jointly, so within-unit
    contrasts stay paired; otherwise each stratum's units are resampled within the stratum. With one stratum
    of weight 1 this is exactly :func:`mirrorcraft.metrics.bootstrap.bootstrap_ci`'s cluster bootstrap.

    Raises:
        ValueError: lengths differ, or ``n_boot``/``level`` out of range.
    """
    vals = np.asarray(values, dtype=float)
    if not len(vals) == len(units) == len(strata):
        raise ValueError(f"stratified_ci: {len(vals)} values, {len(units)} units, {len(strata)} strata")
    if n_boot < 1 or not 0 < level < 1:
        raise ValueError(f"stratified_ci: need n_boot >= 1 and 0 < level < 1, got {n_boot}, {level}")
    keep = [k for k, s in enumerate(strata) if s in weights]
    vals = vals[keep]
    units = [units[k] for k in keep]
    strata = [strata[k] for k in keep]
    names = list(weights)
    nan = float("nan")
    if any(s not in strata for s in names):
        return Estimate(nan, (nan, nan), len(vals), len(set(units)))
    value = float(
        sum(weights[s] * np.mean([v for v, t in zip(vals, strata, strict=True) if t == s]) for s in names)
    )
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(u, len(index)) for u in units], dtype=np.int64)
    n_units = len(index)
    scode = np.array([names.index(s) for s in strata], dtype=np.int64)
    sums = np.zeros((n_units, len(names)))
    counts = np.zeros((n_units, len(names)))
    np.add.at(sums, (codes, scode), vals)
    np.add.at(counts, (codes, scode), 1.0)
    w = np.array([weights[s] for s in names])
    rng = np.random.default_rng(seed)
    alpha = (1.0 - level) / 2.0
    if n_units < 2:
        return Estimate(value, (nan, nan), len(vals), n_units)
    if (counts > 0).all():
        draws = rng.integers(0, n_units, size=(n_boot, n_units))
        stat = (sums[draws].sum(axis=1) / counts[draws].sum(axis=1)) @ w
    else:
        parts = []
        for j in range(len(names)):
            mine = np.flatnonzero(counts[:, j] > 0)
            if len(mine) < 2:
                return Estimate(value, (nan, nan), len(vals), n_units)
            draws = mine[rng.integers(0, len(mine), size=(n_boot, len(mine)))]
            parts.append(sums[draws, j].sum(axis=1) / counts[draws, j].sum(axis=1))
        stat = np.stack(parts, axis=1) @ w
    low, high = np.quantile(stat, [alpha, 1.0 - alpha])
    return Estimate(value, (float(low), float(high)), len(vals), n_units)


_SIDE_WEIGHTS: dict[str, dict[Hashable, float]] = {
    "red": {"red": 1.0},
    "blue": {"blue": 1.0},
    POOLED: {"red": 0.5, "blue": 0.5},
}
_METRICS: dict[str, Callable[[EpisodeMetrics], float | None]] = {
    "p": lambda m: m.p,
    "s": lambda m: m.s,
    "d": lambda m: m.d,
    "w_pct": lambda m: 100.0 * m.w,
}


def _estimate(
    ms: Sequence[EpisodeMetrics], metric: str, weights: dict, strata_of, n_boot: int, seed: int
) -> Estimate:
    get = _METRICS[metric]
    sel = [m for m in ms if get(m) is not None]
    return stratified_ci(
        [get(m) for m in sel],  # type: ignore[misc]
        [m.unit for m in sel],
        [strata_of(m) for m in sel],
        weights,
        n_boot=n_boot,
        seed=seed,
    )


def _ordered(values: Sequence[str], first: Sequence[str] = ()) -> list[str]:
    seen = sorted(set(values), key=lambda v: (first.index(v) if v in first else len(first), v))
    return seen


def _cells(ms: Sequence[EpisodeMetrics]) -> list[tuple[str, str, str, list[EpisodeMetrics]]]:
    """(system, opponent or 'all', variant, metrics) for every cell with episodes."""
    out = []
    for system in _ordered([m.tested for m in ms], [NORMAL_SCORE_BASELINE]):
        mine = [m for m in ms if m.tested == system]
        for opponent in [*_ordered([m.opponent for m in mine]), ALL]:
            for variant in _ordered([m.variant for m in mine], ["original", "mirrored"]):
                sel = [m for m in mine if m.variant == variant and opponent in (ALL, m.opponent)]
                if sel:
                    out.append((system, opponent, variant, sel))
    return out


_KEY_COLUMNS = [Column("system", "System", "str"), Column("opponent", "Opponent", "str")]


def _scenario_metrics(
    records: Sequence[TeamEpisodeRecord], scenario: str, baseline_records: Sequence[TeamEpisodeRecord] | None
) -> list[EpisodeMetrics]:
    return [m for m in episode_metrics(records, baseline_records) if m.scenario == scenario]


def _ci_columns(key: str, header: str, fmt: str = "f1") -> list[Column]:
    return [Column(key, header, fmt), Column(f"{key}_ci", "95% CI", "ci")]


def team_results(
    records: Sequence[TeamEpisodeRecord],
    scenario: str,
    *,
    baseline_records: Sequence[TeamEpisodeRecord] | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> Table:
    """One scenario: per tested system × opponent (and all opponents) × arena variant × side (red, blue,
    pooled): P, S, D, W with block-bootstrap CIs, episodes and units."""
    ms = _scenario_metrics(records, scenario, baseline_records)
    missing_s = sum(1 for m in ms if m.s is None)
    table = Table(
        f"teams_{scenario}",
        f"{_TITLES.get(scenario, scenario)}: points, sabotage, difference and wins of the tested system",
        [
            *_KEY_COLUMNS,
            Column("arena", "Arena", "str"),
            Column("side", "Side", "str"),
            *_ci_columns("p", "P"),
            *_ci_columns("s", "S"),
            *_ci_columns("d", "D", "signed"),
            *_ci_columns("w_pct", "W (%)"),
            Column("episodes", "episodes", "int"),
            Column("units", "units", "int"),
        ],
        notes=[
            "P own points at the end; S = the opponent's normal score (its score against do_nothing on the same "
            "seed, side and arena) minus its score; D = own − opponent; W = 1 / 0.5 / 0 in percent. Pooled = the "
            "mean of the two sides' means. CIs: percentile bootstrap over blocks (a block = the consecutive "
            "episodes of one pairing, side and repeat; the two sides of a repeat on the same seeds are one unit); "
            "– with fewer than two units. A pooled row needs both sides. The mirrored arena is its own condition, "
            "never pooled."
        ]
        + (
            [f"{missing_s} episodes have no baseline episode on their seed: they have no S."]
            if missing_s
            else []
        ),
    )
    for system, opponent, variant, sel in _cells(ms):
        for side in [*SIDES, POOLED]:
            weights = _SIDE_WEIGHTS[side]
            cell = [m for m in sel if m.side in weights]
            if not cell or (side == POOLED and {m.side for m in cell} != set(SIDES)):
                continue  # a side-balanced pool needs both sides
            row: dict[str, Any] = {"system": system, "opponent": opponent, "arena": variant, "side": side}
            for metric in _METRICS:
                est = _estimate(cell, metric, weights, lambda m: m.side, n_boot, seed)
                row[metric] = est.value
                row[f"{metric}_ci"] = est.ci
            row["episodes"] = len(cell)
            row["units"] = len({m.unit for m in cell})
            table.rows.append(row)
    return table


def side_balance(
    records: Sequence[TeamEpisodeRecord],
    scenario: str,
    *,
    baseline_records: Sequence[TeamEpisodeRecord] | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> Table:
    """One scenario: D as red, D as blue and the side gap D(red) − D(blue), paired over units, per tested system ×
    opponent × arena variant."""
    ms = _scenario_metrics(records, scenario, baseline_records)
    table = Table(
        f"side_balance_{scenario}",
        f"{_TITLES.get(scenario, scenario)}: the side gap of D (red − blue)",
        [
            *_KEY_COLUMNS,
            Column("arena", "Arena", "str"),
            Column("d_red", "D red", "signed"),
            Column("d_blue", "D blue", "signed"),
            *_ci_columns("gap", "gap", "signed"),
            Column("units", "units", "int"),
        ],
        notes=[
            "gap = mean D as red − mean D as blue; its CI resamples units, a unit holding both sides' blocks of "
            "a repeat when they met the same seeds (paired). A gap far from 0 on the original arena is side "
            "advantage; compare the mirrored arena (arena_asymmetry)."
        ],
    )
    for system, opponent, variant, sel in _cells(ms):
        red = [m.d for m in sel if m.side == "red"]
        blue = [m.d for m in sel if m.side == "blue"]
        gap = _estimate(sel, "d", {"red": 1.0, "blue": -1.0}, lambda m: m.side, n_boot, seed)
        table.rows.append(
            {
                "system": system,
                "opponent": opponent,
                "arena": variant,
                "d_red": float(np.mean(red)) if red else None,
                "d_blue": float(np.mean(blue)) if blue else None,
                "gap": gap.value,
                "gap_ci": gap.ci,
                "units": gap.units,
            }
        )
    return table


def arena_asymmetry(
    records: Sequence[TeamEpisodeRecord],
    scenario: str,
    *,
    baseline_records: Sequence[TeamEpisodeRecord] | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> Table:
    """One scenario with both arena variants: the content and residual side asymmetry of D (module docstring),
    per tested system × opponent; units join a repeat's four blocks (two sides × two variants, same seeds)."""
    ms = _scenario_metrics(records, scenario, baseline_records)
    table = Table(
        f"arena_asymmetry_{scenario}",
        f"{_TITLES.get(scenario, scenario)}: the arena's own asymmetry (original vs mirrored)",
        [
            *_KEY_COLUMNS,
            Column("gap_original", "gap original", "signed"),
            Column("gap_mirrored", "gap mirrored", "signed"),
            *_ci_columns("content", "content", "signed"),
            *_ci_columns("residual", "residual", "signed"),
            Column("units", "units", "int"),
        ],
        notes=[
            "gap = D(red) − D(blue) on one arena. content = (gap_original − gap_mirrored) / 4: what the original "
            "red half's resources are worth in D to the side that holds them; residual = (gap_original + "
            "gap_mirrored) / 4: the side advantage that stays with the team when the halves swap. Rows need "
            "both arenas."
        ],
    )
    strata = lambda m: (m.side, m.variant)  # noqa: E731
    content_w = {
        ("red", "original"): 0.25,
        ("blue", "original"): -0.25,
        ("red", "mirrored"): -0.25,
        ("blue", "mirrored"): 0.25,
    }
    residual_w = {
        ("red", "original"): 0.25,
        ("blue", "original"): -0.25,
        ("red", "mirrored"): 0.25,
        ("blue", "mirrored"): -0.25,
    }
    for system in _ordered([m.tested for m in ms], [NORMAL_SCORE_BASELINE]):
        mine = [m for m in ms if m.tested == system]
        for opponent in [*_ordered([m.opponent for m in mine]), ALL]:
            sel = [m for m in mine if opponent in (ALL, m.opponent)]
            if {m.variant for m in sel} != {"original", "mirrored"}:
                continue
            # One unit per repeat: the seeds do not depend on side or variant.
            sel = [replace(m, unit=("repeat", m.tested, m.opponent, m.repeat)) for m in sel]
            gaps = {
                v: _estimate(sel, "d", {("red", v): 1.0, ("blue", v): -1.0}, strata, n_boot, seed).value
                for v in ("original", "mirrored")
            }
            content = _estimate(sel, "d", content_w, strata, n_boot, seed)
            residual = _estimate(sel, "d", residual_w, strata, n_boot, seed)
            table.rows.append(
                {
                    "system": system,
                    "opponent": opponent,
                    "gap_original": gaps["original"],
                    "gap_mirrored": gaps["mirrored"],
                    "content": content.value,
                    "content_ci": content.ci,
                    "residual": residual.value,
                    "residual_ci": residual.ci,
                    "units": content.units,
                }
            )
    return table


def normal_score_table(
    baseline_records: Sequence[TeamEpisodeRecord], scenario: str, *, n_boot: int = 2000, seed: int = 0
) -> Table:
    """One scenario: each opponent's measured normal score (its mean against do_nothing) per arena and side."""
    rows = [
        r
        for r in _valid(baseline_records)
        if r.identity.scenario == scenario and r.identity.tested.id == NORMAL_SCORE_BASELINE
    ]
    units = resampling_units(rows)
    table = Table(
        f"normal_scores_{scenario}",
        f"{_TITLES.get(scenario, scenario)}: opponents' normal scores (against do_nothing, measured)",
        [
            Column("opponent", "Opponent", "str"),
            Column("arena", "Arena", "str"),
            Column("side", "Opponent side", "str"),
            *_ci_columns("normal", "normal score"),
            Column("episodes", "episodes", "int"),
            Column("seeds", "seeds", "int"),
        ],
        notes=[
            "The baseline of S: the opponent's final score when the other team does nothing (same seeds)."
        ],
    )
    keys = sorted({_normal_key(r) for r in rows}, key=lambda k: (k[2], k[1] != "original", k[3] != "red"))
    for _, variant, opponent, side in keys:
        sel = [r for r in rows if _normal_key(r) == (scenario, variant, opponent, side)]
        est = stratified_ci(
            [r.opponent_score for r in sel], [units[r.episode_id] for r in sel], [0] * len(sel), {0: 1.0},
            n_boot=n_boot, seed=seed,
        )  # fmt: skip
        table.rows.append(
            {
                "opponent": opponent,
                "arena": variant,
                "side": side,
                "normal": est.value,
                "normal_ci": est.ci,
                "episodes": len(sel),
                "seeds": len({r.identity.seed for r in sel}),
            }
        )
    return table


def ratings(records: Sequence[TeamEpisodeRecord], scenario: str) -> Table:
    """One scenario: an OpenSkill (Plackett–Luce) rating of every system and opponent that played.

    Every valid episode is a match of two one-entity teams, ranked by final score (a tie is a tie). Episodes are
    rated in a fixed order (repeat, place in the block, episode id), so the table is deterministic. Ordinal =
    μ − 3σ (a conservative skill).

    Raises:
        ImportError: the ``openskill`` package is missing (a project dependency).
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError as err:  # a project dependency (pyproject); say so instead of a bare traceback
        raise ImportError("the rating table needs the 'openskill' package (pip install openskill)") from err

    recs = sorted(
        (r for r in _valid(records) if r.identity.scenario == scenario),
        key=lambda r: (r.identity.repeat, r.identity.block_index, r.episode_id),
    )
    model = PlackettLuce()
    state: dict[str, Any] = {}
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # wins, ties, losses
    for r in recs:
        a, b = r.identity.tested.label, r.identity.opponent.label
        if a == b:
            continue  # self-play says nothing about relative skill
        for name in (a, b):
            state.setdefault(name, model.rating(name=name))
        pa, pb = r.tested_score, r.opponent_score
        ranks = [0, 0] if pa == pb else ([0, 1] if pa > pb else [1, 0])
        (ra,), (rb,) = model.rate([[state[a]], [state[b]]], ranks=ranks)
        state[a], state[b] = ra, rb
        wa = win_value(pa, pb)
        tally[a][0 if wa == 1 else 1 if wa == 0.5 else 2] += 1
        tally[b][2 if wa == 1 else 1 if wa == 0.5 else 0] += 1
    table = Table(
        f"ratings_{scenario}",
        f"{_TITLES.get(scenario, scenario)}: OpenSkill (Plackett–Luce) ratings over all systems and opponents",
        [
            Column("rank", "#", "int"),
            Column("system", "System", "str"),
            Column("mu", "μ"),
            Column("sigma", "σ"),
            Column("ordinal", "μ − 3σ"),
            Column("wins", "W", "int"),
            Column("ties", "T", "int"),
            Column("losses", "L", "int"),
        ],
        notes=[
            "openskill PlackettLuce defaults (μ 25, σ 25/3); matches in a fixed order; self-play skipped."
        ],
    )
    order = sorted(state, key=lambda n: (-state[n].ordinal(), n))
    for k, name in enumerate(order, start=1):
        w, t, lo = tally[name]
        rt = state[name]
        table.rows.append(
            {
                "rank": k,
                "system": name,
                "mu": rt.mu,
                "sigma": rt.sigma,
                "ordinal": rt.ordinal(),
                "wins": w,
                "ties": t,
                "losses": lo,
            }
        )
    return table


def scaled_pool(
    records: Sequence[TeamEpisodeRecord],
    *,
    divisors: dict[str, float] | None = None,
    baseline_records: Sequence[TeamEpisodeRecord] | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> Table:
    """The original's cross-scenario pool, as a labelled extra only: P, S, D with Dash & Dine points ÷ 10
    (``divisors``), W unscaled, per tested system, original arena, side-balanced."""
    divisors = {"dash_and_dine": 10.0} if divisors is None else divisors
    ms = [m for m in episode_metrics(records, baseline_records) if m.variant == "original"]
    scaled = [
        replace(
            m,
            p=m.p / divisors.get(m.scenario, 1.0),
            o=m.o / divisors.get(m.scenario, 1.0),
            s=None if m.s is None else m.s / divisors.get(m.scenario, 1.0),
        )
        for m in ms
    ]
    label = ", ".join(f"{k} ÷ {v:g}" for k, v in divisors.items())
    table = Table(
        "scaled_pool",
        f"Extra, not a headline: both scenarios pooled with {label} (the original's scaling)",
        [
            Column("system", "System", "str"),
            Column("sides", "Sides", "str"),
            *_ci_columns("p", "P (scaled)"),
            *_ci_columns("s", "S (scaled)"),
            *_ci_columns("d", "D (scaled)", "signed"),
            *_ci_columns("w_pct", "W (%)"),
            Column("episodes", "episodes", "int"),
        ],
        notes=[
            "The divisor is arbitrary (it changes the pooled numbers); the per-scenario tables are the results."
        ],
    )
    for system in _ordered([m.tested for m in scaled], [NORMAL_SCORE_BASELINE]):
        sel = [m for m in scaled if m.tested == system]
        sides = [x for x in SIDES if any(m.side == x for m in sel)]
        weights = {x: 1.0 / len(sides) for x in sides}
        row: dict[str, Any] = {"system": system, "sides": "+".join(sides), "episodes": len(sel)}
        for metric in _METRICS:
            est = _estimate(sel, metric, weights, lambda m: m.side, n_boot, seed)
            row[metric], row[f"{metric}_ci"] = est.value, est.ci
        table.rows.append(row)
    return table


_TITLES = {"mushroom_war": "Mushroom War", "dash_and_dine": "Dash & Dine"}


def team_tables(records: Sequence[TeamEpisodeRecord], *, n_boot: int = 2000, seed: int = 0) -> list[Table]:
    """Every team table for the scenarios in ``records``: results, side balance, arena asymmetry (when both
    arenas ran), normal scores, ratings; then the labelled cross-scenario extra."""
    scenarios = _ordered([r.identity.scenario for r in _valid(records)], ["mushroom_war", "dash_and_dine"])
    out: list[Table] = []
    for sc in scenarios:
        out.append(team_results(records, sc, n_boot=n_boot, seed=seed))
        out.append(side_balance(records, sc, n_boot=n_boot, seed=seed))
        asym = arena_asymmetry(records, sc, n_boot=n_boot, seed=seed)
        if asym.rows:
            out.append(asym)
        out.append(normal_score_table(records, sc, n_boot=n_boot, seed=seed))
        out.append(ratings(records, sc))
    if len(scenarios) > 1:
        out.append(scaled_pool(records, n_boot=n_boot, seed=seed))
    return out


def write_team_tables(tables: Sequence[Table], out_dir: Path, *, title: str = "Team results") -> list[Path]:
    """Write ``teams.md`` (every table) and one ``<table>.csv`` each into ``out_dir``; each file through a
    temporary file and a rename, so a reader never sees half a file. Returns the written paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []

    def put(name: str, write: Callable[[Path], Any]) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)
        os.close(fd)
        try:
            write(Path(tmp))
            os.chmod(tmp, 0o644)
            os.replace(tmp, out_dir / name)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        written.append(out_dir / name)

    text = f"# {title}\n\n" + "\n".join(t.to_markdown() for t in tables)
    put("teams.md", lambda p: p.write_text(text, encoding="utf-8"))
    for t in tables:
        put(f"{t.name}.csv", t.write_csv)
    return written
