"""Vanilla 1.19.2 block-breaking speed: how long a player needs to break a block, and whether it drops.

Why its own module: the server must not break a block sooner than the game allows (vanilla's
``ServerPlayerGameMode`` accepts a finish once ``progress_per_tick * (ticks + 1) >= 0.7``; an earlier one is
delayed until its own progress reaches 1), and Mineflayer computes the same dig time client-side, so both
must agree exactly. The constants that are Java code
rather than datapack data (tool tiers, effect multipliers, penalties) are in ``data/mining.json`` with
their source; block hardness, tool materials and which tools harvest a block come from gamedata.

Formula (Minecraft Wiki "Breaking", Java 1.19): ``speed`` = the tool's speed on the block's material
(1 if it does not help); + ``efficiency² + 1`` if ``speed > 1``; × ``1 + 0.2 (haste level)``; × the mining
fatigue factor; ÷ 5 if the eyes are in water without aqua affinity; ÷ 5 if not on the ground. Progress per
tick is ``speed / hardness / 30`` when the block is harvestable with the held item, else ``/ 100``;
hardness 0 breaks instantly, unbreakable blocks (hardness ``None``) never break.

Deliberate simplification (part 1): which tools speed up / harvest a block is read from gamedata's
per-block ``material`` and ``harvest_tools`` (minecraft-data, the vanilla ``mineable/*`` and
``needs_*_tool`` tags baked in), not re-resolved from a datapack's block tags.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from mirrorcraft.gamedata.blocks import BlockInfo


@cache
def mining_constants() -> dict[str, Any]:
    """The hand-authored constants of ``data/mining.json``."""
    return json.loads(resources.files("mirrorcraft.rules").joinpath("data/mining.json").read_text())


def tool_speed(material: str, item: str | None) -> float:
    """Mining speed of ``item`` (bare or namespaced name, ``None`` = hand) on a block ``material``.

    ``material`` is gamedata's ``BlockInfo.material``; several keys may be joined by ``;`` and the best
    applicable speed wins (e.g. ``leaves;mineable/hoe``).
    """
    if item is None:
        return 1.0
    c = mining_constants()
    name = item.removeprefix("minecraft:")
    keys = material.split(";")
    best = 1.0
    if name == "shears":
        best = max([best] + [c["shears"][k] for k in keys if k in c["shears"]])
    elif "_" in name:
        tier, kind = name.rsplit("_", 1)
        if kind == "sword" and tier in c["tier_speed"]:
            best = max([best] + [c["sword"][k] for k in keys if k in c["sword"]])
        elif kind in c["tool_material"] and tier in c["tier_speed"] and c["tool_material"][kind] in keys:
            best = max(best, c["tier_speed"][tier])
    return best


def can_harvest(block: BlockInfo, item: str | None) -> bool:
    """True when breaking ``block`` with ``item`` in hand makes it drop (vanilla ``hasCorrectToolForDrops``)."""
    if block.harvest_tools is None or not block.harvest_tools:
        return True
    if item is None:
        return False
    return ("minecraft:" + item.removeprefix("minecraft:")) in block.harvest_tools


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


def progress_per_tick(block: BlockInfo, cond: DigConditions) -> float:
    """Fraction of the block broken per game tick (>= 1 means instant; 0 means never)."""
    if block.hardness is None or not block.diggable:
        return 0.0
    if block.hardness == 0:
        return 1.0
    c = mining_constants()
    speed = tool_speed(block.material, cond.item)
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
    divisor = c["harvestable_divisor"] if can_harvest(block, cond.item) else c["unharvestable_divisor"]
    return speed / block.hardness / divisor


def dig_ticks(block: BlockInfo, cond: DigConditions) -> float:
    """Game ticks a player needs to break ``block`` (0 = instant, ``inf`` = unbreakable)."""
    p = progress_per_tick(block, cond)
    if p <= 0:
        return math.inf
    if p >= 1:
        return 0
    return math.ceil(1.0 / p)


def finish_accepted(block: BlockInfo, cond: DigConditions, elapsed_ticks: int) -> bool:
    """Vanilla's check on "finished digging": ``progress * (elapsed + 1) >= 0.7`` (instant blocks always)."""
    p = progress_per_tick(block, cond)
    if p >= 1:
        return True
    return p * (elapsed_ticks + 1) >= mining_constants()["server_accept_fraction"]
