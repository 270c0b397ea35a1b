"""Lockstep on the body's side: physics and every timer of the body step on the server's ticks.

Why: against a free-running server the body's physics runs on a wall-clock loop and its waits (a dig's
duration, a pickup, a poll) are wall seconds at the announced rate, so how much game time an action costs
depends on the machine's speed (issue 23). A lockstep server (``ServerConfig.clock = "lockstep"``,
:mod:`mirrorcraft.server.features.lockstep`; wire format in docs/lockstep.md) runs tick n+1 only after
every lockstep client said it is done with tick n. This module is that client:

* The server offers lockstep on ``mirrorcraft:clock`` (``b"lockstep"``) right after ``login``; the body
  (``BodyConfig.lockstep``, default on) registers with ``minecraft:register`` ``b"mirrorcraft:tick"`` and
  from then on its movement loop is not a wall-clock ``LoopingCall``: one physics step (and one position
  packet) per ``mirrorcraft:tick`` announcement.
* :class:`GameTime` is the body's clock (``Body.clock``, ``Connection.clock``): an ``IReactorTime`` whose
  ``seconds()`` is game time (ticks / announced rate) and whose ``callLater`` fires on ticks. Every wait
  written against the body's clock — ``task.deferLater(body.clock, …)``, ``Deferred.addTimeout(…,
  body.clock)``, a ``LoopingCall`` with ``clock = body.clock``, :meth:`Movement.wait_ticks` — becomes a
  wait of a fixed number of ticks. Waits on the global reactor, ``time.monotonic`` or threads stay wall
  time (docs/lockstep.md lists the ones left in the skills).
* A tick is processed only while someone *acts* (:meth:`Lockstep.acting`: the runner holds it around a
  skill call and the barrier after it). Processing tick n: fire the game-time timers due (the skills react
  to the state after tick n and set the controls), one physics step, the timers again; then a flush round
  (``mirrorcraft:tick_sync`` echoed by the server: all replies to what we sent have arrived and their
  handlers ran) repeated while the round itself made us send packets (at most :data:`MAX_SYNC_ROUNDS`);
  then ``mirrorcraft:tick_done`` n. The first round of a tick is sent as ``mirrorcraft:tick_sync_done`` n
  (a flush request that also counts as the done when the server has sent us nothing since announcing n:
  nothing to react to, so the echo would only have been followed by the done). The server then runs the
  next tick without replying, which halves the round trips of a quiet tick; otherwise it echoes and the
  rounds go on as above, so what the body reacts to before its done is the same either way. While nobody acts (the agent decides) the body acknowledges nothing,
  so the server runs no tick; every :data:`HEARTBEAT_SECONDS` of wall time it says it is deciding
  (``mirrorcraft:tick_wait`` n), so the server's stall bound keeps waiting for it (up to its think timeout)
  while it would evict a client that went silent.
* ``mirrorcraft:clock`` ``b"free"`` (the server's stall bound evicted us) or a reconnect ends lockstep: the
  pending game-time timers move to the reactor and the wall-clock loop starts again.
"""

from __future__ import annotations

import contextlib
import heapq
import logging
from collections.abc import Callable, Iterator
from typing import Any

from mirrorcraft.mcproto_body.connection import Connection

log = logging.getLogger(__name__)

CLOCK_CHANNEL = "mirrorcraft:clock"
TICK_CHANNEL = "mirrorcraft:tick"
SYNC_CHANNEL = "mirrorcraft:tick_sync"
DONE_CHANNEL = "mirrorcraft:tick_done"
#: A tick's first flush round that also offers the done (the server takes it when it sent nothing since
#: announcing the tick; else it echoes ``SYNC_CHANNEL`` and the rounds go on).
SYNC_DONE_CHANNEL = "mirrorcraft:tick_sync_done"
WAIT_CHANNEL = "mirrorcraft:tick_wait"
#: Wall seconds between two "deciding" heartbeats while a tick is owed and nobody acts (far below the
#: server's 300 s stall bound; ``BodyConfig.lockstep_heartbeat``).
HEARTBEAT_SECONDS = 5.0
REGISTER_CHANNEL = "minecraft:register"
#: Flush rounds per tick at most (a round that keeps producing packets is cut here; the tick is then done).
MAX_SYNC_ROUNDS = 8
#: Game seconds of tolerance when deciding a timer is due (float sums of 1/rate; far below one tick).
DUE_EPSILON = 1e-6
#: Timers fired per tick at most (a zero-delay loop in a skill must not hang the reactor).
MAX_FIRED_PER_TICK = 100_000


