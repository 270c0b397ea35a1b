"""Helpers shared by the rules-engine tests (a unique module name: importable as ``rules_support``)."""

from __future__ import annotations

import json
from pathlib import Path

from mirrorcraft import gamedata
from mirrorcraft.rules.datapacks import PACK_FORMAT

VANILLA = Path(gamedata.VANILLA_PACK_DIR)


def make_pack(root: Path, files: dict[str, object], *, pack_format: int | None = PACK_FORMAT) -> Path:
    """A folder pack with ``pack.mcmeta`` and the given files (dicts are written as JSON, str verbatim)."""
    root.mkdir(parents=True, exist_ok=True)
    if pack_format is not None:
        (root / "pack.mcmeta").write_text(
            json.dumps({"pack": {"pack_format": pack_format, "description": "t"}})
        )
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return root
