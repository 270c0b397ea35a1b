"""The scoreboard on the clients: teams, the sidebar and the other display slots, and the players' team names.

Why a feature: the ``team`` and ``scoreboard`` commands change the one
:class:`~mirrorcraft.server.commands.scoreboard.Scoreboard` of the game (this module owns it and hands it to the
command executor); what every client must be told of each change is vanilla's ``ServerScoreboard``, which
this follows:

* teams are always broadcast: ``teams`` mode 0 when a team is added (its info and members), 2 when an option,
  affix, colour or display name changes, 1 when it is removed, 3 / 4 when a member joins / leaves;
* an objective reaches the clients only while a display slot shows it (``trackedObjectives``): the first slot
  to show it sends ``scoreboard_objective`` mode 0, ``display_scoreboard`` for every slot showing it and
  every score (``update_score``); the last slot to stop showing it sends mode 1; a score change is sent only
  for a shown objective; ``scoreboard players reset <holder>`` (all objectives) is always sent;
* a joining player gets every team (mode 0), then every shown objective's packets
  (``PlayerList.updateEntireScoreboard``).

:meth:`Teams.display_name` is ``Player.getDisplayName`` with the team's prefix, suffix and colour (the chat
feature uses it for chat lines); :meth:`Teams.team_of` is what PvP asks for friendly fire.
"""

from __future__ import annotations

from typing import Any

from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.scoreboard import (
    COLOR_IDS,
    DISPLAY_SLOTS,
    PlayerTeam,
    Scoreboard,
    team_player_name,
)
from mirrorcraft.server.kernel import Behaviour, Kernel, Player


class Teams:
    """The game's scoreboard and its packets (the ``"joined"`` after-hook sends the whole scoreboard)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.scoreboard = Scoreboard()
        self.scoreboard.listeners.append(self)
        self._tracked: set[str] = set()
        kernel.events.after("joined", self._joined)

    # ---- for other features ------------------------------------------------------------------------------
    def team_of(self, p: Player) -> PlayerTeam | None:
        """``p``'s team (``Entity.getTeam``: by the scoreboard name, the player name)."""
        return self.scoreboard.team_of(p.display_name)

    def display_name(self, p: Player) -> C.Component:
        """``Player.getDisplayName``: the name in the team's formatting, with the ``/tell`` click and hover."""
        return team_player_name(p.display_name, str(p.uuid), self.team_of(p))

    # ---- packets -------------------------------------------------------------------------------------------
    @staticmethod
    def _team_packet(team: PlayerTeam, mode: int, entities: list[str] | None = None) -> bytes:
        return wire.teams(
            team.name,
            mode,
            display_name=team.display_name,
            flags=team.flags,
            name_tag_visibility=team.name_tag_visibility,
            collision_rule=team.collision_rule,
            color=COLOR_IDS[team.color],
            prefix=team.prefix,
            suffix=team.suffix,
            entities=team.members if entities is None else entities,
        )

    def _start_packets(self, objective: str) -> list[tuple[str, bytes]]:
        """``ServerScoreboard.getStartTrackingPackets``."""
        sb = self.scoreboard
        obj = sb.objectives[objective]
        hearts = obj.render_type == "hearts"
        out = [
            ("scoreboard_objective", wire.scoreboard_objective(obj.name, 0, obj.display_component, hearts))
        ]
        out += [
            ("display_scoreboard", wire.display_scoreboard(s, obj.name))
            for s in sorted(sb.slots_of(obj.name))
        ]
        out += [
            ("update_score", wire.update_score(h, o, v)) for (h, o), v in sb.scores.items() if o == obj.name
        ]
        return out

    def _broadcast(self, packets: list[tuple[str, bytes]]) -> None:
        for name, body in packets:
            self.kernel.broadcast(name, body)

    def scoreboard_changed(self, event: str, **data: Any) -> None:
        """The :class:`~mirrorcraft.server.commands.scoreboard.ScoreboardListener` callback."""
        k = self.kernel
        if event in ("team_added", "team_changed", "team_removed"):
            team: PlayerTeam = data["team"]
            mode = {"team_added": 0, "team_changed": 2, "team_removed": 1}[event]
            k.broadcast("teams", self._team_packet(team, mode))
        elif event in ("member_joined", "member_left"):
            mode = 3 if event == "member_joined" else 4
            k.broadcast("teams", self._team_packet(data["team"], mode, [data["member"]]))
        elif event == "score_changed":
            if data["objective"] in self._tracked:
                k.broadcast(
                    "update_score", wire.update_score(data["holder"], data["objective"], data["value"])
                )
        elif event == "score_reset":
            objective = data["objective"]
            if objective is None or objective in self._tracked:
                k.broadcast("update_score", wire.remove_score(data["holder"], objective))
        elif event == "display_set":
            self._display_set(data["slot"], data["objective"], data["previous"])
        elif event == "objective_changed" and data["objective"].name in self._tracked:
            obj = data["objective"]
            body = wire.scoreboard_objective(obj.name, 2, obj.display_component, obj.render_type == "hearts")
            k.broadcast("scoreboard_objective", body)
        elif event == "objective_removed" and data["objective"].name in self._tracked:
            self._tracked.discard(data["objective"].name)
            k.broadcast("scoreboard_objective", wire.scoreboard_objective(data["objective"].name, 1))

    def _display_set(self, slot: int, objective: str | None, previous: str | None) -> None:
        """``ServerScoreboard.setDisplayObjective``."""
        k, sb = self.kernel, self.scoreboard
        if previous is not None and previous != objective:
            if sb.slots_of(previous):
                k.broadcast("display_scoreboard", wire.display_scoreboard(slot, objective))
            else:
                self._tracked.discard(previous)
                k.broadcast("scoreboard_objective", wire.scoreboard_objective(previous, 1))
        if objective is not None:
            if objective in self._tracked:
                k.broadcast("display_scoreboard", wire.display_scoreboard(slot, objective))
            else:
                self._tracked.add(objective)
                self._broadcast(self._start_packets(objective))

    def _joined(self, b: Behaviour) -> None:
        """``PlayerList.updateEntireScoreboard``: every team, then each shown objective once."""
        p = b.player
        for team in self.scoreboard.teams.values():
            p.send("teams", self._team_packet(team, 0))
        sent: set[str] = set()
        for slot in range(len(DISPLAY_SLOTS)):
            objective = self.scoreboard.display.get(slot)
            if objective is not None and objective not in sent:
                sent.add(objective)
                for name, body in self._start_packets(objective):
                    p.send(name, body)
