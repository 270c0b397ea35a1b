"""The loot-table interpreter, one feature at a time, on small inline tables.

Each table below is written in the vanilla 1.19.2 loot-table JSON format; expected values follow the
vanilla semantics described on the Minecraft wiki "Loot table" page (and restated in docs/loot.md).
Statistical checks use enough seeded rolls that the tolerance is > 5 standard errors.
"""

from __future__ import annotations

import json
import random
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mirrorcraft.errors import ContractError, DatapackError
from mirrorcraft.rules.loot import (
    BlockView,
    EntityView,
    LootContext,
    LootTableSet,
    ToolView,
    parse_loot_table,
    roll,
)
from mirrorcraft.rules.stack import Stack

TAGS = {
    "minecraft:logs": frozenset({"minecraft:oak_log", "minecraft:birch_log", "minecraft:spruce_log"}),
    "minecraft:pickaxes_for_test": frozenset({"minecraft:iron_pickaxe", "minecraft:diamond_pickaxe"}),
}


def tags(tag: str) -> frozenset[str]:
    return TAGS[tag]


HAND = LootContext(tool=ToolView())


def item(name: str, **extra: Any) -> dict[str, Any]:
    return {"type": "minecraft:item", "name": name, **extra}


def one_pool(*entries: dict[str, Any], **pool: Any) -> dict[str, Any]:
    return {"type": "minecraft:block", "pools": [{"rolls": 1, "entries": list(entries), **pool}]}


def rolls(
    table: dict[str, Any], ctx: LootContext = HAND, n: int = 1, seed: int = 0, **kw: Any
) -> list[dict[str, int]]:
    compiled = parse_loot_table("test:t", table)
    rng = random.Random(seed)
    return [{s.item: s.count for s in roll(compiled, ctx, rng, tags, **kw)} for _ in range(n)]


def once(table: dict[str, Any], ctx: LootContext = HAND, **kw: Any) -> dict[str, int]:
    return rolls(table, ctx, **kw)[0]


# ---------------------------------------------------------------------------------------------- rolls


def test_constant_rolls_and_merge() -> None:
    table = {"type": "minecraft:block", "pools": [{"rolls": 3.0, "entries": [item("minecraft:dirt")]}]}
    assert once(table) == {"minecraft:dirt": 3}


def test_uniform_rolls_cover_inclusive_range() -> None:
    table = one_pool(item("minecraft:dirt"))
    table["pools"][0]["rolls"] = {"type": "minecraft:uniform", "min": 1, "max": 3}
    seen = Counter(r.get("minecraft:dirt", 0) for r in rolls(table, n=600))
    assert set(seen) == {1, 2, 3}


def test_untyped_object_is_uniform() -> None:
    table = one_pool(item("minecraft:dirt"))
    table["pools"][0]["rolls"] = {"min": 0, "max": 2}
    assert {r.get("minecraft:dirt", 0) for r in rolls(table, n=300)} == {0, 1, 2}


def test_binomial_rolls_mean() -> None:
    table = one_pool(item("minecraft:dirt"))
    table["pools"][0]["rolls"] = {"type": "minecraft:binomial", "n": 10, "p": 0.3}
    counts = [r.get("minecraft:dirt", 0) for r in rolls(table, n=4000)]
    assert max(counts) <= 10
    assert abs(sum(counts) / len(counts) - 3.0) < 0.15


def test_bonus_rolls_scale_with_luck() -> None:
    table = one_pool(item("minecraft:dirt"), bonus_rolls=1.0)
    assert once(table) == {"minecraft:dirt": 1}
    assert once(table, LootContext(tool=ToolView(), luck=2.0)) == {"minecraft:dirt": 3}


# ---------------------------------------------------------------------------------------------- entries


def test_weights_pick_one_entry_proportionally() -> None:
    table = one_pool(item("minecraft:dirt", weight=3), item("minecraft:sand", weight=1))
    results = rolls(table, n=8000)
    assert all(len(r) == 1 for r in results)
    share = sum("minecraft:dirt" in r for r in results) / len(results)
    assert abs(share - 0.75) < 0.03


