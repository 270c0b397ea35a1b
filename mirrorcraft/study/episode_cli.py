"""CLI of the episode runner: ``episode`` (play one episode) and the default job (:func:`run_default_job`).

``mirrorcraft.run`` wires :func:`add_episode_parser`; the lead points ``python -m mirrorcraft.run`` (no
command) at :func:`run_default_job` once it plays end to end. Both go through the same runner as the study
driver (:mod:`mirrorcraft.study.runner`), so a record printed here is exactly what a study would store.

* ``episode --world plains-1[/M03] --task diamond --agent scripted [--model NAME] [--budget N] [--seed S]
  [--rep R] [--out DIR] [--tick-rate N] [--clock free|lockstep [--unpaced] [--lockstep-timeout S]]
  [--server embedded|child|vanilla] [--worlds DIR] [--radius N]
  [--disclosed] [--server-jar JAR --accept-eula [--java JAVA]]``: plays one episode, appends its record to ``DIR/results.jsonl`` (same format as a study
  run folder, so ``report DIR`` works), writes ``DIR/episodes/<id>.json`` (record + run notes) and prints
  the score path. ``--agent scripted`` uses the offline scripted policy (no API key); any other agent id
  needs ``--model`` (a litellm model string). ``--server vanilla`` plays on the user's own 1.19.2 server
  jar (``--server-jar``; ``--accept-eula`` is required, MirrorCraft never accepts the EULA for the user);
  missing java, jar or flag fail at once with exit code 2, before anything is written.
* ``--clock lockstep`` (embedded or child server; default ``free``, today's behaviour): the server runs a
  tick only when the body is done with the previous one, and the body acts only during a skill call and
  the barrier after it, so the agent's thinking costs no game time; ``--tick-rate`` is then the pace (a
  minimum tick interval) and ``--unpaced`` drops it; ``--lockstep-timeout S`` (default 300) bounds one
  wait for the body. The run notes record the mode (``clock``) and the stalls. docs/lockstep.md.
* ``episode --agent external [--host H] [--port P] [--join-timeout S] [--time-budget S] [--player NAME]``:
  bring your own Mineflayer agent (:mod:`mirrorcraft.study.external`): the world copy is prepared, the
  embedded server runs freely, ``MIRRORCRAFT_EXTERNAL_SERVER host:port`` is printed, one client is awaited,
  and the episode is recorded from the server's events until the step budget (``--budget``, default 500
  server-side steps), the time budget or the final milestone ends it; the record (agent ``external``) is
  appended to ``DIR/results.jsonl`` like any other.
* the default job: the scripted agent plays Diamond in ``plains-1`` and its six Mirror copies (worlds are
  built under ``OUT/worlds`` when missing) through :func:`~mirrorcraft.study.executors.run_study`, then
  the metrics report is written and Score/SR per world copy and RIE (Vanilla minus Mirror) are printed.

**Usage errors before anything starts** (exit code 2, nothing written): an unknown ``--agent`` (argparse
choices: the configurations, also listed by ``--help`` and ``python -m mirrorcraft.run list``), a world
that is not a catalogue world, an LLM agent without ``--model``, a missing API key (litellm's
``validate_environment``; not checked with ``--api-base``, a local endpoint needs no key), a ``--max-cost``
for a model without a known price, the vanilla-jar checks.

``--world sandbox`` is refused here although ``serve --world sandbox`` accepts it: the sandbox is a
debug world for ``serve`` (a small flat build with no biome group, no Mirror copies and no catalogue
seed), so an episode in it could never pair with anything or pass the report's integrity checks; an
episode plays catalogue worlds only.

**LLM flags** (:func:`add_llm_flags`, the same for ``study`` with ``--llm-timeout``/``--llm-retries``):
``--api-base URL`` (an OpenAI-compatible endpoint), ``--api-key-env NAME``, ``--timeout S`` (seconds per
attempt, default 60), ``--retries N`` (retries after the first attempt, default 2: 3 attempts),
``--max-cost USD`` (the episode's spending cap) and ``--input-cost-per-token`` /
``--output-cost-per-token`` (prices for a model litellm does not price).
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
#: Exit code of a usage error (argparse's own): nothing was started or written.
USAGE = 2
#: World radius of worlds the default job builds (a study's worlds use the generator default, 256).
DEFAULT_JOB_RADIUS = 96


class UsageError(MirrorCraftError):
    """Bad command-line input found before anything starts (exit code :data:`USAGE`)."""


def check_world(world: str) -> None:
    """Refuse a ``--world`` that is not a catalogue world copy (module docstring: the sandbox).

    Raises:
        UsageError: the message names the world and the valid ones.
    """
    from mirrorcraft.contracts import SUITE_IDS, VANILLA_WORLDS

    name, _, suite = world.partition("/")
    if name == "sandbox":
        raise UsageError(
            "--world sandbox: the sandbox is a debug world for `serve`, not a benchmark world (no biome group, "
            f"no Mirror copies, no catalogue seed); play a catalogue world: {', '.join(VANILLA_WORLDS)}"
        )
    if name not in VANILLA_WORLDS or (suite and suite not in SUITE_IDS):
        raise UsageError(
            f"--world {world}: not a catalogue world; expected one of {', '.join(VANILLA_WORLDS)}, "
            f"optionally followed by /{'|/'.join(SUITE_IDS)}"
        )


def llm_runtime(args: argparse.Namespace, *, study: bool = False) -> dict[str, Any]:
    """The :class:`~mirrorcraft.agents.llm.LLMRuntime` fields given on the command line (None ones left out)."""
    fields = {
        "api_base": args.api_base,
        "api_key_env": args.api_key_env,
        "timeout_s": args.llm_timeout if study else args.timeout,
        "max_retries": args.llm_retries if study else args.retries,
        "max_cost_usd": args.max_cost,
        "input_cost_per_token": args.input_cost_per_token,
        "output_cost_per_token": args.output_cost_per_token,
    }
    return {k: v for k, v in fields.items() if v is not None}


def llm_preflight(models: Sequence[tuple[Any, Any]]) -> None:
    """Check every LLM model before anything starts: its key (or ``--api-base``) and, with a cost cap, its
    price. ``models`` holds ``(ModelSettings, LLMRuntime | dict | None)`` pairs; ``scripted`` is skipped.

    Raises:
        UsageError: one line naming the model and the missing variable or price.
    """
    from mirrorcraft.agents.llm import LLMSettings, credentials_problem, price_problem

    for model, runtime in models:
        if model.name == "scripted":
            continue
        try:
            settings = LLMSettings.from_model_settings(model, runtime)
        except ValueError as err:
            raise UsageError(f"model {model.name}: {err}") from err
        problem = credentials_problem(settings) or price_problem(settings)
        if problem:
            raise UsageError(problem)


def _identity(args: argparse.Namespace) -> Any:
    from mirrorcraft.contracts import EpisodeIdentity, ModelSettings, parse_id, task_spec
    from mirrorcraft.study.external import EXTERNAL, external_identity

    check_world(args.world)
    if args.agent == EXTERNAL:
        return external_identity(
            args.world, args.task, budget=args.budget, repetition=args.rep, study_seed=args.seed
        )
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


def _lockstep_args(args: argparse.Namespace) -> dict[str, Any]:
    """RunnerSettings fields of ``--clock``/``--unpaced``/``--lockstep-timeout``.

    Raises:
        MirrorCraftError: lockstep asked of a server or agent that cannot take part (a vanilla jar, an
            external Mineflayer agent), or ``--unpaced`` without lockstep.
    """
    clock = getattr(args, "clock", "free")
    if clock == "free":
        if getattr(args, "unpaced", False):
            raise MirrorCraftError("--unpaced needs --clock lockstep")
        return {}
    if args.server == "vanilla":
        raise MirrorCraftError("--clock lockstep needs the embedded server (embedded or child), not vanilla")
    if getattr(args, "agent", None) == "external":
        raise MirrorCraftError("--clock lockstep: an external agent's client cannot take part in lockstep")
    return {
        "clock": "lockstep",
        "lockstep_paced": not args.unpaced,
        "lockstep_timeout": args.lockstep_timeout,
    }


def _settings(args: argparse.Namespace, out: Path, identity: Any = None) -> Any:
    from mirrorcraft.study.runner import RunnerSettings

    runtime = llm_runtime(args)
    llm = {identity.model.name: runtime} if identity is not None and runtime else {}
    if identity is not None and identity.agent != "external":  # an external agent calls no model of ours
        llm_preflight([(identity.model, runtime)])
    return RunnerSettings(
        worlds_dir=Path(args.worlds) if args.worlds else out / "worlds",
        world_radius=args.radius,
        server=args.server,
        tick_rate=args.tick_rate,
        records_dir=out / "episodes",
        llm=llm,
        **_vanilla_args(args),
        **_lockstep_args(args),
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
    from mirrorcraft.metrics.results import RESULTS_FILE, writing
    from mirrorcraft.study.runner import make_episode_fn

    out = Path(args.out)
    try:
        identity = _identity(args)
        settings = _settings(args, out, identity)
    except (MirrorCraftError, ValueError) as err:
        print(f"episode: {err}", file=sys.stderr)
        return USAGE
    try:
        with writing(out, then="rerun the episode"):
            out.mkdir(parents=True, exist_ok=True)
            (out / RESULTS_FILE).touch()  # fail now, before the episode is played, if OUT is not writable
        if identity.agent == "external":
            record = _play_external(args, identity, settings)
        else:
            record = make_episode_fn(settings)(identity)
        with writing(out / RESULTS_FILE, then="rerun the episode"):
            with (out / RESULTS_FILE).open("a", encoding="utf-8") as fh:
                fh.write(record.model_dump_json() + "\n")
    except MirrorCraftError as err:
        print(f"episode: {err}", file=sys.stderr)
        return 1
    print_record(record)
    print(
        f"record: {out / RESULTS_FILE}; record + run notes: {settings.records_dir / (record.episode_id + '.json')}"
    )
    return 1 if record.infrastructure_faults else 0


def _play_external(args: argparse.Namespace, identity: Any, settings: Any) -> Any:
    """``--agent external``: the episode on this process's reactor thread, the address printed at once."""
    from mirrorcraft.study.external import ExternalSettings, run_external_episode
    from mirrorcraft.study.runner_reactor import call_on_reactor

    if args.server != "embedded":
        raise MirrorCraftError(
            "--agent external plays on the embedded server (its events are the trajectory)"
        )
    external = ExternalSettings(
        host=args.host,
        port=args.port,
        join_timeout_s=args.join_timeout,
        time_budget_s=args.time_budget,
        player=args.player,
    )

    def announce(line: str) -> None:
        print(line, flush=True)

    return call_on_reactor(run_external_episode, identity, settings, external, announce=announce)


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
    lockstep: dict[str, Any] | None = None,
) -> int:
    """The default job (module docstring); returns a process exit code (0: every episode has a record
    that is not an infrastructure fault)."""
    from mirrorcraft.metrics.paired import is_fault, paired_comparisons, rie, score, success_rate
    from mirrorcraft.metrics.reporting import load_report_records, report
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
        **(lockstep or {}),  # clock / lockstep_paced / lockstep_timeout (--clock lockstep)
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
    records = load_report_records(out)[2].used  # the records a report uses: the default grid's only
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
        lockstep = _lockstep_args(args)
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
        lockstep=lockstep,
    )


