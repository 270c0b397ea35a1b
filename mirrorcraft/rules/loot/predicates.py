"""The predicates only loot conditions use: entity predicates and block-state matchers.

(Item, enchantment and bounds predicates are shared with advancements: :mod:`mirrorcraft.rules.predicates`.)
Entity predicates support ``type`` and the ``flags`` object; anything else raises when loaded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mirrorcraft.rules.loot.context import EntityView
from mirrorcraft.rules.packs import JsonAt

__all__ = ["EntityPredicate", "StateMatcher", "parse_entity_predicate", "parse_state_predicate"]

_ENTITY_FLAGS = {
    "is_on_fire": "on_fire",
    "is_sneaking": "sneaking",
    "is_sprinting": "sprinting",
    "is_swimming": "swimming",
    "is_baby": "baby",
}


@dataclass(frozen=True)
class EntityPredicate:
    """``EntityPredicate`` limited to ``type`` and ``flags``."""

    type: str | None
    flags: tuple[tuple[str, bool], ...]

    def matches(self, entity: EntityView) -> bool:
        if self.type is not None and entity.type != self.type:
            return False
        return all(getattr(entity, attr) == wanted for attr, wanted in self.flags)


def parse_entity_predicate(value: Any, at: JsonAt) -> EntityPredicate:
    """Read an entity predicate (an unknown entity type is an error, as in vanilla)."""
    obj = at.obj(value)
    for name in obj:
        if name not in ("type", "flags"):
            raise at.key(name).fail(f"entity predicate field {name!r} is not supported by this interpreter")
    etype = None
    if "type" in obj:
        text = at.key("type").str(obj["type"])
        if text.startswith("#"):
            raise at.key("type").fail("entity type tags are not supported by this interpreter")
        etype = at.key("type").known(text, "entity type")
    flags: list[tuple[str, bool]] = []
    f_at = at.key("flags")
    for name, wanted in f_at.obj(obj.get("flags", {})).items():
        if name not in _ENTITY_FLAGS:
            raise f_at.key(name).fail(f"unknown entity flag {name!r}")
        flags.append((_ENTITY_FLAGS[name], f_at.key(name).bool(wanted)))
    return EntityPredicate(etype, tuple(flags))


@dataclass(frozen=True)
class StateMatcher:
    """One property of a ``StatePropertiesPredicate``: an exact value or a range."""

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


def _scalar_text(value: Any, at: JsonAt) -> str:
    # StatePropertiesPredicate reads values with getAsString: true → "true", 3 → "3".
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return at.str(value)


def parse_state_predicate(value: Any, at: JsonAt) -> tuple[StateMatcher, ...]:
    """Read a state-properties object (property → value, or ``{"min", "max"}``)."""
    matchers = []
    for name, raw in at.obj(value).items():
        m_at = at.key(name)
        if isinstance(raw, dict):
            low = _scalar_text(raw["min"], m_at.key("min")) if "min" in raw else None
            high = _scalar_text(raw["max"], m_at.key("max")) if "max" in raw else None
            matchers.append(StateMatcher(name, None, low, high))
        else:
            matchers.append(StateMatcher(name, _scalar_text(raw, m_at), None, None))
    return tuple(matchers)
