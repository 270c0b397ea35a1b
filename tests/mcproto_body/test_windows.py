"""Click prediction (:mod:`mirrorcraft.mcproto_body.windows`).

Two kinds of checks: hand-derived vanilla cases (wiki.vg "Click Container" / the vanilla client's
behaviour), and a cross-check against the embedded server's own click engine
(``mirrorcraft.server.kernel.inventory.PlayerInventory``, written independently from the vanilla server's
``AbstractContainerMenu.doClick``): a prediction that disagrees with the server would be corrected by a
``window_items`` resync on a real server. The body itself never imports the server; only this test does.
"""

from __future__ import annotations

import random

import pytest

from mirrorcraft.errors import ContractError
from mirrorcraft.gamedata import item
from mirrorcraft.mcproto_body.windows import OUTSIDE, Window, apply_prediction, menu_slots, predict_click
from mirrorcraft.protocol import Slot

LOG = item("minecraft:oak_log").id
PEARL = item("minecraft:ender_pearl").id  # stacks to 16
SWORD = item("minecraft:iron_sword").id  # stacks to 1


def player(**slots: tuple[int, int]) -> Window:
    w = Window.player()
    for k, (iid, n) in slots.items():
        w.slots[int(k[1:])] = Slot(iid, n)
    return w


def test_left_and_right_pickup_and_place() -> None:
    w = player(s20=(LOG, 5))
    p = predict_click(w, 20, 1, 0)  # right: take the larger half
    assert p.changed == {20: Slot(LOG, 2)} and p.cursor == Slot(LOG, 3)
    apply_prediction(w, p)
    p = predict_click(w, 21, 1, 0)  # right on empty: put one
    assert p.changed == {21: Slot(LOG, 1)} and p.cursor == Slot(LOG, 2)
    apply_prediction(w, p)
    p = predict_click(w, 20, 0, 0)  # left on same item: merge all
    assert p.changed == {20: Slot(LOG, 4)} and p.cursor is None


def test_merge_respects_stack_size_and_swap() -> None:
    w = player(s9=(PEARL, 10), s10=(PEARL, 12), s11=(SWORD, 1))
    apply_prediction(w, predict_click(w, 9, 0, 0))
    p = predict_click(w, 10, 0, 0)
    assert p.changed == {10: Slot(PEARL, 16)} and p.cursor == Slot(PEARL, 6)
    apply_prediction(w, p)
    p = predict_click(w, 11, 0, 0)  # different item: swap
    assert p.changed == {11: Slot(PEARL, 6)} and p.cursor == Slot(SWORD, 1)


def test_outside_drops_and_throw() -> None:
    w = player(s36=(LOG, 5))
    apply_prediction(w, predict_click(w, 36, 0, 0))
    p = predict_click(w, OUTSIDE, 1, 0)
    assert p.cursor == Slot(LOG, 4) and p.thrown == (Slot(LOG, 1),)
    w = player(s36=(LOG, 5))
    p = predict_click(w, 36, 0, 4)
    assert p.changed == {36: Slot(LOG, 4)} and p.thrown == (Slot(LOG, 1),)
    p = predict_click(w, 36, 1, 4)
    assert p.changed == {36: None} and p.thrown == (Slot(LOG, 5),)


def test_chest_shift_click_goes_to_container_then_back_hotbar_last_first() -> None:
    _, n = menu_slots(2)  # generic_9x3
    w = Window(1, "minecraft:generic_9x3", [None] * (n + 36), n)
    w.slots[n + 11] = Slot(LOG, 5)  # player main slot 20
    p = predict_click(w, n + 11, 0, 1)
    assert p.changed == {0: Slot(LOG, 5), n + 11: None}
    apply_prediction(w, p)
    p = predict_click(w, 0, 0, 1)  # back: reverse order, so the last hotbar slot first
    assert p.changed == {0: None, n + 35: Slot(LOG, 5)}


def test_invalid_clicks_are_named() -> None:
    w = Window.player()
    with pytest.raises(ContractError, match="slot 46 out of range"):
        predict_click(w, 46, 0, 0)
    with pytest.raises(ContractError, match="mode 3"):
        predict_click(w, 9, 2, 3)


def test_prediction_agrees_with_the_embedded_server_engine() -> None:
    from mirrorcraft.gamedata import item_by_id
    from mirrorcraft.rules.stack import Stack
    from mirrorcraft.server.kernel.inventory import PlayerInventory

    rng = random.Random(11)
    items = [LOG, PEARL, SWORD, item("minecraft:cobblestone").id]
    disagreements = []
    for trial in range(300):
        ours = Window.player()
        srv = PlayerInventory()
        for s in rng.sample(range(9, 46), 8):
            iid = rng.choice(items)
            n = rng.randint(1, item_stack(iid))
            ours.slots[s] = Slot(iid, n)
            srv.slots[s] = Stack(item_by_id(iid).name, n)
        for _ in range(12):
            mode = rng.choice([0, 0, 0, 1, 2, 4])
            slot = rng.choice(list(range(9, 46)) + ([OUTSIDE] if mode == 0 else []))
            button = rng.randint(0, 8) if mode == 2 else rng.randint(0, 1)
            pred = predict_click(ours, slot, button, mode)
            apply_prediction(ours, pred)
            srv.click(slot, button, mode)
            want = [None if s is None else (s.item_id, s.count) for s in ours.slots]
            cur = None if ours.cursor is None else (ours.cursor.item_id, ours.cursor.count)
            got = [None if s is None else (item(s.item).id, s.count) for s in srv.slots]
            got_cur = None if srv.cursor is None else (item(srv.cursor.item).id, srv.cursor.count)
            if want != got or cur != got_cur:
                disagreements.append((trial, slot, button, mode))
                break
    assert disagreements == []


def item_stack(iid: int) -> int:
    from mirrorcraft.gamedata import item_by_id

    return item_by_id(iid).stack_size
