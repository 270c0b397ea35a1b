"""Server-side menus with the real engines: the 2x2 grid, the crafting table, furnaces, the enchanting table,
cows, advancements and the evaluator log — driven through the game's packet entry points on a real
sandbox world (no network: the shared ``FakePlayer`` of ``tests/server/fakeplayer.py``, logged in through
the real join sequence). Expected recipe outputs are read from minecraft-data, an independent source, not
from our own engines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fakeplayer import FakePlayer, bare, close_window, join, new_game, send, use_block
from support.fakeplayer import click as _click
from support.fakeplayer import give as _give
from support.refdata import NODE_MODULES, mcdata_path

from mirrorcraft.errors import DatapackError
from mirrorcraft.harness.evaluators import EmbeddedEvaluator
from mirrorcraft.server import facts
from mirrorcraft.server.game import Game
from mirrorcraft.server.kernel.stacks import enchantments_of


def _mcdata_result_count(result: str) -> set[int]:
    """Result counts minecraft-data lists for recipes producing ``result`` (1.19.2)."""
    items = json.loads(mcdata_path(NODE_MODULES, "1.19.2", "items").read_text())
    rid = next(i["id"] for i in items if i["name"] == result)
    recipes = json.loads(mcdata_path(NODE_MODULES, "1.19.2", "recipes").read_text())
    return {r["result"]["count"] for r in recipes.get(str(rid), [])}


def _game(world: Path, **kw) -> Game:
    """A game with the harness's evaluator listening (``game.evaluator``, set here for the tests)."""
    game = new_game(world, **kw)
    game.evaluator = EmbeddedEvaluator.attach(game)  # type: ignore[attr-defined]
    return game


def _player(game: Game, pos=(8.5, 65.0, 8.5)) -> FakePlayer:
    return join(game, pos=pos)


_name = bare


def _open(game: Game, p: FakePlayer, pos: tuple[int, int, int], block: str) -> int:
    game.kernel.set_block(pos, facts.state_id(block))
    use_block(game, p, pos)
    opened = p.packets("open_window")
    assert opened, f"using {block} opened no window"
    return opened[-1].window_id


def test_player_grid_log_to_planks_and_shift_craft(world: Path) -> None:
    game = _game(world)
    p = _player(game)
    _give(p, 36, "oak_log", 3)
    _click(game, p, 0, 36)  # pick up the logs
    _click(game, p, 0, 1)  # put them in the 2x2 grid
    planks = _mcdata_result_count("oak_planks")
    assert _name(p.inventory.slots[0])[0] == "oak_planks" and p.inventory.slots[0][1] in planks
    per = p.inventory.slots[0][1]
    _click(game, p, 0, 0)  # take the result: one log consumed
    assert _name(p.inventory.cursor) == ("oak_planks", per)
    assert _name(p.inventory.slots[1]) == ("oak_log", 2)
    _click(game, p, 0, 9)  # drop the planks in slot 9
    _click(game, p, 0, 0, mode=1)  # shift-click: craft the two remaining logs into the inventory
    assert p.inventory.slots[1] is None and p.inventory.slots[0] is None
    total = sum(s.count for s in p.inventory.slots[9:45] if s and s.item == "minecraft:oak_planks")
    assert total == 3 * per
    crafts = [e for e in game.evaluator.events() if e.kind == "craft"]
    assert len(crafts) == 3 and all(e.detail["recipe"] == "minecraft:oak_planks" for e in crafts)
    assert all(e.outcome.actual == e.outcome.vanilla for e in crafts)


