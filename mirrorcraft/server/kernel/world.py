"""The server's live world: dense block-state columns loaded lazily from an Anvil save, and written back.

Why dense arrays: every hot path (chunk packets, collision checks, block reads for digging and
placement) wants a global state id at ``(x, y, z)``; a ``(384, 16, 16)`` ``uint16`` array per column makes
that one index, and ``mirrorcraft.protocol.chunks.encode_column`` encodes it directly. Columns are read
from ``region/*.mca`` on first use (worlds are pregenerated to a fixed radius; a column outside the save
is all air and is never generated), and only changed columns are written back by :meth:`World.save`.

Light: the save's sky light is used when the chunk stores it (``isLightOn``); otherwise sky light is
derived from the column itself (15 above the topmost light-filtering block, 0 below). Block light is not
modelled (the server has no light emitters): every block-light section is sent as empty. The packet itself
is built by :func:`mirrorcraft.server.wire.map_chunk` (all packet building lives in ``wire``); the world
caches each column's body until the column changes, and the bodies of columns still as the save has them
are shared with every other world of the process that opens the same terrain
(:mod:`~mirrorcraft.server.kernel.chunk_cache`: a study's episodes, a Vanilla world and its Mirror copies).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mirrorcraft.errors import WorldError
from mirrorcraft.gamedata import codec_registry_ids
from mirrorcraft.server import facts, wire
from mirrorcraft.server.kernel.chunk_cache import SHARED, EncodedColumns, terrain_digest
from mirrorcraft.worlds.anvil.chunk import Chunk
from mirrorcraft.worlds.anvil.level import LevelData
from mirrorcraft.worlds.anvil.region import (
    RegionFile,
    compress_chunk,
    nbt_from_bytes,
    nbt_to_bytes,
    region_name,
    region_of,
)

MIN_Y = -64
HEIGHT = 384
SECTIONS = HEIGHT // 16
SMALL_BATCH = 48  # get_blocks / sky_lights below this many positions look each one up in Python


@dataclass
class Column:
    """One loaded chunk column."""

    blocks: np.ndarray  # (384, 16, 16) uint16 global state ids, [y, z, x]
    biomes: np.ndarray  # (96, 4, 4) uint8 biome registry ids
    sky: np.ndarray | None  # (384, 16, 16) uint8 stored sky light, or None (derive from blocks)
    dirty: bool = False
    packet: bytes | None = None  # cached map_chunk body, invalidated on change
    top: np.ndarray | None = None  # (16, 16) int16: index of the lowest sky-lit y (derived light), cached
    #: What the column holds while unchanged since loading (the save chunk's digest, or ``("empty", biome)``
    #: outside the save): its key in the process-wide packet cache. None once a block changed.
    source: tuple | None = None


def _by_column(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> list[tuple[tuple[int, int], np.ndarray]]:
    """The indices of the in-height positions, grouped by chunk column (one sort, no per-column scan)."""
    inside = np.flatnonzero((y >= MIN_Y) & (y < MIN_Y + HEIGHT))
    if not len(inside):
        return []
    cx, cz = x[inside] >> 4, z[inside] >> 4
    keys = (cx - cx.min()) * (int(cz.max() - cz.min()) + 1) + (cz - cz.min())
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    ends = np.r_[starts[1:], len(order)]
    out = []
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        sel = inside[order[a:b]]
        out.append(((int(x[sel[0]]) >> 4, int(z[sel[0]]) >> 4), sel))
    return out


def _biome_ids() -> dict[str, int]:
    return codec_registry_ids("minecraft:worldgen/biome")


class World:
    """Blocks of one overworld, backed (optionally) by a save folder.

    Args:
        save_dir: An Anvil save folder (``level.dat``, ``region/``), or None for an in-memory world.
        level: The save's level data (read from ``save_dir`` when omitted).
        packet_cache: Where the encoded bodies of unchanged columns are shared (default: the process-wide
            :data:`~mirrorcraft.server.kernel.chunk_cache.SHARED`; None: not shared).
    """

    def __init__(
        self,
        save_dir: Path | None = None,
        level: LevelData | None = None,
        packet_cache: EncodedColumns | None = SHARED,
    ) -> None:
        self.save_dir = Path(save_dir) if save_dir is not None else None
        if level is None:
            if self.save_dir is None:
                raise WorldError("an in-memory World needs LevelData")
            level = LevelData.load(self.save_dir / "level.dat")
        self.level = level
        self.columns: dict[tuple[int, int], Column] = {}
        self.packet_cache = packet_cache
        self.version = 0  # bumped by every set_block (hooks tell whether a block may have changed since)
        self._regions: dict[tuple[int, int], RegionFile | None] = {}
        self._biomes = _biome_ids()
        tables = facts.state_tables()
        self._filters = tables.filter_light > 0
        self._is_air = tables.is_air
        #: ``hook(cx, cz, column, chunk)`` after a column is loaded (``chunk``: the save's
        #: :class:`~mirrorcraft.worlds.anvil.chunk.Chunk`, ``None`` for a column outside the save): the block
        #: entities of the chunk are read this way (the block-entities feature), hoppers found.
        self.loaded_hooks: list[Callable[[int, int, Column, Chunk | None], None]] = []

    # ---- loading ---------------------------------------------------------------------------------------

    def _region(self, rx: int, rz: int) -> RegionFile | None:
        if (rx, rz) not in self._regions:
            path = self.save_dir / "region" / region_name(rx, rz) if self.save_dir else None
            self._regions[(rx, rz)] = RegionFile.read(path) if path is not None and path.is_file() else None
        return self._regions[(rx, rz)]

    def column(self, cx: int, cz: int) -> Column:
        """The column at chunk ``(cx, cz)``, loading it from the save on first use (air if absent).

        Raises:
            WorldError: the stored chunk is malformed (the message names the region file and slot).
        """
        col = self.columns.get((cx, cz))
        if col is not None:
            return col
        rx, rz = region_of(cx, cz)
        region = self._region(rx, rz)
        raw = region.chunks.get((cx & 31, cz & 31)) if region else None
        chunk = None
        if raw is None:
            plains = self._biomes.get("minecraft:plains", 0)
            col = Column(
                blocks=np.zeros((HEIGHT, 16, 16), dtype=np.uint16),
                biomes=np.full((HEIGHT // 4, 4, 4), plains, dtype=np.uint8),
                sky=None,
                source=("empty", plains),  # a column missing from the save: nothing but its biome
            )
        else:
            what = f"{region.path} chunk ({cx}, {cz})"
            nbt = raw.decompress(what)
            chunk = Chunk.from_nbt(nbt_from_bytes(nbt, what), what)
            col = self._from_chunk(chunk, what)
            col.source = ("save", terrain_digest(nbt))
        self.columns[(cx, cz)] = col
        for hook in self.loaded_hooks:
            hook(cx, cz, col, chunk)
        return col

    def _from_chunk(self, chunk: Chunk, what: str) -> Column:
        idx, palette, bidx, bpalette = chunk.to_dense(MIN_Y, HEIGHT)
        try:
            lut = np.array([facts.state_id(n, dict(p)) for n, p in palette], dtype=np.uint16)
            blut = np.array([self._biomes[b] for b in bpalette], dtype=np.uint8)
        except KeyError as err:
            raise WorldError(f"{what}: unknown block state or biome {err}") from err
        sky = None
        if chunk.is_light_on and any(s.sky_light is not None for s in chunk.sections.values()):
            sky = np.zeros((HEIGHT, 16, 16), dtype=np.uint8)
            for sy, sec in chunk.sections.items():
                i = sy - MIN_Y // 16
                if 0 <= i < SECTIONS and sec.sky_light is not None:
                    sky[i * 16 : (i + 1) * 16] = sec.sky_light
        return Column(blocks=lut[idx], biomes=blut[bidx], sky=sky)

    # ---- blocks ----------------------------------------------------------------------------------------

    def get_block(self, x: int, y: int, z: int) -> int:
        """Global state id at ``(x, y, z)`` (air above/below the world)."""
        if not MIN_Y <= y < MIN_Y + HEIGHT:
            return 0
        return int(self.column(x >> 4, z >> 4).blocks[y - MIN_Y, z & 15, x & 15])

    def biome_at(self, x: int, y: int, z: int) -> str:
        """The biome id at a block position (biomes are stored per 4x4x4 cell)."""
        col = self.column(x >> 4, z >> 4)
        y = min(max(y, MIN_Y), MIN_Y + HEIGHT - 1)
        bid = int(col.biomes[(y - MIN_Y) >> 2, (z & 15) >> 2, (x & 15) >> 2])
        return next((name for name, i in self._biomes.items() if i == bid), "minecraft:plains")

    def set_block(self, x: int, y: int, z: int, state: int) -> bool:
        """Set a block; returns False outside the build height."""
        if not MIN_Y <= y < MIN_Y + HEIGHT:
            return False
        col = self.column(x >> 4, z >> 4)
        iy, lz, lx = y - MIN_Y, z & 15, x & 15
        col.blocks[iy, lz, lx] = state
        self.version += 1
        col.dirty = True
        col.packet = None
        col.source = None  # no longer the save's column: never shared from here on
        if col.top is not None:  # keep the derived-light height of this (x, z) up to date
            top = int(col.top[lz, lx])
            if self._filters[state]:
                if iy + 1 > top:
                    col.top[lz, lx] = iy + 1
            elif iy + 1 == top:
                below = np.flatnonzero(self._filters[col.blocks[:iy, lz, lx]])
                col.top[lz, lx] = int(below[-1]) + 1 if len(below) else 0
        if col.sky is not None:
            col.sky = None  # light changed: derive from blocks from now on
        return True

    def get_blocks(self, pos: np.ndarray) -> np.ndarray:
        """Global state ids at many positions at once (``pos``: an ``(n, 3)`` int array of x, y, z; air above
        and below the world): one fancy index per column touched, for the vectorised random ticks."""
        out = np.zeros(len(pos), dtype=np.uint16)
        if len(pos) < SMALL_BATCH:  # a few positions: one Python lookup each is cheaper than grouping
            for i, (x, y, z) in enumerate(pos.tolist()):
                out[i] = self.get_block(x, y, z)
            return out
        x, y, z = pos[:, 0], pos[:, 1], pos[:, 2]
        for (cx, cz), sel in _by_column(x, y, z):
            col = self.column(cx, cz)
            out[sel] = col.blocks[y[sel] - MIN_Y, z[sel] & 15, x[sel] & 15]
        return out

    def sky_lights(self, pos: np.ndarray) -> np.ndarray:
        """:meth:`sky_light` at many positions at once (``pos`` as for :meth:`get_blocks`)."""
        out = np.zeros(len(pos), dtype=np.int16)
        if len(pos) < SMALL_BATCH:
            for i, (x, y, z) in enumerate(pos.tolist()):
                out[i] = self.sky_light(x, y, z)
            return out
        x, y, z = pos[:, 0], pos[:, 1], pos[:, 2]
        out[y >= MIN_Y + HEIGHT] = 15
        for (cx, cz), sel in _by_column(x, y, z):
            i = sel[0]
            col = self.column(cx, cz)
            if col.sky is not None:
                out[sel] = col.sky[y[sel] - MIN_Y, z[sel] & 15, x[sel] & 15]
                continue
            self.sky_light(int(x[i]), int(y[i]), int(z[i]))  # fills the column's cached top
            assert col.top is not None
            out[sel] = np.where(y[sel] - MIN_Y >= col.top[z[sel] & 15, x[sel] & 15], 15, 0)
        return out

    def sky_light(self, x: int, y: int, z: int) -> int:
        """Sky light at ``(x, y, z)`` as the client gets it: the save's stored value, else derived like the chunk
        packets (15 above the topmost light-filtering block of the column, 0 at and below it)."""
        if y >= MIN_Y + HEIGHT:
            return 15
        if y < MIN_Y:
            return 0
        col = self.column(x >> 4, z >> 4)
        if col.sky is not None:
            return int(col.sky[y - MIN_Y, z & 15, x & 15])
        if col.top is None:
            blocked = self._filters[col.blocks]
            any_block = blocked.any(axis=0)
            highest = HEIGHT - 1 - np.argmax(blocked[::-1], axis=0)
            col.top = np.where(any_block, highest + 1, 0).astype(np.int16)
        return 15 if y - MIN_Y >= int(col.top[z & 15, x & 15]) else 0

    def inside_border(self, x: float, z: float) -> bool:
        """Whether ``(x, z)`` lies inside the save's world border."""
        cx, cz = self.level.border_center
        half = self.level.border_size / 2
        return abs(x - cx) <= half and abs(z - cz) <= half

    # ---- packets ---------------------------------------------------------------------------------------

    def _derived_sky(self, blocks: np.ndarray) -> np.ndarray:
        blocked = self._filters[blocks]  # (384,16,16)
        below_top = np.maximum.accumulate(blocked[::-1], axis=0)[::-1]
        return np.where(below_top, 0, 15).astype(np.uint8)

    def map_chunk_body(self, cx: int, cz: int, protocol: int) -> bytes:
        """The map_chunk packet body (chunk data + heightmap + light) of one column, cached until changed."""
        col = self.column(cx, cz)
        if col.packet is None:
            shared = self.packet_cache if col.source is not None else None
            key = (col.source, cx, cz, protocol)
            body = shared.get(key) if shared is not None else None
            if body is None:
                sky = col.sky if col.sky is not None else self._derived_sky(col.blocks)
                body = wire.map_chunk(cx, cz, col.blocks, col.biomes, sky, protocol)
                if shared is not None:
                    shared.put(key, body)
            col.packet = body
        return col.packet

    # ---- persistence -----------------------------------------------------------------------------------

    def save(self, save_dir: Path | None = None) -> int:
        """Write every changed column back to ``save_dir`` (default: the save it was loaded from).

        Returns:
            The number of chunks written.

        Raises:
            WorldError: no target folder.
        """
        target = Path(save_dir) if save_dir is not None else self.save_dir
        if target is None:
            raise WorldError("World.save: in-memory world and no save_dir given")
        by_region: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for key, col in self.columns.items():
            if col.dirty:
                by_region.setdefault(region_of(*key), []).append(key)
        (target / "region").mkdir(parents=True, exist_ok=True)
        written = 0
        for (rx, rz), keys in by_region.items():
            path = target / "region" / region_name(rx, rz)
            region = RegionFile.read(path) if path.is_file() else RegionFile(path)
            for cx, cz in keys:
                col = self.columns[(cx, cz)]
                used, inverse = np.unique(col.blocks, return_inverse=True)
                palette = []
                for sid in used:
                    b = facts.block_of_state(int(sid))
                    palette.append((b.name, tuple(sorted(b.state_properties(int(sid)).items()))))
                bused, binv = np.unique(col.biomes, return_inverse=True)
                rev = {v: k for k, v in self._biomes.items()}
                chunk = Chunk.from_dense(
                    cx,
                    cz,
                    inverse.reshape(col.blocks.shape),
                    palette,
                    binv.reshape(col.biomes.shape),
                    [rev[int(b)] for b in bused],
                    MIN_Y,
                    sky_light=self._derived_sky(col.blocks) if col.sky is None else col.sky,
                    is_motion_blocking=None,
                )
                region.chunks[(cx & 31, cz & 31)] = compress_chunk(nbt_to_bytes(chunk.to_nbt()))
                col.dirty = False
                written += 1
            region.path = path
            region.write()
            self._regions.pop((rx, rz), None)
        return written
