"""Fixtures of the world tests: the four PillagerBench arenas, built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def arena_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalogue folder holding ``arenas/<name>/<variant>/`` for all four arena ids (built by the real
    builder; tests must copy a save before serving it, since the server writes into its world folder)."""
    from mirrorcraft.worlds.arenas.build import ARENA_IDS, build_arena

    out = tmp_path_factory.mktemp("arenas")
    for ident in ARENA_IDS:
        build_arena(ident, out)
    return out
