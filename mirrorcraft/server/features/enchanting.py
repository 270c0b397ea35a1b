"""The enchanting table: its window, the three offers, and enchanting with levels and lapis.

Vanilla behaviour followed (``EnchantmentMenu``, ``EnchantmentHelper``; the rules are
:class:`~mirrorcraft.rules.enchanting.EnchantingTable`): slot 0 takes one enchantable item, slot 1 lapis;
the offers depend on the bookshelves around the table (``count_bookshelves``) and the player's enchantment
seed, which is drawn once per player from the seeded ``enchant:<name>`` stream and renewed by every
enchant (vanilla ``Player.onEnchantmentPerformed``). The ``enchant_item`` (container button) packet
enchants: levels and lapis are spent, the item gets its enchantments in NBT as vanilla stores them, the
``enchant`` outcome is published (not rule-changed in 1.19: actual = vanilla) and the ``enchanted_item``
advancement trigger fires. Window properties 0-9: three costs, the seed & -16, three clue ids, three clue
levels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.advancements import ItemView
from mirrorcraft.rules.blocks import menu_blocks
from mirrorcraft.rules.enchanting import EnchantResult, JavaRandom, count_bookshelves
from mirrorcraft.server import facts, outcomes
from mirrorcraft.server.features.advancements import Advancements
from mirrorcraft.server.features.experience import Experience
from mirrorcraft.server.features.windows import Menu, Windows
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.stacks import Stack, enchanted_nbt, enchantments_of, max_stack_of, with_count
from mirrorcraft.server.world_rules import WorldRules

Pos = tuple[int, int, int]


@dataclass
class EnchantSeed:
    """One player's enchantment seed and the Java random it is drawn from."""

    seed: int
    java_random: JavaRandom


class EnchantmentMenu(Menu):
    """The enchanting table window (``EnchantmentMenu``): slot 0 the item, slot 1 lapis."""

    kind = "enchantment"
    n = 2

    def __init__(self, enchanting: Enchanting, player: Player, window_id: int, pos: Pos) -> None:
        super().__init__(player, window_id)
        self.enchanting = enchanting
        self.table = enchanting.rules.table
        self.pos = pos
        self.items: list[Stack | None] = [None, None]
        self.offers: list[Any] = []
        self._props: dict[int, int] = {}
        self.slots_changed()

    def cget(self, i: int) -> Stack | None:
        return self.items[i]

    def cset(self, i: int, s: Stack | None) -> None:
        self.items[i] = s

    def limit(self, i: int, s: Stack) -> int:
        return 1 if i == 0 else max_stack_of(s)

    def can_place(self, i: int, s: Stack) -> bool:
        if i == 1:
            return s.item == self.table.lapis
        return True

    def quick_move(self, i: int) -> None:
        if i < 2:
            self.move_into(i, 2, 38, reverse=True)
            return
        s = self.get(i)
        if s is not None and s.item == self.table.lapis:
            self.move_into(i, 1, 2)
        elif self.items[0] is None and s is not None:
            self.items[0] = with_count(s, 1)
            self.set(i, with_count(s, s.count - 1))

    def bookshelves(self) -> int:
        x0, y0, z0 = self.pos
        world = self.enchanting.kernel.world
        shelf = self.table.bookshelf.removeprefix("minecraft:")

        def is_shelf(dx: int, dy: int, dz: int) -> bool:
            return facts.block_name(world.get_block(x0 + dx, y0 + dy, z0 + dz)) == shelf

        def is_air(dx: int, dy: int, dz: int) -> bool:
            return facts.is_air(world.get_block(x0 + dx, y0 + dy, z0 + dz))

        return count_bookshelves(is_shelf, is_air)

    def slots_changed(self) -> None:
        item = self.items[0]
        table = self.table
        seed = self.enchanting.seed_of(self.player).seed
        if item is not None and not enchantments_of(item) and table.item_enchantability(item.item) > 0:
            self.offers = table.offers(item.item, self.bookshelves(), seed)
        else:
            self.offers = []
        if self.offers:
            self._props = table.properties(self.offers, seed)
        else:
            self._props = {k: 0 for k in range(3)} | {3: seed & -16} | {k: -1 for k in range(4, 10)}

    def properties(self) -> dict[int, int]:
        return self._props

    def enchant(self, button: int) -> bool:
        """``EnchantmentMenu.clickMenuButton``: True if the item was enchanted."""
        item, lapis = self.items
        if item is None or not self.offers or button not in (0, 1, 2):
            return False
        st = self.enchanting.seed_of(self.player)
        xp = self.enchanting.experience.state(self.player)
        table = self.table
        res = table.enchant(
            item.item,
            button,
            self.bookshelves(),
            st.seed,
            levels=xp.level,
            lapis=lapis.count if lapis else 0,
            player_random=st.java_random,
        )
        if res is None:
            return False
        self.items[0] = Stack(
            facts.item_key(res.item), 1, enchanted_nbt(res.item, res.enchantments, table.book)
        )
        self.items[1] = with_count(lapis, lapis.count - res.lapis_spent)  # type: ignore[union-attr]
        st.seed = res.new_seed
        self.enchanting.enchanted(self.player, item.item, res)
        self.slots_changed()
        return True

    def closed(self) -> list[Stack]:
        out = [s for s in self.items if s]
        self.items = [None, None]
        return out


