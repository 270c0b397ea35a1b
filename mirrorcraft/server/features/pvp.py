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

The gates on the target, the cooldown, Resistance, health and death are :mod:`~mirrorcraft.server.features.
damage`'s, shared with every other source of damage (a berry bush's thorns); this feature decides whether the
hit is an attack that may land and how much it deals.

Partial: armour, enchantment protection, the attack cooldown, critical hits, sweeping and the victim's own
exhaustion are not simulated; the team's ``deathMessageVisibility`` is not applied.
"""

from __future__ import annotations

import math

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.combat import attack_damage
from mirrorcraft.server import facts
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.chat import Chat
from mirrorcraft.server.features.damage import Damage
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.teams import Teams
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import PLAYER_EYE, PLAYER_HEIGHT
from mirrorcraft.server.kernel.stacks import enchantments_of

ATTACK_RANGE_SQ = 36.0


class Pvp:
    """Player-on-player hits."""

    def __init__(
        self, kernel: Kernel, admin: Admin, effects: Effects, teams: Teams, chat: Chat, damage: Damage
    ) -> None:
        self.kernel = kernel
        self.admin = admin
        self.effects = effects
        self.teams = teams
        self.chat = chat
        self.damage = damage
        self.allowed = bool(kernel.config.pvp)
        kernel.handlers.register("use_entity", self._on_use_entity)

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
        if not self.damage.can_be_hurt(target) or not self.can_harm(p, target):
            return False
        held = p.inventory.held_stack
        enchantments = enchantments_of(held)
        effects = [(e.effect, e.amplifier) for e in self.effects.effects_of(p)]
        amount = attack_damage(held.item if held else None, enchantments, effects)
        ench = {e.removeprefix("minecraft:"): v for e, v in enchantments.items()}
        strength = 0.4 + 0.5 * ench.get("knockback", 0)
        kx, kz = target.pos[0] - p.pos[0], target.pos[2] - p.pos[2]
        d = math.hypot(kx, kz) or 1.0
        dealt = self.damage.hurt(
            target,
            amount,
            lambda: C.translatable("death.attack.player", self.chat.name_of(target), self.chat.name_of(p)),
            cause="player",
            attacker=p,
            knockback=(kx / d * strength, 0.4, kz / d * strength),
        )
        if dealt is None:
            return False
        k.events.notify("mob_hurt", p, entity=target, damage=dealt)
        return True
