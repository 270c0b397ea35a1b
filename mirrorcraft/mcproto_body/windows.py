"""Container windows and the vanilla click rules, as pure functions.

Why predict clicks: since 1.17 the serverbound click carries the slots the client *believes* changed and
the new cursor item, plus the last state id it saw; a vanilla server applies the click itself, compares,
and resends the whole window (``window_items``) when the client was wrong or stale. Predicting like the
vanilla client (``AbstractContainerMenu.doClick``) keeps the two in agreement and lets the body tell a
confirmed click from a corrected one.

Covered click modes (wiki.vg "Click Container"): 0 pickup (left/right, incl. outside = drop cursor),
1 quick-move (shift-click; player inventory and generic containers, without armour auto-equip),
2 hotbar swap, 4 throw. Drag (5) and double-click (6) are not predicted (partial: not needed by skills);
result slots (crafting output, furnace output) are predicted as plain slots — the server's answer wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mirrorcraft.errors import ContractError, GameDataError
from mirrorcraft.gamedata import item_by_id, menu_type_name
from mirrorcraft.protocol import Slot

#: Slots of the player inventory window (id 0): 0 craft result, 1-4 craft grid, 5-8 armour, 9-35 main,
#: 36-44 hotbar, 45 offhand (wiki.vg "Inventory").
PLAYER_WINDOW_SIZE = 46
HOTBAR_START = 36
MAIN_START = 9
OUTSIDE = -999

_MENU_SLOTS = {
    "generic_3x3": 9, "anvil": 3, "beacon": 1, "blast_furnace": 3, "brewing_stand": 5, "crafting": 10,
    "enchantment": 2, "furnace": 3, "grindstone": 3, "hopper": 5, "lectern": 1, "loom": 4, "merchant": 3,
    "shulker_box": 27, "smithing": 3, "smoker": 3, "cartography_table": 3, "stonecutter": 2,
}  # fmt: skip


def menu_slots(menu_id: int) -> tuple[str, int]:
    """``(menu name, number of container slots before the 36 player slots)`` of an open_window type.

    Raises:
        ContractError: unknown menu type id.
    """
    try:
        name = menu_type_name(menu_id)
    except GameDataError as err:
        raise ContractError(f"open_window: unknown inventory_type {menu_id}") from err
    short = name.removeprefix("minecraft:")
    if short.startswith("generic_9x"):
        return name, 9 * int(short[-1])
    if short not in _MENU_SLOTS:
        raise ContractError(f"open_window: no slot layout for {name}")
    return name, _MENU_SLOTS[short]


def max_stack(slot: Slot) -> int:
    """Max stack size of the slot's item (64 for unknown ids, the server will correct us)."""
    try:
        return item_by_id(slot.item_id).stack_size
    except GameDataError:
        return 64


def same_item(a: Slot | None, b: Slot | None) -> bool:
    """Stackable together: same item id and same NBT."""
    return a is not None and b is not None and a.item_id == b.item_id and a.nbt == b.nbt


def _copy(s: Slot | None, count: int | None = None) -> Slot | None:
    if s is None:
        return None
    n = s.count if count is None else count
    return None if n <= 0 else Slot(s.item_id, n, s.nbt)


@dataclass
class Window:
    """One open window (the player inventory is window 0).

    Attributes:
        id: Window id.
        type: Menu name (``minecraft:inventory`` for window 0).
        slots: All slots, container slots first, then (for containers) 27 main + 9 hotbar player slots.
        container_slots: How many slots belong to the container itself.
        state_id: Last state id the server sent for this window.
        cursor: The carried stack.
        title: Window title (chat JSON).
    """

    id: int
    type: str
    slots: list[Slot | None]
    container_slots: int
    state_id: int = 0
    cursor: Slot | None = None
    title: str = ""
    properties: dict[int, int] = field(default_factory=dict)

    @classmethod
    def player(cls) -> Window:
        """An empty player inventory window."""
        return cls(0, "minecraft:inventory", [None] * PLAYER_WINDOW_SIZE, PLAYER_WINDOW_SIZE)

    def player_slot(self, inv_index: int) -> int:
        """Window slot of player-inventory window slot ``inv_index`` (9..44) in this window."""
        if self.id == 0:
            return inv_index
        if not MAIN_START <= inv_index < HOTBAR_START + 9:
            raise ContractError(f"player slot {inv_index} is not in the main inventory or hotbar")
        return self.container_slots + inv_index - MAIN_START

    def hotbar_slot(self, index: int) -> int:
        """Window slot of hotbar index 0..8."""
        return self.player_slot(HOTBAR_START + index)


@dataclass(frozen=True)
class ClickPrediction:
    """What a click changes: ``changed`` = ``{slot: new stack}``, the new cursor, and items thrown out."""

    changed: dict[int, Slot | None]
    cursor: Slot | None
    thrown: tuple[Slot, ...] = ()


