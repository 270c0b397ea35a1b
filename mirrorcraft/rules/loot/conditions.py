"""Loot conditions (``LootItemConditions``) that gate pools, entries and functions.

Supported: ``inverted``, ``alternative``, ``random_chance``, ``random_chance_with_looting``,
``survives_explosion``, ``table_bonus``, ``match_tool``, ``block_state_property``, ``entity_properties``,
``killed_by_player`` and ``location_check`` (block predicates at an offset only). Any other type
(``weather_check``, ``time_check``, ``entity_scores``, ``reference``, ``damage_source_properties``,
``value_check``) raises when loaded instead of being guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mirrorcraft.errors import ContractError
from mirrorcraft.rules.loot.context import Run
from mirrorcraft.rules.loot.predicates import (
    EntityPredicate,
    StateMatcher,
    parse_entity_predicate,
    parse_state_predicate,
)
from mirrorcraft.rules.packs import JsonAt
from mirrorcraft.rules.predicates import ItemPredicate, parse_item_predicate

__all__ = [
    "AnyOf",
    "BlockStateProperty",
    "Condition",
    "EntityProperties",
    "Inverted",
    "KilledByPlayer",
    "LocationCheck",
    "MatchTool",
    "RandomChance",
    "RandomChanceWithLooting",
    "SurvivesExplosion",
    "TableBonus",
    "all_pass",
    "parse_conditions",
]

ItemTags = Mapping[str, frozenset[str]] | None


class Condition:
    """A compiled condition."""

    def test(self, run: Run) -> bool:
        raise NotImplementedError


def all_pass(conditions: Sequence[Condition], run: Run) -> bool:
    """Whether every condition holds (vanilla tests them in order and stops at the first failure)."""
    return all(c.test(run) for c in conditions)


@dataclass(frozen=True)
class Inverted(Condition):
    term: Condition

    def test(self, run: Run) -> bool:
        return not self.term.test(run)


@dataclass(frozen=True)
class AnyOf(Condition):
    """The ``alternative`` condition: any of its terms."""

    terms: tuple[Condition, ...]

    def test(self, run: Run) -> bool:
        return any(t.test(run) for t in self.terms)


@dataclass(frozen=True)
class RandomChance(Condition):
    chance: float

    def test(self, run: Run) -> bool:
        return run.next_float() < self.chance


@dataclass(frozen=True)
class RandomChanceWithLooting(Condition):
    chance: float
    multiplier: float

    def test(self, run: Run) -> bool:
        level = run.ctx.looting if run.ctx.killer is not None else 0
        return run.next_float() < self.chance + level * self.multiplier


@dataclass(frozen=True)
class SurvivesExplosion(Condition):
    def test(self, run: Run) -> bool:
        radius = run.ctx.explosion_radius
        return radius is None or run.next_float() <= 1.0 / radius


@dataclass(frozen=True)
class TableBonus(Condition):
    enchantment: str
    chances: tuple[float, ...]

    def test(self, run: Run) -> bool:
        level = run.tool_level(self.enchantment) or 0
        return run.next_float() < self.chances[min(level, len(self.chances) - 1)]


@dataclass(frozen=True)
class MatchTool(Condition):
    predicate: ItemPredicate

    def test(self, run: Run) -> bool:
        tool = run.ctx.tool
        if tool is None:
            return False
        count = tool.count if tool.item is not None else 0
        return self.predicate.matches(tool.item, count, tool.enchantments, run.tags)


@dataclass(frozen=True)
class BlockStateProperty(Condition):
    block: str
    properties: tuple[StateMatcher, ...]

    def test(self, run: Run) -> bool:
        block = run.ctx.block
        if block is None or block.name != self.block:
            return False
        return all(m.matches(block.state) for m in self.properties)


@dataclass(frozen=True)
class EntityProperties(Condition):
    target: str
    predicate: EntityPredicate

    def test(self, run: Run) -> bool:
        entity = {
            "this": run.ctx.this_entity,
            "killer": run.ctx.killer,
            "direct_killer": run.ctx.direct_killer,
            "killer_player": run.ctx.killer_player,
        }[self.target]
        return entity is not None and self.predicate.matches(entity)


@dataclass(frozen=True)
class KilledByPlayer(Condition):
    inverse: bool

    def test(self, run: Run) -> bool:
        return run.ctx.killed_by_player != self.inverse


@dataclass(frozen=True)
class LocationCheck(Condition):
    offset: tuple[int, int, int]
    blocks: frozenset[str] | None
    tag: str | None
    state: tuple[StateMatcher, ...]
    where: str

    def test(self, run: Run) -> bool:
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


def _location_check(obj: dict[str, Any], at: JsonAt) -> LocationCheck:
    offset = tuple(at.key(k).int(obj.get(k, 0)) for k in ("offsetX", "offsetY", "offsetZ"))
    p_at = at.key("predicate")
    predicate = p_at.obj(obj.get("predicate", {}))
    for name in predicate:
        if name != "block":
            raise p_at.key(name).fail(
                f"location predicate field {name!r} is not supported by this interpreter"
            )
    b_at = p_at.key("block")
    block = b_at.obj(predicate.get("block", {}))
    for name in block:
        if name not in ("blocks", "tag", "state"):
            raise b_at.key(name).fail(f"block predicate field {name!r} is not supported by this interpreter")
    blocks = None
    if "blocks" in block:
        blocks = frozenset(
            b_at.key("blocks").each(
                b_at.key("blocks").list(block["blocks"]), lambda v, a: a.known(v, "block")
            )
        )
    tag = b_at.key("tag").res(block["tag"]) if "tag" in block else None
    state = parse_state_predicate(block.get("state", {}), b_at.key("state"))
    return LocationCheck((offset[0], offset[1], offset[2]), blocks, tag, state, at.here)


def parse_condition(value: Any, at: JsonAt, item_tags: ItemTags = None) -> Condition:
    """Read one condition (``item_tags``: the loaded item tags, to check the tags ``match_tool`` names).

    Raises:
        JsonError: An unsupported type, an unknown block, item, enchantment or tag, a malformed field.
    """
    obj = at.obj(value)
    kind = at.key("condition").vanilla_type(at.field(obj, "condition"))
    if kind == "inverted":
        return Inverted(parse_condition(at.field(obj, "term"), at.key("term"), item_tags))
    if kind == "alternative":
        t_at = at.key("terms")
        return AnyOf(
            tuple(t_at.each(t_at.list(at.field(obj, "terms")), lambda v, a: parse_condition(v, a, item_tags)))
        )
    if kind == "random_chance":
        return RandomChance(at.key("chance").num(at.field(obj, "chance")))
    if kind == "random_chance_with_looting":
        return RandomChanceWithLooting(
            at.key("chance").num(at.field(obj, "chance")),
            at.key("looting_multiplier").num(at.field(obj, "looting_multiplier")),
        )
    if kind == "survives_explosion":
        return SurvivesExplosion()
    if kind == "table_bonus":
        c_at = at.key("chances")
        chances = c_at.list(at.field(obj, "chances"))
        if not chances:
            raise c_at.fail("table_bonus needs at least one chance")
        return TableBonus(
            at.key("enchantment").known(at.field(obj, "enchantment"), "enchantment"),
            tuple(c_at.idx(i).num(c) for i, c in enumerate(chances)),
        )
    if kind == "match_tool":
        return MatchTool(parse_item_predicate(obj.get("predicate", {}), at.key("predicate"), item_tags))
    if kind == "block_state_property":
        return BlockStateProperty(
            at.key("block").known(at.field(obj, "block"), "block"),
            parse_state_predicate(obj.get("properties", {}), at.key("properties")),
        )
    if kind == "entity_properties":
        target = at.key("entity").str(at.field(obj, "entity"))
        if target not in ("this", "killer", "direct_killer", "killer_player"):
            raise at.key("entity").fail(f"unknown entity target {target!r}")
        return EntityProperties(target, parse_entity_predicate(obj.get("predicate", {}), at.key("predicate")))
    if kind == "killed_by_player":
        return KilledByPlayer(at.key("inverse").bool(obj.get("inverse", False)))
    if kind == "location_check":
        return _location_check(obj, at)
    raise at.key("condition").fail(f"unsupported condition type {obj['condition']!r}")


def parse_conditions(obj: Mapping[str, Any], at: JsonAt, item_tags: ItemTags = None) -> tuple[Condition, ...]:
    """The ``conditions`` list of a pool, entry or function (empty when absent)."""
    c_at = at.key("conditions")
    return tuple(
        c_at.each(c_at.list(obj.get("conditions", [])), lambda v, a: parse_condition(v, a, item_tags))
    )
