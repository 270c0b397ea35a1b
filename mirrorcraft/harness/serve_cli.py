"""``python -m mirrorcraft.run serve``: serve a save folder or a catalogue world over 1.19.2.

Why a separate module: ``run.py`` stays a thin table of commands; the lead wires
:func:`add_serve_parser` into it. A catalogue name (for now only ``sandbox``) is built on demand into a
cache folder (``$MIRRORCRAFT_CACHE`` or ``~/.cache/mirrorcraft``) and served from a fresh copy, so the
cached build is never modified by play (an episode's reset is a fresh copy of the save).

``serve --server vanilla --server-jar JAR --accept-eula [--java JAVA] [--server-dir DIR]`` serves the same
world on the user's own 1.19.2 jar instead (:mod:`mirrorcraft.harness.vanilla`): the folder is prepared from
a fresh copy of the save (its datapacks included, ``server.properties`` with RCON on and a random
password), ``java -jar`` is started and awaited (``Done (`` + an RCON login), the game port is printed
and the RCON password goes to stderr or ``--rcon-password-file`` as for the embedded server. Missing
java, jar or ``--accept-eula`` fail at once (exit code 2) before anything is built or written.

Operators and the default game mode (embedded server): ``--op NAME`` (repeatable) makes a player an
operator at level 4, and the server keeps vanilla's ``ops.json`` — ``--ops-file PATH``, by default beside
the fresh copy of the world (none with ``--in-place`` unless given) — which ``op`` / ``deop`` rewrite;
``--gamemode MODE`` is ``server.properties``' ``gamemode``, the game mode of players joining for the first
time (``defaultgamemode`` changes it while the server runs). For a user's jar these are its own
``ops.json`` and ``server.properties``: the flags are refused with ``--server vanilla``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from mirrorcraft.errors import WorldError

CATALOGUE = ("sandbox",)


def cache_dir() -> Path:
    """Folder where catalogue worlds are built (``$MIRRORCRAFT_CACHE`` or ``~/.cache/mirrorcraft``)."""
    return Path(os.environ.get("MIRRORCRAFT_CACHE", Path.home() / ".cache" / "mirrorcraft"))


def resolve_world(world: str, seed: int = 0) -> Path:
    """A save folder for ``world``: an existing folder as is, or a catalogue world built once into the cache.

    Raises:
        WorldError: neither a save folder (with ``level.dat``) nor a catalogue name.
    """
    path = Path(world)
    if path.is_dir():
        if not (path / "level.dat").is_file():
            raise WorldError(f"{path}: not a save folder (no level.dat)")
        return path
    if world not in CATALOGUE:
        raise WorldError(f"unknown world {world!r}: give a save folder or one of {list(CATALOGUE)}")
    built = cache_dir() / "worlds" / f"{world}-{seed}"
    if not (built / "level.dat").is_file():
        from mirrorcraft.worlds.sandbox import build_sandbox

        built.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{world}-", dir=built.parent)) / "world"
        build_sandbox(tmp, seed)  # build beside the target, then rename: no half-built cache entries
        if not built.exists():
            tmp.rename(built)
        shutil.rmtree(tmp.parent, ignore_errors=True)
    return built


def fresh_copy(save: Path, into: Path | None = None) -> Path:
    """Copy a save folder for one episode (reset = fresh copy); without ``into``, into a new scratch folder
    (:func:`mirrorcraft.worlds.copies.scratch_folder`: removed at exit, or by the next start if this process
    is killed)."""
    if into is None:
        from mirrorcraft.worlds.copies import scratch_folder

        into = scratch_folder("episode-") / "world"
    target = Path(into)
    shutil.copytree(save, target)
    return target


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server in the foreground until Ctrl-C or SIGTERM.

    A failed start (a world that is not there or cannot be read, a port in use) prints one line to stderr
    and exits non-zero (2 for a usage error such as an unknown world, 1 otherwise), with nothing left
    listening and no world copy left behind; the fresh copy is removed on every exit.
    """
    import sys

    if args.server == "vanilla":
        return _serve_vanilla(args)
    from mirrorcraft.harness.process import ServerStartError, serve_forever
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.worlds.copies import release_scratch, scratch_folder

    try:
        save = resolve_world(args.world, args.seed)
    except WorldError as err:
        print(f"serve: {err}", file=sys.stderr)
        return 2
    root = None if args.in_place else scratch_folder("serve-")
    try:
        world = save if root is None else fresh_copy(save, root / "world")
        print(f"serving {args.world} from {world}" + ("" if root is None else " (a copy, removed on exit)"))
        config = ServerConfig(
            world=world,
            host=args.host,
            port=args.port,
            tick_rate=args.tick_rate,
            view_distance=args.view_distance,
            episode_seed=args.episode_seed,
            **_rcon_settings(args),  # control plane: --rcon-port / --rcon-password-file
            **player_settings(args, world),
        )
        return serve_forever(config, save_on_stop=args.in_place)
    except (ServerStartError, WorldError, OSError) as err:
        text = str(err) if root is None else str(err).replace(str(root / "world"), str(save))
        print(f"serve: {text}", file=sys.stderr)  # the copy's path is gone: name the save
        return 1
    finally:
        if root is not None:
            release_scratch(root)


