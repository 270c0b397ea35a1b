"""Clientbound play packets for 1.19 (759) and 1.19.2 (760): what the client body consumes.

Layouts follow wiki.vg "Protocol" for 1.19 / 1.19.2 and were verified byte-for-byte on the vanilla
captures of ``minecraft-packets`` 1.9.0 (``tests/protocol/test_protocol_captures.py``). Angles (yaw, pitch, head yaw)
are kept as the raw signed angle byte (1/256 turn) so that objects round-trip exactly. chunk packets
(map_chunk, update_light, unload_chunk) live in :mod:`mirrorcraft.protocol.chunks`.

759 vs 760 differences handled here: ``system_chat`` (759 ends with a VarInt chat type, 760 with an overlay
bool), ``player_chat`` (entirely different layouts), ``server_data`` (760 adds ``enforces_secure_chat``).
``multi_block_change``'s bool is "suppress light updates" in both (minecraft-data calls it
``notTrustEdges`` in 759 and ``suppressLightUpdates`` in 760; same byte).
"""

from __future__ import annotations

import uuid as uuid_mod
from dataclasses import dataclass, field
from typing import Any

import nbtlib

from mirrorcraft import PROTOCOL_1_19_2
from mirrorcraft.protocol.buffer import Reader, Slot, Writer
from mirrorcraft.protocol.codec import (
    BOOL,
    BYTES,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    NBT,
    OPT_NBT,
    POSITION,
    REST,
    SLOT,
    STRING,
    U8,
    UUID,
    VARINT,
    VARLONG,
    Array,
    Option,
    Packet,
    Struct,
    packet,
    wire,
)
from mirrorcraft.protocol.metadata import MetadataEntry, read_metadata, read_particle_data, write_metadata
from mirrorcraft.protocol.metadata import write_particle_data as _write_particle_data

# --------------------------------------------------------------------------------------------- join/world


@dataclass(kw_only=True)
class DeathLocation:
    """Last death location (optional in login/respawn since 1.19)."""

    dimension: str = wire(STRING)
    position: tuple[int, int, int] = wire(POSITION)


@packet("login")
class Login(Packet):
    """Login (play) / join game. Identical layout in 759 and 760 (both carry the optional death location)."""

    entity_id: int = wire(I32)
    is_hardcore: bool = wire(BOOL)
    game_mode: int = wire(U8)
    previous_game_mode: int = wire(I8)
    world_names: list[str] = wire(Array(STRING))
    registry_codec: nbtlib.Compound = wire(NBT)
    dimension_type: str = wire(STRING)
    world_name: str = wire(STRING)
    hashed_seed: int = wire(I64)
    max_players: int = wire(VARINT)
    view_distance: int = wire(VARINT)
    simulation_distance: int = wire(VARINT)
    reduced_debug_info: bool = wire(BOOL)
    enable_respawn_screen: bool = wire(BOOL)
    is_debug: bool = wire(BOOL)
    is_flat: bool = wire(BOOL)
    death: DeathLocation | None = wire(Option(Struct(DeathLocation)))


@packet("respawn")
class Respawn(Packet):
    """Respawn (also sent on dimension change)."""

    dimension_type: str = wire(STRING)
    world_name: str = wire(STRING)
    hashed_seed: int = wire(I64)
    game_mode: int = wire(U8)
    previous_game_mode: int = wire(I8)
    is_debug: bool = wire(BOOL)
    is_flat: bool = wire(BOOL)
    copy_metadata: bool = wire(BOOL)
    death: DeathLocation | None = wire(Option(Struct(DeathLocation)))


@packet("position")
class Position(Packet):
    """Synchronize player position; ``flags`` bit i set = field i relative (x, y, z, yaw, pitch)."""

    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    yaw: float = wire(F32)
    pitch: float = wire(F32)
    flags: int = wire(I8)
    teleport_id: int = wire(VARINT)
    dismount_vehicle: bool = wire(BOOL)


@packet("block_change")
class BlockChange(Packet):
    """Block update: position and new global block-state id."""

    location: tuple[int, int, int] = wire(POSITION)
    state: int = wire(VARINT)


@packet("multi_block_change")
class MultiBlockChange(Packet):
    """Update section blocks: packed section position (x 22 | z 22 | y 20 bits, signed), a bool, and
    VarLong records ``state << 12 | x << 8 | z << 4 | y`` (section-relative)."""

    section: tuple[int, int, int] = (0, 0, 0)
    suppress_light_updates: bool = False
    records: list[int] = field(default_factory=list)

    def changes(self) -> list[tuple[tuple[int, int, int], int]]:
        """``((x, y, z) absolute, state)`` for each record."""
        sx, sy, sz = self.section
        return [
            ((sx * 16 + (r >> 8 & 15), sy * 16 + (r & 15), sz * 16 + (r >> 4 & 15)), r >> 12)
            for r in self.records
        ]

    @classmethod
    def read(cls, r: Reader, proto: int) -> MultiBlockChange:
        v = r.i64("section") & (1 << 64) - 1

        def sign(x: int, bits: int) -> int:
            return x - (1 << bits) if x >= 1 << (bits - 1) else x

        section = (sign(v >> 42, 22), sign(v & 0xFFFFF, 20), sign(v >> 20 & 0x3FFFFF, 22))
        suppress = r.bool("suppress_light_updates")
        return cls(
            section=section, suppress_light_updates=suppress, records=r.array(lambda: r.varlong("records"))
        )

    def write(self, w: Writer, proto: int) -> None:
        x, y, z = self.section
        v = (x & 0x3FFFFF) << 42 | (z & 0x3FFFFF) << 20 | (y & 0xFFFFF)
        w.i64(v - (1 << 64) if v >= 1 << 63 else v)
        w.bool(self.suppress_light_updates)
        w.array(self.records, w.varlong)


@packet("spawn_position")
class SpawnPosition(Packet):
    """Set default spawn position."""

    location: tuple[int, int, int] = wire(POSITION)
    angle: float = wire(F32)


@packet("update_time")
class UpdateTime(Packet):
    """World age and time of day."""

    age: int = wire(I64)
    time: int = wire(I64)


@packet("keep_alive")
class KeepAlive(Packet):
    """Keep alive (clientbound)."""

    keep_alive_id: int = wire(I64)


@packet("acknowledge_player_digging")
class AcknowledgeBlockChange(Packet):
    """Acknowledge block change (1.19: just the sequence id)."""

    sequence_id: int = wire(VARINT)


