"""Measurements over a generated world: the numbers that show a save has its biome's character.

Role: the evidence behind the generator's tests and (later) ``worlds check``. Everything is computed from the
blocks themselves — either a :class:`~mirrorcraft.worlds.gen_terrain.DenseWorld` fresh from the generator or one
rebuilt from the save on disk with :func:`dense_from_save` — never from the generator's own counters, so a
measurement of a save checks what a server will actually load.

Measured: ore blocks per Y per ore (stone and deepslate variants merged), trees (trunk bases), sugar cane
columns and whether each stands beside water, snow coverage and ice, surface block counts (patches such as
terracotta), relief (spread of the ground height), cows, and spawn safety.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict

from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.gen_terrain import BlockState, DenseWorld, Palette

__all__ = [
    "ORES",
    "SpawnSafety",
    "WorldMeasurements",
    "count_trunks",
    "dense_from_save",
    "ground_heights",
    "layer_counts",
    "measure_save",
    "measure_world",
    "ore_histogram",
    "spawn_safety",
    "sugar_cane_columns",
]

#: Ore names measured (keys of :func:`ore_histogram`), with the block names counted for each.
ORES: dict[str, tuple[str, ...]] = {
    name: (f"minecraft:{name}_ore", f"minecraft:deepslate_{name}_ore")
    for name in ("coal", "iron", "copper", "gold", "redstone", "lapis", "emerald", "diamond")
} | {"obsidian": ("minecraft:obsidian",)}

#: Not part of the ground when measuring relief and surface blocks.
_NOT_GROUND_SUFFIXES = ("_log", "_leaves")
_NOT_GROUND = {
    "minecraft:air",
    "minecraft:cave_air",
    "minecraft:water",
    "minecraft:lava",
    "minecraft:ice",
    "minecraft:snow",
    "minecraft:sugar_cane",
}
_PASSABLE = {"minecraft:air", "minecraft:cave_air", "minecraft:snow"}
_FLUIDS = {"minecraft:water", "minecraft:lava"}


class SpawnSafety(BaseModel):
    """Checks on the spawn column."""

    model_config = ConfigDict(extra="forbid")

    spawn: tuple[int, int, int]
    ground_block: str
    feet_block: str
    head_block: str
    grass_topped: bool
    headroom: bool
    fluid_within_2: bool
    max_step_3x3: int
    safe: bool


class WorldMeasurements(BaseModel):
    """Everything :func:`measure_world` reports."""

    model_config = ConfigDict(extra="forbid")

    biome: str
    chunks: int
    ore_blocks: dict[str, int]
    trees: int
    trees_per_chunk: float
    sugar_cane_columns: int
    sugar_cane_beside_water: int
    snow_coverage: float
    ice_blocks: int
    surface_blocks: dict[str, int]
    relief_mean: float
    relief_std: float
    relief_p5: float
    relief_p95: float
    relief_range: int
    cows: int
    spawn: SpawnSafety | None


def layer_counts(world: DenseWorld) -> np.ndarray:
    """``[y index, palette index]`` block counts (int64, shape (H, len(palette)))."""
    n = len(world.palette.states)
    return np.stack([np.bincount(layer.ravel(), minlength=n)[:n] for layer in world.blocks])


def ore_histogram(world: DenseWorld, counts: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Ore blocks per Y for every ore in :data:`ORES`; index ``i`` is world y ``min_y + i``."""
    counts = layer_counts(world) if counts is None else counts
    names = world.palette.names()
    out = {}
    for ore, blocks in ORES.items():
        cols = [i for i, nm in enumerate(names) if nm in blocks]
        out[ore] = counts[:, cols].sum(axis=1) if cols else np.zeros(counts.shape[0], dtype=np.int64)
    return out


def _table(palette: Palette, pred: Callable[[BlockState], bool]) -> np.ndarray:
    return palette.where(pred)


def ground_heights(world: DenseWorld) -> np.ndarray:
    """[z, x] world y of the top ground block (not air, fluid, ice, snow layer, plant, log or leaves)."""
    ground = _table(
        world.palette, lambda s: s[0] not in _NOT_GROUND and not s[0].endswith(_NOT_GROUND_SUFFIXES)
    )
    hit = ground[world.blocks]
    h = world.blocks.shape[0]
    top = h - 1 - np.argmax(hit[::-1], axis=0)
    return (np.where(hit.any(axis=0), top, 0) + world.min_y).astype(np.int32)


