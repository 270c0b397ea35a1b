"""Server-side click semantics of the player inventory (vanilla AbstractContainerMenu.doClick, survival).

Each case is a vanilla behaviour described on wiki.vg "Protocol#Click Container" / the Minecraft Wiki
"Inventory" page. The Mineflayer test (test_mineflayer.py) checks the same code against a real client for
the modes Mineflayer can send (0-4); drag (5) and double-click (6) are covered here.
"""

from __future__ import annotations

import pytest

from mirrorcraft.errors import ContractError
from mirrorcraft.rules.stack import Stack as S
from mirrorcraft.server.kernel.inventory import OUTSIDE, PlayerInventory

LOG = "minecraft:oak_log"
COBBLE = "minecraft:cobblestone"
PICK = "minecraft:wooden_pickaxe"
HELMET = "minecraft:iron_helmet"
PEARL = "minecraft:ender_pearl"


def inv_with(**slots: S) -> PlayerInventory:
    inv = PlayerInventory()
    for k, v in slots.items():
        inv.slots[int(k.removeprefix("s"))] = v
    return inv


def test_left_and_right_pickup_put_split_merge_swap() -> None:
    inv = inv_with(s36=S(LOG, 10), s37=S(COBBLE, 60))
    inv.click(36, 1, 0)  # right-click: take half (rounded up)
    assert inv.cursor == S(LOG, 5) and inv.slots[36] == S(LOG, 5)
    inv.click(20, 1, 0)  # right-click on empty: put one
    assert inv.slots[20] == S(LOG, 1) and inv.cursor == S(LOG, 4)
    inv.click(20, 0, 0)  # left-click on same item: merge all
    assert inv.slots[20] == S(LOG, 5) and inv.cursor is None
    inv.click(37, 0, 0)  # pick up cobblestone
    inv.click(20, 0, 0)  # different item: swap
    assert inv.slots[20] == S(COBBLE, 60) and inv.cursor == S(LOG, 5)
    inv.click(36, 0, 0)
    assert inv.slots[36] == S(LOG, 10) and inv.cursor is None


def test_merge_respects_stack_size() -> None:
    inv = inv_with(s9=S(COBBLE, 60), s10=S(COBBLE, 10))
    inv.click(10, 0, 0)
    inv.click(9, 0, 0)
    assert inv.slots[9] == S(COBBLE, 64) and inv.cursor == S(COBBLE, 6)
    inv2 = inv_with(s9=S(PEARL, 16), s10=S(PEARL, 16))
    inv2.click(10, 0, 0)
    inv2.click(9, 0, 0)  # full stack of a 16-stack item: swap (same item, nothing to add) is a no-op
    assert inv2.slots[9] == S(PEARL, 16) and inv2.cursor == S(PEARL, 16)


def test_outside_click_throws_cursor() -> None:
    inv = inv_with(s36=S(LOG, 10))
    inv.click(36, 0, 0)
    res = inv.click(OUTSIDE, 1, 0)
    assert res.thrown == [S(LOG, 1)] and inv.cursor == S(LOG, 9)
    res = inv.click(OUTSIDE, 0, 0)
    assert res.thrown == [S(LOG, 9)] and inv.cursor is None


def test_shift_click_routes() -> None:
    inv = inv_with(s9=S(LOG, 10), s40=S(LOG, 60), s12=S(HELMET, 1))
    inv.click(9, 0, 1)  # main -> hotbar: merge into 40 first, rest to the first empty hotbar slot
    assert inv.slots[40] == S(LOG, 64) and inv.slots[36] == S(LOG, 6) and inv.slots[9] is None
    inv.click(36, 0, 1)  # hotbar -> main
    assert inv.slots[36] is None and inv.slots[9] == S(LOG, 6)
    inv.click(12, 0, 1)  # armor goes to its slot
    assert inv.slots[5] == S(HELMET, 1) and inv.slots[12] is None
    inv.click(5, 0, 1)  # and back into the inventory
    assert inv.slots[5] is None and inv.slots[10] == S(HELMET, 1)


def test_number_key_swap_and_offhand() -> None:
    inv = inv_with(s9=S(LOG, 3), s38=S(COBBLE, 5))
    inv.click(9, 2, 2)
    assert inv.slots[9] == S(COBBLE, 5) and inv.slots[38] == S(LOG, 3)
    inv.click(9, 40, 2)
    assert inv.slots[9] is None and inv.slots[45] == S(COBBLE, 5)
    with pytest.raises(ContractError):
        inv.click(9, 12, 2)


def test_throw_one_and_stack() -> None:
    inv = inv_with(s36=S(LOG, 5))
    assert inv.click(36, 0, 4).thrown == [S(LOG, 1)]
    assert inv.click(36, 1, 4).thrown == [S(LOG, 4)]
    assert inv.slots[36] is None


