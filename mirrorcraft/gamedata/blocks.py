"""Block states ↔ global palette ids for 1.19.2, block facts, collision boxes and numpy lookup tables.

Chunk sections, block-change packets and Anvil saves all speak in global block-state ids (0..21447 in
1.19.2). A state id is ``min_state + index`` where ``index`` enumerates the block's properties in their
declared order with the *last* property varying fastest, and boolean properties ordered true, false
(the order minecraft-data and the vanilla report agree on). The facts come from minecraft-data 3.119.0
(``data/pc/1.19.2``), vendored by ``scripts/regen_gamedata.py``.
"""

from __future__ import annotations

import bisect
import operator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from mirrorcraft.errors import GameDataError
from mirrorcraft.gamedata._data import bare, load_json

if TYPE_CHECKING:
    import numpy as np

#: Number of block states in 1.19.2 (global palette size; ceil(log2) = 15 bits per entry).
NUM_BLOCK_STATES = 21448

Box = tuple[float, float, float, float, float, float]


@dataclass(frozen=True, slots=True)
class BlockInfo:
    """One vanilla block (all its states).

    Attributes:
        name: Full name, e.g. ``minecraft:oak_log``.
        id: Numeric block registry id.
        min_state / max_state / default_state: Global state ids.
        properties: Ordered ``(property, allowed values)`` pairs, values as strings.
        hardness: Seconds-scale hardness, ``None`` for unbreakable blocks (bedrock, portals...).
        resistance: Blast resistance.
        diggable: False for unbreakable blocks.
        material: minecraft-data's mining material (e.g. ``mineable/pickaxe``, ``default``).
        harvest_tools: Item names (``minecraft:`` form) that make the block drop, ``None`` when any
            tool (or a hand) does.
        transparent / emit_light / filter_light: Lighting facts.
        drops: Item names minecraft-data lists as the block's usual drops (not loot-table exact).
    """

    name: str
    id: int
    min_state: int
    max_state: int
    default_state: int
    properties: tuple[tuple[str, tuple[str, ...]], ...]
    hardness: float | None
    resistance: float
    diggable: bool
    material: str
    harvest_tools: frozenset[str] | None
    transparent: bool
    emit_light: int
    filter_light: int
    drops: tuple[str, ...]
    _shapes: Any = field(repr=False, compare=False)

    @property
    def num_states(self) -> int:
        """How many states the block has."""
        return self.max_state - self.min_state + 1

    def state_properties(self, state_id: int) -> dict[str, str]:
        """The property values of one of this block's states.

        Raises:
            GameDataError: ``state_id`` is not one of this block's states.
        """
        if not self.min_state <= state_id <= self.max_state:
            raise GameDataError(
                f"state {state_id} is not a state of {self.name} ({self.min_state}..{self.max_state})"
            )
        index = state_id - self.min_state
        out: dict[str, str] = {}
        for prop, values in reversed(self.properties):
            index, i = divmod(index, len(values))
            out[prop] = values[i]
        return dict(reversed(out.items()))

    def state(self, **properties: str | int | bool) -> int:
        """The state id for the given properties (omitted ones take the default state's values).

        Raises:
            GameDataError: Unknown property or value (the message names it and lists the allowed ones).
        """
        current = self.state_properties(self.default_state)
        for prop, value in properties.items():
            allowed = dict(self.properties).get(prop)
            if allowed is None:
                names = [p for p, _ in self.properties]
                raise GameDataError(f"{self.name} has no property {prop!r}; its properties are {names}")
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if text not in allowed:
                raise GameDataError(
                    f"{self.name}: {prop}={value!r} is not allowed; values are {list(allowed)}"
                )
            current[prop] = text
        index = 0
        for prop, values in self.properties:
            index = index * len(values) + values.index(current[prop])
        return self.min_state + index

    def collision_boxes(self, state_id: int) -> tuple[Box, ...]:
        """Collision boxes ``(x0, y0, z0, x1, y1, z1)`` in block-local coordinates (minecraft-data).

        Raises:
            GameDataError: ``state_id`` is not one of this block's states.
        """
        if not self.min_state <= state_id <= self.max_state:
            raise GameDataError(
                f"state {state_id} is not a state of {self.name} ({self.min_state}..{self.max_state})"
            )
        shape = self._shapes if isinstance(self._shapes, int) else self._shapes[state_id - self.min_state]
        return _shape_boxes(shape)


@cache
def _shape_boxes(shape_id: int) -> tuple[Box, ...]:
    return tuple(tuple(float(v) for v in box) for box in load_json("blocks")["shapes"][str(shape_id)])  # type: ignore[misc]


@cache
def _tables() -> tuple[tuple[BlockInfo, ...], dict[str, BlockInfo]]:
    raw = load_json("blocks")
    blocks = []
    for b in raw["blocks"]:
        tools = b["harvest_tools"]
        blocks.append(
            BlockInfo(
                name=f"minecraft:{b['name']}",
                id=b["id"],
                min_state=b["min"],
                max_state=b["max"],
                default_state=b["default"],
                properties=tuple((p, tuple(v)) for p, v in b["props"]),
                hardness=b["hardness"],
                resistance=b["resistance"],
                diggable=b["diggable"],
                material=b["material"],
                harvest_tools=None if tools is None else frozenset(f"minecraft:{t}" for t in tools),
                transparent=b["transparent"],
                emit_light=b["emit_light"],
                filter_light=b["filter_light"],
                drops=tuple(f"minecraft:{d}" for d in b["drops"]),
                _shapes=b["shapes"],
            )
        )
    if raw["num_states"] != NUM_BLOCK_STATES:
        raise GameDataError(
            f"vendored blocks.json.gz has {raw['num_states']} states, expected {NUM_BLOCK_STATES}"
        )
    by_name = {b.name[10:]: b for b in blocks}
    return tuple(blocks), by_name


