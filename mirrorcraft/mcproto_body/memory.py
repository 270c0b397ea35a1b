"""The body's memory of the world, for the skills: where blocks were seen, what the player placed, which
places it could not reach, and which chunks it has seen at all (the frontier of exploration).

Why a memory and not just the loaded chunks: the server unloads columns as the player moves, and a skill
asked to ``mine oak_log`` from the bottom of a staircase, or to find the crafting table it placed before
exploring, has only what it still sees. A player remembers; so does this module. It is built only from
the chunk data the body already decodes (:class:`~mirrorcraft.mcproto_body.world.World`) and from what the
skills tell it (placements, failed approaches). It is **not** an agent's knowledge: nothing of it enters an
observation (the contracts define what an agent sees; ``skills/observe.py`` reads the live world only), and
it holds no rule: block kinds and positions, as a player's eyes would have them.

* **Blocks by kind.** A loaded column is queried live. When a column is about to be dropped (unload,
  dimension change, reconnect) it is indexed: for every block kind in it, its positions (all of them for
  kinds with at most :data:`EXACT_LIMIT` cells in the column, else the :data:`SAMPLE_COMMON` highest, the
  ones a player on the surface would have seen); the index entry goes when the column is loaded again.
* **Placed blocks.** :meth:`note_placed` records a workstation the skills placed; it is forgotten when the
  block there changes (the player broke it) and kept across unloads.
* **Unreachable places.** :meth:`note_unreachable` records a target an approach failed to reach from a
  cell; :meth:`is_unreachable` says so for the same target asked from within :data:`UNREACHABLE_NEAR`
  blocks of that cell, until a block changes within :data:`UNREACHABLE_FORGET` blocks of it (the way may
  have opened).
* **Seen chunks** (every column ever received) give :meth:`frontier`: how many never-seen columns lie ahead
  in each compass direction, inside the world border. **Visited chunks** (the columns around where the
  skills noted the player stood, :meth:`note_visited`) give :meth:`unvisited`, the same count for places
  the player has not been: what is left to explore once everything in view distance has been seen.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from mirrorcraft.gamedata import all_blocks, block, state_tables
from mirrorcraft.mcproto_body.world import World

Cell = tuple[int, int, int]

#: Kinds with at most this many cells in a column are remembered cell by cell when the column unloads.
EXACT_LIMIT = 1024
#: Of a more common kind (stone, dirt, deepslate...), the highest this many cells of the column are kept.
SAMPLE_COMMON = 64
#: An unreachable mark holds for the same target asked from within this many blocks of where it failed...
UNREACHABLE_NEAR = 4.0
#: ...until a block changes within this many blocks of that place.
UNREACHABLE_FORGET = 10.0
#: Chunk columns around the player's own that :meth:`WorldMemory.note_visited` marks (1: the 3x3 around it,
#: about what ``mine``'s 32-block search reaches).
VISIT_SPREAD = 1
#: Compass directions as (dx, dz), the contracts' names.
COMPASS: dict[str, tuple[int, int]] = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


@dataclass(frozen=True)
class Unreachable:
    """An approach that failed: the target, where the player stood, and why."""

    target: Cell
    from_cell: Cell
    reason: str


class WorldMemory:
    """What the body has seen (module docstring).

    Args:
        world: The body's world view (columns, block changes).
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.seen_chunks: set[tuple[int, int]] = set()
        self.visited_chunks: set[tuple[int, int]] = set()
        self._index: dict[tuple[int, int], dict[int, np.ndarray]] = {}
        self.placed: dict[Cell, str] = {}
        self.unreachable: list[Unreachable] = []
        self._block_id = state_tables().block_id
        self._names = [b.name for b in all_blocks()]
        tables = state_tables()  # the air blocks from game data (air, cave_air, void_air), not by name
        self._air = {int(self._block_id[s]) for s in np.flatnonzero(tables.is_air)}
        world.on_column(self._on_column)
        world.on_block_change(self._on_block)

    # ----------------------------------------------------------------------------------------- blocks
    def _on_column(self, key: tuple[int, int], blocks: np.ndarray | None) -> None:
        if blocks is not None:
            self.seen_chunks.add(key)
            self._index.pop(key, None)
            return
        col = self.world.columns.get(key)
        if col is not None:
            self._index[key] = self._summarise(key, col)

    def _summarise(self, key: tuple[int, int], col: np.ndarray) -> dict[int, np.ndarray]:
        """``{block id: int32 (N, 3) world positions}`` of one column (``col`` indexed ``[y, z, x]``)."""
        ids = self._block_id[col.ravel()]
        order = np.argsort(ids, kind="stable")
        # kinds present, ascending, with their counts and first index in ``order``: what
        # ``np.unique(ids[order], return_index=True, return_counts=True)`` gives, at half its cost
        tally = np.bincount(ids)
        kinds = np.flatnonzero(tally)
        counts = tally[kinds]
        starts = np.cumsum(counts) - counts
        w = col.shape[1] * col.shape[2]
        base = np.array([0, self.world.min_y, 0], dtype=np.int32)
        out: dict[int, np.ndarray] = {}
        for kind, start, count in zip(kinds.tolist(), starts.tolist(), counts.tolist(), strict=True):
            if kind in self._air:
                continue
            flat = order[start : start + count]
            if count > EXACT_LIMIT:
                flat = flat[-SAMPLE_COMMON:]  # the highest cells: ravel order is y-major
            y, rest = np.divmod(flat, w)
            z, x = np.divmod(rest, col.shape[2])
            pos = np.stack([x + key[0] * 16, y, z + key[1] * 16], axis=1).astype(np.int32) + base
            out[kind] = pos
        return out

    def _on_block(self, pos: Cell, old: int, new: int) -> None:
        if pos in self.placed and new != old:
            del self.placed[pos]
        if self.unreachable:
            self.unreachable = [
                u for u in self.unreachable if math.dist(u.from_cell, pos) > UNREACHABLE_FORGET
            ]

    def known(
        self,
        names: str | Iterable[str],
        center: Cell,
        radius: int = 96,
        height: int = 48,
        skip: Iterable[Cell] = (),
    ) -> list[Cell]:
        """Positions of blocks named ``names`` the body knows of, nearest ``center`` first: live ones in the
        loaded columns and remembered ones in columns seen before, within ``radius`` blocks horizontally and
        ``height`` vertically (Chebyshev), minus ``skip``."""
        wanted = [names] if isinstance(names, str) else list(names)
        ids = [block(n).id for n in wanted]
        states = [s for n in wanted for s in range(block(n).min_state, block(n).max_state + 1)]
        cx, cy, cz = center
        out: list[Cell] = []
        lo = (cx - radius, max(cy - height, self.world.min_y), cz - radius)
        hi = (cx + radius + 1, min(cy + height + 1, self.world.min_y + self.world.height), cz + radius + 1)
        if hi[1] > lo[1]:
            region = self.world.region(lo, hi)
            hits = np.argwhere(np.isin(region, np.asarray(states, dtype=np.uint16)))
            out.extend(tuple(int(v) for v in p) for p in (hits + np.array(lo)).tolist())
        for key, index in self._index.items():
            if abs(key[0] * 16 + 8 - cx) > radius + 8 or abs(key[1] * 16 + 8 - cz) > radius + 8:
                continue
            for i in ids:
                pos = index.get(i)
                if pos is None:
                    continue
                near = (np.abs(pos[:, 0] - cx) <= radius) & (np.abs(pos[:, 2] - cz) <= radius)
                near &= np.abs(pos[:, 1] - cy) <= height
                out.extend(tuple(int(v) for v in p) for p in pos[near].tolist())
        skipped = set(skip)
        out = [p for p in out if p not in skipped]
        out.sort(key=lambda p: ((p[0] - cx) ** 2 + (p[1] - cy) ** 2 + (p[2] - cz) ** 2, p))
        return out

    def remembered_kinds(self) -> set[str]:
        """Names of the block kinds indexed in unloaded columns (for tests and debugging)."""
        return {self._names[i] for index in self._index.values() for i in index}

    # --------------------------------------------------------------------------------- placements
    def note_placed(self, pos: Cell, name: str) -> None:
        """The skills placed ``name`` at ``pos`` (a workstation, a container)."""
        self.placed[pos] = name

    def placed_near(self, name: str, center: Cell, radius: float = 96.0) -> list[Cell]:
        """Where the player placed ``name`` (still there as far as the body knows), nearest first."""
        out = []
        for pos, n in self.placed.items():
            if n != name or math.dist(pos, center) > radius:
                continue
            state = self.world.state_at(*pos)
            if state is not None and self._names[int(self._block_id[state])] != name:
                continue
            out.append(pos)
        return sorted(out, key=lambda p: (math.dist(p, center), p))

    # ------------------------------------------------------------------------------- unreachable
    def note_unreachable(self, target: Cell, from_cell: Cell, reason: str) -> None:
        """An approach to ``target`` from ``from_cell`` failed (``reason`` as reported)."""
        self.unreachable.append(Unreachable(target, from_cell, reason))

    def is_unreachable(self, target: Cell, here: Cell) -> Unreachable | None:
        """The mark that ``target`` cannot be reached from near ``here``, if one holds."""
        for u in self.unreachable:
            if u.target == target and math.dist(u.from_cell, here) <= UNREACHABLE_NEAR:
                return u
        return None

    # ---------------------------------------------------------------------------------- frontier
    def frontier(self, here: Cell, reach: int = 8, half_width: int = 3) -> dict[str, int]:
        """Never-seen columns ahead in each compass direction: the columns 1..``reach`` chunks ahead of the
        player's chunk and within ``half_width`` chunks of its line, inside the world border."""
        return self._ahead(here, self.seen_chunks, reach, half_width)

    def note_visited(self, pos: tuple[float, float, float], spread: int = VISIT_SPREAD) -> None:
        """The player stood at ``pos``: its chunk column and those within ``spread`` columns of it count
        as visited (a skill's search for blocks reaches that far from the feet)."""
        hx, hz = math.floor(pos[0]) >> 4, math.floor(pos[2]) >> 4
        for dx in range(-spread, spread + 1):
            for dz in range(-spread, spread + 1):
                self.visited_chunks.add((hx + dx, hz + dz))

    def unvisited(self, here: Cell, reach: int = 8, half_width: int = 3) -> dict[str, int]:
        """Like :meth:`frontier`, for the columns never visited (:meth:`note_visited`): once every column
        within the border has been seen (a small world, or after a few legs), these still say where the
        player has not been, so exploring goes on outwards instead of round the places it walked."""
        return self._ahead(here, self.visited_chunks, reach, half_width)

    def _ahead(self, here: Cell, known: set[tuple[int, int]], reach: int, half_width: int) -> dict[str, int]:
        hx, hz = here[0] >> 4, here[2] >> 4
        out: dict[str, int] = {}
        for name, (dx, dz) in COMPASS.items():
            n = 0
            for ahead in range(1, reach + 1):
                for side in range(-half_width, half_width + 1):
                    cx, cz = hx + dx * ahead + dz * side, hz + dz * ahead + dx * side
                    if (cx, cz) in known:
                        continue
                    if not self.world.inside_border(cx * 16 + 8, cz * 16 + 8):
                        continue
                    n += 1
            out[name] = n
        return out


__all__ = ["COMPASS", "Unreachable", "WorldMemory"]
