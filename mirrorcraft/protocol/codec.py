"""Packet object model, registry and the ``decode`` / ``encode`` entry points.

A packet is a ``@dataclass`` subclass of :class:`Packet`. Simple packets declare their wire layout in field
metadata with :func:`wire` (``x: float = wire(F64)``) and get a generic codec that reads and writes fields in
declaration order; packets with switches or nested layouts override :meth:`Packet.read` / :meth:`Packet.write`.
Fields that exist only in one protocol carry ``only=759`` or ``only=760``: the same class serves both
versions, which keeps the body's code free of version checks (the few semantic differences are documented
on the class).

Packet names are node-minecraft-protocol's (``map_chunk``, ``login``...), the names the vanilla captures in
``minecraft-packets`` are filed under; ids per protocol come from ``data/packet_ids.json``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from importlib import resources
from typing import Any, ClassVar, Literal

from mirrorcraft import PROTOCOL_1_19, PROTOCOL_1_19_2
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.buffer import Reader, Writer

Direction = Literal["clientbound", "serverbound"]
CLIENTBOUND: Direction = "clientbound"
SERVERBOUND: Direction = "serverbound"
PROTOCOLS = (PROTOCOL_1_19, PROTOCOL_1_19_2)


class WireType:
    """A reader/writer pair for one field type."""

    def read(self, r: Reader, proto: int, field: str) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def write(self, w: Writer, value: Any, proto: int, field: str) -> None:  # pragma: no cover
        raise NotImplementedError

    def default(self) -> Any:
        """Value used when a packet is constructed without this field."""
        return None


class Prim(WireType):
    """A primitive read by ``Reader.<name>`` and written by ``Writer.<name>``."""

    def __init__(self, name: str, default: Any = 0) -> None:
        self.name = name
        self._default = default

    def read(self, r: Reader, proto: int, field: str) -> Any:
        return getattr(r, self.name)(field)

    def write(self, w: Writer, value: Any, proto: int, field: str) -> None:
        getattr(w, self.name)(value, field)

    def default(self) -> Any:
        return self._default


class _OptNbt(WireType):
    def read(self, r: Reader, proto: int, field: str) -> Any:
        return r.nbt(field, optional=True)

    def write(self, w: Writer, value: Any, proto: int, field: str) -> None:
        w.nbt(value, field, optional=True)


class Option(WireType):
    """Bool-prefixed optional value (``None`` when absent)."""

    def __init__(self, inner: WireType) -> None:
        self.inner = inner

    def read(self, r: Reader, proto: int, field: str) -> Any:
        return self.inner.read(r, proto, field) if r.bool(field) else None

    def write(self, w: Writer, value: Any, proto: int, field: str) -> None:
        w.bool(value is not None)
        if value is not None:
            self.inner.write(w, value, proto, field)


class Array(WireType):
    """VarInt count-prefixed list."""

    def __init__(self, inner: WireType) -> None:
        self.inner = inner

    def read(self, r: Reader, proto: int, field: str) -> Any:
        inner = self.inner
        return r.array(lambda: inner.read(r, proto, field), field)

    def write(self, w: Writer, value: Any, proto: int, field: str) -> None:
        w.array(list(value), lambda v: self.inner.write(w, v, proto, field))

    def default(self) -> Any:
        return []


class Struct(WireType):
    """A nested dataclass whose fields use :func:`wire` (e.g. an attribute modifier)."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def read(self, r: Reader, proto: int, field: str) -> Any:
        return self.cls(**_read_fields(self.cls, r, proto, field))

    def write(self, w: Writer, value: Any, proto: int, field: str) -> None:
        _write_fields(value, w, proto, field)


I8, U8, I16, U16, I32, I64 = (Prim(n) for n in ("i8", "u8", "i16", "u16", "i32", "i64"))
F32, F64 = Prim("f32", 0.0), Prim("f64", 0.0)
BOOL = Prim("bool", False)
VARINT, VARLONG = Prim("varint"), Prim("varlong")
STRING = Prim("string", "")
UUID = Prim("uuid", None)
POSITION = Prim("position", (0, 0, 0))
NBT = Prim("nbt", None)
OPT_NBT = _OptNbt()
SLOT = Prim("slot", None)
BYTES = Prim("byte_array", b"")
REST = Prim("rest", b"")
LONGS = Prim("longs", [])


def wire(kind: WireType, *, only: int | None = None) -> Any:
    """Declare a dataclass field's wire type (and, with ``only``, the one protocol that sends it)."""
    dflt = kind.default()
    meta = {"wire": kind, "only": only}
    if isinstance(dflt, list | dict):
        return dataclasses.field(default_factory=type(dflt), metadata=meta)
    return dataclasses.field(default=dflt, metadata=meta)


_FIELD_CACHE: dict[type, list[tuple[str, WireType, int | None]]] = {}


def _wire_fields(cls: type) -> list[tuple[str, WireType, int | None]]:
    spec = _FIELD_CACHE.get(cls)
    if spec is None:
        spec = [
            (f.name, f.metadata["wire"], f.metadata.get("only"))
            for f in dataclasses.fields(cls)
            if "wire" in f.metadata
        ]
        _FIELD_CACHE[cls] = spec
    return spec


