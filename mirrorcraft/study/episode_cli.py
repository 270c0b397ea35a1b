"""CLI of the episode runner: ``episode`` (play one episode) and the default job (:func:`run_default_job`).

``mirrorcraft.run`` wires :func:`add_episode_parser`; the lead points ``python -m mirrorcraft.run`` (no
command) at :func:`run_default_job` once it plays end to end. Both go through the same runner as the study
driver (:mod:`mirrorcraft.study.runner`), so a record printed here is exactly what a study would store.

* ``episode --world plains-1[/M03] --task diamond --agent scripted [--model NAME] [--budget N] [--seed S]
  [--rep R] [--out DIR] [--tick-rate N] [--server embedded|child|vanilla] [--worlds DIR] [--radius N]
  [--disclosed] [--server-jar JAR --accept-eula [--java JAVA]]``: plays one episode, appends its record to ``DIR/results.jsonl`` (same format as a study
  run folder, so ``report DIR`` works), writes ``DIR/episodes/<id>.json`` (record + run notes) and prints
  the score path. ``--agent scripted`` uses the offline scripted policy (no API key); any other agent id
  needs ``--model`` (a litellm model string). ``--server vanilla`` plays on the user's own 1.19.2 server
  jar (``--server-jar``; ``--accept-eula`` is required, MirrorCraft never accepts the EULA for the user);
  missing java, jar or flag fail at once with exit code 2, before anything is written.
* the default job: the scripted agent plays Diamond in ``plains-1`` and its six Mirror copies (worlds are
  built under ``OUT/worlds`` when missing) through :func:`~mirrorcraft.study.executors.run_study`, then
  the metrics report is written and Score/SR per world copy and RIE (Vanilla minus Mirror) are printed.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mirrorcraft.errors import MirrorCraftError

DEFAULT_WORLD = "plains-1"
#: World radius of worlds the default job builds (a study's worlds use the generator default, 256).
DEFAULT_JOB_RADIUS = 96


def _identity(args: argparse.Namespace) -> Any:
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, parse_id, task_spec

    parsed = parse_id(args.world)
    scripted = args.agent == "scripted"
    if not scripted and not args.model:
        raise MirrorCraftError(
            f"--agent {args.agent}: give --model (a litellm model string), or use scripted"
        )
    model = ModelSettings(name="scripted", temperature=0.0) if scripted else ModelSettings(name=args.model)
    budget = args.budget or task_spec(args.task).budget
    return EpisodeIdentity(
        world=parsed.name,
        suite=parsed.variant,
        task=args.task,
        budget=budget,
        agent=args.agent,
        model=model,
        disclosure="disclosed" if args.disclosed else "hidden",
        repetition=args.rep,
        study_seed=args.seed,
    )


def _vanilla_args(args: argparse.Namespace) -> dict[str, Any]:
    """RunnerSettings fields of the vanilla-jar flags, checked at once (fail fast, nothing written).

    Raises:
        VanillaLaunchError: ``--server vanilla`` without a usable jar, java or ``--accept-eula``.
    """
    if args.server != "vanilla":
        return {}
    from mirrorcraft.study.runner import vanilla_preflight

    jar = Path(args.server_jar) if args.server_jar else None
    vanilla_preflight(jar, args.accept_eula, args.java, args.tick_rate)
    return {"server_jar": jar, "accept_eula": True, "java": args.java}


def _settings(args: argparse.Namespace, out: Path) -> Any:
    from mirrorcraft.study.runner import RunnerSettings

    return RunnerSettings(
        worlds_dir=Path(args.worlds) if args.worlds else out / "worlds",
        world_radius=args.radius,
        server=args.server,
        tick_rate=args.tick_rate,
        records_dir=out / "episodes",
        **_vanilla_args(args),
    )


def print_record(record: Any, out: Any = None) -> None:
    """Print an episode's outcome and score path (one line per action)."""
    out = out or sys.stdout
    o = record.outcome
    print(
        f"{record.episode_id} {record.identity.world_id} {record.identity.task.value}: score {o.score} "
        f"success {o.success} actions {o.actions_used}/{record.identity.budget} end {o.end_reason.value} "
        f"wall {record.wall_time_s:.1f}s",
        file=out,
    )
    for step in record.trajectory:
        r = step.report
        why = f" ({r.reason.value})" if r.reason else ""
        print(
            f"  {step.index:3d} {step.call.name} {step.call.args} -> {r.status}{why} S={step.score_after}",
            file=out,
        )
    for m in record.milestones:
        print(f"  milestone {m.advancement} after action {m.action_index} (tick {m.tick})", file=out)
    for e in record.encounters:
        print(f"  encounter {e.rule_id} at action {e.action_index}", file=out)
    for f in record.infrastructure_faults:
        print(f"  FAULT {f.kind}: {f.message}", file=out)


