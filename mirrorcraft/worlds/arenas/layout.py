"""Expand an :class:`~.spec.ArenaSpec` into cells, block entities and animals, and reflect it for the mirror.

:func:`expand` turns every feature into concrete cells (``(x, y, z) → block state``) in the original's
coordinates, then, for the ``mirrored`` variant, reflects every cell, block state (facing, connections, chest
halves), block entity and animal across the mirror plane (:class:`~.spec.MirrorSpec`). Team-coloured blocks
(``@cap``) are resolved last, by the half the cell ends up in, so a red cap reflected into blue's half becomes
blue's cap. Two features that claim the same cell are a spec error naming both (the arena is declared, not
painted over).

Farm plot layouts (the original publishes each farm's coordinate and width, not its cells; ours are documented
in docs/pillagerbench.md): a plot is 3 cells along x (``x0 − 1 .. x0 + 1``) and ``size[1]`` cells along z
centred on the farm's coordinate, at crop level ``y0`` (ground top at ``y0 − 1``):

* wheat, carrots, potatoes, beetroots: water in the middle column at ``y0 − 1`` (irrigation), moist farmland
  in the two side columns with the crop fully grown on top;
* sugar_cane: water in the middle column, two-block canes on the grass of the side columns;
* sweet_berry_bush: a bush with ripe berries (age 3) on every cell;
* cocoa: a two-block jungle log in every cell of the middle column, ripe pods (age 2) on its west and east
  faces at both heights;
* melon_pumpkin: water in the middle column, moist farmland with a melon stem (west column) or pumpkin stem
  (east column) attached to a fruit one cell further out (``x0 ∓ 2``), so the plot's fruit row reaches 5 cells.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil.chunk import BlockState
from mirrorcraft.worlds.arenas.spec import (
    _ROLE_RE,
    ArenaSpec,
    BlocksFeature,
    ChestFeature,
    EntitiesFeature,
    FarmFeature,
    FillFeature,
    FurnaceFeature,
    GiantMushroomFeature,
    ItemSpec,
    MirrorSpec,
    Pos,
    parse_block,
)

__all__ = [
    "VARIANTS",
    "ArenaLayout",
    "BlockEntity",
    "EntityPlacement",
    "Variant",
    "expand",
    "farm_cells",
    "reflect_state",
]

Variant = Literal["original", "mirrored"]
VARIANTS: tuple[Variant, Variant] = ("original", "mirrored")

#: Oriented properties handled by :func:`reflect_state`; any other property of these names is refused.
_UNSUPPORTED = frozenset({"shape", "hinge", "orientation"})
_OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}


@dataclass(frozen=True)
class BlockEntity:
    """A chest or furnace: where, which, and its stacks as ``(slot, item, count, damage)``."""

    kind: Literal["chest", "furnace"]
    pos: Pos
    items: tuple[tuple[int, str, int, int | None], ...]
    label: str


@dataclass(frozen=True)
class EntityPlacement:
    """One animal: type, feet position, yaw and the feature it came from."""

    entity: Literal["cow", "chicken"]
    pos: tuple[float, float, float]
    yaw: float
    label: str


@dataclass
class ArenaLayout:
    """Everything the builder writes on top of the flat ground.

    Attributes:
        spec: The spec it came from.
        variant: ``original`` or ``mirrored``.
        cells: Cell → full block state (ground cells a feature replaces are included: water, farmland).
        labels: Cell → label of the feature that placed it.
        block_entities: Chests and furnaces (their blocks are in ``cells``).
        entities: Cows and chickens.
    """

    spec: ArenaSpec
    variant: Variant
    cells: dict[Pos, BlockState] = field(default_factory=dict)
    labels: dict[Pos, str] = field(default_factory=dict)
    block_entities: list[BlockEntity] = field(default_factory=list)
    entities: list[EntityPlacement] = field(default_factory=list)

    def cells_of(self, label: str) -> dict[Pos, BlockState]:
        """The cells a feature placed (by its label)."""
        return {p: s for p, s in self.cells.items() if self.labels[p] == label}

    def block_at(self, pos: Pos) -> BlockState:
        """The state the arena has at ``pos`` (ground layers where no feature placed anything)."""
        if pos in self.cells:
            return self.cells[pos]
        return ground_state(self.spec, pos[1])


def ground_state(spec: ArenaSpec, y: int) -> BlockState:
    """The flat ground's state at height ``y`` (air above the top layer)."""
    i = y + 64
    if 0 <= i < len(spec.ground.layers):
        return parse_block(spec.ground.layers[i])
    return ("minecraft:air", ())


