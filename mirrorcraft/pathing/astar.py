"""A* over a :class:`~mirrorcraft.pathing.grid.PathGrid`: walk, jump up one, drop up to three, swim, dig.

A node is the block cell holding the player's feet. It is *valid* when feet and head cells are free (air
or water) and the player is supported: a solid (not tall) block below, or water at the feet (swimming).
Moves from a node, in the 4 cardinal directions (and diagonals when both corner cells are free):

* walk — same level, cost 1 (√2 diagonally), ×2 in water; a move into a sweet berry bush (feet or head) costs
  ``grid.ENTER_COST`` more (0.25 for the slowdown, 8 for a bush that hurts): through one when there is no
  other way, round it when there is;
* jump up — one block up onto a solid block, needs head room above the start, cost 2 (also the way out of
  water onto a bank one block above the surface);
* drop — walk off an edge and fall 1..3 blocks onto solid ground or into water, cost 1 + 0.5 per block
  (vanilla deals fall damage from a fall of more than 3 blocks: wiki "Damage#Fall damage");
* swim — straight up or down in water, cost 1.5;
* dig (optional, ``dig_cost > 0``) — walk or jump into cells that are solid but breakable, or step one
  block down a staircase (clearing head, feet and the cell below, onto solid ground), paying
  ``dig_cost × (1 + hardness)`` per block to break; the step lists the blocks to break, top first. A
  block beside or under a liquid (or an unknown / dangerous cell) is never dug: the liquid would flood
  the tunnel, as mineflayer-pathfinder also refuses.

The heuristic (octile distance in x/z plus half the height difference, less what the goal's radius can
save) never overestimates these costs, so paths are optimal within the search bounds. Among nodes of equal
estimated total, the one nearer the goal is expanded first: on open ground that follows a straight line
instead of flooding the band of equally good paths (the 64-block benchmark plan: 757 nodes → see
docs/performance.md). The search is bounded by ``max_nodes`` and ``max_seconds``; when a bound is hit it
returns the explored node closest to the goal (``status="partial"``). ``max_seconds=None`` drops the
wall-clock bound: the search is then bounded by node expansions alone, so the same grid gives the same plan
on any machine under any load. A body in lockstep plans that way (:func:`search_seconds`): a plan cut by
wall time on a slower machine would be a different episode (issue 23).

The inner loop works on the grid's padded flat bytes (:meth:`PathGrid.flat`): a node is an integer index,
a move an index offset, and the BLOCKED border makes bounds checks unnecessary.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Literal

from mirrorcraft.pathing.grid import AIR, BUSH, ENTER_COST, SOLID, THORNS, WATER, PathGrid

Cell = tuple[int, int, int]
FREE = (AIR, WATER, BUSH, THORNS)
CARDINAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
SQRT2 = math.sqrt(2.0)
#: Octile distance over Euclidean distance is at most this (at 22.5°): a goal radius ``r`` saves at most
#: ``r × OCTILE_OVER_EUCLID`` of octile distance, so subtracting that keeps the estimate admissible.
OCTILE_OVER_EUCLID = math.sqrt(4.0 - 2.0 * SQRT2)

_FREE_T = bytes(1 if k in FREE else 0 for k in range(256))
_ENTER_T = tuple(ENTER_COST[k] if k < len(ENTER_COST) else 0.0 for k in range(256))
Move = Literal["start", "walk", "jump", "drop", "swim", "dig"]
_MOVES: tuple[Move, ...] = ("start", "walk", "jump", "drop", "swim", "dig")
_WALK, _JUMP, _DROP, _SWIM, _DIG = 1, 2, 3, 4, 5


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
        return max(0.0, oct_ + 0.5 * dy - self.radius * self.saving)

    @property
    def saving(self) -> float:
        """Estimate a unit of radius can save: a cell ``r`` from the centre is at most ``r × OCTILE_OVER_EUCLID``
        closer in octile distance, and with a height goal also ``0.5 × |Δy|`` (together ``r × √(o² + ¼)``)."""
        return OCTILE_OVER_EUCLID if self.y is None else math.sqrt(OCTILE_OVER_EUCLID**2 + 0.25)


@dataclass(frozen=True)
class Step:
    """One move: the cell to reach, its kind of move, and the blocks to break first (top first)."""

    cell: Cell
    move: Move
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
        closest: The explored cell nearest the goal (by the estimate); for ``no_path`` the best one can get.
    """

    status: Literal["found", "partial", "no_path", "invalid_start"]
    steps: list[Step] = field(default_factory=list)
    cost: float = 0.0
    nodes: int = 0
    seconds: float = 0.0
    closest: Cell | None = None


