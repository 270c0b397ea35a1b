"""Facts of the PillagerBench arenas written down independently of the builder and its specs (test helper).

Mushroom War: the cells of the original's block list (its scenarios/mushroom_war.py, ``_get_block_positions``),
its spawns, team centres and judge. Dash & Dine: the points of interest of the original's scenario description
and our documented farm layout (docs/pillagerbench.md), for the original and, written out separately, for the
mirrored variant.
"""

from __future__ import annotations

RED_CAPS = [
    (-13, -59, -7), (-5, -59, -7), (-12, -59, -8), (-6, -59, -8), (-13, -58, -8), (-5, -58, -8),
    (-14, -59, -8), (-4, -59, -8), (-13, -59, -9), (-5, -59, -9), (-9, -59, -11), (-10, -59, -12),
    (-8, -59, -12), (-9, -58, -12), (-9, -59, -13),
]  # fmt: skip
BROWN_CAPS = [
    (-13, -59, 3), (-5, -59, 3), (-12, -59, 4), (-6, -59, 4), (-13, -58, 4), (-5, -58, 4), (-14, -59, 4),
    (-4, -59, 4), (-13, -59, 5), (-5, -59, 5), (-9, -59, 7), (-10, -59, 8), (-8, -59, 8), (-9, -58, 8),
    (-9, -59, 9),
]  # fmt: skip
RED_STEMS = [(-13, -60, -8), (-5, -60, -8), (-13, -59, -8), (-5, -59, -8), (-9, -60, -12), (-9, -59, -12)]
BLUE_STEMS = [(-13, -60, 4), (-5, -60, 4), (-13, -59, 4), (-5, -59, 4), (-9, -60, 8), (-9, -59, 8)]
RED_SLIME = [
    (-9, -60, -7), (-9, -60, -8), (-10, -60, -8), (-8, -60, -8), (-9, -60, -9), (-13, -60, -11),
    (-5, -60, -11), (-12, -60, -12), (-6, -60, -12), (-13, -60, -12), (-5, -60, -12), (-14, -60, -12),
    (-4, -60, -12), (-13, -60, -13), (-5, -60, -13),
]  # fmt: skip
BLUE_SLIME = [
    (-9, -60, 3), (-9, -60, 4), (-10, -60, 4), (-8, -60, 4), (-9, -60, 5), (-13, -60, 7), (-5, -60, 7),
    (-12, -60, 8), (-6, -60, 8), (-13, -60, 8), (-5, -60, 8), (-14, -60, 8), (-4, -60, 8), (-13, -60, 9),
    (-5, -60, 9),
]  # fmt: skip
MW_CENTRES = {"red": (-9, -60, -10), "blue": (-9, -60, 6)}
MW_SPAWNS = [(-7, -60, -10), (-11, -60, -10), (-11, -60, 6), (-7, -60, 6)]
MW_JUDGE = (-9, -56, -2)

DD_SPAWNS = [(-5, -60, -10), (-5, -60, -8), (-5, -60, 6), (-5, -60, 8)]
DD_JUDGES = [(-1, -60, -9), (-1, -60, 7)]
RED_ROWS, BLUE_ROWS, MIDDLE_ROWS = (-9, -8, -7), (5, 6, 7), (-3, -2, -1, 0, 1)


def _cells(xs, ys, zs) -> list[tuple[int, int, int]]:
    return [(x, y, z) for x in xs for y in ys for z in zs]


def dash_and_dine_facts(variant: str) -> dict[tuple[int, int, int], str]:
    """Cell → block (with the properties that matter) of Dash & Dine, written from the docs."""
    red, blue = (RED_ROWS, BLUE_ROWS) if variant == "original" else (BLUE_ROWS, RED_ROWS)
    # ``red``: rows of the farms the original has in red's half (sugar cane, cocoa, carrots), ``blue``: blue's.
    f: dict[tuple[int, int, int], str] = {}
    for c in _cells((-12, -11, -10), (-60,), blue):
        f[c] = "sweet_berry_bush[age=3]"
    for c in _cells((-12, -10), (-60, -59), red):
        f[c] = "sugar_cane"
    for c in _cells((-11,), (-61,), red):
        f[c] = "water"
    for c in _cells((-15,), (-60, -59), red):
        f[c] = "jungle_log"
    for c in _cells((-16,), (-60, -59), red):
        f[c] = "cocoa[age=2,facing=east]"
    for c in _cells((-14,), (-60, -59), red):
        f[c] = "cocoa[age=2,facing=west]"
    for crop, x0, rows, age in (
        ("carrots", -19, red, 7),
        ("potatoes", -19, blue, 7),
        ("beetroots", -15, blue, 3),
        ("wheat", -19, MIDDLE_ROWS, 7),
    ):
        for c in _cells((x0 - 1, x0 + 1), (-60,), rows):
            f[c] = f"{crop}[age={age}]"
        for c in _cells((x0 - 1, x0 + 1), (-61,), rows):
            f[c] = "farmland[moisture=7]"
        for c in _cells((x0,), (-61,), rows):
            f[c] = "water"
    for c in _cells((-17,), (-60,), MIDDLE_ROWS):
        f[c] = "melon"
    for c in _cells((-13,), (-60,), MIDDLE_ROWS):
        f[c] = "pumpkin"
    for c in _cells((-16,), (-60,), MIDDLE_ROWS):
        f[c] = "attached_melon_stem[facing=west]"
    for c in _cells((-14,), (-60,), MIDDLE_ROWS):
        f[c] = "attached_pumpkin_stem[facing=east]"
    for c in _cells((-16, -14), (-61,), MIDDLE_ROWS):
        f[c] = "farmland[moisture=7]"
    for c in _cells((-15,), (-61,), MIDDLE_ROWS):
        f[c] = "water"
    for z in (-2, -1, 0):
        f[(2, -59, z)] = "furnace[facing=west,lit=false]"
        f[(2, -60, z)] = "smooth_stone"
        f[(-11, -60, z)] = "smooth_stone"
    f[(-3, -59, -1)] = "chest[facing=west]"
    f[(-3, -60, -1)] = "smooth_stone"
    f[(-11, -59, -1)] = "chest[facing=east]"
    f[(-11, -59, -2)] = f[(-11, -59, 0)] = "crafting_table"
    # The cow (pen + bucket chest) is on red's side in the original, the egg farm on blue's.
    cow_z, egg_z, hopper = (-7, 5, "north") if variant == "original" else (5, -7, "south")
    f[(-7, -60, cow_z)] = "chest"
    f[(-7, -60, egg_z)] = "chest"
    step = 1 if variant == "original" else -1
    f[(-7, -60, egg_z + step)] = f"hopper[facing={hopper}]"
    pen_z = (-11, -10, -9, -8) if variant == "original" else (9, 8, 7, 6)
    for x in (-9, -8, -7, -6):
        for z in pen_z:
            if x in (-9, -6) or z in (pen_z[0], pen_z[-1]):
                f[(x, -60, z)] = "oak_fence"
    return f
