"""Skills as the agent sees them: specs, validated calls, outcome reports and the semantic signature σ.

One skill call is one action, whatever its internal work (spec, "Action semantics"). Quantities are
capped per call so that a quantity change (suite M01) still costs actions; each call also has a
game-time limit. Both are named settings here (:class:`ActionLimits`), and the caps are the
``maximum`` of the parameters' JSON schemas, so a different cap is a visible contract change.

* :class:`SkillSpec` — name, description for prompts, JSON-schema parameters (generated from the
  pydantic argument model of the skill, so the schema and the validator cannot disagree).
* :class:`SkillCall` — a skill name plus arguments validated against that schema and normalised
  (bare item names get ``minecraft:``, defaults filled in, empty grid cells become ``null``).
* :class:`OutcomeReport` — what a call did: status, reason, inventory delta, produced items, drops
  collected, blocks broken, blocks placed, game ticks used, message. The body reports what *actually* happened
  (the produced item is whatever the server put in the result slot), never what rules predict.
* :func:`signature` — σ(a) exactly as the spec defines it (module docstring of that function).

``craft_grid`` takes an explicit grid and a workstation and never a desired output. The grid is a list
of rows, **row 0 is the top row** and column 0 the left column, as the crafting window shows it
(window slots 1..9 of a crafting table are row-major from the top-left, wiki.vg "Inventory" —
Crafting table). ``inventory`` means the player's 2x2 grid, ``crafting_table`` the 3x3 grid.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from mirrorcraft.contracts.ids import namespaced
from mirrorcraft.errors import ContractError

# ---------------------------------------------------------------------------------------------------
# Named caps and limits
# ---------------------------------------------------------------------------------------------------

MINE_MAX_COUNT = 8  #: blocks broken by one ``mine`` call
CRAFT_MAX_REPETITIONS = 16  #: result-slot takes by one ``craft_grid`` call
SMELT_MAX_ITEMS = 16  #: input items processed by one ``smelt`` call
ATTACK_MAX_KILLS = 4  #: mobs killed by one ``attack`` call
EXPLORE_MAX_DISTANCE = 64  #: horizontal blocks travelled by one ``explore`` call
DIG_DOWN_MAX_BLOCKS = 32  #: blocks dug by one ``dig_down`` call
DIG_UP_MAX_BLOCKS = 32  #: blocks dug by one ``dig_up`` call (three per stair step)
PILLAR_MAX_HEIGHT = 8  #: blocks placed under the feet by one ``pillar_up`` call
TUNNEL_MAX_LENGTH = 16  #: blocks advanced by one ``tunnel`` call
FARM_MAX_COUNT = 16  #: ripe plants harvested by one ``farm`` call
GIVE_MAX_COUNT = 64  #: items tossed by one ``give`` call
TAKE_MAX_COUNT = 64  #: items taken out of a container by one ``take`` call
CHAT_MAX_CHARS = 256  #: characters of one ``chat`` line (vanilla's limit)
TICKS_PER_SECOND = 20


class ActionLimits(BaseModel):
    """Per-call quantity caps and game-time limits (in game ticks, 20 per second).

    The quantity caps mirror the module constants (they are the parameters' schema maxima); the tick
    limits bound every call so that no skill retries forever. A call that reaches its tick limit stops
    and reports ``reason=timeout`` with whatever it achieved. Smelting is sized for 16 items in a
    furnace (200 ticks each) plus walking and loading.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mine_max_count: int = MINE_MAX_COUNT
    craft_max_repetitions: int = CRAFT_MAX_REPETITIONS
    smelt_max_items: int = SMELT_MAX_ITEMS
    attack_max_kills: int = ATTACK_MAX_KILLS
    explore_max_distance: int = EXPLORE_MAX_DISTANCE
    dig_down_max_blocks: int = DIG_DOWN_MAX_BLOCKS
    dig_up_max_blocks: int = DIG_UP_MAX_BLOCKS
    pillar_max_height: int = PILLAR_MAX_HEIGHT
    tunnel_max_length: int = TUNNEL_MAX_LENGTH
    farm_max_count: int = FARM_MAX_COUNT
    give_max_count: int = GIVE_MAX_COUNT
    collect_radius: int = 16
    tick_limits: dict[str, int] = Field(
        default_factory=lambda: {
            "explore": 1200,
            "go_to": 1200,
            "mine": 2400,
            "collect": 600,
            "craft_grid": 400,
            "smelt": 3600,
            "place": 200,
            "attack": 1200,
            "enchant": 200,
            "equip": 40,
            "dig_down": 2400,
            "eat": 100,
            "recover": 400,
            "pillar_up": 400,
            "dig_up": 2400,
            "tunnel": 1200,
            "farm": 2400,
            "use": 200,
            "give": 1200,
            "chat": 40,
            "break_at": 600,
            "place_at": 200,
            "cook": 3600,
            "take": 400,
        }
    )

    @model_validator(mode="after")
    def _check(self) -> ActionLimits:
        missing = set(SKILL_NAMES) - set(self.tick_limits)
        if missing:
            raise ValueError(f"tick_limits: no limit for skills {sorted(missing)}")
        bad = {k: v for k, v in self.tick_limits.items() if v <= 0}
        if bad:
            raise ValueError(f"tick_limits: limits must be positive, got {bad}")
        return self


# ---------------------------------------------------------------------------------------------------
# Argument models (one per skill). extra="forbid": an unknown argument is an invalid call.
# ---------------------------------------------------------------------------------------------------


def _ns(value: Any) -> Any:
    return namespaced(value, field="item") if isinstance(value, str) else value


ResourceId = Annotated[str, BeforeValidator(_ns), Field(pattern=r"^[a-z0-9_.-]+:[a-z0-9_./-]+$")]
"""An item/block/entity id; a bare name is accepted and gets ``minecraft:``."""

_EMPTY = {"", "air", "minecraft:air", "empty", "none"}


def _cell(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in _EMPTY:
        return None
    return _ns(value)


GridCell = Annotated[ResourceId | None, BeforeValidator(_cell)]
GridRow = Annotated[list[GridCell], Field(min_length=2, max_length=3)]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExploreArgs(_Args):
    """Walk outward to reveal new terrain."""

    direction: Literal["north", "south", "east", "west", "any"] = Field(
        "any", description="Compass direction to explore; 'any' lets the body pick the least-visited one."
    )
    distance: int = Field(32, ge=8, le=EXPLORE_MAX_DISTANCE, description="Horizontal blocks to travel.")


class GoToArgs(_Args):
    """Walk to a target: a position, a block (stand within reach of it) or an entity."""

    x: int | None = Field(None, description="Target block x (with y and z).")
    y: int | None = Field(None, ge=-64, le=319, description="Target block y.")
    z: int | None = Field(None, description="Target block z.")
    block: ResourceId | None = Field(
        None,
        description="A block to stand next to (within reach): the one at (x, y, z) if given, else the "
        "nearest one of this type you have seen.",
    )
    entity: ResourceId | None = Field(None, description="An entity type to walk up to: the nearest one.")

    @model_validator(mode="after")
    def _one_target(self) -> GoToArgs:
        coords = [v is not None for v in (self.x, self.y, self.z)]
        if any(coords) and not all(coords):
            raise ValueError("give all of x, y, z or none of them")
        if self.entity is not None and (self.block is not None or any(coords)):
            raise ValueError("an entity target takes no block and no coordinates")
        if not any(coords) and self.block is None and self.entity is None:
            raise ValueError("give a target: x, y, z; a block; or an entity")
        return self


class MineArgs(_Args):
    """Find and break blocks of one type, equipping the best available tool, and pick up the drops."""

    block: ResourceId = Field(description="Block id to mine, e.g. 'minecraft:iron_ore'.")
    count: int = Field(1, ge=1, le=MINE_MAX_COUNT, description="How many blocks to break.")


class CollectArgs(_Args):
    """Pick up dropped items lying nearby."""

    item: ResourceId | None = Field(
        None, description="Only collect this item; null collects everything nearby."
    )


class CraftGridArgs(_Args):
    """Fill a crafting grid exactly as given and take what the result slot offers."""

    workstation: Literal["inventory", "crafting_table"] = Field(
        description="'inventory' = the player's 2x2 grid; 'crafting_table' = a placed table's 3x3 grid."
    )
    grid: list[GridRow] = Field(
        min_length=2,
        max_length=3,
        description="Rows of item ids or null for empty; row 0 is the top row, column 0 the left column. "
        "2x2 for 'inventory', 3x3 for 'crafting_table'.",
    )
    count: int = Field(1, ge=1, le=CRAFT_MAX_REPETITIONS, description="How many times to take the result.")

    @model_validator(mode="after")
    def _shape(self) -> CraftGridArgs:
        size = 2 if self.workstation == "inventory" else 3
        if len(self.grid) != size or any(len(row) != size for row in self.grid):
            shape = "x".join(str(n) for n in (len(self.grid), max((len(r) for r in self.grid), default=0)))
            raise ValueError(f"grid must be {size}x{size} for workstation {self.workstation!r}, got {shape}")
        if all(cell is None for row in self.grid for cell in row):
            raise ValueError("grid is empty: place at least one item")
        return self


class SmeltArgs(_Args):
    """Load a furnace or blast furnace with input and fuel and collect the output."""

    input: ResourceId = Field(description="Item to smelt, e.g. 'minecraft:raw_iron'.")
    device: Literal["furnace", "blast_furnace"] = Field("furnace", description="Which placed device to use.")
    fuel: ResourceId = Field(description="Fuel item, e.g. 'minecraft:coal'.")
    count: int = Field(1, ge=1, le=SMELT_MAX_ITEMS, description="How many input items to process.")


class PlaceArgs(_Args):
    """Place one block or item from the inventory."""

    item: ResourceId = Field(description="Item to place, e.g. 'minecraft:crafting_table'.")
    use: Literal["workstation", "build", "pour", "light"] = Field(
        "workstation",
        description="Purpose: 'workstation' (table, furnace, enchanting table), 'build' (a block to stand "
        "on or wall off), 'pour' (empty a bucket), 'light' (torch).",
    )
    x: int | None = Field(None, description="Optional target x; null lets the body pick a spot nearby.")
    y: int | None = Field(None, ge=-64, le=319, description="Optional target y.")
    z: int | None = Field(None, description="Optional target z.")


class AttackArgs(_Args):
    """Attack the nearest mobs of a type until they die and pick up their loot."""

    mob: ResourceId = Field(description="Entity type, e.g. 'minecraft:cow'.")
    count: int = Field(1, ge=1, le=ATTACK_MAX_KILLS, description="How many mobs to kill.")


class EnchantArgs(_Args):
    """Enchant an item at a placed enchanting table, paying lapis lazuli and levels."""

    item: ResourceId = Field(description="Item to enchant, e.g. 'minecraft:iron_pickaxe'.")
    option: int = Field(1, ge=1, le=3, description="Offer to take, 1 = top (cheapest) to 3 = bottom.")


class EquipArgs(_Args):
    """Hold or wear an item."""

    item: ResourceId = Field(description="Item to equip.")
    slot: Literal["hand", "off_hand", "head", "chest", "legs", "feet", "auto"] = Field(
        "auto", description="Where to put it; 'auto' = armour slot for armour, else the main hand."
    )


class DigDownArgs(_Args):
    """Dig straight down (staircase) to a target height."""

    target_y: int = Field(ge=-59, le=319, description="Block y to stop at (bedrock starts at -64).")


class EatArgs(_Args):
    """Eat a food item."""

    item: ResourceId | None = Field(None, description="Food to eat; null picks the best available food.")


class RecoverArgs(_Args):
    """Limited obstacle recovery: step out of water, a hole or an enclosure to the nearest safe spot,
    clearing at most one obstruction. Justification: the spec's skill set includes "limited obstacle
    recovery" and the body may not do it on its own initiative between calls."""


class PillarUpArgs(_Args):
    """Tower up: jump and place a carried solid block under the feet, ``height`` times."""

    height: int = Field(ge=1, le=PILLAR_MAX_HEIGHT, description="Blocks to rise (one placed block each).")
    block: ResourceId | None = Field(
        None, description="Block item to place; null lets the body pick a carried building block."
    )


class DigUpArgs(_Args):
    """Dig a staircase up to a target height (the counterpart of ``dig_down``)."""

    target_y: int = Field(ge=-63, le=319, description="Block y to climb to (feet level).")


class TunnelArgs(_Args):
    """Make a straight passage at feet level: dig what is in the way, bridge gaps with carried blocks."""

    direction: Literal["north", "south", "east", "west"] = Field(description="Compass direction.")
    length: int = Field(ge=1, le=TUNNEL_MAX_LENGTH, description="Blocks to advance.")


# --- team play (PillagerBench scenarios; not offered to MirrorCraft agents: see TEAM_SKILL_NAMES) ---------

PlayerName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_]{1,16}$")]
"""A Minecraft player name (vanilla: 1 to 16 letters, digits and underscores)."""


class FarmArgs(_Args):
    """Harvest ripe plants of one kind and replant them."""

    crop: ResourceId = Field(
        description="Plant block, e.g. 'minecraft:wheat', 'minecraft:carrots', 'minecraft:potatoes', "
        "'minecraft:beetroots', 'minecraft:sweet_berry_bush', 'minecraft:cocoa'."
    )
    count: int = Field(1, ge=1, le=FARM_MAX_COUNT, description="How many ripe plants to harvest.")


class UseArgs(_Args):
    """Use an item (or the empty hand) on a block or an entity."""

    item: ResourceId | None = Field(
        None, description="Item to use, e.g. 'minecraft:bucket'; null uses the empty hand."
    )
    x: int | None = Field(None, description="Target block x (with y and z).")
    y: int | None = Field(None, ge=-64, le=319, description="Target block y.")
    z: int | None = Field(None, description="Target block z.")
    block: ResourceId | None = Field(
        None,
        description="A block to use it on: the one at (x, y, z) if given, else the nearest of this type.",
    )
    entity: ResourceId | None = Field(None, description="An entity type to use it on: the nearest one.")

    @model_validator(mode="after")
    def _one_target(self) -> UseArgs:
        coords = [v is not None for v in (self.x, self.y, self.z)]
        if any(coords) and not all(coords):
            raise ValueError("give all of x, y, z or none of them")
        if self.entity is not None and (self.block is not None or any(coords)):
            raise ValueError("an entity target takes no block and no coordinates")
        if not any(coords) and self.block is None and self.entity is None:
            raise ValueError("give a target: x, y, z; a block; or an entity")
        return self


class GiveArgs(_Args):
    """Walk to a player and toss them items."""

    item: ResourceId = Field(description="Item to give.")
    count: int = Field(1, ge=1, le=GIVE_MAX_COUNT, description="How many to toss.")
    player: PlayerName = Field(description="The receiving player's name.")


class ChatArgs(_Args):
    """Say something in chat: to everyone, or to the own team only."""

    text: str = Field(min_length=1, max_length=CHAT_MAX_CHARS, description="The message.")
    team: bool = Field(False, description="True: only team mates get it (team chat, /teammsg).")


class BreakAtArgs(_Args):
    """Break the block at a position."""

    x: int = Field(description="Block x.")
    y: int = Field(ge=-64, le=319, description="Block y.")
    z: int = Field(description="Block z.")


class PlaceAtArgs(_Args):
    """Place a block at a position."""

    item: ResourceId = Field(description="Block item to place.")
    x: int = Field(description="Block x.")
    y: int = Field(ge=-64, le=319, description="Block y.")
    z: int = Field(description="Block z.")


class CookArgs(_Args):
    """Cook items in a furnace already in the world, fuelled with what you carry (or what it holds)."""

    input: ResourceId = Field(description="Item to cook, e.g. 'minecraft:potato'.")
    count: int = Field(1, ge=1, le=SMELT_MAX_ITEMS, description="How many items to cook.")


class TakeArgs(_Args):
    """Take items out of a container (chest, furnace, hopper...) at a position."""

    item: ResourceId = Field(description="Item to take, e.g. 'minecraft:egg'.")
    count: int = Field(1, ge=1, le=TAKE_MAX_COUNT, description="How many to take (at most).")
    x: int = Field(description="The container's block x.")
    y: int = Field(ge=-64, le=319, description="The container's block y.")
    z: int = Field(description="The container's block z.")


# Order used for prompts and observations.
_ARG_MODELS: dict[str, type[_Args]] = {
    "explore": ExploreArgs,
    "go_to": GoToArgs,
    "mine": MineArgs,
    "collect": CollectArgs,
    "craft_grid": CraftGridArgs,
    "smelt": SmeltArgs,
    "place": PlaceArgs,
    "attack": AttackArgs,
    "enchant": EnchantArgs,
    "equip": EquipArgs,
    "dig_down": DigDownArgs,
    "eat": EatArgs,
    "recover": RecoverArgs,
    "pillar_up": PillarUpArgs,
    "dig_up": DigUpArgs,
    "tunnel": TunnelArgs,
    "farm": FarmArgs,
    "use": UseArgs,
    "give": GiveArgs,
    "chat": ChatArgs,
    "break_at": BreakAtArgs,
    "place_at": PlaceAtArgs,
    "cook": CookArgs,
    "take": TakeArgs,
}
#: Every skill of the contracts (reports, calls and σ accept all of them).
SKILL_NAMES: tuple[str, ...] = tuple(_ARG_MODELS)
#: The team-play skills (PillagerBench scenarios: farms, food, teams, sabotage and construction).
TEAM_SKILL_NAMES: tuple[str, ...] = ("farm", "use", "give", "chat", "break_at", "place_at", "cook", "take")
#: The skills offered to MirrorCraft agents (the observation's skill list, the prompts): the paper's set plus
#: the escapes. The team skills are left out: no MirrorCraft task needs chat, gifts or farms, and offering
#: more skills changes what an agent can do between the published runs (``give``/``place_at``/``break_at``
#: would also be a second way to do ``place``/``mine`` with other caps).
MIRRORCRAFT_SKILL_NAMES: tuple[str, ...] = tuple(n for n in SKILL_NAMES if n not in TEAM_SKILL_NAMES)

_SKILL_DESCRIPTIONS: dict[str, str] = {
    "explore": "Walk up to `distance` blocks in a direction to reveal new terrain, blocks and mobs.",
    "go_to": "Walk to a target: the position (x, y, z); a `block` (stand within reach of it: the one at "
    "(x, y, z), or the nearest of that type you have seen); or the nearest `entity` of a type. Walks, jumps, "
    "drops, swims and clears at most one obstruction; when no walk exists it fails at once and names the "
    "way out (dig_up, pillar_up, dig_down or tunnel).",
    "mine": f"Find the nearest blocks of type `block`, break up to `count` (max {MINE_MAX_COUNT}) with the "
    "best tool you carry, and pick up what drops. Reports the blocks broken and the items collected.",
    "collect": "Pick up dropped items lying nearby (optionally only `item`).",
    "craft_grid": "Put items into a crafting grid exactly as laid out in `grid` (row 0 = top) at "
    "`workstation` ('inventory' 2x2 or a nearby 'crafting_table' 3x3) and take whatever the result slot "
    f"offers, `count` times (max {CRAFT_MAX_REPETITIONS}). You do not name the output: the report says "
    "what was produced.",
    "smelt": f"Process `count` (max {SMELT_MAX_ITEMS}) `input` items in a nearby placed `device` "
    "(furnace or blast_furnace) burning `fuel`, and take the output. Reports the inventory change.",
    "place": "Place `item` from the inventory for a `use` (workstation, build, pour, light), optionally at "
    "(x, y, z).",
    "attack": f"Attack the nearest `mob` of that type until `count` (max {ATTACK_MAX_KILLS}) die, and pick "
    "up the loot. Reports the loot collected.",
    "enchant": "Enchant `item` at a nearby enchanting table, taking offer `option` (1 = top). Costs lapis "
    "lazuli and levels.",
    "equip": "Hold or wear `item` (slot 'auto' wears armour, holds anything else).",
    "dig_down": f"Dig down in a staircase to block height `target_y` (at most {DIG_DOWN_MAX_BLOCKS} blocks "
    "per call).",
    "eat": "Eat `item` (or the best food you carry) to restore food.",
    "recover": "Get unstuck: move to the nearest safe standing spot, clearing at most one obstruction; fails "
    "at once, saying why, when there is none (then use an escape: dig_up, pillar_up, tunnel).",
    "pillar_up": f"Escape upwards: jump and place a carried solid block under your feet, `height` times (max "
    f"{PILLAR_MAX_HEIGHT}), clearing a block over your head when needed. Uses only blocks you carry "
    "(`block`, or one the body picks). Reports every block placed and broken.",
    "dig_up": f"Escape upwards through solid ground: dig a staircase up to block height `target_y` (at most "
    f"{DIG_UP_MAX_BLOCKS} blocks per call; never into liquids). Reports every block broken and placed.",
    "tunnel": f"Make a straight passage `length` blocks (max {TUNNEL_MAX_LENGTH}) `direction`-wards at feet "
    "level: dig what is in the way and bridge gaps with carried blocks (never into liquids). Reports every "
    "block broken and placed.",
    "farm": f"Harvest up to `count` (max {FARM_MAX_COUNT}) ripe plants of type `crop` nearby (crops at their last "
    "age: break and replant with a carried seed; sweet berry bushes: pick without breaking), and pick up what "
    "drops. Reports the plants harvested, the items collected and the blocks replanted.",
    "use": "Use `item` (or the empty hand) on a target: the block at (x, y, z), the nearest `block` of a type, "
    "or the nearest `entity` of a type (plant seeds on farmland, pick berries, bone meal, milk a cow with a "
    "bucket, eat cake). Walks within reach first. Reports what changed.",
    "give": f"Walk to player `player` and toss them `count` (max {GIVE_MAX_COUNT}) `item`. Reports how many the "
    "player picked up when that could be seen.",
    "chat": f"Say `text` (max {CHAT_MAX_CHARS} characters) in chat; with `team` only your team mates get it.",
    "break_at": "Walk within reach of the block at (x, y, z) and break it with the best tool you carry, "
    "picking up the drop.",
    "place_at": "Walk within reach of (x, y, z) and place block `item` there (into air, water or a plant a "
    "block replaces).",
    "cook": f"Cook `count` (max {SMELT_MAX_ITEMS}) `input` items in the nearest furnace already in the world, "
    "adding fuel you carry when it has none, and take the output.",
    "take": f"Walk to the container (chest, furnace, hopper...) at (x, y, z), open it and take up to `count` (max "
    f"{TAKE_MAX_COUNT}) `item` out of it. Reports what was taken (nothing when it holds none).",
}


class SkillSpec(BaseModel):
    """A skill as offered to agents: name, prompt description and JSON-schema parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str
    parameters: dict[str, Any] = Field(description="JSON Schema (draft 2020-12) of the call's arguments.")


def _parameters_schema(model: type[_Args]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.pop("description", None)
    return schema


#: The specs of every skill the body offers, in prompt order.
SKILL_SPECS: dict[str, SkillSpec] = {
    name: SkillSpec(name=name, description=_SKILL_DESCRIPTIONS[name], parameters=_parameters_schema(model))
    for name, model in _ARG_MODELS.items()
}


def args_model(name: str) -> type[BaseModel]:
    """The pydantic model validating arguments of skill ``name``.

    Raises:
        ContractError: unknown skill.
    """
    try:
        return _ARG_MODELS[name]
    except KeyError:
        raise ContractError(f"unknown skill {name!r}; available: {', '.join(SKILL_NAMES)}") from None


def _format_validation(name: str, err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "(arguments)"
        parts.append(f"{loc}: {str(e['msg']).removeprefix('Value error, ')}")
    return f"invalid arguments for skill {name!r}: " + "; ".join(parts)


def _call_schema_extra(schema: dict[str, Any]) -> None:
    # The exported schema of a call states each skill's arguments: one branch per skill.
    schema["oneOf"] = [
        {
            "properties": {"name": {"const": name}, "args": _parameters_schema(model)},
            "required": ["name", "args"],
        }
        for name, model in _ARG_MODELS.items()
    ]


class SkillCall(BaseModel):
    """A validated skill call: the skill name and its normalised arguments.

    Build one with :meth:`create` (raises :class:`ContractError` with a message naming each bad
    field, suitable to show a model as a policy error) or by ``model_validate`` of a stored call.
    Arguments are normalised: defaults filled in, ids namespaced, empty grid cells ``None``, so two
    calls that mean the same thing compare and serialize equal.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=lambda s: _call_schema_extra(s))

    name: str
    args: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _validate_args(self) -> SkillCall:
        model = args_model(self.name)
        try:
            parsed = model.model_validate(self.args)
        except ValidationError as err:
            raise ValueError(_format_validation(self.name, err)) from None
        object.__setattr__(self, "args", parsed.model_dump(mode="json"))
        return self

    @classmethod
    def create(cls, name: str, args: dict[str, Any] | None = None) -> SkillCall:
        """Validate and normalise a call.

        Args:
            name: skill name, e.g. ``"mine"``.
            args: the arguments as the agent wrote them, e.g. ``{"block": "iron_ore", "count": 3}``.

        Returns:
            The normalised call.

        Raises:
            ContractError: unknown skill or invalid arguments; the message names every bad field.
        """
        if not isinstance(name, str) or name not in _ARG_MODELS:
            raise ContractError(f"unknown skill {name!r}; available: {', '.join(SKILL_NAMES)}")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ContractError(
                f"invalid arguments for skill {name!r}: expected an object, got {type(args).__name__}"
            )
        try:
            return cls(name=name, args=args)
        except ValidationError as err:
            raise ContractError(
                "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in err.errors())
            ) from None

    def parsed_args(self) -> BaseModel:
        """The arguments as their typed pydantic model (e.g. :class:`MineArgs`)."""
        return args_model(self.name).model_validate(self.args)


