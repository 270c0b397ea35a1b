"""Loot entries and pools: what a pool can pick, and how it picks.

* A pool runs only if its ``conditions`` pass; it rolls ``rolls + floor(bonus_rolls * luck)`` times.
* Each roll *expands* the pool's entries into a candidate list (``alternatives`` keeps the first child that
  expands, ``sequence`` children until one fails, ``group`` every child; ``tag`` with ``expand: true``
  gives one candidate per tagged item) and picks **one** candidate by weight
  (``max(floor(weight + quality * luck), 0)``).
* Singleton entries (``item``, ``tag``, ``loot_table``, ``empty``) carry functions, run before the pool's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from mirrorcraft.errors import ContractError, DatapackError
from mirrorcraft.rules.loot.conditions import Condition, ItemTags, all_pass, parse_conditions
from mirrorcraft.rules.loot.context import Emit, Run
from mirrorcraft.rules.loot.functions import Function, apply_all, parse_functions
from mirrorcraft.rules.loot.numbers import Number, parse_number
from mirrorcraft.rules.packs import JsonAt
from mirrorcraft.rules.stack import Stack

__all__ = [
    "COMPOSITE_KINDS",
    "SINGLETON_KINDS",
    "Candidate",
    "Composite",
    "Entry",
    "Pool",
    "Singleton",
    "parse_pool",
]

#: Entry types that hold children, and those that produce stacks (or nothing: ``empty``).
COMPOSITE_KINDS = ("alternatives", "group", "sequence")
SINGLETON_KINDS = ("item", "tag", "loot_table", "empty")


@dataclass(frozen=True)
class Candidate:
    """An expanded entry: its weight and how to produce its items."""

    weight: int
    quality: int
    create: Callable[[Emit, Run], None]

    def effective_weight(self, luck: float) -> int:
        return max(math.floor(self.weight + self.quality * luck), 0)


class Entry:
    """A compiled entry: it expands into candidates when its conditions pass."""

    conditions: tuple[Condition, ...]

    def expand(self, run: Run, out: list[Candidate]) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class Singleton(Entry):
    """``item`` / ``tag`` / ``loot_table`` / ``empty`` entries (vanilla ``LootPoolSingletonContainer``)."""

    kind: str
    name: str | None
    expand_tag: bool
    weight: int
    quality: int
    conditions: tuple[Condition, ...]
    functions: tuple[Function, ...]
    where: str  # "<table>: <json path>", for runtime errors
    path: str = ""  # the entry's JSON path in its table (``pools[0].entries[1]``)

    def expand(self, run: Run, out: list[Candidate]) -> bool:
        if not all_pass(self.conditions, run):
            return False
        if self.kind == "tag" and self.expand_tag:
            assert self.name is not None
            # TagEntry.expand: one candidate per tagged item, in a stable (sorted) order.
            for item in sorted(run.tags(self.name)):
                out.append(Candidate(self.weight, self.quality, self._item_creator(item)))
        else:
            out.append(Candidate(self.weight, self.quality, self._create))
        return True

    def _decorated(self, emit: Emit, run: Run) -> Emit:
        return lambda stack: emit(apply_all(self.functions, stack, run))

    def _item_creator(self, item: str) -> Callable[[Emit, Run], None]:
        def create(emit: Emit, run: Run) -> None:
            self._decorated(emit, run)(Stack(item, 1))

        return create

    def _create(self, emit: Emit, run: Run) -> None:
        out = self._decorated(emit, run)
        if self.kind == "item":
            assert self.name is not None
            out(Stack(self.name, 1))
        elif self.kind == "tag":
            assert self.name is not None
            for item in sorted(run.tags(self.name)):
                out(Stack(item, 1))
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
            run.tables.get(self.name).roll_into(out, run)
        # "empty" produces nothing


@dataclass(frozen=True)
class Composite(Entry):
    """``alternatives`` / ``group`` / ``sequence`` entries."""

    kind: str
    children: tuple[Entry, ...]
    conditions: tuple[Condition, ...]

    def expand(self, run: Run, out: list[Candidate]) -> bool:
        if not all_pass(self.conditions, run):
            return False
        if self.kind == "alternatives":
            return any(child.expand(run, out) for child in self.children)  # first that expands
        if self.kind == "sequence":
            return all(child.expand(run, out) for child in self.children)  # until one fails
        for child in self.children:  # group: every child
            child.expand(run, out)
        return True


def parse_entry(value: Any, at: JsonAt, item_tags: ItemTags = None) -> Entry:
    """Read one entry (``item_tags``: the loaded item tags, to check ``tag`` entries name one).

    Raises:
        JsonError: An unsupported type, an unknown item or tag, a malformed field.
    """
    obj = at.obj(value)
    kind = at.key("type").vanilla_type(at.field(obj, "type"))
    conditions = parse_conditions(obj, at, item_tags)
    if kind in COMPOSITE_KINDS:
        c_at = at.key("children")
        children = c_at.each(c_at.list(obj.get("children", [])), lambda v, a: parse_entry(v, a, item_tags))
        return Composite(kind, tuple(children), conditions)
    if kind not in SINGLETON_KINDS:
        raise at.key("type").fail(f"unsupported entry type {obj['type']!r}")
    name = None
    if kind != "empty":
        n_at, raw = at.key("name"), at.field(obj, "name")
        if kind == "item":
            name = n_at.known(raw, "item")
        elif kind == "tag" and item_tags is not None:
            name = n_at.tag_in(raw, item_tags)
        else:
            name = n_at.res(raw)
    expand_tag = False
    if kind == "tag":
        expand_tag = at.key("expand").bool(at.field(obj, "expand"))
    return Singleton(
        kind,
        name,
        expand_tag,
        at.key("weight").int(obj.get("weight", 1)),
        at.key("quality").int(obj.get("quality", 0)),
        conditions,
        parse_functions(obj, at, item_tags),
        at.here,
        at.path,
    )


@dataclass(frozen=True)
class Pool:
    """A compiled pool."""

    rolls: Number
    bonus_rolls: Number
    entries: tuple[Entry, ...]
    conditions: tuple[Condition, ...]
    functions: tuple[Function, ...]

    def roll_into(self, emit: Emit, run: Run) -> None:
        if not all_pass(self.conditions, run):
            return
        out = lambda stack: emit(apply_all(self.functions, stack, run))  # noqa: E731
        times = self.rolls.get_int(run) + math.floor(self.bonus_rolls.get_float(run) * run.ctx.luck)
        for _ in range(times):
            self._one(out, run)

    def _one(self, emit: Emit, run: Run) -> None:
        # LootPool.addRandomItem: expand every entry, then pick one candidate by weight.
        candidates: list[Candidate] = []
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


def parse_pool(value: Any, at: JsonAt, item_tags: ItemTags = None) -> Pool:
    """Read one pool.

    Raises:
        JsonError: A missing ``rolls``/``entries``, or a problem in an entry, condition or function.
    """
    pool: Mapping[str, Any] = at.obj(value)
    e_at = at.key("entries")
    entries = e_at.list(at.field(pool, "entries"))
    return Pool(
        parse_number(at.field(pool, "rolls"), at.key("rolls")),
        parse_number(pool.get("bonus_rolls", 0.0), at.key("bonus_rolls")),
        tuple(e_at.each(entries, lambda v, a: parse_entry(v, a, item_tags))),
        parse_conditions(pool, at, item_tags),
        parse_functions(pool, at, item_tags),
    )