def test_quality_changes_weight_with_luck_and_zero_weight_never_drops() -> None:
    table = one_pool(item("minecraft:dirt", weight=1, quality=-1), item("minecraft:sand", weight=1))
    lucky = LootContext(tool=ToolView(), luck=1.0)  # dirt weight becomes max(1 - 1, 0) = 0
    assert all(r == {"minecraft:sand": 1} for r in rolls(table, lucky, n=200))


def test_tag_entry_without_expand_gives_every_item() -> None:
    table = one_pool({"type": "minecraft:tag", "name": "minecraft:logs", "expand": False})
    assert once(table) == {"minecraft:birch_log": 1, "minecraft:oak_log": 1, "minecraft:spruce_log": 1}


def test_tag_entry_with_expand_gives_one_item() -> None:
    table = one_pool({"type": "minecraft:tag", "name": "minecraft:logs", "expand": True})
    results = rolls(table, n=600)
    assert all(len(r) == 1 for r in results)
    assert {next(iter(r)) for r in results} == TAGS["minecraft:logs"]


def test_alternatives_take_first_child_that_expands() -> None:
    silk = {
        "condition": "minecraft:match_tool",
        "predicate": {"enchantments": [{"enchantment": "minecraft:silk_touch", "levels": {"min": 1}}]},
    }
    table = one_pool(
        {
            "type": "minecraft:alternatives",
            "children": [item("minecraft:stone", conditions=[silk]), item("minecraft:cobblestone")],
        }
    )
    assert once(table) == {"minecraft:cobblestone": 1}
    silk_ctx = LootContext(
        tool=ToolView(item="minecraft:iron_pickaxe", enchantments={"minecraft:silk_touch": 1})
    )
    assert once(table, silk_ctx) == {"minecraft:stone": 1}


def test_group_adds_all_children_as_candidates_then_picks_one() -> None:
    # Vanilla LootPool.addRandomItem: a group expands into several candidates and one roll picks one.
    table = one_pool(
        {"type": "minecraft:group", "children": [item("minecraft:dirt"), item("minecraft:sand")]}
    )
    results = rolls(table, n=400)
    assert all(len(r) == 1 for r in results)
    assert {next(iter(r)) for r in results} == {"minecraft:dirt", "minecraft:sand"}


def test_sequence_stops_at_first_failing_child() -> None:
    never = {"condition": "minecraft:random_chance", "chance": 0.0}
    table = one_pool(
        {
            "type": "minecraft:sequence",
            "children": [
                item("minecraft:dirt"),
                item("minecraft:sand", conditions=[never]),
                item("minecraft:clay"),
            ],
        }
    )
    assert all(r == {"minecraft:dirt": 1} for r in rolls(table, n=50))


def test_empty_entry_competes_by_weight() -> None:
    table = one_pool({"type": "minecraft:empty", "weight": 1}, item("minecraft:dirt", weight=1))
    results = rolls(table, n=4000)
    share = sum(bool(r) for r in results) / len(results)
    assert abs(share - 0.5) < 0.04


def test_loot_table_reference_and_cycle_and_missing() -> None:
    inner = parse_loot_table("test:inner", one_pool(item("minecraft:flint")))
    outer_json = one_pool({"type": "minecraft:loot_table", "name": "test:inner"})
    outer = parse_loot_table("test:outer", outer_json)
    tables = LootTableSet({"test:inner": inner, "test:outer": outer})
    assert tables.roll("test:outer", HAND, random.Random(0), tags) == [Stack("minecraft:flint", 1)]
    with pytest.raises(ContractError, match="loot_table entry needs"):
        roll(outer, HAND, random.Random(0), tags)
    loop = parse_loot_table("test:loop", one_pool({"type": "minecraft:loot_table", "name": "test:loop"}))
    with pytest.raises(DatapackError, match="cycle: test:loop -> test:loop"):
        LootTableSet({"test:loop": loop}).roll("test:loop", HAND, random.Random(0), tags)
    with pytest.raises(
        DatapackError,
        match=r"test:outer: pools\[0\]\.entries\[0\]: references loot table 'test:inner', which no pack",
    ):
        LootTableSet({"test:outer": outer}).roll("test:outer", HAND, random.Random(0), tags)


