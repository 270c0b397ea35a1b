"""One client connection: framing hardening, login → play, decoding, and dispatch to the features' handlers.

Why a quarry ``ServerProtocol`` subclass: quarry already does the handshake, offline-mode login,
compression and the per-protocol packet-id tables (its ``0760_1.19.1`` table is 1.19.2's: same protocol).
What it does not do is survive hostile input: its ``data_received`` only catches its own ProtocolError,
waits forever for an oversized frame, and decompresses without a limit. :meth:`PlayerConnection.data_received`
replaces it: any exception while framing or handling a packet closes *that* connection with a reason
(never the server), and frames above vanilla's limits (2 MiB on the wire, 8 MiB uncompressed — wiki.vg
"Protocol#Packet format") are refused before they are buffered.

The game half of a player is the kernel's :class:`~mirrorcraft.server.kernel.players.Player`, created at
login with this connection as its transport (``send`` / ``close``). Play packets are decoded by
``mirrorcraft.protocol`` (an error names the packet, field and offset) and dispatched to the handlers the
features registered (``kernel.handlers``); a packet no feature handles is read and ignored without decoding.
"""

from __future__ import annotations

import logging
import zlib
from typing import TYPE_CHECKING

from quarry.net.server import ServerProtocol
from quarry.types.buffer import BufferUnderrun

from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.codec import SERVERBOUND, decode
from mirrorcraft.protocol.quarry_names import our_name
from mirrorcraft.server.kernel import Player

if TYPE_CHECKING:
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

MAX_FRAME = 2097151  # largest VarInt-3 length: vanilla's wire limit
MAX_UNCOMPRESSED = 8388608  # vanilla's limit on a decompressed packet


class PlayerConnection(ServerProtocol):
    """A connected client: the network half of a player (the game half is :attr:`player`, from login on)."""

    game: Game

    def setup(self) -> None:
        self.game = self.factory.game
        self.player: Player | None = None  # the game half, from login on
        self.joined = False
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
        self.player = Player(self.display_name, self.uuid, self, self.protocol_version)
        self.game.connect(self.player)
        self.joined = True

    def player_left(self) -> None:
        super().player_left()
        if self.joined and self.player is not None:
            self.game.disconnect(self.player)

    def kick(self, reason: str) -> None:
        """Disconnect with a reason shown to the player."""
        self.close(reason)

    def send(self, name: str, body: bytes) -> None:
        """Send a play packet by quarry name (ids from quarry's per-protocol table)."""
        self.send_packet(name, body)

    # ---- serverbound packets -----------------------------------------------------------------------------

    def packet_received(self, buff, name: str) -> None:
        """Play packets are decoded by ``mirrorcraft.protocol`` and dispatched to the registered handlers."""
        if self.protocol_mode != "play":
            super().packet_received(buff, name)
            return
        ours = our_name(name, self.protocol_version, "serverbound")
        handlers = self.game.kernel.handlers
        body = buff.read()
        if not handlers.handles(ours) or self.player is None:
            return  # settings, plugin messages, animation, pong, recipe book...: nothing to do
        handlers.dispatch(self.player, ours, decode(ours, body, self.protocol_version, SERVERBOUND))
