"""The in-process server API: start on the running reactor, events, test hooks, save, stop.

Why in-process: the agent side already runs one Twisted reactor (docs/architecture.md principle 5), so the
simplest deployment — and the one tests use — is the server on that same reactor. ``EmbeddedServer`` also
exposes the test hook (give an item, set a block, teleport, read an inventory), modelled on mineflayer's
``testCommon.js``; it is a Python API (the control plane is RCON and op commands: docs/control.md).
All methods must be called on the reactor thread.
"""

from __future__ import annotations

import logging
import statistics
from collections.abc import Callable

from quarry.net.server import ServerFactory
from twisted.internet import reactor

from mirrorcraft import PROTOCOL_1_19, PROTOCOL_1_19_2
from mirrorcraft.errors import ContractError
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.connection import PendingLogins, PlayerConnection
from mirrorcraft.server.game import Game
from mirrorcraft.server.kernel import Player

log = logging.getLogger(__name__)


class _Factory(ServerFactory):
    protocol = PlayerConnection
    online_mode = False
    motd = "MirrorCraft embedded 1.19.2 server"
    minecraft_versions = {PROTOCOL_1_19_2: "1.19.2", PROTOCOL_1_19: "1.19"}
    log_level = logging.WARNING

    def __init__(self, game: Game, max_players: int) -> None:
        super().__init__()
        self.game = game
        self.max_players = max_players
        self.pending = PendingLogins(game.config.max_pending_logins_per_address)


class EmbeddedServer:
    """An embedded 1.19.2 server on the running Twisted reactor.

    Args:
        config: World folder, bind address, tick rate, controls, seeds.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.game: Game | None = None
        self._port = None
        self.on_stop: list[Callable[[], object]] = []  # run after a ``stop`` command stopped the server

    @property
    def port(self) -> int:
        """The bound TCP port (after :meth:`start`)."""
        if self._port is None:
            raise ContractError("EmbeddedServer.port: the server is not started")
        return self._port.getHost().port

    def start(self) -> int:
        """Load the world, listen and start ticking; returns the bound port (port 0 picks a free one).

        Raises:
            WorldError, DatapackError, ContractError: the world or its packs cannot be loaded.
            CannotListenError: the game or RCON port is taken; whatever had started is stopped again, so
                nothing keeps listening or ticking.
        """
        self.game = Game(self.config)
        self.game.stop_handlers.append(self._stop_requested)
        factory = _Factory(self.game, self.config.max_players)
        self._port = reactor.listenTCP(self.config.port, factory, interface=self.config.host)
        try:
            self.game.start()
            self.game.rcon.start()  # control plane: RCON if configured
        except BaseException:
            self.stop()
            raise
        log.info("embedded server on %s:%d (world %s)", self.config.host, self.port, self.config.world)
        return self.port

    def stop(self, save: bool = False):
        """Disconnect everyone, stop ticking and listening (optionally save first). Returns a Deferred."""
        if self.game is None:
            return None
        if save:
            self.save()
        self.game.rcon.stop()  # control plane: close the RCON listener
        self.game.stop()
        d = self._port.stopListening() if self._port is not None else None
        self._port = None
        return d

    def _stop_requested(self) -> None:
        """The ``stop`` command: stop (saving first), then run :attr:`on_stop`."""
        self.stop(save=True)
        for fn in list(self.on_stop):
            fn()

    @property
    def tick_count(self) -> int:
        """Game ticks run so far (the server's clock; skipped catch-up ticks included)."""
        return self._game().tick_count

    @property
    def rcon_port(self) -> int | None:
        """The bound RCON port (None when RCON is off or the server is not started)."""
        return None if self.game is None else self.game.rcon.port

    @property
    def rcon_password(self) -> str | None:
        """The RCON password (``config.rcon_password`` or the random one; None when RCON is off)."""
        return None if self.game is None else self.game.rcon.password

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop` while the tick loop runs."""
        return self.game is not None and self.game.running

    def subscribe(self, listener: Callable[[str, dict], None]) -> None:
        """Call ``listener(event, data)`` for every game event (the harness's evaluator, tools, tests)."""
        self._game().subscribe(listener)

    def save(self) -> int:
        """Write the block entities and changed chunks back to the world folder; returns the chunks written."""
        return self._game().save()

    # ---- test hook -----------------------------------------------------------------------------------

    def _game(self) -> Game:
        if self.game is None:
            raise ContractError("EmbeddedServer: not started")
        return self.game

    def player(self, name: str) -> Player:
        """The player called ``name`` in the game.

        Raises:
            ContractError: no such player.
        """
        p = self._game().players.by_name(name)
        if p is None:
            raise ContractError(f"no player named {name!r} is connected")
        return p

    def player_names(self) -> list[str]:
        """Names of the players in game."""
        return sorted(p.display_name for p in self._game().players.values())

    def give_item(self, name: str, item: str, count: int = 1) -> int:
        """Put ``count`` of ``item`` into ``name``'s inventory (hotbar first); returns how many fit."""
        return self._game().inventory.give_item(self.player(name), item, count)

    def set_block(self, x: int, y: int, z: int, block: str, **props: str) -> None:
        """Set a block (by name and properties) and tell the players."""
        self._game().kernel.set_block((x, y, z), facts.state_id(block, props))

    def block_at(self, x: int, y: int, z: int) -> str:
        """Bare block name at a position."""
        return facts.block_name(self._game().world.get_block(x, y, z))

    def teleport(self, name: str, x: float, y: float, z: float) -> None:
        """Move a player (the client is told and must confirm)."""
        self._game().movement.teleport(self.player(name), x, y, z)

    def position(self, name: str) -> tuple[float, float, float]:
        """A player's feet position as the server sees it."""
        return tuple(self.player(name).pos)  # type: ignore[return-value]

    def inventory(self, name: str) -> dict[int, tuple[str, int]]:
        """Non-empty slots of ``name``'s window 0: slot → (bare item name, count)."""
        p = self.player(name)
        return {i: (s.item.removeprefix("minecraft:"), s.count) for i, s in enumerate(p.inventory.slots) if s}

    def tick_stats(self) -> dict[str, float]:
        """Mean and p99 tick time (ms) over the ticks so far, ticks run and chunks sent."""
        game = self._game()
        times = game.tick_times
        chunks = float(game.chunks_sent)
        if not times:
            return {"ticks": 0, "mean_ms": 0.0, "p99_ms": 0.0, "chunks_sent": chunks}
        ordered = sorted(times)
        return {
            "ticks": float(len(times)),
            "mean_ms": statistics.fmean(times) * 1000,
            "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
            "chunks_sent": chunks,
        }
