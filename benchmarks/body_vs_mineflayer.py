"""Benchmark: the pure-Python body (mirrorcraft.mcproto_body) vs Mineflayer 4.25.0 on the same server, one run.

Usage::

    python benchmarks/body_vs_mineflayer.py [--server embedded|squid] [--runs 3]

The server runs in a child process — the embedded server on a fresh sandbox world (default), or
flying-squid 1.12.0 superflat (``--server squid``) — so neither client shares a process with it. Then, on
that one server, alternating per run:

* **connect → ready**: seconds from opening the connection to "spawned and the 5×5 chunk columns around
  the player decoded" (Mineflayer's own ``waitForChunksToLoad`` criterion; the body's ``wait_chunks(2)``);
* the server is warmed first by a throw-away Mineflayer session (its first login loads or generates
  chunks), then each client's first session is "cold" for the client only;
* **client RSS**: resident memory of the client process after it is ready (the body's process holds only
  the body: Python, numpy, Twisted, quarry, the game-data tables);
* **planning a 64-block path**: the body's A* (grid extraction + search) from the spawn to a cell 64 blocks
  away — walking only, and as the walking skills plan (walking plus one obstruction: at most 2 blocks
  broken, ``max_dig_blocks=2``) — and then, in two more Mineflayer sessions, mineflayer-pathfinder 2.4.5
  planning to the same goal (``GoalNearXZ``, radius 2) once the view-distance columns are loaded: with the
  moves the body's planner has (no digging, no scaffolding, no parkour) and with its default movements
  (digging, 1x1 towers, parkour, scaffolding on); each the median of 5 plans. Both are also compared with
  the physical limit (sprinting the path at 5.612 m/s).

Prints a table and the ratios; results are recorded in docs/performance.md and docs/body.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SPRINT_SPEED = 5.612  # m/s, Minecraft wiki "Sprinting"


def _rss_mb(pid: int | None = None) -> float:
    text = Path(f"/proc/{pid or 'self'}/status").read_text()
    kb = next(int(line.split()[1]) for line in text.splitlines() if line.startswith("VmRSS:"))
    return kb / 1024


def serve_embedded(view_distance: int) -> None:
    """Child mode: build a sandbox world, run the embedded server, print its port, stop on stdin EOF."""
    from twisted.internet import reactor, stdio
    from twisted.protocols.basic import LineReceiver

    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer
    from mirrorcraft.worlds.sandbox import build_sandbox

    world = Path(tempfile.mkdtemp(prefix="bench-sandbox-")) / "world"
    build_sandbox(world, seed=0)
    srv = EmbeddedServer(ServerConfig(world=world, port=0, view_distance=view_distance, episode_seed=1))
    port = srv.start()
    print(json.dumps({"port": port}), flush=True)

    class Stdin(LineReceiver):
        delimiter = b"\n"

        def connectionLost(self, reason=None):  # noqa: N802 - Twisted API
            reactor.stop()

    stdio.StandardIO(Stdin())
    reactor.run()


def start_server(kind: str, view_distance: int) -> tuple[subprocess.Popen, int]:
    """Start the server child; returns (process, port)."""
    if kind == "embedded":
        cmd = [sys.executable, __file__, "--serve-embedded", "--view-distance", str(view_distance)]
    else:
        opts = {"port": 0, "version": "1.19.2", "viewDistance": view_distance, "timeoutS": 600}
        cmd = ["node", str(REPO / "benchmarks" / "node" / "squid_server.js"), json.dumps(opts)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
    deadline = time.time() + 120
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("{"):
            msg = json.loads(line)
            if "port" in msg:
                return proc, int(msg["port"])
        if time.time() > deadline:
            break
    proc.kill()
    raise RuntimeError(f"{kind} server did not start")


def run_mineflayer(
    port: int, name: str, goal: tuple[int, int, float] | None = None, moves: str = "walk"
) -> dict:
    """One Mineflayer session (a node process): spawn/chunk times and RSS; with ``goal`` (x, z, radius) also
    mineflayer-pathfinder's plan there (``moves``: ``walk`` = the body's move set, ``default`` = its own)."""
    out = subprocess.run(
        [
            "node",
            str(REPO / "benchmarks" / "node" / "mineflayer_bench.js"),
            "127.0.0.1",
            str(port),
            name,
            "1.19.2",
            *([str(v) for v in goal] + [moves] if goal else []),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=REPO,
    )
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            msg = json.loads(line)
            if "error" in msg:
                raise RuntimeError(f"mineflayer: {msg['error']}")
            return msg
    raise RuntimeError(f"mineflayer printed nothing: {out.stderr[-500:]}")


async def run_body(port: int, name: str, view_distance: int, plan: bool) -> dict:
    """One body session: spawn/chunk times, RSS, and (optionally) 64-block planning."""
    from mirrorcraft.mcproto_body import Body, BodyConfig
    from mirrorcraft.pathing import Goal, PathFollower

    body = Body(BodyConfig(port=port, username=name, view_distance=view_distance))
    t0 = time.perf_counter()
    await body.connect()
    spawn_s = time.perf_counter() - t0
    ok = await body.wait_chunks(radius=2, timeout=60)
    chunks_s = time.perf_counter() - t0
    row = {
        "spawn_s": spawn_s,
        "chunks_s": chunks_s,
        "columns": len(body.world.columns),
        "ok": ok,
        "rss_mb": _rss_mb(),
    }
    if plan:
        await body.wait_chunks(radius=view_distance - 1, timeout=60)
        await body.sleep(1.0)
        x, y, z = body.movement.block_position()
        follower = PathFollower(body, search_radius=80, max_nodes=200_000, max_seconds=20.0)
        best = None
        for dx, dz in ((64, 0), (-64, 0), (0, 64), (0, -64), (45, 45), (-45, -45), (45, -45), (-45, 45)):
            goal = Goal(x + dx, None, z + dz, radius=2.0)
            times, res = [], None
            for _ in range(5):
                t = time.perf_counter()
                res = follower.plan(goal)
                times.append(time.perf_counter() - t)
            if res is not None and res.status == "found":
                length = sum(
                    math.dist(a.cell, b.cell) for a, b in zip(res.steps, res.steps[1:], strict=False)
                )
                best = {
                    "goal": [goal.x, goal.z, goal.radius],
                    "plan_s": statistics.median(times),
                    "nodes": res.nodes,
                    "steps": len(res.steps),
                    "path_blocks": length,
                    "status": res.status,
                }
                # as the walking skills plan: walking plus one obstruction (at most 2 blocks broken)
                one = PathFollower(body, search_radius=80, max_nodes=200_000, max_seconds=20.0, dig_cost=4.0,
                                   max_dig_blocks=2)  # fmt: skip
                times = []
                for _ in range(5):
                    t = time.perf_counter()
                    r2 = one.plan(goal)
                    times.append(time.perf_counter() - t)
                best["one_obstruction"] = {"plan_s": statistics.median(times), "nodes": r2.nodes,
                                           "status": r2.status}  # fmt: skip
                break
        row["plan"] = best
    await body.disconnect()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server", choices=["embedded", "squid"], default="embedded")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--view-distance", type=int, default=6)
    ap.add_argument("--serve-embedded", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_embedded:
        serve_embedded(args.view_distance)
        return

    from twisted.internet import defer, reactor

    proc, port = start_server(args.server, args.view_distance)
    results: dict[str, list[dict]] = {"body": [], "mineflayer": [], "pathfinder": []}

    async def session() -> None:
        try:
            # Warm the *server* (first-login chunk loading/generation) with a throw-away Mineflayer session in
            # its own process, so the body's first, client-cold session does not pay the server's cold start.
            await defer.ensureDeferred(_in_thread(run_mineflayer, port, "warmup"))
            for i in range(args.runs):
                order = ["body", "mineflayer"] if i % 2 == 0 else ["mineflayer", "body"]
                for who in order:
                    if who == "body":
                        results["body"].append(
                            await run_body(port, f"body{i}", args.view_distance, plan=i == 0)
                        )
                    else:
                        results["mineflayer"].append(
                            await defer.ensureDeferred(_in_thread(run_mineflayer, port, f"mf{i}"))
                        )
            # mineflayer-pathfinder to the goal the body planned to (its own session: not timed above)
            plan = results["body"][0].get("plan") if results["body"] else None
            if plan:
                for i, moves in enumerate(("walk", "default")):
                    row = await defer.ensureDeferred(
                        _in_thread(run_mineflayer, port, f"mfplan{i}", tuple(plan["goal"]), moves)
                    )
                    results["pathfinder"].append(row["plan"])
        finally:
            reactor.stop()

    async def _in_thread(fn, *a):
        from twisted.internet.threads import deferToThread

        return await deferToThread(fn, *a)

    reactor.callWhenRunning(lambda: defer.ensureDeferred(session()).addErrback(lambda f: f.printTraceback()))
    reactor.run()
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    report(args, results)


def report(args: argparse.Namespace, results: dict[str, list[dict]]) -> None:
    """Print the comparison table and ratios."""
    body, mf = results["body"], results["mineflayer"]
    if not body or not mf:
        print("incomplete run:", json.dumps(results, indent=1))
        return

    def med(rows: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in rows)

    print(
        f"server: {args.server} (child process), runs: {args.runs}, view distance {args.view_distance}, "
        f"python {sys.version.split()[0]}, node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}, "
        f"cpus {os.cpu_count()}"
    )
    # Every Mineflayer session is a fresh node process (cold); the body's first session is cold too (imports,
    # game-data tables), later ones reuse the process as the harness does (many episodes per process).
    cold, warm = body[0], body[1:] or body[:1]
    print(
        f"{'metric':46s} {'body cold':>9s} {'body warm':>9s} {'mineflayer':>10s} {'mf/cold':>7s} {'mf/warm':>7s}"
    )
    for key, label in (
        ("spawn_s", "connect -> spawn (s)"),
        ("chunks_s", "connect -> spawn + 5x5 columns decoded (s)"),
    ):
        c, w, m = cold[key], med(warm, key), med(mf, key)
        print(f"{label:46s} {c:9.3f} {w:9.3f} {m:10.3f} {m / c:7.2f} {m / w:7.2f}")
    c, m = cold["rss_mb"], med(mf, "rss_mb")
    print(f"{'client RSS after ready, first session (MB)':46s} {c:9.1f} {'':9s} {m:10.1f} {m / c:7.2f}")
    print(f"{'columns loaded at ready':46s} {med(body, 'columns'):9.0f} {'':9s} {med(mf, 'columns'):10.0f}")
    plan = body[0].get("plan")
    if plan:
        phys = plan["path_blocks"] / SPRINT_SPEED
        print(
            f"64-block plan to {plan['goal'][:2]}: body {plan['plan_s'] * 1000:.1f} ms (median of 5), "
            f"{plan['nodes']} nodes, path {plan['path_blocks']:.1f} blocks; sprinting it takes {phys:.1f} s -> "
            f"planning is {plan['plan_s'] / phys * 100:.2f}% of the physical limit."
        )
        one = plan.get("one_obstruction")
        if one:
            print(
                f"  body, walking plus one obstruction (max 2 blocks): {one['plan_s'] * 1000:.1f} ms, "
                f"{one['nodes']} nodes, {one['status']}"
            )
        for p in results.get("pathfinder") or []:
            if p.get("status") == "success":
                print(
                    f"  mineflayer-pathfinder ({p.get('moves')} moves) to the same goal: {p['plan_s'] * 1000:.1f} ms "
                    f"(median of 5), {p['nodes']} nodes visited, path {p['path_blocks']:.1f} blocks; "
                    f"pathfinder/body time ratio {p['plan_s'] / plan['plan_s']:.2f}"
                )
            else:
                print(f"  mineflayer-pathfinder ({p.get('moves')} moves) to the same goal: no path ({p})")
    else:
        print("64-block plan: no reachable goal found 64 blocks from the spawn")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
