"""The seven LLM configurations, driven by scripted model answers at the litellm boundary.

Observations and outcome reports are real contract objects; each test shows a limit being enforced or a
configuration's own mechanism at work (so a renamed ReAct could not pass).
"""

from __future__ import annotations

import json

import pytest
import pytest_twisted
from support.agents_support import World, agent, context, observation, report, run, step, user_text

from mirrorcraft.agents import AgentError, ReplayMismatchError, make_agent, run_episode
from mirrorcraft.agents.prompting import PROMPT_TEMPLATE_VERSION
from mirrorcraft.contracts import (
    MIRRORCRAFT_SKILL_NAMES,
    TEAM_SKILL_NAMES,
    EndReason,
    PolicyError,
    SkillCall,
    find_leaks,
    load_all_suites,
)

LLM_CONFIGS = ["direct", "react", "reflexion", "voyager", "xenon", "adam"]
EXPLORE = '{"thought": "look around", "skill": "explore", "args": {"direction": "north", "distance": 16}}'
PROGRAM = json.dumps(
    {
        "thought": "explore in all directions",
        "procedure": "scout",
        "description": "look around",
        "steps": [{"skill": "explore", "args": {"direction": d}} for d in ("north", "east", "south", "west")],
    }
)


def _answer(name: str) -> str:
    return PROGRAM if name == "voyager" else EXPLORE


@pytest.mark.parametrize("name", [*LLM_CONFIGS, "react-rules"])
def test_prompt_shows_every_observation_field_and_the_skills(name):
    cards = [load_all_suites()["M03"].card_text()] if name == "react-rules" else None
    ag, fake = agent(name, [_answer(name)])
    ag.reset(context("diamond", rule_cards=cards))
    obs = observation(task="diamond", done=1, inventory={"oak_planks": 3, "wooden_pickaxe": 1},
                      entities={"cow": 9.0}, actions_used=4)  # fmt: skip
    ag.observe(obs)
    call = run(ag.decide())
    assert call == SkillCall.create(
        "explore", {"direction": "north", "distance": 16 if name != "voyager" else 32}
    )
    system, user = (m["content"] for m in fake.requests[0]["messages"])
    for skill in MIRRORCRAFT_SKILL_NAMES:
        assert f"- {skill}: " in system
    for skill in TEAM_SKILL_NAMES:  # team play only (docs/skills.md): a MirrorCraft agent is not offered them
        assert f"- {skill}: " not in system
    payload = json.loads(user.split("CURRENT OBSERVATION (canonical JSON):\n", 1)[1].split("\n", 1)[0])
    assert set(payload) == {
        "task", "position", "biome", "survival", "equipment", "inventory", "nearby_blocks", "nearby_entities",
        "dropped_items", "last_result", "effects", "skills", "failure_constraints",
    }  # fmt: skip
    assert payload["task"]["next_milestone"] == "minecraft:story/upgrade_tools"
    assert {"item": "minecraft:oak_planks", "count": 3} in payload["inventory"]
    assert payload["nearby_entities"][0]["entity"] == "minecraft:cow"
    assert "Next unfinished milestone: minecraft:story/upgrade_tools" in user
    assert "Actions used: 4 of 50" in user
    assert ag.prompt_template_version.startswith(f"{name}/v{PROMPT_TEMPLATE_VERSION}/")