@packet("initialize_world_border")
class InitializeWorldBorder(Packet):
    """Initialize world border."""

    x: float = wire(F64)
    z: float = wire(F64)
    old_diameter: float = wire(F64)
    new_diameter: float = wire(F64)
    speed: int = wire(VARLONG)
    portal_teleport_boundary: int = wire(VARINT)
    warning_blocks: int = wire(VARINT)
    warning_time: int = wire(VARINT)


@packet("update_view_position")
class UpdateViewPosition(Packet):
    """Set center chunk."""

    chunk_x: int = wire(VARINT)
    chunk_z: int = wire(VARINT)


@packet("difficulty")
class Difficulty(Packet):
    """Change difficulty (0 peaceful .. 3 hard)."""

    difficulty: int = wire(U8)
    locked: bool = wire(BOOL)


@packet("game_state_change")
class GameStateChange(Packet):
    """Game event: reason (0..11) and a float value."""

    reason: int = wire(U8)
    value: float = wire(F32)


@packet("world_event")
class WorldEvent(Packet):
    """World event (sounds/particles by event id)."""

    effect_id: int = wire(I32)
    location: tuple[int, int, int] = wire(POSITION)
    data: int = wire(I32)
    is_global: bool = wire(BOOL)


@packet("world_particles")
class WorldParticles(Packet):
    """Particle: id, long distance, position, offsets, max speed, count, then id-dependent data."""

    particle_id: int = 0
    long_distance: bool = False
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    max_speed: float = 0.0
    count: int = 0
    data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def read(cls, r: Reader, proto: int) -> WorldParticles:
        pid = r.varint("particle_id")
        return cls(
            particle_id=pid,
            long_distance=r.bool("long_distance"),
            x=r.f64("x"),
            y=r.f64("y"),
            z=r.f64("z"),
            offset=(r.f32("offset"), r.f32("offset"), r.f32("offset")),
            max_speed=r.f32("max_speed"),
            count=r.i32("count"),
            data=read_particle_data(r, pid),
        )

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.particle_id)
        w.bool(self.long_distance)
        for v in (self.x, self.y, self.z):
            w.f64(v)
        for v in (*self.offset, self.max_speed):
            w.f32(v)
        w.i32(self.count)
        _write_particle_data(w, self.particle_id, self.data)


# ------------------------------------------------------------------------------------------------ sounds


@packet("sound_effect")
class SoundEffect(Packet):
    """Sound effect by registry id; position is block coordinates × 8."""

    sound_id: int = wire(VARINT)
    category: int = wire(VARINT)
    x: int = wire(I32)
    y: int = wire(I32)
    z: int = wire(I32)
    volume: float = wire(F32)
    pitch: float = wire(F32)
    seed: int = wire(I64)


@packet("named_sound_effect")
class NamedSoundEffect(Packet):
    """Custom sound effect by identifier."""

    sound_name: str = wire(STRING)
    category: int = wire(VARINT)
    x: int = wire(I32)
    y: int = wire(I32)
    z: int = wire(I32)
    volume: float = wire(F32)
    pitch: float = wire(F32)
    seed: int = wire(I64)


@packet("entity_sound_effect")
class EntitySoundEffect(Packet):
    """Entity sound effect (has a seed since 1.19)."""

    sound_id: int = wire(VARINT)
    category: int = wire(VARINT)
    entity_id: int = wire(VARINT)
    volume: float = wire(F32)
    pitch: float = wire(F32)
    seed: int = wire(I64)


# ---------------------------------------------------------------------------------------------- entities


@packet("spawn_entity")
class SpawnEntity(Packet):
    """Spawn entity (every non-player entity since 1.19); angles are raw bytes, velocity in 1/8000 b/tick."""

    entity_id: int = wire(VARINT)
    object_uuid: uuid_mod.UUID = wire(UUID)
    type: int = wire(VARINT)
    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    pitch: int = wire(I8)
    yaw: int = wire(I8)
    head_yaw: int = wire(I8)
    data: int = wire(VARINT)
    velocity_x: int = wire(I16)
    velocity_y: int = wire(I16)
    velocity_z: int = wire(I16)


@packet("named_entity_spawn")
class SpawnPlayer(Packet):
    """Spawn player."""

    entity_id: int = wire(VARINT)
    player_uuid: uuid_mod.UUID = wire(UUID)
    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    yaw: int = wire(I8)
    pitch: int = wire(I8)


@packet("entity_metadata")
class EntityMetadata(Packet):
    """Set entity metadata: entries until 0xFF (see :mod:`mirrorcraft.protocol.metadata`)."""

    entity_id: int = 0
    metadata: list[MetadataEntry] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, proto: int) -> EntityMetadata:
        return cls(entity_id=r.varint("entity_id"), metadata=read_metadata(r))

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.entity_id)
        write_metadata(w, self.metadata)


@packet("entity_destroy")
class EntityDestroy(Packet):
    """Remove entities."""

    entity_ids: list[int] = wire(Array(VARINT))


@packet("rel_entity_move")
class RelEntityMove(Packet):
    """Update entity position: deltas in 1/4096 block."""

    entity_id: int = wire(VARINT)
    dx: int = wire(I16)
    dy: int = wire(I16)
    dz: int = wire(I16)
    on_ground: bool = wire(BOOL)


@packet("entity_move_look")
class EntityMoveLook(Packet):
    """Update entity position and rotation."""

    entity_id: int = wire(VARINT)
    dx: int = wire(I16)
    dy: int = wire(I16)
    dz: int = wire(I16)
    yaw: int = wire(I8)
    pitch: int = wire(I8)
    on_ground: bool = wire(BOOL)


@packet("entity_look")
class EntityLook(Packet):
    """Update entity rotation."""

    entity_id: int = wire(VARINT)
    yaw: int = wire(I8)
    pitch: int = wire(I8)
    on_ground: bool = wire(BOOL)


@packet("entity_teleport")
class EntityTeleport(Packet):
    """Teleport entity."""

    entity_id: int = wire(VARINT)
    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    yaw: int = wire(I8)
    pitch: int = wire(I8)
    on_ground: bool = wire(BOOL)


@packet("entity_velocity")
class EntityVelocity(Packet):
    """Set entity velocity (1/8000 block per tick)."""

    entity_id: int = wire(VARINT)
    velocity_x: int = wire(I16)
    velocity_y: int = wire(I16)
    velocity_z: int = wire(I16)


