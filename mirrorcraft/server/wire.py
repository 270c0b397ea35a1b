"""Packet bodies the embedded server sends and parses (1.19.2 = 760 and 1.19 = 759; identical for these).

Why here: the server needs ~35 clientbound bodies and ~15 serverbound ones before ``mirrorcraft.protocol``
lands its codecs. Every function below follows minecraft-data's ``pc/1.19.2/protocol.json`` field order
(checked against wiki.vg "Protocol" for 1.19.2, and, for the packets that have one, against the vanilla
captures of minecraft-packets in ``tests/server/test_wire.py``). Packet *ids* are not handled here: quarry's
``0760_1.19.1.csv`` / ``0759_1.19.csv`` tables map quarry's packet names to ids for each protocol.

TODO(lead): replace these with ``mirrorcraft.protocol`` codecs once its encode/decode cover these packets;
the function names here are the minecraft-data packet names so the swap is mechanical.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from uuid import UUID

import numpy as np
from quarry.types.buffer import Buffer1_14

from mirrorcraft.errors import ProtocolError

B = Buffer1_14

# Block-state and biome bit widths (wiki.vg "Chunk Format", 1.18+): indirect palettes use 4..8 bits for
# blocks and 1..3 for biomes; above that the direct (global) palette with ceil(log2(#states)) bits.
DIRECT_BLOCK_BITS = 15  # 21,448 block states in 1.19.2
DIRECT_BIOME_BITS = 6  # 64 biomes in the vanilla 1.19.2 registry


def varint(v: int) -> bytes:
    return B.pack_varint(v)


def string(s: str) -> bytes:
    return B.pack_string(s)


def uuid_bytes(u: UUID) -> bytes:
    return u.bytes


def position(x: int, y: int, z: int) -> bytes:
    """1.14+ packed position: x 26 bits, z 26 bits, y 12 bits (wiki.vg "Position")."""
    return struct.pack(">Q", ((x & 0x3FFFFFF) << 38) | ((z & 0x3FFFFFF) << 12) | (y & 0xFFF))


def unpack_position(data: bytes | int) -> tuple[int, int, int]:
    val = struct.unpack(">q", data)[0] if isinstance(data, bytes) else data
    x = val >> 38
    y = ((val & 0xFFF) ^ 0x800) - 0x800
    z = (((val >> 12) & 0x3FFFFFF) ^ 0x2000000) - 0x2000000
    return x, y, z


def angle(deg: float) -> int:
    """Protocol angle byte (1/256 of a turn) as a signed byte value."""
    v = math.floor(deg * 256.0 / 360.0) & 0xFF  # vanilla Mth.floor(yaw * 256 / 360)
    return v - 256 if v > 127 else v


def slot(item_id: int | None, count: int = 0, nbt: bytes = b"\x00") -> bytes:
    """1.13.2+ slot: bool present, varint item id, byte count, NBT (0x00 = TAG_End = no NBT)."""
    if item_id is None or count <= 0:
        return b"\x00"
    return b"\x01" + varint(item_id) + struct.pack(">b", count) + nbt


def read_slot(buff: Buffer1_14) -> tuple[int, int] | None:
    """Parse a slot; NBT is read and dropped (the server keeps no item NBT in part 1)."""
    if not buff.unpack("?"):
        return None
    item = buff.unpack_varint()
    count = buff.unpack("b")
    if buff.unpack("B") != 0:  # a tag follows: rewind one byte and let quarry parse the root compound
        buff.pos -= 1
        buff.unpack_nbt()
    return item, count


# ---- clientbound ---------------------------------------------------------------------------------


def login(
    entity_id: int,
    game_mode: int,
    codec: bytes,
    hashed_seed: int,
    view_distance: int,
    simulation_distance: int,
    dimension: str = "minecraft:overworld",
) -> bytes:
    """join_game (quarry name) / login (minecraft-data); 759 and 760 share this layout."""
    return b"".join(
        [
            struct.pack(">i?Bb", entity_id, False, game_mode, -1),
            varint(1),
            string(dimension),
            codec,
            string(dimension),  # dimension type
            string(dimension),  # world name
            struct.pack(">q", hashed_seed),
            varint(20),  # max players (ignored by clients)
            varint(view_distance),
            varint(simulation_distance),
            struct.pack(">????", False, True, False, False),  # reduced debug, respawn screen, debug, flat
            b"\x00",  # no death location
        ]
    )


def player_position(x: float, y: float, z: float, yaw: float, pitch: float, teleport_id: int) -> bytes:
    return struct.pack(">dddffb", x, y, z, yaw, pitch, 0) + varint(teleport_id) + b"\x00"


def spawn_position(x: int, y: int, z: int, angle_deg: float = 0.0) -> bytes:
    return position(x, y, z) + struct.pack(">f", angle_deg)


def keep_alive(ident: int) -> bytes:
    return struct.pack(">q", ident)


def update_health(health: float, food: int, saturation: float) -> bytes:
    return struct.pack(">f", health) + varint(food) + struct.pack(">f", saturation)


def update_time(world_age: int, time_of_day: int) -> bytes:
    """Negative time of day freezes the daylight cycle on the client (wiki.vg "Update Time")."""
    return struct.pack(">qq", world_age, time_of_day)


def game_state_change(reason: int, value: float) -> bytes:
    return struct.pack(">Bf", reason, value)


def abilities(flags: int, flying_speed: float = 0.05, fov_modifier: float = 0.1) -> bytes:
    return struct.pack(">bff", flags, flying_speed, fov_modifier)


def experience(bar: float, level: int, total: int) -> bytes:
    return struct.pack(">f", bar) + varint(level) + varint(total)


def entity_effect(entity_id: int, effect: int, amplifier: int, duration: int, flags: int = 0) -> bytes:
    return (
        varint(entity_id)
        + varint(effect)
        + struct.pack(">b", amplifier)
        + varint(duration)
        + bytes([flags, 0])
    )


def difficulty(level: int, locked: bool = True) -> bytes:
    return struct.pack(">B?", level, locked)


def player_info_add(players: list[tuple[UUID, str, int]]) -> bytes:
    """player_info action 0 (add player): uuid, name, no properties, game mode, ping, no name, no key."""
    out = [varint(0), varint(len(players))]
    for uid, name, gamemode in players:
        out += [uuid_bytes(uid), string(name), varint(0), varint(gamemode), varint(0), b"\x00", b"\x00"]
    return b"".join(out)


def player_info_remove(uuids: list[UUID]) -> bytes:
    return varint(4) + varint(len(uuids)) + b"".join(uuid_bytes(u) for u in uuids)


def named_entity_spawn(
    entity_id: int, uid: UUID, x: float, y: float, z: float, yaw: float, pitch: float
) -> bytes:
    return varint(entity_id) + uuid_bytes(uid) + struct.pack(">dddbb", x, y, z, angle(yaw), angle(pitch))


def entity_teleport(
    entity_id: int, x: float, y: float, z: float, yaw: float, pitch: float, on_ground: bool
) -> bytes:
    return varint(entity_id) + struct.pack(">dddbb?", x, y, z, angle(yaw), angle(pitch), on_ground)


def entity_head_rotation(entity_id: int, yaw: float) -> bytes:
    return varint(entity_id) + struct.pack(">b", angle(yaw))


def entity_destroy(entity_ids: list[int]) -> bytes:
    return varint(len(entity_ids)) + b"".join(varint(e) for e in entity_ids)


def spawn_entity(
    entity_id: int,
    uid: UUID,
    type_id: int,
    x: float,
    y: float,
    z: float,
    vel: tuple[float, float, float],
    data: int = 0,
    pitch: float = 0.0,
    yaw: float = 0.0,
    head_yaw: float = 0.0,
) -> bytes:
    """spawn_entity (quarry ``spawn_object``): angles in degrees, velocity in blocks per tick."""
    return (
        varint(entity_id)
        + uuid_bytes(uid)
        + varint(type_id)
        + struct.pack(">dddbbb", x, y, z, angle(pitch), angle(yaw), angle(head_yaw))
        + varint(data)
        + velocity(vel)
    )


def velocity(vel: tuple[float, float, float]) -> bytes:
    """Velocity in 1/8000 block per tick, clamped to ±3.9 blocks/tick (wiki.vg "Set Entity Velocity")."""
    return struct.pack(">hhh", *(int(max(-3.9, min(3.9, v)) * 8000) for v in vel))


def entity_velocity(entity_id: int, vel: tuple[float, float, float]) -> bytes:
    return varint(entity_id) + velocity(vel)


def item_entity_metadata(entity_id: int, item_id: int, count: int) -> bytes:
    """Item entity metadata: index 8 = the item stack, type 6 = Slot in 1.19.x; 0xFF ends the list."""
    return varint(entity_id) + b"\x08" + varint(6) + slot(item_id, count) + b"\xff"


def collect(collected: int, collector: int, count: int) -> bytes:
    return varint(collected) + varint(collector) + varint(count)


def block_change(x: int, y: int, z: int, state: int) -> bytes:
    return position(x, y, z) + varint(state)


def acknowledge_block_changes(sequence: int) -> bytes:
    return varint(sequence)


def window_items(
    window: int, state_id: int, items: list[tuple[int, int] | None], carried: tuple[int, int] | None
) -> bytes:
    out = [struct.pack(">B", window), varint(state_id), varint(len(items))]
    out += [slot(*s) if s else b"\x00" for s in items]
    out.append(slot(*carried) if carried else b"\x00")
    return b"".join(out)


def set_slot(window: int, state_id: int, index: int, item: tuple[int, int] | None) -> bytes:
    return (
        struct.pack(">b", window)
        + varint(state_id)
        + struct.pack(">h", index)
        + (slot(*item) if item else b"\x00")
    )


def held_item_change(hotbar: int) -> bytes:
    return struct.pack(">b", hotbar)


def update_view_position(cx: int, cz: int) -> bytes:
    return varint(cx) + varint(cz)


def unload_chunk(cx: int, cz: int) -> bytes:
    return struct.pack(">ii", cx, cz)


def initialize_world_border(x: float, z: float, diameter: float) -> bytes:
    return (
        struct.pack(">dddd", x, z, diameter, diameter) + varint(0) + varint(29999984) + varint(5) + varint(15)
    )


def disconnect_json(text: str) -> bytes:
    return B.pack_chat(text)


# ---- chunks ----------------------------------------------------------------------------------------


def _paletted(values: np.ndarray, min_bits: int, max_bits: int, direct_bits: int) -> bytes:
    """One paletted container (wiki.vg "Chunk Format" 1.18+): bits, palette, long array.

    Entries are packed little-end-first into 64-bit longs and never span two longs (since 1.16).
    """
    flat = values.reshape(-1)
    uniq = np.unique(flat)
    if len(uniq) == 1:
        return b"\x00" + varint(int(uniq[0])) + varint(0)
    bits = max(min_bits, int(len(uniq) - 1).bit_length())
    if bits > max_bits:
        bits = direct_bits
        palette = b""
        idx = flat.astype(np.uint64)
    else:
        palette = varint(len(uniq)) + b"".join(varint(int(v)) for v in uniq)
        idx = np.searchsorted(uniq, flat).astype(np.uint64)
    per_long = 64 // bits
    n_longs = -(-len(idx) // per_long)
    padded = np.zeros(n_longs * per_long, dtype=np.uint64)
    padded[: len(idx)] = idx
    shifts = (np.arange(per_long, dtype=np.uint64) * np.uint64(bits))[None, :]
    longs = np.bitwise_or.reduce(padded.reshape(n_longs, per_long) << shifts, axis=1)
    return bytes([bits]) + palette + varint(n_longs) + longs.astype(">u8").tobytes()


def encode_column(blocks: np.ndarray, biomes: np.ndarray, air: np.ndarray) -> bytes:
    """Chunk data of a 384-high column: 24 sections of (block count, block states, biomes).

    Args:
        blocks: (384, 16, 16) global state ids indexed [y, z, x].
        biomes: (96, 4, 4) biome registry ids indexed [y, z, x].
        air: boolean lookup array over state ids, True for air-like states (not counted).
    """
    out = []
    for s in range(24):
        sec = blocks[s * 16 : (s + 1) * 16]
        count = int(np.count_nonzero(~air[sec]))
        out.append(struct.pack(">h", count))
        out.append(_paletted(sec, 4, 8, DIRECT_BLOCK_BITS))
        out.append(_paletted(biomes[s * 4 : (s + 1) * 4], 1, 3, DIRECT_BIOME_BITS))
    return b"".join(out)


def _long_mask(bits: int) -> bytes:
    return varint(1) + struct.pack(">q", bits - (1 << 64) if bits >= 1 << 63 else bits)


def _heightmaps(motion_blocking: np.ndarray) -> bytes:
    """Network NBT ``{MOTION_BLOCKING: long[37]}``: 256 heights of 9 bits (height+1 above y=-64)."""
    vals = motion_blocking.reshape(-1).astype(np.uint64)
    per_long = 7
    padded = np.zeros(37 * per_long, dtype=np.uint64)
    padded[:256] = vals
    shifts = (np.arange(per_long, dtype=np.uint64) * np.uint64(9))[None, :]
    longs = np.bitwise_or.reduce(padded.reshape(37, per_long) << shifts, axis=1)
    name = b"MOTION_BLOCKING"
    return (
        b"\x0a\x00\x00"  # TAG_Compound, empty root name
        + b"\x0c"
        + struct.pack(">h", len(name))
        + name
        + struct.pack(">i", 37)
        + longs.astype(">u8").tobytes()
        + b"\x00"
    )


def map_chunk(
    cx: int, cz: int, column_data: bytes, heights: np.ndarray, sky_light: list[bytes | None]
) -> bytes:
    """map_chunk (quarry ``chunk_data``) with light: ``sky_light`` has 26 entries (sections -5..20... i.e.
    one below the world, 24, one above); ``None`` means "all zero" (sent in the empty mask).
    """
    sky_mask = 0
    empty_mask = 0
    arrays = []
    for i, arr in enumerate(sky_light):
        if arr is None:
            empty_mask |= 1 << i
        else:
            sky_mask |= 1 << i
            arrays.append(varint(2048) + arr)
    return b"".join(
        [
            struct.pack(">ii", cx, cz),
            _heightmaps(heights),
            varint(len(column_data)),
            column_data,
            varint(0),  # block entities: none sent in part 1
            b"\x01",  # trust edges
            _long_mask(sky_mask),
            varint(0),  # block light mask: empty
            _long_mask(empty_mask),
            _long_mask((1 << 26) - 1),  # every block-light section is empty (no emitters modelled)
            varint(len(arrays)),
            *arrays,
            varint(0),
        ]
    )


# ---- serverbound -----------------------------------------------------------------------------------


@dataclass
class Click:
    """A parsed click_window packet."""

    window: int
    state_id: int
    slot: int
    button: int
    mode: int
    changed: list[tuple[int, tuple[int, int] | None]]
    carried: tuple[int, int] | None


def read_click(buff: Buffer1_14) -> Click:
    window = buff.unpack("B")
    state = buff.unpack_varint()
    index, button = buff.unpack("hb")
    mode = buff.unpack_varint()
    n = buff.unpack_varint()
    if n > 128:
        raise ProtocolError(f"click_window: {n} changed slots (max 128)")
    changed = []
    for _ in range(n):
        changed.append((buff.unpack("h"), read_slot(buff)))
    return Click(window, state, index, button, mode, changed, read_slot(buff))
