"""The judge interface: what a scenario judge may see and do, when it runs, and how it keeps the score.

Why an interface between the judge and the server: the same seeded logic must run on the embedded server
(a tick function, direct and exact) and, best effort, on a user's vanilla jar over RCON (commands every
judge period). A judge therefore acts only through :class:`JudgeWorld` — a block, a placement, a count of
blocks, a player's held items, a clear, a command — which each server kind implements.

Timing (the original's judges run a loop per game second and per judge period): :meth:`Judge.on_tick` is
called once per game tick from :meth:`Judge.begin`'s tick on. Every ``period_ticks`` it runs the scenario's
check; every 20 ticks (one game second) it records a :class:`~mirrorcraft.contracts.teams.ScoreSample` of
both teams and writes both scores to the vanilla scoreboard (objective ``Scores``, holders ``Red`` and
``Blue``, shown in the sidebar; the sidebar shows whole points, the record keeps the exact value). A check
and a sample that fall on one tick run in that order, so a delivery scored at second 2 is in second 2's
sample.

Determinism: a judge's random draws come from its own stream, seeded from the world seed, the episode seed
and the scenario (``judge:<scenario>``), and a judge draws the same numbers every period whatever the
players did (one draw per candidate cell, applied or not): two systems played on one seed meet the same
luck (common random numbers), which the original's unseeded ``Math.random`` cannot give.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from mirrorcraft.contracts.teams import SIDES, ScoreSample
from mirrorcraft.errors import ContractError
from mirrorcraft.server.config import seeded_rng
from mirrorcraft.worlds.anvil.chunk import BlockState
from mirrorcraft.worlds.arenas.layout import ArenaLayout, Variant, expand
from mirrorcraft.worlds.arenas.spec import ArenaSpec

Pos = tuple[int, int, int]

#: Game ticks per game second (vanilla's 20 ticks per second): the judges' sampling period.
TICKS_PER_SECOND = 20
#: The scoreboard objective and its two holders (the original's dummy objective ``Scores``).
OBJECTIVE = "Scores"
HOLDERS = {"red": "Red", "blue": "Blue"}


class JudgeWorld(ABC):
    """What a judge may read and change (implemented by the embedded server and, over RCON, by a jar)."""

    @abstractmethod
    def is_block(self, pos: Pos, block: str) -> bool:
        """Whether ``pos`` holds ``block`` (namespaced, any state; ``minecraft:air`` where nothing is): a
        test, not a lookup, because that is what a command can answer (``execute if block``)."""

    @abstractmethod
    def place(self, pos: Pos, state: BlockState) -> None:
        """Set ``pos`` to ``state`` (as ``/setblock ... replace``: neighbours update, nothing drops)."""

    @abstractmethod
    def count_blocks(self, cells: Sequence[Pos], block: str) -> int:
        """How many of ``cells`` hold ``block`` (namespaced name, any state)."""

    @abstractmethod
    def held(self, player: str, items: Sequence[str]) -> dict[str, int]:
        """Namespaced item → count of each of ``items`` ``player`` holds (only items held), over the main
        inventory and hotbar in slot order (empty when the player is not online). A judge names the items
        it scores because a command can only count named items (``clear <player> <item> 0``)."""

    @abstractmethod
    def clear(self, player: str) -> None:
        """Empty ``player``'s inventory (``/clear``); nothing when the player is not online."""

    @abstractmethod
    def command(self, text: str) -> str:
        """Run a command as the server console (level 4); its reply text."""


