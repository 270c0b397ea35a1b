"""``worlds`` commands: build the catalogue (10 Vanilla + 60 Mirror worlds and the 4 PillagerBench arenas),
list it, check it.

Arena selections (``mushroom_war``, ``mushroom_war/mirrored``, ``dash_and_dine/*``, ``arenas``) go to
:mod:`mirrorcraft.worlds.arenas.build`; everything else to the catalogue. With no selection, ``build``,
``list`` and ``check`` cover both.

Wired into ``python -m mirrorcraft.run`` by :func:`add_worlds_parser` (the lead owns run.py). Handlers
return 0 on success, 1 when a check fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mirrorcraft.errors import DatapackError, WorldError

__all__ = ["add_worlds_parser", "cmd_build", "cmd_check", "cmd_list"]


def _selections(only: str | None) -> tuple[bool, bool]:
    """(catalogue worlds selected, arenas selected) for a ``--only`` value."""
    from mirrorcraft.worlds.arenas.build import is_arena_selector

    if only is None:
        return True, True
    arena = is_arena_selector(only)
    return not arena, arena


def cmd_build(args: argparse.Namespace) -> int:
    """Build the selected worlds under ``--out``."""
    from mirrorcraft.worlds.arenas.build import build_arena, select_arenas
    from mirrorcraft.worlds.catalogue import build_world, select, write_catalogue_record

    out = Path(args.out)
    worlds, arenas = _selections(args.only)
    try:
        if arenas and not worlds and args.radius is not None:
            raise WorldError(
                "--radius applies to catalogue worlds; an arena's size is its spec's world border"
            )
        records = []
        jobs = [(build_world, e, args.radius) for e in select(args.only)] if worlds else []
        jobs += [(build_arena, a, None) for a in select_arenas(args.only)] if arenas else []
        for build, what, radius in jobs:
            rec = (
                build(what, out, radius, force=args.force)
                if radius is not None
                else build(what, out, force=args.force)
            )
            records.append(rec)
            what = f"built in {rec.seconds:.1f}s" if rec.built else "exists, kept"
            print(f"{rec.name}: {rec.path} ({what})", flush=True)
        write_catalogue_record(out, records)
    except (WorldError, DatapackError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """List the catalogue with seeds and whether each world is built under ``--out``."""
    from mirrorcraft.worlds.arenas.build import arena_path, select_arenas
    from mirrorcraft.worlds.catalogue import select, world_path, world_seed

    worlds, arenas = _selections(args.only)
    try:
        entries = select(args.only) if worlds else []
        arena_ids = select_arenas(args.only) if arenas else []
    except WorldError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for e in entries:
        built = "built" if world_path(Path(args.out), e).exists() else "-"
        print(f"{e.name:<20} {e.biome:<13} seed={e.seed:<20} {built}")
    for a in arena_ids:
        built = "built" if arena_path(Path(args.out), a).exists() else "-"
        print(f"{a:<22} {'arena':<11} seed={world_seed(a.split('/')[0]):<20} {built}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check built worlds: spawn and resources (Vanilla), pair identity (Mirror), block-for-block (arenas)."""
    from mirrorcraft.worlds.arenas.build import ArenaCheck, arena_path, check_arena, select_arenas
    from mirrorcraft.worlds.check import PairCheck, check_catalogue

    worlds, arenas = _selections(args.name)
    try:
        results: list = check_catalogue(Path(args.out), args.name, args.radius) if worlds else []
        for a in select_arenas(args.name) if arenas else []:
            if args.name is not None or arena_path(Path(args.out), a).exists():
                results.append(check_arena(a, Path(args.out)))
    except WorldError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    failed = 0
    for r in results:
        if isinstance(r, ArenaCheck):
            print(
                f"{r.name}: {'ok' if r.ok else 'FAILED'} ({r.cells_checked} cells, block entities, animals)"
            )
            for p in r.problems:
                print(f"  problem: {p}")
            failed += not r.ok
            continue
        if isinstance(r, PairCheck):
            print(
                f"{r.mirror}: {'ok' if r.ok else 'FAILED'} ({r.identical_files} identical files, "
                f"level.dat differs at {r.level_dat_diff})"
            )
        else:
            counts = ", ".join(f"{k}={v.count}" for k, v in r.resources.items())
            print(
                f"{r.path}: {'ok' if r.ok else 'FAILED'} spawn={r.spawn} safe={r.spawn_safe} "
                f"within {r.radius}: {counts}"
            )
        for p in r.problems:
            print(f"  problem: {p}")
        failed += not r.ok
    return 1 if failed else 0


def add_worlds_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``worlds`` command group to a ``run.py``-style subparsers object.

    Returns:
        The ``worlds`` parser (its sub-commands set ``handler``).
    """
    from mirrorcraft.worlds.check import DEFAULT_CHECK_RADIUS

    w = subparsers.add_parser("worlds", help="the world catalogue: build, list, check", allow_abbrev=False)
    sub = w.add_subparsers(title="worlds commands", metavar="SUBCOMMAND", required=True)
    sel_help = (
        "a world (plains-1, plains-1/M03), plains-1/* (with its copies), a biome, 'vanilla' or 'mirror'; "
        "an arena (mushroom_war, mushroom_war/mirrored, dash_and_dine, dash_and_dine/mirrored), "
        "mushroom_war/* (both variants) or 'arenas'"
    )

    build = sub.add_parser(
        "build", help="generate Vanilla worlds, their Mirror copies and the arenas", allow_abbrev=False
    )
    build.add_argument("--out", default="runs/worlds", help="catalogue folder (default: runs/worlds)")
    build.add_argument("--only", help=sel_help)
    build.add_argument("--radius", type=int, default=None, help="pregenerated radius in blocks (default 256)")
    build.add_argument("--force", action="store_true", help="rebuild worlds that exist")
    build.set_defaults(handler=cmd_build)

    ls = sub.add_parser("list", help="list the 70 catalogue worlds and the 4 arenas", allow_abbrev=False)
    ls.add_argument("--out", default="runs/worlds")
    ls.add_argument("--only", help=sel_help)
    ls.set_defaults(handler=cmd_list)

    check = sub.add_parser(
        "check", help="integrity checks of built worlds (non-zero exit on failure)", allow_abbrev=False
    )
    check.add_argument("name", nargs="?", help=sel_help + " (default: all)")
    check.add_argument("--out", default="runs/worlds")
    check.add_argument(
        "--radius",
        type=int,
        default=DEFAULT_CHECK_RADIUS,
        help=f"resource radius around spawn (default {DEFAULT_CHECK_RADIUS})",
    )
    check.set_defaults(handler=cmd_check)
    return w
