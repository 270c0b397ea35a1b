"""The login registry codec (dimension types, biomes, chat types) as exact vanilla bytes.

A 1.19.x client refuses to join unless the ``login`` packet carries a registry codec it can parse, and
the biome ids inside it are the ids chunk sections use. Rather than rebuild the codec by hand (and risk a
silent difference), we vendor the exact NBT bytes a vanilla server sent in the ``minecraft-packets``
captures for 1.19.2 (protocol 760) and 1.19 (protocol 759). ``scripts/regen_gamedata.py`` extracts them
with :func:`extract_registry_codec`; the tests re-extract from the captures and compare byte for byte.
"""

from __future__ import annotations

import gzip
import struct
from functools import cache
from typing import TYPE_CHECKING

from mirrorcraft.errors import GameDataError, ProtocolError
from mirrorcraft.gamedata._data import DATA_DIR

if TYPE_CHECKING:  # nbtlib is only imported when a parsed codec is asked for.
    import nbtlib

#: Protocol numbers we have a captured codec for.
CODEC_PROTOCOLS: tuple[int, ...] = (760, 759)

# Payload sizes of the fixed-width NBT tags (wiki.vg "NBT": byte, short, int, long, float, double).
_FIXED = {1: 1, 2: 2, 3: 4, 4: 8, 5: 4, 6: 8}
# Element sizes of the array tags: byte array, int array, long array.
_ARRAY = {7: 1, 11: 4, 12: 8}


def _read_varint(data: bytes, offset: int, what: str) -> tuple[int, int]:
    """Decode one protocol VarInt at ``offset``; returns (value, new offset)."""
    value = 0
    for shift in range(0, 35, 7):
        if offset >= len(data):
            raise ProtocolError(f"truncated VarInt ({what}) at offset {offset}")
        b = data[offset]
        offset += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return (value - (1 << 32) if value >= 1 << 31 else value), offset
    raise ProtocolError(f"VarInt longer than 5 bytes ({what}) at offset {offset}")


def _need(data: bytes, offset: int, size: int, what: str) -> None:
    if offset + size > len(data):
        raise ProtocolError(
            f"truncated NBT: {what} needs {size} bytes at offset {offset}, {len(data)} available"
        )


def _skip_payload(data: bytes, offset: int, tag: int, depth: int = 0) -> int:
    """Return the offset just past the payload of a tag of type ``tag`` starting at ``offset``."""
    if depth > 512:
        raise ProtocolError(f"NBT nested deeper than 512 levels at offset {offset}")
    if tag in _FIXED:
        _need(data, offset, _FIXED[tag], f"tag type {tag}")
        return offset + _FIXED[tag]
    if tag in _ARRAY:
        _need(data, offset, 4, "array length")
        (n,) = struct.unpack_from(">i", data, offset)
        if n < 0:
            raise ProtocolError(f"negative NBT array length {n} at offset {offset}")
        _need(data, offset + 4, n * _ARRAY[tag], "array body")
        return offset + 4 + n * _ARRAY[tag]
    if tag == 8:  # string: unsigned short length + modified UTF-8
        _need(data, offset, 2, "string length")
        (n,) = struct.unpack_from(">H", data, offset)
        _need(data, offset + 2, n, "string body")
        return offset + 2 + n
    if tag == 9:  # list: element type byte + int count + payloads
        _need(data, offset, 5, "list header")
        elem = data[offset]
        (n,) = struct.unpack_from(">i", data, offset + 1)
        offset += 5
        for _ in range(max(n, 0)):
            offset = _skip_payload(data, offset, elem, depth + 1)
        return offset
    if tag == 10:  # compound: named tags until TAG_End
        while True:
            _need(data, offset, 1, "compound entry type")
            child = data[offset]
            offset += 1
            if child == 0:
                return offset
            offset = _skip_payload(data, offset, 8, depth + 1)  # the name is a string
            offset = _skip_payload(data, offset, child, depth + 1)
    raise ProtocolError(f"unknown NBT tag type {tag} at offset {offset - 1}")


