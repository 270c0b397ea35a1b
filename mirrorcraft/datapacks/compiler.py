"""The ``kind=mirror`` compiler: a validated rule-suite manifest → a deterministic 1.19.2 datapack zip.

Why: a Mirror world is its Vanilla save plus one datapack (architecture.md §1). Every rule of a suite
(:mod:`mirrorcraft.contracts.rules`) becomes vanilla-format overrides of the *same resource locations* a
real 1.19.2 server resolves (``data/minecraft/recipes/oak_planks.json`` overrides the built-in recipe of
that name), derived from the vendored vanilla pack (:data:`mirrorcraft.gamedata.VANILLA_PACK_DIR`), so
the embedded server and a real server read the same files. Decisions (documented in docs/datapacks.md
and docs/smelting_yields.md):

* ``recipe_result``: the vanilla recipe is copied and its ``result`` replaced. With ``inputs`` (M01/M03
  planks: "one *log*", while vanilla's ingredient is the ``#<wood>_logs`` tag, which also holds the wood
  and stripped variants) the override accepts only the named inputs, and a second recipe
  ``mirrorcraft:<recipe>_unchanged_inputs`` keeps the vanilla result for the other items the vanilla
  ingredient accepted, so they still craft as in vanilla.
* ``block_drop_replace`` / ``block_drop_add`` / ``entity_loot_*``: the vanilla loot table is copied;
  block rules follow the spec's policy (silk touch keeps vanilla, fortune ignored on changed/added
  stacks): for *replace* every vanilla pool gets a silk-touch condition and the new stacks come in
  pools conditioned on "not silk touch"; for *add* the vanilla pools stay and the added pools are
  conditioned on "not silk touch". New stacks use ``set_count`` (a constant, or ``uniform`` min..max)
  and ``explosion_decay`` (block tables), never ``apply_bonus``. Entity *replace* drops the vanilla
  pools; *add* appends pools. No looting on changed stacks.
* ``cooking_output``: in 1.19 a cooking recipe's ``result`` is a bare item id with no count (the trap in
  architecture.md). The compiler writes (a) the smelting/blasting recipe with the new result item (the
  vanilla recipe for that input is overridden; if a vanilla recipe accepts the input among other items,
  e.g. ``iron_nugget_from_smelting`` accepts the iron hoe, the input is removed from it and a new
  ``mirrorcraft:`` recipe is written for it alone); (b) a declarative sidecar
  ``data/mirrorcraft/cooking_yields/<device>_<input>.json`` with the count, read by the embedded server;
  (c) for counts above one, a vanilla-server approximation: tick functions that top up the result item
  by ``count - 1`` for every unit a player takes out of a furnace (``minecraft.crafted`` statistic).
  Its limits are stated in docs/smelting_yields.md.
* Tracing: every written resource is listed in ``data/mirrorcraft/rules/index.json`` (resource → rule
  ids; vanilla ignores the file), and recipes and loot tables also carry a ``"mirrorcraft:rule"`` field
  (vanilla's recipe and loot-table deserializers read their known keys and ignore unknown ones). Tags,
  functions and sidecars carry the id only through the index (and the sidecar's own ``rule`` field).
* Nothing is visible to a player: ``pack.mcmeta`` has the neutral description
  :data:`PACK_DESCRIPTION` for every suite, no advancement is written, functions contain no chat.

Determinism: entries are sorted, every zip entry has the timestamp 1980-01-01 00:00:00, fixed
permissions and DEFLATE level 9; JSON is ``indent=2``, sorted keys, ``\\n`` line ends.
"""

from __future__ import annotations

