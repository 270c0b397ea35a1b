"""One client connection: framing hardening, login → play, and the serverbound packet handlers.

Why a quarry ``ServerProtocol`` subclass: quarry already does the handshake, offline-mode login,
compression and the per-protocol packet-id tables (its ``0760_1.19.1`` table is 1.19.2's: same protocol).
What it does not do is survive hostile input: its ``data_received`` only catches its own ProtocolError,
waits forever for an oversized frame, and decompresses without a limit. :meth:`PlayerConnection.data_received`
replaces it: any exception while framing or handling a packet closes *that* connection with a reason
(never the server), and frames above vanilla's limits (2 MiB on the wire, 8 MiB uncompressed — wiki.vg
"Protocol#Packet format") are refused before they are buffered.

Game logic lives in :mod:`mirrorcraft.server.game`; handlers here parse bodies (field order from
minecraft-data ``pc/1.19.2/protocol.json``) and call the game.
"""

from __future__ import annotations

import logging
import time
import zlib
from typing import TYPE_CHECKING

from quarry.net.server import ServerProtocol
from quarry.types.buffer import BufferUnderrun

from mirrorcraft.errors import ProtocolError
from mirrorcraft.server import wire
from mirrorcraft.server.inventory import PlayerInventory

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
            except BufferUnderrun:
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
            self.close(f"Unsupported protocol {self.protocol_version}: this server speaks 1.19.2 (760) and 1.19 (759)")
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

    # ---- serverbound handlers --------------------------------------------------------------------------

    def packet_teleport_confirm(self, buff) -> None:
        tid = buff.unpack_varint()
        if tid == self.pending_teleport:
            self.pending_teleport = None

    def packet_keep_alive(self, buff) -> None:
        ident = buff.unpack("q")
        if ident == self.keep_alive_id:
            self.keep_alive_id = None
            self.last_keep_alive = time.monotonic()

    def packet_player_position(self, buff) -> None:
        x, y, z, on_ground = buff.unpack("ddd?")
        self.game.move(self, x, y, z, None, None, on_ground)

    def packet_player_position_and_look(self, buff) -> None:
        x, y, z, yaw, pitch, on_ground = buff.unpack("dddff?")
        self.game.move(self, x, y, z, yaw, pitch, on_ground)

    def packet_player_look(self, buff) -> None:
        yaw, pitch, on_ground = buff.unpack("ff?")
        self.game.move(self, None, None, None, yaw, pitch, on_ground)

    def packet_player(self, buff) -> None:
        on_ground = buff.unpack("?")
        self.game.move(self, None, None, None, None, None, on_ground)

    def packet_player_digging(self, buff) -> None:
        status = buff.unpack_varint()
        x, y, z = buff.unpack_position()
        face = buff.unpack("b")
        sequence = buff.unpack_varint()
        self.game.dig(self, status, (x, y, z), face, sequence)

    def packet_player_block_placement(self, buff) -> None:
        hand = buff.unpack_varint()
        x, y, z = buff.unpack_position()
        face = buff.unpack_varint()
        cx, cy, cz, inside = buff.unpack("fff?")
        sequence = buff.unpack_varint()
        self.game.place(self, hand, (x, y, z), face, (cx, cy, cz), sequence)

    def packet_use_item(self, buff) -> None:
        buff.unpack_varint()  # hand
        sequence = buff.unpack_varint()
        self.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))

    def packet_held_item_change(self, buff) -> None:
        slot = buff.unpack("h")
        if 0 <= slot <= 8:
            self.inventory.held = slot
            self.dig = None

    def packet_click_window(self, buff) -> None:
        self.game.click(self, wire.read_click(buff))

    def packet_close_window(self, buff) -> None:
        self.game.close_window(self, buff.unpack("B"))

    def packet_entity_action(self, buff) -> None:
        buff.unpack_varint()
        action = buff.unpack_varint()
        buff.unpack_varint()
        if action in (0, 1):
            self.sneaking = action == 0

    def packet_creative_inventory_action(self, buff) -> None:
        buff.discard()  # survival only: ignored like vanilla does outside creative

    def packet_unhandled(self, buff, name: str) -> None:
        # settings, plugin messages, chat, animation, pong, recipe book...: nothing to do in part 1
        buff.discard()
