"""Memory flatness of a long-lived study worker: RSS after 50 sequential episodes vs after 5 (issue 23).

One process runs ``--episodes`` (default 50) short scripted Diamond episodes one after another through the
blocking worker entry point a study worker uses (``make_episode_fn`` → the process's one reactor thread),
lockstep unpaced, Vanilla ``plains-1`` at ``--radius`` (default 48) blocks, ``--budget`` actions (default 1;
short episodes, so the number that matters — what every episode leaves behind — is reached quickly; a
long episode's own peak is another question). After each episode: ``gc.collect()``, then the RSS
(``/proc/self/status``) and the live Python objects by type. Printed: RSS after episode 5 and after the
last, the growth (goal ≤ 10 %), and the object types whose live count grew most between the two.

The episodes differ (repetition r = episode r: another seed each time), as in a study.

Usage::

    nice -n 19 python benchmarks/memory_flatness.py --out runs/bench-memory
    python benchmarks/memory_flatness.py --episodes 12 --check-at 3 --out /tmp/mem   # a quick look
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _types() -> Counter[str]:
    return Counter(type(o).__qualname__ for o in gc.get_objects())


def run(out: Path, episodes: int, check_at: int, budget: int, radius: int) -> dict[str, Any]:
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings
    from mirrorcraft.study.runner import RunnerSettings, make_episode_fn
    from mirrorcraft.worlds.catalogue import build_world

    build_world("plains-1", out / "worlds", radius)
    (out / "scratch").mkdir(parents=True, exist_ok=True)
    settings = RunnerSettings(
        worlds_dir=out / "worlds",
        build_missing=False,
        work_dir=out / "scratch",
        clock="lockstep",
        lockstep_paced=False,
    )
    fn = make_episode_fn(settings)
    rss: list[float] = []
    games: list[int] = []  # finished episodes' games still reachable after gc (should be 0)
    faults = 0
    at_check: Counter[str] = Counter()
    t0 = time.monotonic()
    for rep in range(episodes):
        ident = EpisodeIdentity(
            world="plains-1",
            suite=None,
            task="diamond",
            budget=budget,
            agent="scripted",
            model=ModelSettings(name="scripted", temperature=0.0),
            repetition=rep,
            study_seed=0,
        )
        record = fn(ident)
        faults += bool(record.infrastructure_faults)
        gc.collect()
        rss.append(round(_rss_mb(), 1))
        games.append(sum(type(o).__name__ == "Game" for o in gc.get_objects()))
        if rep + 1 == check_at:
            at_check = _types()
        print(f"episode {rep + 1}: RSS {rss[-1]} MB", file=sys.stderr, flush=True)
    grew = _types()
    grew.subtract(at_check)
    top = [(name, n) for name, n in grew.most_common(12) if n > 0]
    first, last = rss[check_at - 1], rss[-1]
    return {
        "episodes": episodes,
        "budget": budget,
        "radius": radius,
        "faults": faults,
        "wall_s": round(time.monotonic() - t0, 1),
        f"rss_after_{check_at}_mb": first,
        f"rss_after_{episodes}_mb": last,
        "growth_pct": round(100 * (last - first) / first, 1),
        "rss_mb": rss,
        "games_alive": games,
        "objects_grown_most": top,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/bench-memory")
    p.add_argument("--episodes", type=int, default=50)
    p.add_argument("--check-at", type=int, default=5, help="the episode whose RSS is the reference")
    p.add_argument("--budget", type=int, default=1, help="actions per episode")
    p.add_argument("--radius", type=int, default=48, help="world radius in blocks")
    args = p.parse_args(argv)
    if not 1 <= args.check_at < args.episodes:
        p.error("--check-at must be >= 1 and below --episodes")
    result = run(Path(args.out), args.episodes, args.check_at, args.budget, args.radius)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
