"""Part 2 of the embedded server: the rules engines wired into the running game, per-player progress
(advancements, experience, enchantment seed, the open window) and the hidden evaluator's notifications.

Why one ``Rules`` object hanging off :class:`~mirrorcraft.server.game.Game`: part 1's game owns players,
blocks and items and is still being edited by its own author, so every part-2 feature enters it through a
handful of one-line hooks (``game.rules.<hook>(...)``) plus the game's event listeners (``join``,
``block_broken``, ``block_placed``, ``click``). Everything else lives here and in the sibling modules
:mod:`~mirrorcraft.server.menus`, :mod:`~mirrorcraft.server.blockentities` and
:mod:`~mirrorcraft.server.mobs`.

What it builds once per world (``docs/rules.md`` "What the server must wire"): ONE
:class:`~mirrorcraft.rules.datapacks.DatapackSet` from the vendored vanilla pack, the save's
``datapacks/`` (sorted, folders or zips) and the configured extra packs — a broken pack makes the world
fail to start with the :class:`~mirrorcraft.errors.DatapackError` naming file and field — plus the
:class:`~mirrorcraft.rules.oracle.OutcomeOracle` (the world's and the vanilla recipe books), the fuel
table and the enchanting table. Every dig, craft take, smelt take, place, enchant and kill is published as an
``"outcome"`` event with its actual and vanilla outcome (:mod:`mirrorcraft.server.outcomes`; the harness's
evaluator listens); advancement completions too.

Information integrity: nothing here sends ``declare_recipes``, ``unlock_recipes`` or ``tags`` (a changed
recipe or tag would be visible in them); the advancements packet carries only the advancement tree, which
Mirror packs do not change.

Tick rate: every duration is counted in game ticks (furnace cook and burn times, mob AI, part 1's dig
timing), so an accelerated server stays consistent; clients are told the rate at join with a
``custom_payload`` on channel ``mirrorcraft:tick_rate`` whose data is the ticks per second as ASCII
decimal text (e.g. ``b"40.0"``); no such message means vanilla's 20.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.codec import encode
from mirrorcraft.rules.advancements import ItemView, PlayerAdvancements
from mirrorcraft.rules.cooking import FuelTable, Take
from mirrorcraft.rules.datapacks import DatapackSet
from mirrorcraft.rules.enchanting import EnchantingTable, EnchantResult, JavaRandom
from mirrorcraft.rules.loot import ItemStack as LootStack
from mirrorcraft.rules.loot import LootContext
from mirrorcraft.rules.oracle import Outcome, OutcomeOracle
from mirrorcraft.rules.recipes import CraftResult
from mirrorcraft.server import facts, outcomes, wire
from mirrorcraft.server.blockentities import BlockEntities
from mirrorcraft.server.config import seeded_rng
from mirrorcraft.server.inventory import Click
from mirrorcraft.server.menus import (
    MENU_BLOCKS,
    CraftingMenu,
    EnchantmentMenu,
    FurnaceMenu,
    InventoryCrafting,
    Menu,
    Stack,
    enchantments_of,
    name_of,
    open_window_body,
    predicted_matches,
    property_body,
    set_slot_body,
    window_items_body,
)

if TYPE_CHECKING:
    from mirrorcraft.server.connection import PlayerConnection
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

TICK_RATE_CHANNEL = "mirrorcraft:tick_rate"
ADV_SLOTS = range(5, 46)  # armour, main, hotbar, off hand: the 41 slots vanilla's trigger looks at


def total_xp(level: int) -> int:
    """Total experience points at the start of ``level`` (Minecraft Wiki "Experience", Java)."""
    if level <= 16:
        return level * level + 6 * level
    if level <= 31:
        return int(2.5 * level * level - 40.5 * level + 360)
    return int(4.5 * level * level - 162.5 * level + 2220)


def xp_needed(level: int) -> int:
    """Points from ``level`` to the next (vanilla ``Player.getXpNeededForNextLevel``)."""
    if level >= 30:
        return 112 + (level - 30) * 9
    return 37 + (level - 15) * 5 if level >= 15 else 7 + level * 2


@dataclass
class PlayerState:
    """Part-2 state of one player."""

    advancements: PlayerAdvancements
    enchant_seed: int
    java_random: JavaRandom
    level: int = 0
    progress: float = 0.0  # fraction of the bar
    menu: Menu | None = None
    next_window: int = 0
    snapshot: list[Any] = field(default_factory=list)
    crafting: InventoryCrafting | None = None


class Rules:
    """The part-2 rules of one running :class:`~mirrorcraft.server.game.Game`.

    Raises:
        DatapackError: A pack of the world is broken (the message names file and field).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        level = game.world.level
        self.packs = DatapackSet.load(game.pack_roots())
        self.vanilla = DatapackSet.vanilla_only()
        self.oracle = OutcomeOracle(self.packs, self.vanilla)
        self.fuels = FuelTable(self.packs)
        self.table = EnchantingTable()
        self.xp_rng = seeded_rng(level.seed, game.config.episode_seed, "xp")
        self.block_entities = BlockEntities(self)
        if game.config.world is not None:
            self.block_entities.load(game.config.world)
        self.players: dict[str, PlayerState] = {}
        self._last_loot: Outcome | None = None
        from mirrorcraft.server.mobs import Mobs

        self.mobs = Mobs(self)
        game.listeners.append(self._on_event)

    # ---- players ---------------------------------------------------------------------------------------

    def state(self, p: PlayerConnection) -> PlayerState:
        """The part-2 state of ``p`` (created on first use)."""
        st = self.players.get(p.display_name)
        if st is None:
            level = self.game.world.level
            rng = JavaRandom(
                seeded_rng(
                    level.seed, self.game.config.episode_seed, f"enchant:{p.display_name}"
                ).getrandbits(48)
            )
            st = PlayerState(
                advancements=PlayerAdvancements(self.packs),
                enchant_seed=rng.next_int(),
                java_random=rng,
                level=self.game.config.controls.xp_level,
            )
            st.snapshot = list(p.inventory.slots)
            st.crafting = InventoryCrafting(self, p)
            self.players[p.display_name] = st
        return st

    def _player(self, name: object) -> PlayerConnection | None:
        for p in self.game.players.values():
            if p.display_name == name:
                return p
        return None

    def _on_event(self, event: str, data: dict) -> None:
        p = self._player(data.get("player"))
        if event == "join" and p is not None:
            self.joined(p)
        elif event == "block_broken":
            self._broken(p, tuple(data["pos"]), str(data["block"]))  # type: ignore[arg-type]
        elif event == "block_placed":
            self.report(
                outcomes.place_event(str(data["block"]), pos=tuple(data["pos"]), player=data.get("player"))
            )
        elif event == "click" and p is not None and not data.get("part2"):
            self._grid_changed(p, data.get("slot") in (1, 2, 3, 4))

    def joined(self, p: PlayerConnection) -> None:
        """After part 1's join sequence: tick rate, advancements, experience, the mobs."""
        st = self.state(p)
        rate = self.game.config.tick_rate
        p.send(
            "plugin_message",
            encode(cb.CustomPayload(channel=TICK_RATE_CHANNEL, data=repr(float(rate)).encode())),
        )
        self.send_advancements(p, reset=True)
        self.send_xp(p)
        st.snapshot = list(p.inventory.slots)
        self.mobs.spawn_for(p)

    def send_advancements(self, p: PlayerConnection, reset: bool = True) -> None:
        """Send the player's advancement tree and progress (the ``advancements`` packet)."""
        st = self.state(p)
        ms = int(round(1000 / self.game.config.tick_rate))
        pkt = st.advancements.packet(reset=reset, ms_per_tick=ms)
        p.send("advancements", encode(pkt, p.protocol_version))

    def send_xp(self, p: PlayerConnection) -> None:
        st = self.state(p)
        total = total_xp(st.level) + int(st.progress * xp_needed(st.level))
        p.send("set_experience", wire.experience(st.progress, st.level, total))

    def add_xp(self, p: PlayerConnection, points: int) -> None:
        """Give experience points (vanilla ``giveExperiencePoints``; no orbs are spawned, see docs)."""
        st = self.state(p)
        st.progress += points / xp_needed(st.level)
        while st.progress >= 1.0:
            st.progress = (st.progress - 1.0) * xp_needed(st.level)
            st.level += 1
            st.progress /= xp_needed(st.level)
        self.send_xp(p)

    def give(self, p: PlayerConnection, stack: Stack) -> None:
        """Put a stack into the inventory (dropping what does not fit)."""
        if not stack:
            return
        if len(stack) > 2 and stack[2] is not None:
            for idx in list(range(36, 45)) + list(range(9, 36)):
                if p.inventory.slots[idx] is None:
                    p.inventory.slots[idx] = stack
                    return
            self.game.throw(p, (stack[0], stack[1]))
            return
        left, _ = p.inventory.add(stack[0], stack[1])
        if left:
            self.game.throw(p, (stack[0], left))

    # ---- ticking ---------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One game tick of part 2: furnaces (catching up skipped ticks), mobs, windows, advancements."""
        now = self.game.tick_count
        for pos, dev in self.block_entities.tick(now):
            state = self.game.world.get_block(*pos)
            props = facts.state_props(state)
            if "lit" in props:
                props["lit"] = "true" if dev.lit else "false"
                self.game.set_block(pos, facts.state_id(facts.block_name(state), props))
        self.mobs.tick()
        for p in list(self.game.players.values()):
            st = self.state(p)
            if st.menu is not None:
                self._broadcast_menu(p, st.menu)
            self._inventory_triggers(p, st)

    def _broadcast_menu(self, p: PlayerConnection, menu: Menu) -> None:
        """Vanilla ``broadcastChanges``: container slots and window properties that changed."""
        if not hasattr(menu, "sent_slots"):
            menu.sent_slots = [None] * menu.n  # type: ignore[attr-defined]
        for i in range(menu.n):
            s = menu.get(i)
            if s != menu.sent_slots[i]:  # type: ignore[attr-defined]
                menu.sent_slots[i] = s  # type: ignore[attr-defined]
                p.send("set_slot", set_slot_body(menu.window_id, p.inventory.state_id, i, s))
        for k, v in menu.properties().items():
            if menu.sent_props.get(k) != v:
                menu.sent_props[k] = v
                p.send("window_property", property_body(menu.window_id, k, v))

    def _inventory_triggers(self, p: PlayerConnection, st: PlayerState) -> None:
        ticked = st.advancements.tick(self.game.tick_count)  # the "tick" trigger fires every tick in vanilla
        if ticked:
            self._completed(p, ticked)
        slots = p.inventory.slots
        changed = [i for i in ADV_SLOTS if slots[i] != st.snapshot[i]]
        st.snapshot = list(slots)
        if not changed:
            return
        views = [self._view(slots[i]) for i in ADV_SLOTS]
        done: list[str] = []
        for i in changed:
            done += st.advancements.inventory_changed(views, self._view(slots[i]), self.game.tick_count)
        if done:
            self._completed(p, done)

    @staticmethod
    def _view(s: Stack) -> ItemView | None:
        if not s:
            return None
        return ItemView(item=name_of(s), count=s[1], enchantments=enchantments_of(s))  # type: ignore[arg-type]

    def _completed(self, p: PlayerConnection, advancements: list[str]) -> None:
        for adv in advancements:
            self.report(outcomes.milestone_event(adv, player=p.display_name))
            self.game.emit("advancement", player=p.display_name, advancement=adv)
        self.send_advancements(p, reset=True)

    # ---- loot (dig) ------------------------------------------------------------------------------------

    def roll_loot(self, location: str, ctx: LootContext) -> list[LootStack]:
        """Roll a loot table through the oracle (the world's RNG advances as if only the real roll ran)."""
        stacks, self._last_loot = self.oracle.loot(location, ctx, self.game.loot_rng)
        return stacks

    def _broken(self, p: PlayerConnection | None, pos: tuple[int, int, int], block: str) -> None:
        outcome, self._last_loot = self._last_loot, None
        if outcome is None:  # not harvestable with that tool: nothing dropped in either world
            outcome = Outcome(actual=[], vanilla=[])
        self.report(outcomes.dig_event(block, outcome, pos=pos, player=p.display_name if p else None))
        for item, count in self.block_entities.removed(pos):
            self.game.spawn_item(
                facts.item_id(item.removeprefix("minecraft:")),
                count,
                (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5),
                pop=True,
            )

    # ---- windows ---------------------------------------------------------------------------------------

    def use_block(self, p: PlayerConnection, hand: int, clicked: tuple[int, int, int]) -> bool:
        """use_item_on a block that opens a menu (crafting table, furnaces, enchanting table): open it.

        Returns:
            True if the click was consumed (no block is placed), as vanilla's ``InteractionResult``.
        """
        name = facts.block_name(self.game.world.get_block(*clicked))
        kind = MENU_BLOCKS.get(name if ":" in name else f"minecraft:{name}")
        if kind is None:
            return False
        held = p.inventory.slots[45 if hand == 1 else 36 + p.inventory.held]
        if p.sneaking and held is not None:
            return False  # sneaking with an item: place against the block instead
        if hand == 1:
            return True  # the main hand already opened it (the client sends the off hand only on failure)
        if not self.game._within_reach(p, clicked):
            return True
        st = self.state(p)
        if st.menu is not None:
            self.close(p, st.menu.window_id)
        st.next_window = st.next_window % 100 + 1  # vanilla containerCounter: 1..100
        wid = st.next_window
        menu: Menu
        if kind == "crafting":
            menu = CraftingMenu(self, p, wid)
        elif kind == "enchantment":
            menu = EnchantmentMenu(self, p, wid, clicked)
        else:
            dev = self.block_entities.device_at(clicked)
            if dev is None:
                return False
            menu = FurnaceMenu(self, p, wid, dev, clicked)
        st.menu = menu
        p.send("open_window", open_window_body(wid, kind))
        self._resync(p, menu)
        self.game.emit("window_opened", player=p.display_name, kind=kind, window=wid, pos=clicked)
        return True

    def _resync(self, p: PlayerConnection, menu: Menu) -> None:
        inv = p.inventory
        inv.state_id += 1
        p.send("window_items", window_items_body(menu, inv.state_id, inv.cursor))
        menu.sent_slots = [menu.get(i) for i in range(menu.n)]  # type: ignore[attr-defined]
        for k, v in menu.properties().items():
            menu.sent_props[k] = v
            p.send("window_property", property_body(menu.window_id, k, v))

    def click(self, p: PlayerConnection, c: Click) -> bool:
        """click_window on a container window, or on window 0's crafting result; False: part 1's click."""
        st = self.state(p)
        if c.window == 0:
            if c.slot != 0 or c.mode not in (0, 1):
                return False
            menu: Menu = st.crafting  # type: ignore[assignment]
        elif st.menu is None or st.menu.window_id != c.window:
            self.game.send_inventory(p)
            return True
        else:
            menu = st.menu
        before = menu.all_slots()
        try:
            thrown = menu.click(c.slot, c.button, c.mode)
        except Exception as err:  # noqa: BLE001 - a bad click resyncs the client, never kills the server
            log.info("%s: %s", p.display_name, err)
            self._resync(p, menu)
            return True
        for s in thrown:
            self.game.throw(p, (s[0], s[1]))
        if not predicted_matches(menu, c, before) or isinstance(menu, InventoryCrafting):
            self._resync(p, menu)
        else:
            self._broadcast_menu(p, menu)
            if isinstance(menu, CraftingMenu):  # vanilla slotChangedCraftingGrid always sends the result
                p.send("set_slot", set_slot_body(menu.window_id, p.inventory.state_id, 0, menu.get(0)))
        self.game.emit("click", player=p.display_name, window=c.window, slot=c.slot, mode=c.mode, part2=True)
        return True

    def _grid_changed(self, p: PlayerConnection, touched: bool) -> None:
        """After part 1 changed window 0: recompute the 2x2 grid's result slot (always sent when the grid was
        clicked, as vanilla's ``slotChangedCraftingGrid``; Mineflayer waits for it)."""
        st = self.state(p)
        grid = st.crafting
        if grid is None:
            return
        old = p.inventory.slots[0]
        grid.slots_changed()
        if touched or p.inventory.slots[0] != old:
            p.inventory.state_id += 1
            p.send("set_slot", set_slot_body(0, p.inventory.state_id, 0, p.inventory.slots[0]))

    def close(self, p: PlayerConnection, window: int) -> bool:
        """close_window: True if part 2 handled it (a container); window 0 also clears the result slot."""
        st = self.state(p)
        if window == 0:
            p.inventory.slots[0] = None
            return False
        menu = st.menu
        if menu is None or menu.window_id != window:
            return window != 0
        st.menu = None
        back = menu.closed()
        if p.inventory.cursor is not None:
            back.insert(0, p.inventory.cursor)
            p.inventory.cursor = None
        for s in back:
            self.give(p, s)
        self.game.send_inventory(p)
        return True

    def enchant_item(self, p: PlayerConnection, window: int, button: int) -> None:
        """The ``enchant_item`` (container button) packet."""
        st = self.state(p)
        menu = st.menu
        if menu is None or menu.window_id != window:
            return
        if menu.enchant(button):
            self.send_xp(p)
        self._resync(p, menu)

    def report(self, event: outcomes.OutcomeEvent) -> None:
        """Publish an outcome for the hidden evaluator (``"outcome"`` event; stamped with the tick now)."""
        if event.tick is None:
            event = event.model_copy(update={"tick": self.game.tick_count})
        self.game.emit("outcome", outcome=event)

    # ---- notifications from the menus ------------------------------------------------------------------

    def crafted(
        self, p: PlayerConnection, grid: list[list[str | None]], result: CraftResult, outcome: Outcome
    ) -> None:
        self.report(outcomes.craft_event(grid, result, outcome, player=p.display_name))
        self.game.emit(
            "craft", player=p.display_name, recipe=result.recipe, item=result.item, count=result.count
        )

    def smelted(self, p: PlayerConnection, device: str, take: Take, pos: tuple) -> None:
        outcome = self.oracle.cook_take(device, take)
        self.report(outcomes.smelt_event(device, take, outcome, player=p.display_name))
        if take.experience:
            self.add_xp(p, take.experience)
        self.game.emit("smelt", player=p.display_name, item=take.item, count=take.count, xp=take.experience)

    def enchanted(self, p: PlayerConnection, item: str, res: EnchantResult) -> None:
        st = self.state(p)
        st.level -= res.levels_spent
        self.report(
            outcomes.enchant_event(
                item, res.item, dict(res.enchantments), res.levels_spent, player=p.display_name
            )
        )
        done = st.advancements.enchanted_item(
            ItemView(item=res.item, count=1, enchantments=dict(res.enchantments)),
            res.levels_spent,
            self.game.tick_count,
        )
        if done:
            self._completed(p, done)
        self.game.emit("enchant", player=p.display_name, item=res.item, enchantments=dict(res.enchantments))
