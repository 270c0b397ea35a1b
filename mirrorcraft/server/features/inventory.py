"""The player's inventory window (window 0): clicks, closing, the held slot, drops from the hand, giving.

The click model is the kernel's (:class:`~mirrorcraft.server.kernel.inventory.PlayerInventory`, vanilla
``AbstractContainerMenu.doClick``); this feature is its packets. A ``click_window`` becomes a
:class:`~mirrorcraft.server.kernel.inventory.Click` and is first offered to the ``"click"`` behaviour: the
windows feature takes clicks on container windows and the crafting feature takes clicks on the 2x2 grid's
result slot (both cancel it). Otherwise the click is applied to window 0 and the client's prediction is
checked as vanilla's ``broadcastChanges`` does (:func:`~mirrorcraft.server.kernel.inventory.corrections`):
one ``set_slot`` per slot (and the cursor) the client mispredicted, a full ``window_items`` resync only for a
stale state id; then the ``"inventory_click"`` hooks run (the crafting feature recomputes the grid's result) and a
``click`` event is published. ``close_window`` of window 0 returns the cursor and the grid to the inventory
(what does not fit is thrown); ``held_item_slot`` runs the ``"held_slot"`` hooks first (eating stops) and
ignores slots outside 0..8 as vanilla does; ``player_digging`` statuses 3/4 (Q, Ctrl-Q) throw from the hand
and 6 swaps the hands.
"""

from __future__ import annotations

import logging

from mirrorcraft.errors import ContractError
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.server import facts, wire
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.inventory import HOTBAR, MAIN, OFFHAND, Click, corrections
from mirrorcraft.server.kernel.stacks import Stack

log = logging.getLogger(__name__)


def click_of(pkt: sb.WindowClick) -> Click:
    """A ``window_click`` packet as a :class:`Click` (the client's predicted slots as ``(item id, count)``)."""

    def stack(s: object) -> tuple[int, int] | None:
        return (s.item_id, s.count) if s is not None else None  # type: ignore[attr-defined]

    return Click(
        window=pkt.window_id,
        state_id=pkt.state_id,
        slot=pkt.slot,
        button=pkt.mouse_button,
        mode=pkt.mode,
        changed=[(c.location, stack(c.item)) for c in pkt.changed_slots],
        carried=stack(pkt.cursor_item),
    )


class Inventory:
    """Window 0 of every player."""

    def __init__(self, kernel: Kernel, items: Items) -> None:
        self.kernel = kernel
        self.items = items
        h = kernel.handlers
        h.register("window_click", lambda p, pkt: self.click(p, click_of(pkt)))
        h.register("close_window", lambda p, pkt: self.close(p, pkt.window_id))
        h.register("held_item_slot", self._on_held_item_slot)
        h.register("block_dig", self._on_block_dig)

    # ---- sending -----------------------------------------------------------------------------------------

    def send_inventory(self, p: Player) -> None:
        """Full resync of window 0 (window_items with a new state id)."""
        inv = p.inventory
        inv.state_id += 1
        p.send("window_items", wire.window_items(0, inv.state_id, list(inv.slots), inv.cursor))

    # ---- giving ------------------------------------------------------------------------------------------

    def give(self, p: Player, stack: Stack | None) -> None:
        """Put a stack into the inventory, throwing what does not fit (no packet: the caller resyncs).

        A stack with NBT goes whole into the first empty hotbar, then main slot (it never merges).
        """
        if not stack:
            return
        if stack.nbt is not None:
            for idx in list(HOTBAR) + list(MAIN):
                if p.inventory.slots[idx] is None:
                    p.inventory.slots[idx] = stack
                    return
            self.items.throw(p, Stack(stack.item, stack.count))
            return
        left, _ = p.inventory.add(stack.item, stack.count)
        if left:
            self.items.throw(p, Stack(stack.item, left))

    def give_item(self, p: Player, item: str, count: int) -> int:
        """Add ``count`` of ``item`` (hotbar first) and resend the changed slots; returns how many fit.

        Raises:
            GameDataError: unknown item.
        """
        left, changed = p.inventory.add(facts.item_key(item), count)
        p.send_slots(changed)
        return count - left

    # ---- clicks ------------------------------------------------------------------------------------------

    def click(self, p: Player, c: Click) -> None:
        """Apply a click_window (see the module docstring)."""
        if self.kernel.events.behaviour("click", p, click=c).cancelled:
            return
        inv = p.inventory
        before = list(inv.slots)
        try:
            res = inv.click(c.slot, c.button, c.mode)
        except ContractError as err:
            log.info("%s: %s", p.display_name, err)
            self.send_inventory(p)
            return
        for stack in res.thrown:
            self.items.throw(p, Stack(stack.item, stack.count))
        fix = corrections(c, inv.state_id, before, inv.slots, inv.cursor)
        mismatch = fix is None or bool(fix.slots) or fix.cursor
        if fix is None:
            self.send_inventory(p)
        else:  # vanilla broadcastChanges: only what the client mispredicted
            p.send_slots(fix.slots)
            if fix.cursor:
                p.send_cursor()
        self.kernel.events.notify("inventory_click", p, click=c)
        self.kernel.emit(
            "click", player=p.display_name, slot=c.slot, button=c.button, mode=c.mode, resync=mismatch
        )

    def close(self, p: Player, window: int) -> None:
        """close_window: window 0 returns the cursor and the crafting grid to the inventory (else throws)."""
        if self.kernel.events.behaviour("close_window", p, window=window).cancelled:
            return
        inv = p.inventory
        returned = [inv.cursor] + [inv.slots[i] for i in range(1, 5)]
        inv.cursor = None
        for i in range(1, 5):
            inv.slots[i] = None
        for stack in returned:
            if stack:
                left, _ = inv.add(stack.item, stack.count)
                if left:
                    self.items.throw(p, Stack(stack.item, left))
        if any(returned):
            self.send_inventory(p)

    # ---- the hand ------------------------------------------------------------------------------------------

    def _on_held_item_slot(self, p: Player, pkt: sb.HeldItemSlotServerbound) -> None:
        if 0 <= pkt.slot_id <= 8:  # vanilla ignores out-of-range slots; a dig in progress keeps going
            self.kernel.events.behaviour("held_slot", p, slot=pkt.slot_id)
            p.inventory.held = pkt.slot_id

    def _on_block_dig(self, p: Player, pkt: sb.BlockDig) -> None:
        if pkt.status in (3, 4):  # Ctrl-Q: the stack, Q: one item
            self.drop_held(p, whole=pkt.status == 3)
        elif pkt.status == 6:  # F: swap the hands
            inv = p.inventory
            hand = 36 + inv.held
            inv.slots[hand], inv.slots[OFFHAND] = inv.slots[OFFHAND], inv.slots[hand]
            self.send_inventory(p)

    def drop_held(self, p: Player, whole: bool) -> None:
        """Throw one item (or the whole stack) from the main hand."""
        inv = p.inventory
        stack = inv.held_stack
        if stack is None:
            return
        taken = inv.remove_held(stack.count if whole else 1)
        p.send_slot(0, 36 + inv.held, inv.held_stack)
        if taken:
            self.items.throw(p, Stack(taken.item, taken.count))
