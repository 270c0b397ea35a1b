"""1.18+ chunk columns on the wire: paletted containers (numpy), map_chunk, update_light, unload_chunk.

quarry 1.9.6 cannot read the 1.18+ chunk format (it silently returns garbage), so the embedded server and the
client body both use this module. A column's "chunk data" (wiki.vg "Chunk Format", 1.18+) is, per section
from the bottom (24 sections for the overworld, y = -64..319):

* i16 non-air block count (vanilla counts states that are not air, cave_air or void_air);
* block states: a paletted container of 4096 entries, index ``(y*16 + z)*16 + x``;
* biomes: a paletted container of 64 entries, index ``(y*4 + z)*4 + x``.

A paletted container is u8 bits-per-entry, a palette, then a VarInt-length-prefixed array of big-endian longs.
Bits 0 = single value (VarInt value, then a data array of length 0); blocks 1..8 = indirect (VarInt palette
length + VarInt entries, bits < 4 are widened to 4 as the vanilla client does); blocks 15 = direct
(ceil(log2(21448))); biomes 1..3 = indirect, 6 = direct (ceil(log2(63))). Other widths are rejected. Since 1.16
entries never span two longs: a long holds ``64 // bits`` entries from its least significant bits up.

Decoding scans the headers in Python, then unpacks all sections of one bit width in one numpy pass; a
column decodes to a dense ``uint16`` array indexed ``[y, z, x]`` by global block-state id. The decoded column remembers the palettes it was sent with so that
re-encoding an unchanged section reproduces vanilla's bytes exactly (vanilla's palette order is its
insertion history, which a fresh encoder cannot know).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from importlib import resources
from typing import Literal

import nbtlib
import numpy as np

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
_BLOCK_NAMES = tuple(f"section[{s}].blocks" for s in range(64))
_BIOME_NAMES = tuple(f"section[{s}].biomes" for s in range(64))
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
    block_palettes: list[list[int] | None] = field(default_factory=list)
    biome_palettes: list[list[int] | None] = field(default_factory=list)

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


def _err(what: str, field: str, offset: int) -> ProtocolError:
    return ProtocolError(f"chunk_data.{field}: {what} at offset {offset}")


def _varint(data: bytes, pos: int, end: int, what: str, suffix: str) -> tuple[int, int]:
    """Inline VarInt for the header scan (hot path: a few hundred per column; the field name
    ``what + suffix`` is only formatted on error)."""
    if pos < end:
        b = data[pos]
        if b < 0x80:
            return b, pos + 1
    result, shift = 0, 0
    while True:
        if pos >= end:
            raise _err("truncated VarInt", what + suffix, pos)
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result - (1 << 32) if result >= 1 << 31 else result), pos
        shift += 7
        if shift >= 35:
            raise _err("VarInt longer than 5 bytes", what + suffix, pos)


_Scanned = tuple[int, "int | list[int] | None", int, int, int]


def _scan_container(
    data: bytes,
    pos: int,
    end: int,
    entries: int,
    max_indirect: int,
    min_bits: int,
    direct_bits: int,
    limit: int,
    what: str,
) -> _Scanned:
    """Parse one container's header → (bits, single value | palette | None, data offset, longs, next pos).

    Only offsets are recorded here; the packed longs are unpacked later, all sections of one width at
    once, which is what makes the decoder fast.
    """
    start = pos
    if pos >= end:
        raise _err("truncated: need 1 byte(s), 0 left", what + ".bits_per_entry", pos)
    bits = data[pos]
    pos += 1
    if bits == 0:
        value, pos = _varint(data, pos, end, what, ".value")
        n, pos = _varint(data, pos, end, what, ".data_length")
        if n != 0:
            raise _err(f"single-value container has data length {n}, expected 0", what, start)
        if not 0 <= value < limit:
            raise _err(f"single value {value} outside 0..{limit - 1}", what, start)
        return 0, value, pos, 0, pos
    palette: list[int] | None
    if bits <= max_indirect:
        size, pos = _varint(data, pos, end, what, ".palette_length")
        if not 0 < size <= end - pos:
            raise _err(f"palette length {size} impossible", what, start)
        palette = []
        append = palette.append
        for _ in range(size):
            if pos < end and data[pos] < 0x80:  # one-byte VarInt fast path
                append(data[pos])
                pos += 1
                continue
            v, pos = _varint(data, pos, end, what, ".palette")
            if not 0 <= v < limit:
                raise _err(f"palette entry {v} outside 0..{limit - 1}", what + ".palette", pos)
            append(v)
        bits = max(bits, min_bits)
    elif bits == direct_bits:
        palette = None
    else:
        # Vanilla's client would read any bits > max_indirect as direct (and then fail on the data length);
        # every 1.19 writer (vanilla, prismarine-chunk, ours) sends exactly the direct width, so anything
        # else means the sender's registry or codec disagrees with ours: say so up front.
        raise _err(
            f"bits per entry {bits} invalid (expected 0, 1..{max_indirect} or {direct_bits} for direct)",
            what + ".bits_per_entry",
            start,
        )
    expected = -(-entries // (64 // bits))
    n_pos = pos
    n, pos = _varint(data, pos, end, what, ".data_length")
    if n != expected:
        raise _err(f"data array has {n} longs, {bits} bits/entry needs {expected}", what, n_pos)
    if pos + 8 * n > end:
        raise _err(f"truncated: need {8 * n} byte(s), {end - pos} left", what + ".data", pos)
    return bits, palette, pos, n, pos + 8 * n


_SENTINEL = 0xFFFF  # marks palette slots past the palette's end in lookup tables (no state id is 65535)
_LITTLE_ENDIAN = sys.byteorder == "little"


def _indices(data: bytes, items: list[tuple[int, _Scanned]], bits: int, entries: int) -> np.ndarray:
    """Palette indices ``(k, entries)`` of ``k`` containers of one width (generic u64 path)."""
    k, n = len(items), items[0][1][3]
    longs = np.frombuffer(_gather(data, items, 8 * n), dtype=">u8").reshape(k, n)
    idx = ((longs[:, :, None] >> _SHIFTS[bits]) & np.uint64((1 << bits) - 1)).reshape(k, -1)[:, :entries]
    return idx.astype(np.uint16)


def _gather(data: bytes, items: list[tuple[int, _Scanned]], size: int) -> bytes:
    """Concatenate each container's data array (bytes slicing beats one numpy call per row)."""
    return b"".join([data[sc[2] : sc[2] + size] for _, sc in items])


