"""Hunger and eating on the embedded server: food level, saturation, exhaustion, and ``use_item`` on food.

Why a module of its own: part 1 kept the food bar at a fixed 20 and ignored ``use_item``, so the agent's
``eat`` skill could only be refused. Vanilla's hunger is a small per-player state machine (``FoodData``)
fed by a few sources (the Hunger effect, breaking blocks, attacking) and read by two others (natural
regeneration, starvation); eating is a timed use of the held item. :class:`FoodRules` holds that state
per player (by name, like the admin state), ticks it from ``Game.tick`` and is entered through one-line
hooks in :mod:`~mirrorcraft.server.connection` (``use_item``, ``held_item_slot``), ``Game.dig`` (status 5,
release use item) and :mod:`~mirrorcraft.server.admin` (death and respawn).

Rules as data: the points and saturation a food restores come from gamedata's foods (minecraft-data
1.19.2 ``foods.json``; ``saturation`` there is the absolute value ``points x modifier x 2``). The few facts
that live in vanilla code, not data (which foods are always edible or fast, what a stew leaves behind,
the golden apples' effects), are the tables below, each citing the 1.19.2 class it comes from.

Vanilla behaviour followed (1.19.2 ``FoodData``, ``Player``, ``LivingEntity``, ``ServerPlayer``):

* ``FoodData.tick``: when exhaustion > 4 it loses 4 and saturation loses 1, or if saturation is 0 the
  food level loses 1 unless the difficulty is Peaceful. With ``naturalRegeneration``, a hurt player heals
  min(saturation, 6)/6 every 10 ticks while food is 20 and saturation > 0 (costing that much exhaustion),
  else 1 every 80 ticks while food >= 18 (costing 6); at food 0 starvation deals 1 every 80 ticks while
  health > 10 (Easy), > 1 (Normal) or always (Hard). Exhaustion is capped at 40.
* ``Player.aiStep`` in Peaceful with ``naturalRegeneration``: health +1 every 20 ticks and food +1 every
  10 ticks while below the maximum (the game tick stands in for the player's own tick counter).
* exhaustion sources: the Hunger effect 0.005 x (amplifier + 1) per tick (``MobEffect.applyEffectTick``),
  0.005 per broken block (``Block.playerDestroy``), 0.1 per landed attack (``Player.attack``). Creative and
  spectator players (invulnerable) gain none (``Player.causeFoodExhaustion``).
* eating: ``use_item`` with a food in that hand starts eating when the food level is below 20, the food is
  always edible, or the player is creative (``Player.canEat``); after 32 ticks (16 for fast food) one item
  is consumed (not in creative), ``FoodData.eat`` adds the points (cap 20) and the saturation (cap: the new
  food level), the slot is resent and ``entity_status`` 9 (finished using) goes to the eater. Switching
  the held slot, ``player_digging`` status 5 (release) or the item leaving that slot cancels the use
  (``ServerGamePacketListenerImpl.handleSetCarriedItem``, ``LivingEntity.updatingUsingItem``).
* ``update_health`` is sent when health or food changed or saturation became / stopped being 0
  (``ServerPlayer.doTick``), with the real values.

Partial (documented, not simulated): movement exhaustion (sprinting, jumping, swimming), the chance-based
food effects (rotten flesh, raw chicken, pufferfish, spider eye, poisonous potato, suspicious stew),
chorus fruit's teleport, eating sounds/particles and the "using item" metadata other players would see.
Starvation that kills reuses the admin ``kill`` path (its death message says "out of world").
Food state lives in memory for the server's lifetime (a reconnect keeps it; nothing is saved).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mirrorcraft.errors import GameDataError, ProtocolError
from mirrorcraft.gamedata import food as food_info
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol.codec import encode
from mirrorcraft.server import facts, wire
from mirrorcraft.server.inventory import OFFHAND
from mirrorcraft.server.menus import set_slot_body

if TYPE_CHECKING:
    from mirrorcraft.server.connection import PlayerConnection
    from mirrorcraft.server.game import Game

log = logging.getLogger(__name__)

MAX_FOOD = 20
MAX_HEALTH = 20.0
START_SATURATION = 5.0  # FoodData's initial saturation level
MAX_EXHAUSTION = 40.0
EAT_TICKS = 32  # Item.getUseDuration for food
FAST_EAT_TICKS = 16  # FoodProperties.isFastFood
EXHAUSTION_BREAK = 0.005  # Block.playerDestroy
EXHAUSTION_ATTACK = 0.1  # Player.attack
# Foods.java (1.19.2): FoodProperties.Builder.alwaysEat() / .fast()
ALWAYS_EDIBLE = frozenset({"golden_apple", "enchanted_golden_apple", "chorus_fruit"})
FAST_FOODS = frozenset({"dried_kelp"})
# BowlFoodItem / SuspiciousStewItem leave a bowl, HoneyBottleItem a glass bottle
REMAINDERS = {
    "mushroom_stew": "bowl",
    "rabbit_stew": "bowl",
    "beetroot_soup": "bowl",
    "suspicious_stew": "bowl",
    "honey_bottle": "glass_bottle",
}
# Foods.java: effects with probability 1.0 (effect, duration ticks, amplifier)
FOOD_EFFECTS: dict[str, tuple[tuple[str, int, int], ...]] = {
    "golden_apple": (("minecraft:regeneration", 100, 1), ("minecraft:absorption", 2400, 0)),
    "enchanted_golden_apple": (
        ("minecraft:regeneration", 400, 1),
        ("minecraft:resistance", 6000, 0),
        ("minecraft:fire_resistance", 6000, 0),
        ("minecraft:absorption", 2400, 3),
    ),
}
FINISHED_USING = 9  # entity_status: LivingEntity's "finished using item" event
MAX_CATCH_UP = 100  # ticks replayed after a reactor stall (Game._ticks caps skipped ticks at 100 too)


@dataclass
class Eating:
    """An item being eaten: the hand, its window-0 slot, the item id and the tick it completes on."""

    hand: int
    slot: int
    item: int
    done_tick: int


@dataclass
class FoodData:
    """Vanilla ``FoodData`` of one player, plus the item being eaten and the last values sent."""

    food: int = MAX_FOOD
    saturation: float = START_SATURATION
    exhaustion: float = 0.0
    timer: int = 0
    eating: Eating | None = None
    sent: tuple[float, int, bool] | None = field(default=None, repr=False)

    def add_exhaustion(self, amount: float) -> None:
        """``FoodData.addExhaustion``: capped at 40."""
        self.exhaustion = min(self.exhaustion + amount, MAX_EXHAUSTION)

    def eat(self, points: int, saturation: float) -> None:
        """``FoodData.eat``: points capped at 20, saturation capped at the new food level."""
        self.food = min(points + self.food, MAX_FOOD)
        self.saturation = min(self.saturation + saturation, float(self.food))


class FoodRules:
    """Hunger and eating for every player of one :class:`Game` (built as ``game.food``)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.players: dict[str, FoodData] = {}
        self._last_tick: int | None = None
        game.listeners.append(self._on_event)

    # ---- state ------------------------------------------------------------------------------------------

    def state(self, p: PlayerConnection) -> FoodData:
        """Food state of ``p`` (kept by name across reconnects)."""
        st = self.players.get(p.display_name)
        if st is None:
            st = self.players[p.display_name] = FoodData()
        return st

    def reset(self, p: PlayerConnection) -> None:
        """A respawned player gets a fresh ``FoodData`` (vanilla builds a new player on respawn)."""
        self.players[p.display_name] = FoodData()

    def health_body(self, p: PlayerConnection) -> bytes:
        """The ``update_health`` body with ``p``'s real values (and remember them as sent)."""
        st = self.state(p)
        st.sent = (p.health, st.food, st.saturation == 0.0)
        return wire.update_health(p.health, st.food, st.saturation)

    def _invulnerable(self, p: PlayerConnection) -> bool:
        return self.game.admin.game_mode(p) in ("creative", "spectator")

    def add_exhaustion(self, p: PlayerConnection, amount: float) -> None:
        """``Player.causeFoodExhaustion``: nothing for invulnerable (creative/spectator) players."""
        if not self._invulnerable(p):
            self.state(p).add_exhaustion(amount)

    def _on_event(self, event: str, data: dict) -> None:
        if event not in ("block_broken", "mob_hurt") or data.get("player") is None:
            return
        for p in self.game.players.values():
            if p.display_name == data["player"]:
                self.add_exhaustion(p, EXHAUSTION_BREAK if event == "block_broken" else EXHAUSTION_ATTACK)

    # ---- eating (serverbound hooks) ---------------------------------------------------------------------

    def use_item(self, p: PlayerConnection, hand: int) -> bool:
        """``use_item``: start eating the food in ``hand``; True if eating started.

        Anything that is not a food is left alone (other item uses are not simulated).

        Raises:
            ProtocolError: ``hand`` is not 0 (main) or 1 (off hand); the connection closes on it, as
                vanilla's enum read fails.
        """
        if hand not in (0, 1):
            raise ProtocolError(f"use_item: hand {hand} is not 0 (main hand) or 1 (off hand)")
        if self.game.admin.state(p).dead or self.game.admin.game_mode(p) == "spectator":
            return False
        slot = OFFHAND if hand == 1 else 36 + p.inventory.held
        stack = p.inventory.slots[slot]
        if stack is None:
            return False
        name = facts.item_name(stack[0])
        try:
            food_info(name)
        except GameDataError:
            return False
        st = self.state(p)
        creative = self.game.admin.game_mode(p) == "creative"
        if not (st.food < MAX_FOOD or name in ALWAYS_EDIBLE or creative):  # Player.canEat
            return False
        ticks = FAST_EAT_TICKS if name in FAST_FOODS else EAT_TICKS
        st.eating = Eating(hand, slot, stack[0], self.game.tick_count + ticks)
        self.game.emit("eat_started", player=p.display_name, item=name, ticks=ticks)
        return True

    def held_changed(self, p: PlayerConnection, slot: int) -> None:
        """``held_item_slot``: a different hotbar slot stops a main-hand use (vanilla ``stopUsingItem``)."""
        st = self.state(p)
        if st.eating is not None and st.eating.hand == 0 and slot != p.inventory.held:
            self._cancel(p, st, "switched slot")

    def release(self, p: PlayerConnection) -> None:
        """``player_digging`` status 5 (release use item): stop eating."""
        st = self.state(p)
        if st.eating is not None:
            self._cancel(p, st, "released")

    def _cancel(self, p: PlayerConnection, st: FoodData, why: str) -> None:
        st.eating = None
        self.game.emit("eat_cancelled", player=p.display_name, reason=why)

    def _finish(self, p: PlayerConnection, st: FoodData) -> None:
        eating = st.eating
        assert eating is not None
        st.eating = None
        inv = p.inventory
        name = facts.item_name(eating.item)
        info = food_info(name)
        st.eat(int(info.food_points), info.saturation)
        changed = {eating.slot}
        if self.game.admin.game_mode(p) != "creative":  # Item.finishUsingItem: stack.shrink unless instabuild
            stack = inv.slots[eating.slot]
            assert stack is not None
            inv.slots[eating.slot] = (stack[0], stack[1] - 1, *stack[2:]) if stack[1] > 1 else None
            rest = REMAINDERS.get(name)
            if rest is not None:
                rid = facts.item_id(rest)
                if inv.slots[eating.slot] is None:
                    inv.slots[eating.slot] = (rid, 1)
                else:
                    left, more = inv.add(rid, 1)
                    changed |= more
                    if left:
                        self.game.throw(p, (rid, left))
        for idx in sorted(changed):
            inv.state_id += 1
            p.send("set_slot", set_slot_body(0, inv.state_id, idx, inv.slots[idx]))
        p.send("entity_status", encode(cb.EntityStatus(entity_id=p.eid, status=FINISHED_USING)))
        for effect, ticks, amplifier in FOOD_EFFECTS.get(name, ()):
            self.game.admin.add_effect(p, effect, ticks, amplifier, False)
        self.game.emit("ate", player=p.display_name, item=name, food=st.food, saturation=st.saturation)

    # ---- ticking ----------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One game tick (or the ticks a stalled reactor skipped) for every living player."""
        now = self.game.tick_count
        first = now if self._last_tick is None else max(self._last_tick + 1, now - MAX_CATCH_UP + 1)
        self._last_tick = now
        for p in list(self.game.players.values()):
            if self.game.admin.state(p).dead:
                continue
            st = self.state(p)
            for k, t in enumerate(range(first, now + 1)):
                self._tick_player(p, st, t, k)
                if self.game.admin.state(p).dead:
                    break
            key = (p.health, st.food, st.saturation == 0.0)
            if key != st.sent and not self.game.admin.state(p).dead:
                p.send("update_health", self.health_body(p))

    def _tick_player(self, p: PlayerConnection, st: FoodData, t: int, k: int) -> None:
        """Tick ``t``, the ``k``-th of this batch (the admin state counts the batch's effect time after)."""
        admin = self.game.admin
        # LivingEntity.tickEffects: the Hunger effect, while it has duration left (MobEffectInstance.tick)
        for eff in admin.effects_of(p):
            if eff.effect == "minecraft:hunger" and k < eff.remaining:
                self.add_exhaustion(p, 0.005 * (eff.amplifier + 1))
        # LivingEntity.updatingUsingItem: the item must still be in the slot; completes on its tick
        if st.eating is not None:
            stack = p.inventory.slots[st.eating.slot]
            if stack is None or stack[0] != st.eating.item:
                self._cancel(p, st, "item left the hand")
            elif t >= st.eating.done_tick:
                self._finish(p, st)
        regen = bool(admin.game_rules["naturalRegeneration"])
        difficulty = admin.difficulty
        # Player.aiStep: Peaceful regeneration
        if difficulty == "peaceful" and regen:
            if p.health < MAX_HEALTH and t % 20 == 0:
                p.health = min(MAX_HEALTH, p.health + 1.0)
            if st.food < MAX_FOOD and t % 10 == 0:
                st.food += 1
        # FoodData.tick
        if st.exhaustion > 4.0:
            st.exhaustion -= 4.0
            if st.saturation > 0.0:
                st.saturation = max(st.saturation - 1.0, 0.0)
            elif difficulty != "peaceful":
                st.food = max(st.food - 1, 0)
        hurt = 0.0 < p.health < MAX_HEALTH
        if regen and st.saturation > 0.0 and hurt and st.food >= MAX_FOOD:
            st.timer += 1
            if st.timer >= 10:
                amount = min(st.saturation, 6.0)
                p.health = min(MAX_HEALTH, p.health + amount / 6.0)
                st.add_exhaustion(amount)
                st.timer = 0
        elif regen and st.food >= 18 and hurt:
            st.timer += 1
            if st.timer >= 80:
                p.health = min(MAX_HEALTH, p.health + 1.0)
                st.add_exhaustion(6.0)
                st.timer = 0
        elif st.food <= 0:
            st.timer += 1
            if st.timer >= 80:
                if p.health > 10.0 or difficulty == "hard" or (p.health > 1.0 and difficulty == "normal"):
                    p.health -= 1.0  # DamageSource.STARVE bypasses armour and Resistance
                    if p.health <= 0.0:
                        log.info("%s starved", p.display_name)
                        admin.kill_player(p)
                st.timer = 0
        else:
            st.timer = 0


__all__ = ["FoodData", "FoodRules"]
