"""The built-in ``sandbox`` world: a small, deterministic 1.19.2 save for tests and scripted routes.

Every resource the benchmark's tech tree needs is within ~16 blocks of spawn, so a bot (or a scripted
route) can exercise wood -> stone -> iron -> diamond without exploring:

* 9x9 chunks (-4..4) centred on spawn ``(8, 65, 8)``, world border 144 blocks centred on (8, 8);
* bedrock at y=-64, deepslate -63..-1, stone 0..60, dirt 61..63 and grass at y=64 (flat), plus a small
  grassy hill to the north-west whose centre moves a little with the seed;
* a quarry pit east of spawn (x 13..19, z 5..11, floor top at y=57) with a one-block staircase on its
  north side, stone walls, coal and iron ore in the east wall, lapis in the south wall, obsidian in the
  floor, and two diamond ores two blocks under the floor;
* a 5x4 water pool (2 deep, sand bottom and rim) south-west of spawn with sugar cane on the rim;
* five oak trees 6..18 blocks from spawn (seeded positions, 4..6 logs, leaves with vanilla ``distance``
  values) and four cows.

Sky light is computed per column only (15 minus the opacity of everything above: leaves and water take
1, solid blocks 15); there is no sideways propagation, which is exact for this world because it has no
overhangs, and ``isLightOn`` is set so servers use it. Block light is not stored (no light sources).

The layout facts are returned as :class:`SandboxInfo` and written to ``sandbox.json`` beside
``level.dat``. That file is world metadata for tests and the harness, never shown to agents.
Same seed -> byte-identical files (region timestamps are 0, gzip mtime is 0).
"""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil import (
    BlockState,
    Chunk,
    LevelData,
    Save,
    entity_nbt_cow,
    make_state,
    uuid_to_ints,
)
from mirrorcraft.worlds.anvil.region import atomic_write

MIN_Y = -64
HEIGHT = 384
CHUNK_RADIUS = 4
SPAWN = (8, 65, 8)
SURFACE_Y = 64
X0 = Z0 = -CHUNK_RADIUS * 16  # world x/z of dense index 0
SIZE = (2 * CHUNK_RADIUS + 1) * 16

PIT = (13, 5, 19, 11)  # x0, z0, x1, z1 inclusive: the pit interior
PIT_FLOOR_Y = 57  # top solid block of the pit floor
POOL = (-2, 13, 2, 16)  # x0, z0, x1, z1 inclusive: water surface
# The first entries are the original layout (other tests use e.g. ``ores["iron_ore"][0]``); the rest were
# added so every scripted route has margin under every suite (docs/anvil.md "sandbox"): M01 needs 12 raw
# iron for iron boots and 9 for an iron pickaxe, Enchantment 5 diamonds and 4 obsidian.
_WEST_IRON = [(12, y, z) for z in range(6, 12) for y in (58, 59)]  # west wall, facing the pit
ORES: dict[str, list[tuple[int, int, int]]] = {
    "coal_ore": [(20, 59, 7), (20, 60, 7), (20, 59, 8), (20, 58, 9)]
    + [(20, 60, 8), (20, 59, 9), (20, 60, 9), (20, 59, 10)],
    "iron_ore": [(20, 58, 10), (20, 59, 11), (20, 58, 11)] + _WEST_IRON,
    "lapis_ore": [(15, 58, 12), (16, 58, 12), (16, 59, 12)] + [(17, 58, 12), (17, 59, 12)],
    "obsidian": [(15, 57, 8), (16, 57, 8)] + [(15, 57, 9), (16, 57, 9), (14, 57, 8), (14, 57, 9)],
    # two buried two blocks under the floor (mined by tunnelling), six set in the floor: once the floor
    # around them is broken the buried pair can be out of the mine skill's reach, so the 5 diamonds
    # Enchantment needs come from the exposed ones
    "diamond_ore": [(17, 55, 9), (17, 55, 10)]
    + [(13, 57, 10), (13, 57, 11), (19, 57, 9), (19, 57, 10), (18, 57, 11), (19, 57, 11)],
}
N_TREES = 5
TREE_RADIUS = 18  # trees stand 6..18 blocks (horizontally) from spawn
CANE_SPOTS = [(-3, 14, 3), (-3, 15, 2), (3, 14, 2), (0, 17, 3), (1, 12, 2)] + [
    (-3, 16, 3),
    (3, 15, 3),
    (-1, 12, 3),
    (2, 17, 3),
]  # (x, z, height) on the rim
COW_SPOTS = [(3.5, 2.5), (5.5, 0.5), (1.5, 4.5), (10.5, -1.5)]