def _palette_error(
    data: bytes, items: list[tuple[int, _Scanned]], bits: int, entries: int, what: str
) -> ProtocolError:
    idx = _indices(data, items, bits, entries)
    for row, (s, sc) in enumerate(items):
        size = len(sc[1])  # type: ignore[arg-type]
        bad = np.flatnonzero(idx[row] >= size)
        if len(bad):
            return _err(
                f"palette index {int(idx[row, bad[0]])} at entry {int(bad[0])} out of range (palette has {size})",
                f"section[{s}].{what}",
                sc[2],
            )
    return _err("palette index out of range", what, 0)  # pragma: no cover - sentinel implies a bad index


def _unpack_group(
    data: bytes,
    items: list[tuple[int, _Scanned]],
    bits: int,
    entries: int,
    limit: int,
    out: np.ndarray,
    palettes: list[list[int] | None],
    what: str,
) -> None:
    """Unpack every container of one bit width at once into ``out[section]``.

    Indirect containers go through a ``(k, 2**bits)`` lookup table whose unused slots hold a sentinel, so one
    gather both maps and validates. 4-bit block sections (most of a vanilla column) take a faster route:
    each data byte holds two entries, so a 256-slot table per section maps a byte straight to the *pair* of
    state ids (a uint32 read back as two uint16), halving the gather and skipping the nibble split.
    """
    k, n = len(items), items[0][1][3]
    sections = [it[0] for it in items]
    if items[0][1][1] is None:  # direct
        idx = _indices(data, items, bits, entries)
        if int(idx.max()) >= limit:
            row = int(np.argmax(idx.max(axis=1) >= limit))
            raise _err(
                f"direct value {int(idx.max())} outside 0..{limit - 1}",
                f"section[{sections[row]}].{what}",
                items[row][1][2],
            )
        _store(out, sections, idx)
        return
    width = 1 << bits
    flat: list[int] = []
    for _, sc in items:
        pal: list[int] = sc[1][:width]  # type: ignore[index]  # entries past 2**bits are unreachable
        flat += pal
        flat += [_SENTINEL] * (width - len(pal))
    lut = np.array(flat, dtype=np.uint16).reshape(k, width)
    for s, sc in items:
        palettes[s] = sc[1]  # type: ignore[assignment]
    if bits == 4 and entries == 4096 and _LITTLE_ENDIAN:
        raw = np.frombuffer(_gather(data, items, 8 * n), dtype=np.uint8).reshape(k, n * 8)
        # Entry 0 sits in a long's least significant bits: reverse each long's bytes, then byte b holds
        # entries (2b, 2b+1) as (low nibble, high nibble).
        le = raw.reshape(k, n, 8)[:, :, ::-1].reshape(k, n * 8).astype(np.uint16)
        le += (np.arange(k, dtype=np.uint16) * 256)[:, None]
        p32 = lut.astype(np.uint32)
        pairs = ((p32[:, :, None] << 16) | p32[:, None, :]).reshape(-1)  # [hi, lo] -> lo | hi << 16
        values = pairs.take(le).view(np.uint16)  # (k, 4096): little-endian halves = (even, odd) entries
    else:
        idx = _indices(data, items, bits, entries)
        if k * width < 1 << 16:
            idx += (np.arange(k, dtype=np.uint16) * width)[:, None]
        else:  # pragma: no cover - only for columns far taller than the overworld
            idx = idx.astype(np.intp) + (np.arange(k, dtype=np.intp) * width)[:, None]
        values = lut.reshape(-1).take(idx)
    if int(values.max()) == _SENTINEL:
        raise _palette_error(data, items, bits, entries, what)
    _store(out, sections, values)


