"""Terrain stages of the biome generator: relief, stone/deepslate, bedrock, water, surface, caves, ores.

Role: fill the dense block array of a :class:`DenseWorld` from a :class:`~mirrorcraft.datapacks.biome.BiomeSpec`.
Everything is vectorised numpy over the whole pregenerated square (512 x 512 columns x 384 blocks at the default
radius; one ``uint8`` palette index per block, ~100 MB), because per-chunk Python loops would miss the
40-seconds-per-world budget by two orders of magnitude.

Relief: the paper's density is ``final_scale * (gradient(y) + w_c * contour(x,z) + w_u * undulation(x,z))`` with
a gradient of +1 at ``Y=a`` and -1 at ``Y=b`` and *two-dimensional* (flat-cached) noises. Such a density is
monotone in y, so the solid/air boundary of each column is the single height where it crosses zero:
``a + (b - a) * (1 + N) / 2`` with ``N = w_c * contour + w_u * undulation``. The final scale multiplies the whole
density and therefore does not move that boundary (it matters in vanilla only where other density terms are
added); we keep it in the spec and the report but it has no effect on our terrain. Our noises are normalised to
a standard deviation of about 0.4 (``TERRAIN_NOISE_GAIN``), a stand-in for vanilla's ``NormalNoise`` scaling,
which we cannot reproduce without the game's code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mirrorcraft.datapacks.biome import BiomeSpec, OreBand
from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.gen_noise import octave_noise_2d, stage_rng

__all__ = ["BlockState", "DenseWorld", "Palette", "TERRAIN_NOISE_GAIN", "SURFACE_NOISE_GAIN", "build_terrain"]

BlockState = tuple[str, tuple[tuple[str, str], ...]]

#: Gain applied to the normalised octave noises of the relief (std of one field ~0.4 after it).
TERRAIN_NOISE_GAIN = 1.6
#: Ponds stand this many blocks below the spill height of their depression (see :func:`water_levels`).
AQUIFER_POND_FREEBOARD = 2
#: Gain of the surface noise, clipped to [-1, 1] (std ~0.5, so the paper's patch intervals all occur).
SURFACE_NOISE_GAIN = 2.8

AIR = ("minecraft:air", ())


class Palette:
    """The generator's block-state palette (at most 256 states, so blocks fit in ``uint8``)."""

    def __init__(self) -> None:
        self.states: list[BlockState] = []
        self._index: dict[BlockState, int] = {}
        self.index(AIR)  # index 0 is air, so np.zeros() is an empty world

    def index(self, name: str | BlockState, **props: str) -> int:
        """The index of ``name`` with ``props`` (added if new)."""
        if isinstance(name, tuple):
            state = name
        else:
            state = (name, tuple(sorted((k, str(v)) for k, v in props.items())))
        got = self._index.get(state)
        if got is None:
            if len(self.states) >= 255:
                raise WorldError(f"generator palette overflow adding {state}")
            got = len(self.states)
            self.states.append(state)
            self._index[state] = got
        return got

    def names(self) -> list[str]:
        """Block names by index."""
        return [s[0] for s in self.states]

    def where(self, predicate: Callable[[BlockState], bool]) -> np.ndarray:
        """A boolean lookup table over the palette (length 256) for ``predicate(state)``."""
        table = np.zeros(256, dtype=bool)
        for i, s in enumerate(self.states):
            table[i] = bool(predicate(s))
        return table


