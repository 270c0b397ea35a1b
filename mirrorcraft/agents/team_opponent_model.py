"""TactiCrafter's opponent model: what our players observe of the other team, as events, and the model's reading.

The original infers the other team's tactics from their chat (shared/spec/pillagerbench.md). Ours also uses
what a player can see, all of it in the :class:`~mirrorcraft.contracts.TeamObservation` (never the record or
the server): our code turns each observation into **events**, and after each episode the model is asked what
tactics they imply (:mod:`mirrorcraft.agents.team_tacticrafter`); its answer is kept across episodes.

Events (built here, deterministic given the observations):

* ``score`` — the other team's sidebar score changed (``their score +3 (now 7)``);
* ``chat`` — a line sent by one of the other team's players (public chat is all we can hear of them);
* ``near`` — a player who is not one of ours stands within ``area radius + 2`` of our area's centre (the
  observation names no entity, so "not ours" means: farther than 2 blocks from where our two players last
  were); consecutive sightings are counted on one event;
* ``sabotage`` — when one of our players stands within :data:`AREA_VIEW` blocks of our area's centre, the
  counts of the watched blocks (our team blocks, e.g. our mushroom caps, and :data:`WATCHED_BLOCKS` of the
  scenario, e.g. slime) are compared with the previous such count, **less what our own players broke and placed
  in between** (their outcome reports list it): our team blocks that fell, or slime that rose, beyond our own
  doing is an event, with "an opposing player was near" when one was seen since. Slime can also come back by
  the arena's own mechanism, and the count is of a player's whole view (the other area's edge can be in it):
  the event says so, and the model weighs it.

Partial: sabotage events need an area in the briefing's facts (Mushroom War); in Dash & Dine the opponent model
sees the other team's players near our area's players, their score and their chat, not farm damage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mirrorcraft.contracts import TeamObservation
from mirrorcraft.contracts.teams import TEAM_PLAYERS, other_side

#: Blocks whose count in our area is watched per scenario, besides our team blocks (shared/spec/pillagerbench.md:
#: sabotage in Mushroom War is slime placed in the other area and caps broken).
WATCHED_BLOCKS: dict[str, tuple[str, ...]] = {"mushroom_war": ("minecraft:slime_block",)}
#: A player this close (horizontally) to our area's centre sees the whole area in its nearby blocks.
AREA_VIEW = 3.0
#: Team areas' radius (spheres of radius 7 in Mushroom War); "near our area" adds 2 blocks.
AREA_RADIUS = 7.0
#: Events kept per episode (the oldest go first) and shown in a prompt.
MAX_EVENTS = 40


def _ns(block: str) -> str:
    return block if ":" in block else f"minecraft:{block}"


@dataclass
class Event:
    """One observed event (module docstring); ``count`` collapses repeats of the same text."""

    kind: str
    text: str
    player: str
    step: int
    count: int = 1

    def render(self) -> str:
        times = f" (x{self.count})" if self.count > 1 else ""
        return f"[{self.kind}] {self.text}{times} - seen by {self.player} at its step {self.step}"


class OpponentModel:
    """Events of the current episode, the model's inferences of past episodes (module docstring)."""

    def __init__(self) -> None:
        #: The model's reading of the other team's tactics after each episode: {"episode", "text"}.
        self.inferences: list[dict[str, Any]] = []
        #: Each past episode's events as text (kept for the record and the checkpoint).
        self.past: list[dict[str, Any]] = []
        self.events: list[Event] = []
        self._reset_trackers()

    def _reset_trackers(self) -> None:
        self.their_score: int | None = None
        self.area_counts: dict[str, int] | None = None
        self.ours_changed: dict[str, int] = {}
        self.opponent_seen = False
        self.positions: dict[str, tuple[float, float, float]] = {}
        self.heard: set[tuple[int, str, str]] = set()

    @property
    def inferred(self) -> str:
        """The latest reading of the other team's tactics, or an empty text."""
        return self.inferences[-1]["text"] if self.inferences else ""

    def start_episode(self, episode: int, side: str, facts: dict[str, Any], scenario: str) -> None:
        """A new episode: the trackers restart; the inferences and past events stay."""
        self.episode = episode
        self.side, self.them = side, other_side(side)
        centre = facts.get("areas", {}).get(side)
        self.centre = tuple(float(v) for v in centre) if centre is not None else None
        own = [_ns(by_side[side]) for by_side in facts.get("team_blocks", {}).values() if side in by_side]
        self.own_blocks = tuple(sorted(own))
        self.watched = tuple(sorted(set(own) | set(WATCHED_BLOCKS.get(scenario, ()))))
        self.events = []
        self._reset_trackers()

    def _event(self, kind: str, text: str, view: TeamObservation, step: int) -> None:
        last = self.events[-1] if self.events else None
        if last is not None and last.kind == kind and last.text == text:
            last.count += 1
            return
        self.events = [*self.events, Event(kind, text, view.player, step)][-MAX_EVENTS:]

    def our_outcome(self, broken: dict[str, int], placed: dict[str, int]) -> None:
        """What one of our players broke and placed (its outcome report), discounted from the area's changes."""
        for block, n in broken.items():
            self.ours_changed[block] = self.ours_changed.get(block, 0) - n
        for block, n in placed.items():
            self.ours_changed[block] = self.ours_changed.get(block, 0) + n

    def observe(self, view: TeamObservation, step: int) -> None:
        """Turn one of our players' observations into events (module docstring)."""
        p = view.position
        self.positions[view.player] = (p.x, p.y, p.z)
        their_players = set(TEAM_PLAYERS[self.them])
        for line in view.chat:
            key = (line.t, line.sender, line.text)
            if line.sender in their_players and key not in self.heard:
                self.heard.add(key)
                self._event("chat", f"{line.sender} said ({line.channel}): {line.text}", view, step)
        if view.sidebar is not None:
            theirs = next((s.score for s in view.sidebar.scores if s.holder.lower() == self.them), None)
            if theirs is not None:
                if self.their_score is not None and theirs != self.their_score:
                    self._event(
                        "score", f"their score {theirs - self.their_score:+d} (now {theirs})", view, step
                    )
                self.their_score = theirs
        if self.centre is None:
            return
        cx, _, cz = self.centre
        for ent in view.nearby_entities:
            if ent.entity != "minecraft:player":
                continue
            q = ent.position
            if math.hypot(q.x - cx, q.z - cz) > AREA_RADIUS + 2:
                continue
            if any(math.hypot(q.x - a[0], q.z - a[2]) <= 2.0 for a in self.positions.values()):
                continue  # one of ours (where our players last were)
            self.opponent_seen = True
            self._event("near", "a player of the other team near our area", view, step)
        if math.hypot(p.x - cx, p.z - cz) > AREA_VIEW:
            return
        counts = {b: 0 for b in self.watched}
        for nb in view.nearby_blocks:
            if nb.block in counts:
                counts[nb.block] = nb.count
        if self.area_counts is not None:
            near = " while a player of the other team was near" if self.opponent_seen else ""
            for block in self.watched:
                change = counts[block] - self.area_counts[block] - self.ours_changed.get(block, 0)
                if block in self.own_blocks and change < 0:
                    self._event("sabotage", f"our {block} blocks fell by {-change} that we did not break "
                                            f"(now {counts[block]}){near}", view, step)  # fmt: skip
                elif block not in self.own_blocks and change > 0:
                    self._event("sabotage", f"{block} near our area rose by {change} that we did not place "
                                            f"(now {counts[block]}){near}; it may also have come back by "
                                            f"itself", view, step)  # fmt: skip
            self.opponent_seen = False
        self.area_counts = counts
        self.ours_changed = {}

    def end_episode(self) -> None:
        """Keep this episode's events with the past ones."""
        self.past = [*self.past, {"episode": self.episode, "events": [e.render() for e in self.events]}][-10:]

    def render_events(self) -> str:
        """This episode's events as prompt lines."""
        if not self.events:
            return "(nothing observed of the other team)"
        return "\n".join(f"- {e.render()}" for e in self.events)

    def to_json(self) -> dict[str, Any]:
        return {
            "inferences": list(self.inferences),
            "past": list(self.past),
            "events": [vars(e).copy() for e in self.events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OpponentModel:
        model = cls()
        model.inferences = [dict(x) for x in data.get("inferences", [])]
        model.past = [dict(x) for x in data.get("past", [])]
        model.events = [Event(**e) for e in data.get("events", [])]
        return model


__all__ = ["AREA_VIEW", "WATCHED_BLOCKS", "Event", "OpponentModel"]