class _GameCall:
    """An ``IDelayedCall`` on game time (``twisted.internet.interfaces.IDelayedCall``)."""

    def __init__(self, clock: GameTime, when: float, f: Callable[..., Any], args: Any, kw: Any) -> None:
        self.clock, self.time, self.f, self.args, self.kw = clock, when, f, args, kw
        self.seq = 0
        self.zero = False  # scheduled with no delay: may run in the pass that scheduled it
        self.cancelled = False
        self.called = False
        self.real: Any = None  # the reactor call after lockstep ended

    def getTime(self) -> float:  # noqa: N802 - twisted API
        return self.time

    def active(self) -> bool:
        if self.real is not None:
            return bool(self.real.active())
        return not (self.cancelled or self.called)

    def cancel(self) -> None:
        from twisted.internet.error import AlreadyCalled, AlreadyCancelled

        if self.real is not None:
            self.real.cancel()
            return
        if self.cancelled:
            raise AlreadyCancelled
        if self.called:
            raise AlreadyCalled
        self.cancelled = True

    def reset(self, seconds_from_now: float) -> None:
        if self.real is not None:
            self.real.reset(seconds_from_now)
            return
        self.time = self.clock.seconds() + max(0.0, seconds_from_now)
        self.zero = False
        self.clock._push(self)

    def delay(self, seconds_later: float) -> None:
        if self.real is not None:
            self.real.delay(seconds_later)
            return
        self.time += seconds_later
        self.zero = False
        self.clock._push(self)

    def _fire(self) -> None:
        self.called = True
        self.f(*self.args, **self.kw)


