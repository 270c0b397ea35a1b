"""1.18+ chunk codec on every captured vanilla column (1.19.2 and 1.19), checked three independent ways.

1. The per-section non-air counts vanilla put in the packet equal the counts of our dense array.
2. The packet's own WORLD_SURFACE heightmap (highest non-air block per x/z column) equals ours.
3. prismarine-chunk 1.41.0 (node) reads the same bytes to the same 98,304 block states and 1,536 biomes.

Re-encoding a decoded capture reproduces vanilla's bytes exactly (palette order kept, vanilla's zero
padding reproduced); a fresh encode without palette hints round-trips to identical dense arrays.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol import ChunkColumn, decode_column, decode_frame, encode_column
from mirrorcraft.protocol.buffer import encode_varint
from mirrorcraft.protocol.chunks import AIR_STATES, MapChunk, non_air_counts

ROOT = (
    Path(__file__).resolve().parents[2]
    / "node_modules"
    / "minecraft-packets"
    / "minecraft-packets"
    / "data"
    / "pc"
)
COLUMNS = (
    [
        (v, p)
        for v in ("1.19.2", "1.19")
        for p in sorted((ROOT / v / "from-server" / "map_chunk").glob("*.raw"))
    ]
    if ROOT.exists()
    else []
)
IDS = [f"{v}-{p.stem}" for v, p in COLUMNS]


def _packet(version: str, path: Path) -> MapChunk:
    pkt = decode_frame(path.read_bytes(), 760 if version == "1.19.2" else 759)
    assert isinstance(pkt, MapChunk)
    return pkt


def test_captures_present() -> None:
    assert len(COLUMNS) == 10


@pytest.mark.parametrize(("version", "path"), COLUMNS, ids=IDS)
def test_column_counts_padding_and_exact_reencode(version: str, path: Path) -> None:
    pkt = _packet(version, path)
    col = pkt.column()
    assert col.blocks.shape == (384, 16, 16) and col.blocks.dtype == np.uint16
    assert col.biomes.shape == (96, 4, 4)
    np.testing.assert_array_equal(non_air_counts(col.blocks), col.non_air)
    # Vanilla pads with one zero byte per single-value block container (see decode_column's docstring).
    strict_len = len(encode_column(col, vanilla_padding=False))
    tail = pkt.chunk_data[strict_len:]
    assert set(tail) <= {0} and len(tail) == sum(p is None for p in col.block_palettes) > 0
    assert encode_column(col) == pkt.chunk_data


@pytest.mark.parametrize(("version", "path"), COLUMNS, ids=IDS)
def test_fresh_encode_roundtrips_dense_arrays(version: str, path: Path) -> None:
    col = _packet(version, path).column()
    fresh = ChunkColumn(col.blocks.copy(), col.biomes.copy(), col.non_air.copy())  # no palette hints
    again = decode_column(encode_column(fresh))
    np.testing.assert_array_equal(again.blocks, col.blocks)
    np.testing.assert_array_equal(again.biomes, col.biomes)
    np.testing.assert_array_equal(again.non_air, col.non_air)


def _heightmap(longs: np.ndarray, bits: int = 9) -> np.ndarray:
    per = 64 // bits
    vals = [(int(v) & (2**64 - 1)) >> (bits * k) & ((1 << bits) - 1) for v in longs for k in range(per)]
    return np.array(vals[:256]).reshape(16, 16)


@pytest.mark.parametrize(("version", "path"), COLUMNS, ids=IDS)
def test_world_surface_heightmap_matches_blocks(version: str, path: Path) -> None:
    pkt = _packet(version, path)
    col = pkt.column()
    solid = ~np.isin(col.blocks, AIR_STATES)  # [y, z, x]
    top = np.where(solid.any(axis=0), 383 - np.argmax(solid[::-1], axis=0) + 1, 0)  # relative to y=-64
    np.testing.assert_array_equal(_heightmap(np.asarray(pkt.heightmaps["WORLD_SURFACE"])), top)


PRISMARINE_DUMP = r"""
const fs = require('fs')
const Vec3 = require('vec3')
const Chunk = require('prismarine-chunk')(process.argv[2])
for (const [inp, out] of JSON.parse(fs.readFileSync(0, 'utf8'))) {
  const c = new Chunk({ minY: -64, worldHeight: 384 })
  c.load(fs.readFileSync(inp))
  const blocks = new Uint16Array(384 * 256)
  const biomes = new Uint16Array(96 * 16)
  const p = new Vec3(0, 0, 0)
  for (let y = -64; y < 320; y++) for (let z = 0; z < 16; z++) for (let x = 0; x < 16; x++) {
    p.x = x; p.y = y; p.z = z
    blocks[(y + 64) * 256 + z * 16 + x] = c.getBlockStateId(p)
    if ((x & 3) === 0 && (y & 3) === 0 && (z & 3) === 0) biomes[((y + 64) >> 2) * 16 + (z >> 2) * 4 + (x >> 2)] = c.getBiome(p)
  }
  fs.writeFileSync(out, Buffer.concat([Buffer.from(blocks.buffer), Buffer.from(biomes.buffer)]))
}
"""


@pytest.mark.npm
@pytest.mark.parametrize("version", ["1.19.2", "1.19"])
def test_prismarine_chunk_reads_the_same_states(node_modules: Path, tmp_path: Path, version: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the prismarine-chunk cross-check")
    script = tmp_path / "dump.js"
    script.write_text(PRISMARINE_DUMP)
    jobs, cols = [], []
    for v, path in COLUMNS:
        if v != version:
            continue
        pkt = _packet(v, path)
        src = tmp_path / f"{path.stem}.bin"
        src.write_bytes(pkt.chunk_data)
        jobs.append([str(src), str(tmp_path / f"{path.stem}.out")])
        cols.append(pkt.column())
    import json

    subprocess.run(
        [node, str(script), version],
        input=json.dumps(jobs),
        text=True,
        check=True,
        timeout=300,
        cwd=node_modules.parent,
        env={"NODE_PATH": str(node_modules), "PATH": "/usr/bin:/bin"},
    )
    for (_, out), col in zip(jobs, cols, strict=True):
        raw = np.frombuffer(Path(out).read_bytes(), dtype="<u2")
        np.testing.assert_array_equal(raw[: 384 * 256].reshape(384, 16, 16), col.blocks)
        np.testing.assert_array_equal(raw[384 * 256 :].reshape(96, 4, 4), col.biomes)


# ------------------------------------------------------------------------------------------ encoder choices


def _column(blocks_fill: np.ndarray | None = None) -> ChunkColumn:
    col = ChunkColumn.empty(sections=1, biome=1)
    if blocks_fill is not None:
        col.blocks[:] = blocks_fill.reshape(16, 16, 16)
    return col


def test_encoder_uses_single_value_indirect_and_direct_like_vanilla() -> None:
    uniform = encode_column(_column(), vanilla_padding=False)
    # non-air 0, bits 0, value 0, data length 0; biomes bits 0, value 1, length 0
    assert uniform == b"\x00\x00" + b"\x00\x00\x00" + b"\x00\x01\x00"
    two = np.zeros(4096, dtype=np.uint16)
    two[5] = 1  # one stone block
    data = encode_column(_column(two), vanilla_padding=False)
    assert data[:2] == b"\x00\x01" and data[2] == 4  # 4 bits minimum
    assert data[3:6] == b"\x02\x00\x01"  # palette [air, stone] in first-appearance order
    many = (np.arange(4096) % 300 + 1).astype(np.uint16)
    data = encode_column(_column(many), vanilla_padding=False)
    assert data[2] == 15 and data[3:5] == encode_varint(1024)  # direct: 4096 entries / 4 per long
    col = _column(many)
    col.biomes.reshape(-1)[:5] = [2, 3, 4, 5, 6]
    back = decode_column(encode_column(col), sections=1)
    np.testing.assert_array_equal(back.blocks, col.blocks)
    np.testing.assert_array_equal(back.biomes, col.biomes)
    assert back.biome_palettes[0] is not None and len(back.biome_palettes[0]) == 6  # 3 bits indirect


def test_encoder_rejects_unknown_states() -> None:
    col = _column()
    col.blocks[0, 0, 0] = 30000
    with pytest.raises(ProtocolError, match="block state 30000"):
        encode_column(col)


# ------------------------------------------------------------------------------------------------ bad input


@pytest.fixture(scope="module")
def vanilla_data() -> bytes:
    version, path = COLUMNS[0]
    return _packet(version, path).chunk_data


def test_truncated_chunk_raises(vanilla_data: bytes) -> None:
    with pytest.raises(ProtocolError, match=r"section\[\d+\].*truncated|truncated"):
        decode_column(vanilla_data[: len(vanilla_data) // 2])


def test_palette_index_out_of_range_raises() -> None:
    # one section: 4 bits, palette [1] (length 1), but the data indexes entry 1
    longs = (np.full(256, 0x1111111111111111, dtype=np.uint64)).astype(">u8").tobytes()
    bad = b"\x10\x00" + b"\x04\x01\x01" + encode_varint(256) + longs + b"\x00\x01\x00"
    with pytest.raises(ProtocolError, match="palette index 1 .* out of range"):
        decode_column(bad, sections=1)


def test_wrong_data_length_and_bad_values_raise() -> None:
    bad = b"\x10\x00" + b"\x04\x01\x01" + encode_varint(255) + bytes(255 * 8) + b"\x00\x01\x00"
    with pytest.raises(ProtocolError, match="255 longs"):
        decode_column(bad, sections=1)
    with pytest.raises(ProtocolError, match="single value 30000"):
        decode_column(b"\x00\x00\x00" + encode_varint(30000) + b"\x00\x00\x01\x00", sections=1)
    with pytest.raises(ProtocolError, match="data length 3"):
        decode_column(b"\x00\x00\x00\x01\x03", sections=1)


def test_invalid_bits_per_entry_raises() -> None:
    with pytest.raises(
        ProtocolError, match=r"section\[0\]\.blocks\.bits_per_entry: bits per entry 9 invalid"
    ):
        decode_column(b"\x00\x00\x09" + encode_varint(1024) + bytes(8192) + b"\x00\x01\x00", sections=1)
    with pytest.raises(ProtocolError, match="biomes.bits_per_entry: bits per entry 4 invalid"):
        decode_column(b"\x00\x00\x00\x00\x00\x04" + encode_varint(4) + bytes(32), sections=1)


def test_trailing_garbage_raises(vanilla_data: bytes) -> None:
    with pytest.raises(ProtocolError, match="leftover"):
        decode_column(vanilla_data + b"\x07")
    with pytest.raises(ProtocolError, match="leftover"):
        decode_column(vanilla_data, padding="none")
    decode_column(vanilla_data + bytes(40), padding="any")
    with pytest.raises(ProtocolError, match="leftover"):
        decode_column(vanilla_data + bytes(40))


@pytest.mark.parametrize(("version", "path"), COLUMNS[:2], ids=IDS[:2])
def test_edited_column_reencodes_with_new_palette(version: str, path: Path) -> None:
    col = _packet(version, path).column()
    before = non_air_counts(col.blocks)
    s = next(i for i, p in enumerate(col.block_palettes) if p is None and col.blocks[i * 16, 0, 0] == 0)
    col.blocks[s * 16 + 5, 3, 7] = 1  # a stone block into an all-air single-value section
    col.blocks[0, 0, 0] = 21447  # the highest state id, not in section 0's palette
    back = decode_column(encode_column(col))
    np.testing.assert_array_equal(back.blocks, col.blocks)
    assert back.non_air[s] == before[s] + 1 == 1
    assert back.block_palettes[s] is not None and list(back.block_palettes[s]) == [0, 1]


def test_direct_value_outside_registry_raises() -> None:
    # blocks: direct 15 bits, 4 entries per long; the first entry is 30000 (> 21447)
    longs = np.zeros(1024, dtype=np.uint64)
    longs[0] = 30000
    bad = b"\x10\x00\x0f" + encode_varint(1024) + longs.astype(">u8").tobytes() + b"\x00\x01\x00"
    with pytest.raises(
        ProtocolError, match=r"section\[0\]\.blocks: direct value 30000 outside 0..21447 at offset 5"
    ):
        decode_column(bad, sections=1)
