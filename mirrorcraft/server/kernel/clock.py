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
        """One game tick: every phase in order. An exception ends this tick (logged), never the loop."""
        t0 = time.perf_counter()
        self.tick_starts.append(t0)
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
