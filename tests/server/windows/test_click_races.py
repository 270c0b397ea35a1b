"""Click races: two players in one chest window, clicking the same slots in the same tick, in every click
mode — items are never created or destroyed (vanilla: the server applies clicks one at a time against its
own state, whatever stale state ids the clients send; a stale client gets the full state back).

Checked by conservation: after every click, the diamonds in the chest, both players' inventories and
cursors, and the item entities on the ground add up to the number put in."""

from __future__ import annotations

import random
from pathlib import Path

from support.fakeplayer import click, new_game, send, use_block

from mirrorcraft.rules.stack import Stack

CHEST = (9, 65, 10)
DIAMOND = "minecraft:diamond"
TOTAL = 3 * 64 + 17


def _count(game, players) -> int:  # noqa: ANN001
    n = sum(s.count for s in game.chests.chest_at(CHEST).slots if s and s.item == DIAMOND)
    for p in players:
        n += sum(s.count for s in p.inventory.slots if s and s.item == DIAMOND)
        c = p.inventory.cursor
        n += c.count if c and c.item == DIAMOND else 0
    n += sum(it.count for it in game.kernel.items.values() if it.item == DIAMOND)
    return n


def test_two_players_racing_on_one_chest_never_create_or_destroy_items(world: Path, fake_player) -> None:
    game = new_game(world)
    a, b = fake_player(game, "alex"), fake_player(game, "bea", (9.5, 65.0, 8.5))
    a.inventory.slots[36] = Stack("minecraft:chest", 1)
    use_block(game, a, (CHEST[0], CHEST[1] - 1, CHEST[2]))
    chest = game.chests.chest_at(CHEST)
    assert chest is not None
    for i, n in enumerate((64, 64, 64, 17)):
        chest.slots[i] = Stack(DIAMOND, n)
    for p in (a, b):
        use_block(game, p, CHEST)
    wa, wb = game.windows.menu_of(a).window_id, game.windows.menu_of(b).window_id
    assert _count(game, (a, b)) == TOTAL
    # the plain race: both shift-click slot 0 in the same tick: one gets the stack, the other nothing
    click(game, a, wa, 0, 0, 1)
    click(game, b, wb, 0, 0, 1)
    assert _count(game, (a, b)) == TOTAL and chest.slots[0] is None
    # then 400 seeded random clicks of both players, without ticks in between, in the modes a client can send:
    # pickup (0), shift (1), number-key swap (2), drop (4, Q and ctrl-Q), and clicks outside the window (-999)
    rng = random.Random(7)
    held = {a.display_name: 0, b.display_name: 0}  # clicks after which each player held diamonds
    for k in range(400):
        p, wid = (a, wa) if rng.random() < 0.5 else (b, wb)
        mode = rng.choice((0, 0, 1, 2, 4))
        slot = -999 if mode == 0 and rng.random() < 0.05 else rng.randrange(0, 27 + 36)
        button = rng.randrange(0, 9) if mode == 2 else rng.randrange(0, 2)
        click(game, p, wid, slot, button, mode)
        if k % 50 == 0:
            game.tick()
        assert _count(game, (a, b)) == TOTAL, (k, p.display_name, slot, button, mode)
        for q in (a, b):
            held[q.display_name] += any(s and s.item == DIAMOND for s in q.inventory.slots)
    assert all(n > 50 for n in held.values()), held  # the clicks moved items to both players, often
    assert any(it.item == DIAMOND for it in game.kernel.items.values())  # and some were thrown out
    # closing both windows returns what is held on the cursor (or drops it): still nothing lost
    for p, wid in ((a, wa), (b, wb)):
        send(game, p, "close_window", window_id=wid)
    assert _count(game, (a, b)) == TOTAL


def test_a_click_sent_before_the_client_saw_an_update_is_answered_after_it_applies(
    world: Path, fake_player
) -> None:
    """Every ``set_slot`` carries a new state id (vanilla ``sendSlotChange``), so a click a client sent before
    an update reached it is stale and gets the whole window *after* the click; a click on the current state id
    that the client predicted right gets nothing back (vanilla ``broadcastChanges`` against its prediction)."""
    from mirrorcraft.protocol.serverbound import ChangedSlot
    from mirrorcraft.server import wire

    game = new_game(world)
    p = fake_player(game, "alex")
    p.inventory.slots[36] = Stack(DIAMOND, 5)
    p.send_slots([36])
    seen = p.inventory.state_id  # the client has seen this update
    stack = wire.slot(Stack(DIAMOND, 5))

    def pick(state_id: int, slot: int, changed: list[ChangedSlot], cursor) -> None:  # noqa: ANN001
        send(game, p, "window_click", window_id=0, state_id=state_id, slot=slot, mouse_button=0, mode=0,
             changed_slots=changed, cursor_item=cursor)  # fmt: skip

    # predicted right, on the current state id: the server sends nothing
    del p.sent[:]
    pick(seen, 36, [ChangedSlot(location=36, item=None)], stack)
    assert p.names() == [] and p.inventory.cursor == Stack(DIAMOND, 5)
    # an update the client has not seen yet (a slot the server fills), then the client's next click, still on
    # the old state id: the server applies it, then sends the whole window as it is after the click
    p.inventory.slots[20] = Stack(DIAMOND, 1)
    p.send_slots([20])
    del p.sent[:]
    pick(seen, 9, [ChangedSlot(location=9, item=stack)], None)
    assert p.names() == ["window_items"], p.names()
    (full,) = p.packets("window_items")
    assert full.state_id == p.inventory.state_id > seen
    assert [(s.item_id, s.count) if s else None for s in (full.items[9], full.items[20], full.items[36])] == [
        (stack.item_id, 5), (stack.item_id, 1), None
    ]  # fmt: skip
    assert full.carried_item is None
