"""Experience: each player's level and progress bar, and the ``set_experience`` packet.

Vanilla formulas (Minecraft Wiki "Experience", Java; ``Player.giveExperiencePoints``,
``giveExperienceLevels``; the level formulas ``total_xp``/``xp_needed`` are
:mod:`mirrorcraft.rules.experience`). Players start at the benchmark controls' level (``controls.xp_level``);
points come from furnace takes (the furnaces feature) and commands, levels are spent by enchanting. No experience orbs are spawned: points are given directly (documented partial).
State is kept by player name (a reconnect keeps it; a death resets it unless ``keepInventory``).
"""

from __future__ import annotations

from dataclasses import dataclass

from mirrorcraft.rules.experience import total_xp, xp_needed
from mirrorcraft.server import wire
from mirrorcraft.server.kernel import Kernel, Player


@dataclass
class Xp:
    """One player's experience: ``level`` and ``progress`` (fraction of the bar)."""

    level: int
    progress: float = 0.0

    def add_levels(self, levels: int) -> None:
        """Vanilla ``Player.giveExperienceLevels``: below zero resets level and progress."""
        self.level += levels
        if self.level < 0:
            self.level, self.progress = 0, 0.0


class Experience:
    """Experience of every player."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.players: dict[str, Xp] = {}
        kernel.events.after("forget", lambda b: self.players.pop(b["who"], None))  # Join: bounded
        kernel.events.after("joined", lambda b: self.send(b.player))

    def state(self, p: Player) -> Xp:
        """Experience of ``p`` (created at the controls' level on first use)."""
        st = self.players.get(p.display_name)
        if st is None:
            st = self.players[p.display_name] = Xp(level=self.kernel.config.controls.xp_level)
        return st

    def send(self, p: Player) -> None:
        """Send ``p``'s bar, level and total points."""
        st = self.state(p)
        total = total_xp(st.level) + int(st.progress * xp_needed(st.level))
        p.send("set_experience", wire.experience(st.progress, st.level, total))

    def add_points(self, p: Player, points: int) -> None:
        """Give experience points (vanilla ``giveExperiencePoints`` for a gain; no orbs) and send the bar."""
        st = self.state(p)
        st.progress += points / xp_needed(st.level)
        while st.progress >= 1.0:
            st.progress = (st.progress - 1.0) * xp_needed(st.level)
            st.level += 1
            st.progress /= xp_needed(st.level)
        self.send(p)

    def give_points(self, p: Player, amount: int) -> None:
        """``experience add <points>``: vanilla ``Player.giveExperiencePoints``, negative amounts included."""
        st = self.state(p)
        st.progress += amount / xp_needed(st.level)
        while st.progress < 0.0:
            rest = st.progress * xp_needed(st.level)
            if st.level > 0:
                st.add_levels(-1)
                st.progress = 1.0 + rest / xp_needed(st.level)
            else:
                st.add_levels(-1)
                st.progress = 0.0
        while st.progress >= 1.0:
            st.progress = (st.progress - 1.0) * xp_needed(st.level)
            st.add_levels(1)
            st.progress /= xp_needed(st.level)
        self.send(p)

    def points_in_level(self, p: Player) -> int:
        """Points into the current level (``experience query <player> points``)."""
        st = self.state(p)
        return int(st.progress * xp_needed(st.level))

    def set_points(self, p: Player, amount: int) -> bool:
        """``experience set <points>``: False when the points exceed the level's need (nothing changes)."""
        st = self.state(p)
        if amount >= xp_needed(st.level):
            return False
        st.progress = amount / xp_needed(st.level)
        self.send(p)
        return True

    def reset(self, p: Player) -> None:
        """Level 0, empty bar (a death without ``keepInventory``), and send it."""
        st = self.state(p)
        st.level, st.progress = 0, 0.0
        self.send(p)
