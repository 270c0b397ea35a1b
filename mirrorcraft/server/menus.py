"""Container menus: the player's 2x2 crafting grid, the crafting table, the furnace family and the enchanting
table — slot layouts, the server half of click handling, result slots and window properties.

Why a separate module: part 1's :class:`~mirrorcraft.server.inventory.PlayerInventory` models window 0's
click semantics; every *container* window is a different slot layout over two storages (the container's
slots, then the player's 27 main + 9 hotbar slots). :class:`Menu` is that layout plus vanilla's
``AbstractContainerMenu.doClick`` for it, and each subclass adds what vanilla's menu class adds: which
slots accept what (``Slot.mayPlace``), where shift-click moves a stack (``quickMoveStack``), and what
taking from a result slot does (``ResultSlot.onTake``, ``FurnaceResultSlot``). The rules themselves come
from the landed engines: :class:`~mirrorcraft.rules.recipes.RecipeBook` (through the evaluator's
:class:`~mirrorcraft.rules.oracle.OutcomeOracle`, so every craft is logged with its vanilla outcome),
:class:`~mirrorcraft.rules.cooking.CookingDevice` and
:class:`~mirrorcraft.rules.enchanting.EnchantingTable`.

Layouts (wiki.vg "Inventory", 1.19.2; menu type ids from the 1.19 ``minecraft:menu`` registry, the same
order prismarine-windows uses): crafting (11) 0 result, 1-9 grid, 10-45 inventory; furnace (13), blast
furnace (9), smoker (21) 0 input, 1 fuel, 2 output, 3-38 inventory; enchantment (12) 0 item, 1 lapis,
2-37 inventory. Window properties: furnace 0-3 (fuel left, fuel total, progress, progress total),
enchantment 0-9 (three costs, seed & -16, three clue ids, three clue levels).

Stacks are ``(item id, count)`` tuples as in part 1, optionally with a third element: the item's NBT
compound (enchantments). Partial: window 0's own click code (part 1) keeps only ``(item, count)`` when it
splits a stack, and part 1's window-0 resync does not send NBT, so an enchanted item shows its enchantment
while it is in a container window; the server keeps it on whole-stack moves. Crafting takes need room for
the whole result (vanilla may move part of a shift-crafted stack); swap-with-hotbar and throw on a result
slot are ignored (vanilla crafts into the hotbar / the ground).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import nbtlib

from mirrorcraft.errors import ContractError
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.buffer import Slot
from mirrorcraft.protocol.codec import encode
from mirrorcraft.rules.cooking import FUEL, INPUT, OUTPUT, CookingDevice
from mirrorcraft.rules.cooking import Stack as CookStack
from mirrorcraft.server import facts
from mirrorcraft.server.inventory import OFFHAND, OUTSIDE, Click, PlayerInventory

if TYPE_CHECKING:
    from mirrorcraft.server.progress import Rules

log = logging.getLogger(__name__)

Stack = tuple[Any, ...] | None  # (item id, count) or (item id, count, nbt compound)

# wiki.vg "Inventory" / the 1.19 minecraft:menu registry (prismarine-windows assigns the same ids).
MENU_TYPES = {"chest": 2, "blast_furnace": 9, "crafting": 11, "enchantment": 12, "furnace": 13, "smoker": 21}
MENU_TITLES = {
    "crafting": "container.crafting",
    "furnace": "container.furnace",
    "blast_furnace": "container.blast_furnace",
    "smoker": "container.smoker",
    "enchantment": "container.enchant",
    "chest": "container.chest",
}
# Blocks whose use (right click) opens a menu, and the menu kind.
MENU_BLOCKS = {
    "minecraft:crafting_table": "crafting",
    "minecraft:furnace": "furnace",
    "minecraft:blast_furnace": "blast_furnace",
    "minecraft:smoker": "smoker",
    "minecraft:enchanting_table": "enchantment",
}


# ---- stack helpers ------------------------------------------------------------------------------------


def with_count(s: Stack, n: int) -> Stack:
    """``s`` with count ``n`` (its NBT kept); ``None`` when ``n`` <= 0."""
    if s is None or n <= 0:
        return None
    return (s[0], n, *s[2:])


def same_kind(a: Stack, b: Stack) -> bool:
    """Whether two stacks may merge (same item and NBT)."""
    return a is not None and b is not None and a[0] == b[0] and tuple(a[2:]) == tuple(b[2:])


def plain(s: Stack) -> tuple[int, int] | None:
    """``(item, count)`` of a stack (what part 1 compares client predictions with)."""
    return (s[0], s[1]) if s else None


def wire_slot(s: Stack) -> Slot | None:
    """The protocol slot for a stack, NBT included."""
    if s is None or s[1] <= 0:
        return None
    return Slot(s[0], s[1], s[2] if len(s) > 2 else None)


def name_of(s: Stack) -> str | None:
    """Namespaced item name of a stack (``None`` for empty)."""
    return f"minecraft:{facts.item_name(s[0])}" if s else None


def enchantments_of(s: Stack) -> dict[str, int]:
    """Enchantment id → level stored in a stack's NBT (``Enchantments`` or ``StoredEnchantments``)."""
    if s is None or len(s) < 3 or s[2] is None:
        return {}
    tag = s[2]
    out: dict[str, int] = {}
    for key in ("Enchantments", "StoredEnchantments"):
        for e in tag.get(key, []):
            out[str(e["id"])] = int(e["lvl"])
    return out