class GameTime:
    """The body's clock: the reactor's while free-running, game ticks while in lockstep.

    Args:
        reactor: The Twisted reactor (everything this class does not define is delegated to it:
            ``connectTCP``, ``callWhenRunning``...).

    Attributes:
        reactor: The wall clock underneath.
        lockstep: True while game time steps on the server's ticks.
        rate: Ticks per game second (the announced rate; set by :class:`Lockstep`).
    """

    def __init__(self, reactor: Any) -> None:
        self.reactor = reactor
        self.lockstep = False
        self.rate = 20.0
        self._offset = 0.0  # free: seconds() = reactor.seconds() + offset (continuity after lockstep)
        self._base = 0.0  # lockstep: seconds() = base + (tick - first tick) / rate
        self._first: int | None = None
        self._tick = 0
        self._heap: list[tuple[float, int, _GameCall]] = []
        self._seq = 0

    def __getattr__(self, name: str) -> Any:
        if name == "reactor":  # not yet set (copy, unpickling): never recurse
            raise AttributeError(name)
        return getattr(self.reactor, name)

    def seconds(self) -> float:
        """Game seconds in lockstep (the ticks run since lockstep began, over the rate), else reactor time."""
        if self.lockstep:
            return self._base + (0 if self._first is None else self._tick - self._first) / self.rate
        return self.reactor.seconds() + self._offset

    def callLater(self, delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> Any:  # noqa: N802
        """Call ``f`` after ``delay`` game seconds (a reactor call while free-running)."""
        if not self.lockstep:
            return self.reactor.callLater(delay, f, *args, **kw)
        call = _GameCall(self, self.seconds() + max(0.0, delay), f, args, kw)
        call.zero = delay <= 0
        self._push(call)
        return call

    def getDelayedCalls(self) -> list[Any]:  # noqa: N802 - twisted API
        return [c for _t, s, c in self._heap if s == c.seq and c.active()]

    def _push(self, call: _GameCall) -> None:
        self._seq += 1
        call.seq = self._seq
        heapq.heappush(self._heap, (call.time, self._seq, call))

    # ---- driven by Lockstep --------------------------------------------------------------------------

    def enter(self) -> None:
        """Game time from now on (continues from the current reading)."""
        if not self.lockstep:
            self._base = self.seconds()
            self._first = None
            self.lockstep = True

    def advance(self, tick: int) -> None:
        """The server has run ``tick``."""
        if self._first is None:
            self._first = tick
        self._tick = tick

    def fire_due(self) -> int:
        """Run the timers due at the current game time, in time order; returns how many ran.

        A timer scheduled during this pass with a positive delay waits for the next tick even when it falls
        within :data:`DUE_EPSILON` of now (game time does not move inside a pass: a ``LoopingCall`` whose
        float arithmetic lands a hair before its next interval would otherwise re-fire without end);
        ``callLater(0)`` runs in the same pass, as on the reactor.
        """
        now = self.seconds() + DUE_EPSILON
        limit = self._seq
        later: list[tuple[float, int, _GameCall]] = []
        fired = 0
        while self._heap and self._heap[0][0] <= now and fired < MAX_FIRED_PER_TICK:
            entry = heapq.heappop(self._heap)
            _t, seq, call = entry
            if seq != call.seq or not call.active():
                continue
            if seq > limit and not call.zero:
                later.append(entry)
                continue
            fired += 1
            try:
                call._fire()
            except Exception:  # noqa: BLE001 - as the reactor does: one failing timer does not stop the rest
                log.exception("game-time call %r failed", call.f)
        for entry in later:
            heapq.heappush(self._heap, entry)
        return fired

    def leave(self) -> None:
        """Back to the reactor: pending timers are rescheduled there for the game time they had left."""
        if not self.lockstep:
            return
        now = self.seconds()
        self.lockstep = False
        self._offset = now - self.reactor.seconds()
        heap, self._heap = self._heap, []
        for _t, seq, call in sorted(heap):
            if seq == call.seq and call.active():
                call.real = self.reactor.callLater(max(0.0, call.time - now), call._fire)


class Lockstep:
    """The body's half of the tick barrier.

    Args:
        conn: The connection (its ``clock`` must be ``game_time``).
        game_time: The body's clock.
        step: One physics step and position packet (``Movement.tick``).
        set_driven: ``set_driven(True)`` stops the wall-clock movement loop; ``False`` restarts it.
        on_tick: Told each processed tick (the game clock's exact world age).
        enabled: Take part when the server offers lockstep (``BodyConfig.lockstep``).
        heartbeat: Wall seconds between "deciding" heartbeats (``None``: never send them; tests of the
            stall bound use it to play a client that went silent).

    Attributes:
        active: Registered with a lockstep server (until evicted or disconnected).
        tick: The last tick processed; ``announced`` the last announced.
        acked: The last tick declared done.
        sync_rounds: Flush rounds sent so far (statistics).
        evicted: The server evicted us (stall bound) on this connection.
    """

    def __init__(
        self,
        conn: Connection,
        game_time: GameTime,
        step: Callable[[], None],
        set_driven: Callable[[bool], None],
        on_tick: Callable[[int | None], None],
        enabled: bool = True,
        heartbeat: float | None = HEARTBEAT_SECONDS,
    ) -> None:
        self.conn = conn
        self.game_time = game_time
        self.step = step
        self.set_driven = set_driven
        self.on_tick = on_tick
        self.enabled = enabled
        self.heartbeat = heartbeat
        self.heartbeats = 0
        self._beat: Any = None
        self.active = False
        self.evicted = False
        self.tick: int | None = None
        self.announced: int | None = None
        self.acked: int | None = None
        self.sync_rounds = 0
        self._acting = 0
        self._pending: int | None = None  # announced, not processed yet
        self._syncing: int | None = None  # the tick whose flush round is in flight
        self._offered: int | None = None  # the tick whose done was offered with its first round (sync_done)
        self._round = 0
        self._mark = 0
        conn.on("custom_payload", self._on_payload)
        conn.on_reset(self._reset)
        conn.on_disconnect(self._reset)

    # ---- public ------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def acting(self) -> Iterator[None]:
        """Hold this around work that needs game time (a skill call, a barrier): ticks are processed and
        acknowledged only while at least one holder is inside. No-op effect when not in lockstep."""
        self._acting += 1
        if self._acting == 1 and self._pending is not None and self._syncing is None:
            self.game_time.reactor.callLater(0, self._maybe_process)
        try:
            yield
        finally:
            self._acting -= 1

    @property
    def is_acting(self) -> bool:
        """Someone holds :meth:`acting`."""
        return self._acting > 0

    @property
    def wall_clock(self) -> Any:
        """The clock a wait for the *network* should use: the reactor while in lockstep and nobody acts
        (game time is frozen then), else the body's clock."""
        return self.game_time.reactor if self.active and not self.is_acting else self.game_time

    # ---- wire --------------------------------------------------------------------------------------------

    def _send(self, channel: str, data: bytes) -> None:
        from mirrorcraft.protocol.serverbound import CustomPayloadServerbound

        self.conn.send(CustomPayloadServerbound(channel=channel, data=data))

    def _on_payload(self, pkt: Any) -> None:
        channel = pkt.channel
        if channel == CLOCK_CHANNEL:
            if pkt.data == b"lockstep" and self.enabled and not self.active and not self.evicted:
                self.active = True
                transport = getattr(getattr(self.conn, "_protocol", None), "transport", None)
                if transport is not None and hasattr(transport, "setTcpNoDelay"):
                    transport.setTcpNoDelay(True)  # a tick is a round trip of small packets: no Nagle delay
                self.game_time.enter()
                self.set_driven(True)
                self._send(REGISTER_CHANNEL, TICK_CHANNEL.encode())
                self._start_heartbeat()
            elif pkt.data == b"free" and self.active:
                log.warning("the server evicted us from lockstep at tick %s", self.announced)
                self.evicted = True
                self._leave()
        elif channel == TICK_CHANNEL and self.active:
            n = _number(pkt.data)
            if n is None:
                return
            if self._offered is not None and self._syncing == self._offered and n > self._offered:
                # the server took the done offered with the first round (it had nothing to tell us)
                self.acked = self._offered
                self._syncing = self._offered = None
            self.announced = n
            self._pending = n
            if self._acting > 0 and self._syncing is None:
                self._process()
        elif channel == SYNC_CHANNEL and self.active:
            n = _number(pkt.data)
            if n is not None and n == self._syncing:
                self._offered = None  # the server echoed: the offered done was not taken
                self._synced(n)

    def _start_heartbeat(self) -> None:
        if self.heartbeat is None or self._beat is not None:
            return
        from twisted.internet import task

        self._beat = task.LoopingCall(self._deciding)
        self._beat.clock = self.game_time.reactor  # wall time: game time stands still while we decide
        self._beat.start(self.heartbeat, now=False)

    def _deciding(self) -> None:
        if self.active and self._acting == 0 and self._pending is not None:
            self.heartbeats += 1
            self._send(WAIT_CHANNEL, str(self._pending).encode())

    def _maybe_process(self) -> None:
        if self.active and self._acting > 0 and self._pending is not None and self._syncing is None:
            self._process()

    def _process(self) -> None:
        n = self._pending
        assert n is not None
        self._pending = None
        self.tick = n
        self.game_time.advance(n)
        self.on_tick(n)
        self.game_time.fire_due()  # the skills see the state after tick n and set the controls
        self.step()  # one physics step with them, one position packet
        self.game_time.fire_due()
        self._round = 0
        self._flush(n, offer_done=True)

    def _flush(self, n: int, offer_done: bool = False) -> None:
        self._syncing = n
        self.sync_rounds += 1
        self._offered = n if offer_done else None
        self._send(SYNC_DONE_CHANNEL if offer_done else SYNC_CHANNEL, str(n).encode())
        self._mark = self.conn.sent_count

    def _synced(self, n: int) -> None:
        self.game_time.fire_due()
        if self.conn.sent_count != self._mark and self._round + 1 < MAX_SYNC_ROUNDS:
            self._round += 1
            self._flush(n)  # the replies made us send more: flush those too before declaring the tick
            return
        self._syncing = None
        self.acked = n
        self._send(DONE_CHANNEL, str(n).encode())
        # a tick announced while the round was in flight cannot exist (the server waits for our done)

    def _leave(self) -> None:
        if self._beat is not None and self._beat.running:
            self._beat.stop()
        self._beat = None
        self.active = False
        self._pending = None
        self._syncing = None
        self._offered = None
        self.on_tick(None)
        self.game_time.leave()
        self.set_driven(False)

    def _reset(self) -> None:
        if self.active:
            self._leave()
        self.evicted = False
        self.tick = self.announced = self.acked = None


def _number(data: bytes) -> int | None:
    if not data or len(data) > 20 or not data.isdigit():
        return None
    return int(data)
