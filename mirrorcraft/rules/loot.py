"""Loot-table interpreter: rolls block drops and mob loot from datapack JSON, as vanilla 1.19.2 does.

Why: Mirror worlds change drops by overriding loot tables in a datapack, so the embedded server must not
know any drop itself; it reads the tables (vanilla ones from ``gamedata/vanilla_pack``, overridden by the
world's rule pack) and interprets them. This module knows the loot-table *language* (pools, entries,
conditions, functions, number providers) and nothing about particular items.

The semantics follow vanilla 1.19.2's ``net.minecraft.world.level.storage.loot`` classes (described on
the Minecraft wiki page "Loot table"):

* A pool runs only if its ``conditions`` pass; it rolls ``rolls + floor(bonus_rolls * luck)`` times.
* Each roll *expands* the pool's entries into a candidate list (``alternatives`` keeps the first child that
  expands, ``sequence`` children until one fails, ``group`` every child; ``tag`` with ``expand: true``
  gives one candidate per tagged item) and picks **one** candidate by weight
  (``max(floor(weight + quality * luck), 0)``).
* Functions run entry → pool → table, each gated by its own ``conditions``.
* All randomness comes from the ``random.Random`` passed in (Java's ``nextFloat()`` ↔ ``rng.random()``,
  ``nextInt(n)`` ↔ ``rng.randrange(n)``), so the same seed gives the same drops. Draws happen in the same
  order as vanilla, but the numbers differ from a Java server's (different generator).

Tables are compiled when loaded: an unknown entry/condition/function/number-provider type, or a
malformed field, raises :class:`~mirrorcraft.errors.DatapackError` naming the table and the JSON path
(e.g. ``minecraft:blocks/stone: pools[0].entries[0].children[1].functions[0].function``).

Partial by design (documented in ``docs/loot.md``): ``copy_name``, ``copy_nbt``, ``copy_state`` and
``set_nbt`` are accepted as no-ops because :class:`ItemStack` carries no NBT; predicates this benchmark
never needs (``nbt``/``potion``/``durability`` item predicates, ``location_check`` beyond block
predicates, ``score``/``weather``/``time`` conditions, ``reference`` predicates) raise
``DatapackError`` instead of being guessed. A ``loot_table`` reference cycle raises (vanilla logs a
warning and drops nothing).
"""

from __future__ import annotations

import json
import math
import random
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.errors import ContractError, DatapackError

__all__ = [
    "BlockView",
    "EntityView",
    "ItemStack",
    "LootContext",
    "LootTable",
    "LootTableSet",
    "NO_OP_FUNCTIONS",
    "TagResolver",
    "ToolView",
    "parse_loot_table",
    "roll",
]

# The only namespace vanilla's own types live in. Type names are dispatched on their path part, so no
# namespaced literal (item, block or type id) is needed in this file.
_NAMESPACE = "minecraft"

TagResolver = Callable[[str], frozenset[str]]
"""Maps a tag id without ``#`` (``"<ns>:<path>"``) to the namespaced item ids it contains."""

SmeltLookup = Callable[[str], str | None]
"""Maps an item id to its smelting result id (``None``: no smelting recipe)."""

NO_OP_FUNCTIONS = frozenset({"copy_name", "copy_nbt", "copy_state", "set_nbt"})
"""Item functions accepted but ignored: they only touch NBT/names, which :class:`ItemStack` lacks."""


# --------------------------------------------------------------------------------------------------
# Public records
# --------------------------------------------------------------------------------------------------


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


class ItemStack(BaseModel):
    """One merged result of a roll: an item id and how many."""

    model_config = ConfigDict(frozen=True)

    name: str
    count: int


# --------------------------------------------------------------------------------------------------
# Runtime state of one roll
# --------------------------------------------------------------------------------------------------


@dataclass
class _Stack:
    name: str
    count: int


@dataclass
class _Run:
    """Everything a compiled node may consult while rolling."""

    ctx: LootContext
    rng: random.Random
    tags: TagResolver
    smelt: SmeltLookup | None
    tables: LootTableSet | None
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


def _java_round(value: float) -> int:
    # Java's Math.round(float): floor(x + 0.5), unlike Python's banker's rounding.
    return math.floor(value + 0.5)


def _mc_next_int(run: _Run, low: int, high: int) -> int:
    # Mth.nextInt(random, min, max): inclusive, returns min when min >= max.
    return low if low >= high else low + run.next_int(high - low + 1)


# --------------------------------------------------------------------------------------------------
# JSON reading helpers (every error names table + JSON path)
# --------------------------------------------------------------------------------------------------


class _Where:
    """A table id plus a JSON path, for error messages."""

    __slots__ = ("table", "path")

    def __init__(self, table: str, path: str = "") -> None:
        self.table = table
        self.path = path

    def key(self, name: str) -> _Where:
        return _Where(self.table, f"{self.path}.{name}" if self.path else name)

    def idx(self, i: int) -> _Where:
        return _Where(self.table, f"{self.path}[{i}]")

    def fail(self, message: str) -> DatapackError:
        return DatapackError(f"loot table {self.table}: {self.path or '<root>'}: {message}")


def _obj(value: Any, at: _Where) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise at.fail(f"expected a JSON object, got {type(value).__name__}")
    return value


