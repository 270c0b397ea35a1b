"""LLM-bound study throughput: many lockstep episodes per process against today's one-per-process pool.

What it runs: a real study (``run_study``, the real store, runner, embedded servers and bodies) of scripted
Diamond episodes in Vanilla ``plains-1`` (lockstep, unpaced), where **every decision first waits a
simulated model latency** — drawn from a lognormal distribution with mean ``--latency`` seconds (σ of the
log 0.5), seeded from the episode's seed and id, and taken inside the process's model-call gate
(:mod:`mirrorcraft.study.runner_concurrency`) exactly where a real model call would be. The latency is
the only fake: the game, the world copies, the servers and the bodies are the real ones.

For each concurrency level N (default 1, 4, 16, 64) one fresh driver process runs ``max(N,
--min-episodes)`` episodes with N in flight: N = 1 in the driver itself; N > 1 spread over ``--workers``
(default 2: this machine's cores) spawned worker processes with ``ceil(N / workers)`` episodes at once
each (``LocalExecutor(workers, concurrency=…)``: every episode of a worker on its single reactor — one
process uses one core at most). Then today's pool: ``--pool-workers`` (default 2) spawned processes, one
episode each at a time (``LocalExecutor(2)``), same settings. Printed per run: episodes in flight (peak,
from start/end times every episode logs), RSS (peak of the episode processes, sampled every 0.5 s, and
per episode = (peak − an idle process's RSS × processes) ÷ peak in flight; an idle worker's RSS is taken
as the driver's before its first episode), CPU seconds (all threads and workers) and CPU use (CPU ÷ wall ÷
cores), episodes per hour, the CPU ceiling (``cores × 3600 ÷ CPU seconds per episode``) and the share of it
reached, and the speed-up over the pool.

Each level is one wave of episodes (no steady state: the last episodes of a wave run with fewer beside
them), so episodes/hour is a lower bound of a long study's. Linux only (RSS from ``/proc``).

Usage (the machine is shared: keep the whole run ≤ 15 minutes)::

    nice -n 19 python benchmarks/llm_bound.py --out runs/bench-llm-bound
    python benchmarks/llm_bound.py --levels 1 4 --budget 2 --latency 2 --out /tmp/llm-bound   # a quick look
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import random
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SIGMA = 0.5  #: σ of log-latency: a spread like hosted models' (a few times the median at the tail)


def _rss_mb(pid: int | str = "self") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _cpu(who: int = resource.RUSAGE_SELF) -> float:
    ru = resource.getrusage(who)
    return ru.ru_utime + ru.ru_stime


class LatencyAgent:
    """The wrapped agent, each decision preceded by a seeded simulated model latency inside the gate."""

    def __init__(self, inner: Any, identity: Any, mean_s: float, gate: Any) -> None:
        self.inner = inner
        self.rng = random.Random(f"{identity.seed}:{identity.episode_id}")
        self.mu = math.log(mean_s) - SIGMA**2 / 2 if mean_s > 0 else None
        self.gate = gate

    def reset(self, context: Any) -> None:
        self.inner.reset(context)

    def observe(self, obs: Any) -> None:
        self.inner.observe(obs)

    async def decide(self) -> Any:
        from twisted.internet import reactor, task

        from mirrorcraft.study.runner_concurrency import gated

        if self.mu is not None:
            delay = self.rng.lognormvariate(self.mu, SIGMA)
            await gated(self.gate, lambda: task.deferLater(reactor, delay, lambda: None))
        return await self.inner.decide()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def latency_episode(settings_json: str, mean_s: float, flight_log: str, identity: Any) -> Any:
    """Blocking episode function (picklable with ``functools.partial``): the real runner with
    :class:`LatencyAgent` around the scripted policy. Appends ``start``/``end`` wall times to
    ``flight_log`` (one ``O_APPEND`` write a line, safe across threads and processes)."""
    from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings
    from mirrorcraft.study.runner_concurrency import model_call_gate
    from mirrorcraft.study.runner_reactor import call_on_reactor

    settings = RunnerSettings.model_validate_json(settings_json)

    def mark(what: str) -> None:
        fd = os.open(flight_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{what} {time.time():.3f}\n".encode())
        finally:
            os.close(fd)

    async def run() -> Any:
        gate = model_call_gate(settings.max_model_calls)
        runner = EpisodeRunner(settings, wrap_agent=lambda a, i: LatencyAgent(a, i, mean_s, gate))
        return await runner.run(identity)

    mark("start")
    try:
        return call_on_reactor(run)
    finally:
        mark("end")


def _peak_in_flight(flight_log: Path) -> int:
    events = []
    for line in flight_log.read_text().splitlines():
        what, t = line.split()
        events.append((float(t), 1 if what == "start" else -1))
    now = peak = 0
    for _, delta in sorted(events, key=lambda e: (e[0], e[1])):  # an end before a start at the same time
        now += delta
        peak = max(peak, now)
    return peak


def one_run(args: argparse.Namespace) -> dict[str, Any]:
    """One study in this process (``--_run``): N in flight in one process, or the pool (N = 0)."""
    from mirrorcraft.contracts import ModelSettings, StudyGrid, TaskId
    from mirrorcraft.metrics.paired import is_fault
    from mirrorcraft.metrics.results import load_final_records
    from mirrorcraft.study.executors import InProcessExecutor, LocalExecutor, run_study
    from mirrorcraft.study.runner import RunnerSettings

    out = Path(args.out)
    level = args._run
    episodes = args.pool_episodes if level == 0 else max(level, args.min_episodes)
    label = f"pool{args.pool_workers}" if level == 0 else f"c{level}"
    if level > 1:
        label += f"-w{min(args.workers, level)}"
    grid = StudyGrid(
        name=f"llm-bound-{label}",
        worlds=["plains-1"],
        tasks=[TaskId.DIAMOND],
        models=[ModelSettings(name="scripted", temperature=0.0)],
        configurations=["scripted"],
        repetitions=episodes,
        suites=[],
        disclosed_configurations=[],
        budget=args.budget,
    )
    settings = RunnerSettings(
        worlds_dir=out / "worlds",
        build_missing=False,
        work_dir=out / "scratch",
        clock="lockstep",
        lockstep_paced=False,
        max_model_calls=args.max_model_calls,
    )
    (out / "scratch").mkdir(parents=True, exist_ok=True)
    run_dir = out / "runs" / label
    flight_log = out / "runs" / f"{label}.flight"
    flight_log.unlink(missing_ok=True)
    fn = functools.partial(latency_episode, settings.model_dump_json(), args.latency, str(flight_log))
    if level == 1:
        executor: Any = InProcessExecutor()
        procs = 1
    elif level > 1:
        procs = min(args.workers, level)
        executor = LocalExecutor(procs, concurrency=math.ceil(level / procs))
    else:
        procs = args.pool_workers
        executor = LocalExecutor(procs)
    pid = os.getpid()
    # An idle worker's RSS (imports done, no episode yet) is taken as this driver's own at this point.
    base = _rss_mb() * procs
    peak = {"rss": 0.0}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.5):
            rss = _rss_mb() if level == 1 else sum(_rss_mb(c) for c in _children(pid))
            peak["rss"] = max(peak["rss"], rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    cpu0, cpu0_children, t0 = _cpu(), _cpu(resource.RUSAGE_CHILDREN), time.monotonic()
    summary = run_study(run_dir, grid, fn, executor=executor, progress=False)
    wall = time.monotonic() - t0
    stop.set()
    cpu = (_cpu() - cpu0) + (_cpu(resource.RUSAGE_CHILDREN) - cpu0_children)
    records, _ = load_final_records(run_dir)
    faults = sum(1 for r in records if is_fault(r))
    flight = _peak_in_flight(flight_log)
    cpu_per_ep = cpu / max(1, len(records))
    return {
        "run": label,
        "processes": procs,
        "episodes": len(records),
        "faults": faults,
        "retried": summary.retried,
        "in_flight_peak": flight,
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "cpu_use": round(cpu / wall / args.cores, 3),
        "rss_base_mb": round(base, 1),
        "rss_peak_mb": round(peak["rss"], 1),
        "rss_per_episode_mb": round((peak["rss"] - base) / max(1, flight), 1),
        "cpu_per_episode_s": round(cpu_per_ep, 2),
        "episodes_per_hour": round(len(records) * 3600 / wall, 1),
        "ceiling_per_hour": round(args.cores * 3600 / cpu_per_ep, 1),
        "actions": sum(r.outcome.actions_used for r in records),
        "load_avg_1m_end": round(os.getloadavg()[0], 2),  # the machine is shared: others' load is in here
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="runs/bench-llm-bound")
    p.add_argument("--levels", type=int, nargs="+", default=[1, 4, 16, 64], help="episodes in flight")
    p.add_argument("--latency", type=float, default=5.0, help="mean simulated model latency, seconds")
    p.add_argument("--budget", type=int, default=3, help="actions per episode (Diamond's budget is 50)")
    p.add_argument("--radius", type=int, default=48, help="world radius in blocks")
    p.add_argument("--min-episodes", type=int, default=2, help="episodes of a level at least")
    p.add_argument("--workers", type=int, default=2, help="processes the levels > 1 spread over")
    p.add_argument("--pool-workers", type=int, default=2, help="today's pool: worker processes")
    p.add_argument("--pool-episodes", type=int, default=6, help="episodes the pool runs")
    p.add_argument("--max-model-calls", type=int, default=64, help="the process's model-call gate")
    p.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="cores of the machine")
    p.add_argument("--_run", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._run is not None:
        print(json.dumps(one_run(args)))
        return 0
    from mirrorcraft.worlds.catalogue import build_world

    out = Path(args.out)
    build_world("plains-1", out / "worlds", args.radius)
    results = []
    for level in [*args.levels, 0]:
        cmd = [sys.executable, __file__, *(argv if argv is not None else sys.argv[1:]), "--_run", str(level)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
            return 1
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), flush=True)
    pool = results[-1]
    for r in results:
        r["speedup_over_pool"] = round(r["episodes_per_hour"] / pool["episodes_per_hour"], 2)
        r["share_of_ceiling"] = round(r["episodes_per_hour"] / r["ceiling_per_hour"], 3)
    cols = ["run", "processes", "episodes", "faults", "load_avg_1m_end", "in_flight_peak", "wall_s", "cpu_s", "cpu_use", "rss_peak_mb",
            "rss_per_episode_mb", "cpu_per_episode_s", "episodes_per_hour", "ceiling_per_hour",
            "share_of_ceiling", "speedup_over_pool"]  # fmt: skip
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in results:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")
    (out / "llm_bound.json").write_text(json.dumps({"args": vars(args), "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