def cmd_episode(args: argparse.Namespace) -> int:
    """Play one episode (see module docstring)."""
    from mirrorcraft.metrics.results import RESULTS_FILE
    from mirrorcraft.study.runner import make_episode_fn

    out = Path(args.out)
    try:
        identity = _identity(args)
        settings = _settings(args, out)
    except (MirrorCraftError, ValueError) as err:
        print(f"episode: {err}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    record = make_episode_fn(settings)(identity)
    with (out / RESULTS_FILE).open("a", encoding="utf-8") as fh:
        fh.write(record.model_dump_json() + "\n")
    print_record(record)
    print(
        f"record: {out / RESULTS_FILE}; record + run notes: {settings.records_dir / (record.episode_id + '.json')}"
    )
    return 1 if record.infrastructure_faults else 0


def default_grid(budget: int | None = None) -> Any:
    """The default job's grid: scripted Diamond in ``plains-1`` and its six Mirror copies (7 episodes)."""
    from mirrorcraft.contracts import SUITE_IDS, ModelSettings, StudyGrid, TaskId

    return StudyGrid(
        name="default",
        worlds=[DEFAULT_WORLD],
        tasks=[TaskId.DIAMOND],
        models=[ModelSettings(name="scripted", temperature=0.0)],
        configurations=["scripted"],
        repetitions=1,
        suites=list(SUITE_IDS),
        disclosed_configurations=[],
        budget=budget,
    )


def _fmt(x: float) -> str:
    return "n/a" if isinstance(x, float) and math.isnan(x) else f"{x:.1f}"


def run_default_job(
    out_dir: Path | str,
    *,
    budget: int | None = None,
    workers: int = 1,
    server: str = "embedded",
    tick_rate: float = 20.0,
    radius: int = DEFAULT_JOB_RADIUS,
    resume: bool = True,
    plots: bool = True,
    vanilla: dict[str, Any] | None = None,
) -> int:
    """The default job (module docstring); returns a process exit code (0: every episode has a record
    that is not an infrastructure fault)."""
    from mirrorcraft.metrics.paired import is_fault, paired_comparisons, rie, score, success_rate
    from mirrorcraft.metrics.reporting import report
    from mirrorcraft.metrics.results import load_final_records
    from mirrorcraft.study.executors import make_executor, run_study
    from mirrorcraft.study.runner import RunnerSettings, make_episode_fn

    out = Path(out_dir)
    grid = default_grid(budget)
    settings = RunnerSettings(
        worlds_dir=out / "worlds",
        world_radius=radius,
        server=server,  # type: ignore[arg-type]
        tick_rate=tick_rate,
        records_dir=out / "episodes",
        **(vanilla or {}),  # server_jar / accept_eula / java for server="vanilla"
    )
    print(
        f"MirrorCraft default job: scripted agent, task diamond, {DEFAULT_WORLD} + 6 Mirror copies "
        f"({grid.size()} episodes, budget {budget or 'task default'}, server {server}, {tick_rate:g} t/s) → {out}"
    )
    summary = run_study(
        out,
        grid,
        make_episode_fn(settings),
        executor=make_executor("local", workers=workers),
        resume=resume and (out / "results.jsonl").exists(),
        progress=False,
    )
    records, _ = load_final_records(out)
    print(f"{'world':<14}{'Score':>7}{'SR %':>7}  end / faults")
    for r in sorted(records, key=lambda r: (r.identity.suite or "", r.identity.world)):
        end = "FAULT " + r.infrastructure_faults[-1].kind if is_fault(r) else r.outcome.end_reason.value
        print(f"{r.identity.world_id:<14}{score([r]):>7.1f}{success_rate([r]):>7.1f}  {end}")
    valid = [r for r in records if not is_fault(r)]
    effect = rie(paired_comparisons(valid))
    print(
        f"RIE (Vanilla − Mirror): Score {_fmt(effect.score)}, SR {_fmt(effect.sr)} pp over {effect.n_pairs} pairs"
    )
    paths = report(out, n_boot=500, plots=plots)
    print(f"records: {out / 'results.jsonl'} (+ per-episode run notes in {out / 'episodes'})")
    print(
        f"report: {paths[0]}"
        + (f"; plots: {', '.join(str(p) for p in paths if p.suffix == '.png')}" if plots else "")
    )
    return 0 if summary.finished and summary.final_faults == 0 else 1


def cmd_default_job(args: argparse.Namespace) -> int:
    """``episode default``-style handler used by ``--default-job``."""
    try:
        vanilla = _vanilla_args(args)
    except MirrorCraftError as err:
        print(f"episode: {err}", file=sys.stderr)
        return 2
    return run_default_job(
        args.out,
        budget=args.budget,
        workers=args.workers,
        server=args.server,
        tick_rate=args.tick_rate,
        vanilla=vanilla,
    )


def add_vanilla_flags(p: argparse.ArgumentParser) -> None:
    """``--server-jar``, ``--accept-eula`` and ``--java`` (for ``--server vanilla``; shared by the CLIs)."""
    p.add_argument(
        "--server-jar", help="--server vanilla: your Minecraft 1.19.2 server jar (never downloaded)"
    )
    p.add_argument(
        "--accept-eula",
        action="store_true",
        help="--server vanilla: you accept the Minecraft EULA (https://aka.ms/MinecraftEULA); writes eula.txt",
    )
    p.add_argument(
        "--java", default="java", help="--server vanilla: Java 17+ executable (default: java on PATH)"
    )


def add_episode_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``episode`` command to an argparse subparsers object and return its parser."""
    from mirrorcraft.contracts import TaskId

    p = subparsers.add_parser("episode", help="play one episode on the embedded server and print its record")
    p.add_argument(
        "--world", default=DEFAULT_WORLD, help="world copy: plains-1 or plains-1/M03 (default plains-1)"
    )
    p.add_argument("--task", choices=[t.value for t in TaskId], default="diamond")
    p.add_argument(
        "--agent", default="scripted", help="scripted (offline) or a configuration id (react, ...)"
    )
    p.add_argument("--model", help="litellm model string for LLM configurations")
    p.add_argument("--disclosed", action="store_true", help="rules disclosed (ReAct w/rules; Mirror only)")
    p.add_argument("--budget", type=int, help="action budget (default: the task's, 50/50/75)")
    p.add_argument("--seed", type=int, default=0, help="study seed (the episode seed derives from it)")
    p.add_argument("--rep", type=int, default=0, help="repetition index")
    p.add_argument("--out", default="runs/episode", help="output folder (default runs/episode)")
    p.add_argument("--worlds", help="world catalogue folder (default OUT/worlds; missing worlds are built)")
    p.add_argument("--radius", type=int, help="radius in blocks of worlds built here (default 256)")
    p.add_argument("--tick-rate", type=float, default=20.0, help="server ticks per second (default 20)")
    p.add_argument(
        "--server",
        choices=("embedded", "child", "vanilla"),
        default="embedded",
        help="embedded (in-process, default), child (a child process) or vanilla (your server jar)",
    )
    add_vanilla_flags(p)
    p.add_argument(
        "--default-job",
        action="store_true",
        help="run the default job instead: scripted Diamond in plains-1 and its six Mirror copies + report",
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes of --default-job (default 1)")
    p.set_defaults(handler=lambda a: cmd_default_job(a) if a.default_job else cmd_episode(a))
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry: ``python -m mirrorcraft.study.episode_cli episode ...``."""
    parser = argparse.ArgumentParser(prog="python -m mirrorcraft.study.episode_cli")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    add_episode_parser(sub)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