# ---------------------------------------------------------------------------------------------- conditions


def cond_table(*conditions: dict[str, Any]) -> dict[str, Any]:
    return one_pool(item("minecraft:dirt", conditions=list(conditions)))


def test_match_tool_items_tag_count() -> None:
    by_item = cond_table({"condition": "minecraft:match_tool", "predicate": {"items": ["minecraft:shears"]}})
    assert once(by_item) == {}
    assert once(by_item, LootContext(tool=ToolView(item="minecraft:shears"))) == {"minecraft:dirt": 1}
    assert once(by_item, LootContext()) == {}  # no tool parameter at all
    by_tag = cond_table(
        {"condition": "minecraft:match_tool", "predicate": {"tag": "minecraft:pickaxes_for_test"}}
    )
    assert once(by_tag, LootContext(tool=ToolView(item="minecraft:diamond_pickaxe"))) == {"minecraft:dirt": 1}
    assert once(by_tag, LootContext(tool=ToolView(item="minecraft:wooden_pickaxe"))) == {}
    by_count = cond_table({"condition": "minecraft:match_tool", "predicate": {"count": {"min": 2}}})
    assert once(by_count, LootContext(tool=ToolView(item="minecraft:stick", count=3))) == {
        "minecraft:dirt": 1
    }
    assert once(by_count, LootContext(tool=ToolView(item="minecraft:stick", count=1))) == {}


def test_match_tool_enchantment_levels() -> None:
    table = cond_table(
        {
            "condition": "minecraft:match_tool",
            "predicate": {
                "enchantments": [{"enchantment": "minecraft:fortune", "levels": {"min": 2, "max": 3}}]
            },
        }
    )
    for level, expected in [
        (0, {}),
        (1, {}),
        (2, {"minecraft:dirt": 1}),
        (3, {"minecraft:dirt": 1}),
        (4, {}),
    ]:
        enchants = {"minecraft:fortune": level} if level else {}
        ctx = LootContext(tool=ToolView(item="minecraft:iron_pickaxe", enchantments=enchants))
        assert once(table, ctx) == expected, level
    exact = cond_table(
        {
            "condition": "minecraft:match_tool",
            "predicate": {"enchantments": [{"enchantment": "minecraft:efficiency", "levels": 5}]},
        }
    )
    ctx5 = LootContext(tool=ToolView(item="minecraft:iron_pickaxe", enchantments={"minecraft:efficiency": 5}))
    assert once(exact, ctx5) == {"minecraft:dirt": 1}


def test_survives_explosion() -> None:
    table = cond_table({"condition": "minecraft:survives_explosion"})
    assert all(r == {"minecraft:dirt": 1} for r in rolls(table, n=50))
    blast = LootContext(explosion_radius=4.0)
    share = sum(bool(r) for r in rolls(table, blast, n=8000)) / 8000
    assert abs(share - 0.25) < 0.03


def test_random_chance_and_with_looting() -> None:
    share = sum(
        bool(r) for r in rolls(cond_table({"condition": "minecraft:random_chance", "chance": 0.2}), n=8000)
    )
    assert abs(share / 8000 - 0.2) < 0.03
    table = cond_table(
        {"condition": "minecraft:random_chance_with_looting", "chance": 0.1, "looting_multiplier": 0.2}
    )
    looting3 = LootContext(killer=EntityView(type="minecraft:player"), looting=3)
    share = sum(bool(r) for r in rolls(table, looting3, n=8000)) / 8000
    assert abs(share - 0.7) < 0.03
    no_killer = LootContext(looting=3)  # looting only counts through a killer entity
    share = sum(bool(r) for r in rolls(table, no_killer, n=8000)) / 8000
    assert abs(share - 0.1) < 0.03


