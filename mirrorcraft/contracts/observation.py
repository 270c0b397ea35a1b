"""The observation an agent receives, its bounds, and its canonical serialization.

Every configuration sees the same serialized observation (paper appendix E/F). Fields, as the spec lists
them: inventory, position, task with ordered milestones and the next unfinished one, nearby blocks and
entities, nearby dropped items, the latest action result, a bounded record of verified action effects,
available skills, equipped items, survival state (health, food; plus experience level, which
enchanting spends), biome, and known failure constraints.

**What may never appear.** No field carries rules, recipes, loot tables, processing rules, datapack
names, registry contents or world identity (world id, suite id, Vanilla/Mirror, seed): the agent may
only learn rules from the outcomes of its own actions. The models have no such field, and
:func:`serialize_observation` additionally refuses text that names a suite (``M01``..``M06``), a world
id (``plains-1``), a datapack or the ``mirrorcraft`` namespace (:func:`find_leaks`).

**Canonical form** (:func:`canonicalize` then :func:`~mirrorcraft.contracts.canonical.canonical_json`):

* Bounded lists of *nearby* things (blocks, entities, dropped items) are sorted nearest first (ties by
  id, then position) and **truncated deterministically** to the bound; the verified-effects record and
  the failure constraints keep the **most recent** entries. The inventory is never truncated: it is
  merged per item and sorted by id, and more distinct items than the bound raise ContractError (a
  player inventory has at most 41 slots, so overflow means a bug upstream).
* Floats are rounded to fixed decimals (positions and distances 0.1 block, health 0.1), ``-0.0`` becomes
  ``0.0``; keys sorted; separators ``(",", ":")``. Two equal states give identical bytes, whatever
  order their parts were gathered in.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mirrorcraft.contracts.canonical import canonical_json
from mirrorcraft.contracts.ids import namespaced
from mirrorcraft.contracts.skills import (
    SKILL_NAMES,
    FailureReason,
    ItemStack,
    OutcomeReport,
    ResourceId,
    SkillCall,
)
from mirrorcraft.contracts.tasks import TaskId
from mirrorcraft.errors import ContractError


class ObservationBounds(BaseModel):
    """Radii (blocks), entry limits and rounding of the observation (named settings)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    block_radius: int = Field(16, ge=1, description="Blocks within this distance are listed by type.")
    max_block_types: int = Field(24, ge=1, description="Nearby block types kept (nearest first).")
    entity_radius: int = Field(32, ge=1)
    max_entities: int = Field(12, ge=1)
    item_radius: int = Field(16, ge=1)
    max_dropped_items: int = Field(12, ge=1)
    max_effects: int = Field(8, ge=1, description="Most recent verified action effects kept.")
    max_failure_constraints: int = Field(8, ge=1)
    max_inventory_entries: int = Field(64, ge=1, description="Distinct items; overflow is an error.")
    position_decimals: int = Field(1, ge=0, le=3)
    distance_decimals: int = Field(1, ge=0, le=3)
    health_decimals: int = Field(1, ge=0, le=3)


DEFAULT_BOUNDS = ObservationBounds()


