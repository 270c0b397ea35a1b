"""Child-process mode: run the embedded server in its own Python process (a second core for throughput).

Why: the agent side and the server share one reactor in the simplest setup; when a run needs the server
on another core, :class:`ServerProcess` starts ``python -m mirrorcraft.harness.process CONFIG_JSON``, reads
the line ``MIRRORCRAFT_SERVER_PORT <port>`` the child prints once it listens, and stops it with SIGTERM
(the child disconnects players, optionally saves, and exits). The test hook is in-process only.
"""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

from mirrorcraft.errors import ContractError, MirrorCraftError
from mirrorcraft.server.config import ServerConfig

PORT_LINE = "MIRRORCRAFT_SERVER_PORT"


class ServerProcess:
    """The embedded server in a child process.

    Args:
        config: Server configuration (serialised to JSON for the child).
        save_on_stop: Write changed chunks back to the world folder when stopping.
    """

    def __init__(self, config: ServerConfig, save_on_stop: bool = False) -> None:
        self.config = config
        self.save_on_stop = save_on_stop
        self.proc: subprocess.Popen[str] | None = None
        self.port: int | None = None
        self.output: deque[str] = deque(maxlen=200)

    def start(self, timeout: float = 60.0) -> int:
        """Start the child and wait until it listens; returns its port.

        Raises:
            ContractError: the child exited or did not report a port within ``timeout`` seconds.
        """
        payload = json.dumps(
            {"config": self.config.model_dump(mode="json"), "save_on_stop": self.save_on_stop}
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mirrorcraft.harness.process", payload],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        found = threading.Event()

        def reader() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                self.output.append(line.rstrip())
                if line.startswith(PORT_LINE):
                    self.port = int(line.split()[1])
                    found.set()
            found.set()

        threading.Thread(target=reader, daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not found.wait(0.1):
            pass
        if self.port is None:
            self.stop()
            raise ContractError(f"server process did not start: {' | '.join(list(self.output)[-10:])}")
        return self.port

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stop the child (SIGTERM, then SIGKILL after ``timeout``); returns its exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class ServerStartError(MirrorCraftError):
    """The embedded server could not start (a port in use, an unreadable world): one line, no traceback."""


def start_failure(err: BaseException, config: ServerConfig) -> str:
    """One line saying why the server did not start."""
    from twisted.internet.error import CannotListenError

    if isinstance(err, CannotListenError):
        what = "the RCON port" if err.port == config.rcon_port and err.port else "port"
        cause = getattr(err.socketError, "strerror", None) or str(err.socketError)
        return f"cannot listen on {what} {err.interface or '*'}:{err.port}: {cause}"
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def serve_forever(config: ServerConfig, save_on_stop: bool = False) -> int:
    """Run an embedded server on this process's reactor until SIGTERM/SIGINT; prints the port line.

    Raises:
        ServerStartError: the server did not start (the reactor stops at once; nothing stays listening).
    """
    from twisted.internet import reactor

    from mirrorcraft.server.embedded import EmbeddedServer

    server = EmbeddedServer(config)
    failure: list[str] = []

    def started() -> None:
        try:
            port = server.start()
        except Exception as err:  # noqa: BLE001 - any start failure ends the process with one line
            failure.append(start_failure(err, config))
            reactor.stop()
            return
        # RCON/console `stop` ends the process too, as on a vanilla server.
        server.on_stop.append(lambda: reactor.callLater(0.2, reactor.stop))
        print(f"{PORT_LINE} {port}", flush=True)

    def shutdown(*_args: object) -> None:
        reactor.callFromThread(_stop)

    def _stop() -> None:
        server.stop(save=save_on_stop)
        reactor.callLater(0.2, reactor.stop)

    signal.signal(signal.SIGTERM, shutdown)
    signal.signal(signal.SIGINT, shutdown)
    reactor.callWhenRunning(started)
    reactor.run(installSignalHandlers=False)
    if failure:
        raise ServerStartError(failure[0])
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry of the child: ``python -m mirrorcraft.harness.process '{"config": {...}}'``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m mirrorcraft.harness.process CONFIG_JSON", file=sys.stderr)
        return 2
    data = json.loads(args[0])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    config = ServerConfig.model_validate(data["config"])
    if not Path(config.world).is_dir():
        print(f"world folder not found: {config.world}", file=sys.stderr)
        return 2
    try:
        return serve_forever(config, bool(data.get("save_on_stop")))
    except ServerStartError as err:
        print(f"server did not start: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
