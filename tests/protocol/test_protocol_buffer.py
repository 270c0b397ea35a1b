"""Buffer primitives: reference vectors from wiki.vg "Protocol" (VarInt/VarLong/Position examples) and
errors that name the field and the offset."""

from __future__ import annotations

import uuid

import nbtlib
import pytest

from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol import Reader, Slot, Writer, decode, encode
from mirrorcraft.protocol import clientbound as cb

# wiki.vg "VarInt and VarLong" sample values.
VARINTS = [
    (0, "00"),
    (1, "01"),
    (2, "02"),
    (127, "7f"),
    (128, "8001"),
    (255, "ff01"),
    (25565, "ddc701"),
    (2097151, "ffff7f"),
    (2147483647, "ffffffff07"),
    (-1, "ffffffff0f"),
    (-2147483648, "8080808008"),
]
VARLONGS = [
    (0, "00"),
    (127, "7f"),
    (128, "8001"),
    (2147483647, "ffffffff07"),
    (9223372036854775807, "ffffffffffffffff7f"),
    (-1, "ffffffffffffffffff01"),
    (-2147483648, "80808080f8ffffffff01"),
    (-9223372036854775808, "80808080808080808001"),
]


@pytest.mark.parametrize(("value", "hexed"), VARINTS)
def test_varint_vectors(value: int, hexed: str) -> None:
    w = Writer()
    w.varint(value)
    assert w.getvalue().hex() == hexed
    assert Reader(bytes.fromhex(hexed)).varint() == value


@pytest.mark.parametrize(("value", "hexed"), VARLONGS)
def test_varlong_vectors(value: int, hexed: str) -> None:
    w = Writer()
    w.varlong(value)
    assert w.getvalue().hex() == hexed
    assert Reader(bytes.fromhex(hexed)).varlong() == value


def test_position_wiki_example() -> None:
    # wiki.vg "Position": (18357644, 831, -20882616) packs to 0x4607632C15B4833F.
    w = Writer()
    w.position((18357644, 831, -20882616))
    assert w.getvalue().hex() == "4607632c15b4833f"
    assert Reader(w.getvalue()).position() == (18357644, 831, -20882616)
    for pos in [(-1, -1, -1), (-33554432, -2048, 33554431), (0, 2047, 0)]:
        w = Writer()
        w.position(pos)
        assert Reader(w.getvalue()).position() == pos
    with pytest.raises(ProtocolError, match="out of the packable range"):
        Writer().position((0, 4096, 0))


def test_truncation_and_overflow_name_field_and_offset() -> None:
    with pytest.raises(ProtocolError, match=r"pkt\.count: truncated VarInt at offset 2"):
        r = Reader(b"\x01\x80", context="pkt")
        r.u8("a")
        r.varint("count")
    with pytest.raises(ProtocolError, match="VarInt longer than 5 bytes"):
        Reader(b"\xff\xff\xff\xff\xff\x01").varint()
    with pytest.raises(ProtocolError, match="VarInt exceeds 32 bits"):
        Reader(b"\xff\xff\xff\xff\x1f").varint()
    with pytest.raises(ProtocolError, match=r"x: truncated: need 8 byte\(s\), 3 left at offset 0"):
        Reader(b"abc").f64("x")
    with pytest.raises(ProtocolError, match="string byte length"):
        Reader(b"\xff\xff\x7f").string("name")
    with pytest.raises(ProtocolError, match="at most|exceed"):
        Writer().string("x" * 20, "name", max_chars=16)
    with pytest.raises(ProtocolError, match="bool byte is 2"):
        Reader(b"\x02").bool("flag")
    with pytest.raises(ProtocolError, match="does not fit a VarInt"):
        Writer().varint(1 << 31)
    with pytest.raises(ProtocolError, match="leftover"):
        r = Reader(b"\x00\x00")
        r.u8()
        r.expect_end()