class _M(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Vec3(_M):
    """A position in blocks (floats; rounded on canonicalization)."""

    x: float
    y: float
    z: float


class BlockPos(_M):
    """An integer block position."""

    x: int
    y: int
    z: int


class MilestoneStatus(_M):
    advancement: str
    title: str
    description: str
    value: int
    done: bool


class TaskView(_M):
    """The task as shown to the agent: ordered milestones with completion, the next unfinished one and
    the action budget."""

    task: TaskId
    title: str
    objective: str
    milestones: list[MilestoneStatus]
    next_milestone: str | None = Field(description="Advancement id of the first unfinished milestone.")
    actions_used: int = Field(ge=0)
    budget: int = Field(ge=1)

    @model_validator(mode="after")
    def _next(self) -> TaskView:
        first_open = next((m.advancement for m in self.milestones if not m.done), None)
        if self.next_milestone != first_open:
            raise ValueError(
                f"next_milestone is {self.next_milestone!r}, the first unfinished is {first_open!r}"
            )
        if self.actions_used > self.budget:
            raise ValueError(f"actions_used {self.actions_used} exceeds the budget {self.budget}")
        return self


class Equipment(_M):
    main_hand: ResourceId | None = None
    off_hand: ResourceId | None = None
    head: ResourceId | None = None
    chest: ResourceId | None = None
    legs: ResourceId | None = None
    feet: ResourceId | None = None


class SurvivalState(_M):
    health: float = Field(ge=0, le=20)
    food: int = Field(ge=0, le=20)
    xp_level: int = Field(0, ge=0)


class NearbyBlock(_M):
    """One block type within ``block_radius``: how many, and the nearest one."""

    block: ResourceId
    count: int = Field(ge=1)
    nearest: BlockPos
    distance: float = Field(ge=0)


class NearbyEntity(_M):
    """A mob or other entity within ``entity_radius`` (no entity id: identity is not observable)."""

    entity: ResourceId
    position: Vec3
    distance: float = Field(ge=0)


class DroppedItem(_M):
    """An item entity lying within ``item_radius``."""

    item: ResourceId
    count: int = Field(ge=1)
    position: Vec3
    distance: float = Field(ge=0)


class ActionResult(_M):
    """The latest action: its index, the call, and its outcome report."""

    action_index: int = Field(ge=1)
    call: SkillCall
    report: OutcomeReport


class VerifiedEffect(_M):
    """One entry of the bounded record of verified action effects."""

    action_index: int = Field(ge=1)
    call: SkillCall
    status: Literal["success", "failure"]
    inventory_delta: dict[str, int]

    @field_validator("inventory_delta")
    @classmethod
    def _delta(cls, v: dict[str, int]) -> dict[str, int]:
        return {namespaced(k, field="inventory_delta"): n for k, n in sorted(v.items()) if n != 0}


class FailureConstraint(_M):
    """A failure the agent has met: σ of the failing call, the reason, how often and when last."""

    signature: tuple[str, ...]
    reason: FailureReason
    occurrences: int = Field(ge=1)
    last_action_index: int = Field(ge=1)


class Observation(_M):
    """Everything an agent is shown at one decision point (and nothing that reveals rules or world)."""

    task: TaskView
    position: Vec3
    biome: ResourceId
    survival: SurvivalState
    equipment: Equipment
    inventory: list[ItemStack]
    nearby_blocks: list[NearbyBlock]
    nearby_entities: list[NearbyEntity]
    dropped_items: list[DroppedItem]
    last_result: ActionResult | None
    effects: list[VerifiedEffect]
    skills: list[str]
    failure_constraints: list[FailureConstraint]


def _r(value: float, decimals: int) -> float:
    out = round(float(value), decimals)
    return 0.0 if out == 0 else out


def _v(v: Vec3, d: int) -> Vec3:
    return Vec3(x=_r(v.x, d), y=_r(v.y, d), z=_r(v.z, d))


def canonicalize(obs: Observation, bounds: ObservationBounds = DEFAULT_BOUNDS) -> Observation:
    """Return the canonical form of ``obs``: rounded, merged, sorted and bounded (module docstring).

    Args:
        obs: an observation as the body assembled it (any order, unrounded).
        bounds: the bounds to apply.

    Returns:
        A new observation; canonicalizing it again returns an equal one.

    Raises:
        ContractError: more distinct inventory items than ``bounds.max_inventory_entries``, or an
            unknown skill name.
    """
    pd, dd = bounds.position_decimals, bounds.distance_decimals
    merged: dict[str, int] = {}
    for s in obs.inventory:
        merged[s.item] = merged.get(s.item, 0) + s.count
    if len(merged) > bounds.max_inventory_entries:
        raise ContractError(
            f"observation.inventory: {len(merged)} distinct items exceed the bound {bounds.max_inventory_entries}"
        )
    unknown = sorted(set(obs.skills) - set(SKILL_NAMES))
    if unknown:
        raise ContractError(f"observation.skills: unknown skills {unknown}")

    blocks = [
        b.model_copy(update={"distance": _r(b.distance, dd)})
        for b in obs.nearby_blocks
        if b.distance <= bounds.block_radius
    ]
    blocks.sort(key=lambda b: (b.distance, b.block, b.nearest.x, b.nearest.y, b.nearest.z))
    entities = [
        e.model_copy(update={"distance": _r(e.distance, dd), "position": _v(e.position, pd)})
        for e in obs.nearby_entities
        if e.distance <= bounds.entity_radius
    ]
    entities.sort(key=lambda e: (e.distance, e.entity, e.position.x, e.position.y, e.position.z))
    items = [
        i.model_copy(update={"distance": _r(i.distance, dd), "position": _v(i.position, pd)})
        for i in obs.dropped_items
        if i.distance <= bounds.item_radius
    ]
    items.sort(key=lambda i: (i.distance, i.item, i.count, i.position.x, i.position.y, i.position.z))
    effects = sorted(obs.effects, key=lambda e: e.action_index)[-bounds.max_effects :]
    effects = [
        e.model_copy(update={"inventory_delta": dict(sorted(e.inventory_delta.items()))}) for e in effects
    ]
    constraints = sorted(obs.failure_constraints, key=lambda c: (c.last_action_index, c.signature, c.reason))
    constraints = constraints[-bounds.max_failure_constraints :]
    order = {name: i for i, name in enumerate(SKILL_NAMES)}
    return obs.model_copy(
        update={
            "position": _v(obs.position, pd),
            "survival": obs.survival.model_copy(
                update={"health": _r(obs.survival.health, bounds.health_decimals)}
            ),
            "inventory": [ItemStack(item=k, count=v) for k, v in sorted(merged.items())],
            "nearby_blocks": blocks[: bounds.max_block_types],
            "nearby_entities": entities[: bounds.max_entities],
            "dropped_items": items[: bounds.max_dropped_items],
            "effects": effects,
            "skills": sorted(set(obs.skills), key=order.__getitem__),
            "failure_constraints": constraints,
        }
    )


# Tokens that would reveal rules or world identity if they reached an agent.
_LEAK_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("suite id", re.compile(r"\bM0[1-6]\b")),
    ("suite name", re.compile(r"\bMirror0\d\b|\bmirror world\b", re.IGNORECASE)),
    ("world id", re.compile(r"\b(?:plains|taiga|snowy_plains|jungle|savanna|sandbox)-\d+\b")),
    ("datapack", re.compile(r"datapack|data pack|loot[_ ]table", re.IGNORECASE)),
    ("mirrorcraft namespace", re.compile(r"\bmirrorcraft:")),
)