def test_rule_cards_only_for_react_rules_and_no_rule_text_elsewhere():
    suites = load_all_suites()
    cards = [suites["M05"].card_text()]
    ag, fake = agent("react-rules", [EXPLORE, EXPLORE])
    ag.reset(context(rule_cards=cards))
    ag.observe(observation())
    run(ag.decide())
    ag.observe(
        observation(
            actions_used=1,
            last=(1, SkillCall.create("explore", {"direction": "north", "distance": 16}), report("explore")),
        )
    )
    run(ag.decide())
    for prompt in fake.prompts():  # the exact card text in every call
        assert cards[0].strip() in prompt and "ACTIVE RULE CHANGES" in prompt

    with pytest.raises(AgentError, match="needs the suite's rule cards"):
        make_agent("react-rules", llm=ag.llm).reset(context())
    every_card = [s.card_text().strip() for s in suites.values()]
    for name in LLM_CONFIGS:
        other, other_fake = agent(name, [_answer(name)])
        with pytest.raises(AgentError, match="must not receive rule cards"):
            other.reset(context(rule_cards=cards))
        other.reset(context())
        other.observe(observation())
        run(other.decide())
        text = other_fake.prompts()[0]
        assert "ACTIVE RULE CHANGES" not in text
        assert not any(card in text for card in every_card)
        assert not any(
            line in text for card in every_card for line in card.splitlines()[1:] if len(line) > 20
        )


def test_react_trace_keeps_the_16_most_recent_transitions():
    ag, fake = agent(
        "react",
        lambda kw: json.dumps(
            {"thought": "walk", "skill": "go_to", "args": {"x": 100 + len(fake.requests), "y": 64, "z": 0}}
        ),
    )
    world = World("iron_armor", {"go_to": lambda c: report("go_to")})
    ag.reset(context())
    ag.observe(world.observe())

    async def play():
        for _ in range(18):
            await step(ag, world)

    run(play())
    assert len(ag.trace) == 16 and ag.trace[0].action_index == 3  # 18 transitions: the first two dropped
    last_prompt = user_text(fake.requests[-1])  # the 18th call saw transitions 1..17 minus the oldest
    assert "[action 1]" not in last_prompt and "[action 2]" in last_prompt and "[action 17]" in last_prompt
    assert "last 16 of at most 16" in last_prompt
    assert '"x":101' not in last_prompt.split("CURRENT OBSERVATION")[0]
    assert '"x":102' in last_prompt


def test_direct_llm_keeps_no_trace():
    ag, fake = agent("direct", [EXPLORE, EXPLORE])
    world = World("iron_armor", {"explore": lambda c: report("explore", message="walked 16 blocks north")})
    ag.reset(context())
    ag.observe(world.observe())
    run(step(ag, world))
    run(step(ag, world))
    second = user_text(fake.requests[1])
    assert "TRACE" not in second and "[action 1]" not in second
    assert "walked 16 blocks north" in second  # the latest result comes only through the observation


def test_policy_errors_are_recorded_cost_no_budget_and_end_after_three():
    bad = [
        "I think I should mine some wood first.",
        '{"thought": "fly", "skill": "fly", "args": {}}',
        '{"thought": "craft", "skill": "craft_grid", "args": {"workstation": "inventory", "output": "table"}}',
    ]
    ag, fake = agent("react", bad)
    world = World("iron_armor", {})
    result = run(run_episode(ag, context(), world.observe, world.execute))
    assert result.end_reason == EndReason.NO_EXECUTABLE_ACTION and result.steps == [] and world.actions == 0
    kinds = [e.kind for e in result.trailing_policy_errors]
    assert kinds == ["unparseable", "unknown_skill", "invalid_arguments"]
    assert [e.raw_text for e in result.trailing_policy_errors] == bad
    assert "output: Extra inputs are not permitted" in result.trailing_policy_errors[2].message
    assert "grid: Field required" in result.trailing_policy_errors[2].message
    assert "YOUR PREVIOUS ANSWER WAS REJECTED" in user_text(fake.requests[1])
    assert "unknown skill 'fly'" in user_text(fake.requests[2])
    assert result.usage.model_calls == 3 and result.usage.cost_usd > 0


def test_policy_error_then_valid_call_attaches_the_error_to_the_step():
    ag, _ = agent("direct", ["no idea", EXPLORE, EXPLORE])
    world = World("iron_armor", {"explore": lambda c: report("explore")}, budget=2)
    ctx = context(budget=2)
    result = run(run_episode(ag, ctx, world.observe, world.execute))
    assert result.end_reason == EndReason.BUDGET_EXHAUSTED and len(result.steps) == 2
    assert [e.kind for e in result.steps[0].policy_errors] == ["unparseable"]
    assert result.steps[1].policy_errors == []
    assert result.usage.model_calls == 3


