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
       report and plots are.
    """
    from mirrorcraft.demo import run_demo
    from mirrorcraft.study.episode_cli import run_default_job

    out = Path(args.out)
    checks = run_demo(out_dir=out)
    if checks != 0:
        return checks
    return run_default_job(out, budget=args.budget, workers=args.workers, tick_rate=args.tick_rate)


def cmd_contracts_export(args: argparse.Namespace) -> int:
    """Write the contracts' JSON schemas to a folder (checked in under docs/schemas/)."""
    from mirrorcraft.contracts import export_schemas

    paths = export_schemas(Path(args.dir))
    for p in paths:
        print(p)
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
    parser.set_defaults(handler=cmd_default)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    contracts = sub.add_parser("contracts", help="the benchmark's data model (schemas)")
    csub = contracts.add_subparsers(title="contracts commands", metavar="SUBCOMMAND", required=True)
    export = csub.add_parser("export", help="export the JSON schemas of every contract model to DIR")
    export.add_argument("dir", help="output folder")
    export.set_defaults(handler=cmd_contracts_export)

    # Subsystem commands register themselves; each imports its heavy parts lazily in its handlers.
    from mirrorcraft.datapacks.cli import add_datapacks_parser
    from mirrorcraft.debug.proxy import add_proxy_parser
    from mirrorcraft.harness.serve_cli import add_serve_parser
    from mirrorcraft.study.check_cli import add_check_parser
    from mirrorcraft.study.episode_cli import add_episode_parser
    from mirrorcraft.study.report_cli import add_report_parser, add_study_parser
    from mirrorcraft.worlds.cli import add_worlds_parser

    add_serve_parser(sub)
    add_worlds_parser(sub)
    add_datapacks_parser(sub)
    add_episode_parser(sub)
    add_study_parser(sub)
    add_report_parser(sub)
    add_proxy_parser(sub)
    add_check_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen command; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
