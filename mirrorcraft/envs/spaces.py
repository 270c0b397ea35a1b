"""The environments' spaces: the observation ``spaces.Dict`` and the text action space, and how a contracts
:class:`~mirrorcraft.contracts.Observation` becomes one element of the observation space.

**Text.** ``observation["text"]`` is the contracts' canonical observation
(:func:`~mirrorcraft.contracts.serialize_observation`: rounded, sorted, bounded, leak-checked) with every
character outside printable ASCII written as a JSON ``\\uXXXX`` escape, so the text stays inside a fixed
charset (:data:`JSON_CHARSET`, the 95 printable ASCII characters: every character JSON text needs once
non-ASCII and control characters are escaped) and ``json.loads`` of it equals ``json.loads`` of the
canonical bytes. Its ``max_length`` is :func:`max_observation_chars`: the length of a worst-case observation
built from the bounds (:class:`~mirrorcraft.contracts.ObservationBounds`: every bounded list full, every
id :data:`ID_CAP` characters long, every number at its widest), so any observation the bounds allow fits.
What the bounds leave open is capped here: the report's ``message`` is clipped to :data:`MESSAGE_CAP`
characters (marked with ``...``) and a report list longer than :data:`REPORT_LIST_CAP` entries — more item
types than two full inventories — is refused with a :class:`~mirrorcraft.errors.ContractError` rather
than silently cut.

**Numbers** (RL agents): ``inventory`` counts over the fixed vocabulary (``data/vocabulary.yaml``) plus one
"every other item" slot, ``position`` (x, y, z), ``health``, ``food``, ``xp_level`` and ``milestones``
(one flag per task milestone, in task order, from the player's advancement view as the observation shows
it).
"""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from gymnasium import spaces

from mirrorcraft.contracts import (
    DEFAULT_BOUNDS,
    MIRRORCRAFT_SKILL_NAMES,
    Observation,
    ObservationBounds,
    TaskSpec,
    canonicalize,
    serialize_observation,
)
from mirrorcraft.errors import ContractError

DATA = Path(__file__).parent / "data"

#: Every character the observation and action texts may hold: printable ASCII (non-ASCII and control
#: characters are ``\\uXXXX``-escaped, as JSON allows).
JSON_CHARSET = "".join(chr(c) for c in range(0x20, 0x7F))
assert set(string.printable) - set("\t\n\r\x0b\x0c") <= set(JSON_CHARSET)

#: Characters of an outcome report's free-text message kept in the observation text (longer: clipped).
MESSAGE_CAP = 1024
#: Entries of each list of an outcome report (inventory delta, produced, drops, blocks) the bound allows:
#: more than two full inventories (41 slots each) of distinct items.
REPORT_LIST_CAP = 96
#: Characters of a resource id in the worst case (1.19.2's longest item id is 44 with ``minecraft:``).
ID_CAP = 64
#: Characters of a text action (a skill call is a few hundred; a 3x3 grid of the longest ids is ~700).
ACTION_MAX_CHARS = 4096
#: Widest coordinate the world border allows (vanilla: 29,999,984 blocks from 0; 30,000,000 used here).
WORLD_LIMIT = 30_000_000.0
#: Vanilla 1.19.2's overworld height: y from -64 to 319 (dimension_type minecraft:overworld).
MIN_Y, MAX_Y = -64.0, 320.0
#: Largest item count an inventory can hold: 41 slots (36 + 4 armour + off hand) of 64.
MAX_ITEM_COUNT = 41 * 64


@cache
def item_vocabulary() -> tuple[str, ...]:
    """The fixed item ids of ``observation["inventory"]`` (the vector has one more slot: other items)."""
    data = yaml.safe_load((DATA / "vocabulary.yaml").read_text(encoding="utf-8"))
    items = tuple(str(i) for i in data["items"])
    if len(set(items)) != len(items):
        raise ContractError("envs/data/vocabulary.yaml: duplicate items")
    return items


