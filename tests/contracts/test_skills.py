"""Skill specs, call validation and the semantic signature σ against the spec's table."""

from __future__ import annotations

import jsonschema
import pytest

from mirrorcraft.contracts import SKILL_NAMES, SKILL_SPECS, ActionLimits, OutcomeReport, SkillCall, signature
from mirrorcraft.errors import ContractError

REQUIRED_SKILLS = {
    "explore", "go_to", "mine", "collect", "craft_grid", "smelt", "place",
    "attack", "enchant", "equip", "dig_down", "eat",
}  # fmt: skip


def call(name: str, **args) -> SkillCall:
    return SkillCall.create(name, args)


def test_every_required_skill_has_a_spec():
    assert REQUIRED_SKILLS <= set(SKILL_SPECS)
    assert set(SKILL_SPECS) == set(SKILL_NAMES)
    for name, spec in SKILL_SPECS.items():
        assert spec.name == name
        assert len(spec.description) > 20
        jsonschema.Draft202012Validator.check_schema(spec.parameters)
        assert spec.parameters["additionalProperties"] is False


def test_craft_grid_takes_no_output_argument():
    props = SKILL_SPECS["craft_grid"].parameters["properties"]
    assert set(props) == {"workstation", "grid", "count"}
    with pytest.raises(ContractError, match="output"):
        call(
            "craft_grid", workstation="inventory", grid=[["oak_log", None], [None, None]], output="oak_planks"
        )


# σ per the spec: craft_grid → (workstation, grid); smelt → (input, device); mine → block type;
# attack → mob type; place → (item, use); enchant → (item, option); others → the skill name.
SIGMA_CASES = [
    (call("mine", block="iron_ore", count=3), ("mine", "minecraft:iron_ore")),
    (call("smelt", input="raw_iron", device="blast_furnace", fuel="coal", count=5),
     ("smelt", "minecraft:raw_iron", "blast_furnace")),
    (call("attack", mob="cow", count=2), ("attack", "minecraft:cow")),
    (call("place", item="crafting_table", use="workstation", x=1, y=64, z=2),
     ("place", "minecraft:crafting_table", "workstation")),
    (call("enchant", item="iron_pickaxe", option=2), ("enchant", "minecraft:iron_pickaxe", "2")),
    (call("craft_grid", workstation="inventory", grid=[["oak_log", None], [None, None]], count=4),
     ("craft_grid", "inventory", "minecraft:oak_log", "", "", "")),
    (call("explore", direction="north", distance=40), ("explore",)),
    (call("go_to", x=10, y=70, z=-3), ("go_to",)),
    (call("collect", item="diamond"), ("collect",)),
    (call("equip", item="iron_chestplate"), ("equip",)),
    (call("dig_down", target_y=12), ("dig_down",)),
    (call("eat", item="cooked_beef"), ("eat",)),
    (call("recover"), ("recover",)),
    (call("pillar_up", height=3, block="dirt"), ("pillar_up",)),
    (call("dig_up", target_y=70), ("dig_up",)),
    (call("tunnel", direction="east", length=6), ("tunnel",)),
    # team skills (issue 24): quantities, coordinates, the receiving player and chat text are ignored
    (call("farm", crop="wheat", count=4), ("farm", "minecraft:wheat")),
    (call("use", item="bucket", entity="cow"), ("use", "minecraft:bucket", "minecraft:cow")),
    (call("use", block="sweet_berry_bush"), ("use", "", "minecraft:sweet_berry_bush")),
    (call("use", item="wheat_seeds", x=1, y=64, z=2), ("use", "minecraft:wheat_seeds", "position")),
    (call("give", item="bread", count=3, player="Raze"), ("give", "minecraft:bread")),
    (call("chat", text="go left", team=True), ("chat", "team")),
    (call("chat", text="hello"), ("chat", "all")),
    (call("break_at", x=1, y=64, z=2), ("break_at",)),
    (call("place_at", item="oak_planks", x=1, y=64, z=2), ("place_at", "minecraft:oak_planks")),
    (call("cook", input="potato", count=3), ("cook", "minecraft:potato")),
    (call("take", item="egg", count=4, x=-7, y=-60, z=5), ("take", "minecraft:egg")),
]  # fmt: skip


