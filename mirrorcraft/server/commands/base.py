"""What every command family of the executor shares: the failure a command raises, the display name of an
entity, and the selector and scoreboard look-ups (vanilla's ``CommandSourceStack`` helpers).

Why a base class: the executor is split by command family (:mod:`~mirrorcraft.server.commands.executor`
for the world and player commands, :mod:`~mirrorcraft.server.commands.execute` for ``execute``,
:mod:`~mirrorcraft.server.commands.messaging` for chat, titles and operators); each family is a mixin over
this base, so a ``_run_<command>`` method finds the same helpers wherever it is written.
"""

from __future__ import annotations

from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.components import Component
from mirrorcraft.server.commands.host import CommandHost, CommandSource, EntityRef
from mirrorcraft.server.commands.model import ScoreHolders
from mirrorcraft.server.commands.ops import OpsList
from mirrorcraft.server.commands.scoreboard import Objective, PlayerTeam, Scoreboard, team_player_name
from mirrorcraft.server.commands.selectors import Selector
from mirrorcraft.server.commands.vocabulary import READ_ONLY_CRITERIA


class CommandFailure(Exception):
    """A failure message the command sends (``sendFailure`` / a ``CommandSyntaxException`` it throws)."""

    def __init__(self, message: Component) -> None:
        super().__init__(C.render(message))
        self.component = message


def fail(key: str, *args: object) -> CommandFailure:
    """The failure of a vanilla ``SimpleCommandExceptionType`` / ``DynamicCommandExceptionType``."""
    return CommandFailure(C.translatable(key, *args))


def display(e: EntityRef, team: PlayerTeam | None = None) -> Component:
    """``Entity.getDisplayName`` of a selector snapshot (players with their ``/tell`` click and hover), the name
    formatted by ``team`` (``PlayerTeam.formatNameForTeam``: prefix, suffix, colour) when it is on one."""
    if e.is_player:
        return team_player_name(e.name, e.uuid, team)
    name = C.translatable(e.name_key) if e.name_key else C.text(e.name)
    return C.entity_name(e.type, e.uuid, team.format_name(name) if team is not None else name)


def source_display(source: CommandSource) -> Component:
    """``CommandSourceStack.getDisplayName``: the entity's display name, else the source's name (``Rcon``)."""
    return display(source.entity) if source.entity is not None else C.text(source.name)


def format_list(parts: list[Component]) -> Component:
    """``ComponentUtils.formatList`` with the default separator (a gray ``", "``)."""
    if not parts:
        return C.empty()
    if len(parts) == 1:
        return parts[0]
    joined: list[Component] = []
    for i, p in enumerate(parts):
        if i:
            joined.append(C.text(", ", color="gray"))
        joined.append(p)
    return C.empty(*joined)


class ExecutorBase:
    """The state and look-ups every command family uses."""

    host: CommandHost
    ops: OpsList
    scoreboard: Scoreboard

    def _dispatch(self, source: CommandSource, c: object, out: list[Component]) -> int:
        """Run one parsed command as ``source`` (the executor's ``_run_<command>`` table)."""
        raise NotImplementedError

    def _display(self, e: EntityRef) -> Component:
        """``e``'s display name, formatted by its team (``Entity.getScoreboardName``: name or UUID)."""
        return display(e, self.scoreboard.team_of(e.name if e.is_player else e.uuid))

    def _source_display(self, source: CommandSource) -> Component:
        """``CommandSourceStack.getDisplayName`` with the entity's team formatting."""
        return self._display(source.entity) if source.entity is not None else C.text(source.name)

    def _score_of(self, holder: str, objective: str) -> int | None:
        return self.scoreboard.score(holder, objective)

    def _team_name(self, holder: str) -> str | None:
        team = self.scoreboard.team_of(holder)
        return team.name if team is not None else None

    def _resolve(self, sel: Selector, source: CommandSource) -> list[EntityRef]:
        return sel.resolve(self.host, source, self._score_of, self._team_name)

    def _entities(self, sel: Selector, source: CommandSource) -> list[EntityRef]:
        found = self._resolve(sel, source)
        if not found:
            raise fail("argument.entity.notfound.entity")
        return found

    def _players(self, sel: Selector, source: CommandSource) -> list[EntityRef]:
        found = [e for e in self._resolve(sel, source) if e.is_player]
        if not found:
            raise fail("argument.entity.notfound.player")
        return found

    @staticmethod
    def _self_entity(source: CommandSource) -> EntityRef:
        if source.entity is None:
            raise fail("permissions.requires.entity")
        return source.entity

    @staticmethod
    def _self_player(source: CommandSource) -> EntityRef:
        if source.entity is None or not source.entity.is_player:
            raise fail("permissions.requires.player")
        return source.entity

    def _objective(self, name: str, writable: bool = False) -> Objective:
        obj = self.scoreboard.objectives.get(name)
        if obj is None:
            raise fail("arguments.objective.notFound", name)
        if writable and obj.criterion in READ_ONLY_CRITERIA:
            raise fail("arguments.objective.readonly", name)
        return obj

    def _holders(self, h: ScoreHolders, source: CommandSource) -> list[str]:
        if h.wildcard:
            names = self.scoreboard.holders()
        elif h.selector is not None:
            names = [e.name if e.is_player else e.uuid for e in self._resolve(h.selector, source)]
        else:
            names = [h.name or ""]
        if not names:
            raise fail("argument.scoreHolder.empty")
        return names
