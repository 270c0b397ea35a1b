"""Chat and team chat: send lines and commands, receive messages with their sender.

Why a module of its own: team play talks (PillagerBench agents coordinate in team chat) and the body must
say who said what. Vanilla 1.19.2 delivers player lines as signed ``player_chat`` bound to a chat type
(``chat.type.text``, ``chat.type.team.text``...) and everything else as ``system_chat`` text components; the
embedded server signs nothing and sends the component the chat type decorates to as ``system_chat``
(docs/fidelity.md). Both arrive here as one :class:`ChatLine`:

* ``chat.type.text`` ``<%s> %s`` → ``kind="chat"``, sender = the first argument's name;
* ``chat.type.team.text`` ``%s <%s> %s`` → ``kind="team"``, team = the first argument, sender the second;
  ``chat.type.team.sent`` (``-> %s <%s> %s``, what the sender itself gets back) → ``kind="team_sent"``;
* ``chat.type.emote``, ``chat.type.announcement`` → ``kind="emote"`` / ``"announcement"``;
* ``player_chat`` (a vanilla server) → ``kind="chat"`` or ``"team"`` by its network target name;
* anything else → ``kind="system"`` (command replies, joins, deaths), sender ``None``.

A sender's name is the component's ``insertion`` (``Player.getDisplayName`` sets it to the bare name) or,
without one, its flattened text; team prefixes and suffixes stay out of ``sender``.

Sending: :meth:`Chat.say` is a ``chat_message`` (unsigned: empty signature, no preview), :meth:`Chat.command`
a ``chat_command`` (without the slash); team chat is the vanilla ``teammsg`` command.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.protocol.serverbound import ChatCommand, ChatMessage

#: en_us formats of the chat types (client language strings, wiki.vg "Chat"): to render a line's plain text.
FORMATS: dict[str, str] = {
    "chat.type.text": "<%s> %s",
    "chat.type.team.text": "%s <%s> %s",
    "chat.type.team.sent": "-> %s <%s> %s",
    "chat.type.emote": "* %s %s",
    "chat.type.announcement": "[%s] %s",
    "chat.type.admin": "[%s: %s]",
}
KINDS = {
    "chat.type.text": "chat",
    "chat.type.team.text": "team",
    "chat.type.team.sent": "team_sent",
    "chat.type.emote": "emote",
    "chat.type.announcement": "announcement",
}
MAX_LINES = 512
MAX_CHARS = 256  # vanilla's chat line limit (the server kicks longer ones)


@dataclass(frozen=True)
class ChatLine:
    """One received message.

    Attributes:
        kind: ``chat``, ``team``, ``team_sent``, ``emote``, ``announcement`` or ``system``.
        sender: The sending player's name (``None`` for system messages).
        text: The message itself (for chat kinds: without the ``<name>`` decoration).
        team: The team's shown name for team chat (``[Red]``), else ``None``.
        plain: The whole line as a client shows it.
        time: Reactor seconds when it arrived.
        key: The translation key of the chat type it arrived as (``chat.type.team.text``...), ``None`` for
            plain text and ``player_chat``.
    """

    kind: str
    sender: str | None
    text: str
    team: str | None
    plain: str
    time: float
    key: str | None = None


def flatten(component: Any) -> str:
    """Plain text of a JSON text component (``text``, ``translate`` with ``with``, ``extra``)."""
    if component is None:
        return ""
    if isinstance(component, str):
        return component
    if isinstance(component, list):
        return "".join(flatten(c) for c in component)
    if not isinstance(component, dict):
        return str(component)
    out = ""
    if "text" in component:
        out = str(component["text"])
    elif "translate" in component:
        args = [flatten(a) for a in component.get("with", [])]
        fmt = FORMATS.get(component["translate"])
        if fmt is None:
            out = component["translate"] + ("" if not args else " " + " ".join(args))
        else:
            try:
                out = fmt % tuple(args)
            except TypeError:
                out = fmt + " " + " ".join(args)
    return out + "".join(flatten(c) for c in component.get("extra", []))


def player_name(component: Any) -> str:
    """A player's name from a display-name component: its ``insertion``, else its text."""
    if isinstance(component, dict):
        if isinstance(component.get("insertion"), str):
            return component["insertion"]
        for child in component.get("extra", []):
            if isinstance(child, dict) and isinstance(child.get("insertion"), str):
                return child["insertion"]
    return flatten(component)


