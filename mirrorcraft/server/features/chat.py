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
* chat (not commands) is relayed as ``chat.type.text`` (``<name> text``) system chat: MirrorCraft signs no
  chat, so a line arrives as ``system_chat`` rather than signed ``player_chat`` (docs/fidelity.md).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.kernel import Behaviour, Kernel, Player

log = logging.getLogger(__name__)


def display_name(p: Player) -> C.Component:
    """``Player.getDisplayName`` of a game player."""
    return C.player_name(p.display_name, str(p.uuid))


class Chat:
    """System chat for one game."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        kernel.events.after("joined", self._joined)
        kernel.events.after("left", self._left)
        kernel.handlers.register("chat_message", lambda p, pkt: self.chat(p, pkt.message))

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
        self.broadcast(C.translatable("chat.type.text", display_name(p), text))

    def _joined(self, b: Behaviour) -> None:
        p = b.player
        self.broadcast(
            C.translatable("multiplayer.player.joined", display_name(p), color="yellow"), exclude=p
        )

    def _left(self, b: Behaviour) -> None:
        p = b.player
        self.broadcast(C.translatable("multiplayer.player.left", display_name(p), color="yellow"), exclude=p)
