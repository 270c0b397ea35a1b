"""Accelerated-mode benchmark of the embedded server: the tick rate it reaches while bots play the early route.

For each requested tick rate (default 200, 400, 1000 ticks/s, plus vanilla 20 as the reference) and each
bot count (default 1 and 4), a fresh copy of the sandbox is served in this process and N Mineflayer bots
(``tests/node/driver.js``, raw window clicks) each play the early route on their own patch of
ground: dig a log → planks in the 2x2 grid → crafting table, placed → sticks and a wooden pickaxe → dig
three stone → stone pickaxe → dig iron ore → a furnace, placed → eight raw iron smelted with one coal (1,600
game ticks of furnace work, the part of the route bound by game time). The test hook only sets blocks,
gives the raw materials the route would gather elsewhere, and teleports.

Why two tick counts: the game loop is a Twisted ``LoopingCall`` at ``1 / tick_rate``; when the reactor falls
behind, the missed intervals still advance game time (``Game._ticks``: furnaces catch up tick by tick,
items run up to 4 extra physics steps, the rest — mobs, broadcasts — runs once). So the report gives
``game_tps`` (game ticks per wall second: what furnaces, digging and cooldowns experience) and ``run_tps``
(full ``Game.tick`` calls per wall second: how often mobs, windows and movement broadcasts actually update).
``speedup`` is ``game_tps / 20``. ``tick_ms`` is the work inside one full tick (mean / p99);
``cpu_share`` is this process's CPU time over wall time (1.0 = one core saturated). The Node bots run on
the same machine (2 cores here) and compete with the server.

    python benchmarks/server_accel.py [--rates 20 200 400 1000] [--bots 1 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from twisted.internet import defer, protocol, reactor, task

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[1]
BOT2 = REPO / "tests" / "node" / "driver.js"  # the one Mineflayer test client
SMELT_TICKS = 8 * 200  # eight raw iron, 200 ticks each in a furnace (vanilla cooking time)


class Bot(protocol.ProcessProtocol):
    """One ``tests/node/driver.js`` process: JSON commands on stdin, replies/events on stdout."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.buf = b""
        self.next = 0
        self.replies: dict[int, defer.Deferred] = {}
        self.ready: defer.Deferred = defer.Deferred()
        self.stderr = b""

    def outReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "id" in msg and msg["id"] in self.replies:
                self.replies.pop(msg["id"]).callback(msg)
            elif msg.get("event") == "ready" and not self.ready.called:
                self.ready.callback(msg)

    def errReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.stderr += data

    def processEnded(self, reason) -> None:  # noqa: N802 - Twisted API
        err = RuntimeError(f"bot {self.name} ended: {self.stderr.decode(errors='replace')[-500:]}")
        for d in [*self.replies.values(), self.ready]:
            if not d.called:
                d.errback(err)
        self.replies.clear()

    async def cmd(self, cmd: str, timeout: float = 60.0, **args: Any) -> dict[str, Any]:
        self.next += 1
        d: defer.Deferred = defer.Deferred()
        self.replies[self.next] = d
        self.transport.write((json.dumps({"id": self.next, "cmd": cmd, **args}) + "\n").encode())
        d.addTimeout(timeout, reactor)
        res = await d
        if not res.get("ok"):
            raise RuntimeError(f"{self.name}: {cmd} {args} failed: {res.get('error')}")
        return res


async def _sleep(s: float) -> None:
    await task.deferLater(reactor, s, lambda: None)


