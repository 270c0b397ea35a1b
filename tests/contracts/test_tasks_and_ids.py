"""Tasks, milestone values and titles (against vanilla language.json), registry ids and the registry."""

from __future__ import annotations

import json

import pytest
from support.refdata import mcdata_path

from mirrorcraft.contracts import (
    REGISTRY_ID_RE,
    TASKS,
    Registry,
    TaskId,
    namespaced,
    parse_id,
    task_spec,
    world_id,
)
from mirrorcraft.errors import ContractError, RegistrationError


def test_tasks_milestones_and_budgets():
    codes = {t: [m.code for m in spec.milestones] for t, spec in TASKS.items()}
    assert codes[TaskId.IRON_ARMOR] == ["mine_stone", "upgrade_tools", "smelt_iron", "obtain_armor"]
    assert codes[TaskId.DIAMOND] == [
        "mine_stone",
        "upgrade_tools",
        "smelt_iron",
        "iron_tools",
        "mine_diamond",
    ]
    assert codes[TaskId.ENCHANTMENT] == [
        "mine_stone", "upgrade_tools", "smelt_iron", "iron_tools", "mine_diamond", "form_obsidian", "enchant_item",
    ]  # fmt: skip
    assert {t: s.budget for t, s in TASKS.items()} == {"iron_armor": 50, "diamond": 50, "enchantment": 75}
    values = {t: [m.value for m in s.milestones] for t, s in TASKS.items()}
    assert values == {
        "iron_armor": [20, 50, 65, 100],
        "diamond": [20, 50, 65, 70, 100],
        "enchantment": [20, 50, 65, 70, 85, 95, 100],
    }
    for spec in TASKS.values():
        assert all(m.advancement.startswith("minecraft:story/") for m in spec.milestones)


def test_score_is_deepest_completed_milestone():
    spec = TASKS[TaskId.ENCHANTMENT]
    assert spec.score([]) == 0
    # Deepest, not sum, and not the last in time: out-of-order completion still scores the deepest.
    assert spec.score(["minecraft:story/mine_diamond"]) == 85
    assert spec.score(["minecraft:story/mine_stone", "minecraft:story/form_obsidian"]) == 95
    assert (
        spec.score(["minecraft:story/obtain_armor", "minecraft:story/mine_stone"]) == 20
    )  # other tasks ignored
    assert spec.next_milestone(["minecraft:story/mine_stone"]).code == "upgrade_tools"
    assert spec.next_milestone([m.advancement for m in spec.milestones]) is None


def test_values_are_configurable():
    alt = task_spec("iron_armor", {"mine_stone": 15, "minecraft:story/upgrade_tools": 35})
    assert [m.value for m in alt.milestones] == [15, 35, 65, 100]
    assert task_spec("diamond", budget=200).budget == 200
    with pytest.raises(ContractError, match="strictly increase"):
        task_spec("diamond", {"upgrade_tools": 10})
    with pytest.raises(ContractError, match="not one of its milestones"):
        task_spec("iron_armor", {"mine_diamond": 90})
    with pytest.raises(ContractError, match="unknown task"):
        task_spec("netherite")


def test_milestone_texts_are_vanilla(node_modules):
    lang = json.loads(mcdata_path(node_modules, "1.19.2", "language").read_text())
    for spec in TASKS.values():
        for m in spec.milestones:
            assert m.title == lang[f"advancements.story.{m.code}.title"]
            assert m.description == lang[f"advancements.story.{m.code}.description"]


@pytest.mark.parametrize(
    "text", ["plains-1", "snowy_plains-2", "plains-1/M03", "craft_grid", "react", "iron_armor"]
)
def test_registry_id_regex_accepts(text):
    assert REGISTRY_ID_RE.match(text)
    assert str(parse_id(text)) == text


@pytest.mark.parametrize(
    "text", ["Plains-1", "plains 1", "plains-1/", "-plains", "plains-1/M03/x", "", "1plains"]
)
def test_registry_id_regex_rejects(text):
    with pytest.raises(RegistrationError, match="malformed id"):
        parse_id(text)


def test_parse_and_world_ids():
    assert parse_id("plains-1/M03").name == "plains-1" and parse_id("plains-1/M03").variant == "M03"
    assert world_id("taiga-2", None) == "taiga-2" and world_id("taiga-2", "M06") == "taiga-2/M06"
    with pytest.raises(ContractError, match="suite 'M07'"):
        world_id("taiga-2", "M07")
    assert namespaced("Oak_Log") == "minecraft:oak_log" and namespaced("mirror:x") == "mirror:x"
    with pytest.raises(ContractError, match="not a resource id"):
        namespaced("oak log")


def test_registry():
    reg: Registry[int] = Registry("world")
    reg.register("plains-1", 1)
    reg.register("plains-1/M03", 2)
    assert reg.get("plains-1/M03") == 2 and "plains-1" in reg and len(reg) == 2
    assert reg.ids() == ["plains-1", "plains-1/M03"]
    with pytest.raises(RegistrationError, match="already registered"):
        reg.register("plains-1", 3)
    with pytest.raises(RegistrationError, match="malformed id"):
        reg.register("Plains One", 3)
    with pytest.raises(RegistrationError, match="no world registered as 'taiga-1'"):
        reg.get("taiga-1")
