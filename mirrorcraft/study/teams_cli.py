"""``python -m mirrorcraft.run teams episode``: one PillagerBench team episode on the embedded server.

    python -m mirrorcraft.run teams episode --scenario mushroom_war --red random --blue do_nothing \\
        [--variant original|mirrored] [--seconds 120] [--tick-rate 20] [--seed 0] [--out runs/teams]

The red system is recorded as the tested one (``tested_side: red``); the episode seed derives from the study
seed, the scenario and the blue (opponent) system, as every team episode's does. Writes
``OUT/<episode id>.json`` (the team record) and prints the final scores. A usage error (unknown scenario,
variant or system, a non-positive length) exits 2 before any world is built or any server starts.

Partial (issue 25): ``teams study`` and the scripted scenario opponents are not built yet; the systems are
the registered ones (``do_nothing``, ``random``).
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


def add_teams_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``teams`` command (``teams episode``) and return its parser."""
    p = subparsers.add_parser(
        "teams", help="PillagerBench team scenarios (team episodes)", allow_abbrev=False
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
    from mirrorcraft.study.team_judge_cli import add_judge_parser

    add_judge_parser(sub)
    return p