def player_settings(args: argparse.Namespace, world: Path) -> dict:
    """ServerConfig fields of ``--op``, ``--ops-file`` and ``--gamemode`` (module docstring): the ops file
    defaults to ``ops.json`` beside a fresh copy of the world, none when playing ``--in-place``."""
    ops_file = args.ops_file
    if ops_file is None and not args.in_place:
        ops_file = Path(world).parent / "ops.json"
    return {"ops": list(args.op), "ops_file": ops_file, "default_game_mode": args.gamemode}


def _rcon_settings(args: argparse.Namespace) -> dict:
    """RCON config from ``--rcon-port``: a random password, printed to stderr or written (mode 0600) to
    ``--rcon-password-file``."""
    if args.rcon_port is None:
        return {}
    from mirrorcraft.protocol.rcon import random_password

    password = random_password()
    _tell_rcon_password(args, password)
    return {"rcon_port": args.rcon_port, "rcon_password": password}


def _tell_rcon_password(args: argparse.Namespace, password: str) -> None:
    """Write the password to ``--rcon-password-file`` (mode 0600), or print it to stderr (not stdout, which
    tools parse for the port line)."""
    import sys

    if args.rcon_password_file is not None:
        fd = os.open(args.rcon_password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # also when the file already existed with wider permissions
        with os.fdopen(fd, "w") as f:
            f.write(password + "\n")
    else:
        print(f"rcon password: {password}", file=sys.stderr, flush=True)


def _serve_vanilla(args: argparse.Namespace) -> int:
    """``serve --server vanilla``: prepare, start and wait for the user's jar; stop it on Ctrl-C/SIGTERM."""
    import signal
    import sys

    from mirrorcraft.harness.vanilla import (
        VanillaLaunchError,
        VanillaServer,
        VanillaServerConfig,
        check_launch_requirements,
        prepare_server_dir,
        require_jar_and_eula,
    )

    try:
        # Fail fast, before any world is built or folder written (the runner's checks, same messages).
        if args.op or args.ops_file is not None or args.gamemode != "survival":
            raise VanillaLaunchError(
                "--op, --ops-file and --gamemode are the embedded server's; your jar uses its own ops.json "
                "and server.properties (gamemode)"
            )
        require_jar_and_eula(args.server_jar, args.accept_eula)
        if args.in_place:
            raise VanillaLaunchError("--in-place is for the embedded server; the vanilla server plays a copy")
        probe = VanillaServerConfig(
            jar=args.server_jar, server_dir=Path(tempfile.gettempdir()), java=args.java
        )
        try:
            check_launch_requirements(probe)  # java and the jar (the EULA is checked after prepare)
        except VanillaLaunchError as err:
            if "EULA" not in str(err):
                raise
        save = resolve_world(args.world, args.seed)
        server_dir = args.server_dir or Path(tempfile.mkdtemp(prefix="mirrorcraft-vanilla-"))
        config = prepare_server_dir(
            VanillaServerConfig(
                jar=args.server_jar,
                server_dir=server_dir,
                java=args.java,
                port=args.port,
                rcon_port=args.rcon_port or 0,
                view_distance=max(3, args.view_distance),
                accept_eula=True,
            ),
            save,
        )
        server = VanillaServer(config)
        server.start()
    except (VanillaLaunchError, WorldError) as err:
        print(f"serve: {err}", file=sys.stderr)
        return 2

    def interrupt(*_args: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        server.wait_ready(args.ready_timeout)
        print(f"serving {args.world} on vanilla {server_dir} (log {server.log_file})", flush=True)
        print(f"MIRRORCRAFT_SERVER_PORT {config.port}", flush=True)
        _report_rcon(args, config.rcon_port, config.rcon_password)
        assert server.process is not None
        server.process.wait()
    except VanillaLaunchError as err:
        print(f"serve: {err}", file=sys.stderr)
        server.stop()
        return 1
    except KeyboardInterrupt:
        pass
    return server.stop()


def _report_rcon(args: argparse.Namespace, port: int, password: str) -> None:
    """Tell the user the vanilla server's RCON port and password (file mode 0600, or stderr)."""
    import sys

    print(f"rcon port: {port}", file=sys.stderr, flush=True)
    _tell_rcon_password(args, password)


def _port(text: str) -> int:
    port = _int(text)
    if not 1 <= port <= 65535:  # 0 would bind a free port the command line could not report
        raise argparse.ArgumentTypeError(f"{text}: expected a TCP port 1-65535")
    return port


def _game_port(text: str) -> int:
    port = _int(text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text}: expected a TCP port 0-65535 (0 = any free port)")
    return port


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number") from None


def add_serve_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``serve`` command to ``run.py``'s subparsers."""
    p = subparsers.add_parser(
        "serve",
        help="serve a world to Minecraft 1.19.2 / 1.19 clients (embedded server, offline mode)",
        description="Serve WORLD (a save folder or a catalogue name: sandbox) on 127.0.0.1 by default. "
        "The server plays on a fresh copy unless --in-place is given (then changes are saved on exit).",
        allow_abbrev=False,
    )
    p.add_argument("--world", required=True, help="save folder or catalogue name (sandbox)")
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument(
        "--port", type=_game_port, default=25565, help="TCP port, 0 = any free port (default 25565)"
    )
    p.add_argument("--tick-rate", type=float, default=20.0, help="game ticks per second (default 20)")
    p.add_argument("--view-distance", type=int, default=4, help="chunk radius sent to players (default 4)")
    p.add_argument("--seed", type=int, default=0, help="world seed for catalogue builds (default 0)")
    p.add_argument("--episode-seed", type=int, default=0, help="seed of loot and item randomness (default 0)")
    p.add_argument("--in-place", action="store_true", help="play in the save itself and save it on exit")
    p.add_argument("--rcon-port", type=_port, default=None, help="serve RCON on 127.0.0.1 at this port")
    p.add_argument("--rcon-password-file", type=Path, default=None,
                   help="write the random RCON password here (mode 0600) instead of printing it to stderr")  # fmt: skip
    p.add_argument("--op", action="append", default=[], metavar="NAME",
                   help="make player NAME an operator (level 4; repeatable; kept in the ops file)")  # fmt: skip
    p.add_argument("--ops-file", type=Path, default=None,
                   help="vanilla's ops.json to read and keep (default: beside the fresh world copy)")  # fmt: skip
    p.add_argument("--gamemode", choices=("survival", "creative", "adventure", "spectator"), default="survival",
                   help="game mode of players joining for the first time (default survival)")  # fmt: skip
    p.add_argument("--server", choices=("embedded", "vanilla"), default="embedded",
                   help="embedded (default) or vanilla: your own 1.19.2 server jar (--server-jar, --accept-eula)")  # fmt: skip
    p.add_argument("--server-jar", type=Path, default=None, help="--server vanilla: your 1.19.2 server jar")
    p.add_argument("--accept-eula", action="store_true",
                   help="--server vanilla: you accept the Minecraft EULA (https://aka.ms/MinecraftEULA)")  # fmt: skip
    p.add_argument("--java", default="java", help="--server vanilla: Java 17+ executable (default: java)")
    p.add_argument("--server-dir", type=Path, default=None,
                   help="--server vanilla: server folder to prepare (default: a new temporary folder)")  # fmt: skip
    p.add_argument("--ready-timeout", type=float, default=300.0,
                   help="--server vanilla: seconds to wait for the server to be ready (default 300)")  # fmt: skip
    p.set_defaults(handler=cmd_serve)
    return p
