"""``report(run_dir)``: every table of the paper's shape, as Markdown and CSV, plus PNG plots.

The report reads the run folder's ``results.jsonl`` (:mod:`mirrorcraft.metrics.results`), keeps the final
record of every episode, excludes infrastructure-fault records from all metrics (they are listed), and
writes into ``<run_dir>/report/``:

* ``report.md`` — a header (counts, excluded records, ignored lines, integrity notes) and every table;
* ``<table>.csv`` — one per table, unrounded;
* ``rie_by_suite.png`` and ``irr_rl_by_configuration.png``;
* ``index.html`` — the same report as one self-contained page (sortable tables, the plots inlined) linking to
  one viewer page per episode, ``<episode_id>.html`` beside it (:mod:`mirrorcraft.metrics.pages`).

**Which records a report uses** (:func:`select_records`): only records of the run's ``grid.json`` (its
expanded episode ids). A valid record of another grid (another study seed, another temperature, a record
appended by hand) is listed and excluded, unless ``include_foreign=True`` (``report --include-foreign``)
says explicitly to pool it; a run folder without ``grid.json`` (an ``episode`` output folder) uses every
record and says so. Records of one episode id that differ are a conflict the report refuses to settle
unless told which wins (:func:`~mirrorcraft.metrics.results.load_final_records`).

**Integrity checks before aggregation** (paper appendix E: world, Vanilla/Mirror, task, configuration,
disclosure and budget are checked): each record passed the contract checks on load (identity, id, seed,
scores, encounters); in addition a record whose encounters name a rule its suite's manifest does not
declare is excluded (listed), the recorded spawn biome must match the Vanilla world's biome group (noted),
and records not produced by a game (synthetic records) are flagged in the header.

**Atomic output.** Everything is written into a fresh hidden folder of the run folder first, then swapped
in for ``report/`` by renames, so an interrupted report never leaves a half-written ``report/``: it holds
either the previous complete report or the new one (:func:`_swap_in`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mirrorcraft.contracts import EpisodeRecord, StudyGrid
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics import tables
from mirrorcraft.metrics.encounters import unknown_rule_ids
from mirrorcraft.metrics.paired import biome_of, is_fault, unpaired_mirror
from mirrorcraft.metrics.results import ConflictPolicy, ResultsScan, load_final_records, writing
from mirrorcraft.metrics.synthetic import SYNTHETIC_MARK

REPORT_DIR = "report"
#: Prefix of the hidden folders a report is assembled in (and of the previous report while it is swapped out).
STAGING_PREFIX = ".report-"
#: Entries listed per category in the header (the counts are always complete).
LISTED = 20


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
        seed: bootstrap seed (also the seed of the permutation test's Monte Carlo draws, when used).
        checkpoints: action counts of the horizon table.

    Returns:
        The tables in report order.
    """
    return [
        tables.by_configuration(records, n_boot=n_boot, seed=seed),
        tables.by_suite(records, n_boot=n_boot, seed=seed),
        tables.significance(records, seed=seed),
        tables.by_task_model_configuration(records, n_boot=n_boot, seed=seed),
        tables.by_biome(records, n_boot=n_boot, seed=seed),
        tables.disclosure(records, n_boot=n_boot, seed=seed),
        tables.irr_rl(records),
        tables.horizon(records, checkpoints),
        tables.costs(records),
    ]


def integrity_notes(records: Sequence[EpisodeRecord]) -> list[str]:
    """Problems found by the pre-aggregation checks that do not exclude a record (empty when all is well)."""
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


def read_run_grid(run_dir: Path) -> StudyGrid | None:
    """The run's ``grid.json`` as a :class:`StudyGrid`, or None without one.

    Read as plain JSON and validated with the contract (no import of :mod:`mirrorcraft.study`: metrics sit
    below the study in the dependency order).

    Raises:
        ContractError: ``grid.json`` is not valid JSON or not a valid grid.
    """
    path = run_dir / "grid.json"
    if not path.exists():
        return None
    try:
        return StudyGrid.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, ValueError) as err:
        raise ContractError(f"{path}: not a valid study grid: {err}") from err


@dataclass
class Selection:
    """The records a report uses and the ones it excludes, with the reasons."""

    used: list[EpisodeRecord]
    grid: StudyGrid | None
    expected: set[str] = field(default_factory=set)  #: episode ids of the grid
    foreign: list[EpisodeRecord] = field(default_factory=list)  #: records outside the grid
    foreign_included: bool = False
    bad_rules: list[tuple[EpisodeRecord, list[str]]] = field(default_factory=list)


