"""The server's kernel: the world, the players, the entity ids, the tick clock, sending, events, packet
handlers and the seeded random streams — everything the features share, and nothing of any feature.

Why a kernel: the embedded server grows by features (digging, menus, mobs, food, commands...; see
:mod:`mirrorcraft.server.features`). Each feature needs the same few services and must not reach into
another feature for them; the kernel is those services, it imports no feature, and a feature receives it
(with the world's rules and the features it depends on) through its constructor. Modelled on flying-squid's
server object, which its plugins extend.

Services:

* :attr:`Kernel.world` — the blocks (:class:`~mirrorcraft.server.kernel.world.World`, an Anvil save loaded
  lazily) and :meth:`Kernel.set_block`, which tells every player holding the chunk; collision geometry is
  :mod:`~mirrorcraft.server.kernel.physics`.
* :attr:`Kernel.players` — the :class:`~mirrorcraft.server.kernel.players.Player` objects in the game, in join
  order; :attr:`Kernel.items` — the item entities by entity id (the items feature owns their behaviour);
  :meth:`Kernel.new_eid` / :meth:`Kernel.new_uuid` allocate ids for every entity kind.
* :attr:`Kernel.clock` — the tick loop and its declared phase order (:mod:`~mirrorcraft.server.kernel.clock`):
  a free-running :class:`TickClock`, or a :class:`LockstepClock` when ``config.clock == "lockstep"``.
* sending — to one player (``player.send(name, body)``), to everyone (:meth:`Kernel.broadcast`) or to the
  players whose client holds a chunk (:meth:`Kernel.send_near`); bodies come from
  :mod:`mirrorcraft.server.wire`, the one place packets are built.
* :attr:`Kernel.events` — published events and behaviour hooks (:mod:`~mirrorcraft.server.kernel.events`).
* :attr:`Kernel.handlers` — serverbound packet handlers (:mod:`~mirrorcraft.server.kernel.handlers`).
* :attr:`Kernel.rng` — the seeded random streams by purpose (:mod:`~mirrorcraft.server.kernel.rng`).
"""

from __future__ import annotations

import uuid as uuidlib
from typing import Any

from mirrorcraft.errors import WorldError
from mirrorcraft.server import wire
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.kernel.clock import LockstepClock, TickClock
from mirrorcraft.server.kernel.events import Behaviour, Events
from mirrorcraft.server.kernel.handlers import PacketHandlers
from mirrorcraft.server.kernel.players import Player, Players, Transport
from mirrorcraft.server.kernel.rng import RngStreams
from mirrorcraft.server.kernel.world import World
from mirrorcraft.server.outcomes import OutcomeEvent

__all__ = ["Behaviour", "Kernel", "Player", "Players", "Transport"]

Pos = tuple[int, int, int]


class Kernel:
    """The shared services of one embedded server.

    Args:
        config: The server's configuration (``config.world`` is loaded now).

    Raises:
        WorldError: the save cannot be read.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.world = World(config.world)
        self.rng = RngStreams(self.world.level.seed, config.episode_seed)
        self.players = Players()
        self.items: dict[int, Any] = {}
        self.clock: TickClock = (
            LockstepClock(
                config.tick_rate,
                paced=config.lockstep_paced,
                timeout=config.lockstep_timeout,
                think_timeout=config.lockstep_think_timeout,
                hold_start=config.lockstep_hold_start,
            )
            if config.clock == "lockstep"
            else TickClock(config.tick_rate)
        )
        self.events = Events()
        self.handlers = PacketHandlers()
        self._next_eid = 1

    # ---- clock -----------------------------------------------------------------------------------------

    @property
    def tick_count(self) -> int:
        """Game ticks so far (the server's clock; skipped catch-up ticks included)."""
        return self.clock.count

    # ---- entities ----------------------------------------------------------------------------------------

    def new_eid(self) -> int:
        """A fresh entity id (players, items and mobs share one counter, as in vanilla)."""
        eid = self._next_eid
        self._next_eid += 1
        return eid

    def new_uuid(self) -> uuidlib.UUID:
        """A fresh entity UUID from the seeded ``uuid`` stream."""
        return uuidlib.UUID(int=self.rng.stream("uuid").getrandbits(128), version=4)

    # ---- sending -----------------------------------------------------------------------------------------

    def broadcast(self, name: str, body: bytes, exclude: Player | None = None) -> None:
        """Send one packet body to every player (but ``exclude``)."""
        for o in self.players:
            if o is not exclude:
                o.send(name, body)

    def send_near(self, pos: Pos, name: str, body: bytes) -> None:
        """Send one packet body to every player whose client holds the chunk of block ``pos``."""
        key = (pos[0] >> 4, pos[2] >> 4)
        for o in self.players:
            if key in o.loaded_chunks:
                o.send(name, body)

    # ---- blocks ------------------------------------------------------------------------------------------

    def set_block(self, pos: Pos, state: int) -> None:
        """Change a block, tell every player that has its chunk, then run the ``"block_changed"`` after-hooks
        (``pos``, ``old`` and ``new`` state ids, and the world's ``version`` right after the change: a hook
        that finds ``world.version`` still equal knows no nested change happened since): what vanilla's
        ``Level.setBlock`` does for its neighbours' shapes (double chests,
        :mod:`~mirrorcraft.server.features.blockupdates`) and what the random-tick index follows.

        Raises:
            WorldError: ``pos`` is outside the build height.
        """
        old = self.world.get_block(*pos)
        if not self.world.set_block(*pos, state):
            raise WorldError(f"set_block: y={pos[1]} outside the build height")
        self.send_near(pos, "block_change", wire.block_change(*pos, state))
        if old != state:
            self.events.notify("block_changed", None, pos=pos, old=old, new=state, version=self.world.version)

    def emit(self, event: str, **data: Any) -> None:
        """Publish an event (shorthand for ``events.emit``)."""
        self.events.emit(event, **data)

    def report(self, outcome: OutcomeEvent) -> None:
        """Publish an outcome for the hidden evaluator: an ``"outcome"`` event (stamped with the tick now
        unless it carries one). The harness's :class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator`
        subscribes; nothing of it reaches a client."""
        if outcome.tick is None:
            outcome = outcome.model_copy(update={"tick": self.tick_count})
        self.emit("outcome", outcome=outcome)
