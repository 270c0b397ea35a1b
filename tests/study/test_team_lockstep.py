"""Team episodes in lockstep (issue 23): the four players and the judge on one lockstep server with batched
packets give the same record whatever the machine's timing, and a decision costs exactly its think ticks.

Real parts only: the embedded server over 127.0.0.1, the built arenas, four bodies and the scenario's judge;
the one test system below stands at the LLM boundary (its "thinking" is a wall-clock delay)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task

from mirrorcraft.agents.teams import TEAM_POLICIES, TeamPolicy, make_team_policy, register_team_policy
from mirrorcraft.contracts import SkillCall, TeamObservation
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem
from mirrorcraft.study.team_episode import run_team_episode

UNPACED = {"tick_rate": 20, "clock": "lockstep", "lockstep_paced": False}


def _identity(tested: TeamSystem, opponent: TeamSystem, seconds: int) -> TeamEpisodeIdentity:
    return TeamEpisodeIdentity(
        scenario="mushroom_war", tested=tested, opponent=opponent, tested_side="red", repeat=0,
        block_index=0, game_seconds=seconds,
    )  # fmt: skip


async def _play(identity: TeamEpisodeIdentity, arena_saves: Path, workdir: Path, servers: list, **clock):  # noqa: ANN001, ANN003, ANN202
    workdir.mkdir()
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    return await run_team_episode(identity, policies, arenas=arena_saves, workdir=workdir,
                                  setup=servers.append, **clock)  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_two_lockstep_team_episodes_played_side_by_side_equal_one_played_alone(
    arena_saves: Path, tmp_path: Path
) -> None:
    # the built-in systems that break, place and pick up blocks in both areas (shared random streams: loot)
    identity = _identity(TeamSystem(id="balanced"), TeamSystem(id="aggressive"), 12)
    servers: list = []
    alone = await _play(identity, arena_saves, tmp_path / "alone", servers, **UNPACED)
    # two at once on the one reactor: every packet and tick of one interleaves with the other's
    both = await defer.gatherResults([
        defer.ensureDeferred(_play(identity, arena_saves, tmp_path / f"pair{k}", servers, **UNPACED))
        for k in range(2)
    ])  # fmt: skip
    assert sum(len(t.actions) for t in alone.trajectories) >= 8, alone.trajectories  # a real game was played
    assert any(a.call.name == "mine" and a.report.status == "success" for t in alone.trajectories
               for a in t.actions)  # fmt: skip
    for other in both:
        assert other.model_dump(mode="json") == alone.model_dump(mode="json")
    # the players' packets went through the batches (handled at the next tick, in name order)
    assert all(s.game.lockstep is not None and s.game.lockstep.batched > 100 for s in servers)


@register_team_policy
class _Thinker(TeamPolicy):
    """Chats and mines, "thinking" before each call for a seeded wall-clock delay up to ``delay`` seconds (0: at
    the next reactor turn) — a model's latency, the one thing the test stands in for."""

    id = "test_lockstep_thinker"

    def __init__(self, system: TeamSystem) -> None:
        super().__init__(system)
        self.delay = 0.0  # set by the test (not a setting: settings enter the episode id and its seed)
        self.asked: dict[str, list[float]] = {}
        self.rng = random.Random(7)

    def think_ticks(self, player: str) -> int:
        return int(self.system.settings["think_ticks"])

    async def act(self, view: TeamObservation) -> SkillCall | None:
        assert view.time_left_s is not None  # show_time_left: the ask's game time is limit - time left
        self.asked.setdefault(view.player, []).append(view.time_left_s)
        await task.deferLater(reactor, self.rng.uniform(0, self.delay), lambda: None)
        n = len(self.asked[view.player])
        if n % 2:
            return SkillCall.create("chat", {"text": f"{view.player} {n}", "team": True})
        return SkillCall.create("mine", {"block": "red_mushroom_block", "count": 1})


@pytest.mark.parametrize("charge", [0, 30])
@pytest_twisted.ensureDeferred
async def test_a_decision_costs_its_think_ticks_however_long_the_model_takes(
    arena_saves: Path, tmp_path: Path, charge: int
) -> None:
    assert _Thinker.id in TEAM_POLICIES
    seconds = 8
    records, systems = [], []
    # at the next reactor turn; up to a quarter second per decision (many ticks unpaced)
    for delay in (0.0, 0.25):
        system = TeamSystem(id=_Thinker.id, settings={"think_ticks": charge, "show_time_left": True})
        identity = _identity(system, TeamSystem(id="do_nothing"), seconds)
        policies = {"red": make_team_policy(system), "blue": make_team_policy(TeamSystem(id="do_nothing"))}
        policies["red"].delay = delay
        work = tmp_path / f"d{delay}"
        work.mkdir()
        records.append(
            await run_team_episode(identity, policies, arenas=arena_saves, workdir=work, **UNPACED)
        )
        systems.append(policies["red"])
    assert records[0].model_dump(mode="json") == records[1].model_dump(mode="json")
    record, thinker = records[0], systems[0]
    for traj in record.trajectories:
        if traj.side != "red":
            continue
        asked = [seconds - left for left in thinker.asked[traj.player]]
        assert len(traj.actions) >= 3, traj.actions
        for action, at in zip(traj.actions, asked, strict=False):
            # the call starts charge + 1 ticks after the ask (the tick after the charge); the observation's time
            # left is rounded to 0.1 s, so the ask is known to a tick either way
            assert abs(round((action.t - at) * 20) - (charge + 1)) <= 1, (action.t, at)
    # the team chat lines landed in the log at the same ticks in both runs (compared above), one per chat call
    said = [c.text for c in record.chat if c.channel == "team"]
    assert said and all(t.startswith(("Ryn ", "Raze ")) for t in said)
