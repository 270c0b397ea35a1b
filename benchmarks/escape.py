"""Predicament benchmark (issue 21): our body's skills vs Mineflayer 4.25.0 + mineflayer-pathfinder 2.4.5.

Usage::

    python benchmarks/escape.py                       # 9 kinds x 10 seeds, both clients (~1 h on 2 cores)
    python benchmarks/escape.py --kinds pit,ravine --seeds 3 --clients body
    python benchmarks/escape.py --json escape.json
    python benchmarks/escape.py --clients body --json body.json      # one client per process, in parallel,
    python benchmarks/escape.py --clients mineflayer --json mf.json  # then one table of both:
    python benchmarks/escape.py --report body.json mf.json

Each trial is a seeded predicament from ``tests/support/predicaments.py`` built on the sandbox world's free
plain — a pit 3-8 deep, a sealed 1x1 shaft, a sunken pond, a cave pocket under the surface, the top of a
5-high pillar, under a jungle canopy walled in by leaves, an island in a ring of water, a ravine to cross,
and (the ninth kind, no way out) sealed in bedrock — with a goal (a cell to stand on) and an inventory
(a stone pickaxe and shovel; even seeds also 16 cobblestone). Both clients get the same states, goals and
inventories, on the project's embedded server, each on its own server in this process:

* **our body** (100 ticks/s by default; the body follows the announced rate, the skills count game time):
  the scripted policy's :class:`~mirrorcraft.agents.scripted.ReachPolicy` choosing among the skills — ``go_to``
  the goal; a failure naming a way out is followed by that escape (``dig_up`` / ``pillar_up`` / ``dig_down``
  / ``tunnel``), one naming none by ``recover``, then ``go_to`` again; at most 5 actions; it stops at a
  failure that says there is no way out;
* **Mineflayer + mineflayer-pathfinder** (20 ticks/s: Mineflayer's physics runs on its own 50 ms clock):
  one ``bot.pathfinder.goto(GoalNear(goal, radius))`` with the pathfinder's default movements (digging,
  1x1 towers and parkour on; scaffolding blocks dirt and cobblestone), cut off after 60 s (1,200 ticks).

A trial escapes when the server sees the player at the goal at the end. Game time is the server's tick
count over the trial. Between trials the site's box is restored block by block and dropped items removed.
Prints escape rate, actions and median game time per kind for both clients side by side, and for the
sealed kind the ticks until our body reported it could not get out. Results are recorded in
docs/performance.md ("Predicaments").
"""

from __future__ import annotations

import argparse
import json
import math
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the predicament builders are shared with the tests

from support.predicaments import KINDS, SITES, Predicament, build  # noqa: E402

SITE = SITES[0]
MAX_ACTIONS = 5
PATHFINDER_TIMEOUT_S = 60.0


def _box_states(server: Any, box: tuple) -> dict[tuple[int, int, int], int]:
    (x0, y0, z0), (x1, y1, z1) = box
    world = server.game.world
    return {
        (x, y, z): world.get_block(x, y, z)
        for x in range(x0, x1 + 1)
        for y in range(y0, y1 + 1)
        for z in range(z0, z1 + 1)
    }


class Site:
    """A server's build site: its pristine blocks, restored before every trial."""

    def __init__(self, server: Any) -> None:
        self.server = server
        x, z = SITE
        self.box = ((x - 8, 50, z - 31), (x + 8, 82, z + 31))  # every kind's box, the ravine's included
        self.pristine = _box_states(server, self.box)

    def reset(self) -> int:
        """Put every changed block back and remove dropped items; returns how many blocks changed."""
        game = self.server.game
        changed = 0
        for pos, state in self.pristine.items():
            if game.world.get_block(*pos) != state:
                game.kernel.set_block(pos, state)
                changed += 1
        for it in list(game.items.entities.values()):
            game.items.remove(it)
        return changed

    def build(self, kind: str, seed: int) -> Predicament:
        self.reset()
        return build(kind, seed, lambda x, y, z, b: self.server.set_block(x, y, z, b), SITE)


def _give(server: Any, name: str, pred: Predicament) -> None:
    ex = server.game.commands.executor
    ex.run(ex.console_source(), f"clear {name}")
    for item, n in pred.inventory.items():
        server.give_item(name, item.removeprefix("minecraft:"), n)
    server.teleport(name, *pred.start)


