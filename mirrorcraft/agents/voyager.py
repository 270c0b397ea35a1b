"""Voyager (paper appendix E): a per-episode library of procedures, 4-skill programs, critique, repair.

Our adaptation of Wang et al.'s Voyager to semantic skills:

* **Programs.** When no program is running, the action call shows the model up to ``retrieve_k`` (5)
  library procedures and asks either to reuse one by name or to write a new program of exactly
  ``program_length`` (4) skill calls. Every step is validated against the skill schemas before anything
  runs; a malformed program is one policy error (no budget). Each step is then returned by ``decide``
  in turn, one action each, without further model calls.
* **Critique.** When a program has run all its steps, an auxiliary ``critique`` call judges it against
  the executed steps' outcome reports. A program whose steps all succeeded and that the critic accepts
  is stored (or updated) in the library, at most ``library_capacity`` (16) entries; when full, the entry
  with the worst success record (then the oldest) is evicted.
* **Repair.** When a step fails, an auxiliary ``repair`` call rewrites the program from the current
  state (a new 4-step program under the same name), at most ``max_repairs`` (4) per episode; after
  that a failing program is abandoned and the model is asked afresh.
* **Retrieval** is local and deterministic (no model call, so no cost): procedures are ranked by
  word overlap between their name, description and step arguments and the current state (next
  milestone, inventory, nearby blocks), ties by recency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.agents.base import LLMAgent, Transition, render_call, render_outcome
from mirrorcraft.agents.llm import LLMClient
from mirrorcraft.agents.parsing import ParsedAction, call_from_object, extract_json_object, policy_error
from mirrorcraft.agents.prompting import observation_text, render
from mirrorcraft.agents.settings import VoyagerSettings
from mirrorcraft.contracts import Observation, PolicyError, SkillCall


@dataclass
class Procedure:
    """A library entry: a named program that worked."""

    name: str
    description: str
    steps: list[SkillCall]
    successes: int = 0
    failures: int = 0
    stored_at: int = 0

    def render(self) -> str:
        """The procedure as prompt text."""
        steps = "; ".join(render_call(c) for c in self.steps)
        return f"- {self.name}: {self.description} (succeeded {self.successes}x, failed {self.failures}x)\n  steps: {steps}"


@dataclass
class Program:
    """A program being executed."""

    name: str
    description: str
    steps: list[SkillCall]
    position: int = 0
    executed: list[Transition] = field(default_factory=list)
    from_library: bool = False
    repaired: bool = False
    failed: bool = False


_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in {"minecraft", "story", "the", "a", "of"}}


class VoyagerAgent(LLMAgent):
    """Voyager: procedure library with programs, critique, retrieval and repair (module docstring)."""

    configuration = "voyager"
    output_format = "output_voyager"
    instruction = "instruction_voyager"

    def __init__(self, llm: LLMClient, settings: VoyagerSettings | None = None, **kw: Any) -> None:
        super().__init__(llm, **kw)
        self.settings = settings or VoyagerSettings()

    def _system_extras(self) -> dict[str, Any]:
        return {"program_length": self.settings.program_length}

    def _reset_memory(self) -> None:
        self.library: dict[str, Procedure] = {}
        self.program: Program | None = None
        self.repairs = 0
        self.critique_due = False
        self.repair_due: str | None = None
        self.last_critique = ""
        self.log: list[dict[str, Any]] = []

    # -- retrieval ----------------------------------------------------------------------------------
    def retrieve(self) -> list[Procedure]:
        """Up to ``retrieve_k`` procedures most relevant to the current state (module docstring)."""
        if not self.library or self.settings.retrieve_k == 0:
            return []
        obs = self.obs
        assert obs is not None
        state = _words(obs.task.next_milestone or "")
        state |= {w for s in obs.inventory for w in _words(s.item)}
        state |= {w for b in obs.nearby_blocks for w in _words(b.block)}

        def score(p: Procedure) -> tuple[int, int, int]:
            words = _words(p.name + " " + p.description + " " + " ".join(render_call(c) for c in p.steps))
            return (len(words & state), p.successes - p.failures, p.stored_at)

        ranked = sorted(self.library.values(), key=score, reverse=True)
        return ranked[: self.settings.retrieve_k]

    def _memory_text(self) -> str:
        procs = self.retrieve()
        text = "PROCEDURE LIBRARY (retrieved, most relevant first):\n"
        text += ("\n".join(p.render() for p in procs) if procs else "(empty)") + "\n"
        if self.last_critique:
            text += f"LAST CRITIQUE: {self.last_critique}\n"
        return text

    # -- programs -----------------------------------------------------------------------------------
    def _parse_program(self, obj: dict[str, Any], raw: str) -> Program | PolicyError:
        steps_raw = obj.get("steps")
        n = self.settings.program_length
        if not isinstance(steps_raw, list) or len(steps_raw) != n:
            got = len(steps_raw) if isinstance(steps_raw, list) else "no"
            return policy_error("unparseable", raw, f"a program needs exactly {n} steps, got {got}")
        steps = []
        for i, s in enumerate(steps_raw):
            if not isinstance(s, dict):
                return policy_error("unparseable", raw, f"steps[{i}] is not an object")
            call = call_from_object(s, raw, self.allowed)
            if isinstance(call, PolicyError):
                return call.model_copy(update={"message": f"steps[{i}]: {call.message}"})
            steps.append(call)
        name = (
            obj.get("procedure")
            if isinstance(obj.get("procedure"), str)
            else f"procedure_{self.actions_used}"
        )
        desc = obj.get("description") if isinstance(obj.get("description"), str) else ""
        return Program(name=name.strip() or f"procedure_{self.actions_used}", description=desc, steps=steps)

    def _step(self, thought: str) -> ParsedAction:
        prog = self.program
        assert prog is not None
        call = prog.steps[prog.position]
        prog.position += 1
        return ParsedAction(
            call=call,
            thought=thought or f"procedure {prog.name}, step {prog.position}/{len(prog.steps)}",
            extras={"procedure": prog.name, "step": prog.position},
        )

    async def _choose(self) -> ParsedAction | PolicyError:
        if (
            self.program is not None
            and not self.program.failed
            and self.program.position < len(self.program.steps)
        ):
            return self._step("")
        self.program = None
        text = await self._ask(self.messages(), "action")
        obj = extract_json_object(text)
        if obj is None:
            return policy_error("unparseable", text, "no JSON object found in the answer")
        thought = obj.get("thought", "") if isinstance(obj.get("thought"), str) else ""
        if "use_procedure" in obj:
            name = obj["use_procedure"]
            proc = self.library.get(name) if isinstance(name, str) else None
            if proc is None:
                known = ", ".join(self.library) or "none"
                return policy_error(
                    "unparseable", text, f"no procedure {name!r} in the library (known: {known})"
                )
            self.program = Program(proc.name, proc.description, list(proc.steps), from_library=True)
            self.log.append({"at": self.actions_used, "event": "reuse", "procedure": proc.name})
            return self._step(thought)
        parsed = self._parse_program(obj, text)
        if isinstance(parsed, PolicyError):
            return parsed
        self.program = parsed
        self.log.append({"at": self.actions_used, "event": "new_program", "procedure": parsed.name})
        return self._step(thought)

    def _update(self, t: Transition, before: Observation | None, after: Observation) -> None:
        prog = self.program
        if prog is None:
            return
        prog.executed.append(t)
        if t.report.status == "failure":
            prog.failed = True
            if self.repairs < self.settings.max_repairs:
                self.repair_due = (
                    f"step {len(prog.executed)} {render_call(t.call)} failed: {render_outcome(t.report)}"
                )
            else:
                self._record_failure(prog)
                self.log.append({"at": t.action_index, "event": "abandon", "procedure": prog.name})
                self.program = None
        elif prog.position >= len(prog.steps):
            self.critique_due = True

    def _record_failure(self, prog: Program) -> None:
        if prog.name in self.library:
            self.library[prog.name].failures += 1

    def _steps_text(self, prog: Program) -> str:
        return "\n".join(
            f"{i}. {render_call(t.call)} -> {render_outcome(t.report)}"
            for i, t in enumerate(prog.executed, 1)
        )

    async def _prepare(self) -> None:
        assert self.obs is not None
        prog = self.program
        if self.repair_due is not None and prog is not None:
            failure, self.repair_due = self.repair_due, None
            self.repairs += 1
            prompt = render(
                "voyager_repair",
                name=prog.name,
                description=prog.description,
                steps=self._steps_text(prog),
                failure=failure,
                observation=observation_text(self.obs),
                program_length=self.settings.program_length,
            )
            text = await self._ask(
                [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}], "repair"
            )
            obj = extract_json_object(text) or {}
            obj.setdefault("procedure", prog.name)
            repaired = self._parse_program(obj, text)
            if isinstance(repaired, PolicyError):
                self._record_failure(prog)
                self.log.append(
                    {
                        "at": self.actions_used,
                        "event": "repair_failed",
                        "procedure": prog.name,
                        "error": repaired.message,
                    }
                )
                self.program = None
            else:
                repaired.name, repaired.repaired = prog.name, True
                repaired.description = repaired.description or prog.description
                self.program = repaired
                self.log.append({"at": self.actions_used, "event": "repair", "procedure": prog.name})
            return
        if self.critique_due and prog is not None:
            self.critique_due = False
            inventory = ", ".join(f"{s.count} {s.item}" for s in self.obs.inventory) or "(empty)"
            prompt = render(
                "voyager_critique",
                name=prog.name,
                description=prog.description,
                steps=self._steps_text(prog),
                inventory=inventory,
            )
            text = await self._ask([{"role": "user", "content": prompt}], "critique")
            obj = extract_json_object(text) or {}
            ok = obj.get("success") is True and all(t.report.status == "success" for t in prog.executed)
            self.last_critique = str(obj.get("critique", ""))[:500]
            if ok:
                self.store(prog)
            else:
                self._record_failure(prog)
            self.log.append(
                {"at": self.actions_used, "event": "critique", "procedure": prog.name, "success": ok}
            )
            self.program = None

    def store(self, prog: Program) -> None:
        """Store a successful program in the library (evicting the worst entry when full)."""
        old = self.library.get(prog.name)
        if old is None and len(self.library) >= self.settings.library_capacity:
            worst = min(self.library.values(), key=lambda p: (p.successes - p.failures, p.stored_at))
            del self.library[worst.name]
        self.library[prog.name] = Procedure(
            name=prog.name,
            description=prog.description,
            steps=list(prog.steps),
            successes=(old.successes if old else 0) + 1,
            failures=old.failures if old else 0,
            stored_at=self.actions_used,
        )