def nbt_end(data: bytes, offset: int) -> int:
    """Offset just past a named root NBT tag (1.19.x network NBT keeps the root's empty name).

    Args:
        data: The buffer.
        offset: Where the root tag's type byte is.

    Returns:
        The offset of the first byte after the tag.

    Raises:
        ProtocolError: Truncated or malformed NBT (the message gives the offset).
    """
    _need(data, offset, 1, "root tag type")
    tag = data[offset]
    if tag == 0:
        return offset + 1
    offset = _skip_payload(data, offset + 1, 8)  # root name
    return _skip_payload(data, offset, tag)


def extract_registry_codec(login_raw: bytes, protocol: int = 760) -> bytes:
    """Cut the registry codec NBT out of a captured ``login`` (Join Game) packet.

    The capture holds the VarInt packet id followed by the uncompressed body. For protocols 759/760
    the body starts (wiki.vg, "Login (play)", 1.19 / 1.19.2 pages): entity id (int), is hardcore
    (bool), game mode (ubyte), previous game mode (byte), dimension count (VarInt) and that many
    identifier strings, then the registry codec as a root compound.

    Args:
        login_raw: The packet bytes (id + body).
        protocol: 759 or 760.

    Returns:
        The exact NBT bytes of the codec.

    Raises:
        ProtocolError: The bytes are not a login packet of that layout.
        GameDataError: Unsupported protocol.
    """
    if protocol not in CODEC_PROTOCOLS:
        raise GameDataError(f"no registry codec layout for protocol {protocol}; known: {CODEC_PROTOCOLS}")
    _, off = _read_varint(login_raw, 0, "packet id")
    off += 4 + 1 + 1 + 1  # entity id, hardcore, game mode, previous game mode
    count, off = _read_varint(login_raw, off, "dimension count")
    if not 0 <= count <= 1024:
        raise ProtocolError(f"implausible dimension count {count} in login packet at offset {off}")
    for i in range(count):
        n, off = _read_varint(login_raw, off, f"dimension name {i} length")
        off += n
    if off >= len(login_raw) or login_raw[off] != 10:
        raise ProtocolError(
            f"login packet: expected a compound (type 10) for the registry codec at offset {off}"
        )
    end = nbt_end(login_raw, off)
    return login_raw[off:end]


@cache
def registry_codec(protocol: int = 760) -> bytes:
    """The vanilla login registry codec NBT bytes for ``protocol`` (760 = 1.19.2, 759 = 1.19).

    Raises:
        GameDataError: No vendored codec for that protocol.
    """
    if protocol not in CODEC_PROTOCOLS:
        raise GameDataError(f"no vendored registry codec for protocol {protocol}; known: {CODEC_PROTOCOLS}")
    path = DATA_DIR / f"registry_codec_{protocol}.nbt.gz"
    try:
        return gzip.decompress(path.read_bytes())
    except OSError as err:
        raise GameDataError(f"cannot read vendored registry codec {path}: {err}") from err


def registry_codec_nbt(protocol: int = 760) -> nbtlib.Compound:
    """The registry codec parsed with nbtlib (a fresh copy each call, so callers may edit it).

    Raises:
        GameDataError: No vendored codec for that protocol.
    """
    import io

    import nbtlib

    return nbtlib.File.parse(io.BytesIO(registry_codec(protocol)))


@cache
def codec_registry_ids(registry: str, protocol: int = 760) -> dict[str, int]:
    """Name → id of one registry inside the codec, e.g. ``minecraft:worldgen/biome``.

    Raises:
        GameDataError: The codec has no such registry.
    """
    root = registry_codec_nbt(protocol)
    key = registry if ":" in registry else f"minecraft:{registry}"
    if key not in root:
        raise GameDataError(f"registry codec ({protocol}) has no registry {key!r}; has {sorted(root)}")
    return {str(e["name"]): int(e["id"]) for e in root[key]["value"]}
