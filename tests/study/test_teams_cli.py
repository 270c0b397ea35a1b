"""``python -m mirrorcraft.run teams episode``: usage errors exit 2 before anything is written; a short
Dash & Dine episode (judge players and four players, random vs random; lockstep unpaced) writes a valid team
record."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.refdata import REPO_ROOT

from mirrorcraft.contracts.teams import read_team_record
from mirrorcraft.run import main


@pytest.mark.parametrize(
    "argv",
    [
        ["--red", "nope"],
        ["--blue", "no_such_system"],
        ["--seconds", "0"],
        ["--unpaced"],  # needs --clock lockstep
    ],
)
def test_usage_errors_exit_2_and_write_nothing(tmp_path: Path, argv: list[str], capsys) -> None:  # noqa: ANN001
    out = tmp_path / "out"
    assert main(["teams", "episode", "--out", str(out), *argv]) == 2
    assert not out.exists() and "teams episode:" in capsys.readouterr().err


def test_a_short_dash_and_dine_episode_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "teams", "episode", "--scenario", "dash_and_dine",
         "--red", "random", "--blue", "random", "--seconds", "4", "--clock", "lockstep", "--unpaced",
         "--out", str(out)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = out.glob("tep-*.json")
    record = read_team_record(path.read_text())
    assert record.identity.scenario == "dash_and_dine" and len(record.scores) == 4
    assert "red random 0 - blue random 0" in proc.stdout and str(path) in proc.stdout
