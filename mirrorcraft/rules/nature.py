"""The world ticking by itself, as cited data: random ticks, the sky's darkening, leaf decay, grass spreading,
snow and ice melting, water freezing.

Why here: these are Java code of 1.19.2 (``ServerLevel.tickChunk``, ``LeavesBlock``, ``SpreadingSnowyDirtBlock``,
``IceBlock``...), not datapack data. The names (which blocks are leaves, what grass spreads onto) and the numbers
live in ``data/nature.json`` with their source; the server's random-tick and nature features ask these
functions. Tag names (``#logs``) are data, their members come from the world's packs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data

__all__ = [
    "FreezeRule",
    "LeavesRule",
    "SpreadRule",
    "freezing",
    "ice_melting",
    "leaves",
    "max_light",
    "nature_constants",
    "random_tick_range",
    "random_tick_speed_default",
    "sky_darken",
    "snow_layers",
    "spreading",
]


def nature_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/nature.json``."""
    return mechanics_data("nature")


def random_tick_speed_default() -> int:
    """``randomTickSpeed``'s default (3)."""
    return int(nature_constants()["random_ticks"]["default_speed"])


def random_tick_range() -> float:
    """A chunk ticks while a non-spectator player is this close (horizontally) to its centre."""
    return float(nature_constants()["random_ticks"]["player_range"])


def max_light() -> int:
    """The brightest light level (15)."""
    return int(nature_constants()["brightness"]["max"])


def sky_darken(day_time: int, rain: float = 0.0, thunder: float = 0.0) -> int:
    """``Level.updateSkyBrightness``: how much the sky light is dimmed at ``day_time`` (0 at noon in clear
    weather, 11 at midnight), with the rain and thunder levels 0..1."""
    c = nature_constants()["brightness"]
    t = (day_time / c["day_length"] - c["day_offset"]) % 1.0
    eased = 0.5 - math.cos(t * math.pi) / 2.0
    tod = (t * 2.0 + eased) / 3.0
    f = 0.5 + 2.0 * min(max(math.cos(tod * 2.0 * math.pi), -0.25), 0.25)
    dim = c["weather_dim"]
    return int((1.0 - f * (1.0 - rain * dim) * (1.0 - thunder * dim)) * c["darken_scale"])


@dataclass(frozen=True)
class LeavesRule:
    """``LeavesBlock``: which blocks, the log tag whose members are distance 0, the decay distance, the delay
    of the distance update."""

    blocks: frozenset[str]
    log_tag: str
    decay_distance: int
    tick_delay: int


@cache
def leaves() -> LeavesRule:
    """The leaves rule."""
    d = nature_constants()["leaves"]
    return LeavesRule(frozenset(d["blocks"]), d["log_tag"], int(d["decay_distance"]), int(d["tick_delay"]))


@dataclass(frozen=True)
class SpreadRule:
    """``SpreadingSnowyDirtBlock``: the spreading blocks, the block they spread onto and decay to."""

    blocks: frozenset[str]
    onto: str
    becomes: str
    min_light: int
    tries: int
    snow_layer: str


@cache
def spreading() -> SpreadRule:
    """The grass and mycelium rule."""
    d = nature_constants()["spreading"]
    return SpreadRule(frozenset(d["blocks"]), d["onto"], d["becomes"], int(d["min_light"]), int(d["tries"]),
                      d["snow_layer"])  # fmt: skip


def snow_layers() -> dict[str, Any]:
    """``SnowLayerBlock`` facts: ``block``, ``melt_above_block_light``, the survival tags, ``max_layers``."""
    return dict(nature_constants()["snow_layers"])


def ice_melting() -> dict[str, Any]:
    """``IceBlock`` facts: ``block``, ``melts_to``, ``melt_above_block_light``."""
    return dict(nature_constants()["ice_melting"])


@dataclass(frozen=True)
class FreezeRule:
    """The chunk tick's ice and snow pass."""

    one_in: int
    max_temperature: float
    max_block_light: int
    water: str
    ice: str


@cache
def freezing() -> FreezeRule:
    """The freezing rule."""
    d = nature_constants()["freezing"]
    return FreezeRule(
        int(d["one_in"]),
        float(d["max_temperature"]),
        int(d["max_block_light"]),
        d["water_block"],
        d["ice_block"],
    )


def snowy() -> dict[str, Any]:
    """``SnowyDirtBlock``: ``blocks`` whose ``snowy`` follows the block above being in the ``tag``."""
    return dict(nature_constants()["snowy"])