@packet("entity_head_rotation")
class EntityHeadRotation(Packet):
    """Set head rotation."""

    entity_id: int = wire(VARINT)
    head_yaw: int = wire(I8)


@packet("entity_status")
class EntityStatus(Packet):
    """Entity event (i32 entity id, i8 status)."""

    entity_id: int = wire(I32)
    status: int = wire(I8)


@packet("entity_equipment")
class EntityEquipment(Packet):
    """Set equipment: ``[(slot, item)]``; on the wire the slot byte's top bit says another entry follows."""

    entity_id: int = 0
    equipment: list[tuple[int, Slot | None]] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, proto: int) -> EntityEquipment:
        eid = r.varint("entity_id")
        out = []
        while True:
            b = r.u8("equipment.slot")
            out.append((b & 0x7F, r.slot("equipment.item")))
            if not b & 0x80:
                return cls(entity_id=eid, equipment=out)

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.entity_id)
        for i, (slot, item) in enumerate(self.equipment):
            w.u8(slot | (0x80 if i < len(self.equipment) - 1 else 0))
            w.slot(item)


@packet("entity_effect")
class EntityEffect(Packet):
    """Entity effect (1.19 adds an optional factor-codec NBT)."""

    entity_id: int = wire(VARINT)
    effect_id: int = wire(VARINT)
    amplifier: int = wire(I8)
    duration: int = wire(VARINT)
    flags: int = wire(I8)
    factor_codec: nbtlib.Compound | None = wire(Option(NBT))


@packet("remove_entity_effect")
class RemoveEntityEffect(Packet):
    """Remove entity effect."""

    entity_id: int = wire(VARINT)
    effect_id: int = wire(VARINT)


@dataclass(kw_only=True)
class AttributeModifier:
    """One attribute modifier."""

    uuid: uuid_mod.UUID = wire(UUID)
    amount: float = wire(F64)
    operation: int = wire(I8)


@dataclass(kw_only=True)
class AttributeProperty:
    """One attribute: key, base value, modifiers."""

    key: str = wire(STRING)
    value: float = wire(F64)
    modifiers: list[AttributeModifier] = wire(Array(Struct(AttributeModifier)))


@packet("entity_update_attributes")
class EntityUpdateAttributes(Packet):
    """Update attributes."""

    entity_id: int = wire(VARINT)
    properties: list[AttributeProperty] = wire(Array(Struct(AttributeProperty)))


@packet("collect")
class Collect(Packet):
    """Pickup item: collected entity, collector entity, count."""

    collected_entity_id: int = wire(VARINT)
    collector_entity_id: int = wire(VARINT)
    pickup_item_count: int = wire(VARINT)


@packet("death_combat_event")
class DeathCombatEvent(Packet):
    """Combat death: player id, killer entity id (i32), JSON message."""

    player_id: int = wire(VARINT)
    entity_id: int = wire(I32)
    message: str = wire(STRING)


# ---------------------------------------------------------------------------------------- player/windows


@packet("update_health")
class UpdateHealth(Packet):
    """Set health, food, saturation."""

    health: float = wire(F32)
    food: int = wire(VARINT)
    food_saturation: float = wire(F32)


@packet("experience")
class Experience(Packet):
    """Set experience."""

    experience_bar: float = wire(F32)
    level: int = wire(VARINT)
    total_experience: int = wire(VARINT)


@packet("held_item_slot")
class HeldItemSlot(Packet):
    """Set held item (0..8)."""

    slot: int = wire(I8)


@packet("abilities")
class Abilities(Packet):
    """Player abilities."""

    flags: int = wire(I8)
    flying_speed: float = wire(F32)
    walking_speed: float = wire(F32)


@packet("window_items")
class WindowItems(Packet):
    """Set container content."""

    window_id: int = wire(U8)
    state_id: int = wire(VARINT)
    items: list[Slot | None] = wire(Array(SLOT))
    carried_item: Slot | None = wire(SLOT)


@packet("set_slot")
class SetSlot(Packet):
    """Set container slot (window -1 = cursor, -2 = player inventory)."""

    window_id: int = wire(I8)
    state_id: int = wire(VARINT)
    slot: int = wire(I16)
    item: Slot | None = wire(SLOT)


@packet("open_window")
class OpenWindow(Packet):
    """Open screen: window id, menu type, JSON title."""

    window_id: int = wire(VARINT)
    inventory_type: int = wire(VARINT)
    window_title: str = wire(STRING)


@packet("close_window")
class CloseWindow(Packet):
    """Close container (clientbound)."""

    window_id: int = wire(U8)


@packet("craft_progress_bar")
class CraftProgressBar(Packet):
    """Set container property (furnace progress, enchantment table seeds...)."""

    window_id: int = wire(U8)
    property: int = wire(I16)
    value: int = wire(I16)


@packet("set_cooldown")
class SetCooldown(Packet):
    """Item cooldown."""

    item_id: int = wire(VARINT)
    cooldown_ticks: int = wire(VARINT)


@dataclass(kw_only=True)
class StatisticEntry:
    """One statistic."""

    category_id: int = wire(VARINT)
    statistic_id: int = wire(VARINT)
    value: int = wire(VARINT)


@packet("statistics")
class Statistics(Packet):
    """Award statistics."""

    entries: list[StatisticEntry] = wire(Array(Struct(StatisticEntry)))


# ------------------------------------------------------------------------------------------------- chat/ui


@packet("system_chat")
class SystemChat(Packet):
    """System chat message: JSON text, then 759: VarInt chat type; 760: overlay (action bar) bool."""

    content: str = wire(STRING)
    type: int = wire(VARINT, only=759)
    overlay: bool = wire(BOOL, only=760)


@dataclass(kw_only=True)
class PreviousMessage:
    """A (sender, signature) pair of the 1.19.2 last-seen message list."""

    sender: uuid_mod.UUID = wire(UUID)
    signature: bytes = wire(BYTES)


