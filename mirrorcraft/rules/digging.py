"""Vanilla 1.19.2 block-breaking speed: how long a player needs to break a block, and whether it drops.

Why one module for the server and the body: the server must not break a block sooner than the game allows
(vanilla's ``ServerPlayerGameMode`` accepts a finish once ``progress_per_tick * (ticks + 1) >= 0.7``; an
earlier one is delayed until its own progress reaches 1), and the body must wait as long as a vanilla client
would (not less: refused; not much more: slow). Both use these functions, so they agree by construction;
Mineflayer computes the same dig time client-side (``tests/server/test_digging.py`` checks 1,680 cases).

Formula (Minecraft Wiki "Breaking", Java 1.19; ``Player.getDestroySpeed``,
``BlockBehaviour.getDestroyProgress``): ``speed`` = the held item's speed on the block (1 if it does not
help); + ``efficiency² + 1`` if ``speed > 1``; × ``1 + 0.2 (haste level)``; × the mining fatigue factor;
÷ 5 if the eyes are in water without aqua affinity; ÷ 5 if not on the ground. Progress per tick is
``speed / hardness / 30`` when the block drops with the held item, else ``/ 100``; hardness 0 breaks
instantly, unbreakable blocks (hardness ``None``) never break. The break takes ``ceil(1 / progress)``
ticks, computed in double precision as Mineflayer and the wiki do. (Vanilla's client adds the float32
progress tick by tick, which differs by a tick for some blocks: stone by hand 151 instead of 150, a dragon
egg by hand 90 instead of 91; the server's 70 % acceptance window accepts all of them.)

What is data and from where (``data/mining.json``, cited):

* **datapack tags** (read from the loaded packs; by default the vendored vanilla pack's): which blocks each
  digger item speeds up and harvests (``minecraft:mineable/*``), the tier a block needs
  (``needs_stone_tool``/``needs_iron_tool``/``needs_diamond_tool``), ``leaves`` and ``wool`` (swords and
  shears). Pass :class:`MiningTags` built from a :class:`~mirrorcraft.rules.datapacks.DatapackSet` to use
  a world's own tags.
* **Java code** (``data/mining.json``): tiers (speed, level), which item is which digger/sword/shears, the
  blocks shears and swords name directly (cobweb, vine, glow lichen), the penalties.
* **block properties in code** (minecraft-data via gamedata): hardness, the block's Java ``Material``
  (``plant``, ``gourd``: swords) and whether it requires the correct tool for drops
  (``BlockInfo.harvest_tools is not None``; the tags then say which tools are correct).

A *speed category* names what a tool's speed depends on: ``mineable/<tool>`` (the tag's path), ``leaves``,
``wool``, ``coweb``, ``vine_or_glow_lichen``, ``plant``, ``gourd``; these are minecraft-data's material
keys, so :func:`tool_speed` also accepts a ``BlockInfo.material`` string (``leaves;mineable/hoe``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.gamedata.blocks import BlockInfo
from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced
from mirrorcraft.rules.tags import vanilla_tags

__all__ = [
    "DigConditions",
    "MiningTags",
    "can_harvest",
    "dig_categories",
    "dig_ticks",
    "finish_accepted",
    "harvest_tools",
    "mining_constants",
    "progress_per_tick",
    "tool_speed",
]


def mining_constants() -> dict[str, Any]:
    """The hand-authored constants of ``data/mining.json``."""
    return mechanics_data("mining")


class MiningTags:
    """What the block tags of a set of packs say about digging (speed categories, harvest tags, tiers).

    Args:
        block_tags: Block tag id → members (``DatapackSet.tags["blocks"]``).
    """

    def __init__(self, block_tags: Mapping[str, frozenset[str]]) -> None:
        c = mining_constants()
        self._tags = block_tags
        mineable = sorted({tag for _tier, tag in c["diggers"].values()})
        self._categories: list[tuple[str, frozenset[str]]] = [
            (tag.partition(":")[2], block_tags.get(tag, frozenset())) for tag in mineable
        ]
        self._categories += [(k, block_tags.get(tag, frozenset())) for k, tag in c["category_tags"].items()]
        self._categories += [(k, frozenset(blocks)) for k, blocks in c["category_blocks"].items()]
        self._needs = [
            (level, block_tags.get(tag, frozenset())) for tag, level in c["needs_tool_tags"].items()
        ]
        self._cache: dict[str, frozenset[str]] = {}

    @classmethod
    def of(cls, packs: Any) -> MiningTags:
        """From a :class:`~mirrorcraft.rules.datapacks.DatapackSet` (its block tags)."""
        return cls(packs.tags["blocks"])

    def tag(self, tag: str) -> frozenset[str]:
        """Members of block tag ``tag`` (namespaced), empty if no pack defines it."""
        return self._tags.get(tag, frozenset())

    def categories(self, block: BlockInfo) -> frozenset[str]:
        """The speed categories of ``block`` (module docstring)."""
        found = self._cache.get(block.name)
        if found is None:
            materials = set(block.material.split(";")) & set(mining_constants()["category_materials"])
            found = frozenset({k for k, members in self._categories if block.name in members} | materials)
            self._cache[block.name] = found
        return found

    def needed_level(self, block: BlockInfo) -> int:
        """The tier level a digger needs to harvest ``block`` (0: any tier)."""
        return max((level for level, members in self._needs if block.name in members), default=0)


@cache
def _vanilla_mining_tags() -> MiningTags:
    return MiningTags(vanilla_tags()["blocks"])


def _tags(tags: MiningTags | None) -> MiningTags:
    return tags if tags is not None else _vanilla_mining_tags()


def dig_categories(block: BlockInfo, tags: MiningTags | None = None) -> frozenset[str]:
    """The speed categories of ``block`` under ``tags`` (default: the vanilla pack's)."""
    return _tags(tags).categories(block)


def tool_speed(material: str | Iterable[str], item: str | None) -> float:
    """Mining speed of ``item`` (bare or namespaced, ``None`` = hand) on a block of speed categories
    ``material`` (an iterable, or a ``;``-joined string such as ``BlockInfo.material``); the best applicable
    speed wins."""
    if item is None:
        return 1.0
    c = mining_constants()
    name = namespaced(item)
    keys = set(material.split(";")) if isinstance(material, str) else set(material)
    best = 1.0
    if name in c["shear_items"]:
        best = max([best] + [c["shears_speed"][k] for k in keys if k in c["shears_speed"]])
    elif name in c["sword_items"]:
        best = max([best] + [c["sword_speed"][k] for k in keys if k in c["sword_speed"]])
    elif name in c["diggers"]:
        tier, tag = c["diggers"][name]
        if tag.partition(":")[2] in keys:
            best = max(best, c["tiers"][tier]["speed"])
    return best


def can_harvest(block: BlockInfo, item: str | None, tags: MiningTags | None = None) -> bool:
    """True when breaking ``block`` with ``item`` in hand makes it drop (vanilla ``hasCorrectToolForDrops``):
    the block does not require the correct tool, or ``item`` is one for it under ``tags``."""
    if not block.harvest_tools:
        return True
    if item is None:
        return False
    c = mining_constants()
    name = namespaced(item)
    if name in c["diggers"]:
        tier, tag = c["diggers"][name]
        t = _tags(tags)
        return c["tiers"][tier]["level"] >= t.needed_level(block) and block.name in t.tag(tag)
    if name in c["sword_items"]:
        return block.name in c["sword_harvests"]
    if name in c["shear_items"]:
        return block.name in c["shears_harvests"]
    return False


def harvest_tools(block: BlockInfo, tags: MiningTags | None = None) -> frozenset[str] | None:
    """The items that make ``block`` drop under ``tags``; ``None`` when any item (or a hand) does."""
    if not block.harvest_tools:
        return None
    c = mining_constants()
    tools = [*c["diggers"], *c["sword_items"], *c["shear_items"]]
    return frozenset(t for t in tools if can_harvest(block, t, tags))


@dataclass(frozen=True)
class DigConditions:
    """What, besides the block, changes dig speed."""

    item: str | None = None
    efficiency: int = 0
    haste: int = 0  # effect amplifier + 1 (Haste II → 2), 0 = none
    mining_fatigue: int = 0  # amplifier + 1, 0 = none
    in_water: bool = False
    aqua_affinity: bool = False
    on_ground: bool = True


def progress_per_tick(block: BlockInfo, cond: DigConditions, tags: MiningTags | None = None) -> float:
    """Fraction of the block broken per game tick (>= 1 means instant; 0 means never)."""
    if block.hardness is None or block.hardness < 0 or not block.diggable:
        return 0.0
    if block.hardness == 0:
        return 1.0
    c = mining_constants()
    speed = tool_speed(dig_categories(block, tags), cond.item)
    if speed > 1.0 and cond.efficiency > 0:
        speed += cond.efficiency**2 + 1
    if cond.haste > 0:
        speed *= 1.0 + cond.haste * c["haste_per_level"]
    if cond.mining_fatigue > 0:
        table = c["mining_fatigue"]
        speed *= table[min(cond.mining_fatigue, len(table)) - 1]
    if cond.in_water and not cond.aqua_affinity:
        speed /= c["underwater_divisor"]
    if not cond.on_ground:
        speed /= c["airborne_divisor"]
    harvestable = can_harvest(block, cond.item, tags)
    divisor = c["harvestable_divisor"] if harvestable else c["unharvestable_divisor"]
    return speed / block.hardness / divisor


def dig_ticks(block: BlockInfo, cond: DigConditions, tags: MiningTags | None = None) -> float:
    """Game ticks a player needs to break ``block`` (0 = instant, ``inf`` = unbreakable)."""
    p = progress_per_tick(block, cond, tags)
    if p <= 0:
        return math.inf
    if p >= 1:
        return 0
    return math.ceil(1.0 / p)


def finish_accepted(
    block: BlockInfo, cond: DigConditions, elapsed_ticks: int, tags: MiningTags | None = None
) -> bool:
    """Vanilla's check on "finished digging": ``progress * (elapsed + 1) >= 0.7`` (instant blocks always)."""
    p = progress_per_tick(block, cond, tags)
    if p >= 1:
        return True
    return p * (elapsed_ticks + 1) >= mining_constants()["server_accept_fraction"]
