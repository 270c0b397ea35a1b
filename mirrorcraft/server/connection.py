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

Connections that have not entered play yet hold no player slot (vanilla counts a player in
``PlayerList.canPlayerLogin`` when the login completes, ``multiplayer.disconnect.server_full``): a flood
of sockets that only send a handshake cannot fill the server. Each such connection has a deadline,
``ServerConfig.login_timeout`` seconds from connecting (vanilla: 600 ticks of
``ServerLoginPacketListenerImpl``, ``multiplayer.disconnect.slow_login``), and one address may hold at
most ``ServerConfig.max_pending_logins_per_address`` of them: one more closes the oldest
(:class:`PendingLogins`; vanilla has no such bound, and refusing the newest instead would lock out a real
login from a flooded address).

The game half of a player is the kernel's :class:`~mirrorcraft.server.kernel.players.Player`, created at
login with this connection as its transport (``send`` / ``close``). Play packets are decoded by
``mirrorcraft.protocol`` (an error names the packet, field and offset) and dispatched to the handlers the
features registered (``kernel.handlers``); a packet no feature handles is read and ignored without decoding.
"""

from __future__ import annotations

import logging
import zlib
from collections import OrderedDict
from typing import TYPE_CHECKING

from quarry.net.server import ServerProtocol
from quarry.types.buffer import BufferUnderrun
from twisted.internet import reactor

from mirrorcraft import PROTOCOL_1_19, PROTOCOL_1_19_2
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.codec import SERVERBOUND, decode
from mirrorcraft.protocol.quarry_names import our_name
from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.kernel import Player
from mirrorcraft.server.kernel.chunk_cache import FRAMES

if TYPE_CHECKING:
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

MAX_FRAME = 2097151  # largest VarInt-3 length: vanilla's wire limit
MAX_UNCOMPRESSED = 8388608  # vanilla's limit on a decompressed packet
VERSION_NAME = "1.19.2"  # SharedConstants.getCurrentVersion().getName()
SPOKEN = (PROTOCOL_1_19_2, PROTOCOL_1_19)
SAMPLE_SIZE = 12  # players listed in a status response (MinecraftServer.tickServer)
#: Serverbound string fields vanilla reads with a length limit (``FriendlyByteBuf.readUtf(max)`` in the
#: packet's constructor): packet → (field, max characters). Longer strings fail the decoder, which closes
#: the connection with the decoder's message (``Connection.exceptionCaught``, ``disconnect.genericReason``).
STRING_LIMITS = {"chat_message": ("message", 256), "chat_command": ("command", 256)}


class PendingLogins:
    """Connections not yet in play, by remote address, oldest first; at most ``limit`` per address.

    Args:
        limit: Connections one address may hold before play (``ServerConfig.max_pending_logins_per_address``).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._by_host: dict[str, OrderedDict[int, PlayerConnection]] = {}

    def add(self, conn: PlayerConnection) -> PlayerConnection | None:
        """Track ``conn``; returns the oldest connection of its address when the address is over its limit
        (the caller closes it)."""
        pending = self._by_host.setdefault(conn.remote_host, OrderedDict())
        pending[id(conn)] = conn
        if len(pending) > self.limit:
            _, oldest = pending.popitem(last=False)
            return oldest
        return None

    def discard(self, conn: PlayerConnection) -> None:
        """Stop tracking ``conn`` (it entered play or closed)."""
        pending = self._by_host.get(conn.remote_host)
        if pending is not None:
            pending.pop(id(conn), None)
            if not pending:
                del self._by_host[conn.remote_host]

    def count(self, host: str | None = None) -> int:
        """Connections not yet in play (of one address, or of all)."""
        if host is not None:
            return len(self._by_host.get(host, ()))
        return sum(len(v) for v in self._by_host.values())


