"""The observation builder: the ONLY door between the game and an agent.

Why one builder: the paper's comparison holds only if every configuration sees exactly the same thing,
built the same way. :class:`ObservationBuilder` reads the body's state (position, inventory, equipment,
health/food/xp, blocks and entities around, the player's own advancement progress for the task's
milestones) plus the episode's :class:`ActionHistory` (latest result, bounded verified effects, known
failure constraints) into the contracts' :class:`~mirrorcraft.contracts.Observation`, and serializes it
with the contracts' canonical encoding (:func:`~mirrorcraft.contracts.serialize_observation`), which also
refuses leaks. Nothing else of the body is passed on: no chat, no world name, no recipe/tag packets (the
body drops those unparsed), no server brand.

Determinism: lists are gathered in a fixed order and the contracts canonicalize (sort, round, bound).
Game time in an outcome report is measured on a running clock and jitters by a few ticks between two
runs of the same action (measured: a refused dig took 7 ticks in one run and 13 in the next), which no
rounding makes stable at a bucket edge. So in the default, deterministic mode
(``ObservationBuilder(tick_quantum=0)``, matching ``Controls.deterministic``) the shown report carries
``ticks_used = 0``; the full value stays in the episode record. ``tick_quantum > 0`` shows it rounded to
that many ticks instead (for non-deterministic runs).

Position: the body's physics ends a walk a few hundredths of a block before or after the same spot
depending on how its 20 Hz loop interleaves with the follower, so the observation shows the player at
the **centre of the block its feet are in** (and the feet height rounded to 0.1); distances to entities
and dropped items are measured from that point. Agents act on block coordinates (``go_to`` takes
integers), so nothing they can use is lost.

The biome is the one the body's world holds for the player's feet (:meth:`World.biome_at
<mirrorcraft.mcproto_body.world.World.biome_at>`, decoded with the chunk).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mirrorcraft.contracts import (
    DEFAULT_BOUNDS,
    MIRRORCRAFT_SKILL_NAMES,
    ItemStack,
    Observation,
    ObservationBounds,
    OutcomeReport,
    SkillCall,
    TaskSpec,
    serialize_observation,
    signature,
)
from mirrorcraft.contracts.observation import (
    ActionResult,
    DroppedItem,
    Equipment,
    FailureConstraint,
    MilestoneStatus,
    NearbyBlock,
    NearbyEntity,
    SurvivalState,
    TaskView,
    Vec3,
    VerifiedEffect,
)
from mirrorcraft.gamedata import all_blocks, item_by_id

_AIR = ("minecraft:air", "minecraft:cave_air", "minecraft:void_air")


def _state_to_block() -> tuple[np.ndarray, list[str]]:
    blocks = all_blocks()
    table = np.zeros(0x10000, dtype=np.int32) - 1
    for info in blocks:
        table[info.min_state : info.max_state + 1] = info.id
    return table, [b.name for b in blocks]


_BLOCK_TABLE: tuple[np.ndarray, list[str]] | None = None


def state_block_table() -> tuple[np.ndarray, list[str]]:
    """``(state id -> block id table (-1 for unknown), block id -> name)``, built once."""
    global _BLOCK_TABLE
    if _BLOCK_TABLE is None:
        _BLOCK_TABLE = _state_to_block()
    return _BLOCK_TABLE


@dataclass
class _Step:
    index: int
    call: SkillCall
    report: OutcomeReport


@dataclass
class ActionHistory:
    """The episode's executed actions as the agent may know them (its own calls and their outcomes)."""

    steps: list[_Step] = field(default_factory=list)

    def record(self, call: SkillCall, report: OutcomeReport) -> int:
        """Append an executed action; returns its 1-based index."""
        self.steps.append(_Step(len(self.steps) + 1, call, report))
        return len(self.steps)

    @property
    def actions_used(self) -> int:
        """Actions executed so far."""
        return len(self.steps)

    def failure_constraints(self) -> list[FailureConstraint]:
        """One entry per (σ, reason) of failed calls: occurrences and the last index."""
        agg: dict[tuple[tuple[str, ...], str], list[int]] = {}
        for s in self.steps:
            if s.report.status == "failure" and s.report.reason is not None:
                agg.setdefault((signature(s.call), s.report.reason.value), []).append(s.index)
        return [
            FailureConstraint(signature=sig, reason=reason, occurrences=len(ix), last_action_index=ix[-1])
            for (sig, reason), ix in agg.items()
        ]


