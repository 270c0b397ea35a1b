"""The PillagerBench judges on the embedded server: Mushroom War's seeded regrowth and re-pollution at the
documented rates, score-follows-holdings, Dash & Dine's scoring with the three-food lock-in and clearing,
the scoreboard sidebar, and a delivery over real sockets.

The statistics run the judge's check directly on an in-process game (the real server engine on a real
arena save; 200 checks take well under a second); the rest run the judge as the server's tick function.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytest_twisted
from support.fakeplayer import FakePlayer, join, new_game
from twisted.internet import defer, reactor, task

from mirrorcraft.errors import ContractError
from mirrorcraft.harness.judges import (
    DashAndDineJudge,
    EmbeddedJudgeWorld,
    MushroomWarJudge,
    attach_judge,
    make_judge,
)
from mirrorcraft.harness.judges.embedded import connect_judge_players
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.rules.items import foods
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.worlds.arenas.spec import load_arena_spec

AIR = ("minecraft:air", ())
MW = load_arena_spec("mushroom_war")
DD = load_arena_spec("dash_and_dine")


def _within(count: int, n: int, p: float, sds: float = 5.0) -> bool:
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    return mean - sds * sd <= count <= mean + sds * sd


def _state(game, pos) -> int:  # noqa: ANN001
    return game.kernel.world.get_block(*pos)


def test_the_judges_know_their_arenas_caps_slime_and_judges() -> None:
    mw = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=1)
    # 3 mushrooms x 5 caps and 15 slime blocks per side (shared/spec/pillagerbench.md), each in its half
    assert {s: len(c) for s, c in mw.caps.items()} == {"red": 15, "blue": 15}
    assert {s: len(c) for s, c in mw.slime.items()} == {"red": 15, "blue": 15}
    assert {st[0] for _, st in mw.caps["red"]} == {"minecraft:red_mushroom_block"}
    assert {st[0] for _, st in mw.caps["blue"]} == {"minecraft:brown_mushroom_block"}
    assert all(p[2] < -1.5 for p, _ in mw.caps["red"]) and all(p[2] > -1.5 for p, _ in mw.caps["blue"])
    # every original slime block lies inside its team's area (radius 7)
    assert all(p in set(mw.areas[s]) for s in ("red", "blue") for p in mw.slime[s])
    dd = make_judge(DD, "mirrored", world_seed=0, episode_seed=1)
    assert isinstance(dd, DashAndDineJudge) and dd.judge_players == {
        "red": "Red_Server",
        "blue": "Blue_Server",
    }
    with pytest.raises(ContractError, match="judge_rules.kind must be 'mushroom_war'"):
        MushroomWarJudge(DD, "original", world_seed=0, episode_seed=1)


def test_mushroom_war_regrowth_and_repollution_happen_at_the_documented_rates(arena) -> None:  # noqa: ANN001
    game = new_game(arena("mushroom_war"), episode_seed=3)
    world = EmbeddedJudgeWorld(game)
    judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=3)
    slime = facts.state_id("slime_block")
    for pos, _ in judge.caps["red"] + judge.caps["blue"]:
        world.place(pos, AIR)  # every cap harvested
    for pos in judge.slime["red"]:
        world.place(pos, AIR)  # red cleared its slime; blue's 15 stay (more than 7: no regrowth there)
    assert judge.slime_in_area(world, "red") == 0 and judge.slime_in_area(world, "blue") == 15
    checks = 200
    for _ in range(checks):
        judge.check(world)
        for pos, state in judge.caps["red"]:
            if world.block(pos) != "minecraft:air":  # regrown with its original faces
                assert _state(game, pos) == facts.state_id(
                    state[0].removeprefix("minecraft:"), dict(state[1])
                )
                world.place(pos, AIR)
        for pos in judge.slime["red"]:
            if _state(game, pos) == slime:
                world.place(pos, AIR)
    kinds = [(s, k) for s, k, _ in judge.changes]
    n = checks * 15
    assert _within(kinds.count(("red", "regrow")), n, 0.1), kinds.count(("red", "regrow"))
    assert _within(kinds.count(("red", "pollute")), n, 0.02), kinds.count(("red", "pollute"))
    # blue's area kept 15 slime blocks: no cap regrew; its slime positions were never free to re-pollute
    assert ("blue", "regrow") not in kinds and ("blue", "pollute") not in kinds
    assert all(world.block(p) == "minecraft:air" for p, _ in judge.caps["blue"])


def test_mushroom_war_draws_are_seeded_and_the_same_whatever_the_players_do(arena) -> None:  # noqa: ANN001
    def run(episode_seed: int, blue_clears_slime: bool) -> list:
        game = new_game(arena("mushroom_war"), episode_seed=episode_seed)
        world = EmbeddedJudgeWorld(game)
        judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=episode_seed)
        for pos, _ in judge.caps["red"] + judge.caps["blue"]:
            world.place(pos, AIR)
        for pos in judge.slime["red"] + (judge.slime["blue"] if blue_clears_slime else []):
            world.place(pos, AIR)
        for _ in range(30):
            judge.check(world)
        return [c for c in judge.changes if c[0] == "red"]

    a = run(5, blue_clears_slime=False)
    assert a and a == run(5, blue_clears_slime=False)  # the same episode, the same changes
    # what blue did changes nothing of red's luck: one draw per cell and check, used or not
    assert run(5, blue_clears_slime=True) == a
    assert run(6, blue_clears_slime=False) != a  # another episode, other draws


def test_mushroom_war_scores_follow_holdings_every_game_second_on_the_scoreboard(arena) -> None:  # noqa: ANN001
    game = new_game(arena("mushroom_war"), episode_seed=1)
    players = {n: join(game, FakePlayer(n)) for n in ("Ryn", "Raze", "Byte", "Blink")}
    judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=1)
    attach_judge(game, judge)
    game.tick()  # the judge's first tick: it begins
    board = game.commands.executor.scoreboard
    assert board.display.get(1) == "Scores"  # the sidebar (display slot 1) shows the objective
    inv = game.inventory
    inv.give_item(players["Ryn"], "minecraft:red_mushroom", 2)
    inv.give_item(players["Raze"], "minecraft:red_mushroom", 1)
    inv.give_item(players["Byte"], "minecraft:red_mushroom", 5)  # the other colour scores nothing for blue
    inv.give_item(players["Blink"], "minecraft:brown_mushroom", 4)
    for _ in range(20):
        game.tick()
    assert [(s.t, s.red, s.blue) for s in judge.scores] == [(1, 3.0, 4.0)]
    assert (board.score("Red", "Scores"), board.score("Blue", "Scores")) == (3, 4)
    game.commands.host.clear(game.commands.host.entity_ref(players["Ryn"]), None, -1)  # Ryn drops them
    for _ in range(40):
        game.tick()
    assert [(s.t, s.red, s.blue) for s in judge.scores] == [(1, 3.0, 4.0), (2, 1.0, 4.0), (3, 1.0, 4.0)]
    assert board.score("Red", "Scores") == 1


def test_dash_and_dine_scores_each_period_locks_three_foods_and_clears(arena) -> None:  # noqa: ANN001
    game = new_game(arena("dash_and_dine"), episode_seed=2)
    red, blue = (join(game, FakePlayer(n)) for n in ("Red_Server", "Blue_Server"))
    judge = DashAndDineJudge(DD, "original", world_seed=0, episode_seed=2)
    world = attach_judge(game, judge)
    game.tick()
    inv = game.inventory
    inv.give_item(red, "minecraft:bread", 2)  # 2 x (5 + 6) = 22
    inv.give_item(red, "minecraft:cooked_beef", 1)  # 8 + 12.8 = 20.8
    inv.give_item(red, "minecraft:stick", 3)  # not a food: nothing, cleared all the same
    for _ in range(39):
        game.tick()
    assert judge.totals["red"] == 0.0 and world.held("Red_Server", foods())  # not yet: the period is 40 ticks
    game.tick()
    assert judge.totals == {"red": 42.8, "blue": 0.0} and world.held("Red_Server", foods()) == {}
    assert judge.locked["red"] == ["minecraft:bread", "minecraft:cooked_beef"]
    inv.give_item(red, "minecraft:carrot", 1)  # the third food: locks in (6.6)
    inv.give_item(red, "minecraft:baked_potato", 4)  # a fourth food: nothing
    inv.give_item(red, "minecraft:bread", 1)  # a locked food scores again (11)
    inv.give_item(blue, "minecraft:cake", 1)  # blue's own lock-in: a cake is 7 slices of 2 + 0.4 = 16.8
    for _ in range(40):
        game.tick()
    assert judge.totals == {"red": 60.4, "blue": 16.8}
    assert judge.locked == {"red": ["minecraft:bread", "minecraft:cooked_beef", "minecraft:carrot"],
                            "blue": ["minecraft:cake"]}  # fmt: skip
    assert world.held("Red_Server", foods()) == {} and world.held("Blue_Server", foods()) == {}
    assert [(s.t, s.red, s.blue) for s in judge.scores] == [(1, 0.0, 0.0), (2, 42.8, 0.0), (3, 42.8, 0.0),
                                                            (4, 60.4, 16.8)]  # fmt: skip
    board = game.commands.executor.scoreboard
    assert (board.score("Red", "Scores"), board.score("Blue", "Scores")) == (60, 17)  # whole points shown


@pytest_twisted.ensureDeferred
async def test_a_player_delivers_bread_to_the_red_judge_over_real_sockets(arena) -> None:  # noqa: ANN001
    server = EmbeddedServer(
        ServerConfig(world=arena("dash_and_dine"), port=0, tick_rate=100, view_distance=3, episode_seed=9)
    )
    server.start()
    bodies: list[Body] = []
    try:
        bodies = await connect_judge_players(server, DD)
        ryn = Body(BodyConfig(port=server.port, username="Ryn", view_distance=3))
        await ryn.connect()
        bodies.append(ryn)
        judge = DashAndDineJudge(DD, "original", world_seed=0, episode_seed=9)
        attach_judge(server, judge)
        assert server.game.admin.game_mode(server.player("Red_Server")) == "creative"
        x, y, z = next(j.pos for j in DD.judges if j.name == "Red_Server")
        server.teleport("Ryn", x + 0.5, float(y), z + 2.5)  # two blocks south of the judge
        server.give_item("Ryn", "minecraft:bread", 3)
        await task.deferLater(reactor, 0.5, lambda: None)
        assert ryn.inventory.count("minecraft:bread") == 3
        ryn.movement.look_at((x + 0.5, y + 0.5, z + 0.5))
        await task.deferLater(reactor, 0.1, lambda: None)
        ryn.inventory.drop_held(whole_stack=True)  # a toss towards the judge (vanilla: 40-tick pickup delay)
        await task.deferLater(reactor, 0.05, lambda: None)
        server.teleport("Ryn", x + 0.5, float(y), z + 6.5)  # and away, so only the judge is in reach
        for _ in range(100):  # at most 10 s of wall time (the delay and one 40-tick period: < 1 s at 100 t/s)
            if judge.totals["red"]:
                break
            await task.deferLater(reactor, 0.1, lambda: None)
        assert judge.totals == {"red": 33.0, "blue": 0.0}, judge.deliveries
        assert server.inventory("Red_Server") == {} and ryn.inventory.count("minecraft:bread") == 0
        assert server.game.commands.executor.scoreboard.score("Red", "Scores") == 33
    finally:
        await defer.gatherResults([defer.ensureDeferred(b.disconnect()) for b in bodies])
        await defer.maybeDeferred(server.stop)


def test_a_failing_judge_is_removed_and_the_game_goes_on(tmp_path: Path, arena) -> None:  # noqa: ANN001
    game = new_game(arena("mushroom_war"), episode_seed=1)
    judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=1)
    judge.period = 1
    judge.check = lambda world: (_ for _ in ()).throw(RuntimeError("judge bug"))  # type: ignore[method-assign]
    attach_judge(game, judge, name="mw")
    for _ in range(3):
        game.tick()
    assert game.functions.failed == [("mw", "RuntimeError('judge bug')")] and "mw" not in game.functions.names
    assert game.tick_count == 3


def test_ticks_a_late_reactor_skipped_are_judged_too(arena) -> None:  # noqa: ANN001
    game = new_game(arena("mushroom_war"), episode_seed=1)
    judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=1)
    attach_judge(game, judge)
    game.tick()  # begins at tick 1
    game.kernel.clock.advance(41)  # one late wake-up: 40 skipped ticks counted, one full tick run
    assert game.tick_count == 42
    assert [s.t for s in judge.scores] == [1, 2]  # no second is missing from the series
