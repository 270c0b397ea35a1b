"""Lockstep vs free-running on the same skill calls (issue 23, phase 1): game ticks used and wall time.

A fresh copy of the sandbox world is served in this process (``episode_seed`` 7) and our body runs the
same skill calls (default: ``mine oak_log ×2``, ``explore north``, ``mine dirt``) under each clock mode:
lockstep paced at ``--rate`` (20 t/s: real time), lockstep unpaced, and free-running at the rates given with
``--free``. For each mode it prints per call the status and ``ticks_used``, the server's tick count after
the call, the final position and inventory, and the wall and CPU time; then whether the lockstep runs
agree exactly (they must: docs/lockstep.md) and the unpaced speed-up over real time.

    python benchmarks/lockstep_skills.py [--rate 20] [--free 20 400] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from twisted.internet import defer, reactor, task

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("mine", {"block": "oak_log", "count": 2}),
    ("explore", {"direction": "north"}),
    ("mine", {"block": "dirt", "count": 1}),
]


async def run_mode(template: Path, clock: str, rate: float, paced: bool = True) -> dict[str, Any]:
    from mirrorcraft.mcproto_body import Body, BodyConfig
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.server.embedded import EmbeddedServer
    from mirrorcraft.skills import SkillSet

    root = Path(tempfile.mkdtemp(prefix="lockstep-bench-"))
    shutil.copytree(template, root / "world")
    srv = EmbeddedServer(
        ServerConfig(
            world=root / "world",
            port=0,
            tick_rate=rate,
            clock=clock,  # type: ignore[arg-type]
            lockstep_paced=paced,
            lockstep_timeout=120.0,
            episode_seed=7,
        )
    )
    srv.start()
    body = Body(BodyConfig(port=srv.port, username="bench"))
    try:
        await body.connect()
        if clock == "lockstep":
            while body.lockstep.announced is None:
                await task.deferLater(reactor, 0.01, lambda: None)
        else:
            await body.wait_chunks(radius=2, timeout=30)
        skills = SkillSet(body)
        calls = []
        t0, c0 = time.perf_counter(), time.process_time()
        k0 = srv.tick_count
        for name, args in CALLS:
            with body.lockstep.acting():
                rep = await skills.run(name, **args)
            calls.append([name, rep.status, rep.ticks_used, srv.tick_count - k0])
        return {
            "mode": f"{clock} {'paced' if paced else 'unpaced'} {rate:g} t/s"
            if clock == "lockstep"
            else f"free {rate:g} t/s",
            "calls": calls,
            "position": [round(v, 6) for v in body.movement.position],
            "inventory": sorted(srv.inventory("bench").values()),
            "wall_s": round(time.perf_counter() - t0, 2),
            "cpu_s": round(time.process_time() - c0, 2),
            "stalls": len(getattr(srv.game.kernel.clock, "stalls", [])),
        }
    finally:
        await body.disconnect()
        await defer.maybeDeferred(srv.stop)
        shutil.rmtree(root, ignore_errors=True)


async def main(args: argparse.Namespace) -> int:
    from mirrorcraft.worlds.sandbox import build_sandbox

    template = Path(tempfile.mkdtemp(prefix="lockstep-sandbox-")) / "world"
    build_sandbox(template, seed=0)
    results = [
        await run_mode(template, "lockstep", args.rate, paced=True),
        await run_mode(template, "lockstep", args.rate, paced=False),
    ]
    for rate in args.free:
        results.append(await run_mode(template, "free", rate))
    for r in results:
        print(f"{r['mode']:<28} wall {r['wall_s']:7.2f} s  cpu {r['cpu_s']:6.2f} s  stalls {r['stalls']}")
        for name, status, used, server in r["calls"]:
            print(f"    {name:<8} {status:<8} ticks_used {used:5d}  server ticks {server:5d}")
        print(f"    position {r['position']}  inventory {r['inventory']}")
    a, b = results[0], results[1]
    same = all(a[k] == b[k] for k in ("calls", "position", "inventory"))
    print(
        f"lockstep paced == unpaced: {same}; unpaced speed-up over paced: {a['wall_s'] / max(b['wall_s'], 1e-9):.1f}x"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rate", type=float, default=20.0, help="lockstep pace and announced rate (default 20)"
    )
    parser.add_argument(
        "--free", type=float, nargs="*", default=[20.0, 400.0], help="free-running rates to compare"
    )
    parser.add_argument("--json", help="write the results here")
    ns = parser.parse_args()
    code: list[int] = [1]

    def run() -> None:
        d = defer.ensureDeferred(main(ns))
        d.addCallback(lambda c: code.__setitem__(0, c))
        d.addErrback(lambda f: (f.printTraceback(), None))
        d.addBoth(lambda _: reactor.stop())

    reactor.callWhenRunning(run)
    reactor.run()
    sys.exit(code[0])
