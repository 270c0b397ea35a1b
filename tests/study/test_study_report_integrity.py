"""Reports that cannot be fooled: foreign records, conflicting duplicates, unpaired Mirror episodes, horizon
checkpoints, one missing-value convention, encounter rule ids against the manifests, an atomic report.

The run folder is a small synthetic study (records are not game episodes; the machinery is the real one).
Each test tampers a copy the way issue 22 did with the default job's run folder (docs/reliability.md has
the figures of that run).
"""

from __future__ import annotations

import csv
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.study_episode_fn import synthetic_episode

from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, StudyGrid, read_record
from mirrorcraft.metrics.reporting import STAGING_PREFIX, report
from mirrorcraft.metrics.results import RecordConflictError, load_final_records
from mirrorcraft.study import run_study
from mirrorcraft.study.report_cli import main as cli_main

GRID = StudyGrid(
    name="integrity",
    worlds=["plains-1", "taiga-1"],
    tasks=["diamond"],
    models=[ModelSettings(name="model-a")],
    configurations=["react"],
    repetitions=1,
    suites=["M01", "M02"],
    disclosed_configurations=[],
)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("integrity")
    run_study(run, GRID, synthetic_episode, progress=False)
    return run


@pytest.fixture
def run(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(pristine, copy)
    return copy


def _lines(run: Path) -> list[str]:
    return (run / "results.jsonl").read_text().splitlines()


def _write(run: Path, lines: list[str]) -> None:
    (run / "results.jsonl").write_text("\n".join(lines) + "\n")


def _retarget(line: str, **identity) -> str:
    """A valid record: the line's record moved to another identity (id and seed recomputed)."""
    data = json.loads(line)
    data["identity"].update(identity)
    ident = EpisodeIdentity.model_validate(data["identity"])
    data["episode_id"], data["seed"] = ident.episode_id, ident.seed
    if data["identity"]["suite"] is None:
        data["encounters"] = []
    return read_record(data).model_dump_json()


def _pooled(run: Path) -> dict[str, str]:
    with (run / "report" / "by_suite.csv").open(newline="") as fh:
        return next(r for r in csv.DictReader(fh) if r["suite"] == "pooled")


def _line_of(run: Path, suite: str | None, world: str = "plains-1") -> tuple[int, str]:
    for k, line in enumerate(_lines(run)):
        ident = json.loads(line)["identity"]
        if ident["suite"] == suite and ident["world"] == world:
            return k, line
    raise AssertionError("no such record")


def test_a_record_of_another_grid_is_listed_and_excluded(run: Path):
    report(run, n_boot=100, plots=False)
    before = _pooled(run)
    _, vanilla = _line_of(run, None)
    lines = _lines(run)
    lines.append(_retarget(vanilla, suite="M01", study_seed=1))  # valid, Score of the Vanilla episode
    lines.append(_retarget(vanilla, suite="M01", model={"name": "model-a", "temperature": 0.2}))
    _write(run, lines)
    report(run, n_boot=100, plots=False)
    assert _pooled(run) == before
    md = (run / "report" / "report.md").read_text()
    assert "**2 records do not belong to the grid: excluded**" in md
    assert "model model-a (T=0.2) study seed 0" in md and "model model-a (T=0.7) study seed 1" in md

    # Pooled on request: still no RIE moves (neither has a Vanilla episode of its cell); both are noted.
    assert cli_main(["report", str(run), "--no-plots", "--bootstrap", "100", "--include-foreign"]) == 0
    md = (run / "report" / "report.md").read_text()
    assert "INCLUDED (--include-foreign)" in md
    assert "2 Mirror episodes have no Vanilla episode of their cell" in md
    assert _pooled(run)["rie_sc"] == before["rie_sc"] and _pooled(run)["pairs"] == before["pairs"]


def test_conflicting_duplicates_are_refused_unless_told_which_wins(run: Path, capsys):
    index, m01 = _line_of(run, "M01")
    _, vanilla = _line_of(run, None)
    ident = json.loads(m01)["identity"]
    forged = _retarget(vanilla, suite="M01", world=ident["world"])  # same episode id, another outcome
    assert json.loads(forged)["episode_id"] == json.loads(m01)["episode_id"]
    _write(run, [forged, *_lines(run)])  # placed first
    original_line = index + 2  # 1-based, shifted by the forged line
    assert cli_main(["report", str(run), "--no-plots", "--bootstrap", "50"]) == 1
    err = capsys.readouterr().err
    assert "conflicting records" in err and "line 1: score" in err and f"line {original_line}: score" in err
    assert "--keep-line" in err and not (run / "report").exists()
    with pytest.raises(RecordConflictError):
        load_final_records(run)

    assert (
        cli_main(["report", str(run), "--no-plots", "--bootstrap", "50", "--keep-line", str(original_line)])
        == 0
    )
    records, _ = load_final_records(run, keep_lines=[original_line])
    kept = next(r for r in records if r.episode_id == json.loads(m01)["episode_id"])
    assert kept.model_dump_json() == read_record(m01).model_dump_json()
    md = (run / "report" / "report.md").read_text()
    assert f"conflicting records settled by --keep-line {original_line}: 1" in md
    records, _ = load_final_records(run, keep="first")
    assert (
        next(r for r in records if r.episode_id == kept.episode_id).outcome.score
        == json.loads(forged)["outcome"]["score"]
    )
    assert cli_main(["report", str(run), "--no-plots", "--keep-line", "2"]) == 1  # line 2 holds no conflict
    assert "no conflicting record on that line" in capsys.readouterr().err


def test_identical_duplicates_are_ignored(run: Path):
    report(run, n_boot=100, plots=False)
    before = _pooled(run)
    _, m01 = _line_of(run, "M01")
    _write(run, [*_lines(run), m01])
    report(run, n_boot=100, plots=False)
    assert _pooled(run) == before
    assert "identical duplicate records ignored: 1" in (run / "report" / "report.md").read_text()


def test_encounter_rule_ids_are_checked_against_the_manifest(run: Path):
    index, m02 = _line_of(run, "M02")
    data = json.loads(m02)
    assert data["encounters"], "the synthetic M02 episode has encounters"
    data["encounters"][0]["rule_id"] = "M02.not_a_rule_of_m02"  # the pattern and the suite prefix are fine
    read_record(data)  # the contract accepts it
    lines = _lines(run)
    lines[index] = json.dumps(data)
    _write(run, lines)
    report(run, n_boot=50, plots=False)
    md = (run / "report" / "report.md").read_text()
    assert "**1 records excluded: encounter rule ids not in the suite manifest**" in md
    assert "M02.not_a_rule_of_m02" in md
    assert "| M02 |" in md and "used in metrics: 5" in md


def test_csv_files_have_one_missing_value_convention(run: Path):
    # One world left: no interval anywhere; MDE undefined; the horizon table has no checkpoint.
    keep = [line for line in _lines(run) if json.loads(line)["identity"]["world"] == "plains-1"]
    _write(run, keep)
    paths = report(run, n_boot=50, plots=False, include_foreign=False)
    for p in paths[1:]:
        text = p.read_text()
        assert "nan" not in text.lower(), p.name
    with (run / "report" / "by_suite.csv").open(newline="") as fh:
        pooled = [r for r in csv.DictReader(fh) if r["suite"] == "pooled"][0]
    assert pooled["rie_sc_ci_lo"] == "" and pooled["rie_sc_ci_hi"] == ""
    md = (run / "report" / "report.md").read_text()
    assert "incomplete study: 3 episodes have no record yet" in md


def test_horizon_shows_only_checkpoints_within_the_budget(run: Path):
    report(run, n_boot=50, plots=False, checkpoints=(25, 50, 100, 150, 200))
    md = (run / "report" / "report.md").read_text()
    horizon = md.split("### Cumulative SR")[1]
    assert "V@25" in horizon and "M@50" in horizon
    assert "V@100" not in horizon and "Checkpoints above every budget not shown: [100, 150, 200]" in horizon
    with (run / "report" / "horizon.csv").open(newline="") as fh:
        assert next(csv.reader(fh)) == [
            "model",
            "configuration",
            "vanilla_25",
            "mirror_25",
            "vanilla_50",
            "mirror_50",
        ]


def test_an_interrupted_report_leaves_the_previous_report_whole(run: Path):
    report(run, n_boot=50, plots=False)
    before = {p.name: p.read_bytes() for p in (run / "report").iterdir()}
    _, vanilla = _line_of(run, None)
    _write(run, [*_lines(run), _retarget(vanilla, study_seed=3)])  # a change the next report would show
    # Kill a report process the moment its staging folder appears (it is writing the new report there).
    code = (
        "import sys; from mirrorcraft.metrics.reporting import report; "
        "report(sys.argv[1], n_boot=20000, plots=True)"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(run)])
    deadline = time.monotonic() + 60
    while not list(run.glob(STAGING_PREFIX + "*")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.001)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(run.glob(STAGING_PREFIX + "*")), "the kill came after the report finished"
    assert {p.name: p.read_bytes() for p in (run / "report").iterdir()} == before
    # The next report cleans the leftovers and replaces the report as a whole.
    paths = report(run, n_boot=50, plots=False)
    assert not list(run.glob(STAGING_PREFIX + "*"))
    assert sorted(p.name for p in (run / "report").iterdir()) == sorted(p.name for p in paths)
    assert "**1 records do not belong to the grid: excluded**" in (run / "report" / "report.md").read_text()
