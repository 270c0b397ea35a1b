"""Natural passive-mob spawning on the embedded server: vanilla 1.19's creature pass of ``NaturalSpawner``,
for cows (the benchmark's one mob), governed live by the ``doMobSpawning`` game rule.

Why a module of its own: the benchmark's runtime controls keep "natural passive-mob spawning" (the
paper's setup: ``doMobSpawning true`` in every world), so cows an agent kills near its base come back the
vanilla way. Spawning needs the players, the world's blocks and light, the biome spawn lists and the game
rules at once; :mod:`~mirrorcraft.server.features.mobs` only owns the cows themselves (it gets a spawned cow
through :meth:`~mirrorcraft.server.features.mobs.Mobs.add_cow`, so spawned cows wander, take hits, die and drop
their loot exactly like saved ones).

Vanilla behaviour followed (Java 1.19 ``ServerChunkCache.tickChunks`` / ``NaturalSpawner`` /
``LocalMobCapCalculator``, Minecraft Wiki "Spawn" Java edition):

* **when**: the creature category is "persistent", so vanilla only tries it when
  ``gameTime % 400 == 0``, and only while ``doMobSpawning`` is true (read from the admin state every
  cycle, so ``/gamerule doMobSpawning false`` stops it at once). A cycle runs when the game tick crosses a
  multiple of :data:`SPAWN_INTERVAL` (ticks the reactor skipped still count: at most one cycle per
  crossing). Difficulty does not matter: passive mobs spawn in Peaceful (only monsters need
  ``spawnEnemies``).
* **mob cap** (global): ``cap = 10 * N // 289`` where ``N`` is the number of distinct chunk positions
  within :data:`COUNTER_RADIUS` (8) chunks (Chebyshev) of any non-spectator player's chunk — vanilla's
  ``DistanceManager.naturalSpawnChunkCounter`` and ``MobCategory.CREATURE.getMaxInstancesPerChunk() == 10``
  over ``NaturalSpawner.MAGIC_NUMBER == 17 * 17``. One player: 10 cows; two players far apart: 20. The
  count compared with it is the living cows standing in those same chunks (vanilla counts every loaded
  cow; our server keeps every cow of the save in memory, so "loaded" is taken as "within the counter
  radius of a player" — otherwise a pregenerated world's chunk-generation cows would fill the cap
  forever). The cap is checked once per chunk before its attempt, as vanilla does, so one chunk can
  overshoot it by up to one group.
* **local cap** (``LocalMobCapCalculator``, 1.18+): a chunk may spawn only if some player within 128
  blocks of its centre has fewer than 10 counted cows in chunks whose centre is within 128 blocks of it.
* **candidate chunks**: the chunks streamed to a player (within the server's ``view_distance``: our
  "loaded and ticking" chunks), whose centre is within 128 blocks horizontally of a non-spectator player
  (``ChunkMap.anyPlayerCloseEnoughForSpawning``) and which lie entirely inside the world border
  (``WorldBorder.isWithinBounds(ChunkPos)``), visited in a shuffled order.
* **one chunk** (``spawnCategoryForChunk`` / ``spawnCategoryForPosition``): a random column of the chunk, a
  random ``y`` from ``-64`` to the first air above the column's top block (``getRandomPosWithin``); nothing if
  that block is a full cube (our stand-in for ``isRedstoneConductor``). Then 3 group attempts, each walking up
  to ``ceil(rand * 4)`` steps of ``nextInt(6) - nextInt(6)`` on x and z from the start; each step's spot must
  be more than 24 blocks from the nearest player (3-D, ``distanceToSqr > 576``) and at least 24 blocks from
  the world spawn. The first such spot picks the spawn entry from the biome's creature list (weighted, from
  the shipped biome specs ``mirrorcraft/datapacks/biomes/*.json``: cows weight 24, groups of 4) and sets the
  number of steps to the group size. A spot is valid when its chunk is loaded, the block below is in
  ``#minecraft:animals_spawnable_on`` (from the loaded datapacks: grass blocks in vanilla), the sky light at
  the feet is at least :data:`MIN_LIGHT` (``Animal.isBrightEnoughToSpawn``: raw brightness > 8), the feet and
  head blocks are not full cubes, hold no fluid (``rules.blocks.fluid_of``, or waterlogged), are not rails
  (``#prevent_mob_spawning_inside``) and are not dangerous (fire, lava, cactus...; the tag names and the
  dangerous blocks are Java code, cited in ``rules/data/spawning.json``), and the cow's box at
  ``(x + 0.5, y, z + 0.5)`` collides with no block and lies inside the world border. At most 4 cows (``Cow.getMaxSpawnClusterSize``) spawn per chunk and cycle.
* **randomness**: one stream, ``seeded_rng(world seed, episode seed, "spawning")``, draws the chunk
  order, positions, entries, group sizes, yaws and UUIDs, so two runs with the same seeds and the same
  player positions spawn identically.

Partial / simplified (documented, not hidden): only the biomes of the shipped specs have creature lists
(any other biome spawns nothing); the biome is read at the spot's own quart cell (vanilla's fuzzy biome
zoom is not applied); light is sky light only (the server models no block light) and, when a chunk has no
stored light, it is derived per column like :mod:`~mirrorcraft.server.kernel.world` does (15 above the topmost
light-filtering block, 0 below); no baby cows (vanilla makes 5 % of a group's later members babies);
redstone-signal sources are not excluded from the feet/head blocks; the spawn-cost "charge" check is
skipped (the overworld creature biomes have none); the lava cauldron, dangerous in vanilla
(``WalkNodeEvaluator.isBurningBlock``), is not among the dangerous blocks. Cows are never despawned (vanilla:
persistent category).
"""