@packet("player_chat")
class PlayerChat(Packet):
    """Player chat message. The two layouts are unrelated; fields not sent by a protocol stay default.

    760: previous signature?, sender, header signature, plain message, formatted?, timestamp, salt, previous
    messages, unsigned content?, filter type (+ mask if 2), chat type, network name, target name?.
    759: signed content, unsigned content?, chat type, sender, sender name, team name?, timestamp, salt,
    signature.
    """

    sender: uuid_mod.UUID | None = None
    plain_message: str = ""
    unsigned_content: str | None = None
    chat_type: int = 0
    network_name: str = ""
    network_target_name: str | None = None
    timestamp: int = 0
    salt: int = 0
    signature: bytes = b""
    previous_signature: bytes | None = None
    formatted_message: str | None = None
    previous_messages: list[PreviousMessage] = field(default_factory=list)
    filter_type: int = 0
    filter_mask: list[int] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, proto: int) -> PlayerChat:
        if proto == PROTOCOL_1_19_2:
            p = cls(previous_signature=r.option(lambda: r.byte_array("previous_signature")))
            p.sender = r.uuid("sender")
            p.signature = r.byte_array("signature")
            p.plain_message = r.string("plain_message")
            p.formatted_message = r.option(lambda: r.string("formatted_message"))
            p.timestamp, p.salt = r.i64("timestamp"), r.i64("salt")
            p.previous_messages = Array(Struct(PreviousMessage)).read(r, proto, "previous_messages")
            p.unsigned_content = r.option(lambda: r.string("unsigned_content"))
            p.filter_type = r.varint("filter_type")
            if p.filter_type == 2:
                p.filter_mask = r.longs("filter_mask")
            p.chat_type = r.varint("chat_type")
            p.network_name = r.string("network_name")
            p.network_target_name = r.option(lambda: r.string("network_target_name"))
            return p
        p = cls(plain_message=r.string("signed_content"))
        p.unsigned_content = r.option(lambda: r.string("unsigned_content"))
        p.chat_type = r.varint("chat_type")
        p.sender = r.uuid("sender")
        p.network_name = r.string("sender_name")
        p.network_target_name = r.option(lambda: r.string("team_name"))
        p.timestamp, p.salt = r.i64("timestamp"), r.i64("salt")
        p.signature = r.byte_array("signature")
        return p

    def write(self, w: Writer, proto: int) -> None:
        sender = self.sender or uuid_mod.UUID(int=0)
        if proto == PROTOCOL_1_19_2:
            w.option(self.previous_signature, w.byte_array)
            w.uuid(sender)
            w.byte_array(self.signature)
            w.string(self.plain_message)
            w.option(self.formatted_message, w.string)
            w.i64(self.timestamp)
            w.i64(self.salt)
            Array(Struct(PreviousMessage)).write(w, self.previous_messages, proto, "previous_messages")
            w.option(self.unsigned_content, w.string)
            w.varint(self.filter_type)
            if self.filter_type == 2:
                w.longs(self.filter_mask)
            w.varint(self.chat_type)
            w.string(self.network_name)
            w.option(self.network_target_name, w.string)
            return
        w.string(self.plain_message)
        w.option(self.unsigned_content, w.string)
        w.varint(self.chat_type)
        w.uuid(sender)
        w.string(self.network_name)
        w.option(self.network_target_name, w.string)
        w.i64(self.timestamp)
        w.i64(self.salt)
        w.byte_array(self.signature)


@packet("set_title_text")
class SetTitleText(Packet):
    """Set title text (JSON)."""

    text: str = wire(STRING)


@packet("server_data")
class ServerData(Packet):
    """Server data: MOTD?, icon?, previews chat; 760 adds enforces secure chat."""

    motd: str | None = wire(Option(STRING))
    icon: str | None = wire(Option(STRING))
    previews_chat: bool = wire(BOOL)
    enforces_secure_chat: bool = wire(BOOL, only=760)


@packet("custom_payload")
class CustomPayload(Packet):
    """Plugin message (clientbound): channel identifier + the rest of the packet."""

    channel: str = wire(STRING)
    data: bytes = wire(REST)


@dataclass(kw_only=True)
class TabMatch:
    """One completion match."""

    match: str = wire(STRING)
    tooltip: str | None = wire(Option(STRING))


@packet("tab_complete")
class TabComplete(Packet):
    """Command suggestions response."""

    transaction_id: int = wire(VARINT)
    start: int = wire(VARINT)
    length: int = wire(VARINT)
    matches: list[TabMatch] = wire(Array(Struct(TabMatch)))


@packet("boss_bar")
class BossBar(Packet):
    """Boss bar; which fields are present depends on ``action`` (0 add, 1 remove, 2 health, 3 title,
    4 style, 5 flags)."""

    uuid: uuid_mod.UUID = field(default_factory=lambda: uuid_mod.UUID(int=0))
    action: int = 0
    title: str | None = None
    health: float | None = None
    color: int | None = None
    dividers: int | None = None
    flags: int | None = None

    @classmethod
    def read(cls, r: Reader, proto: int) -> BossBar:
        p = cls(uuid=r.uuid("uuid"), action=r.varint("action"))
        a = p.action
        if a in (0, 3):
            p.title = r.string("title")
        if a in (0, 2):
            p.health = r.f32("health")
        if a in (0, 4):
            p.color, p.dividers = r.varint("color"), r.varint("dividers")
        if a in (0, 5):
            p.flags = r.u8("flags")
        if not 0 <= a <= 5:
            raise r.error(f"unknown boss bar action {a}", "action")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.uuid(self.uuid)
        w.varint(self.action)
        a = self.action
        if a in (0, 3):
            w.string(self.title or "")
        if a in (0, 2):
            w.f32(self.health or 0.0)
        if a in (0, 4):
            w.varint(self.color or 0)
            w.varint(self.dividers or 0)
        if a in (0, 5):
            w.u8(self.flags or 0)


@packet("scoreboard_objective")
class ScoreboardObjective(Packet):
    """Update objectives: mode 0 create, 1 remove, 2 update (0/2 carry display text and type)."""

    name: str = ""
    mode: int = 0
    display_text: str | None = None
    type: int | None = None

    @classmethod
    def read(cls, r: Reader, proto: int) -> ScoreboardObjective:
        p = cls(name=r.string("name"), mode=r.i8("mode"))
        if p.mode in (0, 2):
            p.display_text, p.type = r.string("display_text"), r.varint("type")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.string(self.name)
        w.i8(self.mode)
        if self.mode in (0, 2):
            w.string(self.display_text or "")
            w.varint(self.type or 0)


@packet("scoreboard_score")
class ScoreboardScore(Packet):
    """Update score: action 0 set (with value), 1 remove."""

    item_name: str = ""
    action: int = 0
    score_name: str = ""
    value: int | None = None

    @classmethod
    def read(cls, r: Reader, proto: int) -> ScoreboardScore:
        p = cls(item_name=r.string("item_name"), action=r.varint("action"), score_name=r.string("score_name"))
        if p.action != 1:
            p.value = r.varint("value")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.string(self.item_name)
        w.varint(self.action)
        w.string(self.score_name)
        if self.action != 1:
            w.varint(self.value or 0)


