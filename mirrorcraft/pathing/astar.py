"""A* over a :class:`~mirrorcraft.pathing.grid.PathGrid`: walk, jump up one, drop up to three, swim, dig.

A node is the block cell holding the player's feet. It is *valid* when feet and head cells are free (air
or water) and the player is supported: a solid (not tall) block below, or water at the feet (swimming).
Moves from a node, in the 4 cardinal directions (and diagonals when both corner cells are free):

* walk — same level, cost 1 (√2 diagonally), ×2 in water;
* jump up — one block up onto a solid block, needs head room above the start, cost 2;
* drop — walk off an edge and fall 1..3 blocks onto solid ground or into water, cost 1 + 0.5 per block;
* swim — straight up or down in water, cost 1.5 (up out of water onto a bank is a jump-up move);
* dig (optional, ``dig_cost > 0``) — walk or jump into cells that are solid but breakable, or step one
  block down a staircase (clearing head, feet and the cell below, onto solid ground), paying
  ``dig_cost × (1 + hardness)`` per block to break; the step lists the blocks to break, top first. A
  block beside or under a liquid (or an unknown / dangerous cell) is never dug: the liquid would flood
  the tunnel, as mineflayer-pathfinder also refuses.

The heuristic (octile distance in x/z plus half the height difference) never overestimates these costs,
so paths are optimal within the search bounds. The search is bounded by ``max_nodes`` and ``max_seconds``;
when a bound is hit it returns the explored node closest to the goal (``status="partial"``).
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Literal

from mirrorcraft.pathing.grid import AIR, SOLID, WATER, PathGrid

Cell = tuple[int, int, int]
FREE = (AIR, WATER)
CARDINAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
SQRT2 = math.sqrt(2.0)


@dataclass(frozen=True)
class Goal:
    """Where to go: within ``radius`` (Euclidean, in blocks) of ``pos``; ``y=None`` ignores height."""

    x: int
    y: int | None
    z: int
    radius: float = 0.0

    def reached(self, c: Cell) -> bool:
        """Whether cell ``c`` satisfies the goal."""
        dy = 0 if self.y is None else c[1] - self.y
        return (c[0] - self.x) ** 2 + dy * dy + (c[2] - self.z) ** 2 <= self.radius * self.radius + 1e-9

    def estimate(self, c: Cell) -> float:
        """Admissible cost-to-go estimate."""
        dx, dz = abs(c[0] - self.x), abs(c[2] - self.z)
        oct_ = max(dx, dz) + (SQRT2 - 1) * min(dx, dz)
        dy = 0 if self.y is None else abs(c[1] - self.y)
        return max(0.0, oct_ + 0.5 * dy - self.radius * 1.5)


@dataclass(frozen=True)
class Step:
    """One move: the cell to reach, its kind of move, and the blocks to break first (top first)."""

    cell: Cell
    move: Literal["start", "walk", "jump", "drop", "swim", "dig"]
    dig: tuple[Cell, ...] = ()


@dataclass
class PathResult:
    """Outcome of a search.

    Attributes:
        status: ``found``, ``partial`` (bound hit: path to the closest node seen), ``no_path`` (space
            exhausted), ``invalid_start``.
        steps: The path, starting with the start cell.
        cost: Total cost.
        nodes: Nodes expanded.
        seconds: Search time.
    """

    status: Literal["found", "partial", "no_path", "invalid_start"]
    steps: list[Step] = field(default_factory=list)
    cost: float = 0.0
    nodes: int = 0
    seconds: float = 0.0


def _free(g: PathGrid, x: int, y: int, z: int) -> bool:
    return g.kind(x, y, z) in FREE


def _supported(g: PathGrid, x: int, y: int, z: int) -> bool:
    return g.kind(x, y - 1, z) == SOLID or g.kind(x, y, z) == WATER


def valid(g: PathGrid, c: Cell) -> bool:
    """A player can be at ``c``: feet and head free and supported (ground below or swimming)."""
    x, y, z = c
    return _free(g, x, y, z) and _free(g, x, y + 1, z) and _supported(g, x, y, z)


def _dig_cost(g: PathGrid, cells: list[Cell], dig_cost: float) -> float | None:
    """Cost to clear ``cells`` (None if one is unbreakable, dangerous, or would let a liquid in)."""
    total = 0.0
    for c in cells:
        k = g.kind(*c)
        if k in FREE:
            continue
        h = g.hard(*c)
        if k != SOLID or math.isinf(h) or dig_cost <= 0:
            return None
        if g.leaky(*c):
            return None
        total += dig_cost * (1.0 + h)
    return total


def neighbours(g: PathGrid, c: Cell, dig_cost: float = 0.0) -> list[tuple[Cell, float, Step]]:
    """Moves from valid cell ``c``: ``(next cell, cost, step)``."""
    x, y, z = c
    out: list[tuple[Cell, float, Step]] = []
    in_water = g.kind(x, y, z) == WATER
    wmul = 2.0 if in_water else 1.0
    for dx, dz in CARDINAL:
        nx, nz = x + dx, z + dz
        # walk (or dig through) at the same level
        if valid(g, (nx, y, nz)):
            w = 2.0 if g.kind(nx, y, nz) == WATER else wmul
            out.append(((nx, y, nz), w, Step((nx, y, nz), "walk")))
        elif _supported(g, nx, y, nz) or g.kind(nx, y - 1, nz) == SOLID:
            cost = _dig_cost(g, [(nx, y + 1, nz), (nx, y, nz)], dig_cost) if dig_cost > 0 else None
            if cost is not None and g.kind(nx, y - 1, nz) == SOLID:
                dig = tuple(p for p in ((nx, y + 1, nz), (nx, y, nz)) if g.kind(*p) not in FREE)
                out.append(((nx, y, nz), 1.0 + cost, Step((nx, y, nz), "dig", dig)))
        # jump up one
        if g.kind(nx, y, nz) == SOLID and _free(g, x, y + 2, z):
            if _free(g, nx, y + 1, nz) and _free(g, nx, y + 2, nz):
                out.append(((nx, y + 1, nz), 2.0, Step((nx, y + 1, nz), "jump")))
            elif dig_cost > 0:
                cost = _dig_cost(g, [(nx, y + 2, nz), (nx, y + 1, nz)], dig_cost)
                if cost is not None:
                    dig = tuple(p for p in ((nx, y + 2, nz), (nx, y + 1, nz)) if g.kind(*p) not in FREE)
                    out.append(((nx, y + 1, nz), 2.0 + cost, Step((nx, y + 1, nz), "dig", dig)))
        # dig one step down a staircase (never straight down: a shaft cannot be walked back up)
        if dig_cost > 0 and g.kind(nx, y - 2, nz) == SOLID and not in_water:
            col = [(nx, y + 1, nz), (nx, y, nz), (nx, y - 1, nz)]
            if any(g.kind(*p) not in FREE for p in col):
                cost = _dig_cost(g, col, dig_cost)
                if cost is not None:
                    dig = tuple(p for p in col if g.kind(*p) not in FREE)
                    out.append(((nx, y - 1, nz), 1.5 + cost, Step((nx, y - 1, nz), "dig", dig)))
        # drop 1..3
        if _free(g, nx, y, nz) and _free(g, nx, y + 1, nz) and not _supported(g, nx, y, nz):
            for k in range(1, 4):
                if not _free(g, nx, y - k, nz):
                    break
                if _supported(g, nx, y - k, nz):
                    out.append(((nx, y - k, nz), 1.0 + 0.5 * k, Step((nx, y - k, nz), "drop")))
                    break
    for dx, dz in DIAGONAL:
        nx, nz = x + dx, z + dz
        if (
            valid(g, (nx, y, nz))
            and _free(g, nx, y, z) and _free(g, nx, y + 1, z)
            and _free(g, x, y, nz) and _free(g, x, y + 1, nz)
        ):  # fmt: skip
            w = 2.0 if g.kind(nx, y, nz) == WATER else wmul
            out.append(((nx, y, nz), SQRT2 * w, Step((nx, y, nz), "walk")))
    if in_water:
        if _free(g, x, y + 2, z) and valid(g, (x, y + 1, z)):
            out.append(((x, y + 1, z), 1.5, Step((x, y + 1, z), "swim")))
        if g.kind(x, y - 1, z) == WATER:
            out.append(((x, y - 1, z), 1.5, Step((x, y - 1, z), "swim")))
    return out


def find_path(
    g: PathGrid,
    start: Cell,
    goal: Goal,
    *,
    dig_cost: float = 0.0,
    max_nodes: int = 50_000,
    max_seconds: float = 2.0,
) -> PathResult:
    """Plan from ``start`` to ``goal``.

    Args:
        g: The grid.
        start: Start cell (the player's feet block).
        goal: Target.
        dig_cost: Cost factor for breaking blocks; 0 disables digging.
        max_nodes / max_seconds: Search bounds.

    Returns:
        A :class:`PathResult`.
    """
    t0 = time.perf_counter()
    if not (_free(g, *start) and _free(g, start[0], start[1] + 1, start[2])):
        return PathResult("invalid_start", seconds=time.perf_counter() - t0)
    best_g: dict[Cell, float] = {start: 0.0}
    came: dict[Cell, tuple[Cell, Step]] = {}
    tie = 0
    heap: list[tuple[float, int, Cell]] = [(goal.estimate(start), tie, start)]
    closest, closest_h = start, goal.estimate(start)
    nodes = 0
    status: Literal["found", "partial", "no_path"] = "no_path"
    end = start
    while heap:
        _, _, cur = heapq.heappop(heap)
        gc = best_g[cur]
        if goal.reached(cur):
            status, end = "found", cur
            break
        nodes += 1
        if nodes > max_nodes or (nodes & 255 == 0 and time.perf_counter() - t0 > max_seconds):
            status, end = "partial", closest
            break
        for nxt, cost, step in neighbours(g, cur, dig_cost):
            ng = gc + cost
            if ng < best_g.get(nxt, math.inf) - 1e-12:
                best_g[nxt] = ng
                came[nxt] = (cur, step)
                h = goal.estimate(nxt)
                if h < closest_h:
                    closest, closest_h = nxt, h
                tie += 1
                heapq.heappush(heap, (ng + h, tie, nxt))
    else:
        end = closest
        status = "no_path"
    steps: list[Step] = []
    c = end
    while c in came:
        prev, step = came[c]
        steps.append(step)
        c = prev
    steps.append(Step(start, "start"))
    steps.reverse()
    if status == "no_path" and end == start:
        steps = [Step(start, "start")]
    return PathResult(status, steps, best_g.get(end, 0.0), nodes, time.perf_counter() - t0)
