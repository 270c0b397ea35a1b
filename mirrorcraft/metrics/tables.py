"""The paper's table shapes, computed from final episode records, as :class:`Table` objects.

Each builder returns one table in the shape of a table of the paper (numbers are ours, computed from the
records; nothing is copied from the paper):

=================================  ==========================================================================
:func:`by_configuration`           Table 2: per model (and pooled) and configuration: Vanilla / Mirror Score
                                   and SR, RIE_SC, RIE_SR with bootstrap CIs, actions, time, cost
:func:`by_suite`                   Table 4: per suite (and pooled) Mirror Score, SR, RIE with CIs
:func:`by_task_model_configuration` Table 7: per task × model × configuration
:func:`by_biome`                   Table 8: per biome group
:func:`disclosure`                 Table 5: hidden vs disclosed rules per agent and task, ΔScore, ΔSR
:func:`irr_rl`                     Table 9: IRR and RL per suite × configuration and their suite average
:func:`horizon`                    Table 3: cumulative SR at action checkpoints, Vanilla and Mirror
:func:`costs`                      Table 6 (lower panel): actions, time, cost, Vanilla and Mirror; totals
:func:`significance`               ours: per suite, the sign-flip p-value of RIE and the minimum
                                   detectable RIE (:mod:`mirrorcraft.metrics.inference`)
=================================  ==========================================================================

Pooling decisions (documented in docs/metrics.md): Score/SR cells are plain means over the episodes of
the cell (with a complete grid this weights suites, worlds and tasks equally); RIE and Δ are means over
paired differences (:mod:`mirrorcraft.metrics.paired`); tables about the six base configurations
(by suite, by biome) use only configurations that ran in both Vanilla and Mirror; Actions, Time and Cost
are averaged over Mirror episodes (paper Table 2). Every value is kept unrounded in the rows (and the
CSV); :meth:`Table.to_markdown` rounds for display only. A missing value (no interval, no episodes,
undefined) is "–" in Markdown and an empty cell in every CSV column.

Model labels are model names; when the records hold one name with several settings (a report with
``--include-foreign``), the label carries the settings (:func:`~mirrorcraft.metrics.paired.model_label`)
so different temperatures are never merged into one row.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mirrorcraft.contracts import AGENT_CONFIGURATIONS, SUITE_IDS, EpisodeRecord
from mirrorcraft.metrics.bootstrap import bootstrap_ci
from mirrorcraft.metrics.encounters import encounter_outcomes, suite_average
from mirrorcraft.metrics.horizon import horizon_sr, mean_actions, mean_cost, mean_minutes
from mirrorcraft.metrics.inference import ALPHA, POWER, minimum_detectable_effect, sign_flip_test, world_sd
from mirrorcraft.metrics.paired import (
    Comparison,
    DisclosurePair,
    biome_of,
    disclosure_delta,
    disclosure_pairs,
    is_fault,
    model_label,
    paired_comparisons,
    rie,
    score,
    success_rate,
    unpaired_mirror,
)

ALL = "all"


@dataclass(frozen=True)
class Column:
    """A table column: row key, header and display format.

    Formats: ``str``, ``int``, ``f1`` (one decimal), ``f2``, ``f3``, ``signed`` (``+1.2``), ``pct`` (``12.3%``),
    ``ci`` (the value is a ``(low, high)`` pair shown as ``[lo, hi]``; the CSV gets ``_lo``/``_hi``).
    """

    key: str
    header: str
    fmt: str = "f1"


def _fmt(value: Any, fmt: str) -> str:
    if value is None:
        return "–"
    if fmt == "str":
        return str(value)
    if fmt == "ci":
        lo, hi = value
        if math.isnan(lo) or math.isnan(hi):
            return "–"
        return f"[{lo:+.1f}, {hi:+.1f}]"
    if isinstance(value, float) and math.isnan(value):
        return "–"
    if fmt == "int":
        return str(int(value))
    if fmt == "f2":
        return f"{value:.2f}"
    if fmt == "f3":
        return f"{value:.3f}"
    if fmt == "signed":
        return f"{value:+.1f}"
    if fmt == "pct":
        return f"{value:.1f}%"
    return f"{value:.1f}"


@dataclass
class Table:
    """A titled table whose rows hold unrounded values."""

    name: str
    title: str
    columns: list[Column]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_markdown(self) -> str:
        """The table as GitHub Markdown, values rounded for display (SR in percent, RIE_SR in points)."""
        lines = [f"### {self.title}", ""]
        lines.append("| " + " | ".join(c.header for c in self.columns) + " |")
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        for row in self.rows:
            lines.append("| " + " | ".join(_fmt(row.get(c.key), c.fmt) for c in self.columns) + " |")
        if self.notes:
            lines.append("")
            lines.extend(f"*{n}*" for n in self.notes)
        return "\n".join(lines) + "\n"

    def write_csv(self, path: Path) -> Path:
        """Write the rows with full precision (CI columns split into ``<key>_lo``/``<key>_hi``)."""
        headers: list[str] = []
        for c in self.columns:
            headers += [f"{c.key}_lo", f"{c.key}_hi"] if c.fmt == "ci" else [c.key]
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(headers)
            for row in self.rows:
                out: list[Any] = []
                for c in self.columns:
                    v = row.get(c.key)
                    if c.fmt == "ci":
                        out += [_csv_cell(x) for x in v] if v is not None else ["", ""]
                    else:
                        out.append(_csv_cell(v))
                w.writerow(out)
        return path


def _csv_cell(value: Any) -> Any:
    """The one missing-value convention of the CSV files: None and NaN are an empty cell."""
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else value


def config_order(configs: Sequence[str]) -> list[str]:
    """The paper's order: the six base configurations, then ``*_w_rules`` ones, then any others."""

    def key(c: str) -> tuple[int, int, str]:
        base = c.removesuffix("_w_rules")
        rank = AGENT_CONFIGURATIONS.index(base) if base in AGENT_CONFIGURATIONS else len(AGENT_CONFIGURATIONS)
        return (int(c.endswith("_w_rules")), rank, c)

    return sorted(set(configs), key=key)


