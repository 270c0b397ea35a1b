"""Fixtures for the datapack tests: the six shipped suites, compiled once per session."""

from __future__ import annotations

import pytest

from mirrorcraft.contracts.rules import SuiteManifest, load_all_suites
from mirrorcraft.datapacks.compiler import build_suite_files


@pytest.fixture(scope="session")
def suites() -> dict[str, SuiteManifest]:
    """M01..M06 manifests."""
    return load_all_suites()


@pytest.fixture(scope="session")
def packs(suites: dict[str, SuiteManifest]) -> dict[str, dict[str, bytes]]:
    """Each suite's compiled files (``{path: bytes}``)."""
    return {s: build_suite_files(m) for s, m in suites.items()}
