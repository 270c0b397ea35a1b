"""Keep-alive: a ``keep_alive`` every 15 s (``ServerConfig.keep_alive_interval``); a client that does not
answer within 30 s (``keep_alive_timeout``) is kicked with "Timed out" — vanilla's values."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.server import wire
from mirrorcraft.server.kernel import Behaviour, Kernel, Player


@dataclass
class KeepAliveState:
    """One player's keep-alive: the id awaiting an answer (``None``: none), when it was sent, the last answer."""

    pending: int | None = None
    sent: float = 0.0
    last: float = field(default_factory=time.monotonic)


class KeepAlive:
    """Keep-alives for every player."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.players: dict[Player, KeepAliveState] = {}
        kernel.handlers.register("keep_alive", self._on_keep_alive)
        kernel.events.after("joined", self._joined)
        kernel.events.after("left", lambda b: self.players.pop(b.player, None))

    def state(self, p: Player) -> KeepAliveState:
        st = self.players.get(p)
        if st is None:
            st = self.players[p] = KeepAliveState()
        return st

    def _joined(self, b: Behaviour) -> None:
        self.state(b.player).last = time.monotonic()

    def _on_keep_alive(self, p: Player, pkt: sb.KeepAliveServerbound) -> None:
        st = self.state(p)
        if pkt.keep_alive_id == st.pending:
            st.pending = None
            st.last = time.monotonic()

    def tick(self) -> None:
        """Send due keep-alives; kick players whose answer is overdue."""
        now = time.monotonic()
        cfg = self.kernel.config
        for p in self.kernel.players.values():
            st = self.state(p)
            if st.pending is not None:
                if now - st.sent > cfg.keep_alive_timeout:
                    p.kick("Timed out")
            elif now - st.last >= cfg.keep_alive_interval:
                st.pending = int(now * 1000)
                st.sent = now
                p.send("keep_alive", wire.keep_alive(st.pending))