# -- Reflexion ---------------------------------------------------------------------------------------

MINE_IRON = '{"thought": "get iron", "skill": "mine", "args": {"block": "iron_ore", "count": 3}}'
LESSON = "Iron ore cannot be mined with a wooden pickaxe: craft a stone pickaxe first."


def test_reflexion_writes_a_lesson_after_repeated_failure_and_uses_it():
    responses = [MINE_IRON, MINE_IRON, json.dumps({"lessons": [{"text": LESSON, "replaces": None}]}), EXPLORE]
    ag, fake = agent("reflexion", responses)

    def weak(c):
        return report("mine", "failure", reason="tool_too_weak", message="iron_ore needs a better pickaxe")

    world = World(
        "iron_armor",
        {"mine": weak, "explore": lambda c: report("explore")},
        inventory={"minecraft:wooden_pickaxe": 1},
    )
    ag.reset(context())
    ag.observe(world.observe())

    async def play():
        for _ in range(3):
            await step(ag, world)

    run(play())
    purposes = [c.purpose for c in ag.llm.meter.calls]
    assert purposes == ["action", "action", "reflection", "action"]
    review = user_text(fake.requests[2])
    assert "repeated failure" in review and "tool_too_weak" in review  # the review saw the failing trace
    assert LESSON not in user_text(fake.requests[1])
    assert LESSON in user_text(fake.requests[3])  # the lesson is in the next action prompt
    assert world.actions == 3  # the review consumed no action
    assert ag.usage().model_calls == 4 and ag.review_log[0]["lessons"] == [LESSON]


def test_reflexion_lesson_limits_and_lifetime():
    ag, _ = agent("reflexion", [])
    ag.reset(context())
    ag.observe(observation(actions_used=0))
    for i in range(3):
        ag.add_lesson(f"lesson {i}")
    ag.observe(observation(actions_used=5))
    ag.add_lesson("lesson 3")  # a 4th lesson replaces the oldest
    assert [ls.text for ls in ag.lessons] == ["lesson 3", "lesson 1", "lesson 2"]
    ag.add_lesson("lesson 1 revised", replaces=1)
    assert [ls.text for ls in ag.lessons] == ["lesson 3", "lesson 1 revised", "lesson 2"]
    ag.observe(observation(actions_used=16))
    ag._expire()  # lessons written at action 0 are 16 actions old: gone
    assert [ls.text for ls in ag.lessons] == ["lesson 3", "lesson 1 revised"]
    ag.observe(observation(actions_used=21))
    ag._expire()
    assert ag.lessons == []


def test_reflexion_reviews_at_most_six_times():
    def responder(kw):
        if "reviewing your own recent play" in user_text(kw):
            return json.dumps({"lessons": [{"text": f"lesson at call {len(fake.requests)}"}]})
        return EXPLORE

    ag, fake = agent("reflexion", responder, settings={"review_every": 1})
    world = World("iron_armor", {"explore": lambda c: report("explore")})
    result = run(run_episode(ag, context(budget=12), world.observe, world.execute))
    assert len(result.steps) == 12
    assert ag.llm.meter.by_purpose() == {"action": 12, "reflection": 6}
    assert result.usage.model_calls == 18 and len(ag.lessons) <= 3


# -- Voyager -----------------------------------------------------------------------------------------

