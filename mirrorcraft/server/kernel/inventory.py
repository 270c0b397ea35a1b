"""A player's inventory (window 0): its 46 slots, the carried stack, the held slot, and vanilla's click
semantics for it.

Why in the kernel: every feature that gives, takes or reads items (pickups, placing, eating, menus, chests,
commands) works on the same storage, so it belongs to the kernel's :class:`~mirrorcraft.server.kernel.
players.Player`; the *packets* of window 0 (click, close, held slot, drops) are the inventory feature's
(:mod:`mirrorcraft.server.features.inventory`). The click model is pure (no network): since 1.17 the client
*predicts* a click and sends the slots it thinks changed plus a state id; the server applies the click
itself (``AbstractContainerMenu.doClick``) and corrects the client when the prediction or the state id
disagree. :meth:`PlayerInventory.click` returns what changed and which stacks were thrown.

Slots (wiki.vg "Inventory"): 0 crafting result, 1-4 crafting grid, 5-8 armor (head..feet), 9-35 main,
36-44 hotbar, 45 off hand. Modes: 0 pickup (button 0 left / 1 right; slot -999 drops the cursor),
1 quick-move (shift-click), 2 swap with hotbar key (button 0-8, 40 = off hand), 3 clone (creative only:
ignored in survival), 4 throw (button 0 one item, 1 the stack), 5 drag (buttons 0/4 start, 1/5 add slot,
2/6 end for left/right), 6 pick up all of a kind (double click).

Stacks are :class:`~mirrorcraft.rules.stack.Stack` values; two stacks merge when item and NBT are equal
(vanilla ``isSameItemSameTags``) and a moved stack keeps its NBT. The 2x2 grid's result slot is not computed
here: the crafting feature owns it (:mod:`mirrorcraft.server.features.crafting`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mirrorcraft.errors import ContractError
from mirrorcraft.rules.items import EQUIPMENT_SLOTS, fits_equipment_slot
from mirrorcraft.server import facts
from mirrorcraft.server.kernel.stacks import Stack, ids, same_kind, with_count

SIZE = 46
CRAFT_RESULT = 0
CRAFT_GRID = range(1, 5)
ARMOR = range(5, 9)
MAIN = range(9, 36)
HOTBAR = range(36, 45)
OFFHAND = 45
OUTSIDE = -999


Prediction = tuple[int, int] | None  # a client's view of a slot: (item id, count), NBT not compared


@dataclass(frozen=True)
class Corrections:
    """What the server must tell a client after one of its clicks (vanilla ``broadcastChanges``).

    ``slots``: window slots whose server content differs from what the client believes after its own
    prediction; ``cursor``: whether the carried stack differs.
    """

    slots: list[int]
    cursor: bool


def corrections(
    click: Click, state_id: int, before: list[Stack | None], after: list[Stack | None], cursor: Stack | None
) -> Corrections | None:
    """The client's mispredicted slots after ``click``, or ``None`` when only a full resync will do.

    Vanilla ``ServerGamePacketListenerImpl.handleContainerClick`` records the client's predicted slots and
    carried stack as the menu's *remote* state and then, when the click's state id is the menu's, runs
    ``broadcastChanges``: one ``set_slot`` per slot whose server stack differs from its remote one (and the
    carried stack), nothing for a slot the client predicted right. Only a stale state id gets
    ``broadcastFullState`` (a ``window_items`` resync). A full resync where vanilla sends single slots is not
    harmless: it overwrites every slot with the server's state *before* the client's next, already predicted
    click is applied, so a client that clicked twice in a row (Mineflayer's ``bot.craft`` takes the result and
    puts it away with two clicks) briefly loses the item it put away. The remote state before the click is
    taken to be the server's (the client was in sync): ``before`` overlaid with the click's predictions.
    """
    if click.state_id != state_id:
        return None
    remote = [ids(s) for s in before]
    for idx, predicted in click.changed:
        if not 0 <= idx < len(remote):
            return None  # a slot this window does not have: the client's view is unknown
        remote[idx] = predicted
    return Corrections(
        slots=[i for i, s in enumerate(after) if ids(s) != remote[i]], cursor=click.carried != ids(cursor)
    )


def _fits_armor(slot: int, item: str) -> bool:
    """Whether armor slot ``slot`` (5 head .. 8 feet) takes ``item`` (``rules.items``: vanilla
    ``Mob.getEquipmentSlotForItem``)."""
    return fits_equipment_slot(EQUIPMENT_SLOTS[slot - ARMOR.start], item)


def swap_target(button: int) -> int:
    """The window-0 slot a number-key swap (click mode 2) exchanges with: hotbar 0-8, or 40 = the off hand.

    Raises:
        ContractError: any other button.
    """
    if button == 40:
        return OFFHAND
    if 0 <= button <= 8:
        return 36 + button
    raise ContractError(f"click_window: swap with button {button} (expected 0-8 or 40)")


@dataclass
class Click:
    """A click_window packet in game terms; the client's predicted slots as ``(item id, count)``."""

    window: int
    state_id: int
    slot: int
    button: int
    mode: int
    changed: list[tuple[int, Prediction]]
    carried: Prediction


