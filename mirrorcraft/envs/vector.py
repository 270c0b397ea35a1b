"""Parallel envs: ``gymnasium.vector.AsyncVectorEnv`` set up the one way that works for these envs.

Why a helper: two settings are not optional here and are easy to miss. ``context="spawn"``: each env holds
a Twisted reactor in a daemon thread, which a forked child would inherit without its thread.
``shared_memory=False``: gymnasium 1.x's ``AsyncVectorEnv`` reads the shared-memory observation buffer
into a tuple of strings once, when it is built, for a ``Text`` space (``Box`` entries are live views), so
with shared memory every ``observation["text"]`` would stay a blank string (found by
tests/envs/test_envs.py; gymnasium 1.4.0's ``reset_wait``/``step_wait`` skip the copy when
``shared_memory`` is on). Without shared memory the workers send their observations through the pipes.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym


def make_vector(env_id: str, num_envs: int, **kwargs: Any) -> gym.vector.AsyncVectorEnv:
    """``num_envs`` copies of ``env_id`` (``MirrorCraft-Diamond-v0``...), each in its own spawned process.

    Args:
        env_id: a registered id (``mirrorcraft.envs:`` is prefixed so the workers register the ids too).
        num_envs: how many envs (processes).
        kwargs: constructor arguments of every env (``action_mode``, ``worlds_dir``...).
    """
    if num_envs < 1:
        raise ValueError(f"num_envs {num_envs}: expected at least 1")
    full = env_id if ":" in env_id else f"mirrorcraft.envs:{env_id}"
    gym.spec(full.rsplit(":", 1)[-1])  # an unknown id fails here, before any process starts
    fns = [functools.partial(gym.make, full, **kwargs) for _ in range(num_envs)]
    return gym.vector.AsyncVectorEnv(fns, context="spawn", shared_memory=False)


__all__ = ["make_vector"]