@packet("scoreboard_display_objective")
class ScoreboardDisplayObjective(Packet):
    """Display objective in a slot."""

    position: int = wire(I8)
    name: str = wire(STRING)


@packet("teams")
class Teams(Packet):
    """Update Teams (wiki.vg 1.19.2): mode 0 create, 1 remove, 2 update info, 3 add entities, 4 remove
    entities. Modes 0 and 2 carry the display name, the friendly flags (0x01 friendly fire, 0x02 see
    invisible team mates), name tag visibility, collision rule, colour (``ChatFormatting`` id, 21 = reset),
    prefix and suffix (names and affixes are JSON text components); modes 0, 3 and 4 the entity names."""

    team: str = ""
    mode: int = 0
    display_name: str | None = None
    flags: int | None = None
    name_tag_visibility: str | None = None
    collision_rule: str | None = None
    color: int | None = None
    prefix: str | None = None
    suffix: str | None = None
    entities: list[str] | None = None

    @classmethod
    def read(cls, r: Reader, proto: int) -> Teams:
        p = cls(team=r.string("team"), mode=r.i8("mode"))
        if p.mode not in (0, 1, 2, 3, 4):
            raise r.error(f"unknown teams mode {p.mode}", "mode")
        if p.mode in (0, 2):
            p.display_name, p.flags = r.string("display_name"), r.i8("flags")
            p.name_tag_visibility, p.collision_rule = (
                r.string("name_tag_visibility"),
                r.string("collision_rule"),
            )
            p.color, p.prefix, p.suffix = r.varint("color"), r.string("prefix"), r.string("suffix")
        if p.mode in (0, 3, 4):
            p.entities = r.array(lambda: r.string("entities"), "entities")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.string(self.team)
        w.i8(self.mode)
        if self.mode in (0, 2):
            w.string(self.display_name or "")
            w.i8(self.flags or 0)
            w.string(self.name_tag_visibility or "always")
            w.string(self.collision_rule or "always")
            w.varint(21 if self.color is None else self.color)
            w.string(self.prefix or "")
            w.string(self.suffix or "")
        if self.mode in (0, 3, 4):
            w.array(list(self.entities or []), w.string)


@dataclass(kw_only=True)
class MapIcon:
    """A map decoration."""

    type: int = wire(VARINT)
    x: int = wire(I8)
    z: int = wire(I8)
    direction: int = wire(I8)
    display_name: str | None = wire(Option(STRING))


@packet("map")
class MapData(Packet):
    """Map data: icons are optional; a patch (columns > 0) carries rows, x, z and colour bytes."""

    map_id: int = 0
    scale: int = 0
    locked: bool = False
    icons: list[MapIcon] | None = None
    columns: int = 0
    rows: int = 0
    x: int = 0
    z: int = 0
    data: bytes = b""

    @classmethod
    def read(cls, r: Reader, proto: int) -> MapData:
        p = cls(map_id=r.varint("map_id"), scale=r.i8("scale"), locked=r.bool("locked"))
        p.icons = r.option(lambda: Array(Struct(MapIcon)).read(r, proto, "icons"), "icons")
        p.columns = r.u8("columns")
        if p.columns:
            p.rows, p.x, p.z = r.u8("rows"), r.u8("x"), r.u8("z")
            p.data = r.byte_array("data")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.map_id)
        w.i8(self.scale)
        w.bool(self.locked)
        w.option(self.icons, lambda v: Array(Struct(MapIcon)).write(w, v, proto, "icons"))
        w.u8(self.columns)
        if self.columns:
            w.u8(self.rows)
            w.u8(self.x)
            w.u8(self.z)
            w.byte_array(self.data)


# ------------------------------------------------------------------------------------------- player list


@dataclass(kw_only=True)
class ProfileProperty:
    """A game-profile property (e.g. textures)."""

    name: str = wire(STRING)
    value: str = wire(STRING)
    signature: str | None = wire(Option(STRING))


@dataclass(kw_only=True)
class PublicKeyData:
    """Chat-signing key data (1.19 and 1.19.2 both send it as an option)."""

    expires_at: int = wire(I64)
    public_key: bytes = wire(BYTES)
    signature: bytes = wire(BYTES)


@dataclass
class PlayerInfoEntry:
    """One player-list row; which attributes are meaningful depends on the packet's action."""

    uuid: uuid_mod.UUID
    name: str | None = None
    properties: list[ProfileProperty] = field(default_factory=list)
    gamemode: int | None = None
    ping: int | None = None
    display_name: str | None = None
    key: PublicKeyData | None = None


@packet("player_info")
class PlayerInfo(Packet):
    """Player info: action 0 add, 1 game mode, 2 latency, 3 display name, 4 remove."""

    action: int = 0
    entries: list[PlayerInfoEntry] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, proto: int) -> PlayerInfo:
        action = r.varint("action")
        if not 0 <= action <= 4:
            raise r.error(f"unknown player_info action {action}", "action")

        def entry() -> PlayerInfoEntry:
            e = PlayerInfoEntry(r.uuid("uuid"))
            if action == 0:
                e.name = r.string("name", 16)
                e.properties = Array(Struct(ProfileProperty)).read(r, proto, "properties")
                e.gamemode, e.ping = r.varint("gamemode"), r.varint("ping")
                e.display_name = r.option(lambda: r.string("display_name"))
                e.key = Option(Struct(PublicKeyData)).read(r, proto, "key")
            elif action == 1:
                e.gamemode = r.varint("gamemode")
            elif action == 2:
                e.ping = r.varint("ping")
            elif action == 3:
                e.display_name = r.option(lambda: r.string("display_name"))
            return e

        return cls(action=action, entries=r.array(entry, "entries"))

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.action)

        def entry(e: PlayerInfoEntry) -> None:
            w.uuid(e.uuid)
            if self.action == 0:
                w.string(e.name or "")
                Array(Struct(ProfileProperty)).write(w, e.properties, proto, "properties")
                w.varint(e.gamemode or 0)
                w.varint(e.ping or 0)
                w.option(e.display_name, w.string)
                Option(Struct(PublicKeyData)).write(w, e.key, proto, "key")
            elif self.action == 1:
                w.varint(e.gamemode or 0)
            elif self.action == 2:
                w.varint(e.ping or 0)
            elif self.action == 3:
                w.option(e.display_name, w.string)

        w.array(self.entries, entry)


