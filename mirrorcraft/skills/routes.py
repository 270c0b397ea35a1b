"""Scripted routes: for every task × (Vanilla, M01-M06), a fixed, suite-aware sequence of skill calls.

Why: the reachability control (spec "Controls") must show that each task is completable within its
action budget in every world, *through the same skills agents use*. These routes are a test harness,
not an agent: they are allowed to know the suite (its yields, an :class:`Economy` read from the suite's
manifest in ``mirrorcraft/datapacks/manifests`` by :func:`~mirrorcraft.skills.economy.derive_economy`), they never observe rule text at
run time, and they are never shown to agents.

A route is ordinary async code against :class:`RouteRunner`: ``await r.call("mine", block=..., count=...)``
executes one skill call (one action, counted against the budget) and returns its report. Helpers
``gather`` / ``craft`` / ``smelt`` repeat calls until the inventory holds what the next step needs,
using ``explore`` / ``dig_down`` when a block is not in view. A route fails when a step cannot be done
(:class:`RouteFailed`, with the step and the last report) or the budget is spent.

What a route knows per suite (M01..M06, by rule id):

* planks: a crafted log gives 4 (Vanilla), 2 (M01.log_yields_two_planks), 6 (M03.log_yields_six_planks);
  mined logs drop 4 planks (M02.log_drops_four_planks) or 4 planks and 2 sticks
  (M06.log_drops_four_planks_and_two_sticks), so no log is ever carried there;
* sticks: 4 per craft, 1 in M01 (M01.two_planks_yield_one_stick);
* iron: raw iron smelts to 1 ingot, 3 nuggets in a furnace in M01 (nine nuggets craft an ingot), 2 ingots
  in M03; iron ore also drops an ingot in M02; drops a raw-iron block in M04 (crafted into 9 raw iron);
* coal ore drops a coal block in M04 (burnt as is: one block smelts 80 items);
* diamond ore drops 2 diamonds and lapis in M03, a diamond block in M04 (crafted into 9), adds obsidian in
  M02 and lapis in M06; lapis ore adds 2 obsidian in M06 and drops a lapis block in M04;
* M05: the furnace recipe yields a blast furnace, the iron-pickaxe recipe an iron hoe (smelted into an
  iron pickaxe), the diamond-pickaxe recipe a diamond hoe (blasted into a diamond pickaxe); M03: the
  diamond-pickaxe recipe yields a netherite pickaxe (which mines obsidian as well);
* books: 3 sugar cane give 1 paper (3 in Vanilla, M01.three_sugar_cane_yield_one_paper), 1 book directly in
  M03; the book recipe yields an enchanting table in M02; leather comes from sugar cane in M02, from cows
  elsewhere; M06 iron ore and cows add paper.

Measured on the embedded server in the ``sandbox`` world and in the catalogue worlds (docs/skills.md
"Reachability" has the tables, with actions per cell). Natural terrain shaped the routes as it shapes a
player's habits: all the wood the route will use is mined first (:meth:`RouteRunner.stock_wood`: a player
at the bottom of a staircase cannot fetch more), the surface things of Enchantment (a cow's leather, sugar
cane, the book) come before going down, ores are searched by digging into the catalogue's ore bands
(:data:`ORE_Y`), and a crafting table or smelter out of reach is replaced rather than walked back to. The
cow hunt for leather is retried (a cow drops 0-2 leather and wanders off).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.contracts import TASKS, OutcomeReport, SkillCall, TaskId
from mirrorcraft.skills.economy import WORLD_KINDS, Economy, M, derive_economy, economy
from mirrorcraft.skills.registry import SkillSet

LOG_TYPES = ("oak", "birch", "spruce", "jungle", "acacia", "dark_oak", "mangrove")
#: Blocks found by digging a few blocks down rather than by exploring.
SHALLOW_BLOCKS = {"stone"}
#: Blocks that grow on the surface (with logs): a route climbs back to its spawn point before mining them.
SURFACE_BLOCKS = {"sugar_cane"}
#: Heights a route digs down to when an ore is not in view: inside the catalogue worlds' custom ore bands
#: (``mirrorcraft.datapacks.biome.CUSTOM_ORE_BANDS``, the paper's appendix J: coal 44-112, iron 40-92,
#: lapis 30-68, diamond 36-68 and 52-72, obsidian 36-64 and 50-72), where the ores are dense; digging to
#: vanilla's deep diamond levels walks away from them. A world with only vanilla ore placement (one a user
#: brings) would need deeper values.
ORE_Y = {"coal_ore": 56, "iron_ore": 56, "diamond_ore": 50, "lapis_ore": 46, "obsidian": 50}
#: Once at an ore's height, a search digs on down this many blocks per call (each staircase step opens new
#: rock to the player's reach; the vanilla placements lie below the bands), down to :data:`SEARCH_FLOOR`.
SEARCH_STEP = 8
SEARCH_FLOOR = -50
#: A search does not start a staircase for a block within this many blocks (horizontally) of one it started
#: for that block before, at or below the new start; it explores on first. Why: after a failed ``mine`` and
#: a ``recover`` to the same safe spot, ``dig_down`` walked back down the same staircase to the same rock,
#: four times (savanna-2 Diamond M01).
SHAFT_SPACING = 4
#: The turn order of a search spiral (:func:`spiral_direction`).
SPIRAL = ("north", "east", "south", "west")
#: Ores that may take several staircase calls to reach: their searches get more tries.
DEEP_ORES = {"diamond_ore", "lapis_ore", "obsidian"}


def failed(rep: OutcomeReport, *reasons: str) -> bool:
    """Whether ``rep`` is a failure for one of ``reasons`` (the routes' branch on a report)."""
    return rep.status == "failure" and rep.reason is not None and rep.reason.value in reasons


def spiral_direction(leg: int) -> str:
    """The compass direction of leg ``leg`` (from 0) of a square spiral: runs of 1, 1, 2, 2, 3, 3... legs."""
    turn, left = 0, leg
    while left >= turn // 2 + 1:
        left -= turn // 2 + 1
        turn += 1
    return SPIRAL[turn % 4]


class RouteFailed(Exception):  # noqa: N818 - route control flow, reported in the control's table
    """A route could not continue: ``step`` names what it was doing."""

    def __init__(self, step: str, detail: str) -> None:
        super().__init__(f"{step}: {detail}")
        self.step = step
        self.detail = detail


def grid(rows: list[str], key: dict[str, str]) -> list[list[str | None]]:
    """A grid from pattern rows (``"PPP"``, ``" S "``) and a key (``{"P": "oak_planks"}``); space = empty."""
    return [[None if ch == " " else M + key[ch].removeprefix(M) for ch in row] for row in rows]


PICKAXE = ["XXX", " S ", " S "]


@dataclass
class RouteResult:
    """One row of the reachability table."""

    task: str
    world: str
    completed: bool
    actions: int
    budget: int
    milestones: list[str]
    stopped_at: str = ""
    detail: str = ""
    calls: list[tuple[SkillCall, OutcomeReport]] = field(default_factory=list)


class RouteRunner:
    """Executes a route's calls through a :class:`SkillSet`, counting actions against the budget.

    Args:
        skills: The skill set bound to a connected body.
        kind: ``"vanilla"`` or a suite id (selects the :class:`Economy`).
        budget: Action budget (the task's).
    """

    def __init__(
        self,
        skills: SkillSet,
        kind: str,
        budget: int,
        log: Callable[[int, SkillCall, OutcomeReport], None] | None = None,
    ) -> None:
        self.skills = skills
        self.kind = kind
        self.eco = economy(kind)
        self.budget = budget
        self.calls: list[tuple[SkillCall, OutcomeReport]] = []
        self.step = "start"
        self.log = log
        self._explored = 0
        #: (block, feet) where search staircases began
        self.shafts: list[tuple[str, tuple[int, int, int]]] = []
        self.home = self.ctx.feet()  # the spawn point, on the surface

    async def surface(self) -> None:
        """Walk back to the spawn point (one ``go_to``) when far below it: trees, cane and cows are up there.

        Why: after a staircase down to iron or diamonds, the surface is out of every search radius; a
        player climbs back up their own staircase before looking for wood.
        """
        if self.ctx.feet()[1] < self.home[1] - 4:
            await self.call("go_to", x=self.home[0], y=self.home[1], z=self.home[2])

    # ------------------------------------------------------------------------------------------ basics
    @property
    def ctx(self) -> Any:
        """The skills' shared context."""
        return self.skills.ctx

    def have(self, name: str) -> int:
        """Count of item ``name`` carried (bare or namespaced)."""
        return self.ctx.inventory().get(M + name.removeprefix(M), 0)

    async def call(self, name: str, **args: Any) -> OutcomeReport:
        """Execute one skill call (one action).

        Raises:
            RouteFailed: the budget is already spent.
        """
        if len(self.calls) >= self.budget:
            raise RouteFailed(self.step, f"action budget of {self.budget} spent")
        call = SkillCall.create(name, args)
        report, _ = await self.skills.execute(call)
        self.calls.append((call, report))
        if self.log is not None:
            self.log(len(self.calls), call, report)
        return report

    async def need(self, name: str, count: int, what: str) -> None:
        """Fail the route unless ``count`` of ``name`` are carried."""
        if self.have(name) < count:
            last = self.calls[-1][1] if self.calls else None
            detail = f"needs {count} {name}, has {self.have(name)}"
            if last is not None and last.status == "failure":
                detail += f" (last call {last.skill}: {last.reason} {last.message})"
            raise RouteFailed(what, detail)

    async def search(self, block: str) -> None:
        """One action towards finding ``block``: dig down towards its usual height (then on down,
        :data:`SEARCH_STEP` blocks a call), else explore.

        Stone lies under the soil nearly everywhere, so a short staircase down (6 blocks) exposes it; an
        exploration that could not move (a hole, an enclosure) is followed by ``recover``. A staircase is
        not started again where one started before (:data:`SHAFT_SPACING`): the route explores a spiral
        leg first and digs down from wherever that ends.
        """
        bare = block.removeprefix(M)
        y = ORE_Y.get(bare)
        st = self.ctx.body.movement.state
        if st is not None and st.in_water:  # nobody digs a staircase from a pond: get out first
            await self.call("recover")
        feet = self.ctx.feet()
        if y is not None and feet[1] <= y + 2 and feet[1] > SEARCH_FLOOR + 2:
            y = max(SEARCH_FLOOR, feet[1] - SEARCH_STEP)  # at its height already: on down
        if (y is not None and feet[1] > y + 2) or (bare in SHALLOW_BLOCKS and feet[1] > -50):
            if any(
                b == bare and abs(feet[0] - sx) <= SHAFT_SPACING and abs(feet[2] - sz) <= SHAFT_SPACING
                and feet[1] >= sy
                for b, (sx, sy, sz) in self.shafts
            ):  # fmt: skip
                # that staircase's rock was searched: walk on before digging (a spiral leg)
                rep = await self.explore()
                if failed(rep, "unreachable"):
                    await self.call("recover")
                feet = self.ctx.feet()
            target = max(y, feet[1] - self.ctx.limits.dig_down_max_blocks) if y is not None else feet[1] - 6
            self.shafts.append((bare, feet))
            rep = await self.call("dig_down", target_y=target)
            if failed(rep, "unreachable"):
                # water or ice underfoot (a frozen river, a beach): walk on to ground that can be dug
                await self.call("explore", direction="any", distance=24)
        else:
            rep = await self.explore()
            if failed(rep, "unreachable"):
                await self.call("recover")

    async def explore(self, distance: int = 48) -> OutcomeReport:
        """One ``explore`` leg of an outward square spiral (north 1 leg, east 1, south 2, west 2, north 3...).

        Why not ``direction="any"``: its least-visited choice walks north, east, south, west — a square
        that ends where it began, so a fourth leg searches nothing new (sugar cane 75 blocks from spawn was
        never found). A spiral's legs of ``distance`` blocks, with the 32-block search radius, sweep a
        widening ring.
        """
        direction = spiral_direction(self._explored)
        self._explored += 1
        return await self.call("explore", direction=direction, distance=distance)

    async def mine_for(self, block: str, item: str, want: int, per_block: int = 1, tries: int = 0) -> None:
        """Mine ``block`` until ``want`` of ``item`` are carried (each block yields ``per_block``).

        ``tries`` mine calls (each failed one followed by a search): 10 for :data:`DEEP_ORES` and
        :data:`SURFACE_BLOCKS` (sugar cane can be 75 blocks away: the spiral needs 7 legs), 6 otherwise.
        Sugar cane is asked for two more than needed: its drops fall into the water beside it and some
        float away.
        """
        self.step = f"mine {block} for {want} {item}"
        bare = block.removeprefix(M)
        tries = tries or (10 if bare in DEEP_ORES or bare in SURFACE_BLOCKS else 6)
        if want > self.have(item) and (block.endswith("_log") or bare in SURFACE_BLOCKS):
            await self.surface()
        for _ in range(tries):
            missing = want - self.have(item)
            if missing <= 0:
                return
            extra = 2 if bare in SURFACE_BLOCKS else 0
            n = min(self.ctx.limits.mine_max_count, math.ceil(missing / per_block) + extra)
            rep = await self.call("mine", block=block, count=n)
            if (
                self.have(item) < want
                and rep.completed
                and self.ctx.item_entities(M + item.removeprefix(M), self.ctx.limits.collect_radius)
            ):
                # broken but not picked up (sugar cane drops fall into the water beside it and drift)
                await self.call("collect", item=M + item.removeprefix(M))
            if failed(rep, "not_found", "unreachable", "timeout"):
                await self.search(block)
        await self.need(item, want, self.step)

    async def craft(
        self, workstation: str, rows: list[str], key: dict[str, str], item: str, want: int, per: int
    ) -> None:
        """Craft until ``want`` of ``item`` are carried, ``per`` per result take."""
        self.step = f"craft {want} {item}"
        missing = want - self.have(item)
        if missing > 0:
            rep = await self.call(
                "craft_grid", workstation=workstation, grid=grid(rows, key), count=math.ceil(missing / per)
            )
            if workstation == "crafting_table" and failed(rep, "no_workstation", "timeout"):
                # the table is out of reach from here (the player went down a staircase or far away):
                # a player makes and places another one and crafts again
                await self.table(force=True)
                self.step = f"craft {want} {item}"
                await self.call(
                    "craft_grid",
                    workstation=workstation,
                    grid=grid(rows, key),
                    count=math.ceil((want - self.have(item)) / per),
                )
        await self.need(item, want, self.step)

    async def place(self, item: str) -> None:
        """Place a workstation nearby (one action)."""
        self.step = f"place {item}"
        rep = await self.call("place", item=item, use="workstation")
        if rep.status != "success" and not self._placed_anyway(item):
            # in a tunnel or a hole there may be no free spot: get to open ground and try once more
            await self.call("recover")
            rep = await self.call("place", item=item, use="workstation")
        if rep.status != "success" and not self._placed_anyway(item):
            raise RouteFailed(self.step, f"{rep.reason}: {rep.message}")

    async def smelt(self, input_: str, device: str, fuel: str, count: int, out: str, want: int) -> None:
        """Smelt ``count`` of ``input_`` and check ``want`` of ``out`` are carried."""
        self.step = f"smelt {count} {input_}"
        rep = await self.call("smelt", input=input_, device=device, fuel=fuel, count=count)
        if failed(rep, "no_workstation"):
            await self.smelter(force=True)  # the placed one is out of reach from here: make another
            self.step = f"smelt {count} {input_}"
            await self.call("smelt", input=input_, device=device, fuel=self._fuel(), count=count)
        await self.need(out, want, self.step)

    def _placed_anyway(self, item: str) -> bool:
        """A ``place`` that reported a timeout may still have landed: the item left the inventory and the
        block stands next to the player."""
        return not self.have(item) and bool(self.ctx.find_blocks(M + item.removeprefix(M), 6))

    # ------------------------------------------------------------------------------------ resources
    def log_type(self) -> str:
        """The wood already carried (logs or planks), else the nearest log type in view (``oak`` when none is).

        Carried wood first: crafting planks from the logs in the pack must not send the player after the
        different trees that happen to be nearest now.
        """
        inv = self.ctx.inventory()
        for wood in LOG_TYPES:
            if inv.get(M + f"{wood}_log", 0) or inv.get(M + f"{wood}_planks", 0):
                return wood
        best = None
        for wood in LOG_TYPES:
            found = self.ctx.find_blocks(M + f"{wood}_log")
            if found:
                d = math.dist(found[0], self.ctx.feet())
                if best is None or d < best[0]:
                    best = (d, wood)
        return best[1] if best else "oak"

    async def stock_wood(self, sticks: int, tables: int) -> None:
        """Mine, at the start, all the wood the route will use: ``sticks`` sticks, ``tables`` crafting tables
        and a wooden pickaxe's head (whole logs are carried; they are crafted into planks when needed).

        Why: trees grow on the surface; a player who runs out of planks at the bottom of a staircase (the
        crafting table left out of reach up there) cannot walk back up a staircase whose steps were mined
        away. Players go down with wood in the pack; so do the routes. Mining 8 logs is one ``mine`` call.
        """
        self.step = "stock wood"
        eco = self.eco
        wood = self.log_type()
        log = f"{wood}_log"
        if eco.log_drops is not None:
            per_planks, per_sticks = eco.log_drops["planks"], eco.log_drops.get("stick", 0)
            stick_planks = 0 if per_sticks else 2 * math.ceil(sticks / eco.sticks_per_craft)
            planks = 3 + 4 * tables + stick_planks
            logs = max(math.ceil(planks / per_planks), math.ceil(sticks / per_sticks) if per_sticks else 0)
            await self.mine_for(log, f"{wood}_planks", logs * per_planks, per_block=per_planks)
        else:
            planks = 3 + 4 * tables + 2 * math.ceil(sticks / eco.sticks_per_craft)
            await self.mine_for(log, log, math.ceil(planks / eco.planks_per_log))

    async def planks(self, want: int) -> str:
        """Get ``want`` planks; returns the planks item."""
        wood = self.log_type()
        log, planks = f"{wood}_log", f"{wood}_planks"
        if self.eco.log_drops is not None:
            await self.mine_for(log, planks, want, per_block=self.eco.log_drops["planks"])
            return planks
        logs = math.ceil(max(0, want - self.have(planks)) / self.eco.planks_per_log)
        if logs:
            await self.mine_for(log, log, logs)
            await self.craft("inventory", ["L ", "  "], {"L": log}, planks, want, self.eco.planks_per_log)
        return planks

    async def sticks(self, want: int) -> None:
        """Get ``want`` sticks."""
        if self.have("stick") >= want:
            return
        if self.eco.log_drops is not None and "stick" in self.eco.log_drops:
            wood = self.log_type()
            await self.mine_for(f"{wood}_log", "stick", want, per_block=self.eco.log_drops["stick"])
            return
        crafts = math.ceil((want - self.have("stick")) / self.eco.sticks_per_craft)
        planks = await self.planks(2 * crafts)
        await self.craft("inventory", ["P ", "P "], {"P": planks}, "stick", want, self.eco.sticks_per_craft)

    async def table(self, force: bool = False) -> None:
        """Make and place a crafting table unless one is near (or ``force``: the near one is unusable)."""
        if not force and self.ctx.find_blocks(M + "crafting_table", 16):
            return
        if not self.have("crafting_table"):
            planks = await self.planks(4)
            await self.craft("inventory", ["PP", "PP"], {"P": planks}, "crafting_table", 1, 1)
        await self.place("crafting_table")

    async def pickaxe(self, material: str) -> None:
        """Craft a pickaxe of ``material`` (``planks`` / ``cobblestone`` / ``iron_ingot``) at a table."""
        target = {"planks": "wooden_pickaxe", "cobblestone": "stone_pickaxe", "iron_ingot": "iron_pickaxe"}[
            material
        ]
        if self.have(target):
            return
        # order matters: sticks and the table use planks, the head's planks are taken last
        await self.sticks(2)
        await self.table()
        head = await self.planks(3) if material == "planks" else material
        if material == "iron_ingot" and self.eco.iron_pickaxe_via_hoe:
            await self.craft("crafting_table", PICKAXE, {"X": head, "S": "stick"}, "iron_hoe", 1, 1)
            await self.smelter()
            await self.coal(1)
            await self.smelt("iron_hoe", self._device(), self._fuel(), 1, "iron_pickaxe", 1)
            return
        await self.craft("crafting_table", PICKAXE, {"X": head, "S": "stick"}, target, 1, 1)

    def _device(self) -> str:
        return self.eco.furnace_recipe_gives

    def _fuel(self) -> str:
        for fuel in ("coal_block", "coal"):
            if self.have(fuel):
                return fuel
        return next(
            (k.removeprefix(M) for k in sorted(self.ctx.inventory()) if k.endswith("_planks")), "coal"
        )

    async def smelter(self, force: bool = False) -> None:
        """Make and place the smelting device the furnace recipe yields, unless one is near (or ``force``)."""
        device = self._device()
        if not force and self.ctx.find_blocks(M + device, 16):
            return
        if not self.have(device):
            await self.pickaxe("planks")
            await self.mine_for("stone", "cobblestone", 8)
            await self.table()
            await self.craft("crafting_table", ["CCC", "C C", "CCC"], {"C": "cobblestone"}, device, 1, 1)
        await self.place(device)

    async def coal(self, items: int) -> None:
        """Fuel for ``items`` smelts."""
        if self.eco.coal_ore_drop == "coal_block":
            await self.mine_for("coal_ore", "coal_block", 1)
        else:
            await self.mine_for("coal_ore", "coal", math.ceil(items / 8))

    async def iron_ingots(self, want: int) -> None:
        """Carry ``want`` iron ingots."""
        self.step = f"get {want} iron ingots"
        eco = self.eco
        missing = want - self.have("iron_ingot")
        if missing <= 0:
            return
        if not self.have("stone_pickaxe"):
            await self.pickaxe("cobblestone")
        out, per = eco.raw_iron_smelts_to
        if eco.iron_ore_drop == "raw_iron_block":
            await self.mine_for("iron_ore", "raw_iron_block", 1)
            await self.craft("inventory", ["B ", "  "], {"B": "raw_iron_block"}, "raw_iron", missing, 9)
        else:
            per_ore = per + (1 if eco.iron_ore_extra_ingot else 0)
            ores = math.ceil(missing / per_ore) if out == "iron_ingot" else math.ceil(missing * 9 / per)
            await self.mine_for("iron_ore", "raw_iron", ores)
        if self.have("iron_ingot") >= want:
            return
        raws = self.have("raw_iron")
        smelts = min(raws, math.ceil((want - self.have("iron_ingot")) / per)) if out == "iron_ingot" else raws
        smelts = min(smelts, self.ctx.limits.smelt_max_items)
        await self.smelter()
        await self.coal(smelts)
        produced = smelts * per
        await self.smelt("raw_iron", self._device(), self._fuel(), smelts, out, min(produced, 1))
        if out == "iron_nugget":
            await self.table()
            await self.craft(
                "crafting_table", ["NNN", "NNN", "NNN"], {"N": "iron_nugget"}, "iron_ingot", want, 1
            )
        await self.need("iron_ingot", want, self.step)

    async def diamonds(self, want: int) -> None:
        """Carry ``want`` diamonds (needs an iron pickaxe)."""
        await self.iron_pickaxe()
        item, per = self.eco.diamond_ore_drop
        if item == "diamond_block":
            await self.mine_for("diamond_ore", "diamond_block", 1)
            await self.craft("inventory", ["B ", "  "], {"B": "diamond_block"}, "diamond", want, 9)
        else:
            await self.mine_for("diamond_ore", "diamond", want, per_block=per)

    async def iron_pickaxe(self) -> None:
        """Stone age up to an iron pickaxe (nothing to do when one is carried)."""
        if self.have("iron_pickaxe"):
            return
        await self.pickaxe("planks")
        await self.mine_for("stone", "cobblestone", 3)
        await self.pickaxe("cobblestone")
        await self.iron_ingots(3)
        await self.pickaxe("iron_ingot")


# ---------------------------------------------------------------------------------------------------
# The three task routes
# ---------------------------------------------------------------------------------------------------


async def route_iron_armor(r: RouteRunner) -> None:
    """Wood, stone pickaxe, smelter, 4 iron ingots, iron boots, worn."""
    await r.stock_wood(sticks=4, tables=3)
    await r.pickaxe("planks")
    await r.mine_for("stone", "cobblestone", 3)
    await r.pickaxe("cobblestone")
    await r.iron_ingots(4)
    await r.table()
    await r.craft("crafting_table", ["I I", "I I", "   "], {"I": "iron_ingot"}, "iron_boots", 1, 1)
    r.step = "wear iron boots"
    await r.call("equip", item="iron_boots", slot="feet")


async def route_diamond(r: RouteRunner) -> None:
    """Up to an iron pickaxe, then mine a diamond ore."""
    await r.stock_wood(sticks=6, tables=3)
    await r.diamonds(1)


async def route_enchantment(r: RouteRunner) -> None:
    """Iron pickaxe, diamonds, a pickaxe that mines obsidian, obsidian, a book, the table, enchant."""
    eco = r.eco
    if needs_cow_leather(eco):
        await leather_from_cows(r)
    await r.stock_wood(sticks=8, tables=4)
    # the book's sugar cane grows on the surface: the book (M02: its ingredients) is made before going down
    if eco.book_recipe_gives != "enchanting_table":
        await book(r)
    else:
        await book_ingredients(r)
    await r.iron_pickaxe()
    table_item = "enchanting_table"
    obsidian_from_drops = eco.diamond_ore_adds.get("obsidian", 0) or eco.lapis_ore_adds.get("obsidian", 0)
    if eco.book_recipe_gives != "enchanting_table":
        await r.diamonds(2 + (0 if obsidian_from_drops else 3))
        if not obsidian_from_drops:
            await r.table()
            head = "diamond"
            if eco.diamond_pickaxe_via_hoe:
                await r.craft("crafting_table", PICKAXE, {"X": head, "S": "stick"}, "diamond_hoe", 1, 1)
                await r.smelter()  # M05: the smelter *is* a blast furnace
                await r.coal(1)
                await r.smelt("diamond_hoe", "blast_furnace", r._fuel(), 1, "diamond_pickaxe", 1)
            else:
                await r.sticks(2)
                give = eco.diamond_pickaxe_recipe_gives
                await r.craft("crafting_table", PICKAXE, {"X": head, "S": "stick"}, give, 1, 1)
            await r.mine_for("obsidian", "obsidian", 4)
        elif eco.lapis_ore_adds.get("obsidian"):
            await r.mine_for("lapis_ore", "obsidian", 4, per_block=2)
        else:
            await r.mine_for("diamond_ore", "obsidian", 4)
        await book(r)
        await r.table()
        await r.craft("crafting_table", [" B ", "DOD", "OOO"], {"B": "book", "D": "diamond", "O": "obsidian"},
                      table_item, 1, 1)  # fmt: skip
    else:  # M02: the book recipe yields the enchanting table
        await r.mine_for("diamond_ore", "obsidian", 1)  # form_obsidian via the added drop
        await book_ingredients(r)
        await r.craft("inventory", ["PP", "PL"], {"P": "paper", "L": "leather"}, table_item, 1, 1)
    await lapis(r, 1)  # first: lapis may lie deep, and the table must stand where the player enchants
    await r.place(table_item)
    r.step = "enchant"
    for tool in ("iron_pickaxe", "stone_pickaxe", "wooden_pickaxe"):
        if r.have(tool):
            rep = await r.call("enchant", item=tool, option=1)
            if rep.status == "success":
                return
            raise RouteFailed(r.step, f"{rep.reason}: {rep.message}")
    raise RouteFailed(r.step, "no tool to enchant")


async def book_ingredients(r: RouteRunner) -> None:
    """Three paper and one leather (or, in M03, nothing: cane makes the book itself)."""
    eco = r.eco
    if eco.leather_from_cane:
        await r.mine_for("sugar_cane", "leather", 1)
    elif eco.cane_recipe_gives != "book":
        await leather_from_cows(r)
    if eco.cane_recipe_gives == "paper" and r.have("paper") < 3:
        canes = 3 * math.ceil(max(0, 3 - r.have("paper")) / eco.paper_per_cane_craft)
        await r.mine_for("sugar_cane", "sugar_cane", canes)
        await r.table()
        await r.craft(
            "crafting_table", ["CCC", "   ", "   "], {"C": "sugar_cane"}, "paper", 3, eco.paper_per_cane_craft
        )


def needs_cow_leather(eco: Economy) -> bool:
    """Whether the book's leather must come from a cow in this world kind."""
    return not eco.leather_from_cane and eco.cane_recipe_gives != "book"


async def leather_from_cows(r: RouteRunner) -> None:
    """One leather from cows (nothing to do when one is carried).

    A cow drops 0-2 leather (vanilla loot table) and a hunt can time out while cows wander off: try up to
    four hunts before giving up, exploring when no cow is in view (cows may graze 50 blocks away). The
    Enchantment route calls this first, while the cows that spawn with the world are still near the spawn
    point (they wander for the minutes the rest of the route takes).
    """
    r.step = "leather from a cow"
    if not r.have("leather"):
        await r.surface()
    for _ in range(4):
        if r.have("leather"):
            break
        rep = await r.call("attack", mob="cow", count=2)
        if failed(rep, "not_found"):
            await r.explore()  # no cow in view: look further
    await r.need("leather", 1, r.step)


async def book(r: RouteRunner) -> None:
    """One book."""
    if r.have("book"):
        return
    await book_ingredients(r)
    if r.eco.cane_recipe_gives == "book":
        await r.mine_for("sugar_cane", "sugar_cane", 3)
        await r.table()
        await r.craft("crafting_table", ["CCC", "   ", "   "], {"C": "sugar_cane"}, "book", 1, 1)
        return
    await r.craft("inventory", ["PP", "PL"], {"P": "paper", "L": "leather"}, "book", 1, 1)


async def lapis(r: RouteRunner, want: int) -> None:
    """Carry ``want`` lapis lazuli."""
    if r.have("lapis_lazuli") >= want:
        return
    if r.eco.lapis_ore_drop == "lapis_block":
        await r.mine_for("lapis_ore", "lapis_block", 1)
        await r.craft("inventory", ["B ", "  "], {"B": "lapis_block"}, "lapis_lazuli", want, 9)
    else:
        await r.mine_for("lapis_ore", "lapis_lazuli", want)


ROUTES: dict[TaskId, Callable[[RouteRunner], Awaitable[None]]] = {
    TaskId.IRON_ARMOR: route_iron_armor,
    TaskId.DIAMOND: route_diamond,
    TaskId.ENCHANTMENT: route_enchantment,
}

#: The item whose presence (or, for Enchantment, a successful ``enchant`` call) completes the task.
FINAL_CHECK: dict[TaskId, str] = {
    TaskId.IRON_ARMOR: "iron armour worn or carried",
    TaskId.DIAMOND: "a diamond carried",
    TaskId.ENCHANTMENT: "an enchant call succeeded",
}


def task_done(task: TaskId, runner: RouteRunner) -> bool:
    """The route's own completion check (used alongside the server's advancements)."""
    if task == TaskId.ENCHANTMENT:
        return any(c.name == "enchant" and rep.status == "success" for c, rep in runner.calls)
    if task == TaskId.DIAMOND:
        return runner.have("diamond") > 0
    inv = runner.ctx.inventory()
    return any(
        k.startswith(M + "iron_") and k.endswith(("_helmet", "_chestplate", "_leggings", "_boots"))
        for k in inv
    )


async def run_route(
    skills: SkillSet,
    task: TaskId,
    kind: str,
    world: str,
    log: Callable[[int, SkillCall, OutcomeReport], None] | None = None,
) -> RouteResult:
    """Run one task's route in a world of kind ``kind`` (``vanilla`` or a suite id) with a connected body.

    Never raises for in-game failures: the result says where the route stopped.
    """
    spec = TASKS[task]
    runner = RouteRunner(skills, kind, spec.budget, log)
    stopped, detail = "", ""
    try:
        await ROUTES[task](runner)
    except RouteFailed as err:
        stopped, detail = err.step, err.detail
    done = task_done(task, runner)
    adv = skills.ctx.body.advancements
    milestones = [
        m.advancement.removeprefix("minecraft:story/") for m in spec.milestones if adv.is_done(m.advancement)
    ]
    return RouteResult(
        task=task.value,
        world=world,
        completed=done and not stopped,
        actions=len(runner.calls),
        budget=spec.budget,
        milestones=milestones,
        stopped_at=stopped,
        detail=detail,
        calls=list(runner.calls),
    )


__all__ = [
    "ROUTES",
    "WORLD_KINDS",
    "Economy",
    "RouteFailed",
    "RouteResult",
    "RouteRunner",
    "derive_economy",
    "economy",
    "grid",
    "run_route",
    "task_done",
]
