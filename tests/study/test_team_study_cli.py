"""``teams study`` usage errors exit 2 and write nothing; ``report RUN_DIR`` on hand-made team run folders.

The report fixtures are team records written by hand (no game): per-second score series chosen so that P, D,
the pooled means and the score-over-time plot's input are known in advance, plus a fault attempt, a fault
that stayed final, a record of another grid and a cut-short last line, as a killed study or a copied file
would leave them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.team_study_support import write_grid

from mirrorcraft.contracts.teams import (
    TEAM_STUDY_MANIFEST,
    ScoreSample,
    TeamEndReason,
    TeamEpisodeIdentity,
    TeamEpisodeRecord,
    TeamGrid,
    TeamOutcome,
    TeamStudyManifest,
)
from mirrorcraft.metrics.team_results import is_team_run
from mirrorcraft.run import main
from mirrorcraft.study.team_study import team_fault_record

GRID = {
    "name": "cli-grid", "scenarios": ["mushroom_war"], "systems": ["random"],
    "opponents": {"mushroom_war": ["aggressive"]}, "repeats": 1, "block_length": 2, "game_seconds": 5,
}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "argv", "message"),
    [
        (None, ["no_such_preset"], "not a preset"),
        (GRID | {"systems": ["nobody"]}, [], "unknown team system(s) nobody"),
        (GRID | {"opponents": {"mushroom_war": ["balanced", "ghost"]}}, [], "unknown team system(s) ghost"),
        (GRID | {"repeats": 0}, [], "repeats"),
        (GRID, ["--workers", "-1"], "--workers -1"),
        (GRID, ["--tick-rate", "0"], "--tick-rate 0"),
        (GRID, ["--seconds", "0"], "--seconds 0"),
        (GRID, ["--max-attempts", "0"], "--max-attempts 0"),
        (GRID, ["--resume"], "no team study to resume"),
        (GRID, ["--import", "no_such_module_here"], "--import no_such_module_here"),
        (GRID, ["--unpaced"], "--unpaced needs --clock lockstep"),
    ],
)
def test_usage_errors_exit_2_and_write_nothing(
    tmp_path: Path, fields: dict | None, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = str(write_grid(tmp_path / "grid.yaml", **fields)) if fields else argv.pop(0)
    out = tmp_path / "out"
    assert main(["teams", "study", spec, "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("teams study:") and message in err, err
    assert not out.exists()


def test_a_folder_holding_another_grid_is_refused_untouched(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    out = tmp_path / "out"
    out.mkdir()
    other = TeamGrid.model_validate(GRID | {"game_seconds": 7})
    (out / TEAM_STUDY_MANIFEST).write_text(TeamStudyManifest.of(other).model_dump_json())
    before = sorted(p.name for p in out.iterdir())
    grid = write_grid(tmp_path / "grid.yaml", **GRID)
    assert main(["teams", "study", str(grid), "--out", str(out)]) == 2
    assert "started with another grid (fields differ: game_seconds)" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == before
    # the same grid through --seconds is the stored one: accepted as far as the folder goes (checked, not run)
    from mirrorcraft.study.team_study import check_team_run_dir

    check_team_run_dir(out, other, resume=True)
    # a folder with results but no manifest is not a team study
    (tmp_path / "mc").mkdir()
    (tmp_path / "mc" / "results.jsonl").write_text("{}\n")
    assert main(["teams", "study", str(grid), "--out", str(tmp_path / "mc")]) == 2
    assert "not a team study folder" in capsys.readouterr().err


def test_a_resume_with_another_clock_is_refused_untouched(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    """The clock is kept in ``run_settings.json``: a free-running half and a lockstep half would be two studies."""
    out = tmp_path / "out"
    out.mkdir()
    grid_model = TeamGrid.model_validate(GRID)
    (out / TEAM_STUDY_MANIFEST).write_text(TeamStudyManifest.of(grid_model).model_dump_json())
    (out / "run_settings.json").write_text(json.dumps({"clock": "lockstep-unpaced"}))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    grid = write_grid(tmp_path / "grid.yaml", **GRID)
    assert main(["teams", "study", str(grid), "--out", str(out), "--resume", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "clock: started with 'lockstep-unpaced', now 'free'" in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# ---- report on hand-made team runs ---------------------------------------------------------------------


def _record(ident: TeamEpisodeIdentity, tested: list[float], opponent: list[float]) -> TeamEpisodeRecord:
    red, blue = (tested, opponent) if ident.tested_side == "red" else (opponent, tested)
    scores = [ScoreSample(t=k + 1, red=r, blue=b) for k, (r, b) in enumerate(zip(red, blue, strict=True))]
    return TeamEpisodeRecord(
        episode_id=ident.episode_id, seed=ident.seed, identity=ident, scores=scores,
        outcome=TeamOutcome(red=red[-1], blue=blue[-1], end_reason=TeamEndReason.TIME_UP,
                            seconds_played=len(scores)),
        trajectories=[],
    )  # fmt: skip


def _hand_made_run(run: Path, *, manifest: bool) -> tuple[TeamGrid, list[TeamEpisodeRecord]]:
    grid = TeamGrid.model_validate(GRID | {"repeats": 2, "block_length": 1, "game_seconds": 3})
    run.mkdir()
    lines, used = [], []
    for ident in grid.expand():
        if ident.tested.id == "random":  # random: P 2 at the end on red, 4 on blue; aggressive 1
            own = [0.0, 1.0, 2.0] if ident.tested_side == "red" else [1.0, 2.0, 4.0]
            rec = _record(ident, own, [0.0, 1.0, 1.0])
        else:  # do_nothing: 0; aggressive against it 3 (its normal score)
            rec = _record(ident, [0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
        if ident.tested.id == "random" and ident.repeat == 1 and ident.tested_side == "blue":
            lines.append(
                team_fault_record(ident, "server_error", "staged fault, then rerun").model_dump_json()
            )
        lines.append(rec.model_dump_json())
        used.append(rec)
    other = TeamGrid.model_validate(
        GRID | {"name": "other", "study_seed": 9, "block_length": 1, "repeats": 1}
    )
    lines.append(_record(other.expand()[0], [5.0] * 5, [0.0] * 5).model_dump_json())  # a foreign record
    (run / "results.jsonl").write_text("\n".join(lines) + "\n" + lines[0][: len(lines[0]) // 2])  # cut short
    if manifest:
        (run / TEAM_STUDY_MANIFEST).write_text(TeamStudyManifest.of(grid).model_dump_json())
    return grid, used


def test_report_on_a_hand_made_team_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    _hand_made_run(run, manifest=True)
    assert is_team_run(run)
    assert main(["report", str(run), "--bootstrap", "200"]) == 0
    listed = [Path(p) for p in capsys.readouterr().out.split()]
    names = [p.name for p in listed]
    assert names[0] == "teams.md" and names[-1] == "index.html"  # the episode pages: one line on stderr
    assert {p.suffix for p in listed} == {".md", ".csv", ".png", ".html"}
    md = (run / "report" / "teams.md").read_text()
    assert "Grid: cli-grid, 8 episodes" in md and "Episodes recorded: 8 of 8; pending 0" in md
    assert "Records of episodes outside the grid, excluded: 1" in md
    assert "Ignored lines of results.jsonl: 1" in md and "partial last line" in md
    assert "Fault attempts that were rerun under the same id: 1" in md
    rows = (run / "report" / "teams_mushroom_war.csv").read_text().splitlines()
    header = rows[0].split(",")
    table = [dict(zip(header, r.split(","), strict=True)) for r in rows[1:]]

    def cell(system: str, side: str) -> dict[str, str]:
        return next(
            r for r in table if (r["system"], r["opponent"], r["side"]) == (system, "aggressive", side)
        )

    assert float(cell("random", "red")["p"]) == 2.0 and float(cell("random", "blue")["p"]) == 4.0
    assert float(cell("random", "pooled")["p"]) == 3.0 and float(cell("random", "pooled")["d"]) == 2.0
    assert float(cell("random", "pooled")["s"]) == 2.0  # normal 3 (against do_nothing) − actual 1
    assert float(cell("do_nothing", "pooled")["d"]) == -3.0 and cell("random", "pooled")["units"] == "2"
    assert float(cell("random", "pooled")["w_pct"]) == 100.0
    for name in ("scores_mushroom_war.png", "d_heatmap_mushroom_war.png"):
        assert (run / "report" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_team_run_without_a_manifest_is_told_by_its_records(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    run = tmp_path / "run"
    _hand_made_run(run, manifest=False)
    assert is_team_run(run)
    assert main(["report", str(run), "--bootstrap", "100", "--no-plots"]) == 0
    listed = [Path(p).name for p in capsys.readouterr().out.split()]
    assert "teams.md" in listed and not any(n.endswith(".png") for n in listed)
    md = (run / "report" / "teams.md").read_text()
    assert "no team_study.json: every record of the folder is used" in md  # the foreign one too
    assert "Episodes recorded: 9" in md


def test_score_band_matches_the_tables_bootstrap() -> None:
    """The plot's band is stratified_ci at every second: same value and interval for one column."""
    import numpy as np

    from mirrorcraft.metrics.team_plots import score_band
    from mirrorcraft.metrics.teams import stratified_ci

    rng = np.random.default_rng(3)
    vals = rng.normal(size=(12, 4))
    units = [k // 2 for k in range(12)]
    sides = ["red", "blue"] * 6
    mean, lo, hi = score_band(vals, units, sides, n_boot=500, seed=1)
    est = stratified_ci(vals[:, 2], units, sides, {"blue": 0.5, "red": 0.5}, n_boot=500, seed=1)
    assert mean[2] == pytest.approx(est.value)
    assert (lo[2], hi[2]) == pytest.approx(est.ci)
    one = score_band(vals[:2], [0, 0], ["red", "blue"])
    assert np.isnan(one[1]).all() and json.dumps(float(one[0][0]))
