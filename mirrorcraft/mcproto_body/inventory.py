"""The player's inventory and open containers, synchronised with the server through window packets.

Why: everything a skill does with items goes through here — equip a pickaxe, move a stack into a chest,
drop junk — and each action is a real window click that a vanilla server validates (see
:mod:`mirrorcraft.mcproto_body.windows` for the prediction). The body knows no recipes: crafting later
is also just clicks here plus whatever the server puts into the result slot.

Packets: ``window_items`` / ``set_slot`` (state ids; window -1 slot -1 = cursor, window -2 = player
inventory without animation, wiki.vg "Set Container Slot"), ``open_window``, ``close_window``,
``held_item_slot``, ``craft_progress_bar`` (window properties). A container window also holds the 36 player
slots; updates to them are mirrored into window 0 so ``player`` is always current.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from twisted.internet import defer, task

from mirrorcraft.errors import ContractError, GameDataError
from mirrorcraft.gamedata import item, item_by_id
from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.mcproto_body.tickrate import GameClock
from mirrorcraft.mcproto_body.windows import (
    HOTBAR_START,
    MAIN_START,
    OUTSIDE,
    ClickPrediction,
    Window,
    apply_prediction,
    menu_slots,
    predict_click,
)
from mirrorcraft.protocol import Slot
from mirrorcraft.protocol.serverbound import (
    BlockDig,
    ChangedSlot,
    CloseWindowServerbound,
    EnchantItem,
    HeldItemSlotServerbound,
    UseItem,
    WindowClick,
)

log = logging.getLogger(__name__)


@dataclass
class ClickResult:
    """Outcome of one click.

    Attributes:
        confirmed: The server's view after the click equals the prediction (no correction arrived, or the
            correction agreed).
        corrected_slots: Slots where the server's answer differed from the prediction.
        prediction: What we sent.
    """

    confirmed: bool
    prediction: ClickPrediction
    corrected_slots: list[int] = field(default_factory=list)


#: Default wait after a click for the server's answer: 5 game ticks (0.25 s at 20 t/s; a vanilla server
#: handles the click at its next tick), but never less than 50 ms of wall time for the socket round trip.
SETTLE_TICKS = 5
SETTLE_MIN_SECONDS = 0.05


class Inventory:
    """Player inventory (window 0), the open container window, held slot, clicks.

    Args:
        conn: The connection.
        settle: Seconds to wait after a click for the server's correction before calling it confirmed;
            ``None`` (default) = :data:`SETTLE_TICKS` game ticks at the server's rate, at least
            :data:`SETTLE_MIN_SECONDS`.
        game_clock: The server's tick rate (default: its own on ``conn``).
    """

    def __init__(
        self, conn: Connection, settle: float | None = None, game_clock: GameClock | None = None
    ) -> None:
        self.conn = conn
        self._settle = settle
        self.game_clock = game_clock if game_clock is not None else GameClock(conn)
        self.player = Window.player()
        self.window: Window | None = None  # the open container, if any
        self.held = 0
        self._updates: list[tuple[int, int, Slot | None]] = []  # (window, slot, item) since the last click
        self._open_waiters: list[defer.Deferred] = []
        conn.on_reset(self._reset)
        conn.on("window_items", self._on_window_items)
        conn.on("set_slot", self._on_set_slot)
        conn.on("open_window", self._on_open_window)
        conn.on("close_window", self._on_close_window)
        conn.on("held_item_slot", self._on_held)
        conn.on("craft_progress_bar", self._on_property)

    # ---------------------------------------------------------------------------------------- queries
    def _reset(self) -> None:
        self.player = Window.player()
        self.window = None
        self.held = 0

    @property
    def active(self) -> Window:
        """The window clicks go to: the open container, else the player inventory."""
        return self.window if self.window is not None else self.player

    @property
    def held_item(self) -> Slot | None:
        """The stack in the selected hotbar slot."""
        return self.player.slots[HOTBAR_START + self.held]

    def held_item_name(self) -> str | None:
        """``minecraft:`` name of the held stack."""
        s = self.held_item
        return None if s is None else item_by_id(s.item_id).name

    def count(self, name: str) -> int:
        """How many of item ``name`` the player carries (main, hotbar, offhand, cursor)."""
        iid = item(name).id
        slots = self.player.slots[MAIN_START:] + [self.active.cursor]
        return sum(s.count for s in slots if s is not None and s.item_id == iid)

    def contents(self) -> dict[str, int]:
        """``{item name: count}`` over main inventory, hotbar and offhand."""
        out: dict[str, int] = {}
        for s in self.player.slots[MAIN_START:]:
            if s is not None:
                name = item_by_id(s.item_id).name
                out[name] = out.get(name, 0) + s.count
        return out

    def find(self, name: str, window: Window | None = None, player_only: bool = True) -> int | None:
        """First slot of ``window`` (default: active) holding item ``name`` (player slots only by default)."""
        win = window or self.active
        iid = item(name).id
        start = 0 if win.id == 0 or not player_only else win.container_slots
        if win.id == 0 and player_only:
            start = MAIN_START
        for i in range(start, len(win.slots)):
            s = win.slots[i]
            if s is not None and s.item_id == iid:
                return i
        return None

    def empty_slot(self, window: Window | None = None, container: bool = False) -> int | None:
        """First empty slot: in the container part (``container=True``) or the player part of ``window``."""
        win = window or self.active
        if container:
            rng = range(0, win.container_slots)
        else:
            rng = range(MAIN_START if win.id == 0 else win.container_slots, len(win.slots))
        for i in rng:
            if win.slots[i] is None:
                return i
        return None

    @property
    def settle(self) -> float:
        """Seconds a click waits for the server's answer (see the ``settle`` argument)."""
        if self._settle is not None:
            return self._settle
        return max(SETTLE_MIN_SECONDS, self.game_clock.ticks_to_seconds(SETTLE_TICKS))

    # --------------------------------------------------------------------------------------- actions
    def click(self, slot: int, button: int = 0, mode: int = 0) -> defer.Deferred:
        """Click ``slot`` of the active window; fires with a :class:`ClickResult` after ``settle`` seconds.

        Raises (synchronously):
            ContractError: invalid slot/mode (from the prediction).
        """
        win = self.active
        pred = predict_click(win, slot, button, mode)
        pkt = WindowClick(
            window_id=win.id,
            state_id=win.state_id,
            slot=slot,
            mouse_button=button,
            mode=mode,
            changed_slots=[ChangedSlot(location=i, item=s) for i, s in sorted(pred.changed.items())],
            cursor_item=pred.cursor,
        )
        apply_prediction(win, pred)
        if win.id != 0:
            self._mirror_to_player(win, pred.changed)
        self._updates = []
        self.conn.send(pkt)
        return task.deferLater(self.conn.clock, self.settle, self._judge, win, pred)

    def _judge(self, win: Window, pred: ClickPrediction) -> ClickResult:
        wrong = []
        for w_id, s, _item in self._updates:
            if w_id == win.id and s in pred.changed and win.slots[s] != pred.changed[s]:
                wrong.append(s)
        return ClickResult(confirmed=not wrong, prediction=pred, corrected_slots=sorted(set(wrong)))

    def select_hotbar(self, index: int) -> None:
        """Select hotbar slot 0..8 (sends held_item_slot).

        Raises:
            ContractError: index outside 0..8.
        """
        if not 0 <= index <= 8:
            raise ContractError(f"hotbar index {index} outside 0..8")
        self.held = index
        self.conn.send(HeldItemSlotServerbound(slot_id=index))

    async def equip(self, name: str) -> bool:
        """Hold item ``name`` in the main hand: select it if on the hotbar, else swap it into the held slot.

        Returns:
            True if the held stack is now ``name``; False if the player has none.
        """
        try:
            iid = item(name).id
        except GameDataError as err:
            raise ContractError(f"equip: {err}") from err
        for i in range(9):
            s = self.player.slots[HOTBAR_START + i]
            if s is not None and s.item_id == iid:
                self.select_hotbar(i)
                return True
        src = self.find(name, self.player)
        if src is None:
            return False
        if self.window is not None:
            await self.close()
        await self.click(src, self.held, mode=2)
        held = self.held_item
        return held is not None and held.item_id == iid

    async def move_stack(self, src: int, dst: int) -> ClickResult:
        """Move (or merge) the stack in ``src`` to ``dst`` in the active window with pickup clicks.

        Any remainder that does not fit is put back into ``src``.
        """
        await self.click(src, 0, 0)
        result = await self.click(dst, 0, 0)
        if self.active.cursor is not None:
            result = await self.click(src, 0, 0)
        return result

    async def shift_click(self, slot: int) -> ClickResult:
        """Quick-move a stack between container and player inventory."""
        return await self.click(slot, 0, 1)

    async def drop(self, slot: int, whole_stack: bool = True) -> ClickResult:
        """Throw (Q) the stack, or one item, from a slot of the active window."""
        return await self.click(slot, 1 if whole_stack else 0, 4)

    def drop_held(self, whole_stack: bool = True) -> None:
        """Drop the held item with the player-action packet (status 3 stack / 4 one item)."""
        self.conn.send(BlockDig(status=3 if whole_stack else 4, location=(0, 0, 0), face=0, sequence=0))
        s = self.held_item
        if s is not None:
            n = s.count - (s.count if whole_stack else 1)
            self.player.slots[HOTBAR_START + self.held] = Slot(s.item_id, n, s.nbt) if n > 0 else None

    def activate_item(self, hand: int = 0) -> None:
        """Use the held item in the air (right click: start eating, drinking, drawing a bow...).

        Sends "Use Item" with the next 1.19 sequence number (wiki.vg "Use Item"); what happens is the
        server's decision, seen in later packets (mineflayer's ``bot.activateItem``).

        Args:
            hand: 0 main hand, 1 off hand.
        """
        self.conn.send(UseItem(hand=hand, sequence=self.conn.next_sequence()))

    def enchant(self, window: Window, option: int) -> None:
        """Pick enchantment offer ``option`` (0, 1 or 2: top to bottom) of an open enchanting table.

        Sends "Click Container Button" (``enchant_item``, wiki.vg); the server checks levels and lapis and
        answers with the enchanted item's slot update (mineflayer's ``enchantmentTable.enchant``).
        """
        self.conn.send(EnchantItem(window_id=window.id, enchantment=option))

    async def drop_cursor(self) -> ClickResult:
        """Throw whatever is on the cursor out of the window."""
        return await self.click(OUTSIDE, 0, 0)

    def wait_open(self, timeout: float = 5.0) -> defer.Deferred:
        """Fires with the next opened :class:`Window`."""
        d: defer.Deferred = defer.Deferred()
        self._open_waiters.append(d)
        d.addTimeout(timeout, self.conn.clock)
        return d

    async def close(self) -> None:
        """Close the open container (vanilla: the cursor stack falls back into the inventory server-side)."""
        if self.window is None:
            return
        self.conn.send(CloseWindowServerbound(window_id=self.window.id))
        self.window = None
        self.player.cursor = None

    # ---------------------------------------------------------------------------------------- handlers
    def _window(self, window_id: int) -> Window | None:
        if window_id == 0:
            return self.player
        if self.window is not None and self.window.id == window_id:
            return self.window
        return None

    def _mirror_to_player(self, win: Window, changed: dict[int, Slot | None]) -> None:
        for i, s in changed.items():
            if i >= win.container_slots:
                j = MAIN_START + i - win.container_slots
                if j < HOTBAR_START + 9:
                    self.player.slots[j] = s

    def _mirror_from_player(self, index: int, s: Slot | None) -> None:
        win = self.window
        if win is not None and MAIN_START <= index < HOTBAR_START + 9:
            j = win.player_slot(index)
            if j < len(win.slots):
                win.slots[j] = s

    def _on_window_items(self, pkt: Any) -> None:
        win = self._window(pkt.window_id)
        if win is None:
            return
        items = list(pkt.items)
        if len(items) != len(win.slots):
            # flying-squid sends only the container's own slots for a chest: keep the player part we know.
            if win.id != 0 and len(items) == win.container_slots:
                items = items + win.slots[win.container_slots :]
            else:
                log.info("window %d: %d slots sent, %d expected", win.id, len(items), len(win.slots))
                items = (items + [None] * len(win.slots))[: len(win.slots)]
        for i, s in enumerate(items):
            if win.slots[i] != s:
                self._updates.append((win.id, i, s))
        win.slots = items
        win.state_id = pkt.state_id
        win.cursor = pkt.carried_item
        if win.id != 0:
            self._mirror_to_player(win, dict(enumerate(items)))

    def _on_set_slot(self, pkt: Any) -> None:
        if pkt.window_id == -1 and pkt.slot == -1:
            self.active.cursor = pkt.item
            return
        win = self.player if pkt.window_id == -2 else self._window(pkt.window_id)
        if win is None or not 0 <= pkt.slot < len(win.slots):
            return
        win.slots[pkt.slot] = pkt.item
        if pkt.window_id != -2:
            win.state_id = pkt.state_id
        self._updates.append((win.id, pkt.slot, pkt.item))
        if win.id == 0:
            self._mirror_from_player(pkt.slot, pkt.item)
        else:
            self._mirror_to_player(win, {pkt.slot: pkt.item})

    def _on_open_window(self, pkt: Any) -> None:
        name, n = menu_slots(pkt.inventory_type)
        slots = [None] * n + self.player.slots[MAIN_START : HOTBAR_START + 9]
        self.window = Window(pkt.window_id, name, slots, n, title=pkt.window_title)
        waiters, self._open_waiters = self._open_waiters, []
        for d in waiters:
            if not d.called:
                d.callback(self.window)

    def _on_close_window(self, pkt: Any) -> None:
        if self.window is not None and self.window.id == pkt.window_id:
            self.window = None

    def _on_held(self, pkt: Any) -> None:
        if 0 <= pkt.slot <= 8:
            self.held = pkt.slot

    def _on_property(self, pkt: Any) -> None:
        win = self._window(pkt.window_id)
        if win is not None:
            win.properties[pkt.property] = pkt.value
