"""Server-side click semantics of the player inventory (vanilla AbstractContainerMenu.doClick, survival).

Each case is a vanilla behaviour described on wiki.vg "Protocol#Click Container" / the Minecraft Wiki
"Inventory" page. The Mineflayer test (test_mineflayer.py) checks the same code against a real client for
the modes Mineflayer can send (0-4); drag (5) and double-click (6) are covered here.
"""

from __future__ import annotations

import pytest

from mirrorcraft.errors import ContractError
from mirrorcraft.server import facts
from mirrorcraft.server.inventory import OUTSIDE, PlayerInventory

LOG = facts.item_id("oak_log")
COBBLE = facts.item_id("cobblestone")
PICK = facts.item_id("wooden_pickaxe")
HELMET = facts.item_id("iron_helmet")
PEARL = facts.item_id("ender_pearl")


def inv_with(**slots: tuple[int, int]) -> PlayerInventory:
    inv = PlayerInventory()
    for k, v in slots.items():
        inv.slots[int(k.removeprefix("s"))] = v
    return inv


def test_left_and_right_pickup_put_split_merge_swap() -> None:
    inv = inv_with(s36=(LOG, 10), s37=(COBBLE, 60))
    inv.click(36, 1, 0)  # right-click: take half (rounded up)
    assert inv.cursor == (LOG, 5) and inv.slots[36] == (LOG, 5)
    inv.click(20, 1, 0)  # right-click on empty: put one
    assert inv.slots[20] == (LOG, 1) and inv.cursor == (LOG, 4)
    inv.click(20, 0, 0)  # left-click on same item: merge all
    assert inv.slots[20] == (LOG, 5) and inv.cursor is None
    inv.click(37, 0, 0)  # pick up cobblestone
    inv.click(20, 0, 0)  # different item: swap
    assert inv.slots[20] == (COBBLE, 60) and inv.cursor == (LOG, 5)
    inv.click(36, 0, 0)
    assert inv.slots[36] == (LOG, 10) and inv.cursor is None


def test_merge_respects_stack_size() -> None:
    inv = inv_with(s9=(COBBLE, 60), s10=(COBBLE, 10))
    inv.click(10, 0, 0)
    inv.click(9, 0, 0)
    assert inv.slots[9] == (COBBLE, 64) and inv.cursor == (COBBLE, 6)
    inv2 = inv_with(s9=(PEARL, 16), s10=(PEARL, 16))
    inv2.click(10, 0, 0)
    inv2.click(9, 0, 0)  # full stack of a 16-stack item: swap (same item, nothing to add) is a no-op
    assert inv2.slots[9] == (PEARL, 16) and inv2.cursor == (PEARL, 16)


def test_outside_click_throws_cursor() -> None:
    inv = inv_with(s36=(LOG, 10))
    inv.click(36, 0, 0)
    res = inv.click(OUTSIDE, 1, 0)
    assert res.thrown == [(LOG, 1)] and inv.cursor == (LOG, 9)
    res = inv.click(OUTSIDE, 0, 0)
    assert res.thrown == [(LOG, 9)] and inv.cursor is None


def test_shift_click_routes() -> None:
    inv = inv_with(s9=(LOG, 10), s40=(LOG, 60), s12=(HELMET, 1))
    inv.click(9, 0, 1)  # main -> hotbar: merge into 40 first, rest to the first empty hotbar slot
    assert inv.slots[40] == (LOG, 64) and inv.slots[36] == (LOG, 6) and inv.slots[9] is None
    inv.click(36, 0, 1)  # hotbar -> main
    assert inv.slots[36] is None and inv.slots[9] == (LOG, 6)
    inv.click(12, 0, 1)  # armor goes to its slot
    assert inv.slots[5] == (HELMET, 1) and inv.slots[12] is None
    inv.click(5, 0, 1)  # and back into the inventory
    assert inv.slots[5] is None and inv.slots[10] == (HELMET, 1)