class ObservationBuilder:
    """Builds and serializes observations from a body and the episode's history.

    Args:
        body: The body.
        task: The task's spec (milestones, budget).
        bounds: Radii and limits (the contracts' defaults).
        tick_quantum: 0 hides ``ticks_used`` of shown reports (deterministic mode, the default); a
            positive value rounds it to that many ticks (module docstring).
    """

    def __init__(
        self, body: Any, task: TaskSpec, bounds: ObservationBounds = DEFAULT_BOUNDS, tick_quantum: int = 0
    ) -> None:
        self.body = body
        self.task = task
        self.bounds = bounds
        self.tick_quantum = max(0, tick_quantum)

    # ------------------------------------------------------------------------------------------ parts
    def _task_view(self, actions_used: int) -> TaskView:
        adv = self.body.advancements
        ms = [
            MilestoneStatus(
                advancement=m.advancement,
                title=m.title,
                description=m.description,
                value=m.value,
                done=adv.is_done(m.advancement),
            )
            for m in self.task.milestones
        ]
        nxt = next((m.advancement for m in ms if not m.done), None)
        return TaskView(
            task=self.task.id,
            title=self.task.title,
            objective=self.task.objective,
            milestones=ms,
            next_milestone=nxt,
            actions_used=actions_used,
            budget=self.task.budget,
        )

    def _equipment(self) -> Equipment:
        inv = self.body.inventory
        slots = inv.player.slots

        def name(i: int) -> str | None:
            s = slots[i]
            return None if s is None else item_by_id(s.item_id).name

        return Equipment(
            main_hand=inv.held_item_name(),
            off_hand=name(45),
            head=name(5),
            chest=name(6),
            legs=name(7),
            feet=name(8),
        )

    def _blocks(self, feet: tuple[int, int, int]) -> list[NearbyBlock]:
        r = self.bounds.block_radius
        lo = (feet[0] - r, feet[1] - r, feet[2] - r)
        states = self.body.world.region(lo, (feet[0] + r + 1, feet[1] + r + 1, feet[2] + r + 1))
        table, names = state_block_table()
        ids = table[states]
        idx = np.indices(ids.shape).reshape(3, -1).T
        d2 = ((idx - r) ** 2).sum(axis=1)
        flat = ids.reshape(-1)
        keep = (flat >= 0) & (d2 <= r * r)
        out = []
        for bid in np.unique(flat[keep]):
            name = names[int(bid)]
            if name in _AIR:
                continue
            mask = keep & (flat == bid)
            where = np.flatnonzero(mask)
            best = where[np.lexsort((idx[where, 2], idx[where, 1], idx[where, 0], d2[where]))[0]]
            pos = (int(idx[best, 0] + lo[0]), int(idx[best, 1] + lo[1]), int(idx[best, 2] + lo[2]))
            out.append(
                NearbyBlock(
                    block=name,
                    count=int(mask.sum()),
                    nearest={"x": pos[0], "y": pos[1], "z": pos[2]},
                    distance=math.sqrt(float(d2[best])),
                )
            )
        return out

    def _entities(self, pos: tuple[float, float, float]) -> tuple[list[NearbyEntity], list[DroppedItem]]:
        ents, items = [], []
        me = self.body.entities.self_id
        for e in sorted(self.body.entities.by_id.values(), key=lambda e: e.id):
            if e.id == me or e.type.startswith("unknown:"):
                continue
            d = e.distance_to(pos)
            p = Vec3(x=e.position[0], y=e.position[1], z=e.position[2])
            if e.type == "minecraft:item":
                if e.item is not None and e.item.count > 0 and d <= self.bounds.item_radius:
                    items.append(DroppedItem(item=e.item_name, count=e.item.count, position=p, distance=d))
            elif d <= self.bounds.entity_radius:
                ents.append(NearbyEntity(entity=e.type, position=p, distance=d))
        return ents, items

    @staticmethod
    def shown_position(
        raw: tuple[float, float, float], feet: tuple[int, int, int]
    ) -> tuple[float, float, float]:
        """The position shown: the centre of the feet block horizontally, the feet height to 0.1."""
        return (feet[0] + 0.5, round(raw[1], 1), feet[2] + 0.5)

    def _shown_report(self, report: OutcomeReport) -> OutcomeReport:
        q = self.tick_quantum
        shown = 0 if q == 0 else int(round(report.ticks_used / q)) * q
        return report.model_copy(update={"ticks_used": shown})

    # ---------------------------------------------------------------------------------------- public
    def player_part(self, history: ActionHistory, what: str = "observation") -> dict[str, Any]:
        """The fields every observation of a player shares (the MirrorCraft one and the team one): position,
        survival, equipment, inventory, nearby blocks, entities and items, the latest result, the verified
        effects and the failure constraints, as keyword arguments of the contract's model.

        Raises:
            ContractError: the body has no position yet (``what`` names the observation in the message).
        """
        from mirrorcraft.errors import ContractError

        body = self.body
        raw = body.movement.position
        if raw is None:
            raise ContractError(f"{what}: the body has no position (not spawned)")
        feet = body.movement.block_position()
        pos = self.shown_position(raw, feet)
        health = body.health
        ents, items = self._entities(pos)
        last = None
        if history.steps:
            s = history.steps[-1]
            last = ActionResult(action_index=s.index, call=s.call, report=self._shown_report(s.report))
        return {
            "position": Vec3(x=pos[0], y=pos[1], z=pos[2]),
            "survival": SurvivalState(
                health=min(20.0, max(0.0, health.health if health.health is not None else 20.0)),
                food=health.food,
                xp_level=health.level,
            ),
            "equipment": self._equipment(),
            "inventory": [
                ItemStack(item=k, count=v) for k, v in sorted(body.inventory.contents().items()) if v > 0
            ],
            "nearby_blocks": self._blocks(feet),
            "nearby_entities": ents,
            "dropped_items": items,
            "last_result": last,
            "effects": [
                VerifiedEffect(
                    action_index=s.index,
                    call=s.call,
                    status=s.report.status,
                    inventory_delta=s.report.inventory_delta,
                )
                for s in history.steps[-self.bounds.max_effects :]
            ],
            "failure_constraints": history.failure_constraints(),
        }

    def build(self, history: ActionHistory) -> Observation:
        """The observation of the body's current state after ``history``.

        Raises:
            ContractError: the body has no position yet.
        """
        part = self.player_part(history)
        feet = self.body.movement.block_position()
        return Observation(
            task=self._task_view(min(history.actions_used, self.task.budget)),
            biome=self.body.world.biome_at(*feet) or "minecraft:the_void",
            skills=list(MIRRORCRAFT_SKILL_NAMES),
            **part,
        )

    def serialize(self, history: ActionHistory) -> bytes:
        """Canonical bytes of :meth:`build` (identical states give identical bytes; leaks refused)."""
        return serialize_observation(self.build(history), self.bounds)


def leak_free(texts: Iterable[str]) -> list[str]:
    """Leak kinds found in any of ``texts`` (helper for integrity checks)."""
    from mirrorcraft.contracts import find_leaks

    out: set[str] = set()
    for t in texts:
        out.update(find_leaks(t))
    return sorted(out)


__all__ = ["ActionHistory", "ObservationBuilder", "leak_free", "state_block_table"]
