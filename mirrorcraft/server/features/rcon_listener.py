"""The RCON listener: the embedded server's control socket, started with the server when configured.

When ``ServerConfig.rcon_port`` is set (0 = any free port), RCON is served on 127.0.0.1 only, with the
configured password or a random one (:class:`~mirrorcraft.server.rcon.RconServerFactory`); each command
runs as the RCON console through the commands feature's executor, so the harness drives the embedded server
with the same command text it sends a vanilla server (docs/control.md).
"""

from __future__ import annotations

from typing import Any

from twisted.internet import reactor

from mirrorcraft.server.features.commands import Commands
from mirrorcraft.server.kernel import Kernel
from mirrorcraft.server.rcon import RconServerFactory


class RconListener:
    """RCON for one game (listening between :meth:`start` and :meth:`stop`)."""

    def __init__(self, kernel: Kernel, commands: Commands) -> None:
        self.config = kernel.config
        self.commands = commands
        self.password: str | None = None
        self._listening: Any = None

    def start(self) -> None:
        """Listen on 127.0.0.1 if ``config.rcon_port`` is set (nothing otherwise)."""
        cfg = self.config
        if cfg.rcon_port is None:
            return
        factory = RconServerFactory(self.commands.executor.rcon_handler(), password=cfg.rcon_password)
        self.password = factory.password
        self._listening = factory.listen(reactor, cfg.rcon_port, "127.0.0.1")

    @property
    def port(self) -> int | None:
        """The bound RCON port (None when RCON is off)."""
        return None if self._listening is None else self._listening.getHost().port

    def stop(self) -> Any:
        """Stop listening; returns the listener's Deferred (or None)."""
        listening, self._listening = self._listening, None
        return listening.stopListening() if listening is not None else None
