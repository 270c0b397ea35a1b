"""Reliability of the scripted policy, characterised (issue 21): its Diamond and Iron Armor episodes on every
catalogue Vanilla world × 3 repetitions, with the share of actions lost to movement failures.

Usage::

    python -m mirrorcraft.run worlds build            # the catalogue (about a minute per Vanilla world)
    python benchmarks/scripted_reliability.py --worlds-dir runs/worlds --json reliability.json
    python benchmarks/scripted_reliability.py --worlds plains-1 --tasks diamond --reps 1   # one cell
    python benchmarks/scripted_reliability.py --records runs/demo/results.jsonl            # any records

Each episode is a real one: the runner (:class:`~mirrorcraft.study.runner.EpisodeRunner`) copies the world,
starts the embedded server in this process (100 ticks/s by default), the body joins over TCP and the
offline scripted agent plays until the final milestone or the task's budget (50 actions). Repetitions
differ by the episode seed (the identity's ``repetition``).

A **movement failure** is a failed action of a moving skill (``go_to``, ``explore``, ``recover``,
``dig_down``, ``dig_up``, ``pillar_up``, ``tunnel``) or any failed action whose reason is ``unreachable``
(the target was there, no way got to it): actions the benchmark's measurement loses to the body being
stuck. The table gives, per world and task, the successes (Score 100) of the repetitions, the mean Score,
the actions used, the movement failures and the longest run of them in a row; then the totals (goal:
movement failures under 5 % of all actions). ``--records`` prints the same for existing records (e.g. the
default job's ``results.jsonl``). Recorded in docs/performance.md ("Reliability of the scripted policy").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MOVING = frozenset({"go_to", "explore", "recover", "dig_down", "dig_up", "pillar_up", "tunnel"})


def movement_failures(record: Any) -> tuple[int, int]:
    """``(movement failures, longest run of them in a row)`` of one episode record."""
    n = run = longest = 0
    for step in record.trajectory:
        rep = step.report
        moving = rep.status == "failure" and (
            step.call.name in MOVING or (rep.reason is not None and rep.reason.value == "unreachable")
        )
        if moving:
            n += 1
            run += 1
            longest = max(longest, run)
        else:
            run = 0
    return n, longest


def table(records: list[Any]) -> str:
    """The Markdown table per world and task, and the totals."""
    cells: dict[tuple[str, str], list[Any]] = {}
    for r in records:
        cells.setdefault((r.identity.world_id, r.identity.task.value), []).append(r)
    lines = [
        "| world | task | successes | mean Score | actions (mean) | movement failures | most in a row |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    actions = moving = 0
    for (world, task), rs in sorted(cells.items()):
        ok = sum(r.outcome.score == 100 for r in rs)
        mf = [movement_failures(r) for r in rs]
        used = sum(r.outcome.actions_used for r in rs)
        actions += used
        moving += sum(m for m, _ in mf)
        lines.append(
            f"| {world} | {task} | {ok}/{len(rs)} | {statistics.mean(r.outcome.score for r in rs):.1f} | "
            f"{used / len(rs):.1f} | {sum(m for m, _ in mf)} ({100 * sum(m for m, _ in mf) / max(used, 1):.1f} %) | "
            f"{max(x for _, x in mf)} |"
        )
    won = sum(r.outcome.score == 100 for r in records)
    lines.append(
        f"\n{won}/{len(records)} episodes reached Score 100; movement failures {moving} of {actions} actions "
        f"= {100 * moving / max(actions, 1):.1f} % (goal < 5 %); most in a row in one episode: "
        f"{max((movement_failures(r)[1] for r in records), default=0)}"
    )
    return "\n".join(lines)


def run_episodes(args: argparse.Namespace) -> list[Any]:
    from twisted.internet import defer, reactor

    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, TaskId
    from mirrorcraft.contracts.tasks import DEFAULT_BUDGETS
    from mirrorcraft.study.runner import EpisodeRunner, RunnerSettings

    work = Path(tempfile.mkdtemp(prefix="reliability-"))
    settings = RunnerSettings(
        worlds_dir=Path(args.worlds_dir), build_missing=args.build_missing, work_dir=work,
        tick_rate=args.tick_rate, world_radius=args.radius,
    )  # fmt: skip
    records: list[Any] = []

    async def run() -> None:
        try:
            for world in args.worlds:
                for task in args.tasks:
                    for rep in range(args.reps):
                        ident = EpisodeIdentity(
                            world=world, suite=None, task=task, budget=DEFAULT_BUDGETS[TaskId(task)],
                            agent="scripted", model=ModelSettings(name="scripted", temperature=0.0),
                            repetition=rep, study_seed=0,
                        )  # fmt: skip
                        t0 = time.monotonic()
                        rec = await EpisodeRunner(settings).run(ident)
                        records.append(rec)
                        mf, row = movement_failures(rec)
                        print(json.dumps({"world": world, "task": task, "rep": rep, "score": rec.outcome.score,
                                          "actions": rec.outcome.actions_used, "movement_failures": mf,
                                          "in_a_row": row, "end": rec.outcome.end_reason.value,
                                          "faults": len(rec.infrastructure_faults),
                                          "wall_s": round(time.monotonic() - t0, 1)}), flush=True)  # fmt: skip
        finally:
            reactor.stop()

    reactor.callWhenRunning(lambda: defer.ensureDeferred(run()).addErrback(lambda f: print(f.getTraceback())))
    reactor.run()
    return records


def main() -> None:
    from mirrorcraft.contracts.episodes import VANILLA_WORLDS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds-dir", default="runs/worlds", help="the catalogue folder (worlds build --out)")
    ap.add_argument("--worlds", default=",".join(VANILLA_WORLDS), help="comma-separated Vanilla worlds")
    ap.add_argument("--tasks", default="diamond,iron_armor")
    ap.add_argument("--reps", type=int, default=3, help="repetitions (episode seeds) per world and task")
    ap.add_argument("--tick-rate", type=float, default=100.0)
    ap.add_argument("--radius", type=int, default=None, help="radius of worlds built here (build-missing)")
    ap.add_argument("--build-missing", action="store_true", help="build a catalogue world that is missing")
    ap.add_argument("--records", help="only tabulate these records (a results.jsonl or a folder of *.json)")
    ap.add_argument("--json", help="also write the episode records here (one JSON line each)")
    args = ap.parse_args()
    args.worlds = [w for w in args.worlds.split(",") if w]
    args.tasks = [t for t in args.tasks.split(",") if t]
    if args.records:
        from mirrorcraft.contracts import read_record

        path = Path(args.records)
        texts = (
            [line for line in path.read_text().splitlines() if line.strip()]
            if path.is_file()
            else [p.read_text() for p in sorted(path.glob("*.json"))]
        )
        records = []
        for text in texts:
            try:
                records.append(read_record(text))
            except Exception as err:  # noqa: BLE001 - a torn line is reported, not fatal
                print(f"skipped a record: {err}", file=sys.stderr)
    else:
        records = run_episodes(args)
    if args.json:
        Path(args.json).write_text("\n".join(r.model_dump_json() for r in records) + "\n")
    print(table(records))


if __name__ == "__main__":
    main()
