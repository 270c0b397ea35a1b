"""Score and the end at the final milestone, driven by the server's own advancements.

The server's test hook gives the player a diamond (``EmbeddedServer.give_item``); the server's
``inventory_changed`` trigger then grants ``minecraft:story/mine_diamond`` (Diamond's final milestone) and its
evaluator records it against the action running at that moment. Given at join, it is seen before any action
(S_0 = 100, the episode ends at once); given while action 1 runs, it belongs to action 1 (S_1 = 100).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_twisted
from support.runner_support import build_worlds, scripted_identity

from mirrorcraft.contracts import EndReason, read_record
from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings

FINAL = "minecraft:story/mine_diamond"


@pytest.fixture(scope="module")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_worlds(tmp_path_factory.mktemp("runner-milestone-worlds"), ["plains-1"])


def _give_diamond(delay: float):
    from twisted.internet import reactor

    def hook(server) -> None:
        def on_event(event: str, data: dict) -> None:
            if event == "join":
                reactor.callLater(delay, server.embedded.give_item, data["player"], "diamond", 1)

        server.embedded.subscribe(on_event)

    return hook


@pytest_twisted.ensureDeferred
async def test_final_milestone_before_any_action_ends_the_episode_with_score_100(worlds, tmp_path) -> None:
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=tmp_path)
    runner = EpisodeRunner(settings, on_server_started=_give_diamond(0.0))
    record = await runner.run(scripted_identity(None, budget=5))
    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert [(m.advancement, m.action_index) for m in record.milestones] == [(FINAL, 0)]
    assert record.initial_score == 100 and record.outcome.score == 100 and record.outcome.success
    assert record.outcome.end_reason == EndReason.FINAL_MILESTONE and record.trajectory == []
    assert runner.last_notes is not None and runner.last_notes.evaluator_basis.startswith("server")
    assert read_record(record.model_dump_json()) == record


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_final_milestone_during_action_1_is_scored_after_action_1(worlds, tmp_path) -> None:
    settings = RunnerSettings(worlds_dir=worlds, build_missing=False, work_dir=tmp_path)
    record = await EpisodeRunner(settings, on_server_started=_give_diamond(4.0)).run(
        scripted_identity(None, budget=5)
    )
    assert record.infrastructure_faults == [], record.infrastructure_faults
    assert [(m.advancement, m.action_index) for m in record.milestones] == [(FINAL, 1)]
    assert record.scores() == [0, 100]
    assert record.outcome.end_reason == EndReason.FINAL_MILESTONE and record.outcome.actions_used == 1