def _valid(records: Sequence[EpisodeRecord]) -> list[EpisodeRecord]:
    return [r for r in records if not is_fault(r)]


def _labels(records: Sequence[EpisodeRecord]) -> Callable[[EpisodeRecord], str]:
    """The model label of each record (its name unless one name has several settings in ``records``)."""
    models = {r.identity.model for r in records}
    return lambda r: model_label(r.identity.model, models)


def _unpaired_note(records: Sequence[EpisodeRecord]) -> list[str]:
    lone = unpaired_mirror(records)
    if not lone:
        return []
    ex = ", ".join(sorted({r.identity.world_id for r in lone})[:5])
    return [
        f"{len(lone)} Mirror episodes have no Vanilla episode of their cell (e.g. {ex}): they count in "
        "Mirror Score and SR, but in no RIE."
    ]


def _rie_cells(comps: Sequence[Comparison], n_boot: int, seed: int) -> dict[str, Any]:
    eff = rie(comps)
    if comps:
        vals = np.array([[c.d_score, c.d_sr] for c in comps])
        lo, hi = bootstrap_ci(vals, [c.unit for c in comps], n_boot=n_boot, seed=seed)
        ci_sc, ci_sr = (float(lo[0]), float(hi[0])), (float(lo[1]), float(hi[1]))
    else:
        ci_sc = ci_sr = (float("nan"), float("nan"))
    return {
        "rie_sc": eff.score,
        "rie_sc_ci": ci_sc,
        "rie_sr": eff.sr,
        "rie_sr_ci": ci_sr,
        "pairs": eff.n_pairs,
    }


_RIE_COLUMNS = [
    Column("rie_sc", "RIE_SC", "signed"),
    Column("rie_sc_ci", "95% CI", "ci"),
    Column("rie_sr", "RIE_SR (pp)", "signed"),
    Column("rie_sr_ci", "95% CI", "ci"),
    Column("pairs", "pairs", "int"),
]
_VM_COLUMNS = [
    Column("vanilla_score", "Vanilla Score"),
    Column("vanilla_sr", "Vanilla SR", "pct"),
    Column("mirror_score", "Mirror Score"),
    Column("mirror_sr", "Mirror SR", "pct"),
]
_COST_COLUMNS = [
    Column("actions", "Actions"),
    Column("time_min", "Time (min)"),
    Column("cost_usd", "Cost ($)", "f2"),
    Column("n_vanilla", "n V", "int"),
    Column("n_mirror", "n M", "int"),
]


