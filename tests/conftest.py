"""Shared pytest fixtures.

The npm packages the tests use as *independent* references (vanilla packet captures from
``minecraft-packets``, ``minecraft-data``, prismarine-chunk, Mineflayer, flying-squid) are pinned by the
committed ``package-lock.json``. The ``node_modules`` fixture installs them with ``npm ci`` when they are
missing, so a test run on a fresh clone works without a separate set-up step.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.installs import npm_ci_once
from support.refdata import REPO_ROOT, mcdata_path  # noqa: F401  (re-exported for older imports)


def _ensure_node_modules() -> Path:
    return npm_ci_once(REPO_ROOT, REPO_ROOT / "node_modules" / "minecraft-packets" / "package.json",
                       "the reference-data tests")  # fmt: skip


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """Path to the repo's ``node_modules`` with the pinned npm packages installed."""
    return _ensure_node_modules()


@pytest.fixture(scope="session")
def packets_dir(node_modules: Path) -> Path:
    """Vanilla 1.19.2 captures: ``<dir>/from-server/<packet>/<n>.raw`` + decoded ``<n>.json``."""
    return node_modules / "minecraft-packets" / "minecraft-packets" / "data" / "pc" / "1.19.2"


@pytest.fixture(scope="session")
def packets_dir_1_19(node_modules: Path) -> Path:
    """Vanilla 1.19 (protocol 759) captures."""
    return node_modules / "minecraft-packets" / "minecraft-packets" / "data" / "pc" / "1.19"


@pytest.fixture(scope="session")
def mcdata_dir(node_modules: Path) -> Path:
    """minecraft-data's ``data/pc`` folder (resolve versions through dataPaths.json)."""
    return node_modules / "minecraft-data" / "minecraft-data" / "data" / "pc"


# ---- the one sandbox world of the session -----------------------------------------------------------


@pytest.fixture(scope="session")
def sandbox_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox world built once per session (tests copy it before playing in it)."""
    from mirrorcraft.worlds.sandbox import build_sandbox

    path = tmp_path_factory.mktemp("sandbox-template") / "world"
    build_sandbox(path, seed=0)
    return path


@pytest.fixture(scope="session")
def sandbox_info(sandbox_template: Path) -> dict[str, Any]:
    """The layout facts the sandbox builder wrote (tree, ore, pit positions)."""
    return json.loads((sandbox_template / "sandbox.json").read_text())


# ---- the PillagerBench arenas of the session -----------------------------------------------------------


@pytest.fixture(scope="session")
def arena_saves(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalogue folder holding ``arenas/<name>/<variant>/`` for all four arena ids, built once by the real
    builder (tests copy a save before serving it: the server writes into its world folder)."""
    from mirrorcraft.worlds.arenas.build import ARENA_IDS, build_arena

    out = tmp_path_factory.mktemp("arena-saves")
    for ident in ARENA_IDS:
        build_arena(ident, out)
    return out


@pytest.fixture
def arena(arena_saves: Path, tmp_path: Path) -> Callable[..., Path]:
    """Factory: ``arena("dash_and_dine", variant="original")`` → a fresh copy of that save's folder."""

    made = iter(range(1 << 30))

    def copy(name: str, variant: str = "original") -> Path:
        dst = tmp_path / f"{name}-{variant}-{next(made)}"
        shutil.copytree(arena_saves / "arenas" / name / variant, dst)
        return dst

    return copy


# ---- scheduling: the longest files first ---------------------------------------------------------------

#: Test files that take a minute or more (measured with --durations): started first, so three workers
#: (pyproject addopts: -n 3 --dist loadfile) do not end with one of them alone on a four-minute table.
LONGEST_FIRST = (
    "skills/test_skills_reachability.py",
    "study/test_runner_ministudy.py",
    "study/test_team_study.py",
    "skills/test_skills_controls.py",
    "test_main_command.py",
    "study/test_runner_control.py",
    "agents/test_agents_scripted_e2e.py",
    "study/test_runner_episode.py",
    "server/test_early_route.py",
    "skills/test_skills_embedded.py",
    "envs/test_envs.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.path.as_posix()
        return next(
            (k for k, f in enumerate(LONGEST_FIRST) if path.endswith("/tests/" + f)), len(LONGEST_FIRST)
        )

    items.sort(key=rank)  # stable: collection order within each rank