def test_crafting_table_pickaxe_and_close_returns_grid(world: Path, sandbox_info) -> None:
    game = _game(world)
    sx, sy, sz = sandbox_info["spawn"]
    p = _player(game, (sx + 0.5, sy, sz + 0.5))
    _give(p, 36, "oak_planks", 4)
    _give(p, 37, "stick", 3)
    wid = _open(game, p, (sx + 2, sy, sz), "crafting_table")
    assert p.packets("open_window")[-1].inventory_type == 11
    items = p.packets("window_items")[-1]
    assert items.window_id == wid and len(items.items) == 46
    # hotbar slot 0 is menu slot 37, slot 1 is 38: planks across the top row, sticks down the middle
    _click(game, p, wid, 37)
    for grid in (1, 2, 3):
        _click(game, p, wid, grid, button=1)
    _click(game, p, wid, 37)  # put the last plank back
    _click(game, p, wid, 38)
    for grid in (5, 8):
        _click(game, p, wid, grid, button=1)
    _click(game, p, wid, 38)  # the last stick back
    menu = game.windows.menu_of(p)
    assert _name(menu.get(0)) == ("wooden_pickaxe", 1)
    _click(game, p, wid, 0)
    assert _name(p.inventory.cursor) == ("wooden_pickaxe", 1)
    assert all(menu.get(i) is None for i in (1, 2, 3, 5, 8)) and menu.get(0) is None
    # leftovers in the grid go back to the inventory on close (the cursor too)
    _click(game, p, wid, 39)  # cursor (pickaxe) into hotbar slot 2
    _click(game, p, wid, 38)
    _click(game, p, wid, 5)  # the last stick into the grid
    close_window(game, p, wid)
    names = {_name(s) for s in p.inventory.slots if s}
    assert ("stick", 1) in names and ("wooden_pickaxe", 1) in names and ("oak_planks", 1) in names
    assert game.windows.menu_of(p) is None


def _furnace_run(world: Path, block: str, sandbox_info) -> tuple[Game, FakePlayer, int, int]:
    game = _game(world)
    sx, sy, sz = sandbox_info["spawn"]
    p = _player(game, (sx + 0.5, sy, sz + 0.5))
    _give(p, 36, "raw_iron", 2)
    _give(p, 37, "coal", 1)
    pos = (sx + 2, sy, sz)
    wid = _open(game, p, pos, block)
    _click(game, p, wid, 30, mode=1)  # shift-click raw iron → input slot
    _click(game, p, wid, 31, mode=1)  # shift-click coal → fuel slot
    menu = game.windows.menu_of(p)
    assert _name(menu.get(0)) == ("raw_iron", 2) and _name(menu.get(1)) == ("coal", 1)
    ticks = 0
    while menu.get(2) is None and ticks < 1000:
        game.tick()
        ticks += 1
    return game, p, wid, ticks


def test_furnace_cooks_in_200_ticks_and_blast_furnace_in_100(world: Path, sandbox_info, tmp_path) -> None:
    game, p, wid, ticks = _furnace_run(world, "furnace", sandbox_info)
    assert ticks == 200  # the fuel lights and progress starts on the same tick (serverTick)
    props = {(q.property, q.value) for q in p.packets("window_property") if q.window_id == wid}
    assert (3, 200) in props and (1, 1600) in props  # total cook time, coal burn time
    pos = game.windows.menu_of(p).pos
    assert facts.state_props(game.world.get_block(*pos))["lit"] == "true"
    _click(game, p, wid, 2, mode=1)  # shift-take the ingot
    assert any(_name(s) == ("iron_ingot", 1) for s in p.inventory.slots if s)
    smelts = [e for e in game.evaluator.events() if e.kind == "smelt"]
    assert smelts and smelts[0].outcome.actual[0].item == "minecraft:iron_ingot"
    assert game.experience.state(p).progress > 0  # 0.7 xp from raw iron smelting
    # contents persist with the window closed, and across a save
    close_window(game, p, wid)
    dev = game.furnaces.devices[pos]
    assert dev.slots[0] is not None and dev.slots[0].item == "minecraft:raw_iron"
    game.block_entities.save(world)
    again = _game(world)
    assert again.furnaces.devices[pos].slots[0].item == "minecraft:raw_iron"

    world_b = tmp_path / "b"
    import shutil

    shutil.copytree(world, world_b)
    (world_b / "mirrorcraft" / "block_entities.json").unlink()
    _, _, _, blast = _furnace_run(world_b, "blast_furnace", sandbox_info)
    assert blast == 100