def _box(a: Pos, b: Pos) -> Iterator[Pos]:
    for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1):
        for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1):
            for z in range(min(a[2], b[2]), max(a[2], b[2]) + 1):
                yield (x, y, z)


def farm_cells(f: FarmFeature) -> list[tuple[Pos, str]]:
    """The cells of a farm plot as ``(cell, block text)`` (layouts in the module docstring)."""
    x0, y0, z0 = f.center
    h = f.size[1] // 2
    zs = range(z0 - h, z0 + h + 1)
    out: list[tuple[Pos, str]] = []
    ripe = {"wheat": 7, "carrots": 7, "potatoes": 7, "beetroots": 3}
    if f.crop in ripe:
        for z in zs:
            out.append(((x0, y0 - 1, z), "water"))
            for x in (x0 - 1, x0 + 1):
                out.append(((x, y0 - 1, z), "farmland[moisture=7]"))
                out.append(((x, y0, z), f"{f.crop}[age={ripe[f.crop]}]"))
    elif f.crop == "sugar_cane":
        for z in zs:
            out.append(((x0, y0 - 1, z), "water"))
            for x in (x0 - 1, x0 + 1):
                out += [((x, y0, z), "sugar_cane"), ((x, y0 + 1, z), "sugar_cane")]
    elif f.crop == "sweet_berry_bush":
        out += [((x, y0, z), "sweet_berry_bush[age=3]") for z in zs for x in (x0 - 1, x0, x0 + 1)]
    elif f.crop == "cocoa":
        for z in zs:
            for y in (y0, y0 + 1):
                out.append(((x0, y, z), "jungle_log[axis=y]"))
                # A pod's facing points at the log it hangs on.
                out.append(((x0 - 1, y, z), "cocoa[age=2,facing=east]"))
                out.append(((x0 + 1, y, z), "cocoa[age=2,facing=west]"))
    elif f.crop == "melon_pumpkin":
        for z in zs:
            out.append(((x0, y0 - 1, z), "water"))
            for dx, stem, fruit, facing in (
                (-1, "melon", "melon", "west"),
                (1, "pumpkin", "pumpkin", "east"),
            ):
                out.append(((x0 + dx, y0 - 1, z), "farmland[moisture=7]"))
                out.append(((x0 + dx, y0, z), f"attached_{stem}_stem[facing={facing}]"))
                out.append(((x0 + 2 * dx, y0, z), fruit))
    else:  # pragma: no cover - the spec's Literal makes this unreachable
        raise WorldError(f"farm {f.label}: no layout for crop {f.crop!r}")
    return out


def _feature_cells(f: object) -> list[tuple[Pos, str]]:
    if isinstance(f, BlocksFeature):
        return [(p, f.block) for p in f.at]
    if isinstance(f, FillFeature):
        return [(p, f.block) for p in _box(f.from_, f.to)]
    if isinstance(f, GiantMushroomFeature):
        x, y, z = f.stem_base
        top = y + f.stem_height - 1
        out = [((x, yy, z), f.stem) for yy in range(y, top + 1)]
        caps = [(x - 1, top, z), (x + 1, top, z), (x, top, z - 1), (x, top, z + 1), (x, top + 1, z)]
        return out + [(c, f.cap) for c in caps]
    if isinstance(f, FarmFeature):
        return farm_cells(f)
    if isinstance(f, ChestFeature):
        return [(f.at, f"chest[facing={f.facing}]")]
    if isinstance(f, FurnaceFeature):
        return [(f.at, f"furnace[facing={f.facing}]")]
    return []


def reflect_state(state: BlockState, axis: Literal["x", "z"]) -> BlockState:
    """A block state reflected across a plane normal to ``axis`` (vanilla ``Mirror``: z → LEFT_RIGHT, x →
    FRONT_BACK): facings and side connections swap, a chest half swaps left/right, a 16-step rotation mirrors.

    Raises:
        WorldError: a property whose reflection is not modelled (stairs/rail ``shape``, door ``hinge``...).
    """
    name, props = state
    flip = ("north", "south") if axis == "z" else ("east", "west")
    out: dict[str, str] = {}
    for key, value in props:
        if key in _UNSUPPORTED:
            raise WorldError(f"cannot mirror {name}: property {key!r} is not modelled")
        if key == "facing" and value in flip:
            value = _OPPOSITE[value]
        elif key == "rotation":
            r = int(value)
            value = str((8 - r) % 16 if axis == "z" else (16 - r) % 16)
        elif key == "type" and name.endswith("chest") and value in ("left", "right"):
            value = "right" if value == "left" else "left"
        if key in flip:
            key = _OPPOSITE[key]
        out[key] = value
    return name, tuple(sorted(out.items()))


