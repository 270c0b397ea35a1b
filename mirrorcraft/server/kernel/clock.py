"""The tick clock: a fixed-rate loop on the Twisted reactor that runs the game's tick phases in a declared order.

Why the phases are declared, not registered: the order of a tick is part of the game's behaviour (vanilla
spawns in the chunk tick before the entities tick; an effect acts on the tick its duration runs out, so the
food tick comes before the admin tick), and seeded results depend on it. The composition root
(:mod:`mirrorcraft.server.game`) hands the clock the whole list once, so the order is written down in one
place.

Catch-up (kept exactly as the server has always done it): the loop is a ``LoopingCall.withCount``; when the
reactor falls behind, the call reports how many intervals passed. Game time catches up like vanilla's
"Can't keep up": the skipped ticks still count (at most 100 per catch-up: 5 s at 20 t/s), and up to 4 of
them re-run the *catch-up* phases (the item physics) before the one full tick, so client-timed digs still
match the server's count.

Lockstep (:class:`LockstepClock`, ``ServerConfig.clock = "lockstep"``, docs/lockstep.md): the same declared
tick, run as a per-tick barrier instead of a wall-clock loop — tick n+1 only after every lockstep client is
done with tick n, with no catch-up, paced or unpaced, and a wall-clock bound on every wait.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from twisted.internet.task import LoopingCall

from mirrorcraft.errors import ContractError

log = logging.getLogger(__name__)

Phase = tuple[str, Callable[[], object]]

MAX_SKIPPED = 100  # skipped ticks that still count as game time per catch-up
MAX_REPLAYED = 4  # skipped ticks that re-run the catch-up phases
MAX_SAMPLES = 100_000  # tick timings kept (halved when exceeded)


class TickClock:
    """Game ticks at ``rate`` per second.

    Attributes:
        count: Game ticks so far (skipped catch-up ticks included): the server's clock.
        tick_times: Seconds of work per tick (recent ones).
        tick_starts: ``perf_counter()`` at each tick start (loop jitter = reactor load).
    """

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.count = 0
        self.tick_times: list[float] = []
        self.tick_starts: list[float] = []
        self._phases: list[Phase] = []
        self._catch_up: list[Phase] = []
        self._loop: LoopingCall | None = None
        #: called at the start of every tick, before its phases (the lockstep feature's batch of held packets:
        #: vanilla runs its queued packets there too)
        self.before_tick: Callable[[], None] | None = None

    def set_phases(self, phases: Sequence[Phase], catch_up: Sequence[Phase] = ()) -> None:
        """Declare the tick: ``phases`` run in order every tick; ``catch_up`` phases re-run for skipped ticks.

        Raises:
            ContractError: a phase name appears twice.
        """
        names = [n for n, _ in phases]
        if len(set(names)) != len(names):
            raise ContractError(f"tick phases must be unique, got {names}")
        self._phases = list(phases)
        self._catch_up = list(catch_up)

    @property
    def phases(self) -> list[str]:
        """The declared phase names, in tick order."""
        return [n for n, _ in self._phases]

    def start(self) -> None:
        """Start ticking on the running reactor."""
        self._loop = LoopingCall.withCount(self.advance)
        self._loop.start(1.0 / self.rate, now=False)

    @property
    def running(self) -> bool:
        """True while the loop runs."""
        return self._loop is not None and self._loop.running

    def stop(self) -> None:
        """Stop ticking (no error if not running)."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()

    def advance(self, count: int) -> None:
        """The loop's callback: ``count`` intervals passed since the last call (1 when on time)."""
        missed = max(0, count - 1)
        self.count += min(missed, MAX_SKIPPED)  # skipped ticks still count as game time
        for _ in range(min(missed, MAX_REPLAYED)):  # and some of them still run the catch-up phases
            for _name, fn in self._catch_up:
                fn()
        self.tick()

    def tick(self) -> None:
        """One game tick: :attr:`before_tick`, then every phase in order. An exception ends this tick
        (logged), never the loop."""
        t0 = time.perf_counter()
        self.tick_starts.append(t0)
        if self.before_tick is not None:
            try:
                self.before_tick()
            except Exception:  # noqa: BLE001 - as a tick's own failure: logged, the game goes on
                log.exception("before tick %d failed", self.count + 1)
        try:
            self.count += 1
            for _name, fn in self._phases:
                fn()
        except Exception:  # noqa: BLE001 - one bad tick must not stop the loop
            log.exception("tick %d failed", self.count)
        self.tick_times.append(time.perf_counter() - t0)
        if len(self.tick_times) > MAX_SAMPLES:
            del self.tick_times[: MAX_SAMPLES // 2]
            del self.tick_starts[: MAX_SAMPLES // 2]


#: Lockstep participants are opaque keys (the lockstep feature uses :class:`~.players.Player` objects).
Participant = object


class LockstepClock(TickClock):
    """A tick source that runs tick n+1 only after every lockstep participant declared it is done with tick n.

    Why: in free-running mode the world runs on while a body computes or an agent thinks, so an accelerated
    run consumes more game time per action than a real-time one and two machines of different speed play
    different games (issue 23). Here the tick is a barrier: after each tick the clock *announces* it to
    every participant (``announce(participant, tick)``) and waits for each one's :meth:`done`. The clock
    knows nothing of packets or players; :mod:`mirrorcraft.server.features.lockstep` speaks the wire.

    Pacing: ``paced`` keeps ``1 / rate`` wall seconds as the *minimum* interval between tick starts (a slow
    body makes the game slower, never shorter of ticks); unpaced runs the next tick as soon as the barrier
    is met (on the next reactor turn, so the network is read in between).

    Every tick runs all its phases: there is no catch-up and no skipped tick in lockstep (game time is the
    tick count, whatever the wall clock did).

    Bounds (a hostile or buggy participant must not stall the server forever):

    * ``timeout`` wall seconds per barrier: the participants still owing their ``done`` are *evicted*
      (``evict(participant, reason)``: the feature tells the client it is free-running now), the eviction
      is recorded in :attr:`stalls`, and the game goes on. An evicted participant cannot join the lockstep
      again on the same connection (the feature enforces that), so one participant costs at most one
      timeout per connection. A participant that owes its ``done`` because its agent is *deciding* says so
      (:meth:`wait`, the ``mirrorcraft:tick_wait`` heartbeat); at the timeout it is kept, and the barrier
      re-armed, as long as its last heartbeat is younger than ``timeout`` and the barrier younger than
      ``think_timeout`` (the longest decision; a client that stops heartbeating is evicted as before).
    * With no participant the clock runs free at ``rate`` (paced, with today's catch-up), so a server whose
      clients are all non-lockstep (Mineflayer, a vanilla client) never waits for anyone.
    * ``hold_start``: before the first participant registers the clock holds at tick 0 (so the ticks run
      before the body joins do not depend on how long the setup took), for at most ``timeout`` seconds
      (then it runs free and records a stall with no names), or until :meth:`end_hold` (the lockstep
      feature calls it when a client has been in the game for ``LOCKSTEP_GRACE`` seconds without
      registering: a Mineflayer bot never waits for the hold).

    Args:
        rate: Ticks per second: the pace (paced) and the free-running rate with no participant.
        paced: Keep ``1 / rate`` as the minimum tick interval.
        timeout: Wall seconds a barrier waits before evicting the participants that owe their ``done``
            (and have not heartbeated within it).
        think_timeout: Wall seconds a barrier may be held by heartbeating (deciding) participants.
        hold_start: Hold at tick 0 until the first participant registers (bounded by ``timeout``).
        reactor: Twisted reactor (injectable for tests).

    Attributes:
        announce / evict: Set by the lockstep feature before :meth:`start`.
        members: The participants taking part.
        waiting: The participants that still owe their ``done`` for the current tick.
        stalls: One entry per timeout: ``{"tick", "waited_s", "evicted": [repr...]}``.
        barrier_ticks: Ticks run after a met barrier (the others ran free or after a timeout).
    """

    def __init__(
        self,
        rate: float,
        *,
        paced: bool = True,
        timeout: float = 300.0,
        think_timeout: float = 3600.0,
        hold_start: bool = True,
        reactor: object | None = None,
    ) -> None:
        super().__init__(rate)
        if reactor is None:
            from twisted.internet import reactor as default_reactor

            reactor = default_reactor
        self.reactor: object = reactor
        self.paced = paced
        self.timeout = timeout
        self.think_timeout = think_timeout
        self.hold_start = hold_start
        self._waited: dict[int, float] = {}  # id() of a member → its last deciding heartbeat (wall)
        self.announce: Callable[[Participant, int], None] = lambda _p, _n: None
        self.evict: Callable[[Participant, str], None] = lambda _p, _r: None
        self.members: list[Participant] = []  # registration order: announcements go out in this order
        self.waiting: set[int] = set()  # id() of members owing their done
        self.stalls: list[dict[str, object]] = []
        self.barrier_ticks = 0
        self._started = False
        self._barrier_since = 0.0
        self._timer: object | None = None  # the barrier's timeout call
        self._next: object | None = None  # the scheduled next tick
        self._last_start = 0.0

    # ---- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start: hold at tick 0 for the first participant (``hold_start``), else run free until one registers."""
        self._started = True
        if self.hold_start and not self.members:
            self._barrier_since = self._now()
            self._timer = self.reactor.callLater(self.timeout, self._start_timed_out)  # type: ignore[attr-defined]
            return
        self._after_tick()

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop` (holding at a barrier counts as running)."""
        return self._started

    def stop(self) -> None:
        """Stop ticking: the free loop, the barrier's timeout and the scheduled tick (no error if stopped)."""
        self._started = False
        super().stop()
        self._cancel(self._timer)
        self._cancel(self._next)
        self._timer = self._next = None

    # ---- participants ------------------------------------------------------------------------------------

    def register(self, who: Participant) -> None:
        """``who`` takes part from now: it is told the current tick and owes its ``done`` before the next."""
        if any(m is who for m in self.members):
            return
        self.members.append(who)
        if not self._started:
            return
        if super().running:
            super().stop()  # the free loop gives way to the barrier
            self._open_barrier([who])
        elif self._next is None:  # holding at the start, or a barrier is open: the newcomer owes this tick
            if not self.waiting:
                self._cancel(self._timer)  # the start hold's timeout
                self._timer = None
            self._open_barrier([who])  # an open barrier keeps its timeout (no extension by newcomers)
        # else: a tick is scheduled; the newcomer is announced with everyone after it

    def unregister(self, who: Participant) -> None:
        """``who`` left (disconnected or evicted): it is no longer waited for."""
        if not any(m is who for m in self.members):
            return
        self.members = [m for m in self.members if m is not who]
        self.waiting.discard(id(who))
        if self._started and not self.waiting and self._next is None and self._timer is not None:
            self._barrier_met()

    def done(self, who: Participant, tick: int) -> bool:
        """``who`` is done with ``tick``; True when accepted (a member owing exactly this tick)."""
        if tick != self.count or id(who) not in self.waiting:
            return False
        self.waiting.discard(id(who))
        if not self.waiting:
            self._barrier_met()
        return True

    def wait(self, who: Participant, tick: int) -> bool:
        """``who`` owes ``tick``'s ``done`` and is deciding (a heartbeat); True when accepted."""
        if tick != self.count or id(who) not in self.waiting:
            return False
        self._waited[id(who)] = self._now()
        return True

    # ---- the barrier -------------------------------------------------------------------------------------

    def _open_barrier(self, to: list[Participant]) -> None:
        self._barrier_since = self._now()
        self._waited.clear()
        for who in to:
            self.waiting.add(id(who))
        if self._timer is None:
            self._timer = self.reactor.callLater(self.timeout, self._timed_out)  # type: ignore[attr-defined]
        for who in to:
            self.announce(who, self.count)

    def _barrier_met(self) -> None:
        self._cancel(self._timer)
        self._timer = None
        self.barrier_ticks += 1
        self._schedule()

    def _schedule(self) -> None:
        delay = 0.0
        if self.paced:
            delay = max(0.0, self._last_start + 1.0 / self.rate - self._now())
        self._next = self.reactor.callLater(delay, self._run_next)  # type: ignore[attr-defined]

    def _run_next(self) -> None:
        self._next = None
        if not self._started:
            return
        self._last_start = self._now()
        self.tick()
        self._after_tick()

    def _after_tick(self) -> None:
        if not self._started:
            return
        if self.members:
            self._open_barrier(list(self.members))
        elif not super().running:
            super().start()  # nobody to wait for: free-running at the rate

    def _timed_out(self) -> None:
        self._timer = None
        now = self._now()
        owing = [m for m in self.members if id(m) in self.waiting]
        deciding = [
            m
            for m in owing
            if now - self._waited.get(id(m), float("-inf")) < self.timeout
            and now - self._barrier_since < self.think_timeout
        ]
        late = [m for m in owing if not any(m is d for d in deciding)]
        if deciding and not late:  # everyone owing is still deciding: keep waiting for them
            self._timer = self.reactor.callLater(self.timeout, self._timed_out)  # type: ignore[attr-defined]
            return
        self.stalls.append(
            {
                "tick": self.count,
                "waited_s": round(self._now() - self._barrier_since, 3),
                "evicted": [repr(m) for m in late],
            }
        )
        log.warning("lockstep: tick %d waited %.1fs; evicting %s", self.count, self.timeout, late)
        for m in late:
            self.members = [x for x in self.members if x is not m]
            self.waiting.discard(id(m))
            self.evict(m, f"no tick_done for tick {self.count} within {self.timeout:g}s")
        if deciding:  # the deciding ones still owe this tick: the barrier stays open for them
            self._timer = self.reactor.callLater(self.timeout, self._timed_out)  # type: ignore[attr-defined]
            return
        self.waiting.clear()
        self._schedule()

    @property
    def holding(self) -> bool:
        """Holding at the start for the first participant (``hold_start``)."""
        return self._started and not self.members and self._timer is not None and not super().running

    def end_hold(self) -> None:
        """Stop holding at the start and run free until a participant registers (a non-lockstep client
        joined and did not register: it must not wait for the hold's timeout)."""
        if self.holding:
            self._cancel(self._timer)
            self._timer = None
            self._after_tick()

    def _start_timed_out(self) -> None:
        self._timer = None
        if self.members:
            return
        self.stalls.append({"tick": self.count, "waited_s": round(self.timeout, 3), "evicted": []})
        log.warning("lockstep: no lockstep client registered within %.1fs; running free", self.timeout)
        self._after_tick()

    # ---- helpers -----------------------------------------------------------------------------------------

    def _now(self) -> float:
        return self.reactor.seconds()  # type: ignore[attr-defined]

    @staticmethod
    def _cancel(call: object | None) -> None:
        if call is not None and call.active():  # type: ignore[attr-defined]
            call.cancel()  # type: ignore[attr-defined]
