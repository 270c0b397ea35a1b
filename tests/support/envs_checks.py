"""What the Gymnasium env tests run in a fresh spawned process (tests/envs/test_envs.py).

Why a separate process: an env drives the episode on the process's reactor in a daemon thread
(docs/envs.md "The reactor"), and a pytest worker may already have run pytest-twisted tests whose reactor
runs in the main thread — the env refuses that. So the env tests submit these functions to one spawned
worker (a ``ProcessPoolExecutor``), which keeps its reactor thread across tests like a study worker. Each
function returns plain data; the asserts that need the env's state are made here and re-raised in pytest.
"""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np


def _make(env_id: str, worlds: str, **kwargs: Any) -> Any:
    import gymnasium as gym

    import mirrorcraft.envs  # noqa: F401 - registers the ids

    return gym.make(env_id, worlds_dir=worlds, build_missing=False, **kwargs)


def check_env_run(env_id: str, worlds: str, action_mode: str) -> dict[str, Any]:
    """``gymnasium.utils.env_checker.check_env`` on a ``gymnasium.make`` env; returns its warnings."""

    return _checked(_make(env_id, worlds, action_mode=action_mode))


def _checked(env: Any) -> dict[str, Any]:
    """``check_env`` on ``env`` (closed afterwards): the checker's warnings and the seconds it took."""
    from gymnasium.utils.env_checker import check_env

    t0 = time.monotonic()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
    finally:
        env.close()
    # gymnasium's checker warns through gymnasium.logger ("WARN: ...", "ERROR: ..."); the catch is process-wide, so it also
    # sees other threads' warnings (quarry's client ticker on the reactor thread calls the deprecated
    # logging.warn when a loaded machine makes it skip ticks): only the checker's count.
    found = [str(w.message) for w in caught if "WARN:" in str(w.message) or "ERROR:" in str(w.message)]
    return {"warnings": found, "seconds": time.monotonic() - t0}


def random_agent(env_id: str, worlds: str, steps: int, seed: int) -> dict[str, Any]:
    """A random agent over the discrete menu for ``steps`` steps (or until the episode ends)."""
    env = _make(env_id, worlds, action_mode="discrete")
    out: dict[str, Any] = {"steps": [], "in_space": []}
    try:
        obs, info = env.reset(seed=seed)
        out["initial_score"] = info["score"]
        out["in_space"].append(bool(env.observation_space.contains(obs)))
        env.action_space.seed(seed)
        for _ in range(steps):
            action = int(env.action_space.sample())
            obs, reward, terminated, truncated, info = env.step(action)
            out["in_space"].append(bool(env.observation_space.contains(obs)))
            text = json.loads(obs["text"])
            out["steps"].append(
                {
                    "action": action,
                    "label": info["action_label"],
                    "reward": reward,
                    "terminated": terminated,
                    "truncated": truncated,
                    "info": info,
                    "actions_used_text": text["task"]["actions_used"],
                    "position_text": text["position"],
                    "position": obs["position"].tolist(),
                    "inventory_sum": int(obs["inventory"].sum()),
                    "inventory_text": sum(s["count"] for s in text["inventory"]),
                }
            )
            if terminated or truncated:
                break
    finally:
        env.close()
    return out


def reset_twice(env_id: str, worlds: str, seed: int) -> dict[str, Any]:
    """``reset(seed)`` twice (and once with another seed): the first observations and infos."""
    env = _make(env_id, worlds, action_mode="text")
    try:
        a, info_a = env.reset(seed=seed)
        b, info_b = env.reset(seed=seed)
        c, info_c = env.reset(seed=seed + 1)
    finally:
        env.close()
    arrays = [k for k in a if k != "text"]
    return {
        "texts": [a["text"], b["text"], c["text"]],
        "arrays_equal": all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in arrays),
        "infos": [info_a, info_b, info_c],
    }