def test_enchanting_table_offers_enchant_and_nbt(world: Path, sandbox_info) -> None:
    game = _game(world, controls={"xp_level": 30})
    sx, sy, sz = sandbox_info["spawn"]
    p = _player(game, (sx + 0.5, sy, sz + 0.5))
    assert game.experience.state(p).level == 30
    _give(p, 36, "iron_pickaxe", 1)
    _give(p, 37, "lapis_lazuli", 5)
    pos = (sx + 3, sy, sz + 3)
    for dx in (-2, -1, 0, 1, 2):  # a row of bookshelves two blocks north of the table
        game.kernel.set_block((pos[0] + dx, pos[1], pos[2] - 2), facts.state_id("bookshelf"))
    wid = _open(game, p, pos, "enchanting_table")
    assert p.packets("open_window")[-1].inventory_type == 12
    _click(game, p, wid, 29, mode=1)  # pickaxe → slot 0
    _click(game, p, wid, 30, mode=1)  # lapis → slot 1
    menu = game.windows.menu_of(p)
    assert menu.bookshelves() == 5  # north (0,-2) and both north diagonals reach (+-1,-2) and (+-2,-2)
    costs = [menu.properties()[k] for k in range(3)]
    assert all(c > 0 for c in costs) and costs == sorted(costs)
    sent = {(q.property, q.value) for q in p.packets("window_property") if q.window_id == wid}
    assert {(k, costs[k]) for k in range(3)} <= sent
    seed_before = game.enchanting.seed_of(p).seed
    send(game, p, "enchant_item", window_id=wid, enchantment=2)
    item = menu.get(0)
    ench = enchantments_of(item)
    assert ench and all(name.startswith("minecraft:") for name in ench)
    assert _name(menu.get(1)) == ("lapis_lazuli", 2)
    assert game.experience.state(p).level == 27 and game.enchanting.seed_of(p).seed != seed_before
    last = p.packets("window_items")[-1]
    assert last.items[0].nbt is not None and "Enchantments" in last.items[0].nbt
    ev = [e for e in game.evaluator.events() if e.kind == "enchant"]
    assert ev and ev[0].detail["enchantments"] == ench
    assert "minecraft:story/enchant_item" in game.advancements.of(p).completed


def test_cow_killed_drops_its_loot_table(world: Path, sandbox_info) -> None:
    game = _game(world)
    assert len(game.mobs.cows) == len(sandbox_info["cows"])
    cow = next(iter(game.mobs.cows.values()))
    p = _player(game, (cow.pos[0] + 1.5, cow.pos[1], cow.pos[2]))
    spawns = [q for q in p.packets("spawn_object") if q.type == facts.entity_type("cow")]
    assert len(spawns) == len(sandbox_info["cows"])
    _give(p, 36, "iron_sword", 1)
    hits = 0
    while cow.health > 0 and hits < 10:
        for _ in range(11):  # out of the invulnerability window
            game.tick()
        p.pos = [cow.pos[0] + 1.5, cow.pos[1], cow.pos[2]]
        assert game.mobs.attack(p, cow.eid)
        hits += 1
    assert hits == 2  # 10 health, iron sword 6 damage
    statuses = [q.status for q in p.packets("entity_status") if q.entity_id == cow.eid]
    assert statuses == [2, 2, 3]
    kills = [e for e in game.evaluator.events() if e.kind == "kill"]
    assert kills and kills[0].detail["entity"] == "minecraft:cow"
    dropped = {s.item for s in kills[0].outcome.actual}
    assert dropped <= {"minecraft:leather", "minecraft:beef"} and "minecraft:beef" in dropped
    for _ in range(25):
        game.tick()
    assert cow.eid not in game.mobs.cows


def test_advancements_from_inventory_and_packet(world: Path) -> None:
    game = _game(world)
    p = _player(game)
    first = p.packets("advancements")[0]
    assert first.reset
    _give(p, 36, "cobblestone", 1)
    game.tick()
    assert "minecraft:story/mine_stone" in game.advancements.of(p).completed
    last = p.packets("advancements")[-1]
    ids = {a.id for a in last.advancements}
    assert "minecraft:story/mine_stone" in ids
    assert last.progress["minecraft:story/mine_stone"]["get_stone"] is not None
    milestones = [e for e in game.evaluator.events() if e.kind == "milestone"]
    assert any(e.detail["advancement"] == "minecraft:story/mine_stone" for e in milestones)
    # information integrity: nothing that would reveal recipes or tags
    sent = {n for n, _ in p.sent}
    assert not sent & {"declare_recipes", "unlock_recipes", "tags"}


