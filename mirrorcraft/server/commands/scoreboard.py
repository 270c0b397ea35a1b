"""Scoreboard storage for ``scoreboard objectives`` / ``scoreboard players`` (in memory, per server run).

Why here and not in the host: scores are plain data that only commands read and write in MirrorCraft, so
keeping them next to the executor spares every host from implementing them. Holders are player names or
entity UUID strings, as vanilla keys them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.components import Component


@dataclass
class Objective:
    name: str
    criterion: str
    display_name: str

    @property
    def formatted(self) -> Component:
        """``Objective.getFormattedDisplayName``: the display name in square brackets, the objective's name
        on hover (display names keep only their text: a styled display name loses its style)."""
        hover = {"action": "show_text", "contents": C.text(self.name)}
        return C.square_brackets(C.text(self.display_name, hoverEvent=hover))


@dataclass
class Scoreboard:
    """Objectives in creation order and ``(holder, objective) -> score``."""

    objectives: dict[str, Objective] = field(default_factory=dict)
    scores: dict[tuple[str, str], int] = field(default_factory=dict)

    def score(self, holder: str, objective: str) -> int | None:
        return self.scores.get((holder, objective))

    def holders(self) -> list[str]:
        """Every holder with at least one score, in first-score order."""
        seen: dict[str, None] = {}
        for holder, _ in self.scores:
            seen.setdefault(holder, None)
        return list(seen)

    def remove_objective(self, name: str) -> None:
        self.objectives.pop(name, None)
        for key in [k for k in self.scores if k[1] == name]:
            del self.scores[key]
