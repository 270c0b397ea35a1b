"""The PillagerBench arena saves on the embedded server: chests and furnaces read from the chunks'
``block_entities`` (as vanilla stores them), the side file kept for saves that have it, the hopper feeding the
egg chest, and the saves' own game rules (``level.dat``)."""

from __future__ import annotations

import json

import pytest
from support.fakeplayer import FakePlayer, join, new_game

from mirrorcraft.errors import WorldError
from mirrorcraft.server.features.blockentities import SIDECAR

# Coordinates from the arena spec (docs/pillagerbench.md, "Arena facts and their sources").
BOWLS, GOLD, BUCKETS, EGGS = (-3, -59, -1), (-11, -59, -1), (-7, -60, -7), (-7, -60, 5)
FURNACES = [(2, -59, -2), (2, -59, -1), (2, -59, 0)]
HOPPER = (-7, -60, 6)


def contents(game, pos) -> dict[str, int]:  # noqa: ANN001
    return game.chests.chest_at(pos).contents()


def test_chests_and_furnaces_come_from_the_chunks(arena) -> None:  # noqa: ANN001
    game = new_game(arena("dash_and_dine"))
    assert not (game.config.world / SIDECAR).exists()
    assert contents(game, BOWLS) == {"minecraft:bowl": 64}
    assert contents(game, GOLD) == {"minecraft:gold_nugget": 64, "minecraft:netherite_hoe": 1}
    hoe = next(s for s in game.chests.chest_at(GOLD).slots if s and s.item == "minecraft:netherite_hoe")
    assert int(hoe.nbt["Damage"]) == 0  # the item's NBT came along
    assert contents(game, BUCKETS) == {"minecraft:bucket": 16} and contents(game, EGGS) == {}
    for pos in FURNACES:
        dev = game.furnaces.device_at(pos)
        assert dev.slots[1] is not None and (dev.slots[1].item, dev.slots[1].count) == ("minecraft:coal", 64)
    assert game.block_entities.from_chunks == 7 and game.hoppers.hopper_at(HOPPER) is not None
    mirrored = new_game(arena("dash_and_dine", "mirrored"))  # z reflects to -2 - z
    assert contents(mirrored, (-7, -60, -2 - (-7))) == {"minecraft:bucket": 16}


def test_the_side_file_is_kept_and_wins_over_the_chunks(arena) -> None:  # noqa: ANN001
    world = arena("dash_and_dine")
    game = new_game(world)
    chest = game.chests.chest_at(BOWLS)
    chest.slots[0] = chest.slots[0]._replace(count=5)
    game.save()
    data = json.loads((world / SIDECAR).read_text())
    assert {"furnaces", "chests", "hoppers"} <= set(data)
    again = new_game(world)
    assert contents(again, BOWLS) == {"minecraft:bowl": 5}  # the side file's, not the chunk's 64
    assert contents(again, BUCKETS) == {"minecraft:bucket": 16}


def test_the_hopper_feeds_the_egg_chest(arena) -> None:  # noqa: ANN001
    game = new_game(arena("dash_and_dine"), episode_seed=2)
    join(game, FakePlayer("Byte"), (-5.5, -60.0, 6.5))
    game.admin.set_game_rule("randomTickSpeed", 0)
    hens = [a for a in game.mobs.animals.values() if a.type == "minecraft:chicken"]
    for k, hen in enumerate(hens[:3]):
        hen.egg_time = 1 + 20 * k
    for _ in range(120):
        game.tick()
    assert contents(game, EGGS) == {"minecraft:egg": 3}
    assert game.hoppers.moved >= 6  # three pulled in, three pushed on


def test_the_saves_game_rules_apply(arena) -> None:  # noqa: ANN001
    dash = new_game(arena("dash_and_dine"))
    assert dash.admin.game_rules["randomTickSpeed"] == 200 and dash.admin.game_rules["keepInventory"] is True
    war = new_game(arena("mushroom_war"))
    assert war.admin.game_rules["randomTickSpeed"] == 3
    assert war.admin.game_rules["doMobSpawning"] is True  # the controls' value wins over level.dat's false


def test_a_malformed_block_entity_names_its_field(arena) -> None:  # noqa: ANN001
    game = new_game(arena("mushroom_war"))
    with pytest.raises(WorldError, match=r"here\.Items\[0\]"):
        game.hoppers.restore(
            {"pos": [0, 0, 0], "Items": [{"Slot": 9, "id": "minecraft:egg", "Count": 1}]}, "here"
        )
