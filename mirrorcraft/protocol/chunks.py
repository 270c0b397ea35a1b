"""1.18+ chunk columns on the wire: paletted containers (numpy), map_chunk, update_light, unload_chunk.

quarry 1.9.6 cannot read the 1.18+ chunk format (it silently returns garbage), so the embedded server and the
client body both use this module. A column's "chunk data" (wiki.vg "Chunk Format", 1.18+) is, per section
from the bottom (24 sections for the overworld, y = -64..319):

* i16 non-air block count (vanilla counts states that are not air, cave_air or void_air);
* block states: a paletted container of 4096 entries, index ``(y*16 + z)*16 + x``;
* biomes: a paletted container of 64 entries, index ``(y*4 + z)*4 + x``.

A paletted container is u8 bits-per-entry, a palette, then a VarInt-length-prefixed array of big-endian longs.
Bits 0 = single value (VarInt value, then a data array of length 0); blocks 1..8 = indirect (VarInt palette
length + VarInt entries, bits < 4 are widened to 4 as the vanilla client does); blocks > 8 = direct with
ceil(log2(21448)) = 15 bits; biomes 1..3 = indirect, > 3 = direct with ceil(log2(63)) = 6 bits. Since 1.16
entries never span two longs: a long holds ``64 // bits`` entries from its least significant bits up.

Everything here is vectorised per section with numpy; a column decodes to a dense ``uint16`` array indexed
``[y, z, x]`` by global block-state id. The decoded column remembers the palettes it was sent with so that
re-encoding an unchanged section reproduces vanilla's bytes exactly (vanilla's palette order is its
insertion history, which a fresh encoder cannot know).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Literal

import numpy as np
import nbtlib

from mirrorcraft import PROTOCOL_1_19_2
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.buffer import Reader, Writer, encode_varint
from mirrorcraft.protocol.codec import I32, Packet, packet, wire

_FACTS = json.loads(resources.files("mirrorcraft.protocol").joinpath("data/chunk_facts.json").read_text())
BLOCK_STATES: int = _FACTS[str(PROTOCOL_1_19_2)]["block_states"]  # 21448 in 1.19.2
BIOMES: int = _FACTS[str(PROTOCOL_1_19_2)]["biomes"]  # 63 in 1.19.2
AIR_STATES: tuple[int, ...] = tuple(_FACTS[str(PROTOCOL_1_19_2)]["air_states"])  # air, void_air, cave_air
BLOCK_DIRECT_BITS = math.ceil(math.log2(BLOCK_STATES))  # 15
BIOME_DIRECT_BITS = math.ceil(math.log2(BIOMES))  # 6
OVERWORLD_SECTIONS = 24

_SHIFTS = {b: np.arange(64 // b, dtype=np.uint64) * np.uint64(b) for b in range(1, 65)}
_AIR_LUT = np.zeros(1 << 16, dtype=bool)
_AIR_LUT[list(AIR_STATES)] = True


@dataclass
class ChunkColumn:
    """A decoded chunk column.

    Attributes:
        blocks: ``uint16`` array ``(sections*16, 16, 16)`` indexed ``[y, z, x]``, global block-state ids.
        biomes: ``uint8`` array ``(sections*4, 4, 4)`` indexed ``[y, z, x]``, biome registry ids.
        non_air: ``int16`` per-section non-air counts (as sent when decoded; recomputed on encode).
        block_palettes / biome_palettes: the wire palette of each section (``None`` for single-value or
            direct sections); used by :func:`encode_column` as an ordering hint.
    """

    blocks: np.ndarray
    biomes: np.ndarray
    non_air: np.ndarray
    block_palettes: list[np.ndarray | None] = field(default_factory=list)
    biome_palettes: list[np.ndarray | None] = field(default_factory=list)

    @property
    def sections(self) -> int:
        """Number of 16-high sections."""
        return self.blocks.shape[0] // 16

    @classmethod
    def empty(cls, sections: int = OVERWORLD_SECTIONS, biome: int = 0) -> ChunkColumn:
        """An all-air column with one biome."""
        return cls(
            blocks=np.zeros((sections * 16, 16, 16), dtype=np.uint16),
            biomes=np.full((sections * 4, 4, 4), biome, dtype=np.uint8),
            non_air=np.zeros(sections, dtype=np.int16),
        )


def _read_container(
    r: Reader, entries: int, max_indirect: int, min_bits: int, direct_bits: int, limit: int, what: str
) -> tuple[np.ndarray, np.ndarray | None]:
    """Read one paletted container → (values[entries] as uint16, wire palette or None)."""
    start = r.pos
    bits = r.u8(f"{what}.bits_per_entry")
    if bits == 0:
        value = r.varint(f"{what}.value")
        n = r.varint(f"{what}.data_length")
        if n != 0:
            raise r.error(f"single-value container has data length {n}, expected 0", what, start)
        if not 0 <= value < limit:
            raise r.error(f"single value {value} outside 0..{limit - 1}", what, start)
        return np.full(entries, value, dtype=np.uint16), None
    palette: np.ndarray | None
    if bits <= max_indirect:
        size = r.varint(f"{what}.palette_length")
        if not 0 < size <= r.remaining:
            raise r.error(f"palette length {size} impossible", what, start)
        palette = np.fromiter((r.varint(f"{what}.palette") for _ in range(size)), dtype=np.int64, count=size)
        if palette.min() < 0 or palette.max() >= limit:
            raise r.error(f"palette entry outside 0..{limit - 1}", what, start)
        palette = palette.astype(np.uint16)
        bits = max(bits, min_bits)
    else:
        palette = None
        bits = direct_bits
    per_long = 64 // bits
    expected = -(-entries // per_long)
    n_pos = r.pos
    n = r.varint(f"{what}.data_length")
    if n != expected:
        raise r.error(f"data array has {n} longs, {bits} bits/entry needs {expected}", what, n_pos)
    r.need(8 * n, f"{what}.data")
    longs = np.frombuffer(r.data, dtype=">u8", count=n, offset=r.pos)
    r.pos += 8 * n
    idx = ((longs[:, None] >> _SHIFTS[bits]) & np.uint64((1 << bits) - 1)).reshape(-1)[:entries]
    if palette is not None:
        if int(idx.max()) >= len(palette):
            bad = int(np.argmax(idx >= len(palette)))
            raise r.error(
                f"palette index {int(idx[bad])} at entry {bad} out of range (palette has {len(palette)})",
                what,
                start,
            )
        return palette[idx], palette
    values = idx.astype(np.uint16)
    if int(idx.max()) >= limit:
        raise r.error(f"direct value {int(idx.max())} outside 0..{limit - 1}", what, start)
    return values, None


def decode_column(
    data: bytes, sections: int = OVERWORLD_SECTIONS, *, padding: Literal["vanilla", "any", "none"] = "vanilla"
) -> ChunkColumn:
    """Decode a map_chunk "chunk data" byte array into a dense :class:`ChunkColumn`.

    Args:
        data: The chunk-data byte array (without its VarInt length prefix).
        sections: Sections in the column (24 for the 1.19 overworld).
        padding: Trailing zero bytes tolerated after the last section. Vanilla sizes the array with
            ``PalettedContainer.getSerializedSize``, which counts VarInt(4096) = 2 bytes for a single-value
            block container's data length where it writes VarInt(0) = 1 byte, so a vanilla column ends with
            one zero byte per single-value block section (checked on every capture). ``"vanilla"`` accepts
            up to that many zeros, ``"any"`` any number of zeros, ``"none"`` none. Non-zero trailing bytes
            always raise.

    Raises:
        ProtocolError: truncated data, invalid bits per entry, palette index out of range, bad data length
            or leftover bytes; the message names the section and the byte offset.
    """
    r = Reader(data, context="chunk_data")
    blocks = np.empty((sections, 4096), dtype=np.uint16)
    biomes = np.empty((sections, 64), dtype=np.uint8)
    non_air = np.empty(sections, dtype=np.int16)
    bpal: list[np.ndarray | None] = []
    ipal: list[np.ndarray | None] = []
    for s in range(sections):
        non_air[s] = r.i16(f"section[{s}].non_air")
        blocks[s], p = _read_container(r, 4096, 8, 4, BLOCK_DIRECT_BITS, BLOCK_STATES, f"section[{s}].blocks")
        bpal.append(p)
        values, p = _read_container(r, 64, 3, 1, BIOME_DIRECT_BITS, BIOMES, f"section[{s}].biomes")
        biomes[s] = values
        ipal.append(p)
    if r.remaining:
        at = r.pos
        tail = r.rest()
        allowed = {"none": 0, "any": len(tail), "vanilla": sum(p is None for p in bpal)}[padding]
        if any(tail) or len(tail) > allowed:
            raise ProtocolError(
                f"chunk_data: {len(tail)} leftover byte(s) after {sections} sections at offset {at} "
                f"(padding={padding!r} allows {allowed} zero byte(s))"
            )
    return ChunkColumn(
        blocks=blocks.reshape(sections * 16, 16, 16),
        biomes=biomes.reshape(sections * 4, 4, 4),
        non_air=non_air,
        block_palettes=bpal,
        biome_palettes=ipal,
    )


def _pack(idx: np.ndarray, bits: int) -> bytes:
    per_long = 64 // bits
    n = -(-len(idx) // per_long)
    padded = np.zeros(n * per_long, dtype=np.uint64)
    padded[: len(idx)] = idx
    longs = (padded.reshape(n, per_long) << _SHIFTS[bits]).sum(axis=1, dtype=np.uint64)
    return encode_varint(n) + longs.astype(">u8").tobytes()


def _write_container(
    values: np.ndarray, hint: np.ndarray | None, max_indirect: int, min_bits: int, direct_bits: int
) -> bytes:
    uniq, first = np.unique(values, return_index=True)
    if hint is not None and len(hint) and np.isin(uniq, hint).all():
        # Vanilla never shrinks a palette: a uniform section may still carry a stale 2-entry palette
        # (seen in every captured column's biomes), so an unchanged section keeps its wire palette.
        palette = hint
    elif len(uniq) == 1:
        return b"\x00" + encode_varint(int(uniq[0])) + b"\x00"
    else:
        palette = uniq[np.argsort(first)]  # first-appearance order, like a palette grown while filling
    bits = max(min_bits, math.ceil(math.log2(len(palette))))
    if bits > max_indirect:
        return bytes((direct_bits,)) + _pack(values.astype(np.uint64), direct_bits)
    lut = np.zeros(int(palette.max()) + 1, dtype=np.uint64)
    lut[palette[::-1]] = np.arange(len(palette) - 1, -1, -1, dtype=np.uint64)  # first occurrence wins
    head = bytes((bits,)) + encode_varint(len(palette)) + b"".join(encode_varint(int(v)) for v in palette)
    return head + _pack(lut[values], bits)


def non_air_counts(blocks: np.ndarray, air_states: tuple[int, ...] = AIR_STATES) -> np.ndarray:
    """Per-section count of states that are not air/cave_air/void_air (what vanilla sends)."""
    lut = _AIR_LUT if air_states == AIR_STATES else np.isin(np.arange(1 << 16), air_states)
    sections = blocks.shape[0] // 16
    return (~lut[blocks.reshape(sections, 4096)]).sum(axis=1).astype(np.int16)


def encode_column(
    column: ChunkColumn, air_states: tuple[int, ...] = AIR_STATES, *, vanilla_padding: bool = True
) -> bytes:
    """Encode a column the way vanilla does.

    Per container: single value when uniform; otherwise an indirect palette with the minimal bits
    (blocks ≥ 4, ≤ 8; biomes 1..3), else direct (15 / 6 bits). Non-air counts are recomputed from
    ``blocks`` with ``air_states``. A section whose values are all in its remembered wire palette reuses
    that palette, so an unchanged decoded column re-encodes to the identical bytes. With
    ``vanilla_padding`` the array ends with vanilla's zero padding (one byte per single-value block
    container, see :func:`decode_column`), which makes re-encoded captures byte-identical.
    """
    sections = column.sections
    if column.blocks.shape != (sections * 16, 16, 16) or column.biomes.shape != (sections * 4, 4, 4):
        raise ProtocolError(f"chunk column arrays have shapes {column.blocks.shape} / {column.biomes.shape}")
    if int(column.blocks.max()) >= BLOCK_STATES:
        raise ProtocolError(f"block state {int(column.blocks.max())} outside 0..{BLOCK_STATES - 1}")
    counts = non_air_counts(column.blocks, air_states)
    blocks = column.blocks.reshape(sections, 4096)
    biomes = column.biomes.reshape(sections, 64)
    out = []
    for s in range(sections):
        bhint = column.block_palettes[s] if s < len(column.block_palettes) else None
        ihint = column.biome_palettes[s] if s < len(column.biome_palettes) else None
        out.append(int(counts[s]).to_bytes(2, "big", signed=True))
        out.append(_write_container(blocks[s], bhint, 8, 4, BLOCK_DIRECT_BITS))
        out.append(_write_container(biomes[s], ihint, 3, 1, BIOME_DIRECT_BITS))
    if vanilla_padding:
        out.append(bytes(sum(o[0] == 0 for o in out[1::3])))
    return b"".join(out)


# ---------------------------------------------------------------------------------------------------------
# Packets carrying chunks and light.


@dataclass
class BlockEntity:
    """A block entity inside map_chunk: packed section-relative x/z, absolute y, type id, NBT."""

    x: int
    z: int
    y: int
    type: int
    nbt: nbtlib.Compound | None = None


@dataclass
class LightData:
    """The light part shared by map_chunk and update_light (wiki.vg "Chunk Data and Update Light").

    Masks are BitSets (lists of i64, bit ``i`` = section ``i - 1``, with one extra section below and
    above the world); each light array is 2048 bytes (one nibble per block).
    """

    trust_edges: bool = True
    sky_mask: list[int] = field(default_factory=list)
    block_mask: list[int] = field(default_factory=list)
    empty_sky_mask: list[int] = field(default_factory=list)
    empty_block_mask: list[int] = field(default_factory=list)
    sky_light: list[bytes] = field(default_factory=list)
    block_light: list[bytes] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader) -> LightData:
        """Decode from ``r``."""
        return cls(
            trust_edges=r.bool("trust_edges"),
            sky_mask=r.longs("sky_light_mask"),
            block_mask=r.longs("block_light_mask"),
            empty_sky_mask=r.longs("empty_sky_light_mask"),
            empty_block_mask=r.longs("empty_block_light_mask"),
            sky_light=r.array(lambda: r.byte_array("sky_light"), "sky_light"),
            block_light=r.array(lambda: r.byte_array("block_light"), "block_light"),
        )

    def write(self, w: Writer) -> None:
        """Encode into ``w``."""
        w.bool(self.trust_edges)
        w.longs(self.sky_mask)
        w.longs(self.block_mask)
        w.longs(self.empty_sky_mask)
        w.longs(self.empty_block_mask)
        w.array(self.sky_light, w.byte_array)
        w.array(self.block_light, w.byte_array)


@packet("map_chunk")
class MapChunk(Packet):
    """Chunk Data and Update Light (0x21 in 760, 0x1F in 759). ``chunk_data`` stays raw bytes: call
    :meth:`column` (or :func:`decode_column`) to get the dense arrays."""

    x: int = 0
    z: int = 0
    heightmaps: nbtlib.Compound = field(default_factory=nbtlib.Compound)
    chunk_data: bytes = b""
    block_entities: list[BlockEntity] = field(default_factory=list)
    light: LightData = field(default_factory=LightData)

    def column(self, sections: int = OVERWORLD_SECTIONS) -> ChunkColumn:
        """Decode ``chunk_data``."""
        return decode_column(self.chunk_data, sections)

    @classmethod
    def read(cls, r: Reader, proto: int) -> MapChunk:
        x, z = r.i32("x"), r.i32("z")
        heightmaps = r.nbt("heightmaps")
        data = r.byte_array("chunk_data")

        def block_entity() -> BlockEntity:
            xz = r.u8("block_entities.xz")
            return BlockEntity(xz >> 4, xz & 15, r.i16("block_entities.y"), r.varint("block_entities.type"),
                               r.nbt("block_entities.nbt", optional=True))

        bes = r.array(block_entity, "block_entities")
        return cls(x=x, z=z, heightmaps=heightmaps, chunk_data=data, block_entities=bes, light=LightData.read(r))

    def write(self, w: Writer, proto: int) -> None:
        w.i32(self.x, "x")
        w.i32(self.z, "z")
        w.nbt(self.heightmaps, "heightmaps")
        w.byte_array(self.chunk_data)

        def block_entity(be: BlockEntity) -> None:
            w.u8(((be.x & 15) << 4) | (be.z & 15))
            w.i16(be.y, "block_entities.y")
            w.varint(be.type, "block_entities.type")
            w.nbt(be.nbt, "block_entities.nbt", optional=True)

        w.array(self.block_entities, block_entity)
        self.light.write(w)


@packet("update_light")
class UpdateLight(Packet):
    """Update Light: chunk x/z as VarInts, then the same light data as map_chunk."""

    chunk_x: int = 0
    chunk_z: int = 0
    light: LightData = field(default_factory=LightData)

    @classmethod
    def read(cls, r: Reader, proto: int) -> UpdateLight:
        return cls(chunk_x=r.varint("chunk_x"), chunk_z=r.varint("chunk_z"), light=LightData.read(r))

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.chunk_x, "chunk_x")
        w.varint(self.chunk_z, "chunk_z")
        self.light.write(w)


@packet("unload_chunk")
class UnloadChunk(Packet):
    """Unload Chunk: two i32 (x then z)."""

    chunk_x: int = wire(I32)
    chunk_z: int = wire(I32)
