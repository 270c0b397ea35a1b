"""Region files (``r.<rx>.<rz>.mca``): 32x32 chunks in 4 KiB sectors, used for both ``region/`` and ``entities/``.

Layout (https://minecraft.wiki/w/Region_file_format):

* bytes 0..4095: 1024 big-endian locations, 3 bytes sector offset + 1 byte sector count, index
  ``(cx & 31) + (cz & 31) * 32``; 0 means "chunk absent";
* bytes 4096..8191: 1024 big-endian int32 timestamps (seconds, informational);
* each chunk: int32 length (counting the compression byte), 1 byte compression type (1 gzip, 2 zlib,
  3 uncompressed; +128 means "stored in an external ``c.x.z.mcc`` file"), then the payload, padded to a
  whole number of sectors.

We write zlib (type 2) like vanilla, and build each file whole in a temporary file that is renamed over the
old one, so a crash never leaves a half-written region. Timestamps are caller-supplied (default 0) so that
builds are byte-for-byte reproducible.
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import nbtlib

from mirrorcraft.errors import WorldError

SECTOR = 4096
HEADER_BYTES = 2 * SECTOR
COMPRESSION_GZIP = 1
COMPRESSION_ZLIB = 2
COMPRESSION_NONE = 3
EXTERNAL_FLAG = 128


def region_name(rx: int, rz: int) -> str:
    """File name of region ``(rx, rz)``."""
    return f"r.{rx}.{rz}.mca"


def region_of(cx: int, cz: int) -> tuple[int, int]:
    """Region coordinates holding chunk ``(cx, cz)``."""
    return cx >> 5, cz >> 5


def nbt_to_bytes(tag: nbtlib.Compound) -> bytes:
    """Serialise a compound as an unnamed root tag (what Anvil chunks and level.dat hold)."""
    buf = io.BytesIO()
    nbtlib.File(tag, root_name="").write(buf)
    return buf.getvalue()


def nbt_from_bytes(data: bytes, what: str) -> nbtlib.Compound:
    """Parse an uncompressed NBT root compound, raising :class:`WorldError` that names ``what``.

    Args:
        data: The raw NBT bytes.
        what: Description for the error message (e.g. ``"region/r.0.0.mca chunk (3, 4)"``).
    """
    buf = io.BytesIO(data)
    try:
        tag = nbtlib.File.parse(buf)
    except Exception as err:  # nbtlib raises struct.error, TypeError, UnicodeDecodeError...
        raise WorldError(f"{what}: malformed NBT ({type(err).__name__}: {err})") from err
    if buf.tell() != len(data):
        # nbtlib's array parse silently accepts short reads; a short buffer means a truncated payload.
        raise WorldError(f"{what}: NBT ends at byte {buf.tell()} but payload has {len(data)} bytes")
    return nbtlib.Compound(tag)


@dataclass
class RawChunk:
    """One chunk slot of a region file, still compressed."""

    compression: int
    payload: bytes
    timestamp: int = 0

    def decompress(self, what: str) -> bytes:
        """Return the uncompressed NBT bytes.

        Raises:
            WorldError: Unknown compression type, external ``.mcc`` storage, or corrupt stream.
        """
        if self.compression & EXTERNAL_FLAG:
            raise WorldError(f"{what}: chunk stored in an external .mcc file (type {self.compression})")
        try:
            if self.compression == COMPRESSION_ZLIB:
                return zlib.decompress(self.payload)
            if self.compression == COMPRESSION_GZIP:
                return gzip.decompress(self.payload)
            if self.compression == COMPRESSION_NONE:
                return self.payload
        except (zlib.error, OSError, EOFError) as err:
            raise WorldError(f"{what}: corrupt compressed data ({err})") from err
        raise WorldError(f"{what}: unknown compression type {self.compression} (expected 1, 2 or 3)")


@dataclass
class RegionFile:
    """The parsed contents of one region file: chunk slots by local ``(lx, lz)``."""

    path: Path
    chunks: dict[tuple[int, int], RawChunk] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> RegionFile:
        """Parse a region file's header and slice out every present chunk.

        Raises:
            WorldError: Header shorter than 8 KiB, a location pointing into the header or past the end of
                the file, or a length field that does not fit its sectors.
        """
        path = Path(path)
        data = path.read_bytes()
        region = cls(path)
        if len(data) == 0:
            return region  # vanilla leaves empty files behind; they hold no chunks
        if len(data) < HEADER_BYTES:
            raise WorldError(f"{path}: corrupt region header ({len(data)} bytes, need {HEADER_BYTES})")
        locations = struct.unpack(">1024I", data[:SECTOR])
        stamps = struct.unpack(">1024i", data[SECTOR:HEADER_BYTES])
        n_sectors = -(-len(data) // SECTOR)
        for index, loc in enumerate(locations):
            if loc == 0:
                continue
            lx, lz = index & 31, index >> 5
            what = f"{path} chunk slot ({lx}, {lz})"
            offset, count = loc >> 8, loc & 0xFF
            if offset < 2 or count == 0:
                raise WorldError(f"{what}: corrupt region header (sector offset {offset}, count {count})")
            if offset + count > n_sectors:
                raise WorldError(
                    f"{what}: sectors {offset}..{offset + count - 1} lie past the end of the file "
                    f"({n_sectors} sectors) - truncated region"
                )
            start = offset * SECTOR
            if start + 5 > len(data):
                raise WorldError(f"{what}: truncated chunk header at byte {start}")
            length, ctype = struct.unpack(">iB", data[start : start + 5])
            if length < 1 or length + 4 > count * SECTOR:
                raise WorldError(
                    f"{what}: chunk length {length} at byte {start} does not fit its {count} sector(s)"
                )
            end = start + 4 + length
            if end > len(data):
                raise WorldError(
                    f"{what}: truncated chunk ({length} bytes declared, file ends at {len(data)})"
                )
            region.chunks[(lx, lz)] = RawChunk(ctype, data[start + 5 : end], stamps[index])
        return region

    def write(self) -> None:
        """Write all slots to ``self.path`` through a temporary file and an atomic rename."""
        header = bytearray(HEADER_BYTES)
        body = bytearray()
        next_sector = 2
        for (lx, lz), raw in sorted(self.chunks.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            blob = struct.pack(">iB", len(raw.payload) + 1, raw.compression) + raw.payload
            count = -(-len(blob) // SECTOR)
            if count > 255:
                raise WorldError(f"{self.path} chunk slot ({lx}, {lz}): {len(blob)} bytes exceed 255 sectors")
            blob += bytes(count * SECTOR - len(blob))
            index = lx + lz * 32
            struct.pack_into(">I", header, index * 4, (next_sector << 8) | count)
            struct.pack_into(">i", header, SECTOR + index * 4, raw.timestamp)
            body += blob
            next_sector += count
        atomic_write(self.path, bytes(header) + bytes(body))


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; saves are shared with servers run as other users
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def compress_chunk(nbt_bytes: bytes, timestamp: int = 0) -> RawChunk:
    """zlib-compress (type 2, vanilla's choice) an uncompressed chunk payload."""
    return RawChunk(COMPRESSION_ZLIB, zlib.compress(nbt_bytes, 6), timestamp)