class Judge(ABC):
    """One scenario's judge for one episode (fresh per episode: its stream and its scores start anew)."""

    scenario: ClassVar[str]

    def __init__(self, spec: ArenaSpec, variant: Variant, *, world_seed: int, episode_seed: int) -> None:
        if spec.judge_rules is None or spec.judge_rules.kind != self.scenario:
            raise ContractError(
                f"arena {spec.id!r}: judge_rules.kind must be {self.scenario!r} for this judge, "
                f"got {None if spec.judge_rules is None else spec.judge_rules.kind!r}"
            )
        self.spec = spec
        self.world_seed = world_seed
        self.episode_seed = episode_seed
        self.variant: Variant = variant
        self.layout: ArenaLayout = expand(spec, variant)
        self.rng: random.Random = seeded_rng(world_seed, episode_seed, f"judge:{self.scenario}")
        self.period: int = spec.judge_rules.period_ticks
        self.start_tick: int | None = None
        self.totals: dict[str, float] = {side: 0.0 for side in SIDES}
        self.scores: list[ScoreSample] = []
        self._shown: dict[str, int | None] = {side: None for side in SIDES}

    # ---- the schedule ------------------------------------------------------------------------------------

    def begin(self, world: JudgeWorld, tick: int) -> None:
        """Start judging at ``tick``: create the objective, show it in the sidebar, reset the scores."""
        self.start_tick = tick
        world.command(f"scoreboard objectives add {OBJECTIVE} dummy")
        world.command(f"scoreboard objectives setdisplay sidebar {OBJECTIVE}")
        self._show(world)

    def on_tick(self, world: JudgeWorld, tick: int) -> None:
        """Called once per game tick after :meth:`begin` (a tick function)."""
        if self.start_tick is None:
            raise ContractError("Judge.on_tick before begin")
        elapsed = tick - self.start_tick
        if elapsed <= 0:
            return
        if elapsed % self.period == 0:
            self.check(world)
        if elapsed % TICKS_PER_SECOND == 0:
            self.sample(world)
            self.scores.append(
                ScoreSample(t=elapsed // TICKS_PER_SECOND, red=self.totals["red"], blue=self.totals["blue"])
            )
            self._show(world)

    def _show(self, world: JudgeWorld) -> None:
        for side in SIDES:
            shown = round(self.totals[side])
            if shown != self._shown[side]:
                world.command(f"scoreboard players set {HOLDERS[side]} {OBJECTIVE} {shown}")
                self._shown[side] = shown

    # ---- the scenario ------------------------------------------------------------------------------------

    @abstractmethod
    def check(self, world: JudgeWorld) -> None:
        """The scenario's periodic work (every ``period_ticks``)."""

    def sample(self, world: JudgeWorld) -> None:  # noqa: B027 - optional hook
        """Update :attr:`totals` from the world before a per-second sample (score-follows-holdings scenarios)."""

    def count_queries(self) -> dict[str, tuple[Sequence[Pos], str]]:
        """The block counts :meth:`check` asks for, by a short name (``[a-z0-9_]``): name → (cells, block).
        A judge over RCON installs one counting function per query in the save (one command per count
        instead of one per cell); default: none."""
        return {}


#: Scenario id → its judge class.
JUDGES: dict[str, type[Judge]] = {}


def register_judge(cls: type[Judge]) -> type[Judge]:
    """Class decorator: register a judge under its ``scenario``."""
    if cls.scenario in JUDGES:
        raise ContractError(f"two judges for scenario {cls.scenario!r}")
    JUDGES[cls.scenario] = cls
    return cls


def make_judge(spec: ArenaSpec, variant: Variant, *, world_seed: int, episode_seed: int) -> Judge:
    """The judge of ``spec``'s scenario (its ``judge_rules.kind``) for one episode.

    Raises:
        ContractError: the arena has no judge rules, or no judge is registered for them.
    """
    if spec.judge_rules is None:
        raise ContractError(f"arena {spec.id!r} has no judge_rules")
    cls = JUDGES.get(spec.judge_rules.kind)
    if cls is None:
        raise ContractError(f"no judge for scenario {spec.judge_rules.kind!r}; known: {sorted(JUDGES)}")
    return cls(spec, variant, world_seed=world_seed, episode_seed=episode_seed)
