"""The Gymnasium environments against the real embedded server (lockstep, unpaced) on 127.0.0.1.

One small catalogue world (``plains-1``, radius 48, and its Mirror copy M03 derived from it) is built
once for the module, and the Mushroom War arena for the team env. The env calls run in one spawned worker process (support/envs_checks.py says why);
the vector env spawns its own two workers. Default tier, about 100 s on one core.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from support import envs_checks
from support.runner_support import build_worlds

ENV_IDS = ["MirrorCraft-IronArmor-v0", "MirrorCraft-Diamond-v0", "MirrorCraft-Enchantment-v0"]


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(build_worlds(tmp_path_factory.mktemp("env-worlds"), ["plains-1", "plains-1/M03"]))


@pytest.fixture(scope="module")
def child() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


#: check_env resets 11 times (~1 s each): every env in text mode and Diamond in discrete mode run in the default
#: tier; the other two discrete runs (the same menu and spaces, another task) in the slow tier.
CHECKS = [
    *[(env_id, "text") for env_id in ENV_IDS],
    ("MirrorCraft-Diamond-v0", "discrete"),
    pytest.param("MirrorCraft-IronArmor-v0", "discrete", marks=pytest.mark.slow),
    pytest.param("MirrorCraft-Enchantment-v0", "discrete", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("env_id", "action_mode"), CHECKS)
def test_check_env_passes(child: ProcessPoolExecutor, worlds: str, env_id: str, action_mode: str) -> None:
    out = child.submit(envs_checks.check_env_run, env_id, worlds, action_mode).result(timeout=240)
    assert out["warnings"] == []


def test_a_random_agent_plays_ten_steps(child: ProcessPoolExecutor, worlds: str) -> None:
    out = child.submit(envs_checks.random_agent, "MirrorCraft-Diamond-v0", worlds, 10, 5).result(timeout=600)
    steps = out["steps"]
    assert all(out["in_space"])
    assert len(steps) == 10 or (steps[-1]["terminated"] or steps[-1]["truncated"])
    for k, s in enumerate(steps, start=1):
        info = s["info"]
        # one menu entry = one executed skill call = one action of the budget
        assert info["action_index"] == k == info["actions_used"] == s["actions_used_text"]
        assert info["report"] is not None and info["status"] == info["report"]["status"]
        assert info["call"]["name"] == info["report"]["skill"]
        # the numeric features are the same state as the text
        assert s["inventory_sum"] == s["inventory_text"]
        assert s["position"] == pytest.approx([s["position_text"][a] for a in "xyz"], abs=0.051)
    # reward = Score gained, so the rewards add up to the Score reached
    assert sum(s["reward"] for s in steps) == steps[-1]["info"]["score"] - out["initial_score"]


def test_reset_with_the_same_seed_gives_the_same_first_observation(
    child: ProcessPoolExecutor, worlds: str
) -> None:
    out = child.submit(envs_checks.reset_twice, "MirrorCraft-IronArmor-v0", worlds, 7).result(timeout=240)
    a, b, c = out["texts"]
    assert a == b and out["arrays_equal"]
    assert out["infos"][0] == out["infos"][1]
    assert out["infos"][2]["episode_id"] != out["infos"][0]["episode_id"]  # another seed, another episode
    assert '"actions_used":0' in a and "plains-1" not in a


def test_text_actions_policy_errors_and_hidden_encounters(child: ProcessPoolExecutor, worlds: str) -> None:
    out = child.submit(envs_checks.text_actions, worlds, "plains-1/M03").result(timeout=300)
    mine, planks = out["valid"]
    assert mine["status"] == "success" and mine["report"]["inventory_delta"]["minecraft:oak_log"] == 2
    assert out["logs_feature"][:2] == [0, 2]
    # M03's rule: one log gives six planks (vanilla: four); the feature shows what the server gave
    assert planks["report"]["produced"] == [{"item": "minecraft:oak_planks", "count": 6}]
    assert out["planks_feature"] == 6
    assert [e["rule_id"] for e in planks["encounters"]] == ["M03.log_yields_six_planks"]
    assert mine["encounters"] == [] and out["reset_info"]["encounters"] == []
    assert out["valid_ends"] == [False, False, False, False]
    # invalid text = a failed step with a reason, no exception, no budget, same observation
    reasons = [b["info"]["reason"] for b in out["invalid"]]
    assert reasons == ["unparseable", "unknown_skill", "invalid_arguments"]
    for b in out["invalid"]:
        assert b["info"]["status"] == "failure" and b["info"]["report"] is None and b["reward"] == 0
        assert b["info"]["actions_used"] == 2 and b["same_text"]
    # three in a row end the episode as the benchmark does (no executable action)
    assert [b["terminated"] for b in out["invalid"]] == [False, False, True]
    assert not any(b["truncated"] for b in out["invalid"])
    assert out["invalid"][-1]["info"]["end_reason"] == "no_executable_action"
    rec = out["record"]
    assert rec["end_reason"] == "no_executable_action" and rec["actions_used"] == 2
    assert rec["policy_errors"] == ["unparseable", "unknown_skill", "invalid_arguments"]
    assert [e["rule_id"] for e in rec["encounters"]] == ["M03.log_yields_six_planks"]
    assert rec["agent"] == "gymnasium" and rec["world_id"] == "plains-1/M03"
    assert out["after_end"] == "ResetNeeded"


def test_the_vector_env_steps_two_envs(worlds: str) -> None:
    assert Path(worlds).is_dir()
    out = envs_checks.vector_env(worlds, 2)
    # the same seed in two spawned processes: the same episode, the same first observation
    assert len(set(out["reset_ids"])) == 1 and out["same_first_text"]
    assert out["first_texts"] == [0, 0]  # real observation texts (a shared-memory Text would be blank)
    assert out["text_count"] == 2 and out["position_shape"] == [2, 3]
    first, second = out["steps"]
    assert first["labels"] == ["mine 4 oak logs", "explore anywhere"]
    assert first["actions_used"] == [1, 1] and second["actions_used"] == [2, 2]
    assert first["status"][0] == "success"  # logs stand near the spawn of plains-1
    assert first["ended"] == [False, False]
    assert not first["same_text"]  # different actions, different states
    assert first["actions_used_text"] == [1, 1] and second["actions_used_text"] == [2, 2]


def test_the_budget_truncates_and_the_record_is_the_benchmarks(
    child: ProcessPoolExecutor, worlds: str
) -> None:
    out = child.submit(envs_checks.budget_end, worlds).result(timeout=240)
    first, last = out["steps"]
    assert out["budget"] == 2
    assert (first["terminated"], first["truncated"]) == (False, False) and "end_reason" not in first["info"]
    assert (last["terminated"], last["truncated"]) == (False, True)
    assert last["info"]["end_reason"] == "budget_exhausted" == out["record"]["end_reason"]
    assert last["info"]["outcome"]["actions_used"] == 2 == out["record"]["actions_used"]
    assert out["record"]["calls"] == ["mine", "craft_grid"]
    assert all(t > 0 for t in out["record"]["ticks"])  # the record keeps the game ticks the observation hides
    assert first["info"]["report"]["ticks_used"] == 0
    assert out["after_end"] == "ResetNeeded" and out["reset_after_end"] == 0


@pytest.mark.slow
def test_the_same_seed_and_actions_give_the_same_observations(
    child: ProcessPoolExecutor, worlds: str
) -> None:
    # logs, planks, sticks, table, place it, wooden pickaxe, stone, stone pickaxe, explore, dig down
    actions = [8, 11, 14, 16, 18, 19, 21, 23, 0, 27]
    out = child.submit(envs_checks.same_actions_twice, worlds, actions, 31).result(timeout=600)
    a, b = out["texts"]
    assert len(a) == len(b) == len(actions) + 1
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        assert x == y, f"observation after action {k} differs"
    assert out["rewards"][0] == out["rewards"][1] and sum(out["rewards"][0]) == out["scores"][0]
    assert out["milestone_flags"][0] == out["milestone_flags"][1]


@pytest.fixture(scope="module")
def arenas(tmp_path_factory: pytest.TempPathFactory) -> str:
    from mirrorcraft.worlds.arenas.build import build_arena

    out = tmp_path_factory.mktemp("env-arenas")
    build_arena("mushroom_war", out)  # one arena: the team env's tests play only this one
    return str(out)


def test_check_env_passes_on_the_team_env(child: ProcessPoolExecutor, arenas: str) -> None:
    out = child.submit(envs_checks.team_check_env, arenas).result(timeout=400)
    assert out["warnings"] == []


def test_a_team_episode_ends_at_time_up_with_the_score_difference(
    child: ProcessPoolExecutor, arenas: str
) -> None:
    out = child.submit(envs_checks.team_episode, arenas).result(timeout=300)
    assert out["reset_info"]["player"] == "Ryn" and out["first"]["player"] == "Ryn"
    steps = out["steps"]
    assert steps[0]["info"]["call"]["name"] == "mine"
    assert steps[1]["info"]["status"] == "success" and steps[1]["info"]["message"] == "waited one game second"
    assert steps[2]["info"]["status"] == "failure" and steps[2]["info"]["reason"] == "unparseable"
    last = steps[-1]
    assert last["truncated"] and not any(s["terminated"] for s in steps)
    assert all(s["reward"] == 0 for s in steps[:-1])
    outcome = out["record"]["outcome"]
    assert last["reward"] == outcome["red"] - outcome["blue"] and outcome["end_reason"] == "time_up"
    assert out["record"]["tested"] == "gymnasium" and out["record"]["side"] == "red"
    assert out["record"]["ryn"][0] == "mine"  # the controlled player's call is in the team record
    assert "crashed" not in out["record"]["faults"]
    assert out["after_end"] == "ResetNeeded"


def test_the_team_env_in_lockstep_repeats_its_episode(child: ProcessPoolExecutor, arenas: str) -> None:
    """``clock="lockstep"``: the game waits for the caller (and charges its think ticks), so the same seed and
    actions give the same observations, rewards and team record, opponents and judge included."""
    first, second = child.submit(envs_checks.team_lockstep_twice, arenas).result(timeout=300)["runs"]
    assert len(first["texts"]) >= 4 and first["texts"] == second["texts"]
    assert first["rewards"] == second["rewards"] and first["record"] == second["record"]
    ryn = next(t for t in first["record"]["trajectories"] if t["player"] == "Ryn")
    assert {a["call"]["name"] for a in ryn["actions"]} == {"mine", "chat"}
    opponent_calls = [a for t in first["record"]["trajectories"] if t["side"] == "blue" for a in t["actions"]]
    assert opponent_calls  # the aggressive opponent played
