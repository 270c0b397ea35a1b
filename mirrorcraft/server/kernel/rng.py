"""The seeded random streams of one game: one ``random.Random`` per purpose, fixed by both seeds.

Why named streams: every random draw the server makes must repeat for the same world seed and episode seed
(a study replays an episode), and one feature's draws must not shift another's. Each purpose gets its own
generator, ``random.Random(sha256(f"{world_seed}_{episode_seed}_{purpose}"))``
(:func:`~mirrorcraft.server.config.seeded_rng`); the purpose names are part of the seeded behaviour and must
not change: ``loot`` (block and mob loot rolls), ``scatter`` (where dropped items pop out), ``uuid`` (item
entity UUIDs), ``xp`` (furnace experience rounding), ``mobs`` (cow AI), ``spawning`` (natural spawning),
``enchant:<player name>`` (each player's enchantment seed).
"""

from __future__ import annotations

import random

from mirrorcraft.server.config import seeded_rng


class RngStreams:
    """The random streams of one game, created on first use and then shared by everyone who asks."""

    def __init__(self, world_seed: int, episode_seed: int) -> None:
        self.world_seed = world_seed
        self.episode_seed = episode_seed
        self._streams: dict[str, random.Random] = {}

    def stream(self, purpose: str) -> random.Random:
        """The generator of ``purpose`` (the same object on every call)."""
        rng = self._streams.get(purpose)
        if rng is None:
            rng = self._streams[purpose] = seeded_rng(self.world_seed, self.episode_seed, purpose)
        return rng

    def __contains__(self, purpose: str) -> bool:
        return purpose in self._streams
