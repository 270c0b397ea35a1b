"""Fixtures for the rules-engine tests: the vanilla pack and real Mirror packs compiled from the shipped
suite manifests (by ``mirrorcraft.datapacks.compiler``), loaded once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mirrorcraft import gamedata
from mirrorcraft.contracts.rules import load_suite
from mirrorcraft.datapacks.compiler import RULE_PACK_FILENAME, build_suite_bytes
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.recipe_book import RecipeBook


@pytest.fixture(scope="session")
def vanilla() -> DatapackSet:
    """The vendored vanilla pack alone."""
    return DatapackSet.vanilla_only()


@pytest.fixture(scope="session")
def vanilla_book(vanilla: DatapackSet) -> RecipeBook:
    return RecipeBook(vanilla)


@pytest.fixture(scope="session")
def suite_pack(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Suite id → the compiled rule pack zip, as a Mirror world holds it (``datapacks/<RULE_PACK_FILENAME>``)."""
    made: dict[str, Path] = {}

    def make(suite: str) -> Path:
        if suite not in made:
            folder = tmp_path_factory.mktemp(f"world_{suite}") / "datapacks"
            folder.mkdir()
            path = folder / RULE_PACK_FILENAME
            path.write_bytes(build_suite_bytes(load_suite(suite)))
            made[suite] = path
        return made[suite]

    return make


@pytest.fixture(scope="session")
def mirror(suite_pack: Callable[[str], Path]) -> Callable[[str], DatapackSet]:
    """Suite id → vanilla pack + that suite's compiled pack, loaded (cached per session)."""
    loaded: dict[str, DatapackSet] = {}

    def get(suite: str) -> DatapackSet:
        if suite not in loaded:
            loaded[suite] = DatapackSet.load([Path(gamedata.VANILLA_PACK_DIR), suite_pack(suite)])
        return loaded[suite]

    return get