def test_team_skills_are_not_offered_to_mirrorcraft_agents():
    from mirrorcraft.contracts import MIRRORCRAFT_SKILL_NAMES, TEAM_SKILL_NAMES

    assert set(TEAM_SKILL_NAMES) <= set(SKILL_NAMES)
    assert not set(TEAM_SKILL_NAMES) & set(MIRRORCRAFT_SKILL_NAMES)
    assert set(MIRRORCRAFT_SKILL_NAMES) | set(TEAM_SKILL_NAMES) == set(SKILL_NAMES)
    assert REQUIRED_SKILLS <= set(MIRRORCRAFT_SKILL_NAMES)


def test_team_skill_calls_are_validated():
    assert call("give", item="bread", player="Raze").args["count"] == 1
    with pytest.raises(ContractError, match="player"):
        call("give", item="bread", player="no spaces allowed")
    with pytest.raises(ContractError, match="give"):
        call("give", item="bread", count=65, player="Raze")
    with pytest.raises(ContractError, match="target"):
        call("use", item="bucket")
    with pytest.raises(ContractError, match="text"):
        call("chat", text="x" * 257)
    with pytest.raises(ContractError):
        call("farm", crop="wheat", count=17)


@pytest.mark.parametrize(
    ("skill_call", "expected"), SIGMA_CASES, ids=[c.name + str(i) for i, (c, _) in enumerate(SIGMA_CASES)]
)
def test_signature_table(skill_call, expected):
    assert signature(skill_call) == expected


def test_signature_covers_every_skill():
    assert {c.name for c, _ in SIGMA_CASES} == set(SKILL_NAMES)


def test_signature_ignores_quantities_fuel_coordinates():
    assert signature(call("mine", block="stone", count=1)) == signature(call("mine", block="stone", count=8))
    assert signature(call("smelt", input="raw_iron", fuel="coal", count=1)) == signature(
        call("smelt", input="raw_iron", fuel="oak_planks", count=16)
    )
    assert signature(call("place", item="furnace", x=0, y=64, z=0)) == signature(
        call("place", item="furnace", x=100, y=70, z=-5)
    )
    grid = [["oak_planks", "oak_planks"], ["oak_planks", "oak_planks"]]
    assert signature(call("craft_grid", workstation="inventory", grid=grid, count=1)) == signature(
        call("craft_grid", workstation="inventory", grid=grid, count=16)
    )
    assert signature(call("attack", mob="cow", count=1)) == signature(
        call("attack", mob="minecraft:cow", count=4)
    )
    assert signature(call("go_to", x=1, y=64, z=1)) == signature(call("go_to", x=-50, y=12, z=900))


def test_signature_distinguishes_what_matters():
    assert signature(call("mine", block="stone")) != signature(call("mine", block="deepslate"))
    assert signature(call("smelt", input="raw_iron", fuel="coal")) != signature(
        call("smelt", input="raw_iron", device="blast_furnace", fuel="coal")
    )
    assert signature(call("place", item="furnace", use="workstation")) != signature(
        call("place", item="furnace", use="build")
    )
    a = call("craft_grid", workstation="inventory", grid=[["oak_log", None], [None, None]])
    b = call("craft_grid", workstation="inventory", grid=[[None, "oak_log"], [None, None]])
    c = call(
        "craft_grid", workstation="crafting_table", grid=[["oak_log", None, None], [None] * 3, [None] * 3]
    )
    assert len({signature(a), signature(b), signature(c)}) == 3
    assert signature(call("enchant", item="book", option=1)) != signature(
        call("enchant", item="book", option=3)
    )


def test_grid_orientation_and_normalisation():
    c = call("craft_grid", workstation="crafting_table",
             grid=[["iron_ingot", "iron_ingot", "iron_ingot"], ["", "stick", "air"], [None, "Minecraft:Stick", "empty"]])  # fmt: skip
    assert c.args["grid"][0] == ["minecraft:iron_ingot"] * 3  # row 0 = top row
    assert c.args["grid"][1] == [None, "minecraft:stick", None]
    assert c.args["grid"][2] == [None, "minecraft:stick", None]
    assert signature(c)[2:5] == ("minecraft:iron_ingot",) * 3


