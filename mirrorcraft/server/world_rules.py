"""The rules of one world, loaded once when the server starts and handed to every feature that needs them.

What is built (``docs/rules.md`` "What the server must wire"): ONE
:class:`~mirrorcraft.rules.datapacks.DatapackSet` from the vendored vanilla pack, the save's ``datapacks/``
(:func:`~mirrorcraft.rules.packs.save_pack_roots`: sorted by name, folders with a ``pack.mcmeta`` and
``.zip`` files, as vanilla lists them) and the configured extra packs — a broken pack makes the world fail
to start with the :class:`~mirrorcraft.errors.DatapackError` naming file and field — plus the vanilla-only
set, the :class:`~mirrorcraft.rules.oracle.OutcomeOracle` (every outcome resolved with the world's rules
and with vanilla's, for the hidden evaluator), the fuel table, the enchanting table and the digging tags
(which tools harvest which blocks: the world's ``mineable/*`` and ``needs_*_tool`` block tags).

Why one object: the features must all play by the *same* rules (one parse of the packs, one recipe book),
and none of them should load packs itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from mirrorcraft.rules.cooking import FuelTable
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.digging import MiningTags
from mirrorcraft.rules.enchanting import EnchantingTable
from mirrorcraft.rules.loot import LootContext, LootTableSet
from mirrorcraft.rules.oracle import Outcome, OutcomeOracle
from mirrorcraft.rules.packs import save_pack_roots
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server.config import ServerConfig


@dataclass
class WorldRules:
    """The loaded rules of one world.

    Attributes:
        packs: The world's datapacks (vanilla, then the save's, then extras).
        vanilla: The vanilla-only set (what the oracle compares with).
        oracle: Outcomes resolved both ways; ``oracle.book`` is the world's recipe book.
        fuels: Burn times by item (from the world's packs).
        table: The enchanting table's rules.
        mining: The world's block tags as digging reads them (dig speed and which tool harvests a block,
            so whether it drops).
    """

    packs: DatapackSet
    vanilla: DatapackSet
    oracle: OutcomeOracle
    fuels: FuelTable
    table: EnchantingTable
    mining: MiningTags

    @classmethod
    def load(cls, config: ServerConfig) -> WorldRules:
        """Load the packs of ``config``'s world.

        Raises:
            DatapackError: A pack is broken (the message names file and field).
        """
        packs = DatapackSet.load(save_pack_roots(Path(config.world), config.extra_datapacks))
        vanilla = DatapackSet.vanilla_only()
        return cls(
            packs=packs,
            vanilla=vanilla,
            oracle=OutcomeOracle(packs, vanilla),
            fuels=FuelTable(packs),
            table=EnchantingTable(),
            mining=MiningTags.of(packs),
        )

    @property
    def loot(self) -> LootTableSet:
        """The world's loot tables."""
        return self.packs.loot

    def roll_loot(self, location: str, ctx: LootContext, rng: random.Random) -> tuple[list[Stack], Outcome]:
        """Roll loot table ``location`` through the oracle (``rng`` advances as if only the world's roll ran).

        Returns:
            The stacks to drop (the engine's :class:`~mirrorcraft.rules.stack.Stack`, namespaced items the
            loot parser checked at load time) and the outcome resolved both ways.
        """
        return self.oracle.loot(location, ctx, rng)
