"""Run a user-supplied vanilla 1.19.2 server jar for an episode: folder, properties, launch, wait, stop.

Why: the benchmark must be reproducible on the real game. MirrorCraft never downloads a jar (none can be
fetched here, and Mojang's EULA is the user's to accept); it prepares a server folder from a world save
(the save plus its datapacks), writes ``server.properties`` with the benchmark settings (localhost only,
offline mode, RCON on with a random password, peaceful, no spawn protection), writes ``eula.txt`` only
when the caller passes ``accept_eula=True``, starts ``java -jar <jar> nogui``, waits for the
``Done (`` log line *and* for RCON to accept a login, and stops the server with RCON ``stop``.

Everything around the launch is tested without a jar (``tests/harness/test_harness_vanilla.py``); the
launch/wait/timeout logic is tested against a real child process that prints log lines (a process
harness test, not a game mock). Runs against a real jar are marked ``real_server`` (``MIRRORCRAFT_SERVER_JAR``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.episodes import SpawnInfo
from mirrorcraft.contracts.observation import BlockPos
from mirrorcraft.errors import MirrorCraftError
from mirrorcraft.harness.rcon import RconClient
from mirrorcraft.protocol.rcon import RconError, random_password

DONE_MARKER = "Done ("  # vanilla logs `Done (4.2s)! For help, type "help"` when the server is ready
MINECRAFT_VERSION = "1.19.2"


class VanillaLaunchError(MirrorCraftError):
    """The vanilla server cannot be prepared, started, reached or stopped (the message says why)."""


class VanillaServerConfig(BaseModel):
    """Where and how to run a vanilla server.

    Attributes:
        jar: the user's ``server.jar`` for 1.19.2 (never downloaded by MirrorCraft).
        server_dir: the server folder to prepare (the world goes to ``server_dir/level_name``).
        java: the Java 17+ executable (a name on PATH or a path).
        java_args: JVM options before ``-jar``.
        port: ``server-port`` (0 = pick a free port).
        rcon_port: ``rcon.port`` (0 = pick a free port).
        rcon_password: ``rcon.password`` (default: random from ``secrets``).
        view_distance / simulation_distance: chunk radii.
        accept_eula: write ``eula.txt`` with ``eula=true`` (only the user may decide this).
    """

    model_config = ConfigDict(extra="forbid")

    jar: Path
    server_dir: Path
    java: str = "java"
    java_args: list[str] = Field(default_factory=lambda: ["-Xmx2G"])
    level_name: str = "world"
    port: int = Field(0, ge=0, le=65535)
    rcon_port: int = Field(0, ge=0, le=65535)
    rcon_password: str = Field(default_factory=random_password, min_length=1)
    view_distance: int = Field(8, ge=3, le=32)
    simulation_distance: int = Field(8, ge=3, le=32)
    max_players: int = Field(2, ge=1)
    motd: str = "MirrorCraft vanilla 1.19.2"
    accept_eula: bool = False


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago."""
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def server_properties(config: VanillaServerConfig) -> dict[str, str]:
    """The ``server.properties`` entries for a benchmark run (ports must already be chosen).

    Raises:
        VanillaLaunchError: a port is still 0.
    """
    if config.port == 0 or config.rcon_port == 0:
        raise VanillaLaunchError(
            "server_properties: choose port and rcon_port first (prepare_server_dir does)"
        )
    return {
        "server-ip": "127.0.0.1",
        "server-port": str(config.port),
        "online-mode": "false",
        "enforce-secure-profile": "false",
        "enable-rcon": "true",
        "rcon.port": str(config.rcon_port),
        "rcon.password": config.rcon_password,
        "broadcast-rcon-to-ops": "false",
        "enable-query": "false",
        "level-name": config.level_name,
        "difficulty": "peaceful",
        "gamemode": "survival",
        "force-gamemode": "true",
        "hardcore": "false",
        "pvp": "false",
        "spawn-monsters": "false",
        "spawn-npcs": "false",
        "spawn-animals": "true",
        "allow-nether": "false",
        "generate-structures": "false",
        "spawn-protection": "0",
        "view-distance": str(config.view_distance),
        "simulation-distance": str(config.simulation_distance),
        "max-players": str(config.max_players),
        "white-list": "false",
        "enable-command-block": "false",
        "op-permission-level": "4",
        "function-permission-level": "2",
        "allow-flight": "true",
        "sync-chunk-writes": "true",
        "motd": config.motd,
    }


