"""A team episode end to end on the embedded server: four real players over 127.0.0.1, the Mushroom War
judge, the do_nothing and random systems on both sides, a valid team record."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from mirrorcraft.agents.teams import TEAM_POLICIES, GameBriefing, TeamView, make_team_policy
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem, read_team_record
from mirrorcraft.study.team_episode import run_team_episode

SECONDS = 5


def _identity(tested_side: str) -> TeamEpisodeIdentity:
    return TeamEpisodeIdentity(
        scenario="mushroom_war", tested=TeamSystem(id="random"), opponent=TeamSystem(id="do_nothing"),
        tested_side=tested_side, repeat=0, block_index=0, game_seconds=SECONDS,
    )  # fmt: skip


async def _play(identity: TeamEpisodeIdentity, arena_saves: Path, workdir: Path):  # noqa: ANN202
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    workdir.mkdir()

    def scene(server) -> None:  # noqa: ANN001
        server.give_item("Ryn", "minecraft:red_mushroom", 3)  # red holds 3 points from the start

    return await run_team_episode(identity, policies, arenas=arena_saves, workdir=workdir, tick_rate=100,
                                  setup=scene)  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_a_short_mushroom_war_episode_gives_a_valid_team_record(
    arena_saves: Path, tmp_path: Path
) -> None:
    assert {"do_nothing", "random"} <= set(TEAM_POLICIES)
    identity = _identity("red")
    record = await _play(identity, arena_saves, tmp_path / "a")
    again = read_team_record(record.model_dump_json())  # the record passes its own checks on load
    assert again == record and record.episode_id == identity.episode_id and record.seed == identity.seed
    assert [s.t for s in record.scores] == list(range(1, SECONDS + 1))
    # the judge scored what red held every second; blue held nothing
    assert all(s.red >= 3 and s.blue == 0 for s in record.scores), record.scores
    assert (record.outcome.red, record.outcome.blue) == (record.scores[-1].red, record.scores[-1].blue)
    by_player = {t.player: t for t in record.trajectories}
    assert set(by_player) == {"Ryn", "Raze", "Byte", "Blink"}
    # random (tested) plays red: each red player made calls; do_nothing (blue) made none
    assert all(by_player[p].actions for p in ("Ryn", "Raze"))
    assert not by_player["Byte"].actions and not by_player["Blink"].actions
    assert all(
        a.call.name in ("explore", "mine", "collect") for p in ("Ryn", "Raze") for a in by_player[p].actions
    )
    assert record.agent_faults == []

    # the same identity from the other side: the seed is the same (side-balanced pairs meet the same seeds),
    # the random system now plays blue
    flipped = _identity("blue")
    assert flipped.seed == identity.seed and flipped.episode_id != identity.episode_id
    record2 = await _play(flipped, arena_saves, tmp_path / "b")
    by_player2 = {t.player: t for t in record2.trajectories}
    assert all(by_player2[p].actions for p in ("Byte", "Blink"))
    assert not by_player2["Ryn"].actions and not by_player2["Raze"].actions
    # random's choices are seeded by the episode seed and the player: a fresh system replays Ryn's calls
    fresh = make_team_policy(TeamSystem(id="random"))
    fresh.pre_game(GameBriefing("mushroom_war", "red", ("Ryn", "Raze"), 0, identity.seed))
    view = TeamView("Ryn", "red", "Raze", "mushroom_war", (0.0, 0.0, 0.0), {})
    ryn = [a.call for a in by_player["Ryn"].actions]
    assert [await fresh.act(view) for _ in ryn] == ryn
