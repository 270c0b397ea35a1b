"""``python -m mirrorcraft.run teams episode`` (one PillagerBench team episode on the embedded server) and
``teams study`` (a resumable team study of a grid, :mod:`mirrorcraft.study.team_study`).

    python -m mirrorcraft.run teams episode --scenario mushroom_war --red random --blue do_nothing \\
        [--variant original|mirrored] [--seconds 120] [--tick-rate 20] [--seed 0] [--out runs/teams] \\
        [--clock free|lockstep [--unpaced]]

The red system is recorded as the tested one (``tested_side: red``); the episode seed derives from the study
seed, the scenario and the blue (opponent) system, as every team episode's does. Writes
``OUT/<episode id>.json`` (the team record) and prints the final scores. A usage error (unknown scenario,
variant or system, a non-positive length) exits 2 before any world is built or any server starts.

LLM team systems (``cot``, ``tacticrafter``, ``react``, ``reflexion``) need a model: ``--red-model NAME`` /
``--blue-model NAME`` (a litellm model string), and take settings with ``--red-setting KEY=VALUE`` (repeatable;
values are read as JSON when they parse, else as text). How to reach the model: ``--api-base URL``,
``--api-key-env NAME``, ``--timeout S``, ``--retries N``, ``--max-cost USD`` and the price flags, as
``episode`` has them; ``--llm-record-dir DIR`` records every model call, ``--llm-replay-dir DIR`` answers them
from such a folder (``--llm-replay-strict`` compares whole requests). Credentials are checked before anything
starts (exit 2), except on replay.

``--clock lockstep`` (both commands; default ``free``, real time): every body in the server's tick barrier, a
decision charged its system's think ticks (LLM systems: the ``think_ticks`` setting, default 100), so the
record does not depend on the machine's speed; ``--unpaced`` runs the ticks as fast as the bodies go
(docs/pillagerbench.md "Lockstep"). A study keeps its clock in ``run_settings.json``.

``teams study GRID --out DIR [--workers N] [--executor local|ray] [--tick-rate R] [--seconds S] [--resume]``:
GRID is a preset (``pillagerbench``) or a YAML file (:func:`~mirrorcraft.study.team_grid.load_team_grid`);
``--seconds`` and ``--seed`` override the grid's episode length and study seed (both change the episode ids).
Before anything is written it checks, with exit code 2 and one line: the numbers, the grid, every system id
against the registry (``TEAM_POLICIES``, after ``--import``), Ray when asked for, and that OUT holds no other
grid. Exit codes: 0 every episode recorded; 1 unfinished, every episode a fault, or a failure; 2 usage.
A grid names an LLM system's model in its entry (``{id: cot, model: {name: ...}}``); the endpoint and limits
flags (``--api-base``, ``--llm-timeout``, ``--llm-retries``, ``--max-cost``...) and ``--llm-record-dir`` /
``--llm-replay-dir`` apply to every model of the grid.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from mirrorcraft.contracts.teams import ARENA_VARIANTS, SCENARIOS


def _setting_value(text: str) -> Any:
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _team_system(args: argparse.Namespace, side: str) -> Any:
    """The :class:`TeamSystem` of ``side`` from ``--<side>``, ``--<side>-model`` and ``--<side>-setting``.

    Raises:
        ValueError: a setting that is not KEY=VALUE, or an invalid system (the message says which).
    """
    from mirrorcraft.contracts import ModelSettings
    from mirrorcraft.contracts.teams import TeamSystem

    settings = {}
    for item in getattr(args, f"{side}_settings"):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--{side}-setting {item!r}: expected KEY=VALUE")
        settings[key] = _setting_value(value)
    model_name = getattr(args, f"{side}_model")
    model = ModelSettings(name=model_name) if model_name else None
    return TeamSystem(id=getattr(args, side), settings=settings, model=model)


def team_llm_runtime(args: argparse.Namespace, models: list[Any], *, study: bool = False) -> dict[str, Any]:
    """The :class:`~mirrorcraft.agents.teams.TeamLLMRuntime` fields the flags give for ``models``
    (:class:`~mirrorcraft.contracts.ModelSettings`), after the credentials and price preflight (skipped on
    replay, which reaches no model).

    Raises:
        UsageError: a missing key or price (one line naming the model and the variable).
    """
    from mirrorcraft.study.episode_cli import llm_preflight, llm_runtime

    runtime = llm_runtime(args, study=study)
    if args.llm_replay_dir is None:
        llm_preflight([(m, runtime) for m in models])
    return {
        "models": {m.name: runtime for m in models},
        "record_dir": args.llm_record_dir,
        "replay_dir": args.llm_replay_dir,
        "replay_strict": args.llm_replay_strict,
    }


def cmd_teams_episode(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from mirrorcraft.agents.teams import TEAM_POLICIES, TeamLLMRuntime, make_team_policy
    from mirrorcraft.contracts.teams import TeamEpisodeIdentity
    from mirrorcraft.errors import MirrorCraftError
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
    if args.unpaced and args.clock != "lockstep":
        print("teams episode: --unpaced needs --clock lockstep", file=sys.stderr)
        return 2
    try:
        systems = {side: _team_system(args, side) for side in ("red", "blue")}
        identity = TeamEpisodeIdentity(
            scenario=args.scenario, arena_variant=args.variant, tested=systems["red"],
            opponent=systems["blue"], tested_side="red", repeat=0, block_index=0, block_length=1,
            game_seconds=args.seconds, study_seed=args.seed,
        )  # fmt: skip
        models = [s.model for s in systems.values() if s.model is not None]
        runtime = TeamLLMRuntime.model_validate(team_llm_runtime(args, models))
        policies = {side: make_team_policy(identity.system_of(side), runtime) for side in ("red", "blue")}
    except (ValueError, ValidationError, MirrorCraftError) as err:
        print(f"teams episode: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
    worlds = Path(args.worlds) if args.worlds else out / "worlds"
    build_arena(arena_id(args.scenario, args.variant), worlds)
    record = play_team_episode(identity, policies, arenas=worlds, tick_rate=args.tick_rate, clock=args.clock,
                               lockstep_paced=not args.unpaced)  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{record.episode_id}.json"
    path.write_text(record.model_dump_json(indent=2) + "\n")
    actions = {t.player: len(t.actions) for t in record.trajectories}
    print(f"{identity.scenario} ({identity.arena_variant}), {args.seconds} game s: "
          f"red {args.red} {record.outcome.red:g} - blue {args.blue} {record.outcome.blue:g}; actions {actions}")  # fmt: skip
    for side, spent in record.usage.items():
        print(f"{side} model calls {spent.model_calls}, tokens {spent.prompt_tokens}+{spent.completion_tokens}, "
              f"cost ${spent.cost_usd:.4f}")  # fmt: skip
    print(f"record: {path}")
    return 0


def cmd_teams_study(args: argparse.Namespace) -> int:
    """Run or continue a team study (module docstring)."""
    import json

    from mirrorcraft.errors import MirrorCraftError
    from mirrorcraft.study.episode_cli import UsageError
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
    if args.unpaced and args.clock != "lockstep":
        return usage("--unpaced needs --clock lockstep")
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
        systems = [*grid.tested_systems(), *(o for opp in grid.opponents.values() for o in opp)]
        models = {s.model.name: s.model for s in systems if s.model is not None}
        llm = team_llm_runtime(args, list(models.values()), study=True)
        from mirrorcraft.agents.teams import TeamLLMRuntime, make_team_policy

        runtime = TeamLLMRuntime.model_validate(llm)
        for system in systems:  # each system's settings and model are checked here, not in a worker
            make_team_policy(system, runtime)
        out = Path(args.out) if args.out else Path("runs") / "teams" / grid.name
        check_team_run_dir(out, grid, resume=args.resume)
        ray_kwargs = {"address": args.address} if args.executor == "ray" else {}
        executor = make_block_executor(args.executor, workers=args.workers, **ray_kwargs)
    except (TeamStudyUsageError, MirrorCraftError, UsageError) as err:
        return usage(str(err))
    worlds = Path(args.worlds) if args.worlds else out / "worlds"
    settings = TeamRunSettings(arenas=worlds, tick_rate=args.tick_rate, imports=settings_imports,
                               llm=json.loads(json.dumps(llm, default=str)), clock=args.clock,
                               lockstep_paced=not args.unpaced)  # fmt: skip
    print(f"team study {grid.name}: {grid.size()} episodes in {len(grid.blocks())} blocks of {grid.block_length}, "
          f"{grid.game_seconds} game s each, {args.tick_rate:g} t/s, clock {settings.clock_mode()}, "
          f"executor {args.executor} → {out}")  # fmt: skip
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


def _add_clock_flags(p: argparse.ArgumentParser) -> None:
    from mirrorcraft.study.episode_cli import add_clock_flags

    add_clock_flags(
        p,
        clock_help="free: real time at --tick-rate (default); lockstep: the game waits for every body and "
        "charges each decision its system's think ticks (records independent of the machine)",
        unpaced_help="--clock lockstep: as fast as the bodies go",
    )


def _add_record_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--llm-record-dir", type=Path, metavar="DIR",
                   help="record every model call to DIR/<episode id>.<player|team>.jsonl")  # fmt: skip
    p.add_argument("--llm-replay-dir", type=Path, metavar="DIR",
                   help="answer every model call from such a recording (no model is reached)")  # fmt: skip
    p.add_argument("--llm-replay-strict", action="store_true",
                   help="on replay, compare whole requests (default: the observed sections are not compared)")  # fmt: skip


def add_teams_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``teams`` command (``teams episode``) and return its parser."""
    from mirrorcraft.study.episode_cli import add_llm_flags

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
    for side in ("red", "blue"):
        ep.add_argument(f"--{side}-model", metavar="NAME", help=f"{side}'s model (LLM team systems), a litellm "
                        "model string such as openai/gpt-4o-mini")  # fmt: skip
        ep.add_argument(f"--{side}-setting", dest=f"{side}_settings", action="append", default=[],
                        metavar="KEY=VALUE", help=f"a setting of {side}'s system (repeatable), e.g. max_steps=20")  # fmt: skip
    _add_clock_flags(ep)
    add_llm_flags(ep)
    _add_record_flags(ep)
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
    _add_clock_flags(st)
    add_llm_flags(st, study=True)
    _add_record_flags(st)
    st.set_defaults(handler=cmd_teams_study)
    from mirrorcraft.study.team_judge_cli import add_judge_parser

    add_judge_parser(sub)
    return p
