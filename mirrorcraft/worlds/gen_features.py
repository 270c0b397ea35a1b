"""Surface feature stages of the biome generator: lakes, trees, leaf distances, sugar cane, snow/ice, cows, spawn.

Role: decorate a :class:`~mirrorcraft.worlds.gen_terrain.DenseWorld` after terrain, caves and ores, in vanilla's
feature order (lakes, vegetation, top-layer modification), from the spec's ``ecology`` and ``surface`` fields.
Trees are stamped from a few precomputed templates per species (simple but recognisable oak / spruce / tall
jungle / bent acacia shapes, logs with ``axis=y``), all trees of a template at once with numpy fancy indexing.
Leaves get vanilla's ``distance`` property computed from the logs (so natural decay behaves as in vanilla).
"""

from __future__ import annotations

import numpy as np

from mirrorcraft.datapacks.biome import BiomeSpec
from mirrorcraft.worlds.gen_noise import stage_rng
from mirrorcraft.worlds.gen_terrain import DenseWorld

__all__ = [
    "TREE_BLOCKS",
    "add_lakes",
    "choose_spawn",
    "freeze_and_snow",
    "place_cows",
    "place_sugar_cane",
    "place_trees",
    "set_leaf_distances",
    "tree_templates",
]

#: log and leaves block per tree species.
TREE_BLOCKS: dict[str, tuple[str, str]] = {
    "oak": ("minecraft:oak_log", "minecraft:oak_leaves"),
    "spruce": ("minecraft:spruce_log", "minecraft:spruce_leaves"),
    "jungle": ("minecraft:jungle_log", "minecraft:jungle_leaves"),
    "acacia": ("minecraft:acacia_log", "minecraft:acacia_leaves"),
}

#: Ground blocks a tree or sugar cane may stand on (vanilla ``#minecraft:dirt`` members we generate; plus sand
#: for sugar cane).
_TREE_SOIL = (
    "minecraft:grass_block",
    "minecraft:dirt",
    "minecraft:podzol",
    "minecraft:coarse_dirt",
    "minecraft:moss_block",
)
_CANE_SOIL = (*_TREE_SOIL, "minecraft:sand")


def _disk(r: float) -> list[tuple[int, int]]:
    ri = int(np.ceil(r))
    return [(dx, dz) for dx in range(-ri, ri + 1) for dz in range(-ri, ri + 1) if dx * dx + dz * dz <= r * r]


