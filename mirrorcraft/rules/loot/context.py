"""What one roll may consult: the loot parameters (tool, block, entities, explosion) and the roll's state.

The views are what the server passes in (vanilla's ``LootContext`` parameters); :class:`Run` is the state
every compiled node reads while rolling: the parameters, the seeded generator, the tag resolver, the
smelting lookup and the other tables (for ``loot_table`` entries).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.rules.predicates import TagResolver
from mirrorcraft.rules.stack import Stack

__all__ = [
    "BlockView",
    "Emit",
    "EntityView",
    "LootContext",
    "Run",
    "SmeltLookup",
    "ToolView",
    "java_round",
    "mc_next_int",
]

SmeltLookup = Callable[[str], str | None]
"""Maps an item id to its smelting result id (``None``: no smelting recipe)."""

Emit = Callable[[Stack], None]
"""Where a node puts the stacks it produces (a roll's stacks may reach count 0: vanilla's empty stack)."""


class ToolView(BaseModel):
    """The item used to break a block (loot parameter ``tool``).

    Attributes:
        item: Namespaced item id, or ``None`` for an empty hand.
        count: Stack size of the held item (``match_tool`` ``count`` bounds test it).
        enchantments: Enchantment id → level, e.g. ``{"<ns>:fortune": 3}``.
    """

    model_config = ConfigDict(frozen=True)

    item: str | None = None
    count: int = 1
    enchantments: dict[str, int] = Field(default_factory=dict)


class BlockView(BaseModel):
    """A block and its state properties (for ``block_state_property`` and ``location_check``)."""

    model_config = ConfigDict(frozen=True)

    name: str
    state: dict[str, str] = Field(default_factory=dict)


class EntityView(BaseModel):
    """What the ``entity_properties`` condition may look at on an entity.

    Attributes:
        type: Namespaced entity type id.
        on_fire / sneaking / sprinting / swimming / baby: the entity ``flags`` of vanilla predicates.
    """

    model_config = ConfigDict(frozen=True)

    type: str
    on_fire: bool = False
    sneaking: bool = False
    sprinting: bool = False
    swimming: bool = False
    baby: bool = False


class LootContext(BaseModel):
    """The loot parameters of one roll (vanilla ``LootContext``); ``None`` means "parameter absent".

    Attributes:
        tool: Tool that broke the block (block loot). ``ToolView()`` is an empty hand; ``None`` means no
            tool parameter at all (then ``match_tool`` fails and ``apply_bonus`` does nothing).
        explosion_radius: Set when an explosion destroyed the block (``survives_explosion``,
            ``explosion_decay``).
        block: The broken block and its state (``block_state_property``).
        this_entity: ``this``: the breaking player for block loot, the dead mob for entity loot.
        killer / direct_killer / killer_player: entity-loot attackers (``killer_player`` is vanilla's
            ``last_damage_player``; ``killed_by_player`` tests its presence).
        looting: Looting level of the killer's weapon (0 when there is no killer).
        luck: Player luck (pools' ``bonus_rolls`` and entry ``quality``); 0 in this benchmark.
        neighbours: Blocks at offsets from the origin, for ``location_check`` (e.g. ``(0, 1, 0)``).
    """

    model_config = ConfigDict(frozen=True)

    tool: ToolView | None = None
    explosion_radius: float | None = None
    block: BlockView | None = None
    this_entity: EntityView | None = None
    killer: EntityView | None = None
    direct_killer: EntityView | None = None
    killer_player: EntityView | None = None
    looting: int = 0
    luck: float = 0.0
    neighbours: dict[tuple[int, int, int], BlockView] | None = None

    @property
    def killed_by_player(self) -> bool:
        """Whether the ``last_damage_player`` parameter is present."""
        return self.killer_player is not None


class _Table(Protocol):
    location: str

    def roll_into(self, emit: Emit, run: Run) -> None: ...


class Tables(Protocol):
    """The tables a ``loot_table`` entry may reference (a :class:`~mirrorcraft.rules.loot.LootTableSet`)."""

    def __contains__(self, location: object) -> bool: ...

    def get(self, location: str) -> _Table: ...


@dataclass
class Run:
    """Everything a compiled node may consult while rolling."""

    ctx: LootContext
    rng: random.Random
    tags: TagResolver
    smelt: SmeltLookup | None
    tables: Tables | None
    max_stack: Callable[[str], int]
    visiting: list[str]

    def next_float(self) -> float:
        return self.rng.random()

    def next_int(self, bound: int) -> int:
        return self.rng.randrange(bound)

    def tool_level(self, enchantment: str) -> int | None:
        """Enchantment level on the tool, or ``None`` when there is no tool parameter."""
        tool = self.ctx.tool
        if tool is None:
            return None
        return tool.enchantments.get(enchantment, 0)


def java_round(value: float) -> int:
    """Java's ``Math.round(float)``: ``floor(x + 0.5)``, unlike Python's banker's rounding."""
    return math.floor(value + 0.5)


def mc_next_int(run: Run, low: int, high: int) -> int:
    """``Mth.nextInt(random, min, max)``: inclusive, ``min`` when ``min >= max``."""
    return low if low >= high else low + run.next_int(high - low + 1)
