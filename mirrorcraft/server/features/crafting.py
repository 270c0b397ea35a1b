"""Crafting: the crafting table's window and the player's 2x2 grid, with results from the world's recipes.

Vanilla behaviour followed (``CraftingMenu``, ``InventoryMenu``, ``ResultSlot.onTake``): the result slot
shows the recipe book's match for the grid (:class:`~mirrorcraft.rules.recipe_book.RecipeBook` of the world's
packs, through the :class:`~mirrorcraft.rules.oracle.OutcomeOracle`, so every take is published with its
vanilla outcome as a ``craft`` outcome); taking it consumes one of each grid item and leaves the recipe's
remainders (a bucket...), in the grid when its slot emptied, else in the inventory; shift-click repeats the
take while the whole result fits (vanilla may move part of a shift-crafted stack: partial). The 2x2 grid
lives in window 0's slots 1-4: only clicks on its result slot come here (through the ``"click"``
behaviour); after every other window-0 click the result is recomputed and sent (always when the grid was
clicked, as vanilla's ``slotChangedCraftingGrid``; Mineflayer waits for it). Closing window 0 clears the
result slot (the inventory feature returns the grid).
"""

from __future__ import annotations

from mirrorcraft.rules.blocks import menu_blocks
from mirrorcraft.rules.oracle import Outcome
from mirrorcraft.rules.recipes import CraftResult
from mirrorcraft.server import facts, outcomes
from mirrorcraft.server.features.inventory import Inventory
from mirrorcraft.server.features.windows import Menu, Windows
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.inventory import Click
from mirrorcraft.server.kernel.stacks import Stack, max_stack_of, same_kind, with_count
from mirrorcraft.server.world_rules import WorldRules


