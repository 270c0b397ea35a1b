"""``report(run_dir)`` on a small synthetic study: Markdown, CSV and PNG files, consistent with the metrics."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib.image
import pytest
from support.study_episode_fn import synthetic_episode

from mirrorcraft.contracts import ModelSettings, StudyGrid
from mirrorcraft.errors import ContractError
from mirrorcraft.metrics import encounter_outcomes, paired_comparisons, report, rie, suite_average
from mirrorcraft.metrics.paired import is_fault
from mirrorcraft.metrics.results import scan_results
from mirrorcraft.study import expand_grid, run_study
from mirrorcraft.study.report_cli import main as cli_main

GRID = StudyGrid(
    name="report-test",
    study_seed=1,
    worlds=["plains-1", "jungle-2", "snowy_plains-1"],
    tasks=["iron_armor", "diamond"],
    models=[ModelSettings(name="model-a"), ModelSettings(name="model-b")],
    configurations=["direct_llm", "react"],
    repetitions=2,
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("report-run")
    doomed = expand_grid(GRID)[5].episode_id

    def runner(identity):
        if identity.episode_id == doomed:
            raise TimeoutError("server never came up")
        return synthetic_episode(identity)

    summary = run_study(run, GRID, runner, max_attempts=2, progress=False)
    assert summary.final_faults == 1
    return run


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_report_writes_markdown_csv_and_png(run_dir: Path):
    paths = report(run_dir, n_boot=300, seed=2)
    names = [p.name for p in paths]
    pages = names[12:]  # then index.html and one viewer page per episode (tests/viewer renders them)
    names, paths = names[:12], paths[:12]
    assert sorted(pages) == sorted(["index.html"] + [f"{i.episode_id}.html" for i in expand_grid(GRID)])
    assert names == [
        "report.md",
        "by_configuration.csv",
        "by_suite.csv",
        "significance.csv",
        "by_task_model_configuration.csv",
        "by_biome.csv",
        "disclosure.csv",
        "irr_rl.csv",
        "horizon.csv",
        "costs.csv",
        "rie_by_suite.png",
        "irr_rl_by_configuration.png",
    ]
    assert all(p.parent == run_dir / "report" and p.stat().st_size > 0 for p in paths)
    md = (run_dir / "report" / "report.md").read_text()
    assert f"episodes with a final record: {GRID.size()}" in md
    assert "excluded infrastructure faults (after bounded retries): 1" in md
    assert "synthetic records" in md
    assert f"grid report-test: {GRID.size()} episodes, {GRID.size()} with a final record" in md
    assert "incomplete study" not in md
    for title in ("by rule suite", "by biome", "Rule disclosure", "IRR (%) and RL", "Cumulative SR"):
        assert title in md
    for png in paths[-2:]:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        h, w, _ = matplotlib.image.imread(png).shape
        assert h > 200 and w > 400


def test_report_numbers_match_the_metrics(run_dir: Path):
    report(run_dir, n_boot=200, seed=0, plots=False)
    final = [r for r in scan_results(run_dir / "results.jsonl").final().values() if not is_fault(r)]
    assert len(final) == GRID.size() - 1
    by_suite = _csv(run_dir / "report" / "by_suite.csv")
    assert [r["suite"] for r in by_suite] == ["M01", "M02", "M03", "M04", "M05", "M06", "pooled"]
    base = [r for r in final if r.identity.configuration in ("direct_llm", "react")]
    eff = rie(paired_comparisons(base))
    assert float(by_suite[-1]["rie_sc"]) == pytest.approx(eff.score, rel=1e-12)
    assert float(by_suite[-1]["rie_sr"]) == pytest.approx(eff.sr, rel=1e-12)
    assert float(by_suite[-1]["rie_sc_ci_lo"]) <= eff.score <= float(by_suite[-1]["rie_sc_ci_hi"])
    biomes = _csv(run_dir / "report" / "by_biome.csv")
    assert [r["biome"] for r in biomes] == ["jungle", "plains", "snowy_plains"]
    irr_rows = {r["configuration"]: r for r in _csv(run_dir / "report" / "irr_rl.csv")}
    assert list(irr_rows) == ["direct_llm", "react", "react_w_rules"]
    react = [o for o in encounter_outcomes(final) if o.configuration == "react"]
    assert float(irr_rows["react"]["avg_irr"]) == pytest.approx(100 * suite_average(react, "irr").mean)
    costs = {(r["model"], r["configuration"]): r for r in _csv(run_dir / "report" / "costs.csv")}
    assert int(costs[("all", "all")]["episodes"]) == len(final)
    assert float(costs[("all", "all")]["total_cost_usd"]) == pytest.approx(
        sum(r.usage.cost_usd for r in final)
    )
    by_config = _csv(run_dir / "report" / "by_configuration.csv")
    assert {(r["model"], r["configuration"]) for r in by_config} >= {
        ("all", "react_w_rules"),
        ("model-a", "react"),
    }


def test_report_cli(run_dir: Path, tmp_path: Path, capsys):
    assert (
        cli_main(["report", str(run_dir), "--bootstrap", "100", "--no-plots", "--checkpoints", "25", "50"])
        == 0
    )
    out = capsys.readouterr().out.split()
    assert out[0].endswith("report.md") and len(out) == 11 and out[-1].endswith("index.html")
    assert "V@25" in (run_dir / "report" / "report.md").read_text()
    assert cli_main(["report", str(tmp_path)]) == 1
    assert "no results file" in capsys.readouterr().err
    with pytest.raises(ContractError, match="no results file"):
        report(tmp_path)
