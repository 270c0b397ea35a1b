"""``Body``: the facade that wires the feature modules into one player.

Why a facade and not a shared mutable bot: each feature module is a class given exactly the modules it
depends on in its constructor (style.md, learning from mineflayer's plugins without their hidden
coupling); ``Body`` builds them in dependency order and offers the few composite actions skills need
(connect and spawn, wait for chunks, dig and collect the drop, open a container). Everything is
asynchronous on the Twisted reactor: methods are ``async def`` — call them from other coroutines with
``await`` or wrap them with ``defer.ensureDeferred``.

The body never imports :mod:`mirrorcraft.server` (tests enforce this): it works the same against the
embedded server, flying-squid and a vanilla server.
"""

from __future__ import annotations

import math
from typing import Any

from twisted.internet import defer, task

from mirrorcraft.mcproto_body.advancements import Advancements
from mirrorcraft.mcproto_body.chat import Chat
from mirrorcraft.mcproto_body.connection import BodyConfig, Connection
from mirrorcraft.mcproto_body.digging import Digger, DigResult
from mirrorcraft.mcproto_body.entities import CollectEvent, Entities
from mirrorcraft.mcproto_body.health import Health
from mirrorcraft.mcproto_body.inventory import Inventory
from mirrorcraft.mcproto_body.lockstep import GameTime, Lockstep
from mirrorcraft.mcproto_body.memory import WorldMemory
from mirrorcraft.mcproto_body.movement import Movement
from mirrorcraft.mcproto_body.physics import yaw_to
from mirrorcraft.mcproto_body.placing import Placer, PlaceResult
from mirrorcraft.mcproto_body.plants import Plants
from mirrorcraft.mcproto_body.scoreboard import Scoreboard
from mirrorcraft.mcproto_body.tickrate import GameClock
from mirrorcraft.mcproto_body.using import Using
from mirrorcraft.mcproto_body.windows import Window
from mirrorcraft.mcproto_body.world import World


