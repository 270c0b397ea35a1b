"""The runner's two viewer hooks: the player's position after each action, and the map snapshot at the end.

Why apart from the runner: the runner (:mod:`mirrorcraft.study.runner`) only calls :func:`feet` after each
skill call and :func:`record_map` before its teardown (two lines there), so this module can change without
touching the episode loop. The snapshot itself is :mod:`mirrorcraft.worlds.map_snapshot` (read from the save
with the Anvil reader); it lands in the run notes' ``map_snapshot``, beside the record
(``<records_dir>/<episode_id>.json``), and the episode viewer draws it.

What the save holds when it is read, per server: **embedded** — the server writes its changed chunks into the
episode's world copy first, so the map shows the world as the episode left it (mined trees gone, placed
tables there); **child** and **vanilla** — the copy as the server last wrote it (a child process writes only
when stopped, which comes after this hook; a vanilla jar autosaves every 6,000 ticks), so the map may show the
terrain as it was at the start; the snapshot's ``source`` says which. Any failure is a run-notes line, never
an episode fault.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mirrorcraft.contracts import SpawnInfo
from mirrorcraft.contracts.observation import Vec3

__all__ = ["feet", "record_map"]


def feet(body: Any) -> Vec3 | None:
    """The body's feet position rounded to 0.1 block (the observation's precision), None before spawn."""
    pos = getattr(getattr(body, "movement", None), "position", None)
    if pos is None:
        return None
    x, y, z = pos
    return Vec3(x=round(x, 1), y=round(y, 1), z=round(z, 1))


def _save_of(server: Any, world: Path | None) -> tuple[Path | None, str]:
    """The save folder the server plays and what it holds (module docstring)."""
    if server is None:
        return None, ""
    if getattr(server, "embedded", None) is not None:
        server.embedded.save()  # the changed chunks into the episode's copy (deleted after the episode)
        return world, "save (embedded server: the world as the episode left it)"
    config = getattr(server, "config", None)
    if getattr(server, "mode", None) == "vanilla" and config is not None and hasattr(config, "level_name"):
        return Path(config.server_dir) / config.level_name, "save (vanilla jar: its last autosave)"
    return world, "save (child process: the world copy as it was last written)"


async def record_map(
    server: Any, world: Path | None, spawn: SpawnInfo | None, positions: dict[int, Vec3] | None, notes: Any
) -> None:
    """Put the map snapshot of the explored area (spawn and every recorded position) into
    ``notes.map_snapshot``; a failure is noted in ``notes.notes`` (the episode's outcome is never touched)."""
    from mirrorcraft.worlds.map_snapshot import explored_area, snapshot_from_save

    t = time.monotonic()
    points = [(p.x, p.z) for p in (positions or {}).values()]
    if spawn is not None:
        points.append((spawn.position.x + 0.5, spawn.position.z + 0.5))
    area = explored_area(points)
    if area is None:
        return
    try:
        save, source = _save_of(server, world)
        if save is None:
            return
        snap = snapshot_from_save(save, area)
        notes.map_snapshot = snap.model_copy(update={"source": source}).model_dump(mode="json")
    except Exception as err:  # noqa: BLE001 - the map is an aid for people; the episode stands without it
        notes.notes.append(f"map snapshot: {type(err).__name__}: {err}")
    notes.seconds["map_snapshot"] = round(time.monotonic() - t, 3)
