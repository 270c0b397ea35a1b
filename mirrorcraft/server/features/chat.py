"""Chat: system messages to one player or everyone, players' chat lines, and the join and leave lines.

Why a feature: every message the server shows — command replies, ``tellraw``, death messages, advancement
announcements, ``multiplayer.player.joined`` — is a vanilla text component sent as ``system_chat``
(:mod:`~mirrorcraft.server.commands.components` builds them); this is the one place that sends them and
logs what is broadcast (vanilla ``PlayerList.broadcastSystemMessage`` logs to the console too).

Vanilla behaviour followed:

* joining (``PlayerList.placeNewPlayer``): everyone already in the game gets the yellow
  ``multiplayer.player.joined`` with the newcomer's display name; the newcomer is not in the list yet and
  does not get it;
* leaving (``ServerGamePacketListenerImpl.onDisconnect``): everyone else gets the yellow
  ``multiplayer.player.left``;
* a player's name in these lines is ``Player.getDisplayName``: with a team, its prefix, suffix and colour
  (:meth:`~mirrorcraft.server.features.teams.Teams.display_name`);
* chat (not commands) is relayed to everyone as ``chat.type.text`` (``<name> text``) system chat: MirrorCraft signs no
  chat, so a line arrives as ``system_chat`` rather than signed ``player_chat`` (docs/fidelity.md);
* spam (``ServerGamePacketListenerImpl.detectRateSpam``): each chat line or command adds 20 to the
  player's count, every game tick takes 1 off; above 200 a player who is not an op is kicked
  (``disconnect.spam``, "Kicked for spamming"). Counted in game ticks, as vanilla: an accelerated server
  forgives faster in wall time. The 256-character limit of a line is the connection's (vanilla's packet
  decoder, :data:`~mirrorcraft.server.connection.STRING_LIMITS`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.teams import Teams
from mirrorcraft.server.kernel import Behaviour, Kernel, Player

log = logging.getLogger(__name__)

SPAM_PER_MESSAGE = 20  # chatSpamTickCount += 20 per chat line or command
SPAM_LIMIT = 200  # kicked above this
SPAM_KICK = "Kicked for spamming"  # en_us disconnect.spam


def display_name(p: Player) -> C.Component:
    """``Player.getDisplayName`` of a game player."""
    return C.player_name(p.display_name, str(p.uuid))


class Chat:
    """System chat for one game; ``teams`` gives players their team-formatted display names.

    Attributes:
        is_op: Whether a player is an op (spam-exempt); the commands feature sets it.
    """

    def __init__(self, kernel: Kernel, teams: Teams | None = None) -> None:
        self.kernel = kernel
        self.name_of = teams.display_name if teams is not None else display_name
        self.is_op: Callable[[Player], bool] = lambda p: False
        self._spam: dict[Player, tuple[int, int]] = {}  # player → (chatSpamTickCount, at tick)
        kernel.events.after("joined", self._joined)
        kernel.events.after("left", self._left)
        kernel.handlers.register("chat_message", self._on_chat)
        kernel.handlers.register("chat_command", lambda p, pkt: self.rate_spam(p))

    def _on_chat(self, p: Player, pkt: Any) -> None:
        self.chat(p, pkt.message)
        self.rate_spam(p)

    def rate_spam(self, p: Player) -> None:
        """Vanilla ``detectRateSpam`` after a chat line or command: +20, -1 per tick since; kick above 200."""
        now = self.kernel.tick_count
        count, at = self._spam.get(p, (0, now))
        count = max(0, count - (now - at)) + SPAM_PER_MESSAGE
        self._spam[p] = (count, now)
        if count > SPAM_LIMIT and not self.is_op(p):
            log.info("%s kicked for spamming", p.display_name)
            self._spam.pop(p, None)
            p.kick(SPAM_KICK)

    def tell(self, p: Player, message: Mapping[str, Any] | str) -> None:
        """One system chat message (a component, or plain text) to ``p``."""
        component = message if isinstance(message, Mapping) else C.text(message)
        p.send("system_message", wire.system_chat(component, p.protocol_version))

    def broadcast(self, message: Mapping[str, Any], exclude: Player | None = None) -> None:
        """``PlayerList.broadcastSystemMessage``: to every player (but ``exclude``), and to the log."""
        log.info("[chat] %s", C.render(dict(message)))
        for o in self.kernel.players.values():
            if o is not exclude:
                self.tell(o, message)

    def chat(self, p: Player, text: str) -> None:
        """A chat line (not a command): ``<name> text`` to everyone (unsigned system chat)."""
        self.broadcast(C.translatable("chat.type.text", self.name_of(p), text))

    def _joined(self, b: Behaviour) -> None:
        p = b.player
        self.broadcast(
            C.translatable("multiplayer.player.joined", self.name_of(p), color="yellow"), exclude=p
        )

    def _left(self, b: Behaviour) -> None:
        p = b.player
        self._spam.pop(p, None)
        self.broadcast(C.translatable("multiplayer.player.left", self.name_of(p), color="yellow"), exclude=p)
