"""Entity metadata (all 23 value types of 1.19/1.19.2) and particle data.

quarry 1.9.6's metadata reader stops at type 18, but 1.19 added cat variant (19), frog variant (20),
optional global position (21) and painting variant (22) (wiki.vg "Entity metadata", 1.19 / 1.19.2).
minecraft-data 3.119 lists type 21 as an optional *string*, which is wrong: vanilla writes
``Optional<GlobalPos>`` = bool, dimension identifier, packed position. We follow vanilla.

Values are plain Python: ints, floats, str, bool, :class:`~mirrorcraft.protocol.buffer.Slot` / ``None``,
``(x, y, z)`` tuples for rotations and positions, ``uuid.UUID``, nbtlib compounds, :class:`Particle`,
``(villager_type, profession, level)``, ``(dimension, (x, y, z))`` for global positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.protocol.buffer import Reader, Writer

# Particle ids whose options carry data, 1.19 and 1.19.2 registries (identical; wiki.vg "Particle").
PARTICLE_BLOCK = (2, 3, 25)  # block, block_marker, falling_dust: VarInt block state
PARTICLE_DUST = 14  # r, g, b, scale floats
PARTICLE_DUST_TRANSITION = 15  # from rgb, scale, to rgb floats
PARTICLE_SCULK_CHARGE = 30  # roll float
PARTICLE_ITEM = 39  # slot
PARTICLE_VIBRATION = 40  # position source + ticks
PARTICLE_SHRIEK = 92  # delay VarInt


@dataclass
class Particle:
    """A particle id and its options (``data`` keys depend on the id; empty for plain particles)."""

    id: int
    data: dict[str, Any] = field(default_factory=dict)


def read_particle_data(r: Reader, pid: int) -> dict[str, Any]:
    """Read the options of particle ``pid``."""
    if pid in PARTICLE_BLOCK:
        return {"block_state": r.varint("particle.block_state")}
    if pid == PARTICLE_DUST:
        return {"rgb": (r.f32(), r.f32(), r.f32()), "scale": r.f32("particle.scale")}
    if pid == PARTICLE_DUST_TRANSITION:
        return {
            "from_rgb": (r.f32(), r.f32(), r.f32()),
            "scale": r.f32(),
            "to_rgb": (r.f32(), r.f32(), r.f32()),
        }
    if pid == PARTICLE_SCULK_CHARGE:
        return {"roll": r.f32("particle.roll")}
    if pid == PARTICLE_ITEM:
        return {"item": r.slot("particle.item")}
    if pid == PARTICLE_VIBRATION:
        # 1.19 PositionSource on the wire: type identifier, then a block position or (entity id VarInt,
        # y offset float); then arrival ticks VarInt (wiki.vg 1.19 "Particle", vanilla EntityPositionSource).
        kind = r.string("particle.position_type")
        out: dict[str, Any] = {"position_type": kind}
        if kind == "minecraft:block":
            out["position"] = r.position("particle.position")
        elif kind == "minecraft:entity":
            out["entity_id"] = r.varint("particle.entity_id")
            out["eye_height"] = r.f32("particle.eye_height")
        else:
            raise r.error(f"unknown vibration position source {kind!r}", "particle")
        out["ticks"] = r.varint("particle.ticks")
        return out
    if pid == PARTICLE_SHRIEK:
        return {"delay": r.varint("particle.delay")}
    return {}


def write_particle_data(w: Writer, pid: int, data: dict[str, Any]) -> None:
    """Write the options of particle ``pid`` (inverse of :func:`read_particle_data`)."""
    if pid in PARTICLE_BLOCK:
        w.varint(data["block_state"])
    elif pid == PARTICLE_DUST:
        for v in (*data["rgb"], data["scale"]):
            w.f32(v)
    elif pid == PARTICLE_DUST_TRANSITION:
        for v in (*data["from_rgb"], data["scale"], *data["to_rgb"]):
            w.f32(v)
    elif pid == PARTICLE_SCULK_CHARGE:
        w.f32(data["roll"])
    elif pid == PARTICLE_ITEM:
        w.slot(data["item"])
    elif pid == PARTICLE_VIBRATION:
        w.string(data["position_type"])
        if data["position_type"] == "minecraft:block":
            w.position(data["position"])
        else:
            w.varint(data["entity_id"])
            w.f32(data["eye_height"])
        w.varint(data["ticks"])
    elif pid == PARTICLE_SHRIEK:
        w.varint(data["delay"])


@dataclass
class MetadataEntry:
    """One entity metadata entry: ``index`` (u8), ``type`` (VarInt 0..22) and the decoded ``value``."""

    index: int
    type: int
    value: Any


def _read_value(r: Reader, t: int) -> Any:  # noqa: C901 - one branch per wire type, in wiki.vg order
    f = "metadata.value"
    if t == 0:
        return r.i8(f)
    if t in (1, 11, 13, 18, 19, 20, 22):  # varint, direction, opt block state (0 = none), pose, variants
        return r.varint(f)
    if t == 2:
        return r.f32(f)
    if t in (3, 4):  # string, chat (JSON text)
        return r.string(f)
    if t == 5:
        return r.option(lambda: r.string(f), f)
    if t == 6:
        return r.slot(f)
    if t == 7:
        return r.bool(f)
    if t == 8:
        return (r.f32(f), r.f32(f), r.f32(f))
    if t == 9:
        return r.position(f)
    if t == 10:
        return r.option(lambda: r.position(f), f)
    if t == 12:
        return r.option(lambda: r.uuid(f), f)
    if t == 14:
        return r.nbt(f, optional=True)
    if t == 15:
        pid = r.varint(f)
        return Particle(pid, read_particle_data(r, pid))
    if t == 16:
        return (r.varint(f), r.varint(f), r.varint(f))
    if t == 17:  # OptVarInt: 0 = absent, else value + 1
        v = r.varint(f)
        return None if v == 0 else v - 1
    if t == 21:
        return r.option(lambda: (r.string(f), r.position(f)), f)
    raise r.error(f"unknown entity metadata type {t}", f)


def _write_value(w: Writer, t: int, v: Any) -> None:  # noqa: C901
    if t == 0:
        w.i8(v)
    elif t in (1, 11, 13, 18, 19, 20, 22):
        w.varint(v)
    elif t == 2:
        w.f32(v)
    elif t in (3, 4):
        w.string(v)
    elif t == 5:
        w.option(v, w.string)
    elif t == 6:
        w.slot(v)
    elif t == 7:
        w.bool(v)
    elif t == 8:
        for x in v:
            w.f32(x)
    elif t == 9:
        w.position(v)
    elif t == 10:
        w.option(v, w.position)
    elif t == 12:
        w.option(v, w.uuid)
    elif t == 14:
        w.nbt(v, optional=True)
    elif t == 15:
        w.varint(v.id)
        write_particle_data(w, v.id, v.data)
    elif t == 16:
        for x in v:
            w.varint(x)
    elif t == 17:
        w.varint(0 if v is None else v + 1)
    elif t == 21:
        w.option(v, lambda gp: (w.string(gp[0]), w.position(gp[1])))
    else:
        raise ValueError(f"unknown entity metadata type {t}")


def read_metadata(r: Reader) -> list[MetadataEntry]:
    """Read entries until the 0xFF terminator."""
    out = []
    while True:
        index = r.u8("metadata.index")
        if index == 0xFF:
            return out
        t = r.varint("metadata.type")
        out.append(MetadataEntry(index, t, _read_value(r, t)))


def write_metadata(w: Writer, entries: list[MetadataEntry]) -> None:
    """Write entries and the 0xFF terminator."""
    for e in entries:
        w.u8(e.index)
        w.varint(e.type)
        _write_value(w, e.type, e.value)
    w.u8(0xFF)