# ------------------------------------------------------------------------------------- recipes/tags/...


@dataclass
class Recipe:
    """One declared recipe; the attributes a type does not use stay at their defaults.

    ``ingredients`` is a list of ingredients, each a list of alternative slots. For shaped recipes it is
    row-major (index ``x + width * y``), as on the wire. Smithing: ``[base, addition]``.
    """

    type: str
    id: str
    group: str = ""
    width: int = 0
    height: int = 0
    ingredients: list[list[Slot | None]] = field(default_factory=list)
    result: Slot | None = None
    experience: float = 0.0
    cook_time: int = 0


COOKING_TYPES = (
    "minecraft:smelting",
    "minecraft:blasting",
    "minecraft:smoking",
    "minecraft:campfire_cooking",
)
SPECIAL_PREFIX = "minecraft:crafting_special_"


@packet("declare_recipes")
class DeclareRecipes(Packet):
    """Update recipes. Every recipe type of 1.19 is decoded completely; an unknown type is an error
    (its length is not on the wire, so it cannot be skipped)."""

    recipes: list[Recipe] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, proto: int) -> DeclareRecipes:
        def ingredient() -> list[Slot | None]:
            return r.array(lambda: r.slot("ingredient"), "ingredient")

        def recipe() -> Recipe:
            start = r.pos
            rec = Recipe(r.string("type"), r.string("recipe_id"))
            t = rec.type
            if t == "minecraft:crafting_shapeless":
                rec.group = r.string("group")
                rec.ingredients = r.array(ingredient, "ingredients")
                rec.result = r.slot("result")
            elif t == "minecraft:crafting_shaped":
                rec.width, rec.height = r.varint("width"), r.varint("height")
                rec.group = r.string("group")
                rec.ingredients = [ingredient() for _ in range(rec.width * rec.height)]
                rec.result = r.slot("result")
            elif t in COOKING_TYPES:
                rec.group = r.string("group")
                rec.ingredients = [ingredient()]
                rec.result = r.slot("result")
                rec.experience, rec.cook_time = r.f32("experience"), r.varint("cook_time")
            elif t == "minecraft:stonecutting":
                rec.group = r.string("group")
                rec.ingredients = [ingredient()]
                rec.result = r.slot("result")
            elif t == "minecraft:smithing":
                rec.ingredients = [ingredient(), ingredient()]
                rec.result = r.slot("result")
            elif not t.startswith(SPECIAL_PREFIX):
                raise r.error(f"unknown recipe type {t!r} (recipe {rec.id!r})", "recipes", start)
            return rec

        return cls(recipes=r.array(recipe, "recipes"))

    def write(self, w: Writer, proto: int) -> None:
        def ingredient(ing: list[Slot | None]) -> None:
            w.array(ing, w.slot)

        def recipe(rec: Recipe) -> None:
            w.string(rec.type)
            w.string(rec.id)
            t = rec.type
            if t == "minecraft:crafting_shapeless":
                w.string(rec.group)
                w.array(rec.ingredients, ingredient)
                w.slot(rec.result)
            elif t == "minecraft:crafting_shaped":
                if len(rec.ingredients) != rec.width * rec.height:
                    raise ValueError(
                        f"recipe {rec.id}: {len(rec.ingredients)} ingredients for {rec.width}x{rec.height}"
                    )
                w.varint(rec.width)
                w.varint(rec.height)
                w.string(rec.group)
                for ing in rec.ingredients:
                    ingredient(ing)
                w.slot(rec.result)
            elif t in COOKING_TYPES or t == "minecraft:stonecutting":
                w.string(rec.group)
                ingredient(rec.ingredients[0])
                w.slot(rec.result)
                if t in COOKING_TYPES:
                    w.f32(rec.experience)
                    w.varint(rec.cook_time)
            elif t == "minecraft:smithing":
                ingredient(rec.ingredients[0])
                ingredient(rec.ingredients[1])
                w.slot(rec.result)
            elif not t.startswith(SPECIAL_PREFIX):
                raise ValueError(f"unknown recipe type {t!r}")

        w.array(self.recipes, recipe)


@packet("unlock_recipes")
class UnlockRecipes(Packet):
    """Update recipe book: action 0 init (two lists), 1 add, 2 remove; then 4 × (open, filtering)."""

    action: int = 0
    book_flags: tuple[bool, ...] = (False,) * 8
    recipes: list[str] = field(default_factory=list)
    recipes_init: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, r: Reader, proto: int) -> UnlockRecipes:
        p = cls(action=r.varint("action"), book_flags=tuple(r.bool("book_flags") for _ in range(8)))
        p.recipes = r.array(lambda: r.string("recipes"), "recipes")
        if p.action == 0:
            p.recipes_init = r.array(lambda: r.string("recipes_init"), "recipes_init")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.action)
        for b in self.book_flags:
            w.bool(b)
        w.array(self.recipes, w.string)
        if self.action == 0:
            w.array(self.recipes_init, w.string)


@dataclass(kw_only=True)
class Tag:
    """A tag: name and registry ids."""

    name: str = wire(STRING)
    entries: list[int] = wire(Array(VARINT))


@dataclass(kw_only=True)
class TagRegistry:
    """All tags of one registry (e.g. ``minecraft:block``)."""

    registry: str = wire(STRING)
    tags: list[Tag] = wire(Array(Struct(Tag)))


@packet("tags")
class Tags(Packet):
    """Update tags."""

    registries: list[TagRegistry] = wire(Array(Struct(TagRegistry)))


@dataclass
class AdvancementDisplay:
    """Advancement display data; ``background`` present iff ``flags & 1``."""

    title: str
    description: str
    icon: Slot | None
    frame_type: int
    flags: int
    background: str | None
    x: float
    y: float


@dataclass
class Advancement:
    """One advancement as sent (criteria are names only; requirements are OR-lists AND-ed together)."""

    id: str
    parent: str | None = None
    display: AdvancementDisplay | None = None
    criteria: list[str] = field(default_factory=list)
    requirements: list[list[str]] = field(default_factory=list)


