"""Command-line entry point: ``python -m mirrorcraft.run <command>`` (also installed as ``mirrorcraft``).

Why one entry point: a researcher should find every capability (serve a world, build worlds and packs, run
checks, run episodes and studies, report) behind one ``--help``. Each command lives in a small function that
imports its subsystem lazily, so ``--help`` and ``--version`` stay instant and a missing optional extra (Ray,
litellm) only matters for the command that needs it.

Running with no command runs the default job (see :func:`cmd_default` and README.md for what it currently is).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from mirrorcraft import MINECRAFT_VERSION, PROTOCOL_1_19, PROTOCOL_1_19_2, __version__

Handler = Callable[[argparse.Namespace], int]


#: Action budget of the default job's episodes: None = the task's own budget (Diamond: 50 actions).
DEFAULT_JOB_BUDGET: int | None = None


def cmd_default(args: argparse.Namespace) -> int:
    """The default job: integrity checks of the paired worlds, then a paired evaluation with the scripted agent.

    1. ``mirrorcraft.demo``: build ``plains-1`` and its six Mirror copies, check every pair differs only by its
       rule pack, audit the packs, check every task stays reachable under every suite (static graph);
    2. ``mirrorcraft.study.episode_cli.run_default_job``: the offline scripted agent plays Diamond in ``plains-1``
       and each Mirror copy on the embedded server; prints Score/SR per world, RIE, and where the records,
       report and plots are;
    3. ``mirrorcraft.study.team_demo.run_team_demo``: a short side-balanced PillagerBench demo (Mushroom War,
       scripted baselines, 4 episodes of 20 game seconds) with its team tables.
    """
    from mirrorcraft.demo import run_demo
    from mirrorcraft.study.episode_cli import run_default_job
    from mirrorcraft.study.team_demo import run_team_demo

    if args.unpaced and args.clock != "lockstep":
        print("mirrorcraft: --unpaced needs --clock lockstep", file=sys.stderr)
        return 2
    out = Path(args.out)
    checks = run_demo(out_dir=out)
    if checks != 0:
        return checks
    lockstep = {"clock": "lockstep", "lockstep_paced": not args.unpaced} if args.clock == "lockstep" else None
    code = run_default_job(
        out, budget=args.budget, workers=args.workers, tick_rate=args.tick_rate, lockstep=lockstep
    )
    team = run_team_demo(out / "teams")
    return code or team


def cmd_contracts_export(args: argparse.Namespace) -> int:
    """Write the contracts' JSON schemas to a folder (checked in under docs/schemas/)."""
    from mirrorcraft.contracts import export_schemas

    paths = export_schemas(Path(args.dir))
    for p in paths:
        print(p)
    return 0


#: What ``list`` can list (one line per item: kind, id, description).
LIST_KINDS = ("configurations", "tasks", "worlds", "suites")
#: One-line descriptions of the configurations (docs/agents.md has the full ones).
CONFIGURATION_TEXT = {
    "direct_llm": "Direct LLM: observation in, one skill call out",
    "direct": "alias of direct_llm",
    "react": "ReAct: thought/action/observation trace of the 16 most recent transitions",
    "reflexion": "Reflexion: ReAct trace + up to 3 lessons written by triggered reviews",
    "voyager": "Voyager: procedure library, 4-skill programs, critique, retrieval, repair",
    "xenon": "XENON: dependency graph + effect memory, edge correction, replanning",
    "adam": "ADAM: causal graph, transition memory, bounded intervention probes",
    "scripted": "offline scripted policy (no model, no API key)",
}


