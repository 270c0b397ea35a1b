"""Helpers shared by test modules (fixtures themselves live in ``tests/conftest.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path


def fresh_world(template: Path, tmp: Path) -> Path:
    """An episode's reset: a fresh copy of the save."""
    dst = tmp / "world"
    shutil.copytree(template, dst)
    return dst
