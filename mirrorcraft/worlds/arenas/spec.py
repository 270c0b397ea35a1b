"""Arena specs: the declarative, validated description of a PillagerBench arena (YAML in ``specs/``).

Why a spec and not a world file: the arenas are *built* from facts written down here (coordinates, block
kinds, counts, chest contents), never copied from the original's saves (its repository has no licence, and
its arena region files are not even in the public snapshot). The spec says what the original arena holds and
where; :mod:`.layout` expands it into blocks, block entities and entities, and :mod:`.build` writes the
1.19.2 save. docs/pillagerbench.md lists every fact with its source.

Why pydantic with ``extra="forbid"``: a misspelt field or block in a hand-edited spec must fail at load with
the file and the dotted field path (``specs/dash_and_dine.yaml: features.12.block: ...``), not build a wrong
arena. Block strings are checked against the 1.19.2 block-state table (:mod:`mirrorcraft.gamedata`) and
normalised to the full state vanilla writes in a palette.

Sides and the mirror: red and blue are the two spawn halves of the arena, separated by the **mirror plane**
(``mirror.axis`` = ``z`` and ``mirror.plane`` = a continuous coordinate on a block centre or a block boundary).
A block cell ``c`` reflects to ``2·plane − 1 − c``, a continuous position ``p`` to ``2·plane − p``. Team-bound
facts (players, spawns, team areas, judges) stay with their team in the mirrored variant, so the spec must make
them mirror images of each other (checked here); everything else (blocks, chests, furnaces, animals) is
reflected. A team-coloured block (``@cap``) takes the colour of the half it lands in.
"""

from __future__ import annotations

import math
import re
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mirrorcraft.errors import GameDataError, WorldError
from mirrorcraft.worlds.anvil.chunk import BlockState

__all__ = [
    "ARENA_NAMES",
    "SIDES",
    "ArenaSpec",
    "BlocksFeature",
    "ChestFeature",
    "EntitiesFeature",
    "FarmFeature",
    "Feature",
    "FillFeature",
    "FurnaceFeature",
    "GiantMushroomFeature",
    "ItemSpec",
    "JudgeSpec",
    "MirrorSpec",
    "TeamSpec",
    "load_arena_spec",
    "parse_arena_spec",
    "parse_block",
]

#: The shipped arenas (``specs/<name>.yaml``), in catalogue order.
ARENA_NAMES: tuple[str, ...] = ("mushroom_war", "dash_and_dine")
SIDES: tuple[str, str] = ("red", "blue")
Side = Literal["red", "blue"]

MIN_Y, MAX_Y = -64, 319
Pos = tuple[int, int, int]
FloatPos = tuple[float, float, float]

_BLOCK_RE = re.compile(r"^(?P<name>[a-z0-9_.\-]+(?::[a-z0-9_./\-]+)?)(?:\[(?P<props>[^\[\]]*)\])?$")
_ROLE_RE = re.compile(r"^@(?P<role>[a-z][a-z0-9_]*)$")


def parse_block(text: str) -> BlockState:
    """``"chest[facing=west]"`` → the full 1.19.2 block state (every property, defaults filled in).

    Raises:
        ValueError: malformed text, unknown block, property or value (pydantic reports it per field).
    """
    from mirrorcraft.gamedata import blocks as gblocks

    m = _BLOCK_RE.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"{text!r} is not a block (expected 'name' or 'name[prop=value,...]')")
    name = m.group("name")
    if ":" not in name:
        name = f"minecraft:{name}"
    props: dict[str, str] = {}
    if m.group("props"):
        for part in m.group("props").split(","):
            key, sep, value = part.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise ValueError(f"{text!r}: property {part!r} is not 'name=value'")
            props[key.strip()] = value.strip()
    try:
        state = gblocks.state_id(name, **props)
        full_name, full_props = gblocks.state_of(state)
    except GameDataError as err:
        raise ValueError(f"{text!r}: {err}") from None
    return full_name, tuple(sorted(full_props.items()))


def _check_block_text(value: str) -> str:
    if _ROLE_RE.match(value):
        return value
    parse_block(value)
    return value


BlockText = Annotated[str, Field(description="'name', 'name[prop=value,...]' or '@role' (a team block).")]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BorderSpec(_Model):
    """The world border: a square of ``size`` blocks around ``center`` (x, z)."""

    center: tuple[float, float]
    size: float = Field(gt=0, le=1024)