@dataclass
class ClickResult:
    """What a click did: slots whose content changed, whether the cursor changed, and thrown stacks."""

    changed: set[int] = field(default_factory=set)
    cursor_changed: bool = False
    thrown: list[Stack] = field(default_factory=list)


@dataclass
class PlayerInventory:
    """Window 0 of one player: 46 slots, the carried (cursor) stack, the selected hotbar slot."""

    slots: list[Stack | None] = field(default_factory=lambda: [None] * SIZE)
    cursor: Stack | None = None
    held: int = 0  # 0..8, hotbar slot 36 + held
    state_id: int = 0
    _drag: tuple[int, list[int]] | None = None  # (button kind 0 left / 1 right, slots)

    # ---- helpers -------------------------------------------------------------------------------------

    @property
    def held_stack(self) -> Stack | None:
        """The stack in the main hand."""
        return self.slots[36 + self.held]

    def hand_slot(self, hand: int) -> int:
        """Window-0 slot of a hand (0 main hand, 1 off hand)."""
        return OFFHAND if hand == 1 else 36 + self.held

    def can_place(self, slot: int, item: str) -> bool:
        """Whether ``item`` may go in ``slot`` (armor slots take matching armor; the result slot nothing)."""
        if slot == CRAFT_RESULT:
            return False
        if slot in ARMOR:
            return _fits_armor(slot, item)
        return True

    def _limit(self, slot: int, item: str) -> int:
        return 1 if slot in ARMOR else facts.max_stack(item)

    def add(self, item: str, count: int) -> tuple[int, set[int]]:
        """Add ``count`` of a plain ``item`` like a pickup: hotbar then main, merging first.

        Returns:
            (left over, changed slots).
        """
        changed: set[int] = set()
        order = list(HOTBAR) + list(MAIN)
        limit = facts.max_stack(item)
        for idx in order:  # merge into existing stacks first
            s = self.slots[idx]
            if count and s and s.item == item and s.nbt is None and s.count < limit:
                put = min(count, limit - s.count)
                self.slots[idx] = s._replace(count=s.count + put)
                count -= put
                changed.add(idx)
        for idx in order:
            if count and self.slots[idx] is None:
                put = min(count, limit)
                self.slots[idx] = Stack(item, put)
                count -= put
                changed.add(idx)
        return count, changed

    def remove_held(self, n: int = 1) -> Stack | None:
        """Take ``n`` items from the main-hand stack (e.g. placing a block); returns what was taken."""
        idx = 36 + self.held
        s = self.slots[idx]
        if s is None:
            return None
        take = min(n, s.count)
        self.slots[idx] = with_count(s, s.count - take)
        return s._replace(count=take)

    def _move_into(self, src: int, targets: list[int], res: ClickResult) -> None:
        """Quick-move the stack in ``src`` into ``targets`` (merge, then first empty)."""
        s = self.slots[src]
        if s is None:
            return
        count = s.count
        for idx in targets:
            t = self.slots[idx]
            if count and t and same_kind(t, s):
                lim = self._limit(idx, s.item)
                if t.count < lim:
                    put = min(count, lim - t.count)
                    self.slots[idx] = t._replace(count=t.count + put)
                    count -= put
                    res.changed.add(idx)
        for idx in targets:
            if count and self.slots[idx] is None and self.can_place(idx, s.item):
                put = min(count, self._limit(idx, s.item))
                self.slots[idx] = s._replace(count=put)
                count -= put
                res.changed.add(idx)
        if count != s.count:
            self.slots[src] = with_count(s, count)
            res.changed.add(src)

    # ---- clicks --------------------------------------------------------------------------------------

    def click(self, slot: int, button: int, mode: int) -> ClickResult:
        """Apply one click as vanilla 1.19.2 does for the survival player inventory.

        Raises:
            ContractError: a slot index outside 0..45 (and not -999 where allowed) or an unknown mode.
        """
        res = ClickResult()
        if mode != 5 and self._drag is not None:
            self._drag = None
        if not (0 <= slot < SIZE or (slot == OUTSIDE and mode in (0, 4, 5)) or (slot == -1 and mode == 5)):
            raise ContractError(f"click_window: slot {slot} outside the player inventory (mode {mode})")
        if mode == 0:
            self._pickup(slot, button, res)
        elif mode == 1:
            self._quick_move(slot, res)
        elif mode == 2:
            self._swap(slot, button, res)
        elif mode == 3:
            pass  # clone: creative mode only
        elif mode == 4:
            self._throw(slot, button, res)
        elif mode == 5:
            self._drag_step(slot, button, res)
        elif mode == 6:
            self._pickup_all(slot, res)
        else:
            raise ContractError(f"click_window: unknown mode {mode}")
        return res

    def _pickup(self, slot: int, button: int, res: ClickResult) -> None:
        if button not in (0, 1):
            raise ContractError(f"click_window: pickup with button {button} (expected 0 or 1)")
        if slot == OUTSIDE:
            if self.cursor is not None:
                c = self.cursor
                n = c.count if button == 0 else 1
                res.thrown.append(c._replace(count=n))
                self.cursor = with_count(c, c.count - n)
                res.cursor_changed = True
            return
        if slot == CRAFT_RESULT:
            return  # crafting is the crafting feature's (see module docstring)
        s, c = self.slots[slot], self.cursor
        if c is None:
            if s is None:
                return
            take = s.count if button == 0 else (s.count + 1) // 2
            self.cursor = s._replace(count=take)
            self.slots[slot] = with_count(s, s.count - take)
        elif s is None:
            if not self.can_place(slot, c.item):
                return
            put = min(c.count if button == 0 else 1, self._limit(slot, c.item))
            self.slots[slot] = c._replace(count=put)
            self.cursor = with_count(c, c.count - put)
        elif same_kind(s, c):
            lim = self._limit(slot, c.item)
            put = min(c.count if button == 0 else 1, lim - s.count)
            if put <= 0:
                return
            self.slots[slot] = s._replace(count=s.count + put)
            self.cursor = with_count(c, c.count - put)
        else:
            if not self.can_place(slot, c.item) or c.count > self._limit(slot, c.item):
                return
            self.slots[slot], self.cursor = c, s
        res.changed.add(slot)
        res.cursor_changed = True

    def _quick_move(self, slot: int, res: ClickResult) -> None:
        s = self.slots[slot]
        if s is None or slot == CRAFT_RESULT:
            return
        inv = list(MAIN) + list(HOTBAR)
        if slot in MAIN or slot in HOTBAR:
            armor = [a for a in ARMOR if _fits_armor(a, s.item) and self.slots[a] is None]
            if armor:
                self._move_into(slot, armor, res)
            elif slot in MAIN:
                self._move_into(slot, list(HOTBAR), res)
            else:
                self._move_into(slot, list(MAIN), res)
        else:  # crafting grid, armor, off hand -> main inventory then hotbar
            self._move_into(slot, inv, res)

    def _swap(self, slot: int, button: int, res: ClickResult) -> None:
        other = swap_target(button)
        if slot == CRAFT_RESULT:
            return
        a, b = self.slots[slot], self.slots[other]
        if (b is not None and not self.can_place(slot, b.item)) or (
            a is not None and not self.can_place(other, a.item)
        ):
            return
        self.slots[slot], self.slots[other] = b, a
        res.changed.update({slot, other})

    def _throw(self, slot: int, button: int, res: ClickResult) -> None:
        if slot == OUTSIDE or self.cursor is not None or slot == CRAFT_RESULT:
            return
        s = self.slots[slot]
        if s is None:
            return
        n = s.count if button == 1 else 1
        res.thrown.append(s._replace(count=n))
        self.slots[slot] = with_count(s, s.count - n)
        res.changed.add(slot)

    def _drag_step(self, slot: int, button: int, res: ClickResult) -> None:
        kind, stage = divmod(button, 4)
        if kind not in (0, 1):
            self._drag = None  # middle-button drag is creative only
            return
        if stage == 0:
            self._drag = (kind, []) if self.cursor is not None else None
        elif stage == 1:
            if self._drag is None or self._drag[0] != kind or not 0 <= slot < SIZE:
                return
            c = self.cursor
            s = self.slots[slot]
            if (
                c is not None
                and self.can_place(slot, c.item)
                and (s is None or same_kind(s, c))
                and slot not in self._drag[1]
            ):
                self._drag[1].append(slot)
        elif stage == 2:
            drag, self._drag = self._drag, None
            if drag is None or drag[0] != kind or self.cursor is None or not drag[1]:
                return
            c = self.cursor
            count = c.count
            slots = drag[1]
            if len(slots) == 1:  # a one-slot drag is a plain click
                self._pickup(slots[0], kind, res)
                return
            each = 1 if kind == 1 else count // len(slots)
            for idx in slots:
                if count <= 0:
                    break
                s = self.slots[idx]
                have = s.count if s else 0
                put = min(each, count, self._limit(idx, c.item) - have)
                if put > 0:
                    self.slots[idx] = c._replace(count=have + put)
                    count -= put
                    res.changed.add(idx)
            self.cursor = with_count(c, count)
            res.cursor_changed = True

    def _pickup_all(self, slot: int, res: ClickResult) -> None:
        c = self.cursor
        if c is None:
            return
        count = c.count
        lim = facts.max_stack(c.item)
        for full_pass in (False, True):  # vanilla takes from non-full stacks first
            for idx in range(1, SIZE):
                if count >= lim:
                    break
                s = self.slots[idx]
                if s and same_kind(s, c) and (full_pass or s.count < lim):
                    take = min(s.count, lim - count)
                    self.slots[idx] = with_count(s, s.count - take)
                    count += take
                    res.changed.add(idx)
        if count != c.count:
            self.cursor = c._replace(count=count)
            res.cursor_changed = True
