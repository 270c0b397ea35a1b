"""``python -m mirrorcraft.run teams judge``: judge a PillagerBench arena on any server over RCON (a user's
vanilla jar; best effort, :mod:`mirrorcraft.harness.judges.rcon`).

Two steps around the user's own server::

    python -m mirrorcraft.run worlds build --only mushroom_war --out W                # the arena save
    python -m mirrorcraft.run teams judge --scenario mushroom_war --install-pack W/arenas/mushroom_war/original
    # start the jar on that save with RCON enabled (enable-rcon, rcon.port, rcon.password), connect the players
    python -m mirrorcraft.run teams judge --scenario mushroom_war --rcon-port 25575 \\
        --rcon-password-file PW --seconds 120 --episode-seed 7 --out scores.json

The second writes a :class:`JudgedEpisode` (the per-second scores, the final totals and what the judge did)
when the given game seconds have passed. The world seed is the arena's (``world_seed(<arena name>)``, as the
save's level.dat holds it), so the judge's draws are those of the embedded judge with the same episode seed.
A usage error (no password file, an unreadable one, a non-positive length) exits 2 before any connection.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.teams import ARENA_VARIANTS, SCENARIOS, ScoreSample


class JudgedEpisode(BaseModel):
    """What ``teams judge`` writes: one arena judged over RCON."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scenario: str
    arena_variant: str
    world_seed: int
    episode_seed: int
    game_seconds: int = Field(ge=1)
    start_tick: int = Field(description="The server's game time when judging began.")
    scores: list[ScoreSample] = Field(description="One sample per game second, as in a team record.")
    totals: dict[str, float]
    commands_sent: int = Field(ge=0, description="RCON commands the judge sent (its cost on the server).")
    changes: list[tuple[str, str, tuple[int, int, int]]] = Field(
        default_factory=list, description="Mushroom War: (side, regrow | pollute, cell) in order."
    )
    deliveries: list[tuple[int, str, str, int, float]] = Field(
        default_factory=list, description="Dash & Dine: (tick offset, side, item, count, points) in order."
    )


def _judge(scenario: str, variant: str, episode_seed: int) -> Any:
    from mirrorcraft.harness.judges import make_judge
    from mirrorcraft.worlds.arenas.spec import load_arena_spec
    from mirrorcraft.worlds.catalogue import world_seed

    spec = load_arena_spec(scenario)
    return make_judge(spec, variant, world_seed=world_seed(spec.id), episode_seed=episode_seed)  # type: ignore[arg-type]


def cmd_teams_judge(args: argparse.Namespace) -> int:
    from mirrorcraft.harness.judges.rcon import RconJudgeWorld, install_judge_pack, run_rcon_judge
    from mirrorcraft.harness.rcon import RconClient, RconError

    if args.install_pack is not None:
        save = Path(args.install_pack)
        if not (save / "level.dat").is_file():
            print(f"teams judge: --install-pack {save}: not a save (no level.dat)", file=sys.stderr)
            return 2
        root = install_judge_pack(save, _judge(args.scenario, args.variant, args.episode_seed))
        print(f"judge pack: {root}")
        return 0
    if args.rcon_port is None or args.rcon_password_file is None:
        print(
            "teams judge: give --install-pack SAVE, or --rcon-port and --rcon-password-file", file=sys.stderr
        )
        return 2
    if args.seconds < 1:
        print("teams judge: --seconds must be >= 1", file=sys.stderr)
        return 2
    try:
        password = Path(args.rcon_password_file).read_text(encoding="utf-8").strip()
    except OSError as err:
        print(f"teams judge: --rcon-password-file: {err}", file=sys.stderr)
        return 2
    judge = _judge(args.scenario, args.variant, args.episode_seed)
    try:
        with RconClient(args.host, args.rcon_port, password) as client:
            world = RconJudgeWorld(client, judge)
            start = run_rcon_judge(judge, world, game_seconds=args.seconds)
    except RconError as err:
        print(f"teams judge: {err}", file=sys.stderr)
        return 1
    record = JudgedEpisode(
        scenario=args.scenario, arena_variant=args.variant, world_seed=judge.world_seed,
        episode_seed=args.episode_seed, game_seconds=args.seconds, start_tick=start, scores=judge.scores,
        totals=judge.totals, commands_sent=world.commands_sent, changes=getattr(judge, "changes", []),
        deliveries=getattr(judge, "deliveries", []),
    )  # fmt: skip
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    print(f"{args.scenario} judged for {args.seconds} game s: red {judge.totals['red']:g} - blue "
          f"{judge.totals['blue']:g} ({world.commands_sent} RCON commands) → {out}")  # fmt: skip
    return 0


def add_judge_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``teams judge`` to the ``teams`` subcommands."""
    p = sub.add_parser(
        "judge",
        help="judge an arena on any server over RCON (a vanilla jar; best effort)",
        allow_abbrev=False,
    )
    p.add_argument("--scenario", choices=SCENARIOS, required=True)
    p.add_argument("--variant", choices=ARENA_VARIANTS, default="original", help="arena variant")
    p.add_argument("--install-pack", metavar="SAVE", help="write the judge pack into SAVE and exit")
    p.add_argument("--host", default="127.0.0.1", help="RCON host (default 127.0.0.1)")
    p.add_argument("--rcon-port", type=int, help="the server's RCON port")
    p.add_argument(
        "--rcon-password-file", help="a file holding the RCON password (never on the command line)"
    )
    p.add_argument("--seconds", type=int, default=120, help="game seconds to judge (default 120)")
    p.add_argument("--episode-seed", type=int, default=0, help="the judge's episode seed (default 0)")
    p.add_argument("--out", default="judged.json", help="where to write the judged scores (JSON)")
    p.set_defaults(handler=cmd_teams_judge)
    return p