def test_left_drag_splits_evenly_and_right_drag_puts_one_each() -> None:
    inv = inv_with(s36=S(COBBLE, 10))
    inv.click(36, 0, 0)
    for slot, button in [(OUTSIDE, 0), (9, 1), (10, 1), (11, 1), (OUTSIDE, 2)]:
        inv.click(slot, button, 5)
    assert [inv.slots[i] for i in (9, 10, 11)] == [S(COBBLE, 3)] * 3 and inv.cursor == S(COBBLE, 1)
    inv.click(12, 0, 0)  # put the remainder down
    inv.click(9, 0, 0)  # pick up 3
    for slot, button in [(OUTSIDE, 4), (20, 5), (21, 5), (OUTSIDE, 6)]:
        inv.click(slot, button, 5)
    assert inv.slots[20] == S(COBBLE, 1) and inv.slots[21] == S(COBBLE, 1) and inv.cursor == S(COBBLE, 1)


def test_drag_is_cancelled_by_a_wrong_button() -> None:
    inv = inv_with(s36=S(COBBLE, 8))
    inv.click(36, 0, 0)
    inv.click(OUTSIDE, 0, 5)
    inv.click(9, 5, 5)  # right-add during a left drag: ignored
    inv.click(OUTSIDE, 2, 5)
    assert inv.slots[9] is None and inv.cursor == S(COBBLE, 8)


def test_double_click_gathers_non_full_stacks_first() -> None:
    inv = inv_with(s9=S(COBBLE, 64), s10=S(COBBLE, 10), s11=S(COBBLE, 20), s36=S(COBBLE, 5))
    inv.click(36, 0, 0)
    inv.click(36, 0, 6)
    # first pass empties the partial stacks (5 + 10 + 20), the second tops up from the full one
    assert (
        inv.cursor == S(COBBLE, 64)
        and inv.slots[10] is None
        and inv.slots[11] is None
        and inv.slots[9] == S(COBBLE, 35)
    )


def test_result_slot_and_armor_rules() -> None:
    inv = inv_with(s36=S(LOG, 1))
    inv.click(36, 0, 0)
    inv.click(0, 0, 0)  # crafting result takes nothing
    inv.click(5, 0, 0)  # a log is not a helmet
    assert inv.cursor == S(LOG, 1) and inv.slots[0] is None and inv.slots[5] is None


def test_bad_slots_and_modes_raise() -> None:
    inv = PlayerInventory()
    with pytest.raises(ContractError, match="slot 46"):
        inv.click(46, 0, 0)
    with pytest.raises(ContractError, match="mode 9"):
        inv.click(9, 0, 9)


def test_add_fills_hotbar_then_main_merging_first() -> None:
    inv = inv_with(s40=S(COBBLE, 62))
    left, changed = inv.add(COBBLE, 70)
    assert (
        left == 0
        and inv.slots[40] == S(COBBLE, 64)
        and inv.slots[36] == S(COBBLE, 64)
        and inv.slots[37] == S(COBBLE, 4)
    )
    assert changed == {36, 37, 40}
    left, _ = PlayerInventory(slots=[S(PICK, 1)] * 46).add(LOG, 3)
    assert left == 3


def test_corrections_are_vanilla_broadcast_changes_against_the_clients_prediction() -> None:
    """After a click the server answers only what the client mispredicted (vanilla
    ``handleContainerClick``: the predicted slots become the remote state, then ``broadcastChanges``); a
    stale state id gets the full state."""
    from mirrorcraft.server import facts
    from mirrorcraft.server.kernel.inventory import Click, corrections

    planks, table = "minecraft:oak_planks", "minecraft:crafting_table"
    inv = inv_with(s0=S(table, 1), s1=S(planks, 1), s2=S(planks, 1), s3=S(planks, 1), s4=S(planks, 1))
    inv.state_id = 7
    before = list(inv.slots)
    inv.slots[0:5] = [None] * 5  # the server took the result: the grid is consumed
    inv.cursor = S(table, 1)
    tid = facts.item_id(table)
    # Mineflayer predicts the result slot emptied and the table on the cursor, not the grid's consumption
    taken = Click(window=0, state_id=7, slot=0, button=0, mode=0, changed=[(0, None)], carried=(tid, 1))
    fix = corrections(taken, 7, before, inv.slots, inv.cursor)
    assert fix is not None and fix.slots == [1, 2, 3, 4] and fix.cursor is False
    right = Click(
        window=0,
        state_id=7,
        slot=0,
        button=0,
        mode=0,
        changed=[(i, None) for i in range(5)],
        carried=(tid, 1),
    )
    assert corrections(right, 7, before, inv.slots, inv.cursor) == type(fix)(slots=[], cursor=False)
    wrong_cursor = Click(window=0, state_id=7, slot=0, button=0, mode=0, changed=[(0, None)], carried=None)
    assert corrections(wrong_cursor, 7, before, inv.slots, inv.cursor).cursor is True
    assert corrections(Click(0, 6, 0, 0, 0, [(0, None)], (tid, 1)), 7, before, inv.slots, inv.cursor) is None
    assert corrections(Click(0, 7, 0, 0, 0, [(99, None)], (tid, 1)), 7, before, inv.slots, inv.cursor) is None
