"""Byte-level reader and writer for the Minecraft Java 1.19/1.19.2 play protocol (759/760).

Every packet codec in :mod:`mirrorcraft.protocol` is built on :class:`Reader` and :class:`Writer`. They are
pure (no sockets) so they can be tested on golden captures. quarry's ``Buffer1_19_1`` is not used here:
its slot/NBT/metadata readers predate 1.19 and its errors do not say *where* the bytes went wrong. Every
failure here raises :class:`~mirrorcraft.errors.ProtocolError` naming the field and the byte offset.

Wire formats follow wiki.vg "Protocol" (pages for 1.19 / 1.19.2) and were checked on the vanilla captures of
``minecraft-packets`` 1.9.0:

* VarInt / VarLong: 7-bit little-endian groups, at most 5 / 10 bytes, two's complement for negatives.
* String: VarInt byte length + UTF-8; the protocol caps it at 32767 UTF-16 units (we cap the byte length at
  3 * 32767, the vanilla decoder's own bound).
* Position (since 1.14): one i64, ``x`` 26 bits | ``z`` 26 bits | ``y`` 12 bits, each signed.
* NBT: in 1.19 the network form is still a *named* root (tag id byte, u16 name length, name, payload); the
  captures carry ``0a 00 00`` (compound, empty name). A bare ``00`` (TAG_End) means "no NBT" where optional.
* Slot (since 1.13.2): bool present, VarInt item id, i8 count, NBT-or-TAG_End.
"""

from __future__ import annotations

import io
import struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import nbtlib
from nbtlib import tag as nbt_tag

from mirrorcraft.errors import ProtocolError

T = TypeVar("T")

_I8 = struct.Struct(">b")
_U8 = struct.Struct(">B")
_I16 = struct.Struct(">h")
_U16 = struct.Struct(">H")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_U64 = struct.Struct(">Q")
_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")

MAX_STRING_CHARS = 32767


@dataclass(slots=True)
class Slot:
    """A non-empty item stack as sent on the wire (an empty slot is ``None``).

    Attributes:
        item_id: Numeric item registry id (minecraft-data ``items.json`` for the protocol's version).
        count: Stack size (i8 on the wire).
        nbt: The item's NBT compound, or ``None`` when the wire carried TAG_End.
    """

    item_id: int
    count: int = 1
    nbt: nbtlib.Compound | None = None


class _StrictStream(io.BytesIO):
    """BytesIO whose short reads raise: nbtlib silently parses a truncated payload as zeros otherwise."""

    def read(self, n: int | None = -1) -> bytes:  # type: ignore[override]
        out = super().read(n)
        if n is not None and n >= 0 and len(out) != n:
            raise EOFError(f"needed {n} byte(s), got {len(out)}")
        return out


def _pos_sign(value: int, bits: int) -> int:
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