Signature = tuple[str, ...]
"""σ(a) as a tuple whose first element is the skill name (see :func:`signature`)."""


def signature(call: SkillCall) -> Signature:
    """The semantic signature σ(a) of a call, exactly as the spec defines it.

    ``craft_grid`` → (workstation, grid); ``smelt`` → (input, device); ``mine`` → block type;
    ``attack`` → mob type; ``place`` → (item, use); ``enchant`` → (item, option); any other skill → its
    name. Quantities (``count``), smelting fuel, coordinates and entity identity are ignored.

    The team skills follow the same rule: ``farm`` → crop; ``use`` → (item or ``""`` for the hand, the
    target's entity or block type, else ``"position"``); ``give`` → item (the receiving player is entity
    identity); ``chat`` → ``"team"`` or ``"all"`` (the text is free content, like a quantity); ``place_at``
    → item; ``cook`` → input; ``take`` → item (the container's position is a coordinate); ``break_at`` → its
    name (coordinates only).

    The value is a flat tuple of strings led by the skill name, so σ of different skills never compare
    equal and σ serializes as a JSON array. The grid is kept exactly as laid out (row-major, row 0 = top;
    empty cells as ``""``); its size is implied by the workstation (2x2 or 3x3).

    Args:
        call: a validated call.

    Returns:
        e.g. ``("mine", "minecraft:iron_ore")`` or ``("craft_grid", "inventory", "minecraft:oak_log",
        "", "", "")``.
    """
    a = call.args
    match call.name:
        case "craft_grid":
            cells = tuple(cell or "" for row in a["grid"] for cell in row)
            return ("craft_grid", a["workstation"], *cells)
        case "smelt":
            return ("smelt", a["input"], a["device"])
        case "mine":
            return ("mine", a["block"])
        case "attack":
            return ("attack", a["mob"])
        case "place":
            return ("place", a["item"], a["use"])
        case "enchant":
            return ("enchant", a["item"], str(a["option"]))
        case "farm":
            return ("farm", a["crop"])
        case "use":
            target = a["entity"] or a["block"] or "position"
            return ("use", a["item"] or "", target)
        case "give":
            return ("give", a["item"])
        case "chat":
            return ("chat", "team" if a["team"] else "all")
        case "place_at":
            return ("place_at", a["item"])
        case "cook":
            return ("cook", a["input"])
        case "take":
            return ("take", a["item"])
        case _:
            return (call.name,)


