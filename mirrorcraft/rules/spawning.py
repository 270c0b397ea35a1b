"""Natural spawning's block rules as cited data: what a creature may spawn on, and what it is never spawned
into.

Why data: vanilla's spawn checks (``Animal.checkAnimalSpawnRules``, ``NaturalSpawner.isValidEmptySpawnBlock``,
``EntityType.isBlockDangerous``) are Java code that names block tags and blocks; no datapack changes which
tags or blocks the code names, only the tags' members. The names live in ``data/spawning.json`` with their
source, the members come from the world's loaded packs (the caller passes the block tags), and the server's
spawning feature asks these functions instead of naming blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data

__all__ = [
    "dangerous_blocks",
    "dangerous_when_lit",
    "spawn_blocked_inside",
    "spawnable_on",
    "spawning_constants",
]


def spawning_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/spawning.json``."""
    return mechanics_data("spawning")


def spawnable_on(block_tags: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The blocks (namespaced) an animal may spawn on: ``#animals_spawnable_on`` in ``block_tags`` (a
    :class:`~mirrorcraft.rules.datapacks.DatapackSet`'s ``tags["blocks"]``); empty if no pack defines it."""
    return frozenset(block_tags.get(spawning_constants()["spawnable_on_tag"], ()))


def spawn_blocked_inside(block_tags: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The blocks (namespaced) no mob spawns with its feet or head in: ``#prevent_mob_spawning_inside``."""
    return frozenset(block_tags.get(spawning_constants()["spawn_blocked_inside_tag"], ()))


def dangerous_blocks() -> frozenset[str]:
    """The blocks (namespaced) a creature that is not fire-immune is never spawned into, in any state."""
    return frozenset(spawning_constants()["dangerous"])


def dangerous_when_lit() -> frozenset[str]:
    """The blocks (namespaced) that are dangerous only in a ``lit=true`` state (campfires)."""
    return frozenset(spawning_constants()["dangerous_when_lit"])
