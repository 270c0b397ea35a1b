"""Block mechanics as cited data: friction, which blocks are fluids, which open on use (and which menu),
what a placement may replace, wall variants and the chests' block-entity types.

Why here: these are facts of the game's code (``Blocks.java``, ``Block.use``, ``Material``), not of any
datapack, and both the body (its physics and placing) and the server (placement) need them. Naming blocks in
engine code is what the rules-as-data guard forbids, so the names live in ``data/blocks.json`` with their
source, and the engine asks these functions. Block names are namespaced (``minecraft:ice``); bare names are
accepted.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = [
    "LAVA",
    "NO_FLUID",
    "WATER",
    "block_constants",
    "block_entity_type",
    "fluid_of",
    "liquid_of",
    "menu_blocks",
    "opens_on_use",
    "replaceable",
    "slipperiness",
    "wall_variant",
]


#: Fluid codes of :func:`fluid_of` and :func:`liquid_of` (the body's per-state fluid table uses the same
#: numbers).
NO_FLUID, WATER, LAVA = 0, 1, 2


def block_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/blocks.json``."""
    return mechanics_data("blocks")


def slipperiness(block: str) -> float:
    """The friction of ``block`` (``Block.Properties.friction``): 0.6 unless it is ice or slime."""
    c = block_constants()
    return float(c["slipperiness"].get(namespaced(block), c["default_slipperiness"]))


def fluid_of(block: str) -> int:
    """:data:`WATER` or :data:`LAVA` when every state of ``block`` holds that fluid, else :data:`NO_FLUID`
    (waterlogged states are a property of the state, not of the block)."""
    c = block_constants()
    name = namespaced(block)
    if name in c["water_blocks"]:
        return WATER
    if name in c["lava_blocks"]:
        return LAVA
    return NO_FLUID


def liquid_of(block: str) -> int:
    """:data:`WATER` or :data:`LAVA` when ``block`` is that fluid's own block (``LiquidBlock``), else
    :data:`NO_FLUID`: narrower than :func:`fluid_of`, which also counts the plants and bubble columns."""
    return int(block_constants()["liquid_blocks"].get(namespaced(block), NO_FLUID))


@cache
def menu_blocks(menu: str) -> frozenset[str]:
    """The blocks (namespaced) whose use opens menu ``menu`` (a menu registry name: ``crafting``,
    ``enchantment``, ``generic_9x3``); empty for a menu no block table lists (cooking devices are
    :mod:`mirrorcraft.rules.devices`')."""
    return frozenset(block_constants()["menu_blocks"].get(menu, ()))


def block_entity_type(block: str) -> str | None:
    """The block-entity type id a chest block carries (``BlockEntityType``), else ``None``."""
    return block_constants()["block_entity_types"].get(namespaced(block))


@cache
def _use_suffixes() -> tuple[str, ...]:
    return tuple(block_constants()["opens_on_use_suffixes"])


def opens_on_use(block: str | None) -> bool:
    """Whether right-clicking ``block`` does something other than placing against it (vanilla ``Block.use``)."""
    return block is not None and namespaced(block).partition(":")[2].endswith(_use_suffixes())


def replaceable(block: str) -> bool:
    """Whether a placement may replace ``block`` (``Material.replaceable``)."""
    return namespaced(block) in block_constants()["replaceable"]


def wall_variant(block: str) -> str | None:
    """The wall block a standing ``block`` becomes when placed against a side (torches), else ``None``."""
    return block_constants()["wall_variants"].get(namespaced(block))
