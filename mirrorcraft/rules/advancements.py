"""Advancements: loading them from the datapacks, per-player progress, criteria triggers and the tab layout
(the ``advancements`` packet itself is built by the server: ``mirrorcraft.server.wire.advancements``).

Why: the benchmark's milestones *are* the story advancements (spec: "completion is verified by the
server"), so the embedded server grants them the way vanilla 1.19.2 does, from the advancement JSON of the
loaded packs (``data/<ns>/advancements/**``), not from a list of items in code.

Vanilla behaviour followed (``Advancement.Builder.fromJson``, ``PlayerAdvancements``, ``CriteriaTriggers``;
wiki "Advancement/JSON format"):

* ``requirements`` is an AND of OR-groups of criterion names; when absent every criterion is its own
  group (all required). A requirement naming an unknown criterion, or a criterion in no group, is an error.
* An advancement is done when every group has at least one obtained criterion. Parents do **not** gate
  granting (vanilla grants a child whose parent is not done); they shape the tree and its visibility.
* Visibility (``PlayerAdvancements.shouldBeVisible``): shown if it or a descendant is done, or if it,
  its parent or grandparent is done, stopping at a hidden or display-less advancement.
* Triggers that fire here: ``inventory_changed`` (``items`` predicates with ``items``/``tag``/``count``/
  ``enchantments``; ``slots`` ``occupied``/``full``/``empty`` bounds; with one predicate only the changed
  stack is tested, with several every predicate must match some stack in the inventory, as vanilla),
  ``enchanted_item`` (``item`` predicate, ``levels`` bounds), ``tick`` and ``impossible`` (never fires on
  its own; ``/advancement grant`` uses :meth:`PlayerAdvancements.award`).
  Every other 1.19.2 trigger (:data:`PASSIVE_TRIGGERS`, e.g. ``changed_dimension``, ``location``,
  ``entity_hurt_player``, ``cured_zombie_villager``) is parsed and never fires; an unknown trigger is an
  error. ``player`` conditions are accepted only empty (they would need entity predicates).

The packet's ``x``/``y`` come from vanilla's ``TreeNodePosition`` algorithm (:func:`layout_tree`, the
Buchheim-Juenger-Leipert form of Walker's tidy tree); children are ordered by id where vanilla uses its
load order. Partial: rewards (recipes, loot, experience, functions) are not given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.errors import ContractError, GameDataError
from mirrorcraft.rules.datapacks import DatapackSet, JsonAt, item_exists

__all__ = [
    "ACTIVE_TRIGGERS",
    "PASSIVE_TRIGGERS",
    "AdvancementDef",
    "Criterion",
    "ItemView",
    "PlayerAdvancements",
    "layout_tree",
    "parse_advancement",
]

_NS = "minecraft"
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
_FRAMES = {"task": 0, "challenge": 1, "goal": 2}
_UNSUPPORTED_ITEM_FIELDS = ("durability", "stored_enchantments", "potion", "nbt")
_INVENTORY_SIZE = 41  # Inventory.getContainerSize(): 36 + 4 armour + offhand


# --------------------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemView:
    """An item stack as predicates see it."""

    item: str
    count: int = 1
    enchantments: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Bounds:
    low: float | None
    high: float | None

    def matches(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def _bounds(value: Any, at: JsonAt) -> _Bounds:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _Bounds(float(value), float(value))
    obj = at.obj(value)
    return _Bounds(
        at.key("min").num(obj["min"]) if "min" in obj else None,
        at.key("max").num(obj["max"]) if "max" in obj else None,
    )


@dataclass(frozen=True)
class _ItemPredicate:
    items: frozenset[str] | None
    tag: frozenset[str] | None
    count: _Bounds | None
    enchantments: tuple[tuple[str | None, _Bounds | None], ...]

    def matches(self, stack: ItemView) -> bool:
        if self.items is not None and stack.item not in self.items:
            return False
        if self.tag is not None and stack.item not in self.tag:
            return False
        if self.count is not None and not self.count.matches(stack.count):
            return False
        for name, levels in self.enchantments:  # EnchantmentPredicate.containedIn
            if name is not None:
                if name not in stack.enchantments:
                    return False
                if levels is not None and not levels.matches(stack.enchantments[name]):
                    return False
            elif levels is not None and not any(levels.matches(v) for v in stack.enchantments.values()):
                return False
        return True


def _item_predicate(value: Any, at: JsonAt, tags: Mapping[str, frozenset[str]]) -> _ItemPredicate:
    obj = at.obj(value)
    for name in _UNSUPPORTED_ITEM_FIELDS:
        if name in obj:
            raise at.key(name).fail(f"item predicate field {name!r} is not supported by this engine")
    items = None
    if "items" in obj:
        i_at = at.key("items")
        items = set()
        for i, raw in enumerate(i_at.list(obj["items"])):
            name = i_at.idx(i).res(raw)
            if not item_exists(name):
                raise i_at.idx(i).fail(f"unknown item {name!r} (1.19.2)")
            items.add(name)
        items = frozenset(items)
    tag = None
    if "tag" in obj:
        tag_id = at.key("tag").res(obj["tag"])
        if tag_id not in tags:
            raise at.key("tag").fail(f"unknown item tag #{tag_id}")
        tag = tags[tag_id]
    enchants = []
    e_at = at.key("enchantments")
    for i, raw in enumerate(e_at.list(obj.get("enchantments", []))):
        one = e_at.idx(i).obj(raw)
        name = e_at.idx(i).key("enchantment").res(one["enchantment"]) if "enchantment" in one else None
        levels = _bounds(one["levels"], e_at.idx(i).key("levels")) if "levels" in one else None
        enchants.append((name, levels))
    count = _bounds(obj["count"], at.key("count")) if "count" in obj else None
    return _ItemPredicate(items, tag, count, tuple(enchants))


# --------------------------------------------------------------------------------------------------
# Definitions
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Criterion:
    """One criterion: its trigger (path of a vanilla trigger id) and compiled conditions."""

    name: str
    trigger: str
    items: tuple[_ItemPredicate, ...] = ()
    slots: tuple[tuple[str, _Bounds], ...] = ()
    item: _ItemPredicate | None = None
    levels: _Bounds | None = None

    @property
    def active(self) -> bool:
        """Whether this engine can fire the criterion."""
        return self.trigger in ACTIVE_TRIGGERS and self.trigger != "impossible"


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
    if ns != _NS or path not in ACTIVE_TRIGGERS | PASSIVE_TRIGGERS:
        raise at.key("trigger").fail(f"unknown criterion trigger {trigger!r}")
    c_at = at.key("conditions")
    cond = c_at.obj(obj.get("conditions", {}))
    if path not in ACTIVE_TRIGGERS:
        return Criterion(name, path)
    if cond.get("player") not in (None, {}, []):
        raise c_at.key("player").fail("player conditions are not supported by this engine")
    if path == "inventory_changed":
        i_at = c_at.key("items")
        items = tuple(
            _item_predicate(v, i_at.idx(i), tags) for i, v in enumerate(i_at.list(cond.get("items", [])))
        )
        s_at = c_at.key("slots")
        slots_raw = s_at.obj(cond.get("slots", {}))
        slots = []
        for key, raw in sorted(slots_raw.items()):
            if key not in ("occupied", "full", "empty"):
                raise s_at.key(key).fail("expected occupied, full or empty")
            slots.append((key, _bounds(raw, s_at.key(key))))
        return Criterion(name, path, items=items, slots=tuple(slots))
    if path == "enchanted_item":
        item = _item_predicate(cond["item"], c_at.key("item"), tags) if "item" in cond else None
        levels = _bounds(cond["levels"], c_at.key("levels")) if "levels" in cond else None
        return Criterion(name, path, item=item, levels=levels)
    return Criterion(name, path)


def parse_advancement(
    location: str, data: Any, source: str, item_tags: Mapping[str, frozenset[str]]
) -> AdvancementDef:
    """Compile one advancement file.

    Raises:
        DatapackError: Unknown trigger, unknown item/tag, malformed criteria/requirements/display; the
            message names the file and the field.
    """
    at = JsonAt(source)
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
        icon_item = d_at.key("icon").key("item").res(d_at.key("icon").required(icon, "item"))
        if not item_exists(icon_item):
            raise d_at.key("icon").key("item").fail(f"unknown item {icon_item!r} (1.19.2)")
        d_at.required(display, "title")
        d_at.required(display, "description")
        frame = display.get("frame", "task")
        if frame not in _FRAMES:
            raise d_at.key("frame").fail(f"unknown frame {frame!r}; expected one of {sorted(_FRAMES)}")
    return AdvancementDef(location, parent, display, criteria, requirements, source)


# --------------------------------------------------------------------------------------------------
# Per-player progress
# --------------------------------------------------------------------------------------------------


class PlayerAdvancements:
    """One player's advancement progress (criterion → the tick it was obtained).

    Args:
        packs: The loaded packs (their advancements).
        progress: Saved progress to start from (advancement → criterion → tick).
    """

    def __init__(self, packs: DatapackSet, progress: Mapping[str, Mapping[str, int]] | None = None) -> None:
        self.defs = dict(packs.advancements)
        self.progress: dict[str, dict[str, int]] = {a: {} for a in self.defs}
        for adv, crits in (progress or {}).items():
            if adv in self.defs:
                self.progress[adv].update({c: t for c, t in crits.items() if c in self.defs[adv].criteria})
        self.children: dict[str, list[str]] = {a: [] for a in self.defs}
        for a in sorted(self.defs):
            parent = self.defs[a].parent
            if parent is not None:
                self.children[parent].append(a)
        self._by_trigger: dict[str, list[tuple[str, Criterion]]] = {}
        for a in sorted(self.defs):
            for c in self.defs[a].criteria.values():
                self._by_trigger.setdefault(c.trigger, []).append((a, c))
        self.completed: dict[str, int] = {a: self._done_tick(a) for a in self.defs if self.is_done(a)}

    # -- state --------------------------------------------------------------------------------------
    def is_done(self, adv: str) -> bool:
        """Whether ``adv`` is complete."""
        return self.defs[adv].done(self.progress[adv])

    def _done_tick(self, adv: str) -> int:
        return max(self.progress[adv].values(), default=0)

    def done(self) -> list[str]:
        """Completed advancement ids, in order of completion (then id)."""
        return sorted(self.completed, key=lambda a: (self.completed[a], a))

    def award(self, adv: str, criterion: str, tick: int) -> bool:
        """Grant one criterion (vanilla ``PlayerAdvancements.award``).

        Returns:
            True if this completed the advancement.

        Raises:
            ContractError: Unknown advancement or criterion.
        """
        d = self.defs.get(adv)
        if d is None or criterion not in d.criteria:
            raise ContractError(f"no criterion {criterion!r} of advancement {adv!r}")
        was = adv in self.completed
        if criterion in self.progress[adv]:
            return False
        self.progress[adv][criterion] = tick
        if not was and self.is_done(adv):
            self.completed[adv] = tick
            return True
        return False

    def revoke(self, adv: str) -> None:
        """Forget all progress of ``adv`` (``/advancement revoke``)."""
        self.progress[adv] = {}
        self.completed.pop(adv, None)

    # -- triggers -----------------------------------------------------------------------------------
    def _fire(self, trigger: str, tick: int, test: Any) -> list[str]:
        newly = []
        for adv, crit in self._by_trigger.get(trigger, ()):
            if crit.name in self.progress[adv] or adv in self.completed:
                continue
            if test(crit) and self.award(adv, crit.name, tick):
                newly.append(adv)
        return newly

    def inventory_changed(
        self, inventory: Sequence[ItemView | None], changed: ItemView | None, tick: int
    ) -> list[str]:
        """Fire ``inventory_changed`` (vanilla ``InventoryChangeTrigger``).

        Args:
            inventory: Every slot of the player's inventory (``None`` = empty); 41 slots in vanilla.
            changed: The stack that changed (``None`` when a slot was emptied).
            tick: Server tick (stored as the criterion's time).

        Returns:
            Advancements this completed.
        """
        full = sum(1 for s in inventory if s is not None and s.count >= _stack_size(s.item))
        empty = sum(1 for s in inventory if s is None) + max(0, _INVENTORY_SIZE - len(inventory))
        occupied = sum(1 for s in inventory if s is not None)
        counts = {"full": full, "empty": empty, "occupied": occupied}

        def test(c: Criterion) -> bool:
            if not all(b.matches(counts[k]) for k, b in c.slots):
                return False
            if not c.items:
                return True
            if len(c.items) == 1:
                return changed is not None and c.items[0].matches(changed)
            left = list(c.items)
            for stack in inventory:
                if not left:
                    break
                if stack is not None:
                    left = [p for p in left if not p.matches(stack)]
            return not left

        return self._fire("inventory_changed", tick, test)

    def enchanted_item(self, item: ItemView, levels: int, tick: int) -> list[str]:
        """Fire ``enchanted_item`` for the enchanted result and the levels spent (1-3)."""
        return self._fire(
            "enchanted_item",
            tick,
            lambda c: (
                (c.item is None or c.item.matches(item)) and (c.levels is None or c.levels.matches(levels))
            ),
        )

    def tick(self, tick: int) -> list[str]:
        """Fire ``tick`` (every server tick in vanilla)."""
        return self._fire("tick", tick, lambda c: True)

    # -- visibility and the packet --------------------------------------------------------------------
    def _done_or_descendant(self, adv: str) -> bool:
        return adv in self.completed or any(self._done_or_descendant(c) for c in self.children[adv])

    def visible(self, adv: str) -> bool:
        """Vanilla ``shouldBeVisible``."""
        cur: str | None = adv
        for i in range(3):
            if cur is None:
                return False
            if i == 0 and self._done_or_descendant(cur):
                return True
            d = self.defs[cur]
            if d.display is None:
                return False
            if cur in self.completed:
                return True
            if d.display.get("hidden", False):
                return False
            cur = d.parent
        return False


# --------------------------------------------------------------------------------------------------
# Tab layout (vanilla TreeNodePosition: Walker's tidy tree as improved by Buchheim, Juenger and Leipert)
# --------------------------------------------------------------------------------------------------


class _Node:
    __slots__ = (
        "id",
        "parent",
        "prev",
        "index",
        "kids",
        "ancestor",
        "thread",
        "x",
        "y",
        "mod",
        "change",
        "shift",
    )

    def __init__(self, adv: str, parent: _Node | None, prev: _Node | None, index: int, depth: int) -> None:
        self.id, self.parent, self.prev, self.index = adv, parent, prev, index
        self.kids: list[_Node] = []
        self.ancestor: _Node = self
        self.thread: _Node | None = None
        self.x, self.y = depth, -1.0
        self.mod = self.change = self.shift = 0.0

    def left(self) -> _Node | None:  # next node on the left contour
        return self.thread or (self.kids[0] if self.kids else None)

    def right(self) -> _Node | None:  # next node on the right contour
        return self.thread or (self.kids[-1] if self.kids else None)


def _build(adv: str, parent: _Node | None, prev: _Node | None, index: int, depth: int,
           defs: Mapping[str, AdvancementDef], children: Mapping[str, list[str]]) -> _Node:  # fmt: skip
    node = _Node(adv, parent, prev, index, depth)
    last: _Node | None = None

    def attach(child: str) -> None:
        nonlocal last
        if defs[child].display is not None:
            last = _build(child, node, last, len(node.kids) + 1, depth + 1, defs, children)
            node.kids.append(last)
        else:  # an invisible advancement's children hang on the nearest visible ancestor
            for grandchild in children[child]:
                attach(grandchild)

    for child in children[adv]:
        attach(child)
    return node


def _first_walk(v: _Node) -> None:
    if not v.kids:
        v.y = v.prev.y + 1.0 if v.prev else 0.0
        return
    default: _Node | None = None
    for w in v.kids:
        _first_walk(w)
        default = _apportion(w, default or w)
    shift = change = 0.0
    for w in reversed(v.kids):  # execute the shifts recorded by _move_subtree
        w.y += shift
        w.mod += shift
        change += w.change
        shift += w.shift + change
    mid = (v.kids[0].y + v.kids[-1].y) / 2.0
    if v.prev is not None:
        v.y = v.prev.y + 1.0
        v.mod = v.y - mid
    else:
        v.y = mid


def _apportion(v: _Node, default: _Node) -> _Node:
    if v.prev is None or v.parent is None:
        return default
    in_r = out_r = v
    in_l, out_l = v.prev, v.parent.kids[0]
    s_in_r = s_out_r = v.mod
    s_in_l, s_out_l = in_l.mod, out_l.mod
    while in_l.right() is not None and in_r.left() is not None:
        in_l, in_r = in_l.right(), in_r.left()  # type: ignore[assignment]
        out_l, out_r = out_l.left(), out_r.right()  # type: ignore[assignment]
        out_r.ancestor = v
        gap = in_l.y + s_in_l - (in_r.y + s_in_r) + 1.0
        if gap > 0:
            left = in_l.ancestor if in_l.ancestor in v.parent.kids else default
            subtrees = float(v.index - left.index)
            if subtrees != 0.0:
                v.change -= gap / subtrees
                left.change += gap / subtrees
            v.shift += gap
            v.y += gap
            v.mod += gap
            s_in_r += gap
            s_out_r += gap
        s_in_l += in_l.mod
        s_in_r += in_r.mod
        s_out_l += out_l.mod
        s_out_r += out_r.mod
    if in_l.right() is not None and out_r.right() is None:
        out_r.thread = in_l.right()
        out_r.mod += s_in_l - s_out_r
    else:
        if in_r.left() is not None and out_l.left() is None:
            out_l.thread = in_r.left()
            out_l.mod += s_in_r - s_out_l
        default = v
    return default


def _second_walk(v: _Node, m: float, depth: int, low: float) -> float:
    v.y += m
    v.x = depth
    low = min(low, v.y)
    for w in v.kids:
        low = _second_walk(w, m + v.mod, depth + 1, low)
    return low


def _collect(v: _Node, shift: float, out: dict[str, tuple[float, float]]) -> None:
    out[v.id] = (float(v.x), v.y + shift)
    for w in v.kids:
        _collect(w, shift, out)


def layout_tree(
    defs: Mapping[str, AdvancementDef], children: Mapping[str, list[str]]
) -> dict[str, tuple[float, float]]:
    """Tab positions ``(x, y)`` of every displayed advancement, as vanilla's ``TreeNodePosition.run``
    computes them for each displayed root: x = depth, y from the tidy-tree algorithm, shifted so the
    smallest y is 0. Children are taken in id order (vanilla: its load order, a hash order)."""
    out: dict[str, tuple[float, float]] = {}
    for adv in sorted(defs):
        if defs[adv].parent is None and defs[adv].display is not None:
            root = _build(adv, None, None, 1, 0, defs, children)
            _first_walk(root)
            low = _second_walk(root, 0.0, 0, root.y)
            _collect(root, -low if low < 0 else 0.0, out)
    return out


def _stack_size(item: str) -> int:
    try:
        return gamedata.item(item).stack_size
    except GameDataError:
        return 64
