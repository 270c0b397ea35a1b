"""Random ticks: ``randomTickSpeed`` random blocks per loaded 16³ section per tick, vectorised over the sections,
plus the chunk tick's once-per-chunk passes (ice and snow).

Vanilla 1.19.2 (``ServerChunkCache.tickChunks``, ``ServerLevel.tickChunk``; facts in ``rules/data/nature.json``):
every tick, each chunk that has a non-spectator player within 128 blocks of its centre (horizontally) is
ticked; in each of its sections that holds a randomly ticking block, ``randomTickSpeed`` positions are drawn
and the state found there gets its ``randomTick`` if it is randomly ticking. ``randomTickSpeed`` is the game
rule, read every tick (``/gamerule`` changes it live; 0 stops random ticks). Which states tick, and what they
do, is registered by the features that own them (:meth:`RandomTicks.register`: farming, nature); this module
knows no block.

How it is computed (why it is cheap): the ticking states are one boolean table over the 21,448 state ids;
for every scanned section that holds a ticking state the module keeps a 4096-cell mask row (one big
``(rows, 4096)`` array), updated on every block change (the kernel's ``"block_changed"`` hook), so a tick is
three numpy operations over *all* ticking sections at once — draw ``(sections, speed)`` positions, gather the
mask, take the hits — and Python runs only for the hits. Sections without a ticking block have no row (they
cost nothing), and a section whose ticking blocks are all gone draws positions that hit nothing.

Randomness: positions come from their own numpy generator (PCG64 seeded from the ``random_ticks:positions``
stream) and the blocks' behaviour from the ``random_ticks`` stream (``seeded_rng(world seed, episode seed,
purpose)``), so random ticks never shift loot, scatter, mob or spawning randomness, and a Vanilla world and
its Mirror copies (same world seed) draw the same numbers.

Differences from vanilla (documented in docs/farming.md): hits are found for the whole tick before any
runs, so a block that *becomes* ticking during a tick (a cane that just grew, grass that just spread) is not
hit until the next tick; hits run in section order (columns by position, then sections by height), vanilla
shuffles the chunks; a late reactor's skipped ticks run no random ticks (as for mobs); chunks hold a
player's client's chunk set (``Player.loaded_chunks``), vanilla's simulation distance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import numpy as np

from mirrorcraft.rules.nature import random_tick_range
from mirrorcraft.server import facts
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.kernel import Behaviour, Kernel
from mirrorcraft.server.kernel.world import MIN_Y, SECTIONS

Pos = tuple[int, int, int]
#: ``fn(pos, state)``: the random tick of the block at ``pos``.
RandomTickFn = Callable[[Pos, int], None]
#: ``fn(positions, states)``: the random ticks of every hit of one block in this tick, as an ``(n, 3)`` int
#: array and the states found there (for the blocks every world is full of: grass).
BatchFn = Callable[[np.ndarray, np.ndarray], None]
#: ``fn(cx, cz)``: a chunk-tick pass for chunk ``(cx, cz)``.
ChunkFn = Callable[[int, int], None]

SECTION_CELLS = 4096


class RandomTicks:
    """The random-tick phase of one game."""

    def __init__(self, kernel: Kernel, admin: Admin) -> None:
        self.kernel = kernel
        self.admin = admin
        self.rng = kernel.rng.stream("random_ticks")
        seed = kernel.rng.stream("random_ticks:positions").getrandbits(64)
        self.positions = np.random.Generator(np.random.PCG64(seed))
        tables = facts.state_tables()
        self._block_id = tables.block_id
        self.ticking = np.zeros(len(tables.block_id), dtype=bool)
        self._handlers: dict[int, RandomTickFn] = {}
        self._batch: dict[int, BatchFn] = {}
        self._is_batch = np.zeros(int(tables.block_id.max()) + 1, dtype=bool)
        self._chunk_fns: list[tuple[int, ChunkFn]] = []  # (one in n chunks per tick, fn)
        self._rows: dict[tuple[int, int], dict[int, int]] = {}  # column -> section index -> mask row
        self._row_keys: list[tuple[int, int, int]] = []
        self._mask = np.zeros((64, SECTION_CELLS), dtype=bool)
        self._row_origin = np.zeros((64, 3), dtype=np.int64)  # each row's section origin (x, y, z)
        self._range_sq = random_tick_range() ** 2
        self._cols_key: tuple | None = None
        self._cols: list[tuple[int, int]] = []
        self._active_key: tuple[int, int] | None = None
        self._active = np.zeros(0, dtype=np.int64)
        # (cols version, rows version) and the cols list when every ticking column was last scanned
        self._scanned: tuple[int, int] | None = None
        self._scanned_cols: list[tuple[int, int]] | None = None
        self._version = 0  # bumped when rows are added
        self._cols_version = 0
        self.hits = 0  # random ticks run (stats, tests, the benchmark)
        kernel.events.after("block_changed", self._changed)

    # ---- registration ----------------------------------------------------------------------------------

    def register(
        self, blocks: Iterable[str], fn: RandomTickFn, when: Callable[[dict[str, str]], bool] | None = None
    ) -> None:
        """``fn`` is the random tick of ``blocks`` (namespaced) in the states where ``when(properties)`` holds
        (every state when ``None``: vanilla's ``isRandomlyTicking``)."""
        for name in blocks:
            b = facts.block(name)
            self._handlers[b.id] = fn
            for s in range(b.min_state, b.max_state + 1):
                if when is None or when(b.state_properties(s)):
                    self.ticking[s] = True
        self._rows.clear()  # the table changed: rescan (only happens while the game is built)
        self._row_keys.clear()
        self._scanned = None
        self._version += 1

    def register_batch(
        self, blocks: Iterable[str], fn: BatchFn, when: Callable[[dict[str, str]], bool] | None = None
    ) -> None:
        """As :meth:`register`, but ``fn`` gets all of a tick's hits of these blocks at once (vectorised)."""
        self.register(blocks, lambda pos, state: fn(np.array([pos], dtype=np.int64), np.array([state])), when)
        for name in blocks:
            b = facts.block(name)
            self._batch[b.id] = fn
            self._is_batch[b.id] = True

    def on_chunk(self, one_in: int, fn: ChunkFn) -> None:
        """Run ``fn(cx, cz)`` for a ticking chunk with chance ``1/one_in`` per tick (the chunk tick's passes)."""
        self._chunk_fns.append((one_in, fn))

    # ---- the index -----------------------------------------------------------------------------------

    def _new_row(self, key: tuple[int, int, int], cells: np.ndarray) -> int:
        row = len(self._row_keys)
        if row >= len(self._mask):
            grown = np.zeros((len(self._mask) * 2, SECTION_CELLS), dtype=bool)
            grown[: len(self._mask)] = self._mask
            self._mask = grown
            origin = np.zeros((len(self._mask), 3), dtype=np.int64)
            origin[: len(self._row_origin)] = self._row_origin
            self._row_origin = origin
        self._mask[row] = cells
        self._row_origin[row] = (key[0] * 16, MIN_Y + key[2] * 16, key[1] * 16)
        self._row_keys.append(key)
        self._version += 1
        return row

    def _scan(self, key: tuple[int, int]) -> dict[int, int]:
        rows = self._rows.get(key)
        if rows is None:
            col = self.kernel.world.column(*key)
            cells = self.ticking[col.blocks].reshape(SECTIONS, SECTION_CELLS)
            rows = {
                int(sy): self._new_row((key[0], key[1], int(sy)), cells[sy])
                for sy in np.flatnonzero(cells.any(1))
            }
            self._rows[key] = rows
        return rows

    def _changed(self, b: Behaviour) -> None:
        x, y, z = b["pos"]
        rows = self._rows.get((x >> 4, z >> 4))
        if rows is None:
            return  # not scanned yet: the scan will see the new state
        sy = (y - MIN_Y) >> 4
        cell = ((y - MIN_Y) & 15) << 8 | (z & 15) << 4 | (x & 15)
        world = self.kernel.world
        now = b["new"] if world.version == b["version"] else world.get_block(x, y, z)  # nested changes since?
        row = rows.get(sy)
        if row is not None:
            self._mask[row, cell] = self.ticking[now]
        elif self.ticking[now]:
            col = self.kernel.world.column(x >> 4, z >> 4)
            cells = self.ticking[col.blocks[sy * 16 : sy * 16 + 16]].reshape(SECTION_CELLS)
            rows[sy] = self._new_row((x >> 4, z >> 4, sy), cells)

    # ---- which chunks tick ----------------------------------------------------------------------------

    def ticking_columns(self) -> list[tuple[int, int]]:
        """The chunks that tick now (sorted): held by a client and within 128 blocks of a non-spectator."""
        players = list(self.kernel.players)
        key = tuple(
            (p.eid, math.floor(p.pos[0]), math.floor(p.pos[2]), len(p.loaded_chunks), p.center_chunk,
             self.admin.game_mode(p) == "spectator")
            for p in players
        )  # fmt: skip
        if key == self._cols_key:
            return self._cols
        active = [(p.pos[0], p.pos[2]) for p in players if self.admin.game_mode(p) != "spectator"]
        loaded: set[tuple[int, int]] = set()
        for p in players:
            loaded |= p.loaded_chunks
        r2 = self._range_sq
        cols = sorted(
            (cx, cz)
            for cx, cz in loaded
            if any((cx * 16 + 8 - px) ** 2 + (cz * 16 + 8 - pz) ** 2 < r2 for px, pz in active)
        )
        if cols != self._cols:
            self._cols_version += 1  # the ticking set changed: the active rows are rebuilt
        self._cols_key, self._cols = key, cols
        return cols

    def _active_rows(self, cols: list[tuple[int, int]]) -> np.ndarray:
        # every column of an unchanged ticking set is scanned already (rows are only ever added, or all
        # dropped by register): skip the per-column look-ups, ~300 a tick (CPU, issue 23)
        if self._scanned != (self._cols_version, self._version) or self._scanned_cols is not cols:
            for c in cols:
                self._scan(c)
            self._scanned, self._scanned_cols = (self._cols_version, self._version), cols
        akey = (self._cols_version, self._version)
        if akey != self._active_key:
            rows = [r for c in cols for _, r in sorted(self._rows[c].items())]
            self._active = np.array(rows, dtype=np.int64)
            self._active_key = (self._cols_version, self._version)
        return self._active

    # ---- the tick --------------------------------------------------------------------------------------

    def tick(self) -> None:
        """The ``random ticks`` phase: the chunk passes, then ``randomTickSpeed`` draws per ticking section."""
        cols = self.ticking_columns()
        if not cols:
            return
        for one_in, fn in self._chunk_fns:
            picks = np.flatnonzero(self.positions.integers(0, one_in, size=len(cols)) == 0)
            for i in picks.tolist():
                fn(*cols[i])
        speed = int(self.admin.game_rules.get("randomTickSpeed", 0))
        if speed <= 0:
            return
        rows = self._active_rows(cols)
        if not len(rows):
            return
        draws = self.positions.integers(0, SECTION_CELLS, size=(len(rows), speed))
        hit_r, hit_d = np.nonzero(self._mask[rows[:, None], draws])
        if not len(hit_r):
            return
        world = self.kernel.world
        ticking, block_id, handlers = self.ticking, self._block_id, self._handlers
        cells = draws[hit_r, hit_d]
        pos = self._row_origin[rows[hit_r]] + np.stack([cells & 15, cells >> 8, (cells >> 4) & 15], axis=1)
        states = world.get_blocks(pos)
        live = ticking[states]
        bids = block_id[states]
        batch = live & self._is_batch[bids]
        if batch.any():
            for bid in sorted(set(bids[batch].tolist())):  # = np.unique's order, without its overhead
                sel = batch & (bids == bid)
                self.hits += int(sel.sum())
                self._batch[bid](pos[sel], states[sel])
        for x, y, z in pos[live & ~batch].tolist():
            state = world.get_block(x, y, z)  # now: an earlier hit of this tick may have changed it
            if ticking[state]:
                self.hits += 1
                handlers[int(block_id[state])]((x, y, z), state)
