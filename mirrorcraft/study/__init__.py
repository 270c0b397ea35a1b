"""mirrorcraft.study — study grids, the kill-safe results store, executors (local pool, Ray) and the driver.

A study is a :class:`~mirrorcraft.contracts.StudyGrid` expanded to episode identities with deterministic
ids, run through an executor by :func:`run_study`, which appends one record per line to
``<run_dir>/results.jsonl`` and can be killed and resumed at any moment (docs/studies.md). The episode
runner is injected as ``run_episode(identity) -> EpisodeRecord``.
"""

from mirrorcraft.study.executors import (
    EpisodeFn,
    Executor,
    InProcessExecutor,
    LocalExecutor,
    RayExecutor,
    StudySummary,
    execute_episode,
    make_executor,
    run_study,
)
from mirrorcraft.study.grid import PRESETS, expand_grid, load_grid
from mirrorcraft.study.progress import StudyProgress
from mirrorcraft.study.store import ResultsStore, StoreLockedError

__all__ = [
    "PRESETS",
    "EpisodeFn",
    "Executor",
    "InProcessExecutor",
    "LocalExecutor",
    "RayExecutor",
    "ResultsStore",
    "StoreLockedError",
    "StudyProgress",
    "StudySummary",
    "execute_episode",
    "expand_grid",
    "load_grid",
    "make_executor",
    "run_study",
]
