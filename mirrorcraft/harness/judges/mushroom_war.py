"""The Mushroom War judge (PillagerBench scenario 1): regrowth, re-pollution and score-follows-holdings.

Rules (the arena spec's ``judge_rules``, facts of shared/spec/pillagerbench.md): every ``period_ticks``
(20), for each team area, if the area holds at most ``regrow_max_slime`` (7) slime blocks each missing cap
block regrows with ``regrow_chance`` (0.1); every original slime position of the area re-pollutes with
``repollute_chance`` (0.02) whatever the area holds. A team's score is the number of mushrooms of its colour
(``score_items``) its players hold, sampled once per game second — dropping or eating mushrooms lowers it,
as in the original, but unlike the original's timer (added by every call of an agent's code and never
cleared) the same holdings are never counted twice.

Our readings of the original, written down:

* a team's area is the sphere of its ``radius`` around its centre, over block positions
  (``dx² + dy² + dz² <= r²``), as Mineflayer's ``findBlocks({maxDistance})`` measures;
* a cap is *missing* when its cell is air: a cell a player filled with another block is occupied, not
  missing, and is left alone (the original's ``setblock`` would overwrite it); a slime position re-pollutes
  only when it is air, for the same reason;
* "held" is the main inventory and hotbar (Mineflayer's ``inventory.count``: slots 9-44), not the armour,
  off-hand, cursor or crafting grid;
* caps and slime positions are the arena's own cells in the played variant (:func:`~mirrorcraft.worlds.
  arenas.layout.expand`): on the mirrored arena, the reflected cells.
"""

from __future__ import annotations

from mirrorcraft.contracts.teams import SIDES
from mirrorcraft.harness.judges.base import Judge, JudgeWorld, Pos, register_judge
from mirrorcraft.worlds.anvil.chunk import BlockState
from mirrorcraft.worlds.arenas.layout import Variant
from mirrorcraft.worlds.arenas.spec import ArenaSpec, GiantMushroomFeature, MushroomWarRules, parse_block

AIR = "minecraft:air"


@register_judge
class MushroomWarJudge(Judge):
    """Regrows caps, re-pollutes slime, scores each team's held mushrooms."""

    scenario = "mushroom_war"

    def __init__(self, spec: ArenaSpec, variant: Variant, *, world_seed: int, episode_seed: int) -> None:
        super().__init__(spec, variant, world_seed=world_seed, episode_seed=episode_seed)
        rules = spec.judge_rules
        assert isinstance(rules, MushroomWarRules)
        self.rules = rules
        self.pollutant: BlockState = parse_block(rules.pollutant)
        m = spec.mirror
        stems = {
            f.label: parse_block(f.stem)[0] for f in spec.features if isinstance(f, GiantMushroomFeature)
        }
        self.caps: dict[str, list[tuple[Pos, BlockState]]] = {side: [] for side in SIDES}
        self.slime: dict[str, list[Pos]] = {side: [] for side in SIDES}
        for pos, state in sorted(self.layout.cells.items()):
            side = m.half_of(pos)
            if side is None:
                continue
            label = self.layout.labels[pos]
            if label in stems and state[0] != stems[label]:
                self.caps[side].append((pos, state))
            elif state[0] == self.pollutant[0]:
                self.slime[side].append(pos)
        self.areas: dict[str, list[Pos]] = {}
        for side in SIDES:
            area = spec.teams[side].area
            if area is None:
                raise ValueError(
                    f"arena {spec.id!r}: teams.{side}.area is required by the Mushroom War judge"
                )
            (cx, cy, cz), r = area.center, area.radius
            n = int(r)
            self.areas[side] = [
                (cx + dx, cy + dy, cz + dz)
                for dx in range(-n, n + 1)
                for dy in range(-n, n + 1)
                for dz in range(-n, n + 1)
                if dx * dx + dy * dy + dz * dz <= r * r and -64 <= cy + dy < 320
            ]
        #: What each check did, for tests and the episode log: (side, "regrow" | "pollute", pos).
        self.changes: list[tuple[str, str, Pos]] = []

    def count_queries(self) -> dict[str, tuple[list[Pos], str]]:
        block = self.pollutant[0]
        return {f"{side}_{block.removeprefix('minecraft:')}": (self.areas[side], block) for side in SIDES}

    def slime_in_area(self, world: JudgeWorld, side: str) -> int:
        return world.count_blocks(self.areas[side], self.pollutant[0])

    def check(self, world: JudgeWorld) -> None:
        r = self.rules
        for side in SIDES:
            regrow = self.slime_in_area(world, side) <= r.regrow_max_slime
            for pos, state in self.caps[side]:
                u = self.rng.random()  # drawn whatever happens: common random numbers across systems
                if regrow and u < r.regrow_chance and world.is_block(pos, AIR):
                    world.place(pos, state)
                    self.changes.append((side, "regrow", pos))
            for pos in self.slime[side]:
                u = self.rng.random()
                if u < r.repollute_chance and world.is_block(pos, AIR):
                    world.place(pos, self.pollutant)
                    self.changes.append((side, "pollute", pos))

    def sample(self, world: JudgeWorld) -> None:
        for side in SIDES:
            item = self.rules.score_items[side]
            self.totals[side] = float(
                sum(world.held(name, (item,)).get(item, 0) for name in self.spec.teams[side].players)
            )
