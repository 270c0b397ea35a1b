"""Serverbound play packets for 1.19 (759) and 1.19.2 (760): what the embedded server consumes.

Checked byte-for-byte against node-minecraft-protocol's own serializer (``tests/protocol/
test_protocol_nmp_golden.py``). 759 vs 760: ``chat_command`` and ``chat_message`` gain the last-seen message
list and an optional last rejected message in 760 (fields marked ``only=760``).
"""

from __future__ import annotations

from dataclasses import dataclass

from mirrorcraft.protocol.buffer import Reader, Slot, Writer
from mirrorcraft.protocol.clientbound import PreviousMessage
from mirrorcraft.protocol.codec import (
    BOOL,
    BYTES,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    POSITION,
    REST,
    SERVERBOUND,
    SLOT,
    STRING,
    U8,
    UUID,
    VARINT,
    Array,
    Option,
    Packet,
    Struct,
    packet,
    wire,
)


@packet("teleport_confirm", SERVERBOUND)
class TeleportConfirm(Packet):
    """Confirm teleportation."""

    teleport_id: int = wire(VARINT)


@dataclass(kw_only=True)
class ArgumentSignature:
    """Signature of one signed command argument."""

    argument_name: str = wire(STRING)
    signature: bytes = wire(BYTES)


@dataclass(kw_only=True)
class RejectedMessage:
    """The last message the client rejected (760)."""

    sender: object = wire(UUID)
    signature: bytes = wire(BYTES)


@packet("chat_command", SERVERBOUND)
class ChatCommand(Packet):
    """Chat command (without the leading slash)."""

    command: str = wire(STRING)
    timestamp: int = wire(I64)
    salt: int = wire(I64)
    argument_signatures: list[ArgumentSignature] = wire(Array(Struct(ArgumentSignature)))
    signed_preview: bool = wire(BOOL)
    previous_messages: list[PreviousMessage] = wire(Array(Struct(PreviousMessage)), only=760)
    last_rejected: RejectedMessage | None = wire(Option(Struct(RejectedMessage)), only=760)


@packet("chat_message", SERVERBOUND)
class ChatMessage(Packet):
    """Chat message."""

    message: str = wire(STRING)
    timestamp: int = wire(I64)
    salt: int = wire(I64)
    signature: bytes = wire(BYTES)
    signed_preview: bool = wire(BOOL)
    previous_messages: list[PreviousMessage] = wire(Array(Struct(PreviousMessage)), only=760)
    last_rejected: RejectedMessage | None = wire(Option(Struct(RejectedMessage)), only=760)


@packet("client_command", SERVERBOUND)
class ClientCommand(Packet):
    """Client command: 0 perform respawn, 1 request stats."""

    action_id: int = wire(VARINT)


@packet("settings", SERVERBOUND)
class Settings(Packet):
    """Client information."""

    locale: str = wire(STRING)
    view_distance: int = wire(I8)
    chat_flags: int = wire(VARINT)
    chat_colors: bool = wire(BOOL)
    skin_parts: int = wire(U8)
    main_hand: int = wire(VARINT)
    enable_text_filtering: bool = wire(BOOL)
    enable_server_listing: bool = wire(BOOL)


@dataclass(kw_only=True)
class ChangedSlot:
    """A slot the client predicts changed by a click."""

    location: int = wire(I16)
    item: Slot | None = wire(SLOT)


@packet("window_click", SERVERBOUND)
class WindowClick(Packet):
    """Click container (1.17.1+ layout with state id, changed slots and carried item)."""

    window_id: int = wire(U8)
    state_id: int = wire(VARINT)
    slot: int = wire(I16)
    mouse_button: int = wire(I8)
    mode: int = wire(VARINT)
    changed_slots: list[ChangedSlot] = wire(Array(Struct(ChangedSlot)))
    cursor_item: Slot | None = wire(SLOT)


@packet("close_window", SERVERBOUND)
class CloseWindowServerbound(Packet):
    """Close container (serverbound)."""

    window_id: int = wire(U8)