def _read_fields(cls: type, r: Reader, proto: int, prefix: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, kind, only in _wire_fields(cls):
        if only is None or only == proto:
            out[name] = kind.read(r, proto, f"{prefix}.{name}" if prefix else name)
    return out


def _write_fields(obj: Any, w: Writer, proto: int, prefix: str) -> None:
    for name, kind, only in _wire_fields(type(obj)):
        if only is None or only == proto:
            kind.write(w, getattr(obj, name), proto, f"{prefix}.{name}" if prefix else name)


@dataclasses.dataclass(kw_only=True)
class Packet:
    """Base class of every packet object. Subclasses are kw-only dataclasses registered with :func:`packet`."""

    NAME: ClassVar[str] = ""
    DIRECTION: ClassVar[Direction] = CLIENTBOUND
    PROTOCOLS: ClassVar[tuple[int, ...]] = PROTOCOLS

    @classmethod
    def read(cls, r: Reader, proto: int) -> Packet:
        """Decode the body from ``r`` (default: the :func:`wire` fields in order)."""
        return cls(**_read_fields(cls, r, proto, ""))

    def write(self, w: Writer, proto: int) -> None:
        """Encode the body into ``w`` (default: the :func:`wire` fields in order)."""
        _write_fields(self, w, proto, "")


_REGISTRY: dict[tuple[Direction, str], type[Packet]] = {}


def packet(name: str, direction: Direction = CLIENTBOUND) -> Callable[[type], type]:
    """Class decorator: make ``cls`` a kw-only dataclass and register it under ``(direction, name)``."""

    def deco(cls: type) -> type:
        cls = dataclasses.dataclass(kw_only=True)(cls)
        cls.NAME = name
        cls.DIRECTION = direction
        key = (direction, name)
        if key in _REGISTRY:
            raise ProtocolError(f"packet {direction}/{name} registered twice")
        _REGISTRY[key] = cls
        return cls

    return deco


def _load_ids() -> dict[int, dict[str, dict[str, int]]]:
    text = resources.files("mirrorcraft.protocol").joinpath("data/packet_ids.json").read_text()
    return {int(proto): table for proto, table in json.loads(text).items()}


PACKET_IDS: dict[int, dict[str, dict[str, int]]] = _load_ids()
PACKET_NAMES: dict[int, dict[str, dict[int, str]]] = {
    proto: {d: {i: n for n, i in t.items()} for d, t in tables.items()}
    for proto, tables in PACKET_IDS.items()
}


def _check_proto(proto: int) -> None:
    if proto not in PACKET_IDS:
        raise ProtocolError(f"unsupported protocol {proto} (supported: {sorted(PACKET_IDS)})")


def packet_id(name: str, proto: int = PROTOCOL_1_19_2, direction: Direction = CLIENTBOUND) -> int:
    """Play-state id of ``name`` in ``proto``."""
    _check_proto(proto)
    try:
        return PACKET_IDS[proto][direction][name]
    except KeyError:
        raise ProtocolError(f"no {direction} play packet named {name!r} in protocol {proto}") from None


def packet_name(pid: int, proto: int = PROTOCOL_1_19_2, direction: Direction = CLIENTBOUND) -> str:
    """Name of play-state packet id ``pid`` in ``proto``."""
    _check_proto(proto)
    try:
        return PACKET_NAMES[proto][direction][pid]
    except KeyError:
        raise ProtocolError(f"unknown {direction} play packet id 0x{pid:02x} in protocol {proto}") from None


def packet_class(name: str, direction: Direction = CLIENTBOUND) -> type[Packet]:
    """The registered class for ``name`` (raises ProtocolError if we have no codec for it)."""
    try:
        return _REGISTRY[(direction, name)]
    except KeyError:
        raise ProtocolError(f"no codec for {direction} packet {name!r}") from None


def implemented(direction: Direction) -> list[str]:
    """Names of the packets that have a codec in ``direction``."""
    return sorted(n for d, n in _REGISTRY if d == direction)


def decode(
    name: str, body: bytes, proto: int = PROTOCOL_1_19_2, direction: Direction = CLIENTBOUND
) -> Packet:
    """Decode one packet body (without the id) into its object; every byte must be consumed.

    Raises:
        ProtocolError: unknown packet, truncated/invalid field (message names field and offset) or
            leftover bytes.
    """
    _check_proto(proto)
    cls = packet_class(name, direction)
    r = Reader(body, context=name)
    try:
        pkt = cls.read(r, proto)
    except ProtocolError:
        raise
    except (ValueError, IndexError, KeyError, TypeError) as err:
        raise r.error(f"invalid value ({type(err).__name__}: {err})") from err
    r.expect_end()
    return pkt


def encode(pkt: Packet, proto: int = PROTOCOL_1_19_2) -> bytes:
    """Encode a packet object's body (without the id)."""
    _check_proto(proto)
    w = Writer()
    try:
        pkt.write(w, proto)
    except ProtocolError as err:
        raise ProtocolError(f"{pkt.NAME}: {err}") from err
    except (TypeError, ValueError, AttributeError) as err:
        raise ProtocolError(f"{pkt.NAME}: cannot encode ({type(err).__name__}: {err})") from err
    return w.getvalue()


def decode_frame(data: bytes, proto: int = PROTOCOL_1_19_2, direction: Direction = CLIENTBOUND) -> Packet:
    """Decode ``VarInt id + body`` (an uncompressed, unframed play packet)."""
    r = Reader(data, context="packet id")
    pid = r.varint()
    return decode(packet_name(pid, proto, direction), data[r.pos :], proto, direction)


def encode_frame(pkt: Packet, proto: int = PROTOCOL_1_19_2) -> bytes:
    """Encode ``VarInt id + body`` for ``pkt``."""
    w = Writer()
    w.varint(packet_id(pkt.NAME, proto, pkt.DIRECTION))
    return w.getvalue() + encode(pkt, proto)
