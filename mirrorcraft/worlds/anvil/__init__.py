"""Read and write Minecraft Java 1.19.2 Anvil saves (DataVersion 3120) without a game install.

Worlds are real saves so a vanilla 1.19.2 server or client can open them, and our embedded server loads
them. Block states are names plus properties here; numeric ids belong to the protocol layer.

Modules: :mod:`.bits` (packed long arrays), :mod:`.region` (``.mca`` files), :mod:`.chunk` (chunk and
section NBT), :mod:`.level` (``level.dat``), :mod:`.save` (the world folder), :mod:`.block_entities` (chests and
furnaces with their items). See docs/anvil.md.
"""

from mirrorcraft.worlds.anvil.block_entities import chest_nbt, furnace_nbt, item_nbt
from mirrorcraft.worlds.anvil.chunk import (
    AIR,
    HEIGHTMAP_TYPES,
    BlockState,
    Chunk,
    Section,
    compute_heightmaps,
    default_blocks_motion,
    make_state,
)
from mirrorcraft.worlds.anvil.level import BENCHMARK_GAME_RULES, VOID_FLAT_GENERATOR, LevelData
from mirrorcraft.worlds.anvil.save import Save, copy_save, entity_nbt_chicken, entity_nbt_cow, uuid_to_ints

__all__ = [
    "AIR",
    "BENCHMARK_GAME_RULES",
    "HEIGHTMAP_TYPES",
    "VOID_FLAT_GENERATOR",
    "BlockState",
    "Chunk",
    "LevelData",
    "Save",
    "Section",
    "chest_nbt",
    "compute_heightmaps",
    "copy_save",
    "default_blocks_motion",
    "entity_nbt_chicken",
    "entity_nbt_cow",
    "furnace_nbt",
    "item_nbt",
    "make_state",
    "uuid_to_ints",
]
