"""Synthetic episode records: consistent :class:`EpisodeRecord` objects built from a compact description.

Why this exists: the metrics and the study machinery (store, executors, reports) must be exercised on
records that pass every contract check (σ matches the call, S_k matches the milestones, encounters match
their action) *before* the episode runner exists, and hand-computed metric tests need records whose
score path and signatures are written out explicitly. These records are **not game episodes**: no
server, body or agent produced them. Every record built here says so in ``prompt_template_version``
(:data:`SYNTHETIC_MARK`) so a synthetic record can never be mistaken for a played one in a report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mirrorcraft.contracts import (
    Controls,
    EndReason,
    EpisodeIdentity,
    EpisodeRecord,
    InfrastructureFault,
    ItemStack,
    OutcomeReport,
    RuleEncounter,
    SkillCall,
    signature,
    task_spec,
)
from mirrorcraft.errors import ContractError

#: ``prompt_template_version`` of every synthetic record (reports flag records carrying it).
SYNTHETIC_MARK = "synthetic-not-a-game-episode"

CallSpec = tuple[str, dict[str, Any]]
"""A skill call as ``(name, args)``, e.g. ``("mine", {"block": "stone"})``."""


def _call(spec: CallSpec | SkillCall) -> SkillCall:
    if isinstance(spec, SkillCall):
        return spec
    name, args = spec
    return SkillCall.create(name, args)


def synthetic_record(
    identity: EpisodeIdentity,
    calls: Sequence[CallSpec | SkillCall],
    scores: Sequence[int],
    *,
    encounters: Sequence[tuple[str, int]] = (),
    initial_score: int = 0,
    end_reason: EndReason | None = None,
    wall_time_s: float = 0.0,
    cost_usd: float = 0.0,
) -> EpisodeRecord:
    """Build a contract-valid record from calls and the score after each call.

    Milestones are derived from the score path: whenever ``S_k`` rises, the milestone whose value is
    ``S_k`` is recorded at action ``k`` (so ``S_k`` must be one of the task's milestone values).

    Args:
        identity: the episode identity (its id and seed are used as given).
        calls: the attempted calls a_1..a_n as ``(name, args)`` or :class:`SkillCall`.
        scores: S_1..S_n, the score after each call (same length as ``calls``).
        encounters: ``(rule_id, action_index)`` pairs; the encounter's σ is taken from that action.
            Outcomes are placeholder stacks (vanilla 1 × cobblestone vs actual 2 × cobblestone).
        initial_score: S_0.
        end_reason: defaults to final_milestone on success, budget_exhausted when ``n == budget``, else
            no_executable_action.
        wall_time_s: recorded wall time.
        cost_usd: recorded API cost.

    Returns:
        The validated record.

    Raises:
        ContractError: the description is inconsistent (lengths, a score that is no milestone value, ...).
    """
    if len(calls) != len(scores):
        raise ContractError(f"synthetic record: {len(calls)} calls but {len(scores)} scores")
    spec = task_spec(identity.task, budget=identity.budget)
    by_value = {v: adv for adv, v in spec.values().items()}
    path = [initial_score, *scores]
    milestones = []
    for k in range(len(path)):
        prev = path[k - 1] if k > 0 else 0
        if path[k] > prev or (k == 0 and path[0] > 0):
            if path[k] not in by_value:
                raise ContractError(
                    f"synthetic record: S_{k} = {path[k]} is not a milestone value {by_value}"
                )
            milestones.append({"advancement": by_value[path[k]], "action_index": k, "tick": 20 * k})
        elif path[k] < prev:
            raise ContractError(
                f"synthetic record: S_{k} = {path[k]} < S_{k - 1} = {prev} (scores never drop)"
            )
    built = [_call(c) for c in calls]
    trajectory = [
        {
            "index": i,
            "call": call.model_dump(mode="json"),
            "signature": list(signature(call)),
            "report": OutcomeReport(skill=call.name, status="success", completed=1).model_dump(mode="json"),
            "score_after": s,
        }
        for i, (call, s) in enumerate(zip(built, scores, strict=True), start=1)
    ]
    enc = []
    for rule_id, index in encounters:
        if not 1 <= index <= len(built):
            raise ContractError(f"synthetic record: encounter {rule_id} at action {index} of {len(built)}")
        enc.append(
            RuleEncounter(
                rule_id=rule_id,
                action_index=index,
                signature=signature(built[index - 1]),
                vanilla_outcome=[ItemStack(item="minecraft:cobblestone", count=1)],
                actual_outcome=[ItemStack(item="minecraft:cobblestone", count=2)],
            ).model_dump(mode="json")
        )
    final = path[-1]
    if end_reason is None:
        if final == 100:
            end_reason = EndReason.FINAL_MILESTONE
        elif len(built) == identity.budget:
            end_reason = EndReason.BUDGET_EXHAUSTED
        else:
            end_reason = EndReason.NO_EXECUTABLE_ACTION
    data = {
        "episode_id": identity.episode_id,
        "seed": identity.seed,
        "identity": identity.model_dump(mode="json"),
        "controls": Controls().model_dump(mode="json"),
        "spawn": {
            "position": {"x": 0, "y": 64, "z": 0},
            "biome": "minecraft:" + identity.world.rsplit("-", 1)[0],
        },
        "milestone_values": spec.values(),
        "outcome": {
            "score": final,
            "success": final == 100,
            "actions_used": len(built),
            "end_reason": end_reason.value,
        },
        "initial_score": initial_score,
        "trajectory": trajectory,
        "milestones": milestones,
        "encounters": enc,
        "usage": {"model_calls": len(built), "cost_usd": cost_usd},
        "wall_time_s": wall_time_s,
        "prompt_template_version": SYNTHETIC_MARK,
        "evaluator": "embedded",
    }
    try:
        return EpisodeRecord.model_validate(data)
    except ValueError as err:
        raise ContractError(f"synthetic record {identity.episode_id}: {err}") from err


def fault_record(
    identity: EpisodeIdentity,
    kind: str,
    message: str,
    *,
    traceback: str | None = None,
    evaluator: str = "embedded",
    prompt_template_version: str = "unknown",
) -> EpisodeRecord:
    """An infrastructure-fault record for an episode that produced no record of its own.

    Used by the study driver when ``run_episode`` raised or timed out: the episode has no spawn, no
    actions and no score; ``end_reason`` is ``infrastructure_fault``; it will be retried under the same
    id. (The episode runner should return its own fault records, which carry the real controls.)

    Args:
        identity: the episode that faulted.
        kind: an :class:`~mirrorcraft.contracts.InfrastructureFault` kind (``"server_error"``, ``"other"``...).
        message: what happened.
        traceback: the formatted traceback, if any.
        evaluator: the evaluator the study was configured with.
        prompt_template_version: the prompt template version if known.

    Returns:
        The validated fault record.
    """
    spec = task_spec(identity.task, budget=identity.budget)
    fault = InfrastructureFault(kind=kind, message=message, traceback=traceback)  # type: ignore[arg-type]
    return EpisodeRecord.model_validate(
        {
            "episode_id": identity.episode_id,
            "seed": identity.seed,
            "identity": identity.model_dump(mode="json"),
            "controls": Controls().model_dump(mode="json"),
            "spawn": None,
            "milestone_values": spec.values(),
            "outcome": {
                "score": 0,
                "success": False,
                "actions_used": 0,
                "end_reason": "infrastructure_fault",
            },
            "initial_score": 0,
            "trajectory": [],
            "milestones": [],
            "encounters": [],
            "infrastructure_faults": [fault.model_dump(mode="json")],
            "prompt_template_version": prompt_template_version,
            "evaluator": evaluator,
        }
    )
