"""``report(run_dir)``: every table of the paper's shape, as Markdown and CSV, plus PNG plots.

The report reads the run folder's ``results.jsonl`` (:mod:`mirrorcraft.metrics.results`), keeps the final
record of every episode, excludes infrastructure-fault records from all metrics (they are listed), and
writes into ``<run_dir>/report/``:

* ``report.md`` — a header (counts, excluded faults, ignored lines, integrity notes) and every table;
* ``<table>.csv`` — one per table, unrounded;
* ``rie_by_suite.png`` and ``irr_rl_by_configuration.png``.

Integrity checks before aggregation (paper appendix E: world, Vanilla/Mirror, task, configuration,
disclosure and budget are checked): each record passed the contract checks on load (identity, id, seed,
scores, encounters); in addition the recorded spawn biome must match the Vanilla world's biome group,
and records not produced by a game (synthetic records) are flagged in the header.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from mirrorcraft.contracts import EpisodeRecord, StudyGrid
from mirrorcraft.metrics import tables
from mirrorcraft.metrics.paired import biome_of, is_fault
from mirrorcraft.metrics.plots import plot_irr_rl, plot_rie_by_suite
from mirrorcraft.metrics.results import ResultsScan, load_final_records
from mirrorcraft.metrics.synthetic import SYNTHETIC_MARK

REPORT_DIR = "report"


def build_tables(
    records: Sequence[EpisodeRecord],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    checkpoints: Sequence[int] = (100, 150, 200),
) -> list[tables.Table]:
    """All report tables for ``records`` (fault records are excluded inside each builder).

    Args:
        records: final episode records.
        n_boot: bootstrap replicates per interval.
        seed: bootstrap seed.
        checkpoints: action counts of the horizon table.

    Returns:
        The tables in report order.
    """
    return [
        tables.by_configuration(records, n_boot=n_boot, seed=seed),
        tables.by_suite(records, n_boot=n_boot, seed=seed),
        tables.by_task_model_configuration(records, n_boot=n_boot, seed=seed),
        tables.by_biome(records, n_boot=n_boot, seed=seed),
        tables.disclosure(records, n_boot=n_boot, seed=seed),
        tables.irr_rl(records),
        tables.horizon(records, checkpoints),
        tables.costs(records),
    ]


def integrity_notes(records: Sequence[EpisodeRecord]) -> list[str]:
    """Problems found by the pre-aggregation checks (empty when all is well)."""
    notes = []
    for r in records:
        if r.spawn is not None:
            recorded = r.spawn.biome.split(":", 1)[-1]
            if recorded != biome_of(r.identity.world):
                notes.append(
                    f"{r.episode_id} ({r.identity.world_id}): spawn biome {r.spawn.biome} does not match "
                    f"the world's biome group {biome_of(r.identity.world)}"
                )
    return notes


def grid_coverage(run_dir: Path, records: Sequence[EpisodeRecord]) -> list[str]:
    """Compare the records with the run's ``grid.json`` (missing episodes, records outside the grid).

    The grid is read as plain JSON and expanded with the contract's :class:`StudyGrid` (no import of
    :mod:`mirrorcraft.study`: metrics sit below the study in the dependency order).
    """
    path = run_dir / "grid.json"
    if not path.exists():
        return ["no grid.json in the run folder: completeness not checked"]
    grid = StudyGrid.model_validate(json.loads(path.read_text(encoding="utf-8")))
    expected = {i.episode_id for i in grid.expand()}
    have = {r.episode_id for r in records}
    lines = [f"grid {grid.name}: {len(expected)} episodes, {len(expected & have)} with a final record"]
    if expected - have:
        lines.append(f"**incomplete study: {len(expected - have)} episodes have no record yet**")
    if have - expected:
        lines.append(f"**{len(have - expected)} records do not belong to the grid**")
    return lines


def _header(records: Sequence[EpisodeRecord], scan: ResultsScan) -> str:
    faults = [r for r in records if is_fault(r)]
    synthetic = sum(r.prompt_template_version == SYNTHETIC_MARK for r in records)
    lines = [
        f"# MirrorCraft report: {scan.path.parent}",
        "",
        f"- episodes with a final record: {len(records)}",
        f"- used in metrics: {len(records) - len(faults)}",
        f"- excluded infrastructure faults (after bounded retries): {len(faults)}",
        f"- ignored lines of results.jsonl: {len(scan.bad_lines)}",
        f"- duplicate records ignored: {len(scan.duplicates)}",
    ]
    lines += [f"- {line}" for line in grid_coverage(scan.path.parent, records)]
    if synthetic:
        lines.append(
            f"- **{synthetic} synthetic records** (built by mirrorcraft.metrics.synthetic, not game episodes)"
        )
    lines += [f"  - {b}" for b in scan.bad_lines[:20]]
    lines += [
        f"  - fault: {r.episode_id} {r.identity.world_id} {r.infrastructure_faults[-1].kind}"
        for r in faults[:20]
        if r.infrastructure_faults
    ]
    notes = integrity_notes(records)
    if notes:
        lines.append(f"- integrity problems: {len(notes)}")
        lines += [f"  - {n}" for n in notes[:20]]
    lines.append("")
    lines.append("Values are rounded for display only; the CSV files hold unrounded values.")
    return "\n".join(lines) + "\n"


def report(
    run_dir: Path | str,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    checkpoints: Sequence[int] = (100, 150, 200),
    plots: bool = True,
) -> list[Path]:
    """Write the full report of a study run into ``<run_dir>/report/``.

    Args:
        run_dir: the run folder (holds ``results.jsonl``).
        n_boot: bootstrap replicates per confidence interval.
        seed: bootstrap seed (the report is a deterministic function of the records and this seed).
        checkpoints: action counts of the horizon table.
        plots: also write the PNG figures.

    Returns:
        The written files: ``report.md``, one CSV per table, then the PNGs.

    Raises:
        ContractError: ``run_dir`` has no results file.
    """
    run_dir = Path(run_dir)
    records, scan = load_final_records(run_dir)
    out = run_dir / REPORT_DIR
    out.mkdir(parents=True, exist_ok=True)
    built = build_tables(records, n_boot=n_boot, seed=seed, checkpoints=checkpoints)
    md = [_header(records, scan)] + [t.to_markdown() for t in built]
    md_path = out / "report.md"
    md_path.write_text("\n".join(md), encoding="utf-8")
    paths = [md_path] + [t.write_csv(out / f"{t.name}.csv") for t in built]
    if plots:
        by_name = {t.name: t for t in built}
        paths.append(plot_rie_by_suite(by_name["by_suite"], out / "rie_by_suite.png"))
        paths.append(plot_irr_rl(by_name["irr_rl"], out / "irr_rl_by_configuration.png"))
    return paths