class CraftingMenu(Menu):
    """The crafting table (3x3 grid, result slot 0, grid 1-9); vanilla ``CraftingMenu``."""

    kind = "crafting"
    n = 10
    result_slot = 0
    width = 3
    result_after_click = True

    def __init__(self, crafting: Crafting, player: Player, window_id: int) -> None:
        super().__init__(player, window_id)
        self.crafting = crafting
        self.grid: list[Stack | None] = [None] * (self.width * self.width)
        self.result: Stack | None = None

    def cget(self, i: int) -> Stack | None:
        return self.result if i == 0 else self.grid[i - 1]

    def cset(self, i: int, s: Stack | None) -> None:
        if i == 0:
            self.result = s
        else:
            self.grid[i - 1] = s

    def grid_names(self) -> list[list[str | None]]:
        w = self.width
        grid = self.grid
        return [[s.item if (s := grid[r * w + c]) else None for c in range(w)] for r in range(w)]

    def slots_changed(self) -> None:
        match = self.crafting.rules.oracle.book.match(self.grid_names())
        self.result = Stack(facts.item_key(match.item), match.count) if match else None

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
                if c is not None and not (same_kind(c, res) and c.count + res.count <= max_stack_of(c)):
                    return
            grid = self.grid_names()
            actual, outcome = self.crafting.rules.oracle.craft(grid)
            if actual is None:
                return
            if shift:
                self.result = res
                start, end = self.result_targets()
                self.move_into(0, start, end, reverse=True)
            else:
                c = self.inv.cursor
                self.inv.cursor = res if c is None else with_count(c, c.count + res.count)
            self.result = None
            self._consume(actual.remaining)
            self.crafting.crafted(self.player, grid, actual, outcome)
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
                room += max_stack_of(s) - t.count
        return room >= s.count

    def _consume(self, remaining: tuple[tuple[str | None, ...], ...]) -> None:
        w = self.width
        grid = list(self.grid)
        for idx, s in enumerate(grid):
            if s is None:
                continue
            rest = remaining[idx // w][idx % w] if idx // w < len(remaining) else None
            grid[idx] = with_count(s, s.count - 1)
            if rest:
                rest_stack = Stack(facts.item_key(rest), 1)
                if grid[idx] is None:
                    grid[idx] = rest_stack
                else:
                    self.crafting.inventory.give(self.player, rest_stack)
        self.grid = grid

    def closed(self) -> list[Stack]:
        out = [s for s in self.grid if s]
        self.grid = [None] * len(self.grid)
        self.result = None
        return out


class InventoryCrafting(CraftingMenu):
    """The player's 2x2 grid in window 0 (slots 0 result, 1-4 grid live in the inventory's slot list).

    Only the result slot's clicks come here; every other window-0 click is the inventory feature's.
    """

    kind = "inventory"
    n = 5
    width = 2

    def __init__(self, crafting: Crafting, player: Player) -> None:
        Menu.__init__(self, player, 0)
        self.crafting = crafting

    @property
    def size(self) -> int:
        return 46

    def inv_index(self, i: int) -> int:
        return i

    def get(self, i: int) -> Stack | None:
        return self.inv.slots[i]

    def set(self, i: int, s: Stack | None) -> None:
        self.inv.slots[i] = s

    @property
    def grid(self) -> list[Stack | None]:  # type: ignore[override]
        return self.inv.slots[1:5]

    @grid.setter
    def grid(self, value: list[Stack | None]) -> None:
        self.inv.slots[1:5] = value

    @property
    def result(self) -> Stack | None:  # type: ignore[override]
        return self.inv.slots[0]

    @result.setter
    def result(self, value: Stack | None) -> None:
        self.inv.slots[0] = value

    def result_targets(self) -> tuple[int, int]:
        return 9, 45


class Crafting:
    """The crafting table and the 2x2 grid for every player."""

    def __init__(self, kernel: Kernel, rules: WorldRules, windows: Windows, inventory: Inventory) -> None:
        self.kernel = kernel
        self.rules = rules
        self.windows = windows
        self.inventory = inventory
        self._grids: dict[Player, InventoryCrafting] = {}
        #: The blocks whose use opens the crafting menu (``rules.blocks``: the crafting table).
        self.tables = facts.bare_names(menu_blocks(CraftingMenu.kind))
        ev = kernel.events
        ev.before("use_block", self._on_use_block)
        ev.before("click", self._on_click)
        ev.after("inventory_click", self._on_inventory_click)
        ev.before("close_window", self._on_close)
        ev.after("left", lambda b: self._grids.pop(b.player, None))

    def grid(self, p: Player) -> InventoryCrafting:
        """``p``'s 2x2 grid (a view over its window-0 slots 0-4)."""
        g = self._grids.get(p)
        if g is None:
            g = self._grids[p] = InventoryCrafting(self, p)
        return g

    def _on_use_block(self, b: Behaviour) -> None:
        self.windows.open_on_use(b, self.tables, "crafting", self._open)

    def _open(self, p: Player, pos: tuple[int, int, int]) -> None:
        self.windows.open(p, "crafting", pos, lambda wid: CraftingMenu(self, p, wid))

    def _on_click(self, b: Behaviour) -> None:
        c: Click = b["click"]
        if c.window != 0 or c.slot != 0 or c.mode not in (0, 1):
            return
        b.cancel("crafting")
        self.windows.apply_click(b.player, self.grid(b.player), c)

    def _on_inventory_click(self, b: Behaviour) -> None:
        """After a window-0 click: recompute the 2x2 result and send it (always when the grid was clicked)."""
        p = b.player
        touched = b["click"].slot in (1, 2, 3, 4)
        old = p.inventory.slots[0]
        self.grid(p).slots_changed()
        if touched or p.inventory.slots[0] != old:
            p.send_slot(0, 0, p.inventory.slots[0])

    def _on_close(self, b: Behaviour) -> None:
        if b["window"] == 0:
            b.player.inventory.slots[0] = None

    def crafted(self, p: Player, grid: list[list[str | None]], result: CraftResult, outcome: Outcome) -> None:
        """A result was taken: publish the ``craft`` outcome and event."""
        self.kernel.report(outcomes.craft_event(grid, result, outcome, player=p.display_name))
        self.kernel.emit(
            "craft", player=p.display_name, recipe=result.recipe, item=result.item, count=result.count
        )
