"""The optional Designer/Judge loop, driven by scripted (offline) LLM callables.

The scripted replies stand in for a model; what is tested is the loop: static checks are authoritative,
feedback reaches the next round, and rounds are bounded.
"""

from __future__ import annotations

import json

from mirrorcraft.contracts.rules import load_suite
from mirrorcraft.datapacks.designer import design_suite, static_review


def scripted(*replies: str):
    calls: list[tuple[str, str]] = []

    def llm(system: str, user: str) -> str:
        calls.append((system, user))
        return replies[min(len(calls) - 1, len(replies) - 1)]

    llm.calls = calls  # type: ignore[attr-defined]
    return llm


def _broken_proposal() -> dict:
    m = load_suite("M03").model_dump(mode="json")
    m["rules"] = [
        {
            "id": "M03.iron_ore_drops_dirt",
            "operator": "block_drop_replace",
            "text": "iron ore drops dirt",
            "changes": [
                {"block": b, "drops": [{"item": "minecraft:dirt", "min": 1, "max": 1}]}
                for b in ("minecraft:iron_ore", "minecraft:deepslate_iron_ore")
            ],
        },
        {
            "id": "M03.raw_iron_to_dirt",
            "operator": "cooking_output",
            "text": "raw iron smelts to dirt",
            "changes": [
                {"device": d, "input": "minecraft:raw_iron", "result": {"item": "minecraft:dirt", "count": 1}}
                for d in ("furnace", "blast_furnace")
            ],
        },
    ]
    return m


ACCEPT = json.dumps({"verdict": "accept", "hard_failures": [], "warnings": [], "routes": []})


def test_static_review_of_shipped_suite_is_clean() -> None:
    manifest, failures, warnings, routes = static_review(load_suite("M05").model_dump(mode="json"))
    assert manifest is not None and failures == [] and warnings == []
    assert [r.reachable for r in routes] == [True, True, True]


def test_judge_cannot_accept_an_unreachable_suite_and_feedback_flows() -> None:
    good = json.dumps(load_suite("M03").model_dump(mode="json"))
    designer = scripted("```json\n" + json.dumps(_broken_proposal()) + "\n```", good)
    judge = scripted(ACCEPT)
    result = design_suite("make iron scarce", designer, judge, max_rounds=3)
    assert result.accepted is not None and result.accepted.suite == "M03"
    first, second = result.rounds
    assert first.verdict.verdict == "revise"
    assert any("smelt_iron needs minecraft:iron_ingot" in f for f in first.verdict.hard_failures)
    assert "smelt_iron needs minecraft:iron_ingot" in designer.calls[1][1]  # feedback in round 2's prompt
    assert second.verdict.verdict == "accept" and second.static_failures == []


def test_rounds_are_bounded_and_bad_replies_are_failures() -> None:
    designer = scripted("no json here")
    judge = scripted(ACCEPT)
    result = design_suite("anything", designer, judge, max_rounds=2)
    assert result.accepted is None and len(result.rounds) == 2
    assert "not a JSON object" in result.rounds[0].verdict.hard_failures[0]
    assert judge.calls == []  # nothing to judge


def test_judge_reject_stops_early() -> None:
    designer = scripted(json.dumps(load_suite("M01").model_dump(mode="json")))
    judge = scripted(json.dumps({"verdict": "reject", "hard_failures": ["too easy"], "warnings": []}))
    result = design_suite("x", designer, judge, max_rounds=3)
    assert result.accepted is None and len(result.rounds) == 1
    assert result.rounds[0].verdict.hard_failures == ["too easy"]
