"""Hurting players: the one place a player loses health to a hit, whatever dealt it (another player, a thorn).

Why one module: vanilla's ``ServerPlayer.hurt`` / ``LivingEntity.hurt`` apply the same gates and the same
cooldown to every damage source — a berry bush's thorn and a sword share one ``invulnerableTime`` — so the
sources (:mod:`~mirrorcraft.server.features.pvp`, :mod:`~mirrorcraft.server.features.thorns`) decide *whether*
and *how much*, and this feature does the rest once.

Vanilla 1.19.2 behaviour followed (``ServerPlayer.hurt``, ``Player.hurt``, ``LivingEntity.hurt``):

* no damage to a dead player, to creative or spectator players (``abilities.invulnerable``), nor within 60
  ticks of a join or respawn (``spawnInvulnerableTime``; only ``outOfWorld`` bypasses it, and nothing here
  deals that);
* a hit within 10 ticks of the last full one deals only the excess over that one's amount
  (``invulnerableTime`` 20, ``> 10`` compares), and nothing when it is not larger;
* the target's Resistance takes 20 % per level off what is dealt (``getDamageAfterMagicAbsorb``);
* a hit that lands: health down (the food feature sends ``update_health``), ``entity_status`` 2 (hurt) to
  everyone, an optional knock-back velocity, the event ``player_hurt``; at 0 health the player dies with the
  source's death message (:meth:`Admin.kill_player`) and ``player_killed`` is published.

Partial, as in :mod:`~mirrorcraft.server.features.pvp`: armour and protection enchantments are not simulated.
"""

from __future__ import annotations

from collections.abc import Callable

from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.kernel import Behaviour, Kernel, Player

SPAWN_INVULNERABLE_TICKS = 60  # ServerPlayer.spawnInvulnerableTime
HURT_COOLDOWN_TICKS = 10  # LivingEntity: invulnerableTime 20, hits blocked while it is > 10
HURT = 2  # entity_status: hurt animation
RESISTANCE = "minecraft:resistance"  # a vanilla effect id (the effect registry), not a datapack rule


class Damage:
    """Player damage with vanilla's gates and cooldown, shared by every source."""

    def __init__(self, kernel: Kernel, admin: Admin, effects: Effects) -> None:
        self.kernel = kernel
        self.admin = admin
        self.effects = effects
        self._spawned_at: dict[str, int] = {}
        self._last: dict[str, tuple[int, float]] = {}  # victim → (tick of the last full hit, its amount)
        kernel.events.after("joined", self._spawned)
        kernel.events.after("respawn", self._spawned)

    def _spawned(self, b: Behaviour) -> None:
        self._spawned_at[b.player.display_name] = self.kernel.tick_count
        self._last.pop(b.player.display_name, None)

    def can_be_hurt(self, target: Player) -> bool:
        """Alive, in survival or adventure, and past its spawn invulnerability."""
        if self.admin.is_dead(target) or self.admin.game_mode(target) in ("creative", "spectator"):
            return False
        since = self.kernel.tick_count - self._spawned_at.get(target.display_name, -SPAWN_INVULNERABLE_TICKS)
        return since >= SPAWN_INVULNERABLE_TICKS

    def hurt(
        self,
        target: Player,
        amount: float,
        death: Callable[[], C.Component],
        *,
        cause: str,
        attacker: Player | None = None,
        knockback: tuple[float, float, float] | None = None,
    ) -> float | None:
        """Deal ``amount`` to ``target``; the health it lost (0.0 when Resistance took it all), or ``None``
        when the hit did not land (a gate above, or the cooldown with no excess). ``death`` builds the death
        message if the hit kills; ``cause`` names the source in the published events."""
        k = self.kernel
        if not self.can_be_hurt(target):
            return None
        name = target.display_name
        last_tick, last_amount = self._last.get(name, (-100, 0.0))
        if k.tick_count - last_tick < HURT_COOLDOWN_TICKS:
            if amount <= last_amount:
                return None
            dealt = amount - last_amount
            self._last[name] = (last_tick, amount)
        else:
            dealt = amount
            self._last[name] = (k.tick_count, amount)
        resistance = max(
            (e.amplifier + 1 for e in self.effects.effects_of(target) if e.effect == RESISTANCE), default=0
        )
        dealt = max(0.0, dealt * (25 - 5 * resistance) / 25)
        target.health = max(0.0, target.health - dealt)
        k.broadcast("entity_status", wire.entity_status(target.eid, HURT))
        if knockback is not None:
            k.broadcast("entity_velocity", wire.entity_velocity(target.eid, knockback))
        by = attacker.display_name if attacker is not None else None
        k.emit("player_hurt", player=name, attacker=by, cause=cause, damage=dealt, health=target.health)
        if target.health <= 0.0:
            self.admin.kill_player(target, death())
            k.emit("player_killed", player=name, killer=by, cause=cause)
        return dealt
