"""Shared helpers of the skills tests: sandbox worlds, embedded-server fixtures, body sessions.

Kept out of ``conftest.py`` (several test folders have one; ``from conftest import`` is ambiguous).
The server is the project's embedded server, in-process on the reactor pytest-twisted runs; the skills
never import it, these tests do.
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Any

from mirrorcraft.contracts import TASKS, TaskId
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.skills import ObservationBuilder, SkillSet

_names = (f"sk{i}" for i in itertools.count())


def sandbox_info(save: Path) -> dict[str, Any]:
    """The sandbox's layout facts (test-only metadata written beside level.dat)."""
    return json.loads((save / "sandbox.json").read_text())


def module_server(sandbox: Path, tmp_path_factory: Any, prefix: str, tick_rate: float, seed: int):
    """Generator body of a module-scoped server fixture: an embedded server on a copy of ``sandbox``."""
    import pytest_twisted
    from twisted.internet import defer

    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    world = tmp_path_factory.mktemp(prefix) / "world"
    shutil.copytree(sandbox, world)
    srv = EmbeddedServer(
        ServerConfig(world=world, port=0, tick_rate=tick_rate, view_distance=4, episode_seed=seed)
    )
    srv.start()
    yield srv
    pytest_twisted.blockon(defer.maybeDeferred(srv.stop))


async def session(server: Any, name: str | None = None, task: TaskId = TaskId.IRON_ARMOR):
    """Connect a new body to ``server``; returns ``(body, skills, builder)`` (disconnect the body after)."""
    body = Body(BodyConfig(port=server.port, username=name or next(_names), view_distance=4))
    builder = ObservationBuilder(body, TASKS[task])
    await body.connect()
    assert await body.wait_chunks(radius=2, timeout=30)
    await body.sleep(0.5)
    return body, SkillSet(body), builder


def server_counts(server: Any, name: str) -> dict[str, int]:
    """``{minecraft:item: count}`` of a player's inventory as the server holds it (ground truth)."""
    out: dict[str, int] = {}
    for _slot, (item, n) in server.inventory(name).items():
        out[f"minecraft:{item}"] = out.get(f"minecraft:{item}", 0) + n
    return out
