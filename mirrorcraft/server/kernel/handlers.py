"""Serverbound play-packet handlers, registered by the features and called by the connection.

Why a registry: the connection (:mod:`mirrorcraft.server.connection`) only frames, decodes and dispatches;
which feature answers a packet is the features' business. A packet may have several handlers (they run in
registration order: ``block_dig`` is digging's for statuses 0-2, the inventory's for drops and hand swaps,
food's for releasing a use); a packet nobody registered for is read and ignored, without decoding it (as
vanilla ignores the client settings, plugin messages, recipe-book clicks...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Handler = Callable[[Any, Any], None]  # (player, decoded packet)


class PacketHandlers:
    """Handlers by ``mirrorcraft.protocol`` serverbound packet name (``block_dig``, ``window_click``...)."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}
        #: ``gate(player, packet, decoded) -> bool``: called before the handlers of every packet the
        #: connection receives; True means it took the packet to dispatch later (lockstep batching,
        #: :mod:`mirrorcraft.server.features.lockstep`). None: every packet is handled on arrival.
        self.gate: Callable[[Any, str, Any], bool] | None = None

    def register(self, packet: str, handler: Handler) -> None:
        """Call ``handler(player, packet)`` for every ``packet`` a player sends."""
        self._handlers.setdefault(packet, []).append(handler)

    def unregister(self, packet: str, handler: Handler) -> None:
        """Stop calling ``handler`` for ``packet`` (no error if it was not registered; tools and tests)."""
        handlers = self._handlers.get(packet, [])
        if handler in handlers:
            handlers.remove(handler)
            if not handlers:
                del self._handlers[packet]

    def handles(self, packet: str) -> bool:
        """Whether anyone handles ``packet`` (the connection decodes only those)."""
        return packet in self._handlers

    @property
    def packets(self) -> list[str]:
        """The handled packet names, sorted."""
        return sorted(self._handlers)

    def receive(self, player: Any, packet: str, decoded: Any) -> None:
        """A packet as it arrives: offered to :attr:`gate` first, else dispatched at once."""
        if self.gate is not None and self.gate(player, packet, decoded):
            return
        self.dispatch(player, packet, decoded)

    def dispatch(self, player: Any, packet: str, decoded: Any) -> None:
        """Run every handler of ``packet`` on the decoded packet (exceptions propagate to the caller)."""
        for handler in self._handlers.get(packet, ()):
            handler(player, decoded)