P = "minecraft:oak_planks"
TOOLS = {
    "procedure": "wooden_tools",
    "description": "make a crafting table, sticks and a wooden pickaxe from planks",
    "steps": [
        {"skill": "craft_grid", "args": {"workstation": "inventory", "grid": [[P, P], [P, P]]}},
        {"skill": "place", "args": {"item": "crafting_table", "use": "workstation"}},
        {"skill": "craft_grid", "args": {"workstation": "inventory", "grid": [[P, None], [P, None]]}},
        {"skill": "craft_grid", "args": {"workstation": "crafting_table",
                                         "grid": [[P, P, P], [None, "stick", None], [None, "stick", None]]}},
    ],
}  # fmt: skip


def test_voyager_stores_retrieves_and_repairs_a_program():
    repaired = dict(
        TOOLS,
        steps=[
            TOOLS["steps"][1],
            TOOLS["steps"][2],
            TOOLS["steps"][3],
            {"skill": "equip", "args": {"item": "wooden_pickaxe"}},
        ],
    )
    script = [
        json.dumps(dict(TOOLS, thought="tools first")),
        '{"success": true, "critique": "all four crafts worked"}',
        '{"thought": "same again", "use_procedure": "wooden_tools"}',
        json.dumps(dict(repaired, thought="table is missing: place it first")),
        '{"success": true, "critique": "repaired program worked"}',
    ]
    ag, fake = agent("voyager", script)
    place_results = iter(
        [
            report("place", "success"),
            report("place", "failure", reason="missing_items", message="no crafting_table"),
        ]
    )
    outcomes = {
        "craft_grid": lambda c: report("craft_grid", delta={"minecraft:stick": 4}),
        "place": lambda c: next(place_results, report("place")),
        "equip": lambda c: report("equip"),
    }
    world = World("iron_armor", outcomes)
    ag.reset(context())
    ag.observe(world.observe())

    async def play(n):
        for _ in range(n):
            await step(ag, world)

    run(play(4))  # program of 4 skills, one action each, one model call
    assert [c.purpose for c in ag.llm.meter.calls] == ["action"]
    assert [c.name for c in world.calls] == ["craft_grid", "place", "craft_grid", "craft_grid"]
    run(play(1))  # critique stores it, then the model reuses it from the retrieved library
    assert "wooden_tools" in ag.library and ag.library["wooden_tools"].successes == 1
    assert "- wooden_tools: make a crafting table" in user_text(fake.requests[2])  # retrieved into the prompt
    assert [c.purpose for c in ag.llm.meter.calls] == ["action", "critique", "action"]
    run(play(1))  # step 2 of the reused program (place) fails -> repair
    assert world.calls[-1].name == "place" and ag.repair_due is not None
    run(play(4))  # repair call, then the repaired program's 4 steps
    assert ag.repairs == 1
    assert [c.purpose for c in ag.llm.meter.calls] == ["action", "critique", "action", "repair"]
    repair_prompt = user_text(fake.requests[3])
    assert "Failure: step 2" in repair_prompt and "no crafting_table" in repair_prompt
    assert [c.name for c in world.calls[-4:]] == ["place", "craft_grid", "craft_grid", "equip"]
    run(ag._prepare())  # before the next decision: the critique of the repaired program updates the library
    assert [c.purpose for c in ag.llm.meter.calls][-1] == "critique"
    entry = ag.library["wooden_tools"]
    assert [s.name for s in entry.steps] == ["place", "craft_grid", "craft_grid", "equip"]
    assert entry.successes == 2
    assert world.actions == 10


def test_voyager_library_and_retrieval_limits():
    ag, _ = agent("voyager", [])
    ag.reset(context())
    ag.observe(observation(inventory={"minecraft:oak_log": 2}))
    from mirrorcraft.agents.voyager import Program

    call = SkillCall.create("explore", {})
    for i in range(20):
        ag.store(Program(f"proc_{i}", "log" if i == 19 else "walk", [call] * 4))
    assert len(ag.library) == 16 and "proc_19" in ag.library
    got = ag.retrieve()
    assert len(got) == 5 and got[0].name == "proc_19"  # 'log' matches the oak_log in the inventory


