"""One client connection: framing hardening, login → play, and the serverbound packet handlers.

Why a quarry ``ServerProtocol`` subclass: quarry already does the handshake, offline-mode login,
compression and the per-protocol packet-id tables (its ``0760_1.19.1`` table is 1.19.2's: same protocol).
What it does not do is survive hostile input: its ``data_received`` only catches its own ProtocolError,
waits forever for an oversized frame, and decompresses without a limit. :meth:`PlayerConnection.data_received`
replaces it: any exception while framing or handling a packet closes *that* connection with a reason
(never the server), and frames above vanilla's limits (2 MiB on the wire, 8 MiB uncompressed — wiki.vg
"Protocol#Packet format") are refused before they are buffered.

Game logic lives in :mod:`mirrorcraft.server.game`; play packets are decoded by ``mirrorcraft.protocol``
(an error names the packet, field and offset) and the ``on_<packet>`` handlers here call the game.
"""

from __future__ import annotations

import logging
import time
import zlib
from typing import TYPE_CHECKING

from quarry.net.server import ServerProtocol
from quarry.types.buffer import BufferUnderrun

from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.protocol.codec import SERVERBOUND, decode
from mirrorcraft.protocol.quarry_names import our_name
from mirrorcraft.server import wire
from mirrorcraft.server.inventory import Click, PlayerInventory

if TYPE_CHECKING:
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

MAX_FRAME = 2097151  # largest VarInt-3 length: vanilla's wire limit
MAX_UNCOMPRESSED = 8388608  # vanilla's limit on a decompressed packet


