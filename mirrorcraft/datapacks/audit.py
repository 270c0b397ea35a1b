"""Static audit of a 1.19.2 datapack (zip or folder): every file checked before a world ever loads it.

Why: a Mirror pack that a server silently half-loads (a typo'd item id makes vanilla skip the recipe and
log a warning nobody reads) would make a suite quietly vanilla. The audit checks what vanilla 1.19.2's
loaders check, plus the benchmark's own constraints (nothing visible to a player, valid sidecars):

* ``pack.mcmeta`` present, JSON, ``pack.pack_format`` 10, a ``description``;
* every ``.json`` parses (UTF-8); files outside ``data/`` other than ``pack.mcmeta``/``pack.png`` warn;
* resource names use vanilla's allowed characters (``[a-z0-9_.-]`` namespace, ``[a-z0-9_./-]`` path);
* recipes: known type; shaped pattern/key consistency; ingredients' items and tags resolve (vanilla
  tags from :mod:`mirrorcraft.gamedata` plus the pack's own item tags); result items exist; cooking
  results are a bare item id (the 1.19 format: an object with a count is an error naming the trap);
* loot tables: known table/entry/condition/function/number-provider types, item and tag names resolve,
  ``loot_table`` references exist (in the pack or the vendored vanilla pack; a ``minecraft:`` table the
  vendored pack does not hold only warns, since the real jar has it), enchantments in predicates exist;
* functions: every command (and every ``execute ... run`` sub-command) on an allow-list, no chat output
  (``say``/``tellraw``/``title``/``me``/``msg``/``tell``/``w``/``teammsg``/``tm``), called functions exist;
* tags: function tags name existing functions, item/block tags name known items/blocks/tags;
* advancements: none with a ``display`` (an advancement toast would reveal a rule), unless allowed;
* MirrorCraft sidecars: ``cooking_yields/*.json`` (docs/smelting_yields.md) and ``rules/index.json``
  well-formed and consistent with the pack (the yield's recipe exists, cooks the input in that device and
  gives that item; every indexed resource exists); the ``"mirrorcraft:rule"`` field holds rule ids.

Every issue names the file and the JSON path (``pools[0].entries[1].name``) or line number.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mirrorcraft import gamedata
from mirrorcraft.contracts.rules import RULE_ID_RE
from mirrorcraft.datapacks.compiler import (
    DEVICE_RECIPE_TYPE,
    NAMESPACE,
    PACK_FORMAT,
    RULE_FIELD,
    read_pack_files,
    resource_location,
)
from mirrorcraft.errors import DatapackError, GameDataError

__all__ = [
    "ALLOWED_COMMANDS",
    "CHAT_COMMANDS",
    "AuditIssue",
    "AuditReport",
    "CookingYield",
    "RuleIndex",
    "audit_files",
    "audit_pack",
]

# Vanilla 1.19.2 registries of the data-driven types (net.minecraft.world.item.crafting.RecipeSerializer,
# ...level.storage.loot.*Types): a pack using any other type fails to load that resource.
RECIPE_TYPES = frozenset(
    {
        "minecraft:crafting_shaped",
        "minecraft:crafting_shapeless",
        "minecraft:smelting",
        "minecraft:blasting",
        "minecraft:smoking",
        "minecraft:campfire_cooking",
        "minecraft:stonecutting",
        "minecraft:smithing",
    }
    | {
        f"minecraft:crafting_special_{s}"
        for s in (
            "armordye bookcloning mapcloning mapextending firework_rocket firework_star firework_star_fade "
            "repairitem tippedarrow bannerduplicate banneraddpattern shielddecoration shulkerboxcoloring "
            "suspiciousstew"
        ).split()
    }
)
COOKING_TYPES = frozenset(
    {"minecraft:smelting", "minecraft:blasting", "minecraft:smoking", "minecraft:campfire_cooking"}
)
LOOT_TABLE_TYPES = frozenset(
    f"minecraft:{t}"
    for t in (
        "empty chest command selector fishing entity gift barter advancement_reward advancement_entity "
        "generic block"
    ).split()
)
LOOT_ENTRY_TYPES = frozenset(
    f"minecraft:{t}" for t in "empty item loot_table dynamic tag alternatives sequence group".split()
)
LOOT_CONDITION_TYPES = frozenset(
    f"minecraft:{t}"
    for t in (
        "inverted alternative random_chance random_chance_with_looting entity_properties killed_by_player "
        "entity_scores block_state_property match_tool table_bonus survives_explosion "
        "damage_source_properties location_check weather_check reference time_check value_check"
    ).split()
)
LOOT_FUNCTION_TYPES = frozenset(
    f"minecraft:{t}"
    for t in (
        "set_count enchant_with_levels enchant_randomly set_enchantments set_nbt furnace_smelt "
        "looting_enchant set_damage set_attributes set_name exploration_map set_stew_effect copy_name "
        "set_contents limit_count apply_bonus set_loot_table explosion_decay set_lore fill_player_head "
        "copy_nbt copy_state set_banner_pattern set_potion set_instrument"
    ).split()
)
NUMBER_PROVIDER_TYPES = frozenset(f"minecraft:{t}" for t in ("constant", "uniform", "binomial", "score"))
#: Commands a rule pack's functions may use (what the compiler writes, plus harmless state commands).
ALLOWED_COMMANDS = frozenset(
    {"execute", "scoreboard", "give", "function", "data", "clear", "item", "schedule"}
)
#: Commands that print to players' chat or screen: forbidden anywhere in a rule pack.
CHAT_COMMANDS = frozenset({"say", "tellraw", "title", "me", "msg", "tell", "w", "teammsg", "tm"})

_NS_RE = re.compile(r"^[a-z0-9_.-]+$")
_PATH_RE = re.compile(r"^[a-z0-9_./-]+$")
_ROOT_FILES = {"pack.mcmeta", "pack.png"}


class AuditIssue(BaseModel):
    """One problem: the file inside the pack, where in it (JSON path or ``line N``) and what is wrong."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    where: str = ""
    message: str

    def __str__(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"{self.file}{at}: {self.message}"


class AuditReport(BaseModel):
    """The audit's result: ``ok`` when there are no errors (warnings do not fail a pack)."""

    model_config = ConfigDict(extra="forbid")

    pack: str
    errors: list[AuditIssue] = Field(default_factory=list)
    warnings: list[AuditIssue] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no error was found."""
        return not self.errors

    def summary(self) -> str:
        """A human-readable multi-line summary (used by ``datapacks audit``)."""
        lines = [
            f"{self.pack}: {'OK' if self.ok else 'FAILED'} ({len(self.errors)} errors, "
            f"{len(self.warnings)} warnings)"
        ]
        lines.append("  counts: " + ", ".join(f"{k}={v}" for k, v in sorted(self.counts.items())))
        lines += [f"  ERROR {e}" for e in self.errors]
        lines += [f"  warning {w}" for w in self.warnings]
        return "\n".join(lines)


class CookingYield(BaseModel):
    """``data/mirrorcraft/cooking_yields/<device>_<input>.json`` (format 1, docs/smelting_yields.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[1]
    device: Literal["furnace", "blast_furnace"]
    recipe_type: Literal["minecraft:smelting", "minecraft:blasting"]
    recipe: str = Field(pattern=r"^[a-z0-9_.-]+:[a-z0-9_./-]+$")
    input: str = Field(pattern=r"^[a-z0-9_.-]+:[a-z0-9_./-]+$")
    result: dict[str, Any]
    rule: str = Field(pattern=RULE_ID_RE.pattern)


class RuleIndex(BaseModel):
    """``data/mirrorcraft/rules/index.json``: resource location → the rule ids that wrote it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal[1]
    suite: str
    resources: dict[str, list[str]]


class _Ctx:
    """State of one audit run."""

    def __init__(self, files: dict[str, bytes], allow_display: bool) -> None:
        self.files = files
        self.allow_display = allow_display
        self.errors: list[AuditIssue] = []
        self.warnings: list[AuditIssue] = []
        self.json: dict[str, Any] = {}
        self.counts: dict[str, int] = {}
        self.pack_item_tags: set[str] = set()
        self.pack_block_tags: set[str] = set()
        self.functions: set[str] = set()
        self.function_tags: set[str] = set()
        self.loot_tables: set[str] = set()
        self.recipes: set[str] = set()
        self.vanilla_loot = _vanilla_locations("loot_tables")
        self.vanilla_recipes = _vanilla_locations("recipes")

    def err(self, file: str, where: str, message: str) -> None:
        self.errors.append(AuditIssue(file=file, where=where, message=message))

    def warn(self, file: str, where: str, message: str) -> None:
        self.warnings.append(AuditIssue(file=file, where=where, message=message))

    def count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1


def _vanilla_locations(kind: str) -> set[str]:
    base = Path(gamedata.VANILLA_PACK_DIR) / "data" / "minecraft" / kind
    return {f"minecraft:{p.relative_to(base).with_suffix('').as_posix()}" for p in base.rglob("*.json")}


def _known(check: Callable[[str], Any], name: str) -> bool:
    try:
        check(name)
    except GameDataError:
        return False
    return True


def _item_ok(name: str) -> bool:
    return isinstance(name, str) and _known(gamedata.item, name)


def _block_ok(name: str) -> bool:
    return isinstance(name, str) and _known(gamedata.block, name)


def _ns(name: str) -> str:
    return name if ":" in name else f"minecraft:{name}"


# --------------------------------------------------------------------------------------------------
# recipes
# --------------------------------------------------------------------------------------------------


def _item_tag_ok(ctx: _Ctx, tag: str) -> bool:
    return _ns(tag) in ctx.pack_item_tags or _known(lambda t: gamedata.tag("item", t), tag)


def _ingredient(ctx: _Ctx, file: str, at: str, ing: Any) -> None:
    if isinstance(ing, list):
        if not ing:
            ctx.err(file, at, "empty ingredient list")
        for i, alt in enumerate(ing):
            _ingredient(ctx, file, f"{at}[{i}]", alt)
        return
    if not isinstance(ing, dict):
        ctx.err(file, at, f"ingredient must be an object or a list, got {type(ing).__name__}")
        return
    if "item" in ing:
        if not _item_ok(ing["item"]):
            ctx.err(file, f"{at}.item", f"unknown item {ing['item']!r}")
    elif "tag" in ing:
        if not isinstance(ing["tag"], str) or not _item_tag_ok(ctx, ing["tag"]):
            ctx.err(file, f"{at}.tag", f"unknown item tag {ing['tag']!r}")
    else:
        ctx.err(file, at, "ingredient needs 'item' or 'tag'")


def _stack_result(ctx: _Ctx, file: str, at: str, res: Any) -> None:
    if not isinstance(res, dict) or "item" not in res:
        ctx.err(file, at, "result must be an object with 'item'")
        return
    if not _item_ok(res["item"]):
        ctx.err(file, f"{at}.item", f"unknown item {res['item']!r}")
    count = res.get("count", 1)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 64:
        ctx.err(file, f"{at}.count", f"count must be an integer 1..64, got {count!r}")


def _recipe(ctx: _Ctx, file: str, data: Any) -> None:
    ctx.count("recipes")
    if not isinstance(data, dict):
        ctx.err(file, "", "recipe must be a JSON object")
        return
    rtype = data.get("type")
    if not isinstance(rtype, str) or _ns(rtype) not in RECIPE_TYPES:
        ctx.err(file, "type", f"unknown recipe type {rtype!r}")
        return
    rtype = _ns(rtype)
    _rule_field(ctx, file, data)
    if rtype == "minecraft:crafting_shaped":
        pattern, key = data.get("pattern"), data.get("key")
        if not isinstance(pattern, list) or not pattern or not all(isinstance(r, str) for r in pattern):
            ctx.err(file, "pattern", "pattern must be a non-empty list of strings")
            return
        if len(pattern) > 3 or len({len(r) for r in pattern}) != 1 or len(pattern[0]) > 3:
            ctx.err(file, "pattern", f"pattern must be at most 3x3 with equal rows, got {pattern!r}")
        if not isinstance(key, dict):
            ctx.err(file, "key", "key must be an object")
            return
        used = {c for row in pattern for c in row if c != " "}
        for c in sorted(used - set(key)):
            ctx.err(file, "pattern", f"symbol {c!r} is not defined in key")
        for c in sorted(set(key) - used):
            ctx.err(file, f"key.{c}", f"key symbol {c!r} is unused in the pattern")
        for c, ing in sorted(key.items()):
            if len(c) != 1 or c == " ":
                ctx.err(file, f"key.{c}", "key symbols must be single non-space characters")
            _ingredient(ctx, file, f"key.{c}", ing)
        _stack_result(ctx, file, "result", data.get("result"))
    elif rtype == "minecraft:crafting_shapeless":
        ings = data.get("ingredients")
        if not isinstance(ings, list) or not 1 <= len(ings) <= 9:
            ctx.err(file, "ingredients", "shapeless recipes need 1..9 ingredients")
        else:
            for i, ing in enumerate(ings):
                _ingredient(ctx, file, f"ingredients[{i}]", ing)
        _stack_result(ctx, file, "result", data.get("result"))
    elif rtype in COOKING_TYPES:
        if "ingredient" not in data:
            ctx.err(file, "ingredient", "missing ingredient")
        else:
            _ingredient(ctx, file, "ingredient", data["ingredient"])
        res = data.get("result")
        if isinstance(res, dict):
            ctx.err(
                file,
                "result",
                "a 1.19 cooking recipe's result is a bare item id (no object, no count); "
                "use a cooking_yields sidecar for counts",
            )
        elif not isinstance(res, str) or not _item_ok(res):
            ctx.err(file, "result", f"unknown item {res!r}")
        if not isinstance(data.get("experience", 0.0), int | float):
            ctx.err(file, "experience", "experience must be a number")
        ct = data.get("cookingtime", 100)
        if not isinstance(ct, int) or isinstance(ct, bool) or ct < 1:
            ctx.err(file, "cookingtime", f"cookingtime must be a positive integer, got {ct!r}")
    elif rtype == "minecraft:stonecutting":
        _ingredient(ctx, file, "ingredient", data.get("ingredient"))
        if not isinstance(data.get("result"), str) or not _item_ok(data["result"]):
            ctx.err(file, "result", f"unknown item {data.get('result')!r}")
        if not isinstance(data.get("count", 1), int):
            ctx.err(file, "count", "count must be an integer")
    elif rtype == "minecraft:smithing":
        _ingredient(ctx, file, "base", data.get("base"))
        _ingredient(ctx, file, "addition", data.get("addition"))
        _stack_result(ctx, file, "result", data.get("result"))


def _rule_field(ctx: _Ctx, file: str, data: dict[str, Any]) -> None:
    if RULE_FIELD not in data:
        return
    value = data[RULE_FIELD]
    ids = value if isinstance(value, list) else [value]
    for i, rid in enumerate(ids):
        if not isinstance(rid, str) or not RULE_ID_RE.match(rid):
            at = RULE_FIELD if not isinstance(value, list) else f"{RULE_FIELD}[{i}]"
            ctx.err(file, at, f"not a rule id: {rid!r}")


# --------------------------------------------------------------------------------------------------
# loot tables
# --------------------------------------------------------------------------------------------------


def _number(ctx: _Ctx, file: str, at: str, value: Any) -> None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return
    if not isinstance(value, dict):
        ctx.err(file, at, f"not a number provider: {value!r}")
        return
    ntype = _ns(value.get("type", "minecraft:uniform"))
    if ntype not in NUMBER_PROVIDER_TYPES:
        ctx.err(file, f"{at}.type", f"unknown number provider {value.get('type')!r}")
        return
    need = {
        "minecraft:constant": ("value",),
        "minecraft:uniform": ("min", "max"),
        "minecraft:binomial": ("n", "p"),
        "minecraft:score": ("target", "score"),
    }[ntype]
    for k in need:
        if k not in value:
            ctx.err(file, f"{at}.{k}", f"{ntype} needs {k!r}")
        elif ntype != "minecraft:score":
            _number(ctx, file, f"{at}.{k}", value[k])


def _predicate_items(ctx: _Ctx, file: str, at: str, pred: Any) -> None:
    if not isinstance(pred, dict):
        ctx.err(file, at, "predicate must be an object")
        return
    for i, item in enumerate(pred.get("items", []) or []):
        if not _item_ok(item):
            ctx.err(file, f"{at}.items[{i}]", f"unknown item {item!r}")
    if "tag" in pred and not _item_tag_ok(ctx, pred["tag"]):
        ctx.err(file, f"{at}.tag", f"unknown item tag {pred['tag']!r}")
    for i, ench in enumerate(pred.get("enchantments", []) or []):
        name = ench.get("enchantment") if isinstance(ench, dict) else None
        if name is not None and not _known(gamedata.enchantment, name):
            ctx.err(file, f"{at}.enchantments[{i}].enchantment", f"unknown enchantment {name!r}")


def _conditions(ctx: _Ctx, file: str, at: str, obj: dict[str, Any]) -> None:
    conds = obj.get("conditions", [])
    if not isinstance(conds, list):
        ctx.err(file, f"{at}conditions", "conditions must be a list")
        return
    for i, c in enumerate(conds):
        _condition(ctx, file, f"{at}conditions[{i}]", c)


def _condition(ctx: _Ctx, file: str, at: str, c: Any) -> None:
    if not isinstance(c, dict) or not isinstance(c.get("condition"), str):
        ctx.err(file, at, "a condition must be an object with a 'condition' type")
        return
    ctype = _ns(c["condition"])
    if ctype not in LOOT_CONDITION_TYPES:
        ctx.err(file, f"{at}.condition", f"unknown condition type {c['condition']!r}")
        return
    if ctype == "minecraft:inverted":
        _condition(ctx, file, f"{at}.term", c.get("term"))
    elif ctype == "minecraft:alternative":
        for i, t in enumerate(c.get("terms", []) or []):
            _condition(ctx, file, f"{at}.terms[{i}]", t)
    elif ctype == "minecraft:match_tool":
        _predicate_items(ctx, file, f"{at}.predicate", c.get("predicate", {}))
    elif ctype in ("minecraft:random_chance", "minecraft:random_chance_with_looting"):
        if not isinstance(c.get("chance"), int | float):
            ctx.err(file, f"{at}.chance", "chance must be a number")
    elif ctype == "minecraft:table_bonus":
        if not _known(gamedata.enchantment, str(c.get("enchantment"))):
            ctx.err(file, f"{at}.enchantment", f"unknown enchantment {c.get('enchantment')!r}")
    elif ctype == "minecraft:block_state_property":
        if not _block_ok(c.get("block")):
            ctx.err(file, f"{at}.block", f"unknown block {c.get('block')!r}")


def _functions(ctx: _Ctx, file: str, at: str, obj: dict[str, Any]) -> None:
    funcs = obj.get("functions", [])
    if not isinstance(funcs, list):
        ctx.err(file, f"{at}functions", "functions must be a list")
        return
    for i, f in enumerate(funcs):
        fat = f"{at}functions[{i}]"
        if not isinstance(f, dict) or not isinstance(f.get("function"), str):
            ctx.err(file, fat, "a function must be an object with a 'function' type")
            continue
        ftype = _ns(f["function"])
        if ftype not in LOOT_FUNCTION_TYPES:
            ctx.err(file, f"{fat}.function", f"unknown loot function {f['function']!r}")
            continue
        _conditions(ctx, file, f"{fat}.", f)
        if ftype in ("minecraft:set_count", "minecraft:looting_enchant"):
            if "count" not in f:
                ctx.err(file, f"{fat}.count", f"{ftype} needs 'count'")
            else:
                _number(ctx, file, f"{fat}.count", f["count"])
        if ftype == "minecraft:apply_bonus" and not _known(gamedata.enchantment, str(f.get("enchantment"))):
            ctx.err(file, f"{fat}.enchantment", f"unknown enchantment {f.get('enchantment')!r}")


def _entry(ctx: _Ctx, file: str, at: str, e: Any) -> None:
    if not isinstance(e, dict) or not isinstance(e.get("type"), str):
        ctx.err(file, at, "an entry must be an object with a 'type'")
        return
    etype = _ns(e["type"])
    if etype not in LOOT_ENTRY_TYPES:
        ctx.err(file, f"{at}.type", f"unknown entry type {e['type']!r}")
        return
    _conditions(ctx, file, f"{at}.", e)
    _functions(ctx, file, f"{at}.", e)
    if etype == "minecraft:item":
        if not _item_ok(e.get("name")):
            ctx.err(file, f"{at}.name", f"unknown item {e.get('name')!r}")
    elif etype == "minecraft:tag":
        if not isinstance(e.get("name"), str) or not _item_tag_ok(ctx, e["name"]):
            ctx.err(file, f"{at}.name", f"unknown item tag {e.get('name')!r}")
        if not isinstance(e.get("expand"), bool):
            ctx.err(file, f"{at}.expand", "tag entries need a boolean 'expand'")
    elif etype == "minecraft:loot_table":
        ref = e.get("name")
        if not isinstance(ref, str):
            ctx.err(file, f"{at}.name", "loot_table entries need a 'name'")
        else:
            ref = _ns(ref)
            if ref not in ctx.loot_tables and ref not in ctx.vanilla_loot:
                if ref.startswith("minecraft:"):
                    ctx.warn(file, f"{at}.name", f"{ref} is not in this pack nor the vendored vanilla tables")
                else:
                    ctx.err(file, f"{at}.name", f"referenced loot table {ref} does not exist")
    elif etype in ("minecraft:alternatives", "minecraft:sequence", "minecraft:group"):
        children = e.get("children")
        if not isinstance(children, list) or not children:
            ctx.err(file, f"{at}.children", f"{etype} needs a non-empty 'children' list")
        else:
            for i, ch in enumerate(children):
                _entry(ctx, file, f"{at}.children[{i}]", ch)


def _loot_table(ctx: _Ctx, file: str, location: str, data: Any) -> None:
    ctx.count("loot_tables")
    if not isinstance(data, dict):
        ctx.err(file, "", "loot table must be a JSON object")
        return
    if "type" in data and _ns(str(data["type"])) not in LOOT_TABLE_TYPES:
        ctx.err(file, "type", f"unknown loot table type {data['type']!r}")
    _rule_field(ctx, file, data)
    path = location.split(":", 1)[1].removeprefix("loot_tables/")
    if path.startswith("blocks/") and location.startswith("minecraft:") and not _block_ok(path[7:]):
        ctx.warn(file, "", f"no block named {path[7:]!r}: this table is never used")
    if path.startswith("entities/") and location.startswith("minecraft:"):
        if not _known(gamedata.entity, path[9:]):
            ctx.warn(file, "", f"no entity type named {path[9:]!r}: this table is never used")
    pools = data.get("pools", [])
    if not isinstance(pools, list):
        ctx.err(file, "pools", "pools must be a list")
        return
    for i, pool in enumerate(pools):
        pat = f"pools[{i}]"
        if not isinstance(pool, dict):
            ctx.err(file, pat, "a pool must be an object")
            continue
        if "rolls" not in pool:
            ctx.err(file, f"{pat}.rolls", "a pool needs 'rolls'")
        else:
            _number(ctx, file, f"{pat}.rolls", pool["rolls"])
        if "bonus_rolls" in pool:
            _number(ctx, file, f"{pat}.bonus_rolls", pool["bonus_rolls"])
        entries = pool.get("entries")
        if not isinstance(entries, list) or not entries:
            ctx.err(file, f"{pat}.entries", "a pool needs a non-empty 'entries' list")
        else:
            for j, e in enumerate(entries):
                _entry(ctx, file, f"{pat}.entries[{j}]", e)
        _conditions(ctx, file, f"{pat}.", pool)
        _functions(ctx, file, f"{pat}.", pool)
    _functions(ctx, file, "", data)


# --------------------------------------------------------------------------------------------------
# functions, tags, advancements, sidecars
# --------------------------------------------------------------------------------------------------


def _command(ctx: _Ctx, file: str, lineno: int, words: list[str]) -> None:
    if not words:
        ctx.err(file, f"line {lineno}", "empty command")
        return
    head = words[0].lstrip("/")
    if head in CHAT_COMMANDS:
        ctx.err(file, f"line {lineno}", f"command {head!r} writes to players' chat/screen (forbidden)")
        return
    if head not in ALLOWED_COMMANDS:
        ctx.err(
            file, f"line {lineno}", f"command {head!r} is not on the allow-list {sorted(ALLOWED_COMMANDS)}"
        )
        return
    if head == "execute" and "run" in words:
        _command(ctx, file, lineno, words[words.index("run") + 1 :])
    if head == "function" and len(words) > 1:
        ref = words[1]
        if ref.startswith("#"):
            tag = _ns(ref[1:])
            if tag not in ctx.function_tags:
                ctx.err(file, f"line {lineno}", f"function tag {ref} does not exist in this pack")
        elif _ns(ref) not in ctx.functions:
            ctx.err(file, f"line {lineno}", f"function {ref} does not exist in this pack")
    if head == "give" and len(words) > 2:
        item = words[2].split("{", 1)[0]
        if not _item_ok(item):
            ctx.err(file, f"line {lineno}", f"give: unknown item {item!r}")


def _function(ctx: _Ctx, file: str, raw: bytes) -> None:
    ctx.count("functions")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        ctx.err(file, "", f"not UTF-8 text: {err}")
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        _command(ctx, file, lineno, line.split())


def _tag(ctx: _Ctx, file: str, kind: str, data: Any) -> None:
    ctx.count("tags")
    if not isinstance(data, dict) or not isinstance(data.get("values"), list):
        ctx.err(file, "values", "a tag needs a 'values' list")
        return
    if "replace" in data and not isinstance(data["replace"], bool):
        ctx.err(file, "replace", "replace must be a boolean")
    for i, v in enumerate(data["values"]):
        at = f"values[{i}]"
        ref = v.get("id") if isinstance(v, dict) else v
        required = v.get("required", True) if isinstance(v, dict) else True
        if not isinstance(ref, str):
            ctx.err(file, at, "a tag value must be an id or {'id', 'required'}")
            continue
        if kind == "functions":
            ok = ref.startswith("#") and _ns(ref[1:]) in ctx.function_tags or _ns(ref) in ctx.functions
            what = "function"
        elif kind == "items":
            ok = _item_tag_ok(ctx, ref[1:]) if ref.startswith("#") else _item_ok(ref)
            what = "item"
        elif kind == "blocks":
            ok = (
                _ns(ref[1:]) in ctx.pack_block_tags or _known(lambda t: gamedata.tag("block", t), ref[1:])
                if ref.startswith("#")
                else _block_ok(ref)
            )
            what = "block"
        else:
            continue
        if not ok and required:
            ctx.err(file, at, f"unknown {what} {ref!r}")


def _advancement(ctx: _Ctx, file: str, data: Any) -> None:
    ctx.count("advancements")
    if not isinstance(data, dict):
        ctx.err(file, "", "advancement must be a JSON object")
        return
    if "display" in data and not ctx.allow_display:
        ctx.err(file, "display", "advancement has a display (a toast/chat announcement would reveal a rule)")
    if not isinstance(data.get("criteria"), dict) or not data["criteria"]:
        ctx.err(file, "criteria", "an advancement needs at least one criterion")


def _recipe_json(ctx: _Ctx, location: str) -> Any:
    """A recipe's JSON from the pack, else from the vendored vanilla pack (None if neither has it)."""
    ns, path = location.split(":", 1)
    own = ctx.json.get(f"data/{ns}/recipes/{path}.json")
    if own is not None:
        return own
    if location in ctx.vanilla_recipes:
        return json.loads((Path(gamedata.VANILLA_PACK_DIR) / f"data/{ns}/recipes/{path}.json").read_text())
    return None


def _cooking_yield(ctx: _Ctx, file: str, data: Any) -> None:
    ctx.count("cooking_yields")
    try:
        y = CookingYield.model_validate(data)
    except ValidationError as err:
        for e in err.errors():
            ctx.err(file, ".".join(str(p) for p in e["loc"]), e["msg"])
        return
    if DEVICE_RECIPE_TYPE[y.device] != y.recipe_type:
        ctx.err(file, "recipe_type", f"{y.device} cooks {DEVICE_RECIPE_TYPE[y.device]}, not {y.recipe_type}")
    item, count = y.result.get("item"), y.result.get("count")
    if not _item_ok(item):
        ctx.err(file, "result.item", f"unknown item {item!r}")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 64:
        ctx.err(file, "result.count", f"count must be an integer 1..64, got {count!r}")
    if set(y.result) - {"item", "count"}:
        ctx.err(file, "result", f"unexpected keys {sorted(set(y.result) - {'item', 'count'})}")
    if not _item_ok(y.input):
        ctx.err(file, "input", f"unknown item {y.input!r}")
    recipe = _recipe_json(ctx, y.recipe)
    if recipe is None:
        ctx.err(file, "recipe", f"recipe {y.recipe} exists neither in this pack nor in vanilla")
        return
    if _ns(str(recipe.get("type"))) != y.recipe_type:
        ctx.err(file, "recipe", f"recipe {y.recipe} is {recipe.get('type')!r}, not {y.recipe_type}")
    if recipe.get("result") != item:
        ctx.err(file, "result.item", f"recipe {y.recipe} gives {recipe.get('result')!r}, not {item!r}")
    ing = recipe.get("ingredient")
    accepted: set[str] = set()
    for alt in ing if isinstance(ing, list) else [ing]:
        if isinstance(alt, dict) and "item" in alt:
            accepted.add(alt["item"])
        elif isinstance(alt, dict) and "tag" in alt and _item_tag_ok(ctx, alt["tag"]):
            accepted |= set(gamedata.tag("item", alt["tag"]))
    if y.input not in accepted:
        ctx.err(file, "input", f"recipe {y.recipe} does not cook {y.input}")


def _rule_index(ctx: _Ctx, file: str, data: Any) -> None:
    try:
        idx = RuleIndex.model_validate(data)
    except ValidationError as err:
        for e in err.errors():
            ctx.err(file, ".".join(str(p) for p in e["loc"]), e["msg"])
        return
    present = {resource_location(p) for p in ctx.files if p.startswith("data/") and p.count("/") >= 3}
    for loc, ids in idx.resources.items():
        if loc not in present:
            ctx.err(file, f"resources.{loc}", "indexed resource is not in the pack")
        for i, rid in enumerate(ids):
            if not RULE_ID_RE.match(rid) or not rid.startswith(f"{idx.suite}."):
                ctx.err(file, f"resources.{loc}[{i}]", f"{rid!r} is not a rule id of suite {idx.suite}")


# --------------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------------


def audit_files(files: dict[str, bytes], *, name: str = "<pack>", allow_display: bool = False) -> AuditReport:
    """Audit a pack given as ``{path inside the pack: bytes}`` (see :func:`audit_pack`)."""
    ctx = _Ctx(files, allow_display)
    # Pass 1: parse JSON, check names, and collect what the pack defines.
    for path, raw in sorted(files.items()):
        parts = path.split("/")
        if path in _ROOT_FILES:
            pass
        elif parts[0] != "data" or len(parts) < 4:
            ctx.warn(path, "", "not part of a data pack (ignored by the server)")
            continue
        else:
            ns = parts[1]
            if not _NS_RE.match(ns):
                ctx.err(path, "", f"invalid namespace {ns!r} (allowed: a-z 0-9 _ . -)")
            if not _PATH_RE.match("/".join(parts[2:])):
                ctx.err(path, "", "invalid resource path (allowed: a-z 0-9 _ . - /)")
        if path.endswith((".json", ".mcmeta")):
            ctx.count("json_files")
            try:
                ctx.json[path] = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                ctx.err(path, "", f"not UTF-8: {err}")
            except json.JSONDecodeError as err:
                ctx.err(path, f"line {err.lineno} column {err.colno}", f"invalid JSON: {err.msg}")
        if len(parts) >= 4 and parts[0] == "data":
            loc = resource_location(path)
            kind = parts[2]
            if kind == "functions" and path.endswith(".mcfunction"):
                ctx.functions.add(loc.replace("functions/", "", 1))
            elif kind == "loot_tables":
                ctx.loot_tables.add(loc.replace("loot_tables/", "", 1))
            elif kind == "recipes":
                ctx.recipes.add(loc.replace("recipes/", "", 1))
            elif kind == "tags" and len(parts) >= 5:
                tag_id = f"{parts[1]}:{'/'.join(parts[4:]).removesuffix('.json')}"
                kinds = {
                    "items": ctx.pack_item_tags,
                    "blocks": ctx.pack_block_tags,
                    "functions": ctx.function_tags,
                }
                kinds.get(parts[3], set()).add(tag_id)
    ctx.counts["files"] = len(files)
    # pack.mcmeta
    meta = ctx.json.get("pack.mcmeta")
    if "pack.mcmeta" not in files:
        ctx.err("pack.mcmeta", "", "missing: a data pack needs pack.mcmeta at its root")
    elif isinstance(meta, dict):
        pack = meta.get("pack")
        if not isinstance(pack, dict):
            ctx.err("pack.mcmeta", "pack", "missing 'pack' object")
        else:
            if pack.get("pack_format") != PACK_FORMAT:
                ctx.err(
                    "pack.mcmeta",
                    "pack.pack_format",
                    f"pack_format must be {PACK_FORMAT} (Java 1.19-1.19.3), got {pack.get('pack_format')!r}",
                )
            if "description" not in pack:
                ctx.err("pack.mcmeta", "pack.description", "missing description")
    elif "pack.mcmeta" in ctx.json:
        ctx.err("pack.mcmeta", "", "pack.mcmeta must be a JSON object")
    # Pass 2: per-kind checks.
    for path, raw in sorted(files.items()):
        parts = path.split("/")
        if parts[0] != "data" or len(parts) < 4:
            continue
        kind = parts[2]
        if path.endswith(".json") and path not in ctx.json:
            continue  # JSON error already reported
        data = ctx.json.get(path)
        if kind == "recipes" and path.endswith(".json"):
            _recipe(ctx, path, data)
        elif kind == "loot_tables" and path.endswith(".json"):
            _loot_table(ctx, path, resource_location(path), data)
        elif kind == "functions" and path.endswith(".mcfunction"):
            _function(ctx, path, raw)
        elif kind == "tags" and len(parts) >= 5 and path.endswith(".json"):
            _tag(ctx, path, parts[3], data)
        elif kind == "advancements" and path.endswith(".json"):
            _advancement(ctx, path, data)
        elif kind in ("worldgen", "dimension", "dimension_type"):
            ctx.count(
                "worldgen"
            )  # JSON validity only; datapacks.biome_pack.audit_biome_files checks references
        elif parts[1] == NAMESPACE and kind == "cooking_yields":
            _cooking_yield(ctx, path, data)
        elif parts[1] == NAMESPACE and kind == "rules" and parts[3] == "index.json":
            _rule_index(ctx, path, data)
        elif parts[1] == NAMESPACE:
            ctx.warn(path, "", f"unknown mirrorcraft resource kind {kind!r}")
        else:
            ctx.count("other")
    return AuditReport(
        pack=name, errors=ctx.errors, warnings=ctx.warnings, counts=dict(sorted(ctx.counts.items()))
    )


def audit_pack(path: str | Path, *, allow_display: bool = False) -> AuditReport:
    """Statically audit a datapack (``.zip`` or folder).

    Args:
        path: The pack.
        allow_display: Accept advancements with a ``display`` (true for the vendored vanilla pack, whose
            story advancements are the milestones; never for a rule pack).

    Returns:
        The :class:`AuditReport` (``report.ok`` when there are no errors).

    Raises:
        DatapackError: the path is neither a folder nor a readable zip.
    """
    files = read_pack_files(path)
    if not files:
        raise DatapackError(f"{path}: the pack is empty")
    return audit_files(files, name=str(path), allow_display=allow_display)
