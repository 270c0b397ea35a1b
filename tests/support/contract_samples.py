"""Builders for realistic contract objects shared by the contract tests.

(Not named conftest.py: the suite's other test folders import ``conftest`` by name and expect tests/conftest.py.)

The sample episode is a short Iron Armor run in the M02 Mirror copy of plains-1: mining logs drops
planks (rule M02.log_drops_four_planks), the agent crafts a table, sticks and a wooden pickaxe, mines
stone (milestone mine_stone, score 20), then fails to produce an executable action three times.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from mirrorcraft.contracts import (
    SCHEMA_VERSION,
    SKILL_NAMES,
    TASKS,
    Controls,
    EpisodeIdentity,
    ModelSettings,
    OutcomeReport,
    SkillCall,
    signature,
)

FIXTURES = Path(__file__).parent / "fixtures"


def sample_identity(**overrides: Any) -> EpisodeIdentity:
    base: dict[str, Any] = {
        "world": "plains-1",
        "suite": "M02",
        "task": "iron_armor",
        "budget": 50,
        "agent": "react",
        "model": ModelSettings(name="gemini-3.1-flash-lite"),
        "disclosure": "hidden",
        "repetition": 0,
        "study_seed": 7,
    }
    base.update(overrides)
    return EpisodeIdentity(**base)


def _step(
    index: int, call: SkillCall, report: dict[str, Any], score: int, errors: list | None = None
) -> dict:
    return {
        "index": index,
        "call": call.model_dump(mode="json"),
        "signature": list(signature(call)),
        "report": OutcomeReport(skill=call.name, **report).model_dump(mode="json"),
        "score_after": score,
        "policy_errors": errors or [],
    }


def sample_record_dict() -> dict[str, Any]:
    """A consistent current-version record as plain JSON data."""
    ident = sample_identity()
    p = "minecraft:oak_planks"
    mine_log = SkillCall.create("mine", {"block": "oak_log", "count": 2})
    table = SkillCall.create("craft_grid", {"workstation": "inventory", "grid": [[p, p], [p, p]]})
    place = SkillCall.create("place", {"item": "crafting_table", "use": "workstation"})
    sticks = SkillCall.create("craft_grid", {"workstation": "inventory", "grid": [[p, None], [p, None]]})
    pick = SkillCall.create(
        "craft_grid",
        {"workstation": "crafting_table", "grid": [[p, p, p], [None, "stick", None], [None, "stick", None]]},
    )
    stone = SkillCall.create("mine", {"block": "stone", "count": 3})
    trajectory = [
        _step(
            1,
            mine_log,
            {
                "status": "success",
                "completed": 2,
                "message": "broke 2 oak_log, collected 8 oak_planks",
                "inventory_delta": {p: 8},
                "drops_collected": [{"item": p, "count": 8}],
                "blocks_broken": [{"block": "minecraft:oak_log", "count": 2}],
                "ticks_used": 61,
            },
            0,
        ),
        _step(
            2,
            table,
            {
                "status": "success",
                "completed": 1,
                "inventory_delta": {p: -4, "minecraft:crafting_table": 1},
                "produced": [{"item": "minecraft:crafting_table", "count": 1}],
                "ticks_used": 4,
            },
            0,
            [
                {
                    "kind": "invalid_arguments",
                    "raw_text": '{"skill": "craft_grid", "args": {"workstation": "inventory", "output": "table"}}',
                    "message": "invalid arguments for skill 'craft_grid': grid: Field required",
                }
            ],
        ),
        _step(
            3,
            place,
            {"status": "success", "completed": 1, "inventory_delta": {"minecraft:crafting_table": -1}},
            0,
        ),
        _step(
            4,
            sticks,
            {
                "status": "success",
                "completed": 1,
                "inventory_delta": {p: -2, "minecraft:stick": 4},
                "produced": [{"item": "minecraft:stick", "count": 4}],
                "ticks_used": 4,
            },
            0,
        ),
        _step(
            5,
            pick,
            {
                "status": "success",
                "completed": 1,
                "inventory_delta": {p: -3, "minecraft:stick": -2, "minecraft:wooden_pickaxe": 1},
                "produced": [{"item": "minecraft:wooden_pickaxe", "count": 1}],
                "ticks_used": 6,
            },
            0,
        ),
        _step(
            6,
            stone,
            {
                "status": "success",
                "completed": 3,
                "inventory_delta": {"minecraft:cobblestone": 3},
                "drops_collected": [{"item": "minecraft:cobblestone", "count": 3}],
                "blocks_broken": [{"block": "minecraft:stone", "count": 3}],
                "ticks_used": 140,
            },
            20,
        ),
    ]
    return {
        "schema_version": SCHEMA_VERSION,
        "episode_id": ident.episode_id,
        "seed": ident.seed,
        "identity": ident.model_dump(mode="json"),
        "controls": Controls().model_dump(mode="json"),
        "spawn": {"position": {"x": 8, "y": 71, "z": -4}, "biome": "minecraft:plains"},
        "milestone_values": TASKS["iron_armor"].values(),
        "outcome": {"score": 20, "success": False, "actions_used": 6, "end_reason": "no_executable_action"},
        "initial_score": 0,
        "trajectory": trajectory,
        "trailing_policy_errors": [
            {"kind": "unparseable", "raw_text": "I think I should", "message": "no JSON object found"}
        ]
        * 3,
        "milestones": [{"advancement": "minecraft:story/mine_stone", "action_index": 6, "tick": 1480}],
        "encounters": [
            {
                "rule_id": "M02.log_drops_four_planks",
                "action_index": 1,
                "signature": ["mine", "minecraft:oak_log"],
                "vanilla_outcome": [{"item": "minecraft:oak_log", "count": 2}],
                "actual_outcome": [{"item": p, "count": 8}],
            }
        ],
        "usage": {"model_calls": 10, "prompt_tokens": 25310, "completion_tokens": 1804, "cost_usd": 0.0061},
        "wall_time_s": 41.25,
        "infrastructure_faults": [],
        "prompt_template_version": "react-1",
        "evaluator": "embedded",
    }


def load_fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def task_view(done: set[str]) -> dict:
    spec = TASKS["iron_armor"]
    nxt = spec.next_milestone(done)
    return {
        "task": spec.id,
        "title": spec.title,
        "objective": spec.objective,
        "milestones": [
            {
                "advancement": m.advancement,
                "title": m.title,
                "description": m.description,
                "value": m.value,
                "done": m.advancement in done,
            }
            for m in spec.milestones
        ],  # fmt: skip
        "next_milestone": nxt.advancement if nxt else None,
        "actions_used": 6,
        "budget": spec.budget,
    }


def observation_parts(seed: int) -> dict:
    """The same game state, with every collection gathered in a different (shuffled) order."""
    rng = random.Random(seed)
    inventory = [
        {"item": "minecraft:oak_planks", "count": 3}, {"item": "minecraft:cobblestone", "count": 2},
        {"item": "minecraft:cobblestone", "count": 1}, {"item": "minecraft:wooden_pickaxe", "count": 1},
    ]  # fmt: skip
    blocks = [
        {"block": f"minecraft:{name}", "count": n, "nearest": {"x": x, "y": 60, "z": 3}, "distance": d}
        for name, n, x, d in [
            ("stone", 900, 1, 1.04), ("dirt", 80, 0, 1.0), ("oak_log", 12, 5, 5.38), ("iron_ore", 3, 9, 9.7),
            ("grass_block", 300, 2, 1.0), ("sugar_cane", 4, 12, 12.2), ("water", 40, 11, 11.02),
        ]
    ]  # fmt: skip
    entities = [
        {"entity": "minecraft:cow", "position": {"x": 10.0 + i, "y": 64.0, "z": -0.04}, "distance": 10.0 + i}
        for i in range(4)
    ]
    items = [{"item": "minecraft:oak_sapling", "count": 1, "position": {"x": 2.26, "y": 64.0, "z": 1.0},
              "distance": 2.449}]  # fmt: skip
    mine = SkillCall.create("mine", {"block": "stone", "count": 3})
    effects = [
        {"action_index": i, "call": mine.model_dump(), "status": "success",
         "inventory_delta": {"minecraft:cobblestone": 1, "minecraft:andesite": 0} if i % 2 else {"minecraft:dirt": 1}}
        for i in range(1, 7)
    ]  # fmt: skip
    for coll in (inventory, blocks, entities, effects):
        rng.shuffle(coll)
    skills = list(SKILL_NAMES)
    rng.shuffle(skills)
    return {
        "task": task_view({"minecraft:story/mine_stone"}),
        "position": {"x": 0.04999, "y": 64.0, "z": -0.04},
        "biome": "minecraft:plains",
        "survival": {"health": 19.96, "food": 20, "xp_level": 100},
        "equipment": {"main_hand": "minecraft:wooden_pickaxe"},
        "inventory": inventory,
        "nearby_blocks": blocks,
        "nearby_entities": entities,
        "dropped_items": items,
        "last_result": {
            "action_index": 6,
            "call": mine.model_dump(),
            "report": OutcomeReport(
                skill="mine",
                status="success",
                completed=3,
                inventory_delta={"cobblestone": 3},
                ticks_used=140,
            ).model_dump(),
        },  # fmt: skip
        "effects": effects,
        "skills": skills,
        "failure_constraints": [
            {
                "signature": ["mine", "minecraft:iron_ore"],
                "reason": "tool_too_weak",
                "occurrences": 2,
                "last_action_index": 4,
            }
        ],  # fmt: skip
    }