@packet("enchant_item", SERVERBOUND)
class EnchantItem(Packet):
    """Click container button (enchanting table option, stonecutter recipe, ...)."""

    window_id: int = wire(I8)
    enchantment: int = wire(I8)


@packet("use_entity", SERVERBOUND)
class UseEntity(Packet):
    """Interact: mouse 0 interact (hand), 1 attack, 2 interact at (x, y, z, hand); then sneaking."""

    target: int = 0
    mouse: int = 0
    x: float | None = None
    y: float | None = None
    z: float | None = None
    hand: int | None = None
    sneaking: bool = False

    @classmethod
    def read(cls, r: Reader, proto: int) -> UseEntity:
        p = cls(target=r.varint("target"), mouse=r.varint("mouse"))
        if p.mouse == 2:
            p.x, p.y, p.z = r.f32("x"), r.f32("y"), r.f32("z")
        if p.mouse in (0, 2):
            p.hand = r.varint("hand")
        elif p.mouse != 1:
            raise r.error(f"unknown interaction type {p.mouse}", "mouse")
        p.sneaking = r.bool("sneaking")
        return p

    def write(self, w: Writer, proto: int) -> None:
        w.varint(self.target)
        w.varint(self.mouse)
        if self.mouse == 2:
            for v in (self.x, self.y, self.z):
                w.f32(v or 0.0)
        if self.mouse in (0, 2):
            w.varint(self.hand or 0)
        w.bool(self.sneaking)


@packet("keep_alive", SERVERBOUND)
class KeepAliveServerbound(Packet):
    """Keep alive (serverbound)."""

    keep_alive_id: int = wire(I64)


@packet("position", SERVERBOUND)
class PlayerPosition(Packet):
    """Set player position (feet)."""

    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    on_ground: bool = wire(BOOL)


@packet("position_look", SERVERBOUND)
class PlayerPositionLook(Packet):
    """Set player position and rotation."""

    x: float = wire(F64)
    y: float = wire(F64)
    z: float = wire(F64)
    yaw: float = wire(F32)
    pitch: float = wire(F32)
    on_ground: bool = wire(BOOL)


@packet("look", SERVERBOUND)
class PlayerLook(Packet):
    """Set player rotation."""

    yaw: float = wire(F32)
    pitch: float = wire(F32)
    on_ground: bool = wire(BOOL)


@packet("flying", SERVERBOUND)
class PlayerOnGround(Packet):
    """Set player on ground."""

    on_ground: bool = wire(BOOL)


@packet("abilities", SERVERBOUND)
class PlayerAbilities(Packet):
    """Player abilities (0x02 = flying)."""

    flags: int = wire(I8)


@packet("block_dig", SERVERBOUND)
class BlockDig(Packet):
    """Player action: status 0 start, 1 cancel, 2 finish digging, 3/4 drop, 5 release use, 6 swap."""

    status: int = wire(VARINT)
    location: tuple[int, int, int] = wire(POSITION)
    face: int = wire(I8)
    sequence: int = wire(VARINT)


@packet("entity_action", SERVERBOUND)
class EntityAction(Packet):
    """Player command (sneak, sprint, ...)."""

    entity_id: int = wire(VARINT)
    action_id: int = wire(VARINT)
    jump_boost: int = wire(VARINT)


@packet("held_item_slot", SERVERBOUND)
class HeldItemSlotServerbound(Packet):
    """Set held item (serverbound: i16)."""

    slot_id: int = wire(I16)


@packet("set_creative_slot", SERVERBOUND)
class SetCreativeSlot(Packet):
    """Set creative mode slot."""

    slot: int = wire(I16)
    item: Slot | None = wire(SLOT)


@packet("arm_animation", SERVERBOUND)
class ArmAnimation(Packet):
    """Swing arm."""

    hand: int = wire(VARINT)


@packet("block_place", SERVERBOUND)
class BlockPlace(Packet):
    """Use item on (block placement)."""

    hand: int = wire(VARINT)
    location: tuple[int, int, int] = wire(POSITION)
    direction: int = wire(VARINT)
    cursor_x: float = wire(F32)
    cursor_y: float = wire(F32)
    cursor_z: float = wire(F32)
    inside_block: bool = wire(BOOL)
    sequence: int = wire(VARINT)