@dataclass
class DenseWorld:
    """The whole pregenerated square as one dense array.

    Attributes:
        blocks: uint8 ``[y - min_y, z - z0, x - x0]`` indices into ``palette``.
        palette: the block states.
        x0, z0: world coordinates of index (0, 0).
        min_y: world y of index 0 (-64).
        ground: int16 ``[z, x]`` world y of the top terrain block (after lakes; trees not included).
        sea_level: the spec's sea level (water fills y < sea_level).
        biome: the vanilla biome id for every biome cell.
        entities: generated creatures as ``(entity type, (x, y, z) feet position, yaw, uuid as 4 ints)``.
        spawn: the chosen spawn block position, once known.
        stats: counts and per-stage seconds recorded by the pipeline.
    """

    blocks: np.ndarray
    palette: Palette
    x0: int
    z0: int
    min_y: int
    ground: np.ndarray
    sea_level: int
    biome: str
    entities: list = field(default_factory=list)
    spawn: tuple[int, int, int] | None = None
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def size_x(self) -> int:
        return self.blocks.shape[2]

    @property
    def size_z(self) -> int:
        return self.blocks.shape[1]

    def block_at(self, x: int, y: int, z: int) -> BlockState:
        """The block state at world coordinates (raises WorldError outside the square)."""
        iy, iz, ix = y - self.min_y, z - self.z0, x - self.x0
        if not (0 <= iy < self.blocks.shape[0] and 0 <= iz < self.size_z and 0 <= ix < self.size_x):
            raise WorldError(f"({x}, {y}, {z}) is outside the generated area")
        return self.palette.states[int(self.blocks[iy, iz, ix])]


def relief(spec: BiomeSpec, seed: int, xs: np.ndarray, zs: np.ndarray) -> np.ndarray:
    """Top solid y of every column ``[z, x]`` from the gradient + noise density (see module docstring)."""
    t = spec.terrain
    contour = octave_noise_2d(
        xs, zs, seed, "contour", t.contour_first_octave, t.contour_amplitudes, TERRAIN_NOISE_GAIN
    )
    undulation = octave_noise_2d(
        xs, zs, seed, "undulation", t.undulation_first_octave, t.undulation_amplitudes, TERRAIN_NOISE_GAIN
    )
    n = t.contour_weight * contour + t.undulation_weight * undulation
    # density(y) > 0  <=>  1 - 2 (y - a) / (b - a) > -n  <=>  y < a + (b - a) (1 + n) / 2
    iso = t.gradient_top + (t.gradient_bottom - t.gradient_top) * (1.0 + np.clip(n, -1.0, 1.0)) / 2.0
    top = np.ceil(iso).astype(np.int16) - 1
    return np.clip(top, t.min_y + 8, t.max_y - 40)


def surface_noise(spec: BiomeSpec, seed: int, xs: np.ndarray, zs: np.ndarray) -> np.ndarray:
    """The surface noise in [-1, 1] that selects patches."""
    s = spec.surface
    raw = octave_noise_2d(
        xs, zs, seed, "surface", s.surface_noise_first_octave, s.surface_noise_amplitudes, SURFACE_NOISE_GAIN
    )
    return np.clip(raw, -1.0, 1.0)


