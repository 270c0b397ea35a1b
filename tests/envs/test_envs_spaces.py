"""The envs' spaces, menu and usage errors without a server (fast; the episodes are in test_envs.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import mirrorcraft.envs as envs
from mirrorcraft.contracts import (
    MIRRORCRAFT_SKILL_NAMES,
    ItemStack,
    Observation,
    OutcomeReport,
    SkillCall,
    serialize_observation,
    task_spec,
)
from mirrorcraft.envs.spaces import (
    JSON_CHARSET,
    MESSAGE_CAP,
    REPORT_LIST_CAP,
    observation_element,
    observation_space,
    observation_text,
    worst_case_payload,
)
from mirrorcraft.errors import ContractError
from mirrorcraft.gamedata.registries import item
from mirrorcraft.study.runner import RunnerSettings


def _observation(message: str = "mined 1 minecraft:oak_log", **report: object) -> Observation:
    spec = task_spec("diamond")
    payload = worst_case_payload(spec)
    call = SkillCall.create("mine", {"block": "oak_log"})
    rep = OutcomeReport(skill="mine", status="success", completed=1, message=message, **report)
    payload |= {
        "position": {"x": 10.26, "y": 70.0, "z": -3.04},
        "biome": "minecraft:plains",
        "inventory": [{"item": "minecraft:oak_log", "count": 3}, {"item": "minecraft:torch", "count": 2}],
        "nearby_blocks": [],
        "nearby_entities": [],
        "dropped_items": [],
        "effects": [],
        "failure_constraints": [],
        "survival": {"health": 17.5, "food": 19, "xp_level": 100},
        "equipment": {},
        "last_result": {"action_index": 1, "call": call.model_dump(mode="json"), "report": rep.model_dump()},
    }
    payload["task"] |= {"actions_used": 1, "budget": 50}
    return Observation.model_validate(payload)


def test_the_three_ids_are_registered() -> None:
    for env_id, cls in envs.ENV_IDS.items():
        assert gym.spec(env_id).entry_point == f"mirrorcraft.envs.core:{cls.__name__}"
        assert gym.spec(env_id).max_episode_steps is None  # the env truncates at its own budget
    assert [c.task.value for c in envs.ENV_IDS.values()] == ["iron_armor", "diamond", "enchantment"]
    for env_id, cls in envs.TEAM_ENV_IDS.items():
        assert gym.spec(env_id).entry_point == f"mirrorcraft.envs.team:{cls.__name__}"
        assert gym.spec(env_id).nondeterministic  # free-running: the game goes on while the caller thinks
    assert {c.scenario for c in envs.TEAM_ENV_IDS.values()} == {"mushroom_war", "dash_and_dine"}


def test_the_menu_is_valid_offered_calls_without_repeats() -> None:
    menu = envs.action_menu()
    assert len(menu) >= 50
    assert all(e.call.name in MIRRORCRAFT_SKILL_NAMES for e in menu)
    assert len({e.label for e in menu}) == len(menu)
    labels = {e.label: e.call for e in menu}
    # vanilla 1.19.2's iron chestplate (data/minecraft/recipes/iron_chestplate.json: "X X", "XXX", "XXX")
    grid = labels["craft an iron chestplate"].args["grid"]
    ingot = "minecraft:iron_ingot"
    assert grid == [[ingot, None, ingot], [ingot, ingot, ingot], [ingot, ingot, ingot]]
    env = envs.DiamondEnv("discrete")
    assert env.action_space == gym.spaces.Discrete(len(menu))


def test_the_vocabulary_holds_real_items() -> None:
    vocab = envs.item_vocabulary()
    assert len(set(vocab)) == len(vocab)
    for name in vocab:
        item(name.removeprefix("minecraft:"))  # raises for an item 1.19.2 does not have


def test_the_text_bound_holds_the_worst_case_and_the_charset_every_json_character() -> None:
    spec = task_spec("enchantment")
    worst = Observation.model_validate(worst_case_payload(spec))
    text = observation_text(worst)
    assert len(text) <= envs.max_observation_chars(spec)
    assert set(text) <= set(JSON_CHARSET)
    assert len(JSON_CHARSET) == 95 and {'"', "\\", "{", "}", "[", "]", ":", ","} <= set(JSON_CHARSET)


def test_the_text_is_the_canonical_observation_with_ascii_escapes() -> None:
    obs = _observation(message="café ✓ \x07 done")
    text = observation_text(obs)
    assert set(text) <= set(JSON_CHARSET)
    assert json.loads(text) == json.loads(serialize_observation(obs))
    assert "\\u00e9" in text and "\\u2713" in text


def test_long_messages_are_clipped_and_long_report_lists_refused() -> None:
    text = observation_text(_observation(message="x" * (MESSAGE_CAP + 500)))
    message = json.loads(text)["last_result"]["report"]["message"]
    assert len(message) == MESSAGE_CAP and message.endswith("...")
    many = [ItemStack(item=f"minecraft:item_{i}", count=1) for i in range(REPORT_LIST_CAP + 1)]
    with pytest.raises(ContractError, match="produced"):
        observation_text(_observation(produced=many))


def test_the_numeric_features_follow_the_observation() -> None:
    spec = task_spec("diamond")
    obs = _observation()
    element = observation_element(obs, spec)
    assert element in observation_space(spec)
    vocab = envs.item_vocabulary()
    assert element["inventory"][vocab.index("minecraft:oak_log")] == 3
    assert element["inventory"][-1] == 2  # torches are not in the vocabulary: the "other" slot
    assert element["position"].tolist() == pytest.approx([10.3, 70.0, -3.0])
    assert element["health"].tolist() == [17.5] and element["food"].tolist() == [19.0]
    assert element["milestones"].tolist() == [0] * len(spec.milestones)
    again = observation_element(obs, spec)
    assert not np.shares_memory(element["inventory"], again["inventory"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"action_mode": "pixels"}, "action_mode"),
        ({"world": "sandbox"}, "not a catalogue world"),
        ({"world": "plains-1/M09"}, "not a catalogue world"),
        ({"budget": 0}, "budget"),
        ({"render_mode": "human"}, "render"),
        ({"settings": RunnerSettings(server="vanilla")}, "lockstep"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*render_mode")
def test_bad_arguments_are_refused_before_anything_starts(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gym.make("MirrorCraft-Diamond-v0", **kwargs)


def test_bad_reset_options_and_steps_without_reset_are_refused() -> None:
    env = envs.IronArmorEnv("text")
    with pytest.raises(ValueError, match="reset options"):
        env.reset(options={"seed": 3})
    with pytest.raises(ValueError, match="not a catalogue world"):
        env.reset(options={"world": "plains-1/M7"})
    with pytest.raises(gym.error.ResetNeeded):
        env.step('{"skill": "recover", "args": {}}')
    discrete = envs.IronArmorEnv("discrete")
    # the action's translation (what step does before touching the episode): a caller bug, not a move
    for bad in (len(envs.action_menu()), -1, 1.5, "3"):
        with pytest.raises(gym.error.InvalidAction):
            discrete._decision(bad)
    call, label = discrete._decision(np.int64(0))
    assert label == "explore north" and call.name == "explore"
    env.close()
    env.close()


def test_the_docs_menu_table_is_the_menu() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "envs.md").read_text(encoding="utf-8")
    rows = [line for line in docs.splitlines() if re.match(r"^\| \d+ \| ", line)]
    expected = [
        f"| {i} | {e.label} | `{json.dumps({'skill': e.call.name, 'args': e.call.args}, separators=(',', ':'))}` |"
        for i, e in enumerate(envs.action_menu())
    ]
    assert rows == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"side": "green"}, "side"),
        ({"mate": "nobody"}, "not a built-in team system"),
        ({"opponent": "nobody"}, "not a built-in team system"),
        ({"game_seconds": 0}, "game_seconds"),
        ({"tick_rate": 0}, "tick_rate"),
    ],
)
def test_bad_team_env_arguments_are_refused_before_anything_starts(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        envs.MushroomWarEnv(**kwargs)


def test_the_team_text_bound_holds_a_worst_case_team_observation() -> None:
    from mirrorcraft.contracts.team_observation import TeamObservation
    from mirrorcraft.envs.team import max_team_chars, team_text

    payload = {
        k: v for k, v in worst_case_payload(task_spec("diamond")).items() if k not in ("task", "biome")
    }
    payload |= {
        "player": "Ryn",
        "side": "red",
        "teammate": "Raze",
        "sidebar": {"title": "é" * 500, "scores": [{"holder": "x" * 60, "score": -(10**12)}] * 15},
        "chat": [{"t": 10**6, "sender": "Ryn", "channel": "team", "text": "\x01" * 900}] * 10,
        "time_left_s": 12.5,
    }
    text = team_text(TeamObservation.model_validate(payload))
    assert len(text) <= max_team_chars() and set(text) <= set(JSON_CHARSET)
    assert len(json.loads(text)["chat"][0]["text"]) == 256  # clipped to vanilla's chat line length