def list_lines(kind: str | None = None) -> list[str]:
    """The ``list`` command's lines: ``<kind> <id> <description>``, for one kind or all four."""
    from mirrorcraft.contracts import SUITE_IDS, VANILLA_WORLDS, load_suite, task_spec
    from mirrorcraft.contracts.tasks import TaskId

    lines: list[str] = []
    kinds = [kind] if kind else list(LIST_KINDS)
    if "configurations" in kinds:
        from mirrorcraft.study.grid import configuration_ids

        for c in configuration_ids():
            lines.append(f"configuration {c:<15} {CONFIGURATION_TEXT.get(c, 'agent configuration')}")
        lines.append(
            f"configuration {'react_w_rules':<15} ReAct w/rules: rule cards shown (episode --agent react "
            "--disclosed; grid disclosed_configurations); Mirror worlds only"
        )
    if "tasks" in kinds:
        for t in TaskId:
            spec = task_spec(t)
            final = spec.final.advancement
            lines.append(
                f"task          {t.value:<15} budget {spec.budget} actions, {len(spec.milestones)} milestones, "
                f"final {final}"
            )
    if "worlds" in kinds:
        for w in VANILLA_WORLDS:
            biome = w.rsplit("-", 1)[0]
            lines.append(
                f"world         {w:<15} Vanilla world, biome {biome}; Mirror copies {w}/M01 .. {w}/M06"
            )
    if "suites" in kinds:
        for suite in SUITE_IDS:
            m = load_suite(suite)
            lines.append(f"suite         {suite:<15} {m.name} ({len(m.rules)} rules)")
    return lines


def cmd_list(args: argparse.Namespace) -> int:
    """Print the configurations, tasks, worlds and suites, one per line."""
    for line in list_lines(args.kind):
        print(line)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every command and its help text."""
    parser = argparse.ArgumentParser(
        prog="python -m mirrorcraft.run",
        description=(
            f"MirrorCraft {__version__}: paired Vanilla/Mirror Minecraft {MINECRAFT_VERSION} worlds "
            f"(protocol {PROTOCOL_1_19_2}, also {PROTOCOL_1_19}) for evaluating agents under hidden rule changes. "
            "Run with no command for the default job."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"mirrorcraft {__version__}")
    parser.add_argument(
        "--out", default="runs/demo", help="output folder of the default job (default: runs/demo)"
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_JOB_BUDGET,
        help="default job: actions per episode (default: the Diamond task's own budget, 50)",
    )
    parser.add_argument("--workers", type=int, default=2, help="default job: parallel episodes (default 2)")
    parser.add_argument(
        "--tick-rate",
        type=float,
        default=100.0,
        help="default job: server ticks/s (default 100: accelerated)",
    )
    from mirrorcraft.study.episode_cli import add_clock_flags

    add_clock_flags(
        parser,
        clock_help="default job's episodes: free (default) or lockstep (docs/lockstep.md; the team demo stays free)",
        unpaced_help="default job with --clock lockstep: no pace (as fast as the CPU)",
    )
    parser.set_defaults(handler=cmd_default)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    contracts = sub.add_parser("contracts", help="the benchmark's data model (schemas)", allow_abbrev=False)
    csub = contracts.add_subparsers(title="contracts commands", metavar="SUBCOMMAND", required=True)
    export = csub.add_parser(
        "export", help="export the JSON schemas of every contract model to DIR", allow_abbrev=False
    )
    export.add_argument("dir", help="output folder")
    export.set_defaults(handler=cmd_contracts_export)

    # Subsystem commands register themselves; each imports its heavy parts lazily in its handlers.
    from mirrorcraft.datapacks.cli import add_datapacks_parser
    from mirrorcraft.debug.proxy import add_proxy_parser
    from mirrorcraft.harness.serve_cli import add_serve_parser
    from mirrorcraft.metrics.pages.cli import add_view_parser
    from mirrorcraft.study.check_cli import add_check_parser
    from mirrorcraft.study.episode_cli import add_episode_parser
    from mirrorcraft.study.report_cli import add_report_parser, add_study_parser
    from mirrorcraft.study.teams_cli import add_teams_parser
    from mirrorcraft.worlds.cli import add_worlds_parser

    add_serve_parser(sub)
    add_worlds_parser(sub)
    add_datapacks_parser(sub)
    add_episode_parser(sub)
    add_study_parser(sub)
    add_report_parser(sub)
    add_view_parser(sub)
    add_proxy_parser(sub)
    add_check_parser(sub)
    add_teams_parser(sub)
    ls = sub.add_parser(
        "list", help="list configurations, tasks, worlds and suites (one per line)", allow_abbrev=False
    )
    ls.add_argument("kind", nargs="?", choices=LIST_KINDS, help="only this kind (default: all four)")
    ls.set_defaults(handler=cmd_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