def _free(g: PathGrid, x: int, y: int, z: int) -> bool:
    return g.kind(x, y, z) in FREE


def _supported(g: PathGrid, x: int, y: int, z: int) -> bool:
    return g.kind(x, y - 1, z) == SOLID or g.kind(x, y, z) == WATER


def valid(g: PathGrid, c: Cell) -> bool:
    """A player can be at ``c``: feet and head free and supported (ground below or swimming)."""
    x, y, z = c
    return _free(g, x, y, z) and _free(g, x, y + 1, z) and _supported(g, x, y, z)


def _expand(
    k: bytes, n: int, xs: int, ys: int, dig: float, hard: list[float] | None, leaky: bytes | None
) -> list[tuple[int, float, int, tuple[int, ...]]]:
    """Moves from flat node ``n``: ``(next node, cost, move code, flat cells to dig top first)``."""
    free = _FREE_T
    out: list[tuple[int, float, int, tuple[int, ...]]] = []
    here = k[n]
    in_water = here == WATER
    wmul = 2.0 if in_water else 1.0
    head2 = free[k[n + 2 * ys]]

    def dig_cost(cells: tuple[int, ...]) -> float | None:
        total = 0.0
        for c in cells:
            kc = k[c]
            if free[kc]:
                continue
            if kc != SOLID or leaky[c]:  # type: ignore[index]
                return None
            h = hard[c]  # type: ignore[index]
            if h == math.inf:
                return None
            total += dig * (1.0 + h)
        return total

    for d in (xs, -xs, 1, -1):
        m = n + d
        km, below, above = k[m], k[m - ys], k[m + ys]
        fm, fa = free[km], free[above]
        if fm and fa and (below == SOLID or km == WATER):
            out.append((m, 2.0 if km == WATER else wmul, _WALK, ()))
        elif dig > 0 and below == SOLID:
            cells = (m + ys, m)
            cost = dig_cost(cells)
            if cost is not None:
                out.append((m, 1.0 + cost, _DIG, tuple(c for c in cells if not free[k[c]])))
        if km == SOLID and head2:
            up = m + ys
            if fa and free[k[up + ys]]:
                out.append((up, 2.0, _JUMP, ()))
            elif dig > 0:
                cells = (up + ys, up)
                cost = dig_cost(cells)
                if cost is not None:
                    out.append((up, 2.0 + cost, _DIG, tuple(c for c in cells if not free[k[c]])))
        if dig > 0 and not in_water and k[m - 2 * ys] == SOLID and not (fa and fm and free[below]):
            cells = (m + ys, m, m - ys)
            cost = dig_cost(cells)
            if cost is not None:
                out.append((m - ys, 1.5 + cost, _DIG, tuple(c for c in cells if not free[k[c]])))
        if fm and fa and below != SOLID and km != WATER:
            c = m
            for depth in (1, 2, 3):
                c -= ys
                kc = k[c]
                if not free[kc]:
                    break
                if kc == WATER or k[c - ys] == SOLID:
                    out.append((c, 1.0 + 0.5 * depth, _DROP, ()))
                    break
    for ddx, ddz in DIAGONAL:
        a, b = n + ddx * xs, n + ddz
        m = a + ddz
        km = k[m]
        if (
            free[km] and free[k[m + ys]] and (k[m - ys] == SOLID or km == WATER)
            and free[k[a]] and free[k[a + ys]] and free[k[b]] and free[k[b + ys]]
        ):  # fmt: skip
            out.append((m, SQRT2 * (2.0 if km == WATER else wmul), _WALK, ()))
    if in_water:
        up = n + ys
        if head2 and k[up] == WATER:
            out.append((up, 1.5, _SWIM, ()))
        if k[n - ys] == WATER:
            out.append((n - ys, 1.5, _SWIM, ()))
    enter = _ENTER_T
    if any(enter[k[m]] or enter[k[m + ys]] for m, _, _, _ in out):
        # walking into a berry bush (feet or head in it): slowed, and hurt from age 1 (grid.ENTER_COST)
        out = [(m, c + enter[k[m]] + enter[k[m + ys]], mv, d) for m, c, mv, d in out]
    return out


