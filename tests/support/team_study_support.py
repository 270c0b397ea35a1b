"""Helpers of the team study tests: a team system whose checkpoint counts its episodes, a flaky episode player,
grid files and the ``teams study`` command line.

``counting`` (registered when this module is imported; the study subprocesses get ``--import
support.team_study_support``) stands still like ``do_nothing`` and counts the episodes its object has played:
``checkpoint()`` returns the count and ``restore()`` sets it. A block played by one object, or resumed from
its checkpoints, therefore checkpoints ``block_index + 1`` after every episode; a resumed block whose systems
were *not* restored would restart at 1.

:func:`flaky_play` is the real :func:`~mirrorcraft.study.team_episode.play_team_episode` behind an injected
infrastructure fault (a ``ConnectionError`` before the episode starts, as a server that refuses the players
would give) for the episodes :data:`FLAKY` names: the game is real, only the fault is staged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from mirrorcraft.agents.teams import TEAM_POLICIES, TeamPolicy, register_team_policy
from mirrorcraft.contracts import SkillCall, TeamObservation
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamOutcome, TeamSystem
from support.refdata import REPO_ROOT

MODULE = "support.team_study_support"


class Counting(TeamPolicy):
    """Stands still; counts the episodes this object (or the one it was restored from) has finished."""

    id = "counting"

    def __init__(self, system: TeamSystem) -> None:
        super().__init__(system)
        self.episodes = 0
        self.restored: list[int] = []

    async def act(self, view: TeamObservation) -> SkillCall | None:
        return None

    def post_game(self, outcome: TeamOutcome) -> None:
        self.episodes += 1

    def checkpoint(self) -> dict[str, Any]:
        return {"episodes": self.episodes, "restored": self.restored}

    def restore(self, state: dict[str, Any]) -> None:
        self.episodes = int(state["episodes"])
        self.restored = [*state.get("restored", []), self.episodes]


if "counting" not in TEAM_POLICIES:
    register_team_policy(Counting)

#: Environment variable naming a JSON file {episode id: how many more attempts fail}, read and updated by
#: :func:`flaky_play` in the worker (a file, because the worker is another process; one worker at a time).
FLAKY_ENV = "MIRRORCRAFT_TEST_FLAKY"


def flaky_play(identity: TeamEpisodeIdentity, policies: Any, **kwargs: Any) -> Any:
    """:func:`play_team_episode`, failing first with a ``ConnectionError`` as the :data:`FLAKY_ENV` file says."""
    from mirrorcraft.study.team_episode import play_team_episode

    path = Path(os.environ[FLAKY_ENV])
    plan = json.loads(path.read_text())
    left = plan.get(identity.episode_id, 0)
    if left > 0:
        plan[identity.episode_id] = left - 1
        path.write_text(json.dumps(plan))
        raise ConnectionError("staged: the server refused the players' connections")
    return play_team_episode(identity, policies, **kwargs)


def write_grid(path: Path, **fields: Any) -> Path:
    """A YAML team grid file of ``fields``."""
    path.write_text(yaml.safe_dump(fields, sort_keys=False), encoding="utf-8")
    return path


def study_env(tmp: Path) -> dict[str, str]:
    """The environment of a ``teams study`` subprocess: this tree and ``tests/`` on the path (for --import),
    the temporary files of killed episodes inside the test's folder."""
    tmp.mkdir(parents=True, exist_ok=True)
    path = os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests"), os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path, TMPDIR=str(tmp))


def teams_study_cmd(grid: Path | str, out: Path, *extra: str) -> list[str]:
    """``python -m mirrorcraft.run teams study GRID --out OUT --import support.team_study_support ...``."""
    return [sys.executable, "-m", "mirrorcraft.run", "teams", "study", str(grid), "--out", str(out),
            "--import", MODULE, *extra]  # fmt: skip


def run(cmd: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a command from the repository root and capture its output."""
    return subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout)
