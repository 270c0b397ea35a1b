"""Judges on the embedded server: a :class:`JudgeWorld` over the game, a judge run as a tick function, and
the judge players a scenario needs.

The judge reads and changes the world exactly as the server's own commands do (the command host behind
``/setblock`` and ``/clear``, the executor behind ``/scoreboard``), so what a judge does on the embedded
server is what the same commands do over RCON on a vanilla server. It runs in the ``functions`` phase at the
start of each tick (:mod:`mirrorcraft.server.features.functions`), in game time: at any tick rate, lockstep
or real time, the same ticks see the same checks.
"""

from __future__ import annotations

from collections.abc import Sequence

from mirrorcraft.harness.judges.base import Judge, JudgeWorld, Pos
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.server import facts
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.server.game import Game
from mirrorcraft.worlds.anvil.chunk import BlockState
from mirrorcraft.worlds.arenas.spec import ArenaSpec

#: Window-0 slots a player "holds": the main inventory 9-35 and the hotbar 36-44 (Mineflayer's
#: ``inventory.count`` range, which the original's judges used).
HELD_SLOTS = range(9, 45)


class EmbeddedJudgeWorld(JudgeWorld):
    """A judge's view of one embedded game."""

    def __init__(self, game: Game, source_name: str = "Judge") -> None:
        self.game = game
        self.host = game.commands.host
        self.executor = game.commands.executor
        self.source = self.executor.console_source(source_name)
        self._block_id = facts.state_tables().block_id

    def block(self, pos: Pos) -> str:
        """The namespaced block at ``pos`` (embedded only: tests look at the world through it)."""
        return self.host.block_at(*pos)

    def is_block(self, pos: Pos, block: str) -> bool:
        return self.block(pos) == block

    def place(self, pos: Pos, state: BlockState) -> None:
        name, props = state
        self.host.set_block(*pos, name, dict(props), "replace")

    def count_blocks(self, cells: Sequence[Pos], block: str) -> int:
        # state → block id from the state table, compared as integers: a Mushroom War check counts ~1,400
        # cells per team every game second
        target = facts.block(block.removeprefix("minecraft:")).id
        get = self.game.kernel.world.get_block
        return sum(1 for x, y, z in cells if self._block_id[get(x, y, z)] == target)

    def held(self, player: str, items: Sequence[str]) -> dict[str, int]:
        p = self.game.players.by_name(player)
        if p is None:
            return {}
        wanted = set(items)
        out: dict[str, int] = {}
        for i in HELD_SLOTS:
            s = p.inventory.slots[i]
            if s and s.item in wanted:
                out[s.item] = out.get(s.item, 0) + s.count
        return out

    def clear(self, player: str) -> None:
        p = self.game.players.by_name(player)
        if p is not None:
            self.host.clear(self.host.entity_ref(p), None, -1)

    def command(self, text: str) -> str:
        return self.executor.run(self.source, text).text


def attach_judge(server: EmbeddedServer | Game, judge: Judge, *, name: str = "judge") -> EmbeddedJudgeWorld:
    """Run ``judge`` on the embedded server from the next tick on (that tick is its start); returns its world.

    Every game tick is judged once, also the ones a late reactor skipped (the tick count jumps; the judge
    runs each missed tick's schedule on the next tick), so samples stay one per game second with no gap.

    Remove it with ``game.functions.remove(name)`` (the episode runner does at the end of the episode).
    """
    game = server.game if isinstance(server, EmbeddedServer) else server
    assert game is not None, "attach_judge: the server is not started"
    world = EmbeddedJudgeWorld(game)

    seen = [0]

    def tick(t: int) -> None:
        if judge.start_tick is None:
            judge.begin(world, t)
        else:  # a late reactor's skipped ticks advance the count by more than one: judge each of them
            for n in range(seen[0] + 1, t + 1):
                judge.on_tick(world, n)
        seen[0] = t

    game.functions.install(name, tick)
    return world


async def connect_judge_players(server: EmbeddedServer, spec: ArenaSpec) -> list[Body]:
    """Connect the arena's judge players (Dash & Dine's ``Red_Server`` and ``Blue_Server``) as ordinary
    clients, put each in its game mode at its spot, and return their bodies (disconnect them at the end).

    They are real players because deliveries are items tossed to them and picked up by the server's item
    physics, as in the original (where each judge is a Mineflayer bot); a spectator judge of no team
    (Mushroom War's) is not needed by our judge and is not connected.
    """
    game = server.game
    assert game is not None, "connect_judge_players: the server is not started"
    console = game.commands.executor.console_source("Judge")
    bodies: list[Body] = []
    for j in spec.judges:
        if j.team is None:
            continue
        body = Body(BodyConfig(port=server.port, username=j.name, view_distance=2))
        await body.connect()
        bodies.append(body)
        x, y, z = j.pos
        game.commands.executor.run(console, f"gamemode {j.game_mode} {j.name}")
        game.commands.executor.run(console, f"tp {j.name} {x + 0.5} {y} {z + 0.5}")
    return bodies
