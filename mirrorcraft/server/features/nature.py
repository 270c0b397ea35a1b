"""The world ticking by itself: leaves decaying by distance, grass and mycelium spreading (and dying under a
block), snow layers and ice melting near light, water freezing and snow falling in cold biomes.

Vanilla 1.19.2 (facts in ``rules/data/nature.json``, :mod:`mirrorcraft.rules.nature`):

* **leaves** (``LeavesBlock``): when a neighbour changes, a leaf whose distance would change gets a scheduled
  tick one tick later that recomputes ``distance`` (1 + the nearest neighbour's, a ``#logs`` block being 0,
  capped at 7); setting it updates *its* neighbours, so cutting a tree's last log spreads distance 7 through
  the canopy tick by tick. A non-persistent leaf at distance 7 is randomly ticking and decays on its random
  tick: its loot table is rolled with no tool and no player (saplings, sticks, apples) and it is removed.
  Placed leaves are persistent (:mod:`~mirrorcraft.server.features.shapes`).
* **grass and mycelium** (``SpreadingSnowyDirtBlock``): a random tick turns the block to dirt when the block
  above takes all light (a full opaque block, or water) except one snow layer; otherwise, with raw
  brightness >= 9 above, it tries 4 random cells (x, z +-1, y -3..+1) and turns dirt there into itself when
  that dirt could hold grass and has no water above. ``snowy`` follows a ``#snow`` block above
  (``SnowyDirtBlock.updateShape``).
* **snow layers and ice** (``SnowLayerBlock``, ``IceBlock``): melt on a random tick above block light 11
  (ice: 11 - its light block); the snow drops its loot (none without a player), ice becomes water. With the
  server's approximate block light (:mod:`~mirrorcraft.server.features.light`), only blocks within a few
  cells of a torch, lantern, glowstone or lava can melt.
* **freezing and snowfall** (the chunk tick's ice-and-snow pass): each ticking chunk, with chance 1/16 per
  tick, looks at a random column's surface: water there freezes when the biome is colder than 0.15 (the
  biome's base temperature; vanilla's height adjustment above y = 80 and its temperature noise are not
  modelled), block light is below 10 and the water is not surrounded by water on all four sides; while it
  rains, a snow layer falls on air where snow can lie.

Randomness: the ``random_ticks`` stream. Decayed leaves publish a ``dig`` outcome with no player (the same
path as a command's ``setblock ... destroy``).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mirrorcraft.rules import nature
from mirrorcraft.rules.blocks import WATER, fluid_of
from mirrorcraft.server import facts
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.blockupdates import OFFSET, BlockUpdates
from mirrorcraft.server.features.light import Light
from mirrorcraft.server.features.randomticks import RandomTicks
from mirrorcraft.server.features.shapes import Shapes
from mirrorcraft.server.kernel import Kernel
from mirrorcraft.server.kernel.world import HEIGHT, MIN_Y
from mirrorcraft.server.world_rules import WorldRules

Pos = tuple[int, int, int]


@cache
def _full_bottom_opaque() -> np.ndarray:
    """Per state: opaque (not minecraft-data ``transparent``) with a collision box covering its whole bottom
    face — the approximation of "occludes light through its bottom face" (built once per process)."""
    t = facts.state_tables()
    out = np.zeros(len(t.block_id), dtype=bool)
    for b in facts.all_blocks():
        if b.transparent:
            continue
        for st in range(b.min_state, b.max_state + 1):
            if not t.no_collision[st]:
                out[st] = any(
                    x0 == 0.0 and y0 == 0.0 and z0 == 0.0 and x1 == 1.0 and z1 == 1.0
                    for x0, y0, z0, x1, _, z1 in facts.collision_boxes(st)
                )
    out.setflags(write=False)
    return out


class Nature:
    """Leaves, grass, snow, ice and freezing for one game."""

    def __init__(
        self,
        kernel: Kernel,
        rules: WorldRules,
        admin: Admin,
        updates: BlockUpdates,
        ticks: RandomTicks,
        light: Light,
        shapes: Shapes,
    ) -> None:
        self.kernel = kernel
        self.admin = admin
        self.updates = updates
        self.light = light
        self.shapes = shapes
        self.rng = ticks.rng
        tags = rules.packs.tags.get("blocks", {})
        tables = facts.state_tables()
        self._block_id = tables.block_id
        self._full = tables.full_cube
        self._filter = tables.filter_light
        self._max = nature.max_light()
        # leaves
        self.leaves = nature.leaves()
        self.leaf_ids = {facts.block(b).id for b in self.leaves.blocks}
        self.logs = {facts.block(b).id for b in tags.get(self.leaves.log_tag, ())}
        decay = self.leaves.decay_distance
        leaf_names = sorted(self.leaves.blocks)
        ticks.register(
            leaf_names,
            self._leaf_tick,
            when=lambda p: int(p["distance"]) == decay and p["persistent"] == "false",
        )
        updates.on_shape(leaf_names, self._leaf_shape)
        updates.on_tick(leaf_names, self._leaf_scheduled)
        # grass and mycelium
        self.spread = nature.spreading()
        self.onto_id = facts.block(self.spread.onto).id
        self.dirt_state = facts.block(self.spread.becomes).default_state
        self.snow_rule = nature.snow_layers()
        self.snow_id = facts.block(self.snow_rule["block"]).id
        ticks.register_batch(sorted(self.spread.blocks), self._spread_batch)
        self.positions = ticks.positions  # the random-tick numpy generator: the spread's offsets
        self._grass_ok, self._water = self._grass_tables()
        self._spread_ids = {facts.block(b).id for b in self.spread.blocks}
        self._is_spread = np.isin(self._block_id, list(self._spread_ids))
        self._counts: dict[tuple[int, int], list[int]] = {}
        self._verdicts: dict[tuple[int, int], bool] = {}  # column -> may a grass hit there change anything
        kernel.events.after("block_changed", self._count_change)
        snowy = nature.snowy()
        self.snow_tag = {facts.block(b).id for b in tags.get(snowy["tag"], ())}
        updates.on_shape(snowy["blocks"], self._snowy_shape)
        updates.on_place(snowy["blocks"], lambda ctx: self._snowy(ctx.pos, ctx.state))
        # snow and ice
        ticks.register([self.snow_rule["block"]], self._snow_tick)
        self.ice_rule = nature.ice_melting()
        ticks.register([self.ice_rule["block"]], self._ice_tick)
        self.snow_on = {facts.block(b).id for b in tags.get(self.snow_rule["survive_on_tag"], ())}
        self.snow_never = {facts.block(b).id for b in tags.get(self.snow_rule["never_on_tag"], ())}
        # freezing and snowfall
        self.freeze = nature.freezing()
        self.water_state = facts.block(self.freeze.water).default_state
        self.ice_state = facts.block(self.freeze.ice).default_state
        ticks.on_chunk(self.freeze.one_in, self._ice_and_snow)
        t = facts.state_tables()
        fluid = np.array([fluid_of(b.name) != 0 for b in facts.all_blocks()], dtype=bool)[t.block_id]
        self._motion_blocking = ~t.is_air & (~t.no_collision | fluid)
        cold = light.cold_biomes()
        self._cold_biome = np.zeros(256, dtype=bool)
        self._cold_biome[list(cold)] = True
        self.decayed = 0  # leaves decayed (stats, tests)

    def bid(self, state: int) -> int:
        return int(self._block_id[state])

    def at(self, pos: Pos) -> int:
        return self.kernel.world.get_block(*pos)

    # ---- leaves ------------------------------------------------------------------------------------------

    def _distance_at(self, state: int) -> int:
        b = self.bid(state)
        if b in self.logs:
            return 0
        if b in self.leaf_ids:
            return int(facts.state_props(state)["distance"])
        return self.leaves.decay_distance

    def _leaf_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        d = self._distance_at(neighbour) + 1
        if d != 1 or int(facts.state_props(state)["distance"]) != d:
            self.updates.schedule(pos, self.bid(state), self.leaves.tick_delay)
        return state

    def _leaf_scheduled(self, pos: Pos, state: int) -> None:
        b = facts.block_of_state(state)
        props = b.state_properties(state)
        props["distance"] = str(self.shapes.leaf_distance(pos))
        new = b.state(**props)
        if new != state:
            self.kernel.set_block(pos, new)

    def _leaf_tick(self, pos: Pos, state: int) -> None:
        self.decayed += 1
        self.updates.destroy(pos)  # dropResources (no tool, no entity) and removeBlock

    # ---- grass and mycelium -------------------------------------------------------------------------

    def _grass_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """Per state of the block *above*: may the block below be grass (``canBeGrass``), and is it water
        (``canPropagate`` refuses water above)."""
        n = len(self._block_id)
        # the light-occlusion test (LayerLightEngine.getLightBlockInto), approximated: the block above takes
        # all light (light filter 15), or is opaque with a full bottom face (farmland, bottom slabs, stairs)
        bottom = _full_bottom_opaque()
        grass_ok = (self._filter < self._max) & ~bottom
        water = np.zeros(n, dtype=bool)
        full_water = np.zeros(n, dtype=bool)
        for b in facts.all_blocks():
            if fluid_of(b.name) == WATER:
                for st in range(b.min_state, b.max_state + 1):
                    level = int(b.state_properties(st).get("level", "0"))
                    water[st] = True
                    full_water[st] = level == 0 or level >= 8  # FluidState.getAmount() == 8
            elif any(name == "waterlogged" for name, _ in b.properties):
                for st in range(b.min_state, b.max_state + 1):
                    wet = b.state_properties(st).get("waterlogged") == "true"
                    water[st] = full_water[st] = wet
        grass_ok = grass_ok & ~full_water
        snow = facts.block(self.snow_rule["block"])
        grass_ok[snow.state(layers="1")] = True
        return grass_ok, water

    def can_be_grass(self, pos: Pos) -> bool:
        """``SpreadingSnowyDirtBlock.canBeGrass`` (the light-occlusion test approximated: the block above
        takes all light, or is opaque with a full bottom face; one snow layer never occludes, a full water
        block always does)."""
        return bool(self._grass_ok[self.at((pos[0], pos[1] + 1, pos[2]))])

    def _spread_batch(self, pos: np.ndarray, states: np.ndarray) -> None:
        """Every grass / mycelium random tick of this tick at once (``SpreadingSnowyDirtBlock.randomTick``):
        the block dies under an occluding block; else, lit (raw brightness >= 9 above), it tries 4 cells at
        x, z +-1 and y -3..+1 and spreads onto the dirt there that could hold it (nothing above occluding,
        no water above). Vectorised: one gather per column for the blocks above, the light, the tries.

        Hits that cannot change anything are skipped first: a column with no grass under an occluding
        block and, in it and the 8 columns around, no dirt that grass could take (the counts of
        :meth:`_spread_counts`, kept up to date on every block change) — in a settled landscape, almost all.
        """
        world, kernel, bid = self.kernel.world, self.kernel, self._block_id
        keep = self._may_spread(pos)
        pos, states = pos[keep], states[keep]
        if not len(pos):
            return
        up = np.array([0, 1, 0], dtype=np.int64)
        n, tries = len(pos), self.spread.tries
        offsets = self.positions.integers((-1, -3, -1), (2, 2, 2), size=(n, tries, 3))
        targets = (pos[:, None, :] + offsets).reshape(-1, 3)
        # one gather for everything this tick reads: above each source, each try's cell and the cell above it
        got = world.get_blocks(np.concatenate([pos + up, targets, targets + up]))
        above, t_states, t_above = got[:n], got[n : n + n * tries], got[n + n * tries :]
        dies = ~self._grass_ok[above]
        for x, y, z in pos[dies].tolist():
            if bid[world.get_block(x, y, z)] in self._spread_ids:
                kernel.set_block((x, y, z), self.dirt_state)
        need = self.spread.min_light
        lit = ~dies
        lit[lit] = world.sky_lights(pos[lit] + up) - self.light.darken() >= need
        for i in np.flatnonzero(~dies & ~lit).tolist():  # too dark by the sky: block light may still do
            lit[i] = self.light.raw_brightness(tuple(pos[i] + up), need) >= need
        ok = np.repeat(lit, tries) & (bid[t_states] == self.onto_id) & self._grass_ok[t_above]
        ok &= ~self._water[t_above]
        if not ok.any():
            return
        source = np.repeat(states, tries)
        for (x, y, z), src in zip(targets[ok].tolist(), source[ok].tolist(), strict=True):
            if bid[world.get_block(x, y, z)] != self.onto_id:
                continue  # an earlier try of this tick took it
            snowy = bid[world.get_block(x, y + 1, z)] == self.snow_id
            kernel.set_block((x, y, z), facts.block_of_state(src).state(snowy="true" if snowy else "false"))

    # ---- which grass hits can matter: per-column counts ------------------------------------------------

    def _contrib(self, cell: int, above: int) -> tuple[int, int]:
        """(spreadable dirt, dying grass) that one cell with ``above`` on it counts for."""
        bid = self._block_id
        dirt = int(bid[cell] == self.onto_id and self._grass_ok[above] and not self._water[above])
        dying = int(int(bid[cell]) in self._spread_ids and not self._grass_ok[above])
        return dirt, dying

    def _spread_counts(self, key: tuple[int, int]) -> list[int]:
        """``[spreadable dirt, dying grass]`` of a column (counted on first use, then kept by block changes)."""
        c = self._counts.get(key)
        if c is None:
            b = self.kernel.world.column(*key).blocks
            above = np.concatenate([b[1:], np.zeros((1, 16, 16), dtype=b.dtype)])
            dirt = (self._block_id[b] == self.onto_id) & self._grass_ok[above] & ~self._water[above]
            dying = self._is_spread[b] & ~self._grass_ok[above]
            c = self._counts[key] = [int(dirt.sum()), int(dying.sum())]
        return c

    def _count_change(self, b) -> None:  # noqa: ANN001 - a Behaviour
        x, y, z = b["pos"]
        c = self._counts.get((x >> 4, z >> 4))
        if c is None:
            return
        world = self.kernel.world
        old, new = b["old"], b["new"]
        bid = self._block_id
        if (
            bid[old] == self.onto_id
            or bid[new] == self.onto_id
            or self._is_spread[old]
            or self._is_spread[new]
        ):
            above = world.get_block(x, y + 1, z)  # the changed cell itself counts differently
            (d0, g0), (d1, g1) = self._contrib(old, above), self._contrib(new, above)
            if (d0, g0) != (d1, g1):
                c[0] += d1 - d0
                c[1] += g1 - g0
                self._verdicts.clear()
        if self._grass_ok[old] != self._grass_ok[new] or self._water[old] != self._water[new]:
            below = world.get_block(x, y - 1, z)  # the cell under it now holds grass differently
            (d0, g0), (d1, g1) = self._contrib(below, old), self._contrib(below, new)
            if (d0, g0) != (d1, g1):
                c[0] += d1 - d0
                c[1] += g1 - g0
                self._verdicts.clear()

    def _may_spread(self, pos: np.ndarray) -> np.ndarray:
        """Per hit: can it change anything (see :meth:`_spread_batch`)."""
        cx, cz = pos[:, 0] >> 4, pos[:, 2] >> 4
        out = np.zeros(len(pos), dtype=bool)
        verdict = self._verdicts  # kept until a count changes
        for i, key in enumerate(zip(cx.tolist(), cz.tolist(), strict=True)):
            v = verdict.get(key)
            if v is None:
                near = [
                    self._spread_counts((key[0] + dx, key[1] + dz))[0]
                    for dx in (-1, 0, 1)
                    for dz in (-1, 0, 1)
                ]
                v = verdict[key] = self._spread_counts(key)[1] > 0 or any(n > 0 for n in near)
            out[i] = v
        return out

    def _snowy(self, pos: Pos, state: int) -> int:
        above = self.at((pos[0], pos[1] + 1, pos[2]))
        b = facts.block_of_state(state)
        props = b.state_properties(state)
        props["snowy"] = "true" if self.bid(above) in self.snow_tag else "false"
        return b.state(**props)

    def _snowy_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        return self._snowy(pos, state) if side == "up" else state

    # ---- snow and ice ------------------------------------------------------------------------------------

    def _snow_tick(self, pos: Pos, state: int) -> None:
        limit = self.snow_rule["melt_above_block_light"]
        if self.light.block_light(pos, self._max - 1 - limit) > limit:
            self.updates.destroy(pos)  # dropResources (no entity: no snowballs) and removeBlock

    def _ice_tick(self, pos: Pos, state: int) -> None:
        limit = self.ice_rule["melt_above_block_light"] - int(self._filter[state])
        if self.light.block_light(pos, max(self._max - 1 - limit, 0)) > limit:
            self.kernel.set_block(pos, facts.block(self.ice_rule["melts_to"]).default_state)

    # ---- freezing and snowfall (the chunk pass) ------------------------------------------------------

    def _surface(self, x: int, z: int) -> int:
        """``getHeightmapPos(MOTION_BLOCKING)``: the y above the topmost block that blocks motion or holds a
        fluid (approximated: not air and either has collision or is a fluid)."""
        column = self.kernel.world.column(x >> 4, z >> 4).blocks[:, z & 15, x & 15]
        solid = np.flatnonzero(self._motion_blocking[column])
        return MIN_Y + int(solid[-1]) + 1 if len(solid) else MIN_Y

    def _ice_and_snow(self, cx: int, cz: int) -> None:
        x, z = cx * 16 + self.rng.randrange(16), cz * 16 + self.rng.randrange(16)
        biomes = self.kernel.world.column(cx, cz).biomes[:, (z & 15) >> 2, (x & 15) >> 2]
        if not self._cold_biome[biomes].any():
            return  # no cold biome anywhere in this column: nothing can freeze or snow
        top = (x, self._surface(x, z), z)
        below = (x, top[1] - 1, z)
        cold = self.light.temperature(top) < self.freeze.max_temperature
        if not cold:
            return
        if self._should_freeze(below):
            self.kernel.set_block(below, self.ice_state)
        if self.admin.weather != "clear" and self._should_snow(top):
            self.kernel.set_block(top, facts.block(self.snow_rule["block"]).default_state)

    def _should_freeze(self, pos: Pos) -> bool:
        if (
            not MIN_Y <= pos[1] < MIN_Y + HEIGHT
            or self.light.block_light(pos, 5) >= self.freeze.max_block_light
        ):
            return False
        if self.at(pos) != self.water_state:  # a water source LiquidBlock
            return False
        return not all(
            fluid_of(facts.block_name(self.at((pos[0] + d[0], pos[1], pos[2] + d[2])))) == WATER
            for d in (OFFSET["west"], OFFSET["east"], OFFSET["north"], OFFSET["south"])
        )

    def _should_snow(self, pos: Pos) -> bool:
        if (
            not MIN_Y <= pos[1] < MIN_Y + HEIGHT
            or self.light.block_light(pos, 5) >= self.freeze.max_block_light
        ):
            return False
        return facts.is_air(self.at(pos)) and self.snow_can_survive(pos)

    def snow_can_survive(self, pos: Pos) -> bool:
        """``SnowLayerBlock.canSurvive`` (the full top face approximated by a full-cube collision shape)."""
        below = self.at((pos[0], pos[1] - 1, pos[2]))
        b = self.bid(below)
        if b in self.snow_never:
            return False
        if b in self.snow_on:
            return True
        if bool(self._full[below]):
            return True
        return b == self.snow_id and facts.state_props(below).get("layers") == str(
            self.snow_rule["max_layers"]
        )
