"""The scoreboard as a client sees it: objectives, scores, the display slots (the sidebar) and teams.

Why a module of its own: the team scenarios show their score on the sidebar (``/scoreboard objectives
setdisplay sidebar``), and team play needs to know who is on which team. Vanilla clients learn both from
``scoreboard_objective`` (create / remove / update), ``scoreboard_score`` (set / remove a holder's score),
``scoreboard_display_objective`` (slot 0 list, 1 sidebar, 2 below name, 3..18 the team-coloured sidebars)
and ``teams`` (create / remove / update / add / remove members); this module keeps exactly that state.

The sidebar is shown as vanilla's ``Gui.displayScoreboardSidebar`` orders it: highest score first, ties by
holder name, at most 15 lines. The team-coloured sidebar (slot ``3 + colour``) wins over the plain sidebar
for a player on a coloured team, as in vanilla ``Gui.render``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.mcproto_body.connection import Connection

SIDEBAR = 1
TEAM_SIDEBAR_BASE = 3
SIDEBAR_LINES = 15


def _plain(raw: str | None) -> str:
    from mirrorcraft.mcproto_body.chat import flatten

    if raw is None:
        return ""
    try:
        return flatten(json.loads(raw))
    except ValueError:
        return raw


@dataclass
class Objective:
    """One objective: its name, shown title, render type (0 integer, 1 hearts) and scores by holder."""

    name: str
    title: str
    render_type: int = 0
    scores: dict[str, int] = field(default_factory=dict)


@dataclass
class Team:
    """One team as the ``teams`` packets describe it (names as plain text)."""

    name: str
    display_name: str = ""
    color: int = 21
    prefix: str = ""
    suffix: str = ""
    friendly_fire: bool = True
    members: set[str] = field(default_factory=set)


class Scoreboard:
    """Objectives, scores, display slots and teams from the server's packets."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.objectives: dict[str, Objective] = {}
        self.slots: dict[int, str] = {}
        self.teams: dict[str, Team] = {}
        self._pending: dict[str, dict[str, int]] = {}  # scores sent before their objective
        conn.on_reset(self.clear)
        conn.on("scoreboard_objective", self._on_objective)
        conn.on("scoreboard_score", self._on_score)
        conn.on("scoreboard_display_objective", self._on_display)
        conn.on("teams", self._on_teams)

    def clear(self) -> None:
        self.objectives.clear()
        self.slots.clear()
        self.teams.clear()
        self._pending.clear()

    # ------------------------------------------------------------------------------------------ queries
    def team_of(self, member: str) -> Team | None:
        """The team ``member`` (a player name) is on, else ``None``."""
        return next((t for t in self.teams.values() if member in t.members), None)

    def sidebar_objective(self, player: str | None = None) -> Objective | None:
        """The objective on the sidebar ``player`` sees (the team-coloured slot first), else ``None``."""
        team = self.team_of(player) if player is not None else None
        if team is not None and 0 <= team.color <= 15:
            name = self.slots.get(TEAM_SIDEBAR_BASE + team.color)
            if name in self.objectives:
                return self.objectives[name]
        name = self.slots.get(SIDEBAR)
        return self.objectives.get(name) if name is not None else None

    def sidebar(self, player: str | None = None) -> tuple[str, list[tuple[str, int]]] | None:
        """``(title, [(holder, score)...])`` of the shown sidebar, in vanilla's order; ``None`` if none."""
        obj = self.sidebar_objective(player)
        if obj is None:
            return None
        rows = sorted(obj.scores.items(), key=lambda kv: (-kv[1], kv[0]))[:SIDEBAR_LINES]
        return obj.title, rows

    # ----------------------------------------------------------------------------------------- handlers
    def _on_objective(self, pkt: Any) -> None:
        if pkt.mode == 1:
            self.objectives.pop(pkt.name, None)
            return
        obj = self.objectives.get(pkt.name)
        if obj is None:
            obj = self.objectives[pkt.name] = Objective(pkt.name, _plain(pkt.display_text), pkt.type or 0)
            obj.scores.update(self._pending.pop(pkt.name, {}))
        else:
            obj.title, obj.render_type = _plain(pkt.display_text), pkt.type or 0

    def _on_score(self, pkt: Any) -> None:
        if pkt.action == 1:
            if pkt.score_name:
                obj = self.objectives.get(pkt.score_name)
                if obj is not None:
                    obj.scores.pop(pkt.item_name, None)
            else:  # an empty objective name removes the holder from every objective
                for obj in self.objectives.values():
                    obj.scores.pop(pkt.item_name, None)
            return
        obj = self.objectives.get(pkt.score_name)
        if obj is None:
            self._pending.setdefault(pkt.score_name, {})[pkt.item_name] = int(pkt.value or 0)
        else:
            obj.scores[pkt.item_name] = int(pkt.value or 0)

    def _on_display(self, pkt: Any) -> None:
        if pkt.name:
            self.slots[pkt.position] = pkt.name
        else:
            self.slots.pop(pkt.position, None)

    def _on_teams(self, pkt: Any) -> None:
        if pkt.mode == 1:
            self.teams.pop(pkt.team, None)
            return
        team = self.teams.setdefault(pkt.team, Team(pkt.team))
        if pkt.mode in (0, 2):
            team.display_name = _plain(pkt.display_name)
            team.friendly_fire = bool((pkt.flags or 0) & 0x01)
            team.color = 21 if pkt.color is None else pkt.color
            team.prefix, team.suffix = _plain(pkt.prefix), _plain(pkt.suffix)
        if pkt.mode in (0, 3):
            team.members.update(pkt.entities or [])
        elif pkt.mode == 4:
            team.members.difference_update(pkt.entities or [])
