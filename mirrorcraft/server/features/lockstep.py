"""Lockstep: the plugin-channel side of the :class:`~mirrorcraft.server.kernel.clock.LockstepClock`.

Why plugin messages (``custom_payload``, wiki.vg "Plugin Message"): they are the protocol's own extension
point, so a lockstep body speaks plain 1.19.2 and a client that knows nothing of lockstep (Mineflayer, a
vanilla client) ignores the offer and is never waited for. Wire format (docs/lockstep.md), every number
ASCII decimal text like ``mirrorcraft:tick_rate``:

* clientbound ``mirrorcraft:clock`` ``b"lockstep"``: sent right after ``login`` when ``ServerConfig.clock``
  is ``"lockstep"`` (before the first position, so a body never starts its wall-clock loop);
  ``b"free"`` when the server evicts the client from lockstep (stall bound): it must tick on its own again.
* serverbound ``minecraft:register`` whose NUL-separated channel list contains ``mirrorcraft:tick``: the
  client takes part from now (vanilla's channel-registration convention). Ignored from an evicted client.
* clientbound ``mirrorcraft:tick`` ``b"<n>"``: tick ``n`` has run (sent at the end of the tick, after every
  packet the tick produced; on registration the current tick is announced).
* serverbound ``mirrorcraft:tick_sync`` ``b"<n>"``: answered at once with the same clientbound message. The
  client uses it as a flush: once the echo is back, every reply to the packets it sent before it has
  arrived, so it can react to them before declaring the tick done.
* serverbound ``mirrorcraft:tick_sync_done`` ``b"<n>"``: a ``tick_sync`` that also offers the ``tick_done``
  for ``n``. When nothing was sent to the client since tick ``n``'s announcement there is nothing it could
  react to, so the offer is taken as its done and no echo is sent (one round trip per quiet tick instead of
  two); otherwise it is answered exactly like a ``tick_sync`` and the client sends its done later.
* serverbound ``mirrorcraft:tick_done`` ``b"<n>"``: the client has sent all its input for tick ``n``; tick
  ``n + 1`` runs when every registered client has said so (or the barrier's timeout evicted it).
* serverbound ``mirrorcraft:tick_wait`` ``b"<n>"``: a heartbeat of a client that owes tick ``n``'s done
  because its agent is deciding; it keeps the stall bound from evicting it (up to the think timeout).

Start hold: a lockstep server holds at tick 0 until the first client registers; a client that joins and
does not register within :data:`LOCKSTEP_GRACE` seconds ends the hold (the server then runs free at its rate
until a lockstep client registers), so a non-lockstep client never waits for the hold's timeout.

Malformed numbers and acknowledgements for another tick are counted in :attr:`Lockstep.rejected` and
otherwise ignored.

Batching (``ServerConfig.lockstep_batch``, for several lockstep clients on one server: team episodes): the
play packets of lockstep clients are not handled on arrival but held, and handled right before the next
tick runs, client by client in name order (each client's packets in the order it sent them). Vanilla
handles packets the same way — its network threads queue them and the server thread runs them between
ticks (``PacketUtils.ensureRunningOnSameThread``) — in arrival order; name order here makes the game the
same whatever order two clients' packets arrived in (the loot of two blocks broken between the same two
ticks draws from one shared random stream). The lockstep channel itself and keep-alives are handled at
once. A reply to a held packet therefore comes after the barrier, a tick later than without batching.
"""

from __future__ import annotations

import logging
from typing import Any

from mirrorcraft.server import wire
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.clock import LockstepClock

CLOCK_CHANNEL = "mirrorcraft:clock"
TICK_CHANNEL = "mirrorcraft:tick"
SYNC_CHANNEL = "mirrorcraft:tick_sync"
DONE_CHANNEL = "mirrorcraft:tick_done"
SYNC_DONE_CHANNEL = "mirrorcraft:tick_sync_done"
WAIT_CHANNEL = "mirrorcraft:tick_wait"
REGISTER_CHANNEL = "minecraft:register"
MAX_NUMBER_BYTES = 20  # a tick count as ASCII decimal: 20 digits hold any 64-bit count
#: Wall seconds a joined client may take to register before the start hold ends for it (our body registers
#: within a reactor turn of the offer; a client that does not speak lockstep never does).
LOCKSTEP_GRACE = 1.0
#: Packets handled on arrival even when batching (the lockstep protocol's own, and the keep-alive answers
#: whose wall-clock timing the server checks).
UNBATCHED = frozenset({"custom_payload", "keep_alive"})

log = logging.getLogger(__name__)


def parse_tick(data: bytes) -> int | None:
    """The tick number of a lockstep message (ASCII decimal), or ``None`` when malformed."""
    if not data or len(data) > MAX_NUMBER_BYTES or not data.isdigit():
        return None
    return int(data)


