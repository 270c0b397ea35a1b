"""Cell classification for path planning: what each block-state means to a walking player.

Why a separate, pure step: A* asks "can I stand here / walk through here" tens of thousands of times;
answering from per-state numpy tables (built once from minecraft-data's collision shapes) keeps the
planner simple and lets tests build synthetic worlds as plain ``uint16`` arrays of state ids.

Kinds: ``BLOCKED`` (unknown / unloaded, or dangerous: lava, fire, cactus, magma, powder snow, cobweb),
``AIR`` (no collision, not a fluid), ``WATER`` (water or waterlogged without collision: swimmable),
``SOLID`` (has a collision box, can be stood on), ``TALL`` (collision above one block: fences and walls —
neither walkable through nor worth standing on), ``BUSH`` and ``THORNS`` (a sweet berry bush of age 0, and
of age 1-3: walkable through at a cost, see :data:`ENTER_COST`).

Sweet berry bushes, vanilla ``SweetBerryBushBlock.entityInside`` (1.19.2, Mojang mappings): a living entity
inside one is slowed, ``makeStuckInBlock(state, new Vec3(0.8F, 0.75D, 0.8F))`` (movement ×0.8 sideways,
×0.75 vertically), and, when the bush's age is above 0 and the entity moved at least 0.003 sideways that
tick, hurt ``DamageSource.SWEET_BERRY_BUSH`` for 1.0 (half a heart; the damage cooldown makes that about one
hit every 10 ticks while walking through). The Minecraft wiki ("Sweet Berries", "Sweet Berry Bush"): players
are slowed and take damage while moving through them; standing still does no damage. A player walks through
a field of them when there is no other way, and around them when there is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from mirrorcraft.gamedata import all_blocks, state_tables
from mirrorcraft.mcproto_body.physics import fluid_table
from mirrorcraft.mcproto_body.world import UNLOADED

BLOCKED, AIR, WATER, SOLID, TALL, BUSH, THORNS = 0, 1, 2, 3, 4, 5, 6

_DANGEROUS = {"minecraft:lava", "minecraft:fire", "minecraft:soul_fire", "minecraft:cactus", "minecraft:magma_block",
              "minecraft:powder_snow", "minecraft:cobweb", "minecraft:campfire",
              "minecraft:soul_campfire", "minecraft:wither_rose", "minecraft:pointed_dripstone"}  # fmt: skip
_BERRY_BUSH = "minecraft:sweet_berry_bush"

#: Extra plan cost of a move whose feet or head cell is of a kind (indexed by kind; 0 for the others), in
#: blocks of walking. ``BUSH`` (age 0): the slowdown alone, a block at 0.8 of the speed lasts 1.25 blocks.
#: ``THORNS`` (age 1-3): the slowdown plus the damage, priced so a plan goes up to 8 blocks round one bush
#: cell rather than through it (half a heart per cell walked is a real cost to a player, not a forbidden
#: one: through a field of them is still a path when it is the only one).
ENTER_COST: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 8.0)


@cache
def kind_table() -> np.ndarray:
    """uint8 per global state id (plus one entry for :data:`UNLOADED` at index 0xFFFF): the cell kind."""
    tables = state_tables()
    n = len(tables.block_id)
    fluid = fluid_table()
    out = np.full(0x10000, BLOCKED, dtype=np.uint8)
    kinds = np.where(tables.no_collision, AIR, SOLID).astype(np.uint8)
    kinds[(fluid == 1) & tables.no_collision] = WATER
    for b in all_blocks():
        sl = slice(b.min_state, b.max_state + 1)
        if b.name in _DANGEROUS or (fluid[sl] == 2).any():
            kinds[sl] = BLOCKED
            continue
        if b.name == _BERRY_BUSH:
            for s in range(b.min_state, b.max_state + 1):
                kinds[s] = BUSH if b.state_properties(s).get("age") == "0" else THORNS
            continue
        if not tables.no_collision[b.min_state : b.max_state + 1].all():
            for s in range(b.min_state, b.max_state + 1):
                boxes = b.collision_boxes(s)
                if boxes and max(box[4] for box in boxes) > 1.0:
                    kinds[s] = TALL
    out[:n] = kinds
    out[int(UNLOADED)] = BLOCKED
    out.setflags(write=False)
    return out


@cache
def hardness_table() -> np.ndarray:
    """float32 per state id (+UNLOADED): hardness, ``inf`` for unbreakable or unknown."""
    h = state_tables().hardness.astype(np.float32)
    out = np.full(0x10000, np.inf, dtype=np.float32)
    out[: len(h)] = np.where(h < 0, np.inf, h)
    out.setflags(write=False)
    return out


#: Cells of padding around a grid's flat copy (``PathGrid.flat``): A* reads up to 4 cells below a node (a drop
#: of 3 and the ground under it) and 2 above it, and one to each side, without bounds checks.
PAD_XZ = 1
PAD_Y = 5


@cache
def _hardness_list() -> list[float]:
    return hardness_table().astype(np.float64).tolist()


class CellHardness:
    """Hardness by flat index of a padded grid, looked up through the cell's block state.

    Why not a list per cell: a dig-through plan reads a few thousand cells of a box of 100,000+; turning
    the whole box's hardness into a Python list cost 15-20 ms per plan (the walking skills plan with one
    obstruction, so every approach paid it), a state table of 65,536 entries is built once.
    """

    __slots__ = ("_states", "_table")

    def __init__(self, states: np.ndarray | None, refused: tuple[int, ...]) -> None:
        self._states = (
            None
            if states is None
            else memoryview(np.ascontiguousarray(states, dtype=np.uint16)).cast("B").cast("H")
        )
        table = _hardness_list()
        if refused:
            table = list(table)
            for st in refused:
                table[st] = float("inf")
        self._table = table

    def __getitem__(self, n: int) -> float:
        if self._states is None:
            return float("inf")
        return self._table[self._states[n]]


@dataclass
class Flat:
    """A :class:`PathGrid` as flat bytes with a BLOCKED border, for the planner's inner loop.

    Attributes:
        kinds: One byte per cell, index ``(i * sy + j) * sz + k`` of the padded box.
        sx, sy, sz: The padded box's shape.
        ox, oy, oz: World coordinates of padded index ``(0, 0, 0)``.
        x_step, y_step: Index offsets of +1 in x and in y (+1 in z is 1).
    """

    kinds: bytes
    sx: int
    sy: int
    sz: int
    ox: int
    oy: int
    oz: int
    x_step: int
    y_step: int
    hard: CellHardness | None = None
    leaky: bytes | None = None

    def index(self, x: int, y: int, z: int) -> int:
        """Flat index of world cell ``(x, y, z)``; -1 outside the (unpadded) box."""
        i, j, k = x - self.ox, y - self.oy, z - self.oz
        if PAD_XZ <= i < self.sx - PAD_XZ and PAD_Y <= j < self.sy - PAD_Y and PAD_XZ <= k < self.sz - PAD_XZ:
            return (i * self.sy + j) * self.sz + k
        return -1

    def cell(self, n: int) -> tuple[int, int, int]:
        """World cell of flat index ``n``."""
        i, rest = divmod(n, self.x_step)
        j, k = divmod(rest, self.y_step)
        return (i + self.ox, j + self.oy, k + self.oz)


@dataclass
class PathGrid:
    """A box of the world ready for planning.

    Attributes:
        origin: World coordinates of index ``[0, 0, 0]``.
        kinds: uint8 ``[x, y, z]`` cell kinds.
        states: uint16 ``[x, y, z]`` block states (for dig-through hardness; ``None`` when built from kinds).
        refused: States a dig-through plan may not break (see :meth:`from_states`).
    """

    origin: tuple[int, int, int]
    kinds: np.ndarray
    states: np.ndarray | None = None
    refused: tuple[int, ...] = ()

    @classmethod
    def from_states(
        cls,
        states: np.ndarray,
        origin: tuple[int, int, int] = (0, 0, 0),
        diggable: Callable[[int], bool] | None = None,
    ) -> PathGrid:
        """Build from a ``uint16`` ``[x, y, z]`` array of state ids (``UNLOADED`` allowed).

        ``diggable`` (state id -> bool), when given, is asked once per distinct state in the box; a state
        it refuses gets an infinite hardness, so a dig-through plan goes around it (the skills refuse
        blocks that would take too long with the tools carried, and the player's own workstations).
        """
        refused: tuple[int, ...] = ()
        if diggable is not None:
            refused = tuple(s for s in np.unique(states).tolist() if s != int(UNLOADED) and not diggable(s))
        return cls(origin, kind_table()[states], states, refused)

    @classmethod
    def around(
        cls,
        world,  # noqa: ANN001
        center: tuple[int, int, int],
        radius: int,
        height: int = 24,
        diggable: Callable[[int], bool] | None = None,
    ) -> PathGrid:
        """The box ``center ± radius`` horizontally and ``± height`` vertically from a body's :class:`World`
        (``diggable`` as in :meth:`from_states`)."""
        cx, cy, cz = center
        lo = (cx - radius, cy - height, cz - radius)
        hi = (cx + radius + 1, cy + height + 1, cz + radius + 1)
        return cls.from_states(world.region(lo, hi), lo, diggable)

    def __post_init__(self) -> None:
        # A* asks for kinds tens of millions of times: flat bytes / list lookups instead of numpy scalar
        # indexing made a dig-heavy 34,588-node plan 1.9x faster (3.98 s -> 2.13 s).
        self._shape = tuple(int(n) for n in self.kinds.shape)
        self._flat_kinds = np.ascontiguousarray(self.kinds, dtype=np.uint8).tobytes()
        self._hard: list[float] | None = None
        self._leaky: bytes | None = None
        self._padded: Flat | None = None

    @property
    def hardness(self) -> np.ndarray:
        """float32 ``[x, y, z]`` hardness (``inf``: unbreakable, unknown or refused), computed on first use:
        only dig-through plans need it."""
        if self.states is None:
            return np.full(self.kinds.shape, np.inf, dtype=np.float32)
        h = hardness_table()[self.states]
        if self.refused:
            h = np.where(np.isin(self.states, self.refused), np.float32(np.inf), h)
        return h

    def _index(self, x: int, y: int, z: int) -> int:
        i, j, k = x - self.origin[0], y - self.origin[1], z - self.origin[2]
        sx, sy, sz = self._shape
        if 0 <= i < sx and 0 <= j < sy and 0 <= k < sz:
            return (i * sy + j) * sz + k
        return -1

    def contains(self, x: int, y: int, z: int) -> bool:
        """Whether world cell ``(x, y, z)`` lies in the box."""
        return self._index(x, y, z) >= 0

    def kind(self, x: int, y: int, z: int) -> int:
        """Kind at world coordinates (BLOCKED outside the box)."""
        n = self._index(x, y, z)
        return self._flat_kinds[n] if n >= 0 else BLOCKED

    def hard(self, x: int, y: int, z: int) -> float:
        """Hardness at world coordinates (inf outside the box)."""
        n = self._index(x, y, z)
        if n < 0:
            return float("inf")
        if self._hard is None:
            self._hard = np.ascontiguousarray(self.hardness, dtype=np.float64).ravel().tolist()
        return self._hard[n]

    def _leak_mask(self) -> np.ndarray:
        bad = np.pad((self.kinds == WATER) | (self.kinds == BLOCKED), 1, constant_values=True)
        return (
            bad[2:, 1:-1, 1:-1] | bad[:-2, 1:-1, 1:-1] | bad[1:-1, 2:, 1:-1]
            | bad[1:-1, 1:-1, 2:] | bad[1:-1, 1:-1, :-2]
        )  # fmt: skip

    def leaky(self, x: int, y: int, z: int) -> bool:
        """Whether the cell above or one of the four beside ``(x, y, z)`` holds water, or is blocked (lava,
        unknown, outside the box): breaking this block could let a liquid in. True outside the box."""
        n = self._index(x, y, z)
        if n < 0:
            return True
        if self._leaky is None:
            self._leaky = np.ascontiguousarray(self._leak_mask(), dtype=np.uint8).tobytes()
        return bool(self._leaky[n])

    def flat(self, dig: bool = False) -> Flat:
        """The padded flat copy the planner walks (hardness and leak masks too when ``dig``)."""
        if self._padded is None:
            pad = ((PAD_XZ, PAD_XZ), (PAD_Y, PAD_Y), (PAD_XZ, PAD_XZ))
            kinds = np.pad(self.kinds, pad, constant_values=BLOCKED)
            sx, sy, sz = (int(n) for n in kinds.shape)
            ox, oy, oz = self.origin[0] - PAD_XZ, self.origin[1] - PAD_Y, self.origin[2] - PAD_XZ
            self._padded = Flat(
                np.ascontiguousarray(kinds, dtype=np.uint8).tobytes(), sx, sy, sz, ox, oy, oz, sy * sz, sz
            )
        f = self._padded
        if dig and f.hard is None:
            pad = ((PAD_XZ, PAD_XZ), (PAD_Y, PAD_Y), (PAD_XZ, PAD_XZ))
            f.hard = CellHardness(
                None if self.states is None else np.pad(self.states, pad, constant_values=int(UNLOADED)),
                self.refused,
            )
            leak = np.pad(self._leak_mask(), pad, constant_values=True)
            f.leaky = np.ascontiguousarray(leak, dtype=np.uint8).tobytes()
        return f
