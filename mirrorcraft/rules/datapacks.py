"""Datapack loading: the vanilla pack and a save's packs resolved into one set of game rules.

Why: every rule the embedded server applies (recipes, loot tables, advancements, tags, Mirror cooking
yields) is datapack data, and a Mirror world differs from its Vanilla twin only by one more pack in
``datapacks/``. This module reads pack roots (folders or ``.zip`` files) in load order and resolves
them the way a 1.19.2 server's ``ReloadableServerResources`` does:

* later packs override earlier ones for the same resource location (``data/<ns>/recipes/<path>.json``
  → recipe ``<ns>:<path>``; likewise loot tables, advancements, cooking-yield sidecars);
* tags merge across packs: each pack's file for a tag *appends* its ``values`` unless it says
  ``"replace": true``, which drops what earlier packs contributed (vanilla ``TagLoader``); ``#tag``
  references are flattened after all packs are read; an entry ``{"id": .., "required": false}`` may
  name a missing element;
* ``pack.mcmeta`` must exist and declare ``pack_format`` 10 (1.19-1.19.2).

It also reads the two Mirror-pack files vanilla ignores (see ``docs/datapacks.md`` and
``docs/smelting_yields.md``): the rule-id index ``data/mirrorcraft/rules/index.json`` and the cooking-yield
sidecars ``data/mirrorcraft/cooking_yields/*.json``.

Unlike vanilla, which logs a broken resource and skips it, loading *fails*: a benchmark world whose rule
pack silently lost a recipe would measure the wrong thing. Every :class:`~mirrorcraft.errors.DatapackError`
names the file (``<pack>!data/...`` for zips) and the JSON field.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirrorcraft import gamedata
from mirrorcraft.errors import DatapackError, GameDataError
from mirrorcraft.rules.loot import LootTableSet, parse_loot_table

if TYPE_CHECKING:
    from mirrorcraft.rules.advancements import AdvancementDef
    from mirrorcraft.rules.recipes import Recipe

__all__ = [
    "PACK_FORMAT",
    "CookingYield",
    "DatapackSet",
    "JsonAt",
    "save_pack_roots",
]

#: ``pack_format`` of data packs for Java 1.19-1.19.2.
PACK_FORMAT = 10
_DEFAULT_NS = "minecraft"
_MIRROR_NS = "mirrorcraft"
#: The tag folders whose elements are checked against the game registries.
_CHECKED_TAG_KINDS = {"items": "item", "blocks": "block"}
#: Cooking devices a yield sidecar may name, and the recipe type each one runs (docs/smelting_yields.md).
YIELD_DEVICES = {"furnace": "smelting", "blast_furnace": "blasting"}


# --------------------------------------------------------------------------------------------------
# JSON reading helpers shared by the rules modules (every error names file + JSON path)
# --------------------------------------------------------------------------------------------------


class JsonAt:
    """A source file plus a JSON path, used to build error messages (``file: a.b[2]: message``)."""

    __slots__ = ("source", "path")

    def __init__(self, source: str, path: str = "") -> None:
        self.source = source
        self.path = path

    def key(self, name: str) -> JsonAt:
        return JsonAt(self.source, f"{self.path}.{name}" if self.path else name)

    def idx(self, i: int) -> JsonAt:
        return JsonAt(self.source, f"{self.path}[{i}]")

    def fail(self, message: str) -> DatapackError:
        return DatapackError(f"{self.source}: {self.path or '<root>'}: {message}")

    def obj(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"expected a JSON object, got {type(value).__name__}")
        return value

    def list(self, value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(f"expected a JSON array, got {type(value).__name__}")
        return value

    def str(self, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(f"expected a non-empty string, got {value!r}")
        return value

    def num(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"expected a number, got {value!r}")
        return float(value)

    def int(self, value: Any) -> int:
        number = self.num(value)
        if number != int(number):
            raise self.fail(f"expected an integer, got {value!r}")
        return int(number)

    def bool(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(f"expected true/false, got {value!r}")
        return value

    def res(self, value: Any) -> str:
        """A resource location; a bare path gets the default namespace (vanilla ``ResourceLocation``)."""
        text = self.str(value)
        ns, sep, path = text.partition(":")
        if not sep:
            ns, path = _DEFAULT_NS, text
        if not _valid_location(ns, path):
            raise self.fail(f"invalid resource location {text!r}")
        return f"{ns}:{path}"

    def required(self, obj: Mapping[str, Any], name: str) -> Any:
        if name not in obj:
            raise self.key(name).fail("missing required field")
        return obj[name]


def _valid_location(ns: str, path: str) -> bool:
    ok_ns = set("abcdefghijklmnopqrstuvwxyz0123456789_-.")
    return bool(ns) and bool(path) and set(ns) <= ok_ns and set(path) <= ok_ns | {"/"}


def load_json_bytes(content: bytes, source: str) -> Any:
    """Parse a pack file, raising :class:`DatapackError` naming ``source`` and the line/column."""
    try:
        return json.loads(content.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise DatapackError(f"{source}: not UTF-8 text: {err}") from err
    except json.JSONDecodeError as err:
        raise DatapackError(
            f"{source}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}"
        ) from err


# --------------------------------------------------------------------------------------------------
# Pack reading
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _PackFile:
    pack: int  # index of the pack root in load order
    path: str  # posix path inside the pack, e.g. data/minecraft/recipes/stick.json
    source: str  # for error messages: <root>/<path> or <zip>!<path>
    content: bytes


def _read_pack(root: Path, index: int) -> list[_PackFile]:
    """Every file of one pack root, checked for a valid ``pack.mcmeta``."""
    files: list[_PackFile] = []
    if root.is_file():
        try:
            with zipfile.ZipFile(root) as archive:
                for name in sorted(archive.namelist()):
                    if not name.endswith("/"):
                        files.append(_PackFile(index, name, f"{root}!{name}", archive.read(name)))
        except zipfile.BadZipFile as err:
            raise DatapackError(f"{root}: not a zip file ({err})") from err
    elif root.is_dir():
        for file in sorted(root.rglob("*")):
            if file.is_file():
                rel = file.relative_to(root).as_posix()
                files.append(_PackFile(index, rel, str(file), file.read_bytes()))
    else:
        raise DatapackError(f"{root}: no such pack (neither a folder nor a .zip)")
    meta = next((f for f in files if f.path == "pack.mcmeta"), None)
    if meta is None:
        raise DatapackError(f"{root}: pack.mcmeta is missing (a server ignores such a pack)")
    at = JsonAt(meta.source)
    pack = at.obj(at.required(at.obj(load_json_bytes(meta.content, meta.source)), "pack"))
    fmt = at.key("pack").key("pack_format").int(at.key("pack").required(pack, "pack_format"))
    if fmt != PACK_FORMAT:
        raise (
            at.key("pack")
            .key("pack_format")
            .fail(f"pack_format {fmt} is not {PACK_FORMAT} (Java 1.19-1.19.2 data packs)")
        )
    return files


def save_pack_roots(world_dir: Path, extra: Sequence[Path] = ()) -> list[Path]:
    """Pack roots of a save in load order: the vendored vanilla pack, ``<world>/datapacks/*`` sorted by
    name (folders with a ``pack.mcmeta`` and ``.zip`` files), then ``extra``.

    Vanilla orders a save's packs by ``level.dat``'s ``DataPacks.Enabled`` list; the benchmark's worlds
    hold at most one pack, so name order is the same thing there (documented in docs/rules.md).
    """
    roots = [Path(gamedata.VANILLA_PACK_DIR)]
    folder = Path(world_dir) / "datapacks"
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            if (p.is_dir() and (p / "pack.mcmeta").is_file()) or (p.is_file() and p.suffix == ".zip"):
                roots.append(p)
    return roots + [Path(p) for p in extra]


def _resource(path: str) -> tuple[str, str, str] | None:
    """``data/<ns>/<kind...>/<path>.json`` → (kind, ns, path) for the kinds this loader reads."""
    parts = path.split("/")
    if len(parts) < 4 or parts[0] != "data" or not path.endswith(".json"):
        return None
    ns = parts[1]
    if parts[2] == "tags" and len(parts) >= 5:
        # tags/<kind>/<name>.json, with worldgen/<registry> kinds two folders deep
        depth = 5 if parts[3] == "worldgen" and len(parts) >= 6 else 4
        kind = "tags/" + "/".join(parts[3:depth])
        name = "/".join(parts[depth:])[: -len(".json")]
        return (kind, ns, name) if name else None
    kind = parts[2]
    if kind in ("recipes", "loot_tables", "advancements", "cooking_yields", "rules"):
        return kind, ns, "/".join(parts[3:])[: -len(".json")]
    return None


# --------------------------------------------------------------------------------------------------
# Sidecars and the rule index
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CookingYield:
    """A Mirror pack's cooking-yield sidecar (``docs/smelting_yields.md``, format 1).

    Attributes:
        location: The sidecar's own resource location (``mirrorcraft:cooking_yields/furnace_raw_iron``).
        device: ``furnace`` or ``blast_furnace``.
        recipe_type: The recipe type the device runs (namespaced).
        recipe: The recipe id the yield belongs to; it applies only when that recipe is the one matched.
        input: The ingredient item.
        item: The result item (equal to the recipe's result).
        count: Items produced per input item cooked (1..64).
        rule: The manifest rule id.
        source: The file it was read from.
    """

    location: str
    device: str
    recipe_type: str
    recipe: str
    input: str
    item: str
    count: int
    rule: str
    source: str


_YIELD_KEYS = {"format", "device", "recipe_type", "recipe", "input", "result", "rule"}


def _parse_yield(location: str, data: Any, source: str) -> CookingYield:
    at = JsonAt(source)
    obj = at.obj(data)
    extra = set(obj) - _YIELD_KEYS
    if extra:
        raise at.key(sorted(extra)[0]).fail(f"unknown field (allowed: {sorted(_YIELD_KEYS)})")
    if at.key("format").int(at.required(obj, "format")) != 1:
        raise at.key("format").fail(f"unsupported sidecar format {obj['format']!r} (only 1)")
    device = at.key("device").str(at.required(obj, "device"))
    if device not in YIELD_DEVICES:
        raise at.key("device").fail(f"unknown device {device!r}; expected one of {sorted(YIELD_DEVICES)}")
    rtype = at.key("recipe_type").res(at.required(obj, "recipe_type"))
    if rtype != f"{_DEFAULT_NS}:{YIELD_DEVICES[device]}":
        raise at.key("recipe_type").fail(f"{rtype!r} does not match device {device!r}")
    result = at.key("result").obj(at.required(obj, "result"))
    r_at = at.key("result")
    if set(result) != {"item", "count"}:
        raise r_at.fail(f"expected exactly the fields 'item' and 'count', got {sorted(result)}")
    count = r_at.key("count").int(result["count"])
    if not 1 <= count <= 64:
        raise r_at.key("count").fail(f"count {count} is outside 1..64")
    rule = at.key("rule").str(at.required(obj, "rule"))
    return CookingYield(
        location=location,
        device=device,
        recipe_type=rtype,
        recipe=at.key("recipe").res(at.required(obj, "recipe")),
        input=at.key("input").res(at.required(obj, "input")),
        item=r_at.key("item").res(result["item"]),
        count=count,
        rule=rule,
        source=source,
    )


def _parse_index(data: Any, source: str) -> dict[str, tuple[str, ...]]:
    at = JsonAt(source)
    obj = at.obj(data)
    if at.key("format").int(at.required(obj, "format")) != 1:
        raise at.key("format").fail(f"unsupported rule index format {obj['format']!r} (only 1)")
    resources = at.key("resources").obj(at.required(obj, "resources"))
    out = {}
    for loc, ids in resources.items():
        r_at = at.key("resources").key(loc)
        out[loc] = tuple(r_at.idx(i).str(v) for i, v in enumerate(r_at.list(ids)))
    return out


# --------------------------------------------------------------------------------------------------
# Tags
# --------------------------------------------------------------------------------------------------


@dataclass
class _TagEntry:
    ref: str  # item id, or "#ns:path" for a tag reference
    required: bool
    source: str
    where: str


def _parse_tag_file(data: Any, source: str) -> tuple[bool, list[_TagEntry]]:
    at = JsonAt(source)
    obj = at.obj(data)
    replace = at.key("replace").bool(obj.get("replace", False))
    entries = []
    v_at = at.key("values")
    for i, raw in enumerate(v_at.list(at.required(obj, "values"))):
        e_at = v_at.idx(i)
        required = True
        if isinstance(raw, dict):
            ref_raw = e_at.required(raw, "id")
            required = e_at.key("required").bool(raw.get("required", True))
            e_at = e_at.key("id")
        else:
            ref_raw = raw
        text = e_at.str(ref_raw)
        ref = "#" + e_at.res(text[1:]) if text.startswith("#") else e_at.res(text)
        entries.append(_TagEntry(ref, required, source, e_at.path))
    return replace, entries


def _resolve_tags(
    raw: dict[str, list[_TagEntry]], kind: str, exists: Callable[[str], bool] | None
) -> dict[str, frozenset[str]]:
    """Flatten ``#`` references of one tag kind; check elements exist (items/blocks)."""
    done: dict[str, frozenset[str]] = {}

    def resolve(name: str, stack: list[str]) -> frozenset[str]:
        if name in done:
            return done[name]
        if name in stack:
            raise DatapackError(f"tag cycle in {kind}: {' -> '.join([*stack, name])}")
        out: set[str] = set()
        for entry in raw[name]:
            if entry.ref.startswith("#"):
                ref = entry.ref[1:]
                if ref not in raw:
                    if entry.required:
                        raise DatapackError(
                            f"{entry.source}: {entry.where}: tag {kind} #{name} references unknown tag #{ref}"
                        )
                    continue
                out |= resolve(ref, [*stack, name])
            elif exists is None or exists(entry.ref):
                out.add(entry.ref)
            elif entry.required:
                raise DatapackError(
                    f"{entry.source}: {entry.where}: tag {kind} #{name} names unknown element {entry.ref!r}"
                )
        done[name] = frozenset(out)
        return done[name]

    for name in raw:
        resolve(name, [])
    return done


def _exists_in(lookup: Callable[[str], Any]) -> Callable[[str], bool]:
    def exists(name: str) -> bool:
        if not name.startswith(f"{_DEFAULT_NS}:"):
            return False
        try:
            lookup(name)
        except GameDataError:
            return False
        return True

    return exists


def item_exists(name: str) -> bool:
    """Whether ``name`` (namespaced) is a 1.19.2 item."""
    return _exists_in(gamedata.item)(name)


# --------------------------------------------------------------------------------------------------
# The set
# --------------------------------------------------------------------------------------------------


@dataclass(repr=False)
class DatapackSet:
    """Game rules resolved from pack roots. Build with :meth:`load` or :meth:`vanilla_only`.

    Attributes:
        roots: The pack roots in load order.
        recipes: Recipe id → compiled recipe (every type, special ones included), sorted by id.
        loot: The loot tables (the interpreter of :mod:`~mirrorcraft.rules.loot`).
        advancements: Advancement id → parsed definition.
        tags: Tag kind (``items``, ``blocks``, ``fluids``, ``entity_types``, ``game_events``,
            ``worldgen/biome``, ``functions``...) → tag id → flattened members.
        cooking_yields: ``(device, input item)`` → the sidecar that applies.
        rule_index: Resource location (``minecraft:recipes/stick``) → rule ids, from the index of the pack
            that provided the winning copy of that resource.
        provider: Resource location → index of the pack root that provided it.
    """

    roots: tuple[Path, ...]
    recipes: dict[str, Recipe] = field(default_factory=dict)
    loot: LootTableSet = field(default_factory=lambda: LootTableSet({}))
    advancements: dict[str, AdvancementDef] = field(default_factory=dict)
    tags: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)
    cooking_yields: dict[tuple[str, str], CookingYield] = field(default_factory=dict)
    rule_index: dict[str, tuple[str, ...]] = field(default_factory=dict)
    provider: dict[str, int] = field(default_factory=dict)

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
        from mirrorcraft.rules.advancements import parse_advancement
        from mirrorcraft.rules.recipes import parse_recipe

        roots_t = tuple(Path(r) for r in roots)
        winners: dict[tuple[str, str], _PackFile] = {}  # (kind, location) → winning file
        tag_raw: dict[str, dict[str, list[_TagEntry]]] = {}
        indexes: dict[int, dict[str, tuple[str, ...]]] = {}
        for i, root in enumerate(roots_t):
            for f in _read_pack(root, i):
                res = _resource(f.path)
                if res is None:
                    continue
                kind, ns, path = res
                location = f"{ns}:{path}"
                if kind.startswith("tags/"):
                    replace, entries = _parse_tag_file(load_json_bytes(f.content, f.source), f.source)
                    bucket = tag_raw.setdefault(kind[5:], {})
                    if replace or location not in bucket:
                        bucket[location] = []
                    bucket[location].extend(entries)
                elif kind == "rules":
                    if ns == _MIRROR_NS and path == "index":
                        indexes[i] = _parse_index(load_json_bytes(f.content, f.source), f.source)
                elif kind == "cooking_yields" and ns != _MIRROR_NS:
                    continue
                else:
                    winners[(kind, location)] = f
        out = cls(roots=roots_t)
        for kind, raw in tag_raw.items():
            checker = _CHECKED_TAG_KINDS.get(kind)
            exists = None
            if checker == "item":
                exists = item_exists
            elif checker == "block":
                exists = _exists_in(gamedata.block)
            out.tags[kind] = _resolve_tags(raw, kind, exists)
        out.tags.setdefault("items", {})
        out.tags.setdefault("blocks", {})

        item_tags = out.tags["items"]
        tables = {}
        for (kind, location), f in sorted(winners.items()):
            out.provider[f"{location.split(':')[0]}:{kind}/{location.split(':', 1)[1]}"] = f.pack
            data = load_json_bytes(f.content, f.source)
            if kind == "recipes":
                out.recipes[location] = parse_recipe(location, data, f.source, item_tags)
            elif kind == "loot_tables":
                try:
                    tables[location] = parse_loot_table(location, data)
                except DatapackError as err:
                    raise DatapackError(f"{f.source}: {err}") from err
            elif kind == "advancements":
                out.advancements[location] = parse_advancement(location, data, f.source, item_tags)
            elif kind == "cooking_yields":
                y = _parse_yield(location, data, f.source)
                key = (y.device, y.input)
                if key in out.cooking_yields:
                    raise DatapackError(
                        f"{f.source}: a second cooking-yield sidecar for {y.device} {y.input} "
                        f"(first: {out.cooking_yields[key].source})"
                    )
                out.cooking_yields[key] = y
        out.loot = LootTableSet(tables)
        for location, adv in out.advancements.items():
            if adv.parent is not None and adv.parent not in out.advancements:
                raise DatapackError(f"{adv.source}: parent: unknown advancement {adv.parent!r} of {location}")
        # rule index: each resource's ids come from the index of the pack that provided it
        merged: dict[str, tuple[str, ...]] = {}
        for i in sorted(indexes):
            for loc, ids in indexes[i].items():
                if out.provider.get(loc, i) == i:
                    merged[loc] = ids
        out.rule_index = merged
        out._check_yields()
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

    def _check_yields(self) -> None:
        from mirrorcraft.rules.recipes import CookingRecipe

        for y in self.cooking_yields.values():
            recipe = self.recipes.get(y.recipe)
            where = f"{y.source}: recipe"
            if recipe is None:
                raise DatapackError(f"{where}: no recipe {y.recipe!r} in the loaded packs")
            if not isinstance(recipe, CookingRecipe) or recipe.type != y.recipe_type:
                raise DatapackError(f"{where}: {y.recipe} is not a {y.recipe_type} recipe")
            if recipe.result != y.item:
                raise DatapackError(
                    f"{y.source}: result.item: {y.item} differs from the recipe's result {recipe.result}"
                )
            if y.input not in recipe.ingredient.items:
                raise DatapackError(f"{y.source}: input: recipe {y.recipe} does not accept {y.input}")

    # -- queries --------------------------------------------------------------------------------------
    def item_tag(self, name: str) -> frozenset[str]:
        """Members of item tag ``name`` (``ns:path``, optional ``#``).

        Raises:
            DatapackError: No pack defines that tag.
        """
        key = name.lstrip("#")
        key = key if ":" in key else f"{_DEFAULT_NS}:{key}"
        try:
            return self.tags["items"][key]
        except KeyError:
            raise DatapackError(f"no item tag #{key} in the loaded packs") from None

    def tag_resolver(self) -> Callable[[str], frozenset[str]]:
        """An item-tag resolver for the loot interpreter (unknown tags resolve to nothing)."""
        items = self.tags["items"]
        return lambda name: items.get(name if ":" in name else f"{_DEFAULT_NS}:{name}", frozenset())

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


@cache
def _vanilla_set() -> DatapackSet:
    return DatapackSet.load([Path(gamedata.VANILLA_PACK_DIR)])
