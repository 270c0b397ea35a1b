"""Datapack loading: the vanilla pack and a save's packs resolved into one set of game rules.

Why: every rule the embedded server applies (recipes, loot tables, advancements, tags, Mirror cooking
yields) is datapack data, and a Mirror world differs from its Vanilla twin only by one more pack in
``datapacks/``. This module resolves pack roots (read by :func:`~mirrorcraft.rules.packs.read_pack`, folders
or ``.zip`` files) in load order the way a 1.19.2 server's ``ReloadableServerResources`` does:

* later packs override earlier ones for the same resource location (``data/<ns>/recipes/<path>.json``
  → recipe ``<ns>:<path>``; likewise loot tables, advancements, cooking-yield sidecars);
* tags merge across packs (:mod:`~mirrorcraft.rules.tags`);
* ``pack.mcmeta`` must exist and declare ``pack_format`` 10 (1.19-1.19.2) and a description.

It also reads the two Mirror-pack files vanilla ignores, with their one schema each
(:mod:`~mirrorcraft.rules.sidecars`): the rule-id index ``data/mirrorcraft/rules/index.json`` and the
cooking-yield sidecars ``data/mirrorcraft/cooking_yields/*.json``.

The parsers are imported one way: this module imports :mod:`~mirrorcraft.rules.recipes`,
:mod:`~mirrorcraft.rules.advancement_defs`, :mod:`~mirrorcraft.rules.loot` and the sidecars; none of them
imports this one (the recipe book, fuels, cooking and player advancements sit above it).

Unlike vanilla, which logs a broken resource and skips it, loading *fails*: a benchmark world whose rule
pack silently lost a recipe would measure the wrong thing. Every :class:`~mirrorcraft.errors.DatapackError`
names the file (``<pack>!data/...`` for zips) and the JSON field. The audit loads with an
:class:`~mirrorcraft.rules.packs.Issues` list instead, which records every problem and goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from mirrorcraft import gamedata
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.advancement_defs import AdvancementDef, parse_advancement
from mirrorcraft.rules.loot import LootTableSet, parse_loot_table
from mirrorcraft.rules.packs import (
    DEFAULT_NAMESPACE,
    MIRROR_NAMESPACE,
    PACK_FORMAT,
    Issues,
    JsonAt,
    JsonError,
    Pack,
    check_pack_meta,
    load_json_bytes,
    read_pack,
    report,
    resource_of,
    save_pack_roots,
    vanilla_pack,
)
from mirrorcraft.rules.recipes import CookingRecipe, Recipe, parse_recipe
from mirrorcraft.rules.sidecars import CookingYield, RuleIndex
from mirrorcraft.rules.tags import TagSet, read_tags

__all__ = ["PACK_FORMAT", "CookingYield", "DatapackSet", "save_pack_roots"]


@dataclass(repr=False)
class DatapackSet:
    """Game rules resolved from pack roots. Build with :meth:`load`, :meth:`from_packs` or :meth:`vanilla_only`.

    Attributes:
        roots: The pack roots in load order (``<memory>`` for a pack held in memory).
        recipes: Recipe id → compiled recipe (every type, special ones included), sorted by id.
        loot: The loot tables (the interpreter of :mod:`~mirrorcraft.rules.loot`).
        advancements: Advancement id → parsed definition.
        tags: Tag kind (``items``, ``blocks``, ``fluids``, ``entity_types``, ``game_events``,
            ``worldgen/biome``, ``functions``...) → tag id → flattened members.
        cooking_yields: ``(device, input item)`` → the sidecar that applies.
        rule_index: Resource location (``minecraft:recipes/stick``) → rule ids, from the index of the pack
            that provided the winning copy of that resource.
        rule_indexes: Pack position → that pack's own rule index (if it has one).
        provider: Resource location → index of the pack root that provided it.
        sources: Resource location → the file the winning copy was read from.
        functions: Function id (``<ns>:<path>`` of ``data/<ns>/functions/<path>.mcfunction``) → its command
            lines, trimmed, without blank lines and ``#`` comments (vanilla ``CommandFunction.fromLines``);
            the last pack providing an id wins. The lines are parsed when the ``function`` command runs
            them (the command grammar lives in the server, above this layer).
    """

    roots: tuple[Path, ...]
    recipes: dict[str, Recipe] = field(default_factory=dict)
    loot: LootTableSet = field(default_factory=lambda: LootTableSet({}))
    advancements: dict[str, AdvancementDef] = field(default_factory=dict)
    tags: TagSet = field(default_factory=dict)
    cooking_yields: dict[tuple[str, str], CookingYield] = field(default_factory=dict)
    rule_index: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rule_indexes: dict[int, RuleIndex] = field(default_factory=dict)
    provider: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    functions: dict[str, tuple[str, ...]] = field(default_factory=dict)

    # -- construction ---------------------------------------------------------------------------------
    @classmethod
    def load(cls, roots: Sequence[Path]) -> DatapackSet:
        """Read and resolve pack roots (the vanilla pack first, then a save's packs, in order).

        Args:
            roots: Pack roots (folders or ``.zip`` files), each with ``pack.mcmeta`` and ``data/``.

        Returns:
            The resolved, fully validated set.

        Raises:
            DatapackError: A missing pack or ``pack.mcmeta``, a wrong ``pack_format``, bad JSON, an unknown
                recipe/criterion/loot type, a missing item, a bad tag reference, a malformed sidecar or
                index; the message names the file and the field.
        """
        return cls.from_packs([_read(Path(r)) for r in roots])

    @classmethod
    def from_packs(cls, packs: Sequence[Pack], issues: Issues | None = None) -> DatapackSet:
        """Resolve packs already read (:func:`~mirrorcraft.rules.packs.read_pack`, or held in memory).

        Args:
            packs: The packs in load order.
            issues: Collect every problem here and go on (the audit) instead of raising the first.

        Raises:
            DatapackError: (without ``issues``) see :meth:`load`.
        """
        out = cls(roots=tuple(Path(p.name or "<memory>") for p in packs))
        for pack in packs:
            check_pack_meta(pack, issues)
        out.tags = read_tags(packs, issues)
        item_tags = out.tags["items"]
        winners: dict[tuple[str, str], tuple[int, str, bytes]] = {}  # (kind, location) → (pack, source, raw)
        for i, pack in enumerate(packs):
            for path, content in pack.files.items():
                fn = _function_id(path)
                if fn is not None:
                    lines = _function_lines(content, pack.source(path), issues)
                    if lines is not None:
                        out.functions[fn] = lines
                        out.sources[fn.replace(":", ":functions/", 1)] = pack.source(path)
                    continue
                res = resource_of(path)
                if res is None or res[0].startswith("tags/"):
                    continue
                kind, ns, name = res
                source = pack.source(path)
                if kind == "rules":
                    if ns == MIRROR_NAMESPACE and name == "index":
                        index = _guarded(issues, lambda c=content, s=source: _parse_index(c, s, issues))
                        if index is not None:
                            out.rule_indexes[i] = index
                elif kind != "cooking_yields" or ns == MIRROR_NAMESPACE:
                    winners[(kind, f"{ns}:{name}")] = (i, source, content)
        tables = {}
        for (kind, location), (i, source, content) in sorted(winners.items()):
            ns, _, name = location.partition(":")
            resource = f"{ns}:{kind}/{name}"
            out.provider[resource] = i
            out.sources[resource] = source
            at = JsonAt(source, issues=issues)
            try:
                data = load_json_bytes(content, source)
                if kind == "recipes":
                    out.recipes[location] = parse_recipe(location, data, at, item_tags)
                elif kind == "loot_tables":
                    at.subject = f"loot table {location}"
                    tables[location] = parse_loot_table(location, data, at=at, item_tags=item_tags)
                elif kind == "advancements":
                    out.advancements[location] = parse_advancement(location, data, at, item_tags)
                elif kind == "cooking_yields":
                    out._add_yield(CookingYield.parse(location, data, at), issues)
            except JsonError as err:
                report(issues, err)
        out.loot = LootTableSet(tables)
        for location, adv in out.advancements.items():
            if adv.parent is not None and adv.parent not in out.advancements:
                report(
                    issues,
                    JsonError(adv.source, "parent", f"unknown advancement {adv.parent!r} of {location}"),
                )
        # rule index: each resource's ids come from the index of the pack that provided it
        for i in sorted(out.rule_indexes):
            for loc, ids in out.rule_indexes[i].resources.items():
                if out.provider.get(loc, i) == i:
                    out.rule_index[loc] = ids
        out._check_yields(issues)
        return out

    def __repr__(self) -> str:
        return (
            f"DatapackSet(roots={[str(r) for r in self.roots]}, recipes={len(self.recipes)}, "
            f"loot_tables={len(self.loot)}, advancements={len(self.advancements)}, "
            f"cooking_yields={len(self.cooking_yields)}, indexed_resources={len(self.rule_index)})"
        )

    @classmethod
    def vanilla_only(cls) -> DatapackSet:
        """The vendored vanilla pack alone (cached: the evaluator's reference for vanilla outcomes)."""
        return _vanilla_set()

    def _add_yield(self, y: CookingYield, issues: Issues | None) -> None:
        key = (y.device, y.input)
        if key in self.cooking_yields:
            first = self.cooking_yields[key].source
            report(
                issues,
                JsonError(
                    y.source, "", f"a second cooking-yield sidecar for {y.device} {y.input} (first: {first})"
                ),
            )
            return
        self.cooking_yields[key] = y

    def _check_yields(self, issues: Issues | None) -> None:
        for y in self.cooking_yields.values():
            recipe = self.recipes.get(y.recipe)
            if recipe is None:
                report(issues, JsonError(y.source, "recipe", f"no recipe {y.recipe!r} in the loaded packs"))
                continue
            if not isinstance(recipe, CookingRecipe) or recipe.type != y.recipe_type:
                report(issues, JsonError(y.source, "recipe", f"{y.recipe} is not a {y.recipe_type} recipe"))
                continue
            if recipe.result != y.item:
                report(
                    issues,
                    JsonError(
                        y.source, "result.item", f"{y.item} differs from the recipe's result {recipe.result}"
                    ),
                )
            if y.input not in recipe.ingredient.items:
                report(issues, JsonError(y.source, "input", f"recipe {y.recipe} does not accept {y.input}"))

    # -- queries --------------------------------------------------------------------------------------
    def item_tag(self, name: str) -> frozenset[str]:
        """Members of item tag ``name`` (``ns:path``, optional ``#``).

        Raises:
            DatapackError: No pack defines that tag.
        """
        return self._tag("items", name)

    def block_tag(self, name: str) -> frozenset[str]:
        """Members of block tag ``name`` (``ns:path``, optional ``#``).

        Raises:
            DatapackError: No pack defines that tag.
        """
        return self._tag("blocks", name)

    def _tag(self, kind: str, name: str) -> frozenset[str]:
        key = name.lstrip("#")
        key = key if ":" in key else f"{DEFAULT_NAMESPACE}:{key}"
        try:
            return self.tags[kind][key]
        except KeyError:
            raise DatapackError(f"no {kind[:-1]} tag #{key} in the loaded packs") from None

    def tag_resolver(self) -> Callable[[str], frozenset[str]]:
        """An item-tag resolver for the loot interpreter (unknown tags resolve to nothing)."""
        items = self.tags["items"]
        return lambda name: items.get(name if ":" in name else f"{DEFAULT_NAMESPACE}:{name}", frozenset())

    def rule_ids(self, kind: str, location: str) -> tuple[str, ...]:
        """Rule ids of one resource: ``rule_ids("recipes", "minecraft:stick")``.

        The ids come from the rule index of the pack that provided the resource (and, for recipes, from
        their ``mirrorcraft:rule`` field); a vanilla resource has none.
        """
        ns, _, path = location.partition(":")
        ids = list(self.rule_index.get(f"{ns}:{kind}/{path}", ()))
        if kind == "recipes" and location in self.recipes:
            ids += [r for r in self.recipes[location].rules if r not in ids]
        return tuple(ids)

    def recipes_of_type(self, recipe_type: str) -> list[Recipe]:
        """Recipes whose type is ``recipe_type`` (namespaced), in recipe-id order."""
        return [r for r in self.recipes.values() if r.type == recipe_type]

    def locations(self, kind: str) -> Iterable[str]:
        """Resource locations of one kind (``recipes``, ``loot_tables``, ``advancements``), sorted."""
        prefix = f"{kind}/"
        return sorted(
            f"{loc.split(':')[0]}:{loc.split(':', 1)[1][len(prefix) :]}"
            for loc in self.provider
            if loc.split(":", 1)[1].startswith(prefix)
        )


def _function_id(path: str) -> str | None:
    """``data/<ns>/functions/<path>.mcfunction`` → ``<ns>:<path>`` (else ``None``)."""
    parts = path.split("/")
    if len(parts) < 4 or parts[0] != "data" or parts[2] != "functions" or not path.endswith(".mcfunction"):
        return None
    return f"{parts[1]}:{'/'.join(parts[3:])[: -len('.mcfunction')]}"


def _function_lines(content: bytes, source: str, issues: Issues | None) -> tuple[str, ...] | None:
    """A function file's command lines (vanilla ``CommandFunction.fromLines``: trimmed, blanks and ``#``
    comments skipped; a line starting with ``/`` is an error, as vanilla rejects it)."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as err:
        report(issues, JsonError(source, "", f"not UTF-8 text ({err})"))
        return None
    lines: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("/"):
            report(issues, JsonError(source, f"line {n}", "a command in a function must not start with '/'"))
            return None
        lines.append(line)
    return tuple(lines)


def _read(root: Path) -> Pack:
    """A pack root, the vendored vanilla pack read once per process."""
    if root.resolve() == Path(gamedata.VANILLA_PACK_DIR).resolve():
        return vanilla_pack()
    return read_pack(root)


def _parse_index(content: bytes, source: str, issues: Issues | None) -> RuleIndex:
    return RuleIndex.parse(load_json_bytes(content, source), JsonAt(source, issues=issues))


def _guarded(issues: Issues | None, parse: Callable[[], RuleIndex]) -> RuleIndex | None:
    try:
        return parse()
    except JsonError as err:
        report(issues, err)
        return None


@cache
def _vanilla_set() -> DatapackSet:
    return DatapackSet.load([Path(gamedata.VANILLA_PACK_DIR)])