def tree_templates(species: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Variants of one species as (log offsets, leaf offsets), each an int array of rows (dy, dz, dx).

    Offsets are relative to the block above the ground (the trunk's first log at dy = 0).
    """
    out: list[tuple[np.ndarray, np.ndarray]] = []

    def pack(
        logs: list[tuple[int, int, int]], leaves: list[tuple[int, int, int]]
    ) -> tuple[np.ndarray, np.ndarray]:
        log_set = set(logs)
        leaves = sorted(set(leaves) - log_set)
        return np.array(sorted(log_set), dtype=np.int64), np.array(leaves, dtype=np.int64)

    if species == "oak":
        for t in (4, 5, 6):
            logs = [(y, 0, 0) for y in range(t)]
            leaves = []
            for y in (t - 3, t - 2):
                leaves += [(y, dz, dx) for dx in range(-2, 3) for dz in range(-2, 3) if abs(dx) + abs(dz) < 4]
            leaves += [(t - 1, dz, dx) for dx in range(-1, 2) for dz in range(-1, 2)]
            leaves += [(t, dz, dx) for dx, dz in _disk(1.0)]
            out.append(pack(logs, leaves))
    elif species == "spruce":
        radii = [0, 1, 1, 2, 1, 2, 3, 2, 3, 2]
        for t in (7, 8, 9, 10):
            logs = [(y, 0, 0) for y in range(t)]
            leaves = [(t, 0, 0)]
            for i, r in enumerate(radii[: t - 2]):
                y = t - i
                leaves += [(y, dz, dx) for dx, dz in _disk(r + 0.5 if r else 0.0)]
            out.append(pack(logs, leaves))
    elif species == "jungle":
        for t in (10, 12, 14, 16):
            logs = [(y, 0, 0) for y in range(t)]
            leaves = []
            for y, r in ((t - 3, 3.3), (t - 2, 3.6), (t - 1, 2.9), (t, 1.9)):
                leaves += [(y, dz, dx) for dx, dz in _disk(r)]
            out.append(pack(logs, leaves))
    elif species == "acacia":
        for t in (3, 4):
            for lean in (1, 2):
                for ddx, ddz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    logs = [(y, 0, 0) for y in range(t)]
                    for i in range(1, lean + 1):
                        logs.append((t - 1 + i, ddz * i, ddx * i))
                    ty, tz, tx = logs[-1]
                    leaves = [(ty + 1, tz + dz, tx + dx) for dx, dz in _disk(3.2)]
                    leaves += [(ty + 2, tz + dz, tx + dx) for dx, dz in _disk(1.6)]
                    out.append(pack(logs, leaves))
    else:
        raise ValueError(f"unknown tree species {species!r}")
    return out


def add_lakes(world: DenseWorld, spec: BiomeSpec, seed: int) -> int:
    """Surface lakes, one per ``surface_lake_rarity`` chunks on average (vanilla ``lake_water`` + rarity filter).

    A lake is an elliptical basin: its water level is the lowest ground height on its rim (so the water is
    always contained), ground above that level inside the basin is removed, water is 2-4 deep and the floor
    is the spec's underwater block. Lakes touching the square's edge or below sea level are skipped.

    Returns:
        Number of lakes made.
    """
    rarity = spec.ecology.surface_lake_rarity
    if rarity == 0:
        return 0
    rng = stage_rng(seed, "lakes")
    n_cx, n_cz = world.size_x // 16, world.size_z // 16
    chosen = np.argwhere(rng.random((n_cz, n_cx)) < 1.0 / rarity)
    pal = world.palette
    water = pal.index("minecraft:water", level="0")
    floor = pal.index(
        spec.surface.underwater_block,
        **({"snowy": "false"} if "grass" in spec.surface.underwater_block else {}),
    )
    made = 0
    for cz, cx in chosen:
        ccx = cx * 16 + rng.integers(0, 16)
        ccz = cz * 16 + rng.integers(0, 16)
        rx, rz = rng.uniform(2.5, 6.5, 2)
        depth = int(rng.integers(2, 5))
        x_lo, x_hi = int(ccx - rx - 2), int(ccx + rx + 3)
        z_lo, z_hi = int(ccz - rz - 2), int(ccz + rz + 3)
        if x_lo < 0 or z_lo < 0 or x_hi > world.size_x or z_hi > world.size_z:
            continue
        zz, xx = np.mgrid[z_lo:z_hi, x_lo:x_hi]
        e = ((xx - ccx) / rx) ** 2 + ((zz - ccz) / rz) ** 2
        inside = e <= 1.0
        rim = (e > 1.0) & (e <= (1.0 + 1.6 / min(rx, rz)) ** 2)
        g = world.ground[z_lo:z_hi, x_lo:x_hi]
        level = int(g[rim].min())
        if level < world.sea_level - 1 or not inside.any():
            continue
        bottom = level - depth
        for iz, ix in zip(zz[inside], xx[inside], strict=True):
            gy = int(world.ground[iz, ix])
            col = world.blocks[:, iz, ix]
            lo_i = bottom + 1 - world.min_y
            col[lo_i : max(gy, level) + 1 - world.min_y] = 0
            col[lo_i : level + 1 - world.min_y] = water
            col[bottom - world.min_y] = floor
            world.ground[iz, ix] = bottom
        made += 1
    return made


def _soil_table(world: DenseWorld, names: tuple[str, ...]) -> np.ndarray:
    return world.palette.where(lambda s: s[0] in names)


def _ground_ok(world: DenseWorld, names: tuple[str, ...]) -> np.ndarray:
    """[z, x] columns whose ground block is in ``names`` and has air above (not under water)."""
    zz, xx = np.indices(world.ground.shape)
    iy = world.ground.astype(np.int64) - world.min_y
    ground_block = world.blocks[iy, zz, xx]
    above = world.blocks[np.minimum(iy + 1, world.blocks.shape[0] - 1), zz, xx]
    return _soil_table(world, names)[ground_block] & (above == 0)


def place_trees(world: DenseWorld, spec: BiomeSpec, seed: int) -> int:
    """Trees per chunk from the spec's weighted count, at uniform positions in the chunk.

    A tree whose spot is not soil with air above (water, gravel, terracotta, another trunk) is a failed
    attempt, as vanilla's placement filters reject it. Leaves only fill air; logs fill air or leaves, so
    overlapping canopies stay intact and every placed trunk is whole. The soil under a trunk becomes dirt.

    Returns:
        Number of trees placed.
    """
    eco = spec.ecology
    rng = stage_rng(seed, "trees")
    n_cx, n_cz = world.size_x // 16, world.size_z // 16
    counts = np.array([t.count for t in eco.trees_per_chunk])
    weights = np.array([t.weight for t in eco.trees_per_chunk], dtype=np.float64)
    per_chunk = rng.choice(counts, size=n_cx * n_cz, p=weights / weights.sum())
    n = int(per_chunk.sum())
    if n == 0:
        return 0
    chunk_idx = np.repeat(np.arange(n_cx * n_cz), per_chunk)
    tx = (chunk_idx % n_cx) * 16 + rng.integers(0, 16, n)
    tz = (chunk_idx // n_cx) * 16 + rng.integers(0, 16, n)
    templates = tree_templates(eco.tree)
    variant = rng.integers(0, len(templates), n)
    ok = _ground_ok(world, _TREE_SOIL)[tz, tx]
    # one trunk per column: later attempts at an occupied column fail
    lin = tz * world.size_x + tx
    _, first = np.unique(lin, return_index=True)
    unique_mask = np.zeros(n, dtype=bool)
    unique_mask[first] = True
    ok &= unique_mask
    ty = world.ground[tz, tx].astype(np.int64) + 1 - world.min_y
    log_name, leaf_name = TREE_BLOCKS[eco.tree]
    log = world.palette.index(log_name, axis="y")
    leaf = world.palette.index(leaf_name, distance="7", persistent="false", waterlogged="false")
    dirt = world.palette.index("minecraft:dirt")
    h, size_z, size_x = world.blocks.shape

    def cells(sel: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cy = (ty[sel][:, None] + offsets[None, :, 0]).ravel()
        cz = (tz[sel][:, None] + offsets[None, :, 1]).ravel()
        cx = (tx[sel][:, None] + offsets[None, :, 2]).ravel()
        inb = (cy >= 0) & (cy < h) & (cz >= 0) & (cz < size_z) & (cx >= 0) & (cx < size_x)
        return cy[inb], cz[inb], cx[inb]

    for v, (_, leaves) in enumerate(templates):
        sel = ok & (variant == v)
        cy, cz, cx = cells(sel, leaves)
        air = world.blocks[cy, cz, cx] == 0
        world.blocks[cy[air], cz[air], cx[air]] = leaf
    for v, (logs, _) in enumerate(templates):
        sel = ok & (variant == v)
        cy, cz, cx = cells(sel, logs)
        free = np.isin(world.blocks[cy, cz, cx], (0, leaf))
        world.blocks[cy[free], cz[free], cx[free]] = log
    world.blocks[ty[ok] - 1, tz[ok], tx[ok]] = dirt
    return int(ok.sum())


def set_leaf_distances(world: DenseWorld, spec: BiomeSpec) -> None:
    """Give every leaf vanilla's ``distance`` (1-7 steps to the nearest log, 7 = unsupported)."""
    log_name, leaf_name = TREE_BLOCKS[spec.ecology.tree]
    pal = world.palette
    placeholder = pal.index(leaf_name, distance="7", persistent="false", waterlogged="false")
    is_log = pal.where(lambda s: s[0].endswith("_log"))
    has_leaf = np.nonzero((world.blocks == placeholder).any(axis=(1, 2)))[0]
    if len(has_leaf) == 0:
        return
    y0, y1 = max(int(has_leaf[0]) - 1, 0), min(int(has_leaf[-1]) + 2, world.blocks.shape[0])
    slab = world.blocks[y0:y1]
    leafy = slab == placeholder
    dist = np.where(is_log[slab], 0, 7).astype(np.uint8)
    for _ in range(6):
        nxt = dist.copy()
        for axis in range(3):
            for shift in (1, -1):
                rolled = np.roll(dist, shift, axis=axis)
                # np.roll wraps around; cells on the wrapped face must not see the opposite face.
                edge = [slice(None)] * 3
                edge[axis] = 0 if shift == 1 else -1
                rolled[tuple(edge)] = 7
                np.minimum(nxt, rolled + 1, out=nxt, where=leafy)
        dist = np.where(leafy, np.minimum(nxt, 7), dist)
    for d in range(1, 8):
        idx = pal.index(leaf_name, distance=str(d), persistent="false", waterlogged="false")
        slab[leafy & (dist == d)] = idx


def place_sugar_cane(world: DenseWorld, spec: BiomeSpec, seed: int) -> int:
    """Sugar cane patches: per chunk ``sugar_cane_attempts`` patches of ``sugar_cane_patch_tries`` tries.

    As vanilla's ``patch_sugar_cane`` (random_patch, xz spread 7): a try lands at centre + (u - v) per axis with
    u, v uniform 0..7, on the ground there; it succeeds only on soil or sand with air above and **a water
    block horizontally adjacent at the soil's level** (vanilla's survival rule). Columns are 1-3 blocks tall
    (the spec's range; vanilla uses 2-4).

    Returns:
        Number of sugar cane columns.
    """
    eco = spec.ecology
    rng = stage_rng(seed, "sugar_cane")
    n_cx, n_cz = world.size_x // 16, world.size_z // 16
    n = n_cx * n_cz * eco.sugar_cane_attempts
    if n == 0:
        return 0
    chunk_idx = np.repeat(np.arange(n_cx * n_cz), eco.sugar_cane_attempts)
    px = (chunk_idx % n_cx) * 16 + rng.integers(0, 16, n)
    pz = (chunk_idx // n_cx) * 16 + rng.integers(0, 16, n)
    k = eco.sugar_cane_patch_tries
    tx = (px[:, None] + rng.integers(0, 8, (n, k)) - rng.integers(0, 8, (n, k))).ravel()
    tz = (pz[:, None] + rng.integers(0, 8, (n, k)) - rng.integers(0, 8, (n, k))).ravel()
    height = rng.integers(1, 4, n * k)
    h, size_z, size_x = world.blocks.shape
    inb = (tx >= 1) & (tx < size_x - 1) & (tz >= 1) & (tz < size_z - 1)
    tx, tz, height = tx[inb], tz[inb], height[inb]
    soil_ok = _ground_ok(world, _CANE_SOIL)[tz, tx]
    gy = world.ground[tz, tx].astype(np.int64) - world.min_y
    is_water = world.palette.where(lambda s: s[0] == "minecraft:water")
    wet = np.zeros(len(tx), dtype=bool)
    for dz, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        wet |= is_water[world.blocks[gy, tz + dz, tx + dx]]
    ok = soil_ok & wet
    lin = tz * size_x + tx
    _, first = np.unique(np.where(ok, lin, -1), return_index=True)
    keep = np.zeros(len(tx), dtype=bool)
    keep[first] = True
    ok &= keep
    cane = world.palette.index("minecraft:sugar_cane", age="0")
    for d in range(1, 4):
        sel = ok & (height >= d) & (gy + d < h)
        free = world.blocks[gy[sel] + d, tz[sel], tx[sel]] == 0
        world.blocks[gy[sel][free] + d, tz[sel][free], tx[sel][free]] = cane
    return int(ok.sum())


def freeze_and_snow(world: DenseWorld, spec: BiomeSpec) -> dict[str, int]:
    """Snowy Plains' top-layer modification (vanilla ``freeze_top_layer``): ice on surface water, snow layers.

    Surface water becomes ice, except water next to a sugar cane's soil, which stays liquid so the cane keeps
    its survival condition (a vanilla world would pop that cane at the first block update). Every column whose
    top block is a full block or leaves gets one snow layer on top; grass and podzol under snow get
    ``snowy=true``.

    Returns:
        Counts of ``ice`` and ``snow`` blocks placed.
    """
    s = spec.surface
    out = {"ice": 0, "snow": 0}
    if not (s.snow_layers or s.freeze_water):
        return out
    pal = world.palette
    h = world.blocks.shape[0]
    nonair = world.blocks != 0
    # index of the highest non-air block per column
    top_iy = h - 1 - np.argmax(nonair[::-1], axis=0)
    zz, xx = np.indices(top_iy.shape)
    top_block = world.blocks[top_iy, zz, xx]
    water = pal.index("minecraft:water", level="0")
    if s.freeze_water:
        cane = pal.index("minecraft:sugar_cane", age="0")
        cane_here = (world.blocks == cane).any(axis=0)
        near_cane = np.zeros_like(cane_here)
        for dz, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
            near_cane |= np.roll(cane_here, (dz, dx), axis=(0, 1))
        freeze = (top_block == water) & ~near_cane
        world.blocks[top_iy[freeze], zz[freeze], xx[freeze]] = pal.index("minecraft:ice")
        out["ice"] = int(freeze.sum())
        top_block = world.blocks[top_iy, zz, xx]
    if s.snow_layers:
        snowable = pal.where(
            lambda st: (
                st[0]
                not in (
                    "minecraft:air",
                    "minecraft:water",
                    "minecraft:ice",
                    "minecraft:sugar_cane",
                    "minecraft:lava",
                )
            )
        )
        ok = snowable[top_block] & (top_iy + 1 < h)
        world.blocks[top_iy[ok] + 1, zz[ok], xx[ok]] = pal.index("minecraft:snow", layers="1")
        for name in ("minecraft:grass_block", "minecraft:podzol"):
            plain = pal.index(name, snowy="false")
            under = ok & (top_block == plain)
            world.blocks[top_iy[under], zz[under], xx[under]] = pal.index(name, snowy="true")
        out["snow"] = int(ok.sum())
    return out


def place_cows(world: DenseWorld, spec: BiomeSpec, seed: int) -> int:
    """Creature groups at generation time (vanilla ``spawnMobsForChunkGeneration``, simplified).

    Each chunk gets a group with ``creature_spawn_probability``; the entry is chosen by weight, the group size
    uniformly in [min_count, max_count], members within 4 blocks of a random centre on grass with two blocks
    of headroom (no water, no trees). Members that find no valid spot are dropped.

    Returns:
        Number of entities added to ``world.entities``.
    """
    eco = spec.ecology
    rng = stage_rng(seed, "creatures")
    pal = world.palette
    grass = pal.where(lambda s: s[0] == "minecraft:grass_block")
    passable = pal.where(lambda s: s[0] in ("minecraft:air", "minecraft:snow"))
    h = world.blocks.shape[0]
    weights = np.array([c.weight for c in eco.creatures], dtype=np.float64)
    n_cx, n_cz = world.size_x // 16, world.size_z // 16
    added = 0
    for ci in range(n_cx * n_cz):
        if rng.random() >= eco.creature_spawn_probability:
            continue
        entry = eco.creatures[int(rng.choice(len(eco.creatures), p=weights / weights.sum()))]
        count = int(rng.integers(entry.min_count, entry.max_count + 1))
        cx0, cz0 = (ci % n_cx) * 16 + int(rng.integers(0, 16)), (ci // n_cx) * 16 + int(rng.integers(0, 16))
        for _ in range(count):
            for _try in range(6):
                x = int(np.clip(cx0 + rng.integers(-4, 5), 0, world.size_x - 1))
                z = int(np.clip(cz0 + rng.integers(-4, 5), 0, world.size_z - 1))
                gy = int(world.ground[z, x]) - world.min_y
                if gy + 2 >= h or not grass[world.blocks[gy, z, x]]:
                    continue
                if not (passable[world.blocks[gy + 1, z, x]] and passable[world.blocks[gy + 2, z, x]]):
                    continue
                uuid = [int(v) for v in rng.integers(-(2**31), 2**31, 4)]
                yaw = float(rng.uniform(0, 360))
                world.entities.append(
                    (
                        entry.type,
                        (world.x0 + x + 0.5, float(gy + 1 + world.min_y), world.z0 + z + 0.5),
                        yaw,
                        uuid,
                    )
                )
                added += 1
                break
    return added


def choose_spawn(world: DenseWorld, max_radius: int = 64) -> tuple[int, int, int]:
    """A dry, safe, grass-topped spawn closest to the world origin.

    Conditions on a column: ground is grass (snowy or not); the two blocks above are air or a snow layer;
    no water, ice or lava at ground level within 2 blocks; ground heights within 1 block over the 3x3
    neighbourhood; no log or leaves in the 5x5 area from the feet up to 3 blocks above the head.

    Raises:
        WorldError: no such column within ``max_radius`` of the origin.
    """
    from mirrorcraft.errors import WorldError

    pal = world.palette
    g = world.ground.astype(np.int64)
    zz, xx = np.indices(g.shape)
    iy = g - world.min_y
    h = world.blocks.shape[0]
    grass = pal.where(lambda s: s[0] == "minecraft:grass_block")[world.blocks[iy, zz, xx]]
    passable = pal.where(lambda s: s[0] in ("minecraft:air", "minecraft:snow"))
    head = (
        passable[world.blocks[np.minimum(iy + 1, h - 1), zz, xx]]
        & passable[world.blocks[np.minimum(iy + 2, h - 1), zz, xx]]
    )
    fluid = pal.where(lambda s: s[0] in ("minecraft:water", "minecraft:ice", "minecraft:lava"))
    tree = pal.where(lambda s: s[0].endswith(("_log", "_leaves")))
    ok = grass & head
    pad = 2
    for dz in range(-pad, pad + 1):
        for dx in range(-pad, pad + 1):
            sz = np.clip(zz + dz, 0, g.shape[0] - 1)
            sx = np.clip(xx + dx, 0, g.shape[1] - 1)
            ok &= ~fluid[world.blocks[iy, sz, sx]]
            ok &= ~fluid[world.blocks[np.minimum(iy + 1, h - 1), sz, sx]]
            if abs(dz) <= 1 and abs(dx) <= 1:
                ok &= np.abs(g[sz, sx] - g) <= 1
            for up in range(1, 6):
                ok &= ~tree[world.blocks[np.minimum(iy + up, h - 1), sz, sx]]
    wx = xx + world.x0
    wz = zz + world.z0
    d2 = wx.astype(np.int64) ** 2 + wz.astype(np.int64) ** 2
    d2 = np.where(ok & (d2 <= max_radius * max_radius), d2, np.iinfo(np.int64).max)
    best = np.unravel_index(int(np.argmin(d2)), d2.shape)
    if d2[best] == np.iinfo(np.int64).max:
        raise WorldError(f"no dry, grass-topped, safe spawn column within {max_radius} blocks of the origin")
    z, x = int(best[0]), int(best[1])
    return (x + world.x0, int(g[z, x]) + 1, z + world.z0)