def water_levels(ground: np.ndarray, sea_level: int, pond_freeboard: int | None) -> np.ndarray:
    """[z, x] world y of the top water block over each column (below the ground where there is none).

    The sea fills every column whose ground is below ``sea_level - 1`` up to ``sea_level - 1``. With
    ``pond_freeboard`` set (``terrain.aquifers``), closed depressions of the ground also hold water: the spill
    height of every column is found by morphological reconstruction by erosion (repeatedly lowering a
    full-height surface to the max of the ground and its 4-neighbours' minimum, with the square's edge and the
    sea as outlets), and the water stands ``pond_freeboard`` blocks below it. Any level at or below the spill
    height is contained by the terrain, so no water can flow out when a server updates the blocks. This is
    our stand-in for the surface pools that vanilla's aquifers create in low ground.
    """
    g = ground.astype(np.int32)
    sea_top = sea_level - 1
    level = np.where(g < sea_top, sea_top, np.iinfo(np.int32).min // 2)
    if pond_freeboard is None:
        return np.where(g < sea_top, sea_top, g - 1)
    base = np.maximum(g, sea_top)
    spill = np.full_like(g, np.iinfo(np.int32).max // 2)
    spill[0, :], spill[-1, :], spill[:, 0], spill[:, -1] = base[0, :], base[-1, :], base[:, 0], base[:, -1]
    while True:
        m = spill.copy()
        np.minimum(m[1:, :], spill[:-1, :], out=m[1:, :])
        np.minimum(m[:-1, :], spill[1:, :], out=m[:-1, :])
        np.minimum(m[:, 1:], spill[:, :-1], out=m[:, 1:])
        np.minimum(m[:, :-1], spill[:, 1:], out=m[:, :-1])
        np.maximum(m, base, out=m)
        if np.array_equal(m, spill):
            break
        spill = m
    pond = spill - pond_freeboard
    level = np.maximum(level, np.where(g < pond, pond, level))
    return np.where(level > g, level, g - 1)


def _block_state(pal: Palette, name: str) -> int:
    if name in ("minecraft:grass_block", "minecraft:podzol", "minecraft:mycelium"):
        return pal.index(name, snowy="false")
    if name == "minecraft:deepslate":
        return pal.index(name, axis="y")
    return pal.index(name)


def build_terrain(spec: BiomeSpec, seed: int, x0: int, z0: int, size_x: int, size_z: int) -> DenseWorld:
    """Stages 1-3: relief, rock, bedrock, sea water and surface blocks (no caves, ores or features yet).

    Args:
        spec: the biome spec.
        seed: world seed.
        x0, z0: world coordinates of the square's north-west corner (multiples of 16).
        size_x, size_z: square size in blocks (multiples of 16).

    Returns:
        A :class:`DenseWorld` with terrain filled.
    """
    t = spec.terrain
    height = t.max_y - t.min_y + 1
    pal = Palette()
    xs = np.arange(x0, x0 + size_x)
    zs = np.arange(z0, z0 + size_z)
    top = relief(spec, seed, xs, zs)
    ys = np.arange(t.min_y, t.max_y + 1, dtype=np.int16)

    stone = _block_state(pal, spec.surface.deep_block)
    deep = _block_state(pal, spec.surface.deep_block_below_zero)
    blocks = np.zeros((height, size_z, size_x), dtype=np.uint8)
    solid = ys[:, None, None] <= top[None, :, :]
    blocks[solid] = stone

    # Deepslate below deepslate_top, blended over deepslate_transition blocks above it (vanilla's
    # vertical_gradient surface rule: probability falls linearly from 1 to 0 over Y 0..8).
    rng = stage_rng(seed, "rock")
    lo = t.deepslate_top - t.min_y
    blocks[:lo][solid[:lo]] = deep
    for k in range(t.deepslate_transition):
        iy = lo + k
        p = 1.0 - (k + 1) / (t.deepslate_transition + 1)
        layer = blocks[iy]
        mask = (layer == stone) & (rng.random(layer.shape) < p)
        layer[mask] = deep

    # Bedrock floor: solid at the bottom, then probability 4/5 .. 1/5 up to 4 blocks (vanilla bedrock_floor).
    bedrock = pal.index("minecraft:bedrock")
    blocks[0] = bedrock
    for k in range(1, 5):
        layer = blocks[k]
        layer[rng.random(layer.shape) < (5 - k) / 5] = bedrock

    # Sea (air below sea level, top water block at sea_level - 1) and, with aquifers on, surface ponds.
    water = pal.index("minecraft:water", level="0")
    water_top = water_levels(top, t.sea_level, AQUIFER_POND_FREEBOARD if t.aquifers else None)
    wet_cells = (ys[:, None, None] <= water_top[None, :, :]) & ~solid
    blocks[wet_cells] = water
    del wet_cells, solid

    world = DenseWorld(
        blocks=blocks,
        palette=pal,
        x0=x0,
        z0=z0,
        min_y=t.min_y,
        ground=top.copy(),
        sea_level=t.sea_level,
        biome=spec.biome,
    )
    _paint_surface(world, spec, seed, xs, zs)
    return world


def _paint_surface(world: DenseWorld, spec: BiomeSpec, seed: int, xs: np.ndarray, zs: np.ndarray) -> None:
    s = spec.surface
    pal = world.palette
    top = world.ground
    iy_above = np.minimum(top.astype(np.int64) + 1 - world.min_y, world.blocks.shape[0] - 1)
    zz, xx = np.indices(top.shape)
    wet = world.blocks[iy_above, zz, xx] != 0  # water above the ground block
    noise = surface_noise(spec, seed, xs, zs)
    top_idx = np.full(top.shape, _block_state(pal, s.top_block), dtype=np.uint8)
    for patch in s.patches:
        idx = _block_state(pal, patch.block)
        for lo, hi in patch.intervals:
            top_idx[(noise >= lo) & (noise <= hi)] = idx
    top_idx[wet] = _block_state(pal, s.underwater_block)
    under = _block_state(pal, s.under_block)
    iy = top.astype(np.int64) - world.min_y
    world.blocks[iy, zz, xx] = top_idx
    for d in range(1, s.under_depth + 1):
        world.blocks[iy - d, zz, xx] = np.where(iy - d > 4, under, world.blocks[iy - d, zz, xx])
    world.stats["surface_noise_patch_columns"] = int((top_idx != _block_state(pal, s.top_block)).sum())


# --------------------------------------------------------------------------------------------- caves


def _sphere_offsets(r: int) -> np.ndarray:
    g = np.arange(-r, r + 1)
    dy, dz, dx = np.meshgrid(g, g, g, indexing="ij")
    keep = dx * dx + dy * dy + dz * dz <= r * r + r
    return np.stack([dy[keep], dz[keep], dx[keep]], axis=1)


def carve_caves(world: DenseWorld, seed: int, chunk_probability: float = 0.15, roof: int = 6) -> int:
    """Worm caves: random-walk tunnels of spheres, never within ``roof`` blocks of the ground surface.

    A simplification of vanilla's ``minecraft:cave`` carver (probability 0.15 per chunk): each selected chunk
    starts 1-3 tunnels of 40-120 steps at Y -56..40 with radius 1-3. Carved cells below Y -55 become lava
    (vanilla's carver lava level). Because the roof rule keeps every tunnel under the terrain, caves never
    open at the surface, which keeps the spawn area (and every surface route) intact.

    Returns:
        Number of tunnels.
    """
    rng = stage_rng(seed, "caves")
    n_cx, n_cz = world.size_x // 16, world.size_z // 16
    chosen = np.argwhere(rng.random((n_cz, n_cx)) < chunk_probability)
    starts = []
    for cz, cx in chosen:
        for _ in range(int(rng.integers(1, 4))):
            starts.append(
                (cx * 16 + rng.random() * 16, rng.uniform(-56, 40) - world.min_y, cz * 16 + rng.random() * 16)
            )
    if not starts:
        return 0
    n = len(starts)
    steps = 120
    pos = np.array(starts, dtype=np.float64)  # (n, 3) as (x, iy, z)
    yaw = rng.uniform(0, 2 * np.pi, n)
    pitch = rng.uniform(-0.3, 0.3, n)
    length = rng.integers(40, steps + 1, n)
    radius_base = rng.uniform(1.0, 2.6, n)
    pts, rads = [], []
    for s in range(steps):
        alive = s < length
        r = np.clip(np.rint(radius_base + 0.8 * np.sin(s / 9.0 + radius_base * 3)), 1, 3).astype(np.int64)
        pts.append(np.rint(pos[alive]).astype(np.int64))
        rads.append(r[alive])
        yaw += rng.normal(0, 0.25, n)
        pitch = np.clip(pitch * 0.8 + rng.normal(0, 0.12, n), -0.6, 0.6)
        pos[:, 0] += np.cos(yaw) * np.cos(pitch)
        pos[:, 2] += np.sin(yaw) * np.cos(pitch)
        pos[:, 1] += np.sin(pitch)
    p = np.concatenate(pts)
    r = np.concatenate(rads)
    lava = world.palette.index("minecraft:lava", level="0")
    h, zs, xs = world.blocks.shape
    for rad in (1, 2, 3):
        sel = p[r == rad]
        if len(sel) == 0:
            continue
        off = _sphere_offsets(rad)
        cells = sel[:, None, [1, 2, 0]] + off[None]  # (P, K, [iy, iz, ix])
        cells = cells.reshape(-1, 3)
        ok = (
            (cells[:, 0] >= 5)
            & (cells[:, 0] < h)
            & (cells[:, 1] >= 0)
            & (cells[:, 1] < zs)
            & (cells[:, 2] >= 0)
            & (cells[:, 2] < xs)
        )
        cells = cells[ok]
        roof_ok = cells[:, 0] + world.min_y < world.ground[cells[:, 1], cells[:, 2]] - roof
        cells = cells[roof_ok]
        fill = np.where(cells[:, 0] + world.min_y < -55, lava, 0).astype(np.uint8)
        world.blocks[cells[:, 0], cells[:, 1], cells[:, 2]] = fill
    return n


# ---------------------------------------------------------------------------------------------- ores


def _origin_heights(rng: np.random.Generator, band: OreBand, n: int) -> np.ndarray:
    if band.distribution == "uniform":
        return rng.integers(band.min_y, band.max_y + 1, n)
    # vanilla trapezoid(min, max, plateau 0): the sum of two uniforms over half the range.
    span = band.max_y - band.min_y
    half = span // 2
    return band.min_y + rng.integers(0, half + 1, n) + rng.integers(0, span - half + 1, n)


def place_ores(world: DenseWorld, spec: BiomeSpec, seed: int) -> dict[str, int]:
    """Ore blobs for every band (vanilla placements first, then the custom bands, as in the paper's lists).

    Per band and chunk: ``attempts`` origins (a batch every ``rarity`` chunks on average), x/z uniform in the
    chunk (``in_square``), y from the band's distribution (inclusive). Each blob is ``size`` points drawn
    around the origin with a spread growing with size^(1/3); points that land on stone become the ore, on
    deepslate the deepslate variant, anything else is left alone (so blobs never replace other ores, air or
    dirt; realised blocks per attempt are <= size, as in vanilla). Origins outside the world are failed
    attempts. Air-exposure discard is not simulated (0.0 for the custom bands).

    Returns:
        Blocks placed per band name.
    """
    pal = world.palette
    stone = _block_state(pal, spec.surface.deep_block)
    deep = _block_state(pal, spec.surface.deep_block_below_zero)
    h, size_z, size_x = world.blocks.shape
    n_cx, n_cz = size_x // 16, size_z // 16
    placed: dict[str, int] = {}
    for band in [*spec.resources.vanilla_placements, *spec.resources.custom_bands]:
        rng = stage_rng(seed, f"ore_{band.name}")
        chunk_on = rng.random(n_cx * n_cz) < 1.0 / band.rarity
        per_chunk = np.where(chunk_on, band.attempts, 0)
        n = int(per_chunk.sum())
        if n == 0:
            placed[band.name] = 0
            continue
        chunk_idx = np.repeat(np.arange(n_cx * n_cz), per_chunk)
        ox = (chunk_idx % n_cx) * 16 + rng.integers(0, 16, n)
        oz = (chunk_idx // n_cx) * 16 + rng.integers(0, 16, n)
        oy = _origin_heights(rng, band, n) - world.min_y
        spread = max(0.55, 0.42 * band.size ** (1 / 3))
        off = np.rint(rng.normal(0.0, spread, (n, band.size, 3))).astype(np.int64)
        cy = (oy[:, None] + off[:, :, 0]).ravel()
        cz = (oz[:, None] + off[:, :, 1]).ravel()
        cx = (ox[:, None] + off[:, :, 2]).ravel()
        # A blob whose origin is outside the world is a failed attempt (vanilla places nothing).
        origin_ok = np.repeat((oy >= 0) & (oy < h), band.size)
        ok = origin_ok & (cy >= 0) & (cy < h) & (cz >= 0) & (cz < size_z) & (cx >= 0) & (cx < size_x)
        cy, cz, cx = cy[ok], cz[ok], cx[ok]
        if len(cy) == 0:
            placed[band.name] = 0
            continue
        ore = pal.index(band.block)
        ore_deep = pal.index(band.deepslate_block)
        # A blob's points may coincide, so count real blocks as the change of ore blocks in the touched slab
        # (cheaper than de-duplicating millions of points).
        slab = world.blocks[int(cy.min()) : int(cy.max()) + 1]
        kinds = {ore, ore_deep}
        before = sum(np.count_nonzero(slab == k) for k in kinds)
        target = world.blocks[cy, cz, cx]
        on_stone = target == stone
        on_deep = target == deep
        world.blocks[cy[on_stone], cz[on_stone], cx[on_stone]] = ore
        world.blocks[cy[on_deep], cz[on_deep], cx[on_deep]] = ore_deep
        after = sum(np.count_nonzero(slab == k) for k in kinds)
        placed[band.name] = int(after - before)
    return placed
