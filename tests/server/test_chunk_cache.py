"""The process-wide cache of encoded chunk packets (issue 23): shared between worlds opened on copies of one
save, never serving a column that changed (in this world, or in the save it was read from).

Real saves (the session's sandbox, copied), real :class:`~mirrorcraft.server.kernel.world.World` objects and
the real encoder; each test uses its own :class:`EncodedColumns` so other tests' worlds do not fill it. The
reference for every body is the same column encoded with no cache at all (``packet_cache=None``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_twisted

from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.protocol.codec import decode
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.server.kernel.chunk_cache import FRAMES, SHARED, EncodedColumns
from mirrorcraft.server.kernel.world import World

PROTO = 760
SPAWN_COLUMN = (0, 0)  # the sandbox's spawn (8, 65, 8)


def _copy(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest)
    return dest


def _fresh(save: Path, cx: int, cz: int) -> bytes:
    """The column's body encoded from the save with no cache (the reference)."""
    return World(save, packet_cache=None).map_chunk_body(cx, cz, PROTO)


def test_worlds_on_copies_of_one_save_share_the_encoded_columns(
    sandbox_template: Path, tmp_path: Path
) -> None:
    cache = EncodedColumns()
    a = World(_copy(sandbox_template, tmp_path / "a"), packet_cache=cache)
    b = World(_copy(sandbox_template, tmp_path / "b"), packet_cache=cache)  # a Mirror copy: same bytes
    keys = [(0, 0), (-4, 3), (1, -1), (40, 40)]  # (40, 40): outside the save, all air
    first = [a.map_chunk_body(cx, cz, PROTO) for cx, cz in keys]
    assert (cache.hits, cache.misses, len(cache)) == (0, 4, 4)
    second = [b.map_chunk_body(cx, cz, PROTO) for cx, cz in keys]
    assert cache.hits == 4 and len(cache) == 4  # no encode in the second world
    assert second == first == [_fresh(sandbox_template, cx, cz) for cx, cz in keys]
    assert World(sandbox_template).packet_cache is SHARED  # on by default, one cache per process


def test_a_changed_column_is_encoded_from_its_own_blocks(sandbox_template: Path, tmp_path: Path) -> None:
    cache = EncodedColumns()
    original = World(_copy(sandbox_template, tmp_path / "a"), packet_cache=cache)
    body0 = original.map_chunk_body(*SPAWN_COLUMN, PROTO)  # the cache now holds the save's column
    changed = World(_copy(sandbox_template, tmp_path / "b"), packet_cache=cache)
    gold = facts.state_id("gold_block")
    assert changed.set_block(8, 70, 8, gold)  # changed before it was ever sent
    body1 = changed.map_chunk_body(*SPAWN_COLUMN, PROTO)
    assert body1 != body0
    col = decode("map_chunk", body1, PROTO).column()
    assert int(col.blocks[70 + 64, 8, 8]) == gold
    assert cache.hits == 0 and len(cache) == 1  # neither read from the cache nor written to it
    # the unchanged world and a world opened afterwards on the original save still get the original
    assert original.map_chunk_body(*SPAWN_COLUMN, PROTO) == body0
    later = World(_copy(sandbox_template, tmp_path / "c"), packet_cache=cache)
    assert later.map_chunk_body(*SPAWN_COLUMN, PROTO) == body0 and cache.hits == 1
    # a change after the column was sent: the next body shows it too
    later.set_block(9, 70, 9, gold)
    assert (
        int(decode("map_chunk", later.map_chunk_body(*SPAWN_COLUMN, PROTO), PROTO).column().blocks[134, 9, 9])
        == gold
    )


def test_a_save_written_with_a_change_is_a_different_key(sandbox_template: Path, tmp_path: Path) -> None:
    """The key is the stored terrain's digest, not the position: a copy whose save differs is not served
    the original's packet."""
    cache = EncodedColumns()
    body0 = World(_copy(sandbox_template, tmp_path / "a"), packet_cache=cache).map_chunk_body(
        *SPAWN_COLUMN, PROTO
    )
    edited = _copy(sandbox_template, tmp_path / "b")
    w = World(edited, packet_cache=None)
    w.set_block(8, 70, 8, facts.state_id("gold_block"))
    assert w.save() == 1
    reopened = World(edited, packet_cache=cache)
    body1 = reopened.map_chunk_body(*SPAWN_COLUMN, PROTO)
    assert body1 != body0 and cache.hits == 0 and len(cache) == 2
    assert body1 == _fresh(edited, *SPAWN_COLUMN)


def test_the_cache_is_bounded_least_recently_used_first() -> None:
    cache = EncodedColumns(max_bytes=25)
    for key in "abc":
        cache.put(key, bytes(10))  # 30 bytes > 25: "a" goes
    assert cache.get("a") is None and cache.get("b") == bytes(10) and cache.size == 20
    cache.put("d", bytes(10))  # "c" is now the least recently used ("b" was just read)
    assert cache.get("c") is None and cache.get("b") is not None and cache.get("d") is not None
    cache.put("huge", bytes(26))  # larger than the bound: not kept, nothing dropped
    assert cache.get("huge") is None and len(cache) == 2
    with pytest.raises(ValueError, match="max_bytes"):
        EncodedColumns(max_bytes=-1)


@pytest_twisted.ensureDeferred
async def test_a_second_server_on_a_copy_sends_the_shared_frames(
    sandbox_template: Path, tmp_path: Path
) -> None:
    """Over real sockets: the second server's columns come from the process-wide caches (no encode, no
    compression) and its body decodes the very blocks that server holds."""
    seen: list[tuple[int, int]] = []
    for i in range(2):
        frames0, shared0 = FRAMES.hits, SHARED.hits
        srv = EmbeddedServer(
            ServerConfig(world=_copy(sandbox_template, tmp_path / f"w{i}"), port=0, view_distance=3)
        )
        srv.start()
        body = Body(BodyConfig(port=srv.port, username=f"cache{i}", view_distance=3))
        try:
            await body.connect()
            await body.wait_chunks(radius=2)
            world = srv.game.kernel.world
            assert len(body.world.columns) >= 25
            for key, col in body.world.columns.items():
                assert (col == world.column(*key).blocks).all(), key
            seen.append((FRAMES.hits - frames0, SHARED.hits - shared0))
        finally:
            await body.disconnect()
            await srv.stop()
    assert seen[1][0] >= 25 and seen[1][1] >= 25  # the 7 x 7 view: every column from the caches
