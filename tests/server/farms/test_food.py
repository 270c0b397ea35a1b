"""Every vanilla food, milk, honey and cake on a real game, through the client's packets (``use_item``,
``use_item_on``), against vanilla 1.19.2 facts: food points and saturation from game data (minecraft-data
``foods.json``); ``Foods.java``'s certain and chance effects; ``MilkBucketItem`` (32 ticks, every effect
removed, a bucket left); ``HoneyBottleItem`` (40 ticks, cures poison); ``CakeBlock`` (7 slices of
``FoodData.eat(2, 0.1)``, eaten only when hungry)."""

from __future__ import annotations

from support.fakeplayer import give, send, use_block
from support.farm_plots import PLOT_Y, Plot

from mirrorcraft.gamedata.registries import _registries
from mirrorcraft.rules.items import use_ticks

Y = PLOT_Y


def eat(plot: Plot, item: str, slot: int = 36) -> None:
    """Hold ``item`` and use it until it is finished (the use's ticks + 1)."""
    p = plot.player
    give(p, slot, item, 1)
    p.inventory.held = slot - 36
    send(plot.game, p, "use_item", hand=0, sequence=1)
    ticks = use_ticks(f"minecraft:{item}") or (16 if item == "dried_kelp" else 32)
    plot.tick(ticks + 1)


def hungry(plot: Plot, food: int = 0, saturation: float = 0.0) -> None:
    st = plot.game.food.state(plot.player)
    st.food, st.saturation, st.exhaustion = food, saturation, 0.0


def test_every_vanilla_food_restores_its_points_and_saturation(plot: Plot) -> None:
    plot.game.admin.set_difficulty("easy")  # Peaceful would refill the bar while eating
    foods = _registries()["foods"][0]
    assert len(foods) == 40 and {"golden_carrot", "rabbit_stew", "cookie", "pumpkin_pie"} <= set(foods)
    st = plot.game.food.state(plot.player)
    for name, info in sorted(foods.items()):
        hungry(plot)
        eat(plot, name)
        assert st.food == min(int(info.food_points), 20), name
        assert abs(st.saturation - min(info.saturation, st.food)) < 1e-6, name
        plot.game.effects.remove(plot.player, None)
    for name, left in (("rabbit_stew", "bowl"), ("beetroot_soup", "bowl"), ("honey_bottle", "glass_bottle")):
        hungry(plot)
        eat(plot, name)
        assert plot.player.inventory.slots[36].item == f"minecraft:{left}", name


def test_food_effects_certain_and_by_chance(plot: Plot) -> None:
    g, p = plot.game, plot.player
    g.admin.set_difficulty("easy")
    hungry(plot)
    eat(plot, "pufferfish")
    assert {e.effect for e in g.effects.effects_of(p)} >= {
        "minecraft:poison",
        "minecraft:hunger",
        "minecraft:nausea",
    }
    for food, chance, n in (("rotten_flesh", 0.8, 50), ("chicken", 0.3, 50)):
        got = 0
        for _ in range(n):
            g.effects.remove(p, None)
            hungry(plot)
            eat(plot, food)
            got += g.effects.level(p, "minecraft:hunger") > 0
        sd = (n * chance * (1 - chance)) ** 0.5
        assert abs(got - n * chance) < 5 * sd, (food, got)


def test_milk_clears_every_effect_and_leaves_a_bucket_honey_cures_poison(plot: Plot) -> None:
    g, p = plot.game, plot.player
    assert g.effects.effects_of(p)  # the benchmark's Haste, Speed, Resistance, Strength
    assert g.food.state(p).food == 20  # milk is drunk whatever the food level
    eat(plot, "milk_bucket")
    assert g.effects.effects_of(p) == [] and p.inventory.slots[36].item == "minecraft:bucket"
    g.effects.add(p, "minecraft:poison", 200, 0, False)
    g.effects.add(p, "minecraft:speed", 200, 0, False)
    hungry(plot, 10)
    give(p, 36, "honey_bottle", 1)
    send(g, p, "use_item", hand=0, sequence=2)
    plot.tick(33)
    assert g.effects.level(p, "minecraft:poison") == 1  # 40 ticks, not 32
    plot.tick(8)
    assert g.effects.level(p, "minecraft:poison") == 0 and g.effects.level(p, "minecraft:speed") == 1


def test_cake_is_eaten_slice_by_slice_only_when_hungry(plot: Plot) -> None:
    g, p = plot.game, plot.player
    g.admin.set_difficulty("easy")
    plot.floor(18, 18, 24, 24, "stone", y=Y - 1)
    p.pos = [21.5, float(Y), 23.5]
    give(p, 36, "cake", 1)
    use_block(g, p, (21, Y - 1, 21), face=1)
    assert plot.name((21, Y, 21)) == "cake" and plot.props((21, Y, 21))["bites"] == "0"
    st = g.food.state(p)
    st.food, st.saturation = 20, 5.0
    give(p, 36, "oak_planks", 1)
    use_block(g, p, (21, Y, 21), face=1)  # full: the use passes and the held planks are placed on the cake
    assert plot.props((21, Y, 21))["bites"] == "0" and plot.name((21, Y + 1, 21)) == "oak_planks"
    g.kernel.set_block((21, Y + 1, 21), 0)
    hungry(plot, 0, 0.0)
    p.inventory.slots[36] = None
    for bite in range(1, 8):
        use_block(g, p, (21, Y, 21), face=1)
        assert st.food == 2 * bite and abs(st.saturation - 0.4 * bite) < 1e-6  # FoodData.eat(2, 0.1)
        assert plot.name((21, Y, 21)) == ("cake" if bite < 7 else "air")
        if bite < 7:
            assert plot.props((21, Y, 21))["bites"] == str(bite)
    give(p, 36, "cake", 2)
    use_block(g, p, (21, Y + 3, 21), face=1)  # into the air three blocks above the floor: no support
    assert plot.name((21, Y + 3, 21)) == "air" and p.inventory.slots[36].count == 2
    use_block(g, p, (21, Y - 1, 21), face=1)
    g.digging.break_block(None, (21, Y - 1, 21))  # its support goes: the cake goes, dropping nothing
    assert plot.name((21, Y, 21)) == "air" and "cake" not in plot.drops()