from __future__ import annotations

import logging
import math
import uuid as uuidlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mirrorcraft.datapacks.biome import shipped_biome_specs
from mirrorcraft.gamedata import codec_registry_ids
from mirrorcraft.rules.blocks import NO_FLUID, fluid_of
from mirrorcraft.rules.spawning import (
    dangerous_blocks,
    dangerous_when_lit,
    spawn_blocked_inside,
    spawnable_on,
)
from mirrorcraft.server import facts
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.mobs import COW_HEIGHT, COW_WIDTH, Cow, Mobs
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import collides
from mirrorcraft.server.kernel.world import HEIGHT, MIN_Y
from mirrorcraft.server.world_rules import WorldRules

log = logging.getLogger(__name__)

SPAWN_INTERVAL = 400  # ticks: vanilla spawns persistent categories (creatures) when gameTime % 400 == 0
CREATURE_CAP = 10  # MobCategory.CREATURE.getMaxInstancesPerChunk()
CAP_CHUNKS = 17 * 17  # NaturalSpawner.MAGIC_NUMBER
COUNTER_RADIUS = 8  # chunks: DistanceManager's natural-spawn chunk counter range
PLAYER_RANGE_SQ = 128.0 * 128.0  # ChunkMap.playerIsCloseEnoughForSpawning (chunk centre, horizontal)
MIN_PLAYER_DIST_SQ = 24.0 * 24.0  # NaturalSpawner.isRightDistanceToPlayerAndSpawnPoint
MIN_SPAWN_POINT_DIST = 24.0
GROUP_ATTEMPTS = 3
STEP_SPREAD = 6  # x += nextInt(6) - nextInt(6)
MAX_CLUSTER = 4  # Mob.getMaxSpawnClusterSize
MIN_LIGHT = 9  # Animal.isBrightEnoughToSpawn: getRawBrightness(pos, 0) > 8
#: Blocks (bare names) a creature that is not fire-immune is never spawned into (``rules.spawning``: fire,
#: lava, magma, cactus...), and those dangerous only when lit (campfires).
DANGEROUS = facts.bare_names(dangerous_blocks())
DANGEROUS_WHEN_LIT = facts.bare_names(dangerous_when_lit())