def test_table_bonus_uses_last_chance_above_range() -> None:
    table = cond_table(
        {"condition": "minecraft:table_bonus", "enchantment": "minecraft:fortune", "chances": [0.0, 0.5, 1.0]}
    )
    assert rolls(table, n=100) == [{}] * 100
    ctx = LootContext(tool=ToolView(item="minecraft:iron_shovel", enchantments={"minecraft:fortune": 5}))
    assert all(r == {"minecraft:dirt": 1} for r in rolls(table, ctx, n=100))


def test_inverted_and_alternative() -> None:
    shears = {"condition": "minecraft:match_tool", "predicate": {"items": ["minecraft:shears"]}}
    silk = {
        "condition": "minecraft:match_tool",
        "predicate": {"enchantments": [{"enchantment": "minecraft:silk_touch", "levels": {"min": 1}}]},
    }
    either = {"condition": "minecraft:alternative", "terms": [shears, silk]}
    neither = cond_table({"condition": "minecraft:inverted", "term": either})
    assert once(cond_table(either), LootContext(tool=ToolView(item="minecraft:shears"))) == {
        "minecraft:dirt": 1
    }
    assert once(neither, LootContext(tool=ToolView(item="minecraft:shears"))) == {}
    assert once(neither) == {"minecraft:dirt": 1}


def test_block_state_property_exact_and_range() -> None:
    exact = cond_table(
        {
            "condition": "minecraft:block_state_property",
            "block": "minecraft:snow",
            "properties": {"layers": "3"},
        }
    )
    ranged = cond_table(
        {
            "condition": "minecraft:block_state_property",
            "block": "minecraft:snow",
            "properties": {"layers": {"min": 2, "max": 4}},
        }
    )
    for layers in range(1, 9):
        ctx = LootContext(block=BlockView(name="minecraft:snow", state={"layers": str(layers)}))
        assert bool(once(exact, ctx)) == (layers == 3)
        assert bool(once(ranged, ctx)) == (2 <= layers <= 4)
    other = LootContext(block=BlockView(name="minecraft:stone", state={"layers": "3"}))
    assert once(exact, other) == {}


def test_entity_properties_on_fire_and_presence() -> None:
    fire = cond_table(
        {
            "condition": "minecraft:entity_properties",
            "entity": "this",
            "predicate": {"flags": {"is_on_fire": True}},
        }
    )
    assert once(fire, LootContext(this_entity=EntityView(type="minecraft:cow", on_fire=True))) == {
        "minecraft:dirt": 1
    }
    assert once(fire, LootContext(this_entity=EntityView(type="minecraft:cow"))) == {}
    present = cond_table({"condition": "minecraft:entity_properties", "entity": "this", "predicate": {}})
    assert once(present, LootContext()) == {}
    assert once(present, LootContext(this_entity=EntityView(type="minecraft:player"))) == {
        "minecraft:dirt": 1
    }
    typed = cond_table(
        {
            "condition": "minecraft:entity_properties",
            "entity": "killer",
            "predicate": {"type": "minecraft:player"},
        }
    )
    assert once(typed, LootContext(killer=EntityView(type="minecraft:player"))) == {"minecraft:dirt": 1}
    assert once(typed, LootContext(killer=EntityView(type="minecraft:zombie"))) == {}


def test_killed_by_player() -> None:
    table = cond_table({"condition": "minecraft:killed_by_player"})
    inverse = cond_table({"condition": "minecraft:killed_by_player", "inverse": True})
    by_player = LootContext(killer_player=EntityView(type="minecraft:player"))
    assert once(table, by_player) == {"minecraft:dirt": 1}
    assert once(table, LootContext()) == {}
    assert once(inverse, LootContext()) == {"minecraft:dirt": 1}


def test_location_check_block_above() -> None:
    table = cond_table(
        {
            "condition": "minecraft:location_check",
            "offsetY": 1,
            "predicate": {"block": {"blocks": ["minecraft:tall_grass"], "state": {"half": "upper"}}},
        }
    )
    upper = BlockView(name="minecraft:tall_grass", state={"half": "upper"})
    assert once(table, LootContext(neighbours={(0, 1, 0): upper})) == {"minecraft:dirt": 1}
    assert once(table, LootContext(neighbours={(0, 1, 0): BlockView(name="minecraft:air")})) == {}
    with pytest.raises(ContractError, match="needs LootContext.neighbours"):
        once(table, LootContext())