def _store(out: np.ndarray, sections: list[int], values: np.ndarray) -> None:
    if sections[-1] - sections[0] + 1 == len(sections):  # contiguous (the usual case): a slice is cheaper
        out[sections[0] : sections[-1] + 1] = values
    else:
        out[sections] = values


def decode_column(
    data: bytes, sections: int = OVERWORLD_SECTIONS, *, padding: Literal["vanilla", "any", "none"] = "vanilla"
) -> ChunkColumn:
    """Decode a map_chunk "chunk data" byte array into a dense :class:`ChunkColumn`.

    Two passes: a pure-Python scan of the section headers (counts, bits, palettes, data offsets), then one
    vectorised unpack per bit width covering all sections of that width.

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
    data = bytes(data)
    end = len(data)
    pos = 0
    non_air = np.empty(sections, dtype=np.int16)
    block_groups: dict[int, list[tuple[int, _Scanned]]] = {}
    biome_groups: dict[int, list[tuple[int, _Scanned]]] = {}
    block_single: list[tuple[int, int]] = []
    biome_single: list[tuple[int, int]] = []
    for s in range(sections):
        if pos + 2 > end:
            raise _err(f"truncated: need 2 byte(s), {end - pos} left", f"section[{s}].non_air", pos)
        non_air[s] = int.from_bytes(data[pos : pos + 2], "big", signed=True)
        pos += 2
        # Fast path for the commonest container, a single value with a one-byte VarInt (air, stone...).
        if pos + 3 <= end and data[pos] == 0 and data[pos + 1] < 0x80 and data[pos + 2] == 0:
            block_single.append((s, data[pos + 1]))
            pos += 3
        else:
            scanned = _scan_container(
                data,
                pos,
                end,
                4096,
                8,
                4,
                BLOCK_DIRECT_BITS,
                BLOCK_STATES,
                _BLOCK_NAMES[s] if s < 64 else f"section[{s}].blocks",
            )
            if scanned[0] == 0:
                block_single.append((s, scanned[1]))  # type: ignore[arg-type]
            else:
                block_groups.setdefault(scanned[0], []).append((s, scanned))
            pos = scanned[4]
        scanned = _scan_container(
            data,
            pos,
            end,
            64,
            3,
            1,
            BIOME_DIRECT_BITS,
            BIOMES,
            _BIOME_NAMES[s] if s < 64 else f"section[{s}].biomes",
        )
        if scanned[0] == 0:
            biome_single.append((s, scanned[1]))  # type: ignore[arg-type]
        else:
            biome_groups.setdefault(scanned[0], []).append((s, scanned))
        pos = scanned[4]
    if pos < end:
        tail = data[pos:]
        allowed = {"none": 0, "any": len(tail), "vanilla": len(block_single)}[padding]
        if any(tail) or len(tail) > allowed:
            raise ProtocolError(
                f"chunk_data: {len(tail)} leftover byte(s) after {sections} sections at offset {pos} "
                f"(padding={padding!r} allows {allowed} zero byte(s))"
            )
    blocks = np.empty((sections, 4096), dtype=np.uint16)
    biomes = np.empty((sections, 64), dtype=np.uint8)
    bpal: list[list[int] | None] = [None] * sections
    ipal: list[list[int] | None] = [None] * sections
    for s, value in block_single:
        blocks[s] = value
    for s, value in biome_single:
        biomes[s] = value
    for bits, items in block_groups.items():
        _unpack_group(data, items, bits, 4096, BLOCK_STATES, blocks, bpal, "blocks")
    for bits, items in biome_groups.items():
        _unpack_group(data, items, bits, 64, BIOMES, biomes, ipal, "biomes")
    return ChunkColumn(
        blocks=blocks.reshape(sections * 16, 16, 16),
        biomes=biomes.reshape(sections * 4, 4, 4),
        non_air=non_air,
        block_palettes=bpal,
        biome_palettes=ipal,
    )


def _pack(idx: np.ndarray, bits: int) -> bytes:
    """Pack palette indices into VarInt(count) + big-endian longs (entries never span longs)."""
    per_long = 64 // bits
    n = -(-len(idx) // per_long)
    if bits == 4:  # nibble fast path, the inverse of the decoder's
        padded = np.zeros(n * 16, dtype=np.uint8)
        padded[: len(idx)] = idx
        le = padded[0::2] | (padded[1::2] << 4)
        return encode_varint(n) + le.reshape(n, 8)[:, ::-1].tobytes()
    padded64 = np.zeros(n * per_long, dtype=np.uint64)
    padded64[: len(idx)] = idx
    longs = (padded64.reshape(n, per_long) << _SHIFTS[bits]).sum(axis=1, dtype=np.uint64)
    return encode_varint(n) + longs.astype(">u8").tobytes()


def _indirect(palette: np.ndarray, idx: np.ndarray, max_indirect: int, min_bits: int) -> bytes | None:
    bits = max(min_bits, (len(palette) - 1).bit_length())
    if bits > max_indirect:
        return None
    head = bytes((bits,)) + encode_varint(len(palette)) + b"".join(encode_varint(int(v)) for v in palette)
    return head + _pack(idx, bits)


def _write_container(
    values: np.ndarray, hint_list: list[int] | None, max_indirect: int, min_bits: int, direct_bits: int
) -> bytes:
    top = int(values.max())
    if hint_list:
        hint = np.asarray(hint_list, dtype=np.uint16)
        # Vanilla never shrinks a palette: a uniform section may still carry a stale 2-entry palette
        # (seen in every captured column's biomes), so an unchanged section keeps its wire palette.
        lut = np.full(max(top, int(hint.max())) + 1, -1, dtype=np.int32)
        lut[hint[::-1]] = np.arange(len(hint) - 1, -1, -1, dtype=np.int32)  # first occurrence wins
        idx = lut[values]
        if int(idx.min()) >= 0:
            out = _indirect(hint, idx, max_indirect, min_bits)
            if out is not None:
                return out
    if int(values.min()) == top:
        return b"\x00" + encode_varint(top) + b"\x00"
    uniq, first = np.unique(values, return_index=True)
    if len(uniq) <= 1 << max_indirect:
        palette = uniq[np.argsort(first)]  # first-appearance order, like a palette grown while filling
        lut = np.zeros(top + 1, dtype=np.int32)
        lut[palette] = np.arange(len(palette), dtype=np.int32)
        out = _indirect(palette, lut[values], max_indirect, min_bits)
        if out is not None:
            return out
    return bytes((direct_bits,)) + _pack(values, direct_bits)


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
            return BlockEntity(
                xz >> 4,
                xz & 15,
                r.i16("block_entities.y"),
                r.varint("block_entities.type"),
                r.nbt("block_entities.nbt", optional=True),
            )

        bes = r.array(block_entity, "block_entities")
        return cls(
            x=x, z=z, heightmaps=heightmaps, chunk_data=data, block_entities=bes, light=LightData.read(r)
        )

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
