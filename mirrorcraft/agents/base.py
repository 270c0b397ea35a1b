"""The common LLM agent: the observe → update → decide step every configuration shares.

Paper appendix E: "All configurations use the same serialized observations, semantic skills, and action
budgets. They also follow the same loop for observing, updating, deciding, and executing." This class
is that loop's agent half (the executing half is :func:`mirrorcraft.agents.loop.run_episode`):

* ``reset(context)`` — clears *all* state (trace, lessons, library, graphs, usage meter) and builds the
  system prompt from the context's skill specs; checks the rule-card policy (only "ReAct w/rules" may
  receive rule cards, and it must).
* ``observe(obs)`` — stores the observation; when it reports the outcome of the agent's own pending
  call (``obs.last_result.action_index``), the configuration's ``_update`` hook receives the complete
  transition (thought, call, outcome report, observation before and after).
* ``decide()`` — runs the configuration's auxiliary procedures (``_prepare``: reviews, critiques,
  repairs, replans, probes; their calls are counted in cost but never in the action budget), asks for
  the action (``_choose``), and turns a malformed answer into a recorded
  :class:`~mirrorcraft.contracts.PolicyError` whose message is shown to the model on the re-ask.

Subclasses set ``configuration`` and override the hooks; none of them sees anything but the
:class:`~mirrorcraft.contracts.AgentContext` and observations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mirrorcraft.agents.errors import AgentError
from mirrorcraft.agents.llm import LLMClient, Purpose
from mirrorcraft.agents.parsing import ParsedAction, parse_action
from mirrorcraft.agents.prompting import system_prompt, template_version, turn_prompt
from mirrorcraft.contracts import (
    Agent,
    AgentContext,
    Observation,
    OutcomeReport,
    PolicyError,
    SkillCall,
    Usage,
    signature,
)


def render_call(call: SkillCall) -> str:
    """A call as compact JSON text (``{"skill": ..., "args": {...}}``)."""
    return json.dumps({"skill": call.name, "args": call.args}, sort_keys=True, separators=(",", ":"))


def render_outcome(report: OutcomeReport) -> str:
    """A one-line summary of an outcome report (status, reason, inventory change, produced, message)."""
    parts = [report.status]
    if report.reason is not None:
        parts.append(f"reason={report.reason.value}")
    if report.inventory_delta:
        delta = ", ".join(f"{k} {v:+d}" for k, v in report.inventory_delta.items())
        parts.append(f"inventory change: {delta}")
    if report.produced:
        parts.append("produced: " + ", ".join(f"{s.count} {s.item}" for s in report.produced))
    if report.drops_collected:
        parts.append("collected: " + ", ".join(f"{s.count} {s.item}" for s in report.drops_collected))
    if report.message:
        parts.append(f"message: {report.message}")
    return "; ".join(parts)


def gains(report: OutcomeReport) -> dict[str, int]:
    """Items whose count rose in the inventory during the call."""
    return {k: v for k, v in report.inventory_delta.items() if v > 0}


def milestones_done(obs: Observation) -> int:
    """How many milestones of the task are done in ``obs``."""
    return sum(1 for m in obs.task.milestones if m.done)


@dataclass
class Decision:
    """The agent's pending action: what it chose and why, waiting for its outcome."""

    action_index: int
    call: SkillCall
    thought: str
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class Transition:
    """One executed action with its outcome: the unit of every memory (thought, action, observation)."""

    action_index: int
    thought: str
    call: SkillCall
    report: OutcomeReport
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def signature(self) -> tuple[str, ...]:
        """σ of the call."""
        return signature(self.call)

    def render(self) -> str:
        """The transition as prompt text."""
        return (
            f"[action {self.action_index}] thought: {self.thought or '-'}\n"
            f"  action: {render_call(self.call)}\n"
            f"  observation: {render_outcome(self.report)}"
        )