def test_number_key_swap_and_offhand() -> None:
    inv = inv_with(s9=(LOG, 3), s38=(COBBLE, 5))
    inv.click(9, 2, 2)
    assert inv.slots[9] == (COBBLE, 5) and inv.slots[38] == (LOG, 3)
    inv.click(9, 40, 2)
    assert inv.slots[9] is None and inv.slots[45] == (COBBLE, 5)
    with pytest.raises(ContractError):
        inv.click(9, 12, 2)


def test_throw_one_and_stack() -> None:
    inv = inv_with(s36=(LOG, 5))
    assert inv.click(36, 0, 4).thrown == [(LOG, 1)]
    assert inv.click(36, 1, 4).thrown == [(LOG, 4)]
    assert inv.slots[36] is None


def test_left_drag_splits_evenly_and_right_drag_puts_one_each() -> None:
    inv = inv_with(s36=(COBBLE, 10))
    inv.click(36, 0, 0)
    for slot, button in [(OUTSIDE, 0), (9, 1), (10, 1), (11, 1), (OUTSIDE, 2)]:
        inv.click(slot, button, 5)
    assert [inv.slots[i] for i in (9, 10, 11)] == [(COBBLE, 3)] * 3 and inv.cursor == (COBBLE, 1)
    inv.click(12, 0, 0)  # put the remainder down
    inv.click(9, 0, 0)  # pick up 3
    for slot, button in [(OUTSIDE, 4), (20, 5), (21, 5), (OUTSIDE, 6)]:
        inv.click(slot, button, 5)
    assert inv.slots[20] == (COBBLE, 1) and inv.slots[21] == (COBBLE, 1) and inv.cursor == (COBBLE, 1)


def test_drag_is_cancelled_by_a_wrong_button() -> None:
    inv = inv_with(s36=(COBBLE, 8))
    inv.click(36, 0, 0)
    inv.click(OUTSIDE, 0, 5)
    inv.click(9, 5, 5)  # right-add during a left drag: ignored
    inv.click(OUTSIDE, 2, 5)
    assert inv.slots[9] is None and inv.cursor == (COBBLE, 8)


def test_double_click_gathers_non_full_stacks_first() -> None:
    inv = inv_with(s9=(COBBLE, 64), s10=(COBBLE, 10), s11=(COBBLE, 20), s36=(COBBLE, 5))
    inv.click(36, 0, 0)
    inv.click(36, 0, 6)
    # first pass empties the partial stacks (5 + 10 + 20), the second tops up from the full one
    assert (
        inv.cursor == (COBBLE, 64)
        and inv.slots[10] is None
        and inv.slots[11] is None
        and inv.slots[9] == (COBBLE, 35)
    )


def test_result_slot_and_armor_rules() -> None:
    inv = inv_with(s36=(LOG, 1))
    inv.click(36, 0, 0)
    inv.click(0, 0, 0)  # crafting result takes nothing
    inv.click(5, 0, 0)  # a log is not a helmet
    assert inv.cursor == (LOG, 1) and inv.slots[0] is None and inv.slots[5] is None


def test_bad_slots_and_modes_raise() -> None:
    inv = PlayerInventory()
    with pytest.raises(ContractError, match="slot 46"):
        inv.click(46, 0, 0)
    with pytest.raises(ContractError, match="mode 9"):
        inv.click(9, 0, 9)


def test_add_fills_hotbar_then_main_merging_first() -> None:
    inv = inv_with(s40=(COBBLE, 62))
    left, changed = inv.add(COBBLE, 70)
    assert (
        left == 0
        and inv.slots[40] == (COBBLE, 64)
        and inv.slots[36] == (COBBLE, 64)
        and inv.slots[37] == (COBBLE, 4)
    )
    assert changed == {36, 37, 40}
    left, _ = PlayerInventory(slots=[(PICK, 1)] * 46).add(LOG, 3)
    assert left == 3