class Enchanting:
    """Enchanting tables for every player."""

    def __init__(
        self,
        kernel: Kernel,
        rules: WorldRules,
        windows: Windows,
        experience: Experience,
        advancements: Advancements,
    ) -> None:
        self.kernel = kernel
        self.rules = rules
        self.windows = windows
        self.experience = experience
        #: The blocks whose use opens the enchantment menu (``rules.blocks``: the enchanting table).
        self.tables = facts.bare_names(menu_blocks(EnchantmentMenu.kind))
        self.advancements = advancements
        self.players: dict[str, EnchantSeed] = {}
        kernel.events.after("forget", lambda b: self.players.pop(b["who"], None))  # Join: bounded
        kernel.events.before("use_block", self._on_use_block)
        kernel.handlers.register("enchant_item", self._on_enchant_item)

    def seed_of(self, p: Player) -> EnchantSeed:
        """``p``'s enchantment seed (drawn from the seeded ``enchant:<name>`` stream on first use)."""
        st = self.players.get(p.display_name)
        if st is None:
            rng = JavaRandom(self.kernel.rng.stream(f"enchant:{p.display_name}").getrandbits(48))
            st = self.players[p.display_name] = EnchantSeed(rng.next_int(), rng)
        return st

    def _on_use_block(self, b: Behaviour) -> None:
        self.windows.open_on_use(b, self.tables, "enchanting", self._open)

    def _open(self, p: Player, pos: Pos) -> None:
        self.windows.open(p, "enchantment", pos, lambda wid: EnchantmentMenu(self, p, wid, pos))

    def _on_enchant_item(self, p: Player, pkt: sb.EnchantItem) -> None:
        """The ``enchant_item`` (container button) packet on the open window."""
        menu = self.windows.menu_of(p)
        if menu is None or menu.window_id != pkt.window_id:
            return
        if menu.enchant(pkt.enchantment):
            self.experience.send(p)
        self.windows.resync(p, menu)

    def enchanted(self, p: Player, item: str, res: EnchantResult) -> None:
        """An item was enchanted: spend the levels, publish the ``enchant`` outcome, fire the trigger."""
        self.experience.state(p).level -= res.levels_spent
        self.kernel.report(
            outcomes.enchant_event(
                item, res.item, dict(res.enchantments), res.levels_spent, player=p.display_name
            )
        )
        self.advancements.enchanted(
            p, ItemView(item=res.item, count=1, enchantments=dict(res.enchantments)), res.levels_spent
        )
        self.kernel.emit("enchant", player=p.display_name, item=res.item, enchantments=dict(res.enchantments))
