"""The rules of one world, loaded once when the server starts and handed to every feature that needs them.

What is built (``docs/rules.md`` "What the server must wire"): ONE
:class:`~mirrorcraft.rules.datapacks.DatapackSet` from the vendored vanilla pack, the save's ``datapacks/``
(sorted; folders with ``data/`` or ``.zip`` files) and the configured extra packs — a broken pack makes the
world fail to start with the :class:`~mirrorcraft.errors.DatapackError` naming file and field — plus the
vanilla-only set, the :class:`~mirrorcraft.rules.oracle.OutcomeOracle` (every outcome resolved with the
world's rules and with vanilla's, for the hidden evaluator), the fuel table and the enchanting table.

Why one object: the features must all play by the *same* rules (one parse of the packs, one recipe book),
and none of them should load packs itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from mirrorcraft.gamedata import VANILLA_PACK_DIR
from mirrorcraft.rules.cooking import FuelTable
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.enchanting import EnchantingTable
from mirrorcraft.rules.loot import LootContext, LootTableSet
from mirrorcraft.rules.oracle import Outcome, OutcomeOracle
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig


def pack_roots(config: ServerConfig) -> list[Path]:
    """Pack roots in load order: vendored vanilla pack, the save's ``datapacks/`` (sorted), extras."""
    roots = [Path(VANILLA_PACK_DIR)]
    packs = Path(config.world) / "datapacks"
    if packs.is_dir():
        for p in sorted(packs.iterdir()):
            if p.is_dir() and (p / "data").is_dir() or (p.is_file() and p.suffix == ".zip"):
                roots.append(p)
    roots += [Path(p) for p in config.extra_datapacks]
    return roots


@dataclass
class WorldRules:
    """The loaded rules of one world.

    Attributes:
        packs: The world's datapacks (vanilla, then the save's, then extras).
        vanilla: The vanilla-only set (what the oracle compares with).
        oracle: Outcomes resolved both ways; ``oracle.book`` is the world's recipe book.
        fuels: Burn times by item (from the world's packs).
        table: The enchanting table's rules.
    """

    packs: DatapackSet
    vanilla: DatapackSet
    oracle: OutcomeOracle
    fuels: FuelTable
    table: EnchantingTable

    @classmethod
    def load(cls, config: ServerConfig) -> WorldRules:
        """Load the packs of ``config``'s world.

        Raises:
            DatapackError: A pack is broken (the message names file and field).
        """
        packs = DatapackSet.load(pack_roots(config))
        vanilla = DatapackSet.vanilla_only()
        return cls(
            packs=packs,
            vanilla=vanilla,
            oracle=OutcomeOracle(packs, vanilla),
            fuels=FuelTable(packs),
            table=EnchantingTable(),
        )

    @property
    def loot(self) -> LootTableSet:
        """The world's loot tables."""
        return self.packs.loot

    def roll_loot(self, location: str, ctx: LootContext, rng: random.Random) -> tuple[list[Stack], Outcome]:
        """Roll loot table ``location`` through the oracle (``rng`` advances as if only the world's roll ran).

        Returns:
            The stacks to drop (namespaced, validated items) and the outcome resolved both ways.

        Raises:
            GameDataError: the table yields an item 1.19.2 does not have.
        """
        stacks, outcome = self.oracle.loot(location, ctx, rng)
        # The rules' loot result type is converted to the engine's Stack here, at the one boundary.
        return [Stack(facts.item_key(s.name), s.count) for s in stacks], outcome
