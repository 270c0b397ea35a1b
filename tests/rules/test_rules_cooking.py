"""Cooking devices in ticks: vanilla timing and fuel, window properties, stacking limits, experience,
and the Mirror cooking-yield sidecar (compiled from the shipped M01/M03/M05 suites)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from mirrorcraft.errors import ContractError
from mirrorcraft.rules.cooking import FUEL, INPUT, OUTPUT, CookingDevice, FuelTable, Stack
from mirrorcraft.rules.datapacks import DatapackSet

RAW_IRON, COAL, INGOT = "minecraft:raw_iron", "minecraft:coal", "minecraft:iron_ingot"


def loaded(device: str, packs: DatapackSet, inp: Stack | None, fuel: Stack | None) -> CookingDevice:
    d = CookingDevice(device, packs)  # type: ignore[arg-type]
    d.put(INPUT, inp)
    d.put(FUEL, fuel)
    return d


def test_fuel_table(vanilla: DatapackSet) -> None:
    fuels = FuelTable(vanilla)
    assert fuels.burn_time(COAL) == 1600
    assert fuels.burn_time("minecraft:charcoal") == 1600
    assert fuels.burn_time("minecraft:coal_block") == 16000
    assert fuels.burn_time("minecraft:lava_bucket") == 20000
    assert fuels.burn_time("minecraft:stick") == 100
    assert fuels.burn_time("minecraft:wooden_slab") == 0  # not an item
    assert fuels.burn_time("minecraft:oak_slab") == 150
    for log in vanilla.item_tag("logs_that_burn") | vanilla.item_tag("planks") - vanilla.item_tag(
        "non_flammable_wood"
    ):
        assert fuels.burn_time(log) == 300, log
    assert fuels.burn_time("minecraft:crimson_planks") == 0  # never a fuel (non_flammable_wood)
    assert fuels.burn_time("minecraft:crimson_stem") == 0
    assert fuels.burn_time("minecraft:oak_boat") == 1200
    assert fuels.burn_time("minecraft:white_carpet") == 67
    assert fuels.burn_time("minecraft:cobblestone") == 0
    assert fuels.burn_time(COAL, "blast_furnace") == 800
    assert fuels.burn_time(COAL, "smoker") == 800


def test_furnace_raw_iron_coal_timing(vanilla: DatapackSet) -> None:
    f = loaded("furnace", vanilla, Stack(RAW_IRON, 16), Stack(COAL, 2))
    assert f.cooking_total_time == 200
    assert f.tick() == []
    assert f.properties() == {0: 1600, 1: 1600, 2: 1, 3: 200}
    assert f.slots[FUEL] == Stack(COAL, 1)
    f.run(198)
    assert f.slots[OUTPUT] is None and f.cooking_progress == 199
    (unit,) = f.tick()  # tick 200
    assert (unit.input, unit.item, unit.count, unit.recipe, unit.rules) == (
        RAW_IRON,
        INGOT,
        1,
        "minecraft:iron_ingot_from_smelting_raw_iron",
        (),
    )
    assert f.slots[OUTPUT] == Stack(INGOT, 1) and f.slots[INPUT] == Stack(RAW_IRON, 15)
    done = f.run(1400)  # to tick 1600: one coal cooked 8 items
    assert len(done) == 7 and f.slots[OUTPUT] == Stack(INGOT, 8)
    assert f.lit_time == 1 and f.slots[FUEL] == Stack(COAL, 1)
    f.tick()  # tick 1601: the first coal is out, the second is lit
    assert f.slots[FUEL] is None and f.lit_time == 1600 and f.cooking_progress == 1
    f.run(1599)
    assert f.slots[OUTPUT] == Stack(INGOT, 16) and f.slots[INPUT] is None
    f.run(2)
    assert not f.lit
    assert f.properties()[2] == 0


def test_blast_furnace_is_twice_as_fast(vanilla: DatapackSet) -> None:
    b = loaded("blast_furnace", vanilla, Stack(RAW_IRON, 10), Stack(COAL, 1))
    assert b.cooking_total_time == 100
    done = b.run(100)
    assert len(done) == 1 and done[0].recipe == "minecraft:iron_ingot_from_blasting_raw_iron"
    b.run(700)
    assert b.slots[OUTPUT] == Stack(INGOT, 8)  # coal burns 800 ticks in a blast furnace: 8 items
    b.run(50)
    assert not b.lit and b.slots[OUTPUT] == Stack(INGOT, 8) and b.slots[INPUT] == Stack(RAW_IRON, 2)


def test_no_recipe_no_burn(vanilla: DatapackSet) -> None:
    s = loaded("smoker", vanilla, Stack(RAW_IRON, 1), Stack(COAL, 1))  # smokers cook food only
    s.run(300)
    assert s.slots[FUEL] == Stack(COAL, 1) and not s.lit and s.slots[OUTPUT] is None
    b = loaded("blast_furnace", vanilla, Stack("minecraft:beef", 1), Stack(COAL, 1))
    b.run(10)
    assert b.slots[FUEL] == Stack(COAL, 1)
    s = loaded("smoker", vanilla, Stack("minecraft:beef", 2), Stack(COAL, 1))
    s.run(100)
    assert s.slots[OUTPUT] == Stack("minecraft:cooked_beef", 1)


def test_output_stack_limit_and_decay(vanilla: DatapackSet) -> None:
    f = loaded("furnace", vanilla, Stack(RAW_IRON, 2), Stack(COAL, 1))
    f.put(OUTPUT, Stack(INGOT, 64))
    f.run(50)
    assert f.slots[FUEL] == Stack(COAL, 1) and not f.lit  # canBurn is false: fuel is not wasted
    f.put(OUTPUT, Stack(INGOT, 63))
    f.run(400)
    assert f.slots[OUTPUT] == Stack(INGOT, 64) and f.slots[INPUT] == Stack(RAW_IRON, 1)
    # progress resets while blocked, and decays by 2 per tick once unlit
    g = loaded("furnace", vanilla, Stack(RAW_IRON, 1), Stack("minecraft:stick", 1))
    g.run(100)  # the stick burns 100 ticks
    assert g.cooking_progress == 100
    g.run(3)
    assert not g.lit and g.cooking_progress == 94  # 100 - 3 x 2
    # a different input item restarts the cook
    g.put(INPUT, Stack("minecraft:sand", 1))
    assert g.cooking_progress == 0 and g.cooking_total_time == 200


def test_lava_bucket_leaves_a_bucket(vanilla: DatapackSet) -> None:
    f = loaded("furnace", vanilla, Stack(RAW_IRON, 1), Stack("minecraft:lava_bucket", 1))
    f.tick()
    assert f.slots[FUEL] == Stack("minecraft:bucket", 1) and f.lit_time == 20000


def test_experience_is_popped_on_take(vanilla: DatapackSet) -> None:
    f = loaded("furnace", vanilla, Stack(RAW_IRON, 8), Stack(COAL, 1))
    f.run(1600)
    seen = set()
    for seed in range(40):
        g = CookingDevice("furnace", vanilla, book=f.book, fuels=f.fuels)
        g.slots[OUTPUT] = Stack(INGOT, 8)
        g.recipes_used = dict(f.recipes_used)
        take = g.take_output(rng=random.Random(seed))
        assert take is not None and take.count == 8
        seen.add(take.experience)
    assert seen == {5, 6}  # 8 x 0.7 = 5.6: 5, plus 1 with probability 0.6
    take = f.take_output(3, rng=random.Random(1))
    assert (
        take is not None and take.count == 3 and len(take.units) == 3 and f.slots[OUTPUT] == Stack(INGOT, 5)
    )
    assert f.take_output(5, rng=random.Random(1)).experience == 0  # already awarded  # type: ignore[union-attr]
    assert f.take_output() is None
    with pytest.raises(ContractError, match="fractional experience needs an rng"):
        h = loaded("furnace", vanilla, Stack(RAW_IRON, 1), Stack(COAL, 1))
        h.run(200)
        h.take_output()


def test_bad_device_and_slot(vanilla: DatapackSet) -> None:
    with pytest.raises(ContractError, match="unknown cooking device"):
        CookingDevice("campfire", vanilla)  # type: ignore[arg-type]
    f = CookingDevice("furnace", vanilla)
    with pytest.raises(ContractError, match="slot 3 does not exist"):
        f.put(3, None)
    with pytest.raises(ContractError, match="not a valid stack"):
        f.put(INPUT, Stack("minecraft:iron_pickaxe", 2))


# ---------------------------------------------------------------------------------------------------
# Yield sidecars
# ---------------------------------------------------------------------------------------------------


def test_m01_sidecar_three_nuggets_in_the_furnace_only(mirror: Callable[[str], DatapackSet]) -> None:
    m01 = mirror("M01")
    f = loaded("furnace", m01, Stack(RAW_IRON, 3), Stack(COAL, 1))
    (unit,) = f.run(200)
    assert (unit.item, unit.count) == ("minecraft:iron_nugget", 3)
    assert unit.rules == ("M01.raw_iron_smelts_to_three_nuggets",)
    f.run(400)
    assert f.slots[OUTPUT] == Stack("minecraft:iron_nugget", 9)
    take = f.take_output(4, rng=random.Random(0))
    assert take is not None and [u.count for u in take.units] == [3, 3]  # 4 nuggets touch two units
    # the blast furnace keeps vanilla in M01
    b = loaded("blast_furnace", m01, Stack(RAW_IRON, 1), Stack(COAL, 1))
    (unit,) = b.run(100)
    assert (unit.item, unit.count, unit.rules) == (INGOT, 1, ())
    # room for the whole yield is required
    g = loaded("furnace", m01, Stack(RAW_IRON, 2), Stack(COAL, 1))
    g.put(OUTPUT, Stack("minecraft:iron_nugget", 62))
    g.run(400)
    assert g.slots[OUTPUT] == Stack("minecraft:iron_nugget", 62) and g.slots[FUEL] == Stack(COAL, 1)


def test_m03_two_ingots_in_both_devices(mirror: Callable[[str], DatapackSet]) -> None:
    m03 = mirror("M03")
    for device, ticks in (("furnace", 200), ("blast_furnace", 100)):
        d = loaded(device, m03, Stack(RAW_IRON, 2), Stack(COAL, 1))
        (unit,) = d.run(ticks)
        assert (unit.item, unit.count, unit.rules) == (INGOT, 2, ("M03.raw_iron_cooks_to_two_ingots",))


def test_m05_hoe_cooks_to_pickaxe(mirror: Callable[[str], DatapackSet], vanilla: DatapackSet) -> None:
    m05 = mirror("M05")
    f = loaded("furnace", m05, Stack("minecraft:iron_hoe", 1), Stack(COAL, 1))
    (unit,) = f.run(200)
    assert unit.item == "minecraft:iron_pickaxe" and unit.rules == ("M05.iron_hoe_cooks_to_iron_pickaxe",)
    v = loaded("furnace", vanilla, Stack("minecraft:iron_hoe", 1), Stack(COAL, 1))
    (unit,) = v.run(200)
    assert (unit.item, unit.recipe) == ("minecraft:iron_nugget", "minecraft:iron_nugget_from_smelting")
    # the pickaxe does not stack: a second hoe waits for the output to be taken
    f.put(INPUT, Stack("minecraft:iron_hoe", 1))
    f.run(300)
    assert f.slots[INPUT] == Stack("minecraft:iron_hoe", 1)


def test_output_set_from_outside_keeps_the_ledger_consistent(mirror: Callable[[str], DatapackSet]) -> None:
    f = loaded("furnace", mirror("M01"), Stack(RAW_IRON, 2), Stack(COAL, 1))
    f.run(400)
    assert f.slots[OUTPUT] == Stack("minecraft:iron_nugget", 6) and len(f.ledger) == 2
    f.put(OUTPUT, Stack("minecraft:iron_nugget", 2))  # e.g. a shift-click moved 4 out through the server
    assert [entry[1] for entry in f.ledger] == [2]
    take = f.take_output(rng=random.Random(0))
    # items removed through put() are not reported as units (the server uses take_output for player takes)
    assert take is not None and take.count == 2 and take.units == ()
    f.put(OUTPUT, Stack("minecraft:iron_nugget", 5))  # foreign items: no provenance
    assert not f.ledger
