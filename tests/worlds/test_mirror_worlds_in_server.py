"""Loading a catalogue Mirror world in the embedded server applies its rules (issue 6, last test).

Real parts end to end: the catalogue builds ``plains-1`` and its Mirror copies (real Anvil saves plus the
compiled rule-pack zip), the embedded server loads a fresh copy of each, and our body joins over 127.0.0.1
and digs. The server's test hook only puts the block to dig next to the player (so the test does not depend on
where trees happen to grow); what drops is decided by the loaded datapacks alone.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import defer

from mirrorcraft.mcproto_body import Body, BodyConfig

RADIUS = 48


@pytest.fixture(scope="module")
def catalogue_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mirrorcraft.worlds.catalogue import build_world

    out = tmp_path_factory.mktemp("catalogue")
    for name in ("plains-1", "plains-1/M02", "plains-1/M04", "plains-1/M06"):
        build_world(name, out, RADIUS)
    return out


async def _dig_in(world: Path, tmp: Path, block: str, tool: str | None) -> Counter[str]:
    """Serve a fresh copy of ``world``, put ``block`` beside the player, dig it, return what was picked up."""
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    copy = tmp / "world"
    shutil.copytree(world, copy)
    server = EmbeddedServer(ServerConfig(world=copy, port=0, tick_rate=20, view_distance=3, episode_seed=11))
    server.start()
    body = Body(BodyConfig(port=server.port, username="digger", view_distance=3))
    try:
        await body.connect()
        assert await body.wait_chunks(radius=1, timeout=20)
        await body.sleep(0.5)
        if tool:
            server.give_item("digger", tool, 1)
            await body.sleep(0.3)
            assert await body.inventory.equip(f"minecraft:{tool}")
        x, y, z = body.movement.block_position()
        target = (x + 1, y, z)
        server.set_block(*target, block)
        await body.sleep(0.3)
        dug, _ = await body.dig_and_collect(target)
        assert dug.broken, dug
        await body.sleep(0.5)
        got: Counter[str] = Counter()
        for _slot, (item, count) in server.inventory("digger").items():
            got[item] += count
        if tool:
            got[tool] -= 1
            got = +got
        return got
    finally:
        await body.disconnect()
        await defer.maybeDeferred(server.stop)


@pytest.mark.parametrize(
    ("world", "block", "tool", "expected"),
    [
        ("plains-1", "oak_log", None, {"oak_log": 1}),
        ("plains-1/M02", "oak_log", None, {"oak_planks": 4}),  # M02: a log drops 4 planks of its wood
        ("plains-1/M06", "oak_log", None, {"oak_planks": 4, "stick": 2}),  # M06: 4 planks and 2 sticks
        ("plains-1", "coal_ore", "wooden_pickaxe", {"coal": 1}),
        ("plains-1/M04", "coal_ore", "wooden_pickaxe", {"coal_block": 1}),  # M04: compressed drops
    ],
)
@pytest_twisted.ensureDeferred
async def test_mirror_rules_apply_when_served(
    catalogue_dir: Path, tmp_path: Path, world: str, block: str, tool: str | None, expected: dict[str, int]
) -> None:
    from mirrorcraft.worlds.catalogue import world_path

    got = await _dig_in(world_path(catalogue_dir, world), tmp_path, block, tool)
    assert dict(got) == expected
