"""The Dash & Dine judges (PillagerBench scenario 2): each team's judge player takes deliveries; every
``period_ticks`` (40) its held food is scored and cleared.

Rules (the arena spec's ``judge_rules`` and its ``judges`` with a ``team``; shared/spec/pillagerbench.md):
a delivered stack scores its count x the food's value, hunger + saturation
(:func:`mirrorcraft.rules.items.food_value`: game data, never a table here); a team's first
``max_food_types`` (3) distinct foods lock in and later other foods score nothing (they are cleared all the
same); a non-food scores nothing. The score is cumulative, sampled once per game second.

Our readings, written down: within one check, stacks are taken in the judge's slot order (main inventory
9-35, then the hotbar 36-44), so two new foods delivered in the same 40 ticks lock in by slot; the judge
players must be online (connected as ordinary clients, in creative mode at their
spots, :func:`~mirrorcraft.harness.judges.embedded.connect_judge_players`) to pick deliveries up.
"""

from __future__ import annotations

from mirrorcraft.contracts.teams import SIDES
from mirrorcraft.harness.judges.base import Judge, JudgeWorld, register_judge
from mirrorcraft.rules.items import food_value, foods
from mirrorcraft.worlds.arenas.layout import Variant
from mirrorcraft.worlds.arenas.spec import ArenaSpec, DashAndDineRules


@register_judge
class DashAndDineJudge(Judge):
    """Scores and clears each team judge's inventory every period, with the three-food lock-in."""

    scenario = "dash_and_dine"

    def __init__(self, spec: ArenaSpec, variant: Variant, *, world_seed: int, episode_seed: int) -> None:
        super().__init__(spec, variant, world_seed=world_seed, episode_seed=episode_seed)
        rules = spec.judge_rules
        assert isinstance(rules, DashAndDineRules)
        self.rules = rules
        self.judge_players: dict[str, str] = {}
        for j in spec.judges:
            if j.team is not None:
                self.judge_players[j.team] = j.name
        missing = [s for s in SIDES if s not in self.judge_players]
        if missing:
            raise ValueError(f"arena {spec.id!r}: judges: no judge player for {missing} (Dash & Dine)")
        #: Each team's locked-in foods, in the order they locked.
        self.locked: dict[str, list[str]] = {side: [] for side in SIDES}
        #: Every scored delivery: (game tick offset, side, item, count, points).
        self.deliveries: list[tuple[int, str, str, int, float]] = []
        self._ticks = 0

    def check(self, world: JudgeWorld) -> None:
        self._ticks += self.period
        for side in SIDES:
            name = self.judge_players[side]
            held = world.held(name, foods())
            if not held:
                continue
            locked = self.locked[side]
            for item, count in held.items():
                value = food_value(item)
                if value is None:
                    continue
                if item not in locked:
                    if len(locked) >= self.rules.max_food_types:
                        continue
                    locked.append(item)
                points = count * value
                self.totals[side] = round(self.totals[side] + points, 4)
                self.deliveries.append((self._ticks, side, item, count, points))
            world.clear(name)