async def body_trial(server: Any, pred: Predicament, index: int) -> dict:
    """Our body: the scripted ReachPolicy over the real skills and observations, at most MAX_ACTIONS."""
    from mirrorcraft.agents.scripted import ReachPolicy
    from mirrorcraft.contracts import TASKS, TaskId
    from mirrorcraft.mcproto_body import Body, BodyConfig
    from mirrorcraft.skills import ActionHistory, ObservationBuilder, SkillSet

    body = Body(BodyConfig(port=server.port, username=f"esc{index}", view_distance=4))
    await body.connect()
    await body.wait_chunks(radius=2, timeout=30)
    name = body.config.username
    skills = SkillSet(body)
    builder, history = ObservationBuilder(body, TASKS[TaskId.DIAMOND]), ActionHistory()
    try:
        _give(server, name, pred)
        await body.sleep(max(0.3, 30 / body.tick_rate))
        await skills.ctx.settle()
        policy = ReachPolicy(pred.goal)
        t0 = server.tick_count
        calls: list[dict] = []
        first_failure = None
        for _ in range(MAX_ACTIONS):
            call = policy.next(builder.build(history))
            if call is None:  # the last failure said there is no way out
                break
            a0 = server.tick_count
            report, _ = await skills.execute(call)
            history.record(call, report)
            calls.append({"call": call.name, "args": call.args, "status": report.status,
                          "message": report.message, "ticks": server.tick_count - a0,
                          "broken": sum(b.count for b in report.blocks_broken),
                          "placed": sum(b.count for b in report.blocks_placed)})  # fmt: skip
            if report.status == "failure" and first_failure is None:
                first_failure = server.tick_count - t0
            if pred.reached(server.position(name)):
                break
        return {
            "escaped": pred.reached(server.position(name)),
            "actions": len(calls),
            "ticks": server.tick_count - t0,
            "first_failure_ticks": first_failure,
            "calls": calls,
        }
    finally:
        await body.disconnect()