def neighbours(g: PathGrid, c: Cell, dig_cost: float = 0.0) -> list[tuple[Cell, float, Step]]:
    """Moves from valid cell ``c``: ``(next cell, cost, step)`` (the planner's own move set)."""
    f = g.flat(dig=dig_cost > 0)
    n = f.index(*c)
    if n < 0:
        return []
    out = []
    for m, cost, move, dig in _expand(f.kinds, n, f.x_step, f.y_step, dig_cost, f.hard, f.leaky):
        cell = f.cell(m)
        out.append((cell, cost, Step(cell, _MOVES[move], tuple(f.cell(d) for d in dig))))
    return out


def search_seconds(body: object, max_seconds: float | None) -> float | None:
    """The wall-clock bound a plan for ``body`` may use: ``max_seconds`` free-running, None in lockstep.

    Why decided here and not by each skill: every caller passes its own ``max_seconds`` (0.5-2 s, written
    for free-running servers where planning time is game time lost); in lockstep no tick runs while the
    body plans, so the bound buys nothing there and only makes the plan depend on the machine's speed.
    The mode is the body's (``body.lockstep.active``: registered with a lockstep server, not evicted).
    """
    lockstep = getattr(body, "lockstep", None)
    return None if lockstep is not None and getattr(lockstep, "active", False) else max_seconds


