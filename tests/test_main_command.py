"""The README's main command: ``python -m mirrorcraft.run`` must run end to end on a fresh checkout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.refdata import REPO_ROOT


def test_version_and_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().startswith("mirrorcraft ")
    helptext = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for command in ("serve", "worlds", "datapacks", "contracts"):
        assert command in helptext


def test_default_job_checks_worlds_then_runs_the_paired_evaluation(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "--out", str(out), "--budget", "1", "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["world"] == "plains-1"
    assert sorted(summary["suites"]) == ["M01", "M02", "M03", "M04", "M05", "M06"]
    for suite, result in summary["suites"].items():
        assert result["pair_ok"] and result["audit_ok"] and result["accepted"], (suite, result)
    assert (out / "worlds" / "mirror" / "plains-1" / "M03" / "datapacks" / "mirrorcraft_rules.zip").is_file()
    # Step 2: the paired evaluation on the embedded server — one record per world, a report and plots.
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    worlds = sorted(
        r["identity"]["world"] + ("/" + r["identity"]["suite"] if r["identity"]["suite"] else "")
        for r in lines
    )
    assert worlds == ["plains-1"] + [f"plains-1/M0{i}" for i in range(1, 7)], worlds
    assert all(not r["infrastructure_faults"] for r in lines)
    assert all(len(r["trajectory"]) == 1 for r in lines)
    assert (out / "report" / "report.md").is_file() and (out / "report" / "rie_by_suite.png").is_file()
    # the report as a page, and one viewer page per episode beside it, each with its map (docs/viewer.md)
    assert (out / "report" / "index.html").is_file()
    for r in lines:
        page = (out / "report" / f"{r['episode_id']}.html").read_text()
        assert 'class="terrain"' in page and 'class="action' in page, r["episode_id"]
    assert "RIE (Vanilla" in proc.stdout
    # then the side-balanced team demo: 4 Mushroom War episodes (random tested from both sides, and the
    # do_nothing baseline for S), valid team records and the team tables
    from mirrorcraft.contracts.teams import read_team_record

    teams = [read_team_record(line) for line in (out / "teams" / "results.jsonl").read_text().splitlines()]
    assert sorted((r.identity.tested.id, r.identity.tested_side) for r in teams) == [
        ("do_nothing", "blue"), ("do_nothing", "red"), ("random", "blue"), ("random", "red"),
    ]  # fmt: skip
    assert all(len(r.scores) == 20 for r in teams)
    assert (out / "teams" / "report" / "teams.md").is_file() and "PillagerBench demo" in proc.stdout
