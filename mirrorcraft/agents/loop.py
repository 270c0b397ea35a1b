"""The environment-agnostic episode loop: observe → update → decide → execute.

The runner supplies two callables: ``observe() -> Observation`` and ``execute(call) -> OutcomeReport``
(plain functions, coroutine functions or functions returning a Twisted ``Deferred``: whatever they
return is awaited when awaitable). The loop knows nothing of servers, worlds or datapacks; the body and
skills layer behind those callables is built elsewhere. Run it on the Twisted reactor with
``ensureDeferred(run_episode(...))``, or under asyncio with ``asyncio.run``.

End conditions (spec "Agent interface" and "Action semantics"): the final milestone done, the budget
used up, death (health 0 in the observation), or ``max_consecutive_policy_errors`` policy errors in a
row ("no executable action"). Policy errors consume no budget; they are attached to the next action
step, or kept as trailing errors when the episode ends. The runner turns the result into an
:class:`~mirrorcraft.contracts.EpisodeRecord` (it adds score_after, milestones and encounters from
the evaluator, through the optional ``after_action`` hook).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.contracts import (
    Agent,
    AgentContext,
    EndReason,
    Observation,
    OutcomeReport,
    PolicyError,
    SkillCall,
    Usage,
    signature,
)


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


@dataclass
class LoopStep:
    """One executed action: the call, its report and the policy errors re-asked before it."""

    index: int
    call: SkillCall
    report: OutcomeReport
    policy_errors: list[PolicyError] = field(default_factory=list)

    @property
    def signature(self) -> tuple[str, ...]:
        """σ of the call."""
        return signature(self.call)


@dataclass
class EpisodeRun:
    """What the loop produced; the runner completes it into an episode record."""

    steps: list[LoopStep]
    end_reason: EndReason
    trailing_policy_errors: list[PolicyError]
    usage: Usage
    prompt_template_version: str
    wall_time_s: float
    final_observation: Observation


async def run_episode(
    agent: Agent,
    context: AgentContext,
    observe: Callable[[], Observation | Awaitable[Observation]],
    execute: Callable[[SkillCall], OutcomeReport | Awaitable[OutcomeReport]],
    *,
    after_action: Callable[[int, SkillCall, OutcomeReport], Any] | None = None,
) -> EpisodeRun:
    """Run one episode of ``agent`` (reset first, so all its state is fresh).

    Args:
        agent: any :class:`~mirrorcraft.contracts.Agent` (LLM configuration or scripted policy).
        context: what the agent is told (task, skills, rule cards only for disclosure).
        observe: returns the current observation.
        execute: runs one skill call and returns its outcome report.
        after_action: optional hook called after each action (e.g. the evaluator's tick barrier).

    Returns:
        The steps, end reason, trailing policy errors, usage and the agent's prompt template version.
    """
    start = time.monotonic()
    agent.reset(context)
    obs: Observation = await _maybe_await(observe())
    agent.observe(obs)
    steps: list[LoopStep] = []
    errors: list[PolicyError] = []
    consecutive = 0
    budget = context.task.budget
    while True:
        # The episode ends when the *final* milestone is done, even if earlier ones were skipped (a diamond
        # found before any stone was mined completes the Diamond task: Score is the deepest milestone).
        if obs.task.next_milestone is None or (obs.task.milestones and obs.task.milestones[-1].done):
            end = EndReason.FINAL_MILESTONE
            break
        if obs.survival.health <= 0:
            end = EndReason.DEATH
            break
        if len(steps) >= budget or obs.task.actions_used >= obs.task.budget:
            end = EndReason.BUDGET_EXHAUSTED
            break
        decision = await agent.decide()
        if isinstance(decision, PolicyError):
            errors.append(decision)
            consecutive += 1
            if consecutive >= context.max_consecutive_policy_errors:
                end = EndReason.NO_EXECUTABLE_ACTION
                break
            continue
        consecutive = 0
        report: OutcomeReport = await _maybe_await(execute(decision))
        steps.append(LoopStep(len(steps) + 1, decision, report, errors))
        errors = []
        if after_action is not None:
            await _maybe_await(after_action(len(steps), decision, report))
        obs = await _maybe_await(observe())
        agent.observe(obs)
    usage_fn = getattr(agent, "usage", None)
    usage = usage_fn() if callable(usage_fn) else Usage()
    version = getattr(agent, "prompt_template_version", "none")
    return EpisodeRun(steps, end, errors, usage, version, time.monotonic() - start, obs)