def _pack(root: Path, files: dict[str, object]) -> None:
    root.mkdir(parents=True)
    (root / "pack.mcmeta").write_text(json.dumps({"pack": {"pack_format": 10, "description": "test"}}))
    for rel, data in files.items():
        f = root / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(data))


def test_save_datapacks_change_outcomes_and_evaluator_sees_them(world: Path) -> None:
    from mirrorcraft.contracts.rules import load_suite
    from mirrorcraft.datapacks.compiler import compile_suite

    compile_suite(load_suite("M02"), world / "datapacks")
    _pack(
        world / "datapacks" / "zz_table",
        {
            "data/minecraft/recipes/crafting_table.json": {
                "type": "minecraft:crafting_shaped",
                "pattern": ["##", "##"],
                "key": {"#": {"tag": "minecraft:planks"}},
                "result": {"item": "minecraft:stick", "count": 2},
            }
        },
    )
    game = _game(world)
    ev = game.evaluator
    ev.begin_manifest(load_suite("M02"))
    ev.begin_action(1, ("dig", "oak_log"))
    log = (20, 65, 20)
    game.kernel.set_block(log, facts.state_id("oak_log"))
    drops = game.digging.break_block(None, log)
    assert drops == [("oak_planks", 4)]
    dig = [e for e in ev.events() if e.kind == "dig"][-1]
    assert dig.outcome.vanilla[0].item == "minecraft:oak_log" and dig.outcome.actual[0].count == 4
    assert [r.rule_id for r in ev.encounter_list()] == ["M02.log_drops_four_planks"]
    p = _player(game)
    _give(p, 36, "oak_planks", 4)
    _click(game, p, 0, 36)
    for slot in (1, 2, 3, 4):
        _click(game, p, 0, slot, button=1)
    assert _name(p.inventory.slots[0]) == ("stick", 2)
    _click(game, p, 0, 0)
    craft = [e for e in ev.events() if e.kind == "craft"][-1]
    assert craft.outcome.actual[0].item == "minecraft:stick"
    assert craft.outcome.vanilla[0].item == "minecraft:crafting_table"


def test_broken_pack_fails_the_start_naming_file_and_field(world: Path) -> None:
    _pack(
        world / "datapacks" / "bad",
        {"data/minecraft/recipes/stick.json": {"type": "minecraft:crafting_shaped"}},
    )
    with pytest.raises(DatapackError, match=r"bad/data/minecraft/recipes/stick\.json.*(pattern|key)"):
        _game(world)


def test_drag_splits_evenly_and_double_click_gathers(world: Path, sandbox_info) -> None:
    game = _game(world)
    sx, sy, sz = sandbox_info["spawn"]
    p = _player(game, (sx + 0.5, sy, sz + 0.5))
    _give(p, 36, "oak_planks", 7)
    wid = _open(game, p, (sx + 2, sy, sz), "crafting_table")
    _click(game, p, wid, 37)  # pick up 7 planks
    _click(game, p, wid, -999, button=0, mode=5)  # left drag start
    for grid in (1, 2, 3):
        _click(game, p, wid, grid, button=1, mode=5)
    _click(game, p, wid, -999, button=2, mode=5)  # end: 7 // 3 = 2 each, 1 left on the cursor
    menu = game.windows.menu_of(p)
    assert [_name(menu.get(i)) for i in (1, 2, 3)] == [("oak_planks", 2)] * 3
    assert _name(p.inventory.cursor) == ("oak_planks", 1)
    assert _name(menu.get(0)) == ("oak_slab", _mcdata_result_count("oak_slab").pop())
    _click(game, p, wid, 1, mode=6)  # double click: gather the planks back onto the cursor
    assert _name(p.inventory.cursor) == ("oak_planks", 7) and menu.get(0) is None
    # the client's prediction differed (it predicted nothing): the server resent the whole window
    assert p.packets("window_items")[-1].window_id == wid


def test_closing_the_inventory_clears_the_2x2_result(world: Path) -> None:
    game = _game(world)
    p = _player(game)
    _give(p, 36, "oak_log", 1)
    _click(game, p, 0, 36)
    _click(game, p, 0, 2)
    assert p.inventory.slots[0] is not None
    close_window(game, p, 0)
    assert p.inventory.slots[0] is None and p.inventory.slots[2] is None
    assert any(_name(s) == ("oak_log", 1) for s in p.inventory.slots[9:45] if s)
