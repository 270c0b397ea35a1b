"""Loot item functions (``LootItemFunctions``): each changes the stack an entry produces, gated by its own
conditions.

Supported: ``set_count``, ``apply_bonus`` (``ore_drops``, ``uniform_bonus_count``,
``binomial_with_bonus_count``), ``explosion_decay``, ``limit_count``, ``looting_enchant``,
``furnace_smelt``; ``copy_name``, ``copy_nbt``, ``copy_state`` and ``set_nbt`` are accepted as no-ops
(:data:`NO_OP_FUNCTIONS`: they touch names/NBT the loot stacks do not carry). Any other type raises when
loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mirrorcraft.errors import ContractError
from mirrorcraft.rules.loot.conditions import Condition, ItemTags, all_pass, parse_conditions
from mirrorcraft.rules.loot.context import Run, java_round
from mirrorcraft.rules.loot.numbers import Constant, Number, parse_number
from mirrorcraft.rules.packs import JsonAt
from mirrorcraft.rules.stack import Stack

__all__ = [
    "NO_OP_FUNCTIONS",
    "ApplyBonus",
    "ExplosionDecay",
    "FurnaceSmelt",
    "Function",
    "LimitCount",
    "LootingEnchant",
    "NoOp",
    "SetCount",
    "apply_all",
    "parse_functions",
]

NO_OP_FUNCTIONS = frozenset({"copy_name", "copy_nbt", "copy_state", "set_nbt"})
"""Item functions accepted but ignored: they only touch NBT/names, which loot stacks do not carry."""


class Function:
    """A compiled item function."""

    conditions: tuple[Condition, ...]

    def apply(self, stack: Stack, run: Run) -> Stack:
        # LootItemConditionalFunction: the function is skipped when its conditions fail.
        return self.run(stack, run) if all_pass(self.conditions, run) else stack

    def run(self, stack: Stack, run: Run) -> Stack:
        raise NotImplementedError


@dataclass(frozen=True)
class SetCount(Function):
    conditions: tuple[Condition, ...]
    count: Number
    add: bool

    def run(self, stack: Stack, run: Run) -> Stack:
        base = stack.count if self.add else 0
        return stack._replace(count=max(0, min(base + self.count.get_int(run), run.max_stack(stack.item))))


@dataclass(frozen=True)
class ApplyBonus(Function):
    conditions: tuple[Condition, ...]
    enchantment: str
    formula: str
    multiplier: int
    extra: int
    probability: float

    def run(self, stack: Stack, run: Run) -> Stack:
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
        return stack._replace(count=count)


@dataclass(frozen=True)
class ExplosionDecay(Function):
    conditions: tuple[Condition, ...]

    def run(self, stack: Stack, run: Run) -> Stack:
        radius = run.ctx.explosion_radius
        if radius is None:
            return stack
        keep = 1.0 / radius
        return stack._replace(count=sum(1 for _ in range(stack.count) if run.next_float() <= keep))


@dataclass(frozen=True)
class LimitCount(Function):
    conditions: tuple[Condition, ...]
    low: Number | None
    high: Number | None

    def run(self, stack: Stack, run: Run) -> Stack:
        count = stack.count
        if self.low is not None:
            count = max(count, self.low.get_int(run))
        if self.high is not None:
            count = min(count, self.high.get_int(run))
        return stack._replace(count=count)


@dataclass(frozen=True)
class LootingEnchant(Function):
    conditions: tuple[Condition, ...]
    count: Number
    limit: int

    def run(self, stack: Stack, run: Run) -> Stack:
        if run.ctx.killer is None or run.ctx.looting == 0:
            return stack
        count = stack.count + java_round(run.ctx.looting * self.count.get_float(run))
        if self.limit > 0 and count > self.limit:
            count = self.limit
        return stack._replace(count=count)


@dataclass(frozen=True)
class FurnaceSmelt(Function):
    conditions: tuple[Condition, ...]
    where: str

    def run(self, stack: Stack, run: Run) -> Stack:
        if stack.count <= 0:
            return stack
        if run.smelt is None:
            raise ContractError(f"{self.where}: furnace_smelt ran but roll() was given no smelt lookup")
        result = run.smelt(stack.item)
        # Vanilla logs "Couldn't smelt ..." and keeps the stack when no smelting recipe matches.
        return stack if result is None else Stack(result, stack.count)


@dataclass(frozen=True)
class NoOp(Function):
    conditions: tuple[Condition, ...]
    kind: str

    def run(self, stack: Stack, run: Run) -> Stack:
        return stack  # see NO_OP_FUNCTIONS: NBT/name data is not modelled


def parse_function(value: Any, at: JsonAt, item_tags: ItemTags = None) -> Function:
    """Read one item function.

    Raises:
        JsonError: An unsupported type or formula, an unknown enchantment, a malformed field.
    """
    obj = at.obj(value)
    kind = at.key("function").vanilla_type(at.field(obj, "function"))
    conditions = parse_conditions(obj, at, item_tags)
    if kind == "set_count":
        return SetCount(
            conditions,
            parse_number(at.field(obj, "count"), at.key("count")),
            at.key("add").bool(obj.get("add", False)),
        )
    if kind == "apply_bonus":
        formula = at.key("formula").vanilla_type(at.field(obj, "formula"))
        p_at = at.key("parameters")
        params = p_at.obj(obj.get("parameters", {}))
        multiplier, extra, probability = 0, 0, 0.0
        if formula == "uniform_bonus_count":
            multiplier = p_at.key("bonusMultiplier").int(p_at.field(params, "bonusMultiplier"))
        elif formula == "binomial_with_bonus_count":
            extra = p_at.key("extra").int(p_at.field(params, "extra"))
            probability = p_at.key("probability").num(p_at.field(params, "probability"))
        elif formula != "ore_drops":
            raise at.key("formula").fail(f"unknown apply_bonus formula {obj['formula']!r}")
        return ApplyBonus(
            conditions,
            at.key("enchantment").known(at.field(obj, "enchantment"), "enchantment"),
            formula,
            multiplier,
            extra,
            probability,
        )
    if kind == "explosion_decay":
        return ExplosionDecay(conditions)
    if kind == "limit_count":
        limit = obj.get("limit", {})
        l_at = at.key("limit")
        if isinstance(limit, int | float) and not isinstance(limit, bool):
            exact = Constant(float(limit))
            return LimitCount(conditions, exact, exact)
        limit = l_at.obj(limit)
        low = parse_number(limit["min"], l_at.key("min")) if "min" in limit else None
        high = parse_number(limit["max"], l_at.key("max")) if "max" in limit else None
        return LimitCount(conditions, low, high)
    if kind == "looting_enchant":
        return LootingEnchant(
            conditions,
            parse_number(at.field(obj, "count"), at.key("count")),
            at.key("limit").int(obj.get("limit", 0)),
        )
    if kind == "furnace_smelt":
        return FurnaceSmelt(conditions, at.here)
    if kind in NO_OP_FUNCTIONS:
        return NoOp(conditions, kind)
    raise at.key("function").fail(f"unsupported function type {obj['function']!r}")


def parse_functions(obj: Mapping[str, Any], at: JsonAt, item_tags: ItemTags = None) -> tuple[Function, ...]:
    """The ``functions`` list of a table, pool or entry (empty when absent)."""
    f_at = at.key("functions")
    return tuple(f_at.each(f_at.list(obj.get("functions", [])), lambda v, a: parse_function(v, a, item_tags)))


def apply_all(functions: Sequence[Function], stack: Stack, run: Run) -> Stack:
    """Run ``functions`` over ``stack`` in order."""
    for function in functions:
        stack = function.apply(stack, run)
    return stack