class PlayerConnection(ServerProtocol):
    """A connected client and, once in play state, its player."""

    game: Game

    def setup(self) -> None:
        self.game = self.factory.game
        self.eid = 0
        self.pos = [0.0, 0.0, 0.0]
        self.yaw = 0.0
        self.pitch = 0.0
        self.on_ground = False
        self.pending_teleport: int | None = None
        self.teleport_counter = 0
        self.inventory = PlayerInventory()
        self.loaded_chunks: set[tuple[int, int]] = set()
        self.center_chunk: tuple[int, int] | None = None
        self.dig: tuple[tuple[int, int, int], int] | None = None  # (position, start tick)
        self.delayed_dig: tuple[tuple[int, int, int], int] | None = None  # an early finish, broken later
        self.keep_alive_id: int | None = None
        self.keep_alive_sent = 0.0
        self.last_keep_alive = time.monotonic()
        self.moved = False
        self.sneaking = False
        self.joined = False
        self.health = 20.0
        self.packets_received = 0

    # ---- hardened framing ----------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        """Frame, decompress and dispatch packets; any failure closes only this connection."""
        try:
            self._data_received(data)
        except Exception as err:  # noqa: BLE001 - a bad client must never take the server down
            reason = f"{type(err).__name__}: {err}"
            log.info("closing %s: %s", self.remote_addr, reason)
            self.close(f"Bad packet ({reason})"[:250])

    def _data_received(self, data: bytes) -> None:
        data = self.cipher.decrypt(data)
        self.recv_buff.add(data)
        while not self.closed:
            self.recv_buff.save()
            try:
                length = self.recv_buff.unpack_varint(max_bits=32)
            except BufferUnderrun:
                self.recv_buff.restore()
                return
            if length < 0 or length > MAX_FRAME:
                raise ProtocolError(f"frame length {length} exceeds {MAX_FRAME}")
            if len(self.recv_buff) < length:
                self.recv_buff.restore()
                return
            body = self.recv_buff.read(length)
            if self.compression_threshold >= 0:
                inner = self.buff_type(body)
                size = inner.unpack_varint(max_bits=32)
                rest = inner.read()
                if size == 0:
                    body = rest
                else:
                    if size > MAX_UNCOMPRESSED or size < 0:
                        raise ProtocolError(f"declared uncompressed size {size} exceeds {MAX_UNCOMPRESSED}")
                    d = zlib.decompressobj()
                    body = d.decompress(rest, size + 1)
                    if len(body) != size:
                        raise ProtocolError(f"decompressed {len(body)} bytes, header said {size}")
            buff = self.buff_type(body)
            ident = buff.unpack_varint()
            name = self.get_packet_name(ident)
            try:
                self.packet_received(buff, name)
            except BufferUnderrun:  # quarry's own (handshake/login) parsers
                raise ProtocolError(f"packet {name} is truncated") from None
            if len(buff) > 0:
                raise ProtocolError(f"packet {name} has {len(buff)} unread bytes")
            self.packets_received += 1
            self.connection_timer.restart()

    def protocol_error(self, err: Exception) -> None:  # quarry's hook, used by its own login code
        self.close(f"Protocol error: {err}")

    # ---- lifecycle -------------------------------------------------------------------------------------

    def player_joined(self) -> None:
        if self.protocol_version not in (759, 760):
            self.close(
                f"Unsupported protocol {self.protocol_version}: this server speaks 1.19.2 (760) and 1.19 (759)"
            )
            return
        super().player_joined()
        self.game.join(self)
        self.joined = True

    def player_left(self) -> None:
        super().player_left()
        if self.joined:
            self.game.leave(self)

    def kick(self, reason: str) -> None:
        """Disconnect with a reason shown to the player."""
        self.close(reason)

    def send(self, name: str, body: bytes) -> None:
        """Send a play packet by quarry name (ids from quarry's per-protocol table)."""
        self.send_packet(name, body)

    # ---- serverbound handlers ----------------------------------------------------------------------------

    def packet_received(self, buff, name: str) -> None:
        """Play packets are decoded by ``mirrorcraft.protocol`` and dispatched to ``on_<name>``."""
        if self.protocol_mode != "play":
            super().packet_received(buff, name)
            return
        ours = our_name(name, self.protocol_version, "serverbound")
        handler = getattr(self, f"on_{ours}", None)
        body = buff.read()
        if handler is None:
            return  # settings, plugin messages, chat, animation, pong, recipe book...: nothing to do in part 1
        handler(decode(ours, body, self.protocol_version, SERVERBOUND))

    def on_teleport_confirm(self, pkt: sb.TeleportConfirm) -> None:
        if pkt.teleport_id == self.pending_teleport:
            self.pending_teleport = None

    def on_keep_alive(self, pkt: sb.KeepAliveServerbound) -> None:
        if pkt.keep_alive_id == self.keep_alive_id:
            self.keep_alive_id = None
            self.last_keep_alive = time.monotonic()

    def on_position(self, pkt: sb.PlayerPosition) -> None:
        self.game.move(self, pkt.x, pkt.y, pkt.z, None, None, pkt.on_ground)

    def on_position_look(self, pkt: sb.PlayerPositionLook) -> None:
        self.game.move(self, pkt.x, pkt.y, pkt.z, pkt.yaw, pkt.pitch, pkt.on_ground)

    def on_look(self, pkt: sb.PlayerLook) -> None:
        self.game.move(self, None, None, None, pkt.yaw, pkt.pitch, pkt.on_ground)

    def on_flying(self, pkt: sb.PlayerOnGround) -> None:
        self.game.move(self, None, None, None, None, None, pkt.on_ground)

    def on_block_dig(self, pkt: sb.BlockDig) -> None:
        self.game.dig(self, pkt.status, tuple(pkt.location), pkt.face, pkt.sequence)

    def on_block_place(self, pkt: sb.BlockPlace) -> None:
        self.game.place(
            self,
            pkt.hand,
            tuple(pkt.location),
            pkt.direction,
            (pkt.cursor_x, pkt.cursor_y, pkt.cursor_z),
            pkt.sequence,
        )

    def on_use_item(self, pkt: sb.UseItem) -> None:
        self.game.food.use_item(self, pkt.hand)  # eating (server/food.py); other item uses are not simulated
        self.send("acknowledge_block_changes", wire.acknowledge_block_changes(pkt.sequence))

    def on_held_item_slot(self, pkt: sb.HeldItemSlotServerbound) -> None:
        if 0 <= pkt.slot_id <= 8:  # vanilla ignores out-of-range slots; a dig in progress keeps going
            self.game.food.held_changed(self, pkt.slot_id)  # but eating stops (server/food.py)
            self.inventory.held = pkt.slot_id

    def on_window_click(self, pkt: sb.WindowClick) -> None:
        def stack(s: object) -> tuple[int, int] | None:
            return (s.item_id, s.count) if s is not None else None  # type: ignore[attr-defined]

        self.game.click(
            self,
            Click(
                window=pkt.window_id,
                state_id=pkt.state_id,
                slot=pkt.slot,
                button=pkt.mouse_button,
                mode=pkt.mode,
                changed=[(c.location, stack(c.item)) for c in pkt.changed_slots],
                carried=stack(pkt.cursor_item),
            ),
        )

    def on_close_window(self, pkt: sb.CloseWindowServerbound) -> None:
        self.game.close_window(self, pkt.window_id)

    def on_enchant_item(self, pkt: sb.EnchantItem) -> None:  # part 2: container button (enchanting table)
        self.game.rules.enchant_item(self, pkt.window_id, pkt.enchantment)

    def on_use_entity(self, pkt: sb.UseEntity) -> None:  # part 2: attacks (mouse 1) on cows
        if pkt.mouse == 1:
            self.game.rules.mobs.attack(self, pkt.target)

    def on_chat_command(self, pkt: sb.ChatCommand) -> None:  # control plane: /commands with op level
        self.game.admin.chat_command(self, pkt.command)

    def on_chat_message(self, pkt: sb.ChatMessage) -> None:
        self.game.admin.chat(self, pkt.message)

    def on_set_creative_slot(self, pkt: sb.SetCreativeSlot) -> None:
        self.game.admin.creative_slot(self, pkt.slot, pkt.item)

    def on_client_command(self, pkt: sb.ClientCommand) -> None:  # 0: respawn after death
        if pkt.action_id == 0:
            self.game.admin.respawn(self)

    def on_entity_action(self, pkt: sb.EntityAction) -> None:
        if pkt.action_id in (0, 1):
            self.sneaking = pkt.action_id == 0
