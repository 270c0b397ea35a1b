"""Block updates: neighbour shape updates, placement states and scheduled block ticks — the machinery vanilla's
``Level.setBlock`` / ``BlockBehaviour.updateShape`` / ``LevelTicks`` give every block, for the features that
need it (farming, shapes, nature).

Why a feature of its own: a block that changes tells its six neighbours, and each neighbour may change in
turn (a fence grows an arm, a crop whose farmland went pops, an attached stem whose melon was taken turns
back into a stem, leaves recompute their distance to a log a tick later). The features that own those blocks
register what their blocks do; this module runs it in vanilla's order and knows no block itself:

* **shape updates** (``BlockBehaviour.updateShape``): after every :meth:`Kernel.set_block` (the kernel's
  ``"block_changed"`` after-hook) each neighbour, in vanilla's ``Direction.UPDATE_SHAPE_ORDER`` (west, east,
  north, south, down, up), is asked for its new state given the changed block; a new state is set at once
  (which updates *its* neighbours: depth first, like vanilla's recursive ``updateNeighbourShapes``, at most
  :data:`MAX_DEPTH` deep), and a state that becomes air is *destroyed* (``Block.updateOrDestroy``): broken
  without a player, so its loot table drops (:meth:`~mirrorcraft.server.features.digging.Digging.break_block`).
* **placement states** (``Block.getStateForPlacement``): the placing feature asks :meth:`placement_state`
  for the state a placed block takes (a fence's arms, a mushroom block's faces, leaves that persist) or
  ``None`` when it cannot be placed there (a crop off farmland).
* **scheduled ticks** (``LevelTicks``): :meth:`schedule` runs a block's tick handler ``delay`` game ticks
  later, if the block is still there (``ServerLevel.tickBlock``); one pending tick per position and block, as
  vanilla dedups. They run in the ``block ticks`` phase, before the chunk tick (spawning, random ticks), as
  ``ServerLevel.tick`` runs ``blockTicks`` before ``getChunkSource().tick``. Ticks a late reactor skipped run
  on the next tick (at most :data:`MAX_PER_TICK` per tick; vanilla's limit is 65,536).

Partial: ``neighborChanged`` (redstone-style updates) is not modelled, only shape updates; block events,
fluids and gravity blocks are not simulated (docs/farming.md).
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mirrorcraft.server import facts
from mirrorcraft.server.features.digging import Digging
from mirrorcraft.server.kernel import Behaviour, Kernel, Player

log = logging.getLogger(__name__)

Pos = tuple[int, int, int]

#: ``Direction.UPDATE_SHAPE_ORDER``: west, east, north, south, down, up (offsets from the changed block).
UPDATE_ORDER: tuple[tuple[int, int, int], ...] = (
    (-1, 0, 0),
    (1, 0, 0),
    (0, 0, -1),
    (0, 0, 1),
    (0, -1, 0),
    (0, 1, 0),
)
#: Direction names by offset (the side of a block a neighbour is on).
DIRECTION: dict[tuple[int, int, int], str] = {
    (-1, 0, 0): "west", (1, 0, 0): "east", (0, 0, -1): "north", (0, 0, 1): "south", (0, -1, 0): "down",
    (0, 1, 0): "up",
}  # fmt: skip
OFFSET: dict[str, tuple[int, int, int]] = {v: k for k, v in DIRECTION.items()}
OPPOSITE = {"west": "east", "east": "west", "north": "south", "south": "north", "down": "up", "up": "down"}
HORIZONTAL = ("north", "east", "south", "west")
MAX_DEPTH = 64  # nested shape updates (vanilla: 512 set-block recursions)
MAX_PER_TICK = 65536  # scheduled ticks run per game tick (vanilla LevelTicks' limit)

#: ``fn(pos, state, direction, neighbour_state) -> new state``: ``direction`` is the side of ``pos`` the changed
#: neighbour is on; return ``state`` for no change, ``0`` (air) to destroy the block.
ShapeFn = Callable[[Pos, int, str, int], int]
#: ``fn(pos, state)``: the scheduled tick of the block at ``pos``.
TickFn = Callable[[Pos, int], None]


@dataclass
class PlaceContext:
    """What a placement knows (vanilla ``BlockPlaceContext``): who places, where, against which face."""

    player: Player | None
    pos: Pos
    clicked: Pos
    face: str  # the clicked face of ``clicked`` (the direction from ``clicked`` to ``pos`` for a side click)
    state: int  # the state the placing feature chose (axis, facing, half...)


#: ``fn(ctx) -> state or None``: the placed state, ``None`` = the block cannot be placed there.
PlaceFn = Callable[[PlaceContext], int | None]


class BlockUpdates:
    """Shape updates, placement states and scheduled ticks for one game."""

    def __init__(self, kernel: Kernel, digging: Digging) -> None:
        self.kernel = kernel
        self.digging = digging
        self._block_id = facts.state_tables().block_id
        self._shape: dict[int, list[ShapeFn]] = {}
        self._tick: dict[int, TickFn] = {}
        self._place: dict[int, list[PlaceFn]] = {}
        self._pending: list[tuple[int, int, Pos, int]] = []  # (due tick, order, pos, block id)
        self._pending_keys: set[tuple[Pos, int]] = set()
        self._order = 0
        self._depth = 0
        self.destroyed = 0  # blocks destroyed by shape updates (stats, tests)
        kernel.events.after("block_changed", self._changed)

    # ---- registration ------------------------------------------------------------------------------------

    def _ids(self, blocks: Iterable[str]) -> list[int]:
        return [facts.block(b).id for b in blocks]

    def on_shape(self, blocks: Iterable[str], fn: ShapeFn) -> None:
        """Run ``fn`` when a neighbour of one of ``blocks`` (namespaced) changes."""
        for i in self._ids(blocks):
            self._shape.setdefault(i, []).append(fn)

    def on_tick(self, blocks: Iterable[str], fn: TickFn) -> None:
        """``fn`` is the scheduled tick of ``blocks`` (one handler per block)."""
        for i in self._ids(blocks):
            self._tick[i] = fn

    def on_place(self, blocks: Iterable[str], fn: PlaceFn) -> None:
        """``fn`` decides the placed state of ``blocks`` (handlers run in registration order, each on the
        previous one's state)."""
        for i in self._ids(blocks):
            self._place.setdefault(i, []).append(fn)

    # ---- placement -------------------------------------------------------------------------------------

    def placement_state(self, ctx: PlaceContext) -> int | None:
        """The state a placed block takes (``ctx.state`` unless a feature changes it), ``None`` = refused."""
        for fn in self._place.get(int(self._block_id[ctx.state]), ()):
            new = fn(ctx)
            if new is None:
                return None
            ctx.state = new
        return ctx.state

    # ---- shape updates ----------------------------------------------------------------------------------

    def _changed(self, b: Behaviour) -> None:
        pos: Pos = b["pos"]
        if self._depth >= MAX_DEPTH:
            log.warning("shape updates at %s deeper than %d: stopped", pos, MAX_DEPTH)
            return
        world = self.kernel.world
        self._depth += 1
        try:
            new, seen = b["new"], b["version"]
            for d in UPDATE_ORDER:
                if world.version != seen:  # a nested update changed something: read the block again
                    new, seen = world.get_block(*pos), world.version
                npos = (pos[0] + d[0], pos[1] + d[1], pos[2] + d[2])
                state = world.get_block(*npos)
                fns = self._shape.get(int(self._block_id[state]))
                if not fns:
                    continue
                side = DIRECTION[(-d[0], -d[1], -d[2])]  # where the changed block is, seen from npos
                now = state
                for fn in fns:
                    now = fn(npos, now, side, new)
                    if now == 0:
                        break
                if now != state:
                    self.apply(npos, now)
        finally:
            self._depth -= 1

    def apply(self, pos: Pos, new: int) -> None:
        """``Block.updateOrDestroy``: air destroys the block (its loot drops, no player), anything else is set."""
        if new == 0 and not facts.is_air(self.kernel.world.get_block(*pos)):
            self.destroyed += 1
            self.digging.break_block(None, pos)
        else:
            self.kernel.set_block(pos, new)

    def destroy(self, pos: Pos) -> None:
        """``Level.destroyBlock(pos, true)``: break the block at ``pos`` with its drops and no player."""
        if not facts.is_air(self.kernel.world.get_block(*pos)):
            self.destroyed += 1
            self.digging.break_block(None, pos)

    # ---- scheduled ticks ------------------------------------------------------------------------------

    def schedule(self, pos: Pos, block: str | int, delay: int) -> None:
        """Run the scheduled tick of ``block`` at ``pos`` in ``delay`` ticks (once: a pending tick for the same
        position and block is not added again)."""
        bid = block if isinstance(block, int) else facts.block(block).id
        key = (pos, bid)
        if key in self._pending_keys:
            return
        self._pending_keys.add(key)
        self._order += 1
        heapq.heappush(self._pending, (self.kernel.tick_count + max(1, delay), self._order, pos, bid))

    def pending(self) -> int:
        """Scheduled ticks not run yet."""
        return len(self._pending)

    def tick(self) -> None:
        """The ``block ticks`` phase: run every scheduled tick that is due, in the order scheduled."""
        now = self.kernel.tick_count
        world = self.kernel.world
        ran = 0
        while self._pending and self._pending[0][0] <= now and ran < MAX_PER_TICK:
            _, _, pos, bid = heapq.heappop(self._pending)
            self._pending_keys.discard((pos, bid))
            ran += 1
            state = world.get_block(*pos)
            if int(self._block_id[state]) != bid:
                continue  # the block changed meanwhile (ServerLevel.tickBlock checks blockState.is(block))
            fn = self._tick.get(bid)
            if fn is not None:
                fn(pos, state)
