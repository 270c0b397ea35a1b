"""Every clientbound packet body the embedded server sends (1.19.2 = 760 and 1.19 = 759), built in one place.

Why a layer over ``mirrorcraft.protocol``: the protocol package owns every codec (field order, types, the
759/760 differences); the game wants to say "teleport this player to (x, y, z) in degrees" or "this slot
holds 3 oak logs". Each function here converts game values (degrees → angle bytes, blocks per tick →
1/8000 units, a :class:`~mirrorcraft.rules.stack.Stack` named by namespaced id → a ``Slot`` with the numeric
protocol id) and encodes one protocol packet object. No feature builds a packet itself, so a packet's shape
is decided once. Packet *ids* are not handled here: quarry's per-protocol tables map quarry's packet names
to ids when the connection sends (the names are the same for 759 and 760).

Most bodies are identical in 759 and 760 and are encoded with the 760 tables; the builders whose body
differs between the two (system chat, respawn...) take the player's ``protocol``.
``tests/server/test_wire.py`` checks these bodies byte for byte against vanilla captures.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

import nbtlib
import numpy as np

from mirrorcraft import PROTOCOL_1_19_2, gamedata
from mirrorcraft.protocol import chunks as wire_chunks
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.buffer import Slot
from mirrorcraft.protocol.codec import encode
from mirrorcraft.protocol.metadata import MetadataEntry
from mirrorcraft.rules.advancement_defs import FRAMES
from mirrorcraft.rules.advancements import AdvancementDef, PlayerAdvancements
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts


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


def slot(stack: Stack | None) -> Slot | None:
    """The wire slot of a stack: the item's numeric protocol id, the count and the NBT (enchantments)."""
    if stack is None or stack.count <= 0:
        return None
    return Slot(facts.item_id(stack.item), stack.count, stack.nbt)


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


def difficulty(level: int, locked: bool = True, protocol: int = PROTOCOL_1_19_2) -> bytes:
    return encode(cb.Difficulty(difficulty=level, locked=locked), protocol)


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


def item_entity_metadata(entity_id: int, item: str, count: int) -> bytes:
    """Item entity metadata: index 8 = the item stack, type 6 = Slot in 1.19.x (wiki.vg "Entity metadata")."""
    return _enc(
        cb.EntityMetadata(entity_id=entity_id, metadata=[MetadataEntry(8, 6, slot(Stack(item, count)))])
    )


def living_health_metadata(entity_id: int, health: float) -> bytes:
    """LivingEntity health metadata: index 9, type 2 = float in 1.19.x (wiki.vg "Entity metadata")."""
    return _enc(cb.EntityMetadata(entity_id=entity_id, metadata=[MetadataEntry(9, 2, float(health))]))


def entity_status(entity_id: int, status: int) -> bytes:
    """entity_status (``Entity.handleEntityEvent``): 2 hurt, 3 death, 9 finished using an item."""
    return _enc(cb.EntityStatus(entity_id=entity_id, status=status))


def collect(collected: int, collector: int, count: int) -> bytes:
    return _enc(
        cb.Collect(collected_entity_id=collected, collector_entity_id=collector, pickup_item_count=count)
    )


def block_change(x: int, y: int, z: int, state: int) -> bytes:
    return _enc(cb.BlockChange(location=(x, y, z), state=state))


def acknowledge_block_changes(sequence: int) -> bytes:
    return _enc(cb.AcknowledgeBlockChange(sequence_id=sequence))


def window_items(window: int, state_id: int, items: Sequence[Stack | None], carried: Stack | None) -> bytes:
    return _enc(
        cb.WindowItems(
            window_id=window, state_id=state_id, items=[slot(s) for s in items], carried_item=slot(carried)
        )
    )


def set_slot(window: int, state_id: int, index: int, item: Stack | None) -> bytes:
    return _enc(cb.SetSlot(window_id=window, state_id=state_id, slot=index, item=slot(item)))


def held_item_change(hotbar: int) -> bytes:
    return _enc(cb.HeldItemSlot(slot=hotbar))


def update_view_position(cx: int, cz: int) -> bytes:
    return _enc(cb.UpdateViewPosition(chunk_x=cx, chunk_z=cz))


def unload_chunk(cx: int, cz: int) -> bytes:
    return _enc(wire_chunks.UnloadChunk(chunk_x=cx, chunk_z=cz))


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


# ---- chunks -----------------------------------------------------------------------------------------------

MIN_Y, HEIGHT = -64, 384
SECTIONS = HEIGHT // 16