@packet("advancements")
class Advancements(Packet):
    """Update advancements: reset flag, added advancements, removed ids, progress
    (``{advancement: {criterion: achieved-at ms or None}}``)."""

    reset: bool = False
    advancements: list[Advancement] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    progress: dict[str, dict[str, int | None]] = field(default_factory=dict)

    @classmethod
    def read(cls, r: Reader, proto: int) -> Advancements:
        def display() -> AdvancementDisplay:
            title, desc, icon = r.string("title"), r.string("description"), r.slot("icon")
            frame, flags = r.varint("frame_type"), r.i32("flags")
            bg = r.string("background") if flags & 1 else None
            return AdvancementDisplay(title, desc, icon, frame, flags, bg, r.f32("x"), r.f32("y"))

        def adv() -> Advancement:
            a = Advancement(r.string("id"), r.option(lambda: r.string("parent")))
            a.display = r.option(display, "display")
            a.criteria = r.array(lambda: r.string("criteria"), "criteria")
            a.requirements = r.array(lambda: r.array(lambda: r.string("requirements")), "requirements")
            return a

        def prog() -> tuple[str, dict[str, int | None]]:
            key = r.string("progress.id")
            crit = r.array(lambda: (r.string("criterion"), r.option(lambda: r.i64("achieved"))))
            return key, dict(crit)

        reset = r.bool("reset")
        advs = r.array(adv, "advancements")
        removed = r.array(lambda: r.string("removed"), "removed")
        return cls(reset=reset, advancements=advs, removed=removed, progress=dict(r.array(prog, "progress")))

    def write(self, w: Writer, proto: int) -> None:
        def display(d: AdvancementDisplay) -> None:
            w.string(d.title)
            w.string(d.description)
            w.slot(d.icon)
            w.varint(d.frame_type)
            w.i32(d.flags)
            if d.flags & 1:
                w.string(d.background or "")
            w.f32(d.x)
            w.f32(d.y)

        def adv(a: Advancement) -> None:
            w.string(a.id)
            w.option(a.parent, w.string)
            w.option(a.display, display)
            w.array(a.criteria, w.string)
            w.array(a.requirements, lambda req: w.array(req, w.string))

        w.bool(self.reset)
        w.array(self.advancements, adv)
        w.array(self.removed, w.string)

        def prog(item: tuple[str, dict[str, int | None]]) -> None:
            w.string(item[0])
            w.array(list(item[1].items()), lambda c: (w.string(c[0]), w.option(c[1], w.i64)))

        w.array(list(self.progress.items()), prog)


# ------------------------------------------------------------------------------------------------ commands

# Brigadier argument parser ids of 1.19 / 1.19.2 (identical registries; wiki.vg "Command Data" 1.19).
PARSERS = (
    "brigadier:bool brigadier:float brigadier:double brigadier:integer brigadier:long brigadier:string "
    "minecraft:entity minecraft:game_profile minecraft:block_pos minecraft:column_pos minecraft:vec3 "
    "minecraft:vec2 minecraft:block_state minecraft:block_predicate minecraft:item_stack "
    "minecraft:item_predicate minecraft:color minecraft:component minecraft:message minecraft:nbt "
    "minecraft:nbt_tag minecraft:nbt_path minecraft:objective minecraft:objective_criteria "
    "minecraft:operation minecraft:particle minecraft:angle minecraft:rotation minecraft:scoreboard_slot "
    "minecraft:score_holder minecraft:swizzle minecraft:team minecraft:item_slot "
    "minecraft:resource_location minecraft:mob_effect minecraft:function minecraft:entity_anchor "
    "minecraft:int_range minecraft:float_range minecraft:item_enchantment minecraft:entity_summon "
    "minecraft:dimension minecraft:time minecraft:resource_or_tag minecraft:resource "
    "minecraft:template_mirror minecraft:template_rotation minecraft:uuid"
).split()
_NUMERIC = {1: "f32", 2: "f64", 3: "i32", 4: "i64"}
_BYTE_FLAG = {6, 29}  # entity (single/players-only flags), score_holder (allow multiple)
_REGISTRY_ARG = {43, 44}  # resource_or_tag, resource: registry identifier


@dataclass
class CommandNode:
    """A brigadier node. ``flags & 3``: 0 root, 1 literal, 2 argument; 0x04 executable, 0x08 redirect,
    0x10 custom suggestions. ``properties`` is parser-specific (dict, may be empty)."""

    flags: int
    children: list[int] = field(default_factory=list)
    redirect: int | None = None
    name: str | None = None
    parser: int | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    suggestions: str | None = None

    @property
    def parser_name(self) -> str | None:
        """Parser identifier (e.g. ``brigadier:integer``)."""
        return None if self.parser is None else PARSERS[self.parser]


@packet("declare_commands")
class DeclareCommands(Packet):
    """Commands graph (1.19: parsers are VarInt registry ids)."""

    nodes: list[CommandNode] = field(default_factory=list)
    root_index: int = 0

    @classmethod
    def read(cls, r: Reader, proto: int) -> DeclareCommands:
        def node() -> CommandNode:
            n = CommandNode(r.u8("flags"), r.array(lambda: r.varint("children"), "children"))
            kind = n.flags & 3
            if n.flags & 0x08:
                n.redirect = r.varint("redirect")
            if kind in (1, 2):
                n.name = r.string("name")
            if kind == 2:
                at = r.pos
                n.parser = r.varint("parser")
                if not 0 <= n.parser < len(PARSERS):
                    raise r.error(f"unknown command argument parser id {n.parser}", "parser", at)
                if n.parser in _NUMERIC:
                    mm = r.u8("properties.flags")
                    n.properties = {"flags": mm}
                    read = getattr(r, _NUMERIC[n.parser])
                    if mm & 1:
                        n.properties["min"] = read("properties.min")
                    if mm & 2:
                        n.properties["max"] = read("properties.max")
                elif n.parser == 5:
                    n.properties = {"behavior": r.varint("properties.behavior")}
                elif n.parser in _BYTE_FLAG:
                    n.properties = {"flags": r.u8("properties.flags")}
                elif n.parser in _REGISTRY_ARG:
                    n.properties = {"registry": r.string("properties.registry")}
                if n.flags & 0x10:
                    n.suggestions = r.string("suggestions")
            return n

        return cls(nodes=r.array(node, "nodes"), root_index=r.varint("root_index"))

    def write(self, w: Writer, proto: int) -> None:
        def node(n: CommandNode) -> None:
            w.u8(n.flags)
            w.array(n.children, w.varint)
            if n.flags & 0x08:
                w.varint(n.redirect or 0)
            if n.flags & 3 in (1, 2):
                w.string(n.name or "")
            if n.flags & 3 == 2:
                p = n.parser or 0
                w.varint(p)
                if p in _NUMERIC:
                    w.u8(n.properties["flags"])
                    write = getattr(w, _NUMERIC[p])
                    if n.properties["flags"] & 1:
                        write(n.properties["min"])
                    if n.properties["flags"] & 2:
                        write(n.properties["max"])
                elif p == 5:
                    w.varint(n.properties["behavior"])
                elif p in _BYTE_FLAG:
                    w.u8(n.properties["flags"])
                elif p in _REGISTRY_ARG:
                    w.string(n.properties["registry"])
                if n.flags & 0x10:
                    w.string(n.suggestions or "")

        w.array(self.nodes, node)
        w.varint(self.root_index)