PALETTE: list[BlockState] = [
    make_state("air"),
    make_state("bedrock"),
    make_state("deepslate", {"axis": "y"}),
    make_state("stone"),
    make_state("dirt"),
    make_state("grass_block", {"snowy": "false"}),
    make_state("oak_log", {"axis": "y"}),
    make_state("water", {"level": "0"}),
    make_state("sand"),
    make_state("sugar_cane", {"age": "0"}),
    make_state("coal_ore"),
    make_state("iron_ore"),
    make_state("lapis_ore"),
    make_state("diamond_ore"),
    make_state("obsidian"),
] + [
    make_state("oak_leaves", {"distance": str(d), "persistent": "false", "waterlogged": "false"})
    for d in range(1, 8)
]
_ID = {
    state[0].removeprefix("minecraft:"): i
    for i, state in enumerate(PALETTE)
    if state[0] != "minecraft:oak_leaves"
}
LEAVES_BASE = len(PALETTE) - 7  # index of distance=1
# Sky-light opacity per palette entry (vanilla: leaves and water dim sky light by 1, solids block it).
_OPACITY = np.array(
    [
        0 if s[0] in ("minecraft:air", "minecraft:sugar_cane") else 1 if s[0] in ("minecraft:water",) else 15
        for s in PALETTE
    ],
    dtype=np.int16,
)
_OPACITY[LEAVES_BASE:] = 1


class CowInfo(BaseModel):
    """One cow: its UUID (string form) and feet position."""

    uuid: str
    pos: tuple[float, float, float]


class TreeInfo(BaseModel):
    """One oak tree: the lowest log and the number of logs."""

    base: tuple[int, int, int]
    logs: int


class SandboxInfo(BaseModel):
    """Layout facts of a sandbox build (``sandbox.json``); for tests and the harness, never for agents."""

    seed: int
    spawn: tuple[int, int, int]
    border_center: tuple[float, float]
    border_size: float
    chunks: tuple[int, int, int, int]  # cx0, cz0, cx1, cz1 inclusive
    surface_y: int
    ores: dict[str, list[tuple[int, int, int]]]
    pit: tuple[int, int, int, int]
    pit_floor_y: int
    pool: tuple[int, int, int, int]
    pool_surface_y: int
    sugar_cane: list[tuple[int, int, int]]  # bottom cane block of each stalk
    trees: list[TreeInfo]
    hill_center: tuple[int, int]
    hill_top_y: int
    cows: list[CowInfo]


def _idx(x: int, z: int) -> tuple[int, int]:
    return z - Z0, x - X0


def _set(world: np.ndarray, x: int, y: int, z: int, block: int) -> None:
    iz, ix = _idx(x, z)
    world[y - MIN_Y, iz, ix] = block


def _terrain(heights: np.ndarray) -> np.ndarray:
    """Dense [y, z, x] world with the layered ground up to each column's height."""
    ys = np.arange(MIN_Y, MIN_Y + HEIGHT).reshape(-1, 1, 1)
    h = heights.reshape(1, SIZE, SIZE)
    world = np.where(
        ys < h - 3, _ID["stone"], np.where(ys < h, _ID["dirt"], np.where(ys == h, _ID["grass_block"], 0))
    )
    world = world.astype(np.uint16)
    world[:-MIN_Y] = _ID["deepslate"]  # y -64..-1
    world[0] = _ID["bedrock"]
    return world


def _carve_pit(world: np.ndarray) -> None:
    x0, z0, x1, z1 = PIT
    for x in range(x0, x1 + 1):
        for z in range(z0, z1 + 1):
            top = PIT_FLOOR_Y
            if z == z0:  # staircase down the north side: 63, 62, ... 57
                top = max(PIT_FLOOR_Y, SURFACE_Y - 1 - (x - x0))
            for y in range(top + 1, SURFACE_Y + 1):
                _set(world, x, y, z, 0)
            if z == z0 and top >= SURFACE_Y - 3:
                _set(world, x, top, z, _ID["grass_block"] if top == SURFACE_Y - 1 else _ID["dirt"])
    for name, spots in ORES.items():
        for x, y, z in spots:
            _set(world, x, y, z, _ID[name])


