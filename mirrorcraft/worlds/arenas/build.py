"""Write a PillagerBench arena as a 1.19.2 Anvil save, list the arena ids, and check a built arena.

Ids follow the catalogue's registry ids (:data:`mirrorcraft.contracts.REGISTRY_ID_RE`): the arena name for the
original (``mushroom_war``, ``dash_and_dine``) and ``<name>/mirrored`` for its mirror (as ``plains-1/M03`` names
a copy of ``plains-1``). Saves live under ``<out>/arenas/<name>/<variant>/`` (``original`` or ``mirrored``)
beside the catalogue's ``vanilla/`` and ``mirror/`` folders, and ``worlds build`` records them in the same
``catalogue.json``.

The save: ``level.dat`` (DataVersion 3120; the arena's difficulty, game mode, day time and game rules on top of
the benchmark controls; spawn; a world border around the arena; a **flat generator with the arena's own ground
layers**, so a vanilla server that generates chunks past the pregenerated square makes the same flat ground
rather than void), ``region/`` with every chunk the border touches (flat ground plus the layout's cells, chests
and furnaces in each chunk's ``block_entities``), ``entities/`` with the animals (1.17+ entity chunks). Light is
not stored (``isLightOn`` 0): vanilla relights the few chunks on load, and the embedded server derives sky light
from the blocks. Everything is deterministic (UUIDs and egg timers from SHA-256 of the arena and the animal), so
a build is byte-for-byte reproducible; each save is built in a hidden sibling folder and renamed into place.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
import uuid as uuidlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbtlib
import numpy as np

from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil import (
    BENCHMARK_GAME_RULES,
    Chunk,
    LevelData,
    Save,
    chest_nbt,
    default_blocks_motion,
    entity_nbt_chicken,
    entity_nbt_cow,
    furnace_nbt,
    item_nbt,
    uuid_to_ints,
)
from mirrorcraft.worlds.anvil.chunk import AIR, BlockState
from mirrorcraft.worlds.arenas.layout import VARIANTS, ArenaLayout, Variant, expand, ground_state
from mirrorcraft.worlds.arenas.spec import ARENA_NAMES, ArenaSpec, load_arena_spec
from mirrorcraft.worlds.catalogue import BuildRecord, world_seed

__all__ = [
    "ARENA_IDS",
    "ArenaCheck",
    "arena_chunks",
    "arena_id",
    "arena_path",
    "build_arena",
    "check_arena",
    "is_arena_selector",
    "parse_arena_id",
    "select_arenas",
    "write_arena_save",
]

MIN_Y, HEIGHT = -64, 384
DIFFICULTIES = ("peaceful", "easy", "normal", "hard")
GAME_MODES = ("survival", "creative", "adventure", "spectator")


def arena_id(name: str, variant: Variant) -> str:
    """``mushroom_war`` for the original, ``mushroom_war/mirrored`` for the mirror."""
    return name if variant == "original" else f"{name}/{variant}"


#: Every buildable arena id, each original followed by its mirror.
ARENA_IDS: tuple[str, ...] = tuple(arena_id(n, v) for n in ARENA_NAMES for v in VARIANTS)


def parse_arena_id(text: str) -> tuple[str, Variant]:
    """``"dash_and_dine/mirrored"`` → ``("dash_and_dine", "mirrored")``.

    Raises:
        WorldError: not an arena id (the message lists them).
    """
    name, _, variant = text.partition("/")
    variant = variant or "original"
    if name not in ARENA_NAMES or variant not in VARIANTS or variant == "original" and "/" in text:
        raise WorldError(f"unknown arena {text!r}; expected one of {', '.join(ARENA_IDS)}")
    return name, variant  # type: ignore[return-value]


def is_arena_selector(only: str | None) -> bool:
    """True if ``worlds build/list/check`` was given an arena selection (an id, ``<name>/*`` or ``arenas``)."""
    if only is None:
        return False
    return only == "arenas" or only in ARENA_IDS or only.removesuffix("/*") in ARENA_NAMES


def select_arenas(only: str | None) -> list[str]:
    """Arena ids matching ``only``: an id, ``<name>/*`` (both variants), ``arenas`` or None (all).

    Raises:
        WorldError: ``only`` selects no arena.
    """
    if only is None or only == "arenas":
        return list(ARENA_IDS)
    if only.endswith("/*") and only[:-2] in ARENA_NAMES:
        return [arena_id(only[:-2], v) for v in VARIANTS]
    parse_arena_id(only)
    return [only]


def arena_path(out: Path, ident: str) -> Path:
    """Where arena ``ident`` lives under the catalogue folder ``out``."""
    name, variant = parse_arena_id(ident)
    return Path(out) / "arenas" / name / variant


def arena_chunks(spec: ArenaSpec) -> tuple[int, int, int, int]:
    """``(cx0, cz0, cx1, cz1)``: the inclusive chunk square the world border touches (all pregenerated)."""
    (bx, bz), half = spec.level.border.center, spec.level.border.size / 2
    lo_x, hi_x = int(np.floor(bx - half)), int(np.ceil(bx + half)) - 1
    lo_z, hi_z = int(np.floor(bz - half)), int(np.ceil(bz + half)) - 1
    return lo_x >> 4, lo_z >> 4, hi_x >> 4, hi_z >> 4


def _flat_generator(spec: ArenaSpec) -> dict:
    layers: list[dict] = []
    for text in spec.ground.layers:
        name = text.split("[", 1)[0]
        name = name if ":" in name else f"minecraft:{name}"
        if layers and layers[-1]["block"] == name:
            layers[-1]["height"] += 1
        else:
            layers.append({"block": name, "height": 1})
    return {
        "type": "minecraft:flat",
        "settings": {
            "biome": "minecraft:plains",
            "features": False,
            "lakes": False,
            "layers": layers,
            "structure_overrides": [],
        },
    }


def level_data(spec: ArenaSpec, ident: str) -> LevelData:
    """The arena's ``level.dat``: benchmark controls overridden by the arena's level settings."""
    lv = spec.level
    rules = dict(BENCHMARK_GAME_RULES)
    rules.update({k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in lv.game_rules.items()})
    return LevelData(
        level_name=f"mirrorcraft-{ident.replace('/', '-')}",
        seed=world_seed(spec.id),
        spawn=lv.spawn,
        difficulty=DIFFICULTIES.index(lv.difficulty),
        game_type=GAME_MODES.index(lv.game_mode),
        day_time=lv.day_time,
        game_rules=rules,
        border_center=lv.border.center,
        border_size=lv.border.size,
        generator=_flat_generator(spec),
    )


def _uuid(spec: ArenaSpec, label: str, k: int) -> tuple[bytes, tuple[int, int, int, int]]:
    digest = hashlib.sha256(f"mirrorcraft_arena_{spec.id}_{label}_{k}".encode()).digest()
    return digest, uuid_to_ints(uuidlib.UUID(bytes=digest[:16], version=4))


def _entity_chunks(layout: ArenaLayout) -> dict[tuple[int, int], list[nbtlib.Compound]]:
    out: dict[tuple[int, int], list[nbtlib.Compound]] = defaultdict(list)
    seen: dict[str, int] = defaultdict(int)
    for e in layout.entities:
        k = seen[e.label]
        seen[e.label] += 1
        digest, ints = _uuid(layout.spec, e.label, k)
        if e.entity == "cow":
            tag = entity_nbt_cow(ints, e.pos, (e.yaw, 0.0))
        else:  # vanilla's first egg comes after 6000 + rand(6000) ticks
            tag = entity_nbt_chicken(
                ints, e.pos, (e.yaw, 0.0), 6000 + int.from_bytes(digest[16:20], "big") % 6000
            )
        out[(int(np.floor(e.pos[0])) >> 4, int(np.floor(e.pos[2])) >> 4)].append(tag)
    return dict(out)


def _block_entity_nbt(layout: ArenaLayout) -> dict[tuple[int, int], list[nbtlib.Compound]]:
    out: dict[tuple[int, int], list[nbtlib.Compound]] = defaultdict(list)
    for be in layout.block_entities:
        items = [item_nbt(slot, item, count, damage) for slot, item, count, damage in be.items]
        tag = chest_nbt(be.pos, items) if be.kind == "chest" else furnace_nbt(be.pos, items)
        out[(be.pos[0] >> 4, be.pos[2] >> 4)].append(tag)
    return dict(out)


@dataclass
class _Dense:
    palette: list[BlockState]
    blocks: np.ndarray  # [y - MIN_Y, z - z0, x - x0]
    x0: int
    z0: int


def dense_arena(layout: ArenaLayout) -> _Dense:
    """The arena's chunk square as one dense array (flat ground, then the layout's cells)."""
    spec = layout.spec
    cx0, cz0, cx1, cz1 = arena_chunks(spec)
    x0, z0 = cx0 * 16, cz0 * 16
    nx, nz = (cx1 - cx0 + 1) * 16, (cz1 - cz0 + 1) * 16
    palette: list[BlockState] = [AIR]
    index: dict[BlockState, int] = {AIR: 0}
    blocks = np.zeros((HEIGHT, nz, nx), dtype=np.uint16)
    for i in range(len(spec.ground.layers)):
        state = ground_state(spec, MIN_Y + i)
        blocks[i] = index.setdefault(state, len(palette))
        if len(index) > len(palette):
            palette.append(state)
    for (x, y, z), state in layout.cells.items():
        if state not in index:
            index[state] = len(palette)
            palette.append(state)
        blocks[y - MIN_Y, z - z0, x - x0] = index[state]
    return _Dense(palette, blocks, x0, z0)


def _chunks(layout: ArenaLayout) -> list[Chunk]:
    d = dense_arena(layout)
    motion = np.array([default_blocks_motion(s) for s in d.palette], dtype=bool)
    entities = _block_entity_nbt(layout)
    biomes = np.zeros((HEIGHT // 4, 4, 4), dtype=np.uint8)
    out = []
    for iz in range(d.blocks.shape[1] // 16):
        for ix in range(d.blocks.shape[2] // 16):
            sub = d.blocks[:, iz * 16 : iz * 16 + 16, ix * 16 : ix * 16 + 16]
            used = np.flatnonzero(np.bincount(sub.ravel(), minlength=len(d.palette)))
            remap = np.zeros(len(d.palette), dtype=np.uint16)
            remap[used] = np.arange(len(used), dtype=np.uint16)
            cx, cz = d.x0 // 16 + ix, d.z0 // 16 + iz
            out.append(
                Chunk.from_dense(
                    cx,
                    cz,
                    remap[sub],
                    [d.palette[i] for i in used],
                    biomes,
                    ["minecraft:plains"],
                    MIN_Y,
                    is_motion_blocking=motion[used],
                    block_entities=entities.get((cx, cz), []),
                    is_light_on=False,
                )
            )
    return out


def write_arena_save(spec: ArenaSpec, variant: Variant, out_path: Path) -> ArenaLayout:
    """Write the arena ``spec`` (one variant) as a new save at ``out_path``; returns the layout written.

    Raises:
        WorldError: ``out_path`` exists, or the spec's layout is inconsistent (:func:`.layout.expand`).
    """
    out_path = Path(out_path)
    if out_path.exists():
        raise WorldError(f"{out_path}: already exists; build into a new folder")
    layout = expand(spec, variant)
    save = Save.create(out_path, level_data(spec, arena_id(spec.id, variant)))
    save.write_chunks(_chunks(layout))
    save.write_entities(_entity_chunks(layout))
    return layout


def build_arena(ident: str, out: Path, *, force: bool = False, spec: ArenaSpec | None = None) -> BuildRecord:
    """Build arena ``ident`` under the catalogue folder ``out`` (kept if it exists, unless ``force``).

    Raises:
        WorldError: unknown id, or the build failed (nothing is left half-written).
    """
    name, variant = parse_arena_id(ident)
    spec = spec or load_arena_spec(name)
    target = arena_path(out, ident)
    radius = int(spec.level.border.size // 2)
    seed = world_seed(spec.id)
    if target.exists() and not force:
        return BuildRecord(name=ident, path=str(target), seed=seed, radius_blocks=radius, built=False)
    t0 = time.perf_counter()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        write_arena_save(spec, variant, tmp / "world")
        if target.exists():
            old = tmp / "old"
            os.replace(target, old)
        os.replace(tmp / "world", target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return BuildRecord(
        name=ident,
        path=str(target),
        seed=seed,
        radius_blocks=radius,
        built=True,
        seconds=round(time.perf_counter() - t0, 3),
    )


@dataclass
class ArenaCheck:
    """What :func:`check_arena` found: ``ok`` when the save holds exactly the spec's arena."""

    name: str
    path: str
    cells_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems


def check_arena(ident: str, out: Path) -> ArenaCheck:
    """Re-read a built arena and compare it with its spec: every block of every chunk, every chest and furnace
    with its items, the animals, and the game rules in ``level.dat``.

    Raises:
        WorldError: unknown id, or the arena is not built under ``out``.
    """
    name, variant = parse_arena_id(ident)
    spec = load_arena_spec(name)
    path = arena_path(out, ident)
    if not (path / "level.dat").is_file():
        raise WorldError(f"{ident}: not built under {out} (run `worlds build --only {ident}`)")
    result = ArenaCheck(ident, str(path))
    save = Save.open(path)
    want_level = level_data(spec, ident)
    for key, value in want_level.game_rules.items():
        got = save.level.game_rules.get(key)
        if got != value:
            result.problems.append(f"level.dat: game rule {key} is {got!r}, expected {value!r}")
    for attr in ("spawn", "difficulty", "game_type", "border_center", "border_size"):
        if getattr(save.level, attr) != getattr(want_level, attr):
            result.problems.append(
                f"level.dat: {attr} is {getattr(save.level, attr)}, expected {getattr(want_level, attr)}"
            )
    layout = expand(spec, variant)
    d = dense_arena(layout)
    want_be = {
        tuple(int(t[k]) for k in "xyz"): t for tags in _block_entity_nbt(layout).values() for t in tags
    }
    cx0, cz0, cx1, cz1 = arena_chunks(spec)
    for cz in range(cz0, cz1 + 1):
        for cx in range(cx0, cx1 + 1):
            chunk = save.read_chunk(cx, cz)
            if chunk is None:
                result.problems.append(f"chunk ({cx}, {cz}) is missing")
                continue
            idx, palette, _, _ = chunk.to_dense(MIN_Y, HEIGHT)
            ox, oz = cx * 16 - d.x0, cz * 16 - d.z0
            want = d.blocks[:, oz : oz + 16, ox : ox + 16]
            lut = {s: i for i, s in enumerate(d.palette)}
            remap = np.array([lut.get(s, -1) for s in palette], dtype=np.int64)
            diff = np.argwhere(remap[idx] != want)
            for y, z, x in diff[:5]:
                at = (cx * 16 + int(x), MIN_Y + int(y), cz * 16 + int(z))
                result.problems.append(
                    f"{list(at)}: {palette[idx[y, z, x]][0]}, expected {d.palette[want[y, z, x]][0]}"
                )
            result.cells_checked += want.size
            for tag in chunk.block_entities:
                pos = tuple(int(tag[k]) for k in "xyz")
                if want_be.pop(pos, None) != tag:
                    result.problems.append(f"block entity at {list(pos)} differs from the spec")
    for pos in want_be:
        result.problems.append(f"block entity at {list(pos)} is missing")
    want_entities = _entity_chunks(layout)
    for (cx, cz), tags in want_entities.items():
        if save.read_entities(cx, cz) != tags:
            result.problems.append(f"entities of chunk ({cx}, {cz}) differ from the spec")
    extra = set(save.entity_chunk_positions()) - set(want_entities)
    for cx, cz in sorted(extra):
        if save.read_entities(cx, cz):
            result.problems.append(f"chunk ({cx}, {cz}) holds entities the spec does not place")
    return result
