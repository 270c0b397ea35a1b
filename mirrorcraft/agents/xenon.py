"""XENON (paper appendix E): a dependency graph and an effect memory, revised from observed outcomes.

Our adaptation of Lee et al.'s XENON to semantic skills:

* **Dependency graph** (≤ ``graph_capacity`` = 32 edges). An edge says "item ← action σ, yielding n".
  Edges enter as *hypotheses* from the model: the action answer carries ``"expect": {item: count}``,
  the dependency it relies on. After the action, the edge is checked against the outcome report:
  confirmed edges become ``observed`` (with the observed count); an edge whose action succeeded but did
  not yield the expected item is marked ``contradicted`` and the items actually gained are added as
  ``observed`` edges of that σ (e.g. "craft gave crafting_table, not the expected furnace"). When full,
  the oldest hypothesis (then contradicted, then observed) edge is evicted.
* **Effect memory** (≤ ``memory_capacity`` = 32): every outcome of the agent's own actions (σ, status,
  inventory change), most recent kept.
* **Retrieval**: at most ``retrieve_k`` (3) entries of graph + memory are put into each action prompt,
  ranked by relevance to the current plan's frontier and the next milestone (contradicted edges of
  frontier items first). Retrieval is local, no model call.
* **Replanning**: a failed action or a contradicted expectation counts as a failure; after
  ``replan_after_failures`` (2) in a row an auxiliary ``analysis`` call replans from the updated graph
  and current inventory; the plan's items become the frontier shown in later prompts.

No evaluator label ever reaches it: contradictions are detected only from its own outcome reports.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Literal

from mirrorcraft.agents.base import Decision, LLMAgent, Transition, gains, render_outcome
from mirrorcraft.agents.llm import LLMClient
from mirrorcraft.agents.parsing import extract_json_object
from mirrorcraft.agents.prompting import render
from mirrorcraft.agents.settings import XenonSettings
from mirrorcraft.contracts import Observation, namespaced, signature
from mirrorcraft.errors import ContractError


@dataclass
class Edge:
    """item ← σ (yielding ``count``), with its evidence status."""

    item: str
    signature: tuple[str, ...]
    count: int
    status: Literal["hypothesis", "observed", "contradicted"]
    updated_at: int

    def render(self) -> str:
        """The edge as prompt text."""
        return f"{self.item} <- {list(self.signature)} yields {self.count} [{self.status}, action {self.updated_at}]"


@dataclass
class Effect:
    """One observed effect of an own action."""

    action_index: int
    signature: tuple[str, ...]
    status: str
    delta: dict[str, int]

    def render(self) -> str:
        """The effect as prompt text."""
        return (
            f"action {self.action_index} {list(self.signature)}: {self.status}, inventory change {self.delta}"
        )


def _expectation(extras: dict[str, Any]) -> dict[str, int]:
    raw = extras.get("expect")
    out: dict[str, int] = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            try:
                item = namespaced(str(k), field="expect")
            except ContractError:
                continue
            if isinstance(v, int | float) and v > 0:
                out[item] = int(v)
    return out


class XenonAgent(LLMAgent):
    """XENON: dependency graph + effect memory, edge correction and replanning (module docstring)."""

    configuration = "xenon"
    output_format = "output_xenon"
    instruction = "instruction_react"

    def __init__(self, llm: LLMClient, settings: XenonSettings | None = None, **kw: Any) -> None:
        super().__init__(llm, **kw)
        self.settings = settings or XenonSettings()

    def _reset_memory(self) -> None:
        self.edges: list[Edge] = []
        self.effects: deque[Effect] = deque(maxlen=self.settings.memory_capacity)
        self.failure_streak = 0
        self.failures: list[str] = []
        self.replan_due = False
        self.replans = 0
        self.frontier: list[dict[str, str]] = []
        self.corrections: list[dict[str, Any]] = []

    # -- graph ----------------------------------------------------------------------------------------
    def edge(self, item: str, sig: tuple[str, ...]) -> Edge | None:
        """The edge item ← σ, if known."""
        return next((e for e in self.edges if e.item == item and e.signature == sig), None)

    def _put(self, item: str, sig: tuple[str, ...], count: int, status: Any, at: int) -> None:
        e = self.edge(item, sig)
        if e is not None:
            e.count, e.status, e.updated_at = count, status, at
            return
        if len(self.edges) >= self.settings.graph_capacity:
            order = {"hypothesis": 0, "contradicted": 1, "observed": 2}
            victim = min(self.edges, key=lambda x: (order[x.status], x.updated_at))
            self.edges.remove(victim)
        self.edges.append(Edge(item, sig, count, status, at))

    def _on_decision(self, decision: Decision) -> None:
        sig = signature(decision.call)
        for item, n in _expectation(decision.extras).items():
            e = self.edge(item, sig)
            if e is None or e.status == "hypothesis":
                self._put(item, sig, n, "hypothesis", decision.action_index)

    def _update(self, t: Transition, before: Observation | None, after: Observation) -> None:
        sig, at = t.signature, t.action_index
        self.effects.append(Effect(at, sig, t.report.status, dict(t.report.inventory_delta)))
        got = gains(t.report)
        expected = _expectation(t.extras)
        failed = t.report.status == "failure"
        contradicted = []
        if not failed:
            for item, n in expected.items():
                if got.get(item, 0) > 0:
                    self._put(item, sig, got[item], "observed", at)
                else:
                    self._put(item, sig, n, "contradicted", at)
                    contradicted.append(item)
            for item, n in got.items():
                if item not in expected:
                    self._put(item, sig, n, "observed", at)
        if contradicted:
            self.corrections.append(
                {"at": at, "signature": list(sig), "expected": contradicted, "observed": got}
            )
        if failed or contradicted:
            self.failure_streak += 1
            why = render_outcome(t.report) if failed else f"expected {contradicted}, got {got or 'nothing'}"
            self.failures.append(f"action {at} {list(sig)}: {why}")
            self.failures = self.failures[-self.settings.replan_after_failures * 2 :]
            if self.failure_streak >= self.settings.replan_after_failures:
                self.replan_due = True
        else:
            self.failure_streak = 0

    # -- retrieval and replanning --------------------------------------------------------------------
    def retrieve(self) -> list[Edge | Effect]:
        """At most ``retrieve_k`` graph/memory entries relevant to the frontier (module docstring)."""
        assert self.obs is not None
        targets = {namespaced(f["item"], field="plan") for f in self.frontier if _is_id(f.get("item"))}
        nxt = (self.obs.task.next_milestone or "").rsplit("/", 1)[-1]

        def score(entry: Edge | Effect) -> tuple[int, int]:
            if isinstance(entry, Edge):
                s = 4 if entry.item in targets else 0
                s += 2 if entry.status == "contradicted" else 1 if entry.status == "observed" else 0
                s += 1 if nxt and nxt.split("_")[-1] in entry.item else 0
                return (s, entry.updated_at)
            s = 1 + (3 if set(entry.delta) & targets else 0) + (1 if entry.status == "failure" else 0)
            return (s, entry.action_index)

        pool: list[Edge | Effect] = [*self.edges, *self.effects]
        return sorted(pool, key=score, reverse=True)[: self.settings.retrieve_k]

    def _memory_text(self) -> str:
        entries = self.retrieve()
        text = "DEPENDENCY KNOWLEDGE (retrieved):\n"
        text += ("\n".join(f"- {e.render()}" for e in entries) if entries else "(none yet)") + "\n"
        if self.frontier:
            plan = "; ".join(f"{f.get('item')} via {f.get('via', '?')}" for f in self.frontier)
            text += f"CURRENT PLAN (frontier first): {plan}\n"
        return text

    async def _prepare(self) -> None:
        if not self.replan_due:
            return
        assert self.obs is not None and self.context is not None
        self.replan_due = False
        self.failure_streak = 0
        self.replans += 1
        prompt = render(
            "xenon_replan",
            task_title=self.context.task.title,
            task_objective=self.context.task.objective,
            next_milestone=self.obs.task.next_milestone or "(all done)",
            graph="\n".join(f"- {e.render()}" for e in self.edges) or "(empty)",
            failures="\n".join(f"- {f}" for f in self.failures) or "(none)",
            inventory=", ".join(f"{s.count} {s.item}" for s in self.obs.inventory) or "(empty)",
        )
        text = await self._ask([{"role": "user", "content": prompt}], "analysis")
        obj = extract_json_object(text) or {}
        plan = obj.get("plan")
        if isinstance(plan, list):
            self.frontier = [
                {"item": str(p.get("item", "")), "via": str(p.get("via", ""))}
                for p in plan
                if isinstance(p, dict) and _is_id(p.get("item"))
            ][: self.settings.graph_capacity]


def _is_id(value: Any) -> bool:
    try:
        namespaced(str(value), field="item")
    except ContractError:
        return False
    return isinstance(value, str) and bool(value)
