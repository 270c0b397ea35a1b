"""One client connection: framing hardening, login → play, decoding, and dispatch to the features' handlers.

Why a quarry ``ServerProtocol`` subclass: quarry already does the handshake, offline-mode login,
compression and the per-protocol packet-id tables (its ``0760_1.19.1`` table is 1.19.2's: same protocol).
What it does not do is survive hostile input: its ``data_received`` only catches its own ProtocolError,
waits forever for an oversized frame, and decompresses without a limit. :meth:`PlayerConnection.data_received`
replaces it: any exception while framing or handling a packet closes *that* connection with a reason
(never the server), and frames above vanilla's limits (2 MiB on the wire, 8 MiB uncompressed — wiki.vg
"Protocol#Packet format") are refused before they are buffered.

Handshakes follow vanilla's ``ServerHandshakePacketListenerImpl`` (1.19.2): a status ping is answered
whatever protocol number the client sends (a client discovering the version pings with its newest, e.g.
767), reporting this server's ``1.19.2`` / 760 (:meth:`PlayerConnection.packet_status_request`); a login
with a protocol this server does not speak gets vanilla's disconnect component
(``multiplayer.disconnect.outdated_client`` below 754, else ``multiplayer.disconnect.incompatible``, with
the version name) instead of quarry's plain text. 1.19 (759) is accepted besides 760 (a MirrorCraft
extension).

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

from mirrorcraft import PROTOCOL_1_19, PROTOCOL_1_19_2
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.codec import SERVERBOUND, decode
from mirrorcraft.protocol.quarry_names import our_name
from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.kernel import Player

if TYPE_CHECKING:
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

MAX_FRAME = 2097151  # largest VarInt-3 length: vanilla's wire limit
MAX_UNCOMPRESSED = 8388608  # vanilla's limit on a decompressed packet
VERSION_NAME = "1.19.2"  # SharedConstants.getCurrentVersion().getName()
SPOKEN = (PROTOCOL_1_19_2, PROTOCOL_1_19)
SAMPLE_SIZE = 12  # players listed in a status response (MinecraftServer.tickServer)


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

    # ---- handshake and status (vanilla ServerHandshakePacketListenerImpl / ServerStatusPacketListenerImpl) ----

    def packet_handshake(self, buff) -> None:
        """The handshake: status for any protocol; login only for the protocols this server speaks."""
        version = buff.unpack_varint()
        self.connect_host = buff.unpack_string()
        self.connect_port = buff.unpack("H")
        intention = buff.unpack_varint()
        self.client_protocol = version
        # Packet ids of the status and login states are the same in every version: read and write them
        # with 1.19.2's tables whatever the client said.
        self.protocol_version = version if version in SPOKEN else PROTOCOL_1_19_2
        self.buff_type = self.factory.get_buff_type(self.protocol_version)
        if intention == 1:
            self.switch_protocol_mode("status")
            return
        if intention != 2:
            raise ProtocolError(f"Invalid intention {intention}")
        self.switch_protocol_mode("login")
        if version not in SPOKEN:
            key = (
                "multiplayer.disconnect.outdated_client"
                if version < 754
                else "multiplayer.disconnect.incompatible"
            )
            reason = C.translatable(key, VERSION_NAME)
            self.send_packet("login_disconnect", self.buff_type.pack_string(wire.component_json(reason)))
            super(ServerProtocol, self).close(C.render(reason))  # quarry's close would send its own text
            return
        if len(self.factory.players) >= self.factory.max_players:
            self.close("Server is full")
        else:
            self.factory.players.add(self)

    def packet_status_request(self, buff) -> None:
        """``ServerStatus`` as vanilla 1.19.2 writes it: the MOTD, players (a sample of up to 12), this
        server's version and protocol (never the client's), no chat preview, no enforced secure chat."""
        players = list(self.game.kernel.players.values())
        status_players: dict[str, object] = {"max": self.factory.max_players, "online": len(players)}
        if players:
            status_players["sample"] = [
                {"name": p.display_name, "id": str(p.uuid)} for p in players[:SAMPLE_SIZE]
            ]
        status = {
            "description": {"text": self.factory.motd},
            "players": status_players,
            "version": {"name": VERSION_NAME, "protocol": PROTOCOL_1_19_2},
            "previewsChat": False,
            "enforcesSecureChat": False,
        }
        self.send_packet("status_response", self.buff_type.pack_json(status))

    def protocol_error(self, err: Exception) -> None:  # quarry's hook, used by its own login code
        self.close(f"Protocol error: {err}")

    # ---- lifecycle -------------------------------------------------------------------------------------

    def player_joined(self) -> None:
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