def _pool(world: np.ndarray) -> list[tuple[int, int, int]]:
    x0, z0, x1, z1 = POOL
    for x in range(x0 - 1, x1 + 2):
        for z in range(z0 - 1, z1 + 2):
            _set(world, x, SURFACE_Y, z, _ID["sand"])
            _set(world, x, SURFACE_Y - 1, z, _ID["sand"])
    for x in range(x0, x1 + 1):
        for z in range(z0, z1 + 1):
            _set(world, x, SURFACE_Y, z, _ID["water"])
            _set(world, x, SURFACE_Y - 1, z, _ID["water"])
            _set(world, x, SURFACE_Y - 2, z, _ID["sand"])
    canes = []
    for x, z, h in CANE_SPOTS:
        for dy in range(h):
            _set(world, x, SURFACE_Y + 1 + dy, z, _ID["sugar_cane"])
        canes.append((x, SURFACE_Y + 1, z))
    return canes


def _tree(world: np.ndarray, x: int, ground: int, z: int, logs: int, rng: np.random.Generator) -> None:
    """An oak blob tree like vanilla's: two 5x5 leaf layers, a 3x3 layer and a plus on top.

    Leaves are written with distance 7; :func:`_set_leaf_distances` fixes them once all trees stand.
    """
    top = ground + logs  # highest log
    for y, r in ((top - 2, 2), (top - 1, 2), (top, 1), (top + 1, 1)):
        for dx in range(-r, r + 1):
            for dz in range(-r, r + 1):
                corner = abs(dx) == r and abs(dz) == r
                if corner and (y == top + 1 or rng.random() < 0.5):
                    continue
                iz, ix = _idx(x + dx, z + dz)
                if world[y - MIN_Y, iz, ix] == 0:  # leaves never replace terrain (e.g. a hill slope)
                    world[y - MIN_Y, iz, ix] = LEAVES_BASE + 6
    _set(world, x, ground, z, _ID["dirt"])
    for i in range(1, logs + 1):
        _set(world, x, ground + i, z, _ID["oak_log"])


def _set_leaf_distances(world: np.ndarray) -> None:
    """Give every leaf vanilla's ``distance``: min(7, 1 + the smallest neighbour distance), logs being 0.

    Relaxing all leaves together (rather than per tree) keeps touching canopies consistent.
    """
    rows = np.flatnonzero((world >= LEAVES_BASE).any(axis=(1, 2)))
    if rows.size == 0:
        return
    band = world[max(0, rows[0] - 1) : rows[-1] + 2]  # a view: the layers holding leaves, plus one each side
    _relax_leaves(band)


def _relax_leaves(world: np.ndarray) -> None:
    is_leaf = world >= LEAVES_BASE
    dist = np.where(world == _ID["oak_log"], 0, 7).astype(np.int16)
    dist[is_leaf] = 7
    for _ in range(7):
        padded = np.pad(dist, 1, constant_values=7)
        nearest = np.minimum.reduce(
            [
                padded[2:, 1:-1, 1:-1],
                padded[:-2, 1:-1, 1:-1],
                padded[1:-1, 2:, 1:-1],
                padded[1:-1, :-2, 1:-1],
                padded[1:-1, 1:-1, 2:],
                padded[1:-1, 1:-1, :-2],
            ]
        )
        dist = np.where(is_leaf, np.minimum(7, nearest + 1), dist)
    world[is_leaf] = (LEAVES_BASE - 1 + dist[is_leaf]).astype(np.uint16)


def _near_rect(x: int, z: int, rect: tuple[int, int, int, int], margin: int) -> bool:
    x0, z0, x1, z1 = rect
    return x0 - margin <= x <= x1 + margin and z0 - margin <= z <= z1 + margin


def _sky_light(world: np.ndarray) -> np.ndarray:
    """Column sky light: 15 minus the summed opacity at and above each block (clamped to 0..15)."""
    opacity = _OPACITY[world]
    above = np.cumsum(opacity[::-1], axis=0)[::-1]
    return np.clip(15 - above, 0, 15).astype(np.uint8)


