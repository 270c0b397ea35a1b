"""Where the vendored game data lives and how it is read (gzip'd JSON, loaded lazily and cached).

Everything under ``data/`` is written by ``scripts/regen_gamedata.py`` from the pinned npm packages;
nothing here reads ``node_modules`` at run time, so an installed wheel works on its own.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

from mirrorcraft.errors import GameDataError

DATA_DIR = Path(__file__).resolve().parent / "data"
VANILLA_PACK_DIR = Path(__file__).resolve().parent / "vanilla_pack"


@cache
def load_json(name: str) -> Any:
    """Load ``data/<name>.json.gz`` once per process.

    Raises:
        GameDataError: The file is missing or not valid gzip'd JSON (run scripts/regen_gamedata.py).
    """
    path = DATA_DIR / f"{name}.json.gz"
    try:
        return json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError) as err:
        raise GameDataError(
            f"cannot load vendored game data {path}: {err} (run scripts/regen_gamedata.py)"
        ) from err


def mc(name: str) -> str:
    """Normalise a resource name to its ``minecraft:``-prefixed form."""
    return name if ":" in name else f"minecraft:{name}"


def bare(name: str) -> str:
    """Strip a ``minecraft:`` prefix (other namespaces are kept, so they never match vanilla names)."""
    return name[10:] if name.startswith("minecraft:") else name
