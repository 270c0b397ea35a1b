"""The two Mirror-pack files vanilla ignores, each with one schema: cooking-yield sidecars and the rule index.

Why one schema each: the compiler writes these files, the datapack set reads them for the embedded server,
and the audit checks them; three hand-kept copies of a format drift. Each record here parses its JSON (every
problem names the file and the field, :class:`~mirrorcraft.rules.packs.JsonAt`) and writes it back
(:meth:`CookingYield.to_json`, :meth:`RuleIndex.to_json`).

* ``data/mirrorcraft/cooking_yields/<device>_<input>.json`` (docs/smelting_yields.md, format 1): a cooking
  recipe's result count, which 1.19's recipe format cannot express.
* ``data/mirrorcraft/rules/index.json`` (docs/datapacks.md, format 1): resource location → the rule ids that
  wrote it, so every outcome traces back to its rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.contracts.rules import RULE_ID_RE
from mirrorcraft.rules.devices import YIELD_DEVICES
from mirrorcraft.rules.packs import MIRROR_NAMESPACE, JsonAt

__all__ = ["INDEX_PATH", "RULE_FIELD", "YIELD_FOLDER", "CookingYield", "RuleIndex", "parse_rule_field"]

#: Where a pack keeps its rule index.
INDEX_PATH = f"data/{MIRROR_NAMESPACE}/rules/index.json"
#: The folder of cooking-yield sidecars.
YIELD_FOLDER = f"data/{MIRROR_NAMESPACE}/cooking_yields/"
#: The unknown-but-tolerated field in which a Mirror pack's recipes and loot tables carry their rule id(s)
#: (vanilla's deserializers read their known keys and ignore the rest).
RULE_FIELD = f"{MIRROR_NAMESPACE}:rule"
_YIELD_KEYS = ("format", "device", "recipe_type", "recipe", "input", "result", "rule")
_INDEX_KEYS = ("format", "suite", "resources")


def _known_keys(obj: Mapping[str, Any], keys: tuple[str, ...], at: JsonAt) -> None:
    for name in sorted(set(obj) - set(keys)):
        at.key(name).check(False, f"unknown field (allowed: {sorted(keys)})")


def _rule_id(value: Any, at: JsonAt) -> str:
    """A manifest rule id (``M01.log_yields_two_planks``)."""
    text = at.str(value)
    if not RULE_ID_RE.match(text):
        raise at.fail(f"not a rule id: {text!r}")
    return text


def parse_rule_field(obj: Mapping[str, Any], at: JsonAt) -> tuple[str, ...]:
    """The rule ids in a recipe's or loot table's :data:`RULE_FIELD` (a string or a list; none if absent)."""
    raw = obj.get(RULE_FIELD)
    if raw is None:
        return ()
    r_at = at.key(RULE_FIELD)
    if isinstance(raw, str):
        return (_rule_id(raw, r_at),)
    return tuple(r_at.each(r_at.list(raw), _rule_id))


def _format_1(obj: Mapping[str, Any], at: JsonAt, what: str) -> None:
    fmt = at.key("format").int(at.required(obj, "format"))
    if fmt != 1:
        raise at.key("format").fail(f"unsupported {what} format {fmt!r} (only 1)")


@dataclass(frozen=True)
class CookingYield:
    """A cooking-yield sidecar.

    Attributes:
        location: The sidecar's own resource location (``mirrorcraft:furnace_raw_iron``).
        device: ``furnace`` or ``blast_furnace`` (:data:`~mirrorcraft.rules.devices.YIELD_DEVICES`).
        recipe_type: The recipe type the device runs (namespaced).
        recipe: The recipe id the yield belongs to; it applies only when that recipe is the one matched.
        input: The ingredient item.
        item: The result item (equal to the recipe's result).
        count: Items produced per input item cooked (1..64).
        rule: The manifest rule id.
        source: The file it was read from (empty for one built in code).
    """

    location: str
    device: str
    recipe_type: str
    recipe: str
    input: str
    item: str
    count: int
    rule: str
    source: str = ""

    @classmethod
    def parse(cls, location: str, data: Any, at: JsonAt) -> CookingYield:
        """Read one sidecar.

        Raises:
            JsonError: A malformed sidecar (strict); when collecting, soft problems are recorded and the
                record is still returned.
        """
        obj = at.obj(data)
        _known_keys(obj, _YIELD_KEYS, at)
        _format_1(obj, at, "sidecar")
        device = at.key("device").str(at.required(obj, "device"))
        at.key("device").check(
            device in YIELD_DEVICES, f"unknown device {device!r}; expected one of {sorted(YIELD_DEVICES)}"
        )
        rtype = at.key("recipe_type").res(at.required(obj, "recipe_type"))
        if device in YIELD_DEVICES:
            at.key("recipe_type").check(
                rtype == YIELD_DEVICES[device], f"{rtype!r} does not match device {device!r}"
            )
        r_at = at.key("result")
        result = r_at.obj(at.required(obj, "result"))
        r_at.check(
            set(result) == {"item", "count"},
            f"expected exactly the fields 'item' and 'count', got {sorted(result)}",
        )
        count = r_at.key("count").int(r_at.required(result, "count"))
        r_at.key("count").check(1 <= count <= 64, f"count {count} is outside 1..64")
        return cls(
            location=location,
            device=device,
            recipe_type=rtype,
            recipe=at.key("recipe").res(at.required(obj, "recipe")),
            input=at.key("input").res(at.required(obj, "input")),
            item=r_at.key("item").res(r_at.required(result, "item")),
            count=count,
            rule=_rule_id(at.required(obj, "rule"), at.key("rule")),
            source=at.source,
        )

    def to_json(self) -> dict[str, Any]:
        """The sidecar file's content (what the compiler writes)."""
        return {
            "format": 1,
            "device": self.device,
            "recipe_type": self.recipe_type,
            "recipe": self.recipe,
            "input": self.input,
            "result": {"item": self.item, "count": self.count},
            "rule": self.rule,
        }


@dataclass(frozen=True)
class RuleIndex:
    """A pack's rule index.

    Attributes:
        suite: The suite that wrote the pack.
        resources: Resource location (``minecraft:recipes/stick``) → rule ids.
        source: The file it was read from (empty for one built in code).
    """

    suite: str
    resources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    source: str = ""

    @classmethod
    def parse(cls, data: Any, at: JsonAt) -> RuleIndex:
        """Read a rule index.

        Raises:
            JsonError: A malformed index.
        """
        obj = at.obj(data)
        _known_keys(obj, _INDEX_KEYS, at)
        _format_1(obj, at, "rule index")
        suite = at.key("suite").str(at.required(obj, "suite"))
        res_at = at.key("resources")
        resources = res_at.obj(at.required(obj, "resources"))

        def of_suite(value: Any, i_at: JsonAt) -> str:
            rid = _rule_id(value, i_at)
            i_at.check(rid.startswith(f"{suite}."), f"{rid!r} is not a rule id of suite {suite}")
            return rid

        out = res_at.each_key(resources, lambda ids, l_at: tuple(l_at.each(l_at.list(ids), of_suite)))
        return cls(suite, out, at.source)

    def to_json(self) -> dict[str, Any]:
        """The index file's content (what the compiler writes): sorted resources, sorted ids."""
        return {
            "format": 1,
            "suite": self.suite,
            "resources": {k: sorted(v) for k, v in sorted(self.resources.items())},
        }
