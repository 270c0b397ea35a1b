"""Container windows: the click engine every menu shares, and opening, closing, clicking and updating them.

Why one engine: every container window (crafting table, furnaces, enchanting table, chest) is a slot layout
over two storages — the container's ``n`` slots, then the player's 27 main + 9 hotbar slots — and vanilla
runs the same ``AbstractContainerMenu.doClick`` over all of them. :class:`Menu` is that engine; each
feature's menu subclass adds what vanilla's menu class adds: which slots accept what (``Slot.mayPlace``),
where shift-click moves a stack (``quickMoveStack``), what taking from a result slot does (``ResultSlot.
onTake``) and the window properties. Window 0 (the player's own inventory) is the inventory feature's.

This feature keeps each player's open window (kept by name, with vanilla's window counter 1..100), opens a
menu for the features that own a block (:meth:`Windows.open`, after the shared use rules of
:meth:`Windows.interaction`), takes every click on a container window (the ``"click"`` behaviour), checks
the client's prediction (vanilla: a ``set_slot`` per mispredicted slot, ``window_items`` only for a stale
state id), closes windows (items a menu hands back go to the inventory; the cursor too), and once per tick sends what changed (``broadcastChanges``: slots and
window properties).

Vanilla ``AbstractContainerMenu.stillValid`` (``ContainerLevelAccess``/``Container.stillValidBlockEntity``):
a window stays open only while its block is still there and the player's feet are within 8 blocks of the
block's centre (``distanceToSqr`` <= 64). It is checked every tick (``ServerPlayer.tick`` closes the window
with ``close_window``) and on every click (``handleContainerClick`` ignores a click on an invalid menu; here
the window is closed at once, which the next tick would do). A player who leaves closes its window
(``ServerPlayer.disconnect`` → ``removed``) and its window state is dropped.

Layouts (wiki.vg "Inventory", 1.19.2): crafting 0 result, 1-9 grid, 10-45 inventory; furnace, blast
furnace, smoker 0 input, 1 fuel, 2 output, 3-38 inventory; enchantment 0 item, 1 lapis, 2-37 inventory;
chest 0-26, 27-62 inventory. Partial: window 0's resync does not send NBT; swap-with-hotbar and throw on a
result slot are ignored (vanilla crafts into the hotbar / the ground).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass

from mirrorcraft.errors import ContractError
from mirrorcraft.server import facts, wire
from mirrorcraft.server.features.inventory import Inventory
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.inventory import (
    OUTSIDE,
    Click,
    Corrections,
    PlayerInventory,
    corrections,
    swap_target,
)
from mirrorcraft.server.kernel.physics import within_reach
from mirrorcraft.server.kernel.stacks import Stack, max_stack_of, same_kind, with_count

log = logging.getLogger(__name__)

Pos = tuple[int, int, int]
MAX_DISTANCE_SQ = 64.0  # vanilla stillValid: distanceToSqr(block centre) <= 8 * 8


class Menu:
    """One open container window: ``n`` container slots, then the player's main (27) and hotbar (9).

    Subclasses implement :meth:`cget`/:meth:`cset` (container storage) and may override
    :meth:`can_place`, :meth:`quick_move`, :meth:`take_result`, :meth:`slots_changed`,
    :meth:`properties`, :meth:`closed` and :meth:`enchant`.

    Attributes:
        result_after_click: Send the result slot after every click (vanilla ``slotChangedCraftingGrid``).
    """

    kind = ""
    n = 0
    result_slot: int | None = None
    result_after_click = False

    def __init__(self, player: Player, window_id: int) -> None:
        self.player = player
        self.pos: Pos | None = None  # the block the window belongs to (set by Windows.open)
        self.block: str | None = None  # its bare block name when the window opened
        self.inv: PlayerInventory = player.inventory
        self.window_id = window_id
        self._drag: tuple[int, list[int]] | None = None
        self.sent_slots: list[Stack | None] | None = None
        self.sent_props: dict[int, int] = {}

    # -- slot mapping ------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.n + 36

    def inv_index(self, i: int) -> int:
        """Player-inventory (window 0) index of menu slot ``i`` >= ``n``."""
        j = i - self.n
        return 9 + j if j < 27 else 36 + (j - 27)

    def cget(self, i: int) -> Stack | None:
        raise NotImplementedError

    def cset(self, i: int, s: Stack | None) -> None:
        raise NotImplementedError

    def get(self, i: int) -> Stack | None:
        return self.cget(i) if i < self.n else self.inv.slots[self.inv_index(i)]

    def set(self, i: int, s: Stack | None) -> None:
        if i < self.n:
            self.cset(i, s)
        else:
            self.inv.slots[self.inv_index(i)] = s

    def all_slots(self) -> list[Stack | None]:
        return [self.get(i) for i in range(self.size)]

    # -- rules --------------------------------------------------------------------------------------
    def can_place(self, i: int, s: Stack) -> bool:
        return i != self.result_slot

    def limit(self, i: int, s: Stack) -> int:
        return max_stack_of(s)

    def inventory_range(self) -> range:
        return range(self.n, self.n + 36)

    def quick_move(self, i: int) -> None:
        """Vanilla ``quickMoveStack`` default: container → inventory; main ↔ hotbar."""
        if i < self.n:
            self.move_into(i, self.n, self.n + 36, reverse=False)
        elif i < self.n + 27:
            self.move_into(i, self.n + 27, self.n + 36)
        else:
            self.move_into(i, self.n, self.n + 27)

    def move_into(self, src: int, start: int, end: int, *, reverse: bool = False) -> bool:
        """Vanilla ``moveItemStackTo``: merge into same stacks, then fill empty slots. True if any moved."""
        s = self.get(src)
        if s is None:
            return False
        count = s.count
        order = list(range(start, end))
        if reverse:
            order.reverse()
        for idx in order:
            t = self.get(idx)
            if count and t is not None and same_kind(t, s):
                room = min(self.limit(idx, s), max_stack_of(s)) - t.count
                if room > 0:
                    put = min(room, count)
                    self.set(idx, with_count(t, t.count + put))
                    count -= put
        for idx in order:
            if count and self.get(idx) is None and self.can_place(idx, s):
                put = min(count, self.limit(idx, s))
                self.set(idx, with_count(s, put))
                count -= put
        if count == s.count:
            return False
        self.set(src, with_count(s, count))
        return True

    def take_result(self, shift: bool, button: int) -> None:
        """Click on the result slot (mode 0 or, with ``shift``, mode 1)."""

    def slots_changed(self) -> None:
        """Called after every click (crafting results, enchantment offers, chest deltas)."""

    def properties(self) -> dict[int, int]:
        return {}

    def closed(self) -> list[Stack]:
        """The window closed: stacks to give back to the player (crafting grid, table item...)."""
        return []

    def enchant(self, button: int) -> bool:
        """The container-button packet (``enchant_item``); only the enchanting table uses it."""
        return False

    # -- clicks (AbstractContainerMenu.doClick) -------------------------------------------------------
    def click(self, slot: int, button: int, mode: int) -> list[Stack]:
        """Apply one click; returns stacks thrown out of the window.

        Raises:
            ContractError: a slot outside this window or an unknown mode/button.
        """
        thrown: list[Stack | None] = []
        if mode != 5:
            self._drag = None
        if not (
            0 <= slot < self.size or (slot == OUTSIDE and mode in (0, 4, 5)) or (slot == -1 and mode == 5)
        ):
            raise ContractError(f"click_window: slot {slot} outside window {self.window_id} ({self.kind})")
        if mode == 0:
            if button not in (0, 1):
                raise ContractError(f"click_window: pickup with button {button} (expected 0 or 1)")
            if slot == OUTSIDE:
                c = self.inv.cursor
                if c is not None:
                    n = c.count if button == 0 else 1
                    thrown.append(with_count(c, n))
                    self.inv.cursor = with_count(c, c.count - n)
            elif slot == self.result_slot:
                self.take_result(False, button)
            else:
                self._pickup(slot, button)
        elif mode == 1:
            if slot == self.result_slot:
                self.take_result(True, button)
            elif slot >= 0:
                self.quick_move(slot)
        elif mode == 2:
            self._swap(slot, button)
        elif mode == 4:
            if slot != OUTSIDE and slot != self.result_slot and self.inv.cursor is None:
                s = self.get(slot)
                if s is not None:
                    n = s.count if button == 1 else 1
                    thrown.append(with_count(s, n))
                    self.set(slot, with_count(s, s.count - n))
        elif mode == 5:
            self._drag_step(slot, button)
        elif mode == 6:
            self._pickup_all()
        elif mode != 3:
            raise ContractError(f"click_window: unknown mode {mode}")
        self.slots_changed()
        return [t for t in thrown if t]

    def _pickup(self, slot: int, button: int) -> None:
        s, c = self.get(slot), self.inv.cursor
        if c is None:
            if s is None:
                return
            take = s.count if button == 0 else (s.count + 1) // 2
            self.inv.cursor = with_count(s, take)
            self.set(slot, with_count(s, s.count - take))
        elif s is None:
            if not self.can_place(slot, c):
                return
            put = min(c.count if button == 0 else 1, self.limit(slot, c))
            self.set(slot, with_count(c, put))
            self.inv.cursor = with_count(c, c.count - put)
        elif same_kind(s, c):
            if not self.can_place(slot, c):
                return
            put = min(c.count if button == 0 else 1, min(self.limit(slot, c), max_stack_of(c)) - s.count)
            if put <= 0:
                return
            self.set(slot, with_count(s, s.count + put))
            self.inv.cursor = with_count(c, c.count - put)
        elif self.can_place(slot, c) and c.count <= self.limit(slot, c):
            self.set(slot, c)
            self.inv.cursor = s

    def _swap(self, slot: int, button: int) -> None:
        other = swap_target(button)
        if slot == self.result_slot:
            return
        a, b = self.get(slot), self.inv.slots[other]
        if b is not None and not self.can_place(slot, b):
            return
        self.set(slot, b)
        self.inv.slots[other] = a

    def _drag_step(self, slot: int, button: int) -> None:
        kind, stage = divmod(button, 4)
        if kind not in (0, 1):
            self._drag = None
            return
        if stage == 0:
            self._drag = (kind, []) if self.inv.cursor is not None else None
        elif stage == 1:
            c = self.inv.cursor
            if self._drag is None or self._drag[0] != kind or not 0 <= slot < self.size or c is None:
                return
            s = self.get(slot)
            if self.can_place(slot, c) and (s is None or same_kind(s, c)) and slot not in self._drag[1]:
                self._drag[1].append(slot)
        elif stage == 2:
            drag, self._drag = self._drag, None
            c = self.inv.cursor
            if drag is None or drag[0] != kind or c is None or not drag[1]:
                return
            if len(drag[1]) == 1:
                self._pickup(drag[1][0], kind)
                return
            count = c.count
            each = 1 if kind == 1 else count // len(drag[1])
            for idx in drag[1]:
                if count <= 0:
                    break
                s = self.get(idx)
                have = s.count if s else 0
                put = min(each, count, min(self.limit(idx, c), max_stack_of(c)) - have)
                if put > 0:
                    self.set(idx, with_count(c, have + put))
                    count -= put
            self.inv.cursor = with_count(c, count)

    def _pickup_all(self) -> None:
        c = self.inv.cursor
        if c is None:
            return
        count, lim = c.count, max_stack_of(c)
        for full_pass in (False, True):
            for idx in range(self.size):
                if count >= lim:
                    break
                if idx == self.result_slot:
                    continue
                s = self.get(idx)
                if s is not None and same_kind(s, c) and (full_pass or s.count < lim):
                    take = min(s.count, lim - count)
                    self.set(idx, with_count(s, s.count - take))
                    count += take
        self.inv.cursor = with_count(c, count)


@dataclass
class WindowState:
    """One player's open container window and vanilla's window counter."""

    menu: Menu | None = None
    next_window: int = 0


class Windows:
    """Container windows of every player."""

    def __init__(self, kernel: Kernel, inventory: Inventory, items: Items) -> None:
        self.kernel = kernel
        self.inventory = inventory
        self.items = items
        self.players: dict[str, WindowState] = {}
        kernel.events.before("click", self._on_click)
        kernel.events.before("close_window", self._on_close)
        kernel.events.after("left", self._left)

    def state(self, p: Player) -> WindowState:
        st = self.players.get(p.display_name)
        if st is None:
            st = self.players[p.display_name] = WindowState()
        return st

    def menu_of(self, p: Player) -> Menu | None:
        """The container window ``p`` has open, if any."""
        return self.state(p).menu

    # ---- opening -----------------------------------------------------------------------------------------

    def interaction(self, p: Player, hand: int, clicked: Pos) -> str:
        """The use rules shared by every block that opens a window (vanilla ``ServerPlayerGameMode.useItemOn``):
        ``"place"`` — not consumed (sneaking with an item places against the block); ``"consumed"`` — the
        click is used up without opening (the off hand after the main hand, or out of reach); ``"open"``."""
        held = p.inventory.slots[p.inventory.hand_slot(hand)]
        if p.sneaking and held is not None:
            return "place"  # sneaking with an item: place against the block instead
        if hand == 1:
            return (
                "consumed"  # the main hand already opened it (the client sends the off hand only on failure)
            )
        if not within_reach(p.pos, clicked):
            return "consumed"
        return "open"

    def open_on_use(
        self, b: Behaviour, blocks: Collection[str], owner: str, open_menu: Callable[[Player, Pos], object]
    ) -> None:
        """A ``"use_block"`` hook for a feature whose block opens a window: when the used block is one of
        ``blocks`` (bare names), apply :meth:`interaction`; consume the use unless it places, and call
        ``open_menu(player, pos)`` when it opens."""
        p, pos = b.player, b["pos"]
        if facts.block_name(self.kernel.world.get_block(*pos)) not in blocks:
            return
        how = self.interaction(p, b["hand"], pos)
        if how == "place":
            return
        b.cancel(owner)
        if how == "open":
            open_menu(p, pos)

    def open(
        self,
        p: Player,
        kind: str,
        pos: Pos,
        build: Callable[[int], Menu],
        then: Callable[[Menu], object] | None = None,
    ) -> Menu:
        """Close ``p``'s open window, open ``build(window id)`` and send it (``open_window`` + contents);
        ``then(menu)`` runs before the ``window_opened`` event (a chest's lid)."""
        st = self.state(p)
        if st.menu is not None:
            self.close(p, st.menu.window_id)
        st.next_window = st.next_window % 100 + 1  # vanilla containerCounter: 1..100
        wid = st.next_window
        menu = build(wid)
        menu.pos, menu.block = pos, facts.block_name(self.kernel.world.get_block(*pos))
        st.menu = menu
        p.send("open_window", wire.open_window(wid, kind))
        self.resync(p, menu)
        if then is not None:
            then(menu)
        self.kernel.emit("window_opened", player=p.display_name, kind=kind, window=wid, pos=pos)
        return menu

    # ---- sending -----------------------------------------------------------------------------------------

    def resync(self, p: Player, menu: Menu) -> None:
        """The whole window (``window_items`` with a new state id) and every window property."""
        inv = p.inventory
        inv.state_id += 1
        p.send("window_items", wire.window_items(menu.window_id, inv.state_id, menu.all_slots(), inv.cursor))
        menu.sent_slots = [menu.get(i) for i in range(menu.n)]
        for k, v in menu.properties().items():
            menu.sent_props[k] = v
            p.send("window_property", wire.window_property(menu.window_id, k, v))

    def broadcast(self, p: Player, menu: Menu) -> None:
        """Vanilla ``broadcastChanges``: container slots and window properties that changed."""
        if menu.sent_slots is None:
            menu.sent_slots = [None] * menu.n
        for i in range(menu.n):
            s = menu.get(i)
            if s != menu.sent_slots[i]:
                menu.sent_slots[i] = s
                p.send_slot(menu.window_id, i, s)
        for k, v in menu.properties().items():
            if menu.sent_props.get(k) != v:
                menu.sent_props[k] = v
                p.send("window_property", wire.window_property(menu.window_id, k, v))

    def correct(self, p: Player, menu: Menu, fix: Corrections, after: list[Stack | None]) -> None:
        """Vanilla ``broadcastChanges`` after a click: only the slots (and cursor) the client mispredicted,
        then the window properties that changed; the container part's sent state is what the client now has
        (each ``set_slot`` with a new state id: :meth:`Player.send_slot`)."""
        for i in fix.slots:
            p.send_slot(menu.window_id, i, after[i])
        if fix.cursor:
            p.send_cursor()
        menu.sent_slots = [menu.get(i) for i in range(menu.n)]
        self.broadcast(p, menu)

    def still_valid(self, p: Player, menu: Menu) -> bool:
        """Vanilla ``stillValid``: the window's block is still there and within 8 blocks of the feet."""
        if menu.pos is None:
            return True
        x, y, z = menu.pos
        if facts.block_name(self.kernel.world.get_block(x, y, z)) != menu.block:
            return False
        fx, fy, fz = p.pos
        return (fx - x - 0.5) ** 2 + (fy - y - 0.5) ** 2 + (fz - z - 0.5) ** 2 <= MAX_DISTANCE_SQ

    def close_invalid(self, p: Player, menu: Menu) -> None:
        """``ServerPlayer.closeContainer``: close the window server-side and tell the client."""
        log.info("%s: window %d (%s) no longer valid: closed", p.display_name, menu.window_id, menu.kind)
        self.close(p, menu.window_id)
        p.send("close_window", wire.close_window(menu.window_id))
        self.kernel.emit("window_closed", player=p.display_name, window=menu.window_id, reason="invalid")

    def tick(self) -> None:
        """Close windows that are no longer valid, then send every open window's changes (a furnace cooks
        while its window is open)."""
        for p in self.kernel.players.values():
            menu = self.state(p).menu
            if menu is None:
                continue
            if not self.still_valid(p, menu):
                self.close_invalid(p, menu)
            else:
                self.broadcast(p, menu)

    def _left(self, b: Behaviour) -> None:
        p = b.player
        st = self.players.pop(p.display_name, None)
        if st is not None and st.menu is not None:
            self.players[p.display_name] = st  # close() looks the state up
            self.close(p, st.menu.window_id)
            self.players.pop(p.display_name, None)

    # ---- clicks and closing --------------------------------------------------------------------------------

    def _on_click(self, b: Behaviour) -> None:
        c: Click = b["click"]
        if c.window == 0:
            return
        b.cancel("windows")
        p = b.player
        menu = self.state(p).menu
        if menu is None or menu.window_id != c.window:
            self.inventory.send_inventory(p)
            return
        if not self.still_valid(p, menu):  # vanilla checks every click
            self.close_invalid(p, menu)
            return
        self.apply_click(p, menu, c)

    def apply_click(self, p: Player, menu: Menu, c: Click) -> None:
        """Apply a click to ``menu``, throw what it threw, and correct the client where it mispredicted."""
        before = menu.all_slots()
        try:
            thrown = menu.click(c.slot, c.button, c.mode)
        except Exception as err:  # noqa: BLE001 - a bad click resyncs the client, never kills the server
            log.info("%s: %s", p.display_name, err)
            self.resync(p, menu)
            return
        for s in thrown:
            self.items.throw(p, Stack(s.item, s.count))
        after = menu.all_slots()
        fix = corrections(c, p.inventory.state_id, before, after, p.inventory.cursor)
        if fix is None:
            self.resync(p, menu)
        else:
            self.correct(p, menu, fix, after)
            if menu.result_after_click:  # vanilla slotChangedCraftingGrid always sends the result
                p.send_slot(menu.window_id, 0, menu.get(0))
        self.kernel.emit("click", player=p.display_name, window=c.window, slot=c.slot, mode=c.mode)

    def _on_close(self, b: Behaviour) -> None:
        window: int = b["window"]
        if window != 0:
            b.cancel("windows")
            self.close(b.player, window)

    def close(self, p: Player, window: int) -> None:
        """Close ``p``'s container window ``window`` (nothing if it is not the open one): the menu's items and
        the cursor go back to the inventory, then the inventory is resent."""
        st = self.state(p)
        menu = st.menu
        if menu is None or menu.window_id != window:
            return
        st.menu = None
        back = menu.closed()
        if p.inventory.cursor is not None:
            back.insert(0, p.inventory.cursor)
            p.inventory.cursor = None
        for s in back:
            self.inventory.give(p, s)
        self.inventory.send_inventory(p)