class Body:
    """One player: connection plus every feature module.

    Args:
        config: Where and how to connect.
        clock: Twisted reactor (default: the global one).
        keep_sky_light: Keep sky light arrays in :class:`World`.

    Attributes:
        conn, world, entities, health, inventory, movement, digger, placer, advancements: The modules.
        plants: Crop and plant ages from the world view (:mod:`.plants`).
        using: Use items on blocks and entities, toss items (:mod:`.using`).
        chat: Chat and team chat, sent and received with the sender (:mod:`.chat`).
        scoreboard: Objectives, scores, the sidebar and teams (:mod:`.scoreboard`).
        memory: What the player has seen of the world, for the skills (:mod:`.memory`; never observed by
            an agent).
        game_clock: The server's tick rate (``mirrorcraft:tick_rate``; 20 t/s when not announced).
        game_time: The body's clock (:class:`~.lockstep.GameTime`; ``clock`` and ``conn.clock``).
        lockstep: The body's side of a lockstep server's tick barrier (:mod:`.lockstep`): hold
            ``with body.lockstep.acting():`` around work that needs game time.
        login: The last ``login`` packet (entity id, game mode, view distance, ...).
    """

    def __init__(self, config: BodyConfig, clock: Any = None, keep_sky_light: bool = False) -> None:
        self.config = config
        from twisted.internet import reactor

        # The body's clock: the reactor while free-running, the server's ticks in lockstep (.lockstep).
        self.game_time = GameTime(clock if clock is not None else reactor)
        self.conn = Connection(config, self.game_time)
        self.game_clock = GameClock(self.conn)
        self.world = World(self.conn, keep_sky_light=keep_sky_light)
        self.memory = WorldMemory(self.world)
        self.entities = Entities(self.conn)
        self.health = Health(self.conn, self.game_clock)
        self.inventory = Inventory(self.conn, game_clock=self.game_clock)
        self.movement = Movement(self.conn, self.world, self.health, self.game_clock)
        self.digger = Digger(self.conn, self.world, self.inventory, self.movement, self.health)
        self.placer = Placer(
            self.conn, self.world, self.inventory, self.movement, self_id=lambda: self.entities.self_id
        )
        self.advancements = Advancements(self.conn)
        self.plants = Plants(self.world)
        self.using = Using(self.conn, self.world, self.inventory, self.movement, self.placer, self.entities)
        self.chat = Chat(self.conn, names=self.entities.player_names.get)
        self.scoreboard = Scoreboard(self.conn)
        self.lockstep = Lockstep(
            self.conn,
            self.game_time,
            step=self.movement.tick,
            set_driven=self.movement.set_driven,
            on_tick=self._lockstep_tick,
            enabled=config.lockstep,
            heartbeat=config.lockstep_heartbeat,
        )
        self.game_clock.on_change(self._rate_changed)
        self.login: Any = None

    def _lockstep_tick(self, tick: int | None) -> None:
        self.game_clock.lockstep_tick = tick

    def _rate_changed(self, rate: float) -> None:
        self.game_time.rate = rate

    @property
    def clock(self) -> Any:
        """The body's clock (:class:`~.lockstep.GameTime`): the reactor's time while free-running; in
        lockstep, game time that advances only with the server's ticks, so every wait written against it
        costs a fixed number of ticks."""
        return self.conn.clock

    @property
    def tick_rate(self) -> float:
        """The server's game ticks per second: what it announced on ``mirrorcraft:tick_rate``, else vanilla's
        20. Movement, digging waits and effect durations run at this rate."""
        return self.game_clock.rate

    def ticks_to_seconds(self, ticks: float) -> float:
        """Wall seconds that ``ticks`` game ticks last on this server."""
        return self.game_clock.ticks_to_seconds(ticks)

    async def connect(self, spawn_timeout: float = 20.0) -> None:
        """Log in and wait until the server has positioned us.

        Raises:
            ConnectionError / TimeoutError: see :meth:`Connection.connect`, or no position in time.
        """
        self.login = await self.conn.connect()
        await self.movement.wait_spawn(spawn_timeout)

    async def disconnect(self) -> None:
        """Leave the server."""
        self.movement.stop_loop()
        await self.conn.disconnect()

    async def reconnect(self) -> None:
        """Disconnect (if needed) and connect again with fresh state."""
        await self.disconnect()
        await self.connect()

    def chunks_missing(self, radius: int | None = None) -> int:
        """Columns within ``radius`` of ours not yet loaded.

        The default radius is 2 (the 5×5 columns around the player), Mineflayer's ``waitForChunksToLoad``
        criterion: servers disagree on how far "view distance" reaches (vanilla sends ``view + 1`` rings,
        flying-squid 1.12.0 a ``2·view`` square offset by one), but every server sends these.
        """
        pos = self.movement.position
        if pos is None:
            return -1
        r = radius if radius is not None else min(2, self.view_radius())
        cx, cz = math.floor(pos[0]) >> 4, math.floor(pos[2]) >> 4
        return sum(
            (cx + dx, cz + dz) not in self.world.columns for dx in range(-r, r + 1) for dz in range(-r, r + 1)
        )

    def view_radius(self) -> int:
        """The effective view distance: min(server's, ours)."""
        server = self.login.view_distance if self.login is not None else self.config.view_distance
        return min(server, self.config.view_distance)

    async def wait_chunks(self, radius: int | None = None, timeout: float = 30.0) -> bool:
        """Wait until every column within ``radius`` (default 2, see :meth:`chunks_missing`) is loaded; False
        on timeout."""
        clock = self.lockstep.wall_clock  # game time is frozen while nobody acts in lockstep
        deadline = clock.seconds() + timeout
        while self.chunks_missing(radius) != 0:
            if clock.seconds() > deadline:
                return False
            await task.deferLater(clock, 0.05, lambda: None)
        return True

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of reactor time."""
        await task.deferLater(self.clock, seconds, lambda: None)

    async def walk_straight(
        self,
        target: tuple[float, float, float],
        tolerance: float = 0.35,
        timeout: float = 10.0,
        sprint: bool = False,
    ) -> bool:
        """Walk towards ``target`` in a straight line, jumping when blocked; True once within ``tolerance``
        (horizontally). The path follower in :mod:`mirrorcraft.pathing` builds on the same primitive."""
        deadline = self.clock.seconds() + timeout
        try:
            while True:
                st = self.movement.state
                if st is None or self.health.dead:
                    return False
                if math.hypot(target[0] - st.pos[0], target[2] - st.pos[2]) <= tolerance:
                    return True
                if self.clock.seconds() > deadline:
                    return False
                self.movement.look(yaw_to(st.pos, target), 0.0)
                self.movement.set_controls(forward=True, sprint=sprint, jump=st.collided_horizontally)
                await task.deferLater(self.clock, self.movement.tick_seconds, lambda: None)
        finally:
            self.movement.stop()

    async def dig(self, pos: tuple[int, int, int]) -> DigResult:
        """Break a block (see :meth:`Digger.dig`)."""
        return await self.digger.dig(pos)

    async def collect_drops(
        self, near: tuple[float, float, float], radius: float = 4.0, timeout: float = 6.0
    ) -> list[CollectEvent]:
        """Walk onto item entities within ``radius`` of ``near`` until they are collected by us.

        Returns:
            The collect events whose collector is us (what was actually picked up).
        """
        got: list[CollectEvent] = []
        me = self.entities.self_id

        def listener(ev: CollectEvent) -> None:
            if ev.collector_id == me:
                got.append(ev)

        self.entities.on_collect(listener)
        deadline = self.clock.seconds() + timeout
        try:
            while self.clock.seconds() < deadline:
                items = [e for e in self.entities.items() if e.distance_to(near) <= radius]
                if not items:
                    # Drops may still be spawning, or were just collected: 5 game ticks (>= 20 ms).
                    await self.sleep(max(0.02, self.ticks_to_seconds(5)))
                    if not [e for e in self.entities.items() if e.distance_to(near) <= radius]:
                        break
                    continue
                pos = self.movement.position
                target = min(items, key=lambda e: e.distance_to(pos))
                await self.walk_straight(
                    target.position, tolerance=0.3, timeout=max(0.5, deadline - self.clock.seconds())
                )
                await self.sleep(max(0.02, self.ticks_to_seconds(3)))  # the pickup happens on a server tick
        finally:
            self.entities._collect_listeners.remove(listener)
        return got

    async def dig_and_collect(
        self, pos: tuple[int, int, int], timeout: float = 6.0
    ) -> tuple[DigResult, list[CollectEvent]]:
        """Dig a block and pick up what dropped; returns the dig result and our collect events."""
        result = await self.dig(pos)
        if not result.broken:
            return result, []
        drops = await self.collect_drops((pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5), timeout=timeout)
        return result, drops

    async def place(self, target: tuple[int, int, int], item: str | None = None) -> PlaceResult:
        """Place a block (see :meth:`Placer.place`)."""
        return await self.placer.place(target, item)

    async def open_container(self, pos: tuple[int, int, int], timeout: float = 3.0) -> Window:
        """Right-click the block at ``pos`` and wait for the window.

        Raises:
            TimeoutError: no window opened.
        """
        waiting = self.inventory.wait_open(timeout)
        await self.placer.activate(pos)
        try:
            return await waiting
        except defer.TimeoutError as err:
            raise TimeoutError(f"no window opened after using the block at {pos}") from err