@pytest.mark.parametrize(
    ("name", "args", "fragment"),
    [
        ("mine", {"block": "iron_ore", "count": 9}, "count: Input should be less than or equal to 8"),
        ("craft_grid", {"workstation": "inventory", "grid": [["a"] * 3] * 3}, "grid must be 2x2"),
        ("craft_grid", {"workstation": "crafting_table", "grid": [[None] * 3] * 3}, "grid is empty"),
        ("craft_grid", {"workstation": "furnace", "grid": [["a", "b"], ["c", "d"]]}, "workstation"),
        ("smelt", {"input": "raw_iron", "fuel": "coal", "count": 17}, "count"),
        ("smelt", {"input": "raw_iron"}, "fuel: Field required"),
        ("enchant", {"item": "book", "option": 4}, "option"),
        ("mine", {"block": "Iron Ore!"}, "block"),
        ("dig_down", {"target_y": -64}, "target_y"),
        ("mine", {"block": "stone", "x": 3}, "x: Extra inputs are not permitted"),
        ("fly", {}, "unknown skill 'fly'"),
        ("go_to", {}, "give a target"),
        ("go_to", {"x": 1, "y": 64}, "give all of x, y, z or none"),
        ("go_to", {"entity": "cow", "block": "oak_log"}, "an entity target takes no block"),
        ("pillar_up", {"height": 9}, "height: Input should be less than or equal to 8"),
        ("pillar_up", {}, "height: Field required"),
        ("dig_up", {"target_y": 320}, "target_y"),
        ("tunnel", {"direction": "up", "length": 4}, "direction"),
        ("tunnel", {"direction": "east", "length": 17}, "length"),
    ],
)
def test_invalid_calls_raise_clear_errors(name, args, fragment):
    with pytest.raises(ContractError) as info:
        SkillCall.create(name, args)
    assert fragment in str(info.value)


def test_caps_are_the_schema_maxima():
    limits = ActionLimits()
    p = {n: s.parameters["properties"] for n, s in SKILL_SPECS.items()}
    assert p["mine"]["count"]["maximum"] == limits.mine_max_count == 8
    assert p["craft_grid"]["count"]["maximum"] == limits.craft_max_repetitions == 16
    assert p["smelt"]["count"]["maximum"] == limits.smelt_max_items == 16
    assert p["attack"]["count"]["maximum"] == limits.attack_max_kills
    assert p["pillar_up"]["height"]["maximum"] == limits.pillar_max_height == 8
    assert p["tunnel"]["length"]["maximum"] == limits.tunnel_max_length == 16
    assert set(limits.tick_limits) == set(SKILL_NAMES)
    with pytest.raises(ValueError, match="no limit for skills"):
        ActionLimits(tick_limits={"mine": 100})


def test_normalised_args_validate_against_the_published_schema():
    for c, _ in SIGMA_CASES:
        jsonschema.validate(c.args, SKILL_SPECS[c.name].parameters)


def test_call_equality_after_normalisation():
    assert call("mine", block="iron_ore") == call("mine", block="minecraft:iron_ore", count=1)


def test_outcome_report_invariants():
    with pytest.raises(ValueError, match="must name a reason"):
        OutcomeReport(skill="mine", status="failure")
    with pytest.raises(ValueError, match="completed >= 1"):
        OutcomeReport(skill="mine", status="success")
    r = OutcomeReport(
        skill="mine",
        status="success",
        completed=2,
        reason="timeout",
        inventory_delta={"raw_iron": 2, "minecraft:dirt": 0},
        drops_collected=[{"item": "raw_iron", "count": 1}, {"item": "minecraft:raw_iron", "count": 1}],
        blocks_broken=[{"block": "iron_ore", "count": 1}, {"block": "deepslate_iron_ore", "count": 1}],
    )
    assert r.inventory_delta == {"minecraft:raw_iron": 2}
    assert [(s.item, s.count) for s in r.drops_collected] == [("minecraft:raw_iron", 2)]
    assert [b.block for b in r.blocks_broken] == ["minecraft:deepslate_iron_ore", "minecraft:iron_ore"]
    placed = OutcomeReport(
        skill="pillar_up",
        status="success",
        completed=3,
        blocks_placed=[{"block": "cobblestone", "count": 2}, {"block": "minecraft:cobblestone", "count": 1}],
    )
    assert [(b.block, b.count) for b in placed.blocks_placed] == [("minecraft:cobblestone", 3)]


def test_go_to_targets():
    assert call("go_to", x=1, y=64, z=2).args == {"x": 1, "y": 64, "z": 2, "block": None, "entity": None}
    table = call("go_to", block="crafting_table", x=1, y=65, z=2)
    assert table.args["block"] == "minecraft:crafting_table" and signature(table) == ("go_to",)
    assert call("go_to", block="oak_log").args["x"] is None  # the nearest one seen
    assert call("go_to", entity="cow").args["entity"] == "minecraft:cow"
