"""Load benchmark of the embedded server: N Mineflayer bots walking and digging on the sandbox world, without or
with a farm.

For each N (default 1, 4, 8) a fresh copy of the sandbox is served in this process at 20 ticks/s; N
``tests/node/walker.js`` bots join, walk in random directions and dig the ground for ``--seconds``. The
report gives the server's mean and p99 tick time (tick work only, measured around ``Game.tick``), the
mean and p99 interval between tick starts (50 ms ideal; longer when packet handling and chunk encoding
between ticks load the reactor), chunks
sent per second, the server's RSS and CPU time (this process only), and the bots' digs. The Node bots run
on the same machine and compete for the same cores as the server: on a 2-core box the numbers include
that contention.

The **farm scenario** (``--scenario farm``, issue 24) lays a 32 x 32 farm next to the spawn before the bots
join — moist farmland (water channels every 8 columns, as the arena farms are watered) under wheat at age 0 —
and runs at ``randomTickSpeed`` 200 (Dash & Dine's rate): the crops grow to maturity during the run, the
farmland and the sandbox's grass random-tick every tick in every chunk near a bot. The report adds the random
ticks run per tick and the crops that matured.

    python benchmarks/server_load.py [--bots 1 4 8] [--seconds 20] [--scenario plain|farm] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from twisted.internet import defer, protocol, reactor, task

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[1]
WALKER = REPO / "tests" / "node" / "walker.js"


class Walker(protocol.ProcessProtocol):
    def __init__(self) -> None:
        self.ready: defer.Deferred = defer.Deferred()
        self.ended: defer.Deferred = defer.Deferred()
        self.result: dict = {}
        self._buf = b""

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if msg.get("event") == "ready" and not self.ready.called:
                self.ready.callback(None)
            elif msg.get("event") == "done":
                self.result = msg
            elif msg.get("event") == "kicked":
                self.result = msg

    def processEnded(self, reason) -> None:  # noqa: N802 - Twisted API
        if not self.ready.called:
            self.ready.errback(RuntimeError("walker ended before ready"))
        self.ended.callback(None)


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


FARM_SIZE = 32
FARM_ORIGIN = (
    -8,
    64,
    -8,
)  # the sandbox's spawn is (8, 65, 8): the farm's ground level, at its north-west corner


def lay_farm(server: EmbeddedServer, size: int = FARM_SIZE) -> list[tuple[int, int, int]]:
    """Lay the benchmark farm (module docstring) through the test hook; returns the crop cells."""
    x0, y, z0 = FARM_ORIGIN
    crops = []
    for x in range(x0, x0 + size):
        for z in range(z0, z0 + size):
            for dy in range(1, 8):  # clear trees and anything else above the plot
                server.set_block(x, y + dy, z, "minecraft:air")
            server.set_block(x, y - 1, z, "minecraft:dirt")
            if (x - x0) % 9 == 4:
                server.set_block(x, y, z, "minecraft:water")
            else:
                server.set_block(x, y, z, "minecraft:farmland", moisture="7")
                server.set_block(x, y + 1, z, "minecraft:wheat", age="0")
                crops.append((x, y + 1, z))
    return crops


async def run_one(n: int, seconds: float, template: Path, scenario: str = "plain") -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="mc-load-"))
    world = tmp / "world"
    shutil.copytree(template, world)
    server = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=20, view_distance=4))
    port = server.start()
    crops: list[tuple[int, int, int]] = []
    if scenario == "farm":
        crops = lay_farm(server)
        server.game.admin.set_game_rule("randomTickSpeed", 200)
    node = shutil.which("node")
    walkers = []
    for i in range(n):
        w = Walker()
        reactor.spawnProcess(
            w,
            node,
            [node, str(WALKER), "127.0.0.1", str(port), f"w{i}", str(seconds), str(i + 1)],
            env=dict(os.environ),
        )
        walkers.append(w)
    await defer.gatherResults([w.ready for w in walkers])
    game = server.game
    assert game is not None
    game.tick_times.clear()
    game.tick_starts.clear()
    chunks0, cpu0, t0 = game.chunks_sent, time.process_time(), time.monotonic()
    hits0 = game.random_ticks.hits
    await defer.gatherResults([w.ended for w in walkers])
    elapsed = time.monotonic() - t0
    times = sorted(game.tick_times)
    gaps = sorted(b - a for a, b in zip(game.tick_starts, game.tick_starts[1:], strict=False))
    res = {
        "scenario": scenario,
        "bots": n,
        "seconds": round(elapsed, 1),
        "ticks": len(times),
        "tick_mean_ms": round(statistics.fmean(times) * 1000, 3),
        "tick_p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, 3),
        "tick_max_ms": round(times[-1] * 1000, 3),
        "interval_mean_ms": round(statistics.fmean(gaps) * 1000, 2),
        "interval_p99_ms": round(gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))] * 1000, 2),
        "chunks_per_s": round((game.chunks_sent - chunks0) / elapsed, 1),
        "server_cpu_s": round(time.process_time() - cpu0, 2),
        "server_rss_mb": round(_rss_mb(), 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "digs": sum(w.result.get("digs", 0) for w in walkers),
        "moves": sum(w.result.get("moves", 0) for w in walkers),
        "digs_timed_out": sum(w.result.get("refused", 0) for w in walkers),
        "kicked": [w.result.get("reason") for w in walkers if w.result.get("event") == "kicked"],
        "random_ticks_per_tick": round((game.random_ticks.hits - hits0) / max(len(times), 1), 1),
    }
    if crops:
        res["crops"] = len(crops)
        res["crops_mature"] = sum(server.block_at(*c) == "wheat" and _age(server, c) == 7 for c in crops)
    await defer.maybeDeferred(server.stop)
    shutil.rmtree(tmp, ignore_errors=True)
    return res


def _age(server: EmbeddedServer, pos: tuple[int, int, int]) -> int:
    from mirrorcraft.server import facts

    return int(facts.state_props(server.game.world.get_block(*pos)).get("age", -1))


async def main_async(args: argparse.Namespace) -> list[dict]:
    from mirrorcraft.worlds.sandbox import build_sandbox

    tmp = Path(tempfile.mkdtemp(prefix="mc-load-template-"))
    template = tmp / "world"
    build_sandbox(template, 0)
    results = []
    for n in args.bots:
        r = await run_one(n, args.seconds, template, args.scenario)
        print(json.dumps(r), flush=True)
        results.append(r)
    shutil.rmtree(tmp, ignore_errors=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--scenario", choices=["plain", "farm"], default="plain")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    results: list[dict] = []

    async def run() -> None:
        results.extend(await main_async(args))
        if args.json is not None:
            args.json.write_text(json.dumps(results, indent=2) + "\n")

    task.react(lambda _reactor: defer.ensureDeferred(run()))  # exits the process
    return 0


if __name__ == "__main__":
    sys.exit(main())