# ------------------------------------------------------------------ more packets the embedded server sends
# No vanilla capture exists for these; they are checked byte-for-byte against node-minecraft-protocol's
# serializer (tests/protocol/test_protocol_nmp_golden.py, clientbound section).


@packet("kick_disconnect")
class KickDisconnect(Packet):
    """Disconnect (play): JSON reason."""

    reason: str = wire(STRING)


@packet("animation")
class Animation(Packet):
    """Entity animation (0 swing main arm, 3 swing offhand, ...)."""

    entity_id: int = wire(VARINT)
    animation: int = wire(U8)


@packet("block_break_animation")
class BlockBreakAnimation(Packet):
    """Set block destroy stage (0..9, other values remove it)."""

    entity_id: int = wire(VARINT)
    location: tuple[int, int, int] = wire(POSITION)
    destroy_stage: int = wire(I8)


@packet("tile_entity_data")
class TileEntityData(Packet):
    """Block entity data: position, block entity type, NBT (TAG_End = remove)."""

    location: tuple[int, int, int] = wire(POSITION)
    type: int = wire(VARINT)
    nbt: nbtlib.Compound | None = wire(OPT_NBT)


@packet("block_action")
class BlockAction(Packet):
    """Block action (chest lid, note block...)."""

    location: tuple[int, int, int] = wire(POSITION)
    action_id: int = wire(U8)
    action_param: int = wire(U8)
    block_id: int = wire(VARINT)


@packet("update_view_distance")
class UpdateViewDistance(Packet):
    """Set render distance."""

    view_distance: int = wire(VARINT)


@packet("simulation_distance")
class SimulationDistance(Packet):
    """Set simulation distance."""

    distance: int = wire(VARINT)


@packet("ping")
class Ping(Packet):
    """Ping (play); the client answers with pong."""

    id: int = wire(I32)


@packet("spawn_entity_experience_orb")
class SpawnExperienceOrb(Packet):
    """Spawn experience orb."""

    entity_id: int = wire(VARINT)
    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    count: int = wire(I16)


@packet("playerlist_header")
class PlayerListHeader(Packet):
    """Tab-list header and footer (JSON)."""

    header: str = wire(STRING)
    footer: str = wire(STRING)


@packet("set_passengers")
class SetPassengers(Packet):
    """Set passengers."""

    entity_id: int = wire(VARINT)
    passengers: list[int] = wire(Array(VARINT))


@packet("attach_entity")
class AttachEntity(Packet):
    """Link entities (leash)."""

    entity_id: int = wire(I32)
    vehicle_id: int = wire(I32)


@packet("clear_titles")
class ClearTitles(Packet):
    """Clear titles."""

    reset: bool = wire(BOOL)


@packet("set_title_subtitle")
class SetTitleSubtitle(Packet):
    """Set subtitle text (JSON)."""

    text: str = wire(STRING)


@packet("set_title_time")
class SetTitleTime(Packet):
    """Set title animation times (ticks)."""

    fade_in: int = wire(I32)
    stay: int = wire(I32)
    fade_out: int = wire(I32)


@packet("action_bar")
class ActionBar(Packet):
    """Set action bar text (JSON)."""

    text: str = wire(STRING)


@packet("camera")
class Camera(Packet):
    """Set camera entity."""

    camera_id: int = wire(VARINT)


@packet("open_horse_window")
class OpenHorseWindow(Packet):
    """Open horse screen."""

    window_id: int = wire(U8)
    slot_count: int = wire(VARINT)
    entity_id: int = wire(I32)


@packet("open_sign_entity")
class OpenSignEditor(Packet):
    """Open sign editor."""

    location: tuple[int, int, int] = wire(POSITION)


@packet("craft_recipe_response")
class CraftRecipeResponse(Packet):
    """Place ghost recipe."""

    window_id: int = wire(I8)
    recipe: str = wire(STRING)


@packet("world_border_center")
class WorldBorderCenter(Packet):
    """Set border center."""

    x: float = wire(F64)
    z: float = wire(F64)


@packet("world_border_size")
class WorldBorderSize(Packet):
    """Set border size."""

    diameter: float = wire(F64)


@packet("world_border_warning_delay")
class WorldBorderWarningDelay(Packet):
    """Set border warning delay."""

    warning_time: int = wire(VARINT)


@packet("world_border_warning_reach")
class WorldBorderWarningReach(Packet):
    """Set border warning distance."""

    warning_blocks: int = wire(VARINT)


@packet("select_advancement_tab")
class SelectAdvancementTab(Packet):
    """Select advancements tab (None = none)."""

    tab_id: str | None = wire(Option(STRING))


@packet("resource_pack_send")
class ResourcePackSend(Packet):
    """Resource pack offer."""

    url: str = wire(STRING)
    hash: str = wire(STRING)
    forced: bool = wire(BOOL)
    prompt_message: str | None = wire(Option(STRING))


@packet("end_combat_event")
class EndCombatEvent(Packet):
    """End combat."""

    duration: int = wire(VARINT)
    entity_id: int = wire(I32)


@packet("enter_combat_event")
class EnterCombatEvent(Packet):
    """Enter combat (no fields)."""


@packet("open_book")
class OpenBook(Packet):
    """Open book."""

    hand: int = wire(VARINT)


@packet("nbt_query_response")
class NbtQueryResponse(Packet):
    """Tag query response."""

    transaction_id: int = wire(VARINT)
    nbt: nbtlib.Compound | None = wire(OPT_NBT)


__all__ = [name for name, obj in globals().items() if isinstance(obj, type) and not name.startswith("_")]
