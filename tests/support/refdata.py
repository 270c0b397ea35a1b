"""Paths of the independent reference data used by tests (``from support.refdata import mcdata_path``).

Kept out of ``conftest.py`` because several test folders have their own ``conftest.py`` and
``from conftest import ...`` would then be ambiguous.
"""

from __future__ import annotations

import json
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO_ROOT / "node_modules"


def mcdata_path(node_modules: Path, version: str, key: str) -> Path:
    """The file minecraft-data uses for ``key`` (e.g. ``recipes``) in ``version`` (e.g. ``1.19.2``)."""
    base = node_modules / "minecraft-data" / "minecraft-data" / "data"
    paths = json.loads((base / "dataPaths.json").read_text())
    folder = paths["pc"][version][key]
    return base / folder / f"{key}.json"
