"""The observation serializer contract: stable bytes, bounds, rounding, no rule or world leaks."""

from __future__ import annotations

import json

import pytest
from support.contract_samples import observation_parts

from mirrorcraft.contracts import (
    SKILL_NAMES,
    Observation,
    ObservationBounds,
    canonicalize,
    find_leaks,
    serialize_observation,
)
from mirrorcraft.errors import ContractError


def test_equal_states_serialize_identically():
    blobs = {serialize_observation(Observation.model_validate(observation_parts(seed))) for seed in range(6)}
    assert len(blobs) == 1
    blob = blobs.pop()
    # Compact, sorted keys: re-encoding the parsed JSON canonically reproduces the bytes.
    assert (
        json.dumps(json.loads(blob), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        == blob
    )


def test_canonical_form():
    obs = canonicalize(Observation.model_validate(observation_parts(1)))
    assert [(s.item, s.count) for s in obs.inventory] == [
        ("minecraft:cobblestone", 3), ("minecraft:oak_planks", 3), ("minecraft:wooden_pickaxe", 1),
    ]  # fmt: skip
    assert (obs.position.x, obs.position.z) == (0.0, 0.0)  # 0.04999 → 0.0 and -0.04 → 0.0, never -0.0
    assert b"-0.0" not in serialize_observation(obs)
    assert obs.survival.health == 20.0
    assert [b.block for b in obs.nearby_blocks][:3] == [
        "minecraft:dirt",
        "minecraft:grass_block",
        "minecraft:stone",
    ]
    assert [b.distance for b in obs.nearby_blocks] == sorted(b.distance for b in obs.nearby_blocks)
    assert obs.skills == list(SKILL_NAMES)
    assert obs.dropped_items[0].distance == 2.4 and obs.dropped_items[0].position.x == 2.3
    assert [e.action_index for e in obs.effects] == [1, 2, 3, 4, 5, 6]
    assert obs.effects[-1].inventory_delta == {"minecraft:dirt": 1}
    assert obs.effects[-2].inventory_delta == {"minecraft:cobblestone": 1}  # zero entries dropped
    assert canonicalize(obs) == obs  # idempotent


def test_bounds_truncate_deterministically():
    bounds = ObservationBounds(
        max_block_types=3, max_entities=2, max_effects=4, block_radius=10, entity_radius=12
    )
    obs = canonicalize(Observation.model_validate(observation_parts(2)), bounds)
    # Nearest first within the radius, ties broken by id.
    assert [b.block for b in obs.nearby_blocks] == [
        "minecraft:dirt",
        "minecraft:grass_block",
        "minecraft:stone",
    ]
    assert all(
        b.distance <= 10
        for b in canonicalize(Observation.model_validate(observation_parts(2)), bounds).nearby_blocks
    )
    assert [e.distance for e in obs.nearby_entities] == [10.0, 11.0]
    assert [e.action_index for e in obs.effects] == [3, 4, 5, 6]  # the most recent ones
    same = {serialize_observation(Observation.model_validate(observation_parts(s)), bounds) for s in range(4)}
    assert len(same) == 1


def test_inventory_overflow_is_rejected():
    state = observation_parts(0)
    state["inventory"] = [{"item": f"minecraft:item_{i}", "count": 1} for i in range(5)]
    with pytest.raises(ContractError, match="5 distinct items exceed the bound 4"):
        serialize_observation(Observation.model_validate(state), ObservationBounds(max_inventory_entries=4))


def test_observation_has_no_rule_or_world_fields():
    names = set()

    def walk(schema: dict) -> None:
        for key, value in schema.items():
            if key == "properties":
                names.update(value)
            if isinstance(value, dict):
                walk(value)

    walk(Observation.model_json_schema())
    forbidden = {"world", "world_id", "suite", "seed", "rules", "rule", "recipes", "recipe", "datapack",
                 "loot_table", "episode_id", "mirror", "disclosure"}  # fmt: skip
    assert not names & forbidden


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("you are in plains-1/M03", "world id"),
        ("rule M04 active", "suite id"),
        ("loaded datapack mirror_m02.zip", "datapack"),
        ("see mirrorcraft:cooking_yields/raw_iron", "mirrorcraft namespace"),
    ],
)
def test_leaks_are_refused(text, kind):
    assert kind in find_leaks(text)
    state = observation_parts(0)
    state["last_result"]["report"]["message"] = text
    with pytest.raises(ContractError, match="leak"):
        serialize_observation(Observation.model_validate(state))


def test_clean_messages_pass():
    assert find_leaks("broke 3 minecraft:stone, collected 3 minecraft:cobblestone") == []


def test_unknown_fields_are_rejected():
    state = observation_parts(0) | {"world": "plains-1"}
    with pytest.raises(ValueError, match="world"):
        Observation.model_validate(state)


def test_task_view_next_milestone_is_checked():
    state = observation_parts(0)
    state["task"]["next_milestone"] = "minecraft:story/smelt_iron"
    with pytest.raises(ValueError, match="first unfinished is 'minecraft:story/upgrade_tools'"):
        Observation.model_validate(state)