def _vm_row(
    records: Sequence[EpisodeRecord], comps: Sequence[Comparison], n_boot: int, seed: int
) -> dict[str, Any]:
    v = [r for r in records if r.identity.suite is None]
    m = [r for r in records if r.identity.suite is not None]
    row: dict[str, Any] = {
        "vanilla_score": score(v) if v else None,
        "vanilla_sr": success_rate(v) if v else None,
        "mirror_score": score(m) if m else None,
        "mirror_sr": success_rate(m) if m else None,
        "actions": mean_actions(m),
        "time_min": mean_minutes(m),
        "cost_usd": mean_cost(m),
        "n_vanilla": len(v),
        "n_mirror": len(m),
    }
    if comps:
        row.update(_rie_cells(comps, n_boot, seed))
    else:
        row.update({"pairs": 0})
    return row


def _base_configs(records: Sequence[EpisodeRecord]) -> set[str]:
    """Configurations with Vanilla episodes (evaluated in both settings)."""
    return {r.identity.configuration for r in records if r.identity.suite is None}


def by_configuration(records: Sequence[EpisodeRecord], *, n_boot: int = 2000, seed: int = 0) -> Table:
    """Paper Table 2: per model (then pooled over models) and configuration."""
    recs = _valid(records)
    comps = paired_comparisons(recs)
    label = _labels(recs)
    models = sorted({label(r) for r in recs})
    table = Table(
        "by_configuration",
        "Results by configuration and disclosure condition (Mirror pools M01–M06)",
        [Column("model", "Model", "str"), Column("configuration", "Configuration", "str")]
        + _VM_COLUMNS
        + _RIE_COLUMNS
        + _COST_COLUMNS,
        notes=[
            "SR in percent, RIE_SR in percentage points; CIs: percentile cluster bootstrap over Vanilla "
            "worlds (each draw takes a world with all its suites; – with fewer than two worlds). "
            "Actions, time and cost are means over Mirror episodes."
        ]
        + _unpaired_note(recs),
    )
    for model in [*models, ALL] if len(models) > 1 else models:
        for config in config_order([r.identity.configuration for r in recs]):
            sel = [r for r in recs if r.identity.configuration == config and model in (ALL, label(r))]
            if not sel:
                continue
            cs = [c for c in comps if c.configuration == config and model in (ALL, c.model)]
            table.rows.append({"model": model, "configuration": config, **_vm_row(sel, cs, n_boot, seed)})
    return table


def by_suite(records: Sequence[EpisodeRecord], *, n_boot: int = 2000, seed: int = 0) -> Table:
    """Paper Table 4: per suite, pooled over models, tasks and the configurations run in both settings."""
    recs = _valid(records)
    base = _base_configs(recs)
    recs = [r for r in recs if r.identity.configuration in base]
    comps = paired_comparisons(recs)
    table = Table(
        "by_suite",
        "Mirror performance and RIE by rule suite (configurations evaluated in both settings)",
        [Column("suite", "Suite", "str"), Column("mirror_score", "Score"), Column("mirror_sr", "SR", "pct")]
        + _RIE_COLUMNS
        + [Column("n_mirror", "n M", "int")],
        notes=[
            "RIE = Vanilla minus Mirror; positive = worse in Mirror. CIs resample Vanilla worlds with all "
            "their suites (– with fewer than two worlds)."
        ]
        + _unpaired_note(recs),
    )
    for suite in [*SUITE_IDS, ALL]:
        m = [r for r in recs if r.identity.suite is not None and suite in (ALL, r.identity.suite)]
        if not m:
            continue
        cs = [c for c in comps if suite in (ALL, c.suite)]
        row = {
            "suite": "pooled" if suite == ALL else suite,
            "mirror_score": score(m),
            "mirror_sr": success_rate(m),
            "n_mirror": len(m),
        }
        row.update(_rie_cells(cs, n_boot, seed) if cs else {"pairs": 0})
        table.rows.append(row)
    return table