def map_chunk(
    cx: int, cz: int, blocks: np.ndarray, biomes: np.ndarray, sky: np.ndarray, protocol: int
) -> bytes:
    """map_chunk: chunk data of one ``(384, 16, 16)`` state-id column, its ``MOTION_BLOCKING`` heightmap and
    sky light (``sky``, one nibble per block; block light is sent empty: the server models none)."""
    column = wire_chunks.ChunkColumn(blocks=blocks, biomes=biomes, non_air=wire_chunks.non_air_counts(blocks))
    data = wire_chunks.encode_column(column, vanilla_padding=False)
    solid = ~facts.state_tables().is_air[blocks]
    top = np.where(solid.any(axis=0), HEIGHT - np.argmax(solid[::-1], axis=0), 0)
    heights = nbtlib.Compound({"MOTION_BLOCKING": nbtlib.LongArray(_pack9(top.reshape(-1)))})
    arrays: list[bytes] = []
    mask = empty = 0
    full = bytes([0xFF]) * 2048
    for i in range(SECTIONS + 2):  # one light section below and one above the world
        if i == 0:
            empty |= 1 << i
            continue
        if i == SECTIONS + 1:
            mask |= 1 << i
            arrays.append(full)
            continue
        sec = sky[(i - 1) * 16 : i * 16]
        if not sec.any():
            empty |= 1 << i
            continue
        flat = sec.reshape(-1)
        mask |= 1 << i
        arrays.append((flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes())
    light = wire_chunks.LightData(
        trust_edges=True,
        sky_mask=[_signed64(mask)],
        block_mask=[],
        empty_sky_mask=[_signed64(empty)],
        empty_block_mask=[_signed64((1 << (SECTIONS + 2)) - 1)],
        sky_light=arrays,
        block_light=[],
    )
    pkt = wire_chunks.MapChunk(x=cx, z=cz, heightmaps=heights, chunk_data=data, light=light)
    return encode(pkt, protocol)


def _signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _pack9(values: np.ndarray) -> list[int]:
    """256 heights of 9 bits, 7 per long, low bits first (wiki.vg "Chunk Data": heightmaps)."""
    padded = np.zeros(37 * 7, dtype=np.uint64)
    padded[: len(values)] = values.astype(np.uint64)
    shifts = np.arange(7, dtype=np.uint64) * np.uint64(9)
    longs = np.bitwise_or.reduce(padded.reshape(37, 7) << shifts[None, :], axis=1)
    return [_signed64(int(v)) for v in longs]


# ---- windows ----------------------------------------------------------------------------------------------

# wiki.vg "Inventory" / the 1.19 minecraft:menu registry (prismarine-windows assigns the same ids).
MENU_TYPES = {
    "chest": 2,
    "chest_double": 5,  # generic_9x6
    "blast_furnace": 9,
    "crafting": 11,
    "enchantment": 12,
    "furnace": 13,
    "smoker": 21,
}
MENU_TITLES = {
    "crafting": "container.crafting",
    "furnace": "container.furnace",
    "blast_furnace": "container.blast_furnace",
    "smoker": "container.smoker",
    "enchantment": "container.enchant",
    "chest": "container.chest",
    "chest_double": "container.chestDouble",
}


def open_window(window: int, kind: str) -> bytes:
    """open_window of a menu kind, titled with vanilla's translate key (``container.chest``...)."""
    title = json.dumps({"translate": MENU_TITLES[kind]})
    return _enc(cb.OpenWindow(window_id=window, inventory_type=MENU_TYPES[kind], window_title=title))


def window_property(window: int, prop: int, value: int) -> bytes:
    """Set Container Property: an i16 value (furnace ticks and enchantment seeds & -16 are cut to 16 bits by
    vanilla too: ContainerData slots are shorts on the wire)."""
    v = ((value + 0x8000) & 0xFFFF) - 0x8000
    return _enc(cb.CraftProgressBar(window_id=window, property=prop, value=v))


def close_window(window: int) -> bytes:
    return _enc(cb.CloseWindow(window_id=window))


def block_action(pos: tuple[int, int, int], action: int, param: int, block: str) -> bytes:
    """block_action (chest lids: action 1 with the viewer count) for block ``block`` (a block name)."""
    return _enc(
        cb.BlockAction(location=pos, action_id=action, action_param=param, block_id=facts.block(block).id)
    )


# ---- players: effects, game modes, death, chat ---------------------------------------------------------


def remove_entity_effect(entity_id: int, effect: int, protocol: int = PROTOCOL_1_19_2) -> bytes:
    return encode(cb.RemoveEntityEffect(entity_id=entity_id, effect_id=effect), protocol)


def player_info_game_mode(uid: UUID, game_mode: int, protocol: int = PROTOCOL_1_19_2) -> bytes:
    """player_info action 1: one player's game mode in the player list."""
    return encode(cb.PlayerInfo(action=1, entries=[cb.PlayerInfoEntry(uid, gamemode=game_mode)]), protocol)


def death_combat_event(
    player_id: int, message: Mapping[str, Any], protocol: int = PROTOCOL_1_19_2, killer: int = -1
) -> bytes:
    """The death screen with its message component (no killer entity: ``-1``)."""
    body = cb.DeathCombatEvent(player_id=player_id, entity_id=killer, message=component_json(message))
    return encode(body, protocol)


def respawn(game_mode: int, protocol: int = PROTOCOL_1_19_2) -> bytes:
    """respawn into the overworld (vanilla ``PlayerList.respawn``; no death location, no metadata copy)."""
    return encode(
        cb.Respawn(
            dimension_type="minecraft:overworld",
            world_name="minecraft:overworld",
            hashed_seed=0,
            game_mode=game_mode,
            previous_game_mode=-1,
            is_debug=False,
            is_flat=False,
            copy_metadata=False,
            death=None,
        ),
        protocol,
    )


def component_json(component: Mapping[str, Any]) -> str:
    """A text component as vanilla's Gson writes it (compact, key order kept, no HTML escaping)."""
    return json.dumps(component, separators=(",", ":"), ensure_ascii=False)


def system_chat(component: Mapping[str, Any], protocol: int = PROTOCOL_1_19_2) -> bytes:
    """One system chat line (a JSON text component) in the chat box (759: type 1; 760: not the overlay)."""
    return encode(cb.SystemChat(content=component_json(component), type=1, overlay=False), protocol)


def title_text(component: Mapping[str, Any]) -> bytes:
    """``set_title_text`` (``ClientboundSetTitleTextPacket``)."""
    return _enc(cb.SetTitleText(text=component_json(component)))


def title_subtitle(component: Mapping[str, Any]) -> bytes:
    """``set_title_subtitle``."""
    return _enc(cb.SetTitleSubtitle(text=component_json(component)))


def action_bar(component: Mapping[str, Any]) -> bytes:
    """``action_bar`` (``ClientboundSetActionBarTextPacket``)."""
    return _enc(cb.ActionBar(text=component_json(component)))


def title_times(fade_in: int, stay: int, fade_out: int) -> bytes:
    """``set_title_time`` (ticks)."""
    return _enc(cb.SetTitleTime(fade_in=fade_in, stay=stay, fade_out=fade_out))


def clear_titles(reset: bool) -> bytes:
    """``clear_titles`` (``title clear``: false; ``title reset``: true)."""
    return _enc(cb.ClearTitles(reset=reset))


def tab_complete(transaction_id: int, start: int, length: int, matches: Sequence[str]) -> bytes:
    """``tab_complete``: the suggestions for a ``tab_complete`` request (no tooltips)."""
    return _enc(
        cb.TabComplete(
            transaction_id=transaction_id,
            start=start,
            length=length,
            matches=[cb.TabMatch(match=m, tooltip=None) for m in matches],
        )
    )


def custom_payload(channel: str, data: bytes) -> bytes:
    return _enc(cb.CustomPayload(channel=channel, data=data))


# ---- advancements ---------------------------------------------------------------------------------------


def advancements_packet(
    adv: PlayerAdvancements,
    layout: Mapping[str, tuple[float, float]],
    *,
    reset: bool = True,
    epoch_ms: int = 0,
    ms_per_tick: int = 50,
) -> cb.Advancements:
    """The ``advancements`` packet for one player: every visible advancement and its progress.

    Args:
        adv: The player's progress (:class:`~mirrorcraft.rules.advancements.PlayerAdvancements`).
        layout: Tab positions by advancement (:func:`~mirrorcraft.rules.advancements.layout_tree`).
        reset: The packet's reset flag (true for the first packet after joining).
        epoch_ms: Wall-clock ms of tick 0; a criterion obtained at tick ``t`` is sent as
            ``epoch_ms + t * ms_per_tick`` (vanilla sends the ``Date`` it was obtained).
    """
    shown = [a for a in sorted(adv.defs) if adv.visible(a)]
    advs = []
    for a in shown:
        d = adv.defs[a]
        advs.append(
            cb.Advancement(
                id=a,
                parent=d.parent,
                display=_display(d, layout.get(a, (0.0, 0.0))) if d.display is not None else None,
                criteria=list(d.criteria),
                requirements=[list(g) for g in d.requirements],
            )
        )
    progress = {
        a: {
            c: (epoch_ms + adv.progress[a][c] * ms_per_tick if c in adv.progress[a] else None)
            for c in adv.defs[a].criteria
        }
        for a in shown
    }
    return cb.Advancements(reset=reset, advancements=advs, removed=[], progress=progress)


def advancements(
    adv: PlayerAdvancements,
    layout: Mapping[str, tuple[float, float]],
    protocol: int,
    *,
    reset: bool = True,
    ms_per_tick: int = 50,
) -> bytes:
    """The encoded :func:`advancements_packet` (criteria dated from tick 0 = epoch 0)."""
    return encode(advancements_packet(adv, layout, reset=reset, ms_per_tick=ms_per_tick), protocol)


def _display(d: AdvancementDef, xy: tuple[float, float]) -> cb.AdvancementDisplay:
    disp = d.display or {}
    icon = disp["icon"]
    nbt = nbtlib.parse_nbt(icon["nbt"]) if "nbt" in icon else None
    item_id = gamedata.item(icon["item"]).id
    flags = (1 if "background" in disp else 0) | (2 if disp.get("show_toast", True) else 0)
    flags |= 4 if disp.get("hidden", False) else 0
    return cb.AdvancementDisplay(
        title=json.dumps(disp["title"]),
        description=json.dumps(disp["description"]),
        icon=Slot(item_id, 1, nbt),
        frame_type=FRAMES[disp.get("frame", "task")],
        flags=flags,
        background=disp.get("background"),
        x=xy[0],
        y=xy[1],
    )


# ---- scoreboard and teams (vanilla ServerScoreboard's packets) ---------------------------------------------


def scoreboard_objective(
    name: str, mode: int, display_name: Mapping[str, Any] | None = None, hearts: bool = False
) -> bytes:
    """``ClientboundSetObjectivePacket``: mode 0 add, 1 remove, 2 change; 0/2 carry the display name and the
    render type (0 integer, 1 hearts)."""
    shown = component_json(display_name) if display_name is not None else None
    return _enc(
        cb.ScoreboardObjective(
            name=name, mode=mode, display_text=shown, type=(1 if hearts else 0) if mode != 1 else None
        )
    )


def update_score(holder: str, objective: str, value: int) -> bytes:
    """``ClientboundSetScorePacket`` CHANGE: ``holder``'s score in ``objective``."""
    return _enc(cb.ScoreboardScore(item_name=holder, action=0, score_name=objective, value=value))


def remove_score(holder: str, objective: str | None) -> bytes:
    """``ClientboundSetScorePacket`` REMOVE: one objective's score of ``holder``, or all (``None`` → ``""``)."""
    return _enc(cb.ScoreboardScore(item_name=holder, action=1, score_name=objective or ""))


def display_scoreboard(slot: int, objective: str | None) -> bytes:
    """``ClientboundSetDisplayObjectivePacket``: the objective a display slot shows (``""`` = none)."""
    return _enc(cb.ScoreboardDisplayObjective(position=slot, name=objective or ""))


def teams(
    team: str,
    mode: int,
    *,
    display_name: Mapping[str, Any] | None = None,
    flags: int = 0,
    name_tag_visibility: str = "always",
    collision_rule: str = "always",
    color: int = 21,
    prefix: Mapping[str, Any] | None = None,
    suffix: Mapping[str, Any] | None = None,
    entities: Sequence[str] = (),
) -> bytes:
    """``ClientboundSetPlayerTeamPacket`` (wiki.vg "Update Teams"): 0 create (info and entities), 1 remove,
    2 update info, 3 add entities, 4 remove entities."""
    info = mode in (0, 2)
    empty = {"text": ""}
    return _enc(
        cb.Teams(
            team=team,
            mode=mode,
            display_name=component_json(display_name or empty) if info else None,
            flags=flags if info else None,
            name_tag_visibility=name_tag_visibility if info else None,
            collision_rule=collision_rule if info else None,
            color=color if info else None,
            prefix=component_json(prefix or empty) if info else None,
            suffix=component_json(suffix or empty) if info else None,
            entities=list(entities) if mode in (0, 3, 4) else None,
        )
    )
