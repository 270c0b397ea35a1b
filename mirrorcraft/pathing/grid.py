"""Cell classification for path planning: what each block-state means to a walking player.

Why a separate, pure step: A* asks "can I stand here / walk through here" tens of thousands of times;
answering from per-state numpy tables (built once from minecraft-data's collision shapes) keeps the
planner simple and lets tests build synthetic worlds as plain ``uint16`` arrays of state ids.

Kinds: ``BLOCKED`` (unknown / unloaded, or dangerous: lava, fire, cactus, magma, powder snow, berry bushes,
cobweb), ``AIR`` (no collision, not a fluid), ``WATER`` (water or waterlogged without collision: swimmable),
``SOLID`` (has a collision box, can be stood on), ``TALL`` (collision above one block: fences and walls —
neither walkable through nor worth standing on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from mirrorcraft.gamedata import all_blocks, state_tables
from mirrorcraft.mcproto_body.physics import fluid_table
from mirrorcraft.mcproto_body.world import UNLOADED

BLOCKED, AIR, WATER, SOLID, TALL = 0, 1, 2, 3, 4

_DANGEROUS = {"minecraft:lava", "minecraft:fire", "minecraft:soul_fire", "minecraft:cactus", "minecraft:magma_block",
              "minecraft:powder_snow", "minecraft:sweet_berry_bush", "minecraft:cobweb", "minecraft:campfire",
              "minecraft:soul_campfire", "minecraft:wither_rose", "minecraft:pointed_dripstone"}  # fmt: skip


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


@dataclass
class PathGrid:
    """A box of the world ready for planning.

    Attributes:
        origin: World coordinates of index ``[0, 0, 0]``.
        kinds: uint8 ``[x, y, z]`` cell kinds.
        hardness: float32 ``[x, y, z]`` (for dig-through costs).
    """

    origin: tuple[int, int, int]
    kinds: np.ndarray
    hardness: np.ndarray

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
        hardness = hardness_table()[states]
        if diggable is not None:
            refused = [s for s in np.unique(states).tolist() if s != int(UNLOADED) and not diggable(s)]
            if refused:
                hardness = np.where(np.isin(states, refused), np.float32(np.inf), hardness)
        return cls(origin, kind_table()[states], hardness)

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
        self._flat = np.ascontiguousarray(self.kinds, dtype=np.uint8).tobytes()
        self._hard: list[float] | None = None
        self._leaky: bytes | None = None

    def _index(self, x: int, y: int, z: int) -> int:
        i, j, k = x - self.origin[0], y - self.origin[1], z - self.origin[2]
        sx, sy, sz = self._shape
        if 0 <= i < sx and 0 <= j < sy and 0 <= k < sz:
            return (i * sy + j) * sz + k
        return -1

    def kind(self, x: int, y: int, z: int) -> int:
        """Kind at world coordinates (BLOCKED outside the box)."""
        n = self._index(x, y, z)
        return self._flat[n] if n >= 0 else BLOCKED

    def hard(self, x: int, y: int, z: int) -> float:
        """Hardness at world coordinates (inf outside the box)."""
        n = self._index(x, y, z)
        if n < 0:
            return float("inf")
        if self._hard is None:
            self._hard = np.ascontiguousarray(self.hardness, dtype=np.float64).ravel().tolist()
        return self._hard[n]

    def leaky(self, x: int, y: int, z: int) -> bool:
        """Whether the cell above or one of the four beside ``(x, y, z)`` holds water, or is blocked (lava,
        unknown, outside the box): breaking this block could let a liquid in. True outside the box."""
        n = self._index(x, y, z)
        if n < 0:
            return True
        if self._leaky is None:
            bad = np.pad((self.kinds == WATER) | (self.kinds == BLOCKED), 1, constant_values=True)
            out = (
                bad[2:, 1:-1, 1:-1] | bad[:-2, 1:-1, 1:-1] | bad[1:-1, 2:, 1:-1]
                | bad[1:-1, 1:-1, 2:] | bad[1:-1, 1:-1, :-2]
            )  # fmt: skip
            self._leaky = np.ascontiguousarray(out, dtype=np.uint8).tobytes()
        return bool(self._leaky[n])