class Reader:
    """Sequential reader over one packet body.

    Args:
        data: The bytes to read (a packet body without its id, or any sub-buffer).
        offset: Start offset into ``data``.
        context: Prefix used in error messages (usually the packet name).
    """

    __slots__ = ("data", "pos", "end", "context")

    def __init__(self, data: bytes | bytearray | memoryview, offset: int = 0, context: str = "") -> None:
        self.data = bytes(data) if not isinstance(data, bytes) else data
        self.pos = offset
        self.end = len(self.data)
        self.context = context

    # -- errors -----------------------------------------------------------------------------------------
    def error(self, what: str, field: str = "", at: int | None = None) -> ProtocolError:
        """Build a ProtocolError that names the context, field and byte offset."""
        where = ".".join(p for p in (self.context, field) if p)
        return ProtocolError(f"{where or 'buffer'}: {what} at offset {self.pos if at is None else at}")

    def need(self, n: int, field: str = "") -> None:
        """Raise if fewer than ``n`` bytes remain."""
        if n < 0 or self.pos + n > self.end:
            raise self.error(f"truncated: need {n} byte(s), {self.end - self.pos} left", field)

    @property
    def remaining(self) -> int:
        """Bytes not consumed yet."""
        return self.end - self.pos

    def expect_end(self, field: str = "") -> None:
        """Raise if any byte is left (every codec calls this after the last field)."""
        if self.pos != self.end:
            raise self.error(f"{self.end - self.pos} leftover byte(s) after the last field", field)

    # -- fixed width ------------------------------------------------------------------------------------
    def _fixed(self, st: struct.Struct, field: str) -> Any:
        pos = self.pos
        if pos + st.size > self.end:
            raise self.error(f"truncated: need {st.size} byte(s), {self.end - pos} left", field)
        self.pos = pos + st.size
        return st.unpack_from(self.data, pos)[0]

    def i8(self, field: str = "") -> int:
        """Signed byte."""
        return self._fixed(_I8, field)

    def u8(self, field: str = "") -> int:
        """Unsigned byte."""
        return self._fixed(_U8, field)

    def i16(self, field: str = "") -> int:
        """Big-endian signed short."""
        return self._fixed(_I16, field)

    def u16(self, field: str = "") -> int:
        """Big-endian unsigned short."""
        return self._fixed(_U16, field)

    def i32(self, field: str = "") -> int:
        """Big-endian signed int."""
        return self._fixed(_I32, field)

    def i64(self, field: str = "") -> int:
        """Big-endian signed long."""
        return self._fixed(_I64, field)

    def f32(self, field: str = "") -> float:
        """Big-endian IEEE float."""
        return self._fixed(_F32, field)

    def f64(self, field: str = "") -> float:
        """Big-endian IEEE double."""
        return self._fixed(_F64, field)

    def bool(self, field: str = "") -> bool:
        """Boolean byte; anything but 0/1 is an error (vanilla writes only those)."""
        b = self._fixed(_U8, field)
        if b > 1:
            raise self.error(f"bool byte is {b}, expected 0 or 1", field, self.pos - 1)
        return b == 1

    def angle(self, field: str = "") -> float:
        """Angle byte (1/256 of a full turn) converted to degrees in [0, 360)."""
        return self.u8(field) * 360.0 / 256.0

    # -- variable width ---------------------------------------------------------------------------------
    def varint(self, field: str = "") -> int:
        """VarInt (max 5 bytes), returned as a signed 32-bit value."""
        data, pos, end = self.data, self.pos, self.end
        result = 0
        for shift in range(0, 35, 7):
            if pos >= end:
                raise self.error("truncated VarInt", field, pos)
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                if result >= 1 << 31:
                    if result >= 1 << 32:
                        raise self.error("VarInt exceeds 32 bits", field, pos - 1)
                    result -= 1 << 32
                return result
        raise self.error("VarInt longer than 5 bytes", field, self.pos)

    def varlong(self, field: str = "") -> int:
        """VarLong (max 10 bytes), returned as a signed 64-bit value."""
        data, pos, end = self.data, self.pos, self.end
        result = 0
        for shift in range(0, 70, 7):
            if pos >= end:
                raise self.error("truncated VarLong", field, pos)
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                if result >= 1 << 64:
                    raise self.error("VarLong exceeds 64 bits", field, pos - 1)
                return result - (1 << 64) if result >= 1 << 63 else result
        raise self.error("VarLong longer than 10 bytes", field, self.pos)

    def bytes(self, n: int, field: str = "") -> bytes:
        """Exactly ``n`` raw bytes."""
        self.need(n, field)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def byte_array(self, field: str = "") -> bytes:
        """VarInt length-prefixed byte array."""
        start = self.pos
        n = self.varint(field)
        if n < 0:
            raise self.error(f"negative byte-array length {n}", field, start)
        return self.bytes(n, field)

    def rest(self, field: str = "") -> bytes:
        """All remaining bytes (e.g. custom_payload data)."""
        out = self.data[self.pos : self.end]
        self.pos = self.end
        return out

    def string(self, field: str = "", max_chars: int = MAX_STRING_CHARS) -> str:
        """VarInt length-prefixed UTF-8 string, length-checked against the protocol maximum."""
        start = self.pos
        n = self.varint(field)
        if n < 0 or n > max_chars * 3:
            raise self.error(f"string byte length {n} outside 0..{max_chars * 3}", field, start)
        raw = self.bytes(n, field)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise self.error(f"invalid UTF-8 ({err.reason})", field, start) from err

    def uuid(self, field: str = "") -> uuid.UUID:
        """128-bit UUID (two big-endian longs)."""
        return uuid.UUID(bytes=self.bytes(16, field))

    def position(self, field: str = "") -> tuple[int, int, int]:
        """Packed block position (1.14+): x 26 | z 26 | y 12 bits, all signed. Returns ``(x, y, z)``."""
        v = self._fixed(_U64, field)
        return (_pos_sign(v >> 38, 26), _pos_sign(v & 0xFFF, 12), _pos_sign((v >> 12) & 0x3FFFFFF, 26))

    def longs(self, field: str = "") -> list[int]:
        """VarInt count + that many i64 (BitSet and similar)."""
        start = self.pos
        n = self.varint(field)
        if n < 0:
            raise self.error(f"negative long-array length {n}", field, start)
        self.need(8 * n, field)
        out = list(struct.unpack_from(f">{n}q", self.data, self.pos))
        self.pos += 8 * n
        return out

    def nbt(self, field: str = "", optional: bool = False) -> nbtlib.Compound | None:
        """Network NBT: named root compound (1.19), or TAG_End meaning none when ``optional``."""
        start = self.pos
        tag_id = self.u8(field)
        if tag_id == 0:
            if optional:
                return None
            raise self.error("NBT is TAG_End where a compound is required", field, start)
        if tag_id != 10:
            raise self.error(f"NBT root tag id {tag_id}, expected 10 (compound)", field, start)
        name_len = self.u16(field)
        self.bytes(name_len, field)
        stream = _StrictStream(self.data[: self.end])
        stream.seek(self.pos)
        try:
            value = nbt_tag.Compound.parse(stream)
        except EOFError as err:
            raise self.error(f"truncated NBT ({err})", field, start) from err
        except Exception as err:  # nbtlib raises struct.error / ValueError / IndexError on bad bytes
            raise self.error(f"bad NBT payload ({type(err).__name__}: {err})", field, start) from err
        self.pos = stream.tell()
        return value

    def slot(self, field: str = "") -> Slot | None:
        """Item slot (1.13.2+ layout); ``None`` for an empty slot."""
        if not self.bool(field):
            return None
        item_id = self.varint(field + ".item_id" if field else "item_id")
        count = self.i8(field + ".count" if field else "count")
        return Slot(item_id, count, self.nbt(field + ".nbt" if field else "nbt", optional=True))

    def option(self, read: Callable[[], T], field: str = "") -> T | None:
        """Bool-prefixed optional value."""
        return read() if self.bool(field) else None

    def array(self, read: Callable[[], T], field: str = "") -> list[T]:
        """VarInt count-prefixed array; ``read`` reads one element."""
        start = self.pos
        n = self.varint(field)
        if n < 0 or n > self.end - self.pos:  # every element takes >= 1 byte
            raise self.error(
                f"array length {n} impossible with {self.end - self.pos} byte(s) left", field, start
            )
        return [read() for _ in range(n)]


