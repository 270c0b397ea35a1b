"""A team episode end to end on the embedded server: four real players over 127.0.0.1, the Mushroom War
judge, the do_nothing and random systems on both sides, a valid team record."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted

from mirrorcraft.agents.teams import (
    TEAM_POLICIES,
    GameBriefing,
    TeamPolicy,
    make_team_policy,
    register_team_policy,
)
from mirrorcraft.contracts import SkillCall, TeamObservation
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
    view = TeamObservation(
        player="Ryn", side="red", teammate="Raze", position={"x": 0, "y": 0, "z": 0},
        survival={"health": 20, "food": 20}, equipment={}, inventory=[], nearby_blocks=[], nearby_entities=[],
        dropped_items=[], last_result=None, effects=[], skills=[], failure_constraints=[],
    )  # fmt: skip
    ryn = [a.call for a in by_player["Ryn"].actions]
    assert [await fresh.act(view) for _ in ryn] == ryn


class _Talker(TeamPolicy):
    """A test system: its first player says one line to its team and one to everyone, then both players keep
    still; every observation it is shown is kept."""

    id = "test_talker"

    def __init__(self, system: TeamSystem) -> None:
        super().__init__(system)
        self.views: dict[str, list[TeamObservation]] = {}
        self.said: dict[str, int] = {}

    async def act(self, view: TeamObservation) -> SkillCall | None:
        self.views.setdefault(view.player, []).append(view)
        n = self.said.get(view.player, 0)
        self.said[view.player] = n + 1
        if view.player == self.briefing.players[0] and n < 2:
            text = f"{view.side} team plan" if n == 0 else f"hello from {view.player}"
            return SkillCall.create("chat", {"text": text, "team": n == 0})
        return None


if _Talker.id not in TEAM_POLICIES:
    register_team_policy(_Talker)


@pytest_twisted.ensureDeferred
async def test_team_observation_and_chat_log_come_from_the_bodies(arena_saves: Path, tmp_path: Path) -> None:
    identity = TeamEpisodeIdentity(
        scenario="mushroom_war", tested=TeamSystem(id="test_talker", settings={"show_time_left": True}),
        opponent=TeamSystem(id="test_talker"), tested_side="red", repeat=0, block_index=0, game_seconds=6,
    )  # fmt: skip
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}

    def scene(server) -> None:  # noqa: ANN001
        server.give_item("Ryn", "minecraft:red_mushroom", 3)

    record = await run_team_episode(identity, policies, arenas=arena_saves, workdir=tmp_path, tick_rate=100,
                                    setup=scene)  # fmt: skip
    assert read_team_record(record.model_dump_json()) == record
    calls = [
        (t.player, a.call.args, a.report.status, a.report.message)
        for t in record.trajectories
        for a in t.actions
    ]
    # the chat log: each of the four lines once, with its sender, side, channel and translation key
    logged = sorted((c.sender, c.side, c.channel, c.text, c.translate) for c in record.chat)
    assert logged == [
        ("Byte", "blue", "all", "hello from Byte", "chat.type.text"),
        ("Byte", "blue", "team", "blue team plan", "chat.type.team.sent"),
        ("Ryn", "red", "all", "hello from Ryn", "chat.type.text"),
        ("Ryn", "red", "team", "red team plan", "chat.type.team.sent"),
    ], (record.chat, calls)
    assert all(c.tick is not None and abs(c.t - c.tick / 20) < 1e-6 for c in record.chat)
    red, blue = policies["red"], policies["blue"]
    raze, blink = red.views["Raze"][-1], blue.views["Blink"][-1]
    # team chat reaches the mate only; public chat everyone (as the body's chat module received it)
    assert ("Ryn", "team", "red team plan") in [(c.sender, c.channel, c.text) for c in raze.chat]
    assert "red team plan" not in [c.text for c in blink.chat]
    assert {("Ryn", "hello from Ryn"), ("Byte", "hello from Byte")} <= {
        (c.sender, c.text) for c in blink.chat
    }
    # the sidebar as the scoreboard packets built it: the judge's objective, red's 3 mushrooms
    assert raze.sidebar is not None and dict((s.holder, s.score) for s in raze.sidebar.scores).get("Red") == 3
    assert raze.side == "red" and raze.teammate == "Ryn" and blink.teammate == "Byte"
    # the time left only for the system whose setting says so
    assert all(v.time_left_s is not None and 0 <= v.time_left_s <= 6 for v in red.views["Ryn"])
    assert red.views["Ryn"][0].time_left_s > red.views["Ryn"][-1].time_left_s
    assert all(v.time_left_s is None for vs in blue.views.values() for v in vs)
    assert "chat" in raze.skills and "take" in raze.skills