def build_sandbox(path: Path, seed: int = 0) -> Save:
    """Build the sandbox world at ``path`` (which must not hold a world yet).

    Args:
        path: The world folder to create.
        seed: Moves the hill and the trees and sets the cow UUIDs and the level seed.

    Returns:
        The created :class:`Save`; its layout is in ``path / "sandbox.json"`` (:func:`load_sandbox_info`).
    """
    path = Path(path)
    rng = np.random.default_rng(seed)
    sx, sy, sz = SPAWN
    xs = np.arange(X0, X0 + SIZE).reshape(1, -1)
    zs = np.arange(Z0, Z0 + SIZE).reshape(-1, 1)
    hill = (-22 + int(rng.integers(-3, 4)), 22 + int(rng.integers(-3, 4)))
    bump = 6.0 * np.exp(-((xs - hill[0]) ** 2 + (zs - hill[1]) ** 2) / (2 * 6.0**2))
    heights = (SURFACE_Y + np.round(bump)).astype(np.int64)
    world = _terrain(heights)
    _carve_pit(world)
    canes = _pool(world)

    trees: list[TreeInfo] = []
    taken: list[tuple[int, int]] = [(int(cx), int(cz)) for cx, cz in COW_SPOTS] + [(sx, sz)]
    for _attempt in range(10_000):
        if len(trees) == N_TREES:
            break
        x = sx + int(rng.integers(-TREE_RADIUS, TREE_RADIUS + 1))
        z = sz + int(rng.integers(-TREE_RADIUS, TREE_RADIUS + 1))
        if not 6 <= math.dist((x, z), (sx, sz)) <= TREE_RADIUS:
            continue
        if _near_rect(x, z, PIT, 4) or _near_rect(x, z, POOL, 4):
            continue
        if any(abs(x - tx) <= 4 and abs(z - tz) <= 4 for tx, tz in taken):
            continue
        logs = int(rng.integers(4, 7))
        ground = int(heights[_idx(x, z)])
        _tree(world, x, ground, z, logs, rng)
        taken.append((x, z))
        trees.append(TreeInfo(base=(x, ground + 1, z), logs=logs))

    if len(trees) < N_TREES:
        raise WorldError(f"sandbox seed {seed}: found room for only {len(trees)} of {N_TREES} trees")
    _set_leaf_distances(world)

    sky = _sky_light(world)
    level = LevelData(
        level_name="sandbox",
        seed=seed,
        spawn=SPAWN,
        border_center=(float(sx), float(sz)),
        border_size=float(SIZE),
    )
    save = Save.create(path, level)
    chunks = []
    biomes = np.zeros((HEIGHT // 4, 4, 4), dtype=np.uint8)
    for cz in range(-CHUNK_RADIUS, CHUNK_RADIUS + 1):
        for cx in range(-CHUNK_RADIUS, CHUNK_RADIUS + 1):
            iz, ix = cz * 16 - Z0, cx * 16 - X0
            chunks.append(
                Chunk.from_dense(
                    cx,
                    cz,
                    world[:, iz : iz + 16, ix : ix + 16],
                    PALETTE,
                    biomes,
                    ["minecraft:plains"],
                    MIN_Y,
                    sky_light=sky[:, iz : iz + 16, ix : ix + 16],
                )
            )
    save.write_chunks(chunks)

    cows: list[CowInfo] = []
    by_chunk: dict[tuple[int, int], list] = {}
    for cx_, cz_ in COW_SPOTS:
        uid = uuid.UUID(bytes=rng.bytes(16), version=4)
        pos = (cx_, float(heights[_idx(int(np.floor(cx_)), int(np.floor(cz_)))] + 1), cz_)
        yaw = float(rng.integers(0, 360))
        ent = entity_nbt_cow(uuid_to_ints(uid), pos, (yaw, 0.0))
        by_chunk.setdefault((int(np.floor(cx_)) >> 4, int(np.floor(cz_)) >> 4), []).append(ent)
        cows.append(CowInfo(uuid=str(uid), pos=pos))
    save.write_entities(by_chunk)

    info = SandboxInfo(
        seed=seed,
        spawn=SPAWN,
        border_center=level.border_center,
        border_size=level.border_size,
        chunks=(-CHUNK_RADIUS, -CHUNK_RADIUS, CHUNK_RADIUS, CHUNK_RADIUS),
        surface_y=SURFACE_Y,
        ores={k: list(v) for k, v in ORES.items()},
        pit=PIT,
        pit_floor_y=PIT_FLOOR_Y,
        pool=POOL,
        pool_surface_y=SURFACE_Y,
        sugar_cane=canes,
        trees=trees,
        hill_center=hill,
        hill_top_y=int(heights.max()),
        cows=cows,
    )
    atomic_write(
        path / "sandbox.json",
        (json.dumps(info.model_dump(mode="json"), indent=2, sort_keys=True) + "\n").encode(),
    )
    return save


def load_sandbox_info(path: Path) -> SandboxInfo:
    """Read ``sandbox.json`` from a sandbox world folder."""
    return SandboxInfo.model_validate_json((Path(path) / "sandbox.json").read_text())