def text_actions(worlds: str, world: str) -> dict[str, Any]:
    """Text mode on ``world``: a valid call, invalid ones (policy errors), the hidden encounters opt-in."""
    from mirrorcraft.envs import item_vocabulary

    env = _make("MirrorCraft-IronArmor-v0", worlds, action_mode="text", reveal_hidden=True)
    vocab = item_vocabulary()
    out: dict[str, Any] = {}
    try:
        obs0, info0 = env.reset(seed=3, options={"world": world})
        out["reset_info"] = info0
        mine = json.dumps({"skill": "mine", "args": {"block": "oak_log", "count": 2}})
        obs1, r1, term1, trunc1, info1 = env.step(mine)
        planks = json.dumps(
            {
                "skill": "craft_grid",
                "args": {"workstation": "inventory", "grid": [["oak_log", None], [None, None]]},
            }
        )
        obs2, r2, term2, trunc2, info2 = env.step(planks)
        out["valid"] = [info1, info2]
        out["logs_feature"] = [
            int(o["inventory"][vocab.index("minecraft:oak_log")]) for o in (obs0, obs1, obs2)
        ]
        out["planks_feature"] = int(obs2["inventory"][vocab.index("minecraft:oak_planks")])
        out["valid_ends"] = [term1, trunc1, term2, trunc2]
        bad = []
        for text in (
            "not json at all",
            '{"skill": "chat", "args": {"text": "hi"}}',
            '{"skill": "mine", "args": {"block": "oak_log", "count": 99}}',
        ):
            obs, reward, terminated, truncated, info = env.step(text)
            bad.append(
                {
                    "reward": reward,
                    "terminated": terminated,
                    "truncated": truncated,
                    "info": info,
                    "same_text": obs["text"] == obs2["text"],
                }
            )
        out["invalid"] = bad
        record = env.unwrapped.last_record
        out["record"] = {
            "end_reason": record.outcome.end_reason.value,
            "actions_used": record.outcome.actions_used,
            "policy_errors": [e.kind for e in record.trailing_policy_errors],
            "encounters": [e.model_dump(mode="json") for e in record.encounters],
            "agent": record.identity.agent,
            "world_id": record.identity.world_id,
        }
        try:
            env.step(mine)
        except Exception as err:  # noqa: BLE001 - the type is what the test checks
            out["after_end"] = type(err).__name__
    finally:
        env.close()
        env.close()  # idempotent
    return out


def vector_env(worlds: str, steps: int) -> dict[str, Any]:
    """``AsyncVectorEnv`` with the spawn start method over two Diamond envs (discrete), as
    :func:`mirrorcraft.envs.make_vector` builds it."""
    from mirrorcraft.envs import make_vector

    venv = make_vector(
        "MirrorCraft-Diamond-v0", 2, worlds_dir=worlds, build_missing=False, action_mode="discrete"
    )
    out: dict[str, Any] = {"steps": []}
    try:
        obs, infos = venv.reset(seed=[11, 11])  # the same seed in two processes
        out["reset_ids"] = list(infos["episode_id"])
        out["same_first_text"] = obs["text"][0] == obs["text"][1]
        out["first_texts"] = [json.loads(t)["task"]["actions_used"] for t in obs["text"]]
        out["text_count"] = len(obs["text"])
        out["position_shape"] = list(obs["position"].shape)
        for k in range(steps):
            actions = np.array([8, 4]) if k == 0 else np.array([11, 0])  # mine oak logs | explore; planks
            obs, rewards, term, trunc, infos = venv.step(actions)
            out["steps"].append(
                {
                    "status": list(infos["status"]),
                    "actions_used": [int(a) for a in infos["actions_used"]],
                    "labels": list(infos["action_label"]),
                    "rewards": rewards.tolist(),
                    "ended": (term | trunc).tolist(),
                    "same_text": obs["text"][0] == obs["text"][1],
                    "actions_used_text": [json.loads(t)["task"]["actions_used"] for t in obs["text"]],
                }
            )
    finally:
        venv.close()
    return out


def worlds_exist(worlds: str) -> bool:
    """The shared catalogue folder is there (the fixture built it)."""
    return (Path(worlds) / "vanilla" / "plains-1" / "level.dat").is_file()


def budget_end(worlds: str) -> dict[str, Any]:
    """A budget-2 episode: truncated at its second action; ``step`` after the end; a new ``reset`` after it."""
    from gymnasium.error import ResetNeeded

    env = _make("MirrorCraft-Diamond-v0", worlds, action_mode="discrete", budget=2)
    out: dict[str, Any] = {"steps": []}
    try:
        _, info = env.reset(seed=21)
        out["budget"] = info["budget"]
        for action in (8, 11):  # mine oak logs, craft planks
            _, reward, terminated, truncated, info = env.step(action)
            out["steps"].append(
                {"reward": reward, "terminated": terminated, "truncated": truncated, "info": info}
            )
        record = env.unwrapped.last_record
        out["record"] = {
            "actions_used": record.outcome.actions_used,
            "end_reason": record.outcome.end_reason.value,
            "score": record.outcome.score,
            "ticks": [s.report.ticks_used for s in record.trajectory],
            "calls": [s.call.name for s in record.trajectory],
        }
        try:
            env.step(0)
            out["after_end"] = "no error"
        except ResetNeeded:
            out["after_end"] = "ResetNeeded"
        _, info = env.reset(seed=22)
        out["reset_after_end"] = info["actions_used"]
    finally:
        env.close()
    return out


