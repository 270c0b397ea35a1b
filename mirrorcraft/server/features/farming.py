"""Farming: farmland, crops, melon and pumpkin stems, cocoa, sweet berry bushes and sugar cane — how they grow
(random ticks), survive (shape updates), are planted, tilled, bone-mealed and picked.

Vanilla 1.19.2 behaviour followed (the facts and their classes are ``rules/data/plants.json``, read through
:mod:`mirrorcraft.rules.plants`; what a plant drops when broken is its loot table):

* **farmland** (``FarmBlock``): a random tick sets moisture 7 when water is within 4 blocks horizontally and
  0..1 up, else moisture - 1, and dry farmland with no crop or stem on it turns to dirt; a solid block placed
  on it turns it to dirt (a scheduled tick 1 later). Trampling by falling is **not** simulated (the server
  does not simulate player falls: no fall damage either).
* **crops** (wheat, carrots, potatoes, beetroots; ``CropBlock``): with raw brightness >= 9 a random tick
  grows one age with chance ``1 / (floor(25 / f) + 1)``, ``f`` from the farmland under and around the crop
  and halved next to the same crop (``getGrowthSpeed``); beetroots skip a third of their ticks. A crop whose
  farmland goes (or that gets too dark, brightness < 8 without sky) pops with its loot.
* **stems** (``StemBlock``): grow like crops; at age 7 a random tick picks a side and grows the melon or pumpkin
  there if the cell is air over farmland or ``#dirt``; the stem becomes the attached stem facing it, and turns
  back into an age-7 stem when the fruit is taken (``AttachedStemBlock.updateShape``).
* **cocoa** (``CocoaBlock``): grows one age with chance 1/5 per random tick up to 2; needs ``#jungle_logs`` on
  its facing side (a pod whose log goes pops); placed against a log's side, facing it.
* **sweet berry bushes** (``SweetBerryBushBlock``): grow with chance 1/5 per random tick up to age 3 when the
  brightness above is >= 9; **using** a bush at age 2 or 3 pops ``1 + nextInt(2)`` berries (+1 at age 3) and
  sets it back to age 1, without breaking it (its loot table applies only when it is broken); holding bone
  meal below age 3 the use goes to the bone meal. Their thorns are :mod:`~mirrorcraft.server.features.thorns`'.
* **sugar cane** (``SugarCaneBlock``): a random tick with air above, in a column of fewer than 3 canes, counts
  its age up; at 15 it grows a cane above and starts again. A cane that loses its footing (the cane or soil
  below, or the water beside the soil) breaks on a scheduled tick 1 later, so a column falls block by block.
* **planting**: a seed item (wheat seeds, carrot, potato, beetroot seeds, melon and pumpkin seeds, sweet
  berries, cocoa beans) places its plant block (``ItemNameBlockItem``) where that block can survive; the
  placing feature does the placing (:mod:`~mirrorcraft.server.features.placing`), this feature refuses a
  plant off its soil.
* **tilling** (``HoeItem``): a hoe used on grass, dirt or a dirt path (not from below, air above) makes
  farmland; coarse dirt becomes dirt; rooted dirt becomes dirt and pops hanging roots. Tools do not wear on
  this server (no durability anywhere), so the hoe does not either.
* **bone meal** (``BoneMealItem``): on a crop, stem, cocoa pod or bush that can still grow: crops + 2..5
  ages (beetroots a third of that), stems too (and a random tick at age 7), cocoa and bushes + 1; one item is
  used up, in creative too.

Randomness: growth draws from the ``random_ticks`` stream (through :mod:`~mirrorcraft.server.features.
randomticks`), uses (berries, bone meal) from their own ``farming`` stream.

Outcomes: a plant broken by a player publishes the usual ``dig`` outcome (digging); a plant popped by a shape
update (its support gone) is broken with no player (``dig`` with ``player=None``), as a command's
``setblock ... destroy``; berries picked by use publish the ``harvest`` event (not an outcome: no datapack
decides the count).
"""

from __future__ import annotations

import logging

import numpy as np

from mirrorcraft.rules import plants
from mirrorcraft.rules.blocks import WATER, fluid_of
from mirrorcraft.rules.shapes import fence_gates
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.features.blockupdates import HORIZONTAL, OFFSET, OPPOSITE, BlockUpdates, PlaceContext
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.features.light import Light
from mirrorcraft.server.features.randomticks import RandomTicks
from mirrorcraft.server.features.windows import Windows
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.physics import within_reach
from mirrorcraft.server.kernel.stacks import with_count
from mirrorcraft.server.kernel.world import HEIGHT, MIN_Y
from mirrorcraft.server.world_rules import WorldRules

log = logging.getLogger(__name__)

Pos = tuple[int, int, int]


def _add(pos: Pos, d: tuple[int, int, int]) -> Pos:
    return (pos[0] + d[0], pos[1] + d[1], pos[2] + d[2])


class Farming:
    """Farmland and plants of one game."""

    def __init__(
        self,
        kernel: Kernel,
        rules: WorldRules,
        updates: BlockUpdates,
        ticks: RandomTicks,
        light: Light,
        items: Items,
        windows: Windows,
    ) -> None:
        self.kernel = kernel
        self.updates = updates
        self.ticks = ticks
        self.light = light
        self.items = items
        self.windows = windows
        self.rng = ticks.rng
        self.use_rng = kernel.rng.stream("farming")
        tables = facts.state_tables()
        self._block_id = tables.block_id
        self._full = tables.full_cube
        self._no_collision = tables.no_collision
        self._tags = rules.packs.tags.get("blocks", {})
        self.growth = plants.crop_growth()
        self.farm = plants.farmland_rule()
        self.cocoa = plants.cocoa_pods()
        self.berry = plants.berry_bush()
        self.cane = plants.cane_rule()
        self.crops = plants.crops()
        self.stems = plants.stems()
        bid = self._id
        self.farmland_id = bid(self.farm.block)
        self.dirt_state = facts.block(self.farm.dry_block).default_state
        self.kept_by = {bid(b) for b in self.farm.kept_by}
        self.crop_soil = self._soil(plants.crop_soil())
        self.bush_soil = self._soil(plants.bush_soil())
        self.fruit_soil = self._soil(plants.fruit_soil())
        self.cane_soil = self._soil(self.cane.soil)
        self.cane_id = bid(self.cane.block)
        self.cane_water_subs = {bid(b) for b in self.cane.water_substitutes}
        self.jungle_logs = self._tag_ids(self.cocoa.support_tag)
        self.gates = {bid(b) for b in fence_gates()}
        self.crop_ids = {bid(b) for b in self.crops}
        self.berry_id = bid(self.berry.block)
        self.cocoa_id = bid(self.cocoa.block)
        self._water = self._water_table()
        self._age_of = self._int_table("age")
        moisture = self._int_table("moisture")
        farm_states = self._block_id == self.farmland_id
        g = self.growth
        self._soil_points = np.where(
            farm_states, np.where(moisture > 0, g.moist_farmland_points, g.farmland_points), 0.0
        )  # CropBlock.getGrowthSpeed's points per state of the block under a crop
        self.fruit_of: dict[int, tuple[int, int]] = {}  # stem id -> (fruit id, attached id)
        self.stem_of_attached: dict[int, tuple[int, int]] = {}  # attached id -> (fruit id, stem id)
        for r in self.stems.values():
            self.fruit_of[bid(r.block)] = (bid(r.fruit), bid(r.attached))
            self.stem_of_attached[bid(r.attached)] = (bid(r.fruit), bid(r.block))
        crop_blocks = list(self.crops)
        stem_blocks = list(self.stems)
        attached = [r.attached for r in self.stems.values()]
        # random ticks (isRandomlyTicking)
        for b, r in self.crops.items():
            ticks.register([b], self._crop_tick, when=lambda p, m=r.max_age: int(p["age"]) < m)
        ticks.register(stem_blocks, self._stem_tick)
        ticks.register(
            [self.cocoa.block], self._cocoa_tick, when=lambda p: int(p["age"]) < self.cocoa.max_age
        )
        ticks.register(
            [self.berry.block], self._berry_tick, when=lambda p: int(p["age"]) < self.berry.max_age
        )
        ticks.register([self.cane.block], self._cane_tick)
        ticks.register([self.farm.block], self._farmland_tick)
        # shape updates and scheduled ticks
        updates.on_shape(crop_blocks + stem_blocks + [self.berry.block], self._bush_shape)
        updates.on_shape(attached, self._attached_shape)
        updates.on_shape([self.cocoa.block], self._cocoa_shape)
        updates.on_shape([self.cane.block], self._cane_shape)
        updates.on_tick([self.cane.block], self._cane_scheduled)
        updates.on_shape([self.farm.block], self._farmland_shape)
        updates.on_tick([self.farm.block], self._farmland_scheduled)
        # placement
        updates.on_place(crop_blocks + stem_blocks + attached + [self.berry.block], self._place_bush)
        updates.on_place([self.cocoa.block], self._place_cocoa)
        updates.on_place([self.cane.block], self._place_cane)
        updates.on_place([self.farm.block], self._place_farmland)
        # uses
        kernel.events.before("use_block", self._use_block)
        kernel.events.before("use_item_on", self._use_item_on)

    # ---- helpers -------------------------------------------------------------------------------------

    @staticmethod
    def _id(block: str) -> int:
        return facts.block(block).id

    def _tag_ids(self, tag: str) -> set[int]:
        return {facts.block(b).id for b in self._tags.get(tag, ())}

    def _soil(self, soil: plants.Soil) -> set[int]:
        out = {self._id(b) for b in soil.blocks}
        for t in soil.tags:
            out |= self._tag_ids(t)
        return out

    def _water_table(self) -> np.ndarray:
        """``getFluidState(pos).is(FluidTags.WATER)`` per state: the water blocks and waterlogged states."""
        out = np.zeros(len(self._block_id), dtype=bool)
        for b in facts.all_blocks():
            if fluid_of(b.name) == WATER:
                out[b.min_state : b.max_state + 1] = True
            elif any(name == "waterlogged" for name, _ in b.properties):
                for s in range(b.min_state, b.max_state + 1):
                    out[s] = b.state_properties(s).get("waterlogged") == "true"
        return out

    def _int_table(self, prop: str) -> np.ndarray:
        """An integer property's value per state id (-1 for states without it)."""
        out = np.full(len(self._block_id), -1, dtype=np.int16)
        for b in facts.all_blocks():
            if any(name == prop for name, _ in b.properties):
                for st in range(b.min_state, b.max_state + 1):
                    out[st] = int(b.state_properties(st)[prop])
        return out

    def bid(self, state: int) -> int:
        return int(self._block_id[state])

    def at(self, pos: Pos) -> int:
        return self.kernel.world.get_block(*pos)

    def _age(self, state: int) -> int:
        return int(self._age_of[state])

    def _with(self, state: int, **props: str) -> int:
        b = facts.block_of_state(state)
        values = b.state_properties(state)
        values.update(props)
        return b.state(**values)

    def _solid(self, state: int) -> bool:
        """``Material.isSolid`` (approximated: the state has a collision box)."""
        return not bool(self._no_collision[state]) and not facts.is_air(state)

    # ---- survival (canSurvive) -----------------------------------------------------------------------

    def _light_ok(self, pos: Pos) -> bool:
        """``CropBlock.canSurvive``'s light: raw brightness >= 8 or the sky visible."""
        return self.light.sky(pos) >= 15 or self.light.raw_brightness(pos, self.growth.survive_light) >= 8

    def can_survive(self, pos: Pos, state: int) -> bool:
        """Whether the plant ``state`` may stand at ``pos`` (vanilla ``canSurvive`` of its block)."""
        b = self.bid(state)
        below = self.bid(self.at(_add(pos, (0, -1, 0))))
        if b in self.fruit_of or b in self.stem_of_attached:
            return below in self.crop_soil
        if b in self.crop_ids:
            return below in self.crop_soil and self._light_ok(pos)
        if b == self.berry_id:
            return below in self.bush_soil
        if b == self.cane_id:
            return self._cane_footing(pos)
        if b == self.cocoa_id:
            facing = facts.state_props(state)["facing"]
            return self.bid(self.at(_add(pos, OFFSET[facing]))) in self.jungle_logs
        return True

    def _cane_footing(self, pos: Pos) -> bool:
        below = _add(pos, (0, -1, 0))
        b = self.bid(self.at(below))
        if b == self.cane_id:
            return True
        if b not in self.cane_soil:
            return False
        for d in HORIZONTAL:
            s = self.at(_add(below, OFFSET[d]))
            if self._water[s] or self.bid(s) in self.cane_water_subs:
                return True
        return False

    # ---- random ticks ------------------------------------------------------------------------------------

    def growth_speed(self, pos: Pos, block: int) -> float:
        """``CropBlock.getGrowthSpeed`` (two 3 x 3 slices of the column when the crop is not on its edge)."""
        x, y, z = pos
        lx, lz = x & 15, z & 15
        if 0 < lx < 15 and 0 < lz < 15 and MIN_Y < y < MIN_Y + HEIGHT:
            col = self.kernel.world.column(x >> 4, z >> 4)
            iy = y - MIN_Y
            soil = self._soil_points[col.blocks[iy - 1, lz - 1 : lz + 2, lx - 1 : lx + 2]]  # [dz][dx]
            f = 1.0 + float(soil[1, 1]) + float(soil.sum() - soil[1, 1]) / self.growth.neighbour_divisor
            same = self._block_id[col.blocks[iy, lz - 1 : lz + 2, lx - 1 : lx + 2]] == block
            if (same[1, 0] or same[1, 2]) and (same[0, 1] or same[2, 1]):
                f /= self.growth.crowded_divisor
            elif same[0, 0] or same[0, 2] or same[2, 0] or same[2, 2]:
                f /= self.growth.crowded_divisor
            return f
        return self._growth_speed_slow(pos, block)

    def _growth_speed_slow(self, pos: Pos, block: int) -> float:
        g = self.growth
        f = 1.0
        x, y, z = pos
        at = self.at
        for i in (-1, 0, 1):
            for j in (-1, 0, 1):
                s = at((x + i, y - 1, z + j))
                p = 0.0
                if self.bid(s) == self.farmland_id:
                    p = (
                        g.moist_farmland_points
                        if int(facts.state_props(s)["moisture"]) > 0
                        else g.farmland_points
                    )
                if i or j:
                    p /= g.neighbour_divisor
                f += p
        same = lambda q: self.bid(at(q)) == block  # noqa: E731
        west, east, north, south = (x - 1, y, z), (x + 1, y, z), (x, y, z - 1), (x, y, z + 1)
        if (same(west) or same(east)) and (same(north) or same(south)):
            f /= g.crowded_divisor
        elif any(
            same(q) for q in ((x - 1, y, z - 1), (x + 1, y, z - 1), (x + 1, y, z + 1), (x - 1, y, z + 1))
        ):
            f /= g.crowded_divisor
        return f

    def _grows(self, pos: Pos, block: int) -> bool:
        """One growth roll: ``random.nextInt((int)(25 / f) + 1) == 0``."""
        f = self.growth_speed(pos, block)
        return self.rng.randrange(int(self.growth.chance_base / f) + 1) == 0

    def _crop_tick(self, pos: Pos, state: int) -> None:
        rule = plants.crop(facts.block_of_state(state).name)
        assert rule is not None
        if rule.skip_one_in and self.rng.randrange(rule.skip_one_in) == 0:
            return  # BeetrootBlock.randomTick: super only when nextInt(3) != 0
        if self.light.raw_brightness(pos, self.growth.min_light) < self.growth.min_light:
            return
        age = self._age(state)
        if age < rule.max_age and self._grows(pos, self.bid(state)):
            self.kernel.set_block(pos, self._with(state, age=str(age + 1)))

    def _stem_tick(self, pos: Pos, state: int) -> None:
        if self.light.raw_brightness(pos, self.growth.min_light) < self.growth.min_light:
            return
        if not self._grows(pos, self.bid(state)):
            return
        age = self._age(state)
        if age < plants.stem_max_age():
            self.kernel.set_block(pos, self._with(state, age=str(age + 1)))
            return
        side = HORIZONTAL[self.rng.randrange(4)]  # Direction.Plane.HORIZONTAL.getRandomDirection
        target = _add(pos, OFFSET[side])
        soil = self.bid(self.at(_add(target, (0, -1, 0))))
        if facts.is_air(self.at(target)) and soil in self.fruit_soil:
            fruit, attached = self.fruit_of[self.bid(state)]
            self.kernel.set_block(target, facts.block_by_id(fruit).default_state)
            self.kernel.set_block(pos, facts.block_by_id(attached).state(facing=side))

    def _cocoa_tick(self, pos: Pos, state: int) -> None:
        if self.rng.randrange(self.cocoa.grow_one_in) == 0:
            age = self._age(state)
            if age < self.cocoa.max_age:
                self.kernel.set_block(pos, self._with(state, age=str(age + 1)))

    def _berry_tick(self, pos: Pos, state: int) -> None:
        age = self._age(state)
        if age < self.berry.max_age and self.rng.randrange(self.berry.grow_one_in) == 0:
            if self.light.raw_brightness(_add(pos, (0, 1, 0)), self.berry.min_light) >= self.berry.min_light:
                self.kernel.set_block(pos, self._with(state, age=str(age + 1)))

    def _cane_tick(self, pos: Pos, state: int) -> None:
        if not facts.is_air(self.at(_add(pos, (0, 1, 0)))):
            return
        height = 1
        while self.bid(self.at(_add(pos, (0, -height, 0)))) == self.cane_id:
            height += 1
        if height >= self.cane.max_height:
            return
        age = self._age(state)
        if age == self.cane.max_age:
            self.kernel.set_block(_add(pos, (0, 1, 0)), facts.block(self.cane.block).default_state)
            self.kernel.set_block(pos, self._with(state, age="0"))
        else:
            self.kernel.set_block(pos, self._with(state, age=str(age + 1)))

    def near_water(self, pos: Pos) -> bool:
        """``FarmBlock.isNearWater``: water in x/z +-4, y 0..+1 (vectorised over the columns it spans)."""
        r, up = self.farm.water_reach_xz, self.farm.water_reach_up
        x0, y0, z0 = pos
        world = self.kernel.world
        ys = slice(max(y0 - MIN_Y, 0), min(y0 + up + 1 - MIN_Y, HEIGHT))
        for cx in range((x0 - r) >> 4, ((x0 + r) >> 4) + 1):
            for cz in range((z0 - r) >> 4, ((z0 + r) >> 4) + 1):
                col = world.column(cx, cz)
                xs = slice(max(x0 - r - cx * 16, 0), min(x0 + r + 1 - cx * 16, 16))
                zs = slice(max(z0 - r - cz * 16, 0), min(z0 + r + 1 - cz * 16, 16))
                if xs.start < xs.stop and zs.start < zs.stop and self._water[col.blocks[ys, zs, xs]].any():
                    return True
        return False

    def _farmland_tick(self, pos: Pos, state: int) -> None:
        moisture = int(facts.state_props(state)["moisture"])
        raining_here = (
            False  # isRainingAt needs rain and sky above: see docs/farming.md (no rain reaches farms)
        )
        if self.near_water(pos) or raining_here:
            if moisture < self.farm.max_moisture:
                self.kernel.set_block(pos, self._with(state, moisture=str(self.farm.max_moisture)))
        elif moisture > 0:
            self.kernel.set_block(pos, self._with(state, moisture=str(moisture - 1)))
        elif self.bid(self.at(_add(pos, (0, 1, 0)))) not in self.kept_by:
            self.kernel.set_block(pos, self.dirt_state)

    # ---- shape updates ---------------------------------------------------------------------------------

    def _bush_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        """``BushBlock.updateShape``: air (destroyed, its loot drops) when it cannot survive."""
        return state if self.can_survive(pos, state) else 0

    def _attached_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        fruit, stem = self.stem_of_attached[self.bid(state)]
        if side == facts.state_props(state)["facing"] and self.bid(neighbour) != fruit:
            return facts.block_by_id(stem).state(age=str(plants.stem_max_age()))
        return self._bush_shape(pos, state, side, neighbour)

    def _cocoa_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        if side == facts.state_props(state)["facing"] and not self.can_survive(pos, state):
            return 0
        return state

    def _cane_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        if not self._cane_footing(pos):
            self.updates.schedule(pos, self.cane_id, 1)
        return state

    def _cane_scheduled(self, pos: Pos, state: int) -> None:
        if not self._cane_footing(pos):
            self.updates.destroy(pos)

    def _farmland_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        if side == "up" and not self._farmland_ok(pos):
            self.updates.schedule(pos, self.farmland_id, 1)
        return state

    def _farmland_ok(self, pos: Pos) -> bool:
        """``FarmBlock.canSurvive``: the block above is not solid (``Material.isSolid``, approximated as "has a
        collision box"), or is a fence gate (moving pistons are not simulated)."""
        above = self.at(_add(pos, (0, 1, 0)))
        return not self._solid(above) or self.bid(above) in self.gates

    def _farmland_scheduled(self, pos: Pos, state: int) -> None:
        if not self._farmland_ok(pos):
            self.kernel.set_block(pos, self.dirt_state)

    # ---- placement -------------------------------------------------------------------------------------

    def _place_bush(self, ctx: PlaceContext) -> int | None:
        return ctx.state if self.can_survive(ctx.pos, ctx.state) else None

    def _place_cane(self, ctx: PlaceContext) -> int | None:
        return ctx.state if self._cane_footing(ctx.pos) else None

    def _place_farmland(self, ctx: PlaceContext) -> int | None:
        return ctx.state if self._farmland_ok(ctx.pos) else self.dirt_state

    def _place_cocoa(self, ctx: PlaceContext) -> int | None:
        """``CocoaBlock.getStateForPlacement``: facing the first horizontal direction (the clicked log's first,
        then the player's look) where it survives."""
        order: list[str] = []
        if ctx.face in HORIZONTAL:
            order.append(OPPOSITE[ctx.face])
        if ctx.player is not None:
            yaw = ctx.player.yaw % 360
            looking = ["south", "west", "north", "east"][int((yaw + 45) // 90) % 4]
            order += [looking, *(d for d in HORIZONTAL if d != looking)]
        for d in order + list(HORIZONTAL):
            state = self._with(ctx.state, facing=d)
            if self.can_survive(ctx.pos, state):
                return state
        return None

    # ---- uses ------------------------------------------------------------------------------------------

    def _use_block(self, b: Behaviour) -> None:
        """Block use (``Block.use``): picking sweet berries."""
        p, pos, hand = b.player, b["pos"], b["hand"]
        state = self.at(pos)
        if self.bid(state) != self.berry_id:
            return
        how = self.windows.interaction(p, hand, pos)
        if how == "place" or not within_reach(p.pos, pos):
            return
        age = self._age(state)
        held = p.inventory.slots[p.inventory.hand_slot(hand)]
        if age < self.berry.max_age and held is not None and held.item == plants.bone_meal_item():
            return  # SweetBerryBushBlock.use: PASS to the bone meal
        if age < self.berry.harvest_min_age:
            return
        b.cancel("farming")
        if how != "open":
            return
        self.pick_berries(p, pos, state)

    def pick_berries(self, p: Player | None, pos: Pos, state: int) -> int:
        """Pick a bush at age >= 2: pop ``1 + nextInt(2)`` berries (+1 when ripe), back to age 1; returns the count."""
        r = self.berry
        age = self._age(state)
        n = (
            r.harvest_base
            + self.use_rng.randrange(r.harvest_random)
            + (r.harvest_ripe_bonus if age == r.max_age else 0)
        )
        self.items.spawn(Stack(r.harvest_item, n), (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5), pop=True)
        self.kernel.set_block(pos, self._with(state, age=str(r.harvest_leaves_age)))
        self.kernel.emit(
            "harvest",
            player=p.display_name if p else None,
            pos=pos,
            block=r.block,
            item=r.harvest_item,
            count=n,
        )
        return n

    def _use_item_on(self, b: Behaviour) -> None:
        """Item use on a block (``Item.useOn``): hoes till, bone meal grows."""
        p, pos, hand = b.player, b["pos"], b["hand"]
        slot = p.inventory.hand_slot(hand)
        held = p.inventory.slots[slot]
        if held is None or not within_reach(p.pos, pos):
            return
        if plants.is_hoe(held.item):
            if self.till(p, pos, b["face"]):
                b.cancel("farming")
        elif held.item == plants.bone_meal_item():
            if self.bone_meal(pos):
                b.cancel("farming")
                if held.count > 0:  # BoneMealItem.growCrop: shrink(1), in creative too
                    p.inventory.slots[slot] = with_count(held, held.count - 1)
                    p.send_slots([slot])
                self.kernel.emit("bone_mealed", player=p.display_name, pos=pos)

    def till(self, p: Player | None, pos: Pos, face: int) -> bool:
        """``HoeItem.useOn``: turn a tillable block into farmland (or dirt); True if it did."""
        rule = plants.till(facts.block_of_state(self.at(pos)).name)
        if rule is None:
            return False
        if rule.needs_air_above and (face == 0 or not facts.is_air(self.at(_add(pos, (0, 1, 0))))):
            return False
        self.kernel.set_block(pos, facts.block(rule.becomes).default_state)
        if rule.pops is not None:
            self.items.spawn(Stack(rule.pops, 1), (pos[0] + 0.5, pos[1] + 1.1, pos[2] + 0.5), pop=True)
        self.kernel.emit("tilled", player=p.display_name if p else None, pos=pos, block=rule.becomes)
        return True

    def bone_meal(self, pos: Pos) -> bool:
        """``BoneMealItem.growCrop`` on the block at ``pos``; True if it was a valid target (the item is spent)."""
        state = self.at(pos)
        name = facts.block_of_state(state).name
        g = self.growth
        rng = self.use_rng
        crop = plants.crop(name)
        if crop is not None:
            age = self._age(state)
            if age >= crop.max_age:
                return False
            grow = (
                g.bonemeal_min + rng.randrange(g.bonemeal_max - g.bonemeal_min + 1)
            ) // crop.bonemeal_divisor
            self.kernel.set_block(pos, self._with(state, age=str(min(crop.max_age, age + grow))))
            return True
        if plants.stem(name) is not None:
            age = self._age(state)
            top = plants.stem_max_age()
            if age == top:
                return False
            new = min(top, age + g.bonemeal_min + rng.randrange(g.bonemeal_max - g.bonemeal_min + 1))
            self.kernel.set_block(pos, self._with(state, age=str(new)))
            if new == top:
                self._stem_tick(pos, self.at(pos))  # StemBlock.performBonemeal: a random tick at age 7
            return True
        for rule_block, top in (
            (self.cocoa.block, self.cocoa.max_age),
            (self.berry.block, self.berry.max_age),
        ):
            if name == rule_block:
                age = self._age(state)
                if age >= top:
                    return False
                self.kernel.set_block(pos, self._with(state, age=str(age + 1)))
                return True
        return False


__all__ = ["Farming"]
