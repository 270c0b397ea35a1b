"""Advancements from the vanilla pack: the story milestones' criteria on inventory changes and
enchanting, requirements, parents and visibility, and the advancements packet through the protocol codec."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.rules_support import VANILLA, make_pack

from mirrorcraft.errors import ContractError, DatapackError
from mirrorcraft.rules.advancements import PASSIVE_TRIGGERS, ItemView, PlayerAdvancements, layout_tree
from mirrorcraft.rules.datapacks import DatapackSet

STORY = "minecraft:story/"


def give(
    adv: PlayerAdvancements, inventory: list[ItemView | None], item: str, count: int = 1, tick: int = 1
) -> list[str]:
    """Put a stack in the first free slot and fire inventory_changed as the server does."""
    stack = ItemView(f"minecraft:{item}", count)
    inventory[inventory.index(None)] = stack
    return adv.inventory_changed(inventory, stack, tick)


@pytest.fixture
def player(vanilla: DatapackSet) -> tuple[PlayerAdvancements, list[ItemView | None]]:
    return PlayerAdvancements(vanilla), [None] * 41


@pytest.mark.parametrize(
    ("item", "advancement"),
    [
        ("crafting_table", "root"),
        ("cobblestone", "mine_stone"),
        ("cobbled_deepslate", "mine_stone"),
        ("blackstone", "mine_stone"),
        ("stone_pickaxe", "upgrade_tools"),
        ("iron_ingot", "smelt_iron"),
        ("iron_helmet", "obtain_armor"),
        ("iron_chestplate", "obtain_armor"),
        ("iron_leggings", "obtain_armor"),
        ("iron_boots", "obtain_armor"),
        ("lava_bucket", "lava_bucket"),
        ("iron_pickaxe", "iron_tools"),
        ("diamond", "mine_diamond"),
        ("obsidian", "form_obsidian"),
        ("diamond_boots", "shiny_gear"),
    ],
)
def test_inventory_milestones(
    player: tuple[PlayerAdvancements, list[ItemView | None]], item: str, advancement: str
) -> None:
    adv, inv = player
    assert give(adv, inv, item, tick=7) == [STORY + advancement]
    assert adv.completed == {STORY + advancement: 7}
    assert give(adv, inv, item, tick=8) == []  # once only


def test_unrelated_items_grant_nothing(player: tuple[PlayerAdvancements, list[ItemView | None]]) -> None:
    adv, inv = player
    for item in ("dirt", "stone", "wooden_pickaxe", "raw_iron", "iron_nugget", "golden_helmet", "iron_axe"):
        assert give(adv, inv, item) == []
    assert adv.done() == []


def test_only_the_changed_stack_is_tested_for_one_item_criteria(
    player: tuple[PlayerAdvancements, list[ItemView | None]],
) -> None:
    adv, inv = player
    inv[0] = ItemView("minecraft:cobblestone", 3)  # already held, e.g. loaded from a save
    assert adv.inventory_changed(inv, ItemView("minecraft:dirt"), 1) == []  # vanilla: tests the changed stack
    assert adv.inventory_changed(inv, inv[0], 2) == [STORY + "mine_stone"]
    assert adv.inventory_changed(inv, None, 3) == []


def test_enchant_item(player: tuple[PlayerAdvancements, list[ItemView | None]]) -> None:
    adv, _ = player
    done = adv.enchanted_item(ItemView("minecraft:iron_pickaxe", 1, {"minecraft:efficiency": 2}), 3, 42)
    assert done == [STORY + "enchant_item"]
    assert adv.progress[STORY + "enchant_item"] == {"enchanted_item": 42}


def test_passive_triggers_never_fire(vanilla: DatapackSet) -> None:
    used = {c.trigger for a in vanilla.advancements.values() for c in a.criteria.values()}
    assert used == {
        "inventory_changed", "enchanted_item", "entity_hurt_player", "changed_dimension",
        "cured_zombie_villager", "location",
    }  # fmt: skip
    adv = PlayerAdvancements(vanilla)
    assert adv.tick(1) == []
    passive = [
        a
        for a, d in vanilla.advancements.items()
        if any(c.trigger in PASSIVE_TRIGGERS for c in d.criteria.values())
    ]
    assert sorted(passive) == [
        STORY + n
        for n in (
            "cure_zombie_villager",
            "deflect_arrow",
            "enter_the_end",
            "enter_the_nether",
            "follow_ender_eye",
        )
    ]


def test_requirements_parents_and_visibility(
    player: tuple[PlayerAdvancements, list[ItemView | None]],
) -> None:
    adv, inv = player
    armor = adv.defs[STORY + "obtain_armor"]
    assert armor.parent == STORY + "smelt_iron"
    assert armor.requirements == (("iron_helmet", "iron_chestplate", "iron_leggings", "iron_boots"),)
    assert not any(adv.visible(a) for a in adv.defs)  # a new player sees no tab yet
    give(adv, inv, "crafting_table")
    visible = {a.removeprefix(STORY) for a in adv.defs if adv.visible(a)}
    assert visible == {"root", "mine_stone", "upgrade_tools"}  # done, child, grandchild
    # vanilla grants a child whose parent is not done
    assert give(adv, inv, "diamond") == [STORY + "mine_diamond"]
    assert adv.visible(STORY + "mine_diamond") and adv.visible(STORY + "iron_tools")  # ancestor of a done one
    assert adv.visible(STORY + "enchant_item") and adv.visible(STORY + "shiny_gear")  # children of a done one
    assert not adv.visible(STORY + "form_obsidian")
    with pytest.raises(ContractError, match="no criterion"):
        adv.award(STORY + "root", "nope", 1)
    adv.revoke(STORY + "root")
    assert STORY + "root" not in adv.completed


def test_saved_progress_is_restored(vanilla: DatapackSet) -> None:
    adv = PlayerAdvancements(vanilla, {STORY + "obtain_armor": {"iron_boots": 5}, STORY + "gone": {"x": 1}})
    assert adv.completed == {STORY + "obtain_armor": 5}


def test_broken_advancements(tmp_path: Path) -> None:
    cases = {
        "a.json": (
            {"criteria": {"c": {"trigger": "minecraft:tick"}}, "requirements": [["c", "d"]]},
            r"a\.json: requirements\[0\]\[1\]: unknown required criterion 'd'",
        ),
        "b.json": (
            {"criteria": {"c": {"trigger": "minecraft:tick"}, "d": {"trigger": "minecraft:tick"}},
             "requirements": [["c"]]},
            r"b\.json: criteria\.d: criterion is in no requirement group",
        ),
        "c.json": (
            {"criteria": {"c": {"trigger": "minecraft:inventory_changed",
                                "conditions": {"items": [{"items": ["minecraft:nope"]}]}}}},
            r"c\.json: criteria\.c\.conditions\.items\[0\]\.items\[0\]: unknown item 'minecraft:nope'",
        ),
        "d.json": (
            {"criteria": {"c": {"trigger": "minecraft:inventory_changed",
                                "conditions": {"items": [{"nbt": "{}"}]}}}},
            r"d\.json: criteria\.c\.conditions\.items\[0\]\.nbt: item predicate field 'nbt' is not supported",
        ),
    }  # fmt: skip
    for name, (content, expected) in cases.items():
        pack = make_pack(tmp_path / name, {f"data/test/advancements/{name}": content})
        with pytest.raises(DatapackError, match=expected):
            DatapackSet.load([VANILLA, pack])


def test_enchanting_at_the_table_grants_enchant_item(vanilla: DatapackSet) -> None:
    from mirrorcraft.rules.enchanting import EnchantingTable, JavaRandom

    adv = PlayerAdvancements(vanilla)
    res = EnchantingTable().enchant(
        "minecraft:iron_pickaxe", 0, 15, 99, levels=30, lapis=1, player_random=JavaRandom(1)
    )
    assert res is not None
    done = adv.enchanted_item(ItemView(res.item, 1, res.enchantments), res.levels_spent, tick=12)
    assert done == [STORY + "enchant_item"]


def test_tab_layout_is_a_tidy_tree(vanilla: DatapackSet) -> None:
    adv = PlayerAdvancements(vanilla)
    pos = layout_tree(adv.defs, adv.children)
    assert set(pos) == set(adv.defs)  # every story advancement has a display
    for a, (x, _) in pos.items():
        depth, cur = 0, adv.defs[a].parent
        while cur is not None:
            depth, cur = depth + 1, adv.defs[cur].parent
        assert x == depth, a
    assert min(y for _, y in pos.values()) == 0.0
    assert len(set(pos.values())) == len(pos)  # no two advancements on one spot
    for kids in adv.children.values():
        ys = [pos[k][1] for k in kids]
        assert all(b - a >= 1.0 for a, b in zip(ys, ys[1:], strict=False))  # siblings at least one row apart
    # a single chain stays on one row; a parent sits between its first and last child
    chain = ["root", "mine_stone", "upgrade_tools", "smelt_iron"]
    assert len({pos[STORY + n][1] for n in chain}) == 1
    kids = [pos[k][1] for k in adv.children[STORY + "smelt_iron"]]
    assert min(kids) <= pos[STORY + "smelt_iron"][1] <= max(kids)