# ---------------------------------------------------------------------------------------------- functions


def fn_table(*functions: dict[str, Any], name: str = "minecraft:dirt") -> dict[str, Any]:
    return one_pool(item(name, functions=list(functions)))


def test_set_count_set_add_and_clamp() -> None:
    assert once(fn_table({"function": "minecraft:set_count", "count": 5})) == {"minecraft:dirt": 5}
    add = fn_table(
        {"function": "minecraft:set_count", "count": 5},
        {"function": "minecraft:set_count", "count": 2, "add": True},
    )
    assert once(add) == {"minecraft:dirt": 7}
    big = fn_table({"function": "minecraft:set_count", "count": 100})
    assert once(big) == {"minecraft:dirt": 64}
    assert once(big, max_stack_size=lambda name: 16) == {"minecraft:dirt": 16}
    assert once(fn_table({"function": "minecraft:set_count", "count": 0})) == {}


def test_function_conditions_gate_the_function() -> None:
    table = fn_table(
        {
            "function": "minecraft:set_count",
            "count": 9,
            "conditions": [{"condition": "minecraft:killed_by_player"}],
        }
    )
    assert once(table) == {"minecraft:dirt": 1}
    assert once(table, LootContext(killer_player=EntityView(type="minecraft:player"))) == {
        "minecraft:dirt": 9
    }


def fortune(level: int) -> LootContext:
    enchants = {"minecraft:fortune": level} if level else {}
    return LootContext(tool=ToolView(item="minecraft:iron_pickaxe", enchantments=enchants))


def mean_count(table: dict[str, Any], ctx: LootContext, n: int, name: str = "minecraft:dirt") -> float:
    return sum(r.get(name, 0) for r in rolls(table, ctx, n=n, seed=7)) / n


def test_apply_bonus_ore_drops() -> None:
    table = fn_table(
        {"function": "minecraft:apply_bonus", "enchantment": "minecraft:fortune", "formula": "ore_drops"}
    )
    assert rolls(table, fortune(0), n=50) == [{"minecraft:dirt": 1}] * 50
    assert abs(mean_count(table, fortune(3), 20000) - 2.2) < 0.05  # (1+1+2+3+4)/5
    assert {r["minecraft:dirt"] for r in rolls(table, fortune(3), n=2000)} == {1, 2, 3, 4}
    assert once(table, LootContext()) == {"minecraft:dirt": 1}  # no tool parameter: unchanged


def test_apply_bonus_uniform_and_binomial() -> None:
    uniform = fn_table(
        {
            "function": "minecraft:apply_bonus",
            "enchantment": "minecraft:fortune",
            "formula": "minecraft:uniform_bonus_count",
            "parameters": {"bonusMultiplier": 2},
        }
    )
    assert {r["minecraft:dirt"] for r in rolls(uniform, fortune(2), n=2000)} == {1, 2, 3, 4, 5}
    binomial = fn_table(
        {
            "function": "minecraft:apply_bonus",
            "enchantment": "minecraft:fortune",
            "formula": "minecraft:binomial_with_bonus_count",
            "parameters": {"extra": 3, "probability": 0.5714286},
        }
    )
    # 1 + Binomial(level + extra, p): with Fortune II, mean 1 + 5 * 0.5714286
    assert abs(mean_count(binomial, fortune(2), 10000) - (1 + 5 * 0.5714286)) < 0.06


def test_explosion_decay() -> None:
    table = fn_table(
        {"function": "minecraft:set_count", "count": 8}, {"function": "minecraft:explosion_decay"}
    )
    assert once(table) == {"minecraft:dirt": 8}
    assert abs(mean_count(table, LootContext(explosion_radius=4.0), 8000) - 2.0) < 0.06


def test_limit_count() -> None:
    table = fn_table(
        {"function": "minecraft:set_count", "count": 10},
        {"function": "minecraft:limit_count", "limit": {"min": 1, "max": 4}},
    )
    assert once(table) == {"minecraft:dirt": 4}
    raise_to = fn_table(
        {"function": "minecraft:set_count", "count": 0},
        {"function": "minecraft:limit_count", "limit": {"min": 2}},
    )
    assert once(raise_to) == {"minecraft:dirt": 2}