@packet("use_item", SERVERBOUND)
class UseItem(Packet):
    """Use item."""

    hand: int = wire(VARINT)
    sequence: int = wire(VARINT)


@packet("pong", SERVERBOUND)
class Pong(Packet):
    """Pong (answer to ping)."""

    id: int = wire(I32)


@packet("custom_payload", SERVERBOUND)
class CustomPayloadServerbound(Packet):
    """Plugin message (serverbound)."""

    channel: str = wire(STRING)
    data: bytes = wire(REST)


# ------------------------------------------------------------------ more packets a vanilla client may send


@packet("message_acknowledgement", SERVERBOUND)
class MessageAcknowledgement(Packet):
    """Message acknowledgment (760 only; 759 has no such packet, so encoding it for 759 raises)."""

    previous_messages: list[PreviousMessage] = wire(Array(Struct(PreviousMessage)))
    last_rejected: RejectedMessage | None = wire(Option(Struct(RejectedMessage)))


@packet("tab_complete", SERVERBOUND)
class TabCompleteRequest(Packet):
    """Command suggestions request."""

    transaction_id: int = wire(VARINT)
    text: str = wire(STRING)


@packet("query_block_nbt", SERVERBOUND)
class QueryBlockNbt(Packet):
    """Query block entity tag."""

    transaction_id: int = wire(VARINT)
    location: tuple[int, int, int] = wire(POSITION)


@packet("query_entity_nbt", SERVERBOUND)
class QueryEntityNbt(Packet):
    """Query entity tag."""

    transaction_id: int = wire(VARINT)
    entity_id: int = wire(VARINT)


@packet("set_difficulty", SERVERBOUND)
class SetDifficulty(Packet):
    """Change difficulty."""

    new_difficulty: int = wire(U8)


@packet("lock_difficulty", SERVERBOUND)
class LockDifficulty(Packet):
    """Lock difficulty."""

    locked: bool = wire(BOOL)


@packet("steer_boat", SERVERBOUND)
class SteerBoat(Packet):
    """Paddle boat."""

    left_paddle: bool = wire(BOOL)
    right_paddle: bool = wire(BOOL)


@packet("steer_vehicle", SERVERBOUND)
class SteerVehicle(Packet):
    """Player input while riding."""

    sideways: float = wire(F32)
    forward: float = wire(F32)
    flags: int = wire(U8)


@packet("pick_item", SERVERBOUND)
class PickItem(Packet):
    """Pick item (middle click)."""

    slot: int = wire(VARINT)


@packet("craft_recipe_request", SERVERBOUND)
class CraftRecipeRequest(Packet):
    """Place recipe (recipe book click)."""

    window_id: int = wire(I8)
    recipe: str = wire(STRING)
    make_all: bool = wire(BOOL)


@packet("recipe_book", SERVERBOUND)
class RecipeBookSettings(Packet):
    """Change recipe book settings."""

    book_id: int = wire(VARINT)
    book_open: bool = wire(BOOL)
    filter_active: bool = wire(BOOL)


@packet("displayed_recipe", SERVERBOUND)
class DisplayedRecipe(Packet):
    """Set seen recipe."""

    recipe_id: str = wire(STRING)


@packet("name_item", SERVERBOUND)
class NameItem(Packet):
    """Rename item (anvil)."""

    name: str = wire(STRING)


@packet("resource_pack_receive", SERVERBOUND)
class ResourcePackReceive(Packet):
    """Resource pack status."""

    result: int = wire(VARINT)


@packet("select_trade", SERVERBOUND)
class SelectTrade(Packet):
    """Select trade."""

    slot: int = wire(VARINT)


@packet("update_sign", SERVERBOUND)
class UpdateSign(Packet):
    """Update sign: four lines."""

    location: tuple[int, int, int] = wire(POSITION)
    text1: str = wire(STRING)
    text2: str = wire(STRING)
    text3: str = wire(STRING)
    text4: str = wire(STRING)


@packet("spectate", SERVERBOUND)
class Spectate(Packet):
    """Teleport to entity (spectator)."""

    target: object = wire(UUID)
