"""Loot-table interpreter: rolls block drops and mob loot from datapack JSON, as vanilla 1.19.2 does.

Why: Mirror worlds change drops by overriding loot tables in a datapack, so the embedded server must not
know any drop itself; it reads the tables (vanilla ones from ``gamedata/vanilla_pack``, overridden by the
world's rule pack) and interprets them. This package knows the loot-table *language* and nothing about
particular items. It is split along the language's own sections (vanilla's
``net.minecraft.world.level.storage.loot`` packages, described on the Minecraft wiki page "Loot table"):

* :mod:`.context`: the loot parameters (tool, block, entities, explosion) and a roll's state;
* :mod:`.numbers`: number providers; :mod:`.predicates`: entity and block-state predicates (item,
  enchantment and bounds predicates are :mod:`mirrorcraft.rules.predicates`, shared with advancements);
* :mod:`.conditions`, :mod:`.functions`: conditions and item functions;
* :mod:`.entries`: entries and pools (how a pool picks one candidate by weight);
* :mod:`.tables`: compiling a table, the set of tables across packs, and :func:`roll`.

Functions run entry → pool → table, each gated by its own ``conditions``. All randomness comes from the
``random.Random`` passed in (Java's ``nextFloat()`` ↔ ``rng.random()``, ``nextInt(n)`` ↔
``rng.randrange(n)``), so the same seed gives the same drops. Draws happen in the same order as vanilla, but
the numbers differ from a Java server's (different generator). Results are
:class:`~mirrorcraft.rules.stack.Stack` values (no NBT).

Partial by design (documented in ``docs/loot.md``): ``copy_name``, ``copy_nbt``, ``copy_state`` and
``set_nbt`` are accepted as no-ops because loot stacks carry no NBT; predicates this benchmark never needs
(``nbt``/``potion``/``durability`` item predicates, ``location_check`` beyond block predicates,
``score``/``weather``/``time`` conditions, ``reference`` predicates) raise instead of being guessed. A
``loot_table`` reference cycle raises (vanilla logs a warning and drops nothing).
"""

from mirrorcraft.rules.loot.context import BlockView, EntityView, LootContext, SmeltLookup, ToolView
from mirrorcraft.rules.loot.functions import NO_OP_FUNCTIONS
from mirrorcraft.rules.loot.tables import LootTable, LootTableSet, parse_loot_table, roll
from mirrorcraft.rules.predicates import TagResolver

__all__ = [
    "NO_OP_FUNCTIONS",
    "BlockView",
    "EntityView",
    "LootContext",
    "LootTable",
    "LootTableSet",
    "SmeltLookup",
    "TagResolver",
    "ToolView",
    "parse_loot_table",
    "roll",
]