def test_voyager_rejects_a_program_of_the_wrong_length_as_a_policy_error():
    short = dict(TOOLS, steps=TOOLS["steps"][:3])
    ag, _ = agent("voyager", [json.dumps(short)])
    ag.reset(context())
    ag.observe(observation())
    err = run(ag.decide())
    assert isinstance(err, PolicyError) and "exactly 4 steps, got 3" in err.message


# -- XENON -------------------------------------------------------------------------------------------

C = "minecraft:cobblestone"
FURNACE_GRID = [[C, C, C], [C, None, C], [C, C, C]]


def test_xenon_corrects_a_contradicted_edge_and_replans_after_two_failures():
    craft = {"thought": "furnace", "skill": "craft_grid", "args": {"workstation": "crafting_table", "grid": FURNACE_GRID},
             "expect": {"furnace": 1}}  # fmt: skip
    smelt = {"thought": "smelt", "skill": "smelt", "args": {"input": "raw_iron", "fuel": "coal", "count": 3},
             "expect": {"iron_ingot": 3}}  # fmt: skip
    plan = {
        "plan": [
            {"item": "blast_furnace", "via": "place it"},
            {"item": "iron_ingot", "via": "smelt in blast_furnace"},
        ]
    }
    script = [json.dumps(craft), json.dumps(smelt), json.dumps(plan), EXPLORE]
    ag, fake = agent("xenon", script)
    outcomes = {
        "craft_grid": lambda c: report(
            "craft_grid", delta={C: -8, "minecraft:blast_furnace": 1}, produced={"minecraft:blast_furnace": 1}
        ),
        "smelt": lambda c: report("smelt", "failure", reason="no_workstation", message="no furnace nearby"),
        "explore": lambda c: report("explore"),
    }
    world = World("iron_armor", outcomes, inventory={C: 8, "minecraft:raw_iron": 3, "minecraft:coal": 1})
    ag.reset(context())
    ag.observe(world.observe())

    async def play(n):
        for _ in range(n):
            await step(ag, world)

    run(play(1))
    sig = ("craft_grid", "crafting_table", C, C, C, C, "", C, C, C, C)
    assert ag.edge("minecraft:furnace", sig).status == "contradicted"  # craft gave X, not the expected Y
    assert ag.edge("minecraft:blast_furnace", sig).status == "observed"
    assert ag.corrections[0]["expected"] == ["minecraft:furnace"] and not ag.replan_due
    run(play(1))  # the second failure in a row
    assert ag.replan_due and ag.failure_streak == 2
    run(play(1))  # replan (analysis, no budget), then the action
    assert [c.purpose for c in ag.llm.meter.calls] == ["action", "action", "analysis", "action"]
    replan = user_text(fake.requests[2])
    assert "minecraft:furnace <- " in replan and "[contradicted" in replan and "no furnace nearby" in replan
    after = user_text(fake.requests[3])
    assert (
        "CURRENT PLAN (frontier first): blast_furnace via place it; iron_ingot via smelt in blast_furnace"
        in after
    )
    retrieved = (
        after.split("DEPENDENCY KNOWLEDGE (retrieved):\n", 1)[1].split("CURRENT PLAN")[0].strip().splitlines()
    )
    assert len(retrieved) == 3 and any(
        "minecraft:blast_furnace <- " in r and "[observed" in r for r in retrieved
    )
    assert world.actions == 3 and ag.replans == 1


def test_xenon_capacities():
    ag, _ = agent("xenon", [])
    ag.reset(context())
    ag.observe(observation())
    for i in range(40):
        ag._put(
            f"minecraft:item_{i}",
            ("mine", f"minecraft:block_{i}"),
            1,
            "observed" if i < 5 else "hypothesis",
            i,
        )
    assert len(ag.edges) == 32
    # observed edges are kept, hypotheses evicted first
    assert all(ag.edge(f"minecraft:item_{i}", ("mine", f"minecraft:block_{i}")) for i in range(5))
    assert ag.effects.maxlen == 32


# -- ADAM --------------------------------------------------------------------------------------------