def _quick_move_ranges(win: Window, slot: int) -> list[tuple[int, int, bool]]:
    """Target ranges (start, end, reverse) for shift-click, per vanilla ``quickMoveStack``."""
    n = len(win.slots)
    if win.id == 0:
        if MAIN_START <= slot < HOTBAR_START:
            return [(HOTBAR_START, HOTBAR_START + 9, False)]
        if HOTBAR_START <= slot < HOTBAR_START + 9:
            return [(MAIN_START, HOTBAR_START, False)]
        return [(MAIN_START, HOTBAR_START + 9, slot == 0)]
    c = win.container_slots
    if slot < c:
        return [(c, n, True)]  # container -> player inventory, hotbar end first (ChestMenu)
    return [(0, c, False)]


def predict_click(win: Window, slot: int, button: int, mode: int) -> ClickPrediction:
    """Predict the effect of one click on ``win`` (not modified).

    Args:
        win: The window as currently known.
        slot: Clicked slot (``-999`` = outside the window).
        button: Mouse button / hotbar index, as on the wire.
        mode: Click mode (0 pickup, 1 quick move, 2 hotbar swap, 4 throw).

    Raises:
        ContractError: slot out of range or unsupported mode/button.
    """
    cur = win.cursor
    if mode == 0 and slot == OUTSIDE:
        if cur is None:
            return ClickPrediction({}, None)
        if button == 0:
            return ClickPrediction({}, None, (cur,))
        return ClickPrediction({}, _copy(cur, cur.count - 1), (Slot(cur.item_id, 1, cur.nbt),))
    if not 0 <= slot < len(win.slots):
        raise ContractError(f"window {win.id}: slot {slot} out of range 0..{len(win.slots) - 1}")
    here = win.slots[slot]
    if mode == 0:
        if button not in (0, 1):
            raise ContractError(f"pickup click: button {button} is not 0 (left) or 1 (right)")
        if here is None and cur is None:
            return ClickPrediction({}, None)
        if cur is None:  # pick up all (left) or the larger half (right)
            take = here.count if button == 0 else (here.count + 1) // 2
            return ClickPrediction({slot: _copy(here, here.count - take)}, _copy(here, take))
        if here is None:  # place all (left) or one (right)
            put = min(cur.count if button == 0 else 1, max_stack(cur))
            return ClickPrediction({slot: _copy(cur, put)}, _copy(cur, cur.count - put))
        if same_item(here, cur):
            room = max(0, max_stack(here) - here.count)
            put = min(room, cur.count if button == 0 else 1)
            return ClickPrediction({slot: _copy(here, here.count + put)}, _copy(cur, cur.count - put))
        if cur.count <= max_stack(cur):
            return ClickPrediction({slot: _copy(cur)}, _copy(here))
        return ClickPrediction({}, cur)
    if mode == 1:
        if here is None:
            return ClickPrediction({}, cur)
        changed: dict[int, Slot | None] = {}
        left = here.count
        limit = max_stack(here)
        for start, end, reverse in _quick_move_ranges(win, slot):
            order = list(range(start, end))[:: -1 if reverse else 1]
            for i in order:  # merge into existing stacks first
                if left == 0:
                    break
                other = changed.get(i, win.slots[i])
                if i != slot and same_item(other, here) and other.count < limit:
                    add = min(left, limit - other.count)
                    changed[i] = _copy(other, other.count + add)
                    left -= add
            for i in order:  # then the first empty slot
                if left == 0:
                    break
                if i != slot and changed.get(i, win.slots[i]) is None:
                    changed[i] = _copy(here, left)
                    left = 0
        if left != here.count:
            changed[slot] = _copy(here, left)
        return ClickPrediction(changed, cur)
    if mode == 2:
        if not (0 <= button <= 8 or button == 40):
            raise ContractError(f"hotbar swap: button {button} is not a hotbar index 0..8 or 40 (offhand)")
        target = (45 if win.id == 0 else None) if button == 40 else win.hotbar_slot(button)
        if target is None:
            raise ContractError("offhand swap is only predicted in the player window")
        if target == slot:
            return ClickPrediction({}, cur)
        return ClickPrediction({slot: _copy(win.slots[target]), target: _copy(here)}, cur)
    if mode == 4:
        if here is None or cur is not None:
            return ClickPrediction({}, cur)
        n = 1 if button == 0 else here.count
        return ClickPrediction({slot: _copy(here, here.count - n)}, cur, (Slot(here.item_id, n, here.nbt),))
    raise ContractError(f"click mode {mode} is not predicted (supported: 0, 1, 2, 4)")


def apply_prediction(win: Window, pred: ClickPrediction) -> None:
    """Write a prediction into the window."""
    for i, s in pred.changed.items():
        win.slots[i] = s
    win.cursor = pred.cursor