class LLMAgent(Agent):
    """Base class of the seven LLM configurations (see module docstring).

    Args:
        llm: the model client (its usage meter is reset with the agent).
        reference_grids: add the clearly marked standard-recipe reference grids to the system prompt.
    """

    configuration: ClassVar[str] = "direct"
    output_format: ClassVar[str] = "output_action"
    instruction: ClassVar[str] = "instruction_direct"
    accepts_rule_cards: ClassVar[bool] = False
    requires_rule_cards: ClassVar[bool] = False

    def __init__(self, llm: LLMClient, *, reference_grids: bool = False) -> None:
        self.llm = llm
        self.reference_grids = reference_grids
        self.context: AgentContext | None = None
        self.obs: Observation | None = None
        self.pending: Decision | None = None
        self.policy_errors: list[PolicyError] = []
        self.consecutive_errors = 0
        self.last_error: PolicyError | None = None
        self.system = ""

    # -- identity -----------------------------------------------------------------------------------
    @property
    def prompt_template_version(self) -> str:
        """Recorded in ``EpisodeRecord.prompt_template_version``."""
        return template_version(self.configuration)

    def usage(self) -> Usage:
        """Model calls, tokens and cost of the current episode (auxiliary calls included)."""
        return self.llm.meter.usage()

    # -- Agent interface ------------------------------------------------------------------------------
    def reset(self, context: AgentContext) -> None:
        """Clear every piece of state and start an episode (module docstring)."""
        cards = context.rule_cards
        if cards and not self.accepts_rule_cards:
            raise AgentError(
                f"agent {self.configuration!r} must not receive rule cards (only 'react-rules' is shown them)"
            )
        if self.requires_rule_cards and not cards:
            raise AgentError(
                f"agent {self.configuration!r} needs the suite's rule cards (a Mirror-only, disclosed episode)"
            )
        self.context = context
        self.llm.meter.reset()
        self.obs = None
        self.pending = None
        self.policy_errors = []
        self.consecutive_errors = 0
        self.last_error = None
        self.allowed = {s.name for s in context.skills}
        self.system = system_prompt(
            context.skills,
            self.output_format,
            rule_cards=cards if self.accepts_rule_cards else None,
            reference_grids=self.reference_grids,
            **self._system_extras(),
        )
        self._reset_memory()

    def observe(self, observation: Observation) -> None:
        """Store the observation; hand a completed transition of our own call to ``_update``."""
        self._require_context()
        previous, self.obs = self.obs, observation
        last = observation.last_result
        if self.pending is not None and last is not None and last.action_index == self.pending.action_index:
            p = self.pending
            self.pending = None
            self._update(
                Transition(p.action_index, p.thought, last.call, last.report, p.extras), previous, observation
            )

    async def decide(self) -> SkillCall | PolicyError:
        """Auxiliary procedures, then one action (or a recorded policy error)."""
        self._require_context()
        if self.obs is None:
            raise AgentError(f"agent {self.configuration!r}: decide() before the first observe()")
        await self._prepare()
        result = await self._choose()
        if isinstance(result, PolicyError):
            self.policy_errors.append(result)
            self.consecutive_errors += 1
            self.last_error = result
            return result
        self.consecutive_errors = 0
        self.last_error = None
        self.pending = Decision(self.obs.task.actions_used + 1, result.call, result.thought, result.extras)
        self._on_decision(self.pending)
        return result.call

    # -- helpers for subclasses -------------------------------------------------------------------------
    def _require_context(self) -> AgentContext:
        if self.context is None:
            raise AgentError(f"agent {self.configuration!r}: call reset(context) before using it")
        return self.context

    @property
    def actions_used(self) -> int:
        """Actions used so far (the agent's clock), from the latest observation."""
        return self.obs.task.actions_used if self.obs else 0

    @property
    def actions_left(self) -> int:
        """Actions left in the budget, from the latest observation."""
        return (self.obs.task.budget - self.obs.task.actions_used) if self.obs else 0

    def messages(self) -> list[dict[str, str]]:
        """The action call's messages: shared system prompt + per-turn message with this agent's memory."""
        assert self.obs is not None and self.context is not None
        user = turn_prompt(
            self.obs,
            self.context.task,
            memory=self._memory_text(),
            feedback=self._feedback_text(),
            instruction=self.instruction,
        )
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    async def _ask(self, messages: list[dict[str, str]], purpose: Purpose) -> str:
        return (await self.llm.acomplete(messages, purpose)).text

    def _feedback_text(self) -> str:
        if self.last_error is None:
            return ""
        return (
            "\nYOUR PREVIOUS ANSWER WAS REJECTED (no action was taken, no budget used): "
            f"{self.last_error.message}\n"
        )

    # -- hooks ------------------------------------------------------------------------------------------
    def _system_extras(self) -> dict[str, Any]:
        return {}

    def _reset_memory(self) -> None:
        """Create the configuration's per-episode memory."""

    def _update(self, t: Transition, before: Observation | None, after: Observation) -> None:
        """Learn from one transition of our own call."""

    def _on_decision(self, decision: Decision) -> None:
        """Called when a valid action is about to be returned."""

    def _memory_text(self) -> str:
        return ""

    async def _prepare(self) -> None:
        """Auxiliary procedures before the action call (no budget)."""

    async def _choose(self) -> ParsedAction | PolicyError:
        text = await self._ask(self.messages(), "action")
        return parse_action(text, self.allowed)
