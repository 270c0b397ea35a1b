"""Players attacking players (``use_entity`` *attack* on a player), following the ``pvp`` setting and the
teams' friendly fire.

Why: PillagerBench's team scenarios put two teams on one server; whether a hit on another player lands is
vanilla's ``ServerPlayer.hurt`` / ``canHarmPlayer``: never with ``pvp`` off (``server.properties``,
``ServerConfig.pvp``, default true as vanilla), never on a team mate when the attacker's team has
``friendlyFire`` false (``Player.canHarmPlayer``: a player on no team can hurt anyone; a team allows hits on
its own members only with friendly fire on, the default).

Vanilla behaviour followed (``ServerGamePacketListenerImpl.handleInteract``, ``Player.attack``,
``ServerPlayer.hurt``, ``LivingEntity.hurt``):

* the target is within 6 blocks of the attacker's eyes (``distanceToSqr < 36``), alive, not the attacker,
  not in creative or spectator (``abilities.invulnerable``), and past its 60 ticks of spawn invulnerability
  (``spawnInvulnerableTime``, from the join or respawn); a spectator attacks nothing;
* the ``"attack"`` behaviour is asked first (a judge may cancel the hit), then ``pvp`` and friendly fire;
* damage is the held item's (:func:`mirrorcraft.rules.combat.attack_damage`: item, Sharpness, Strength /
  Weakness), not scaled by difficulty (a player attack does not scale); a hit within 10 ticks of the last
  one deals only the excess over it (``invulnerableTime`` 20, ``> 10`` compares);
* a landed hit: health down (the food feature sends ``update_health``), ``entity_status`` 2 to everyone,
  ``entity_velocity`` 0.4 away from the attacker (``knockback``), 0.1 exhaustion to the attacker (the
  ``"mob_hurt"`` after-hook, as for animals); at 0 health the target dies with ``death.attack.player``
  (victim and killer display names), drops by ``keepInventory`` (:meth:`Admin.kill_player`); events
  ``player_hurt`` and ``player_killed``;
* the target's Resistance takes 20 % per level off the damage dealt (``getDamageAfterMagicAbsorb``).

Partial: armour, enchantment protection, the attack cooldown, critical hits, sweeping and the victim's own
exhaustion are not simulated; the team's ``deathMessageVisibility`` is not applied.
"""

from __future__ import annotations

import math

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.combat import attack_damage
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.chat import Chat
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.teams import Teams
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.physics import PLAYER_EYE
from mirrorcraft.server.kernel.stacks import enchantments_of

ATTACK_RANGE_SQ = 36.0
SPAWN_INVULNERABLE_TICKS = 60  # ServerPlayer.spawnInvulnerableTime
PLAYER_HEIGHT = 1.8
HURT = 2  # entity_status: hurt animation
RESISTANCE = "minecraft:resistance"  # a vanilla effect id (the effect registry), not a datapack rule


class Pvp:
    """Player-on-player hits."""

    def __init__(self, kernel: Kernel, admin: Admin, effects: Effects, teams: Teams, chat: Chat) -> None:
        self.kernel = kernel
        self.admin = admin
        self.effects = effects
        self.teams = teams
        self.chat = chat
        self.allowed = bool(kernel.config.pvp)
        self._spawned_at: dict[str, int] = {}
        self._last: dict[str, tuple[int, float]] = {}  # victim → (tick of the last full hit, its damage)
        kernel.events.after("joined", self._spawned)
        kernel.events.after("respawn", self._spawned)
        kernel.handlers.register("use_entity", self._on_use_entity)

    def _spawned(self, b: Behaviour) -> None:
        self._spawned_at[b.player.display_name] = self.kernel.tick_count
        self._last.pop(b.player.display_name, None)

    def _on_use_entity(self, p: Player, pkt: sb.UseEntity) -> None:
        if pkt.mouse == 1:
            target = self.kernel.players.get(pkt.target)
            if target is not None:
                self.attack(p, target)

    def can_harm(self, attacker: Player, target: Player) -> bool:
        """``ServerPlayer.canHarmPlayer``: ``pvp`` on, and not a team mate of a team without friendly fire."""
        if not self.allowed:
            return False
        team = self.teams.team_of(attacker)
        if team is None:
            return True
        return team is not self.teams.team_of(target) or team.friendly_fire

    def attack(self, p: Player, target: Player) -> bool:
        """``p`` hits ``target``; True if the hit landed (damage dealt)."""
        k = self.kernel
        if target is p or self.admin.is_dead(p) or self.admin.is_dead(target):
            return False
        if self.admin.game_mode(p) == "spectator":
            return False
        ex, ey, ez = p.pos[0], p.pos[1] + PLAYER_EYE, p.pos[2]
        tx, ty, tz = target.pos[0], target.pos[1] + PLAYER_HEIGHT / 2, target.pos[2]
        if (ex - tx) ** 2 + (ey - ty) ** 2 + (ez - tz) ** 2 >= ATTACK_RANGE_SQ:
            return False
        if k.events.behaviour("attack", p, entity=target, type=facts.PLAYER_TYPE).cancelled:
            return False
        if self.admin.game_mode(target) in ("creative", "spectator"):
            return False
        if (
            k.tick_count - self._spawned_at.get(target.display_name, -SPAWN_INVULNERABLE_TICKS)
            < SPAWN_INVULNERABLE_TICKS
        ):
            return False
        if not self.can_harm(p, target):
            return False
        held = p.inventory.held_stack
        enchantments = enchantments_of(held)
        effects = [(e.effect, e.amplifier) for e in self.effects.effects_of(p)]
        damage = attack_damage(held.item if held else None, enchantments, effects)
        last_tick, last_damage = self._last.get(target.display_name, (-100, 0.0))
        if k.tick_count - last_tick < 10:  # invulnerableTime > 10: only the excess counts
            if damage <= last_damage:
                return False
            dealt = damage - last_damage
            self._last[target.display_name] = (last_tick, damage)
        else:
            dealt = damage
            self._last[target.display_name] = (k.tick_count, damage)
        # LivingEntity.getDamageAfterMagicAbsorb: Resistance takes 20 % per level off what the hit deals
        resistance = max(
            (e.amplifier + 1 for e in self.effects.effects_of(target) if e.effect == RESISTANCE), default=0
        )
        dealt = max(0.0, dealt * (25 - 5 * resistance) / 25)
        target.health = max(0.0, target.health - dealt)
        ench = {e.removeprefix("minecraft:"): v for e, v in enchantments.items()}
        strength = 0.4 + 0.5 * ench.get("knockback", 0)
        kx, kz = target.pos[0] - p.pos[0], target.pos[2] - p.pos[2]
        d = math.hypot(kx, kz) or 1.0
        k.broadcast("entity_status", wire.entity_status(target.eid, HURT))
        k.broadcast(
            "entity_velocity", wire.entity_velocity(target.eid, (kx / d * strength, 0.4, kz / d * strength))
        )
        k.events.notify("mob_hurt", p, entity=target, damage=dealt)
        k.emit(
            "player_hurt",
            player=target.display_name,
            attacker=p.display_name,
            damage=dealt,
            health=target.health,
        )
        if target.health <= 0.0:
            death = C.translatable("death.attack.player", self.chat.name_of(target), self.chat.name_of(p))
            self.admin.kill_player(target, death)
            k.emit("player_killed", player=target.display_name, killer=p.display_name)
        return True
