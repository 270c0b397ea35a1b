"""Advancement definitions: parsing ``data/<ns>/advancements/**`` as vanilla 1.19.2 does.

Why apart from :mod:`~mirrorcraft.rules.advancements` (per-player progress): the datapack set parses every
advancement when it loads, and progress needs the loaded set; keeping the definitions below the set keeps
the imports one way.

Vanilla behaviour followed (``Advancement.Builder.fromJson``, ``CriteriaTriggers``; wiki
"Advancement/JSON format"):

* ``requirements`` is an AND of OR-groups of criterion names; when absent every criterion is its own
  group (all required). A requirement naming an unknown criterion, or a criterion in no group, is an error.
* An advancement is done when every group has at least one obtained criterion.
* Triggers that fire here (:data:`ACTIVE_TRIGGERS`): ``inventory_changed`` (``items`` predicates with
  ``items``/``tag``/``count``/``enchantments``; ``slots`` ``occupied``/``full``/``empty`` bounds),
  ``enchanted_item`` (``item`` predicate, ``levels`` bounds), ``tick`` and ``impossible``. Every other
  1.19.2 trigger (:data:`PASSIVE_TRIGGERS`) is parsed and never fires; an unknown trigger is an error.
  ``player`` conditions are accepted only empty (they would need entity predicates).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.rules.packs import DEFAULT_NAMESPACE, JsonAt
from mirrorcraft.rules.predicates import Bounds, ItemPredicate, parse_bounds, parse_item_predicate

__all__ = [
    "ACTIVE_TRIGGERS",
    "FRAMES",
    "PASSIVE_TRIGGERS",
    "AdvancementDef",
    "Criterion",
    "ItemView",
    "parse_advancement",
]

#: Triggers this engine fires.
ACTIVE_TRIGGERS = frozenset({"inventory_changed", "enchanted_item", "tick", "impossible"})
#: The rest of vanilla 1.19.2's ``CriteriaTriggers``: parsed, never fired here.
PASSIVE_TRIGGERS = frozenset(
    {
        "player_killed_entity", "entity_killed_player", "enter_block", "recipe_unlocked",
        "player_hurt_entity", "entity_hurt_player", "filled_bucket", "brewed_potion", "construct_beacon",
        "used_ender_eye", "summoned_entity", "bred_animals", "location", "slept_in_bed",
        "cured_zombie_villager", "villager_trade", "item_durability_changed", "levitation",
        "changed_dimension", "tame_animal", "placed_block", "consume_item", "effects_changed", "used_totem",
        "nether_travel", "fishing_rod_hooked", "channeled_lightning", "shot_crossbow", "killed_by_crossbow",
        "hero_of_the_village", "voluntary_exile", "slide_down_block", "bee_nest_destroyed", "target_hit",
        "item_used_on_block", "player_generates_container_loot", "thrown_item_picked_up_by_entity",
        "thrown_item_picked_up_by_player", "player_interacted_with_entity", "started_riding",
        "lightning_strike", "using_item", "fall_from_height", "ride_entity_in_lava",
        "kill_mob_near_sculk_catalyst", "allay_drop_item_on_block", "avoid_vibration",
    }
)  # fmt: skip
#: Display frames and their packet ids.
FRAMES = {"task": 0, "challenge": 1, "goal": 2}
_PLAYER_FIELD = "player"  # the criterion-conditions key of an entity predicate on the player
_SLOT_COUNTS = ("occupied", "full", "empty")


@dataclass(frozen=True)
class ItemView:
    """An item stack as predicates see it."""

    item: str
    count: int = 1
    enchantments: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Criterion:
    """One criterion: its trigger (path of a vanilla trigger id) and compiled conditions.

    ``tags`` resolves the item tags its predicates name (the loaded packs' tags when parsed).
    """

    name: str
    trigger: str
    items: tuple[ItemPredicate, ...] = ()
    slots: tuple[tuple[str, Bounds], ...] = ()
    item: ItemPredicate | None = None
    levels: Bounds | None = None
    tags: Mapping[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def active(self) -> bool:
        """Whether this engine can fire the criterion."""
        return self.trigger in ACTIVE_TRIGGERS and self.trigger != "impossible"

    def item_matches(self, predicate: ItemPredicate, stack: ItemView) -> bool:
        """Whether ``stack`` passes one of this criterion's item predicates."""
        return predicate.matches(
            stack.item, stack.count, stack.enchantments, lambda t: self.tags.get(t, frozenset())
        )


@dataclass(frozen=True)
class AdvancementDef:
    """One advancement as loaded.

    Attributes:
        id: Resource location (``<ns>:story/mine_stone``).
        parent: Parent id or ``None`` for a root.
        display: The raw ``display`` object (``None``: invisible, e.g. recipe advancements).
        criteria: Name → criterion.
        requirements: AND of OR-groups of criterion names.
        source: The file it came from.
    """

    id: str
    parent: str | None
    display: Mapping[str, Any] | None
    criteria: Mapping[str, Criterion]
    requirements: tuple[tuple[str, ...], ...]
    source: str

    def done(self, obtained: Iterable[str]) -> bool:
        """Whether the obtained criterion names satisfy the requirements."""
        have = set(obtained)
        return bool(self.requirements) and all(any(c in have for c in group) for group in self.requirements)


def _criterion(name: str, value: Any, at: JsonAt, tags: Mapping[str, frozenset[str]]) -> Criterion:
    obj = at.obj(value)
    trigger = at.key("trigger").res(at.required(obj, "trigger"))
    ns, _, path = trigger.partition(":")
    if ns != DEFAULT_NAMESPACE or path not in ACTIVE_TRIGGERS | PASSIVE_TRIGGERS:
        raise at.key("trigger").fail(f"unknown criterion trigger {trigger!r}")
    c_at = at.key("conditions")
    cond = c_at.obj(obj.get("conditions", {}))
    if path not in ACTIVE_TRIGGERS:
        return Criterion(name, path)
    if cond.get(_PLAYER_FIELD) not in (None, {}, []):
        raise c_at.key(_PLAYER_FIELD).fail("player conditions are not supported by this engine")
    if path == "inventory_changed":
        i_at = c_at.key("items")
        items = tuple(
            i_at.each(i_at.list(cond.get("items", [])), lambda v, a: parse_item_predicate(v, a, tags))
        )
        s_at = c_at.key("slots")
        slots = []
        for key, raw in sorted(s_at.obj(cond.get("slots", {})).items()):
            if key not in _SLOT_COUNTS:
                raise s_at.key(key).fail("expected occupied, full or empty")
            slots.append((key, parse_bounds(raw, s_at.key(key))))
        return Criterion(name, path, items=items, slots=tuple(slots), tags=tags)
    if path == "enchanted_item":
        item = parse_item_predicate(cond["item"], c_at.key("item"), tags) if "item" in cond else None
        levels = parse_bounds(cond["levels"], c_at.key("levels")) if "levels" in cond else None
        return Criterion(name, path, item=item, levels=levels, tags=tags)
    return Criterion(name, path)


def parse_advancement(
    location: str, data: Any, source: str | JsonAt, item_tags: Mapping[str, frozenset[str]]
) -> AdvancementDef:
    """Compile one advancement file (``source``: the file, or a :class:`JsonAt` at its root).

    Raises:
        JsonError: Unknown trigger, unknown item/tag, malformed criteria/requirements/display; the
            message names the file and the field.
    """
    at = source if isinstance(source, JsonAt) else JsonAt(source)
    obj = at.obj(data)
    parent = at.key("parent").res(obj["parent"]) if "parent" in obj else None
    cr_at = at.key("criteria")
    raw_criteria = cr_at.obj(at.required(obj, "criteria"))
    if not raw_criteria:
        raise cr_at.fail("an advancement needs at least one criterion")
    criteria = {n: _criterion(n, v, cr_at.key(n), item_tags) for n, v in raw_criteria.items()}
    r_at = at.key("requirements")
    if "requirements" in obj:
        groups = []
        for i, g in enumerate(r_at.list(obj["requirements"])):
            names = tuple(r_at.idx(i).idx(j).str(n) for j, n in enumerate(r_at.idx(i).list(g)))
            for j, n in enumerate(names):
                if n not in criteria:
                    raise r_at.idx(i).idx(j).fail(f"unknown required criterion {n!r}")
            groups.append(names)
        requirements = tuple(groups)
    else:
        requirements = tuple((n,) for n in criteria)
    required = {n for g in requirements for n in g}
    for n in criteria:
        if n not in required:
            raise cr_at.key(n).fail("criterion is in no requirement group (vanilla requires every criterion)")
    display = None
    if "display" in obj:
        d_at = at.key("display")
        display = d_at.obj(obj["display"])
        icon = d_at.key("icon").obj(d_at.required(display, "icon"))
        d_at.key("icon").key("item").known(d_at.key("icon").required(icon, "item"), "item")
        d_at.required(display, "title")
        d_at.required(display, "description")
        frame = display.get("frame", "task")
        if frame not in FRAMES:
            raise d_at.key("frame").fail(f"unknown frame {frame!r}; expected one of {sorted(FRAMES)}")
    return AdvancementDef(location, parent, display, criteria, requirements, at.source)