def by_task_model_configuration(
    records: Sequence[EpisodeRecord], *, n_boot: int = 2000, seed: int = 0
) -> Table:
    """Paper Table 7: per task × model × configuration."""
    recs = _valid(records)
    comps = paired_comparisons(recs)
    label = _labels(recs)
    table = Table(
        "by_task_model_configuration",
        "Vanilla and paired Mirror performance, RIE and cost by task, model and configuration",
        [
            Column("task", "Task", "str"),
            Column("model", "Model", "str"),
            Column("configuration", "Configuration", "str"),
        ]
        + _VM_COLUMNS
        + _RIE_COLUMNS
        + _COST_COLUMNS,
    )
    tasks = sorted(
        {r.identity.task.value for r in recs}, key=lambda t: ["iron_armor", "diamond", "enchantment"].index(t)
    )
    models = sorted({label(r) for r in recs})
    for task in tasks:
        for model in models:
            for config in config_order([r.identity.configuration for r in recs]):
                sel = [
                    r
                    for r in recs
                    if (r.identity.task.value, label(r), r.identity.configuration) == (task, model, config)
                ]
                if not sel:
                    continue
                cs = [c for c in comps if (c.task, c.model, c.configuration) == (task, model, config)]
                row = {"task": task, "model": model, "configuration": config}
                table.rows.append(row | _vm_row(sel, cs, n_boot, seed))
    return table


def by_biome(records: Sequence[EpisodeRecord], *, n_boot: int = 2000, seed: int = 0) -> Table:
    """Paper Table 8: per biome group of the Vanilla world (configurations run in both settings)."""
    recs = _valid(records)
    base = _base_configs(recs)
    recs = [r for r in recs if r.identity.configuration in base]
    comps = paired_comparisons(recs)
    table = Table(
        "by_biome",
        "Vanilla and paired Mirror Score, SR and RIE by biome",
        [Column("biome", "Biome", "str")] + _VM_COLUMNS + _RIE_COLUMNS,
    )
    biomes = sorted({biome_of(r.identity.world) for r in recs})
    for biome in biomes:
        sel = [r for r in recs if biome_of(r.identity.world) == biome]
        cs = [c for c in comps if c.biome == biome]
        row = {"biome": biome} | _vm_row(sel, cs, n_boot, seed)
        table.rows.append(row)
    return table


def _delta_row(pairs: Sequence[DisclosurePair], n_boot: int, seed: int) -> dict[str, Any]:
    eff = disclosure_delta(pairs)
    vals = np.array([[p.d_score, p.d_sr] for p in pairs])
    lo, hi = bootstrap_ci(vals, [p.unit for p in pairs], n_boot=n_boot, seed=seed)
    return {
        "hidden_score": float(np.mean([p.hidden_score for p in pairs])),
        "hidden_sr": float(np.mean([p.hidden_sr for p in pairs])),
        "disclosed_score": float(np.mean([p.disclosed_score for p in pairs])),
        "disclosed_sr": float(np.mean([p.disclosed_sr for p in pairs])),
        "d_score": eff.score,
        "d_score_ci": (float(lo[0]), float(hi[0])),
        "d_sr": eff.sr,
        "d_sr_ci": (float(lo[1]), float(hi[1])),
        "pairs": eff.n_pairs,
    }


def disclosure(records: Sequence[EpisodeRecord], *, n_boot: int = 2000, seed: int = 0) -> Table:
    """Paper Table 5: hidden vs disclosed rules in paired Mirror copies, per agent and task (and pooled).

    Hidden and disclosed columns are means over the paired cells, so ΔScore = Disclosed − Hidden exactly.
    """
    pairs = disclosure_pairs(_valid(records))
    table = Table(
        "disclosure",
        "Rule disclosure in paired Mirror worlds (Δ = disclosed − hidden)",
        [
            Column("agent", "Agent", "str"),
            Column("task", "Task", "str"),
            Column("hidden_score", "Hidden Score"),
            Column("hidden_sr", "Hidden SR", "pct"),
            Column("disclosed_score", "Disclosed Score"),
            Column("disclosed_sr", "Disclosed SR", "pct"),
            Column("d_score", "ΔScore", "signed"),
            Column("d_score_ci", "95% CI", "ci"),
            Column("d_sr", "ΔSR (pp)", "signed"),
            Column("d_sr_ci", "95% CI", "ci"),
            Column("pairs", "pairs", "int"),
        ],
    )
    order = ["iron_armor", "diamond", "enchantment"]
    for agent in config_order([p.agent for p in pairs]):
        mine = [p for p in pairs if p.agent == agent]
        tasks = sorted({p.task for p in mine}, key=order.index)
        for task in [*tasks, ALL]:
            sel = [p for p in mine if task in (ALL, p.task)]
            table.rows.append(
                {"agent": agent, "task": "pooled" if task == ALL else task} | _delta_row(sel, n_boot, seed)
            )
    return table


