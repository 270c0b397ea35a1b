"""Builders shared by the agents tests: real contract observations/outcomes, and the fake LLM boundary.

The only fake is at the litellm boundary: :class:`ScriptedCompletion` replaces ``litellm.completion`` in
the client's :class:`~mirrorcraft.agents.llm.LiteLLMBackend` and answers each call by calling the *real*
``litellm.completion`` with ``mock_response`` set to the next scripted text, so responses, token usage and
cost come out of litellm itself. Observations and outcome reports are real contract objects.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from mirrorcraft.agents import LLMClient, LLMSettings, make_agent
from mirrorcraft.agents.llm import LiteLLMBackend, import_litellm
from mirrorcraft.contracts import (
    MIRRORCRAFT_SKILL_NAMES,
    SKILL_SPECS,
    TASKS,
    AgentContext,
    Observation,
    OutcomeReport,
    SkillCall,
)

MODEL = "gpt-4o-mini"  # a model litellm has a price for, so cost accounting is exercised


class ScriptedCompletion:
    """A ``litellm.completion`` stand-in: returns the scripted texts in order via litellm's mock_response.

    Each script entry is a string or a function of the request kwargs returning a string.
    """

    def __init__(
        self, script: list[str | Callable[[dict[str, Any]], str]] | Callable[[dict[str, Any]], str]
    ) -> None:
        self.responder = script if callable(script) else None
        self.script = [] if callable(script) else list(script)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.requests.append(kwargs)
        if self.responder is not None:
            entry: Any = self.responder
        elif not self.script:
            raise AssertionError(f"unscripted model call #{len(self.requests)}")
        else:
            entry = self.script.pop(0)
        text = entry(kwargs) if callable(entry) else entry
        litellm = import_litellm()
        return litellm.completion(
            model=kwargs["model"],
            messages=kwargs["messages"],
            temperature=kwargs["temperature"],
            max_tokens=kwargs["max_tokens"],
            mock_response=text,
        )

    def prompts(self) -> list[str]:
        """Every request's messages joined into one text (system + user)."""
        return ["\n".join(m["content"] for m in r["messages"]) for r in self.requests]


def client(script: Any, **settings: Any) -> tuple[LLMClient, ScriptedCompletion]:
    fake = ScriptedCompletion(script)
    s = LLMSettings(model=MODEL, **settings)
    return LLMClient(s, backend=LiteLLMBackend(s, completion_fn=fake), sleep=lambda _s: None), fake


def context(
    task: str = "iron_armor", rule_cards: list[str] | None = None, budget: int | None = None
) -> AgentContext:
    spec = TASKS[task] if budget is None else TASKS[task].model_copy(update={"budget": budget})
    return AgentContext(
        task=spec, skills=[SKILL_SPECS[n] for n in MIRRORCRAFT_SKILL_NAMES], rule_cards=rule_cards, rng_seed=3
    )


def report(
    skill: str, status: str = "success", delta: dict[str, int] | None = None, **kw: Any
) -> OutcomeReport:
    """A real outcome report; ``completed`` defaults to 1 for a success."""
    produced = kw.pop("produced", None)
    if status == "success":
        kw.setdefault("completed", 1)
    else:
        kw.setdefault("reason", "not_found")
    if produced:
        kw["produced"] = [{"item": k, "count": v} for k, v in produced.items()]
    return OutcomeReport(skill=skill, status=status, inventory_delta=delta or {}, **kw)


def observation(
    *,
    task: str = "iron_armor",
    actions_used: int = 0,
    done: int = 0,
    inventory: dict[str, int] | None = None,
    blocks: dict[str, float] | None = None,
    entities: dict[str, float] | None = None,
    last: tuple[int, SkillCall, OutcomeReport] | None = None,
    y: float = 64.0,
    budget: int | None = None,
) -> Observation:
    """A real observation: ``done`` first milestones completed, ``blocks`` = {block: distance}."""
    spec = TASKS[task]
    budget = budget or spec.budget
    ms = [
        {
            "advancement": m.advancement,
            "title": m.title,
            "description": m.description,
            "value": m.value,
            "done": i < done,
        }
        for i, m in enumerate(spec.milestones)
    ]
    nxt = next((m["advancement"] for m in ms if not m["done"]), None)
    blocks = {"grass_block": 1.0, "stone": 2.0, "oak_log": 5.0} if blocks is None else blocks
    data = {
        "task": {"task": spec.id, "title": spec.title, "objective": spec.objective, "milestones": ms,
                 "next_milestone": nxt, "actions_used": actions_used, "budget": budget},
        "position": {"x": 0.5, "y": y, "z": 0.5},
        "biome": "minecraft:plains",
        "survival": {"health": 20.0, "food": 20, "xp_level": 100},
        "equipment": {},
        "inventory": [{"item": k, "count": v} for k, v in (inventory or {}).items() if v > 0],
        "nearby_blocks": [
            {"block": b, "count": 5, "nearest": {"x": int(d), "y": int(y), "z": 0}, "distance": d}
            for b, d in blocks.items()
        ],
        "nearby_entities": [
            {"entity": e, "position": {"x": d, "y": y, "z": 0.0}, "distance": d} for e, d in (entities or {}).items()
        ],
        "dropped_items": [],
        "last_result": None if last is None else {"action_index": last[0], "call": last[1], "report": last[2]},
        "effects": [],
        "skills": list(MIRRORCRAFT_SKILL_NAMES),
        "failure_constraints": [],
    }  # fmt: skip
    return Observation.model_validate(data)


class World:
    """A tiny scripted environment for loop tests: inventory bookkeeping and scripted reports.

    ``outcomes`` maps a skill name to a function ``call -> OutcomeReport``; the inventory changes by each
    report's delta and ``actions_used`` counts executed calls. Not a Minecraft simulation: it only
    replays outcomes a test chose, so agents see realistic observation sequences.
    """

    def __init__(
        self, task: str, outcomes: dict[str, Callable[[SkillCall], OutcomeReport]], **obs_kw: Any
    ) -> None:
        self.task = task
        self.outcomes = outcomes
        self.inventory: dict[str, int] = dict(obs_kw.pop("inventory", {}))
        self.obs_kw = obs_kw
        self.actions = 0
        self.done = 0
        self.last: tuple[int, SkillCall, OutcomeReport] | None = None
        self.calls: list[SkillCall] = []

    def observe(self) -> Observation:
        return observation(task=self.task, actions_used=self.actions, done=self.done, inventory=self.inventory,
                           last=self.last, **self.obs_kw)  # fmt: skip

    def execute(self, call: SkillCall) -> OutcomeReport:
        self.calls.append(call)
        self.actions += 1
        rep = self.outcomes.get(
            call.name, lambda c: report(c.name, "failure", reason="other", message="unscripted")
        )(call)
        for k, v in rep.inventory_delta.items():
            self.inventory[k] = self.inventory.get(k, 0) + v
        self.last = (self.actions, call, rep)
        return rep


def agent(name: str, script: Any, **kw: Any):
    llm, fake = client(script)
    return make_agent(name, llm=llm, **kw), fake


def run(coro):
    return asyncio.run(coro)


async def step(ag: Any, world: World) -> Any:
    """One loop turn by hand: decide, execute (if a call), observe. Returns the decision."""
    decision = await ag.decide()
    if isinstance(decision, SkillCall):
        world.execute(decision)
        ag.observe(world.observe())
    return decision


def user_text(request: dict[str, Any]) -> str:
    return request["messages"][-1]["content"]