def add_clock_flags(
    p: argparse.ArgumentParser,
    *,
    clock_help: str,
    default: str | None = "free",
    unpaced_help: str = "--clock lockstep: no pace, as fast as the CPU allows",
) -> None:
    """``--clock free|lockstep`` and ``--unpaced``, as every command that plays episodes takes them (each
    command says in ``clock_help`` what its default is and what lockstep means for it)."""
    p.add_argument("--clock", choices=("free", "lockstep"), default=default, help=clock_help)
    p.add_argument("--unpaced", action="store_true", help=unpaced_help)


def add_llm_flags(p: argparse.ArgumentParser, *, study: bool = False) -> None:
    """The LLM endpoint, limit and price flags (module docstring). ``study`` names the per-attempt timeout
    and the retries ``--llm-timeout``/``--llm-retries`` (the study's ``--timeout`` is the Ray episode timeout)."""
    from mirrorcraft.agents.llm import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT_S

    p.add_argument(
        "--api-base", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (no key needed)"
    )
    p.add_argument("--api-key-env", metavar="NAME", help="environment variable holding the endpoint's key")
    p.add_argument(
        "--llm-timeout" if study else "--timeout",
        dest="llm_timeout" if study else "timeout",
        type=float,
        metavar="S",
        help=f"seconds per model-call attempt (default {DEFAULT_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--llm-retries" if study else "--retries",
        dest="llm_retries" if study else "retries",
        type=int,
        metavar="N",
        help=f"retries of a model call on transient errors (default {DEFAULT_ATTEMPTS - 1}: "
        f"{DEFAULT_ATTEMPTS} attempts)",
    )
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="spending cap of one episode in US dollars (needs a price)",
    )
    p.add_argument("--input-cost-per-token", type=float, metavar="USD", help="price of a prompt token")
    p.add_argument("--output-cost-per-token", type=float, metavar="USD", help="price of an output token")


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
    from mirrorcraft.study.grid import configuration_ids

    p = subparsers.add_parser(
        "episode",
        help="play one episode on the embedded server and print its record",
        allow_abbrev=False,
    )
    p.add_argument(
        "--world", default=DEFAULT_WORLD, help="world copy: plains-1 or plains-1/M03 (default plains-1)"
    )
    p.add_argument("--task", choices=[t.value for t in TaskId], default="diamond")
    agents = [*configuration_ids(), "external"]
    p.add_argument(
        "--agent",
        default="scripted",
        choices=agents,
        metavar="AGENT",
        help=f"agent configuration: {', '.join(agents)} (scripted: offline, no model; external: your own "
        "client plays, see --host/--port; default scripted)",
    )
    p.add_argument("--model", help="litellm model string for LLM configurations")
    add_llm_flags(p)
    p.add_argument("--disclosed", action="store_true", help="rules disclosed (ReAct w/rules; Mirror only)")
    p.add_argument("--budget", type=int, help="action budget (default: the task's, 50/50/75)")
    p.add_argument("--seed", type=int, default=0, help="study seed (the episode seed derives from it)")
    p.add_argument("--rep", type=int, default=0, help="repetition index")
    p.add_argument("--out", default="runs/episode", help="output folder (default runs/episode)")
    p.add_argument("--worlds", help="world catalogue folder (default OUT/worlds; missing worlds are built)")
    p.add_argument("--radius", type=int, help="radius in blocks of worlds built here (default 256)")
    p.add_argument("--tick-rate", type=float, default=20.0, help="server ticks per second (default 20)")
    add_clock_flags(
        p,
        clock_help="free (default: the server ticks on the wall clock) or lockstep (a tick runs only when the "
        "body is done with the last; thinking costs no game time; --tick-rate is then the pace)",
    )
    p.add_argument(
        "--lockstep-timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="--clock lockstep: wall seconds one tick waits for the body before evicting it (default 300)",
    )
    p.add_argument(
        "--server",
        choices=("embedded", "child", "vanilla"),
        default="embedded",
        help="embedded (in-process, default), child (a child process) or vanilla (your server jar)",
    )
    add_vanilla_flags(p)
    ext = p.add_argument_group("--agent external (bring your own Mineflayer agent)")
    ext.add_argument("--host", default="127.0.0.1", help="address the server listens on (default 127.0.0.1)")
    ext.add_argument("--port", type=int, default=25565, help="game port (0 = any free port; default 25565)")
    ext.add_argument("--join-timeout", type=float, default=600.0, metavar="S",
                     help="seconds to wait for the client (default 600)")  # fmt: skip
    ext.add_argument("--time-budget", type=float, default=600.0, metavar="S",
                     help="seconds of play after the client joined (default 600)")  # fmt: skip
    ext.add_argument("--player", help="the client's player name (default: the first client to join)")
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
    parser = argparse.ArgumentParser(prog="python -m mirrorcraft.study.episode_cli", allow_abbrev=False)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    add_episode_parser(sub)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