def find_leaks(text: str) -> list[str]:
    """Names of the leak patterns found in ``text`` (empty list = clean).

    A guard, not a proof: it catches suite ids, world ids, datapack/loot-table mentions and the
    ``mirrorcraft:`` namespace in any string the body put into an observation.
    """
    return [name for name, pattern in _LEAK_PATTERNS if pattern.search(text)]


def observation_payload(obs: Observation, bounds: ObservationBounds = DEFAULT_BOUNDS) -> dict[str, Any]:
    """The canonical observation as a JSON-compatible dict (what :func:`serialize_observation` encodes)."""
    return canonicalize(obs, bounds).model_dump(mode="json")


def serialize_observation(obs: Observation, bounds: ObservationBounds = DEFAULT_BOUNDS) -> bytes:
    """Canonical bytes of an observation: identical states give identical bytes.

    Args:
        obs: the observation.
        bounds: radii, limits and rounding to apply.

    Returns:
        UTF-8 JSON with sorted keys and compact separators.

    Raises:
        ContractError: inventory overflow, or a string that would leak rules/world identity
            (the message names the leak kind).
    """
    data = canonical_json(observation_payload(obs, bounds))
    leaks = find_leaks(data.decode("utf-8"))
    if leaks:
        raise ContractError(f"observation would leak {', '.join(leaks)} to the agent")
    return data