import copy
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mirrorcraft.contracts.rules import (
    BlockDropAddRule,
    BlockDropReplaceRule,
    CookingChange,
    CookingOutputRule,
    Drop,
    EntityLootAddRule,
    EntityLootReplaceRule,
    RecipeChange,
    RecipeResultRule,
    SuiteManifest,
)
from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.devices import COOKING_TIMES, YIELD_DEVICES
from mirrorcraft.rules.packs import (
    MIRROR_NAMESPACE,
    PACK_FORMAT,
    JsonAt,
    block_exists,
    entity_exists,
    item_exists,
    load_json_bytes,
    resource_location,
    vanilla_pack,
)
from mirrorcraft.rules.recipes import parse_ingredient
from mirrorcraft.rules.sidecars import INDEX_PATH, RULE_FIELD, YIELD_FOLDER, CookingYield, RuleIndex
from mirrorcraft.rules.tags import vanilla_tags

__all__ = [
    "COOKING_DEFAULTS",
    "DEVICE_RECIPE_TYPE",
    "PACK_DESCRIPTION",
    "PACK_FORMAT",
    "RULE_FIELD",
    "RULE_PACK_FILENAME",
    "build_suite_bytes",
    "build_suite_files",
    "compile_suite",
    "dump_json",
    "ingredient_items",
    "rule_cards",
    "zip_files",
]

#: The same neutral description for every suite: it must not reveal the rules.
PACK_DESCRIPTION = "mirrorcraft rule pack"
#: File name of the rule pack inside a Mirror world's ``datapacks/`` (the same for every suite, so the six
#: Mirror copies' ``level.dat`` files are identical).
RULE_PACK_FILENAME = "mirrorcraft_rules.zip"
#: Our own namespace (extra recipes, sidecars, functions).
NAMESPACE = MIRROR_NAMESPACE
#: Device → vanilla recipe type, for the devices a cooking-yield sidecar may name (``rules/data/cooking.json``).
DEVICE_RECIPE_TYPE = dict(YIELD_DEVICES)
#: (experience, cookingtime) for a cooking recipe that has no vanilla recipe to copy them from: 0.1 experience
#: (the compiler's choice) and vanilla's default cooking time of the serializer (``SimpleCookingSerializer``:
#: 200 ticks smelting, 100 blasting).
COOKING_DEFAULTS = {device: (0.1, COOKING_TIMES[rtype]) for device, rtype in DEVICE_RECIPE_TYPE.items()}

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_SILK_TOUCH: dict[str, Any] = {
    "condition": "minecraft:match_tool",
    "predicate": {"enchantments": [{"enchantment": "minecraft:silk_touch", "levels": {"min": 1}}]},
}
_NOT_SILK_TOUCH: dict[str, Any] = {"condition": "minecraft:inverted", "term": _SILK_TOUCH}


# --------------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------------


