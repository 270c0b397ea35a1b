"""Crop and plant states read from the world view (block state properties the chunks already carry).

Why a module of its own: farming skills need to know which crops are ripe, and the answer is in the block
state the body already decodes (``age`` of wheat, carrots, potatoes, beetroots, cocoa, stems, sweet berry
bushes, sugar cane). Nothing is guessed: the age is the state's property and the last age is the largest
value the block's ``age`` property allows (minecraft-data's states, a fact of the game version). What a
player may harvest is vanilla code, read from the cited mechanics data (``mirrorcraft.rules.plants``): a
crop is ripe at its last age, a sweet berry bush can be picked from ``harvest_min_age`` (2) on.
"""

from __future__ import annotations

from dataclasses import dataclass

from mirrorcraft.gamedata import block as block_info
from mirrorcraft.gamedata import block_of_state
from mirrorcraft.mcproto_body.world import World
from mirrorcraft.rules import plants as plant_rules

AGE = "age"


@dataclass(frozen=True)
class PlantState:
    """One plant as the world view shows it.

    Attributes:
        pos: Block position.
        block: Block name (``minecraft:wheat``).
        age: The state's ``age`` property.
        max_age: The largest ``age`` the block has.
        ripe: A crop at its last age, a berry bush that can be picked.
    """

    pos: tuple[int, int, int]
    block: str
    age: int
    max_age: int
    ripe: bool


def max_age(block_name: str) -> int | None:
    """The largest ``age`` a block's states allow, ``None`` for a block without ``age``."""
    info = block_info(block_name)
    for prop, values in info.properties:
        if prop == AGE:
            return max(int(v) for v in values)
    return None


def _ripe(block_name: str, age: int, last: int) -> bool:
    bush = plant_rules.berry_bush()
    if block_name == bush.block:
        return age >= int(bush.harvest_min_age)
    return age >= last


class Plants:
    """Queries over the world view for plants with an ``age``.

    Args:
        world: The body's :class:`World`.
    """

    def __init__(self, world: World) -> None:
        self.world = world

    def plant_at(self, x: int, y: int, z: int) -> PlantState | None:
        """The plant at a position (``None`` when unloaded or the block has no ``age``)."""
        state = self.world.state_at(x, y, z)
        if state is None:
            return None
        info = block_of_state(state)
        props = info.state_properties(state)
        if AGE not in props:
            return None
        last = max_age(info.name)
        age = int(props[AGE])
        return PlantState((x, y, z), info.name, age, last or age, _ripe(info.name, age, last or age))

    def ripe_states(self, block_name: str) -> list[int]:
        """Every state id of ``block_name`` that is ripe (see :class:`PlantState`)."""
        info = block_info(block_name)
        last = max_age(block_name)
        if last is None:
            return []
        out = []
        for s in range(info.min_state, info.max_state + 1):
            if _ripe(block_name, int(info.state_properties(s)[AGE]), last):
                out.append(s)
        return out

    def find(
        self, block_name: str, centre: tuple[int, int, int], radius: int, ripe_only: bool = True
    ) -> list[PlantState]:
        """Plants of ``block_name`` within ``radius`` (Chebyshev) of ``centre``, nearest first."""
        info = block_info(block_name)
        states = (
            self.ripe_states(block_name) if ripe_only else list(range(info.min_state, info.max_state + 1))
        )
        if not states:
            return []
        found = self.world.find_blocks(states, centre, radius)
        out = [self.plant_at(*p) for p in found]
        return [p for p in out if p is not None]