def select_records(
    records: Sequence[EpisodeRecord], grid: StudyGrid | None, *, include_foreign: bool = False
) -> Selection:
    """Keep the records of ``grid`` (all of them without a grid) whose encounters name manifest rules.

    Args:
        records: final records of the run folder.
        grid: the run's grid (None: no grid.json; every record is used).
        include_foreign: also use records outside the grid (they are still listed).
    """
    expected = {i.episode_id for i in grid.expand()} if grid is not None else set()
    sel = Selection(used=[], grid=grid, expected=expected, foreign_included=include_foreign)
    for r in records:
        bad = unknown_rule_ids(r)
        if bad:
            sel.bad_rules.append((r, bad))
            continue
        if grid is not None and r.episode_id not in expected:
            sel.foreign.append(r)
            if not include_foreign:
                continue
        sel.used.append(r)
    return sel


def _describe(r: EpisodeRecord) -> str:
    i = r.identity
    return (
        f"{r.episode_id} {i.world_id} {i.task.value} {i.configuration} model {i.model.name} "
        f"(T={i.model.temperature:g}) study seed {i.study_seed} rep {i.repetition}"
    )


def _header(records: Sequence[EpisodeRecord], scan: ResultsScan, sel: Selection, settled: str | None) -> str:
    used = sel.used
    faults = [r for r in used if is_fault(r)]
    synthetic = sum(r.prompt_template_version == SYNTHETIC_MARK for r in used)
    lines = [
        f"# MirrorCraft report: {scan.path.parent}",
        "",
        f"- episodes with a final record: {len(records)}",
        f"- used in metrics: {len(used) - len(faults)}",
        f"- excluded infrastructure faults (after bounded retries): {len(faults)}",
        f"- ignored lines of results.jsonl: {len(scan.bad_lines)}",
        f"- identical duplicate records ignored: {len(scan.duplicates)}",
    ]
    if scan.conflicts:
        lines.append(f"- **conflicting records settled by {settled}: {len(scan.conflicts)}**")
        lines += [f"  - {c}" for c in scan.conflicts[:LISTED]]
    if sel.grid is None:
        lines.append(
            "- no grid.json in the run folder: records not checked against a grid, completeness unknown"
        )
    else:
        have = {r.episode_id for r in records}
        missing = sel.expected - have
        lines.append(
            f"- grid {sel.grid.name}: {len(sel.expected)} episodes, {len(sel.expected & have)} with a final record"
        )
        if missing:
            lines.append(f"- **incomplete study: {len(missing)} episodes have no record yet**")
    if sel.foreign:
        how = "INCLUDED (--include-foreign)" if sel.foreign_included else "excluded"
        lines.append(f"- **{len(sel.foreign)} records do not belong to the grid: {how}**")
        lines += [f"  - {_describe(r)}" for r in sel.foreign[:LISTED]]
    if sel.bad_rules:
        lines.append(
            f"- **{len(sel.bad_rules)} records excluded: encounter rule ids not in the suite manifest**"
        )
        lines += [f"  - {_describe(r)}: {', '.join(bad)}" for r, bad in sel.bad_rules[:LISTED]]
    lone = unpaired_mirror(used)
    if lone:
        lines.append(
            f"- Mirror episodes without a Vanilla episode of their cell: {len(lone)} (in Mirror Score and SR, "
            "in no RIE)"
        )
        lines += [f"  - {_describe(r)}" for r in lone[:LISTED]]
    if synthetic:
        lines.append(
            f"- **{synthetic} synthetic records** (built by mirrorcraft.metrics.synthetic, not game episodes)"
        )
    lines += [f"  - {b}" for b in scan.bad_lines[:LISTED]]
    lines += [
        f"  - fault: {r.episode_id} {r.identity.world_id} {r.infrastructure_faults[-1].kind}"
        for r in faults[:LISTED]
        if r.infrastructure_faults
    ]
    notes = integrity_notes(used)
    if notes:
        lines.append(f"- integrity problems: {len(notes)}")
        lines += [f"  - {n}" for n in notes[:LISTED]]
    lines.append("")
    lines.append("Values are rounded for display only; the CSV files hold unrounded values.")
    return "\n".join(lines) + "\n"