def count_trunks(world: DenseWorld) -> int:
    """Number of trees: log blocks standing on a ground block (one trunk base per tree).

    A leaning acacia segment rests on air, and a log on a log is the same trunk, so neither counts.
    """
    is_log = _table(world.palette, lambda s: s[0].endswith("_log"))
    ground = _table(
        world.palette, lambda s: s[0] not in _NOT_GROUND and not s[0].endswith(_NOT_GROUND_SUFFIXES)
    )
    ys = np.nonzero(is_log[world.blocks].any(axis=(1, 2)))[0]
    if len(ys) == 0:
        return 0
    lo, hi = max(int(ys[0]), 1), int(ys[-1]) + 1
    logs = is_log[world.blocks[lo:hi]]
    below = ground[world.blocks[lo - 1 : hi - 1]]
    return int((logs & below).sum())


def sugar_cane_columns(world: DenseWorld) -> list[tuple[int, int, int, bool]]:
    """Every sugar cane column as (x, y of the lowest cane, z, a water block is beside its soil)."""
    cane_t = _table(world.palette, lambda s: s[0] == "minecraft:sugar_cane")
    water_t = _table(world.palette, lambda s: s[0] == "minecraft:water")
    cane = cane_t[world.blocks]
    base = np.argwhere(cane[1:] & ~cane[:-1]) + (1, 0, 0)
    out = []
    h, zs, xs = world.blocks.shape
    for iy, iz, ix in base:
        soil_y = iy - 1
        beside = False
        for dz, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            jz, jx = iz + dz, ix + dx
            if 0 <= jz < zs and 0 <= jx < xs and water_t[world.blocks[soil_y, jz, jx]]:
                beside = True
        out.append((int(ix) + world.x0, int(iy) + world.min_y, int(iz) + world.z0, beside))
    return out


def spawn_safety(world: DenseWorld, spawn: tuple[int, int, int]) -> SpawnSafety:
    """Check the spawn: grass below the feet, two passable blocks, no fluid near, level ground."""
    x, y, z = spawn
    ground = world.block_at(x, y - 1, z)[0]
    feet = world.block_at(x, y, z)[0]
    head = world.block_at(x, y + 1, z)[0]
    fluid = False
    for dz in range(-2, 3):
        for dx in range(-2, 3):
            for dy in (-1, 0):
                try:
                    if world.block_at(x + dx, y + dy, z + dz)[0] in _FLUIDS:
                        fluid = True
                except WorldError:
                    pass
    g = ground_heights(world)
    iz, ix = z - world.z0, x - world.x0
    win = g[max(iz - 1, 0) : iz + 2, max(ix - 1, 0) : ix + 2]
    step = int(np.abs(win - g[iz, ix]).max())
    grass = ground == "minecraft:grass_block"
    headroom = feet in _PASSABLE and head in _PASSABLE
    return SpawnSafety(
        spawn=spawn,
        ground_block=ground,
        feet_block=feet,
        head_block=head,
        grass_topped=grass,
        headroom=headroom,
        fluid_within_2=fluid,
        max_step_3x3=step,
        safe=grass and headroom and not fluid and step <= 1,
    )


