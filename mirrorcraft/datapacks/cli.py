"""``datapacks`` commands: build the rule packs, audit a pack, analyse a suite's task routes, print cards,
and compile kind=biome specs into worldgen packs.

Wired into ``python -m mirrorcraft.run`` by :func:`add_datapacks_parser` (the lead owns run.py). Each
handler returns a process exit code: 0 on success, 1 when an audit or analysis finds errors, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mirrorcraft.errors import DatapackError

__all__ = ["add_datapacks_parser", "cmd_analyse", "cmd_audit", "cmd_biome", "cmd_build", "cmd_cards"]


def _suites(suite: str | None) -> list:
    from mirrorcraft.contracts.rules import load_all_suites, load_suite

    return [load_suite(suite)] if suite else list(load_all_suites().values())


def cmd_build(args: argparse.Namespace) -> int:
    """Compile the suite(s) to ``<out>/<suite>.zip`` and audit each result."""
    from mirrorcraft.datapacks.audit import audit_pack
    from mirrorcraft.datapacks.compiler import compile_suite

    try:
        manifests = _suites(args.suite)
        failed = 0
        for m in manifests:
            path = compile_suite(m, Path(args.out))
            report = audit_pack(path)
            status = "ok" if report.ok else f"AUDIT FAILED ({len(report.errors)} errors)"
            print(f"{m.suite}: {path} ({path.stat().st_size} bytes) {status}")
            if not report.ok:
                print(report.summary())
                failed += 1
        return 1 if failed else 0
    except DatapackError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


def cmd_audit(args: argparse.Namespace) -> int:
    """Audit a pack (zip or folder); exit 1 when it has errors."""
    from mirrorcraft.datapacks.audit import audit_pack

    try:
        report = audit_pack(Path(args.path), allow_display=args.allow_display)
    except DatapackError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(report.model_dump_json(indent=2) if args.json else report.summary())
    return 0 if report.ok else 1


def cmd_analyse(args: argparse.Namespace) -> int:
    """Analyse relevance, reachability and encounterability; exit 1 when a suite is rejected."""
    from mirrorcraft.datapacks.graph import analyse_suite, analyse_vanilla

    biomes = [args.biome] if args.biome else None
    try:
        results = (
            [analyse_vanilla(biomes=biomes)]
            if args.suite == "vanilla"
            else [analyse_suite(m, biomes=biomes) for m in _suites(args.suite)]
        )
    except DatapackError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    rejected = 0
    for a in results:
        if args.json:
            print(a.model_dump_json(indent=2))
        else:
            print(f"{a.suite}: {'accepted' if a.accepted else 'REJECTED'}")
            for p in a.problems:
                print(f"  problem: {p}")
            for w in a.warnings:
                print(f"  warning: {w}")
            for r in a.rules:
                rel = ", ".join(t for t, v in r.relevant.items() if v) or "none"
                enc = ", ".join(t for t, v in r.encounterable.items() if v) or "none"
                print(f"  {r.rule_id}: relevant to {rel}; encounterable before completion in {enc}")
            if args.routes:
                for reach in a.reachability:
                    print(f"  route {reach.task} ({reach.biome}):")
                    for step in reach.route:
                        print(f"    {step.detail}")
        rejected += not a.accepted
    return 1 if rejected else 0


def cmd_biome(args: argparse.Namespace) -> int:
    """Compile kind=biome specs into worldgen packs ``<out>/biome-<name>.zip`` (best effort, audited)."""
    import os
    import tempfile

    from mirrorcraft.datapacks.audit import audit_files
    from mirrorcraft.datapacks.biome import BIOME_NAMES
    from mirrorcraft.datapacks.biome_pack import audit_biome_files, build_biome_files
    from mirrorcraft.datapacks.compiler import zip_files

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    try:
        for name in [args.biome] if args.biome else list(BIOME_NAMES):
            files = build_biome_files(name)
            problems = [str(e) for e in audit_files(files).errors] + audit_biome_files(files)
            target = out / f"biome-{name}.zip"
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=out)
            with os.fdopen(fd, "wb") as fh:
                fh.write(zip_files(files))
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
            print(f"{name}: {target} {'ok' if not problems else 'AUDIT FAILED'}")
            for p in problems:
                print(f"  {p}")
            failed += bool(problems)
    except DatapackError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 1 if failed else 0


def cmd_cards(args: argparse.Namespace) -> int:
    """Print the rule card(s) shown to "ReAct w/rules"."""
    from mirrorcraft.datapacks.compiler import rule_cards

    try:
        manifests = _suites(args.suite)
    except DatapackError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({m.suite: rule_cards(m) for m in manifests}, indent=2))
    else:
        print("\n\n".join(rule_cards(m) for m in manifests))
    return 0


def add_datapacks_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``datapacks`` command group to a ``run.py``-style subparsers object.

    Returns:
        The ``datapacks`` parser (its sub-commands set ``handler``).
    """
    dp = subparsers.add_parser(
        "datapacks", help="kind=mirror rule packs: build, audit, analyse, cards", allow_abbrev=False
    )
    sub = dp.add_subparsers(title="datapacks commands", metavar="SUBCOMMAND", required=True)

    build = sub.add_parser(
        "build", help="compile rule suites into pack_format 10 zips (and audit them)", allow_abbrev=False
    )
    build.add_argument(
        "--suite", choices=["M01", "M02", "M03", "M04", "M05", "M06"], help="one suite (default: all)"
    )
    build.add_argument("--out", default="runs/datapacks", help="output folder (default: runs/datapacks)")
    build.set_defaults(handler=cmd_build)

    audit = sub.add_parser(
        "audit",
        help="statically audit a datapack (zip or folder); non-zero exit on errors",
        allow_abbrev=False,
    )
    audit.add_argument("path", help="the pack")
    audit.add_argument("--allow-display", action="store_true", help="accept advancements with a display")
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    audit.set_defaults(handler=cmd_audit)

    analyse = sub.add_parser(
        "analyse", help="task-route relevance / reachability / encounterability", allow_abbrev=False
    )
    analyse.add_argument(
        "--suite",
        choices=["vanilla", "M01", "M02", "M03", "M04", "M05", "M06"],
        help="default: all six suites",
    )
    analyse.add_argument("--biome", help="one biome (default: all five)")
    analyse.add_argument("--routes", action="store_true", help="print a derived route per task and biome")
    analyse.add_argument("--json", action="store_true", help="print the analysis as JSON")
    analyse.set_defaults(handler=cmd_analyse)

    biome = sub.add_parser(
        "biome",
        help="kind=biome specs -> worldgen packs for a vanilla server (best effort)",
        allow_abbrev=False,
    )
    biome.add_argument("--biome", help="one biome spec (default: all five)")
    biome.add_argument("--out", default="runs/datapacks", help="output folder (default: runs/datapacks)")
    biome.set_defaults(handler=cmd_biome)

    cards = sub.add_parser("cards", help="print the rule cards shown to ReAct w/rules", allow_abbrev=False)
    cards.add_argument("--suite", choices=["M01", "M02", "M03", "M04", "M05", "M06"], help="default: all")
    cards.add_argument("--json", action="store_true")
    cards.set_defaults(handler=cmd_cards)
    return dp
