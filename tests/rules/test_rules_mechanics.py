"""Small vanilla mechanics as cited data + pure functions: experience levels and melee damage.

Expected values are the Minecraft Wiki's ("Experience", Java Edition: the total-points table; the weapon
pages' attack-damage tooltips), the same numbers the server used before these moved here.
"""

from __future__ import annotations

import pytest

from mirrorcraft.rules.combat import attack_damage
from mirrorcraft.rules.experience import total_xp, xp_needed


@pytest.mark.parametrize(
    ("level", "points"),
    [(0, 0), (1, 7), (5, 55), (15, 315), (16, 352), (17, 394), (30, 1395), (31, 1507), (32, 1628)],
)
def test_total_points_match_the_wiki_table(level: int, points: int) -> None:
    assert total_xp(level) == points


def test_levels_add_up() -> None:
    """Each level's points to the next are the difference of the totals (both formulas agree)."""
    for level in range(0, 120):
        assert total_xp(level + 1) - total_xp(level) == xp_needed(level), level
    assert (xp_needed(0), xp_needed(14), xp_needed(15), xp_needed(29), xp_needed(30)) == (7, 35, 37, 107, 112)


@pytest.mark.parametrize(
    ("item", "damage"),
    [
        (None, 1.0),
        ("minecraft:stick", 1.0),
        ("wooden_sword", 4.0),
        ("minecraft:netherite_sword", 8.0),
        ("minecraft:stone_axe", 9.0),
        ("minecraft:diamond_pickaxe", 5.0),
        ("minecraft:iron_shovel", 4.5),
        ("minecraft:golden_hoe", 1.0),
        ("minecraft:trident", 9.0),
    ],
)
def test_weapon_damage_matches_the_wiki(item: str | None, damage: float) -> None:
    assert attack_damage(item) == damage


def test_sharpness_strength_and_weakness() -> None:
    assert attack_damage("minecraft:iron_sword", {"minecraft:sharpness": 1}) == 7.0  # 6 + 0.5 * 1 + 0.5
    assert attack_damage("minecraft:iron_sword", {"sharpness": 5}) == 9.0  # 6 + 3
    assert attack_damage("minecraft:iron_sword", {"minecraft:knockback": 2}) == 6.0  # not a damage bonus
    assert attack_damage(None, effects=[("minecraft:strength", 1)]) == 7.0  # Strength II: + 6
    assert attack_damage(None, effects=[("minecraft:weakness", 0)]) == 0.0  # 1 - 4, clamped at 0
    assert attack_damage("minecraft:diamond_sword", {}, [("strength", 0), ("minecraft:weakness", 0)]) == 6.0
