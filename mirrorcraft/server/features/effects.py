"""Status effects on players: one active instance per effect, durations counted down in game ticks.

Vanilla behaviour followed (``LivingEntity.addEffect``, ``MobEffectInstance.update``): a stronger amplifier
replaces the active instance, the same amplifier extends it, a weaker one is refused; a changed instance is
sent as ``entity_effect``, an expired or removed one as ``remove_entity_effect``. Every player starts with
the benchmark controls' effects (``ServerConfig.controls.effects``, ``EFFECT_SECONDS`` long — the same
instances :class:`~mirrorcraft.harness.control.RconServerControl` gives a vanilla server with
``effect give``). The state is kept by player name, so a reconnect keeps it.

Readers: movement (Speed), digging (Haste, Mining Fatigue), mobs (Strength, Weakness), food (Hunger). The
durations are ticked by the admin feature's tick (:meth:`Effects.elapse`), with the game time a late
reactor skipped, so they stay in step with ``time query gametime``. Effects apply to players only.
"""

from __future__ import annotations

from dataclasses import dataclass

from mirrorcraft.contracts.episodes import EFFECT_SECONDS
from mirrorcraft.server import facts, wire
from mirrorcraft.server.kernel import Kernel, Player


@dataclass
class ActiveEffect:
    """One status effect on a player: ``remaining`` in ticks."""

    effect: str
    amplifier: int
    remaining: int
    hide_particles: bool = False

    def flags(self) -> int:
        """``entity_effect`` flags: 0x02 show particles, 0x04 show icon (the command always shows it)."""
        return (0 if self.hide_particles else 0x02) | 0x04


class Effects:
    """The active effects of every player."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.players: dict[str, dict[str, ActiveEffect]] = {}
        kernel.events.after("forget", lambda b: self.players.pop(b["who"], None))  # Join: bounded

    def state(self, p: Player) -> dict[str, ActiveEffect]:
        """Active effects of ``p`` by effect id (created with the controls' effects at first use)."""
        st = self.players.get(p.display_name)
        if st is None:
            st = self.players[p.display_name] = {
                e.effect: ActiveEffect(e.effect, e.amplifier, EFFECT_SECONDS * 20, e.hide_particles)
                for e in self.kernel.config.controls.effects
            }
        return st

    def effects_of(self, p: Player) -> list[ActiveEffect]:
        """Active effects of ``p``."""
        return list(self.state(p).values())

    def level(self, p: Player, effect: str) -> int:
        """The effect's level (amplifier + 1), 0 when ``p`` does not have it."""
        for eff in self.effects_of(p):
            if eff.effect == effect:
                return eff.amplifier + 1
        return 0

    def add(self, p: Player, effect: str, ticks: int, amplifier: int, hide: bool) -> bool:
        """Vanilla ``LivingEntity.addEffect``; False when nothing changed (a stronger one is active).

        Raises:
            GameDataError: unknown effect.
        """
        facts.effect_id(effect)  # unknown effect: an error naming it
        st = self.state(p)
        cur = st.get(effect)
        if cur is None:
            cur = st[effect] = ActiveEffect(effect, amplifier, ticks, hide)
            changed = True
        else:  # MobEffectInstance.update
            changed = False
            if amplifier > cur.amplifier:
                cur.amplifier, cur.remaining, changed = amplifier, ticks, True
            elif amplifier == cur.amplifier and ticks > cur.remaining:
                cur.remaining, changed = ticks, True
            if hide != cur.hide_particles:
                cur.hide_particles, changed = hide, True
        if changed:
            self._send(p, cur)
        return changed

    def remove(self, p: Player, effect: str | None) -> bool:
        """``effect clear``: one effect or all; False when nothing was removed."""
        st = self.state(p)
        names = list(st) if effect is None else [effect] if effect in st else []
        for name in names:
            del st[name]
            self._send_removed(p, name)
        return bool(names)

    def elapse(self, p: Player, ticks: int) -> None:
        """Count ``ticks`` off every effect of ``p``; expired ones are removed (and the client told)."""
        st = self.state(p)
        for eff in list(st.values()):
            eff.remaining -= ticks
            if eff.remaining <= 0:
                del st[eff.effect]
                self._send_removed(p, eff.effect)

    def resend(self, p: Player) -> None:
        """After the join sequence (which sent the controls' effects): remove the controls' effects ``p`` no
        longer has and send the active ones."""
        st = self.state(p)
        for e in self.kernel.config.controls.effects:
            if e.effect not in st:
                self._send_removed(p, e.effect)
        for eff in st.values():
            self._send(p, eff)

    def _send(self, p: Player, eff: ActiveEffect) -> None:
        body = wire.entity_effect(
            p.eid, facts.effect_id(eff.effect), eff.amplifier, eff.remaining, eff.flags()
        )
        p.send("entity_effect", body)

    def _send_removed(self, p: Player, effect: str) -> None:
        p.send(
            "remove_entity_effect",
            wire.remove_entity_effect(p.eid, facts.effect_id(effect), p.protocol_version),
        )