MINE_LOG = {
    "thought": "wood",
    "skill": "mine",
    "args": {"block": "oak_log", "count": 2},
    "expect": {"oak_log": 2},
}
TABLE = {"thought": "table from logs?", "skill": "craft_grid",
         "args": {"workstation": "inventory", "grid": [["oak_log", "oak_log"], ["oak_log", "oak_log"]]}}  # fmt: skip
PROBE = {
    "hypothesis": "mining oak_log yields planks",
    "skill": "mine",
    "args": {"block": "oak_log", "count": 1},
}


def _adam_world(budget=50):
    outcomes = {
        "mine": lambda c: report("mine", completed=c.args["count"], delta={P: 4 * c.args["count"]}),
        "craft_grid": lambda c: report(
            "craft_grid", "failure", reason="no_output", message="nothing in the result slot"
        ),
        "explore": lambda c: report("explore"),
    }
    return World("iron_armor", outcomes, budget=budget)


def test_adam_probes_an_uncertain_link_and_learns_from_two_comparable_samples():
    script = [json.dumps(MINE_LOG), json.dumps(TABLE), json.dumps(TABLE), json.dumps(PROBE), EXPLORE]
    ag, fake = agent("adam", script)
    world = _adam_world()
    ag.reset(context())
    ag.observe(world.observe())

    async def play(n):
        for _ in range(n):
            await step(ag, world)

    run(play(1))
    sig = ("mine", "minecraft:oak_log")
    assert ag.links[(sig, P)].status == "uncertain" and ag.links[(sig, P)].samples == 1
    assert ag.links[(sig, "minecraft:oak_log")].why == "expected but not observed"
    run(play(2))  # two failed crafts: blocked
    assert ag.blocked() and ag.probe_allowed()
    run(play(1))  # the probe: chosen by an analysis call, executed as an ordinary action
    assert [c.purpose for c in ag.llm.meter.calls] == ["action", "action", "action", "analysis"]
    assert (
        world.calls[-1] == SkillCall.create("mine", {"block": "oak_log", "count": 1}) and world.actions == 4
    )
    assert ag.probes == 1 and ag.probe_log[0]["event"] == "probe"
    assert "mine" in user_text(fake.requests[3]) and "uncertain" in user_text(fake.requests[3])
    # two comparable samples (2 blocks -> 8 planks, 1 block -> 4) agree: 4 per block
    link = ag.links[(sig, P)]
    assert link.status == "confirmed" and link.per_unit == 4 and link.samples == 2
    assert (sig, "minecraft:oak_log") not in ag.links
    run(play(1))
    assert "x4 per unit [confirmed: 2 comparable samples agree]" in user_text(fake.requests[4])


def test_adam_refuses_probes_in_the_final_12_actions_and_caps_them_at_two():
    script = [json.dumps(MINE_LOG), json.dumps(TABLE), json.dumps(TABLE), json.dumps(TABLE)]
    ag, _ = agent("adam", script)
    world = _adam_world(budget=15)
    ag.reset(context(budget=15))
    ag.observe(world.observe())

    async def play(n):
        for _ in range(n):
            await step(ag, world)

    run(play(4))  # blocked from action 3 on, but only 12 or fewer actions remain: no probe
    assert ag.blocked() and ag.uncertain() and ag.probes == 0 and ag.probe_refusals >= 1
    assert all(c.purpose == "action" for c in ag.llm.meter.calls)

    def responder(kw):
        if "intervention probe" in user_text(kw):
            return json.dumps(PROBE)
        return json.dumps(MINE_LOG if len(fake2.requests) == 1 else TABLE)

    ag2, fake2 = agent("adam", responder)
    world2 = _adam_world()
    mined = iter(range(100))  # the log yield alternates 4, 2, 4...: comparable samples keep disagreeing
    world2.outcomes["mine"] = lambda c: report(
        "mine", completed=c.args["count"], delta={P: (4 if next(mined) % 2 == 0 else 2) * c.args["count"]}
    )
    ag2.reset(context())
    ag2.observe(world2.observe())

    async def play2(n):
        for _ in range(n):
            await step(ag2, world2)

    run(play2(12))
    assert ag2.probes == 2 and ag2.llm.meter.by_purpose()["analysis"] == 2  # capped at two per episode
    assert ag2.uncertain()[0].why.startswith("samples disagree") and ag2.blocked()


