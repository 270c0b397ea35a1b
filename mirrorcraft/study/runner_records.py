"""What an episode leaves: its record, or — for an infrastructure fault — a fault record.

Why apart from the runner: the record's consistency (S_k from the same milestone list the record carries,
the final milestone's value) is the benchmark's data, built the same way whatever ran the episode;
:class:`EpisodeFault` is how every step of the runner classifies a failure outside the agent's control
(docs/runner.md "Faults versus outcomes").
"""

from __future__ import annotations

from typing import Any, Literal

from mirrorcraft.contracts import (
    ActionStep,
    Controls,
    EndReason,
    EpisodeIdentity,
    EpisodeRecord,
    InfrastructureFault,
    MilestoneEvent,
    SpawnInfo,
    TaskSpec,
    Usage,
    task_spec,
)
from mirrorcraft.errors import MirrorCraftError

__all__ = ["EpisodeFault", "FaultKind", "build_record", "fault_record"]

FaultKind = Literal["disconnected", "missing_datapack", "advancement_unavailable", "server_error", "other"]


class EpisodeFault(MirrorCraftError):
    """An infrastructure fault of one episode (classified; becomes a fault record, never an outcome)."""

    def __init__(self, kind: FaultKind, message: str, action_index: int | None = None) -> None:
        super().__init__(message)
        self.kind: FaultKind = kind
        self.message = message
        self.action_index = action_index


def _task_milestones(spec: TaskSpec, events: list[MilestoneEvent]) -> list[MilestoneEvent]:
    wanted = set(spec.values())
    out: dict[str, MilestoneEvent] = {}
    for e in events:
        if e.advancement in wanted and e.advancement not in out:
            out[e.advancement] = e
    return list(out.values())


def _episode_fields(
    identity: EpisodeIdentity, spec: TaskSpec, controls: Controls, spawn: SpawnInfo | None
) -> dict[str, Any]:
    """The fields every record of an episode has, played or faulted."""
    return {
        "episode_id": identity.episode_id,
        "seed": identity.seed,
        "identity": identity,
        "controls": controls,
        "spawn": spawn,
        "milestone_values": spec.values(),
    }


def fault_record(
    identity: EpisodeIdentity,
    fault: EpisodeFault,
    *,
    controls: Controls,
    spawn: SpawnInfo | None,
    tb: str | None,
    wall_time_s: float,
    usage: Usage | None = None,
    prompt_template_version: str = "unknown",
    evaluator: Literal["embedded", "rcon"] = "embedded",
) -> EpisodeRecord:
    """The infrastructure-fault record of an episode (no actions, score 0; rerun under the same id)."""
    spec = task_spec(identity.task, budget=identity.budget)
    return EpisodeRecord(
        **_episode_fields(identity, spec, controls, spawn),
        outcome={
            "score": 0,
            "success": False,
            "actions_used": 0,
            "end_reason": EndReason.INFRASTRUCTURE_FAULT,
        },
        initial_score=0,
        trajectory=[],
        milestones=[],
        encounters=[],
        usage=usage or Usage(),
        wall_time_s=round(wall_time_s, 3),
        infrastructure_faults=[
            InfrastructureFault(
                kind=fault.kind, message=fault.message, action_index=fault.action_index, traceback=tb
            )
        ],
        prompt_template_version=prompt_template_version,
        evaluator=evaluator,
    )


def build_record(
    identity: EpisodeIdentity,
    spec: TaskSpec,
    *,
    controls: Controls,
    spawn: SpawnInfo,
    run: Any,
    milestones: list[MilestoneEvent],
    encounters: list[Any],
    wall_time_s: float,
    evaluator: Literal["embedded", "rcon"] = "embedded",
    positions: dict[int, Any] | None = None,
) -> EpisodeRecord:
    """Turn the agent loop's :class:`~mirrorcraft.agents.EpisodeRun` and the evaluator's findings into a record.

    S_k is computed from the same milestone list the record carries (milestones seen by action k), so the
    record's consistency checks hold by construction. ``positions`` maps action index → the player's feet
    when the call returned (the viewer's path; missing indices stay null).
    """
    ms = _task_milestones(spec, milestones)

    def score_by(k: int) -> int:
        return spec.score(m.advancement for m in ms if m.action_index <= k)

    steps = [
        ActionStep(
            index=s.index,
            call=s.call,
            signature=s.signature,
            report=s.report,
            score_after=score_by(s.index),
            policy_errors=s.policy_errors,
            position=(positions or {}).get(s.index),
        )
        for s in run.steps
    ]
    n = len(steps)
    score = score_by(n)
    end = run.end_reason
    if end == EndReason.FINAL_MILESTONE and score != 100:
        raise EpisodeFault(
            "advancement_unavailable",
            f"the player's advancement view shows the final milestone done but the evaluator has score {score}",
            action_index=n,
        )
    return EpisodeRecord(
        **_episode_fields(identity, spec, controls, spawn),
        outcome={"score": score, "success": score == 100, "actions_used": n, "end_reason": end},
        initial_score=score_by(0),
        trajectory=steps,
        trailing_policy_errors=run.trailing_policy_errors,
        milestones=ms,
        encounters=encounters,
        usage=run.usage,
        wall_time_s=round(wall_time_s, 3),
        prompt_template_version=run.prompt_template_version,
        evaluator=evaluator,
    )
