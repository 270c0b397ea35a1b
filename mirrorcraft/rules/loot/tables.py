"""Loot tables: compiling a table, the set of tables across packs, and rolling.

Tables are compiled when loaded: an unknown table/entry/condition/function/number-provider type, an
unknown item, block, enchantment or entity, or a malformed field, raises
:class:`~mirrorcraft.rules.packs.JsonError` naming the table and the JSON path (e.g.
``loot table minecraft:blocks/stone: pools[0].entries[0].children[1].functions[0].function``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.loot.conditions import ItemTags
from mirrorcraft.rules.loot.context import Emit, LootContext, Run, SmeltLookup
from mirrorcraft.rules.loot.entries import Composite, Entry, Pool, Singleton, parse_pool
from mirrorcraft.rules.loot.functions import Function, apply_all, parse_functions
from mirrorcraft.rules.packs import JsonAt, load_json_bytes, namespaced, read_pack, resource_of
from mirrorcraft.rules.predicates import TagResolver
from mirrorcraft.rules.sidecars import parse_rule_field
from mirrorcraft.rules.stack import Stack

__all__ = ["TABLE_TYPES", "LootTable", "LootTableSet", "parse_loot_table", "roll"]

#: Vanilla 1.19.2's loot-context parameter sets (``LootContextParamSets``), the allowed table ``type`` paths.
TABLE_TYPES = frozenset(
    "empty chest command selector fishing entity gift barter advancement_reward advancement_entity generic "
    "block".split()
)


class LootTable:
    """A compiled loot table. Build with :func:`parse_loot_table` or :class:`LootTableSet`.

    Attributes:
        location: Its resource location.
        type: The table's ``type`` (namespaced) or ``None``.
        pools / functions: The compiled pools and table-level functions.
        rules: Rule ids of its ``mirrorcraft:rule`` field (a Mirror pack's tables), else empty.
        neighbour_offsets: Offsets its ``location_check`` conditions look at.
    """

    def __init__(
        self,
        location: str,
        table_type: str | None,
        pools: Sequence[Pool],
        functions: Sequence[Function],
        neighbour_offsets: frozenset[tuple[int, int, int]] = frozenset(),
        rules: tuple[str, ...] = (),
    ):
        self.location = location
        self.type = table_type
        self.pools = tuple(pools)
        self.functions = tuple(functions)
        self.rules = rules
        self.neighbour_offsets = neighbour_offsets
        """Offsets the table's ``location_check`` conditions look at: fill ``LootContext.neighbours``
        with the blocks there (e.g. the other half of a double plant). Referenced tables not included."""

    def __repr__(self) -> str:
        return f"LootTable({self.location!r}, type={self.type!r}, pools={len(self.pools)})"

    def entries(self) -> Iterator[Entry]:
        """Every entry of every pool, children included (depth first)."""

        def walk(entry: Entry) -> Iterator[Entry]:
            yield entry
            if isinstance(entry, Composite):
                for child in entry.children:
                    yield from walk(child)

        for pool in self.pools:
            for entry in pool.entries:
                yield from walk(entry)

    def references(self) -> list[str]:
        """The tables its ``loot_table`` entries roll (in order of appearance)."""
        return [
            e.name for e in self.entries() if isinstance(e, Singleton) and e.kind == "loot_table" and e.name
        ]

    def roll_into(self, emit: Emit, run: Run) -> None:
        run.visiting.append(self.location)
        try:
            out = lambda stack: emit(apply_all(self.functions, stack, run))  # noqa: E731
            for pool in self.pools:
                pool.roll_into(out, run)
        finally:
            run.visiting.pop()


def parse_loot_table(
    location: str, data: Any, *, at: JsonAt | None = None, item_tags: ItemTags = None
) -> LootTable:
    """Compile one loot table's JSON.

    Args:
        location: The table's resource location (``<ns>:blocks/stone``), used in error messages and for
            ``loot_table`` reference-cycle detection.
        data: The parsed JSON object.
        at: Where the JSON is (the file, a collecting locator); default ``loot table <location>``.
        item_tags: The loaded item tags, to check the tags the table names (not checked when ``None``).

    Returns:
        The compiled table.

    Raises:
        JsonError: On an unknown type or id, or a malformed field; the message names the table and path.
    """
    at = at or JsonAt(f"loot table {location}")
    obj = at.obj(data)
    table_type = None
    if "type" in obj:
        t_at = at.key("type")
        table_type = namespaced(t_at.vanilla_type(obj["type"]))
        t_at.check(table_type.partition(":")[2] in TABLE_TYPES, f"unknown loot table type {obj['type']!r}")
    p_at = at.key("pools")
    pools = p_at.each(p_at.list(obj.get("pools", [])), lambda v, a: parse_pool(v, a, item_tags))
    functions = parse_functions(obj, at, item_tags)
    return LootTable(
        location, table_type, pools, functions, _location_offsets(obj), parse_rule_field(obj, at)
    )


def _location_offsets(node: Any) -> frozenset[tuple[int, int, int]]:
    """Every ``location_check`` offset in a (validated) table's JSON."""
    found: set[tuple[int, int, int]] = set()
    if isinstance(node, dict):
        if node.get("condition") in ("location_check", namespaced("location_check")):
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

        Unlike :class:`~mirrorcraft.rules.datapacks.DatapackSet` this reads loot tables alone (no
        ``pack.mcmeta`` needed), for tools and tests that only roll tables.

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
            pack = read_pack(root)
            if not pack.zipped and not any(p.startswith("data/") for p in pack.files):
                raise DatapackError(f"{root}: not a pack root (no data/ folder)")
            for path, content in pack.files.items():
                res = resource_of(path)
                if res is not None and res[0] == "loot_tables":
                    raw[f"{res[1]}:{res[2]}"] = (pack.source(path), content)
        tables = {
            location: parse_loot_table(location, load_json_bytes(content, source))
            for location, (source, content) in raw.items()
        }
        return cls(tables)

    def __contains__(self, location: object) -> bool:
        return isinstance(location, str) and namespaced(location) in self._tables

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
        key = namespaced(location)
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
    ) -> list[Stack]:
        """Roll the table at ``location`` with ``loot_table`` references resolved in this set.

        See :func:`roll` for the arguments.
        """
        return roll(
            self.get(location), ctx, rng, tag_resolver, smelt, tables=self, max_stack_size=max_stack_size
        )


def roll(
    table: LootTable,
    ctx: LootContext,
    rng: random.Random,
    tag_resolver: TagResolver,
    smelt: SmeltLookup | None = None,
    *,
    tables: LootTableSet | None = None,
    max_stack_size: Callable[[str], int] | None = None,
) -> list[Stack]:
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
        Stacks (:class:`~mirrorcraft.rules.stack.Stack`, no NBT) with equal items merged, in order of first
        appearance; empty results are dropped. Counts may exceed a stack size: the caller splits them when
        it spawns items.

    Raises:
        DatapackError: A ``loot_table`` reference cycle or a missing referenced table.
        ContractError: The table needs something the caller did not pass (smelt lookup, tables,
            ``LootContext.neighbours``).
    """
    run = Run(
        ctx=ctx,
        rng=rng,
        tags=tag_resolver,
        smelt=smelt,
        tables=tables,
        max_stack=max_stack_size or (lambda _name: 64),
        visiting=[],
    )
    merged: dict[str, int] = {}

    def collect(stack: Stack) -> None:
        if stack.count > 0:
            merged[stack.item] = merged.get(stack.item, 0) + stack.count

    table.roll_into(collect, run)
    return [Stack(item, count) for item, count in merged.items()]
