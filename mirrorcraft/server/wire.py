"""Game-level builders of the packet bodies the embedded server sends (1.19.2 = 760 and 1.19 = 759).

Why a layer over ``mirrorcraft.protocol``: the protocol package owns every codec (field order, types, the
759/760 differences); the game wants to say "teleport this player to (x, y, z) in degrees" or "this slot
holds (item, count)". Each function here converts game values (degrees → angle bytes, blocks per tick →
1/8000 units, ``(item, count)`` → ``Slot``) and encodes one protocol packet object. Packet *ids* are not
handled here: quarry's per-protocol tables map quarry's packet names to ids when the connection sends.
``tests/server/test_wire.py`` checks these bodies byte for byte against vanilla captures.
"""

from __future__ import annotations

import math
import struct
from typing import Any
from uuid import UUID

from mirrorcraft import PROTOCOL_1_19_2
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.buffer import Slot
from mirrorcraft.protocol.codec import encode
from mirrorcraft.protocol.metadata import MetadataEntry


def position(x: int, y: int, z: int) -> bytes:
    """1.14+ packed position: x 26 bits, z 26 bits, y 12 bits (wiki.vg "Position")."""
    return struct.pack(">Q", ((x & 0x3FFFFFF) << 38) | ((z & 0x3FFFFFF) << 12) | (y & 0xFFF))


def unpack_position(data: bytes | int) -> tuple[int, int, int]:
    """Inverse of :func:`position` (from 8 bytes or the signed 64-bit value)."""
    val = struct.unpack(">q", data)[0] if isinstance(data, bytes) else data
    x = val >> 38
    y = ((val & 0xFFF) ^ 0x800) - 0x800
    z = (((val >> 12) & 0x3FFFFFF) ^ 0x2000000) - 0x2000000
    return x, y, z


def angle(deg: float) -> int:
    """Protocol angle byte (1/256 of a turn) as a signed byte value."""
    v = math.floor(deg * 256.0 / 360.0) & 0xFF  # vanilla Mth.floor(yaw * 256 / 360)
    return v - 256 if v > 127 else v


# ---- clientbound ---------------------------------------------------------------------------------
# Thin builders over mirrorcraft.protocol's packet classes: the server calls them with game values (degrees,
# blocks per tick, (item, count) stacks) and they return the encoded body. The bodies of these packets are
# identical in 759 and 760, so they are encoded with the 760 tables.


def _enc(pkt: cb.Packet) -> bytes:
    return encode(pkt, PROTOCOL_1_19_2)


def _slot(stack: tuple[Any, ...] | None) -> Slot | None:
    """A wire slot from ``(item id, count)`` or ``(item id, count, nbt)`` (enchanted items carry their NBT)."""
    if not stack or stack[1] <= 0:
        return None
    return Slot(stack[0], stack[1], stack[2] if len(stack) > 2 else None)


def _vel(v: float) -> int:
    """Velocity in 1/8000 block per tick, clamped to ±3.9 blocks/tick (wiki.vg "Set Entity Velocity")."""
    return int(max(-3.9, min(3.9, v)) * 8000)


def login(
    entity_id: int,
    game_mode: int,
    protocol: int,
    hashed_seed: int,
    view_distance: int,
    simulation_distance: int,
    dimension: str = "minecraft:overworld",
) -> bytes:
    """login (quarry ``join_game``) with the vanilla registry codec of ``protocol`` (from gamedata)."""
    from mirrorcraft.server import facts

    pkt = cb.Login(
        entity_id=entity_id,
        is_hardcore=False,
        game_mode=game_mode,
        previous_game_mode=-1,
        world_names=[dimension],
        registry_codec=facts.registry_codec_nbt(protocol),
        dimension_type=dimension,
        world_name=dimension,
        hashed_seed=hashed_seed,
        max_players=20,  # ignored by clients
        view_distance=view_distance,
        simulation_distance=simulation_distance,
        reduced_debug_info=False,
        enable_respawn_screen=True,
        is_debug=False,
        is_flat=False,
        death=None,
    )
    return encode(pkt, protocol)


def player_position(x: float, y: float, z: float, yaw: float, pitch: float, teleport_id: int) -> bytes:
    return _enc(
        cb.Position(
            x=x, y=y, z=z, yaw=yaw, pitch=pitch, flags=0, teleport_id=teleport_id, dismount_vehicle=False
        )
    )


def spawn_position(x: int, y: int, z: int, angle_deg: float = 0.0) -> bytes:
    return _enc(cb.SpawnPosition(location=(x, y, z), angle=angle_deg))


def keep_alive(ident: int) -> bytes:
    return _enc(cb.KeepAlive(keep_alive_id=ident))


def update_health(health: float, food: int, saturation: float) -> bytes:
    return _enc(cb.UpdateHealth(health=health, food=food, food_saturation=saturation))


def update_time(world_age: int, time_of_day: int) -> bytes:
    """Negative time of day freezes the daylight cycle on the client (wiki.vg "Update Time")."""
    return _enc(cb.UpdateTime(age=world_age, time=time_of_day))


def game_state_change(reason: int, value: float) -> bytes:
    return _enc(cb.GameStateChange(reason=reason, value=value))