def test_looting_enchant_with_limit() -> None:
    table = fn_table(
        {"function": "minecraft:set_count", "count": 1},
        {"function": "minecraft:looting_enchant", "count": 1, "limit": 3},
    )
    killer = EntityView(type="minecraft:player")
    assert once(table, LootContext(killer=killer, looting=0)) == {"minecraft:dirt": 1}
    assert once(table, LootContext(killer=killer, looting=1)) == {"minecraft:dirt": 2}
    assert once(table, LootContext(killer=killer, looting=3)) == {"minecraft:dirt": 3}  # limited
    assert once(table, LootContext(looting=3)) == {"minecraft:dirt": 1}  # no killer entity


def test_furnace_smelt() -> None:
    table = fn_table(
        {"function": "minecraft:set_count", "count": 2},
        {"function": "minecraft:furnace_smelt"},
        name="minecraft:beef",
    )
    smelt = {"minecraft:beef": "minecraft:cooked_beef"}.get
    assert once(table, smelt=smelt) == {"minecraft:cooked_beef": 2}
    assert once(fn_table({"function": "minecraft:furnace_smelt"}), smelt=smelt) == {"minecraft:dirt": 1}
    with pytest.raises(ContractError, match="no smelt lookup"):
        once(table)


@pytest.mark.parametrize("kind", ["copy_name", "copy_state", "set_nbt", "copy_nbt"])
def test_nbt_functions_are_tolerated_no_ops(kind: str) -> None:
    table = fn_table({"function": f"minecraft:{kind}", "source": "block_entity", "tag": "{}"})
    assert once(table) == {"minecraft:dirt": 1}


def test_pool_and_table_functions_apply_after_entry_functions() -> None:
    table = {
        "type": "minecraft:block",
        "functions": [{"function": "minecraft:set_count", "count": 1, "add": True}],
        "pools": [
            {
                "rolls": 1,
                "functions": [{"function": "minecraft:limit_count", "limit": {"max": 2}}],
                "entries": [
                    item("minecraft:dirt", functions=[{"function": "minecraft:set_count", "count": 5}])
                ],
            }
        ],
    }
    assert once(table) == {"minecraft:dirt": 3}  # 5 → limit 2 → +1


def test_pool_conditions_skip_the_pool() -> None:
    table = one_pool(
        item("minecraft:dirt"), conditions=[{"condition": "minecraft:random_chance", "chance": 0.0}]
    )
    assert once(table) == {}


# ---------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            one_pool({"type": "minecraft:dynamic", "name": "minecraft:contents"}),
            r"pools\[0\]\.entries\[0\]\.type",
        ),
        (
            cond_table({"condition": "minecraft:weather_check", "raining": True}),
            r"pools\[0\]\.entries\[0\]\.conditions\[0\]\.condition: unsupported condition",
        ),
        (
            fn_table({"function": "minecraft:enchant_randomly"}),
            r"pools\[0\]\.entries\[0\]\.functions\[0\]\.function: unsupported function",
        ),
        (
            fn_table({"function": "minecraft:set_count", "count": {"type": "minecraft:score", "score": "x"}}),
            r"pools\[0\]\.entries\[0\]\.functions\[0\]\.count\.type: unsupported number provider",
        ),
        (
            fn_table(
                {"function": "minecraft:apply_bonus", "enchantment": "minecraft:fortune", "formula": "x:y"}
            ),
            r"pools\[0\]\.entries\[0\]\.functions\[0\]\.formula: unknown type 'x:y'",
        ),
        (
            {"type": "minecraft:block", "pools": [{"entries": []}]},
            r"pools\[0\]: missing required field 'rolls'",
        ),
        (
            one_pool(item("minecraft:dirt", weight="heavy")),
            r"pools\[0\]\.entries\[0\]\.weight: expected a number",
        ),
        (one_pool({"type": "minecraft:item"}), r"pools\[0\]\.entries\[0\]: missing required field 'name'"),
        (
            cond_table({"condition": "minecraft:match_tool", "predicate": {"nbt": "{}"}}),
            r"pools\[0\]\.entries\[0\]\.conditions\[0\]\.predicate\.nbt: item predicate field 'nbt' is not supported",
        ),
        (one_pool({"type": "other:thing"}), r"pools\[0\]\.entries\[0\]\.type: unknown type 'other:thing'"),
    ],
)
def test_bad_tables_raise_datapack_error_naming_table_and_path(table: dict[str, Any], message: str) -> None:
    with pytest.raises(DatapackError, match=r"loot table test:t: " + message):
        parse_loot_table("test:t", table)