async def route(srv: EmbeddedServer, bot: Bot, base: tuple[int, int]) -> dict[str, float]:
    """The early route for one bot standing at ``base`` (x, z); returns wall seconds per phase."""
    bx, bz = base
    name = bot.name
    stand = (bx + 0.5, 65.0, bz + 0.5)
    cells = [
        (bx + 2, bz - 1),
        (bx + 2, bz),
        (bx + 2, bz + 1),
        (bx, bz + 2),
        (bx - 1, bz + 2),
        (bx, bz),
        (bx - 1, bz),
    ]
    for x, z in cells:
        srv.set_block(x, 64, z, "grass_block", snowy="false")
        srv.set_block(x, 65, z, "air")
        srv.set_block(x, 66, z, "air")
    srv.teleport(name, *stand)
    await _sleep(0.5)
    phases: dict[str, float] = {}
    t = time.monotonic()

    def lap(phase: str) -> None:
        nonlocal t
        now = time.monotonic()
        phases[phase] = round(now - t, 2)
        t = now

    async def dig_at(x: int, z: int) -> None:
        block = srv.block_at(x, 65, z)
        await bot.cmd("dig", x=x, y=65, z=z, name=block)
        srv.teleport(name, x + 0.5, 65.0, z + 0.5)  # step onto the drop (pickup delay: 10 game ticks)
        await _sleep(0.2 + 15.0 / srv.config.tick_rate)
        srv.teleport(name, *stand)
        await _sleep(0.2)

    async def wait_item(item: str, at_least: int) -> None:
        got = await bot.cmd("wait_item", name=item, atLeast=at_least)
        if not got["got"]:
            raise RuntimeError(f"{name}: {got['count']} {item}, expected {at_least}: {srv.inventory(name)}")

    async def craft_at(table: tuple[int, int, int], grid: list, shift: bool = False) -> dict:
        await bot.cmd("open", x=table[0], y=table[1], z=table[2])
        try:
            res = await bot.cmd("craft", grid=grid, shift=shift)
        except RuntimeError as err:
            raise RuntimeError(f"{err}; the server's inventory: {srv.inventory(name)}") from err
        await bot.cmd("close")
        return res

    srv.set_block(bx + 2, 65, bz, "oak_log", axis="y")
    await _sleep(0.1)
    await dig_at(bx + 2, bz)
    await wait_item("oak_log", 1)
    srv.give_item(name, "oak_log", 2)
    await wait_item("oak_log", 3)
    await bot.cmd("put", slot=1, name="oak_log")
    await bot.cmd("shift", slot=0)
    await wait_item("oak_planks", 12)
    lap("log_planks")
    p, s, c = "oak_planks", "stick", "cobblestone"
    await bot.cmd("craft", grid=[[1, p], [2, p], [3, p], [4, p]])
    await bot.cmd("equip", name="crafting_table")
    await bot.cmd("place", against=[bx, 64, bz + 2], face=[0, 1, 0])
    table = (bx, 65, bz + 2)
    await craft_at(table, [[2, p], [5, p]], shift=True)
    res = await craft_at(table, [[1, p], [2, p], [3, p], [5, s], [8, s]])
    if res["result"] != ["wooden_pickaxe", 1]:
        raise RuntimeError(f"{name}: wooden pickaxe craft gave {res['result']}")
    lap("table_pickaxe")
    await bot.cmd("equip", name="wooden_pickaxe")
    for dz in (-1, 0, 1):
        srv.set_block(bx + 2, 65, bz + dz, "stone")
        await _sleep(0.1)
        await dig_at(bx + 2, bz + dz)
    await wait_item(c, 3)
    srv.give_item(name, s, 2)
    await craft_at(table, [[1, c], [2, c], [3, c], [5, s], [8, s]])
    lap("stone_pickaxe")
    await bot.cmd("equip", name="stone_pickaxe")
    srv.set_block(bx + 2, 65, bz, "iron_ore")
    await _sleep(0.1)
    await dig_at(bx + 2, bz)
    await wait_item("raw_iron", 1)
    srv.give_item(name, "raw_iron", 7)
    srv.give_item(name, "coal", 1)
    srv.give_item(name, c, 8)
    await wait_item(c, 8)
    await craft_at(table, [[i, c] for i in (1, 2, 3, 4, 6, 7, 8, 9)])
    await bot.cmd("equip", name="furnace")
    await bot.cmd("place", against=[bx - 1, 64, bz + 2], face=[0, 1, 0])
    lap("iron_furnace")
    await bot.cmd("open", x=bx - 1, y=65, z=bz + 2)
    await bot.cmd("put", slot=0, name="raw_iron")
    await bot.cmd("put", slot=1, name="coal")
    wait_s = max(10.0, SMELT_TICKS / srv.config.tick_rate * 3)
    done = await bot.cmd(
        "wait_slot", slot=2, name="iron_ingot", atLeast=8, ms=int(wait_s * 1000), timeout=wait_s + 30
    )
    if not done["ok"]:
        raise RuntimeError(f"{name}: the furnace did not finish 8 ingots in {wait_s:.0f} s")
    await bot.cmd("shift", slot=2)
    await bot.cmd("close")
    lap("smelt8")
    return phases