def test_string_uuid_angle_and_slot_roundtrip() -> None:
    u = uuid.UUID("3591fdca-95ad-32a5-beb1-2a99402471c2")
    nbt = nbtlib.Compound(
        {"Damage": nbtlib.Int(3), "display": nbtlib.Compound({"Name": nbtlib.String("§a✓")})}
    )
    w = Writer()
    w.string("héllo ✓")
    w.uuid(u)
    w.angle(90.0)
    w.slot(Slot(836, 1, nbt))
    w.slot(None)
    w.nbt(None, optional=True)
    r = Reader(w.getvalue())
    assert r.string() == "héllo ✓"
    assert r.uuid() == u
    assert r.angle() == 90.0
    assert r.slot() == Slot(836, 1, nbt)
    assert r.slot() is None
    assert r.nbt(optional=True) is None
    r.expect_end()


def test_network_nbt_is_named_root_with_empty_name() -> None:
    w = Writer()
    w.nbt(nbtlib.Compound({"a": nbtlib.Byte(1)}))
    assert w.getvalue()[:3] == b"\x0a\x00\x00"  # as in every 1.19 capture
    with pytest.raises(ProtocolError, match="NBT root tag id 8"):
        Reader(b"\x08\x00\x00").nbt("heightmaps")
    with pytest.raises(ProtocolError, match="heightmaps"):
        Reader(w.getvalue()[:-2]).nbt("heightmaps")


def test_packet_level_errors() -> None:
    body = encode(cb.SetSlot(window_id=0, state_id=2, slot=36, item=Slot(897, 1)))
    assert decode("set_slot", body) == cb.SetSlot(window_id=0, state_id=2, slot=36, item=Slot(897, 1))
    with pytest.raises(ProtocolError, match=r"set_slot\.item\.item_id: truncated VarInt"):
        decode("set_slot", body[:5])
    with pytest.raises(ProtocolError, match=r"set_slot: 1 leftover byte"):
        decode("set_slot", body + b"\x00")
    with pytest.raises(ProtocolError, match="unknown recipe type"):
        w = Writer()
        w.varint(1)
        w.string("minecraft:brewing")
        w.string("x:y")
        decode("declare_recipes", w.getvalue())
    with pytest.raises(ProtocolError, match="unknown entity metadata type 23"):
        decode("entity_metadata", b"\x01\x00\x17\x00\xff")
    with pytest.raises(ProtocolError, match="no codec"):
        decode("explosion", b"")
    with pytest.raises(ProtocolError, match="unsupported protocol 761"):
        decode("set_slot", body, 761)


def test_metadata_all_types_roundtrip() -> None:
    from mirrorcraft.protocol.metadata import MetadataEntry, Particle

    u = uuid.UUID(int=5)
    values = {
        0: -3,
        1: 300,
        2: 1.5,
        3: "s",
        4: '{"text":"x"}',
        5: None,
        6: Slot(1, 2),
        7: True,
        8: (1.0, 2.0, 3.0),
        9: (1, -2, 3),
        10: (4, 5, 6),
        11: 3,
        12: u,
        13: 0,
        14: nbtlib.Compound({"k": nbtlib.Int(1)}),
        15: Particle(14, {"rgb": (1.0, 0.5, 0.25), "scale": 2.0}),
        16: (1, 2, 3),
        17: None,
        18: 5,
        19: 2,
        20: 1,
        21: ("minecraft:overworld", (10, 64, -10)),
        22: 7,
    }
    pkt = cb.EntityMetadata(
        entity_id=9, metadata=[MetadataEntry(i, t, v) for i, (t, v) in enumerate(values.items())]
    )
    assert decode("entity_metadata", encode(pkt)) == pkt
    vib = Particle(40, {"position_type": "minecraft:entity", "entity_id": 4, "eye_height": 1.5, "ticks": 20})
    pkt = cb.EntityMetadata(entity_id=1, metadata=[MetadataEntry(0, 15, vib), MetadataEntry(1, 17, 41)])
    assert decode("entity_metadata", encode(pkt)) == pkt
