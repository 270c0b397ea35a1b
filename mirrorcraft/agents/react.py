"""Direct LLM, ReAct, ReAct w/rules and Reflexion (paper appendix E).

* **Direct LLM** — the current observation (which already holds the latest result and the bounded record
  of verified effects) → one skill call. No memory.
* **ReAct** — plus a trace of the most recent ``trace_length`` (16) transitions, each thought, action and
  observed outcome; the 17th transition drops the oldest.
* **ReAct w/rules** — ReAct plus the exact rule cards in every call (the system prompt). The runner hands
  the cards as plain text in ``AgentContext.rule_cards``; this is the only configuration that accepts
  them, and it refuses to start without them (disclosure is a Mirror-only condition).
* **Reflexion** — ReAct plus at most 3 temporary lessons. A *review* (an auxiliary ``reflection`` call,
  no budget) writes or revises lessons when a trigger fires: the same σ failed ``repeated_failure``
  times in a row, conflicting evidence (the same σ succeeded with a different inventory change than
  before), a stall (``stall_actions`` without a new milestone), or the schedule (``review_every``
  actions since the last review). At most ``max_reviews`` (6) reviews per episode; a lesson expires
  ``lesson_life`` (16) actions after it was written; a new lesson beyond the limit replaces the one it
  names, else the oldest.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from mirrorcraft.agents.base import LLMAgent, Transition, gains, milestones_done
from mirrorcraft.agents.llm import LLMClient
from mirrorcraft.agents.parsing import extract_json_object
from mirrorcraft.agents.prompting import render
from mirrorcraft.agents.settings import DirectSettings, ReactSettings, ReflexionSettings
from mirrorcraft.contracts import Observation


class DirectAgent(LLMAgent):
    """Direct LLM: observation in, one skill call out."""

    configuration = "direct"
    instruction = "instruction_direct"

    def __init__(self, llm: LLMClient, settings: DirectSettings | None = None, **kw: Any) -> None:
        super().__init__(llm, **kw)
        self.settings = settings or DirectSettings()


class ReactAgent(LLMAgent):
    """ReAct: the trace of the ``trace_length`` most recent transitions."""

    configuration = "react"
    instruction = "instruction_react"

    def __init__(self, llm: LLMClient, settings: ReactSettings | None = None, **kw: Any) -> None:
        super().__init__(llm, **kw)
        self.settings = settings or ReactSettings()
        self.trace: deque[Transition] = deque(maxlen=self.settings.trace_length)

    def _reset_memory(self) -> None:
        self.trace = deque(maxlen=self.settings.trace_length)

    def _update(self, t: Transition, before: Observation | None, after: Observation) -> None:
        self.trace.append(t)

    def _trace_text(self) -> str:
        if not self.trace:
            return "RECENT TRACE: (no actions yet)\n"
        body = "\n".join(t.render() for t in self.trace)
        return f"RECENT TRACE (last {len(self.trace)} of at most {self.settings.trace_length}, oldest first):\n{body}\n"

    def _memory_text(self) -> str:
        return self._trace_text()


class ReactRulesAgent(ReactAgent):
    """ReAct w/rules: ReAct plus the exact rule cards in every model call."""

    configuration = "react-rules"
    accepts_rule_cards = True
    requires_rule_cards = True


@dataclass
class Lesson:
    """A temporary lesson: its text and the action count when it was written."""

    text: str
    written_at: int


class ReflexionAgent(ReactAgent):
    """Reflexion: ReAct + lessons from triggered reviews (module docstring)."""

    configuration = "reflexion"

    def __init__(self, llm: LLMClient, settings: ReflexionSettings | None = None, **kw: Any) -> None:
        super().__init__(llm, settings or ReflexionSettings(), **kw)
        self.settings: ReflexionSettings

    def _reset_memory(self) -> None:
        super()._reset_memory()
        self.lessons: list[Lesson] = []
        self.reviews = 0
        self.review_log: list[dict[str, Any]] = []
        self.pending_trigger: str | None = None
        self.fail_streak: dict[tuple[str, ...], int] = {}
        self.effects_seen: dict[tuple[str, ...], dict[str, int]] = {}
        self.last_progress_at = 0
        self.last_review_at = 0
        self.milestones = 0

    def _update(self, t: Transition, before: Observation | None, after: Observation) -> None:
        super()._update(t, before, after)
        sig, now = t.signature, after.task.actions_used
        done = milestones_done(after)
        if done > self.milestones:
            self.milestones, self.last_progress_at = done, now
        trigger = None
        if t.report.status == "failure":
            self.fail_streak[sig] = self.fail_streak.get(sig, 0) + 1
            if self.fail_streak[sig] >= self.settings.repeated_failure:
                trigger = (
                    f"repeated failure: {sig[0]} with σ {list(sig)} failed {self.fail_streak[sig]} times"
                )
        else:
            self.fail_streak[sig] = 0
            seen, got = self.effects_seen.get(sig), gains(t.report)
            if seen is not None and set(seen) != set(got):
                trigger = f"conflicting evidence: σ {list(sig)} gave {got} now but {seen} before"
            self.effects_seen[sig] = got
        if trigger is None and now - self.last_progress_at >= self.settings.stall_actions:
            if now - max(self.last_progress_at, self.last_review_at) >= self.settings.stall_actions:
                trigger = f"stalled: no new milestone for {now - self.last_progress_at} actions"
        if trigger is None and now - self.last_review_at >= self.settings.review_every:
            trigger = f"scheduled review after {now - self.last_review_at} actions"
        if trigger is not None:
            self.pending_trigger = trigger

    def _expire(self) -> None:
        life = self.settings.lesson_life
        self.lessons = [ls for ls in self.lessons if self.actions_used - ls.written_at < life]

    def add_lesson(self, text: str, replaces: int | None = None) -> None:
        """Add a lesson; beyond ``max_lessons`` it replaces lesson ``replaces`` or else the oldest."""
        lesson = Lesson(text=text.strip(), written_at=self.actions_used)
        if replaces is not None and 0 <= replaces < len(self.lessons):
            self.lessons[replaces] = lesson
        elif len(self.lessons) < self.settings.max_lessons:
            self.lessons.append(lesson)
        else:
            oldest = min(range(len(self.lessons)), key=lambda i: self.lessons[i].written_at)
            self.lessons[oldest] = lesson

    async def _prepare(self) -> None:
        self._expire()
        trigger, self.pending_trigger = self.pending_trigger, None
        if trigger is None or self.reviews >= self.settings.max_reviews:
            return
        assert self.obs is not None and self.context is not None
        self.reviews += 1
        self.last_review_at = self.actions_used
        prompt = render(
            "reflexion_review",
            trigger=trigger,
            task_title=self.context.task.title,
            task_objective=self.context.task.objective,
            next_milestone=self.obs.task.next_milestone or "(all done)",
            trace="\n".join(t.render() for t in self.trace) or "(none)",
            lessons=self._lessons_list() or "(none)",
            max_lessons=self.settings.max_lessons,
        )
        text = await self._ask([{"role": "user", "content": prompt}], "reflection")
        obj = extract_json_object(text) or {}
        written = []
        for item in obj.get("lessons", []) if isinstance(obj.get("lessons"), list) else []:
            if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
                rep = item.get("replaces")
                self.add_lesson(item["text"], rep if isinstance(rep, int) else None)
                written.append(item["text"])
            elif isinstance(item, str) and item.strip():
                self.add_lesson(item)
                written.append(item)
        self.review_log.append({"at": self.actions_used, "trigger": trigger, "lessons": written, "raw": text})

    def _lessons_list(self) -> str:
        return "\n".join(
            f"{i}. {ls.text} (written at action {ls.written_at})" for i, ls in enumerate(self.lessons)
        )

    def _memory_text(self) -> str:
        text = self._trace_text()
        if self.lessons:
            text += f"LESSONS (your own, each kept {self.settings.lesson_life} actions):\n{self._lessons_list()}\n"
        return text
