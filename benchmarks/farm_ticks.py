"""Tick work of the farm scenario without sockets: the tick cost the farm itself adds, free of client contention.

The same farm as ``server_load.py --scenario farm`` (32 x 32 moist farmland next to the sandbox spawn, water every
9th column, wheat at age 0, ``randomTickSpeed`` 200), played by N in-process players (real ``Player`` objects
whose transport drops what the server sends, joined through the real join sequence, standing near the spawn).
Ticks are run back to back with ``Game.tick``; the first ``--warmup`` are not counted. Prints the mean and p99
tick time, the random ticks per tick and the crops that matured.

    python benchmarks/farm_ticks.py [--players 4] [--ticks 300] [--warmup 100] [--speed 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.game import Game
from mirrorcraft.server.kernel import Player

FARM_SIZE, FARM_ORIGIN = 32, (-8, 64, -8)  # server_load.py's farm


class _Drop:
    """A transport that drops every packet (the server's sending cost is still paid)."""

    def send(self, name: str, body: bytes) -> None:
        pass

    def close(self, reason: str) -> None:
        pass


def lay_farm(game: Game) -> list[tuple[int, int, int]]:
    k, crops = game.kernel, []
    x0, y, z0 = FARM_ORIGIN
    air, dirt = facts.state_id("minecraft:air", {}), facts.state_id("minecraft:dirt", {})
    water = facts.state_id("minecraft:water", {"level": "0"})
    farmland = facts.state_id("minecraft:farmland", {"moisture": "7"})
    wheat = facts.state_id("minecraft:wheat", {"age": "0"})
    for x in range(x0, x0 + FARM_SIZE):
        for z in range(z0, z0 + FARM_SIZE):
            for dy in range(1, 8):
                k.set_block((x, y + dy, z), air)
            k.set_block((x, y - 1, z), dirt)
            if (x - x0) % 9 == 4:
                k.set_block((x, y, z), water)
            else:
                k.set_block((x, y, z), farmland)
                k.set_block((x, y + 1, z), wheat)
                crops.append((x, y + 1, z))
    return crops


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--speed", type=int, default=200, help="randomTickSpeed (default 200)")
    args = ap.parse_args()
    from mirrorcraft.worlds.sandbox import build_sandbox

    world = Path(tempfile.mkdtemp(prefix="mc-farm-ticks-")) / "world"
    build_sandbox(world, 0)
    game = Game(ServerConfig(world=world, port=0, view_distance=4))
    for i in range(args.players):
        p = Player(f"p{i}", uuid.UUID(int=i + 1, version=4), _Drop(), 760)
        game.connect(p)
        p.pos = [8.5 + i, 65.0, 8.5]
        p.pending_teleport = None
    crops = lay_farm(game)
    game.admin.set_game_rule("randomTickSpeed", args.speed)
    times = []
    hits0 = 0
    for i in range(args.warmup + args.ticks):
        if i == args.warmup:
            hits0 = game.random_ticks.hits
        t = time.perf_counter()
        game.tick()
        times.append(time.perf_counter() - t)
    counted = sorted(times[args.warmup :])
    mature = sum(int(facts.state_props(game.world.get_block(*c)).get("age", -1)) == 7 for c in crops)
    print(
        json.dumps(
            {
                "players": args.players,
                "ticks": args.ticks,
                "tick_mean_ms": round(statistics.fmean(counted) * 1000, 3),
                "tick_p99_ms": round(counted[min(len(counted) - 1, int(len(counted) * 0.99))] * 1000, 3),
                "tick_max_ms": round(counted[-1] * 1000, 3),
                "random_ticks_per_tick": round((game.random_ticks.hits - hits0) / args.ticks, 1),
                "crops": len(crops),
                "crops_mature": mature,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