class LevelSpec(_Model):
    """What ``level.dat`` says: the original's server settings and game rules (docs/pillagerbench.md)."""

    difficulty: Literal["peaceful", "easy", "normal", "hard"] = "peaceful"
    game_mode: Literal["survival", "creative", "adventure", "spectator"] = "survival"
    day_time: int = Field(6000, ge=0, lt=24000)
    game_rules: dict[str, bool | int] = Field(default_factory=dict)
    spawn: Pos
    border: BorderSpec


class GroundSpec(_Model):
    """Flat ground: ``layers`` bottom-up from y = −64; the top layer's y must be ``ground_y``."""

    layers: list[str] = Field(min_length=1, max_length=64)
    ground_y: int

    @field_validator("layers")
    @classmethod
    def _layers(cls, v: list[str]) -> list[str]:
        for text in v:
            parse_block(text)
        return v

    @model_validator(mode="after")
    def _top(self) -> GroundSpec:
        top = MIN_Y + len(self.layers) - 1
        if top != self.ground_y:
            raise ValueError(
                f"ground_y {self.ground_y} but {len(self.layers)} layers from y=-64 end at {top}"
            )
        return self


class MirrorSpec(_Model):
    """The line between the halves and which half is red."""

    axis: Literal["x", "z"]
    plane: float = Field(description="Continuous coordinate of the mirror plane (block centre or boundary).")
    red_half: Literal["negative", "positive"] = Field(
        description="Red's half: coordinates below ('negative') or above ('positive') the plane."
    )

    @field_validator("plane")
    @classmethod
    def _plane(cls, v: float) -> float:
        if not float(2 * v).is_integer():
            raise ValueError(f"plane {v} must lie on a block centre or a block boundary (2·plane integer)")
        return v

    def cell(self, c: int) -> int:
        """The reflection of a block cell coordinate."""
        return int(2 * self.plane) - 1 - c

    def point(self, p: float) -> float:
        """The reflection of a continuous coordinate."""
        return 2 * self.plane - p

    def half_of(self, cell: Pos) -> Side | None:
        """Which side's half a cell lies in; None for a cell the plane cuts through."""
        c = cell[0] if self.axis == "x" else cell[2]
        centre = c + 0.5
        if centre == self.plane:
            return None
        below = centre < self.plane
        return "red" if below == (self.red_half == "negative") else "blue"


class AreaSpec(_Model):
    """A team area: a sphere of ``radius`` blocks around ``center`` (Mushroom War)."""

    center: Pos
    radius: float = Field(gt=0)


class TeamSpec(_Model):
    """One team: its players, where each spawns, its area."""

    players: list[str] = Field(min_length=1, max_length=4)
    spawns: list[Pos] = Field(min_length=1, max_length=4)
    area: AreaSpec | None = None

    @model_validator(mode="after")
    def _sizes(self) -> TeamSpec:
        if len(self.players) != len(self.spawns):
            raise ValueError(f"{len(self.players)} players but {len(self.spawns)} spawns")
        return self


