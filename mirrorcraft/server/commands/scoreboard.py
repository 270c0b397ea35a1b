"""The scoreboard the commands act on: objectives, scores, display slots and teams (in memory, per server run).

Why here and not in the host: scores and teams are plain data that the commands read and write, as vanilla's
``Scoreboard`` is; keeping them next to the executor spares every host from implementing them. What a
client must be told of a change is vanilla's ``ServerScoreboard``'s business: the game registers a
:class:`ScoreboardListener` (the embedded server's teams feature), which this class calls after every
change, in the order vanilla's ``ServerScoreboard`` callbacks run. Holders are player names or entity UUID
strings, as vanilla keys them.

Vanilla keeps teams and team members in hash maps (``Scoreboard.teamsByName``, ``PlayerTeam.players``); this
keeps them in creation / joining order, so ``team list`` may list them in another order than a vanilla
server does (documented in docs/farming.md, "Teams").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.components import Component
from mirrorcraft.server.commands.vocabulary import TEAM_COLORS

#: Display slot names by id (``Scoreboard.getDisplaySlotNames``): list, sidebar, belowName, then one sidebar
#: per team colour (``sidebar.team.<color>``, ids 3-18 in ``ChatFormatting`` colour order).
DISPLAY_SLOTS: tuple[str, ...] = ("list", "sidebar", "belowName", *(f"sidebar.team.{c}" for c in TEAM_COLORS))

#: ``ChatFormatting`` ids of the team colours (``getId``); ``reset`` (no colour) is 21.
COLOR_IDS: dict[str, int] = {c: i for i, c in enumerate(TEAM_COLORS)} | {"reset": 21}


@dataclass
class Objective:
    name: str
    criterion: str
    display_name: str
    render_type: str = "integer"  # ObjectiveCriteria.RenderType: integer or hearts

    @property
    def formatted(self) -> Component:
        """``Objective.getFormattedDisplayName``: the display name in square brackets, the objective's name
        on hover (display names keep only their text: a styled display name loses its style)."""
        hover = {"action": "show_text", "contents": C.text(self.name)}
        return C.square_brackets(C.text(self.display_name, hoverEvent=hover))

    @property
    def display_component(self) -> Component:
        """``Objective.getDisplayName``: the display name alone."""
        return C.text(self.display_name)


@dataclass
class PlayerTeam:
    """Vanilla's ``PlayerTeam``: a name, a display name, affixes, a colour, the options and the members.

    ``color`` is a ``ChatFormatting`` name (``reset`` = none); ``display_name``, ``prefix`` and ``suffix`` are
    text components; the visibility and collision options are vanilla's serialised names.
    """

    name: str
    display_name: Component
    prefix: Component = field(default_factory=C.empty)
    suffix: Component = field(default_factory=C.empty)
    color: str = "reset"
    friendly_fire: bool = True
    see_friendly_invisibles: bool = True
    name_tag_visibility: str = "always"
    death_message_visibility: str = "always"
    collision_rule: str = "always"
    members: list[str] = field(default_factory=list)

    @property
    def formatted(self) -> Component:
        """``PlayerTeam.getFormattedDisplayName``: ``[display name]`` with the team's name as insertion and on
        hover, the brackets in the team colour (when it has one)."""
        hover = {"action": "show_text", "contents": C.text(self.name)}
        inner = C.styled(self.display_name, insertion=self.name, hoverEvent=hover)
        style = {} if self.color == "reset" else {"color": self.color}
        return C.square_brackets(inner, **style)

    def format_name(self, name: Component) -> Component:
        """``PlayerTeam.getFormattedName``: prefix + name + suffix, in the team colour."""
        style = {} if self.color == "reset" else {"color": self.color}
        return C.empty(self.prefix, name, self.suffix, **style)

    @property
    def flags(self) -> int:
        """``PlayerTeam.packOptions``: 0x01 friendly fire, 0x02 sees invisible team mates."""
        return (1 if self.friendly_fire else 0) | (2 if self.see_friendly_invisibles else 0)


def team_player_name(name: str, uuid: str, team: PlayerTeam | None) -> Component:
    """``Player.getDisplayName``: ``PlayerTeam.formatNameForTeam`` (prefix + name + suffix in the team colour)
    decorated with the ``/tell`` click, the entity hover and the name as insertion."""
    plain = C.player_name(name, uuid)
    if team is None:
        return plain
    decoration = {k: v for k, v in plain.items() if k != "text"}
    return C.styled(team.format_name(C.text(name)), **decoration)


class ScoreboardListener(Protocol):
    """What a game is told after each change (vanilla ``ServerScoreboard``'s overrides)."""

    def scoreboard_changed(self, event: str, **data: Any) -> None:
        """``event`` is one of ``objective_added``, ``objective_removed``, ``score_changed`` (``holder``,
        ``objective``, ``value``), ``score_reset`` (``holder``, ``objective`` or None), ``display_set``
        (``slot``, ``objective`` or None, ``previous`` or None), ``team_added`` / ``team_changed`` /
        ``team_removed`` (``team``), ``member_joined`` / ``member_left`` (``team``, ``member``)."""
        ...


@dataclass
class Scoreboard:
    """Objectives in creation order, ``(holder, objective) -> score``, display slots and teams."""

    objectives: dict[str, Objective] = field(default_factory=dict)
    scores: dict[tuple[str, str], int] = field(default_factory=dict)
    display: dict[int, str] = field(default_factory=dict)
    teams: dict[str, PlayerTeam] = field(default_factory=dict)
    member_team: dict[str, str] = field(default_factory=dict)
    listeners: list[ScoreboardListener] = field(default_factory=list)

    def _tell(self, event: str, **data: Any) -> None:
        for listener in self.listeners:
            listener.scoreboard_changed(event, **data)

    # -- objectives and scores ------------------------------------------------------------------------
    def score(self, holder: str, objective: str) -> int | None:
        return self.scores.get((holder, objective))

    def holders(self) -> list[str]:
        """Every holder with at least one score, in first-score order."""
        seen: dict[str, None] = {}
        for holder, _ in self.scores:
            seen.setdefault(holder, None)
        return list(seen)

    def add_objective(self, obj: Objective) -> None:
        self.objectives[obj.name] = obj
        self._tell("objective_added", objective=obj)

    def objective_changed(self, obj: Objective) -> None:
        """``obj``'s display name or render type changed (``onObjectiveChanged``)."""
        self._tell("objective_changed", objective=obj)

    def remove_objective(self, name: str) -> None:
        """``Scoreboard.removeObjective``: its display slots are cleared first, then its scores go."""
        obj = self.objectives.get(name)
        for slot in [s for s, o in self.display.items() if o == name]:
            self.set_display(slot, None)
        self.objectives.pop(name, None)
        for key in [k for k in self.scores if k[1] == name]:
            del self.scores[key]
        if obj is not None:
            self._tell("objective_removed", objective=obj)

    def set_score(self, holder: str, objective: str, value: int) -> None:
        self.scores[(holder, objective)] = value
        self._tell("score_changed", holder=holder, objective=objective, value=value)

    def reset_score(self, holder: str, objective: str | None) -> None:
        """``Scoreboard.resetPlayerScore``: one objective's score of ``holder``, or all of them (``None``)."""
        keys = [k for k in self.scores if k[0] == holder and (objective is None or k[1] == objective)]
        for key in keys:
            del self.scores[key]
        if keys or objective is None:
            self._tell("score_reset", holder=holder, objective=objective)

    def set_display(self, slot: int, objective: str | None) -> None:
        """``Scoreboard.setDisplayObjective``."""
        previous = self.display.get(slot)
        if objective is None:
            self.display.pop(slot, None)
        else:
            self.display[slot] = objective
        self._tell("display_set", slot=slot, objective=objective, previous=previous)

    def slots_of(self, objective: str) -> list[int]:
        """The display slots showing ``objective``."""
        return [s for s, o in self.display.items() if o == objective]

    # -- teams ----------------------------------------------------------------------------------------
    def team_of(self, member: str) -> PlayerTeam | None:
        """``Scoreboard.getPlayersTeam``."""
        name = self.member_team.get(member)
        return self.teams.get(name) if name is not None else None

    def add_team(self, name: str, display_name: Component) -> PlayerTeam:
        team = PlayerTeam(name, display_name)
        self.teams[name] = team
        self._tell("team_added", team=team)
        return team

    def team_changed(self, team: PlayerTeam) -> None:
        """An option, affix, colour or display name of ``team`` changed (``onTeamChanged``)."""
        self._tell("team_changed", team=team)

    def remove_team(self, team: PlayerTeam) -> None:
        """``Scoreboard.removePlayerTeam``: the members leave with it."""
        del self.teams[team.name]
        for member in team.members:
            self.member_team.pop(member, None)
        self._tell("team_removed", team=team)

    def join(self, member: str, team: PlayerTeam) -> None:
        """``Scoreboard.addPlayerToTeam``: a member of a team (this one too) leaves it first."""
        if self.team_of(member) is not None:
            self.leave(member)
        team.members.append(member)
        self.member_team[member] = team.name
        self._tell("member_joined", team=team, member=member)

    def leave(self, member: str) -> bool:
        """``Scoreboard.removePlayerFromTeam(member)``: False when ``member`` was on no team."""
        team = self.team_of(member)
        if team is None:
            return False
        team.members.remove(member)
        del self.member_team[member]
        self._tell("member_left", team=team, member=member)
        return True
