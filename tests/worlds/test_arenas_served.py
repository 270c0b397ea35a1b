"""The arena saves served by the embedded 1.19.2 server, seen by a real client (our body over 127.0.0.1).

The body receives the chunks over the protocol and decodes them itself; the blocks it sees at the
hand-written coordinates (``arena_facts``) must be the documented ones, and the server's own ``block_at`` must
agree. Each case serves a fresh copy of the session's built arena (the server writes into its world folder).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_twisted
from support.arena_facts import (
    BROWN_CAPS,
    DD_JUDGES,
    MW_SPAWNS,
    RED_CAPS,
    RED_SLIME,
    RED_STEMS,
    dash_and_dine_facts,
)
from twisted.internet import defer

from mirrorcraft.mcproto_body import Body, BodyConfig


def _expected(ident: str) -> dict[tuple[int, int, int], str]:
    if ident.startswith("mushroom_war"):
        out = {c: "red_mushroom_block" for c in RED_CAPS} | {c: "brown_mushroom_block" for c in BROWN_CAPS}
        out |= {c: "mushroom_stem" for c in RED_STEMS} | {c: "slime_block" for c in RED_SLIME}
        out |= {c: "air" for c in MW_SPAWNS}
        return out
    variant = "mirrored" if ident.endswith("/mirrored") else "original"
    out = {c: b.split("[", 1)[0] for c, b in dash_and_dine_facts(variant).items()}
    out |= {c: "air" for c in DD_JUDGES}
    return out


@pytest.mark.parametrize("ident", ["mushroom_war", "dash_and_dine", "dash_and_dine/mirrored"])
@pytest_twisted.ensureDeferred
async def test_served_arena_is_seen_by_a_client(arena_saves: Path, tmp_path: Path, ident: str) -> None:
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer
    from mirrorcraft.worlds.arenas.build import arena_path

    world = tmp_path / "world"
    shutil.copytree(arena_path(arena_saves, ident), world)
    server = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=20, view_distance=3, episode_seed=5))
    server.start()
    body = Body(BodyConfig(port=server.port, username="Ryn", view_distance=3))
    try:
        await body.connect()
        assert await body.wait_chunks(radius=2, timeout=20)
        expected = _expected(ident)
        assert len(expected) > 40
        for (x, y, z), name in expected.items():
            seen = body.world.block_at(x, y, z)
            assert seen is not None, f"the client has no chunk at {(x, z)}"
            assert seen[0].removeprefix("minecraft:") == name, ((x, y, z), seen, name)
            assert server.block_at(x, y, z) == name
        # The client stands on the arena's flat ground at the spawn (y = -60, ground top at -61).
        assert body.movement.position is not None and body.movement.position[1] == pytest.approx(-60.0)
    finally:
        await body.disconnect()
        await defer.maybeDeferred(server.stop)
