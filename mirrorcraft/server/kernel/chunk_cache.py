"""Encoded ``map_chunk`` bodies of unchanged columns, shared by every world a process opens (issue 23).

Why: encoding a column for the wire (``protocol.chunks.encode_column`` plus heightmap and light, ~2-3 ms)
is paid again by every server that opens the same terrain: each episode of a study opens a fresh copy of
its save, and a Vanilla world and its six Mirror copies are byte copies of one save. A column that no
block change has touched since it was read from the save is the same packet in all of them, so the first
server to send it encodes it and the others reuse the bytes.

What the key is, and why a change invalidates: a column read from a save is keyed by a digest of the
chunk's uncompressed NBT (the exact stored terrain, biomes and light), its position and the protocol
version; a column outside the save (all air) by its position, biome and protocol. The world forgets a
column's key at its first ``set_block`` (:meth:`~mirrorcraft.server.kernel.world.World.set_block`), so a
changed column is encoded from its own blocks and never read from or written to this cache — other worlds
holding the unchanged original keep getting the original. The entries are immutable ``bytes``.

Bounded: least recently used entries are dropped beyond :data:`DEFAULT_MAX_BYTES` (a radius-96 world's
~300 columns take a few MB).

:data:`FRAMES` holds the next step for the same bodies: the compressed wire frame (``zlib`` at the
connection's threshold, ~1 ms a column), keyed by the body itself, so a column sent again — to the next
episode's player, or to a player walking back — is not compressed again.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Hashable

#: Bytes of encoded bodies kept at most (the process-wide cache).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024


def terrain_digest(nbt: bytes) -> bytes:
    """The key part naming one stored chunk's content (16-byte BLAKE2b of its uncompressed NBT)."""
    return hashlib.blake2b(nbt, digest_size=16).digest()


class EncodedColumns:
    """An LRU map from a column's key to its encoded ``map_chunk`` body.

    Args:
        max_bytes: Total size of the bodies kept; the least recently used go first beyond it.

    Attributes:
        hits / misses: Look-ups answered / not (statistics for benchmarks and tests).
    """

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must be >= 0, not {max_bytes}")
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, bytes] = OrderedDict()
        self._weights: dict[Hashable, int] = {}
        self._bytes = 0
        self._lock = threading.Lock()  # process-wide: safe should two threads open worlds at once
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        """Bytes held."""
        return self._bytes

    def get(self, key: Hashable) -> bytes | None:
        """The body stored under ``key`` (and mark it recently used), or None."""
        with self._lock:
            body = self._entries.get(key)
            if body is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return body

    def put(self, key: Hashable, body: bytes, key_bytes: int = 0) -> None:
        """Store ``body`` under ``key``, dropping the least recently used entries beyond the bound.

        ``key_bytes``: what the key itself holds alive (a key that contains a body), counted with it."""
        weight = len(body) + key_bytes
        if weight > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= self._weights.pop(key)
            self._entries[key] = body
            self._weights[key] = weight
            self._bytes += weight
            while self._bytes > self.max_bytes:
                dropped, _ = self._entries.popitem(last=False)
                self._bytes -= self._weights.pop(dropped)

    def clear(self) -> None:
        """Forget every entry (statistics kept)."""
        with self._lock:
            self._entries.clear()
            self._weights.clear()
            self._bytes = 0


#: The cache every :class:`~mirrorcraft.server.kernel.world.World` uses unless given another.
SHARED = EncodedColumns()
#: Compressed wire frames of chunk bodies, keyed ``(packet id, compression threshold, body)``.
FRAMES = EncodedColumns(DEFAULT_MAX_BYTES // 2)

__all__ = ["DEFAULT_MAX_BYTES", "FRAMES", "SHARED", "EncodedColumns", "terrain_digest"]