# ---------------------------------------------------------------------------------------------- determinism


def test_same_seed_same_drops_different_seed_differs() -> None:
    table = one_pool(
        item(
            "minecraft:lapis_lazuli",
            functions=[
                {
                    "function": "minecraft:set_count",
                    "count": {"type": "minecraft:uniform", "min": 4, "max": 9},
                },
                {
                    "function": "minecraft:apply_bonus",
                    "enchantment": "minecraft:fortune",
                    "formula": "ore_drops",
                },
            ],
        )
    )
    first = rolls(table, fortune(3), n=100, seed=42)
    again = rolls(table, fortune(3), n=100, seed=42)
    other = rolls(table, fortune(3), n=100, seed=43)
    assert first == again
    assert first != other


def test_merge_keeps_first_appearance_order() -> None:
    table = {
        "type": "minecraft:block",
        "pools": [
            {"rolls": 1, "entries": [item("minecraft:sand")]},
            {"rolls": 1, "entries": [item("minecraft:dirt")]},
            {"rolls": 1, "entries": [item("minecraft:sand")]},
        ],
    }
    out = roll(parse_loot_table("test:t", table), HAND, random.Random(0), tags)
    assert out == [Stack("minecraft:sand", 2), Stack("minecraft:dirt", 1)]


# ---------------------------------------------------------------------------------------------- packs


def write_pack(root: Path, tables: dict[str, Any]) -> Path:
    for rel, data in tables.items():
        ns, path = rel.split(":")
        file = root / "data" / ns / "loot_tables" / f"{path}.json"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(data))
    return root


def test_later_pack_overrides_earlier(tmp_path: Path) -> None:
    base = write_pack(
        tmp_path / "vanilla",
        {
            "minecraft:blocks/dirt": one_pool(item("minecraft:dirt")),
            "minecraft:blocks/sand": one_pool(item("minecraft:sand")),
        },
    )
    mirror_dir = tmp_path / "mirror"
    write_pack(mirror_dir, {"minecraft:blocks/dirt": one_pool(item("minecraft:diamond"))})
    archive = tmp_path / "mirror.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for file in mirror_dir.rglob("*.json"):
            zf.write(file, file.relative_to(mirror_dir).as_posix())
    for override in (mirror_dir, archive):
        tables = LootTableSet.from_pack_dirs([base, override])
        assert tables.locations() == ["minecraft:blocks/dirt", "minecraft:blocks/sand"]
        rng = random.Random(0)
        assert tables.roll("blocks/dirt", HAND, rng, tags) == [Stack("minecraft:diamond", 1)]
        assert tables.roll("minecraft:blocks/sand", HAND, rng, tags) == [Stack("minecraft:sand", 1)]


def test_pack_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad" / "data" / "minecraft" / "loot_tables" / "blocks" / "dirt.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json")
    with pytest.raises(DatapackError, match=r"dirt\.json: not valid JSON"):
        LootTableSet.from_pack_dirs([tmp_path / "bad"])
    with pytest.raises(DatapackError, match="not a pack root"):
        LootTableSet.from_pack_dirs([tmp_path / "missing"])
    bad.write_text(json.dumps(one_pool({"type": "minecraft:nope"})))
    with pytest.raises(
        DatapackError, match=r"loot table minecraft:blocks/dirt: pools\[0\]\.entries\[0\]\.type"
    ):
        LootTableSet.from_pack_dirs([tmp_path / "bad"])
