"""Generate a controlled-biome world from a ``kind=biome`` spec and write it as a 1.19.2 Anvil save.

Role: the source of truth for MirrorCraft terrain (architecture.md §6: there is no game jar here, so our saves
*are* the worlds). :func:`build_dense_world` runs the deterministic numpy pipeline over the whole pregenerated
square; :func:`generate_world` also writes ``level.dat`` (benchmark runtime controls, spawn, world border at the
square's edge), ``region/*.mca`` (blocks, one biome id, simple sky light) and ``entities/*.mca`` (cows).

Pipeline (each stage has its own seeded random stream, see :mod:`.gen_noise`):
 1. relief from the gradient + 2D noise density, stone / deepslate (transition Y 0..8), bedrock floor, sea
    water up to sea level, surface blocks and surface-noise patches (:mod:`.gen_terrain`);
 2. worm caves under the surface (if ``terrain.caves``), ore blobs per band;
 3. surface lakes, trees, leaf distances, sugar cane beside water, snow and ice (snowy biomes), cows
    (:mod:`.gen_features`);
 4. spawn: the dry, safe, grass-topped column nearest the origin.

Sky light is simple: 15 in every cell above the highest light-blocking block of its column (a full block;
leaves, water, ice, snow layers and sugar cane let light through here), 0 at and below it. Chunks are
written with ``isLightOn`` true so a server uses these values; block light is left empty (no light sources).

Not simulated (documented in docs/worldgen.md): aquifers (the flag is kept for the datapack compiler),
vanilla's stone variants / sediments / geodes, flowers and grass, ore air-exposure discard.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from mirrorcraft import DATA_VERSION
from mirrorcraft.datapacks.biome import BiomeSpec, load_biome_spec
from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.gen_features import (
    add_lakes,
    choose_spawn,
    freeze_and_snow,
    place_cows,
    place_sugar_cane,
    place_trees,
    set_leaf_distances,
)
from mirrorcraft.worlds.gen_terrain import DenseWorld, build_terrain, carve_caves, place_ores

__all__ = [
    "DEFAULT_RADIUS_BLOCKS",
    "GenerationReport",
    "build_dense_world",
    "generate_world",
    "iter_chunks",
    "sky_light_heights",
]

DEFAULT_RADIUS_BLOCKS = 256

#: Blocks that let sky light through in our simple model (everything else stops it).
_LIGHT_THROUGH = (
    "minecraft:air",
    "minecraft:cave_air",
    "minecraft:water",
    "minecraft:ice",
    "minecraft:snow",
    "minecraft:sugar_cane",
)


class GenerationReport(BaseModel):
    """What :func:`generate_world` built, with timings and counts (for logs, tests and ``worlds check``)."""

    model_config = ConfigDict(extra="forbid")

    biome: str
    spec_id: str
    spec_version: int
    seed: int
    path: str
    radius_blocks: int
    chunk_min: tuple[int, int]
    chunk_max: tuple[int, int]
    chunks: int
    spawn: tuple[int, int, int]
    border_center: tuple[float, float]
    border_size: float
    seconds: dict[str, float]
    counts: dict[str, int]
    ore_blocks: dict[str, int]
    bytes_on_disk: int
    data_version: int = DATA_VERSION


def _square(radius_blocks: int) -> tuple[int, int]:
    """(first chunk coordinate, number of chunks per side) covering [-radius, radius) around the origin."""
    if radius_blocks < 16 or radius_blocks > 4096:
        raise WorldError(f"radius_blocks must be in 16..4096, got {radius_blocks}")
    half = math.ceil(radius_blocks / 16)
    return -half, 2 * half


def build_dense_world(spec: BiomeSpec, seed: int, radius_blocks: int = DEFAULT_RADIUS_BLOCKS) -> DenseWorld:
    """Run the whole generation pipeline in memory.

    Args:
        spec: A validated biome spec.
        seed: The world seed (every random choice derives from it).
        radius_blocks: Half the side of the pregenerated square, centred on the origin (rounded up to chunks).

    Returns:
        The :class:`DenseWorld` with ``spawn``, ``entities`` and ``stats`` (counts and per-stage seconds) set.

    Raises:
        WorldError: Bad radius, or no safe spawn near the origin.
    """
    c0, n = _square(radius_blocks)
    timings: dict[str, float] = {}
    t = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        timings[name] = round(now - t, 3)
        t = now

    world = build_terrain(spec, seed, c0 * 16, c0 * 16, n * 16, n * 16)
    lap("terrain")
    caves = carve_caves(world, seed) if spec.terrain.caves else 0
    lap("caves")
    ores = place_ores(world, spec, seed)
    lap("ores")
    lakes = add_lakes(world, spec, seed)
    trees = place_trees(world, spec, seed)
    set_leaf_distances(world, spec)
    lap("trees")
    cane = place_sugar_cane(world, spec, seed)
    frozen = freeze_and_snow(world, spec)
    cows = place_cows(world, spec, seed)
    lap("decoration")
    world.spawn = choose_spawn(world)
    lap("spawn")
    world.stats.update(
        {
            "cave_tunnels": caves,
            "lakes": lakes,
            "trees": trees,
            "sugar_cane_columns": cane,
            "ice_blocks": frozen["ice"],
            "snow_layers": frozen["snow"],
            "entities": cows,
        }
    )
    world.stats.update({f"ore_{k}": v for k, v in ores.items()})
    world.stats.update({f"seconds_{k}": v for k, v in timings.items()})  # type: ignore[dict-item]
    return world


def sky_light_heights(world: DenseWorld) -> np.ndarray:
    """[z, x] world y of the highest light-blocking block per column (``min_y - 1`` if none)."""
    through = world.palette.where(lambda s: s[0] in _LIGHT_THROUGH)
    blocking = ~through[world.blocks]
    h = world.blocks.shape[0]
    top = h - 1 - np.argmax(blocking[::-1], axis=0)
    top = np.where(blocking.any(axis=0), top, -1)
    return (top + world.min_y).astype(np.int32)


def iter_chunks(world: DenseWorld) -> Iterator:
    """Yield :class:`mirrorcraft.worlds.anvil.Chunk` objects for every chunk of ``world``."""
    from mirrorcraft.worlds.anvil import Chunk, default_blocks_motion

    states = world.palette.states
    motion = np.array([default_blocks_motion(s) for s in states], dtype=bool)
    light_top = sky_light_heights(world)
    ys = np.arange(world.blocks.shape[0])[:, None, None] + world.min_y
    biomes = np.zeros((world.blocks.shape[0] // 4, 4, 4), dtype=np.uint8)
    remap = np.zeros(256, dtype=np.uint16)
    for cz in range(world.size_z // 16):
        for cx in range(world.size_x // 16):
            sub = world.blocks[:, cz * 16 : cz * 16 + 16, cx * 16 : cx * 16 + 16]
            used = np.nonzero(np.bincount(sub.ravel(), minlength=len(states)))[0]
            remap[used] = np.arange(len(used), dtype=np.uint16)
            sky = np.where(ys > light_top[None, cz * 16 : cz * 16 + 16, cx * 16 : cx * 16 + 16], 15, 0)
            yield Chunk.from_dense(
                world.x0 // 16 + cx,
                world.z0 // 16 + cz,
                remap[sub],
                [states[i] for i in used],
                biomes,
                [world.biome],
                world.min_y,
                sky_light=sky.astype(np.uint8),
                is_motion_blocking=motion[used],
            )


def _entity_nbt(world: DenseWorld) -> dict[tuple[int, int], list]:
    from mirrorcraft.worlds.anvil import entity_nbt_cow

    out: dict[tuple[int, int], list] = defaultdict(list)
    for etype, pos, yaw, uuid in world.entities:
        if etype != "minecraft:cow":
            raise WorldError(f"no entity writer for {etype}")
        cx, cz = math.floor(pos[0]) >> 4, math.floor(pos[2]) >> 4
        out[(cx, cz)].append(entity_nbt_cow(uuid, pos, (yaw, 0.0)))
    return dict(out)


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def generate_world(
    spec: BiomeSpec | str,
    seed: int,
    out_path: str | Path,
    radius_blocks: int = DEFAULT_RADIUS_BLOCKS,
    *,
    level_name: str | None = None,
) -> GenerationReport:
    """Generate a world and write it as an Anvil save at ``out_path`` (which must not exist yet).

    Args:
        spec: A :class:`BiomeSpec` or the name of a shipped spec (``"plains"``...).
        seed: The world seed (also stored in level.dat).
        out_path: The world folder to create.
        radius_blocks: Half-side of the pregenerated square around the origin; the world border is set at
            that square's edge, so no server ever generates new chunks.
        level_name: ``LevelName`` in level.dat (default ``"mirrorcraft-<biome>-<seed>"``).

    Returns:
        A :class:`GenerationReport`.

    Raises:
        WorldError: ``out_path`` exists, bad radius, or no safe spawn.
        DatapackError: ``spec`` names no shipped spec.
    """
    from mirrorcraft.worlds.anvil import BENCHMARK_GAME_RULES, LevelData, Save

    if isinstance(spec, str):
        spec = load_biome_spec(spec)
    out = Path(out_path)
    if out.exists():
        raise WorldError(f"{out}: already exists; generate into a new folder")
    t0 = time.perf_counter()
    world = build_dense_world(spec, seed, radius_blocks)
    assert world.spawn is not None
    c0, n = _square(radius_blocks)
    rules = dict(BENCHMARK_GAME_RULES)
    rules.update(spec.runtime.game_rules())
    level = LevelData(
        level_name=level_name or f"mirrorcraft-{spec.id}-{seed}",
        seed=seed,
        spawn=world.spawn,
        difficulty=0,
        day_time=spec.runtime.day_time,
        raining=False,
        thundering=False,
        game_rules=rules,
        border_center=(float(c0 * 16 + n * 8), float(c0 * 16 + n * 8)),
        border_size=float(n * 16),
    )
    t1 = time.perf_counter()
    save = Save.create(out, level)
    save.write_chunks(iter_chunks(world))
    t2 = time.perf_counter()
    save.write_entities(_entity_nbt(world))
    t3 = time.perf_counter()
    seconds = {
        k.removeprefix("seconds_"): float(v) for k, v in world.stats.items() if k.startswith("seconds_")
    }
    seconds.update(
        {
            "generate": round(t1 - t0, 3),
            "write_chunks": round(t2 - t1, 3),
            "write_entities": round(t3 - t2, 3),
        }
    )
    seconds["total"] = round(t3 - t0, 3)
    counts = {k: int(v) for k, v in world.stats.items() if not k.startswith(("seconds_", "ore_"))}
    ores = {k.removeprefix("ore_"): int(v) for k, v in world.stats.items() if k.startswith("ore_")}
    return GenerationReport(
        biome=spec.biome,
        spec_id=spec.id,
        spec_version=spec.version,
        seed=seed,
        path=str(out),
        radius_blocks=radius_blocks,
        chunk_min=(c0, c0),
        chunk_max=(c0 + n - 1, c0 + n - 1),
        chunks=n * n,
        spawn=world.spawn,
        border_center=level.border_center,
        border_size=level.border_size,
        seconds=seconds,
        counts=counts,
        ore_blocks=ores,
        bytes_on_disk=_dir_size(out),
    )