def test_adam_graph_node_limit():
    ag, _ = agent("adam", [])
    ag.reset(context())
    ag.observe(observation())
    for i in range(40):
        ag._set_link(("mine", f"minecraft:b{i}"), f"minecraft:i{i}", 1.0, 1, "uncertain", "t", i)
    assert len(ag.nodes()) <= 48 and (("mine", "minecraft:b39"), "minecraft:i39") in ag.links
    assert ag.memory.maxlen == 32


# -- every configuration through the loop; replay of a recorded episode --------------------------------


def _responder(kw):
    text = user_text(kw)
    if "reviewing your own recent play" in text:
        return '{"lessons": [{"text": "Explore less, mine more."}]}'
    if "checking whether a procedure achieved" in text:
        return '{"success": true, "critique": "fine"}'
    if "Repair it." in text:
        return PROGRAM
    if "replan from the current state" in text:
        return '{"plan": [{"item": "oak_log", "via": "mine"}]}'
    if "intervention probe" in text:
        return '{"hypothesis": "logs", "skill": "mine", "args": {"block": "oak_log"}}'
    if "write a new program" in kw["messages"][0]["content"]:
        return PROGRAM
    return '{"thought": "wood", "skill": "mine", "args": {"block": "oak_log", "count": 1}, "expect": {"oak_log": 1}}'


AUX_OF = {"reflexion": "reflection", "voyager": "critique", "xenon": "analysis", "adam": "analysis"}


def _loop_world():
    """Mining alternates between 'not found' and an unexpected, varying yield (planks, not the expected log)."""
    tries = iter(range(1000))

    def mine(c):
        n = next(tries)
        if n % 2:
            return report("mine", "failure", reason="not_found", message="no oak_log in range")
        planks = 4 if n % 4 == 0 else 2  # and the yield varies between successes
        return report("mine", delta={"minecraft:oak_planks": planks}, message="broke 1 oak_log")

    return World(
        "iron_armor", {"mine": mine, "explore": lambda c: report("explore", message="walked 32 blocks")}
    )


@pytest.mark.parametrize("name", LLM_CONFIGS)
def test_every_configuration_runs_the_common_loop_and_accounts_for_every_call(name):
    ag, fake = agent(name, _responder)
    world = _loop_world()
    result = run(run_episode(ag, context(budget=20), world.observe, world.execute))
    assert result.end_reason == EndReason.BUDGET_EXHAUSTED and len(result.steps) == world.actions == 20
    calls = ag.llm.meter.calls
    assert result.usage.model_calls == len(calls) == len(fake.requests)
    assert (
        result.usage.cost_usd == pytest.approx(sum(c.cost_usd for c in calls)) and result.usage.cost_usd > 0
    )
    assert result.prompt_template_version == ag.prompt_template_version
    aux = [c.purpose for c in calls if c.auxiliary]
    if name in {"direct", "react"}:
        assert aux == []
    else:  # each memory configuration ran its own auxiliary procedure in this failing episode
        assert AUX_OF[name] in aux
    for prompt in fake.prompts():
        assert find_leaks(prompt) == []  # no rule, suite, world or datapack text in any prompt


