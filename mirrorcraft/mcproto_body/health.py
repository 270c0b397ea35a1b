"""The player's vital signs: health, food, experience, status effects, death and respawn.

Why: skills need to know when the player died (a dig or walk is then void), when to eat, and which
effects change digging (Haste, Mining Fatigue) and movement (Speed, Jump Boost). Packets:
``update_health`` (vanilla 1.19 sends it at spawn; mineflayer uses the first one as "spawned"),
``experience``, ``death_combat_event`` (``player_id`` = our entity id), ``entity_effect`` /
``remove_entity_effect`` for our own entity id, ``respawn``. Respawning after death is a
``client_command`` with action 0 (wiki.vg "Client Command").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from twisted.internet import defer

from mirrorcraft.gamedata import effect
from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.mcproto_body.tickrate import GameClock
from mirrorcraft.protocol.serverbound import ClientCommand


@dataclass(frozen=True)
class ActiveEffect:
    """A status effect on the player: ``level`` = amplifier + 1; ``expires_at`` in reactor seconds."""

    name: str
    level: int
    expires_at: float


_EFFECT_NAMES: dict[int, str] = {}
for _name in (
    "speed",
    "slowness",
    "haste",
    "mining_fatigue",
    "strength",
    "jump_boost",
    "regeneration",
    "resistance",
    "fire_resistance",
    "water_breathing",
    "invisibility",
    "night_vision",
    "hunger",
    "weakness",
    "poison",
    "absorption",
    "saturation",
    "slow_falling",
    "conduit_power",
    "dolphins_grace",
):
    _info = effect(_name)
    _EFFECT_NAMES[_info.id] = _info.name


class Health:
    """Health, food, experience, effects, death.

    Args:
        conn: The connection.
        game_clock: The server's tick rate, for effect durations (default: its own on ``conn``).

    Attributes:
        health: 0..20 (``None`` before the first update_health).
        food / saturation: Hunger bar.
        level / total_experience / progress: Experience.
        dead: Whether the player is dead (until respawned).
        death_message: Chat JSON of the last death.
        deaths: How many times the player died on this connection.
        effects: ``{effect name: ActiveEffect}``.
    """

    def __init__(self, conn: Connection, game_clock: GameClock | None = None) -> None:
        self.conn = conn
        # Effect durations are game ticks: converted to reactor seconds at the server's tick rate.
        self.game_clock = game_clock if game_clock is not None else GameClock(conn)
        self._rate = self.game_clock.rate
        self.game_clock.on_change(self._rate_changed)
        self.self_id: int | None = None
        self.health: float | None = None
        self.food = 20
        self.saturation = 5.0
        self.level = 0
        self.total_experience = 0
        self.progress = 0.0
        self.dead = False
        self.death_message: str | None = None
        self.deaths = 0
        self.effects: dict[str, ActiveEffect] = {}
        self._death_listeners: list[Callable[[str | None], None]] = []
        self._health_waiters: list[defer.Deferred] = []
        conn.on_reset(self._reset)
        conn.on("login", self._on_login)
        conn.on("update_health", self._on_health)
        conn.on("experience", self._on_experience)
        conn.on("death_combat_event", self._on_death)
        conn.on("entity_effect", self._on_effect)
        conn.on("remove_entity_effect", self._on_remove_effect)
        conn.on("respawn", lambda _p: self._respawned())

    def _reset(self) -> None:
        self.health = None
        self.dead = False
        self.effects.clear()

    def on_death(self, listener: Callable[[str | None], None]) -> None:
        """Call ``listener(death message)`` when the player dies."""
        self._death_listeners.append(listener)

    def effect_level(self, name: str) -> int:
        """Level (amplifier + 1) of an active effect, 0 if absent or expired."""
        eff = self.effects.get(name)
        if eff is None or eff.expires_at < self.conn.clock.seconds():
            return 0
        return eff.level

    def wait_health(self, timeout: float = 10.0) -> defer.Deferred:
        """Fires at the next update_health (at once if one was already received)."""
        d: defer.Deferred = defer.Deferred()
        if self.health is not None:
            d.callback(self.health)
            return d
        self._health_waiters.append(d)
        d.addTimeout(timeout, self.conn.clock)
        return d

    def respawn(self) -> None:
        """Ask the server to respawn (after death)."""
        self.conn.send(ClientCommand(action_id=0))

    # ------------------------------------------------------------------------------------------ handlers
    def _on_login(self, pkt: Any) -> None:
        self.self_id = pkt.entity_id

    def _respawned(self) -> None:
        self.dead = False

    def _on_health(self, pkt: Any) -> None:
        self.health, self.food, self.saturation = pkt.health, pkt.food, pkt.food_saturation
        if pkt.health <= 0 and not self.dead:
            self._died(None)
        elif pkt.health > 0:
            self.dead = False
        waiters, self._health_waiters = self._health_waiters, []
        for d in waiters:
            if not d.called:
                d.callback(self.health)

    def _on_experience(self, pkt: Any) -> None:
        self.progress, self.level, self.total_experience = pkt.experience_bar, pkt.level, pkt.total_experience

    def _on_death(self, pkt: Any) -> None:
        if pkt.player_id == self.self_id:
            self._died(pkt.message)

    def _died(self, message: str | None) -> None:
        if message is not None:
            self.death_message = message
        if self.dead:
            return
        self.dead = True
        self.deaths += 1
        for listener in list(self._death_listeners):
            listener(message)

    @staticmethod
    def _effect_name(effect_id: int) -> str:
        # Wire ids are gamedata's effect ids (minecraft-data 1.19.2: speed = 1, haste = 3, ...).
        return _EFFECT_NAMES.get(effect_id, f"unknown:{effect_id}")

    def _on_effect(self, pkt: Any) -> None:
        if pkt.entity_id != self.self_id:
            return
        name = self._effect_name(pkt.effect_id)
        now = self.conn.clock.seconds()
        expires = now + (1e9 if pkt.duration < 0 else self.game_clock.ticks_to_seconds(pkt.duration))
        self.effects[name] = ActiveEffect(name, pkt.amplifier + 1, expires)

    def _rate_changed(self, rate: float) -> None:
        # The embedded server announces its rate after sending the join's effects: rescale what remains.
        now = self.conn.clock.seconds()
        scale = self._rate / rate
        self._rate = rate
        for name, eff in list(self.effects.items()):
            if eff.expires_at - now < 1e8:  # not one of the "forever" effects
                self.effects[name] = replace(eff, expires_at=now + max(0.0, eff.expires_at - now) * scale)

    def _on_remove_effect(self, pkt: Any) -> None:
        if pkt.entity_id == self.self_id:
            self.effects.pop(self._effect_name(pkt.effect_id), None)
