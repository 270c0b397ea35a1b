"""Helpers shared by the body's live tests (kept out of ``conftest.py``: several test folders have one)."""

from __future__ import annotations

from typing import Any


def stand_spot(server: Any, x: int, y: int, z: int) -> tuple[int, int, int] | None:
    """A cell beside block (x, y, z) where a player can stand (two air blocks over a solid one), asked of the
    embedded server's own view (ground truth, not the body's)."""
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1), (2, 0), (-2, 0), (0, 2), (0, -2)):
        for dy in (0, -1, 1):
            p = (x + dx, y + dy, z + dz)
            if (
                server.block_at(*p) == "air"
                and server.block_at(p[0], p[1] + 1, p[2]) == "air"
                and server.block_at(p[0], p[1] - 1, p[2]) not in ("air", "water", "lava")
            ):
                return p
    return None
