"""The body's game clock: how many wall seconds a game tick lasts on the server we are connected to.

Why: everything the body does "per tick" — the physics step and position packet, the wait before
"finished digging", effect durations — is defined in game ticks, and a vanilla client assumes 20 of them
per second. MirrorCraft's embedded server can run faster (``ServerConfig.tick_rate``, e.g. 100 t/s) and
announces its rate once at join in a ``custom_payload`` (plugin message, wiki.vg "Plugin Message
(clientbound)") on channel ``mirrorcraft:tick_rate`` whose data is the rate as ASCII decimal text such as
``b"100.0"`` (docs/server.md "Tick rate"). A body that kept 20 Hz against such a server would walk
and dig at a fifth of the game's speed while the skills' limits run out in game ticks.

A vanilla server (and flying-squid) never sends the channel: the clock then stays at vanilla's 20 t/s, so
the body remains an ordinary vanilla-rate client. The rate falls back to 20 on every (re)connect until the
new server announces otherwise. Listeners (the movement loop) are told when the rate changes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Any

from twisted.internet import defer, task

from mirrorcraft.errors import ProtocolError
from mirrorcraft.mcproto_body.connection import Connection

log = logging.getLogger(__name__)

#: Vanilla's game ticks per second (a client that hears no announcement assumes this).
VANILLA_TICK_RATE = 20.0
#: The plugin channel on which the embedded server announces its rate (docs/server.md "Tick rate").
TICK_RATE_CHANNEL = "mirrorcraft:tick_rate"
#: Highest rate accepted (the embedded server's ``ServerConfig.tick_rate`` is capped at 1000 as well).
MAX_TICK_RATE = 1000.0

#: Game ticks the world clock runs on past the server's last ``update_time`` packet (vanilla and the embedded
#: server send one every 20 ticks): two intervals. A server that stops ticking stops the clock there.
WORLD_AGE_SLACK = 40.0

RateListener = Callable[[float], None]


def ticks_to_seconds(ticks: float, rate: float = VANILLA_TICK_RATE) -> float:
    """Wall seconds that ``ticks`` game ticks last at ``rate`` ticks per second (``inf`` stays ``inf``).

    Raises:
        ValueError: ``rate`` is not a positive finite number, or ``ticks`` is negative/NaN.
    """
    if not (math.isfinite(rate) and rate > 0):
        raise ValueError(f"tick rate must be a positive finite number, got {rate!r}")
    if math.isnan(ticks) or ticks < 0:
        raise ValueError(f"ticks must be >= 0, got {ticks!r}")
    return ticks / rate


def seconds_to_ticks(seconds: float, rate: float = VANILLA_TICK_RATE) -> float:
    """Game ticks elapsed in ``seconds`` of wall time at ``rate`` ticks per second (fractional).

    Raises:
        ValueError: ``rate`` is not a positive finite number.
    """
    if not (math.isfinite(rate) and rate > 0):
        raise ValueError(f"tick rate must be a positive finite number, got {rate!r}")
    return seconds * rate


def parse_tick_rate(data: bytes) -> float:
    """Decode the data of a ``mirrorcraft:tick_rate`` plugin message (ASCII decimal, e.g. ``b"100.0"``).

    Raises:
        ProtocolError: not ASCII decimal text, or not a rate in (0, 1000].
    """
    try:
        text = data.decode("ascii").strip()
        rate = float(text)
    except (UnicodeDecodeError, ValueError) as err:
        raise ProtocolError(
            f"custom_payload {TICK_RATE_CHANNEL}: data {data[:32]!r} is not an ASCII decimal tick rate"
        ) from err
    if not (math.isfinite(rate) and 0 < rate <= MAX_TICK_RATE):
        raise ProtocolError(
            f"custom_payload {TICK_RATE_CHANNEL}: tick rate {text!r} is outside (0, {MAX_TICK_RATE:g}]"
        )
    return rate


class GameClock:
    """The connected server's tick rate and tick ↔ wall-time conversions.

    Args:
        conn: The connection (the clock listens to ``custom_payload`` and resets on reconnect).

    Attributes:
        rate: Game ticks per wall second (20 until the server announces another rate).
        announced: The current server announced its rate (False on a vanilla server).

    The clock also follows the server's **world age** (``update_time``, sent by vanilla every 20 ticks):
    :meth:`world_ticks` is the game time the server has actually run, which is what "a game-time limit"
    means. Wall time × rate is not: a server that falls behind (vanilla's "Can't keep up"), or an in-process
    server held up while the body plans a path, runs fewer ticks than the wall clock says, and a limit
    counted on the wall clock would charge the body for game time that never passed — 20 times more at
    400 t/s than in real time.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.rate = VANILLA_TICK_RATE
        self.announced = False
        self._listeners: list[RateListener] = []
        self._age: int | None = None  # world age of the last update_time packet
        self._age_at = 0.0  # reactor second it arrived
        self._world_ticks = 0.0  # last value returned (the clock never runs backwards)
        #: In lockstep, the last server tick the body processed (:mod:`.lockstep`): the exact world age.
        self.lockstep_tick: int | None = None
        conn.on("custom_payload", self._on_payload)
        conn.on("update_time", self._on_time)
        conn.on_reset(self._reset)

    def world_ticks(self) -> float | None:
        """The server's game time in ticks: its last world age, run on at ``rate`` for at most
        :data:`WORLD_AGE_SLACK` ticks until the next ``update_time``; never decreasing. ``None`` until the
        server has sent a world age (then only wall time is known)."""
        if self.lockstep_tick is not None:  # exact: the server runs no tick we have not processed
            self._world_ticks = max(self._world_ticks, float(self.lockstep_tick))
            return self._world_ticks
        if self._age is None:
            return None
        ahead = min((self.conn.clock.seconds() - self._age_at) * self.rate, WORLD_AGE_SLACK)
        self._world_ticks = max(self._world_ticks, self._age + ahead)
        return self._world_ticks

    def _on_time(self, pkt: Any) -> None:
        self._age = int(pkt.age)
        self._age_at = self.conn.clock.seconds()

    @property
    def tick_seconds(self) -> float:
        """Wall seconds per game tick (0.05 at vanilla's 20 t/s)."""
        return 1.0 / self.rate

    def ticks_to_seconds(self, ticks: float) -> float:
        """Wall seconds that ``ticks`` game ticks last at the current rate."""
        return ticks_to_seconds(ticks, self.rate)

    def seconds_to_ticks(self, seconds: float) -> float:
        """Game ticks (fractional) in ``seconds`` of wall time at the current rate."""
        return seconds_to_ticks(seconds, self.rate)

    def sleep_ticks(self, ticks: float) -> defer.Deferred:
        """A Deferred that fires after ``ticks`` game ticks of wall time at the current rate."""
        return task.deferLater(self.conn.clock, self.ticks_to_seconds(ticks), lambda: None)

    def on_change(self, listener: RateListener) -> None:
        """Call ``listener(rate)`` whenever the rate changes (announcement or reset to 20)."""
        self._listeners.append(listener)

    def set_rate(self, rate: float, announced: bool = True) -> None:
        """Adopt ``rate`` (normally from the server's announcement) and tell the listeners if it changed.

        Raises:
            ProtocolError: ``rate`` is outside (0, 1000].
        """
        if not (math.isfinite(rate) and 0 < rate <= MAX_TICK_RATE):
            raise ProtocolError(f"tick rate {rate!r} is outside (0, {MAX_TICK_RATE:g}]")
        self.announced = announced
        if rate == self.rate:
            return
        self.rate = rate
        log.info("server tick rate: %g t/s", rate)
        for listener in list(self._listeners):
            listener(rate)

    def _on_payload(self, pkt: Any) -> None:
        if pkt.channel != TICK_RATE_CHANNEL:
            return
        # A bad payload raises ProtocolError; Connection records it in protocol_errors and keeps the rate.
        self.set_rate(parse_tick_rate(pkt.data))

    def _reset(self) -> None:
        # A new connection may reach a different server: vanilla's rate until it announces one, and its
        # own world age.
        self.set_rate(VANILLA_TICK_RATE, announced=False)
        self._age = None
        self._world_ticks = 0.0
        self.lockstep_tick = None