@dataclass(frozen=True)
class SpawnEntry:
    """One spawner entry of a biome's creature list (vanilla ``MobSpawnSettings.SpawnerData``)."""

    type: str
    weight: int
    min_count: int
    max_count: int


def shipped_creature_spawns() -> dict[str, tuple[SpawnEntry, ...]]:
    """Creature spawn lists of the shipped biome specs, keyed by biome id (``minecraft:plains``)."""
    return {
        spec.biome: tuple(
            SpawnEntry(c.type, c.weight, c.min_count, c.max_count) for c in spec.ecology.creatures
        )
        for spec in shipped_biome_specs().values()
    }


def mob_cap(chunk_count: int) -> int:
    """Global creature cap for ``chunk_count`` chunks near players: ``10 * chunk_count // 289``."""
    return CREATURE_CAP * chunk_count // CAP_CHUNKS


class NaturalSpawner:
    """The creature pass of vanilla's natural spawner for one game.

    Args:
        kernel: The kernel (world, players, clock, the seeded ``spawning`` stream).
        rules: The world's rules (the ``animals_spawnable_on`` and ``prevent_mob_spawning_inside`` tags).
        mobs: Where new cows go.
        admin: The ``doMobSpawning`` game rule and game modes (spectators spawn nothing).
        spawns: Creature spawn lists by biome id; defaults to :func:`shipped_creature_spawns`.
    """

    def __init__(
        self,
        kernel: Kernel,
        rules: WorldRules,
        mobs: Mobs,
        admin: Admin,
        spawns: Mapping[str, Sequence[SpawnEntry]] | None = None,
    ) -> None:
        self.kernel = kernel
        self.mobs = mobs
        self.admin = admin
        self.rng = kernel.rng.stream("spawning")
        self.spawns = dict(spawns) if spawns is not None else shipped_creature_spawns()
        self._biome_names = {v: k for k, v in codec_registry_ids("minecraft:worldgen/biome").items()}
        block_tags = rules.packs.tags.get("blocks", {})
        self.spawnable_on = facts.bare_names(spawnable_on(block_tags))
        self.prevent_inside = facts.bare_names(spawn_blocked_inside(block_tags))
        tables = facts.state_tables()
        self._full_cube = tables.full_cube
        self._is_air = tables.is_air
        self._filters = tables.filter_light > 0
        self._last_cycle = kernel.tick_count // SPAWN_INTERVAL
        self._loaded: set[tuple[int, int]] = set()  # chunks streamed to players, as of the last cycle
        self.cycles = 0  # spawn cycles run (doMobSpawning true)
        self.spawned = 0  # cows spawned so far

    # ---- ticking -----------------------------------------------------------------------------------

    def tick(self) -> list[Cow]:
        """Run a spawn cycle when the game tick has crossed a multiple of 400; returns the new cows."""
        cycle = self.kernel.tick_count // SPAWN_INTERVAL
        if cycle == self._last_cycle:
            return []
        self._last_cycle = cycle
        if not self.admin.game_rules.get("doMobSpawning", True):
            return []
        return self.spawn_cycle()

    def _players(self) -> list[Player]:
        admin = self.admin
        return [p for p in self.kernel.players if admin.game_mode(p) != "spectator"]

    def spawn_cycle(self) -> list[Cow]:
        """One creature pass over the candidate chunks (regardless of the tick and the game rule)."""
        players = self._players()
        self.cycles += 1
        if not players:
            return []
        pchunks = {(math.floor(p.pos[0]) >> 4, math.floor(p.pos[2]) >> 4) for p in players}
        near: set[tuple[int, int]] = set()
        for cx, cz in pchunks:
            r = COUNTER_RADIUS
            near.update((x, z) for x in range(cx - r, cx + r + 1) for z in range(cz - r, cz + r + 1))
        cap = mob_cap(len(near))
        living = self.mobs.living_animals()  # the creature category counts every animal, chickens too
        counted = [c for c in living if _chunk_of(c.pos) in near]
        count = len(counted)
        local = [0] * len(players)
        for c in counted:
            self._add_local(local, players, _chunk_of(c.pos))
        vd = self.kernel.config.view_distance
        self._loaded = {
            (x, z)
            for cx, cz in pchunks
            for x in range(cx - vd, cx + vd + 1)
            for z in range(cz - vd, cz + vd + 1)
        }
        candidates = sorted(
            k for k in self._loaded if self._players_near(players, k) and self._chunk_inside_border(k)
        )
        self.rng.shuffle(candidates)
        new: list[Cow] = []
        for key in candidates:
            if count >= cap:
                break
            if not any(local[i] < CREATURE_CAP for i in self._players_near(players, key)):
                continue
            for cow in self._spawn_in_chunk(key, players):
                new.append(cow)
                count += 1
                self._add_local(local, players, _chunk_of(cow.pos))
        self.spawned += len(new)
        if new:
            self.kernel.emit(
                "mobs_spawned", entity=facts.COW_TYPE, count=len(new), tick=self.kernel.tick_count
            )
        return new

    # ---- helpers -----------------------------------------------------------------------------------

    @staticmethod
    def _players_near(players: list[Player], key: tuple[int, int]) -> list[int]:
        mx, mz = key[0] * 16 + 8, key[1] * 16 + 8
        return [
            i for i, p in enumerate(players) if (p.pos[0] - mx) ** 2 + (p.pos[2] - mz) ** 2 < PLAYER_RANGE_SQ
        ]

    def _add_local(self, local: list[int], players: list[Player], key: tuple[int, int]) -> None:
        for i in self._players_near(players, key):
            local[i] += 1

    def _chunk_inside_border(self, key: tuple[int, int]) -> bool:
        w = self.kernel.world
        x0, z0 = key[0] * 16, key[1] * 16
        return w.inside_border(x0, z0) and w.inside_border(x0 + 15, z0 + 15)

    def surface_y(self, x: int, z: int) -> int:
        """``WORLD_SURFACE`` heightmap value: one above the highest non-air block (``-64`` if none)."""
        col = self.kernel.world.column(x >> 4, z >> 4)
        solid = ~self._is_air[col.blocks[:, z & 15, x & 15]]
        if not solid.any():
            return MIN_Y
        return MIN_Y + HEIGHT - int(np.argmax(solid[::-1]))

    def sky_light(self, x: int, y: int, z: int) -> int:
        """Sky light at a block: the chunk's stored light, else derived from the column (see module doc)."""
        if not MIN_Y <= y < MIN_Y + HEIGHT:
            return 15
        col = self.kernel.world.column(x >> 4, z >> 4)
        if col.sky is not None:
            return int(col.sky[y - MIN_Y, z & 15, x & 15])
        above = col.blocks[y - MIN_Y :, z & 15, x & 15]
        return 0 if bool(self._filters[above].any()) else 15

    def biome_at(self, x: int, y: int, z: int) -> str:
        """Biome id at a block (its quart cell of the column)."""
        col = self.kernel.world.column(x >> 4, z >> 4)
        qy = min(max((y - MIN_Y) >> 2, 0), col.biomes.shape[0] - 1)
        return self._biome_names.get(int(col.biomes[qy, (z & 15) >> 2, (x & 15) >> 2]), "")

    def _pick_entry(self, x: int, y: int, z: int) -> SpawnEntry | None:
        entries = self.spawns.get(self.biome_at(x, y, z), ())
        total = sum(e.weight for e in entries)
        if total <= 0:
            return None
        r = self.rng.randrange(total)  # WeightedRandom.getRandomItem
        for e in entries:
            r -= e.weight
            if r < 0:
                return e
        return None

    def _empty_for_spawn(self, state: int) -> bool:
        """``NaturalSpawner.isValidEmptySpawnBlock`` for the feet / head block (see module doc)."""
        if self._full_cube[state]:
            return False
        name = facts.block_name(state)
        if fluid_of(name) != NO_FLUID or facts.state_props(state).get("waterlogged") == "true":
            return False
        if name in self.prevent_inside or name in DANGEROUS:
            return False
        if name in DANGEROUS_WHEN_LIT and facts.state_props(state).get("lit") == "true":
            return False
        return True

    def valid_spot(self, x: int, y: int, z: int) -> bool:
        """Whether a cow may spawn with its feet in block ``(x, y, z)`` (see module doc)."""
        world = self.kernel.world
        if (x >> 4, z >> 4) not in self._loaded:
            return False
        if facts.block_name(world.get_block(x, y - 1, z)) not in self.spawnable_on:
            return False
        if not (
            self._empty_for_spawn(world.get_block(x, y, z))
            and self._empty_for_spawn(world.get_block(x, y + 1, z))
        ):
            return False
        if self.sky_light(x, y, z) < MIN_LIGHT:
            return False
        h = COW_WIDTH / 2
        cx, cz = x + 0.5, z + 0.5
        if not (world.inside_border(cx - h, cz - h) and world.inside_border(cx + h, cz + h)):
            return False
        return not collides(world, (cx - h, float(y), cz - h, cx + h, y + COW_HEIGHT, cz + h))

    def _far_enough(self, players: list[Player], x: int, y: int, z: int) -> bool:
        px, pz = x + 0.5, z + 0.5
        d2 = min((p.pos[0] - px) ** 2 + (p.pos[1] - y) ** 2 + (p.pos[2] - pz) ** 2 for p in players)
        if d2 <= MIN_PLAYER_DIST_SQ:
            return False
        sx, sy, sz = self.kernel.world.level.spawn
        return math.dist((sx + 0.5, sy + 0.5, sz + 0.5), (px, y, pz)) >= MIN_SPAWN_POINT_DIST

    def _spawn_in_chunk(self, key: tuple[int, int], players: list[Player]) -> list[Cow]:
        rng = self.rng
        x0 = key[0] * 16 + rng.randrange(16)
        z0 = key[1] * 16 + rng.randrange(16)
        # getRandomPosWithin: chunk.getHeight(WORLD_SURFACE) (the top block) + 1, inclusive
        y = rng.randint(MIN_Y, self.surface_y(x0, z0))
        if y < MIN_Y + 1 or self._full_cube[self.kernel.world.get_block(x0, y, z0)]:
            return []
        out: list[Cow] = []
        for _ in range(GROUP_ATTEMPTS):
            x, z = x0, z0
            entry: SpawnEntry | None = None
            steps = math.ceil(rng.random() * 4.0)
            i = 0
            while i < steps:
                i += 1
                x += rng.randrange(STEP_SPREAD) - rng.randrange(STEP_SPREAD)
                z += rng.randrange(STEP_SPREAD) - rng.randrange(STEP_SPREAD)
                if not self._far_enough(players, x, y, z):
                    continue
                if entry is None:
                    entry = self._pick_entry(x, y, z)
                    if entry is None:
                        break  # vanilla: no spawner data here ends this group attempt
                    steps = entry.min_count + rng.randrange(1 + entry.max_count - entry.min_count)
                if entry.type != facts.COW_TYPE or not self.valid_spot(x, y, z):
                    continue  # cows are the one mob the server models
                yaw = rng.random() * 360.0
                uid = uuidlib.UUID(int=rng.getrandbits(128), version=4)
                out.append(self.mobs.add_cow((x + 0.5, float(y), z + 0.5), yaw, uid))
                if len(out) >= MAX_CLUSTER:
                    return out
        return out


def _chunk_of(pos: Sequence[float]) -> tuple[int, int]:
    return (math.floor(pos[0]) >> 4, math.floor(pos[2]) >> 4)
