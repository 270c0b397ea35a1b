"""The abstract interfaces: what an implementation must provide, and what an agent is (not) told."""

from __future__ import annotations

import asyncio

import pytest

from mirrorcraft.contracts import (
    SKILL_SPECS,
    TASKS,
    Agent,
    AgentContext,
    Evaluator,
    OutcomeReport,
    ServerControl,
    Skill,
    SkillCall,
    load_suite,
)


@pytest.mark.parametrize("abc", [Agent, Skill, Evaluator, ServerControl])
def test_interfaces_are_abstract(abc):
    with pytest.raises(TypeError, match="abstract"):
        abc()


def test_agent_context_carries_no_world_identity():
    fields = set(AgentContext.model_fields)
    assert fields == {"task", "skills", "rule_cards", "max_consecutive_policy_errors", "rng_seed"}
    ctx = AgentContext(
        task=TASKS["diamond"],
        skills=list(SKILL_SPECS.values()),
        rule_cards=[load_suite("M05").card_text()],
        rng_seed=1,
    )
    assert ctx.rule_cards[0].startswith(
        "M05: Route substitution\nRules. The furnace recipe yields a blast furnace"
    )
    assert AgentContext.model_validate_json(ctx.model_dump_json()) == ctx


def test_a_minimal_skill_implementation_fits_the_interface():
    class Equip(Skill):
        @property
        def spec(self):
            return SKILL_SPECS["equip"]

        async def execute(self, call: SkillCall) -> OutcomeReport:
            return OutcomeReport(
                skill=call.name, status="failure", reason="missing_items", message="not carried"
            )

    report = asyncio.run(Equip().execute(SkillCall.create("equip", {"item": "iron_helmet"})))
    assert report.reason == "missing_items" and Equip().spec.name == "equip"
