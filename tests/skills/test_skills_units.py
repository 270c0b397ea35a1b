"""Offline checks of the skills package: registry, route economies against the real manifests and the
vanilla pack, grids, fuels, armour slots, failure constraints and the reachability table. (World copies:
tests/worlds/test_worlds_copies.py; the ``check`` parser: tests/study/test_study_check_cli.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_twisted

from mirrorcraft.contracts import (
    SKILL_NAMES,
    SKILL_SPECS,
    FailureReason,
    OutcomeReport,
    SkillCall,
    load_suite,
    signature,
)
from mirrorcraft.errors import ContractError
from mirrorcraft.gamedata import VANILLA_PACK_DIR
from mirrorcraft.skills import SKILL_CLASSES, ActionHistory, SkillContext
from mirrorcraft.skills.containers import burn_ticks
from mirrorcraft.skills.controls import format_reachability
from mirrorcraft.skills.items import armour_slot
from mirrorcraft.skills.routes import PICKAXE, WORLD_KINDS, RouteResult, economy, grid, spiral_direction

RECIPES = Path(VANILLA_PACK_DIR) / "data" / "minecraft" / "recipes"


def _vanilla_count(recipe: str) -> int:
    result = json.loads((RECIPES / f"{recipe}.json").read_text())["result"]
    return 1 if isinstance(result, str) else result.get("count", 1)


def _rules(kind: str) -> dict[str, object]:
    """Facts a route relies on, read from the suite's manifest (the data the compiler turns into packs)."""
    facts: dict[str, object] = {}
    if kind == "vanilla":
        return facts
    for rule in load_suite(kind).rules:
        for ch in rule.changes:
            if rule.operator == "recipe_result":
                facts[f"recipe:{ch.recipe}"] = (ch.result.item, ch.result.count)
            elif rule.operator == "cooking_output":
                facts[f"cook:{ch.device}:{ch.input}"] = (ch.result.item, ch.result.count)
            elif rule.operator in ("block_drop_replace", "block_drop_add"):
                kind_ = "replace" if rule.operator.endswith("replace") else "add"
                facts[f"{kind_}:{ch.block}"] = {d.item: d.min for d in ch.drops}
    return facts


@pytest.mark.parametrize("kind", WORLD_KINDS)
def test_route_economies_match_the_manifests_and_vanilla_recipes(kind: str) -> None:
    eco, f = economy(kind), _rules(kind)
    m = "minecraft:"
    planks = f.get(f"recipe:{m}oak_planks", (m + "oak_planks", _vanilla_count("oak_planks")))
    assert eco.planks_per_log == planks[1]
    sticks = f.get(f"recipe:{m}stick", (m + "stick", _vanilla_count("stick")))
    assert eco.sticks_per_craft == sticks[1]
    log_drop = f.get(f"replace:{m}oak_log")
    expected_log = (
        None if log_drop is None else {k.removeprefix(m).replace("oak_", ""): v for k, v in log_drop.items()}
    )
    assert eco.log_drops == expected_log
    iron_replace = f.get(f"replace:{m}iron_ore")
    assert eco.iron_ore_drop == (next(iter(iron_replace)).removeprefix(m) if iron_replace else "raw_iron")
    assert eco.iron_ore_extra_ingot == (m + "iron_ingot" in f.get(f"add:{m}iron_ore", {}))
    smelt = f.get(f"cook:furnace:{m}raw_iron", (m + "iron_ingot", 1))
    assert eco.raw_iron_smelts_to == (smelt[0].removeprefix(m), smelt[1])
    coal = f.get(f"replace:{m}coal_ore")
    assert eco.coal_ore_drop == (next(iter(coal)).removeprefix(m) if coal else "coal")
    dia = f.get(f"replace:{m}diamond_ore", {m + "diamond": 1})
    first = next(iter(dia))
    assert eco.diamond_ore_drop == (first.removeprefix(m), dia[first])
    extras = {k.removeprefix(m): v for k, v in dia.items() if k != first}
    extras |= {k.removeprefix(m): v for k, v in f.get(f"add:{m}diamond_ore", {}).items()}
    assert eco.diamond_ore_adds == extras
    lapis_rep = f.get(f"replace:{m}lapis_ore")
    assert eco.lapis_ore_drop == (next(iter(lapis_rep)).removeprefix(m) if lapis_rep else "lapis_lazuli")
    assert eco.lapis_ore_adds == {k.removeprefix(m): v for k, v in f.get(f"add:{m}lapis_ore", {}).items()}
    assert eco.furnace_recipe_gives == f.get(f"recipe:{m}furnace", (m + "furnace", 1))[0].removeprefix(m)
    assert eco.iron_pickaxe_via_hoe == (f"recipe:{m}iron_pickaxe" in f)
    if eco.iron_pickaxe_via_hoe:
        assert f[f"cook:furnace:{m}iron_hoe"][0] == m + "iron_pickaxe"
    dpick = f.get(f"recipe:{m}diamond_pickaxe", (m + "diamond_pickaxe", 1))[0].removeprefix(m)
    assert eco.diamond_pickaxe_recipe_gives == (
        dpick if not eco.diamond_pickaxe_via_hoe else "diamond_pickaxe"
    )
    if eco.diamond_pickaxe_via_hoe:
        assert dpick == "diamond_hoe" and f[f"cook:blast_furnace:{m}diamond_hoe"][0] == m + "diamond_pickaxe"
    paper = f.get(f"recipe:{m}paper", (m + "paper", _vanilla_count("paper")))
    assert (eco.cane_recipe_gives, eco.paper_per_cane_craft if paper[0] == m + "paper" else 1) == (
        paper[0].removeprefix(m), paper[1])  # fmt: skip
    assert eco.book_recipe_gives == f.get(f"recipe:{m}book", (m + "book", 1))[0].removeprefix(m)
    assert eco.leather_from_cane == (m + "leather" in f.get(f"add:{m}sugar_cane", {}))