class _Node:
    """The Mineflayer side: one node process, its JSON lines read on a thread."""

    def __init__(self, port: int, name: str, pred: Predicament) -> None:
        x, y, z = pred.goal
        self.proc = subprocess.Popen(
            ["node", str(REPO / "benchmarks" / "node" / "escape_pathfinder.js"), "127.0.0.1", str(port), name,
             str(x), str(y), str(z), str(pred.radius), str(PATHFINDER_TIMEOUT_S)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
        )  # fmt: skip
        self.lines: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.put(json.loads(line))

    async def event(self, clock: Any, name: str, timeout: float) -> dict:
        from twisted.internet import task

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = self.lines.get_nowait()
            except queue.Empty:
                await task.deferLater(clock, 0.05, lambda: None)
                continue
            if msg.get("event") == "error":
                raise RuntimeError(f"mineflayer: {msg.get('error')}")
            if msg.get("event") == name:
                return msg
        raise TimeoutError(f"mineflayer: no {name} event in {timeout} s")

    def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


async def pathfinder_trial(server: Any, pred: Predicament, index: int) -> dict:
    """Mineflayer + mineflayer-pathfinder (default movements): one goto to the goal."""
    from twisted.internet import reactor, task

    name = f"mf{index}"
    node = _Node(server.port, name, pred)
    try:
        await node.event(reactor, "spawn", 60)
        _give(server, name, pred)
        await task.deferLater(reactor, 1.5, lambda: None)  # the teleport, the inventory, the chunks there
        t0 = server.tick_count
        node.send("go")
        done = await node.event(reactor, "done", PATHFINDER_TIMEOUT_S + 30)
        return {
            "escaped": pred.reached(server.position(name)),
            "actions": 1,
            "ticks": server.tick_count - t0,
            "error": done.get("error"),
            "resets": done.get("resets"),
        }
    finally:
        node.close()


def _start(world: Path, rate: float, seed: int) -> Any:
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer

    srv = EmbeddedServer(
        ServerConfig(world=world, port=0, tick_rate=rate, view_distance=4, episode_seed=seed)
    )
    srv.start()
    return srv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated predicament kinds")
    ap.add_argument("--seeds", type=int, default=10, help="seeds per kind (0..N-1)")
    ap.add_argument("--clients", default="body,mineflayer", help="body, mineflayer or both")
    ap.add_argument("--body-rate", type=float, default=100.0, help="our body's server ticks/s (default 100)")
    ap.add_argument("--json", help="write every trial here")
    ap.add_argument("--report", nargs="+", metavar="JSON", help="only print the table of earlier --json files "
                    "(e.g. one run per client, run side by side in two processes)")  # fmt: skip
    args = ap.parse_args()
    if args.report:
        rows = [r for f in args.report for r in json.loads(Path(f).read_text())]
        report(rows, [k for k in KINDS if any(r["kind"] == k for r in rows)],
               [c for c in ("body", "mineflayer") if any(r["client"] == c for r in rows)])  # fmt: skip
        return
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        ap.error(f"unknown kinds {sorted(unknown)}; kinds: {', '.join(KINDS)}")
    clients = [c for c in args.clients.split(",") if c]

    from twisted.internet import defer, reactor

    from mirrorcraft.worlds.sandbox import build_sandbox

    tmp = Path(tempfile.mkdtemp(prefix="escape-"))
    template = tmp / "template"
    build_sandbox(template, seed=0)
    servers: dict[str, Any] = {}
    for client, rate in (("body", args.body_rate), ("mineflayer", 20.0)):
        if client in clients:
            shutil.copytree(template, tmp / client)
            servers[client] = _start(tmp / client, rate, seed=21)
    rows: list[dict] = []

    async def run() -> None:
        try:
            sites = {c: Site(s) for c, s in servers.items()}
            n = 0
            for kind in kinds:
                for seed in range(args.seeds):
                    for client in clients:
                        n += 1
                        pred = sites[client].build(kind, seed)
                        t = time.monotonic()
                        trial = body_trial if client == "body" else pathfinder_trial
                        try:
                            res = await trial(servers[client], pred, n)
                        except (RuntimeError, TimeoutError, ConnectionError) as err:
                            res = {
                                "escaped": False,
                                "actions": 0,
                                "ticks": None,
                                "error": f"{type(err).__name__}: {err}",
                            }
                        res |= {"kind": kind, "seed": seed, "client": client, "params": pred.params,
                                "escapable": pred.escapable, "wall_s": round(time.monotonic() - t, 2)}  # fmt: skip
                        rows.append(res)
                        print(json.dumps({k: v for k, v in res.items() if k != "calls"}), flush=True)
        finally:
            for s in servers.values():
                s.stop()
            reactor.stop()

    reactor.callWhenRunning(lambda: defer.ensureDeferred(run()).addErrback(lambda f: print(f.getTraceback())))
    reactor.run()
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    report(rows, kinds, clients)


def _med(values: list) -> str:
    vals = [v for v in values if v is not None]
    return f"{statistics.median(vals):g}" if vals else "-"


def report(rows: list[dict], kinds: list[str], clients: list[str]) -> None:
    """The side-by-side table (Markdown)."""
    head = "| kind |" + "".join(f" {c}: escaped | actions | median ticks |" for c in clients)
    print(head)
    print("|---|" + "---:|---:|---:|" * len(clients))
    totals = {c: [0, 0] for c in clients}
    for kind in kinds:
        cells = []
        for c in clients:
            rs = [r for r in rows if r["kind"] == kind and r["client"] == c]
            won = sum(bool(r["escaped"]) for r in rs)
            if rs and rs[0]["escapable"]:
                totals[c][0] += won
                totals[c][1] += len(rs)
            ticks = [r["ticks"] for r in rs if r["escaped"]] if won else [r["ticks"] for r in rs]
            cells.append(f" {won}/{len(rs)} | {_med([r['actions'] for r in rs])} | {_med(ticks)} |")
        print(f"| {kind} |" + "".join(cells))
    for c in clients:
        won, n = totals[c]
        print(f"{c}: escapable kinds {won}/{n} = {100 * won / max(n, 1):.1f} %")
    sealed = [r for r in rows if not r["escapable"] and r["client"] == "body"]
    if sealed:
        firsts = [r.get("first_failure_ticks") for r in sealed]
        print(f"body, sealed kind: first failure report after {_med(firsts)} ticks (median), "
              f"max {max((f for f in firsts if f is not None), default=math.nan)}; "
              f"gave up after {_med([r['ticks'] for r in sealed])} ticks, {_med([r['actions'] for r in sealed])} actions")  # fmt: skip
    pf = [r for r in rows if not r["escapable"] and r["client"] == "mineflayer"]
    if pf:
        print(
            f"mineflayer, sealed kind: gave up after {_med([r['ticks'] for r in pf])} ticks (median); "
            f"errors {sorted({str(r.get('error')) for r in pf})}"
        )


if __name__ == "__main__":
    main()
