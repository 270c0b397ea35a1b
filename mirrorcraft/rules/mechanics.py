"""The cited Java facts of ``rules/data/*.json``, each file read once per process.

Why one loader: every small mechanics module (``blocks``, ``combat``, ``devices``, ``digging``, ``fuels``,
``enchanting``, ``items``, ``spawning``) keeps its hand-authored facts in one data file with a ``_source``
(the rules-as-data guard checks the citation) and reads it the same way; the package data is found through
:mod:`importlib.resources`, so an installed wheel works as a checkout does.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["mechanics_data"]


@cache
def mechanics_data(name: str) -> dict[str, Any]:
    """The table of ``rules/data/<name>.json`` (cached: callers must not modify it).

    Raises:
        FileNotFoundError: no such data file.
    """
    return json.loads(resources.files("mirrorcraft.rules").joinpath(f"data/{name}.json").read_text("utf-8"))
