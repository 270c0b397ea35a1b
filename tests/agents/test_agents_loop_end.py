"""The loop ends at the final milestone even when earlier milestones were skipped (Score = deepest done)."""

from __future__ import annotations

from support.agents_support import context, observation, run

from mirrorcraft.agents import make_agent, run_episode
from mirrorcraft.contracts import Observation
from mirrorcraft.contracts.episodes import EndReason


def _final_done_only() -> Observation:
    obs = observation(task="diamond")
    data = obs.model_dump(mode="json")
    data["task"]["milestones"][-1]["done"] = True  # mine_diamond done, nothing before it
    return Observation.model_validate(data)


def test_final_milestone_out_of_order_ends_the_episode() -> None:
    obs = _final_done_only()
    assert obs.task.next_milestone is not None  # an earlier milestone is still open

    def execute(call):  # pragma: no cover - must never be called
        raise AssertionError(f"no action expected, got {call}")

    result = run(run_episode(make_agent("scripted"), context(task="diamond"), lambda: obs, execute))
    assert result.end_reason == EndReason.FINAL_MILESTONE
    assert result.steps == []
