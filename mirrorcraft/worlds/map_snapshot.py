"""A compact top-down map of the area an episode explored, read from the episode's save before it is deleted.

Why: the episode viewer (``python -m mirrorcraft.run view``) draws the player's path over the terrain, but
world copies are deleted when the episode ends. So at the end of an episode the runner keeps, with the run
notes, the **top block and its height per column** over the explored area: the bounding box of the path (spawn
and every action's position) plus :data:`MARGIN` blocks, capped at :data:`MAX_SIDE` blocks a side around the
box's centre.

**Source.** The save on disk, read with the project's Anvil reader (:mod:`mirrorcraft.worlds.anvil`), so the
same code serves the embedded server (the runner saves its changed chunks first), a child process and a
user's vanilla jar (which saves on stop). The top block is the highest non-air block of the column (vanilla's
``WORLD_SURFACE`` heightmap rule: any block but air, cave air and void air; water counts, as on a vanilla map),
computed from the block sections, not from the stored heightmaps (a save written by another tool may carry
stale ones). Columns of chunks the save does not have are "unknown" (palette index 0, ``""``).

**Encoding** (:class:`MapSnapshot`): a palette of block ids, then two arrays in row-major ``[z][x]`` order, each
little-endian, zlib-compressed and base64-encoded: ``blocks`` (uint16 palette indices) and ``heights`` (int16
world y of the top block). A 192 × 192 snapshot of a catalogue world is ~12 KiB of JSON (196 KiB uncompressed);
:data:`MAX_SIDE` bounds it.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from mirrorcraft.errors import WorldError

__all__ = ["MARGIN", "MAX_SIDE", "MapSnapshot", "explored_area", "snapshot_from_save"]

#: Blocks added around the path's bounding box on each side.
MARGIN = 16
#: Largest side of a snapshot in blocks (a longer box is cut to this many blocks around its centre).
MAX_SIDE = 192
#: Palette entry of columns the save has no chunk for.
UNKNOWN = ""
_AIRS = frozenset({"minecraft:air", "minecraft:cave_air", "minecraft:void_air"})


class MapSnapshot(BaseModel):
    """Top block id and height per column of a rectangle of the world (module docstring, **Encoding**)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    x0: int = Field(description="World x of the first column.")
    z0: int = Field(description="World z of the first row.")
    width: int = Field(ge=1, le=MAX_SIDE, description="Columns along x.")
    depth: int = Field(ge=1, le=MAX_SIDE, description="Rows along z.")
    palette: list[str] = Field(description="Block ids; index 0 is '' (no chunk in the save).")
    blocks: str = Field(
        description="base64 of zlib of uint16 little-endian palette indices, [z][x] row-major."
    )
    heights: str = Field(
        description="base64 of zlib of int16 little-endian world y of the top block, [z][x]."
    )
    source: str = Field("save", description="Where it was read: 'save' (the Anvil reader).")

    @model_validator(mode="after")
    def _sizes(self) -> MapSnapshot:
        n = self.width * self.depth
        if not self.palette or self.palette[0] != UNKNOWN:
            raise ValueError("palette[0] must be '' (unknown columns)")
        try:
            sizes = [len(_unpack(self.blocks)), len(_unpack(self.heights))]
        except (ValueError, zlib.error) as err:
            raise ValueError(f"blocks and heights must be base64 of zlib data ({err})") from None
        if sizes != [2 * n, 2 * n]:
            raise ValueError(f"blocks and heights must hold {n} uint16/int16 values each")
        if int(self.block_array().max()) >= len(self.palette):
            raise ValueError("a block index lies outside the palette")
        return self

    def block_array(self) -> np.ndarray:
        """Palette indices, shape ``(depth, width)`` (``[z - z0, x - x0]``)."""
        raw = np.frombuffer(_unpack(self.blocks), dtype="<u2")
        return raw.reshape(self.depth, self.width)

    def height_array(self) -> np.ndarray:
        """World y of the top block, shape ``(depth, width)``."""
        raw = np.frombuffer(_unpack(self.heights), dtype="<i2")
        return raw.reshape(self.depth, self.width)

    def top_block(self, x: int, z: int) -> tuple[str, int] | None:
        """``(block id, y)`` of the top block at world column ``(x, z)``; None outside or unknown."""
        i, j = z - self.z0, x - self.x0
        if not (0 <= i < self.depth and 0 <= j < self.width):
            return None
        block = self.palette[int(self.block_array()[i, j])]
        return None if block == UNKNOWN else (block, int(self.height_array()[i, j]))


def _pack(array: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(array.tobytes(), 9)).decode("ascii")


def _unpack(text: str) -> bytes:
    return zlib.decompress(base64.b64decode(text, validate=True))


def explored_area(
    points: Iterable[tuple[float, float]], *, margin: int = MARGIN, max_side: int = MAX_SIDE
) -> tuple[int, int, int, int] | None:
    """``(x0, z0, width, depth)``: the bounding box of ``points`` (x, z) plus ``margin``, each side capped at
    ``max_side`` around the box's centre; None without points."""
    pts = [(float(x), float(z)) for x, z in points]
    if not pts:
        return None
    xs, zs = [p[0] for p in pts], [p[1] for p in pts]

    def side(lo: float, hi: float) -> tuple[int, int]:
        a, b = int(np.floor(lo)) - margin, int(np.floor(hi)) + margin + 1
        if b - a > max_side:
            centre = (a + b) // 2
            a = centre - max_side // 2
            b = a + max_side
        return a, b - a

    x0, width = side(min(xs), max(xs))
    z0, depth = side(min(zs), max(zs))
    return x0, z0, width, depth


