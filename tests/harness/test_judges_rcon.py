"""The judges over RCON (a user's vanilla jar, best effort), against the embedded server's real RCON socket
and its ``function`` command: the same seeded judge makes the same changes over RCON as in the game, counts
with the installed judge pack, scores holdings and deliveries, and refuses to start without its pack.

The judge's blocking RCON client runs in a thread (as beside a jar); the embedded server runs on the reactor.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from support.fakeplayer import new_game
from twisted.internet import defer, reactor, task, threads

from mirrorcraft.errors import ContractError
from mirrorcraft.harness.judges import DashAndDineJudge, EmbeddedJudgeWorld, MushroomWarJudge
from mirrorcraft.harness.judges.embedded import connect_judge_players
from mirrorcraft.harness.judges.rcon import (
    RconJudgeWorld,
    install_judge_pack,
    judge_pack_files,
    run_rcon_judge,
)
from mirrorcraft.harness.rcon import RconClient
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.rules.items import food_value
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.study.team_judge_cli import JudgedEpisode
from mirrorcraft.worlds.arenas.spec import load_arena_spec

MW = load_arena_spec("mushroom_war")
DD = load_arena_spec("dash_and_dine")
AIR = ("minecraft:air", ())


def _start(save, **kw) -> EmbeddedServer:  # noqa: ANN001
    server = EmbeddedServer(ServerConfig(world=save, port=0, rcon_port=0, view_distance=2, **kw))
    server.start()
    return server


def _client(server: EmbeddedServer) -> RconClient:
    client = RconClient("127.0.0.1", server.rcon_port, server.rcon_password)
    client.connect()
    return client


def test_the_judge_pack_holds_one_counting_line_per_cell() -> None:
    judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=1)
    files = judge_pack_files(judge)
    red = files["data/mirrorcraft_judge/functions/count/red_slime_block.mcfunction"].decode().splitlines()
    assert len(red) == len(judge.areas["red"]) > 1000
    x, y, z = judge.areas["red"][0]
    assert red[0] == (
        f"execute if block {x} {y} {z} minecraft:slime_block run scoreboard players add #count mcjudge 1"
    )
    assert set(files) == {
        "pack.mcmeta",
        "data/mirrorcraft_judge/functions/count/red_slime_block.mcfunction",
        "data/mirrorcraft_judge/functions/count/blue_slime_block.mcfunction",
    }


@pytest_twisted.ensureDeferred
async def test_mushroom_war_over_rcon_makes_the_in_game_judges_changes_and_scores_holdings(arena) -> None:  # noqa: ANN001
    seed = 5
    save = arena("mushroom_war")
    rcon_judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=seed)
    install_judge_pack(save, rcon_judge)
    # the reference: the same judge class and seeds on an in-process game of the same save and changes
    ref_game = new_game(save, episode_seed=seed)
    ref_world = EmbeddedJudgeWorld(ref_game)
    ref = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=seed)
    harvested = [p for p, _ in ref.caps["red"]]
    for pos in harvested + ref.slime["red"]:
        ref_world.place(pos, AIR)  # red's caps harvested and its slime cleared: regrowth runs in red only

    server = _start(save, tick_rate=100, episode_seed=seed)
    ryn = Body(BodyConfig(port=server.port, username="Ryn", view_distance=2))
    try:
        await ryn.connect()

        def judge_over_rcon() -> RconJudgeWorld:
            client = _client(server)
            world = RconJudgeWorld(client, rcon_judge)
            world.prepare()
            for x, y, z in harvested + rcon_judge.slime["red"]:
                world.command(f"setblock {x} {y} {z} minecraft:air")
            assert world.count_blocks(rcon_judge.areas["red"], "minecraft:slime_block") == 0
            assert world.count_blocks(rcon_judge.areas["blue"], "minecraft:slime_block") == 15
            world.command("give Ryn minecraft:red_mushroom 5")
            run_rcon_judge(rcon_judge, world, game_seconds=12)
            client.close()
            return world

        world = await threads.deferToThread(judge_over_rcon)
        for _ in range(12):  # twelve periods of 20 ticks, as the RCON judge judged
            ref.check(ref_world)
        assert (
            rcon_judge.changes == ref.changes and rcon_judge.changes
        )  # same draws, same world → same changes
        assert {side for side, kind, _ in rcon_judge.changes if kind == "regrow"} == {"red"}
        for side, _, (x, y, z) in rcon_judge.changes:
            assert server.game.commands.host.block_at(x, y, z) != "minecraft:air", (side, x, y, z)
        assert [s.t for s in rcon_judge.scores] == list(range(1, 13))
        assert rcon_judge.scores[-1].red == 5.0 and rcon_judge.scores[-1].blue == 0.0  # Ryn's 5 mushrooms
        assert server.game.commands.executor.scoreboard.score("Red", "Scores") == 5
        # a count costs 3 commands, a held query one per player: far fewer than one per cell
        assert world.commands_sent < 40 * 12
    finally:
        await ryn.disconnect()
        await defer.maybeDeferred(server.stop)


@pytest_twisted.ensureDeferred
async def test_dash_and_dine_over_rcon_scores_a_judges_inventory_and_clears_it(arena) -> None:  # noqa: ANN001
    save = arena("dash_and_dine")
    judge = DashAndDineJudge(DD, "original", world_seed=0, episode_seed=2)
    install_judge_pack(save, judge)  # no count queries: the pack holds only its pack.mcmeta
    server = _start(save, tick_rate=100, episode_seed=2)
    bodies: list[Body] = []
    try:
        bodies = await connect_judge_players(server, DD)

        def judge_over_rcon() -> None:
            client = _client(server)
            world = RconJudgeWorld(client, judge)
            world.command("give Red_Server minecraft:bread 3")
            world.command("give Red_Server minecraft:stick 2")  # a non-food: nothing, cleared all the same
            world.command("give Blue_Server minecraft:cooked_beef 1")
            run_rcon_judge(judge, world, game_seconds=3)
            client.close()

        await threads.deferToThread(judge_over_rcon)
        bread, beef = food_value("minecraft:bread"), food_value("minecraft:cooked_beef")
        assert judge.totals == {"red": 3 * bread, "blue": beef}
        assert judge.locked == {"red": ["minecraft:bread"], "blue": ["minecraft:cooked_beef"]}
        await task.deferLater(reactor, 0.1, lambda: None)
        assert server.inventory("Red_Server") == {} and server.inventory("Blue_Server") == {}
    finally:
        await defer.gatherResults([defer.ensureDeferred(b.disconnect()) for b in bodies])
        await defer.maybeDeferred(server.stop)


@pytest_twisted.ensureDeferred
async def test_a_judge_without_its_pack_names_the_missing_function(arena) -> None:  # noqa: ANN001
    server = _start(arena("mushroom_war"))
    try:
        judge = MushroomWarJudge(MW, "original", world_seed=0, episode_seed=1)

        def prepare() -> None:
            client = _client(server)
            try:
                RconJudgeWorld(client, judge).prepare()
            finally:
                client.close()

        with pytest.raises(
            ContractError, match=r"mirrorcraft_judge:count/blue_slime_block is not on the server"
        ):
            await threads.deferToThread(prepare)
    finally:
        await defer.maybeDeferred(server.stop)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mirrorcraft.run", "teams", "judge", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest_twisted.ensureDeferred
async def test_teams_judge_installs_the_pack_and_judges_a_running_server(arena, tmp_path: Path) -> None:  # noqa: ANN001
    save = arena("mushroom_war")
    r = await threads.deferToThread(_cli, "--scenario", "mushroom_war", "--install-pack", str(save))
    assert r.returncode == 0, r.stderr
    assert (save / "datapacks" / "mirrorcraft_judge" / "pack.mcmeta").is_file()
    server = _start(save, tick_rate=100)
    try:
        pw = tmp_path / "pw"
        pw.write_text(server.rcon_password + "\n")
        out = tmp_path / "judged.json"
        r = await threads.deferToThread(
            _cli, "--scenario", "mushroom_war", "--rcon-port", str(server.rcon_port),
            "--rcon-password-file", str(pw), "--seconds", "3", "--episode-seed", "7", "--out", str(out),
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        rec = JudgedEpisode.model_validate_json(out.read_text())
        assert [s.t for s in rec.scores] == [1, 2, 3] and rec.totals == {"red": 0.0, "blue": 0.0}
        assert (
            rec.world_seed == server.game.kernel.rng.world_seed
        )  # the save's seed: the embedded judge's draws
        assert rec.episode_seed == 7 and rec.commands_sent > 0
    finally:
        await defer.maybeDeferred(server.stop)


def test_teams_judge_usage_errors_exit_2_before_connecting(tmp_path: Path) -> None:
    r = _cli("--scenario", "dash_and_dine", "--install-pack", str(tmp_path))
    assert r.returncode == 2 and "not a save (no level.dat)" in r.stderr
    r = _cli(
        "--scenario", "dash_and_dine", "--rcon-port", "1", "--rcon-password-file", str(tmp_path / "none")
    )
    assert r.returncode == 2 and "--rcon-password-file" in r.stderr
    r = _cli("--scenario", "dash_and_dine", "--rcon-port", "1")
    assert r.returncode == 2 and "--rcon-password-file" in r.stderr
    assert not list(tmp_path.iterdir())  # nothing written
