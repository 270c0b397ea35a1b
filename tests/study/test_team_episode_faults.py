"""A team episode goes on when an agent fails (issue 25, bad input): a system that crashes (in ``act``,
``pre_game`` or ``post_game``), a player whose connection the server closes and a system that stops answering
are recorded with their side and kind; the judge keeps every second and the other players keep playing."""

from __future__ import annotations

from pathlib import Path

import pytest_twisted
from twisted.internet import defer, reactor

from mirrorcraft.agents.teams import TEAM_POLICIES, TeamPolicy, make_team_policy, register_team_policy
from mirrorcraft.contracts import SkillCall
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem
from mirrorcraft.study.team_episode import run_team_episode

SECONDS = 4


class _Faulty(TeamPolicy):
    """Test system: its first player's first call raises; its second player explores."""

    id = "test_faulty"

    async def act(self, view) -> SkillCall | None:  # noqa: ANN001
        assert self.briefing is not None
        if view.player == self.briefing.players[0]:
            raise RuntimeError("system bug")
        return SkillCall(name="explore", args={"direction": "any"})


class _Silent(TeamPolicy):
    """Test system: its first player's system never answers; its second explores."""

    id = "test_silent"

    async def act(self, view) -> SkillCall | None:  # noqa: ANN001
        assert self.briefing is not None
        if view.player == self.briefing.players[0]:
            await defer.Deferred()  # never fires
        return SkillCall(name="explore", args={"direction": "any"})


class _BadHooks(TeamPolicy):
    """Test system: raises before and after the episode."""

    id = "test_bad_hooks"

    def pre_game(self, briefing) -> None:  # noqa: ANN001
        raise ValueError("no briefing for me")

    async def act(self, view) -> SkillCall | None:  # noqa: ANN001
        raise AssertionError("a system that failed pre_game is never asked to act")

    def post_game(self, outcome) -> None:  # noqa: ANN001
        raise ValueError("no lessons either")


for _cls in (_Faulty, _Silent, _BadHooks):  # a worker imports this module once; guard re-imports all the same
    if _cls.id not in TEAM_POLICIES:
        register_team_policy(_cls)


@pytest_twisted.ensureDeferred
async def test_a_crashing_system_and_a_dropped_player_are_recorded_and_the_episode_goes_on(
    arena_saves: Path, tmp_path: Path
) -> None:
    identity = TeamEpisodeIdentity(
        scenario="mushroom_war", tested=TeamSystem(id="test_faulty"), opponent=TeamSystem(id="random"),
        tested_side="red", repeat=0, block_index=0, game_seconds=SECONDS,
    )  # fmt: skip
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}

    def scene(server) -> None:  # noqa: ANN001 - the server drops Byte one second (20 ticks) in
        reactor.callLater(0.2, lambda: server.player("Byte").kick("test: connection dropped"))

    record = await run_team_episode(identity, policies, arenas=arena_saves, workdir=tmp_path, tick_rate=100,
                                    setup=scene)  # fmt: skip
    faults = {(f.player, f.side, f.kind) for f in record.agent_faults}
    assert faults == {("Ryn", "red", "crashed"), ("Byte", "blue", "disconnected")}, record.agent_faults
    crashed = next(f for f in record.agent_faults if f.kind == "crashed")
    assert "RuntimeError: system bug" in crashed.message
    assert [s.t for s in record.scores] == list(range(1, SECONDS + 1))  # the judge kept every second
    by_player = {t.player: t for t in record.trajectories}
    assert not by_player["Ryn"].actions and by_player["Raze"].actions  # Raze played on beside the crash
    assert by_player["Blink"].actions  # and blue's other player beside the dropped one


@pytest_twisted.ensureDeferred
async def test_a_silent_system_and_failing_hooks_are_recorded_and_the_episode_goes_on(
    arena_saves: Path, tmp_path: Path
) -> None:
    identity = TeamEpisodeIdentity(
        scenario="mushroom_war", tested=TeamSystem(id="test_silent"), opponent=TeamSystem(id="test_bad_hooks"),
        tested_side="red", repeat=0, block_index=0, game_seconds=SECONDS,
    )  # fmt: skip
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    record = await run_team_episode(identity, policies, arenas=arena_saves, workdir=tmp_path, tick_rate=100,
                                    drain_seconds=0.5)  # fmt: skip
    kinds = sorted((f.player, f.kind, f.message.split(":")[0]) for f in record.agent_faults)
    assert kinds == [
        ("Blink", "crashed", "post_game"), ("Blink", "crashed", "pre_game"),
        ("Byte", "crashed", "post_game"), ("Byte", "crashed", "pre_game"),
        ("Ryn", "unresponsive", "its system's act() had not returned 0.5 s (wall) after time-up"),
    ], record.agent_faults  # fmt: skip
    ryn = next(f for f in record.agent_faults if f.kind == "unresponsive")
    assert ryn.side == "red" and ryn.t < 1.0  # its first act began at the start and never returned
    assert [s.t for s in record.scores] == list(range(1, SECONDS + 1))
    by_player = {t.player: t for t in record.trajectories}
    assert by_player["Raze"].actions and not by_player["Ryn"].actions
    assert not by_player["Byte"].actions and not by_player["Blink"].actions