def all_blocks() -> tuple[BlockInfo, ...]:
    """Every block, ordered by numeric id (== order of state ranges)."""
    return _tables()[0]


def block(name: str) -> BlockInfo:
    """Look up a block by name (with or without ``minecraft:``).

    Raises:
        GameDataError: Unknown block.
    """
    info = _tables()[1].get(bare(name))
    if info is None:
        raise GameDataError(f"unknown block {name!r} (1.19.2)")
    return info


def block_by_id(block_id: int) -> BlockInfo:
    """Look up a block by its numeric registry id.

    Raises:
        GameDataError: Out of range.
    """
    blocks = _tables()[0]
    if not 0 <= block_id < len(blocks):
        raise GameDataError(f"unknown block id {block_id} (1.19.2 has 0..{len(blocks) - 1})")
    return blocks[block_id]


def state_id(name: str, **properties: str | int | bool) -> int:
    """Global state id of ``name`` with ``properties`` (omitted ones take the block's default).

    Example: ``state_id("furnace", facing="north", lit=False) == 3629``.

    Raises:
        GameDataError: Unknown block, property or value.
    """
    return block(name).state(**properties)


def block_of_state(state: int) -> BlockInfo:
    """The block a global state id belongs to.

    Raises:
        GameDataError: ``state`` is outside 0..NUM_BLOCK_STATES-1.
    """
    try:
        index = operator.index(state)
    except TypeError as err:
        raise GameDataError(f"block state id must be an integer, got {state!r}") from err
    if not 0 <= index < NUM_BLOCK_STATES:
        raise GameDataError(f"block state id {index} out of range 0..{NUM_BLOCK_STATES - 1}")
    blocks = _tables()[0]
    return blocks[bisect.bisect_right(_min_states(), index) - 1]


@cache
def _min_states() -> list[int]:
    return [b.min_state for b in _tables()[0]]


def state_of(state: int) -> tuple[str, dict[str, str]]:
    """``(full name, all properties as strings)`` of a global state id.

    Raises:
        GameDataError: Out-of-range state id.
    """
    info = block_of_state(state)
    return info.name, info.state_properties(operator.index(state))


def collision_boxes(state: int) -> tuple[Box, ...]:
    """Collision boxes of a global state id (see :meth:`BlockInfo.collision_boxes`)."""
    return block_of_state(state).collision_boxes(operator.index(state))


@dataclass(frozen=True)
class StateTables:
    """Read-only numpy arrays indexed by global state id, for mapping whole chunk arrays at once.

    Attributes:
        block_id: uint16, the numeric block id of each state.
        default_state: int32 indexed by *block* id, the block's default state.
        is_air: bool, air / cave_air / void_air.
        full_cube: bool, the collision shape is exactly one unit cube.
        no_collision: bool, the state has no collision box at all.
        hardness: float32, ``-1`` for unbreakable.
        emit_light / filter_light: uint8.
    """

    block_id: np.ndarray
    default_state: np.ndarray
    is_air: np.ndarray
    full_cube: np.ndarray
    no_collision: np.ndarray
    hardness: np.ndarray
    emit_light: np.ndarray
    filter_light: np.ndarray


@cache
def state_tables() -> StateTables:
    """Build (once) the per-state numpy lookup tables."""
    import numpy as np

    blocks = _tables()[0]
    shapes = load_json("blocks")["shapes"]
    full = {k for k, v in shapes.items() if v == [[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]}
    empty = {k for k, v in shapes.items() if not v}
    n = NUM_BLOCK_STATES
    block_id = np.empty(n, dtype=np.uint16)
    is_air = np.zeros(n, dtype=bool)
    full_cube = np.zeros(n, dtype=bool)
    no_collision = np.zeros(n, dtype=bool)
    hardness = np.empty(n, dtype=np.float32)
    emit = np.empty(n, dtype=np.uint8)
    filt = np.empty(n, dtype=np.uint8)
    default = np.empty(len(blocks), dtype=np.int32)
    for b in blocks:
        sl = slice(b.min_state, b.max_state + 1)
        block_id[sl] = b.id
        default[b.id] = b.default_state
        is_air[sl] = b.name in ("minecraft:air", "minecraft:cave_air", "minecraft:void_air")
        per_state = [b._shapes] * b.num_states if isinstance(b._shapes, int) else b._shapes
        full_cube[sl] = [str(s) in full for s in per_state]
        no_collision[sl] = [str(s) in empty for s in per_state]
        hardness[sl] = -1.0 if b.hardness is None else b.hardness
        emit[sl] = b.emit_light
        filt[sl] = b.filter_light
    arrays = (block_id, default, is_air, full_cube, no_collision, hardness, emit, filt)
    for a in arrays:
        a.setflags(write=False)
    return StateTables(*arrays)
