"""ADAM (paper appendix E): a causal graph learned from comparable samples, and intervention probes.

Our adaptation of Yu and Lu's ADAM to semantic skills:

* **Transition memory** (≤ ``memory_capacity`` = 32): σ, status and inventory change of every own action.
* **Causal graph** (≤ ``max_nodes`` = 48 nodes): nodes are actions (σ) and items; a link σ → item says
  what the action yields per completed unit. A link is *uncertain* while it rests on fewer than
  ``comparable_samples`` (2) comparable samples — successful transitions with the same σ — or when the
  model's expectation (``"expect"`` in the answer) was contradicted by the outcome, or when two
  comparable samples disagree. With 2 comparable samples that agree, the link is *confirmed* with the
  observed per-unit yield (learning from two comparable samples). When the node limit is reached the
  least recently touched action node and its links are dropped.
* **Probes**: when progress is blocked (``blocked_failures`` failures in a row, or ``stall_actions``
  actions without a new milestone) and an uncertain link exists, an auxiliary ``analysis`` call picks
  one intervention probe: an ordinary skill call that tests an uncertain link. The probe is returned by
  ``decide`` and consumes one action like any other. At most ``max_probes`` (2) per episode, and none
  when ``no_probe_final_actions`` (12) or fewer actions remain; a probe that would have been run then
  is counted in :attr:`AdamAgent.probe_refusals` instead.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Literal

from mirrorcraft.agents.base import LLMAgent, Transition, gains, milestones_done
from mirrorcraft.agents.llm import LLMClient
from mirrorcraft.agents.parsing import ParsedAction, call_from_object, extract_json_object
from mirrorcraft.agents.prompting import render
from mirrorcraft.agents.settings import AdamSettings
from mirrorcraft.agents.xenon import _expectation
from mirrorcraft.contracts import Observation, PolicyError


@dataclass
class Sample:
    """One transition in memory."""

    action_index: int
    signature: tuple[str, ...]
    status: str
    completed: int
    delta: dict[str, int]

    def per_unit(self) -> dict[str, float]:
        """Items gained per completed unit (the comparable quantity; call counts differ)."""
        units = max(self.completed, 1)
        return {k: round(v / units, 3) for k, v in self.delta.items() if v > 0}


@dataclass
class Link:
    """σ → item with its per-unit yield, evidence count and status."""

    signature: tuple[str, ...]
    item: str
    per_unit: float
    samples: int
    status: Literal["uncertain", "confirmed"]
    why: str
    updated_at: int

    def render(self) -> str:
        """The link as prompt text."""
        return (
            f"{list(self.signature)} -> {self.item} x{self.per_unit:g} per unit [{self.status}: {self.why}]"
        )


class AdamAgent(LLMAgent):
    """ADAM: causal graph, transition memory and bounded intervention probes (module docstring)."""

    configuration = "adam"
    output_format = "output_adam"
    instruction = "instruction_react"

    def __init__(self, llm: LLMClient, settings: AdamSettings | None = None, **kw: Any) -> None:
        super().__init__(llm, **kw)
        self.settings = settings or AdamSettings()

    def _reset_memory(self) -> None:
        self.memory: deque[Sample] = deque(maxlen=self.settings.memory_capacity)
        self.links: dict[tuple[tuple[str, ...], str], Link] = {}
        self.node_touch: dict[str, int] = {}
        self.probes = 0
        self.probe_refusals = 0
        self.probe_log: list[dict[str, Any]] = []
        self.failure_streak = 0
        self.milestones = 0
        self.last_progress_at = 0
        self.next_probe: ParsedAction | None = None

    # -- graph ----------------------------------------------------------------------------------------
    @staticmethod
    def _node(sig: tuple[str, ...]) -> str:
        return "action:" + "|".join(sig)

    def nodes(self) -> set[str]:
        """Current graph nodes (action nodes and item nodes)."""
        out: set[str] = set()
        for sig, item in self.links:
            out.add(self._node(sig))
            out.add("item:" + item)
        return out

    def _touch(self, sig: tuple[str, ...], at: int) -> None:
        self.node_touch[self._node(sig)] = at

    def _set_link(
        self, sig: tuple[str, ...], item: str, per_unit: float, samples: int, status: Any, why: str, at: int
    ) -> None:
        self.links[(sig, item)] = Link(sig, item, per_unit, samples, status, why, at)
        self._touch(sig, at)
        while len(self.nodes()) > self.settings.max_nodes:
            actions = {self._node(s) for (s, _) in self.links} - {self._node(sig)}
            if not actions:
                break
            victim = min(actions, key=lambda n: self.node_touch.get(n, -1))
            self.links = {k: v for k, v in self.links.items() if self._node(k[0]) != victim}

    def uncertain(self) -> list[Link]:
        """Uncertain links, most recent first."""
        return sorted(
            (x for x in self.links.values() if x.status == "uncertain"), key=lambda x: -x.updated_at
        )

    def confirmed(self) -> list[Link]:
        """Confirmed links."""
        return [x for x in self.links.values() if x.status == "confirmed"]

    def _learn(self, t: Transition) -> None:
        sig, at = t.signature, t.action_index
        comparable = [s for s in self.memory if s.signature == sig and s.status == "success"]
        expected = _expectation(t.extras)
        if t.report.status == "success":
            got = gains(t.report)
            for item in expected:
                if item not in got:
                    self._set_link(
                        sig, item, 0.0, len(comparable), "uncertain", "expected but not observed", at
                    )
        need = self.settings.comparable_samples
        if not comparable:
            return
        if len(comparable) < need:
            for item, v in comparable[-1].per_unit().items():
                self._set_link(sig, item, v, len(comparable), "uncertain", f"{len(comparable)} sample(s)", at)
            return
        recent = comparable[-need:]
        yields = [s.per_unit() for s in recent]
        if all(y == yields[0] for y in yields[1:]):
            for s, item in [k for k in self.links if k[0] == sig]:
                if item not in yields[0]:
                    del self.links[(s, item)]
            for item, v in yields[0].items():
                self._set_link(
                    sig, item, v, len(comparable), "confirmed", f"{need} comparable samples agree", at
                )
        else:
            for item in set().union(*yields):
                vals = [y.get(item, 0.0) for y in yields]
                self._set_link(
                    sig, item, vals[-1], len(comparable), "uncertain", f"samples disagree {vals}", at
                )

    def _update(self, t: Transition, before: Observation | None, after: Observation) -> None:
        self.memory.append(
            Sample(
                t.action_index,
                t.signature,
                t.report.status,
                t.report.completed,
                dict(t.report.inventory_delta),
            )
        )
        self._learn(t)
        self.failure_streak = self.failure_streak + 1 if t.report.status == "failure" else 0
        done = milestones_done(after)
        if done > self.milestones:
            self.milestones, self.last_progress_at = done, after.task.actions_used

    # -- probes ---------------------------------------------------------------------------------------
    def blocked(self) -> bool:
        """Progress is blocked: repeated failures or a stall (module docstring)."""
        stalled = self.actions_used - self.last_progress_at >= self.settings.stall_actions
        return self.failure_streak >= self.settings.blocked_failures or stalled

    def probe_allowed(self) -> bool:
        """Probes left and more than ``no_probe_final_actions`` actions remaining."""
        return (
            self.probes < self.settings.max_probes
            and self.actions_left > self.settings.no_probe_final_actions
        )

    async def _prepare(self) -> None:
        self.next_probe = None
        if not (self.blocked() and self.uncertain()):
            return
        if self.probes >= self.settings.max_probes:
            return
        if not self.probe_allowed():
            self.probe_refusals += 1
            self.probe_log.append({"at": self.actions_used, "event": "refused_final_actions"})
            return
        inventory = ", ".join(f"{s.count} {s.item}" for s in self.obs.inventory) if self.obs else ""
        prompt = render(
            "adam_probe",
            samples=self.settings.comparable_samples,
            uncertain="\n".join(f"- {x.render()}" for x in self.uncertain()[:12]),
            confirmed="\n".join(f"- {x.render()}" for x in self.confirmed()[:12]) or "(none)",
            inventory=inventory or "(empty)",
        )
        text = await self._ask(
            [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}], "analysis"
        )
        obj = extract_json_object(text)
        call = call_from_object(obj, text, self.allowed) if obj else None
        if call is None or isinstance(call, PolicyError):
            self.probe_log.append({"at": self.actions_used, "event": "probe_unusable", "raw": text})
            return
        self.probes += 1
        hyp = str(obj.get("hypothesis", "")) if obj else ""
        self.probe_log.append(
            {"at": self.actions_used, "event": "probe", "call": call.model_dump(), "hypothesis": hyp}
        )
        self.next_probe = ParsedAction(call=call, thought=f"probe: {hyp}", extras={"probe": True})

    async def _choose(self) -> ParsedAction | PolicyError:
        if self.next_probe is not None:
            probe, self.next_probe = self.next_probe, None
            return probe
        return await super()._choose()

    def _memory_text(self) -> str:
        text = "CAUSAL GRAPH (action -> item per unit):\n"
        links = sorted(self.links.values(), key=lambda x: (x.status != "confirmed", -x.updated_at))
        text += ("\n".join(f"- {x.render()}" for x in links[:24]) if links else "(empty)") + "\n"
        recent = list(self.memory)[-6:]
        if recent:
            text += (
                "RECENT TRANSITIONS:\n"
                + "\n".join(
                    f"- action {s.action_index} {list(s.signature)}: {s.status}, change {s.delta}"
                    for s in recent
                )
                + "\n"
            )
        return text
