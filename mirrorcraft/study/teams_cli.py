"""``python -m mirrorcraft.run teams episode`` (one PillagerBench team episode on the embedded server) and
``teams study`` (a resumable team study of a grid, :mod:`mirrorcraft.study.team_study`).

    python -m mirrorcraft.run teams episode --scenario mushroom_war --red random --blue do_nothing \\
        [--variant original|mirrored] [--seconds 120] [--tick-rate 20] [--seed 0] [--out runs/teams]

The red system is recorded as the tested one (``tested_side: red``); the episode seed derives from the study
seed, the scenario and the blue (opponent) system, as every team episode's does. Writes
``OUT/<episode id>.json`` (the team record) and prints the final scores. A usage error (unknown scenario,
variant or system, a non-positive length) exits 2 before any world is built or any server starts.

``teams study GRID --out DIR [--workers N] [--executor local|ray] [--tick-rate R] [--seconds S] [--resume]``:
GRID is a preset (``pillagerbench``) or a YAML file (:func:`~mirrorcraft.study.team_grid.load_team_grid`);
``--seconds`` and ``--seed`` override the grid's episode length and study seed (both change the episode ids).
Before anything is written it checks, with exit code 2 and one line: the numbers, the grid, every system id
against the registry (``TEAM_POLICIES``, after ``--import``), Ray when asked for, and that OUT holds no other
grid. Exit codes: 0 every episode recorded; 1 unfinished, every episode a fault, or a failure; 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mirrorcraft.contracts.teams import ARENA_VARIANTS, SCENARIOS


def cmd_teams_episode(args: argparse.Namespace) -> int:
    from mirrorcraft.agents.teams import TEAM_POLICIES, make_team_policy
    from mirrorcraft.contracts.teams import TeamEpisodeIdentity, TeamSystem
    from mirrorcraft.study.team_episode import play_team_episode
    from mirrorcraft.worlds.arenas.build import arena_id, build_arena

    for side in ("red", "blue"):
        name = getattr(args, side)
        if name not in TEAM_POLICIES:
            print(f"teams episode: --{side} {name!r}: unknown team system; known: "
                  f"{', '.join(sorted(TEAM_POLICIES))}", file=sys.stderr)  # fmt: skip
            return 2
    if args.seconds < 1 or args.tick_rate <= 0:
        print("teams episode: --seconds must be >= 1 and --tick-rate > 0", file=sys.stderr)
        return 2
    identity = TeamEpisodeIdentity(
        scenario=args.scenario, arena_variant=args.variant, tested=TeamSystem(id=args.red),
        opponent=TeamSystem(id=args.blue), tested_side="red", repeat=0, block_index=0, block_length=1,
        game_seconds=args.seconds, study_seed=args.seed,
    )  # fmt: skip
    out = Path(args.out)
    worlds = Path(args.worlds) if args.worlds else out / "worlds"
    build_arena(arena_id(args.scenario, args.variant), worlds)
    policies = {side: make_team_policy(identity.system_of(side)) for side in ("red", "blue")}
    record = play_team_episode(identity, policies, arenas=worlds, tick_rate=args.tick_rate)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{record.episode_id}.json"
    path.write_text(record.model_dump_json(indent=2) + "\n")
    actions = {t.player: len(t.actions) for t in record.trajectories}
    print(f"{identity.scenario} ({identity.arena_variant}), {args.seconds} game s: "
          f"red {args.red} {record.outcome.red:g} - blue {args.blue} {record.outcome.blue:g}; actions {actions}")  # fmt: skip
    print(f"record: {path}")
    return 0


def cmd_teams_study(args: argparse.Namespace) -> int:
    """Run or continue a team study (module docstring)."""
    from mirrorcraft.errors import MirrorCraftError
    from mirrorcraft.study.team_grid import load_team_grid, team_grid_from_mapping
    from mirrorcraft.study.team_study import (
        TeamRunSettings,
        TeamStudyUsageError,
        check_team_run_dir,
        make_block_executor,
        run_team_study,
        unknown_systems,
    )

    def usage(message: str) -> int:
        print(f"teams study: {message}", file=sys.stderr)
        return 2

    if args.workers < 0:
        return usage(f"--workers {args.workers}: must be >= 0 (0 runs the blocks in this process)")
    if not 0 < args.tick_rate <= 1000:
        return usage(f"--tick-rate {args.tick_rate:g}: must be > 0 and <= 1000")
    if args.seconds is not None and args.seconds < 1:
        return usage(f"--seconds {args.seconds}: must be >= 1")
    if args.max_attempts < 1:
        return usage(f"--max-attempts {args.max_attempts}: must be >= 1")
    if args.seed is not None and args.seed < 0:
        return usage(f"--seed {args.seed}: must be >= 0")
    try:
        settings_imports = tuple(args.imports)
        import importlib

        for name in settings_imports:
            try:
                importlib.import_module(name)
            except ImportError as err:
                return usage(f"--import {name}: cannot import it: {err}")
        grid = load_team_grid(args.grid, study_seed=args.seed)
        if args.seconds is not None:
            grid = team_grid_from_mapping(
                grid.model_dump(mode="json") | {"game_seconds": args.seconds}, args.grid
            )
        unknown = unknown_systems(grid)
        if unknown:
            from mirrorcraft.agents.teams import TEAM_POLICIES

            return usage(
                f"grid {grid.name}: unknown team system(s) {', '.join(unknown)}; known: "
                f"{', '.join(sorted(TEAM_POLICIES))} (systems of your own: --import MODULE)"
            )
        out = Path(args.out) if args.out else Path("runs") / "teams" / grid.name
        check_team_run_dir(out, grid, resume=args.resume)
        ray_kwargs = {"address": args.address} if args.executor == "ray" else {}
        executor = make_block_executor(args.executor, workers=args.workers, **ray_kwargs)
    except (TeamStudyUsageError, MirrorCraftError) as err:
        return usage(str(err))
    worlds = Path(args.worlds) if args.worlds else out / "worlds"
    settings = TeamRunSettings(arenas=worlds, tick_rate=args.tick_rate, imports=settings_imports)
    print(f"team study {grid.name}: {grid.size()} episodes in {len(grid.blocks())} blocks of {grid.block_length}, "
          f"{grid.game_seconds} game s each, {args.tick_rate:g} t/s, executor {args.executor} → {out}")  # fmt: skip
    try:
        summary = run_team_study(out, grid, settings, executor=executor, resume=args.resume,
                                 max_attempts=args.max_attempts)  # fmt: skip
    except TeamStudyUsageError as err:
        return usage(str(err))
    except MirrorCraftError as err:
        print(f"teams study: {err}", file=sys.stderr)
        return 1
    print(
        f"{summary.run_dir}: {summary.already_done + summary.completed}/{summary.total} episodes recorded "
        f"({summary.completed} this session, {summary.retried} retried faults, {summary.final_faults} final faults, "
        f"{summary.restored_blocks} blocks restored from checkpoints, {summary.bad_lines} ignored lines) in "
        f"{summary.elapsed_s:.1f}s; report: python -m mirrorcraft.run report {summary.run_dir}"
    )
    if summary.completed > 0 and summary.final_faults == summary.completed:
        print("teams study: every episode of this session ended in an infrastructure fault", file=sys.stderr)
        return 1
    return 0 if summary.finished else 1


def add_teams_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``teams`` command (``teams episode``) and return its parser."""
    p = subparsers.add_parser(
        "teams", help="PillagerBench team scenarios (team episodes and studies)", allow_abbrev=False
    )
    sub = p.add_subparsers(title="teams commands", metavar="SUBCOMMAND", required=True)
    ep = sub.add_parser("episode", help="play one team episode on the embedded server", allow_abbrev=False)
    ep.add_argument("--scenario", choices=SCENARIOS, default="mushroom_war")
    ep.add_argument("--variant", choices=ARENA_VARIANTS, default="original", help="arena variant")
    ep.add_argument("--red", default="random", help="red's team system (recorded as the tested one)")
    ep.add_argument("--blue", default="do_nothing", help="blue's team system (the opponent)")
    ep.add_argument("--seconds", type=int, default=120, help="episode length in game seconds (default 120)")
    ep.add_argument("--tick-rate", type=float, default=20.0, help="server ticks per second (default 20)")
    ep.add_argument("--seed", type=int, default=0, help="study seed (the episode seed derives from it)")
    ep.add_argument("--out", default="runs/teams", help="output folder (default runs/teams)")
    ep.add_argument("--worlds", help="arena catalogue folder (default OUT/worlds; missing arenas are built)")
    ep.set_defaults(handler=cmd_teams_episode)
    st = sub.add_parser(
        "study",
        help="run or continue a resumable team study of a grid (blocks → results.jsonl)",
        allow_abbrev=False,
    )
    st.add_argument("grid", metavar="GRID", help="team grid preset (pillagerbench) or a YAML file")
    st.add_argument("--out", help="run folder (default runs/teams/<grid name>); rerunning into it continues")
    st.add_argument("--resume", action="store_true", help="continue OUT (it must hold this study already)")
    st.add_argument("--workers", type=int, default=1, help="local worker processes (0 = in this process)")
    st.add_argument("--executor", choices=("local", "ray"), default="local")
    st.add_argument("--address", help="Ray cluster address (executor ray; default: start a local Ray)")
    st.add_argument("--tick-rate", type=float, default=20.0, help="server ticks per second (default 20)")
    st.add_argument("--seconds", type=int, help="override the grid's episode length in game seconds")
    st.add_argument("--seed", type=int, help="override the grid's study seed")
    st.add_argument(
        "--max-attempts", type=int, default=3, help="attempts per episode on infrastructure faults"
    )
    st.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                    help="import MODULE first (in every worker too): it registers team systems of your own")  # fmt: skip
    st.add_argument("--worlds", help="arena catalogue folder (default OUT/worlds; missing arenas are built)")
    st.set_defaults(handler=cmd_teams_study)
    from mirrorcraft.study.team_judge_cli import add_judge_parser

    add_judge_parser(sub)
    return p