def measure_world(world: DenseWorld, cows: int | None = None) -> WorldMeasurements:
    """Measure a dense world.

    Args:
        world: From :func:`mirrorcraft.worlds.generate.build_dense_world` or :func:`dense_from_save`.
        cows: Cow count if known from elsewhere (a save's entity files); default: ``world.entities``.

    Returns:
        The :class:`WorldMeasurements`.
    """
    counts = layer_counts(world)
    hist = ore_histogram(world, counts)
    chunks = (world.size_x // 16) * (world.size_z // 16)
    trees = count_trunks(world)
    cane = sugar_cane_columns(world)
    names = world.palette.names()
    # top non-air block per column, for snow coverage
    nonair = world.blocks != 0
    h = world.blocks.shape[0]
    top_iy = h - 1 - np.argmax(nonair[::-1], axis=0)
    zz, xx = np.indices(top_iy.shape)
    top_block = world.blocks[top_iy, zz, xx]
    snow_t = _table(world.palette, lambda s: s[0] == "minecraft:snow")
    ice_idx = [i for i, nm in enumerate(names) if nm == "minecraft:ice"]
    g = ground_heights(world)
    gblock = world.blocks[g - world.min_y, zz, xx]
    surface: dict[str, int] = {}
    for idx, n in zip(*np.unique(gblock, return_counts=True), strict=True):
        nm = names[int(idx)]
        surface[nm] = surface.get(nm, 0) + int(n)
    if cows is None:
        cows = sum(1 for e in world.entities if e[0] == "minecraft:cow")
    return WorldMeasurements(
        biome=world.biome,
        chunks=chunks,
        ore_blocks={k: int(v.sum()) for k, v in hist.items()},
        trees=trees,
        trees_per_chunk=trees / chunks,
        sugar_cane_columns=len(cane),
        sugar_cane_beside_water=sum(1 for c in cane if c[3]),
        snow_coverage=float(snow_t[top_block].mean()),
        ice_blocks=int(counts[:, ice_idx].sum()) if ice_idx else 0,
        surface_blocks=dict(sorted(surface.items())),
        relief_mean=float(g.mean()),
        relief_std=float(g.std()),
        relief_p5=float(np.percentile(g, 5)),
        relief_p95=float(np.percentile(g, 95)),
        relief_range=int(g.max() - g.min()),
        cows=int(cows),
        spawn=spawn_safety(world, world.spawn) if world.spawn is not None else None,
    )


def dense_from_save(path: str | Path) -> tuple[DenseWorld, int]:
    """Rebuild a :class:`DenseWorld` from an Anvil save (the square of chunks it holds) and count its cows.

    Raises:
        WorldError: Not a save, chunks missing from the square, or more than 255 distinct block states.
    """
    from mirrorcraft.worlds.anvil import Save

    save = Save.open(Path(path))
    positions = save.chunk_positions()
    if not positions:
        raise WorldError(f"{path}: no chunks in region/")
    cxs = [p[0] for p in positions]
    czs = [p[1] for p in positions]
    cx0, cz0 = min(cxs), min(czs)
    ncx, ncz = max(cxs) - cx0 + 1, max(czs) - cz0 + 1
    if len(positions) != ncx * ncz:
        raise WorldError(f"{path}: {len(positions)} chunks do not fill a {ncx}x{ncz} square")
    pal = Palette()
    blocks: np.ndarray | None = None
    biome = None
    min_y = -64
    for cx, cz in positions:
        chunk = save.read_chunk(cx, cz)
        assert chunk is not None
        dense, cpal, cbiomes, bpal = chunk.to_dense(min_y=min_y)
        if blocks is None:
            blocks = np.zeros((dense.shape[0], ncz * 16, ncx * 16), dtype=np.uint8)
        remap = np.array([pal.index(s) for s in cpal], dtype=np.uint8)
        blocks[:, (cz - cz0) * 16 : (cz - cz0) * 16 + 16, (cx - cx0) * 16 : (cx - cx0) * 16 + 16] = remap[
            dense
        ]
        biome = biome or bpal[int(cbiomes[0, 0, 0])]
    assert blocks is not None and biome is not None
    world = DenseWorld(
        blocks=blocks,
        palette=pal,
        x0=cx0 * 16,
        z0=cz0 * 16,
        min_y=min_y,
        ground=np.zeros((ncz * 16, ncx * 16), dtype=np.int16),
        sea_level=63,
        biome=biome,
        spawn=tuple(save.level.spawn),  # type: ignore[arg-type]
    )
    world.ground = ground_heights(world).astype(np.int16)
    cows = 0
    for cx, cz in save.entity_chunk_positions():
        cows += sum(1 for e in save.read_entities(cx, cz) if str(e.get("id")) == "minecraft:cow")
    return world, cows


def measure_save(path: str | Path) -> WorldMeasurements:
    """Measure a save on disk (see :func:`dense_from_save`)."""
    world, cows = dense_from_save(path)
    return measure_world(world, cows=cows)
