"""The RCON packet codec (:mod:`mirrorcraft.protocol.rcon`) without a socket: the Source RCON byte layout,
stream reassembly, malformed input named by its stream offset, and vanilla's 4096-character fragments."""

from __future__ import annotations

import struct

import pytest

from mirrorcraft.protocol.rcon import PacketReader, RconError, encode_packet, fragments

LONG = "é" * 5000 + "x" * 4000  # 9000 characters, 14000 UTF-8 bytes: three fragments


def test_packet_bytes_match_the_source_rcon_layout() -> None:
    data = encode_packet(7, 2, "list")
    # length 14 = id(4) + type(4) + "list"(4) + two NULs; all little-endian int32
    assert data == struct.pack("<iii", 14, 7, 2) + b"list\x00\x00"
    r = PacketReader(4110, "response")
    # fed byte by byte, the packets come out whole and in order
    got = []
    for b in data + encode_packet(-1, 2, ""):
        got += r.feed(bytes([b]))
    assert [(p.request_id, p.type, p.body) for p in got] == [(7, 2, "list"), (-1, 2, "")]


def test_packet_reader_errors_name_the_offset() -> None:
    r = PacketReader(1460, "request")
    ok = encode_packet(1, 3, "pw")
    with pytest.raises(RconError, match="stream offset 16: length field 5 outside 10..1456"):
        r.feed(ok + struct.pack("<iii", 5, 1, 2))
    r = PacketReader(1460, "request")
    with pytest.raises(RconError, match="not terminated by two NUL bytes"):
        r.feed(struct.pack("<iii", 11, 1, 2) + b"abc")
    with pytest.raises(RconError, match="outside 10..1456"):
        PacketReader(1460, "request").feed(struct.pack("<i", 2000))


def test_fragments_split_at_4096_characters() -> None:
    parts = fragments(LONG)
    assert [len(p) for p in parts] == [4096, 4096, 808] and "".join(parts) == LONG
    assert fragments("") == [""]