def ascii_json(canonical: bytes) -> str:
    """The canonical JSON bytes with non-ASCII characters ``\\u``-escaped (same value, same key order)."""
    return json.dumps(
        json.loads(canonical), sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def _worst_id(prefix: str = "minecraft:") -> str:
    return prefix + "z" * (ID_CAP - len(prefix))


def _worst_call() -> dict[str, Any]:
    # craft_grid with nine of the longest ids is the longest call of the offered skills.
    return {
        "name": "craft_grid",
        "args": {"workstation": "crafting_table", "grid": [[_worst_id()] * 3] * 3, "count": 16},
    }


def _worst_report() -> dict[str, Any]:
    big = -(10**12)
    stacks = [{"item": _worst_id(), "count": 10**12} for _ in range(REPORT_LIST_CAP)]
    tallies = [{"block": _worst_id(), "count": 10**12} for _ in range(REPORT_LIST_CAP)]
    return {
        "skill": "craft_grid",
        "status": "success",  # a success may name a reason too (partial work); as long as "failure"
        "reason": "not_enough_levels",
        "message": "\x01" * MESSAGE_CAP,  # escaped as \u0001: six characters each
        "completed": 10**12,
        "inventory_delta": {_worst_id() + f"{i:03d}": big for i in range(REPORT_LIST_CAP)},
        "produced": stacks,
        "drops_collected": stacks,
        "blocks_broken": tallies,
        "blocks_placed": tallies,
        "ticks_used": 10**12,
    }


def worst_case_payload(spec: TaskSpec, bounds: ObservationBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    """A JSON payload at least as long as any observation of ``spec`` the bounds allow (module docstring)."""
    w = -WORLD_LIMIT + 0.1
    vec = {"x": w, "y": -64.1, "z": w}
    pos = {"x": -30_000_000, "y": -64, "z": -30_000_000}
    dist = 99_999_999.9
    big = 10**12
    return {
        "task": {
            "task": spec.id.value,
            "title": spec.title,
            "objective": spec.objective,
            "milestones": [
                {
                    "advancement": m.advancement,
                    "title": m.title,
                    "description": m.description,
                    "value": m.value,
                    "done": False,
                }
                for m in spec.milestones
            ],
            "next_milestone": spec.milestones[0].advancement,
            "actions_used": big,
            "budget": big,
        },
        "position": vec,
        "biome": _worst_id(),
        "survival": {"health": 20.0, "food": 20, "xp_level": big},
        "equipment": {k: _worst_id() for k in ("main_hand", "off_hand", "head", "chest", "legs", "feet")},
        "inventory": [{"item": _worst_id(), "count": big} for _ in range(bounds.max_inventory_entries)],
        "nearby_blocks": [
            {"block": _worst_id(), "count": big, "nearest": pos, "distance": dist}
            for _ in range(bounds.max_block_types)
        ],
        "nearby_entities": [
            {"entity": _worst_id(), "position": vec, "distance": dist} for _ in range(bounds.max_entities)
        ],
        "dropped_items": [
            {"item": _worst_id(), "count": big, "position": vec, "distance": dist}
            for _ in range(bounds.max_dropped_items)
        ],
        "last_result": {"action_index": big, "call": _worst_call(), "report": _worst_report()},
        "effects": [
            {
                "action_index": big,
                "call": _worst_call(),
                "status": "failure",
                "inventory_delta": _worst_report()["inventory_delta"],
            }
            for _ in range(bounds.max_effects)
        ],
        "skills": list(MIRRORCRAFT_SKILL_NAMES),
        "failure_constraints": [
            {
                "signature": ["craft_grid", "crafting_table", *[_worst_id()] * 9],
                "reason": "not_enough_levels",
                "occurrences": big,
                "last_action_index": big,
            }
            for _ in range(bounds.max_failure_constraints)
        ],
    }


def max_observation_chars(spec: TaskSpec, bounds: ObservationBounds = DEFAULT_BOUNDS) -> int:
    """The observation text's ``max_length``: the worst-case payload's length (module docstring)."""
    return len(json.dumps(worst_case_payload(spec, bounds), sort_keys=True, separators=(",", ":")))


def body_spaces() -> dict[str, spaces.Space]:
    """The numeric features of the player's body every env shares: ``position``, ``health``, ``food``."""
    return {
        "position": spaces.Box(
            np.array([-WORLD_LIMIT, MIN_Y, -WORLD_LIMIT], dtype=np.float32),
            np.array([WORLD_LIMIT, MAX_Y, WORLD_LIMIT], dtype=np.float32),
            dtype=np.float32,
        ),
        "health": spaces.Box(0.0, 20.0, shape=(1,), dtype=np.float32),
        "food": spaces.Box(0.0, 20.0, shape=(1,), dtype=np.float32),
    }


def body_features(position: Any, survival: Any) -> dict[str, np.ndarray]:
    """:func:`body_spaces`' values from an observation's ``position`` and ``survival`` (clipped to the box)."""
    return {
        "position": np.clip(
            np.array([position.x, position.y, position.z], dtype=np.float32),
            [-WORLD_LIMIT, MIN_Y, -WORLD_LIMIT],
            [WORLD_LIMIT, MAX_Y, WORLD_LIMIT],
        ).astype(np.float32),
        "health": np.array([survival.health], dtype=np.float32),
        "food": np.array([survival.food], dtype=np.float32),
    }


def observation_space(spec: TaskSpec, bounds: ObservationBounds = DEFAULT_BOUNDS) -> spaces.Dict:
    """The observation space of an env for task ``spec`` (module docstring)."""
    vocab = len(item_vocabulary()) + 1
    return spaces.Dict(
        {
            "text": spaces.Text(
                max_length=max_observation_chars(spec, bounds), min_length=2, charset=JSON_CHARSET
            ),
            "inventory": spaces.Box(0, MAX_ITEM_COUNT, shape=(vocab,), dtype=np.int32),
            **body_spaces(),
            "xp_level": spaces.Box(0, np.iinfo(np.int32).max, shape=(1,), dtype=np.int32),
            "milestones": spaces.MultiBinary(len(spec.milestones)),
        }
    )


def text_action_space() -> spaces.Text:
    """``action_mode="text"``: one skill-call JSON object (``{"skill": ..., "args": {...}}``)."""
    return spaces.Text(max_length=ACTION_MAX_CHARS, min_length=1, charset=JSON_CHARSET)


def _clip_message(obs: Observation) -> Observation:
    last = obs.last_result
    if last is None or len(last.report.message) <= MESSAGE_CAP:
        return obs
    report = last.report.model_copy(update={"message": last.report.message[: MESSAGE_CAP - 3] + "..."})
    return obs.model_copy(update={"last_result": last.model_copy(update={"report": report})})


def observation_text(obs: Observation, bounds: ObservationBounds = DEFAULT_BOUNDS) -> str:
    """``observation["text"]``: the canonical observation as printable-ASCII JSON (module docstring).

    Raises:
        ContractError: a report list beyond :data:`REPORT_LIST_CAP`, or the contracts' own refusals
            (inventory overflow, a leak of rules or world identity).
    """
    last = obs.last_result
    if last is not None:
        r = last.report
        for name in ("inventory_delta", "produced", "drops_collected", "blocks_broken", "blocks_placed"):
            if len(getattr(r, name)) > REPORT_LIST_CAP:
                raise ContractError(
                    f"observation.last_result.report.{name}: {len(getattr(r, name))} entries exceed the "
                    f"environment's bound {REPORT_LIST_CAP}"
                )
    for e in obs.effects:
        if len(e.inventory_delta) > REPORT_LIST_CAP:
            raise ContractError(f"observation.effects: an inventory delta exceeds {REPORT_LIST_CAP} entries")
    return ascii_json(serialize_observation(_clip_message(obs), bounds))


def observation_element(obs: Observation, spec: TaskSpec) -> dict[str, Any]:
    """One element of :func:`observation_space` (new arrays on every call: callers keep them)."""
    obs = canonicalize(obs)  # the same rounded, merged state as the text
    vocab = item_vocabulary()
    index = {item: i for i, item in enumerate(vocab)}
    inventory = np.zeros(len(vocab) + 1, dtype=np.int32)
    for stack in obs.inventory:
        inventory[index.get(stack.item, len(vocab))] += stack.count
    np.minimum(inventory, MAX_ITEM_COUNT, out=inventory)
    done = {m.advancement for m in obs.task.milestones if m.done}
    return {
        "text": observation_text(obs),
        "inventory": inventory,
        **body_features(obs.position, obs.survival),
        "xp_level": np.array([min(obs.survival.xp_level, np.iinfo(np.int32).max)], dtype=np.int32),
        "milestones": np.array([1 if m.advancement in done else 0 for m in spec.milestones], dtype=np.int8),
    }


__all__ = [
    "ACTION_MAX_CHARS",
    "ID_CAP",
    "JSON_CHARSET",
    "MESSAGE_CAP",
    "REPORT_LIST_CAP",
    "ascii_json",
    "body_features",
    "body_spaces",
    "item_vocabulary",
    "max_observation_chars",
    "observation_element",
    "observation_space",
    "observation_text",
    "text_action_space",
    "worst_case_payload",
]