def _column_tops(chunk: object) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Top non-air block per column of an Anvil chunk: ``(palette index [z, x], y [z, x], palette)``; columns
    with no block get index -1."""
    from mirrorcraft.worlds.anvil.chunk import Chunk

    assert isinstance(chunk, Chunk)
    top_idx = np.full((16, 16), -1, dtype=np.int32)
    top_y = np.zeros((16, 16), dtype=np.int32)
    names: list[str] = []
    index: dict[str, int] = {}
    for sy in sorted(chunk.sections, reverse=True):
        sec = chunk.sections[sy]
        if not (chunk.y_pos <= sy < chunk.y_pos + 24) or not sec.palette:
            continue  # light-only sections above and below the world
        solid = np.array([name not in _AIRS for name, _ in sec.palette], dtype=bool)
        if not solid.any():
            continue
        remap = np.array([index.setdefault(name, len(index)) for name, _ in sec.palette], dtype=np.int32)
        names = list(index)
        filled = solid[sec.blocks]  # [y, z, x]
        has = filled.any(axis=0)
        pending = has & (top_idx < 0)
        if not pending.any():
            continue
        highest = 15 - np.argmax(filled[::-1], axis=0)  # [z, x] local y of the highest solid block
        zz, xx = np.nonzero(pending)
        ly = highest[zz, xx]
        top_idx[zz, xx] = remap[sec.blocks[ly, zz, xx]]
        top_y[zz, xx] = sy * 16 + ly
        if (top_idx >= 0).all():
            break
    return top_idx, top_y, names


def snapshot_from_save(world: Path, area: tuple[int, int, int, int]) -> MapSnapshot:
    """The :class:`MapSnapshot` of ``area`` = ``(x0, z0, width, depth)`` read from the save at ``world``.

    Raises:
        WorldError: the folder is not a save, a region file is corrupt, or the area exceeds :data:`MAX_SIDE`.
    """
    from mirrorcraft.worlds.anvil.chunk import Chunk
    from mirrorcraft.worlds.anvil.region import RegionFile, nbt_from_bytes, region_name, region_of

    x0, z0, width, depth = area
    if not (1 <= width <= MAX_SIDE and 1 <= depth <= MAX_SIDE):
        raise WorldError(f"map snapshot: area {width} x {depth} exceeds {MAX_SIDE} blocks a side")
    world = Path(world)
    if not (world / "level.dat").is_file():
        raise WorldError(f"map snapshot: {world} is not a world save (no level.dat)")
    palette: list[str] = [UNKNOWN]
    pindex: dict[str, int] = {UNKNOWN: 0}
    blocks = np.zeros((depth, width), dtype="<u2")
    heights = np.zeros((depth, width), dtype="<i2")
    regions: dict[tuple[int, int], RegionFile | None] = {}
    for cz in range(z0 >> 4, ((z0 + depth - 1) >> 4) + 1):
        for cx in range(x0 >> 4, ((x0 + width - 1) >> 4) + 1):
            key = region_of(cx, cz)
            if key not in regions:
                path = world / "region" / region_name(*key)
                regions[key] = RegionFile.read(path) if path.is_file() else None
            region = regions[key]
            raw = None if region is None else region.chunks.get((cx & 31, cz & 31))
            if raw is None:
                continue
            what = f"{world} chunk ({cx}, {cz})"
            chunk = Chunk.from_nbt(nbt_from_bytes(raw.decompress(what), what), what, data_version=None)
            idx, ys, names = _column_tops(chunk)
            remap = np.array([pindex.setdefault(n, len(pindex)) for n in names] or [0], dtype=np.int32)
            palette = list(pindex)
            # the part of this chunk inside the area, in chunk-local and in area coordinates
            ax0, ax1 = max(x0, cx * 16), min(x0 + width, cx * 16 + 16)
            az0, az1 = max(z0, cz * 16), min(z0 + depth, cz * 16 + 16)
            sub = idx[az0 - cz * 16 : az1 - cz * 16, ax0 - cx * 16 : ax1 - cx * 16]
            known = sub >= 0
            mapped = np.where(known, remap[np.maximum(sub, 0)], 0)
            blocks[az0 - z0 : az1 - z0, ax0 - x0 : ax1 - x0] = mapped
            heights[az0 - z0 : az1 - z0, ax0 - x0 : ax1 - x0] = ys[
                az0 - cz * 16 : az1 - cz * 16, ax0 - cx * 16 : ax1 - cx * 16
            ]
    used = np.union1d([0], np.unique(blocks))  # keep only the ids that are some column's top ('' first)
    lookup = np.zeros(len(palette), dtype="<u2")
    lookup[used] = np.arange(len(used), dtype="<u2")
    blocks = lookup[blocks].astype("<u2")
    palette = [palette[int(i)] for i in used]
    return MapSnapshot(
        x0=x0,
        z0=z0,
        width=width,
        depth=depth,
        palette=palette,
        blocks=_pack(blocks),
        heights=_pack(heights),
    )