class Writer:
    """Append-only packet body builder; the mirror of :class:`Reader`."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def getvalue(self) -> bytes:
        """All bytes written so far."""
        return b"".join(self.parts)

    def _fixed(self, st: struct.Struct, value: Any, field: str) -> None:
        try:
            self.parts.append(st.pack(value))
        except struct.error as err:
            raise ProtocolError(f"{field or 'value'}: cannot encode {value!r} ({err})") from err

    def i8(self, v: int, field: str = "") -> None:
        """Signed byte."""
        self._fixed(_I8, v, field)

    def u8(self, v: int, field: str = "") -> None:
        """Unsigned byte."""
        self._fixed(_U8, v, field)

    def i16(self, v: int, field: str = "") -> None:
        """Signed short."""
        self._fixed(_I16, v, field)

    def u16(self, v: int, field: str = "") -> None:
        """Unsigned short."""
        self._fixed(_U16, v, field)

    def i32(self, v: int, field: str = "") -> None:
        """Signed int."""
        self._fixed(_I32, v, field)

    def i64(self, v: int, field: str = "") -> None:
        """Signed long."""
        self._fixed(_I64, v, field)

    def f32(self, v: float, field: str = "") -> None:
        """Float."""
        self._fixed(_F32, v, field)

    def f64(self, v: float, field: str = "") -> None:
        """Double."""
        self._fixed(_F64, v, field)

    def bool(self, v: bool, field: str = "") -> None:
        """Boolean byte."""
        self.parts.append(b"\x01" if v else b"\x00")

    def angle(self, degrees: float, field: str = "") -> None:
        """Degrees → angle byte (wraps modulo 360)."""
        self.parts.append(_U8.pack(round(degrees * 256.0 / 360.0) & 0xFF))

    def varint(self, v: int, field: str = "") -> None:
        """VarInt; ``v`` must fit a signed 32-bit int."""
        if not -(1 << 31) <= v < 1 << 31:
            raise ProtocolError(f"{field or 'varint'}: {v} does not fit a VarInt")
        self.parts.append(encode_varint(v))

    def varlong(self, v: int, field: str = "") -> None:
        """VarLong; ``v`` must fit a signed 64-bit int."""
        if not -(1 << 63) <= v < 1 << 63:
            raise ProtocolError(f"{field or 'varlong'}: {v} does not fit a VarLong")
        v &= (1 << 64) - 1
        out = bytearray()
        while True:
            if v < 0x80:
                out.append(v)
                break
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        self.parts.append(bytes(out))

    def bytes(self, b: bytes, field: str = "") -> None:
        """Raw bytes, no prefix."""
        self.parts.append(bytes(b))

    def rest(self, b: bytes, field: str = "") -> None:
        """Trailing raw bytes (the counterpart of ``Reader.rest``)."""
        self.parts.append(bytes(b))

    def byte_array(self, b: bytes, field: str = "") -> None:
        """VarInt length + bytes."""
        self.parts.append(encode_varint(len(b)))
        self.parts.append(bytes(b))

    def string(self, s: str, field: str = "", max_chars: int = MAX_STRING_CHARS) -> None:
        """VarInt length + UTF-8; raises if longer than the protocol allows."""
        raw = s.encode("utf-8")
        if len(s) > max_chars:
            raise ProtocolError(f"{field or 'string'}: {len(s)} characters exceed the maximum {max_chars}")
        self.parts.append(encode_varint(len(raw)))
        self.parts.append(raw)

    def uuid(self, u: uuid.UUID, field: str = "") -> None:
        """UUID as 16 bytes."""
        self.parts.append(u.bytes)

    def position(self, pos: tuple[int, int, int], field: str = "") -> None:
        """Pack ``(x, y, z)`` into the 1.14+ 64-bit position."""
        x, y, z = pos
        if not (-(1 << 25) <= x < 1 << 25 and -(1 << 25) <= z < 1 << 25 and -(1 << 11) <= y < 1 << 11):
            raise ProtocolError(f"{field or 'position'}: {pos} out of the packable range")
        self.parts.append(_U64.pack(((x & 0x3FFFFFF) << 38) | ((z & 0x3FFFFFF) << 12) | (y & 0xFFF)))

    def longs(self, values: list[int], field: str = "") -> None:
        """VarInt count + i64 values."""
        self.parts.append(encode_varint(len(values)))
        self.parts.append(struct.pack(f">{len(values)}q", *values))

    def nbt(self, value: nbtlib.Compound | None, field: str = "", optional: bool = False) -> None:
        """Named-root network NBT (empty root name, as vanilla sends); ``None`` → TAG_End if optional."""
        if value is None:
            if not optional:
                raise ProtocolError(f"{field or 'nbt'}: a compound is required")
            self.parts.append(b"\x00")
            return
        stream = io.BytesIO()
        stream.write(b"\x0a\x00\x00")
        nbt_tag.Compound(value).write(stream)
        self.parts.append(stream.getvalue())

    def slot(self, s: Slot | None, field: str = "") -> None:
        """Item slot; ``None`` = empty."""
        if s is None:
            self.parts.append(b"\x00")
            return
        self.parts.append(b"\x01")
        self.varint(s.item_id, field)
        self.i8(s.count, field)
        self.nbt(s.nbt, field, optional=True)

    def option(self, value: T | None, write: Callable[[T], None]) -> None:
        """Bool-prefixed optional value."""
        if value is None:
            self.parts.append(b"\x00")
        else:
            self.parts.append(b"\x01")
            write(value)

    def array(self, values: list[T], write: Callable[[T], None]) -> None:
        """VarInt count + elements."""
        self.parts.append(encode_varint(len(values)))
        for v in values:
            write(v)


def encode_varint(v: int) -> bytes:
    """Encode a signed 32-bit int as a VarInt."""
    v &= 0xFFFFFFFF
    if v < 0x80:
        return bytes((v,))
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7
