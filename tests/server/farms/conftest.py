"""Fixtures of the farm, animal, food and arena-block tests (the plot helpers: ``support.farm_plots``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from support.farm_plots import Plot, new_plot


@pytest.fixture
def plot(world: Path) -> Plot:
    """A game on a fresh sandbox copy (episode seed 7), the player standing at (20.5, 100, 20.5)."""
    return new_plot(world, episode_seed=7)


@pytest.fixture
def make_plot(sandbox_template: Path, tmp_path: Path):
    """Factory: ``make_plot(name, **config)`` → a :class:`Plot` on its own fresh sandbox copy."""

    def make(name: str = "w", **config: Any) -> Plot:
        dst = tmp_path / name
        shutil.copytree(sandbox_template, dst)
        return new_plot(dst, **config)

    return make
