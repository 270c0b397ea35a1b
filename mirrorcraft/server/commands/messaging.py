"""Chat, titles and operators: ``say``, ``me``, ``msg`` / ``tell`` / ``w``, ``tellraw``, ``title``, ``op``,
``deop`` and ``defaultgamemode``, as vanilla's ``SayCommand``, ``EmoteCommands``, ``MsgCommand``,
``TellRawCommand``, ``TitleCommand``, ``OpCommand``, ``DeOpCommands`` and ``DefaultGameModeCommands`` run
them.

Why system chat for ``say``, ``me`` and ``msg``: vanilla 1.19.2 sends those as signed player chat bound to a
chat type; MirrorCraft signs nothing, so it sends the component that chat type decorates to (``[%s] %s``,
``* %s %s``, ``%s whispers to you: %s`` in gray italics) as system chat — the text a client shows and its
chat patterns see is the same (Mineflayer's deprecated ``whisper`` pattern matches it), but the message
arrives as ``system_chat``, not ``player_chat`` (docs/fidelity.md).

Operators: ``op`` and ``deop`` change the executor's :class:`~mirrorcraft.server.commands.ops.OpsList`
(vanilla's ``ops.json``; the host persists it and tells the player its new level). A name must be a
profile the server knows (a player who joined; vanilla's profile cache), else ``argument.player.unknown``.
Agent players can never be made ops (a MirrorCraft rule: the command fails saying so). Vanilla's ``op``
names the *first* profile of the argument in every success line; so does this.
"""

from __future__ import annotations

from mirrorcraft.errors import ContractError
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.base import CommandFailure, ExecutorBase, fail
from mirrorcraft.server.commands.components import Component
from mirrorcraft.server.commands.host import CommandSource, EntityRef
from mirrorcraft.server.commands.reader import CommandSyntaxError, StringReader
from mirrorcraft.server.commands.selectors import Selector, parse_selector

T = C.translatable


class MessagingCommands(ExecutorBase):
    """The chat, title and operator family of :class:`~mirrorcraft.server.commands.executor.CommandExecutor`."""

    # -- helpers -----------------------------------------------------------------------------------------
    def _message_text(self, msg: m.Say, source: CommandSource) -> Component:
        """``MessageArgument.Message.toComponent``: each selector span becomes the entities' names."""
        parts: list[str] = []
        last = 0
        for start, end, sel in msg.selectors:
            parts.append(msg.message[last:start])
            parts.append(", ".join(e.name for e in self._resolve(sel, source)))
            last = end
        parts.append(msg.message[last:])
        return C.text("".join(parts))

    def _for_target(self, message: Component, source: CommandSource, target: EntityRef) -> Component:
        """``ComponentUtils.updateForEntity``: selectors resolved as the source, ``*`` scores as ``target``."""

        def names(text: str) -> list[Component]:
            try:
                sel = parse_selector(StringReader(text))
            except CommandSyntaxError:
                return []
            return [self._display(e) for e in self._resolve(sel, source)]

        def score(holder: str, objective: str) -> int | None:
            name = target.name if holder == "*" else holder
            if holder.startswith("@"):
                try:
                    found = self._resolve(parse_selector(StringReader(holder)), source)
                except CommandSyntaxError:
                    return None
                if not found:
                    return None
                name = found[0].name if found[0].is_player else found[0].uuid
            return self.scoreboard.score(name, objective)

        return C.resolve(message, selector=names, score=score)

    def _who(self, targets: list[EntityRef]) -> tuple[str, object]:
        return ("single", self._display(targets[0])) if len(targets) == 1 else ("multiple", len(targets))

    # -- say, me, msg --------------------------------------------------------------------------------------
    def _run_say(self, source: CommandSource, c: m.Say, out: list[Component]) -> int:
        self.host.broadcast(
            T("chat.type.announcement", self._source_display(source), self._message_text(c, source))
        )
        return 1

    def _run_emote(self, source: CommandSource, c: m.Emote, out: list[Component]) -> int:
        self.host.broadcast(
            T("chat.type.emote", self._source_display(source), self._message_text(c.action, source))
        )
        return 1

    def _run_message(self, source: CommandSource, c: m.Message, out: list[Component]) -> int:
        targets = self._players(c.targets, source)
        text = self._message_text(c.message, source)
        sender = self._source_display(source)
        for t in targets:
            incoming = T("commands.message.display.incoming", sender, text, italic=True, color="gray")
            self.host.tell(t, incoming)
            outgoing = T(
                "commands.message.display.outgoing", self._display(t), text, italic=True, color="gray"
            )
            out.append(outgoing)  # the sender's copy (sendChatMessage to the source)
        return len(targets)

    # -- tellraw, title ------------------------------------------------------------------------------------
    def _run_tellraw(self, source: CommandSource, c: m.Tellraw, out: list[Component]) -> int:
        targets = self._players(c.targets, source)
        for t in targets:
            self.host.tell(t, self._for_target(c.message, source, t))
        return len(targets)

    def _run_title(self, source: CommandSource, c: m.Title, out: list[Component]) -> int:
        targets = self._players(c.targets, source)
        for t in targets:
            message = self._for_target(c.message, source, t) if c.message is not None else None
            self.host.title(t, c.action, message, c.times)
        form, who = self._who(targets)
        key = {
            "clear": "commands.title.cleared",
            "reset": "commands.title.reset",
            "times": "commands.title.times",
        }.get(c.action, f"commands.title.show.{c.action}")
        out.append(T(f"{key}.{form}", who))
        return len(targets)

    # -- operators and the default game mode -----------------------------------------------------------
    def _profiles(
        self, selector: Selector | None, names: tuple[str, ...], source: CommandSource
    ) -> list[str]:
        if selector is not None:
            return [e.name for e in self._players(selector, source)]
        out = []
        for n in names:
            known = self.host.profile(n)
            if known is None:
                raise fail("argument.player.unknown")
            out.append(known)
        return out

    def _run_opcmd(self, source: CommandSource, c: m.OpCmd, out: list[Component]) -> int:
        profiles = self._profiles(c.selector, c.names, source)
        first = profiles[0]
        changed = 0
        for name in profiles:
            is_op = self.ops.is_op(name)
            if c.action == "op" and not is_op:
                try:
                    self.ops.add(name)
                except ContractError as err:
                    raise CommandFailure(C.text(str(err))) from None
            elif c.action == "deop" and is_op:
                self.ops.remove(name)
            else:
                continue
            changed += 1
            self.host.permission_level_changed(name, self.ops.level(name))
            out.append(T(f"commands.{c.action}.success", first))
        if changed == 0:
            raise fail(f"commands.{c.action}.failed")
        return changed

    def _run_defaultgamemode(self, source: CommandSource, c: m.DefaultGameMode, out: list[Component]) -> int:
        self.host.set_default_game_mode(c.mode)  # type: ignore[arg-type]
        out.append(T("commands.defaultgamemode.success", T(f"gameMode.{c.mode}")))
        return 0  # no forced game mode: no player changed (DefaultGameModeCommands.setMode)
