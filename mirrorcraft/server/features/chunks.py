"""Chunk streaming: the columns within view distance of each player, nearest first, and unloading the rest.

Vanilla behaviour followed (wiki.vg "Chunk Format", "Set Center Chunk"): every column within the view
distance (a square of radius ``view_distance`` around the player's chunk) is sent, nearest first, after an
``update_view_position`` on each chunk crossing; columns that leave the square are unloaded. The column
bodies are the world's (cached until a column changes: :meth:`~mirrorcraft.server.kernel.world.World.
map_chunk_body`). After a respawn every column in view is sent again (vanilla's respawned player is a new
``ServerPlayer`` that the chunk map tracks from nothing; a client may drop its columns on ``respawn`` —
Mineflayer does when the login and respawn name the dimension differently).
"""

from __future__ import annotations

import math

from mirrorcraft.server import wire
from mirrorcraft.server.kernel import Behaviour, Kernel, Player


class Chunks:
    """Chunk streaming for every player.

    Attributes:
        sent: Column packets sent so far (a load statistic: ``EmbeddedServer.tick_stats``).
    """

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.sent = 0
        kernel.events.after("respawn", self._respawned)

    def _respawned(self, b: Behaviour) -> None:
        p = b.player
        p.loaded_chunks.clear()
        p.center_chunk = None
        self.stream(p)

    def stream(self, p: Player) -> None:
        """Send the chunks in view distance around ``p`` and unload those that left it (nothing when ``p``
        is still in the chunk it was last streamed for)."""
        cx, cz = math.floor(p.pos[0]) >> 4, math.floor(p.pos[2]) >> 4
        if p.center_chunk == (cx, cz):
            return
        p.center_chunk = (cx, cz)
        p.send("update_view_position", wire.update_view_position(cx, cz))
        r = self.kernel.config.view_distance
        world = self.kernel.world
        want = {(x, z) for x in range(cx - r, cx + r + 1) for z in range(cz - r, cz + r + 1)}
        for key in sorted(want - p.loaded_chunks, key=lambda k: (k[0] - cx) ** 2 + (k[1] - cz) ** 2):
            p.send("chunk_data", world.map_chunk_body(key[0], key[1], p.protocol_version))
            p.loaded_chunks.add(key)
            self.sent += 1
        for key in p.loaded_chunks - want:
            p.send("unload_chunk", wire.unload_chunk(*key))
            p.loaded_chunks.discard(key)