def abilities(flags: int, flying_speed: float = 0.05, fov_modifier: float = 0.1) -> bytes:
    return _enc(cb.Abilities(flags=flags, flying_speed=flying_speed, walking_speed=fov_modifier))


def experience(bar: float, level: int, total: int) -> bytes:
    return _enc(cb.Experience(experience_bar=bar, level=level, total_experience=total))


def entity_effect(entity_id: int, effect: int, amplifier: int, duration: int, flags: int = 0) -> bytes:
    return _enc(
        cb.EntityEffect(
            entity_id=entity_id,
            effect_id=effect,
            amplifier=amplifier,
            duration=duration,
            flags=flags,
            factor_codec=None,
        )
    )


def difficulty(level: int, locked: bool = True) -> bytes:
    return _enc(cb.Difficulty(difficulty=level, locked=locked))


def player_info_add(players: list[tuple[UUID, str, int]]) -> bytes:
    """player_info action 0 (add player): uuid, name, no properties, game mode, ping 0, no name, no key."""
    entries = [cb.PlayerInfoEntry(uid, name=name, gamemode=mode, ping=0) for uid, name, mode in players]
    return _enc(cb.PlayerInfo(action=0, entries=entries))


def player_info_remove(uuids: list[UUID]) -> bytes:
    return _enc(cb.PlayerInfo(action=4, entries=[cb.PlayerInfoEntry(u) for u in uuids]))


def named_entity_spawn(
    entity_id: int, uid: UUID, x: float, y: float, z: float, yaw: float, pitch: float
) -> bytes:
    return _enc(
        cb.SpawnPlayer(
            entity_id=entity_id, player_uuid=uid, x=x, y=y, z=z, yaw=angle(yaw), pitch=angle(pitch)
        )
    )


def entity_teleport(
    entity_id: int, x: float, y: float, z: float, yaw: float, pitch: float, on_ground: bool
) -> bytes:
    return _enc(
        cb.EntityTeleport(
            entity_id=entity_id, x=x, y=y, z=z, yaw=angle(yaw), pitch=angle(pitch), on_ground=on_ground
        )
    )


def entity_head_rotation(entity_id: int, yaw: float) -> bytes:
    return _enc(cb.EntityHeadRotation(entity_id=entity_id, head_yaw=angle(yaw)))


def entity_destroy(entity_ids: list[int]) -> bytes:
    return _enc(cb.EntityDestroy(entity_ids=list(entity_ids)))


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
    return _enc(
        cb.SpawnEntity(
            entity_id=entity_id,
            object_uuid=uid,
            type=type_id,
            x=x,
            y=y,
            z=z,
            pitch=angle(pitch),
            yaw=angle(yaw),
            head_yaw=angle(head_yaw),
            data=data,
            velocity_x=_vel(vel[0]),
            velocity_y=_vel(vel[1]),
            velocity_z=_vel(vel[2]),
        )
    )


def entity_velocity(entity_id: int, vel: tuple[float, float, float]) -> bytes:
    return _enc(
        cb.EntityVelocity(
            entity_id=entity_id, velocity_x=_vel(vel[0]), velocity_y=_vel(vel[1]), velocity_z=_vel(vel[2])
        )
    )


def item_entity_metadata(entity_id: int, item_id: int, count: int) -> bytes:
    """Item entity metadata: index 8 = the item stack, type 6 = Slot in 1.19.x (wiki.vg "Entity metadata")."""
    return _enc(
        cb.EntityMetadata(entity_id=entity_id, metadata=[MetadataEntry(8, 6, _slot((item_id, count)))])
    )


def collect(collected: int, collector: int, count: int) -> bytes:
    return _enc(
        cb.Collect(collected_entity_id=collected, collector_entity_id=collector, pickup_item_count=count)
    )


def block_change(x: int, y: int, z: int, state: int) -> bytes:
    return _enc(cb.BlockChange(location=(x, y, z), state=state))


def acknowledge_block_changes(sequence: int) -> bytes:
    return _enc(cb.AcknowledgeBlockChange(sequence_id=sequence))


def window_items(
    window: int, state_id: int, items: list[tuple[int, int] | None], carried: tuple[int, int] | None
) -> bytes:
    return _enc(
        cb.WindowItems(
            window_id=window, state_id=state_id, items=[_slot(s) for s in items], carried_item=_slot(carried)
        )
    )


def set_slot(window: int, state_id: int, index: int, item: tuple[int, int] | None) -> bytes:
    return _enc(cb.SetSlot(window_id=window, state_id=state_id, slot=index, item=_slot(item)))


def held_item_change(hotbar: int) -> bytes:
    return _enc(cb.HeldItemSlot(slot=hotbar))


def update_view_position(cx: int, cz: int) -> bytes:
    return _enc(cb.UpdateViewPosition(chunk_x=cx, chunk_z=cz))


def unload_chunk(cx: int, cz: int) -> bytes:
    from mirrorcraft.protocol.chunks import UnloadChunk

    return _enc(UnloadChunk(chunk_x=cx, chunk_z=cz))


def initialize_world_border(x: float, z: float, diameter: float) -> bytes:
    return _enc(
        cb.InitializeWorldBorder(
            x=x,
            z=z,
            old_diameter=diameter,
            new_diameter=diameter,
            speed=0,
            portal_teleport_boundary=29999984,
            warning_blocks=5,
            warning_time=15,
        )
    )