async def run_one(rate: float, n: int, template: Path) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="mc-accel-"))
    world = tmp / "world"
    shutil.copytree(template, world)
    srv = EmbeddedServer(ServerConfig(world=world, port=0, tick_rate=rate, view_distance=4, episode_seed=1))
    port = srv.start()
    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is required (the bots are Mineflayer)")
    bots = []
    for i in range(n):
        b = Bot(f"acc{i}")
        reactor.spawnProcess(b, node, [node, str(BOT2), "127.0.0.1", str(port), b.name], env=dict(os.environ))
        bots.append(b)
    try:
        await defer.gatherResults([b.ready for b in bots], consumeErrors=True)
        game = srv.game
        assert game is not None
        await _sleep(1.0)
        game.tick_times.clear()
        game.tick_starts.clear()
        ticks0, cpu0, t0 = game.tick_count, time.process_time(), time.monotonic()
        bases = [(8, 8 - 12 * i) for i in range(n)]  # one 3x4 patch per bot, 12 blocks apart
        phases = await defer.gatherResults(
            [defer.ensureDeferred(route(srv, b, base)) for b, base in zip(bots, bases, strict=True)],
            consumeErrors=True,
        )
        wall = time.monotonic() - t0
        game_ticks = game.tick_count - ticks0
        times = sorted(game.tick_times)
        smelt = [ph["smelt8"] for ph in phases]
        res = {
            "requested_tps": rate,
            "bots": n,
            "wall_s": round(wall, 1),
            "game_tps": round(game_ticks / wall, 1),
            "run_tps": round(len(times) / wall, 1),
            "speedup": round(game_ticks / wall / 20.0, 2),
            "tick_ms_mean": round(statistics.fmean(times) * 1000, 3),
            "tick_ms_p99": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, 3),
            "cpu_share": round((time.process_time() - cpu0) / wall, 2),
            "smelt8_wall_s": round(max(smelt), 2),
            "smelt8_speedup": round(SMELT_TICKS / 20.0 / max(smelt), 2),
            "phases": phases,
        }
    finally:
        for b in bots:
            try:
                b.transport.signalProcess("KILL")
            except Exception:  # noqa: BLE001 - already gone
                pass
        await defer.maybeDeferred(srv.stop)
        shutil.rmtree(tmp, ignore_errors=True)
    return res


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    from mirrorcraft.worlds.sandbox import build_sandbox

    tmp = Path(tempfile.mkdtemp(prefix="mc-accel-template-"))
    template = tmp / "world"
    build_sandbox(template, 0)
    results = []
    for rate in args.rates:
        for n in args.bots:
            if rate <= 20 and n > 1 and not args.all_baselines:
                continue  # the 20 t/s reference run once (1 bot) unless asked
            r = await run_one(rate, n, template)
            print(json.dumps(r), flush=True)
            results.append(r)
    shutil.rmtree(tmp, ignore_errors=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[20.0, 200.0, 400.0, 1000.0])
    parser.add_argument("--bots", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--all-baselines", action="store_true", help="also run 20 t/s with every bot count")
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []

    async def run() -> None:
        results.extend(await main_async(args))
        if args.json is not None:
            args.json.write_text(json.dumps(results, indent=2) + "\n")

    task.react(lambda _reactor: defer.ensureDeferred(run()))  # exits the process
    return 0


if __name__ == "__main__":
    sys.exit(main())
