"""Chests on the embedded server, driven through the game's packet entry points on a real sandbox world.

Placing a chest item, opening it by use, every click mode of the shared click engine (pickup, right-click
split, shift-click both ways, number keys, drag, double-click, drop), persistence across window closes and
across a save/reload, two viewers, breaking, and bad side files. Expected slot positions follow vanilla's
``ChestMenu`` layout (wiki.vg "Inventory": chest 0-26, main 27-53, hotbar 54-62) and
``quickMoveStack`` (chest → inventory fills from the hotbar's end); the menu type comes from the 1.19.2
menu registry in ``mirrorcraft.gamedata``, not from the server's table.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbtlib
import pytest
from support.fakeplayer import bare, close_window, new_game, use_block
from support.fakeplayer import click as _click

from mirrorcraft.errors import WorldError
from mirrorcraft.gamedata import menu_type_name
from mirrorcraft.rules.stack import Stack as S
from mirrorcraft.server import facts
from mirrorcraft.server.features.chests import ChestMenu
from mirrorcraft.server.game import Game

CHEST = (10, 65, 8)  # on the sandbox's y=64 grass, 1.5 blocks from the spawn
LOG, COBBLE = "minecraft:oak_log", "minecraft:cobblestone"
LOG_ID = facts.item_id(LOG)


def _game(world: Path) -> Game:
    return new_game(world)


def _open(game: Game, p, pos=CHEST) -> int:
    """Use the block at ``pos``; returns the new window id (asserts one opened)."""
    before = len(p.packets("open_window"))
    use_block(game, p, pos, seq=7)
    opened = p.packets("open_window")
    assert len(opened) == before + 1, "no open_window after using the chest"
    return opened[-1].window_id


def _chest(game: Game, pos=CHEST):
    return game.chests.chest_at(pos)


def _items(chest) -> dict[int, tuple[str, int]]:
    return {i: bare(s) for i, s in enumerate(chest.slots) if s}


def test_placing_a_chest_item_and_using_it_opens_a_generic_9x3_chest(world, fake_player) -> None:
    game = _game(world)
    p = fake_player(game)
    p.inventory.slots[36] = S("minecraft:chest", 2)
    use_block(game, p, (CHEST[0], CHEST[1] - 1, CHEST[2]), seq=1)  # top face of the grass
    assert facts.block_name(game.world.get_block(*CHEST)) == "chest"
    assert p.inventory.slots[36] == S("minecraft:chest", 1)
    p.sent.clear()
    wid = _open(game, p)
    assert facts.block_name(game.world.get_block(*CHEST)) == "chest"  # using did not place the held chest
    assert p.inventory.slots[36] == S("minecraft:chest", 1)
    ow = p.packets("open_window")[-1]
    assert 1 <= wid <= 100
    assert menu_type_name(ow.inventory_type) == "minecraft:generic_9x3"
    assert json.loads(ow.window_title) == {"translate": "container.chest"}
    items = p.packets("window_items")[-1]
    assert items.window_id == wid and len(items.items) == 27 + 36
    assert (items.items[54].item_id, items.items[54].count) == (facts.item_id("chest"), 1)  # hotbar 0
    lid = p.packets("block_action")
    assert [(a.location, a.action_id, a.action_param) for a in lid] == [(CHEST, 1, 1)]
    assert lid[0].block_id == facts.block("chest").id
    assert isinstance(game.windows.menu_of(p), ChestMenu)


def test_every_click_mode_moves_items_and_the_chest_keeps_them(world, fake_player) -> None:
    game = _game(world)
    p = fake_player(game)
    events: list[dict] = []
    game.subscribe(lambda ev, data: events.append(data) if ev == "container_move" else None)
    game.kernel.set_block(CHEST, facts.state_id("chest"))
    inv = p.inventory
    inv.slots[36] = S(LOG, 20)  # hotbar 0 = window slot 54
    inv.slots[9] = S(COBBLE, 64)  # main 0 = window slot 27
    w = _open(game, p)
    chest = _chest(game)

    _click(game, p, w, 54)  # pickup all 20 logs
    assert inv.cursor == S(LOG, 20) and inv.slots[36] is None
    _click(game, p, w, 0)  # put them in chest slot 0
    assert _items(chest) == {0: ("oak_log", 20)} and inv.cursor is None
    _click(game, p, w, 0, button=1)  # right click: take half
    assert inv.cursor == S(LOG, 10) and chest.slots[0] == S(LOG, 10)
    _click(game, p, w, 1, button=1)  # right click with a stack: put one
    _click(game, p, w, 1)  # left click: put the rest on it
    assert _items(chest) == {0: ("oak_log", 10), 1: ("oak_log", 10)} and inv.cursor is None

    _click(game, p, w, 27, mode=1)  # shift-click inventory → chest: first empty chest slot
    assert chest.slots[2] == S(COBBLE, 64) and inv.slots[9] is None
    _click(game, p, w, 0, mode=1)  # shift-click chest → inventory: ChestMenu fills from the hotbar's end
    assert chest.slots[0] is None and inv.slots[44] == S(LOG, 10)
    _click(game, p, w, 1, button=3, mode=2)  # number key 4: swap chest slot 1 with hotbar 3
    assert chest.slots[1] is None and inv.slots[39] == S(LOG, 10)

    _click(game, p, w, 2)  # 64 cobblestone on the cursor, then drag them over chest slots 3, 4, 5
    _click(game, p, w, -999, button=0, mode=5)
    for s in (3, 4, 5):
        _click(game, p, w, s, button=1, mode=5)
    _click(game, p, w, -999, button=2, mode=5)
    assert [chest.slots[i] for i in (3, 4, 5)] == [S(COBBLE, 21)] * 3 and inv.cursor == S(COBBLE, 1)
    _click(game, p, w, 6)  # drop the leftover one into slot 6
    _click(game, p, w, 6)  # ...pick it up again and double-click: gather every cobblestone of the window
    _click(game, p, w, 6, mode=6)
    assert inv.cursor == S(COBBLE, 64) and not any(chest.slots[3:7])
    _click(game, p, w, 8)
    assert _items(chest) == {8: ("cobblestone", 64)}

    _click(game, p, w, 8, button=0, mode=4)  # Q on a chest slot: throw one item
    assert chest.slots[8] == S(COBBLE, 63)
    thrown = [(it.item.removeprefix("minecraft:"), it.count) for it in game.kernel.items.values()]
    assert thrown == [("cobblestone", 1)]

    # listeners saw every change of the chest's contents; their sum is what the chest holds now
    total: dict[str, int] = {}
    for e in events:
        assert e["player"] == "alex" and e["kind"] == "chest" and tuple(e["pos"]) == CHEST
        for k, v in e["delta"].items():
            total[k] = total.get(k, 0) + v
    assert {k: v for k, v in total.items() if v} == {"minecraft:cobblestone": 63}

    close_window(game, p, w)
    assert game.windows.menu_of(p) is None
    assert _items(chest) == {8: ("cobblestone", 63)}  # closing keeps the items in the chest
    w2 = _open(game, p)
    assert w2 != w
    shown = p.packets("window_items")[-1]
    assert shown.window_id == w2
    assert [(s.item_id, s.count) if s else None for s in shown.items[:27]] == [
        (facts.item_id(s.item), s.count) if s else None for s in chest.slots
    ]
    assert (shown.items[62].item_id, shown.items[62].count) == (LOG_ID, 10)  # the hotbar is in the window too


def test_two_viewers_share_one_chest(world, fake_player) -> None:
    game = _game(world)
    a = fake_player(game, "alex")
    b = fake_player(game, "steve", (9.5, 65.0, 9.5))
    game.kernel.set_block(CHEST, facts.state_id("chest"))
    a.inventory.slots[36] = S(LOG, 5)
    wa, wb = _open(game, a), _open(game, b)
    assert b.packets("block_action")[-1].action_param == 2  # two viewers: the lid stays open
    _click(game, a, wa, 54)
    _click(game, a, wa, 13)
    game.tick()  # broadcastChanges: the other viewer's window follows
    sets = [s for s in b.packets("set_slot") if s.window_id == wb and s.slot == 13]
    assert sets and (sets[-1].item.item_id, sets[-1].item.count) == (LOG_ID, 5)
    _click(game, b, wb, 13, mode=1)  # steve takes them
    assert b.inventory.slots[44] == S(LOG, 5) and _chest(game).slots[13] is None
    close_window(game, b, wb)
    assert a.packets("block_action")[-1].action_param == 1


def test_contents_survive_a_save_and_reload_with_item_nbt(world, fake_player) -> None:
    game = _game(world)
    game.kernel.set_block(CHEST, facts.state_id("chest"))
    pick = "minecraft:diamond_pickaxe"
    tag = nbtlib.Compound(
        {
            "Enchantments": nbtlib.List[nbtlib.Compound](
                [{"id": nbtlib.String("minecraft:efficiency"), "lvl": nbtlib.Short(3)}]
            )
        }
    )
    chest = _chest(game)
    chest.slots[4] = S(LOG, 33)
    chest.slots[26] = S(pick, 1, tag)
    game.world.save()
    path = game.block_entities.save(world)
    saved = json.loads(path.read_text())["chests"]
    assert saved[0]["id"] == "minecraft:chest" and saved[0]["pos"] == list(CHEST)
    assert [(e["Slot"], e["id"], e["Count"]) for e in saved[0]["Items"]] == [
        (4, "minecraft:oak_log", 33),
        (26, "minecraft:diamond_pickaxe", 1),
    ]

    again = _game(world)
    assert facts.block_name(again.world.get_block(*CHEST)) == "chest"
    back = again.chests.chest_at(CHEST)
    assert back.slots[4] == S(LOG, 33)
    assert back.slots[26][:2] == (pick, 1) and back.slots[26].nbt == tag
    q = fake_player(again)
    _open(again, q)
    shown = q.packets("window_items")[-1].items
    assert shown[26].nbt == tag  # the enchantment reaches the client


def test_breaking_a_chest_closes_its_window_and_drops_the_contents(world, fake_player) -> None:
    game = _game(world)
    p = fake_player(game)
    game.kernel.set_block(CHEST, facts.state_id("chest"))
    w = _open(game, p)
    _chest(game).slots[0] = S(LOG, 7)
    game.digging.break_block(None, CHEST)
    assert game.windows.menu_of(p) is None
    assert [c.window_id for c in p.packets("close_window")] == [w]
    dropped = sorted((it.item.removeprefix("minecraft:"), it.count) for it in game.kernel.items.values())
    assert ("oak_log", 7) in dropped and ("chest", 1) in dropped
    assert CHEST not in game.chests.entities


def test_a_solid_block_above_keeps_the_chest_shut(world, fake_player) -> None:
    game = _game(world)
    p = fake_player(game)
    game.kernel.set_block(CHEST, facts.state_id("chest"))
    game.kernel.set_block((CHEST[0], CHEST[1] + 1, CHEST[2]), facts.state_id("stone"))
    p.inventory.slots[36] = S(COBBLE, 3)
    use_block(game, p, CHEST, seq=2)
    assert p.packets("open_window") == [] and p.inventory.slots[36] == S(COBBLE, 3)  # used: nothing placed
    game.kernel.set_block((CHEST[0], CHEST[1] + 1, CHEST[2]), facts.state_id("glass"))
    _open(game, p)  # glass does not block the lid


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        (
            {"id": "minecraft:chest", "pos": [1, 2, 3], "Items": [{"Slot": 30, "id": "stone", "Count": 1}]},
            "Items[0]",
        ),
        ({"id": "minecraft:chest", "pos": [1, 2], "Items": []}, "pos"),
        ({"id": "minecraft:barrel", "pos": [1, 2, 3], "Items": []}, "id"),
        (
            {
                "id": "minecraft:chest",
                "pos": [1, 2, 3],
                "Items": [{"Slot": 0, "id": "nope_item", "Count": 1}],
            },
            "Items[0]",
        ),
        (
            {"id": "minecraft:chest", "pos": [1, 2, 3], "Items": [{"Slot": 0, "id": "stone", "Count": 0}]},
            "Items[0]",
        ),
    ],
)
def test_a_malformed_side_file_names_the_entry_and_field(world, entry, field) -> None:
    side = world / "mirrorcraft" / "block_entities.json"
    side.parent.mkdir(parents=True, exist_ok=True)
    side.write_text(json.dumps({"furnaces": [], "chests": [entry]}))
    with pytest.raises(WorldError) as err:
        _game(world)
    assert str(side) in str(err.value) and f"chests[0].{field}" in str(err.value)


def test_sneaking_with_a_block_places_it_on_the_chest_instead(world, fake_player) -> None:
    game = _game(world)
    p = fake_player(game)
    game.kernel.set_block(CHEST, facts.state_id("chest"))
    p.inventory.slots[36] = S(COBBLE, 3)
    p.sneaking = True
    use_block(game, p, CHEST, seq=3)  # top face of the chest
    assert p.packets("open_window") == []
    assert facts.block_name(game.world.get_block(CHEST[0], CHEST[1] + 1, CHEST[2])) == "cobblestone"
    assert p.inventory.slots[36] == S(COBBLE, 2)
    p.sneaking = False
    p.inventory.slots[36] = None
    use_block(game, p, CHEST, seq=4)  # now the cobblestone above keeps it shut
    assert p.packets("open_window") == []
