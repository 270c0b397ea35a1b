"""The vendored login registry codec equals the vanilla captures byte for byte (1.19.2 and 1.19)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from mirrorcraft import gamedata as gd
from mirrorcraft.errors import GameDataError, ProtocolError
from mirrorcraft.gamedata.codec import nbt_end


def _varint(data: bytes, off: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[off]
        off += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, off


def _string(data: bytes, off: int) -> tuple[str, int]:
    n, off = _varint(data, off)
    return data[off : off + n].decode(), off + n


def _check_tail(raw: bytes, off: int, decoded: dict[str, Any]) -> None:
    """Decode the login fields after the codec (wiki.vg 1.19/1.19.2) and check they end the packet."""
    world_type, off = _string(raw, off)
    world_name, off = _string(raw, off)
    assert world_type == decoded["worldType"] and world_name == decoded["worldName"]
    off += 8  # hashed seed
    for field in ("maxPlayers", "viewDistance", "simulationDistance"):
        value, off = _varint(raw, off)
        assert value == decoded[field], field
    flags = raw[off : off + 4]
    off += 4
    assert list(flags) == [
        decoded["reducedDebugInfo"],
        decoded["enableRespawnScreen"],
        decoded["isDebug"],
        decoded["isFlat"],
    ]
    has_death = raw[off]
    off += 1
    if has_death:
        _, off = _string(raw, off)
        off += 8
    assert off == len(raw), f"{len(raw) - off} bytes left after the login fields"


def _plain(tag: Any) -> Any:
    """nbtlib value → plain Python, comparable with prismarine-nbt's simplified JSON."""
    if isinstance(tag, dict):
        return {k: _plain(v) for k, v in tag.items()}
    if isinstance(tag, list):
        return [_plain(v) for v in tag]
    if isinstance(tag, str):
        return str(tag)
    if isinstance(tag, float):
        return float(tag)
    return int(tag)


def _simplify(node: dict[str, Any]) -> Any:
    """prismarine-nbt's typed JSON ({type, value}) → plain Python."""
    kind, value = node["type"], node["value"]
    if kind == "compound":
        return {k: _simplify(v) for k, v in value.items()}
    if kind == "list":
        return [_simplify({"type": value["type"], "value": v}) for v in value["value"]]
    if kind == "float":
        return struct.unpack(">f", struct.pack(">f", value))[0]
    if kind == "long":
        return (value[0] << 32) | (value[1] & 0xFFFFFFFF) if isinstance(value, list) else value
    return value


@pytest.mark.parametrize(("protocol", "fixture"), [(760, "packets_dir"), (759, "packets_dir_1_19")])
def test_codec_bytes_equal_capture(protocol: int, fixture: str, request: pytest.FixtureRequest) -> None:
    folder: Path = request.getfixturevalue(fixture) / "from-server" / "login"
    raw = (folder / "1.raw").read_bytes()
    decoded = json.loads((folder / "1.json").read_text())
    codec = gd.registry_codec(protocol)
    extracted = gd.extract_registry_codec(raw, protocol)
    assert codec == extracted
    start = raw.index(codec)
    assert raw.count(codec) == 1
    # The codec is followed by exactly the remaining documented login fields: the cut is right.
    _check_tail(raw, start + len(codec), decoded)
    # And its content matches node-minecraft-protocol's independent NBT decode of the same packet.
    parsed = gd.registry_codec_nbt(protocol)
    assert _plain(parsed) == _simplify(decoded["dimensionCodec"])


def test_codec_contents() -> None:
    root = gd.registry_codec_nbt(760)
    assert set(root) == {"minecraft:chat_type", "minecraft:dimension_type", "minecraft:worldgen/biome"}
    dims = gd.codec_registry_ids("dimension_type")
    assert {"minecraft:overworld", "minecraft:the_nether", "minecraft:the_end"} <= set(dims)
    biomes = gd.codec_registry_ids("minecraft:worldgen/biome")
    assert biomes["minecraft:plains"] == 1 and len(biomes) == 63
    for name, bid in biomes.items():
        assert gd.biome(name).id == bid
    assert len(gd.registry_codec(760)) == nbt_end(gd.registry_codec(760), 0)


def test_codec_errors() -> None:
    with pytest.raises(GameDataError, match="protocol 758"):
        gd.registry_codec(758)
    with pytest.raises(ProtocolError, match="truncated"):
        nbt_end(gd.registry_codec(760)[:-10], 0)
    with pytest.raises(ProtocolError, match="expected a compound"):
        gd.extract_registry_codec(b"\x25" + bytes(7) + b"\x00" + b"\x08", 760)
