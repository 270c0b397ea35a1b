"""Melee attack damage: what a player's hit deals, from the held item, its enchantments and the effects.

Why data: weapon damage, the sharpness bonus and the strength/weakness modifiers are Java code (item
attributes, ``DamageEnchantment``, ``MobEffects``), not datapack data; ``data/combat.json`` holds them with
their source, so the server's mob feature computes a hit without naming an item. Invulnerability frames,
knockback and fire aspect stay with the server (they act on the entity, not on the number).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = ["attack_damage", "combat_constants"]


def combat_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/combat.json``."""
    return mechanics_data("combat")


def attack_damage(
    item: str | None,
    enchantments: Mapping[str, int] | None = None,
    effects: Iterable[tuple[str, int]] = (),
) -> float:
    """Damage of one full-strength melee hit.

    Args:
        item: The held item (bare or namespaced), ``None`` for an empty hand.
        enchantments: The item's enchantments, id (bare or namespaced) → level.
        effects: The attacker's effects as ``(effect id, amplifier)``; level = amplifier + 1.

    Returns:
        Item damage + enchantment bonus + effect modifiers, at least 0.
    """
    c = combat_constants()
    damage = float(c["attack_damage"].get(namespaced(item), c["hand_damage"])) if item else c["hand_damage"]
    for name, level in (enchantments or {}).items():
        bonus = c["enchantment_bonus"].get(namespaced(name))
        if bonus is not None and level > 0:
            damage += bonus["per_level"] * level + bonus["base"]
    for effect, amplifier in effects:
        damage += c["effect_bonus_per_level"].get(namespaced(effect), 0.0) * (amplifier + 1)
    return max(0.0, damage)
