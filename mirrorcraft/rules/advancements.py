"""Advancements: per-player progress, criteria triggers, visibility and the tab layout (the definitions are
parsed by :mod:`~mirrorcraft.rules.advancement_defs`; the ``advancements`` packet itself is built by the
server: ``mirrorcraft.server.wire.advancements_packet``).

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

from collections.abc import Mapping, Sequence
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.errors import ContractError, GameDataError
from mirrorcraft.rules.advancement_defs import (
    ACTIVE_TRIGGERS,
    PASSIVE_TRIGGERS,
    AdvancementDef,
    Criterion,
    ItemView,
    parse_advancement,
)
from mirrorcraft.rules.datapacks import DatapackSet

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

_INVENTORY_SIZE = 41  # Inventory.getContainerSize(): 36 + 4 armour + offhand


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
                return changed is not None and c.item_matches(c.items[0], changed)
            left = list(c.items)
            for stack in inventory:
                if not left:
                    break
                if stack is not None:
                    left = [p for p in left if not c.item_matches(p, stack)]
            return not left

        return self._fire("inventory_changed", tick, test)

    def enchanted_item(self, item: ItemView, levels: int, tick: int) -> list[str]:
        """Fire ``enchanted_item`` for the enchanted result and the levels spent (1-3)."""
        return self._fire(
            "enchanted_item",
            tick,
            lambda c: (
                (c.item is None or c.item_matches(c.item, item))
                and (c.levels is None or c.levels.matches(levels))
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
