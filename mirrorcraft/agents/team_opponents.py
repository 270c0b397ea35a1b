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

Our readings: "clear slime" is ``mine slime_block`` after walking back to the own area's centre (``mine``
takes the nearest known blocks, and the player may stand in the other area); "harvest" is ``mine`` of the
own cap block (its drops are picked up); "destroy the opponent's caps" is ``mine`` of the opponent's cap
block (it exists only in their area); slime is placed on free ground cells (the arena's floor level)
drawn from the system's own stream, seeded by the episode seed and the player. The Dash & Dine opponents
are here as far as built: **berries** — farm and deliver berries, the second player first destroying the
potato and beetroot crops (``farm`` of ripe bushes, ``give`` to the team's judge player, ``mine`` of the
crops). cake_beetroot, melon_pumpkin and potato_cookie are not built yet (their crafting chains: milk,
sugar, eggs and wheat into a cake; soups; pies; cookies).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from mirrorcraft.agents.teams import GameBriefing, TeamPolicy, register_team_policy
from mirrorcraft.contracts import SkillCall, TeamObservation
from mirrorcraft.contracts.teams import other_side

SLIME = "minecraft:slime_block"
CLEAR_BATCH = 8  # "clears slime 8 blocks at a time", "places 8 slime blocks"
SPREAD = 4  # "at random within ±4 of the opponent's centre"


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

    def harvest(self) -> Iterator[SkillCall]:
        yield self._mine(self.own_cap, 1)

    def destroy(self) -> Iterator[SkillCall]:
        yield self._mine(self.their_cap, 1)

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
        yield self._mine(self.own_cap, 1)
        if getattr(self.last.get(player), "status", None) == "failure":  # no cap left: clear slime instead
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
        yield from self.harvest()

    @_forever
    def second(self, player: str) -> Iterator[SkillCall]:
        yield from self.destroy()


@register_team_policy
class Aggressive(_MushroomWarOpponent):
    id = "aggressive"

    @_forever
    def first(self, player: str) -> Iterator[SkillCall]:
        yield from self.clear_slime()
        yield from self.dump_slime(player)

    @_forever
    def second(self, player: str) -> Iterator[SkillCall]:
        yield from self.harvest()
        yield from self.destroy()


@register_team_policy
class Slimy(_MushroomWarOpponent):
    id = "slimy"

    @_forever
    def first(self, player: str) -> Iterator[SkillCall]:
        yield from self.harvest()

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
