"""The one encounter bookkeeping (:class:`~mirrorcraft.harness.encounters.EncounterBook`) and the evaluator
that reads the server's advancement packets (:class:`~mirrorcraft.harness.report_evaluators.PacketEvaluator`,
the runner's evaluator for a child-process server), without a server: the rules of what counts are checked
on hand-made outcomes and on a shipped manifest."""

from __future__ import annotations

import pytest_twisted

from mirrorcraft.contracts.episodes import EpisodeIdentity, ModelSettings
from mirrorcraft.contracts.skills import ItemStack, OutcomeReport, SkillCall, signature
from mirrorcraft.harness.encounters import EncounterBook
from mirrorcraft.harness.report_evaluators import PacketEvaluator

PLANKS = "minecraft:oak_planks"


def _s(*pairs: tuple[str, int]) -> list[ItemStack]:
    return [ItemStack(item=i, count=c) for i, c in pairs]


def test_first_candidate_action_with_its_totals() -> None:
    book = EncounterBook(["M01.a", "M01.b"])
    book.touch("M01.a", 1, _s((PLANKS, 4)), _s((PLANKS, 4)))  # touched with the vanilla outcome: no candidate
    book.touch("M01.other", 2, _s((PLANKS, 2)), _s((PLANKS, 4)))  # not a manifest rule
    book.touch("M01.a", 2, _s((PLANKS, 4)), _s((PLANKS, 4)))  # same action as the candidate below: counted
    book.touch("M01.a", 2, _s((PLANKS, 2)), _s((PLANKS, 4)))
    book.touch("M01.a", 3, _s((PLANKS, 9)), _s((PLANKS, 1)))  # a later action never replaces the first one
    book.touch("M01.b", 2, _s(("minecraft:stick", 1)), _s(("minecraft:stick", 4)))
    assert book.first_actions() == {"M01.a": 2, "M01.b": 2}
    sig = ("mine", "minecraft:oak_log")
    encs = book.encounters({2: sig})
    assert [(e.rule_id, e.action_index) for e in encs] == [("M01.a", 2), ("M01.b", 2)]  # index, then rule id
    a = encs[0]
    assert [(s.item, s.count) for s in a.actual_outcome] == [(PLANKS, 6)]
    assert [(s.item, s.count) for s in a.vanilla_outcome] == [(PLANKS, 8)]
    assert book.encounters({}) == []  # no signature yet: not a valid record, left out


def test_differences_that_cancel_out_report_the_first_candidate() -> None:
    book = EncounterBook(["M01.a"])
    book.touch("M01.a", 1, _s((PLANKS, 2)), _s((PLANKS, 4)))
    book.touch("M01.a", 1, _s((PLANKS, 4)), _s((PLANKS, 2)))
    [enc] = book.encounters({1: ("mine", "minecraft:oak_log")})
    assert [(s.item, s.count) for s in enc.actual_outcome] == [(PLANKS, 2)]
    assert [(s.item, s.count) for s in enc.vanilla_outcome] == [(PLANKS, 4)]


@pytest_twisted.ensureDeferred
async def test_packet_evaluator_milestones_and_report_encounters() -> None:
    done: list[str] = []
    tick = {"now": 40}
    ev = PacketEvaluator(lambda: list(done), lambda: tick["now"])
    assert ev.kind == "embedded" and ev.basis.startswith("harness")
    ident = EpisodeIdentity(world="plains-1", suite="M02", task="iron_armor", budget=10, agent="react",
                            model=ModelSettings(name="m"), repetition=0, study_seed=1)  # fmt: skip
    await ev.begin(ident)
    done += ["minecraft:story/root", "minecraft:recipes/misc/stick"]  # granted at join; only story counts
    await ev.joined()
    call = SkillCall.create("mine", {"block": "iron_ore", "count": 1})
    ev.begin_action(1, call)  # the documented default: nothing to attribute server-side
    report = OutcomeReport(skill="mine", status="success", completed=1,
                           drops_collected=[{"item": "minecraft:raw_iron", "count": 1},
                                            {"item": "minecraft:iron_ingot", "count": 1}],
                           blocks_broken=[{"block": "minecraft:iron_ore", "count": 1}])  # fmt: skip
    done.append("minecraft:story/mine_stone")
    tick["now"] = 90
    await ev.after_action(1, call, report)
    await ev.after_action(2, call, report)  # the first encounter per rule is kept
    assert [(m.advancement, m.action_index, m.tick) for m in await ev.milestones()] == [
        ("minecraft:story/root", 0, 40), ("minecraft:story/mine_stone", 1, 90),
    ]  # fmt: skip
    [enc] = await ev.encounters()
    assert enc.rule_id == "M02.iron_ore_adds_ingot" and enc.action_index == 1
    assert enc.signature == signature(call)
    assert [(s.item, s.count) for s in enc.vanilla_outcome] == [("minecraft:raw_iron", 1)]
    await ev.begin(ident)  # a new episode forgets the old one
    assert await ev.milestones() == [] and await ev.encounters() == []