def test_a_recorded_episode_replays_offline_and_a_changed_world_fails_loudly(tmp_path):
    rec = tmp_path / "episode.jsonl"
    ag, _ = agent("reflexion", _responder)
    ag.llm.record_path = rec
    world = _loop_world()
    first = run(run_episode(ag, context(budget=14), world.observe, world.execute))
    assert len(rec.read_text().splitlines()) == first.usage.model_calls

    def replaying():
        from mirrorcraft.agents import LLMClient, LLMSettings, ReplayBackend

        return make_agent(
            "reflexion", llm=LLMClient(LLMSettings(model="gpt-4o-mini"), backend=ReplayBackend(rec))
        )

    world = _loop_world()
    again = run(run_episode(replaying(), context(budget=14), world.observe, world.execute))
    assert [s.call for s in again.steps] == [s.call for s in first.steps]
    assert again.usage == first.usage

    changed = _loop_world()
    changed.outcomes["mine"] = lambda c: report("mine", delta={"minecraft:oak_log": 1})  # a different world
    with pytest.raises(ReplayMismatchError, match="call 2 differs: messages"):
        run(run_episode(replaying(), context(budget=14), changed.observe, changed.execute))


def test_state_is_per_episode():
    ag, fake = agent("reflexion", _responder, settings={"review_every": 2})
    world = _loop_world()
    run(run_episode(ag, context(budget=6), world.observe, world.execute))
    assert ag.lessons and ag.trace and ag.reviews
    first_calls = len(fake.requests)
    world2 = _loop_world()
    run(run_episode(ag, context(budget=1), world2.observe, world2.execute))
    prompt = user_text(fake.requests[first_calls])
    assert "LESSONS" not in prompt and "RECENT TRACE: (no actions yet)" in prompt
    assert ag.usage().model_calls == 1 and ag.reviews == 0 and len(ag.trace) == 1


@pytest_twisted.ensureDeferred
async def test_the_loop_runs_on_the_twisted_reactor_with_deferred_callables():
    from twisted.internet import defer, reactor

    assert reactor.running
    ag, _ = agent("react", [EXPLORE] * 3)
    world = World("iron_armor", {"explore": lambda c: report("explore")})
    result = await run_episode(
        ag,
        context(budget=3),
        lambda: defer.succeed(world.observe()),
        lambda call: defer.succeed(world.execute(call)),
    )
    assert result.end_reason == EndReason.BUDGET_EXHAUSTED and len(result.steps) == 3 and len(ag.trace) == 3


def test_an_episode_run_fills_a_contract_episode_record():
    from mirrorcraft.contracts import (
        TASKS,
        ActionStep,
        Controls,
        EpisodeIdentity,
        EpisodeRecord,
        ModelSettings,
    )

    ag, _ = agent("react", ["oops", EXPLORE, EXPLORE])
    world = World("iron_armor", {"explore": lambda c: report("explore")})
    run_ = run(run_episode(ag, context(budget=2), world.observe, world.execute))
    ident = EpisodeIdentity(world="plains-1", suite=None, task="iron_armor", budget=2, agent="react",
                            model=ModelSettings(name="gpt-4o-mini"), repetition=0, study_seed=0)  # fmt: skip
    record = EpisodeRecord(
        episode_id=ident.episode_id,
        seed=ident.seed,
        identity=ident,
        controls=Controls(),
        spawn={"position": {"x": 0, "y": 64, "z": 0}, "biome": "minecraft:plains"},
        milestone_values=TASKS["iron_armor"].values(),
        outcome={"score": 0, "success": False, "actions_used": 2, "end_reason": run_.end_reason},
        trajectory=[
            ActionStep(
                index=s.index,
                call=s.call,
                signature=s.signature,
                report=s.report,
                score_after=0,
                policy_errors=s.policy_errors,
            )  # fmt: skip
            for s in run_.steps
        ],
        trailing_policy_errors=run_.trailing_policy_errors,
        milestones=[],
        encounters=[],
        usage=run_.usage,
        prompt_template_version=run_.prompt_template_version,
        evaluator="embedded",
    )
    assert record.prompt_template_version.startswith("react/v2/")
    assert record.trajectory[0].policy_errors[0].raw_text == "oops" and record.usage.model_calls == 3