def parse_line(raw: str, now: float) -> ChatLine:
    """A :class:`ChatLine` from a ``system_chat`` JSON component."""
    try:
        c = json.loads(raw)
    except ValueError:
        return ChatLine("system", None, raw, None, raw, now)
    plain = flatten(c)
    key = c.get("translate") if isinstance(c, dict) else None
    args = c.get("with", []) if isinstance(c, dict) else []
    kind = KINDS.get(key or "")
    if kind in ("chat", "emote", "announcement") and len(args) >= 2:
        return ChatLine(kind, player_name(args[0]), flatten(args[1]), None, plain, now, key)
    if kind in ("team", "team_sent") and len(args) >= 3:
        return ChatLine(kind, player_name(args[1]), flatten(args[2]), flatten(args[0]), plain, now, key)
    return ChatLine("system", None, plain, None, plain, now, key if isinstance(key, str) else None)


class Chat:
    """Receives ``system_chat`` / ``player_chat`` as :class:`ChatLine` and sends chat and commands.

    Attributes:
        lines: Every line received since the connection (the last :data:`MAX_LINES`).
    """

    def __init__(self, conn: Connection, names: Callable[[Any], str | None] | None = None) -> None:
        self.conn = conn
        self.names = names or (lambda _uuid: None)
        self.lines: list[ChatLine] = []
        self._listeners: list[Callable[[ChatLine], None]] = []
        conn.on_reset(self.lines.clear)
        conn.on("system_chat", self._on_system)
        conn.on("player_chat", self._on_player)

    def on_line(self, listener: Callable[[ChatLine], None]) -> Callable[[], None]:
        """Call ``listener(line)`` for every line; returns a function that removes it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def say(self, text: str) -> None:
        """Send a chat line (not a command) to everyone."""
        self.conn.send(
            ChatMessage(
                message=text[:MAX_CHARS],
                timestamp=int(self.conn.clock.seconds() * 1000),
                salt=0,
                signature=b"",
                signed_preview=False,
                previous_messages=[],
                last_rejected=None,
            )
        )

    def command(self, text: str) -> None:
        """Send a command (``teammsg hi``; a leading ``/`` is dropped)."""
        self.conn.send(
            ChatCommand(
                command=text.removeprefix("/")[:MAX_CHARS],
                timestamp=int(self.conn.clock.seconds() * 1000),
                salt=0,
                argument_signatures=[],
                signed_preview=False,
                previous_messages=[],
                last_rejected=None,
            )
        )

    def say_team(self, text: str) -> None:
        """Send ``text`` to the player's team mates (vanilla ``/teammsg``)."""
        self.command("teammsg " + text)

    def _add(self, line: ChatLine) -> None:
        self.lines.append(line)
        del self.lines[:-MAX_LINES]
        for listener in list(self._listeners):
            listener(line)

    def _on_system(self, pkt: Any) -> None:
        if getattr(pkt, "overlay", False):
            return  # the action bar, not chat
        self._add(parse_line(pkt.content, self.conn.clock.seconds()))

    def _on_player(self, pkt: Any) -> None:
        text = pkt.plain_message
        if pkt.unsigned_content:
            text = flatten(_json(pkt.unsigned_content))
        sender_c = _json(pkt.network_name)
        sender = player_name(sender_c) or self.names(pkt.sender)
        team = flatten(_json(pkt.network_target_name)) if pkt.network_target_name else None
        kind = "team" if team else "chat"
        plain = f"{team} <{sender}> {text}" if team else f"<{sender}> {text}"
        self._add(ChatLine(kind, sender, text, team, plain, self.conn.clock.seconds()))


def _json(raw: str | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw
