"""Hunger and eating on the embedded server: food level, saturation, exhaustion, and ``use_item`` on food.

Why a feature of its own: vanilla's hunger is a small per-player state machine (``FoodData``) fed by a few
sources (the Hunger effect, breaking blocks, attacking) and read by two others (natural regeneration,
starvation); eating is a timed use of the held item. :class:`Food` holds that state per player (by name,
like the admin state), ticks it in the ``food`` tick phase (before the admin phase: an effect acts on the
tick its duration runs out), handles ``use_item`` and ``player_digging`` status 5 (release use item), and
hooks into the other features' behaviours: ``"held_slot"`` (switching slots stops eating),
``"block_broken"`` and ``"mob_hurt"`` (exhaustion), ``"death"`` (eating stops, the health bar is sent) and
``"respawn"`` (a fresh food bar). It owns the ``update_health`` packet (health with food and saturation).

Rules as data: the points and saturation a food restores come from gamedata's foods (minecraft-data
1.19.2 ``foods.json``; ``saturation`` there is the absolute value ``points x modifier x 2``). The few facts
that live in vanilla code, not data (which foods are always edible or fast, what a stew leaves behind,
the golden apples' effects), are :mod:`mirrorcraft.rules.items` (``rules/data/items.json``, citing the
1.19.2 classes they come from).

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
* every vanilla food (the 40 of ``foods.json``: golden carrots, rabbit stew, cookies...) restores its points
  and saturation; the effects of ``Foods.java`` are given, the certain ones (golden apples, pufferfish,
  spider eye) always and the chance ones (raw chicken 30 % hunger, poisonous potato 60 % poison, rotten flesh
  80 % hunger) with ``nextFloat() < probability`` from the seeded ``food`` stream; a honey bottle takes 40
  ticks to drink and cures poison.
* **milk** (``MilkBucketItem``): not a food, drunk in 32 ticks whatever the food level; it removes every
  effect (the benchmark's Haste and Speed too, as vanilla) and leaves a bucket (creative keeps the milk).
* **cake** (``CakeBlock``): using a placed cake (not sneaking with an item) when the player can eat (food
  below 20, or creative) eats a slice at once — ``FoodData.eat(2, 0.1)``: +2 food, +0.4 saturation — and
  the cake loses a bite; the seventh slice removes the block. Not hungry, the use passes (a held block is
  placed against the cake). A cake needs a solid block below: placed only there, and it goes (no drops:
  ``blocks/cake`` has no pools) when that block does. Events ``ate`` (``item="cake"``, ``bites``).

Partial (documented, not simulated): movement exhaustion (sprinting, jumping, swimming), suspicious stew's
effect (it is eaten as a stew: its effect comes from the stew's NBT, which item stacks here do not
carry), candles on cakes, chorus fruit's teleport, eating sounds/particles and the "using item" metadata
other players would see.
Starvation that kills reuses the admin feature's kill with vanilla's ``death.attack.starve`` message.
Food state lives in memory for the server's lifetime (a reconnect keeps it; nothing is saved).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from mirrorcraft.errors import GameDataError, ProtocolError
from mirrorcraft.gamedata import food as food_info
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.items import (
    always_edible,
    block_food,
    chance_effects,
    cures,
    drink,
    eaten_remainder,
    fast_food,
    food_effects,
    use_ticks,
)
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.blockupdates import BlockUpdates, PlaceContext
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.physics import within_reach
from mirrorcraft.server.kernel.stacks import Stack

log = logging.getLogger(__name__)

MAX_FOOD = 20
MAX_HEALTH = 20.0
START_SATURATION = 5.0  # FoodData's initial saturation level
MAX_EXHAUSTION = 40.0
EAT_TICKS = 32  # Item.getUseDuration for food
FAST_EAT_TICKS = 16  # FoodProperties.isFastFood
EXHAUSTION_BREAK = 0.005  # Block.playerDestroy
EXHAUSTION_ATTACK = 0.1  # Player.attack
FINISHED_USING = 9  # entity_status: LivingEntity's "finished using item" event
MAX_CATCH_UP = 100  # ticks replayed after a reactor stall (the clock counts at most 100 skipped ticks too)


@dataclass
class Eating:
    """An item being eaten: the hand, its window-0 slot, the item and the tick it completes on."""

    hand: int
    slot: int
    item: str
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


class Food:
    """Hunger and eating for every player of one game."""

    def __init__(
        self, kernel: Kernel, admin: Admin, effects: Effects, items: Items, updates: BlockUpdates
    ) -> None:
        self.kernel = kernel
        self.admin = admin
        self.effects = effects
        self.items = items
        self.rng = kernel.rng.stream("food")
        self.players: dict[str, FoodData] = {}
        kernel.events.after("forget", lambda b: self.players.pop(b["who"], None))  # Join: bounded
        self.cake = block_food()
        cake_block = facts.block(self.cake["block"])
        self._cake_id = cake_block.id
        self._no_collision = facts.state_tables().no_collision
        updates.on_place([cake_block.name], self._place_cake)
        updates.on_shape([cake_block.name], self._cake_shape)
        self._last_tick: int | None = None
        ev = kernel.events
        ev.before("held_slot", lambda b: self.held_changed(b.player, b["slot"]))
        ev.after(
            "block_broken", lambda b: b.player is not None and self.add_exhaustion(b.player, EXHAUSTION_BREAK)
        )
        ev.after("mob_hurt", lambda b: self.add_exhaustion(b.player, EXHAUSTION_ATTACK))
        ev.after("death", self._died)
        ev.after("respawn", self._respawned)
        ev.before("use_block", self._use_block)
        kernel.handlers.register("use_item", self._on_use_item)
        kernel.handlers.register("block_dig", self._on_block_dig)

    # ---- state ------------------------------------------------------------------------------------------

    def state(self, p: Player) -> FoodData:
        """Food state of ``p`` (kept by name across reconnects)."""
        st = self.players.get(p.display_name)
        if st is None:
            st = self.players[p.display_name] = FoodData()
        return st

    def reset(self, p: Player) -> None:
        """A respawned player gets a fresh ``FoodData`` (vanilla builds a new player on respawn)."""
        self.players[p.display_name] = FoodData()

    def health_body(self, p: Player) -> bytes:
        """The ``update_health`` body with ``p``'s real values (and remember them as sent)."""
        st = self.state(p)
        st.sent = (p.health, st.food, st.saturation == 0.0)
        return wire.update_health(p.health, st.food, st.saturation)

    def _invulnerable(self, p: Player) -> bool:
        return self.admin.game_mode(p) in ("creative", "spectator")

    def add_exhaustion(self, p: Player, amount: float) -> None:
        """``Player.causeFoodExhaustion``: nothing for invulnerable (creative/spectator) players."""
        if not self._invulnerable(p):
            self.state(p).add_exhaustion(amount)

    def _broke(self, b: Behaviour) -> None:
        if b.player is not None:  # a command's setblock destroy has no breaker
            self.add_exhaustion(b.player, EXHAUSTION_BREAK)

    def _died(self, b: Behaviour) -> None:
        p = b.player
        self.state(p).eating = None
        p.send("update_health", self.health_body(p))

    def _respawned(self, b: Behaviour) -> None:
        p = b.player
        self.reset(p)  # vanilla respawns a new player: food 20, saturation 5
        p.send("update_health", self.health_body(p))

    # ---- eating (serverbound packets) -------------------------------------------------------------------

    def _on_use_item(self, p: Player, pkt: sb.UseItem) -> None:
        self.use_item(p, pkt.hand)  # eating; other item uses are not simulated
        p.send("acknowledge_block_changes", wire.acknowledge_block_changes(pkt.sequence))

    def _on_block_dig(self, p: Player, pkt: sb.BlockDig) -> None:
        if pkt.status == 5:  # release use item: stops eating
            self.release(p)

    def use_item(self, p: Player, hand: int) -> bool:
        """``use_item``: start eating the food in ``hand``; True if eating started.

        Anything that is not a food is left alone (other item uses are not simulated).

        Raises:
            ProtocolError: ``hand`` is not 0 (main) or 1 (off hand); the connection closes on it, as
                vanilla's enum read fails.
        """
        if hand not in (0, 1):
            raise ProtocolError(f"use_item: hand {hand} is not 0 (main hand) or 1 (off hand)")
        if self.admin.is_dead(p) or self.admin.game_mode(p) == "spectator":
            return False
        slot = p.inventory.hand_slot(hand)
        stack = p.inventory.slots[slot]
        if stack is None:
            return False
        name = stack.item.removeprefix("minecraft:")
        st = self.state(p)
        if drink(stack.item) is not None:  # MilkBucketItem.use: startUsingInstantly, whatever the food level
            ticks = use_ticks(stack.item) or EAT_TICKS
        else:
            try:
                food_info(name)
            except GameDataError:
                return False
            creative = self.admin.game_mode(p) == "creative"
            if not (st.food < MAX_FOOD or always_edible(stack.item) or creative):  # Player.canEat
                return False
            ticks = use_ticks(stack.item) or (FAST_EAT_TICKS if fast_food(stack.item) else EAT_TICKS)
        st.eating = Eating(hand, slot, stack.item, self.kernel.tick_count + ticks)
        self.kernel.emit("eat_started", player=p.display_name, item=name, ticks=ticks)
        return True

    def held_changed(self, p: Player, slot: int) -> None:
        """``held_item_slot``: a different hotbar slot stops a main-hand use (vanilla ``stopUsingItem``)."""
        st = self.state(p)
        if st.eating is not None and st.eating.hand == 0 and slot != p.inventory.held:
            self._cancel(p, st, "switched slot")

    def release(self, p: Player) -> None:
        """``player_digging`` status 5 (release use item): stop eating."""
        st = self.state(p)
        if st.eating is not None:
            self._cancel(p, st, "released")

    def _cancel(self, p: Player, st: FoodData, why: str) -> None:
        st.eating = None
        self.kernel.emit("eat_cancelled", player=p.display_name, reason=why)

    def _finish(self, p: Player, st: FoodData) -> None:
        eating = st.eating
        assert eating is not None
        st.eating = None
        inv = p.inventory
        name = eating.item.removeprefix("minecraft:")
        drunk = drink(eating.item)
        if drunk is None:
            info = food_info(name)
            st.eat(int(info.food_points), info.saturation)
        changed = {eating.slot}
        if self.admin.game_mode(p) != "creative":  # Item.finishUsingItem: stack.shrink unless instabuild
            stack = inv.slots[eating.slot]
            assert stack is not None
            inv.slots[eating.slot] = stack._replace(count=stack.count - 1) if stack.count > 1 else None
            rest = drunk["leaves"] if drunk is not None else eaten_remainder(eating.item)
            if rest is not None:
                rkey = facts.item_key(rest)
                if inv.slots[eating.slot] is None:
                    inv.slots[eating.slot] = Stack(rkey, 1)
                else:
                    left, more = inv.add(rkey, 1)
                    changed |= more
                    if left:
                        self.items.throw(p, Stack(rkey, left))
        p.send_slots(changed)
        p.send("entity_status", wire.entity_status(p.eid, FINISHED_USING))
        if drunk is not None and drunk.get("clears_effects"):
            self.effects.remove(p, None)  # LivingEntity.removeAllEffects
        for effect in cures(eating.item):
            self.effects.remove(p, effect)
        for effect, ticks, amplifier in food_effects(eating.item):
            self.effects.add(p, effect, ticks, amplifier, False)
        for effect, ticks, amplifier, chance in chance_effects(eating.item):  # FoodData.eat -> addEatEffect
            if self.rng.random() < chance:
                self.effects.add(p, effect, ticks, amplifier, False)
        self.kernel.emit("ate", player=p.display_name, item=name, food=st.food, saturation=st.saturation)

    # ---- cake (a block eaten by use) -------------------------------------------------------------------

    def _use_block(self, b: Behaviour) -> None:
        """``CakeBlock.use``: eat a slice when the player can eat; otherwise pass (a held block is placed)."""
        p, pos = b.player, b["pos"]
        world = self.kernel.world
        state = world.get_block(*pos)
        if facts.block_of_state(state).id != self._cake_id:
            return
        held = p.inventory.slots[p.inventory.hand_slot(b["hand"])]
        if p.sneaking and held is not None:
            return  # sneaking with an item: the item is used (placed) instead
        if self.admin.is_dead(p) or not within_reach(p.pos, pos):
            return
        st = self.state(p)
        mode = self.admin.game_mode(p)
        if mode == "spectator" or not (st.food < MAX_FOOD or mode == "creative"):  # Player.canEat(false)
            return
        b.cancel("food")
        c = self.cake
        st.eat(int(c["nutrition"]), c["nutrition"] * c["saturation_modifier"] * 2.0)
        bites = int(facts.state_props(state)["bites"])
        if bites < int(c["max_bites"]):
            self.kernel.set_block(pos, facts.block_of_state(state).state(bites=str(bites + 1)))
        else:
            self.kernel.set_block(pos, 0)  # Level.removeBlock: no drops
        p.send("update_health", self.health_body(p))
        self.kernel.emit(
            "ate",
            player=p.display_name,
            item=self.cake["block"].removeprefix("minecraft:"),
            food=st.food,
            saturation=st.saturation,
            bites=bites + 1,
        )

    def _cake_supported(self, pos: tuple[int, int, int]) -> bool:
        """``CakeBlock.canSurvive``: the block below is solid (``Material.isSolid``: has a collision box)."""
        below = self.kernel.world.get_block(pos[0], pos[1] - 1, pos[2])
        return not facts.is_air(below) and not bool(self._no_collision[below])

    def _place_cake(self, ctx: PlaceContext) -> int | None:
        return ctx.state if self._cake_supported(ctx.pos) else None

    def _cake_shape(self, pos: tuple[int, int, int], state: int, side: str, neighbour: int) -> int:
        return 0 if side == "down" and not self._cake_supported(pos) else state

    # ---- ticking ----------------------------------------------------------------------------------------

    def tick(self) -> None:
        """One game tick (or the ticks a stalled reactor skipped) for every living player."""
        now = self.kernel.tick_count
        first = now if self._last_tick is None else max(self._last_tick + 1, now - MAX_CATCH_UP + 1)
        self._last_tick = now
        admin = self.admin
        for p in self.kernel.players.values():
            if admin.is_dead(p):
                continue
            st = self.state(p)
            for k, t in enumerate(range(first, now + 1)):
                self._tick_player(p, st, t, k)
                if admin.is_dead(p):
                    break
            key = (p.health, st.food, st.saturation == 0.0)
            if key != st.sent and not admin.is_dead(p):
                p.send("update_health", self.health_body(p))

    def _tick_player(self, p: Player, st: FoodData, t: int, k: int) -> None:
        """Tick ``t``, the ``k``-th of this batch (the admin tick counts the batch's effect time after)."""
        admin = self.admin
        # LivingEntity.tickEffects: the Hunger effect, while it has duration left (MobEffectInstance.tick)
        for eff in self.effects.effects_of(p):
            if eff.effect == "minecraft:hunger" and k < eff.remaining:
                self.add_exhaustion(p, 0.005 * (eff.amplifier + 1))
        # LivingEntity.updatingUsingItem: the item must still be in the slot; completes on its tick
        if st.eating is not None:
            stack = p.inventory.slots[st.eating.slot]
            if stack is None or stack.item != st.eating.item:
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
                        admin.kill_player(p, C.translatable("death.attack.starve", admin.chat.name_of(p)))
                st.timer = 0
        else:
            st.timer = 0


__all__ = ["Food", "FoodData"]
