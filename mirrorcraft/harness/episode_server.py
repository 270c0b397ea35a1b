"""The server an episode plays on — in this process, in a child process, or a user's vanilla jar — behind
one small interface: start, RCON control, the evaluator that fits it, the tick clock, liveness, stop.

Why in the harness: which server runs where decides how the harness can control and evaluate it (RCON for
every mode; server-side events only in-process), and that is harness knowledge the episode runner
(:mod:`mirrorcraft.study.runner`) should not repeat. Every mode serves RCON on 127.0.0.1 with the
password the caller chose (:meth:`EpisodeServer.control`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from mirrorcraft.contracts.interfaces import Evaluator
from mirrorcraft.harness.control import ControlError, RconServerControl

__all__ = ["EpisodeServer", "ServerMode"]

ServerMode = Literal["embedded", "child", "vanilla"]


class EpisodeServer:
    """One episode's server.

    Args:
        mode: ``embedded`` (:class:`~mirrorcraft.server.embedded.EmbeddedServer` on this reactor), ``child``
            (:class:`~mirrorcraft.harness.process.ServerProcess`) or ``vanilla``
            (:class:`~mirrorcraft.harness.vanilla.VanillaServer`).
        config: a ``ServerConfig`` (embedded / child; ``rcon_port`` and ``rcon_password`` set) or a
            ``VanillaServerConfig`` (vanilla; its folder is prepared from ``world`` in :meth:`start`).
        world: the episode's world copy (vanilla only).
        ready_timeout: seconds to wait for the vanilla server's ``Done (`` line and RCON login.

    Attributes:
        embedded / process / vanilla: the running server of the mode (None otherwise, and after stop).
        port / rcon_port / rcon_password: known after :meth:`start`.
    """

    def __init__(
        self, mode: ServerMode, config: Any, world: Path | None = None, ready_timeout: float = 300.0
    ) -> None:
        self.mode = mode
        self.config = config
        self.world = world
        self.ready_timeout = ready_timeout
        self.embedded: Any = None
        self.process: Any = None
        self.vanilla: Any = None
        self.port: int | None = None
        self.rcon_port: int | None = None
        self.rcon_password: str | None = None

    async def start(self) -> int:
        """Start the server; returns its game port."""
        from twisted.internet import threads

        if self.mode == "embedded":
            from mirrorcraft.server.embedded import EmbeddedServer

            self.embedded = EmbeddedServer(self.config)
            self.port = self.embedded.start()
            # The RCON port may have been 0 (any free one): the server reports the one it bound.
            self.rcon_port, self.rcon_password = self.embedded.rcon_port, self.embedded.rcon_password
        elif self.mode == "child":
            from mirrorcraft.harness.process import ServerProcess

            self.process = ServerProcess(self.config)
            self.port = await threads.deferToThread(self.process.start)
            self.rcon_port, self.rcon_password = self.config.rcon_port, self.config.rcon_password
        else:
            from mirrorcraft.harness.vanilla import VanillaServer, prepare_server_dir

            assert self.world is not None
            self.config = prepare_server_dir(self.config, self.world)  # save + its datapacks, eula.txt
            self.vanilla = VanillaServer(self.config)
            self.vanilla.start()
            await threads.deferToThread(self.vanilla.wait_ready, self.ready_timeout)
            self.port = self.config.port
            self.rcon_port, self.rcon_password = self.config.rcon_port, self.config.rcon_password
        return self.port

    def control(self, player: str) -> RconServerControl:
        """An :class:`~mirrorcraft.harness.control.RconServerControl` over this server's RCON socket
        (deterministic only for the embedded server, which seeds its randomness from the episode).

        Raises:
            ControlError: the server serves no RCON.
        """
        from twisted.internet import reactor

        from mirrorcraft.harness.rcon import connect_rcon

        if self.rcon_port is None or self.rcon_password is None:
            raise ControlError(f"the {self.mode} server serves no RCON")
        port, password = self.rcon_port, self.rcon_password
        return RconServerControl(
            lambda: connect_rcon(reactor, "127.0.0.1", port, password),
            player=player,
            deterministic_server=self.mode != "vanilla",
        )

    def evaluator(
        self, control: RconServerControl, advancements_done: Callable[[], list[str]], ticks: Callable[[], int]
    ) -> Evaluator:
        """The evaluator that fits this server (docs/control.md "Evaluators"); build it before the player joins.

        Args:
            control: the RCON control of this server (the vanilla jar's milestones come over it).
            advancements_done: the player's completed advancements as the server sent them (the body's view;
                used for a child process, whose events are not visible here).
            ticks: the tick to record with such a milestone.
        """
        if self.mode == "vanilla":
            from mirrorcraft.harness.report_evaluators import RconEvaluator

            return RconEvaluator(control)
        if self.embedded is not None:  # the server runs in this process: listen to its outcome events
            from mirrorcraft.harness.evaluators import EmbeddedEvaluator

            return EmbeddedEvaluator.attach(self.embedded.game)
        from mirrorcraft.harness.report_evaluators import PacketEvaluator

        return PacketEvaluator(advancements_done, ticks)

    @property
    def tick_clock(self) -> Callable[[], int] | None:
        """The server's tick counter when it runs in this process (the tick barrier's clock), else None."""
        if self.embedded is None:
            return None
        embedded = self.embedded
        return lambda: int(embedded.tick_count)

    def ticks(self) -> int | None:
        """The server's tick now, when it runs in this process."""
        clock = self.tick_clock
        return None if clock is None else clock()

    def alive(self) -> bool:
        """The child process or the jar still runs; the in-process server still ticks."""
        if self.process is not None:
            return self.process.proc is not None and self.process.proc.poll() is None
        if self.vanilla is not None:
            return self.vanilla.process is not None and self.vanilla.process.poll() is None
        return self.embedded is None or self.embedded.running

    async def stop(self) -> None:
        """Stop whatever runs (idempotent)."""
        from twisted.internet import defer, threads

        if self.embedded is not None:
            d = self.embedded.stop()
            if isinstance(d, defer.Deferred):
                await d
            self.embedded = None
        if self.process is not None:
            await threads.deferToThread(self.process.stop)
            self.process = None
        if self.vanilla is not None:
            await threads.deferToThread(self.vanilla.stop)
            self.vanilla = None