class JudgeSpec(_Model):
    """A judge player the scenario logic runs (spectator in Mushroom War, a team's server in Dash & Dine)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_]{3,16}$")
    pos: Pos
    game_mode: Literal["survival", "creative", "adventure", "spectator"]
    team: Side | None = None


class ItemSpec(_Model):
    """A stack in a container: item id, count, optional slot and damage (tools)."""

    item: str = Field(pattern=r"^(minecraft:)?[a-z0-9_]+$")
    count: int = Field(ge=1, le=64)
    slot: int | None = Field(None, ge=0, le=26)
    damage: int | None = Field(None, ge=0)

    @field_validator("item")
    @classmethod
    def _known(cls, v: str) -> str:
        from mirrorcraft.gamedata import registries

        name = v if ":" in v else f"minecraft:{v}"
        try:
            registries.item(name)
        except GameDataError as err:
            raise ValueError(str(err).strip("'\"")) from None
        return name

    @model_validator(mode="after")
    def _stack(self) -> ItemSpec:
        from mirrorcraft.gamedata import registries

        info = registries.item(self.item)
        if self.count > info.stack_size:
            raise ValueError(f"{self.item} stacks to {info.stack_size}, not {self.count}")
        if self.damage is not None and info.max_durability is None:
            raise ValueError(f"{self.item} takes no damage")
        return self


class _Feature(_Model):
    label: str = Field(min_length=1, description="What it is (docs, tests, overlap errors).")

    @field_validator("block", "cap", "stem", check_fields=False)
    @classmethod
    def _block_text(cls, v: str) -> str:
        return _check_block_text(v)


class BlocksFeature(_Feature):
    """One block kind at listed cells."""

    kind: Literal["blocks"]
    block: BlockText
    at: list[Pos] = Field(min_length=1)


class FillFeature(_Feature):
    """One block kind filling a box (inclusive corners)."""

    kind: Literal["fill"]
    block: BlockText
    from_: Pos = Field(alias="from")
    to: Pos

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class GiantMushroomFeature(_Feature):
    """A giant mushroom as the original builds it: a stem ``stem_height`` blocks tall from ``stem_base`` and five
    cap blocks, four beside the stem's top block and one on top of it (source: the original's block list)."""

    kind: Literal["giant_mushroom"]
    stem_base: Pos
    stem_height: int = Field(2, ge=1, le=8)
    cap: BlockText
    stem: BlockText = "mushroom_stem"


#: Farm crops: the plot layouts of :func:`mirrorcraft.worlds.arenas.layout.farm_cells` (docs/pillagerbench.md).
FARM_CROPS = (
    "wheat",
    "carrots",
    "potatoes",
    "beetroots",
    "sugar_cane",
    "sweet_berry_bush",
    "cocoa",
    "melon_pumpkin",
)


class FarmFeature(_Feature):
    """A farm plot of ``size`` = (cells along x, cells along z) centred on ``center`` (the crop level).

    The layout per crop is code (documented in docs/pillagerbench.md), since the original's farm cells are not
    published: its coordinates and widths are."""

    kind: Literal["farm"]
    crop: Literal[FARM_CROPS]  # type: ignore[valid-type]
    center: Pos
    size: tuple[int, int]

    @field_validator("size")
    @classmethod
    def _size(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] != 3 or v[1] < 1 or v[1] % 2 == 0 or v[1] > 15:
            raise ValueError(f"size {list(v)}: farms are 3 cells along x and an odd 1..15 cells along z")
        return v


class _ContainerFeature(_Feature):
    at: Pos
    facing: Literal["north", "south", "east", "west"]


class ChestFeature(_ContainerFeature):
    """A single chest with its contents (vanilla ``Items`` in the chunk's ``block_entities``)."""

    kind: Literal["chest"]
    items: list[ItemSpec] = Field(default_factory=list, max_length=27)

    @model_validator(mode="after")
    def _slots(self) -> ChestFeature:
        slots = [i.slot for i in self.items if i.slot is not None]
        if len(set(slots)) != len(slots):
            raise ValueError(f"items: slots {slots} repeat")
        return self


class FurnaceFeature(_ContainerFeature):
    """A furnace with fuel (slot 1), unlit."""

    kind: Literal["furnace"]
    fuel: ItemSpec | None = None


class EntitiesFeature(_Feature):
    """``count`` animals of one kind standing at a feet position."""

    kind: Literal["entities"]
    entity: Literal["cow", "chicken"]
    at: FloatPos
    count: int = Field(1, ge=1, le=64)
    yaw: float = Field(0.0, ge=-360, le=360)


Feature = Annotated[
    BlocksFeature
    | FillFeature
    | GiantMushroomFeature
    | FarmFeature
    | ChestFeature
    | FurnaceFeature
    | EntitiesFeature,
    Field(discriminator="kind"),
]


class MushroomWarRules(_Model):
    """The Mushroom War judge's rules (PillagerBench scenario 1; shared/spec/pillagerbench.md "Judge").

    Every ``period_ticks`` game ticks, in a team area holding at most ``regrow_max_slime`` slime blocks each
    missing cap block regrows with ``regrow_chance``; every original slime position of the area re-pollutes
    with ``repollute_chance`` whatever the area holds. A team's score is the count of ``score_items[side]``
    held by its players.
    """

    kind: Literal["mushroom_war"]
    period_ticks: int = Field(gt=0)
    regrow_chance: float = Field(ge=0, le=1)
    repollute_chance: float = Field(ge=0, le=1)
    regrow_max_slime: int = Field(ge=0)
    pollutant: BlockText
    score_items: dict[Side, str]

    @field_validator("score_items")
    @classmethod
    def _both_items(cls, v: dict[str, str]) -> dict[str, str]:
        if set(v) != set(SIDES):
            raise ValueError(f"score_items must name red's and blue's item, got {sorted(v)}")
        return {side: ItemSpec(item=item, count=1).item for side, item in v.items()}  # known 1.19.2 items

    @field_validator("pollutant")
    @classmethod
    def _pollutant(cls, v: str) -> str:
        parse_block(v)
        return v


class DashAndDineRules(_Model):
    """The Dash & Dine judges' rules (PillagerBench scenario 2): every ``period_ticks`` each team judge's
    inventory is scored (count x the food's hunger + saturation, from game data) and cleared; a team's first
    ``max_food_types`` distinct foods lock in, other foods score nothing."""

    kind: Literal["dash_and_dine"]
    period_ticks: int = Field(gt=0)
    max_food_types: int = Field(gt=0)


JudgeRules = Annotated[MushroomWarRules | DashAndDineRules, Field(discriminator="kind")]


class ArenaSpec(_Model):
    """One arena: level settings, flat ground, teams, judges, the mirror, team-coloured blocks and features."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    version: int = Field(ge=1)
    title: str
    level: LevelSpec
    ground: GroundSpec
    mirror: MirrorSpec
    teams: dict[Side, TeamSpec]
    judges: list[JudgeSpec] = Field(default_factory=list)
    judge_rules: JudgeRules | None = None
    team_blocks: dict[str, dict[Side, BlockText]] = Field(default_factory=dict)
    features: list[Feature] = Field(min_length=1)

    @field_validator("teams")
    @classmethod
    def _both(cls, v: dict[str, TeamSpec]) -> dict[str, TeamSpec]:
        if set(v) != set(SIDES):
            raise ValueError(f"teams must be exactly red and blue, got {sorted(v)}")
        return v

    @field_validator("team_blocks")
    @classmethod
    def _team_blocks(cls, v: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for role, by_side in v.items():
            if not re.match(r"^[a-z][a-z0-9_]*$", role):
                raise ValueError(f"role {role!r}: lowercase words only")
            if set(by_side) != set(SIDES):
                raise ValueError(f"{role}: give a block for red and for blue")
            for text in by_side.values():
                parse_block(text)
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ArenaSpec:
        m = self.mirror
        cx, cz = self.level.border.center
        half = self.level.border.size / 2

        def inside(x: float, z: float) -> bool:
            return cx - half <= x <= cx + half and cz - half <= z <= cz + half

        def reflect(p: Pos) -> Pos:
            return (m.cell(p[0]), p[1], p[2]) if m.axis == "x" else (p[0], p[1], m.cell(p[2]))

        # The border must be symmetric, so the mirrored variant has the same playable square.
        along = cx if m.axis == "x" else cz
        if along != m.plane:
            raise ValueError(f"level.border.center must lie on the mirror plane ({m.axis} = {m.plane})")
        if not inside(self.level.spawn[0] + 0.5, self.level.spawn[2] + 0.5):
            raise ValueError("level.spawn is outside the world border")
        for side, team in self.teams.items():
            for k, s in enumerate(team.spawns):
                if m.half_of(s) != side:
                    raise ValueError(f"teams.{side}.spawns.{k}: {list(s)} is not in {side}'s half")
            if team.area is not None and m.half_of(team.area.center) != side:
                raise ValueError(f"teams.{side}.area.center is not in {side}'s half")
        red, blue = self.teams["red"], self.teams["blue"]
        if sorted(reflect(s) for s in red.spawns) != sorted(blue.spawns):
            raise ValueError("teams: blue's spawns must be the mirror images of red's (sides would differ)")
        if (red.area is None) != (blue.area is None) or (
            red.area is not None
            and blue.area is not None
            and (reflect(red.area.center) != blue.area.center or red.area.radius != blue.area.radius)
        ):
            raise ValueError("teams: blue's area must be the mirror image of red's")
        for side in SIDES:
            mine = sorted(reflect(j.pos) for j in self.judges if j.team == side)
            theirs = sorted(j.pos for j in self.judges if j.team == ("blue" if side == "red" else "red"))
            if mine != theirs:
                raise ValueError("judges: each team's judge must stand at the mirror image of the other's")
        for k, j in enumerate(self.judges):
            if j.team is None and reflect(j.pos) != j.pos:
                raise ValueError(f"judges.{k}: a judge of no team must stand on the mirror plane")
            if j.team is not None and m.half_of(j.pos) != j.team:
                raise ValueError(f"judges.{k}: {j.name} is not in {j.team}'s half")
        for k, f in enumerate(self.features):
            for text in _block_texts(f):
                role = _ROLE_RE.match(text)
                if role and role.group("role") not in self.team_blocks:
                    raise ValueError(f"features.{k} ({f.label}): unknown team block {text!r}")
            if isinstance(f, EntitiesFeature) and not inside(f.at[0], f.at[2]):
                raise ValueError(f"features.{k} ({f.label}): {list(f.at)} is outside the world border")
        return self

    def points(self, variant: str = "original") -> dict[str, Pos]:
        """The points of interest of the arena as played in ``variant``: label → cell (a farm's centre, a
        chest's or furnace's cell, the first cell of listed blocks, an animal's feet cell), the public facts the
        original's scenario description lists. The ``mirrored`` variant reflects them across the mirror plane
        (spawns, areas and judges stay: they are the sides'). Fills and giant mushrooms are not points."""
        m = self.mirror
        out: dict[str, Pos] = {}
        for f in self.features:
            if isinstance(f, FarmFeature):
                p = f.center
            elif isinstance(f, ChestFeature | FurnaceFeature):
                p = f.at
            elif isinstance(f, BlocksFeature):
                p = f.at[0]
            elif isinstance(f, EntitiesFeature):
                p = (math.floor(f.at[0]), math.floor(f.at[1]), math.floor(f.at[2]))
            else:
                continue
            if variant == "mirrored":
                p = (m.cell(p[0]), p[1], p[2]) if m.axis == "x" else (p[0], p[1], m.cell(p[2]))
            out[f.label] = tuple(p)  # type: ignore[assignment]
        return out

    @property
    def ground_y(self) -> int:
        """Y of the top ground block (players stand at ``ground_y + 1``)."""
        return self.ground.ground_y


def _block_texts(f: Any) -> list[str]:
    return [getattr(f, k) for k in ("block", "cap", "stem") if isinstance(getattr(f, k, None), str)]


def _format_errors(err: ValidationError, source: str) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"] if not (isinstance(p, str) and p in _KIND_TAGS))
        parts.append(f"{loc or '(root)'}: {str(e['msg']).removeprefix('Value error, ')}")
    return f"{source}: invalid arena spec: " + "; ".join(parts)


# pydantic puts the union tag into the location (features.3.blocks.block); drop it, the index names the feature.
_KIND_TAGS = frozenset({"blocks", "fill", "giant_mushroom", "farm", "chest", "furnace", "entities"})


def parse_arena_spec(data: Any, source: str = "<spec>") -> ArenaSpec:
    """Validate an arena spec (a mapping, or YAML/JSON text).

    Raises:
        WorldError: malformed YAML, or a field that is missing, unknown, out of bounds or inconsistent; the
            message names ``source``, the dotted field path and the reason.
    """
    if isinstance(data, str | bytes):
        try:
            data = yaml.safe_load(data)
        except yaml.YAMLError as err:
            raise WorldError(f"{source}: not valid YAML: {err}") from err
    if not isinstance(data, dict):
        raise WorldError(f"{source}: expected a mapping of arena fields, got {type(data).__name__}")
    try:
        return ArenaSpec.model_validate(data)
    except ValidationError as err:
        raise WorldError(_format_errors(err, source)) from err


def load_arena_spec(name_or_path: str | Path) -> ArenaSpec:
    """A shipped spec by name (``"mushroom_war"``) or any spec file by path.

    Raises:
        WorldError: unknown name, unreadable file or invalid spec (naming the file and the field).
    """
    if isinstance(name_or_path, str) and name_or_path in ARENA_NAMES:
        res = resources.files("mirrorcraft.worlds.arenas") / "specs" / f"{name_or_path}.yaml"
        return parse_arena_spec(res.read_text(encoding="utf-8"), source=f"arenas/specs/{name_or_path}.yaml")
    path = Path(name_or_path)
    if not path.is_file():
        raise WorldError(
            f"no arena named {str(name_or_path)!r} (shipped: {list(ARENA_NAMES)}) and no such file"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise WorldError(f"{path}: cannot read the arena spec ({err})") from err
    return parse_arena_spec(text, source=str(path))