def enchanted_nbt(item: str, enchantments: dict[str, int], book_item: str) -> nbtlib.Compound:
    """Item NBT for enchantments as vanilla stores them (``EnchantmentHelper`` / ``EnchantedBookItem``)."""
    key = "StoredEnchantments" if item == book_item else "Enchantments"
    return nbtlib.Compound(
        {
            key: nbtlib.List[nbtlib.Compound](
                [
                    nbtlib.Compound({"id": nbtlib.String(e), "lvl": nbtlib.Short(lvl)})
                    for e, lvl in enchantments.items()
                ]
            )
        }
    )


def max_stack_of(s: Stack) -> int:
    return facts.stack_size(s[0]) if s else 64


# ---- the generic menu --------------------------------------------------------------------------------


class Menu:
    """One open container window: ``n`` container slots, then the player's main (27) and hotbar (9).

    Subclasses implement :meth:`cget`/:meth:`cset` (container storage) and may override
    :meth:`can_place`, :meth:`quick_move`, :meth:`take_result`, :meth:`slots_changed`,
    :meth:`properties` and :meth:`closed`.
    """

    kind = ""
    n = 0
    result_slot: int | None = None

    def __init__(self, rules: Rules, player: Any, window_id: int) -> None:
        self.rules = rules
        self.player = player
        self.inv: PlayerInventory = player.inventory
        self.window_id = window_id
        self._drag: tuple[int, list[int]] | None = None
        self.sent_props: dict[int, int] = {}

    # -- slot mapping ------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.n + 36

    def inv_index(self, i: int) -> int:
        """Player-inventory (window 0) index of menu slot ``i`` >= ``n``."""
        j = i - self.n
        return 9 + j if j < 27 else 36 + (j - 27)

    def cget(self, i: int) -> Stack:
        raise NotImplementedError

    def cset(self, i: int, s: Stack) -> None:
        raise NotImplementedError

    def get(self, i: int) -> Stack:
        return self.cget(i) if i < self.n else self.inv.slots[self.inv_index(i)]

    def set(self, i: int, s: Stack) -> None:
        if i < self.n:
            self.cset(i, s)
        else:
            self.inv.slots[self.inv_index(i)] = s

    def all_slots(self) -> list[Stack]:
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
        count = s[1]
        order = list(range(start, end))
        if reverse:
            order.reverse()
        for idx in order:
            t = self.get(idx)
            if count and t is not None and same_kind(t, s):
                room = min(self.limit(idx, s), max_stack_of(s)) - t[1]
                if room > 0:
                    put = min(room, count)
                    self.set(idx, with_count(t, t[1] + put))
                    count -= put
        for idx in order:
            if count and self.get(idx) is None and self.can_place(idx, s):
                put = min(count, self.limit(idx, s))
                self.set(idx, with_count(s, put))
                count -= put
        if count == s[1]:
            return False
        self.set(src, with_count(s, count))
        return True

    def take_result(self, shift: bool, button: int) -> None:
        """Click on the result slot (mode 0 or, with ``shift``, mode 1)."""

    def slots_changed(self) -> None:
        """Called after every click (crafting results, enchantment offers)."""

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
        thrown: list[Stack] = []
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
                    n = c[1] if button == 0 else 1
                    thrown.append(with_count(c, n))
                    self.inv.cursor = with_count(c, c[1] - n)
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
                    n = s[1] if button == 1 else 1
                    thrown.append(with_count(s, n))
                    self.set(slot, with_count(s, s[1] - n))
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
            take = s[1] if button == 0 else (s[1] + 1) // 2
            self.inv.cursor = with_count(s, take)
            self.set(slot, with_count(s, s[1] - take))
        elif s is None:
            if not self.can_place(slot, c):
                return
            put = min(c[1] if button == 0 else 1, self.limit(slot, c))
            self.set(slot, with_count(c, put))
            self.inv.cursor = with_count(c, c[1] - put)
        elif same_kind(s, c):
            if not self.can_place(slot, c):
                return
            put = min(c[1] if button == 0 else 1, min(self.limit(slot, c), max_stack_of(c)) - s[1])
            if put <= 0:
                return
            self.set(slot, with_count(s, s[1] + put))
            self.inv.cursor = with_count(c, c[1] - put)
        elif self.can_place(slot, c) and c[1] <= self.limit(slot, c):
            self.set(slot, c)
            self.inv.cursor = s

    def _swap(self, slot: int, button: int) -> None:
        if button == 40:
            other = OFFHAND
        elif 0 <= button <= 8:
            other = 36 + button
        else:
            raise ContractError(f"click_window: swap with button {button} (expected 0-8 or 40)")
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
            count = c[1]
            each = 1 if kind == 1 else count // len(drag[1])
            for idx in drag[1]:
                if count <= 0:
                    break
                s = self.get(idx)
                have = s[1] if s else 0
                put = min(each, count, min(self.limit(idx, c), max_stack_of(c)) - have)
                if put > 0:
                    self.set(idx, with_count(c, have + put))
                    count -= put
            self.inv.cursor = with_count(c, count)

    def _pickup_all(self) -> None:
        c = self.inv.cursor
        if c is None:
            return
        count, lim = c[1], max_stack_of(c)
        for full_pass in (False, True):
            for idx in range(self.size):
                if count >= lim:
                    break
                if idx == self.result_slot:
                    continue
                s = self.get(idx)
                if s is not None and same_kind(s, c) and (full_pass or s[1] < lim):
                    take = min(s[1], lim - count)
                    self.set(idx, with_count(s, s[1] - take))
                    count += take
        self.inv.cursor = with_count(c, count)


