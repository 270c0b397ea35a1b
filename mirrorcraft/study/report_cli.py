"""CLI of the study machinery: ``study`` (run/resume a grid) and ``report`` (tables and plots of a run).

``report`` serves both benchmarks: a PillagerBench team run (its ``team_study.json``, or team records in
``results.jsonl``) gets :func:`~mirrorcraft.metrics.team_report.team_report` instead.

``mirrorcraft.run`` wires these with :func:`add_study_parser` and :func:`add_report_parser`; the module
also runs on its own (``python -m mirrorcraft.study.report_cli report RUN_DIR``).

The ``study`` command is the driver only. It does **not** contain an episode runner: an episode needs a
server, a body and an agent, which this command receives as ``--episode-fn module:callable`` (default
:data:`DEFAULT_EPISODE_FN`, the real runner ``mirrorcraft.study.runner:run_episode_blocking``);
``--dry-run`` only resolves and lists the grid. The runner's per-episode files (record and run notes, with
the map snapshot ``view`` and ``report`` draw) go to ``RUN_DIR/episodes/`` unless ``MIRRORCRAFT_EPISODE_DIR``
is set (default runner only).

``--server embedded|child|vanilla`` (with ``--server-jar JAR --accept-eula [--java JAVA]`` for vanilla)
chooses the server of the default runner: the flags are checked at once (exit code 2 with a clear message,
nothing written, when java, the jar or the EULA flag is missing) and exported as the runner's environment
(``MIRRORCRAFT_SERVER``, ``MIRRORCRAFT_SERVER_JAR``, ``MIRRORCRAFT_ACCEPT_EULA``, ``MIRRORCRAFT_JAVA``,
:meth:`~mirrorcraft.study.runner.RunnerSettings.from_env`), which spawned workers inherit. With vanilla the
driver's fault records name the ``rcon`` evaluator unless ``--evaluator`` says otherwise.

**Clock** (docs/lockstep.md): a MirrorCraft study runs in **lockstep, unpaced** by default (its budget is
actions, not time: the same episode gives the same record however fast the machine is). ``--clock
lockstep`` alone is paced at ``--tick-rate`` (as for ``episode``), ``--clock lockstep --unpaced`` is the
default spelled out, ``--clock free`` is the free-running server of before. With ``--server vanilla``
the default is ``free`` (a vanilla jar cannot take part in lockstep) and ``--clock lockstep`` is refused.
The choice reaches the runner as ``MIRRORCRAFT_CLOCK`` (with ``MIRRORCRAFT_TICK_RATE`` and
``MIRRORCRAFT_LOCKSTEP_TIMEOUT``), each episode's run notes record it (``clock``), and the run folder's
``run_settings.json`` keeps it: a ``--resume`` with another clock or tick rate is refused.

**Many episodes per process**: ``--concurrency N`` runs N episodes at once in each worker process
(``--workers``; with ``--workers 0``, in the driver), each with its own world copy, server and body on the
process's one reactor; ``--max-model-calls M`` (default 16) bounds the model calls in flight per process
(``MIRRORCRAFT_MODEL_CALLS``; :mod:`mirrorcraft.study.runner_concurrency`).

**Before anything runs** the study checks, with exit code 2 and one line naming the field: the grid
(:func:`~mirrorcraft.study.grid.validate_grid`: catalogue worlds, known configurations, disclosable
ones), every LLM model's API key (unless an ``api_base`` is given) and, with a cost cap, its price.

**Models and money.** ``--api-base``, ``--api-key-env``, ``--llm-timeout``, ``--llm-retries``,
``--max-cost`` (per episode), ``--input-cost-per-token`` and ``--output-cost-per-token`` apply to every
LLM model of the grid, over the grid's own per-model fields; they reach the runner's workers as
``MIRRORCRAFT_LLM`` (:data:`~mirrorcraft.study.runner.ENV_LLM`). ``--max-study-cost USD`` caps the whole
run folder's spending (all sessions): the study stops starting episodes, records the running ones and
exits with code 3; ``--resume`` with a higher cap continues.

**Exit codes**: 0 the grid is done; 1 a failure, an unfinished session, or every episode a fault;
2 a usage error (nothing started); 3 stopped by ``--max-study-cost``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mirrorcraft.errors import ContractError

#: ``module:callable`` of the episode runner used when ``--episode-fn`` is not given (None: not connected).
DEFAULT_EPISODE_FN: str | None = "mirrorcraft.study.runner:run_episode_blocking"


def resolve_callable(spec: str) -> Any:
    """Import ``module:attr`` (``attr`` may be dotted).

    Raises:
        ContractError: malformed spec, module or attribute missing.
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ContractError(f"--episode-fn {spec!r}: expected 'module:callable'")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as err:
        raise ContractError(f"--episode-fn {spec!r}: cannot import {module_name}: {err}") from err
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ContractError(f"--episode-fn {spec!r}: {module_name} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ContractError(f"--episode-fn {spec!r}: {attr} is not callable")
    return obj


def _export_server(args: argparse.Namespace) -> None:
    """Check ``--server``/``--server-jar``/``--accept-eula``/``--java`` and export them for the runner.

    Raises:
        VanillaLaunchError: ``--server vanilla`` without a usable jar, java or ``--accept-eula``.
    """
    import os

    from mirrorcraft.study import runner

    if args.server is None:
        return
    if args.server == "vanilla":
        jar = Path(args.server_jar) if args.server_jar else None
        runner.vanilla_preflight(jar, args.accept_eula, args.java)
        os.environ[runner.ENV_SERVER_JAR] = str(Path(args.server_jar).resolve())
        os.environ[runner.ENV_ACCEPT_EULA] = "1"
        os.environ[runner.ENV_JAVA] = args.java
    os.environ[runner.ENV_SERVER] = args.server


#: Exit code of a study stopped by its cost cap (resumable).
COST_CAP_EXIT = 3


def _prepare_models(args: argparse.Namespace, grid: Any, runtimes: dict[str, Any]) -> float | None:
    """Merge the CLI's LLM flags over the grid's per-model fields, check keys and prices, export them for
    the runner (``MIRRORCRAFT_LLM``). Returns the largest per-episode cost cap of the LLM models (0 with
    none; None when one LLM model has no cap).

    Raises:
        UsageError: a missing key or price (one line naming the model and the variable).
    """
    import json
    import os

    from mirrorcraft.study import runner
    from mirrorcraft.study.episode_cli import llm_preflight, llm_runtime

    cli = llm_runtime(args, study=True)
    merged: dict[str, dict[str, Any]] = {}
    for model in grid.models:
        fields = runtimes[model.name].overrides() if model.name in runtimes else {}
        fields |= cli
        if fields and model.name != "scripted":
            merged[model.name] = fields
    llm_preflight([(m, merged.get(m.name)) for m in grid.models])
    os.environ[runner.ENV_LLM] = json.dumps(merged)
    caps = [merged.get(m.name, {}).get("max_cost_usd") for m in grid.models if m.name != "scripted"]
    if any(c is None for c in caps):
        return None
    return max(caps, default=0.0)


def study_run_env(args: argparse.Namespace) -> dict[str, str]:
    """The runner environment of ``--clock``/``--unpaced``/``--tick-rate``/``--lockstep-timeout``/
    ``--concurrency``/``--max-model-calls`` (module docstring, **Clock**), checked.

    Raises:
        UsageError: lockstep with a vanilla jar, ``--unpaced`` with ``--clock free``, a count < 1 or a
            rate or timeout ≤ 0.
    """
    import os

    from mirrorcraft.study import runner
    from mirrorcraft.study.episode_cli import UsageError

    server = args.server or os.environ.get(runner.ENV_SERVER) or "embedded"
    if args.concurrency < 1:
        raise UsageError(f"--concurrency {args.concurrency}: at least 1 episode per process")
    if args.max_model_calls < 1:
        raise UsageError(f"--max-model-calls {args.max_model_calls}: at least 1")
    if args.workers < 0:
        raise UsageError(f"--workers {args.workers}: 0 (in the driver) or more")
    if args.tick_rate is not None and not 0 < args.tick_rate <= 1000:
        raise UsageError(f"--tick-rate {args.tick_rate:g}: expected 0 < N <= 1000 ticks per second")
    if args.lockstep_timeout <= 0:
        raise UsageError(f"--lockstep-timeout {args.lockstep_timeout:g}: expected seconds > 0")
    clock = args.clock
    if clock is None:
        clock = "free" if server == "vanilla" else "lockstep"
        unpaced = clock == "lockstep"  # the study default: lockstep, unpaced
    else:
        unpaced = args.unpaced
    if clock == "free" and args.unpaced:
        raise UsageError("--unpaced needs --clock lockstep")
    if clock == "lockstep" and server == "vanilla":
        raise UsageError("--clock lockstep needs the embedded server (embedded or child), not vanilla")
    mode = "free" if clock == "free" else ("lockstep-unpaced" if unpaced else "lockstep")
    env = {
        runner.ENV_CLOCK: mode,
        runner.ENV_LOCKSTEP_TIMEOUT: repr(float(args.lockstep_timeout)),
        runner.ENV_MODEL_CALLS: str(args.max_model_calls),
    }
    if args.tick_rate is not None:
        env[runner.ENV_TICK_RATE] = repr(float(args.tick_rate))
    return env


def _run_settings(env: dict[str, str]) -> dict[str, Any]:
    """What ``run_settings.json`` keeps: the settings that change the game (the clock and its rate)."""
    import os

    from mirrorcraft.study import runner

    rate = env.get(runner.ENV_TICK_RATE) or os.environ.get(runner.ENV_TICK_RATE) or "20"
    return {"clock": env[runner.ENV_CLOCK], "tick_rate": float(rate)}


class _Exported:
    """Set environment variables for the session (spawned workers inherit them) and restore them after,
    so a driver called in-process (tests, notebooks) leaves no setting behind for the next study."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> None:
        import os

        for k, v in self.env.items():
            self.saved[k] = os.environ.get(k)
            os.environ[k] = v

    def __exit__(self, *exc: object) -> None:
        import os

        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def cmd_study(args: argparse.Namespace) -> int:
    """Run or resume a study grid (see module docstring)."""
    from mirrorcraft.errors import MirrorCraftError

    try:
        env = study_run_env(args)
    except MirrorCraftError as err:
        print(f"study: {err}", file=sys.stderr)
        return 2
    with _Exported(env):
        return _cmd_study(args, env)


def _cmd_study(args: argparse.Namespace, env: dict[str, str]) -> int:
    from mirrorcraft.errors import MirrorCraftError
    from mirrorcraft.study.executors import make_executor, run_study
    from mirrorcraft.study.grid import expand_grid, load_study, validate_grid

    try:
        _export_server(args)
        grid, runtimes = load_study(args.grid, study_seed=args.study_seed)
        validate_grid(grid)
        episode_cap = None if args.dry_run else _prepare_models(args, grid, runtimes)
    except MirrorCraftError as err:
        print(f"study: {err}", file=sys.stderr)
        return 2
    evaluator = args.evaluator or ("rcon" if args.server == "vanilla" else "embedded")
    try:
        identities = expand_grid(grid)
        run_dir = Path(args.run_dir or Path("runs") / grid.name)
        if args.dry_run:
            print(f"grid {grid.name}: {len(identities)} episodes (study seed {grid.study_seed}) → {run_dir}")
            for ident in identities[: args.list]:
                print(
                    f"  {ident.episode_id}  {ident.world_id}  {ident.task.value}  {ident.configuration}  "
                    f"{ident.model.name}  rep {ident.repetition}"
                )
            return 0
        fn_spec = args.episode_fn or DEFAULT_EPISODE_FN
        if fn_spec is None:
            print(
                "study: the episode runner is not connected yet, so no episode can be played. Pass "
                "--episode-fn module:callable (a function identity -> EpisodeRecord) or use --dry-run.",
                file=sys.stderr,
            )
            return 2
        run_episode = resolve_callable(fn_spec)
        import os

        from mirrorcraft.study import runner

        # The default runner's per-episode files (record + run notes with the map snapshot the viewer draws) go
        # into the run folder unless the environment says otherwise (docs/viewer.md); workers inherit it, and
        # the variable is taken back afterwards so an in-process caller's environment is left as it was.
        added = fn_spec == DEFAULT_EPISODE_FN and not os.environ.get(runner.ENV_RECORDS)
        if added:
            os.environ[runner.ENV_RECORDS] = str(run_dir.resolve() / "episodes")
        try:
            executor = make_executor(
                args.executor,
                workers=args.workers,
                concurrency=args.concurrency,
                address=args.address,
                timeout_s=args.timeout,
                evaluator=evaluator,
            )
            summary = run_study(
                run_dir,
                grid,
                run_episode,
                executor=executor,
                resume=args.resume,
                max_attempts=args.max_attempts,
                progress=not args.no_progress,
                max_cost_usd=args.max_study_cost,
                episode_cost_usd=episode_cap,
                run_settings=_run_settings(env),
            )
        finally:
            if added:
                os.environ.pop(runner.ENV_RECORDS, None)
    except ContractError as err:
        print(f"study: {err}", file=sys.stderr)
        return 1
    print(
        f"{summary.run_dir}: {summary.already_done + summary.completed}/{summary.total} episodes recorded "
        f"({summary.completed} this session, {summary.retried} retried faults, {summary.final_faults} final faults, "
        f"{summary.bad_lines} ignored lines) in {summary.elapsed_s:.1f}s, ${summary.cost_usd:.4f} spent in all"
    )
    if summary.stopped_by_cost:
        left = summary.total - summary.already_done - summary.completed
        print(
            f"study: cost cap reached: ${summary.cost_usd:.4f} spent of --max-study-cost ${args.max_study_cost:g}; "
            f"{left} episodes not started. Resume later with --resume and a higher --max-study-cost.",
            file=sys.stderr,
        )
        return COST_CAP_EXIT
    if summary.all_faults:
        print(
            f"study: every episode ended in an infrastructure fault (see {summary.run_dir / 'results.jsonl'}; "
            "python -m mirrorcraft.run report RUN_DIR lists them)",
            file=sys.stderr,
        )
        return 1
    return 0 if summary.finished else 1


def _print_report(paths: Sequence[Path]) -> None:
    """The report's files, one per line (stdout); the episode pages (``<episode_id>.html``) as one line on
    stderr."""
    pages = [p for p in paths if p.suffix == ".html" and p.name != "index.html"]
    for p in paths:
        if p not in pages:
            print(p)
    if pages:
        print(
            f"report: {len(pages)} episode pages beside index.html ({pages[0].parent}/*ep-*.html)",
            file=sys.stderr,
        )


def cmd_report(args: argparse.Namespace) -> int:
    """Write the report of a run folder and list the files (a team run gets the team report)."""
    from mirrorcraft.metrics.reporting import report
    from mirrorcraft.metrics.team_report import team_report
    from mirrorcraft.metrics.team_results import is_team_run

    try:
        if is_team_run(Path(args.run_dir)):
            _print_report(team_report(
                Path(args.run_dir), n_boot=args.bootstrap, seed=args.seed, plots=not args.no_plots,
                include_foreign=args.include_foreign, pages=not args.no_pages,
            ))  # fmt: skip
            return 0
        paths = report(
            Path(args.run_dir),
            n_boot=args.bootstrap,
            seed=args.seed,
            checkpoints=tuple(args.checkpoints),
            plots=not args.no_plots,
            include_foreign=args.include_foreign,
            keep=args.conflicts,
            keep_lines=args.keep_line,
            pages=not args.no_pages,
        )
    except ContractError as err:
        print(f"report: {err}", file=sys.stderr)
        return 1
    _print_report(paths)
    return 0


def add_study_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``study`` command to an argparse subparsers object and return its parser."""
    from mirrorcraft.study.episode_cli import add_clock_flags

    p = subparsers.add_parser(
        "study", help="run or resume a study grid (episodes → results.jsonl)", allow_abbrev=False
    )
    p.add_argument("grid", help="preset (main, smoke, horizon) or a YAML grid file")
    p.add_argument("--run-dir", help="run folder (default: runs/<grid name>)")
    p.add_argument("--resume", action="store_true", help="continue a run folder that already has results")
    p.add_argument("--executor", choices=("local", "ray"), default="local")
    p.add_argument(
        "--workers", type=int, default=1, help="local worker processes (0 = in the driver process)"
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=1,
        metavar="N",
        help="episodes run at once in each worker process (default 1; each its own world copy, server and "
        "body on the process's reactor)",
    )
    p.add_argument(
        "--max-model-calls",
        type=int,
        default=16,
        metavar="M",
        help="model calls in flight at most per worker process, all its episodes together (default 16)",
    )
    add_clock_flags(
        p,
        default=None,
        clock_help="lockstep (default, unpaced: a tick runs only when the body is done with the last; thinking "
        "costs no game time) or free (the server ticks on the wall clock; the default with --server "
        "vanilla). --clock lockstep alone is paced at --tick-rate",
    )
    p.add_argument(
        "--tick-rate",
        type=float,
        default=None,
        help="server ticks per second (default: MIRRORCRAFT_TICK_RATE or 20); in lockstep, the pace",
    )
    p.add_argument(
        "--lockstep-timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="lockstep: wall seconds one tick waits for a silent body before evicting it (default 300)",
    )
    p.add_argument("--address", help="Ray cluster address (executor ray; default: start a local Ray)")
    p.add_argument("--timeout", type=float, help="per-episode timeout in seconds (executor ray)")
    p.add_argument(
        "--max-attempts", type=int, default=3, help="attempts per episode on infrastructure faults"
    )
    p.add_argument("--study-seed", type=int, help="override the grid's study seed")
    p.add_argument("--episode-fn", help="episode runner as module:callable (identity -> EpisodeRecord)")
    p.add_argument(
        "--evaluator",
        choices=("embedded", "rcon"),
        default=None,
        help="evaluator named in fault records the driver writes (default: rcon with --server vanilla, "
        "else embedded)",
    )
    p.add_argument(
        "--server",
        choices=("embedded", "child", "vanilla"),
        help="server of the default runner (exported as MIRRORCRAFT_SERVER; default: the environment's)",
    )
    from mirrorcraft.study.episode_cli import add_llm_flags, add_vanilla_flags

    add_vanilla_flags(p)
    add_llm_flags(p, study=True)
    p.add_argument(
        "--max-study-cost",
        type=float,
        metavar="USD",
        help="spending cap of the whole run folder (all sessions); stops cleanly, exit code 3, resumable",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--dry-run", action="store_true", help="resolve the grid and list episodes; run nothing")
    p.add_argument("--list", type=int, default=10, help="episodes listed by --dry-run (default 10)")
    p.set_defaults(handler=cmd_study)
    return p


def add_report_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` command to an argparse subparsers object and return its parser."""
    p = subparsers.add_parser(
        "report",
        help="tables (Markdown, CSV), plots and index.html (with one page per episode) of a study run folder "
        "(MirrorCraft or PillagerBench team run)",
        description="A team run (team_study.json, or team records in results.jsonl) gets the team report: "
        "teams.md, one CSV per table, scores_<scenario>.png and d_heatmap_<scenario>.png, index.html and the "
        "episode pages; --checkpoints, "
        "--conflicts and --keep-line apply to MirrorCraft runs only.",
        allow_abbrev=False,
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="run folder holding results.jsonl")
    p.add_argument("--bootstrap", type=int, default=2000, help="bootstrap replicates (default 2000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument(
        "--checkpoints",
        type=int,
        nargs="+",
        default=[100, 150, 200],
        help="action checkpoints of the horizon table",
    )
    p.add_argument("--no-plots", action="store_true", help="skip the PNG figures")
    p.add_argument(
        "--no-pages",
        action="store_true",
        help="skip index.html and the episode pages (one self-contained HTML page per episode, docs/viewer.md)",
    )
    p.add_argument(
        "--include-foreign",
        action="store_true",
        help="also use records that do not belong to the run's grid.json (default: listed and excluded)",
    )
    p.add_argument(
        "--conflicts",
        choices=("refuse", "first", "last"),
        default="refuse",
        help="differing records of one episode: refuse to report (default), or keep the first / last "
        "in file order",
    )
    p.add_argument(
        "--keep-line",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="the record on line N of results.jsonl wins its conflict (repeatable; before --conflicts)",
    )
    p.set_defaults(handler=cmd_report)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry: ``python -m mirrorcraft.study.report_cli {study,report} ...``."""
    parser = argparse.ArgumentParser(prog="python -m mirrorcraft.study.report_cli", allow_abbrev=False)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    add_study_parser(sub)
    add_report_parser(sub)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
