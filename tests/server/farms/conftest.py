"""Fixtures of the farm, animal, food and arena-block tests (the plot helpers: ``support.farm_plots``)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def arena_saves(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two original PillagerBench arenas (and Dash & Dine's mirror), built once by the real builder."""
    from mirrorcraft.worlds.arenas.build import build_arena

    out = tmp_path_factory.mktemp("arena-saves")
    for ident in ("mushroom_war", "dash_and_dine", "dash_and_dine/mirrored"):
        build_arena(ident, out)
    return out


@pytest.fixture
def arena(arena_saves: Path, tmp_path: Path) -> Iterator[Any]:
    """Factory: ``arena("dash_and_dine", variant="original", **config)`` → a fresh copy of the save's folder."""

    def copy(name: str, variant: str = "original") -> Path:
        dst = tmp_path / f"{name}-{variant}"
        shutil.copytree(arena_saves / "arenas" / name / variant, dst)
        return dst

    yield copy
