"""Team episode throughput: wall and CPU time of one Mushroom War episode with four players, real time vs
accelerated, and what that makes of the original's benchmark configuration on this machine.

One process, one reactor thread (:mod:`mirrorcraft.study.runner_reactor`), the episodes one after another;
the systems are ``random`` on both sides (the scripted scenario opponents need issue 24's team skills), so
all four bodies walk, dig and collect the whole time. For each tick rate it prints the episode's wall time,
the process CPU time (server, four bodies, the skills and the judge share it), the speed-up over real time
(``game_seconds / wall``) and the CPU-bound ceiling on one core (``game_seconds / cpu``), then the projection
for the original's configuration (20 entries x 5 episodes = 100 episodes, 200 side-balanced) on 2 cores:
episodes run on a core one after another at the measured wall time, or — when the episode waits on game
time more than it computes — several share a core up to the CPU ceiling.

    python benchmarks/team_throughput.py [--seconds 120] [--rates 20 100 200] [--scenario mushroom_war] \\
        [--lockstep]

The original runs every episode at real time (120 s) plus a Java server start, sequentially: >= 4 hours for
100 episodes. "Accelerated" free-running is a higher tick rate: game time passes faster and the bodies keep
up as far as the CPU allows (a starved body loses game time). ``--lockstep`` adds one episode in lockstep
unpaced at the real rate's game time (20 t/s of game semantics; every body in the tick barrier, so no body
ever loses game time): as fast as the bodies go, and its record does not depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from mirrorcraft.agents.teams import make_team_policy
from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem
from mirrorcraft.study.team_episode import play_team_episode
from mirrorcraft.worlds.arenas.build import arena_id, build_arena

ORIGINAL_EPISODES = 100  # 20 entries (systems x opponents) x 5 episodes, the original's configuration
# 120 s of play plus a Java server start per episode: issue 25 puts the original at >= 4 h for 100 episodes,
# i.e. >= 24 s of restart each beyond the 120 s of play; 25 s is used.
ORIGINAL_SECONDS_PER_EPISODE = 120 + 25


def one(identity: TeamEpisodeIdentity, worlds: Path, rate: float, lockstep: bool = False) -> dict:
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    c0, t0 = time.process_time(), time.perf_counter()
    clock = {"clock": "lockstep", "lockstep_paced": False} if lockstep else {}
    record = play_team_episode(identity, policies, arenas=worlds, tick_rate=rate, **clock)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    actions = sum(len(t.actions) for t in record.trajectories)
    g = identity.game_seconds
    return {
        "tick_rate": rate, "clock": "lockstep-unpaced" if lockstep else "free", "game_seconds": g, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
        "speedup_vs_real_time": round(g / wall, 2), "cpu_ceiling_one_core": round(g / cpu, 2),
        "actions": actions, "final": [record.outcome.red, record.outcome.blue],
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--rates", type=float, nargs="+", default=[20.0, 100.0, 200.0])
    ap.add_argument("--scenario", default="mushroom_war", choices=("mushroom_war", "dash_and_dine"))
    ap.add_argument(
        "--lockstep", action="store_true", help="also one episode in lockstep unpaced (20 t/s game time)"
    )
    args = ap.parse_args()
    worlds = Path(tempfile.mkdtemp(prefix="team-bench-worlds-"))
    build_arena(arena_id(args.scenario, "original"), worlds)
    identity = TeamEpisodeIdentity(
        scenario=args.scenario, tested=TeamSystem(id="random"), opponent=TeamSystem(id="random"),
        tested_side="red", repeat=0, block_index=0, block_length=1, game_seconds=args.seconds,
    )  # fmt: skip
    rows = [one(identity, worlds, r) for r in args.rates]
    if args.lockstep:
        rows.append(one(identity, worlds, 20.0, lockstep=True))
    for row in rows:
        print(json.dumps(row))
    print(
        f"{'clock':>16} {'ticks/s':>8} {'wall s':>8} {'cpu s':>7} {'x real time':>12} {'cpu ceiling x':>14} {'actions':>8}"
    )
    for r in rows:
        print(f"{r['clock']:>16} {r['tick_rate']:>8g} {r['wall_s']:>8.1f} {r['cpu_s']:>7.1f} {r['speedup_vs_real_time']:>12.2f} "
              f"{r['cpu_ceiling_one_core']:>14.2f} {r['actions']:>8}")  # fmt: skip
    best = max(rows, key=lambda r: r["speedup_vs_real_time"])
    per_core_serial = best["wall_s"]
    per_core_packed = max(best["cpu_s"], 1e-9)
    for n in (ORIGINAL_EPISODES, 2 * ORIGINAL_EPISODES):
        serial_h = n * per_core_serial / 2 / 3600  # 2 cores, one episode per core at a time
        packed_h = n * per_core_packed / 2 / 3600  # 2 cores at the CPU ceiling
        orig_h = n * ORIGINAL_SECONDS_PER_EPISODE / 3600
        print(f"{n} episodes on 2 cores at {best['tick_rate']:g} t/s ({best['clock']}): {serial_h:.2f} h one per core, "
              f"{packed_h:.2f} h at the CPU ceiling; the original, sequential at real time: {orig_h:.2f} h")  # fmt: skip
    shutil.rmtree(worlds, ignore_errors=True)


if __name__ == "__main__":
    main()
