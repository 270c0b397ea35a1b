"""Episode throughput: wall time of scripted Diamond episodes in Vanilla ``plains-1``, real time vs accelerated.

What it measures (one process, one reactor thread, episodes submitted one after another — the way a study
worker runs them, :mod:`mirrorcraft.study.runner_reactor`):

* for each tick rate (default 20 = real time, and 100 = accelerated): the episode's wall time, split into
  setup (world copy, server start, join), the agent loop and teardown; the process CPU time over the
  episode (user + system, all threads: server, body, skills and agent share it);
* the lower bound: the in-game ticks the episode's actions needed (Σ ``ticks_used`` of its reports) played
  at 20 t/s. ``ticks_used`` is measured by the skills as wall time × the configured tick rate, so at
  20 t/s the bound is the time the skills themselves spent; the gap to the wall time is setup, barrier and
  decision overhead. At an accelerated rate the server's game time runs faster (furnaces, item physics)
  and ``game_time_speedup`` says how much game time passed per wall second, but the body walks and digs at
  its own 20 Hz while the skills' per-call limits are game ticks, so every call gets proportionally less
  wall time: at 100 t/s a ``mine`` of 6 logs hits its 2,400-tick limit after 24 s with 2 logs broken and
  nothing collected, and the episode diverges (docs/runner.md "Throughput");
* episodes/hour/core: ``3600 / wall`` with one episode per core, and the CPU-bound ceiling
  ``3600 / cpu`` (episodes mostly wait on game time, so several can share a core);
* the projection for the ``main`` grid (8,640 episodes, budgets 50/50/75) on a 16-core machine, scaling the
  measured per-action wall time to the full budgets. Scripted decisions are instantaneous: LLM latency
  (seconds per call) comes on top for the real study and is not in this number.

**Lockstep** (``--clock lockstep``, docs/lockstep.md): the episode is played paced at the first rate
(default 20 t/s: real time) and unpaced; the two must use the same game ticks (their records are compared
apart from the wall time, and the result says ``"lockstep_equal"``), and the speed-up of the unpaced run
over real time and its CPU share are printed.

Usage::

    python benchmarks/episode_throughput.py --budget 6 --rates 20 100 --out runs/bench-episodes
    python benchmarks/episode_throughput.py --budget 12 --clock lockstep --out runs/bench-lockstep

The scripted episode only progresses as far as the embedded server's rules engine allows; the output
prints the score path so the numbers can be read against what the episode actually did.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any


def _cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def run(
    out: Path,
    budget: int,
    rates: list[float],
    radius: int,
    server: str,
    clock: str = "free",
    unpaced_only: bool = False,
    repeat: int = 1,
) -> dict[str, Any]:
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, StudyGrid
    from mirrorcraft.contracts.tasks import DEFAULT_BUDGETS
    from mirrorcraft.study.runner import RunnerSettings, lower_bound_ticks, make_episode_fn
    from mirrorcraft.worlds.catalogue import build_world

    worlds = out / "worlds"
    build_world("plains-1", worlds, radius)
    ident = EpisodeIdentity(
        world="plains-1",
        suite=None,
        task="diamond",
        budget=budget,
        agent="scripted",
        model=ModelSettings(name="scripted", temperature=0.0),
        repetition=0,
        study_seed=0,
    )
    results: dict[str, Any] = {"budget": budget, "radius": radius, "server": server, "modes": []}
    # free: one run per rate; lockstep: paced at the first rate, then unpaced (same announced rate)
    plan = [(r, True) for r in rates] if clock == "free" else [(rates[0], True), (rates[0], False)]
    if unpaced_only:  # the CPU figure alone (profiling, before/after comparisons of the record)
        plan = [(rates[0], False)] * repeat  # later runs: a warm worker (imports done, shared caches filled)
    records = []
    for run_no, (rate, paced) in enumerate(plan):
        label = f"{rate:g}" if clock == "free" else f"lockstep-{'paced' if paced else 'unpaced'}-{rate:g}"
        if unpaced_only and run_no:
            label += f"-run{run_no + 1}"
        settings = RunnerSettings(
            worlds_dir=worlds,
            server=server,
            tick_rate=rate,
            records_dir=out / f"episodes-{label}",
            clock=clock,  # type: ignore[arg-type]
            lockstep_paced=paced,
        )
        fn = make_episode_fn(settings)
        c0, t0 = _cpu(), time.perf_counter()
        record = fn(ident)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        records.append(record)
        notes = json.loads((settings.records_dir / f"{record.episode_id}.json").read_text())["run_notes"]
        n = record.outcome.actions_used
        ticks = lower_bound_ticks(record)
        mode = {
            "mode": label,
            "lockstep": notes.get("lockstep", {}),
            "tick_rate": rate,
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "cpu_share": round(cpu / wall, 3) if wall else None,
            "phases_s": notes["seconds"],
            "actions": n,
            "score": record.outcome.score,
            "end_reason": record.outcome.end_reason.value,
            "faults": [f.kind for f in record.infrastructure_faults],
            "action_ticks": ticks,
            "lower_bound_s_at_20tps": round(ticks / 20.0, 2),
            "game_time_speedup": round(ticks / 20.0 / wall, 2) if wall else None,
            "server_ticks": notes.get("server_ticks"),
            "calls": [f"{s.call.name}:{s.report.status}" for s in record.trajectory],
            "episodes_per_hour_per_core": round(3600 / wall, 2),
            "cpu_bound_episodes_per_hour_per_core": round(3600 / cpu, 2) if cpu else None,
        }
        if n:
            per_action = notes["seconds"].get("agent_loop", wall) / n
            setup = sum(v for k, v in notes["seconds"].items() if k != "agent_loop")
            grid = StudyGrid.main()
            per_task = {t: grid.size() // len(grid.tasks) for t in grid.tasks}
            total_s = sum(cnt * (setup + per_action * DEFAULT_BUDGETS[t]) for t, cnt in per_task.items())
            mode["per_action_s"] = round(per_action, 2)
            mode["main_grid_hours_on_16_cores"] = round(total_s / 16 / 3600, 1)
            mode["main_grid_note"] = (
                "every episode uses its full budget at this run's mean seconds per action; scripted "
                "decisions (no LLM latency)"
            )
        results["modes"].append(mode)
        print(json.dumps(mode), flush=True)
    if unpaced_only and len(records) > 1:
        dumps = [r.model_dump(mode="json") for r in records]
        for d in dumps:
            d.pop("wall_time_s")
        results["repeats_equal"] = all(d == dumps[0] for d in dumps)
        print(f"the {len(records)} unpaced runs give equal records: {results['repeats_equal']}", flush=True)
    if clock == "lockstep" and not unpaced_only:
        a, b = (r.model_dump(mode="json") for r in records)
        a.pop("wall_time_s"), b.pop("wall_time_s")
        paced_m, unpaced_m = results["modes"]
        results["lockstep_equal"] = a == b
        results["unpaced_speedup_over_paced"] = round(paced_m["wall_s"] / unpaced_m["wall_s"], 2)
        results["unpaced_wall_over_cpu"] = round(unpaced_m["wall_s"] / unpaced_m["cpu_s"], 2)
        print(
            f"lockstep paced == unpaced (records apart from wall time): {results['lockstep_equal']}; "
            f"unpaced {results['unpaced_speedup_over_paced']}x faster than paced; unpaced wall / CPU "
            f"{results['unpaced_wall_over_cpu']}",
            flush=True,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/bench-episodes")
    p.add_argument("--budget", type=int, default=50, help="actions (Diamond's budget is 50)")
    p.add_argument("--rates", type=float, nargs="+", default=[20.0, 100.0], help="server tick rates")
    p.add_argument("--radius", type=int, default=96, help="world radius in blocks")
    p.add_argument("--server", choices=("embedded", "child"), default="embedded")
    p.add_argument("--clock", choices=("free", "lockstep"), default="free", help="free (default) or lockstep")
    p.add_argument(
        "--unpaced-only",
        action="store_true",
        help="with --clock lockstep: run only the unpaced episode (its CPU time; no paced run to compare with)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="with --unpaced-only: run the episode this many times in this process (the later runs are a "
        "warm study worker's: imports done, process-wide caches filled)",
    )
    args = p.parse_args(argv)
    if args.unpaced_only and args.clock != "lockstep":
        p.error("--unpaced-only needs --clock lockstep")
    if args.repeat < 1 or (args.repeat > 1 and not args.unpaced_only):
        p.error("--repeat needs --unpaced-only and a count >= 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = run(
        out, args.budget, args.rates, args.radius, args.server, args.clock, args.unpaced_only, args.repeat
    )
    (out / "episode_throughput.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"written: {out / 'episode_throughput.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
