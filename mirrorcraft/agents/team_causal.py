"""TactiCrafter's causal model: an action → cause → effect graph built by our code from what the players observe.

The original's causal model is an LLM reading chat and inventories (shared/spec/pillagerbench.md). Ours is
built by code, so what it holds is evidence rather than a model's guess, and the model is only shown it:

* **action**: the σ of one of our players' skill calls (``give minecraft:bread``, ``mine
  minecraft:red_mushroom_block``), as the outcome report in its next observation returns it;
* **cause**: the inventory change the report measured (``minecraft:bread -3``), the channel through which an
  action can move a score in both scenarios (Mushroom War scores held mushrooms; Dash & Dine the food a judge
  player is given);
* **effect**: the change of our team's score on the sidebar that followed. The judges score once a second (or
  every 2 s), so a score change shows up one or more observations after the action that caused it. Attribution
  rule: a change of our score seen in an observation (of either player) goes to the **most recent transition
  of our team with an inventory change that no score change explained yet**, among the last
  :data:`ATTRIBUTION_WINDOW`; a transition that leaves the window unexplained gets the effect ``no score
  change``. Chat lines a player received between the action and the score change are kept as the edge's
  evidence (``heard``).

Edges are keyed by (action, the items of the cause with their sign, the effect's sign) and carry counts and
totals, so the graph's text states per-unit yields ("+11 per minecraft:bread given"). The graph is kept across
the episodes of a block and round-trips through :meth:`CausalGraph.to_json`.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.contracts import OutcomeReport, SkillCall, signature

#: Recent transitions a score change may be attributed to (the judges lag an action by 1-2 s).
ATTRIBUTION_WINDOW = 4
#: Edges shown in a prompt (the most often seen first).
MAX_EDGES_SHOWN = 12
#: Chat lines kept per edge as evidence.
MAX_HEARD = 3


def action_label(call: SkillCall) -> str:
    """The σ of a call as text (``give minecraft:bread``): quantities, coordinates and receivers left out."""
    return " ".join(str(p) for p in signature(call))


def cause_label(delta: dict[str, int]) -> str:
    """The signs of an inventory change, item by item (``minecraft:bread -``)."""
    return ", ".join(f"{item} {'+' if n > 0 else '-'}" for item, n in sorted(delta.items()))


def effect_label(score: float) -> str:
    """``own score +`` / ``own score -`` / ``no score change``."""
    if score > 0:
        return "own score +"
    if score < 0:
        return "own score -"
    return "no score change"


@dataclass
class Edge:
    """One action → cause → effect link with what supports it."""

    action: str
    cause: str
    effect: str
    count: int = 0
    #: Sum of the inventory changes over the supporting transitions, item → units.
    units: dict[str, int] = field(default_factory=dict)
    #: Sum of the score changes attributed to them.
    score: float = 0.0
    episodes: list[int] = field(default_factory=list)
    heard: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.action, self.cause, self.effect)

    def render(self) -> str:
        """One line: the link, how often, the total and per-unit score change."""
        moved = ", ".join(f"{item} {n:+d}" for item, n in sorted(self.units.items()))
        text = f"{self.action} -> inventory {moved} -> {self.effect}"
        if self.score:
            per = [f"{self.score / abs(n):+.2f} per {item}" for item, n in sorted(self.units.items()) if n]
            text += f" ({self.score:+g} in all; {'; '.join(per)})"
        text += f" [seen {self.count}x in games {', '.join(str(e + 1) for e in self.episodes)}]"
        if self.heard:
            text += f"; heard: {' | '.join(self.heard)}"
        return text


@dataclass
class _Open:
    """A transition of ours with an inventory change, waiting for a score change to explain."""

    action: str
    delta: dict[str, int]
    heard: list[str] = field(default_factory=list)


class CausalGraph:
    """The graph and the attribution state of the current episode (module docstring)."""

    def __init__(self) -> None:
        self.edges: dict[tuple[str, str, str], Edge] = {}
        self._open: deque[_Open] = deque()
        self.episode = 0

    # ---- building ------------------------------------------------------------------------------------

    def start_episode(self, episode: int) -> None:
        """Forget the previous episode's open transitions (their effects were closed in :meth:`end_episode`)."""
        self.episode = episode
        self._open.clear()

    def add(self, action: str, delta: dict[str, int], score: float, heard: list[str] | None = None) -> Edge:
        """Add one supporting transition of ``action`` with inventory change ``delta`` and score change ``score``."""
        key = (action, cause_label(delta), effect_label(score))
        edge = self.edges.get(key)
        if edge is None:
            edge = self.edges[key] = Edge(*key)
        edge.count += 1
        for item, n in delta.items():
            edge.units[item] = edge.units.get(item, 0) + n
        edge.score += score
        if self.episode not in edge.episodes:
            edge.episodes.append(self.episode)
        for line in heard or []:
            if line not in edge.heard:
                edge.heard = [*edge.heard, line][-MAX_HEARD:]
        return edge

    def transition(self, call: SkillCall, report: OutcomeReport) -> None:
        """An outcome of one of our players: it waits for a score change when it moved the inventory."""
        if not report.inventory_delta:
            return
        self._open.append(_Open(action_label(call), dict(report.inventory_delta)))
        while len(self._open) > ATTRIBUTION_WINDOW:
            gone = self._open.popleft()
            self.add(gone.action, gone.delta, 0.0, gone.heard)

    def heard(self, line: str) -> None:
        """A chat line one of our players received: evidence for the transitions still open."""
        for op in self._open:
            if line not in op.heard:
                op.heard = [*op.heard, line][-MAX_HEARD:]

    def score_change(self, delta: float) -> Edge | None:
        """Our score moved by ``delta``: attributed to the most recent open transition (module docstring)."""
        if delta == 0 or not self._open:
            return None
        op = self._open.pop()
        return self.add(op.action, op.delta, delta, op.heard)

    def end_episode(self) -> None:
        """The episode ended: what is still open had no score change."""
        while self._open:
            op = self._open.popleft()
            self.add(op.action, op.delta, 0.0, op.heard)

    # ---- reading -------------------------------------------------------------------------------------

    def render(self) -> str:
        """The edges as prompt lines, the most often seen first (at most :data:`MAX_EDGES_SHOWN`)."""
        if not self.edges:
            return "(no evidence yet)"
        ranked = sorted(self.edges.values(), key=lambda e: (-e.count, -abs(e.score), e.key))
        return "\n".join(f"- {e.render()}" for e in ranked[:MAX_EDGES_SHOWN])

    def to_json(self) -> dict[str, Any]:
        """JSON state (edges in key order; the open transitions of a running episode are not kept)."""
        return {
            "episode": self.episode,
            "edges": [
                {
                    "action": e.action,
                    "cause": e.cause,
                    "effect": e.effect,
                    "count": e.count,
                    "units": dict(sorted(e.units.items())),
                    "score": e.score,
                    "episodes": list(e.episodes),
                    "heard": list(e.heard),
                }  # fmt: skip
                for e in sorted(self.edges.values(), key=lambda e: e.key)
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CausalGraph:
        """The graph :meth:`to_json` wrote."""
        graph = cls()
        graph.episode = int(data.get("episode", 0))
        for d in data.get("edges", []):
            e = Edge(
                action=d["action"], cause=d["cause"], effect=d["effect"], count=int(d["count"]),
                units={k: int(v) for k, v in d["units"].items()}, score=float(d["score"]),
                episodes=[int(x) for x in d["episodes"]], heard=[str(x) for x in d.get("heard", [])],
            )  # fmt: skip
            graph.edges[e.key] = e
        return graph


__all__ = ["ATTRIBUTION_WINDOW", "CausalGraph", "Edge", "action_label", "cause_label", "effect_label"]
