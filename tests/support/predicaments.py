"""Predicaments: seeded start states with a goal, built with ``set_block`` on the sandbox's flat plain.

Shared by the escape tests (tests/skills/test_skills_escapes.py, tests/agents/test_agents_scripted_pit.py)
and the predicament benchmark (benchmarks/escape.py, which puts ``tests/`` on its path). A builder only
writes blocks through the callable it is given; it never reads the world, so the same seed gives the same
state on any server. The sandbox (``mirrorcraft.worlds.sandbox``) is flat there: grass at y=64 (a player
stands at y=65), dirt 61..63, stone 0..60, world border 144 blocks wide centred on (8, 8).

Kinds (issue 21): ``pit`` (3-8 deep, 1-3 wide, open), ``sealed_shaft`` (1×1, 3-8 deep, capped with stone),
``sunken_pond`` (water 2 deep whose surface lies 3-5 blocks under the land), ``cave_pocket`` (an air
pocket 4-8 blocks under the surface), ``pillar`` (on top of a 5-high 1×1 pillar), ``jungle_canopy``
(under leaves and logs, walled in by a thicket of leaves), ``water_ring`` (a one-block island in a ring
of water 3 wide), ``ravine`` (a 2-4 wide, 10 deep trench to cross) and ``bedrock`` (sealed in bedrock: no
way out). Each has a goal: a cell to stand within ``radius`` of, on the surface or across.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

SURFACE = 64  #: the sandbox's grass level: feet stand at 65
FEET = SURFACE + 1
KINDS = (
    "pit", "sealed_shaft", "sunken_pond", "cave_pocket", "pillar", "jungle_canopy", "water_ring", "ravine",
    "bedrock",
)  # fmt: skip
ESCAPABLE = KINDS[:-1]
#: Sites on the sandbox's free plain (x 30..74, z -56..-8: away from trees, the pit, the pool and the hill).
#: A ravine runs ``RAVINE_HALF`` blocks north and south of its site, just east of it.
SITES = ((36, -22), (66, -48), (66, -30), (66, -12), (52, -48))
RAVINE_HALF = 30

SetBlock = Callable[[int, int, int, str], None]
Cell = tuple[int, int, int]


@dataclass
class Predicament:
    """A start state and a goal.

    Attributes:
        kind, seed: What was built.
        start: The player's feet position (block centre).
        goal: The cell to reach; ``radius``: how near (blocks, 3D, feet cell) counts.
        inventory: ``{item: count}`` given to the player (the same for every client).
        box: ``(lo, hi)`` inclusive corners of every cell the builder may have touched, with margin: a
            benchmark restores this box between trials.
        escapable: False for the sealed kind (no way out exists).
        params: The seeded parameters (depth, width...), for reports.
    """

    kind: str
    seed: int
    start: tuple[float, float, float]
    goal: Cell
    radius: float
    inventory: dict[str, int]
    box: tuple[Cell, Cell]
    escapable: bool = True
    params: dict[str, int] = field(default_factory=dict)

    def reached(self, feet: tuple[float, float, float]) -> bool:
        """Whether a player whose feet are at ``feet`` (as the server sees them) is at the goal."""
        import math

        cell = (math.floor(feet[0]), math.floor(feet[1] + 1e-6), math.floor(feet[2]))
        return math.dist(cell, self.goal) <= self.radius + 1e-9


def _fill(set_block: SetBlock, lo: Cell, hi: Cell, name: str) -> None:
    for x in range(lo[0], hi[0] + 1):
        for y in range(lo[1], hi[1] + 1):
            for z in range(lo[2], hi[2] + 1):
                set_block(x, y, z, name)


def build(kind: str, seed: int, set_block: SetBlock, site: tuple[int, int] = SITES[0]) -> Predicament:
    """Build predicament ``kind`` (seeded) around ``site`` and return its start, goal and inventory.

    The site must be the untouched plain (a benchmark restores :attr:`Predicament.box` between trials).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown predicament {kind!r}; kinds: {', '.join(KINDS)}")
    rng = random.Random(f"{kind}/{seed}")
    x0, z0 = site
    r = 8
    box = ((x0 - r, 50, z0 - r), (x0 + r, 80, z0 + r))
    tools = {"minecraft:stone_pickaxe": 1, "minecraft:stone_shovel": 1}
    blocks = {"minecraft:cobblestone": 16}
    inv = tools | (blocks if seed % 2 == 0 else {})  # odd seeds: no blocks to build with
    params: dict[str, int] = {}
    if kind == "pit":
        depth, width = rng.randint(3, 8), rng.randint(1, 3)
        params = {"depth": depth, "width": width}
        _fill(set_block, (x0, FEET - depth, z0), (x0 + width - 1, SURFACE, z0 + width - 1), "air")
        for x in range(x0, x0 + width):  # stone walls and floor, as a dug pit in stone would have
            for z in range(z0, z0 + width):
                set_block(x, FEET - depth - 1, z, "stone")
        start = (x0 + 0.5, float(FEET - depth), z0 + 0.5)
        goal = (x0 + width + 2, FEET, z0)
        return Predicament(kind, seed, start, goal, 1.0, inv, box, params=params)
    if kind == "sealed_shaft":
        depth = rng.randint(3, 8)
        params = {"depth": depth}
        _fill(set_block, (x0, FEET - depth, z0), (x0, SURFACE - 1, z0), "air")
        set_block(x0, SURFACE, z0, "stone")  # the cap
        start = (x0 + 0.5, float(FEET - depth), z0 + 0.5)
        return Predicament(kind, seed, start, (x0 + 3, FEET, z0), 1.0, inv, box, params=params)
    if kind == "sunken_pond":
        width, drop = rng.randint(3, 5), rng.randint(3, 5)
        params = {"width": width, "drop": drop}
        top = FEET - drop  # the water surface cell
        _fill(set_block, (x0, top - 1, z0), (x0 + width - 1, top, z0 + width - 1), "water")
        _fill(set_block, (x0, top + 1, z0), (x0 + width - 1, SURFACE, z0 + width - 1), "air")
        _fill(set_block, (x0, top - 2, z0), (x0 + width - 1, top - 2, z0 + width - 1), "stone")
        start = (x0 + width // 2 + 0.5, float(top), z0 + width // 2 + 0.5)
        return Predicament(kind, seed, start, (x0 + width + 2, FEET, z0), 1.0, inv, box, params=params)
    if kind == "cave_pocket":
        depth = rng.randint(4, 8)
        params = {"depth": depth}
        floor = FEET - depth - 2  # the pocket is 2 high: its ceiling lies `depth` blocks under the surface
        _fill(set_block, (x0 - 1, floor, z0 - 1), (x0 + 1, floor + 1, z0 + 1), "air")
        start = (x0 + 0.5, float(floor), z0 + 0.5)
        return Predicament(kind, seed, start, (x0 + 3, FEET, z0), 1.0, inv, box, params=params)
    if kind == "pillar":
        height = 5
        params = {"height": height}
        block = "cobblestone" if seed % 3 else "dirt"
        _fill(set_block, (x0, FEET, z0), (x0, FEET + height - 1, z0), block)
        start = (x0 + 0.5, float(FEET + height), z0 + 0.5)
        return Predicament(kind, seed, start, (x0 + 4, FEET, z0), 1.0, inv, box, params=params)
    if kind == "jungle_canopy":
        ring = rng.randint(2, 3)
        params = {"ring": ring}
        leaves = "jungle_leaves"
        _fill(set_block, (x0 - 6, FEET + 3, z0 - 6), (x0 + 6, FEET + 4, z0 + 6), leaves)  # the canopy
        for dx in range(-ring, ring + 1):  # a thicket: a ring of 2-high leaves with trunks at the corners
            for dz in range(-ring, ring + 1):
                if max(abs(dx), abs(dz)) == ring:
                    corner = abs(dx) == ring and abs(dz) == ring
                    for y in range(FEET, FEET + 3):
                        set_block(x0 + dx, y, z0 + dz, "jungle_log" if corner else leaves)
        for _ in range(6):  # undergrowth: leaf bushes inside and outside the ring
            bx, bz = x0 + rng.randint(-6, 6), z0 + rng.randint(-6, 6)
            if max(abs(bx - x0), abs(bz - z0)) not in (0, ring):
                set_block(bx, FEET, bz, leaves)
        start = (x0 + 0.5, float(FEET), z0 + 0.5)
        return Predicament(kind, seed, start, (x0 + 7, FEET, z0), 1.0, inv, box, params=params)
    if kind == "water_ring":
        inner, width = 0, 3
        params = {"width": width}
        outer = inner + width
        for dx in range(-outer, outer + 1):
            for dz in range(-outer, outer + 1):
                if max(abs(dx), abs(dz)) > inner:
                    set_block(x0 + dx, SURFACE - 1, z0 + dz, "water")
                    set_block(x0 + dx, SURFACE, z0 + dz, "water")
                    set_block(x0 + dx, SURFACE - 2, z0 + dz, "dirt")
        start = (x0 + 0.5, float(FEET), z0 + 0.5)
        return Predicament(kind, seed, start, (x0 + outer + 2, FEET, z0), 1.0, inv, box, params=params)
    if kind == "ravine":
        width = rng.randint(2, 4)
        params = {"width": width}
        # long enough that walking round an end is more than 60 blocks: the way is across
        _fill(
            set_block, (x0 + 1, FEET - 10, z0 - RAVINE_HALF), (x0 + width, SURFACE, z0 + RAVINE_HALF), "air"
        )
        box = ((x0 - r, 50, z0 - RAVINE_HALF), (x0 + r, 80, z0 + RAVINE_HALF))
        start = (x0 + 0.5, float(FEET), z0 + 0.5)
        return Predicament(kind, seed, start, (x0 + width + 3, FEET, z0), 1.0, inv, box, params=params)
    # bedrock: sealed in, no way out
    depth = rng.randint(3, 6)
    params = {"depth": depth}
    floor = FEET - depth - 2
    _fill(set_block, (x0 - 1, floor - 1, z0 - 1), (x0 + 1, floor + 2, z0 + 2), "bedrock")
    _fill(set_block, (x0, floor, z0), (x0, floor + 1, z0 + 1), "air")
    start = (x0 + 0.5, float(floor), z0 + 0.5)
    return Predicament(kind, seed, start, (x0 + 3, FEET, z0), 1.0, inv, box, escapable=False, params=params)


__all__ = ["ESCAPABLE", "FEET", "KINDS", "SITES", "SURFACE", "Predicament", "build"]
