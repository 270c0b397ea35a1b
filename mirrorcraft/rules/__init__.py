"""The embedded server's game-rules engine: interpreters over datapack JSON.

Datapacks are the single source of game rules (see ``docs/loot.md`` and the architecture notes): every
module in this package *interprets* data (loot tables, recipes, smelting, advancements) and holds no item,
block or entity id of its own, the way crafter's ``Player`` interprets ``data.yaml``. A guard test
(``tests/server/test_rules_are_data.py``) fails if a ``minecraft:`` item/block/entity id literal appears in
``mirrorcraft/rules/*.py``.

Modules:
    datapacks: loading the vanilla pack + a save's datapacks in vanilla's override order (``DatapackSet``).
    loot: vanilla 1.19.2 loot-table interpreter (block drops, mob loot) with seeded randomness.
    recipes: crafting-grid matching (shaped with mirroring, shapeless, tags) over the loaded recipes.
    cooking: furnace / blast furnace / smoker as a tick-driven state machine, incl. cooking-yield sidecars.
    enchanting: the enchanting-table offers and enchanting, seeded with a Java-compatible RNG.
    advancements: per-player advancement progress driven by criteria triggers from the loaded packs.
"""