class Lockstep:
    """The lockstep channel for every player (built only when ``ServerConfig.clock == "lockstep"``).

    Attributes:
        evicted: Names of connections evicted by the stall bound (they stay free-running).
        rejected: Lockstep messages ignored (malformed, or a ``tick_done`` for another tick).
    """

    def __init__(self, kernel: Kernel, *, batch: bool = False) -> None:
        if not isinstance(kernel.clock, LockstepClock):
            raise TypeError("Lockstep needs the kernel's LockstepClock (ServerConfig.clock='lockstep')")
        self.kernel = kernel
        self.clock: LockstepClock = kernel.clock
        self.clock.announce = self._announce
        self.clock.evict = self._evict
        self.evicted: set[Player] = set()
        self.rejected = 0
        #: per player: (the tick last announced to it, its ``sent_packets`` right after the announcement)
        self._announced: dict[Player, tuple[int, int]] = {}
        #: offered dones taken without an echo (statistics)
        self.quiet_dones = 0
        #: batching: each lockstep client's held packets, ``(packet name, decoded)`` in arrival order
        self.held: dict[Player, list[tuple[str, Any]]] = {}
        #: packets handled from the batches so far (statistics)
        self.batched = 0
        if batch:
            kernel.handlers.gate = self._hold
            self.clock.before_tick = self.run_held
        kernel.handlers.register("custom_payload", self._on_payload)
        kernel.events.after("joined", self._joined)
        kernel.events.after("left", self._left)

    @staticmethod
    def offer(p: Player) -> None:
        """Tell a joining client the server runs in lockstep (the join sequence calls this after ``login``)."""
        p.send("plugin_message", wire.custom_payload(CLOCK_CHANNEL, b"lockstep"))

    def _on_payload(self, p: Player, pkt: object) -> None:
        channel: str = pkt.channel  # type: ignore[attr-defined]
        data: bytes = pkt.data  # type: ignore[attr-defined]
        if channel == DONE_CHANNEL:
            n = parse_tick(data)
            if n is None or not self.clock.done(p, n):
                self.rejected += 1
        elif channel == WAIT_CHANNEL:
            n = parse_tick(data)
            if n is None or not self.clock.wait(p, n):
                self.rejected += 1
        elif channel == SYNC_CHANNEL:
            if parse_tick(data) is None:
                self.rejected += 1
            else:
                p.send("plugin_message", wire.custom_payload(SYNC_CHANNEL, data))
        elif channel == SYNC_DONE_CHANNEL:
            n = parse_tick(data)
            if n is None:
                self.rejected += 1
            elif self._announced.get(p) == (n, p.sent_packets) and self.clock.done(p, n):
                self.quiet_dones += 1  # nothing sent since the announcement: the offered done stands
            else:  # replies are on their way to the client (or the done is not owed): a plain flush
                p.send("plugin_message", wire.custom_payload(SYNC_CHANNEL, data))
        elif channel == REGISTER_CHANNEL:
            if TICK_CHANNEL.encode() in data.split(b"\0") and p not in self.evicted:
                self.clock.register(p)

    def _hold(self, p: Player, packet: str, decoded: Any) -> bool:
        if packet in UNBATCHED or not any(m is p for m in self.clock.members):
            return False
        self.held.setdefault(p, []).append((packet, decoded))
        return True

    def run_held(self) -> None:
        """Handle the held packets, client by client in name order (module docstring, "Batching"). A packet
        whose handler fails closes that client's connection, as on arrival (``data_received``)."""
        batches, self.held = self.held, {}
        for p in sorted(batches, key=lambda q: q.display_name):
            for packet, decoded in batches[p]:
                try:
                    self.kernel.handlers.dispatch(p, packet, decoded)
                except Exception as err:  # noqa: BLE001 - a bad client must never take the server down
                    reason = f"{type(err).__name__}: {err}"
                    log.info("closing %s: %s", p.display_name, reason)
                    p.kick(f"Bad packet ({reason})"[:250])
                    break
                self.batched += 1

    def _announce(self, who: object, tick: int) -> None:
        assert isinstance(who, Player)
        who.send("plugin_message", wire.custom_payload(TICK_CHANNEL, str(tick).encode()))
        self._announced[who] = (tick, who.sent_packets)

    def _evict(self, who: object, reason: str) -> None:
        assert isinstance(who, Player)
        self.evicted.add(who)
        self.kernel.emit("lockstep_evicted", player=who.display_name, tick=self.clock.count, reason=reason)
        who.send("plugin_message", wire.custom_payload(CLOCK_CHANNEL, b"free"))

    def _joined(self, b: Behaviour) -> None:
        if self.clock.holding:
            p = b.player
            self.clock.reactor.callLater(  # type: ignore[attr-defined]
                LOCKSTEP_GRACE,
                lambda: None if any(m is p for m in self.clock.members) else self.clock.end_hold(),
            )

    def _left(self, b: Behaviour) -> None:
        self.evicted.discard(b.player)
        self.held.pop(b.player, None)  # gone: what it sent after the last tick is dropped with it
        self._announced.pop(b.player, None)
        self.clock.unregister(b.player)