def dump_json(obj: Any) -> bytes:
    """Stable JSON bytes: 2-space indent, sorted keys, UTF-8, trailing newline."""
    return (json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _split(rid: str) -> tuple[str, str]:
    ns, _, path = rid.partition(":")
    if not path:
        return "minecraft", ns
    return ns, path


def _bare(rid: str) -> str:
    return _split(rid)[1]


def _vanilla_json(rel: str) -> Any:
    pack = vanilla_pack()
    if rel not in pack.files:
        raise DatapackError(f"vanilla pack has no {rel} (needed to derive the override)")
    return load_json_bytes(pack.files[rel], pack.source(rel))


def _item_exists(item: str, where: str) -> None:
    if not item_exists(item):
        raise DatapackError(f"{where}: unknown item {item!r}")


def ingredient_items(ingredient: Any, where: str) -> list[str]:
    """The items a recipe ingredient accepts (``{"item"}``, ``{"tag"}`` or a list of those), sorted, with the
    vanilla pack's item tags (the recipe parser's own :func:`~mirrorcraft.rules.recipes.parse_ingredient`).

    Raises:
        DatapackError: malformed ingredient, unknown item or tag.
    """
    return sorted(parse_ingredient(ingredient, JsonAt(where), vanilla_tags()["items"]).items)


def _ingredient_of(items: Iterable[str]) -> Any:
    items = sorted(set(items))
    if len(items) == 1:
        return {"item": items[0]}
    return [{"item": i} for i in items]


def _result(stack_item: str, count: int) -> dict[str, Any]:
    return {"item": stack_item, "count": count}


def _count_function(drop: Drop) -> dict[str, Any]:
    count: Any = (
        float(drop.min)
        if drop.min == drop.max
        else {
            "type": "minecraft:uniform",
            "min": float(drop.min),
            "max": float(drop.max),
        }
    )
    return {"function": "minecraft:set_count", "count": count, "add": False}


def _drop_pool(drop: Drop, *, block: bool, not_silk: bool) -> dict[str, Any]:
    functions = [_count_function(drop)]
    if block:
        functions.append({"function": "minecraft:explosion_decay"})
    pool: dict[str, Any] = {
        "rolls": 1.0,
        "bonus_rolls": 0.0,
        "entries": [{"type": "minecraft:item", "name": drop.item, "functions": functions}],
    }
    if not_silk:
        pool["conditions"] = [copy.deepcopy(_NOT_SILK_TOUCH)]
    return pool


# --------------------------------------------------------------------------------------------------
# The builder
# --------------------------------------------------------------------------------------------------


class _Pack:
    """Resources being built: pack path → JSON object (or text), plus the rule index."""

    def __init__(self, manifest: SuiteManifest) -> None:
        self.manifest = manifest
        self.json: dict[str, Any] = {}
        self.text: dict[str, str] = {}
        self.index: dict[str, set[str]] = {}

    def tag(self, path: str, rule_id: str) -> None:
        self.index.setdefault(resource_location(path), set()).add(rule_id)
        obj = self.json.get(path)
        if isinstance(obj, dict) and (path.split("/")[2] in ("recipes", "loot_tables")):
            ids = sorted(self.index[resource_location(path)])
            obj[RULE_FIELD] = ids[0] if len(ids) == 1 else ids

    def get_or_vanilla(self, path: str) -> Any:
        """The overlay's copy of ``path`` if already written, else a deep copy of the vanilla file."""
        if path in self.json:
            return self.json[path]
        obj = copy.deepcopy(_vanilla_json(path))
        self.json[path] = obj
        return obj

    # -- recipes -------------------------------------------------------------------------------------
    def recipe_result(self, rule_id: str, change: RecipeChange) -> None:
        ns, name = _split(change.recipe)
        path = f"data/{ns}/recipes/{name}.json"
        where = f"rule {rule_id}: recipe {change.recipe}"
        _item_exists(change.result.item, where)
        recipe = self.get_or_vanilla(path)
        rtype = recipe.get("type")
        if rtype not in ("minecraft:crafting_shaped", "minecraft:crafting_shapeless"):
            raise DatapackError(f"{where}: recipe_result supports crafting recipes, this one is {rtype!r}")
        vanilla_result = copy.deepcopy(recipe["result"])
        recipe["result"] = _result(change.result.item, change.result.count)
        if change.inputs is not None:
            self._restrict_inputs(rule_id, change, recipe, vanilla_result, where)
        self.tag(path, rule_id)

    def _restrict_inputs(
        self, rule_id: str, change: RecipeChange, recipe: dict[str, Any], vanilla_result: Any, where: str
    ) -> None:
        wanted = set(change.inputs or [])
        slots: list[tuple[dict[str, Any] | list[Any], Any]] = []  # (container, key/index)
        if recipe["type"] == "minecraft:crafting_shapeless":
            for i, ing in enumerate(recipe["ingredients"]):
                if wanted & set(ingredient_items(ing, f"{where}: ingredients[{i}]")):
                    slots.append((recipe["ingredients"], i))
        else:
            for key, ing in sorted(recipe["key"].items()):
                if wanted & set(ingredient_items(ing, f"{where}: key.{key}")):
                    slots.append((recipe["key"], key))
        if not slots:
            raise DatapackError(
                f"{where}: no ingredient of the vanilla recipe accepts any of {sorted(wanted)}"
            )
        accepted = {json.dumps(c[k], sort_keys=True) for c, k in slots}
        if len(accepted) != 1:
            raise DatapackError(
                f"{where}: inputs restrict more than one distinct ingredient; only one is supported"
            )
        all_items = set(ingredient_items(slots[0][0][slots[0][1]], where))  # type: ignore[index]
        missing = wanted - all_items
        if missing:
            raise DatapackError(f"{where}: inputs {sorted(missing)} are not accepted by the vanilla recipe")
        rest = all_items - wanted
        rest_recipe = copy.deepcopy(recipe)
        for container, key in slots:
            container[key] = _ingredient_of(wanted)  # type: ignore[index]
        if rest:
            # Keep the vanilla result for the other items the vanilla ingredient accepted.
            for container, key in _same_slots(rest_recipe, slots):
                container[key] = _ingredient_of(rest)
            rest_recipe["result"] = vanilla_result
            rest_path = f"data/{NAMESPACE}/recipes/{_bare(change.recipe)}_unchanged_inputs.json"
            self.json[rest_path] = rest_recipe
            self.tag(rest_path, rule_id)

    # -- cooking -------------------------------------------------------------------------------------
    def cooking(self, rule_id: str, change: CookingChange) -> None:
        where = f"rule {rule_id}: {change.device} {change.input}"
        _item_exists(change.input, where)
        _item_exists(change.result.item, where)
        rtype = DEVICE_RECIPE_TYPE[change.device]
        exact: list[str] = []
        shared: list[str] = []
        for path, recipe in _vanilla_recipes_of_type(rtype):
            effective = self.json.get(path, recipe)
            items = ingredient_items(effective["ingredient"], f"{path}: ingredient")
            if change.input not in items:
                continue
            (exact if items == [change.input] else shared).append(path)
        experience, cookingtime = COOKING_DEFAULTS[change.device]
        if exact:
            # Override the vanilla recipe(s) cooking exactly this input (e.g. iron_ingot_from_smelting_raw_iron);
            # the sidecar names the first one.
            target = exact[0]
            for path in exact:
                self.get_or_vanilla(path)["result"] = change.result.item
                self.tag(path, rule_id)
        else:
            template = None
            for path in shared:
                recipe = self.get_or_vanilla(path)
                items = ingredient_items(recipe["ingredient"], f"{path}: ingredient")
                template = template or recipe
                recipe["ingredient"] = _ingredient_of(i for i in items if i != change.input)
                self.tag(path, rule_id)
            if template is not None:
                experience, cookingtime = (
                    template.get("experience", experience),
                    template.get("cookingtime", cookingtime),
                )
            target = f"data/{NAMESPACE}/recipes/{change.device}/{_bare(change.input)}.json"
            self.json[target] = {
                "type": rtype,
                "ingredient": {"item": change.input},
                "result": change.result.item,
                "experience": experience,
                "cookingtime": cookingtime,
            }
        self.tag(target, rule_id)
        sidecar_path = f"{YIELD_FOLDER}{change.device}_{_bare(change.input)}.json"
        self.json[sidecar_path] = CookingYield(
            location=resource_location(sidecar_path).replace("cooking_yields/", "", 1),
            device=change.device,
            recipe_type=rtype,
            recipe=resource_location(target).replace("recipes/", "", 1),
            input=change.input,
            item=change.result.item,
            count=change.result.count,
            rule=rule_id,
        ).to_json()
        self.tag(sidecar_path, rule_id)

    # -- loot ----------------------------------------------------------------------------------------
    def block_drops(self, rule_id: str, block: str, drops: list[Drop], replace: bool) -> None:
        path = self._loot_override(rule_id, block, "blocks", drops)
        table = self.get_or_vanilla(path)
        if replace:
            for pool in table.get("pools", []):
                pool.setdefault("conditions", []).insert(0, copy.deepcopy(_SILK_TOUCH))
        table.setdefault("pools", []).extend(_drop_pool(d, block=True, not_silk=True) for d in drops)
        self.tag(path, rule_id)

    def entity_loot(self, rule_id: str, entity: str, drops: list[Drop], replace: bool) -> None:
        path = self._loot_override(rule_id, entity, "entities", drops)
        table = self.get_or_vanilla(path)
        if replace:
            table["pools"] = []
        table.setdefault("pools", []).extend(_drop_pool(d, block=False, not_silk=False) for d in drops)
        self.tag(path, rule_id)

    @staticmethod
    def _loot_override(rule_id: str, thing: str, folder: str, drops: list[Drop]) -> str:
        """The loot-table path of a block (``blocks``) or mob (``entities``), after checking the ids exist."""
        what, exists = ("block", block_exists) if folder == "blocks" else ("entity", entity_exists)
        where = f"rule {rule_id}: {what} {thing}"
        if not exists(thing):
            raise DatapackError(f"{where}: unknown {'block' if what == 'block' else 'entity type'}")
        for d in drops:
            _item_exists(d.item, where)
        ns, name = _split(thing)
        return f"data/{ns}/loot_tables/{folder}/{name}.json"

    # -- vanilla-server yield functions --------------------------------------------------------------
    def yield_functions(self) -> None:
        """Tick functions topping up multi-count cooking yields on a real server (docs/smelting_yields.md)."""
        by_item: dict[str, dict[int, list[str]]] = {}
        for rule in self.manifest.rules:
            if isinstance(rule, CookingOutputRule):
                for c in rule.changes:
                    if c.result.count > 1:
                        by_item.setdefault(c.result.item, {}).setdefault(c.result.count, []).append(rule.id)
        if not by_item:
            return
        load: list[str] = ["# Objectives counting result items players take out of cooking devices."]
        tick: list[str] = ["# Top up multi-count cooking yields (see docs/smelting_yields.md)."]
        for n, item in enumerate(sorted(by_item)):
            counts = by_item[item]
            if len(counts) != 1:
                raise DatapackError(
                    f"cooking rules give {item} in different counts {sorted(counts)}: the vanilla-server "
                    "statistic cannot tell the devices apart"
                )
            ((count, rule_ids),) = counts.items()
            objective = f"mcy{n}"
            stat = f"minecraft.crafted:minecraft.{_bare(item)}"
            give = f"data/{NAMESPACE}/functions/yields/give_{n}.mcfunction"
            load.append(f"scoreboard objectives add {objective} {stat}")
            tick.append(f"execute as @a[scores={{{objective}=1..}}] run function {NAMESPACE}:yields/give_{n}")
            self.text[give] = (
                "\n".join(
                    [
                        f"# {item}: each unit taken out of a furnace counts once; add the missing {count - 1}.",
                        f"give @s {item} {count - 1}",
                        f"scoreboard players remove @s {objective} 1",
                        f"execute if score @s {objective} matches 1.. run function {NAMESPACE}:yields/give_{n}",
                    ]
                )
                + "\n"
            )
            for rid in rule_ids:
                self.tag(give, rid)
        files = {
            f"data/{NAMESPACE}/functions/yields/load.mcfunction": "\n".join(load) + "\n",
            f"data/{NAMESPACE}/functions/yields/tick.mcfunction": "\n".join(tick) + "\n",
        }
        self.text.update(files)
        self.json["data/minecraft/tags/functions/load.json"] = {
            "replace": False,
            "values": [f"{NAMESPACE}:yields/load"],
        }
        self.json["data/minecraft/tags/functions/tick.json"] = {
            "replace": False,
            "values": [f"{NAMESPACE}:yields/tick"],
        }
        all_ids = sorted({rid for counts in by_item.values() for ids in counts.values() for rid in ids})
        for path in [
            *files,
            "data/minecraft/tags/functions/load.json",
            "data/minecraft/tags/functions/tick.json",
        ]:
            for rid in all_ids:
                self.tag(path, rid)

    # -- output --------------------------------------------------------------------------------------
    def files(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {
            "pack.mcmeta": dump_json({"pack": {"pack_format": PACK_FORMAT, "description": PACK_DESCRIPTION}})
        }
        for path, obj in self.json.items():
            out[path] = dump_json(obj)
        for path, text in self.text.items():
            out[path] = text.encode("utf-8")
        index = RuleIndex(self.manifest.suite, {k: tuple(v) for k, v in self.index.items()})
        out[INDEX_PATH] = dump_json(index.to_json())
        return dict(sorted(out.items()))


def _same_slots(recipe: dict[str, Any], slots: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The slots of a deep copy of a recipe that correspond to ``slots`` of the original."""
    container = recipe["ingredients"] if recipe["type"] == "minecraft:crafting_shapeless" else recipe["key"]
    return [(container, key) for _c, key in slots]


_VANILLA_BY_TYPE: dict[str, list[tuple[str, dict[str, Any]]]] = {}


def _vanilla_recipes_of_type(rtype: str) -> list[tuple[str, dict[str, Any]]]:
    """Vanilla recipes of one type as ``(pack path, json)``, sorted by path (cached)."""
    if not _VANILLA_BY_TYPE:
        pack = vanilla_pack()
        for path in sorted(pack.files):
            if path.startswith("data/minecraft/recipes/") and path.endswith(".json"):
                data = load_json_bytes(pack.files[path], pack.source(path))
                _VANILLA_BY_TYPE.setdefault(data.get("type", ""), []).append((path, data))
    return _VANILLA_BY_TYPE.get(rtype, [])


# --------------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------------


def build_suite_files(manifest: SuiteManifest) -> dict[str, bytes]:
    """Compile a suite into the pack's files (sorted ``{path inside the pack: bytes}``).

    Args:
        manifest: A validated suite (e.g. ``load_suite("M03")``).

    Returns:
        Every file of the datapack, ``pack.mcmeta`` and the rule index included.

    Raises:
        DatapackError: a rule names an unknown item/block/entity/recipe, or cannot be expressed (the
            message names the rule and the resource).
    """
    pack = _Pack(manifest)
    for rule in manifest.rules:
        if isinstance(rule, RecipeResultRule):
            for ch in rule.changes:
                pack.recipe_result(rule.id, ch)
        elif isinstance(rule, CookingOutputRule):
            for ch in rule.changes:
                pack.cooking(rule.id, ch)
        elif isinstance(rule, BlockDropReplaceRule | BlockDropAddRule):
            for ch in rule.changes:
                pack.block_drops(rule.id, ch.block, ch.drops, replace=isinstance(rule, BlockDropReplaceRule))
        elif isinstance(rule, EntityLootReplaceRule | EntityLootAddRule):
            for ch in rule.changes:
                pack.entity_loot(
                    rule.id, ch.entity, ch.drops, replace=isinstance(rule, EntityLootReplaceRule)
                )
        else:  # pragma: no cover - the manifest union is closed
            raise DatapackError(f"rule {rule.id}: unsupported operator {rule.operator!r}")
    pack.yield_functions()
    return pack.files()


def zip_files(files: Mapping[str, bytes]) -> bytes:
    """Deterministic zip bytes of ``files`` (sorted names, fixed timestamps and permissions)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            zf.writestr(info, files[name], compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buf.getvalue()


def build_suite_bytes(manifest: SuiteManifest) -> bytes:
    """The suite's datapack as zip bytes; the same manifest always gives the same bytes.

    Raises:
        DatapackError: see :func:`build_suite_files`.
    """
    return zip_files(build_suite_files(manifest))


def compile_suite(manifest: SuiteManifest, out: Path) -> Path:
    """Write the suite's datapack zip to ``out`` (a ``.zip`` path, or a folder to hold ``<suite>.zip``).

    The zip is written to a temporary file in the same folder and renamed into place, so a failure
    never leaves a half-written pack.

    Returns:
        The path of the written zip.

    Raises:
        DatapackError: see :func:`build_suite_files`.
    """
    out = Path(out)
    target = out if out.suffix == ".zip" else out / f"{manifest.suite}.zip"
    data = build_suite_bytes(manifest)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def rule_cards(manifest: SuiteManifest) -> str:
    """The rule card "ReAct w/rules" is shown for this suite (delegates to the manifest)."""
    return manifest.card_text()