def irr_rl(records: Sequence[EpisodeRecord]) -> Table:
    """Paper Table 9: IRR (%) and RL (actions) per suite and configuration, and the equal-weight average."""
    outcomes = encounter_outcomes(_valid(records))
    cols = [Column("configuration", "Configuration", "str")]
    for s in SUITE_IDS:
        cols += [Column(f"{s}_irr", f"{s} IRR", "pct"), Column(f"{s}_rl", f"{s} RL")]
    cols += [
        Column("avg_irr", "Avg IRR", "pct"),
        Column("avg_rl", "Avg RL"),
        Column("irr_suites", "IRR suites", "int"),
        Column("rl_suites", "RL suites", "int"),
        Column("eligible", "eligible enc.", "int"),
        Column("recovering", "recovering enc.", "int"),
    ]
    table = Table(
        "irr_rl",
        "IRR (%) and RL (semantic actions) by rule suite and configuration",
        cols,
        notes=[
            "Per (suite, configuration) over all models, tasks and worlds; the average weights the suites "
            "with a defined value equally (their number is given)."
        ],
    )
    for config in config_order([o.configuration for o in outcomes]):
        mine = [o for o in outcomes if o.configuration == config]
        i, r = suite_average(mine, "irr"), suite_average(mine, "rl")
        row: dict[str, Any] = {"configuration": config}
        for s in SUITE_IDS:
            row[f"{s}_irr"] = 100.0 * i.per_suite[s].value
            row[f"{s}_rl"] = r.per_suite[s].value
        row |= {
            "avg_irr": 100.0 * i.mean,
            "avg_rl": r.mean,
            "irr_suites": i.n_suites,
            "rl_suites": r.n_suites,
            "eligible": sum(v.n for v in i.per_suite.values()),
            "recovering": sum(v.n for v in r.per_suite.values()),
        }
        table.rows.append(row)
    return table


def horizon(records: Sequence[EpisodeRecord], checkpoints: Sequence[int] = (100, 150, 200)) -> Table:
    """Paper Table 3: cumulative SR (%) at each checkpoint, Vanilla and Mirror, averaged equally over tasks,
    per model and configuration (the paper's horizon study is Gemini only).

    Only checkpoints within a budget are shown: a checkpoint above every record's budget gets no column
    (listed in the notes), and a cell at checkpoint k uses only the episodes whose budget is at least k
    ("–" when there are none), so a budget-50 episode never reads as SR@200.
    """
    recs = _valid(records)
    label = _labels(recs)
    budgets = sorted({r.identity.budget for r in recs})
    top = max(budgets, default=0)
    shown = [k for k in checkpoints if k <= top]
    dropped = [k for k in checkpoints if k > top]
    cols = [Column("model", "Model", "str"), Column("configuration", "Configuration", "str")]
    for k in shown:
        cols += [Column(f"vanilla_{k}", f"V@{k}", "pct"), Column(f"mirror_{k}", f"M@{k}", "pct")]
    notes = [f"Budgets in these records: {budgets}; SR@k uses only episodes whose budget is at least k."]
    if dropped:
        notes.append(f"Checkpoints above every budget not shown: {dropped}.")
    table = Table(
        "horizon", "Cumulative SR (%) by action checkpoint, averaged equally over tasks", cols, notes=notes
    )
    select: dict[str, Callable[[EpisodeRecord], bool]] = {
        "vanilla": lambda r: r.identity.suite is None,
        "mirror": lambda r: r.identity.suite is not None,
    }
    for model in sorted({label(r) for r in recs}) if shown else []:
        for config in config_order([r.identity.configuration for r in recs]):
            mine = [r for r in recs if r.identity.configuration == config and label(r) == model]
            if not mine:
                continue
            row: dict[str, Any] = {"model": model, "configuration": config}
            for cond, pick in select.items():
                for k in shown:
                    sel = [r for r in mine if pick(r) and r.identity.budget >= k]
                    row[f"{cond}_{k}"] = horizon_sr(sel, k) if sel else None
            table.rows.append(row)
    return table