# ---------------------------------------------------------------------------------------------------
# Outcome reports
# ---------------------------------------------------------------------------------------------------


class FailureReason(StrEnum):
    """Why a call failed (or stopped early). Every failure names one; ``other`` needs a message."""

    NOT_FOUND = "not_found"  # no matching block / mob / dropped item within range
    UNREACHABLE = "unreachable"  # a target exists but no path reaches it
    MISSING_ITEMS = "missing_items"  # the inventory lacks the items the call needs
    TOOL_TOO_WEAK = "tool_too_weak"  # the block cannot be harvested with any carried tool
    NO_WORKSTATION = "no_workstation"  # no crafting table / furnace / enchanting table in reach
    NO_OUTPUT = "no_output"  # the grid / device produced nothing
    NOT_ENOUGH_LEVELS = "not_enough_levels"  # enchanting needs more experience levels or lapis
    CANNOT_PLACE = "cannot_place"  # no valid spot to place
    INVENTORY_FULL = "inventory_full"
    TIMEOUT = "timeout"  # the call's game-time limit was reached
    INTERRUPTED = "interrupted"  # the player died or was moved during the call
    OTHER = "other"


class ItemStack(BaseModel):
    """An item id and a count (count > 0)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item: ResourceId
    count: int = Field(ge=1)


class BlockTally(BaseModel):
    """How many blocks of one type a call broke (or placed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    block: ResourceId
    count: int = Field(ge=1)


def _tally(blocks: list[BlockTally]) -> list[BlockTally]:
    total: dict[str, int] = {}
    for b in blocks:
        total[b.block] = total.get(b.block, 0) + b.count
    return [BlockTally(block=k, count=n) for k, n in sorted(total.items())]


def _merge(stacks: list[ItemStack]) -> list[ItemStack]:
    total: dict[str, int] = {}
    for s in stacks:
        total[s.item] = total.get(s.item, 0) + s.count
    return [ItemStack(item=k, count=v) for k, v in sorted(total.items())]


class OutcomeReport(BaseModel):
    """What one attempted skill call did, as verified by the body from the game state.

    ``status`` is ``success`` when the call achieved its effect at least once (``completed >= 1``;
    e.g. one of three requested blocks mined) and ``failure`` otherwise; a call that stopped early
    still names a ``reason`` (e.g. ``timeout``). Lists are merged per id and sorted by id, the
    inventory delta drops zero entries, so equal outcomes serialize equally.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str
    status: Literal["success", "failure"]
    reason: FailureReason | None = None
    message: str = ""
    completed: int = Field(0, ge=0, description="Units done: blocks mined, crafts taken, items smelted...")
    inventory_delta: dict[str, int] = Field(default_factory=dict)
    produced: list[ItemStack] = Field(default_factory=list, description="Taken from a result/output slot.")
    drops_collected: list[ItemStack] = Field(default_factory=list, description="Picked up from the ground.")
    blocks_broken: list[BlockTally] = Field(default_factory=list)
    blocks_placed: list[BlockTally] = Field(
        default_factory=list, description="Blocks the call placed in the world (towers, bridges, stations)."
    )
    ticks_used: int = Field(0, ge=0)

    @field_validator("skill")
    @classmethod
    def _known_skill(cls, v: str) -> str:
        if v not in _ARG_MODELS:
            raise ValueError(f"unknown skill {v!r}")
        return v

    @field_validator("inventory_delta")
    @classmethod
    def _delta(cls, v: dict[str, int]) -> dict[str, int]:
        return {namespaced(k, field="inventory_delta"): n for k, n in sorted(v.items()) if n != 0}

    @model_validator(mode="after")
    def _normalise(self) -> OutcomeReport:
        if self.status == "failure" and self.reason is None:
            raise ValueError("a failed outcome must name a reason")
        if self.status == "success" and self.completed < 1:
            raise ValueError("a successful outcome must have completed >= 1")
        if self.status == "failure" and self.completed != 0:
            raise ValueError("a failed outcome has completed == 0 (partial work is a success with a reason)")
        if self.reason == FailureReason.OTHER and not self.message:
            raise ValueError("reason 'other' needs a message")
        object.__setattr__(self, "produced", _merge(self.produced))
        object.__setattr__(self, "drops_collected", _merge(self.drops_collected))
        object.__setattr__(self, "blocks_broken", _tally(self.blocks_broken))
        object.__setattr__(self, "blocks_placed", _tally(self.blocks_placed))
        return self