def load_report_records(
    run_dir: Path | str,
    *,
    include_foreign: bool = False,
    keep: ConflictPolicy = "refuse",
    keep_lines: Iterable[int] = (),
) -> tuple[list[EpisodeRecord], ResultsScan, Selection]:
    """The final records of a run folder, the scan, and the selection a report uses (module docstring).

    Raises:
        ContractError: no results file, an invalid ``grid.json``.
        RecordConflictError: an unsettled conflict.
    """
    run_dir = Path(run_dir)
    records, scan = load_final_records(run_dir, keep=keep, keep_lines=keep_lines)
    sel = select_records(records, read_run_grid(run_dir), include_foreign=include_foreign)
    return records, scan, sel


def _swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` by the complete folder ``staging`` with renames (never a half-written ``out``).

    A kill between the two renames leaves no ``out`` and the previous report in a hidden ``.report-``
    folder; the next report removes such leftovers (:func:`_clean_staging`).
    """
    old: Path | None = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX + "old-", dir=out.parent))
        old.rmdir()
        os.replace(out, old)
    os.replace(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _clean_staging(run_dir: Path) -> None:
    for p in run_dir.glob(STAGING_PREFIX + "*"):
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)


def report(
    run_dir: Path | str,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    checkpoints: Sequence[int] = (100, 150, 200),
    plots: bool = True,
    include_foreign: bool = False,
    keep: ConflictPolicy = "refuse",
    keep_lines: Iterable[int] = (),
    pages: bool = True,
) -> list[Path]:
    """Write the full report of a study run into ``<run_dir>/report/`` (atomically, module docstring).

    Args:
        run_dir: the run folder (holds ``results.jsonl``).
        n_boot: bootstrap replicates per confidence interval.
        seed: bootstrap seed (the report is a deterministic function of the records and this seed).
        checkpoints: action counts of the horizon table.
        plots: also write the PNG figures.
        include_foreign: also use records that do not belong to the run's ``grid.json`` (listed).
        keep: how conflicting records of one episode are settled (``"refuse"``: raise).
        keep_lines: lines of ``results.jsonl`` whose record wins its conflict.
        pages: also write ``index.html`` and one page per episode beside it.

    Returns:
        The written files: ``report.md``, one CSV per table, the PNGs, then ``index.html`` and the episode
        pages.

    Raises:
        ContractError: ``run_dir`` has no results file, or its ``grid.json`` is invalid.
        RecordConflictError: conflicting records and no rule saying which wins.
        RunFolderError: the report folder cannot be written (the message names the path).
    """
    from mirrorcraft.metrics.plots import plot_irr_rl, plot_rie_by_suite

    run_dir = Path(run_dir)
    keep_lines = list(keep_lines)
    records, scan, sel = load_report_records(
        run_dir, include_foreign=include_foreign, keep=keep, keep_lines=keep_lines
    )
    settled = ", ".join(
        ([f"--keep-line {', '.join(map(str, keep_lines))}"] if keep_lines else [])
        + ([f"--conflicts {keep}"] if keep != "refuse" else [])
    )
    built = build_tables(sel.used, n_boot=n_boot, seed=seed, checkpoints=checkpoints)
    out = run_dir / REPORT_DIR
    names = ["report.md"] + [f"{t.name}.csv" for t in built]
    if plots:
        names += ["rie_by_suite.png", "irr_rl_by_configuration.png"]
    with writing(out, then="rerun the report (the previous report/ is unchanged)", exact=True):
        _clean_staging(run_dir)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=run_dir))
        try:
            md = [_header(records, scan, sel, settled)] + [t.to_markdown() for t in built]
            (staging / "report.md").write_text("\n".join(md), encoding="utf-8")
            for t in built:
                t.write_csv(staging / f"{t.name}.csv")
            if plots:
                by_name = {t.name: t for t in built}
                plot_rie_by_suite(by_name["by_suite"], staging / "rie_by_suite.png")
                plot_irr_rl(by_name["irr_rl"], staging / "irr_rl_by_configuration.png")
            if pages:
                names += _write_pages(run_dir, staging, md[0], built, names, sel.used)
            _swap_in(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return [out / n for n in names]


def _write_pages(
    run_dir: Path, staging: Path, header: str, built: Sequence[tables.Table], names: list[str], used: list
) -> list[str]:
    """``index.html`` and the episode pages into the staging folder (swapped in with the rest); returns
    their names."""
    from mirrorcraft.metrics.pages.episode import run_snapshots
    from mirrorcraft.metrics.pages.index import write_report_pages

    written = write_report_pages(
        staging,
        title=f"MirrorCraft report: {run_dir.name}",
        header_markdown=header,
        tables=built,
        plots=[staging / n for n in names if n.endswith(".png")],
        records=used,
        snapshots=run_snapshots(run_dir, [r.episode_id for r in used]),
        files=names,
    )
    return [p.name for p in written]
