"""``python -m mirrorcraft.run view RECORD_OR_RUN_DIR [--out DIR]``: write one HTML page per episode.

Accepted inputs (docs/viewer.md):

* a **run folder** (``results.jsonl``: a study, ``episode --out DIR``, the default job, a team study): every
  final record (the same selection rules as ``report``: the first non-fault record of an id counts), with the
  map snapshot of each episode's run notes when ``RUN_DIR/episodes/<id>.json`` exists;
* a folder of runner files (``RunnerSettings.records_dir``: ``<id>.json`` holding ``record`` and
  ``run_notes``);
* one **record file**: a runner file, a bare MirrorCraft record or a team record (JSON), or a results file
  (``.jsonl``, read as its run folder).

Pages go to ``--out`` (default: ``RUN_DIR/pages`` for a folder, ``pages/`` beside a file), one
``<episode_id>.html`` each; their paths are printed (stdout, one a line; notes go to stderr). Exit codes: 0 pages written; 1 the records could not be
read (the message names the file and the field); 2 a usage error (the path does not exist, nothing is read
or written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mirrorcraft.errors import ContractError

__all__ = ["add_view_parser", "cmd_view", "load_view_sources"]

#: Exit code of a usage error (argparse's own).
USAGE = 2


def load_view_sources(path: Path) -> tuple[list[Any], list[Any]]:
    """``(MirrorCraft episodes with their snapshots, team records)`` found at ``path`` (module docstring).

    Raises:
        ContractError: unreadable or invalid records, conflicting records of one episode.
    """
    from mirrorcraft.metrics.pages.episode import NOTES_DIR, Episode, read_episode_file, run_snapshots
    from mirrorcraft.metrics.results import RESULTS_FILE, load_final_records
    from mirrorcraft.metrics.team_results import is_team_run, load_team_run

    path = Path(path)
    if path.is_file() and path.suffix == ".jsonl":
        path = path.parent
    if path.is_file():
        return read_episode_file(path)
    if (path / RESULTS_FILE).is_file():
        if is_team_run(path):
            records, _, _ = load_team_run(path)
            return [], records
        mirror, _ = load_final_records(path)
        snaps = run_snapshots(path, [r.episode_id for r in mirror])
        return [Episode(r, snaps.get(r.episode_id)) for r in mirror], []
    folder = path / NOTES_DIR if (path / NOTES_DIR).is_dir() else path
    episodes: list[Any] = []
    teams: list[Any] = []
    for f in sorted(folder.glob("*.json")):
        e, t = read_episode_file(f)
        episodes += e
        teams += t
    if not episodes and not teams:
        raise ContractError(f"{path}: no results.jsonl and no episode record files (*.json)")
    return episodes, teams


def cmd_view(args: argparse.Namespace) -> int:
    """Write the pages (module docstring)."""
    from mirrorcraft.metrics.pages.episode import run_arenas, write_episode_pages

    src = Path(args.source)
    if not src.exists():
        print(f"view: {src}: no such file or folder (give a record file or a run folder)", file=sys.stderr)
        return USAGE
    if args.arenas and not Path(args.arenas, "arenas").is_dir():
        print(
            f"view: --arenas {args.arenas}: no arenas/ folder there (build them: worlds build)",
            file=sys.stderr,
        )
        return USAGE
    out = Path(args.out) if args.out else (src if src.is_dir() else src.parent) / "pages"
    try:
        episodes, teams = load_view_sources(src)
        arenas = Path(args.arenas) if args.arenas else (run_arenas(src) if src.is_dir() else None)
        written = write_episode_pages(episodes, teams, out, arenas=arenas, arenas_required=bool(args.arenas))
    except ContractError as err:
        print(f"view: {err}", file=sys.stderr)
        return 1
    for p in written:
        print(p)
    without = sum(1 for e in episodes if e.snapshot is None)
    if without:
        print(
            f"view: {without} of {len(episodes)} episodes have no map snapshot (no run notes beside them)",
            file=sys.stderr,
        )
    return 0


def add_view_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``view`` command to an argparse subparsers object and return its parser."""
    p = subparsers.add_parser(
        "view",
        help="offline episode viewer: one self-contained HTML page per episode (map, path, timeline, Score)",
        description="Write one self-contained HTML page per episode of a record file or a run folder "
        "(no server, no network: open it in a browser). See docs/viewer.md.",
        allow_abbrev=False,
    )
    p.add_argument("source", metavar="RECORD_OR_RUN_DIR", help="a record file (.json/.jsonl) or a run folder")
    p.add_argument("--out", help="folder for the pages (default: RUN_DIR/pages, or pages/ beside the file)")
    p.add_argument(
        "--arenas",
        metavar="DIR",
        help="team episodes: a catalogue folder with the arena saves (arenas/<name>/<variant>/, as `worlds build` "
        "writes them) to draw the arena's terrain under the paths (default: RUN_DIR/worlds when it has arenas/, "
        "where `teams study` builds them)",
    )
    p.set_defaults(handler=cmd_view)
    return p