def test_every_contract_skill_is_implemented_once() -> None:
    assert tuple(SKILL_CLASSES) == SKILL_NAMES
    for name, cls in SKILL_CLASSES.items():
        skill = cls(SkillContext(body=None))
        assert skill.spec == SKILL_SPECS[name] and skill.tick_limit > 0


def test_team_skills_are_offered_only_when_asked() -> None:
    from mirrorcraft.contracts import MIRRORCRAFT_SKILL_NAMES
    from mirrorcraft.errors import ContractError
    from mirrorcraft.skills import SkillSet

    assert [s.name for s in SkillSet(None).specs()] == list(MIRRORCRAFT_SKILL_NAMES)  # MirrorCraft agents
    team = SkillSet(None, offered=SKILL_NAMES)
    assert [s.name for s in team.specs()] == list(SKILL_NAMES) and set(team.skills) == set(SKILL_NAMES)
    with pytest.raises(ContractError, match="fly"):
        SkillSet(None, offered=("fly",))


@pytest_twisted.ensureDeferred
async def test_a_skill_refuses_another_skills_call() -> None:
    skill = SKILL_CLASSES["mine"](SkillContext(body=None))
    with pytest.raises(ContractError, match="was given a call of 'go_to'"):
        await skill.execute(SkillCall.create("go_to", {"x": 0, "y": 65, "z": 0}))


def test_route_grids_are_valid_calls() -> None:
    g = grid(PICKAXE, {"X": "cobblestone", "S": "stick"})
    assert g == [
        ["minecraft:cobblestone"] * 3,
        [None, "minecraft:stick", None],
        [None, "minecraft:stick", None],
    ]
    call = SkillCall.create("craft_grid", {"workstation": "crafting_table", "grid": g})
    assert signature(call)[:5] == ("craft_grid", "crafting_table", *["minecraft:cobblestone"] * 3)
    with pytest.raises(ContractError, match="2x2"):
        SkillCall.create("craft_grid", {"workstation": "inventory", "grid": g})


def test_route_searches_walk_an_outward_spiral() -> None:
    """Legs N, E, S, S, W, W, N, N, N...: the walk never closes a square (N, E, S, W returned to the start)."""
    dirs = [spiral_direction(i) for i in range(12)]
    assert "".join(d[0] for d in dirs) == "nesswwnnneee"
    step = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
    x = z = 0
    seen = {(0, 0)}
    for d in (spiral_direction(i) for i in range(30)):
        x, z = x + step[d][0], z + step[d][1]
        assert (x, z) not in seen  # every leg ends somewhere new
        seen.add((x, z))


def test_fuel_burn_times_and_armour_slots() -> None:
    assert burn_ticks("minecraft:coal") == 1600 and burn_ticks("minecraft:coal_block") == 16000
    assert burn_ticks("minecraft:birch_planks") == 300 and burn_ticks("minecraft:spruce_log") == 300
    assert burn_ticks("minecraft:wooden_pickaxe") == 200
    assert [armour_slot(f"minecraft:iron_{p}") for p in ("helmet", "chestplate", "leggings", "boots")] == [
        "head", "chest", "legs", "feet"]  # fmt: skip
    assert armour_slot("minecraft:iron_pickaxe") is None and armour_slot("minecraft:elytra") == "chest"


def _report(skill: str, ok: bool, reason: FailureReason | None = None) -> OutcomeReport:
    if ok:
        return OutcomeReport(skill=skill, status="success", completed=1)
    return OutcomeReport(skill=skill, status="failure", reason=reason)


def test_failure_constraints_aggregate_by_signature_and_reason() -> None:
    h = ActionHistory()
    stone = SkillCall.create("mine", {"block": "stone", "count": 2})
    h.record(stone, _report("mine", False, FailureReason.TOOL_TOO_WEAK))
    h.record(SkillCall.create("go_to", {"x": 1, "y": 65, "z": 1}), _report("go_to", True))
    h.record(
        SkillCall.create("mine", {"block": "stone"}), _report("mine", False, FailureReason.TOOL_TOO_WEAK)
    )
    h.record(SkillCall.create("mine", {"block": "stone"}), _report("mine", False, FailureReason.TIMEOUT))
    got = {(c.signature, c.reason): (c.occurrences, c.last_action_index) for c in h.failure_constraints()}
    assert got == {
        (("mine", "minecraft:stone"), FailureReason.TOOL_TOO_WEAK): (2, 3),
        (("mine", "minecraft:stone"), FailureReason.TIMEOUT): (1, 4),
    }
    assert h.actions_used == 4


def test_reachability_table() -> None:
    rows = [
        RouteResult("diamond", "sandbox/vanilla", True, 21, 50, ["mine_stone", "mine_diamond"]),
        RouteResult("iron_armor", "sandbox/M01", False, 3, 50, [], "craft 2 stick", "no output"),
    ]
    text = format_reachability(rows).splitlines()
    assert text[2].split()[:5] == ["diamond", "sandbox/vanilla", "yes", "21", "50"]
    assert "stopped at 'craft 2 stick': no output" in text[3]
