"""Why no walk reaches a target, and which escape would: the reason a failed approach names.

A walking skill keeps to walking (walk, jump one, drop up to three, swim, climb out of water onto a bank)
plus one obstruction (the paper's action rules); it does not tower or dig a staircase on its own. When
that is not enough, the call fails at once and says which escape skill would get the player there, so an
agent (and the scripted policy) can spend its next action on it:

* the target is 2 or more blocks above anything walkable → ``dig_up`` or ``pillar_up``;
* it is more than 3 blocks below (a drop the body will not take) → ``dig_down``;
* otherwise the way is shut sideways (a wall, a gap) → ``tunnel`` in the compass direction of the target.

:func:`way_out` compares the best cell a walk reaches (:func:`~mirrorcraft.pathing.astar.flood`) with the
target's standing cell. Pure and unit-tested on synthetic grids (tests/pathing/test_wayout.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from mirrorcraft.pathing.astar import Cell

#: Height a walk cannot climb (one block is a jump) and depth it will not drop (vanilla fall damage starts
#: above 3 blocks: wiki "Damage#Fall damage").
CLIMB_LIMIT = 2
DROP_LIMIT = 4


def compass(dx: float, dz: float) -> str:
    """The compass name of a horizontal offset (its dominant axis; north is -z, as in the game)."""
    if abs(dx) >= abs(dz):
        return "east" if dx > 0 else "west"
    return "south" if dz > 0 else "north"


@dataclass(frozen=True)
class WayOut:
    """Which escape gets from the best walkable cell to a target.

    Attributes:
        kind: ``up`` (dig_up / pillar_up), ``down`` (dig_down) or ``across`` (tunnel).
        dy: Target height minus the best walkable height.
        target_y: The target's standing height (what ``dig_up`` / ``dig_down`` should aim at).
        direction: Compass direction from the best walkable cell to the target.
        distance: Horizontal blocks between them.
    """

    kind: Literal["up", "down", "across"]
    dy: int
    target_y: int
    direction: str
    distance: int

    @property
    def escapes(self) -> tuple[str, ...]:
        """The skills that would make the way (best first)."""
        return {"up": ("dig_up", "pillar_up"), "down": ("dig_down",), "across": ("tunnel",)}[self.kind]

    def text(self, what: str = "target") -> str:
        """E.g. ``"target 6 blocks up (y=65); try dig_up or pillar_up"``."""
        if self.kind == "up":
            return f"{what} {self.dy} blocks up (y={self.target_y}); try dig_up or pillar_up"
        if self.kind == "down":
            return f"{what} {-self.dy} blocks down (y={self.target_y}); try dig_down"
        return f"{what} {self.distance} blocks {self.direction}, the way is shut; try tunnel {self.direction}"


def way_out(reachable: dict[Cell, float] | list[Cell], target: Cell, feet: Cell | None = None) -> WayOut:
    """The escape from the walkable cells ``reachable`` (a :func:`flood` result or a list) to ``target``.

    The best walkable cell is the one nearest the target horizontally, then in height; from there the
    height difference decides between up, down and across. With ``feet`` (where the player stands, the
    start of the escape), a way up or down that the player already stands at the height of is across
    from the feet: a region reaching lower than the player (a hole) named "4 blocks down (y=68)" to a
    player standing at y=68, and the ``dig_down`` it named had nothing to do.
    """
    way = _way_out(reachable, target)
    if feet is not None and (
        (way.kind == "up" and feet[1] >= way.target_y) or (way.kind == "down" and feet[1] <= way.target_y)
    ):
        tx, ty, tz = target
        dist = round(math.hypot(tx - feet[0], tz - feet[2]))
        direction = compass(tx - feet[0], tz - feet[2]) if dist > 0 else "north"
        return WayOut("across", ty - feet[1], ty, direction, dist)
    return way


def _way_out(reachable: dict[Cell, float] | list[Cell], target: Cell) -> WayOut:
    cells = list(reachable) or [target]
    tx, ty, tz = target
    best = min(cells, key=lambda c: (math.hypot(c[0] - tx, c[2] - tz), abs(c[1] - ty), c))
    # when the nearest cell horizontally is far below or above, prefer the one at the target's height if it
    # is as near in 3D: a ledge beside the target is "across", not "up"
    best3 = min(cells, key=lambda c: (math.dist(c, target), c))
    if math.dist(best3, target) + 0.5 < math.dist(best, target):
        best = best3
    dy = ty - best[1]
    dist = round(math.hypot(tx - best[0], tz - best[2]))
    direction = compass(tx - best[0], tz - best[2]) if dist > 0 else "up"
    if dy >= CLIMB_LIMIT:
        return WayOut("up", dy, ty, direction, dist)
    if dy <= -DROP_LIMIT:
        return WayOut("down", dy, ty, direction, dist)
    if dist == 0:
        direction = "north"
    return WayOut("across", dy, ty, direction, dist)


__all__ = ["CLIMB_LIMIT", "DROP_LIMIT", "WayOut", "compass", "way_out"]
