"""The Mushroom War opponents of PillagerBench as scripted team systems on the skill layer.

Each is faithful to the documented behaviour (shared/spec/pillagerbench.md "Scenario 1"; the original runs
them as JavaScript bots with a cycle per second): the first player of a team (``Ryn`` / ``Byte``) and the
second (``Raze`` / ``Blink``) have fixed roles. They act only through skills (``mine``, ``go_to``,
``place_at``), knowing what every system is told — the two areas' centres and the team blocks
(:attr:`~mirrorcraft.agents.teams.GameBriefing.facts`) — never the judge's rules or numbers.

* **passive** — one harvests its own caps (or clears slime when none are left), the other clears slime 8
  blocks at a time;
* **balanced** — one clears slime and harvests, the other destroys the opponent's caps;
* **aggressive** — one clears its own slime and places 8 slime blocks at random within ±4 of the
  opponent's centre, the other harvests and destroys the opponent's caps;
* **slimy** — one harvests, the other clears slime and dumps it on the opponent.

Our readings (the counts are the original's bot scripts', ``agents/scripts/mushroom_war_<opponent>_<0|1>.js``:
``mineBlock(bot, name, count, centre, 7)`` per cycle): "clear slime" is ``mine slime_block`` of 8 after
walking back to the own area's centre (``mine`` takes the nearest known blocks, and the player may stand in
the other area); "harvest" is walking to the own centre and mining up to 15 of the own cap block (its drops
are picked up), "destroy the opponent's caps" the same in their area with their cap block (it exists only
there) — 15 per cycle as the original, in calls of at most ``SkillLimits.mine_max_count`` (8): 8 then 7, the
second skipped when the first found nothing. Slime is placed on free ground cells (the arena's floor level)
drawn from the system's own stream, seeded by the episode seed and the player. Not mirrored: the original's
1-second wait between cycles (a failed call here is simply followed by the next one) and its radius-7
bound around the centre (``mine`` searches from the player).

Until 2026-12-02 harvest and destroy mined one block per cycle: the balanced and aggressive opponents then
scored 2.1 and 4.9 points against ``do_nothing`` in 120 s where the original publishes 16.75 and 20.27
(their harvester walked off to clear slime or to the other area after every single cap).

The Dash & Dine opponents (shared/spec/pillagerbench.md "Scenario 2"; the roles read from the original's
bot scripts, ``agents/scripts/dash_and_dine_<opponent>_<0|1>.js``, facts only) are below
(:class:`_DashAndDineOpponent`): berries, cake_beetroot, melon_pumpkin, potato_cookie.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from mirrorcraft.agents.teams import GameBriefing, TeamPolicy, register_team_policy
from mirrorcraft.contracts import SkillCall, TeamObservation
from mirrorcraft.contracts.skills import MINE_MAX_COUNT
from mirrorcraft.contracts.teams import other_side
from mirrorcraft.errors import ContractError

SLIME = "minecraft:slime_block"
CLEAR_BATCH = 8  # "clears slime 8 blocks at a time", "places 8 slime blocks"
SPREAD = 4  # "at random within ±4 of the opponent's centre"
CAP_BATCH = 15  # the original's harvest / destroy: mineBlock(bot, cap, 15, centre, 7) per cycle


class _MushroomWarOpponent(TeamPolicy):
    """Roles as generators of skill calls, one per player, restarted every episode."""

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        facts = briefing.facts
        me, them = briefing.side, other_side(briefing.side)
        self.judge = facts.get("judges", {}).get(me)
        self.own_centre = tuple(facts["areas"][me])
        self.their_centre = tuple(facts["areas"][them])
        self.own_cap = facts["team_blocks"]["cap"][me]
        self.their_cap = facts["team_blocks"]["cap"][them]
        self.rng = {p: random.Random(f"{briefing.seed}_{self.id}_{p}") for p in briefing.players}
        first, second = briefing.players
        self.roles = {first: self.first(first), second: self.second(second)}
        self.last: dict[str, object] = {}

    # ---- building blocks ---------------------------------------------------------------------------------

    def _go(self, centre: tuple) -> SkillCall:
        x, y, z = (int(v) for v in centre)
        return SkillCall.create("go_to", {"x": x, "y": y, "z": z})

    def _mine(self, block: str, count: int = 1) -> SkillCall:
        return SkillCall.create("mine", {"block": block, "count": count})

    def clear_slime(self) -> Iterator[SkillCall]:
        yield self._go(self.own_centre)
        yield self._mine(SLIME, CLEAR_BATCH)

    def _mine_batch(self, player: str, block: str, n: int) -> Iterator[SkillCall]:
        """Up to ``n`` of ``block`` in calls of at most ``mine_max_count``, stopping at the first call that
        found none; returns how many calls succeeded."""
        done = 0
        while n > 0:
            k = min(n, MINE_MAX_COUNT)
            yield self._mine(block, k)
            if getattr(self.last.get(player), "status", None) != "success":
                break
            done += 1
            n -= k
        return done

    def harvest(self, player: str) -> Iterator[SkillCall]:
        """Walk to the own area, mine up to 15 own caps; returns whether any was mined."""
        yield self._go(self.own_centre)
        return (yield from self._mine_batch(player, self.own_cap, CAP_BATCH)) > 0

    def destroy(self, player: str) -> Iterator[SkillCall]:
        yield self._go(self.their_centre)
        yield from self._mine_batch(player, self.their_cap, CAP_BATCH)

    def dump_slime(self, player: str) -> Iterator[SkillCall]:
        rng = self.rng[player]
        cx, cy, cz = (int(v) for v in self.their_centre)
        yield self._go(self.their_centre)
        for _ in range(CLEAR_BATCH):
            x, z = cx + rng.randint(-SPREAD, SPREAD), cz + rng.randint(-SPREAD, SPREAD)
            yield SkillCall.create("place_at", {"item": SLIME, "x": x, "y": cy, "z": z})

    # ---- roles -------------------------------------------------------------------------------------------

    def first(self, player: str) -> Iterator[SkillCall]:
        raise NotImplementedError

    def second(self, player: str) -> Iterator[SkillCall]:
        raise NotImplementedError

    async def act(self, view: TeamObservation) -> SkillCall | None:
        self.last[view.player] = view.last_result.report if view.last_result is not None else None
        return next(self.roles[view.player], None)


def _forever(step):  # noqa: ANN001, ANN202 - a generator function's body run again and again
    def run(self, player):  # noqa: ANN001, ANN202
        while True:
            yield from step(self, player)

    return run


@register_team_policy
class Passive(_MushroomWarOpponent):
    id = "passive"

    @_forever
    def first(self, player: str) -> Iterator[SkillCall]:
        if not (yield from self.harvest(player)):  # no cap left: clear slime instead
            yield from self.clear_slime()

    @_forever
    def second(self, player: str) -> Iterator[SkillCall]:
        yield from self.clear_slime()


@register_team_policy
class Balanced(_MushroomWarOpponent):
    id = "balanced"

    @_forever
    def first(self, player: str) -> Iterator[SkillCall]:
        yield from self.clear_slime()
        yield from self.harvest(player)

    @_forever
    def second(self, player: str) -> Iterator[SkillCall]:
        yield from self.destroy(player)


@register_team_policy
class Aggressive(_MushroomWarOpponent):
    id = "aggressive"

    @_forever
    def first(self, player: str) -> Iterator[SkillCall]:
        yield from self.clear_slime()
        yield from self.dump_slime(player)

    @_forever
    def second(self, player: str) -> Iterator[SkillCall]:
        yield from self.harvest(player)
        yield from self.destroy(player)


@register_team_policy
class Slimy(_MushroomWarOpponent):
    id = "slimy"

    @_forever
    def first(self, player: str) -> Iterator[SkillCall]:
        yield from self.harvest(player)

    @_forever
    def second(self, player: str) -> Iterator[SkillCall]:
        yield from self.clear_slime()
        yield from self.dump_slime(player)


@register_team_policy
class Berries(TeamPolicy):
    """Dash & Dine's berries opponent: both players farm sweet berries, walk to the team's judge and deliver
    them; the second first destroys the potato and beetroot crops (the other team's likely foods)."""

    id = "berries"
    BERRIES = "minecraft:sweet_berries"

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        self.judge = briefing.facts["judges"][briefing.side]
        self.judge_spot = briefing.facts["judge_spots"][briefing.side]
        first, second = briefing.players
        self.roles = {first: self._farmer(), second: self._wrecker()}
        self.held: dict[str, int] = {}

    def _farmer(self) -> Iterator[SkillCall]:
        while True:
            yield SkillCall.create("farm", {"crop": "minecraft:sweet_berry_bush", "count": 8})
            x, y, z = self.judge_spot  # out of the bushes first: walk to the judge, then toss
            yield SkillCall.create("go_to", {"x": x - 2, "y": y, "z": z})
            yield "deliver"  # type: ignore[misc] - resolved in act() with the current inventory

    def _wrecker(self) -> Iterator[SkillCall]:
        for crop in ("minecraft:potatoes", "minecraft:beetroots"):
            for _ in range(2):
                yield SkillCall.create("mine", {"block": crop, "count": 8})
        yield from self._farmer()

    async def act(self, view: TeamObservation) -> SkillCall | None:
        step = next(self.roles[view.player], None)
        if step == "deliver":
            n = view.count(self.BERRIES)
            if n <= 0:
                return await self.act(view)  # nothing picked: farm again
            return SkillCall.create("give", {"item": self.BERRIES, "count": min(n, 64), "player": self.judge})
        return step


# ---- Dash & Dine ---------------------------------------------------------------------------------------------


class _DashAndDineOpponent(TeamPolicy):
    """Dash & Dine opponents: each player a generator of skill calls (``None`` lets a game second pass),
    restarted every episode; a generator reads its player's latest :class:`TeamObservation` in
    ``self.views`` (inventory counts) after each call.

    What they know is what every system is told (the briefing's facts): the team's judge player and where it
    stands, and the points of interest of the arena being played (``points``: the chests, furnaces, crafting
    tables and farms of the original's scenario description). Recipes are written as crafting grids, as any
    system would write them; whether a grid makes something is the server's.

    Settings (``TeamSystem.settings``, all optional, for short test episodes; the defaults are the
    original's numbers): ``round`` — cake_beetroot's cakes per round (5; it milks 3 per cake first);
    potato_cookie's potatoes baked per furnace visit (8, the original's ``smeltItem`` count) and cookie crafts per round (8, with 2 wheat and one cocoa pod harvested per
    craft).
    """

    #: settings → default (the original's numbers); subclasses add theirs.
    DEFAULTS: dict[str, int] = {}

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        facts = briefing.facts
        self.judge = facts["judges"][briefing.side]
        self.judge_spot = tuple(facts["judge_spots"][briefing.side])
        self.points = {k: tuple(v) for k, v in facts.get("points", {}).items()}
        self.opts = dict(self.DEFAULTS)
        for key, value in self.system.settings.items():
            if key in self.DEFAULTS:
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise ContractError(f"{self.id}: setting {key} must be a positive integer, got {value!r}")
                self.opts[key] = value
        first, second = briefing.players
        self.views: dict[str, TeamObservation] = {}
        self.roles = {first: self.first(first), second: self.second(second)}

    async def act(self, view: TeamObservation) -> SkillCall | None:
        self.views[view.player] = view
        return next(self.roles[view.player], None)

    # ---- building blocks ---------------------------------------------------------------------------------

    def held(self, player: str, item: str) -> int:
        view = self.views.get(player)
        return 0 if view is None else view.count(item)

    def point(self, label: str) -> tuple[int, int, int]:
        try:
            return self.points[label]  # type: ignore[return-value]
        except KeyError:
            raise ContractError(f"{self.id}: the briefing names no point {label!r}") from None

    @staticmethod
    def call(name: str, **args: object) -> SkillCall:
        return SkillCall.create(name, args)

    def take(self, item: str, count: int, label: str) -> SkillCall:
        x, y, z = self.point(label)
        return self.call("take", item=item, count=count, x=x, y=y, z=z)

    def go_to(self, label: str) -> SkillCall:
        x, y, z = self.point(label)
        return self.call("go_to", x=x, y=y, z=z)

    def deliver(self, player: str, item: str) -> Iterator[SkillCall | None]:
        """Walk to the team's judge player and toss it every ``item`` held (nothing when none is held)."""
        if self.held(player, item) <= 0:
            return
        x, y, z = self.judge_spot
        yield self.call("go_to", x=x - 2, y=y, z=z)  # beside the judge, on the arena's side
        n = self.held(player, item)
        if n > 0:
            yield self.call("give", item=item, count=min(n, 64), player=self.judge)

    def harvest_cane(self) -> Iterator[SkillCall | None]:
        """Break the sugar cane of the farm at two blocks above the ground (the original's
        ``harvestSugarCane(bot, -61)``: the bottom block stays and regrows). The farm is 3 wide around its
        coordinate (the description); a cell without cane fails at once (``not_found``)."""
        x0, y0, z0 = self.point("sugar cane farm")
        for x in (x0 - 1, x0, x0 + 1):
            for z in (z0 - 1, z0, z0 + 1):
                yield self.call("break_at", x=x, y=y0 + 1, z=z)

    def craft(self, grid: list[list[str | None]], count: int, table: bool = True) -> SkillCall:
        return self.call(
            "craft_grid", grid=grid, workstation="crafting_table" if table else "inventory", count=count
        )

    def first(self, player: str) -> Iterator[SkillCall | None]:
        raise NotImplementedError

    def second(self, player: str) -> Iterator[SkillCall | None]:
        raise NotImplementedError


M = "minecraft:"
EGG, BUCKET, MILK, SUGAR, CANE, WHEAT = (
    M + n for n in ("egg", "bucket", "milk_bucket", "sugar", "sugar_cane", "wheat")
)
BOWL, BEETROOT, SOUP = M + "bowl", M + "beetroot", M + "beetroot_soup"


@register_team_policy
class CakeBeetroot(_DashAndDineOpponent):
    """Dash & Dine's cake_beetroot opponent.

    * First player (the original's ``dash_and_dine_cake_beetroot_0``): takes the eggs of the egg chest and
      the 16 buckets of the bucket chest; then, round after round, milks the cow with every bucket it holds
      (at most 3 per cake of the round: 15 for the original's 5), and for each cake of the round harvests
      sugar cane (two above the ground) and 3 ripe wheat (replanted), crafts 2 sugar and the cake (3 milk,
      2 sugar, an egg, 3 wheat; the buckets come back); it gives the round's cakes to its judge player and
      takes the eggs laid since.
    * Second player (``..._1``): takes the 64 bowls of the bowl chest, harvests the ripe beetroots
      (replanted), **destroys the melon and pumpkin stems** (the other team's melon slices and pies), then
      harvests beetroots again and again; whenever it holds 6 beetroots it crafts a beetroot soup (6
      beetroots and a bowl) and gives it to its judge player.
    """

    id = "cake_beetroot"
    DEFAULTS = {"round": 5}
    STEMS = tuple(
        M + s for s in ("attached_melon_stem", "attached_pumpkin_stem", "melon_stem", "pumpkin_stem")
    )

    def first(self, player: str) -> Iterator[SkillCall | None]:
        cakes = self.opts["round"]
        yield self.take(EGG, 16, "egg chest")
        yield self.take(BUCKET, 16, "bucket chest")
        while True:
            yield None
            for _ in range(3 * cakes):
                if self.held(player, BUCKET) <= 0:
                    break
                yield self.call("use", item=BUCKET, entity=M + "cow")
            for _ in range(cakes):
                yield None
                yield from self.harvest_cane()
                yield self.call("farm", crop=WHEAT, count=3)
                yield self.craft([[CANE, None], [None, None]], 2, table=False)  # 2 sugar
                cake = [[MILK, MILK, MILK], [SUGAR, EGG, SUGAR], [WHEAT, WHEAT, WHEAT]]
                yield self.craft(cake, 1)
            yield from self.deliver(player, M + "cake")
            yield self.take(EGG, 16, "egg chest")

    def second(self, player: str) -> Iterator[SkillCall | None]:
        yield self.take(BOWL, 64, "bowl chest")
        yield self.call("farm", crop=M + "beetroots", count=6)
        for stem in self.STEMS:  # the original's destroyMelonPumpkins: every stem within reach of its search
            yield self.call("mine", block=stem, count=8)
        while True:
            yield self.call("farm", crop=M + "beetroots", count=6)
            yield None
            if self.held(player, BEETROOT) >= 6 and self.held(player, BOWL) >= 1:
                soup = [[BEETROOT] * 3, [BEETROOT] * 3, [BOWL, None, None]]  # 6 beetroots and a bowl
                yield self.craft(soup, 1)
                yield from self.deliver(player, SOUP)


@register_team_policy
class MelonPumpkin(_DashAndDineOpponent):
    """Dash & Dine's melon_pumpkin opponent (no sabotage).

    * First player (``dash_and_dine_melon_pumpkin_0``): again and again breaks the melons of the melon and
      pumpkin farm (the stems stay and grow new ones) and gives the melon slices to its judge player.
    * Second player (``..._1``): again and again takes the eggs laid in the egg chest, harvests sugar cane
      and the pumpkins, crafts up to 3 sugar and 3 pumpkin pies (pumpkin, sugar, egg) and gives the pies to
      its judge player. Pies need eggs, and the egg farm lays about 2 a minute, so pies are few (as in the
      original).
    """

    id = "melon_pumpkin"
    MELON, PUMPKIN, PIE = M + "melon", M + "pumpkin", M + "pumpkin_pie"

    def first(self, player: str) -> Iterator[SkillCall | None]:
        while True:
            yield self.go_to("melon pumpkin farm")
            yield self.call("mine", block=self.MELON, count=5)
            yield None
            yield from self.deliver(player, M + "melon_slice")

    def second(self, player: str) -> Iterator[SkillCall | None]:
        while True:
            yield self.take(EGG, 16, "egg chest")
            yield None
            yield from self.harvest_cane()
            yield self.go_to("melon pumpkin farm")
            yield self.call("mine", block=self.PUMPKIN, count=5)
            yield self.craft([[CANE, None], [None, None]], 3, table=False)
            yield self.craft([[self.PUMPKIN, SUGAR], [EGG, None]], 3, table=False)
            yield from self.deliver(player, self.PIE)


@register_team_policy
class PotatoCookie(_DashAndDineOpponent):
    """Dash & Dine's potato_cookie opponent.

    * First player (``dash_and_dine_potato_cookie_0``): takes the netherite hoe of the gold chest, harvests
      the ripe potatoes (replanted), **destroys the sweet berry bushes**, tills the berry farm's ground with
      the hoe and plants potatoes there (the original tills every bare dirt block in reach and plants
      potatoes on every farmland); then again and again harvests potatoes, bakes up to 8 in a furnace (its
      own coal) and gives the baked potatoes — and any raw potatoes left — to its judge player.
    * Second player (``..._1``): harvests the ripe wheat (replanted), **destroys the carrots**, then again
      and again harvests wheat and the ripe cocoa pods and crafts cookies (wheat, cocoa beans, wheat: 8 a
      craft, up to 8 crafts) and gives them to its judge player.

    Our readings: the tilled cells are the berry farm's 3 x 3 ground cells (our ground is grass, not the
    bare dirt the original's ``tillLand`` looks for); cocoa is harvested but not replanted (``farm`` makes no
    face choice against a log: docs/skills.md), so the cocoa farm runs out after its pods.
    """

    id = "potato_cookie"
    DEFAULTS = {"round": 8}
    POTATO, BAKED, HOE = M + "potato", M + "baked_potato", M + "netherite_hoe"
    COCOA, COOKIE = M + "cocoa_beans", M + "cookie"

    def first(self, player: str) -> Iterator[SkillCall | None]:
        n = self.opts["round"]
        yield self.take(self.HOE, 1, "gold chest")
        yield self.call("farm", crop=M + "potatoes", count=16)  # every ripe one (the original: up to 20)
        for _ in range(2):  # 9 bushes, 8 per call (mine's cap)
            yield self.call("mine", block=M + "sweet_berry_bush", count=8)
        x0, y0, z0 = self.point("sweet berry farm")
        for x in (x0 - 1, x0, x0 + 1):
            for z in (z0 - 1, z0, z0 + 1):
                if self.held(player, self.HOE) > 0:
                    yield self.call("use", item=self.HOE, x=x, y=y0 - 1, z=z)
                if self.held(player, self.POTATO) > 0:
                    yield self.call("use", item=self.POTATO, x=x, y=y0 - 1, z=z)
        while True:
            yield self.call("farm", crop=M + "potatoes", count=16)
            yield None
            held = self.held(player, self.POTATO)
            if held > 0:
                yield self.call("cook", input=self.POTATO, count=min(held, n))
            yield from self.deliver(player, self.BAKED)
            yield from self.deliver(player, self.POTATO)

    def second(self, player: str) -> Iterator[SkillCall | None]:
        n = self.opts["round"]
        wheat = min(2 * n, 16)  # two wheat a craft (the original harvests every ripe one, up to 20)
        yield self.call("farm", crop=WHEAT, count=wheat)
        yield self.call("mine", block=M + "carrots", count=6)
        while True:
            yield self.call("farm", crop=WHEAT, count=wheat)
            yield None
            yield self.call("farm", crop=M + "cocoa", count=n)
            crafts = min(self.held(player, WHEAT) // 2, self.held(player, self.COCOA), n)
            if crafts > 0:
                yield self.craft([[WHEAT, self.COCOA, WHEAT], [None, None, None], [None, None, None]], crafts)
            yield from self.deliver(player, self.COOKIE)