def _escape(value: str, key: bool = False) -> str:
    # java.util.Properties escaping: backslash, line breaks, and (in keys) '=', ':' and spaces.
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    if key:
        out = out.replace("=", "\\=").replace(":", "\\:").replace(" ", "\\ ")
    elif out.startswith(" "):
        out = "\\" + out
    out = "".join(c if ord(c) < 0x7F else f"\\u{ord(c):04x}" for c in out)
    return out


def format_properties(props: dict[str, str]) -> str:
    """``java.util.Properties`` text, keys sorted (vanilla sorts them too)."""
    lines = ["#Minecraft server properties", "#written by MirrorCraft"]
    lines += [f"{_escape(k, key=True)}={_escape(v)}" for k, v in sorted(props.items())]
    return "\n".join(lines) + "\n"


def parse_properties(text: str) -> dict[str, str]:
    """Read ``key=value`` lines (comments and blank lines skipped; the simple escapes undone)."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        key, _, value = line.partition("=")
        out[key.replace("\\=", "=").replace("\\:", ":").replace("\\ ", " ")] = (
            value.encode("utf-8").decode("unicode_escape") if "\\" in value else value
        )
    return out


def prepare_server_dir(
    config: VanillaServerConfig, world: Path, datapacks: Sequence[Path] = ()
) -> VanillaServerConfig:
    """Create the server folder: a fresh copy of ``world`` as ``level_name``, the datapacks in its
    ``datapacks/``, ``server.properties``, an empty ``ops.json`` (agent players are never ops) and, only
    with ``accept_eula``, ``eula.txt``.

    Args:
        config: the run settings (ports 0 are replaced by free ports).
        world: a world save folder (with ``level.dat``).
        datapacks: datapack zips or folders to add to the world.

    Returns:
        The config with the chosen ports.

    Raises:
        VanillaLaunchError: the save has no ``level.dat``, or a datapack is missing. An existing
            ``server_dir/level_name`` is replaced by the fresh copy.
    """
    if not (world / "level.dat").is_file():
        raise VanillaLaunchError(f"{world}: not a world save (no level.dat)")
    for pack in datapacks:
        if not pack.exists():
            raise VanillaLaunchError(f"datapack {pack} does not exist")
    config = config.model_copy(
        update={
            "port": config.port or free_port(),
            "rcon_port": config.rcon_port or free_port(),
        }
    )
    sd = config.server_dir
    sd.mkdir(parents=True, exist_ok=True)
    target = sd / config.level_name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(world, target)
    if datapacks:
        packs = target / "datapacks"
        packs.mkdir(exist_ok=True)
        for pack in datapacks:
            dest = packs / pack.name
            if pack.is_dir():
                if dest.exists():
                    shutil.rmtree(dest)
                shutil.copytree(pack, dest)
            else:
                shutil.copy2(pack, dest)
    (sd / "server.properties").write_text(format_properties(server_properties(config)), encoding="utf-8")
    (sd / "ops.json").write_text("[]\n", encoding="utf-8")
    if config.accept_eula:
        (sd / "eula.txt").write_text(
            "#By changing the setting below to TRUE you are indicating your agreement to our EULA "
            "(https://aka.ms/MinecraftEULA).\n#accepted through MirrorCraft (accept_eula=True)\neula=true\n",
            encoding="utf-8",
        )
    return config


def check_launch_requirements(config: VanillaServerConfig) -> str:
    """Check java, the jar and the EULA before launching; returns the resolved java executable.

    Raises:
        VanillaLaunchError: java is not found, the jar is missing or not a file, or the EULA was not
            accepted (each message says what to do).
    """
    java = shutil.which(config.java) if os.sep not in config.java else config.java
    if java is None or not Path(java).is_file():
        raise VanillaLaunchError(
            f"java executable {config.java!r} not found: install a Java 17+ runtime (1.19.2 needs Java 17) "
            "and put it on PATH, or pass its path as java="
        )
    if not config.jar.is_file():
        raise VanillaLaunchError(
            f"server jar {config.jar} not found: MirrorCraft does not download Minecraft; download the "
            f"{MINECRAFT_VERSION} server jar from minecraft.net yourself and pass its path"
        )
    eula = config.server_dir / "eula.txt"
    if not eula.is_file() or "eula=true" not in eula.read_text(encoding="utf-8").replace(" ", "").lower():
        raise VanillaLaunchError(
            f"{eula}: the Minecraft EULA is not accepted; read https://aka.ms/MinecraftEULA and prepare the "
            "folder with accept_eula=True if you accept it"
        )
    return java


def require_jar_and_eula(jar: Path | None, accept_eula: bool) -> Path:
    """The two things a vanilla run needs from the user before anything else: the jar's path and the EULA.

    Raises:
        VanillaLaunchError: no jar given, or the EULA flag not set (MirrorCraft never downloads Minecraft and
            never accepts the EULA for the user).
    """
    if jar is None:
        raise VanillaLaunchError(
            f"--server vanilla needs --server-jar PATH: MirrorCraft does not download Minecraft; download the "
            f"{MINECRAFT_VERSION} server jar from minecraft.net yourself and pass its path"
        )
    if not accept_eula:
        raise VanillaLaunchError(
            "--server vanilla needs --accept-eula: the server runs only if you accept the Minecraft EULA "
            "(https://aka.ms/MinecraftEULA); MirrorCraft writes eula.txt only when you pass the flag"
        )
    return Path(jar)


def vanilla_preflight(
    jar: Path | None, accept_eula: bool, java: str = "java", tick_rate: float = 20.0
) -> str:
    """Fail fast before a vanilla-jar run: the jar is given and exists, the EULA flag is set, java is found,
    the tick rate is real time. Returns the resolved java executable.

    The CLIs (``episode``/``study --server vanilla``) call this before doing anything else; the episode
    runner calls it again when an episode starts (a failure there is a ``server_error`` fault).

    Raises:
        VanillaLaunchError: the message names the missing piece and what to do.
    """
    path = require_jar_and_eula(jar, accept_eula)
    if tick_rate != 20.0:
        raise VanillaLaunchError(f"--server vanilla runs at 20 ticks/s only (got --tick-rate {tick_rate:g})")
    resolved = shutil.which(java) if os.sep not in java else java
    if resolved is None or not Path(resolved).is_file():
        raise VanillaLaunchError(
            f"java executable {java!r} not found: install a Java 17+ runtime (1.19.2 needs Java 17) and put "
            "it on PATH, or pass its path with --java"
        )
    if not path.is_file():
        raise VanillaLaunchError(
            f"server jar {jar} not found: MirrorCraft does not download Minecraft; download the "
            f"{MINECRAFT_VERSION} server jar from minecraft.net yourself and pass its path"
        )
    return resolved


class VanillaServer:
    """A running server process (vanilla jar by default; ``command`` overrides the launch for tests of
    the process harness).

    Args:
        config: a prepared config (:func:`prepare_server_dir`).
        command: the argv to run in ``server_dir``; default ``[java, *java_args, -jar, jar, nogui]``
            after :func:`check_launch_requirements`.
        log_file: where to copy the server's output (default ``server_dir/mirrorcraft-server.log``).
    """

    def __init__(
        self, config: VanillaServerConfig, command: Sequence[str] | None = None, log_file: Path | None = None
    ) -> None:
        self.config = config
        self._command = list(command) if command is not None else None
        self.log_file = log_file or config.server_dir / "mirrorcraft-server.log"
        self.process: subprocess.Popen[str] | None = None
        self.lines: deque[str] = deque(maxlen=200)
        self._done = threading.Event()
        self._eof = threading.Event()
        self._reader: threading.Thread | None = None

    def argv(self) -> list[str]:
        """The launch command."""
        if self._command is not None:
            return self._command
        java = check_launch_requirements(self.config)
        return [java, *self.config.java_args, "-jar", str(self.config.jar.resolve()), "nogui"]

    def start(self) -> None:
        """Start the process (returns at once; see :meth:`wait_ready`).

        Raises:
            VanillaLaunchError: already started, or the process cannot be spawned.
        """
        if self.process is not None:
            raise VanillaLaunchError("VanillaServer.start: already started")
        argv = self.argv()
        try:
            self.process = subprocess.Popen(
                argv, cwd=self.config.server_dir, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, bufsize=1,
            )  # fmt: skip
        except OSError as err:
            raise VanillaLaunchError(f"cannot start {argv[0]}: {err}") from err
        self._reader = threading.Thread(target=self._pump, name="vanilla-log", daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        with open(self.log_file, "a", encoding="utf-8") as log:
            for line in self.process.stdout:
                line = line.rstrip("\n")
                self.lines.append(line)
                log.write(line + "\n")
                log.flush()
                if DONE_MARKER in line:
                    self._done.set()
        self._eof.set()

    def _tail(self, n: int = 15) -> str:
        return "\n".join(list(self.lines)[-n:]) or "(no output)"

    def wait_ready(self, timeout: float = 180.0, check_rcon: bool = True) -> None:
        """Wait for the ``Done (`` line, then (``check_rcon``) for an RCON login to succeed.

        Raises:
            VanillaLaunchError: the process exited first (exit code and last log lines), or the timeout
                passed (which of the two steps was missing, and the last log lines).
        """
        if self.process is None:
            raise VanillaLaunchError("VanillaServer.wait_ready: not started")
        deadline = time.monotonic() + timeout
        while not self._done.is_set():
            if self.process.poll() is not None and self._eof.is_set():
                raise VanillaLaunchError(
                    f"server exited with code {self.process.returncode} before it was ready; last lines:\n"
                    f"{self._tail()}"
                )
            if time.monotonic() > deadline:
                raise VanillaLaunchError(
                    f"server not ready after {timeout:.0f} s (no {DONE_MARKER!r} line); last lines:\n{self._tail()}"
                )
            self._done.wait(0.05)
        if not check_rcon:
            return
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise VanillaLaunchError(
                    f"server exited with code {self.process.returncode} before RCON answered"
                )
            try:
                with self.rcon(timeout=2.0):
                    return
            except RconError as err:
                last = err
                time.sleep(0.2)
        raise VanillaLaunchError(
            f"server logged {DONE_MARKER!r} but RCON 127.0.0.1:{self.config.rcon_port} did not accept a login "
            f"within {timeout:.0f} s: {last}"
        )

    def rcon(self, timeout: float = 10.0) -> RconClient:
        """A (not yet connected) RCON client for this server; use it as a context manager."""
        return RconClient("127.0.0.1", self.config.rcon_port, self.config.rcon_password, timeout=timeout)

    def stop(self, timeout: float = 60.0) -> int:
        """Stop with RCON ``stop`` (saving the world) and wait for the process; kill it after ``timeout``.

        Returns:
            The exit code.
        """
        if self.process is None:
            raise VanillaLaunchError("VanillaServer.stop: not started")
        if self.process.poll() is None:
            try:
                with self.rcon(timeout=5.0) as r:
                    r.command("stop")
            except RconError:
                pass  # not reachable (still starting, or a test process): terminate below
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)
        return self.process.returncode


def spawn_info(world: Path, biome: str) -> SpawnInfo:
    """The spawn of a save (``level.dat`` ``SpawnX/Y/Z``) with the biome the catalogue records for it.

    Raises:
        VanillaLaunchError: ``level.dat`` cannot be read.
    """
    from mirrorcraft.errors import WorldError
    from mirrorcraft.worlds.anvil.level import LevelData

    try:
        level = LevelData.load(world / "level.dat")
    except WorldError as err:
        raise VanillaLaunchError(f"{world}: cannot read the spawn: {err}") from err
    x, y, z = level.spawn
    ns_biome = biome if ":" in biome else f"minecraft:{biome}"
    return SpawnInfo(position=BlockPos(x=x, y=y, z=z), biome=ns_biome)


class VanillaEpisodes:
    """The restart callback of :class:`~mirrorcraft.harness.control.RconServerControl` for a vanilla jar:
    each episode gets a fresh copy of its world (Vanilla or Mirror copy, datapacks included) and a
    restarted server.

    Limitation: vanilla's own randomness (loot rolls, mob AI) cannot be seeded from the episode seed; the
    embedded server is the deterministic path.

    Args:
        config: the run settings (ports chosen on the first restart are kept for later ones).
        worlds_root: the catalogue's output folder (``vanilla/plains-1``, ``mirror/plains-1/M03``).
        ready_timeout: seconds to wait for ``Done (`` and RCON.
        command: launch argv override (process-harness tests only).
        check_rcon: wait for an RCON login (tests with a non-game process turn it off).
        stop_timeout: seconds to wait for the server to exit after RCON ``stop`` before terminating it.
    """

    def __init__(
        self,
        config: VanillaServerConfig,
        worlds_root: Path,
        ready_timeout: float = 300.0,
        command: Sequence[str] | None = None,
        check_rcon: bool = True,
        stop_timeout: float = 60.0,
    ) -> None:
        self.config = config
        self.stop_timeout = stop_timeout
        self.worlds_root = worlds_root
        self.ready_timeout = ready_timeout
        self._command = command
        self._check_rcon = check_rcon
        self.server: VanillaServer | None = None

    def restart_blocking(self, world_id: str) -> SpawnInfo:
        """Stop the running server, copy ``world_id`` fresh, start and wait; returns the spawn.

        Raises:
            VanillaLaunchError: unknown world, missing world folder, or the server failed to start.
        """
        from mirrorcraft.errors import WorldError
        from mirrorcraft.worlds.catalogue import entry, world_path

        try:
            e = entry(world_id)
        except WorldError as err:
            raise VanillaLaunchError(str(err)) from err
        src = world_path(self.worlds_root, e)
        if not src.is_dir():
            raise VanillaLaunchError(
                f"world {world_id!r} not built: {src} does not exist (build the catalogue)"
            )
        self.close()
        self.config = prepare_server_dir(self.config, src)
        self.server = VanillaServer(self.config, command=self._command)
        self.server.start()
        self.server.wait_ready(self.ready_timeout, check_rcon=self._check_rcon)
        return spawn_info(src, e.biome)

    async def restart(self, identity: Any) -> SpawnInfo:
        """``restart(identity)`` for ``RconServerControl``: runs :meth:`restart_blocking` in a thread so the
        reactor keeps running."""
        from twisted.internet import threads

        return await threads.deferToThread(self.restart_blocking, identity.world_id)

    def connect(self, reactor: Any) -> Any:
        """A logged-in Twisted RCON client for the current server (``connect`` of ``RconServerControl``)."""
        from mirrorcraft.harness.rcon import connect_rcon

        return connect_rcon(reactor, "127.0.0.1", self.config.rcon_port, self.config.rcon_password)

    def close(self) -> None:
        """Stop the running server, if any."""
        if self.server is not None:
            self.server.stop(timeout=self.stop_timeout)
            self.server = None