def significance(
    records: Sequence[EpisodeRecord], *, alpha: float = ALPHA, power: float = POWER, seed: int = 0
) -> Table:
    """Per suite (and pooled): RIE, its sign-flip permutation p-value, and the minimum detectable RIE.

    Configurations evaluated in both settings, like :func:`by_suite`. The test and the MDE treat Vanilla
    worlds as the independent units (:mod:`mirrorcraft.metrics.inference`); the pooled row has an MDE but no
    p-value (the six suites share one Vanilla world, so a joint sign flip is no relabelling).
    """
    recs = _valid(records)
    base = _base_configs(recs)
    comps = paired_comparisons([r for r in recs if r.identity.configuration in base])
    table = Table(
        "significance",
        f"Significance and power of RIE by rule suite (two-sided α = {alpha:g}, power {power:g})",
        [
            Column("suite", "Suite", "str"),
            Column("pairs", "pairs", "int"),
            Column("worlds", "worlds", "int"),
            Column("rie_sc", "RIE_SC", "signed"),
            Column("p_sc", "p (SC)", "f3"),
            Column("rie_sr", "RIE_SR (pp)", "signed"),
            Column("p_sr", "p (SR)", "f3"),
            Column("sd_sc", "σ_world SC"),
            Column("mde_sc", "MDE_SC"),
            Column("sd_sr", "σ_world SR"),
            Column("mde_sr", "MDE_SR (pp)"),
        ],
        notes=[
            "p: exact sign-flip permutation test over Vanilla worlds (each world's differences flip together; "
            "Monte Carlo above 16 worlds). MDE = (z_{1−α/2} + z_{power}) · σ_world / √worlds, σ_world the SD "
            "of the per-world mean differences (– with fewer than two worlds). No p for the pooled row: its "
            "suites share each Vanilla world. See docs/metrics.md."
        ],
    )
    for suite in [*SUITE_IDS, ALL]:
        cs = [c for c in comps if suite in (ALL, c.suite)]
        if not cs:
            continue
        units = [c.unit for c in cs]
        sc, sr = [c.d_score for c in cs], [c.d_sr for c in cs]
        n_worlds = len(set(units))
        sd_sc, sd_sr = world_sd(sc, units), world_sd(sr, units)
        eff = rie(cs)
        table.rows.append(
            {
                "suite": "pooled" if suite == ALL else suite,
                "pairs": len(cs),
                "worlds": n_worlds,
                "rie_sc": eff.score,
                "p_sc": None if suite == ALL else sign_flip_test(sc, units, seed=seed),
                "rie_sr": eff.sr,
                "p_sr": None if suite == ALL else sign_flip_test(sr, units, seed=seed),
                "sd_sc": sd_sc,
                "mde_sc": minimum_detectable_effect(sd_sc, n_worlds, alpha=alpha, power=power),
                "sd_sr": sd_sr,
                "mde_sr": minimum_detectable_effect(sd_sr, n_worlds, alpha=alpha, power=power),
            }
        )
    return table


def costs(records: Sequence[EpisodeRecord]) -> Table:
    """Actions, wall time and API cost per model and configuration, Vanilla and Mirror (paper Table 6's
    lower panel), with study totals. Fault records are excluded like everywhere else."""
    recs = _valid(records)
    cols = [Column("model", "Model", "str"), Column("configuration", "Configuration", "str")]
    for cond, label in (("vanilla", "V"), ("mirror", "M")):
        cols += [
            Column(f"{cond}_actions", f"Actions {label}"),
            Column(f"{cond}_time_min", f"Time {label} (min)"),
            Column(f"{cond}_cost_usd", f"Cost {label} ($)", "f2"),
        ]
    cols += [
        Column("episodes", "episodes", "int"),
        Column("total_hours", "total time (h)"),
        Column("total_cost_usd", "total cost ($)", "f2"),
    ]
    table = Table("costs", "Actions, time and cost per episode (means) and totals", cols)
    label = _labels(recs)
    models = sorted({label(r) for r in recs})
    for model in [*models, ALL] if len(models) > 1 else models:
        for config in [*config_order([r.identity.configuration for r in recs]), ALL]:
            mine = [r for r in recs if model in (ALL, label(r)) and config in (ALL, r.identity.configuration)]
            if not mine:
                continue
            row: dict[str, Any] = {"model": model, "configuration": config}
            for cond, is_vanilla in (("vanilla", True), ("mirror", False)):
                sel = [r for r in mine if (r.identity.suite is None) == is_vanilla]
                row[f"{cond}_actions"] = mean_actions(sel) if sel else None
                row[f"{cond}_time_min"] = mean_minutes(sel) if sel else None
                row[f"{cond}_cost_usd"] = mean_cost(sel) if sel else None
            row["episodes"] = len(mine)
            row["total_hours"] = sum(r.wall_time_s for r in mine) / 3600.0
            row["total_cost_usd"] = sum(r.usage.cost_usd for r in mine)
            table.rows.append(row)
    return table
