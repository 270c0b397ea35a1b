"""``python -m mirrorcraft.run check ...``: the scripted controls on a world and its Mirror copies.

* ``check reachability [--world NAME] [--task T] [--kinds vanilla,M01,...]`` runs each task's suite-aware
  scripted route in a fresh copy of the world of each kind and prints a table (done, actions used /
  budget, milestones the server granted, where a route stopped);
* ``check observations [--world NAME]`` plays the neutral scripted sequence in the Vanilla world and each
  Mirror copy (same episode seed, seeded server) and checks the serialized observations are
  byte-identical.

``--world`` is a save folder, ``sandbox`` (built on the fly), or a catalogue world built under
``--worlds-dir`` (``<dir>/vanilla/<name>``).

Why in the study layer: the command wires the three parts the controls must not see themselves — the
world copies (:class:`~mirrorcraft.worlds.copies.WorldCopies`, made exactly as the catalogue makes
Mirror copies), the embedded server on this process's reactor (:func:`embedded_launcher`) — to the
server- and world-agnostic controls of :mod:`mirrorcraft.skills.controls`. ``run.py`` registers it
(:func:`add_check_parser`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from mirrorcraft.errors import WorldError
from mirrorcraft.skills.controls import Launcher


def resolve_save(world: str, worlds_dir: Path, scratch: Path) -> Path:
    """The Vanilla save folder for ``--world``.

    Raises:
        WorldError: not a save folder, not ``sandbox`` and not a built catalogue world.
    """
    path = Path(world)
    if path.is_dir():
        if not (path / "level.dat").is_file():
            raise WorldError(f"{path}: not a save folder (no level.dat)")
        return path
    if world == "sandbox":
        from mirrorcraft.worlds.sandbox import build_sandbox

        out = scratch / "sandbox"
        build_sandbox(out, seed=0)
        return out
    built = worlds_dir / "vanilla" / world
    if (built / "level.dat").is_file():
        return built
    raise WorldError(
        f"unknown world {world!r}: give a save folder, 'sandbox', or build it first "
        f"(python -m mirrorcraft.run worlds build --only {world}; looked in {built})"
    )


#: ``check reachability``'s default server rate: accelerated (20x). The body follows the announced rate and
#: every skill counts its limits in game ticks, so the verdict approaches the real-time one (docs/skills.md
#: "Reachability"); at 20 t/s the sandbox table took about an hour, at 400 t/s about 6 minutes.
REACHABILITY_TICK_RATE = 400.0


def embedded_launcher(
    tick_rate: float = 20.0, *, freeze_random_ticks: bool = False, lockstep: bool = False
) -> Launcher:
    """A :data:`~mirrorcraft.skills.controls.Launcher` backed by the in-process embedded server.

    ``freeze_random_ticks`` sets ``randomTickSpeed 0`` on top of the benchmark controls: in free-running
    time random ticks (grass spreading, leaves decaying) land between the body's actions at ticks that depend
    on wall-clock timing, so two runs of one world can differ by timing alone, which says nothing about the
    world's identity. ``lockstep`` runs the server in lockstep, unpaced (issue 23): then every action and
    every observation falls on the same game tick in every run, so random ticks and wandering mobs repeat
    exactly and need not be frozen or removed (what ``check observations`` does).
    """

    async def launch(world: Path, seed: int) -> tuple[int, Any]:
        from mirrorcraft.contracts import Controls
        from mirrorcraft.server.config import ServerConfig
        from mirrorcraft.server.embedded import EmbeddedServer

        controls = Controls()
        if freeze_random_ticks:
            controls = controls.model_copy(
                update={"game_rules": {**controls.game_rules, "randomTickSpeed": 0}}
            )
        srv = EmbeddedServer(
            ServerConfig(
                world=world,
                port=0,
                tick_rate=tick_rate,
                view_distance=4,
                episode_seed=seed,
                controls=controls,
                clock="lockstep" if lockstep else "free",
                lockstep_paced=False,
            )  # fmt: skip
        )
        port = srv.start()
        return port, srv.stop

    return launch


def _run_on_reactor(coro_fn) -> int:  # noqa: ANN001
    from twisted.internet import defer, reactor

    result: dict[str, int] = {"code": 1}

    def go() -> None:
        d = defer.ensureDeferred(coro_fn())

        def ok(code: int) -> None:
            result["code"] = code

        def fail(f: Any) -> None:
            print(f"check failed: {f.getErrorMessage()}", file=sys.stderr)
            f.printTraceback(file=sys.stderr)

        d.addCallbacks(ok, fail)
        d.addBoth(lambda _: reactor.stop())

    reactor.callWhenRunning(go)
    reactor.run()
    return result["code"]


def _kinds(text: str) -> list[str]:
    from mirrorcraft.skills.routes import WORLD_KINDS

    kinds = [k.strip() for k in text.split(",") if k.strip()]
    bad = [k for k in kinds if k not in WORLD_KINDS]
    if bad:
        raise SystemExit(f"--kinds: unknown {bad}; expected some of {list(WORLD_KINDS)}")
    return kinds


def _print_call(index: int, call: Any, report: Any) -> None:
    args = ",".join(f"{k}={v}" for k, v in call.args.items() if k != "grid")
    print(
        f"    {index:>3} {call.name}({args}) -> {report.status} {report.reason or ''} {report.message}".rstrip()
    )


def cmd_reachability(args: argparse.Namespace) -> int:
    """Run the reachability control and print the table; exit 0 only if every route completed."""
    from mirrorcraft.contracts import TaskId
    from mirrorcraft.skills.controls import format_reachability, reachability, reachability_records
    from mirrorcraft.worlds.copies import WorldCopies

    tasks = [TaskId(args.task)] if args.task else list(TaskId)
    kinds = _kinds(args.kinds)

    async def main() -> int:
        with tempfile.TemporaryDirectory(prefix="mirrorcraft-check-") as tmp:
            save = resolve_save(args.world, Path(args.worlds_dir), Path(tmp))
            rows = await reachability(
                WorldCopies(save, Path(tmp)),
                embedded_launcher(args.tick_rate),
                tasks,
                kinds,
                episode_seed=args.episode_seed,
                world_name=args.world if not Path(args.world).is_dir() else Path(args.world).name,
                progress=lambda r: print(
                    f"  {r.task} {r.world}: {'done' if r.completed else 'not done'}", flush=True
                ),
                log=_print_call if args.verbose else None,
            )
        print(format_reachability(rows))
        if args.json:
            Path(args.json).write_text(json.dumps(reachability_records(rows), indent=1) + "\n")
        return 0 if all(r.completed for r in rows) else 1

    return _run_on_reactor(main)


def cmd_observations(args: argparse.Namespace) -> int:
    """Run the paired-observation control; exit 0 if every Mirror copy matched Vanilla byte for byte."""
    from mirrorcraft.skills.controls import paired_observations
    from mirrorcraft.worlds.copies import WorldCopies

    kinds = _kinds(args.kinds)
    if kinds[0] != "vanilla":
        kinds = ["vanilla"] + [k for k in kinds if k != "vanilla"]

    async def main() -> int:
        with tempfile.TemporaryDirectory(prefix="mirrorcraft-check-") as tmp:
            save = resolve_save(args.world, Path(args.worlds_dir), Path(tmp))
            # lockstep: the copies' mobs and vanilla's random ticks stay on, and still repeat tick for tick
            res = await paired_observations(
                WorldCopies(save, Path(tmp)),
                embedded_launcher(lockstep=True),
                kinds,
                episode_seed=args.episode_seed,
                keep_mobs=True,
            )
        for run in res.runs:
            print(f"{run.kind}: {len(run.observations)} observations; " + "; ".join(run.reports))
        if res.identical:
            print(f"identical: {len(res.runs[0].observations)} observations byte-identical across {kinds}")
            return 0
        print("DIFFERENT:")
        for m in res.mismatches:
            print("  " + m)
        return 1

    return _run_on_reactor(main)


def add_check_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``check`` command (``reachability``, ``observations``) to ``run.py``'s subparsers."""
    p = subparsers.add_parser(
        "check", help="scripted controls: task reachability and paired observations", allow_abbrev=False
    )
    sub = p.add_subparsers(title="check commands", metavar="SUBCOMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    common.add_argument(
        "--world", default="sandbox", help="save folder, 'sandbox' or a built catalogue world"
    )
    common.add_argument(
        "--worlds-dir", default="runs/worlds", help="catalogue folder (default: runs/worlds, as worlds build)"
    )
    common.add_argument("--episode-seed", type=int, default=0, help="server randomness seed (default 0)")
    common.add_argument(
        "--kinds",
        default="vanilla,M01,M02,M03,M04,M05,M06",
        help="world kinds, comma-separated (default: all)",
    )
    r = sub.add_parser(
        "reachability",
        parents=[common],
        help="run each task's scripted route in each world kind; print a table",
        allow_abbrev=False,
    )
    r.add_argument("--task", choices=["iron_armor", "diamond", "enchantment"], help="only this task")
    r.add_argument("--verbose", action="store_true", help="print every call and its outcome")
    r.add_argument(
        "--json", metavar="FILE", help="also write one JSON record per cell (with every call) here"
    )
    r.add_argument(
        "--tick-rate",
        type=float,
        default=REACHABILITY_TICK_RATE,
        help=f"server ticks per second (default {REACHABILITY_TICK_RATE:g}: accelerated; the body follows the "
        "announced rate and the skills count game time; --tick-rate 20 runs in real time)",
    )
    r.set_defaults(handler=cmd_reachability)
    o = sub.add_parser(
        "observations",
        parents=[common],
        help="check Vanilla and Mirror copies give byte-identical observations",
        allow_abbrev=False,
    )
    o.set_defaults(handler=cmd_observations)
    return p
