"""The team observation builder: the door between the game and a team system's player (PillagerBench).

:class:`TeamObservationBuilder` is the MirrorCraft :class:`~mirrorcraft.skills.observe.ObservationBuilder`
for the player part (the same position, inventory, equipment, survival, nearby blocks / entities / items,
latest result, effects and failure constraints, built the same way) plus the team part of the
:class:`~mirrorcraft.contracts.TeamObservation`: side and team mate (given by the episode), the sidebar as the
body's scoreboard module holds it (``body.scoreboard.sidebar(player)``: the objective the server's packets put
on this player's sidebar, in vanilla's order), and the recent chat the body's chat module received (players'
chat to all and the player's team chat; system lines are not chat). Each chat line is stamped on arrival with
the episode's game second (``clock``). The time left is shown only when the episode passes one (the system's
``show_time_left`` setting, :func:`~mirrorcraft.contracts.team_observation.shows_time_left`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from mirrorcraft.contracts import DEFAULT_BOUNDS, SKILL_NAMES, ObservationBounds
from mirrorcraft.contracts.team_observation import (
    MAX_CHAT_LINES,
    ChatView,
    Sidebar,
    SidebarScore,
    TeamObservation,
    serialize_team_observation,
)
from mirrorcraft.skills.observe import ActionHistory, ObservationBuilder

#: Chat kinds of the body's chat module → the observation's channel (``system`` lines are left out).
CHANNELS = {"chat": "all", "emote": "all", "announcement": "all", "team": "team", "team_sent": "team"}


class TeamObservationBuilder(ObservationBuilder):
    """Builds one team player's observations from its body (module docstring).

    Args:
        body: The player's body (connected).
        side: The player's side; ``teammate``: its team mate's name.
        clock: Game seconds since the episode started (stamps each chat line as it arrives).
        skills: The skills offered (a team setting: every skill of the contracts).
    """

    def __init__(
        self,
        body: Any,
        side: str,
        teammate: str,
        clock: Callable[[], float],
        *,
        skills: tuple[str, ...] = SKILL_NAMES,
        bounds: ObservationBounds = DEFAULT_BOUNDS,
        tick_quantum: int = 0,
    ) -> None:
        super().__init__(body, task=None, bounds=bounds, tick_quantum=tick_quantum)  # type: ignore[arg-type]
        self.player = body.config.username
        self.side = side
        self.teammate = teammate
        self.skills = skills
        self.clock = clock
        self.chat: deque[ChatView] = deque(maxlen=MAX_CHAT_LINES)
        self._stop = body.chat.on_line(self._on_line)

    def close(self) -> None:
        """Stop listening to the body's chat."""
        self._stop()

    def _on_line(self, line: Any) -> None:
        channel = CHANNELS.get(line.kind)
        if channel is None or not line.sender:
            return
        self.chat.append(ChatView(t=int(self.clock()), sender=line.sender, channel=channel, text=line.text))

    def sidebar(self) -> Sidebar | None:
        """The sidebar this player's client shows, from the body's scoreboard module."""
        shown = self.body.scoreboard.sidebar(self.player)
        if shown is None:
            return None
        title, rows = shown
        return Sidebar(title=title, scores=[SidebarScore(holder=h, score=s) for h, s in rows])

    def build_team(self, history: ActionHistory, time_left: float | None = None) -> TeamObservation:
        """The observation of the body's state after ``history`` (``time_left`` only when the setting shows it).

        Raises:
            ContractError: the body has no position yet.
        """
        return TeamObservation(
            player=self.player,
            side=self.side,
            teammate=self.teammate,
            skills=list(self.skills),
            sidebar=self.sidebar(),
            chat=list(self.chat),
            time_left_s=None if time_left is None else max(0.0, round(time_left, 1)),
            **self.player_part(history, "team observation"),
        )

    def serialize_team(self, history: ActionHistory, time_left: float | None = None) -> bytes:
        """Canonical bytes of :meth:`build_team` (leaks refused)."""
        return serialize_team_observation(self.build_team(history, time_left), self.bounds)


__all__ = ["CHANNELS", "TeamObservationBuilder"]
