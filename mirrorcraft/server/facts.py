"""The vanilla 1.19.2 facts the embedded server needs (block states, items, shapes, effects, login codec).

Why a façade: the server asks a handful of questions (which state id is ``oak_log[axis=x]``, how hard is
state 1, which items harvest it, what is the collision box of this state, what is the registry codec
of protocol 759). ``mirrorcraft.gamedata`` is the single home of those facts; this module adapts its
answers to the small interface the server code uses (names in, ints or namespaced ids out), so the rest of
``mirrorcraft.server`` does not depend on the shape of gamedata's records. Items in the engine are
:class:`~mirrorcraft.rules.stack.Stack` values named by namespaced id (:func:`item_key`); the numeric
protocol id (:func:`item_id`) is only needed where a packet is encoded (``mirrorcraft.server.wire``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.gamedata import blocks as _blocks

#: The entity types the server itself simulates, as the protocol and the game's formats name them: what a
#: spawn packet, a selector's snapshot, a save's entity list or a loot context's entity says the entity
#: *is*. Never what it drops (that is its loot table's, read from the world's packs).
PLAYER_TYPE = "minecraft:player"
ITEM_TYPE = "minecraft:item"
COW_TYPE = "minecraft:cow"
#: The one level the embedded server runs (its dimension type and world name; ``execute in``).
OVERWORLD = "minecraft:overworld"

BlockInfo = _blocks.BlockInfo
all_blocks = _blocks.all_blocks
block = _blocks.block
block_by_id = _blocks.block_by_id
block_of_state = _blocks.block_of_state
collision_boxes = _blocks.collision_boxes
state_tables = _blocks.state_tables


def state_id(name: str, props: dict[str, str] | None = None) -> int:
    """Global state id of ``name`` with ``props`` overriding the default state's properties.

    Raises:
        GameDataError: unknown block, property or value.
    """
    return _blocks.state_id(name, **(props or {}))


def state_props(state: int) -> dict[str, str]:
    """The property values of a global state id (``{}`` for blocks without properties)."""
    return _blocks.block_of_state(state).state_properties(state)


def block_name(state: int) -> str:
    """Bare block name (``oak_log``) of a state id."""
    return _blocks.block_of_state(state).name.removeprefix("minecraft:")


def bare_names(ids: Iterable[str]) -> frozenset[str]:
    """The bare names (``oak_log``) of namespaced ids, the form :func:`block_name` returns (for the sets a
    feature compares block names with, built once from :mod:`mirrorcraft.rules` data)."""
    return frozenset(i.removeprefix("minecraft:") for i in ids)


def is_air(state: int) -> bool:
    """True for air, cave_air and void_air."""
    return bool(_blocks.state_tables().is_air[state])


@cache
def item_id(name: str) -> int:
    """Numeric item id of an item name (``minecraft:`` prefix optional).

    Raises:
        GameDataError: unknown item.
    """
    return gamedata.item(name).id


@cache
def item_name(item: int) -> str:
    """Bare item name of a numeric item id.

    Raises:
        GameDataError: unknown item id.
    """
    return gamedata.item_by_id(item).name.removeprefix("minecraft:")


@cache
def stack_size(item: int) -> int:
    """Maximum stack size of an item id."""
    return gamedata.item_by_id(item).stack_size


@cache
def item_key(name: str) -> str:
    """The namespaced item id (``minecraft:oak_log``) of an item name (prefix optional): what a
    :class:`~mirrorcraft.rules.stack.Stack` holds.

    Raises:
        GameDataError: unknown item.
    """
    return gamedata.item(name).name


@cache
def item_key_of(item: int) -> str:
    """The namespaced item id of a numeric protocol item id.

    Raises:
        GameDataError: unknown item id.
    """
    return f"minecraft:{item_name(item)}"


@cache
def max_stack(name: str) -> int:
    """Maximum stack size of an item by name (prefix optional).

    Raises:
        GameDataError: unknown item.
    """
    return gamedata.item(name).stack_size


@cache
def effect_id(name: str) -> int:
    """Protocol id of a mob effect (1-based in 1.19: ``haste`` → 3)."""
    return gamedata.effect(name).id


@cache
def entity_type(name: str) -> int:
    """Protocol id of an entity type (``item`` → 44, ``player`` → 116)."""
    return gamedata.entity(name).id


def registry_codec(protocol: int) -> bytes:
    """The exact network-NBT bytes of the vanilla login registry codec for ``protocol`` (760 or 759)."""
    return gamedata.registry_codec(protocol)


@cache
def _codec_nbt(protocol: int) -> Any:
    return gamedata.registry_codec_nbt(protocol)


def registry_codec_nbt(protocol: int) -> Any:
    """The registry codec as an nbtlib compound (parsed once per protocol; callers must not modify it)."""
    return _codec_nbt(protocol)