def _list(value: Any, at: _Where) -> list[Any]:
    if not isinstance(value, list):
        raise at.fail(f"expected a JSON array, got {type(value).__name__}")
    return value


def _num(value: Any, at: _Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.fail(f"expected a number, got {value!r}")
    return float(value)


def _int(value: Any, at: _Where) -> int:
    number = _num(value, at)
    if number != int(number):
        raise at.fail(f"expected an integer, got {value!r}")
    return int(number)


def _str(value: Any, at: _Where) -> str:
    if not isinstance(value, str) or not value:
        raise at.fail(f"expected a non-empty string, got {value!r}")
    return value


def _bool(value: Any, at: _Where) -> bool:
    if not isinstance(value, bool):
        raise at.fail(f"expected true/false, got {value!r}")
    return value


def _required(obj: Mapping[str, Any], name: str, at: _Where) -> Any:
    if name not in obj:
        raise at.fail(f"missing required field {name!r}")
    return obj[name]


def _res(value: Any, at: _Where) -> str:
    """A resource location, namespaced (``stone`` → ``<default ns>:stone``)."""
    text = _str(value, at)
    return text if ":" in text else f"{_NAMESPACE}:{text}"


def _type_path(value: Any, at: _Where) -> str:
    """The path of a vanilla type id; types from another namespace are unknown to vanilla."""
    ns, _, path = _res(value, at).partition(":")
    if ns != _NAMESPACE:
        raise at.fail(f"unknown type {value!r} (only vanilla types exist on a vanilla server)")
    return path


# --------------------------------------------------------------------------------------------------
# Number providers and ranges
# --------------------------------------------------------------------------------------------------


class _Number:
    def get_float(self, run: _Run) -> float:
        raise NotImplementedError

    def get_int(self, run: _Run) -> int:
        return _java_round(self.get_float(run))


@dataclass(frozen=True)
class _Constant(_Number):
    value: float

    def get_float(self, run: _Run) -> float:
        return self.value


@dataclass(frozen=True)
class _Uniform(_Number):
    low: _Number
    high: _Number

    def get_float(self, run: _Run) -> float:
        low, high = self.low.get_float(run), self.high.get_float(run)
        # Mth.nextFloat(random, min, max)
        return low if low >= high else run.next_float() * (high - low) + low

    def get_int(self, run: _Run) -> int:
        return _mc_next_int(run, self.low.get_int(run), self.high.get_int(run))


@dataclass(frozen=True)
class _Binomial(_Number):
    n: _Number
    p: _Number

    def get_int(self, run: _Run) -> int:
        trials, chance = self.n.get_int(run), self.p.get_float(run)
        return sum(1 for _ in range(trials) if run.next_float() < chance)

    def get_float(self, run: _Run) -> float:
        return float(self.get_int(run))


def _number(value: Any, at: _Where) -> _Number:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _Constant(float(value))
    obj = _obj(value, at)
    # NumberProviders' Gson adapter: a bare number is a constant, an object without "type" is uniform.
    kind = _type_path(obj["type"], at.key("type")) if "type" in obj else "uniform"
    if kind == "constant":
        return _Constant(_num(_required(obj, "value", at), at.key("value")))
    if kind == "uniform":
        return _Uniform(
            _number(_required(obj, "min", at), at.key("min")),
            _number(_required(obj, "max", at), at.key("max")),
        )
    if kind == "binomial":
        return _Binomial(
            _number(_required(obj, "n", at), at.key("n")), _number(_required(obj, "p", at), at.key("p"))
        )
    raise at.key("type").fail(f"unsupported number provider type {obj.get('type')!r}")


@dataclass(frozen=True)
class _Bounds:
    """MinMaxBounds (advancement/predicate ranges): a number, or ``{"min": .., "max": ..}``."""

    low: float | None
    high: float | None

    def matches(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def _bounds(value: Any, at: _Where) -> _Bounds:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _Bounds(float(value), float(value))
    obj = _obj(value, at)
    low = _num(obj["min"], at.key("min")) if "min" in obj else None
    high = _num(obj["max"], at.key("max")) if "max" in obj else None
    return _Bounds(low, high)


# --------------------------------------------------------------------------------------------------
# Predicates (item, entity, block state)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _EnchantmentPredicate:
    enchantment: str | None
    levels: _Bounds | None

    def matches(self, enchantments: Mapping[str, int]) -> bool:
        # EnchantmentPredicate.containedIn
        if self.enchantment is not None:
            if self.enchantment not in enchantments:
                return False
            return self.levels is None or self.levels.matches(enchantments[self.enchantment])
        if self.levels is not None:
            return any(self.levels.matches(level) for level in enchantments.values())
        return True


@dataclass(frozen=True)
class _ItemPredicate:
    items: frozenset[str] | None
    tag: str | None
    count: _Bounds | None
    enchantments: tuple[_EnchantmentPredicate, ...]

    def matches(self, tool: ToolView, run: _Run) -> bool:
        if self.items is not None and tool.item not in self.items:
            return False
        if self.tag is not None and (tool.item is None or tool.item not in run.tags(self.tag)):
            return False
        count = tool.count if tool.item is not None else 0
        if self.count is not None and not self.count.matches(count):
            return False
        return all(e.matches(tool.enchantments) for e in self.enchantments)


_ITEM_PREDICATE_UNSUPPORTED = ("durability", "stored_enchantments", "potion", "nbt")


def _item_predicate(value: Any, at: _Where) -> _ItemPredicate:
    obj = _obj(value, at)
    for name in _ITEM_PREDICATE_UNSUPPORTED:
        if name in obj:
            raise at.key(name).fail(f"item predicate field {name!r} is not supported by this interpreter")
    items = None
    if "items" in obj:
        raw = obj["items"]
        raw_list = [raw] if isinstance(raw, str) else _list(raw, at.key("items"))
        items = frozenset(_res(v, at.key("items").idx(i)) for i, v in enumerate(raw_list))
    tag = _res(obj["tag"], at.key("tag")) if "tag" in obj else None
    count = _bounds(obj["count"], at.key("count")) if "count" in obj else None
    enchants: list[_EnchantmentPredicate] = []
    for i, raw_e in enumerate(_list(obj.get("enchantments", []), at.key("enchantments"))):
        e_at = at.key("enchantments").idx(i)
        e_obj = _obj(raw_e, e_at)
        enchants.append(
            _EnchantmentPredicate(
                _res(e_obj["enchantment"], e_at.key("enchantment")) if "enchantment" in e_obj else None,
                _bounds(e_obj["levels"], e_at.key("levels")) if "levels" in e_obj else None,
            )
        )
    return _ItemPredicate(items, tag, count, tuple(enchants))


_ENTITY_FLAGS = {
    "is_on_fire": "on_fire",
    "is_sneaking": "sneaking",
    "is_sprinting": "sprinting",
    "is_swimming": "swimming",
    "is_baby": "baby",
}


@dataclass(frozen=True)
class _EntityPredicate:
    type: str | None
    flags: tuple[tuple[str, bool], ...]

    def matches(self, entity: EntityView) -> bool:
        if self.type is not None and entity.type != self.type:
            return False
        return all(getattr(entity, attr) == wanted for attr, wanted in self.flags)


def _entity_predicate(value: Any, at: _Where) -> _EntityPredicate:
    obj = _obj(value, at)
    for name in obj:
        if name not in ("type", "flags"):
            raise at.key(name).fail(f"entity predicate field {name!r} is not supported by this interpreter")
    etype = None
    if "type" in obj:
        text = _str(obj["type"], at.key("type"))
        if text.startswith("#"):
            raise at.key("type").fail("entity type tags are not supported by this interpreter")
        etype = _res(text, at.key("type"))
    flags: list[tuple[str, bool]] = []
    for name, wanted in _obj(obj.get("flags", {}), at.key("flags")).items():
        if name not in _ENTITY_FLAGS:
            raise at.key("flags").key(name).fail(f"unknown entity flag {name!r}")
        flags.append((_ENTITY_FLAGS[name], _bool(wanted, at.key("flags").key(name))))
    return _EntityPredicate(etype, tuple(flags))


@dataclass(frozen=True)
class _StateMatcher:
    name: str
    exact: str | None
    low: str | None
    high: str | None

    def matches(self, state: Mapping[str, str]) -> bool:
        if self.name not in state:
            return False  # vanilla: a property the block does not have never matches
        value = state[self.name]
        if self.exact is not None:
            return value == self.exact
        # Ranged matcher: integer properties compare numerically (all ranged vanilla uses are ints).
        try:
            number = int(value)
            return (self.low is None or number >= int(self.low)) and (
                self.high is None or number <= int(self.high)
            )
        except ValueError:
            return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def _scalar_text(value: Any, at: _Where) -> str:
    # StatePropertiesPredicate reads values with getAsString: true → "true", 3 → "3".
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return _str(value, at)


def _state_predicate(value: Any, at: _Where) -> tuple[_StateMatcher, ...]:
    matchers = []
    for name, raw in _obj(value, at).items():
        m_at = at.key(name)
        if isinstance(raw, dict):
            low = _scalar_text(raw["min"], m_at.key("min")) if "min" in raw else None
            high = _scalar_text(raw["max"], m_at.key("max")) if "max" in raw else None
            matchers.append(_StateMatcher(name, None, low, high))
        else:
            matchers.append(_StateMatcher(name, _scalar_text(raw, m_at), None, None))
    return tuple(matchers)


# --------------------------------------------------------------------------------------------------
# Conditions
# --------------------------------------------------------------------------------------------------


class _Condition:
    def test(self, run: _Run) -> bool:
        raise NotImplementedError


def _all(conditions: Sequence[_Condition], run: _Run) -> bool:
    return all(c.test(run) for c in conditions)


@dataclass(frozen=True)
class _Inverted(_Condition):
    term: _Condition

    def test(self, run: _Run) -> bool:
        return not self.term.test(run)


@dataclass(frozen=True)
class _AnyOf(_Condition):
    terms: tuple[_Condition, ...]

    def test(self, run: _Run) -> bool:
        return any(t.test(run) for t in self.terms)


@dataclass(frozen=True)
class _RandomChance(_Condition):
    chance: float

    def test(self, run: _Run) -> bool:
        return run.next_float() < self.chance


@dataclass(frozen=True)
class _RandomChanceWithLooting(_Condition):
    chance: float
    multiplier: float

    def test(self, run: _Run) -> bool:
        level = run.ctx.looting if run.ctx.killer is not None else 0
        return run.next_float() < self.chance + level * self.multiplier


@dataclass(frozen=True)
class _SurvivesExplosion(_Condition):
    def test(self, run: _Run) -> bool:
        radius = run.ctx.explosion_radius
        return radius is None or run.next_float() <= 1.0 / radius


@dataclass(frozen=True)
class _TableBonus(_Condition):
    enchantment: str
    chances: tuple[float, ...]

    def test(self, run: _Run) -> bool:
        level = run.tool_level(self.enchantment) or 0
        return run.next_float() < self.chances[min(level, len(self.chances) - 1)]


@dataclass(frozen=True)
class _MatchTool(_Condition):
    predicate: _ItemPredicate

    def test(self, run: _Run) -> bool:
        tool = run.ctx.tool
        return tool is not None and self.predicate.matches(tool, run)


@dataclass(frozen=True)
class _BlockStateProperty(_Condition):
    block: str
    properties: tuple[_StateMatcher, ...]

    def test(self, run: _Run) -> bool:
        block = run.ctx.block
        if block is None or block.name != self.block:
            return False
        return all(m.matches(block.state) for m in self.properties)


@dataclass(frozen=True)
class _EntityProperties(_Condition):
    target: str
    predicate: _EntityPredicate

    def test(self, run: _Run) -> bool:
        entity = {
            "this": run.ctx.this_entity,
            "killer": run.ctx.killer,
            "direct_killer": run.ctx.direct_killer,
            "killer_player": run.ctx.killer_player,
        }[self.target]
        return entity is not None and self.predicate.matches(entity)


@dataclass(frozen=True)
class _KilledByPlayer(_Condition):
    inverse: bool

    def test(self, run: _Run) -> bool:
        return run.ctx.killed_by_player != self.inverse


@dataclass(frozen=True)
class _LocationCheck(_Condition):
    offset: tuple[int, int, int]
    blocks: frozenset[str] | None
    tag: str | None
    state: tuple[_StateMatcher, ...]
    where: str

    def test(self, run: _Run) -> bool:
        if run.ctx.neighbours is None:
            raise ContractError(f"{self.where}: location_check needs LootContext.neighbours")
        block = run.ctx.neighbours.get(self.offset)
        if block is None:
            raise ContractError(f"{self.where}: LootContext.neighbours has no block at offset {self.offset}")
        if self.blocks is not None and block.name not in self.blocks:
            return False
        if self.tag is not None and block.name not in run.tags(self.tag):
            return False
        return all(m.matches(block.state) for m in self.state)


def _location_check(obj: dict[str, Any], at: _Where) -> _LocationCheck:
    offset = tuple(_int(obj.get(k, 0), at.key(k)) for k in ("offsetX", "offsetY", "offsetZ"))
    p_at = at.key("predicate")
    predicate = _obj(obj.get("predicate", {}), p_at)
    for name in predicate:
        if name != "block":
            raise p_at.key(name).fail(
                f"location predicate field {name!r} is not supported by this interpreter"
            )
    b_at = p_at.key("block")
    block = _obj(predicate.get("block", {}), b_at)
    for name in block:
        if name not in ("blocks", "tag", "state"):
            raise b_at.key(name).fail(f"block predicate field {name!r} is not supported by this interpreter")
    blocks = None
    if "blocks" in block:
        blocks = frozenset(
            _res(v, b_at.key("blocks").idx(i))
            for i, v in enumerate(_list(block["blocks"], b_at.key("blocks")))
        )
    tag = _res(block["tag"], b_at.key("tag")) if "tag" in block else None
    state = _state_predicate(block.get("state", {}), b_at.key("state"))
    return _LocationCheck(
        (offset[0], offset[1], offset[2]), blocks, tag, state, f"loot table {at.table}: {at.path}"
    )


def _condition(value: Any, at: _Where) -> _Condition:
    obj = _obj(value, at)
    kind = _type_path(_required(obj, "condition", at), at.key("condition"))
    if kind == "inverted":
        return _Inverted(_condition(_required(obj, "term", at), at.key("term")))
    if kind == "alternative":
        terms = _list(_required(obj, "terms", at), at.key("terms"))
        return _AnyOf(tuple(_condition(t, at.key("terms").idx(i)) for i, t in enumerate(terms)))
    if kind == "random_chance":
        return _RandomChance(_num(_required(obj, "chance", at), at.key("chance")))
    if kind == "random_chance_with_looting":
        return _RandomChanceWithLooting(
            _num(_required(obj, "chance", at), at.key("chance")),
            _num(_required(obj, "looting_multiplier", at), at.key("looting_multiplier")),
        )
    if kind == "survives_explosion":
        return _SurvivesExplosion()
    if kind == "table_bonus":
        chances = _list(_required(obj, "chances", at), at.key("chances"))
        if not chances:
            raise at.key("chances").fail("table_bonus needs at least one chance")
        return _TableBonus(
            _res(_required(obj, "enchantment", at), at.key("enchantment")),
            tuple(_num(c, at.key("chances").idx(i)) for i, c in enumerate(chances)),
        )
    if kind == "match_tool":
        return _MatchTool(_item_predicate(obj.get("predicate", {}), at.key("predicate")))
    if kind == "block_state_property":
        return _BlockStateProperty(
            _res(_required(obj, "block", at), at.key("block")),
            _state_predicate(obj.get("properties", {}), at.key("properties")),
        )
    if kind == "entity_properties":
        target = _str(_required(obj, "entity", at), at.key("entity"))
        if target not in ("this", "killer", "direct_killer", "killer_player"):
            raise at.key("entity").fail(f"unknown entity target {target!r}")
        return _EntityProperties(target, _entity_predicate(obj.get("predicate", {}), at.key("predicate")))
    if kind == "killed_by_player":
        return _KilledByPlayer(_bool(obj.get("inverse", False), at.key("inverse")))
    if kind == "location_check":
        return _location_check(obj, at)
    raise at.key("condition").fail(f"unsupported condition type {obj['condition']!r}")


def _conditions(obj: Mapping[str, Any], at: _Where) -> tuple[_Condition, ...]:
    raw = obj.get("conditions", [])
    c_at = at.key("conditions")
    return tuple(_condition(c, c_at.idx(i)) for i, c in enumerate(_list(raw, c_at)))


# --------------------------------------------------------------------------------------------------
# Item functions
# --------------------------------------------------------------------------------------------------


class _Function:
    conditions: tuple[_Condition, ...]

    def apply(self, stack: _Stack, run: _Run) -> _Stack:
        # LootItemConditionalFunction: the function is skipped when its conditions fail.
        return self.run(stack, run) if _all(self.conditions, run) else stack

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        raise NotImplementedError


@dataclass(frozen=True)
class _SetCount(_Function):
    conditions: tuple[_Condition, ...]
    count: _Number
    add: bool

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        base = stack.count if self.add else 0
        stack.count = max(0, min(base + self.count.get_int(run), run.max_stack(stack.name)))
        return stack


@dataclass(frozen=True)
class _ApplyBonus(_Function):
    conditions: tuple[_Condition, ...]
    enchantment: str
    formula: str
    multiplier: int
    extra: int
    probability: float

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        level = run.tool_level(self.enchantment)
        if level is None:
            return stack  # no tool parameter: vanilla leaves the stack alone
        count = stack.count
        if self.formula == "ore_drops":
            if level > 0:
                count *= max(run.next_int(level + 2) - 1, 0) + 1
        elif self.formula == "uniform_bonus_count":
            count += run.next_int(self.multiplier * level + 1)
        else:  # binomial_with_bonus_count
            count += sum(1 for _ in range(level + self.extra) if run.next_float() < self.probability)
        stack.count = count
        return stack


@dataclass(frozen=True)
class _ExplosionDecay(_Function):
    conditions: tuple[_Condition, ...]

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        radius = run.ctx.explosion_radius
        if radius is not None:
            keep = 1.0 / radius
            stack.count = sum(1 for _ in range(stack.count) if run.next_float() <= keep)
        return stack


@dataclass(frozen=True)
class _LimitCount(_Function):
    conditions: tuple[_Condition, ...]
    low: _Number | None
    high: _Number | None

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        count = stack.count
        if self.low is not None:
            count = max(count, self.low.get_int(run))
        if self.high is not None:
            count = min(count, self.high.get_int(run))
        stack.count = count
        return stack


@dataclass(frozen=True)
class _LootingEnchant(_Function):
    conditions: tuple[_Condition, ...]
    count: _Number
    limit: int

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        if run.ctx.killer is None or run.ctx.looting == 0:
            return stack
        stack.count += _java_round(run.ctx.looting * self.count.get_float(run))
        if self.limit > 0 and stack.count > self.limit:
            stack.count = self.limit
        return stack


@dataclass(frozen=True)
class _FurnaceSmelt(_Function):
    conditions: tuple[_Condition, ...]
    where: str

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        if stack.count <= 0:
            return stack
        if run.smelt is None:
            raise ContractError(f"{self.where}: furnace_smelt ran but roll() was given no smelt lookup")
        result = run.smelt(stack.name)
        # Vanilla logs "Couldn't smelt ..." and keeps the stack when no smelting recipe matches.
        return stack if result is None else _Stack(result, stack.count)


@dataclass(frozen=True)
class _NoOp(_Function):
    conditions: tuple[_Condition, ...]
    kind: str

    def run(self, stack: _Stack, run: _Run) -> _Stack:
        return stack  # see NO_OP_FUNCTIONS: NBT/name data is not modelled


def _function(value: Any, at: _Where) -> _Function:
    obj = _obj(value, at)
    kind = _type_path(_required(obj, "function", at), at.key("function"))
    conditions = _conditions(obj, at)
    if kind == "set_count":
        return _SetCount(
            conditions,
            _number(_required(obj, "count", at), at.key("count")),
            _bool(obj.get("add", False), at.key("add")),
        )
    if kind == "apply_bonus":
        formula = _type_path(_required(obj, "formula", at), at.key("formula"))
        params = _obj(obj.get("parameters", {}), at.key("parameters"))
        p_at = at.key("parameters")
        multiplier, extra, probability = 0, 0, 0.0
        if formula == "uniform_bonus_count":
            multiplier = _int(_required(params, "bonusMultiplier", p_at), p_at.key("bonusMultiplier"))
        elif formula == "binomial_with_bonus_count":
            extra = _int(_required(params, "extra", p_at), p_at.key("extra"))
            probability = _num(_required(params, "probability", p_at), p_at.key("probability"))
        elif formula != "ore_drops":
            raise at.key("formula").fail(f"unknown apply_bonus formula {obj['formula']!r}")
        return _ApplyBonus(
            conditions,
            _res(_required(obj, "enchantment", at), at.key("enchantment")),
            formula,
            multiplier,
            extra,
            probability,
        )
    if kind == "explosion_decay":
        return _ExplosionDecay(conditions)
    if kind == "limit_count":
        limit = obj.get("limit", {})
        l_at = at.key("limit")
        if isinstance(limit, int | float) and not isinstance(limit, bool):
            exact = _Constant(float(limit))
            return _LimitCount(conditions, exact, exact)
        limit = _obj(limit, l_at)
        low = _number(limit["min"], l_at.key("min")) if "min" in limit else None
        high = _number(limit["max"], l_at.key("max")) if "max" in limit else None
        return _LimitCount(conditions, low, high)
    if kind == "looting_enchant":
        return _LootingEnchant(
            conditions,
            _number(_required(obj, "count", at), at.key("count")),
            _int(obj.get("limit", 0), at.key("limit")),
        )
    if kind == "furnace_smelt":
        return _FurnaceSmelt(conditions, f"loot table {at.table}: {at.path}")
    if kind in NO_OP_FUNCTIONS:
        return _NoOp(conditions, kind)
    raise at.key("function").fail(f"unsupported function type {obj['function']!r}")


def _functions(obj: Mapping[str, Any], at: _Where) -> tuple[_Function, ...]:
    f_at = at.key("functions")
    return tuple(_function(f, f_at.idx(i)) for i, f in enumerate(_list(obj.get("functions", []), f_at)))


def _apply_all(functions: Sequence[_Function], stack: _Stack, run: _Run) -> _Stack:
    for function in functions:
        stack = function.apply(stack, run)
    return stack


# --------------------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------------------

Emit = Callable[[_Stack], None]


@dataclass(frozen=True)
class _Candidate:
    """An expanded entry: its weight and how to produce its items."""

    weight: int
    quality: int
    create: Callable[[Emit, _Run], None]

    def effective_weight(self, luck: float) -> int:
        return max(math.floor(self.weight + self.quality * luck), 0)


class _Entry:
    conditions: tuple[_Condition, ...]

    def expand(self, run: _Run, out: list[_Candidate]) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class _Singleton(_Entry):
    """item / tag / loot_table / empty entries (vanilla LootPoolSingletonContainer)."""

    kind: str
    name: str | None
    expand_tag: bool
    weight: int
    quality: int
    conditions: tuple[_Condition, ...]
    functions: tuple[_Function, ...]
    where: str

    def expand(self, run: _Run, out: list[_Candidate]) -> bool:
        if not _all(self.conditions, run):
            return False
        if self.kind == "tag" and self.expand_tag:
            assert self.name is not None
            # TagEntry.expand: one candidate per tagged item, in a stable (sorted) order.
            for item in sorted(run.tags(self.name)):
                out.append(_Candidate(self.weight, self.quality, self._item_creator(item)))
        else:
            out.append(_Candidate(self.weight, self.quality, self._create))
        return True

    def _decorated(self, emit: Emit, run: _Run) -> Emit:
        return lambda stack: emit(_apply_all(self.functions, stack, run))

    def _item_creator(self, item: str) -> Callable[[Emit, _Run], None]:
        def create(emit: Emit, run: _Run) -> None:
            self._decorated(emit, run)(_Stack(item, 1))

        return create

    def _create(self, emit: Emit, run: _Run) -> None:
        out = self._decorated(emit, run)
        if self.kind == "item":
            assert self.name is not None
            out(_Stack(self.name, 1))
        elif self.kind == "tag":
            assert self.name is not None
            for item in sorted(run.tags(self.name)):
                out(_Stack(item, 1))
        elif self.kind == "loot_table":
            assert self.name is not None
            if run.tables is None:
                raise ContractError(f"{self.where}: loot_table entry needs roll(..., tables=LootTableSet)")
            if self.name in run.visiting:
                chain = " -> ".join([*run.visiting, self.name])
                raise DatapackError(f"{self.where}: loot_table reference cycle: {chain}")
            if self.name not in run.tables:
                raise DatapackError(
                    f"{self.where}: references loot table {self.name!r}, which no pack defines"
                )
            run.tables.get(self.name)._roll_into(out, run)
        # "empty" produces nothing


@dataclass(frozen=True)
class _Composite(_Entry):
    kind: str  # alternatives | group | sequence
    children: tuple[_Entry, ...]
    conditions: tuple[_Condition, ...]

    def expand(self, run: _Run, out: list[_Candidate]) -> bool:
        if not _all(self.conditions, run):
            return False
        if self.kind == "alternatives":
            return any(child.expand(run, out) for child in self.children)  # first that expands
        if self.kind == "sequence":
            return all(child.expand(run, out) for child in self.children)  # until one fails
        for child in self.children:  # group: every child
            child.expand(run, out)
        return True


def _entry(value: Any, at: _Where) -> _Entry:
    obj = _obj(value, at)
    kind = _type_path(_required(obj, "type", at), at.key("type"))
    conditions = _conditions(obj, at)
    if kind in ("alternatives", "group", "sequence"):
        c_at = at.key("children")
        children = _list(obj.get("children", []), c_at)
        return _Composite(kind, tuple(_entry(c, c_at.idx(i)) for i, c in enumerate(children)), conditions)
    if kind not in ("item", "tag", "loot_table", "empty"):
        raise at.key("type").fail(f"unsupported entry type {obj['type']!r}")
    name = _res(_required(obj, "name", at), at.key("name")) if kind != "empty" else None
    expand_tag = False
    if kind == "tag":
        expand_tag = _bool(_required(obj, "expand", at), at.key("expand"))
    return _Singleton(
        kind,
        name,
        expand_tag,
        _int(obj.get("weight", 1), at.key("weight")),
        _int(obj.get("quality", 0), at.key("quality")),
        conditions,
        _functions(obj, at),
        f"loot table {at.table}: {at.path}",
    )


# --------------------------------------------------------------------------------------------------
# Pools and tables
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pool:
    rolls: _Number
    bonus_rolls: _Number
    entries: tuple[_Entry, ...]
    conditions: tuple[_Condition, ...]
    functions: tuple[_Function, ...]

    def roll_into(self, emit: Emit, run: _Run) -> None:
        if not _all(self.conditions, run):
            return
        out = lambda stack: emit(_apply_all(self.functions, stack, run))  # noqa: E731
        times = self.rolls.get_int(run) + math.floor(self.bonus_rolls.get_float(run) * run.ctx.luck)
        for _ in range(times):
            self._one(out, run)

    def _one(self, emit: Emit, run: _Run) -> None:
        # LootPool.addRandomItem: expand every entry, then pick one candidate by weight.
        candidates: list[_Candidate] = []
        for entry in self.entries:
            entry.expand(run, candidates)
        luck = run.ctx.luck
        weighted = [(c, c.effective_weight(luck)) for c in candidates]
        weighted = [(c, w) for c, w in weighted if w > 0]
        total = sum(w for _, w in weighted)
        if not weighted or total == 0:
            return
        if len(weighted) == 1:
            weighted[0][0].create(emit, run)
            return
        pick = run.next_int(total)
        for candidate, w in weighted:
            pick -= w
            if pick < 0:
                candidate.create(emit, run)
                return


class LootTable:
    """A compiled loot table. Build with :func:`parse_loot_table` or :class:`LootTableSet`."""

    def __init__(
        self,
        location: str,
        table_type: str | None,
        pools: Sequence[_Pool],
        functions: Sequence[_Function],
        neighbour_offsets: frozenset[tuple[int, int, int]] = frozenset(),
    ):
        self.location = location
        self.type = table_type
        self._pools = tuple(pools)
        self._functions = tuple(functions)
        self.neighbour_offsets = neighbour_offsets
        """Offsets the table's ``location_check`` conditions look at: fill ``LootContext.neighbours``
        with the blocks there (e.g. the other half of a double plant). Referenced tables not included."""

    def __repr__(self) -> str:
        return f"LootTable({self.location!r}, type={self.type!r}, pools={len(self._pools)})"

    def _roll_into(self, emit: Emit, run: _Run) -> None:
        run.visiting.append(self.location)
        try:
            out = lambda stack: emit(_apply_all(self._functions, stack, run))  # noqa: E731
            for pool in self._pools:
                pool.roll_into(out, run)
        finally:
            run.visiting.pop()


def parse_loot_table(location: str, data: Any) -> LootTable:
    """Compile one loot table's JSON.

    Args:
        location: The table's resource location (``<ns>:blocks/stone``), used in error messages and for
            ``loot_table`` reference-cycle detection.
        data: The parsed JSON object.

    Returns:
        The compiled table.

    Raises:
        DatapackError: On an unknown type or malformed field; the message names the table and JSON path.
    """
    at = _Where(location)
    obj = _obj(data, at)
    table_type = _res(obj["type"], at.key("type")) if "type" in obj else None
    pools = []
    p_list_at = at.key("pools")
    for i, raw in enumerate(_list(obj.get("pools", []), p_list_at)):
        p_at = p_list_at.idx(i)
        pool = _obj(raw, p_at)
        e_at = p_at.key("entries")
        entries = _list(_required(pool, "entries", p_at), e_at)
        pools.append(
            _Pool(
                _number(_required(pool, "rolls", p_at), p_at.key("rolls")),
                _number(pool.get("bonus_rolls", 0.0), p_at.key("bonus_rolls")),
                tuple(_entry(e, e_at.idx(j)) for j, e in enumerate(entries)),
                _conditions(pool, p_at),
                _functions(pool, p_at),
            )
        )
    return LootTable(location, table_type, pools, _functions(obj, at), _location_offsets(obj))


def _location_offsets(node: Any) -> frozenset[tuple[int, int, int]]:
    """Every ``location_check`` offset in a (validated) table's JSON."""
    found: set[tuple[int, int, int]] = set()
    if isinstance(node, dict):
        if node.get("condition") in ("location_check", f"{_NAMESPACE}:location_check"):
            found.add((int(node.get("offsetX", 0)), int(node.get("offsetY", 0)), int(node.get("offsetZ", 0))))
        for value in node.values():
            found |= _location_offsets(value)
    elif isinstance(node, list):
        for value in node:
            found |= _location_offsets(value)
    return frozenset(found)


class LootTableSet:
    """Loot tables by resource location, resolved across pack roots like a server's datapack stack.

    Later roots override earlier ones for the same resource location (vanilla pack first, then the
    world's rule pack), exactly as a real server resolves datapack resources.
    """

    def __init__(self, tables: Mapping[str, LootTable]):
        self._tables = dict(tables)

    @classmethod
    def from_pack_dirs(cls, dirs: Sequence[Path]) -> LootTableSet:
        """Load every ``data/<ns>/loot_tables/**/*.json`` from pack roots (folders or ``.zip`` packs).

        Args:
            dirs: Pack roots in load order (each holds ``data/``); later ones override earlier ones.

        Returns:
            The compiled set.

        Raises:
            DatapackError: A pack root is missing, a file is not valid JSON, or a table fails to compile
                (the message names the file/table and the JSON path).
        """
        raw: dict[str, tuple[str, bytes]] = {}
        for root in dirs:
            for location, source, content in _iter_pack_tables(Path(root)):
                raw[location] = (source, content)
        tables = {}
        for location, (source, content) in raw.items():
            try:
                data = json.loads(content)
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise DatapackError(f"{source}: not valid JSON: {err}") from err
            tables[location] = parse_loot_table(location, data)
        return cls(tables)

    def __contains__(self, location: object) -> bool:
        return isinstance(location, str) and _normalise(location) in self._tables

    def __len__(self) -> int:
        return len(self._tables)

    def locations(self) -> list[str]:
        """All resource locations, sorted."""
        return sorted(self._tables)

    def get(self, location: str) -> LootTable:
        """The table at ``location`` (``<ns>:blocks/stone``; no namespace means the default one).

        Raises:
            DatapackError: No pack defines that table.
        """
        key = _normalise(location)
        try:
            return self._tables[key]
        except KeyError:
            raise DatapackError(f"no loot table {key!r} in the loaded packs") from None

    def roll(
        self,
        location: str,
        ctx: LootContext,
        rng: random.Random,
        tag_resolver: TagResolver,
        smelt: SmeltLookup | None = None,
        max_stack_size: Callable[[str], int] | None = None,
    ) -> list[ItemStack]:
        """Roll the table at ``location`` with ``loot_table`` references resolved in this set.

        See :func:`roll` for the arguments.
        """
        return roll(
            self.get(location), ctx, rng, tag_resolver, smelt, tables=self, max_stack_size=max_stack_size
        )


def _normalise(location: str) -> str:
    return location if ":" in location else f"{_NAMESPACE}:{location}"


def _iter_pack_tables(root: Path) -> Iterable[tuple[str, str, bytes]]:
    if root.is_file() and root.suffix == ".zip":
        with zipfile.ZipFile(root) as archive:
            for name in sorted(archive.namelist()):
                parts = name.split("/")
                if (
                    len(parts) >= 4
                    and parts[0] == "data"
                    and parts[2] == "loot_tables"
                    and name.endswith(".json")
                ):
                    path = "/".join(parts[3:])[: -len(".json")]
                    yield f"{parts[1]}:{path}", f"{root}!{name}", archive.read(name)
        return
    data_dir = root / "data"
    if not data_dir.is_dir():
        raise DatapackError(f"{root}: not a pack root (no data/ folder)")
    for ns_dir in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        tables_dir = ns_dir / "loot_tables"
        if not tables_dir.is_dir():
            continue
        for file in sorted(tables_dir.rglob("*.json")):
            path = file.relative_to(tables_dir).with_suffix("").as_posix()
            yield f"{ns_dir.name}:{path}", str(file), file.read_bytes()


def roll(
    table: LootTable,
    ctx: LootContext,
    rng: random.Random,
    tag_resolver: TagResolver,
    smelt: SmeltLookup | None = None,
    *,
    tables: LootTableSet | None = None,
    max_stack_size: Callable[[str], int] | None = None,
) -> list[ItemStack]:
    """Roll a loot table once.

    Args:
        table: The compiled table.
        ctx: Loot parameters (tool, explosion, block state, entities, looting).
        rng: The only source of randomness; seed it from the world and episode seeds for determinism.
        tag_resolver: Item tag id (no ``#``) → item ids; used by ``tag`` entries and ``match_tool`` tags.
        smelt: Smelting lookup for ``furnace_smelt``; required only if that function actually runs.
        tables: Resolves ``loot_table`` entries (needed only if the table references another).
        max_stack_size: Item id → max stack size, the clamp of ``set_count`` (vanilla clamps there);
            defaults to 64 for every item.

    Returns:
        Item stacks with equal items merged, in order of first appearance; empty results are dropped.
        Counts may exceed a stack size: the caller splits them when it spawns items.

    Raises:
        DatapackError: A ``loot_table`` reference cycle or a missing referenced table.
        ContractError: The table needs something the caller did not pass (smelt lookup, tables,
            ``LootContext.neighbours``).
    """
    run = _Run(
        ctx=ctx,
        rng=rng,
        tags=tag_resolver,
        smelt=smelt,
        tables=tables,
        max_stack=max_stack_size or (lambda _name: 64),
        visiting=[],
    )
    merged: dict[str, int] = {}

    def collect(stack: _Stack) -> None:
        if stack.count > 0:
            merged[stack.name] = merged.get(stack.name, 0) + stack.count

    table._roll_into(collect, run)
    return [ItemStack(name=name, count=count) for name, count in merged.items()]
