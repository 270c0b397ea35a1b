"""The body's legs: a per-game-tick loop that runs :mod:`physics` and reports the position like a vanilla
client.

Why one packet per game tick: the server's movement check compares each position packet with the previous
one; a vanilla client sends one per tick (50 ms at vanilla's 20 t/s). We send ``position_look`` every tick
while in the world (wiki.vg "Set Player Position and Rotation"), so the server sees small, physically
plausible steps. The tick period follows the server's announced rate (:class:`~.tickrate.GameClock`,
channel ``mirrorcraft:tick_rate``): 20 Hz on a vanilla server, e.g. 100 Hz on an accelerated embedded
server. The per-tick physics (and so the per-packet step the server checks) is the same at every rate;
only the wall time between ticks shrinks. When the rate changes the running loop restarts at the new
period. On a lockstep server (:mod:`.lockstep`) there is no wall-clock loop: the server's tick
announcements call :meth:`Movement.tick` (one step per server tick; ``driven``).

The server moves us with ``position`` (Synchronize Player Position, flags bit 0x01/0x02/0x04 = relative
x/y/z, 0x08 yaw, 0x10 pitch): the connection confirms the teleport, we adopt the position, zero the
velocity and echo the position as the vanilla client does. Every such packet after the first is counted
in :attr:`Movement.corrections` — a server that rejects our movement teleports us back, so tests assert
this stays 0 while walking. Physics is frozen while our chunk is not loaded (vanilla does the same).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from twisted.internet import defer, task

from mirrorcraft.gamedata import state_tables
from mirrorcraft.mcproto_body.connection import Connection, State
from mirrorcraft.mcproto_body.health import Health
from mirrorcraft.mcproto_body.physics import EYE_HEIGHT, Controls, PlayerState, look_at, step, yaw_to
from mirrorcraft.mcproto_body.tickrate import GameClock
from mirrorcraft.mcproto_body.world import World
from mirrorcraft.protocol.serverbound import PlayerPositionLook

TickListener = Callable[[PlayerState], None]


#: Feet this far into a colliding block's cell stand on its top (blocks of 13/16 and more).
LOW_TOP = 0.8


class Movement:
    """Position, controls and the tick loop.

    Args:
        conn: The connection.
        world: The world view (collisions).
        health: For Speed / Jump Boost levels and death (no movement while dead).
        game_clock: The server's tick rate (default: a new :class:`GameClock` on ``conn``, 20 t/s until
            the server announces another rate).

    Attributes:
        state: Physical state, ``None`` until the server first positions us.
        controls: Keys held for the next ticks.
        corrections: Server position packets received after the first (teleports back, commands...).
        ticks: Ticks run.
        driven: In lockstep (:mod:`.lockstep`): the server's tick announcements call :meth:`tick`, and the
            wall-clock loop is not run.
    """

    def __init__(
        self, conn: Connection, world: World, health: Health, game_clock: GameClock | None = None
    ) -> None:
        self.conn = conn
        self.world = world
        self.health = health
        self.game_clock = game_clock if game_clock is not None else GameClock(conn)
        self.game_clock.on_change(self._rate_changed)
        self.state: PlayerState | None = None
        self.controls = Controls()
        self.corrections = 0
        self.ticks = 0
        self._positioned = 0
        self._listeners: list[TickListener] = []
        self._spawn_waiters: list[defer.Deferred] = []
        self._loop: task.LoopingCall | None = None
        self.driven = False
        conn.on_reset(self._reset)
        conn.on("position", self._on_position)
        conn.on("respawn", lambda _p: self._respawned())
        conn.on_disconnect(self.stop_loop)

    # ------------------------------------------------------------------------------------------ queries
    @property
    def tick_seconds(self) -> float:
        """Wall seconds per game tick at the server's rate (0.05 on a vanilla server)."""
        return self.game_clock.tick_seconds

    @property
    def position(self) -> tuple[float, float, float] | None:
        """Feet position."""
        return None if self.state is None else self.state.pos

    @property
    def eye(self) -> tuple[float, float, float]:
        """Eye position (feet + 1.62).

        Raises:
            RuntimeError: not spawned yet.
        """
        if self.state is None:
            raise RuntimeError("not spawned: no position yet")
        x, y, z = self.state.pos
        return (x, y + EYE_HEIGHT, z)

    def block_position(self) -> tuple[int, int, int]:
        """The block the feet are in."""
        x, y, z = self.eye
        feet_y = y - EYE_HEIGHT
        cell = (math.floor(x), math.floor(feet_y + 1e-6), math.floor(z))
        # Standing on a block lower than a full one (farmland and dirt paths 15/16, soul sand, mud, chests
        # 14/16): the feet are inside that block's cell, on its top. The cell the player occupies is the one
        # above (path plans started inside the farmland and found every way shut).
        if feet_y - cell[1] >= LOW_TOP:
            state = self.world.state_at(*cell)
            if state is not None and not state_tables().no_collision[state]:
                return (cell[0], cell[1] + 1, cell[2])
        return cell

    def on_tick(self, listener: TickListener) -> None:
        """Call ``listener(state)`` after every physics tick."""
        self._listeners.append(listener)

    def off_tick(self, listener: TickListener) -> None:
        """Remove a tick listener."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def wait_spawn(self, timeout: float = 20.0) -> defer.Deferred:
        """Fires with the position once the server has placed us."""
        d: defer.Deferred = defer.Deferred()
        if self.state is not None:
            d.callback(self.state.pos)
            return d
        self._spawn_waiters.append(d)
        d.addTimeout(timeout, self.conn.clock)
        return d

    def wait_ticks(self, n: int) -> defer.Deferred:
        """Fires after ``n`` game ticks: wall time at the server's rate, or exactly ``n`` server ticks in
        lockstep (the connection's clock is then game time)."""
        return task.deferLater(self.conn.clock, n * self.tick_seconds, lambda: None)

    # ---------------------------------------------------------------------------------------- controls
    def set_controls(self, **keys: bool) -> None:
        """Hold/release keys: ``forward``, ``back``, ``left``, ``right``, ``jump``, ``sprint``."""
        self.controls = replace(self.controls, **keys)

    def stop(self) -> None:
        """Release every key."""
        self.controls = Controls()

    def look(self, yaw: float, pitch: float) -> None:
        """Set the view direction (degrees; sent with the next tick)."""
        if self.state is not None:
            self.state = replace(self.state, yaw=yaw, pitch=pitch)

    def look_at(self, point: tuple[float, float, float]) -> None:
        """Turn the head to look at ``point``."""
        yaw, pitch = look_at(self.eye, point)
        self.look(yaw, pitch)

    def face(self, point: tuple[float, float, float]) -> None:
        """Turn towards ``point`` horizontally (pitch 0)."""
        if self.state is not None:
            self.look(yaw_to(self.state.pos, point), 0.0)

    # ------------------------------------------------------------------------------------------- loop
    def start_loop(self) -> None:
        """Start the per-tick loop at the server's rate (idempotent; started automatically on the first
        position packet; not in lockstep, where the server's ticks drive :meth:`tick`)."""
        if self.driven:
            return
        if self._loop is None or not self._loop.running:
            self._loop = task.LoopingCall(self.tick)
            self._loop.clock = self.conn.clock
            self._loop.start(self.tick_seconds, now=False)

    def stop_loop(self) -> None:
        """Stop ticking (disconnect)."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()

    def set_driven(self, driven: bool) -> None:
        """Lockstep on (the wall-clock loop stops; :meth:`tick` is called per server tick) or off (the loop
        starts again once positioned)."""
        self.driven = driven
        if driven:
            self.stop_loop()
        elif self.state is not None and self.conn.state is State.PLAYING:
            self.start_loop()

    def _rate_changed(self, _rate: float) -> None:
        # The embedded server announces its rate after the join's first position (which started the loop
        # at 20 Hz): restart the loop at the new period so one position packet goes out per server tick.
        if self._loop is not None and self._loop.running:
            self._loop.stop()
            self.start_loop()

    def tick(self) -> None:
        """Run one physics step and send our position."""
        st = self.state
        if st is None or self.health.dead:
            return
        x, _, z = st.pos
        if self.world.is_loaded(math.floor(x), math.floor(z)):
            speed = self.health.effect_level("minecraft:speed")
            jump = self.health.effect_level("minecraft:jump_boost")
            if st.speed_level != speed or st.jump_level != jump:  # a copy only when an effect changed
                st = replace(st, speed_level=speed, jump_level=jump)
            st = step(self.world.state_at, st, self.controls)
            self.state = st
        self.ticks += 1
        self._send(st)
        for listener in list(self._listeners):
            listener(st)

    def _send(self, st: PlayerState) -> None:
        x, y, z = st.pos
        self.conn.send(PlayerPositionLook(x=x, y=y, z=z, yaw=st.yaw, pitch=st.pitch, on_ground=st.on_ground))

    # ---------------------------------------------------------------------------------------- handlers
    def _reset(self) -> None:
        self.stop_loop()
        self._reset_position()
        self.corrections = 0
        self._positioned = 0

    def _respawned(self) -> None:
        # After a respawn (death, dimension change) the server positions us afresh: not a correction.
        self._reset_position()
        self._positioned = 0

    def _reset_position(self) -> None:
        self.state = None
        self.controls = Controls()

    def _on_position(self, pkt: Any) -> None:
        old = self.state
        base = old.pos if old is not None else (0.0, 0.0, 0.0)
        f = pkt.flags
        x = pkt.x + (base[0] if f & 0x01 else 0.0)
        y = pkt.y + (base[1] if f & 0x02 else 0.0)
        z = pkt.z + (base[2] if f & 0x04 else 0.0)
        yaw = pkt.yaw + (old.yaw if old is not None and f & 0x08 else 0.0)
        pitch = pkt.pitch + (old.pitch if old is not None and f & 0x10 else 0.0)
        if old is None:
            self.state = PlayerState(pos=(x, y, z), yaw=yaw, pitch=pitch)
        else:
            self.state = replace(
                old, pos=(x, y, z), yaw=yaw, pitch=pitch, vel=(0.0, 0.0, 0.0), on_ground=False
            )
        self._positioned += 1
        if self._positioned > 1:
            self.corrections += 1
        # Vanilla answers with Confirm Teleportation (sent by Connection) then its position.
        self._send(self.state)
        self.start_loop()
        waiters, self._spawn_waiters = self._spawn_waiters, []
        for d in waiters:
            if not d.called:
                d.callback(self.state.pos)
