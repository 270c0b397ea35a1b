"""``report RUN_DIR`` for a team run: the team tables (Markdown, CSV), score-over-time plots, D heat maps.

One ``report`` command serves both benchmarks: :func:`~mirrorcraft.metrics.team_results.is_team_run` tells a
team run by its manifest (``team_study.json``) or, in a folder without one, by its records, and the CLI calls
:func:`team_report` instead of :func:`~mirrorcraft.metrics.reporting.report`. Written into ``RUN_DIR/report/``:

* ``teams.md`` — a header (the grid, episodes recorded and pending, excluded records and why, ignored lines)
  and every table of :func:`~mirrorcraft.metrics.teams.team_tables` (per scenario; the cross-scenario pool
  only as the labelled extra);
* ``<table>.csv`` — one per table, unrounded (:func:`~mirrorcraft.metrics.teams.write_team_tables`' files);
* ``scores_<scenario>.png`` and ``d_heatmap_<scenario>.png`` (:mod:`mirrorcraft.metrics.team_plots`);
* ``index.html`` — the same as one page (sortable tables, plots inlined), linking to one viewer page per
  episode (``<episode_id>.html`` beside it: the four paths — over the arena's terrain when the run folder holds
  its arenas in ``worlds/`` — and both teams' score curves; :mod:`mirrorcraft.metrics.pages`).

**Which records**: the final record of each episode (:func:`~mirrorcraft.metrics.team_results.load_team_run`);
infrastructure-fault records are listed and excluded from every metric; with a manifest, records of
episodes outside its grid are listed and excluded unless ``include_foreign``. The folder is swapped in whole,
as the MirrorCraft report does, so an interrupted report never leaves half a ``report/``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from mirrorcraft.contracts.teams import TeamEpisodeRecord
from mirrorcraft.metrics.reporting import LISTED, REPORT_DIR, STAGING_PREFIX, _clean_staging, _swap_in
from mirrorcraft.metrics.results import writing
from mirrorcraft.metrics.team_results import TeamResultsScan, load_team_run
from mirrorcraft.metrics.teams import team_tables, write_team_tables

__all__ = ["team_report"]


def _describe(r: TeamEpisodeRecord) -> str:
    i = r.identity
    return (
        f"{r.episode_id} ({i.scenario} {i.arena_variant}, {i.tested.label} {i.tested_side} vs {i.opponent.label}, "
        f"rep {i.repeat} #{i.block_index})"
    )


def _header(
    records: list[TeamEpisodeRecord],
    used: list[TeamEpisodeRecord],
    foreign: list[TeamEpisodeRecord],
    scan: TeamResultsScan,
    grid_size: int | None,
    grid_name: str | None,
) -> list[str]:
    faults = [r for r in used if r.is_fault]
    lines = [
        f"Grid: {grid_name or '(no team_study.json: every record of the folder is used)'}"
        + (f", {grid_size} episodes" if grid_size is not None else ""),
        "",
        f"Episodes recorded: {len(used)}"
        + (f" of {grid_size}; pending {grid_size - len(used)}" if grid_size else ""),
        f"Valid episodes in the metrics: {len(used) - len(faults)}; infrastructure-fault records excluded: "
        f"{len(faults)}",
    ]
    for r in faults[:LISTED]:
        lines.append(f"  - fault: {_describe(r)}: {r.infrastructure_faults[-1].message[:160]}")
    if foreign:
        lines.append(f"Records of episodes outside the grid, excluded: {len(foreign)}")
        lines += [f"  - {_describe(r)}" for r in foreign[:LISTED]]
    if scan.bad_lines:
        lines.append(f"Ignored lines of results.jsonl: {len(scan.bad_lines)}")
        lines += [f"  - {b}" for b in scan.bad_lines[:LISTED]]
    if scan.duplicates:
        lines.append(f"Identical duplicate records ignored: {len(scan.duplicates)}")
    retried = sum(1 for recs in scan.attempts.values() for r in recs if r.is_fault) - len(faults)
    if retried > 0:
        lines.append(f"Fault attempts that were rerun under the same id: {retried}")
    agent_faults = sum(len(r.agent_faults) for r in used if not r.is_fault)
    if agent_faults:
        lines.append(
            f"Agent faults inside valid episodes (an agent disconnected, crashed or stopped): {agent_faults}"
        )
    lines += _usage_lines([r for r in used if not r.is_fault])
    return [ln if ln == "" or ln.startswith("  ") else ln + "  " for ln in lines]


def _usage_lines(records: list[TeamEpisodeRecord]) -> list[str]:
    """Model usage of the LLM team systems (the records' ``usage``): the study's total and each system's, with
    its policy errors (unusable answers) and unresponsive faults (failed model calls). Nothing without usage."""
    per: dict[
        str, list[float]
    ] = {}  # label -> [episodes, calls, prompt, completion, cost, errors, unresponsive]
    for r in records:
        for side, spent in r.usage.items():
            row = per.setdefault(r.identity.system_of(side).label, [0, 0, 0, 0, 0.0, 0, 0])
            errors = sum(
                len(a.policy_errors) for t in r.trajectories if t.side == side for a in t.actions
            ) + sum(len(t.trailing_policy_errors) for t in r.trajectories if t.side == side)
            unresponsive = sum(1 for f in r.agent_faults if f.side == side and f.kind == "unresponsive")
            for k, v in enumerate((1, spent.model_calls, spent.prompt_tokens, spent.completion_tokens,
                                   spent.cost_usd, errors, unresponsive)):  # fmt: skip
                row[k] += v
    if not per:
        return []
    total = [sum(row[k] for row in per.values()) for k in range(7)]
    out = [
        "",
        f"Model usage (study): {total[1]:g} calls, {total[2]:g} prompt + {total[3]:g} completion tokens, "
        f"${total[4]:.4f}",
    ]
    for label, row in sorted(per.items()):
        out.append(
            f"  - {label}: {row[0]:g} episodes, {row[1]:g} calls, {row[2]:g} + {row[3]:g} tokens, "
            f"${row[4]:.4f} (${row[4] / row[0]:.4f} per episode); policy errors {row[5]:g}, "
            f"unresponsive model calls {row[6]:g}"
        )
    return out


def team_report(
    run_dir: Path | str,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    plots: bool = True,
    include_foreign: bool = False,
    title: str | None = None,
    pages: bool = True,
) -> list[Path]:
    """Write the team report of ``run_dir`` into ``run_dir/report/`` (module docstring).

    Returns:
        The written files: ``teams.md``, the CSVs, the PNGs, then ``index.html`` and the episode pages (with
        ``pages``).

    Raises:
        ContractError: no results file, an invalid manifest, conflicting records.
        RunFolderError: the report folder cannot be written.
    """
    from mirrorcraft.metrics.team_plots import plot_d_heatmap, plot_team_scores

    run_dir = Path(run_dir)
    records, scan, manifest = load_team_run(run_dir)
    if manifest is not None:
        ids = {i.episode_id for i in manifest.grid.expand()}
        used = [r for r in records if r.episode_id in ids or include_foreign]
        foreign = [r for r in records if r.episode_id not in ids and not include_foreign]
        grid_size, grid_name = manifest.episodes, manifest.grid.name
    else:
        used, foreign, grid_size, grid_name = records, [], None, None
    tables = team_tables(used, n_boot=n_boot, seed=seed)
    scenarios = [s for s in ("mushroom_war", "dash_and_dine") if any(t.name == f"teams_{s}" for t in tables)]
    out = run_dir / REPORT_DIR
    with writing(out, then="rerun the report (the previous report/ is unchanged)", exact=True):
        _clean_staging(run_dir)
        staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=run_dir))
        try:
            written = write_team_tables(tables, staging, title=title or f"Team report: {run_dir.name}")
            md = staging / "teams.md"
            body = md.read_text(encoding="utf-8")
            head, _, rest = body.partition("\n\n")
            md.write_text(
                head
                + "\n\n"
                + "\n".join(_header(records, used, foreign, scan, grid_size, grid_name))
                + "\n\n"
                + rest,
                encoding="utf-8",
            )
            if plots:
                for sc in scenarios:
                    p = plot_team_scores(used, sc, staging / f"scores_{sc}.png", n_boot=n_boot, seed=seed)
                    if p is not None:
                        written.append(p)
                    results = next(t for t in tables if t.name == f"teams_{sc}")
                    h = plot_d_heatmap(results, sc, staging / f"d_heatmap_{sc}.png")
                    if h is not None:
                        written.append(h)
            names = [p.name for p in written]
            if pages:
                from mirrorcraft.metrics.pages.episode import run_arenas
                from mirrorcraft.metrics.pages.index import write_report_pages

                head = "\n".join(_header(records, used, foreign, scan, grid_size, grid_name))
                pages_written = write_report_pages(
                    staging,
                    title=title or f"Team report: {run_dir.name}",
                    header_markdown=head.replace("  \n", "\n"),
                    tables=tables,
                    plots=[p for p in written if p.suffix == ".png"],
                    team_records=used,
                    files=names,
                    arenas=run_arenas(
                        run_dir
                    ),  # a team study's arenas: RUN_DIR/worlds (teams study's default)
                )
                names += [p.name for p in pages_written]
            _swap_in(staging, out)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return [out / n for n in names]