def same_actions_twice(worlds: str, actions: list[int], seed: int) -> dict[str, Any]:
    """The same seed and discrete actions in two episodes: every observation text and the two records."""
    env = _make("MirrorCraft-Diamond-v0", worlds, action_mode="discrete")
    runs, rewards, scores, flags = [], [], [], []
    try:
        for _ in range(2):
            obs, _ = env.reset(seed=seed)
            texts, got = [obs["text"]], []
            for a in actions:
                obs, reward, terminated, truncated, info = env.step(a)
                texts.append(obs["text"])
                got.append(reward)
                if terminated or truncated:
                    break
            runs.append(texts)
            rewards.append(got)
            scores.append(info["score"])
            flags.append(obs["milestones"].tolist())
    finally:
        env.close()
    return {"texts": runs, "rewards": rewards, "scores": scores, "milestone_flags": flags}


def team_check_env(arenas: str) -> dict[str, Any]:
    """``check_env`` on the Mushroom War env (short episodes, accelerated); returns the checker's warnings."""
    import gymnasium as gym

    import mirrorcraft.envs  # noqa: F401 - registers the ids

    return _checked(
        gym.make("PillagerBench-MushroomWar-v0", arenas_dir=arenas, game_seconds=30, tick_rate=100)
    )


def team_episode(arenas: str) -> dict[str, Any]:
    """A short Mushroom War episode: the controlled player mines and waits until time-up."""
    import gymnasium as gym

    import mirrorcraft.envs  # noqa: F401

    env = gym.make("PillagerBench-MushroomWar-v0", arenas_dir=arenas, game_seconds=8, tick_rate=100)
    out: dict[str, Any] = {"steps": []}
    try:
        obs, info = env.reset(seed=4)
        out["reset_info"] = info
        out["first"] = json.loads(obs["text"])
        mine = json.dumps({"skill": "mine", "args": {"block": "red_mushroom_block", "count": 1}})
        for k in range(200):
            action = mine if k == 0 else ("wait" if k % 2 else "not a call")
            obs, reward, terminated, truncated, info = env.step(action)
            out["steps"].append(
                {"reward": reward, "terminated": terminated, "truncated": truncated, "info": info}
            )
            if terminated or truncated:
                break
        rec = env.unwrapped.last_record
        out["record"] = {
            "tested": rec.identity.tested.id,
            "side": rec.identity.tested_side,
            "outcome": rec.outcome.model_dump(mode="json"),
            "ryn": [a.call.name for t in rec.trajectories if t.player == "Ryn" for a in t.actions],
            "faults": [f.kind for f in rec.agent_faults],
        }
        try:
            env.step("wait")
        except gym.error.ResetNeeded:
            out["after_end"] = "ResetNeeded"
    finally:
        env.close()
    return out


def team_lockstep_twice(arenas: str) -> dict[str, Any]:
    """The same seed and actions twice on the team env in lockstep: each run's observation texts, rewards and
    team record (everything but a wall time) — they must be equal."""
    import gymnasium as gym

    import mirrorcraft.envs  # noqa: F401

    mine = json.dumps({"skill": "mine", "args": {"block": "red_mushroom_block", "count": 1}})
    chat = json.dumps({"skill": "chat", "args": {"text": "hello team", "team": True}})
    runs = []
    for _ in range(2):
        env = gym.make("PillagerBench-MushroomWar-v0", arenas_dir=arenas, game_seconds=8, clock="lockstep",
                       think_ticks=10, opponent="aggressive")  # fmt: skip
        try:
            obs, _info = env.reset(seed=4)
            texts, rewards = [obs["text"]], []
            for k in range(200):
                obs, reward, terminated, truncated, _info = env.step((mine, chat, "wait")[k % 3])
                texts.append(obs["text"])
                rewards.append(reward)
                if terminated or truncated:
                    break
            runs.append({"texts": texts, "rewards": rewards,
                         "record": env.unwrapped.last_record.model_dump(mode="json")})  # fmt: skip
        finally:
            env.close()
    return {"runs": runs}