# ---- crafting ------------------------------------------------------------------------------------------


class CraftingMenu(Menu):
    """The crafting table (3x3 grid, result slot 0, grid 1-9); vanilla ``CraftingMenu``."""

    kind = "crafting"
    n = 10
    result_slot = 0
    width = 3

    def __init__(self, rules: Rules, player: Any, window_id: int) -> None:
        super().__init__(rules, player, window_id)
        self.grid: list[Stack] = [None] * (self.width * self.width)
        self.result: Stack = None

    def cget(self, i: int) -> Stack:
        return self.result if i == 0 else self.grid[i - 1]

    def cset(self, i: int, s: Stack) -> None:
        if i == 0:
            self.result = s
        else:
            self.grid[i - 1] = s

    def grid_names(self) -> list[list[str | None]]:
        w = self.width
        return [[name_of(self.grid[r * w + c]) for c in range(w)] for r in range(w)]

    def slots_changed(self) -> None:
        match = self.rules.oracle.book.match(self.grid_names())
        self.result = (facts.item_id(match.item), match.count) if match else None

    def quick_move(self, i: int) -> None:
        if 1 <= i <= 9:
            self.move_into(i, 10, 46)
        elif 10 <= i < 46:
            if not self.move_into(i, 1, 10):
                if i < 37:
                    self.move_into(i, 37, 46)
                else:
                    self.move_into(i, 10, 37)

    def result_targets(self) -> tuple[int, int]:
        return 10, 46

    def take_result(self, shift: bool, button: int) -> None:
        """ResultSlot.onTake (and doClick's repeat for shift-click): consume the grid, keep remainders."""
        while True:
            self.slots_changed()
            res = self.result
            if res is None:
                return
            if shift:
                if not self._fits_all(res):
                    return
            else:
                c = self.inv.cursor
                if c is not None and not (same_kind(c, res) and c[1] + res[1] <= max_stack_of(c)):
                    return
            grid = self.grid_names()
            actual, outcome = self.rules.oracle.craft(grid)
            if actual is None:
                return
            if shift:
                self.result = res
                start, end = self.result_targets()
                self.move_into(0, start, end, reverse=True)
            else:
                c = self.inv.cursor
                self.inv.cursor = res if c is None else with_count(c, c[1] + res[1])
            self.result = None
            self._consume(actual.remaining)
            self.rules.crafted(self.player, grid, actual, outcome)
            if not shift:
                break

    def _fits_all(self, s: Stack) -> bool:
        start, end = self.result_targets()
        room = 0
        for idx in range(start, end):
            t = self.get(idx)
            if t is None and self.can_place(idx, s):
                room += max_stack_of(s)
            elif t is not None and same_kind(t, s):
                room += max_stack_of(s) - t[1]
        return room >= s[1]

    def _consume(self, remaining: tuple[tuple[str | None, ...], ...]) -> None:
        w = self.width
        for idx, s in enumerate(self.grid):
            if s is None:
                continue
            rest = remaining[idx // w][idx % w] if idx // w < len(remaining) else None
            self.grid[idx] = with_count(s, s[1] - 1)
            if rest:
                rest_stack = (facts.item_id(rest.removeprefix("minecraft:")), 1)
                if self.grid[idx] is None:
                    self.grid[idx] = rest_stack
                else:
                    self.rules.give(self.player, rest_stack)

    def closed(self) -> list[Stack]:
        out = [s for s in self.grid if s]
        self.grid = [None] * len(self.grid)
        self.result = None
        return out


class InventoryCrafting(CraftingMenu):
    """The player's 2x2 grid in window 0 (slots 0 result, 1-4 grid live in the inventory's slot list).

    Only the result slot's clicks come here; every other window-0 click is part 1's
    :meth:`PlayerInventory.click`.
    """

    kind = "inventory"
    n = 5
    width = 2

    def __init__(self, rules: Rules, player: Any) -> None:
        Menu.__init__(self, rules, player, 0)

    @property
    def size(self) -> int:
        return 46

    def inv_index(self, i: int) -> int:
        return i

    def get(self, i: int) -> Stack:
        return self.inv.slots[i]

    def set(self, i: int, s: Stack) -> None:
        self.inv.slots[i] = s

    @property
    def grid(self) -> list[Stack]:  # type: ignore[override]
        return self.inv.slots[1:5]

    @grid.setter
    def grid(self, value: list[Stack]) -> None:
        self.inv.slots[1:5] = value

    @property
    def result(self) -> Stack:  # type: ignore[override]
        return self.inv.slots[0]

    @result.setter
    def result(self, value: Stack) -> None:
        self.inv.slots[0] = value

    def result_targets(self) -> tuple[int, int]:
        return 9, 45

    def _consume(self, remaining: tuple[tuple[str | None, ...], ...]) -> None:
        grid = list(self.inv.slots[1:5])
        for idx, s in enumerate(grid):
            if s is None:
                continue
            rest = remaining[idx // 2][idx % 2]
            grid[idx] = with_count(s, s[1] - 1)
            if rest:
                rest_stack = (facts.item_id(rest.removeprefix("minecraft:")), 1)
                if grid[idx] is None:
                    grid[idx] = rest_stack
                else:
                    self.rules.give(self.player, rest_stack)
        self.inv.slots[1:5] = grid


# ---- furnaces ------------------------------------------------------------------------------------------


class FurnaceMenu(Menu):
    """Furnace, blast furnace or smoker window over a :class:`CookingDevice` block entity."""

    n = 3
    result_slot = OUTPUT

    def __init__(self, rules: Rules, player: Any, window_id: int, device: CookingDevice, pos: tuple) -> None:
        super().__init__(rules, player, window_id)
        self.device = device
        self.pos = pos
        self.kind = device.device

    def cget(self, i: int) -> Stack:
        s = self.device.slots[i]
        return (facts.item_id(s.item.removeprefix("minecraft:")), s.count) if s else None

    def cset(self, i: int, s: Stack) -> None:
        self.device.put(i, CookStack(name_of(s), s[1]) if s else None)  # type: ignore[arg-type]

    def can_place(self, i: int, s: Stack) -> bool:
        if i == OUTPUT:
            return False
        if i == FUEL:
            name = name_of(s)
            return bool(name) and (self.device.fuels.is_fuel(name) or name == "minecraft:bucket")  # type: ignore[union-attr]
        return True

    def quick_move(self, i: int) -> None:
        if i < 3:
            self.move_into(i, 3, 39)
            return
        s = self.get(i)
        name = name_of(s)
        if name and self.device.book.cooking_recipe(self.device.recipe_type, name) is not None:  # type: ignore[union-attr]
            if self.move_into(i, INPUT, INPUT + 1):
                return
        if name and self.device.fuels.is_fuel(name):  # type: ignore[union-attr]
            if self.move_into(i, FUEL, FUEL + 1):
                return
        if i < 30:
            self.move_into(i, 30, 39)
        else:
            self.move_into(i, 3, 30)

    def take_result(self, shift: bool, button: int) -> None:
        out = self.get(OUTPUT)
        if out is None:
            return
        if shift:
            room = 0
            for idx in range(3, 39):
                t = self.get(idx)
                if t is None:
                    room += max_stack_of(out)
                elif same_kind(t, out):
                    room += max_stack_of(out) - t[1]
            n = min(room, out[1])
        else:
            c = self.inv.cursor
            n = out[1] if button == 0 else (out[1] + 1) // 2
            if c is not None:
                if not same_kind(c, out):
                    return
                n = min(n, max_stack_of(c) - c[1])
        if n <= 0:
            return
        take = self.device.take_output(n, rng=self.rules.xp_rng)
        if take is None:
            return
        stack = (out[0], take.count)
        if shift:
            self._put_inventory(stack)
        else:
            c = self.inv.cursor
            self.inv.cursor = stack if c is None else with_count(c, c[1] + take.count)
        self.rules.smelted(self.player, self.device.device, take, self.pos)

    def _put_inventory(self, s: Stack) -> None:
        count = s[1]
        order = list(range(38, 2, -1))  # moveItemStackTo(3, 39, reverse=true)
        for idx in order:
            t = self.get(idx)
            if count and t is not None and same_kind(t, s) and t[1] < max_stack_of(s):
                put = min(count, max_stack_of(s) - t[1])
                self.set(idx, with_count(t, t[1] + put))
                count -= put
        for idx in order:
            if count and self.get(idx) is None:
                put = min(count, max_stack_of(s))
                self.set(idx, with_count(s, put))
                count -= put

    def properties(self) -> dict[int, int]:
        return self.device.properties()


# ---- enchanting -------------------------------------------------------------------------------------------


class EnchantmentMenu(Menu):
    """The enchanting table window (``EnchantmentMenu``): slot 0 the item, slot 1 lapis."""

    kind = "enchantment"
    n = 2

    def __init__(self, rules: Rules, player: Any, window_id: int, pos: tuple[int, int, int]) -> None:
        super().__init__(rules, player, window_id)
        self.pos = pos
        self.items: list[Stack] = [None, None]
        self.offers: list[Any] = []
        self._props: dict[int, int] = {}
        self.slots_changed()

    def cget(self, i: int) -> Stack:
        return self.items[i]

    def cset(self, i: int, s: Stack) -> None:
        self.items[i] = s

    def limit(self, i: int, s: Stack) -> int:
        return 1 if i == 0 else max_stack_of(s)

    def can_place(self, i: int, s: Stack) -> bool:
        if i == 1:
            return name_of(s) == self.rules.table.lapis
        return True

    def quick_move(self, i: int) -> None:
        if i < 2:
            self.move_into(i, 2, 38, reverse=True)
            return
        s = self.get(i)
        if name_of(s) == self.rules.table.lapis:
            self.move_into(i, 1, 2)
        elif self.items[0] is None and s is not None:
            self.items[0] = with_count(s, 1)
            self.set(i, with_count(s, s[1] - 1))

    def bookshelves(self) -> int:
        from mirrorcraft.rules.enchanting import count_bookshelves

        x0, y0, z0 = self.pos
        world = self.rules.game.world
        shelf = self.rules.table.bookshelf.removeprefix("minecraft:")

        def is_shelf(dx: int, dy: int, dz: int) -> bool:
            return facts.block_name(world.get_block(x0 + dx, y0 + dy, z0 + dz)) == shelf

        def is_air(dx: int, dy: int, dz: int) -> bool:
            return facts.is_air(world.get_block(x0 + dx, y0 + dy, z0 + dz))

        return count_bookshelves(is_shelf, is_air)

    def slots_changed(self) -> None:
        item = self.items[0]
        table = self.rules.table
        seed = self.rules.state(self.player).enchant_seed
        if item is not None and not enchantments_of(item) and table.item_enchantability(name_of(item)) > 0:  # type: ignore[arg-type]
            self.offers = table.offers(name_of(item), self.bookshelves(), seed)  # type: ignore[arg-type]
        else:
            self.offers = []
        if self.offers:
            self._props = table.properties(self.offers, seed)
        else:
            self._props = {k: 0 for k in range(3)} | {3: seed & -16} | {k: -1 for k in range(4, 10)}

    def properties(self) -> dict[int, int]:
        return self._props

    def enchant(self, button: int) -> bool:
        """``EnchantmentMenu.clickMenuButton``: True if the item was enchanted."""
        item, lapis = self.items
        if item is None or not self.offers or button not in (0, 1, 2):
            return False
        st = self.rules.state(self.player)
        table = self.rules.table
        name = name_of(item)
        res = table.enchant(
            name,  # type: ignore[arg-type]
            button,
            self.bookshelves(),
            st.enchant_seed,
            levels=st.level,
            lapis=lapis[1] if lapis else 0,
            player_random=st.java_random,
        )
        if res is None:
            return False
        new_item = (
            facts.item_id(res.item.removeprefix("minecraft:")),
            1,
            enchanted_nbt(res.item, res.enchantments, table.book),
        )
        self.items[0] = new_item
        self.items[1] = with_count(lapis, lapis[1] - res.lapis_spent)  # type: ignore[index]
        st.enchant_seed = res.new_seed
        self.rules.enchanted(self.player, name, res)  # type: ignore[arg-type]
        self.slots_changed()
        return True

    def closed(self) -> list[Stack]:
        out = [s for s in self.items if s]
        self.items = [None, None]
        return out


# ---- packets ---------------------------------------------------------------------------------------------


def window_items_body(menu: Menu, state_id: int, carried: Stack) -> bytes:
    return encode(
        cb.WindowItems(
            window_id=menu.window_id,
            state_id=state_id,
            items=[wire_slot(s) for s in menu.all_slots()],
            carried_item=wire_slot(carried),
        )
    )


def set_slot_body(window: int, state_id: int, index: int, s: Stack) -> bytes:
    return encode(cb.SetSlot(window_id=window, state_id=state_id, slot=index, item=wire_slot(s)))


def property_body(window: int, prop: int, value: int) -> bytes:
    # wiki.vg "Set Container Property": i16 value (furnace ticks and enchantment seeds & -16 are cut to
    # 16 bits by vanilla too: ContainerData slots are shorts on the wire).
    v = ((value + 0x8000) & 0xFFFF) - 0x8000
    return encode(cb.CraftProgressBar(window_id=window, property=prop, value=v))


def open_window_body(window: int, kind: str) -> bytes:
    title = json.dumps({"translate": MENU_TITLES[kind]})
    return encode(cb.OpenWindow(window_id=window, inventory_type=MENU_TYPES[kind], window_title=title))


def predicted_matches(menu: Menu, click: Click, before: list[Stack]) -> bool:
    """Whether the client's predicted slots and cursor equal the server's result (no resync needed)."""
    inv = menu.inv
    if click.state_id != inv.state_id or click.carried != plain(inv.cursor):
        return False
    after = menu.all_slots()
    predicted = dict(click.changed)
    for idx, s in predicted.items():
        if not 0 <= idx < len(after) or s != plain(after[idx]):
            return False
    for idx, (a, b) in enumerate(zip(before, after, strict=True)):
        if a != b and idx not in predicted:
            return False
    return True


MenuFactory = Callable[..., Menu]