def find_path(
    g: PathGrid,
    start: Cell,
    goal: Goal,
    *,
    dig_cost: float = 0.0,
    max_nodes: int = 50_000,
    max_seconds: float | None = 2.0,
    max_dig_blocks: int | None = None,
) -> PathResult:
    """Plan from ``start`` to ``goal``.

    Args:
        g: The grid.
        start: Start cell (the player's feet block).
        goal: Target.
        dig_cost: Cost factor for breaking blocks; 0 disables digging.
        max_nodes / max_seconds: Search bounds. ``max_seconds=None``: no wall-clock bound (deterministic:
            only ``max_nodes`` cuts the search).
        max_dig_blocks: At most this many blocks broken over the whole path (None: any number). With 2 a
            plan clears at most one obstruction (a doorway: feet and head), the body's rule for walking
            skills; the search then runs over (cell, blocks broken so far) states, so it is exhausted
            quickly where no such plan exists (a pit) instead of digging through the whole box.

    Returns:
        A :class:`PathResult`.
    """
    t0 = time.perf_counter()
    wall_bound = math.inf if max_seconds is None else max_seconds
    f = g.flat(dig=dig_cost > 0)
    k, xs, ys = f.kinds, f.x_step, f.y_step
    s = f.index(*start)
    if s < 0 or not (_FREE_T[k[s]] and _FREE_T[k[s + ys]]):
        return PathResult("invalid_start", seconds=time.perf_counter() - t0, closest=start)
    gx, gy, gz = goal.x, goal.y, goal.z
    r2 = goal.radius * goal.radius + 1e-9
    save = goal.radius * goal.saving
    ox, oy, oz = f.ox, f.oy, f.oz
    diag = SQRT2 - 1.0

    def coords(n: int) -> tuple[int, int, int]:
        i, rest = divmod(n, xs)
        j, kk = divmod(rest, ys)
        return i + ox, j + oy, kk + oz

    def estimate(x: int, y: int, z: int) -> float:
        dx, dz = abs(x - gx), abs(z - gz)
        h = (dx + diag * dz if dx >= dz else dz + diag * dx) - save
        if gy is not None:
            h += 0.5 * abs(y - gy)
        return h if h > 0.0 else 0.0

    layers = 1 if max_dig_blocks is None or dig_cost <= 0 else max_dig_blocks + 1
    limited = layers > 1
    s0 = s
    s = s0 * layers  # a search state: node * layers + dig steps used
    best_g: dict[int, float] = {s: 0.0}
    came: dict[int, tuple[int, int, tuple[int, ...]]] = {}
    h0 = estimate(*start)
    tie = 0
    heap: list[tuple[float, float, int, int]] = [(h0, h0, tie, s)]
    closest, closest_h = s, h0
    nodes = 0
    status: Literal["found", "partial", "no_path"] = "no_path"
    end = s
    hard, leaky = f.hard, f.leaky
    while heap:
        fc, hc, _, cur = heapq.heappop(heap)
        gc = best_g[cur]
        if fc - hc > gc + 1e-9:
            continue  # a stale entry: this state was reached more cheaply since
        node, used = divmod(cur, layers) if limited else (cur, 0)
        x, y, z = coords(node)
        dy = 0 if gy is None else y - gy
        if (x - gx) ** 2 + dy * dy + (z - gz) ** 2 <= r2:
            status, end = "found", cur
            break
        nodes += 1
        if nodes > max_nodes or (nodes & 255 == 0 and time.perf_counter() - t0 > wall_bound):
            status, end = "partial", closest
            break
        can_dig = dig_cost if used < layers - 1 or not limited else 0.0
        for nxt, cost, move, dig in _expand(k, node, xs, ys, can_dig, hard, leaky):
            if limited:
                if used + len(dig) >= layers:
                    continue
                nxt = nxt * layers + used + len(dig)
            ng = gc + cost
            if ng < best_g.get(nxt, math.inf) - 1e-12:
                best_g[nxt] = ng
                came[nxt] = (cur, move, dig)
                h = estimate(*coords(nxt // layers))
                if h < closest_h:
                    closest, closest_h = nxt, h
                tie += 1
                heapq.heappush(heap, (ng + h, h, tie, nxt))
    else:
        end = closest
        status = "no_path"
    steps: list[Step] = []
    c = end
    while c in came:
        prev, move, dig = came[c]
        steps.append(Step(coords(c // layers), _MOVES[move], tuple(coords(d) for d in dig)))
        c = prev
    steps.append(Step(start, "start"))
    steps.reverse()
    if status == "no_path" and end == s:
        steps = [Step(start, "start")]
    return PathResult(
        status,
        steps,
        best_g.get(end, 0.0),
        nodes,
        time.perf_counter() - t0,
        closest=coords(closest // layers),
    )


def flood(
    g: PathGrid,
    start: Cell,
    *,
    max_nodes: int = 4000,
    dig_cost: float = 0.0,
    opened: tuple[Cell, ...] = (),
) -> tuple[dict[Cell, float], bool]:
    """Every cell reachable from ``start`` with the planner's moves, and its cost (Dijkstra).

    Args:
        g: The grid.
        start: The player's feet cell.
        max_nodes: Stop after expanding this many cells.
        dig_cost: As in :func:`find_path` (0: walking moves only).
        opened: Cells to treat as air (blocks a caller is about to break: "what could I walk to after
            clearing this obstruction?").

    Returns:
        ``(cost per reachable cell, exhausted)``; ``exhausted`` is False when ``max_nodes`` stopped the search
        first (the region may be larger).
    """
    f = g.flat(dig=dig_cost > 0)
    k, xs, ys = f.kinds, f.x_step, f.y_step
    if opened:
        buf = bytearray(k)
        for c in opened:
            n = f.index(*c)
            if n >= 0:
                buf[n] = AIR
        k = bytes(buf)
    s = f.index(*start)
    if s < 0 or not (_FREE_T[k[s]] and _FREE_T[k[s + ys]]):
        return {}, True
    best: dict[int, float] = {s: 0.0}
    heap: list[tuple[float, int]] = [(0.0, s)]
    done = 0
    exhausted = True
    while heap:
        gc, cur = heapq.heappop(heap)
        if gc > best[cur] + 1e-9:
            continue
        done += 1
        if done > max_nodes:
            exhausted = False
            break
        for nxt, cost, _, _ in _expand(k, cur, xs, ys, dig_cost, f.hard, f.leaky):
            ng = gc + cost
            if ng < best.get(nxt, math.inf) - 1e-12:
                best[nxt] = ng
                heapq.heappush(heap, (ng, nxt))
    return {f.cell(n): c for n, c in best.items()}, exhausted
