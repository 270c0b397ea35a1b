"""Experience levels and points: vanilla 1.19.2's two formulas, in one place for the server's features.

Why here: the server needs both when it sets a player's level (``set_experience`` sends the total points of
the level) and when it adds points (the bar fills by ``xp_needed``); two copies of each had grown in the
server. Both are Java code (``Player.getXpNeededForNextLevel``), not datapack data.
"""

from __future__ import annotations

__all__ = ["total_xp", "xp_needed"]


def total_xp(level: int) -> int:
    """Total experience points at the start of ``level`` (Minecraft Wiki "Experience", Java Edition).

    ``level² + 6 level`` up to 16, ``2.5 level² - 40.5 level + 360`` up to 31, else
    ``4.5 level² - 162.5 level + 2220``; the sum of :func:`xp_needed` over the levels below.
    """
    if level <= 16:
        return level * level + 6 * level
    if level <= 31:
        return int(2.5 * level * level - 40.5 * level + 360)
    return int(4.5 * level * level - 162.5 * level + 2220)


def xp_needed(level: int) -> int:
    """Points from ``level`` to the next (vanilla ``Player.getXpNeededForNextLevel``)."""
    if level >= 30:
        return 112 + (level - 30) * 9
    return 37 + (level - 15) * 5 if level >= 15 else 7 + level * 2