def _connect_fences(cells: dict[Pos, BlockState]) -> None:
    """Join neighbouring fences as vanilla's placement does (a lone fence is a thin post a cow walks past).

    Only fence-to-fence joints are made: the arenas put no fence against a full block.
    """
    sides = {"north": (0, -1), "south": (0, 1), "west": (-1, 0), "east": (1, 0)}
    for (x, y, z), (name, props) in list(cells.items()):
        if not name.endswith("_fence"):
            continue
        joined = {
            k: "true" if cells.get((x + dx, y, z + dz), ("",))[0].endswith("_fence") else "false"
            for k, (dx, dz) in sides.items()
        }
        cells[(x, y, z)] = (name, tuple(sorted((dict(props) | joined).items())))


def _reflect_cell(m: MirrorSpec, p: Pos) -> Pos:
    return (m.cell(p[0]), p[1], p[2]) if m.axis == "x" else (p[0], p[1], m.cell(p[2]))


def _stacks(items: list[ItemSpec]) -> tuple[tuple[int, str, int, int | None], ...]:
    used = {i.slot for i in items if i.slot is not None}
    free = (s for s in range(27) if s not in used)
    return tuple((i.slot if i.slot is not None else next(free), i.item, i.count, i.damage) for i in items)


def expand(spec: ArenaSpec, variant: Variant = "original") -> ArenaLayout:
    """The arena's cells, block entities and animals for one variant.

    Raises:
        WorldError: two features claim one cell, a cell lies outside the world border or the world's height,
            a team block lies on the mirror plane, or a state cannot be mirrored.
    """
    if variant not in VARIANTS:
        raise WorldError(f"unknown arena variant {variant!r}; expected one of {VARIANTS}")
    m = spec.mirror
    (bx, bz), size = spec.level.border.center, spec.level.border.size
    texts: dict[Pos, str] = {}
    labels: dict[Pos, str] = {}
    for k, f in enumerate(spec.features):
        for pos, text in _feature_cells(f):
            x, y, z = pos
            if not (abs(x + 0.5 - bx) <= size / 2 and abs(z + 0.5 - bz) <= size / 2 and -64 <= y <= 319):
                raise WorldError(
                    f"{spec.id}: features.{k} ({f.label}): cell {list(pos)} is outside the arena"
                )
            if pos in texts:
                raise WorldError(
                    f"{spec.id}: features.{k} ({f.label}) and {labels[pos]!r} both place a block at {list(pos)}"
                )
            texts[pos], labels[pos] = text, f.label
    layout = ArenaLayout(spec, variant)
    mirrored = variant == "mirrored"
    for pos, text in texts.items():
        state = None if _ROLE_RE.match(text) else parse_block(text)
        if mirrored:
            pos_out = _reflect_cell(m, pos)
            state = reflect_state(state, m.axis) if state is not None else None
        else:
            pos_out = pos
        if state is None:  # a team block: the colour of the half it lands in
            side = m.half_of(pos_out)
            if side is None:
                raise WorldError(
                    f"{spec.id}: {labels[pos]}: team block {text} at {list(pos)} is on the mirror plane"
                )
            state = parse_block(spec.team_blocks[text[1:]][side])
        layout.cells[pos_out] = state
        layout.labels[pos_out] = labels[pos]
    _connect_fences(layout.cells)
    for f in spec.features:
        if isinstance(f, ChestFeature | FurnaceFeature):
            items = f.items if isinstance(f, ChestFeature) else ([f.fuel] if f.fuel else [])
            stacks = (
                _stacks(items)
                if isinstance(f, ChestFeature)
                else tuple((1, i.item, i.count, i.damage) for i in items)
            )
            pos = _reflect_cell(m, f.at) if mirrored else f.at
            layout.block_entities.append(BlockEntity(f.kind, pos, stacks, f.label))
        elif isinstance(f, EntitiesFeature):
            x, y, z = f.at
            yaw = f.yaw
            if mirrored:
                if m.axis == "z":
                    z, yaw = m.point(z), 180.0 - yaw
                else:
                    x, yaw = m.point(x), -yaw
            yaw = math.remainder(yaw, 360.0)
            layout.entities += [EntityPlacement(f.entity, (x, y, z), yaw, f.label) for _ in range(f.count)]
    return layout
