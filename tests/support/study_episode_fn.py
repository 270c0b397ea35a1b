"""Deterministic episode functions for testing the study machinery. NOT game episodes.

:func:`synthetic_episode` computes an :class:`EpisodeRecord` purely from the identity (seeded by a hash of
the identity's canonical JSON), so any executor must produce byte-identical records for it. The records
pass every contract check (built with :func:`mirrorcraft.metrics.synthetic.synthetic_record`) and carry
real rule ids of the episode's suite, but no server, body or agent was involved.

Environment knobs (so subprocess drivers and spawned workers behave the same):

* ``MC_TEST_EPISODE_SLEEP`` — seconds to sleep per episode (gives a kill test time to strike mid-run).
* ``MC_TEST_FAULT_DIR`` — for :func:`flaky_episode`: a folder where the first attempt of every
  episode whose id ends in ``0``-``7`` leaves a marker file and raises (an infrastructure fault); the
  retry then finds the marker and succeeds.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from pathlib import Path

from mirrorcraft.contracts import EpisodeIdentity, EpisodeRecord, load_suite, task_spec
from mirrorcraft.metrics.synthetic import synthetic_record

CALLS = [
    ("explore", {}),
    ("mine", {"block": "oak_log", "count": 4}),
    ("mine", {"block": "stone", "count": 3}),
    ("mine", {"block": "iron_ore", "count": 3}),
    ("smelt", {"input": "raw_iron", "fuel": "coal", "count": 3}),
    (
        "craft_grid",
        {"workstation": "inventory", "grid": [["oak_planks", "oak_planks"], ["oak_planks", "oak_planks"]]},
    ),
    ("place", {"item": "crafting_table"}),
]


def synthetic_episode(identity: EpisodeIdentity) -> EpisodeRecord:
    """A deterministic record computed from ``identity`` alone (see module docstring)."""
    delay = float(os.environ.get("MC_TEST_EPISODE_SLEEP", "0"))
    if delay:
        time.sleep(delay)
    rng = random.Random(int(hashlib.sha256(identity.canonical()).hexdigest(), 16))
    values = list(task_spec(identity.task, budget=identity.budget).values().values())
    n = rng.randint(3, min(identity.budget, 40))
    scores, level = [], -1
    for _ in range(n):
        if level + 1 < len(values) and rng.random() < 0.22:
            level += 1
        scores.append(values[level] if level >= 0 else 0)
        if scores[-1] == 100:
            break
    calls = [rng.choice(CALLS) for _ in scores]
    encounters = []
    if identity.suite is not None:
        rules = [r.id for r in load_suite(identity.suite).rules]
        for rule_id in rng.sample(rules, k=min(2, len(rules))):
            if rng.random() < 0.8:
                encounters.append((rule_id, rng.randint(1, len(calls))))
    return synthetic_record(
        identity,
        calls,
        scores,
        encounters=encounters,
        wall_time_s=round(rng.uniform(30, 600), 3),
        cost_usd=round(rng.uniform(0.01, 0.2), 4),
    )


def flaky_episode(identity: EpisodeIdentity) -> EpisodeRecord:
    """Like :func:`synthetic_episode`, but the first attempt of about half the episodes raises."""
    marker_dir = Path(os.environ["MC_TEST_FAULT_DIR"])
    if identity.episode_id[-1] in "01234567":
        marker = marker_dir / identity.episode_id
        if not marker.exists():
            marker.write_text("faulted once\n")
            raise ConnectionError(f"simulated disconnect of {identity.episode_id}")
    return synthetic_episode(identity)


def crashing_episode(identity: EpisodeIdentity) -> EpisodeRecord:
    """The worker process dies (``os._exit``) on the first attempt of the episode ``MC_TEST_CRASH_ID``."""
    if identity.episode_id == os.environ.get("MC_TEST_CRASH_ID"):
        marker = Path(os.environ["MC_TEST_FAULT_DIR"]) / identity.episode_id
        if not marker.exists():
            marker.write_text("crashed once\n")
            os._exit(3)
    return synthetic_episode(identity)


def always_faulting_episode(identity: EpisodeIdentity) -> EpisodeRecord:
    """Raises on every attempt (an episode that never gets past its infrastructure fault)."""
    raise ConnectionError(f"simulated permanent disconnect of {identity.episode_id}")


async def async_synthetic_episode(identity: EpisodeIdentity) -> EpisodeRecord:
    """The coroutine form of :func:`synthetic_episode` (executors must accept async runners)."""
    return synthetic_episode(identity)


def sleepy_episode(identity: EpisodeIdentity) -> EpisodeRecord:
    """Sleeps far longer than any test's timeout (an episode that hangs)."""
    time.sleep(120)
    return synthetic_episode(identity)