class PlayerConnection(ServerProtocol):
    """A connected client: the network half of a player (the game half is :attr:`player`, from login on)."""

    game: Game

    def setup(self) -> None:
        self.game = self.factory.game
        self.player: Player | None = None  # the game half, from login on
        self.joined = False
        self.packets_received = 0
        self._deadline = None  # the login deadline (an IDelayedCall) until play
        self._pending = False

    @property
    def remote_host(self) -> str:
        return getattr(self.remote_addr, "host", str(self.remote_addr))

    def connection_made(self) -> None:
        super().connection_made()
        if self.game.config.clock == "lockstep" and hasattr(self.transport, "setTcpNoDelay"):
            # a lockstep tick waits for a round trip of small packets: Nagle's delay would cost ~40 ms each
            self.transport.setTcpNoDelay(True)
        self._deadline = reactor.callLater(self.game.config.login_timeout, self._login_timed_out)
        self._pending = True
        evicted = self.factory.pending.add(self)
        if evicted is not None:
            evicted._pending = False
            evicted._refuse(C.text("Too many connections from your address are logging in"))

    def connection_lost(self, reason=None) -> None:
        self._end_pending()
        super().connection_lost(reason)

    def _end_pending(self) -> None:
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None
        if self._pending:
            self._pending = False
            self.factory.pending.discard(self)

    def _login_timed_out(self) -> None:
        """Vanilla ``ServerLoginPacketListenerImpl.tick``: 600 ticks without completing the login."""
        self._deadline = None
        if not self.joined and not self.closed:
            self._refuse(C.translatable("multiplayer.disconnect.slow_login"))

    def _refuse(self, reason: C.Component) -> None:
        """Close a connection that is not in play: a ``login_disconnect`` with the vanilla component when
        it is in the login state, else just the socket."""
        if self.closed:
            return
        if self.protocol_mode == "login":
            self.send_packet("login_disconnect", self.buff_type.pack_string(wire.component_json(reason)))
        log.info("closing %s before play: %s", self.remote_host, C.render(reason))
        super(ServerProtocol, self).close(C.render(reason))  # quarry's close would send its own text

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
        # No player slot yet: vanilla counts a player only when the login completes (player_joined).

    def packet_login_start(self, buff) -> None:
        """Vanilla ``ServerboundHelloPacket`` reads the name with ``readUtf(16)`` and ``handleHello`` refuses
        names with characters outside 33-126 (``isValidUsername``); quarry takes any name."""
        buff.save()
        name = buff.unpack_string()
        buff.restore()
        if len(name.encode("utf-8")) > 3 * 16 or len(name) > 16:
            raise ProtocolError(f"login name of {len(name)} characters: the limit is 16")
        if not name or any(ord(ch) <= 32 or ord(ch) >= 127 for ch in name):
            self._refuse(C.text("Invalid characters in username"))
            buff.discard()
            return
        super().packet_login_start(buff)

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
        """The login completed (quarry's offline ``login_start``): take a slot, or refuse as vanilla's
        ``PlayerList.canPlayerLogin`` does when the server is full."""
        self._end_pending()
        if len(self.game.kernel.players) >= self.factory.max_players:
            self._refuse(C.translatable("multiplayer.disconnect.server_full"))
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
        """Send a play packet by quarry name (ids from quarry's per-protocol table).

        A chunk column's frame (compressed like any packet above the threshold) is taken from
        :data:`~mirrorcraft.server.kernel.chunk_cache.FRAMES` when the same body was framed before: the
        bodies of unchanged columns are shared bytes, so compressing them again would give the same frame.
        """
        if name != "chunk_data" or self.closed:
            self.send_packet(name, body)
            return
        ident = self.get_packet_ident(name)
        key = (ident, self.compression_threshold, body)
        frame = FRAMES.get(key)
        if frame is None:
            frame = self.buff_type.pack_packet(
                self.buff_type.pack_varint(ident) + body, self.compression_threshold
            )
            FRAMES.put(key, frame, key_bytes=len(body))
        self.log_packet("# send", name)
        self.transport.write(self.cipher.encrypt(frame))

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
        decoded = decode(ours, body, self.protocol_version, SERVERBOUND)
        if ours in STRING_LIMITS and (too_long := string_too_long(decoded, *STRING_LIMITS[ours])):
            log.info("kicking %s: %s: %s", self.display_name, ours, too_long)
            self.close(f"Internal Exception: io.netty.handler.codec.DecoderException: {too_long}")
            return
        handlers.receive(self.player, ours, decoded)


def string_too_long(pkt: object, field: str, limit: int) -> str | None:
    """Vanilla ``FriendlyByteBuf.readUtf(limit)``'s refusal of ``pkt.field``, or ``None`` when it fits: first
    the encoded length against 3 bytes per character, then the characters."""
    text: str = getattr(pkt, field)
    encoded = len(text.encode("utf-8"))
    if encoded > 3 * limit:
        return f"The received encoded string buffer length is longer than maximum allowed ({encoded} > {3 * limit})"
    if len(text) > limit:
        return f"The received string length is longer than maximum allowed ({len(text)} > {limit})"
    return None
