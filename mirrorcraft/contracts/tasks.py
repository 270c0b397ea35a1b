"""The three progression tasks, their ordered ``minecraft:story/*`` milestones, values and budgets.

Milestones are the server's own advancements (paper appendix H). Score is the value of the **deepest**
completed milestone (0 if none), SR the share of episodes scoring 100 (paper eq. 1-2).

Where the values come from: the paper's figure 3 with the values is not in its text. The defaults
below (:data:`DEFAULT_MILESTONE_VALUES`) were inferred from the paper's per-suite tables (every cell is
a mean of 30 episodes and lands on a multiple of 5 when multiplied by 30). Iron Armor's smelt_iron = 65,
Diamond's iron_tools = 70 and Enchantment's form_obsidian (90 or 95) are near certain; the earlier
values are a consistent best guess (Iron Armor (15, 35, 65) fits as well). They are configurable:
:func:`task_spec` takes overrides, and every episode record stores the values it was scored with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mirrorcraft.errors import ContractError

STORY = "minecraft:story/"


class TaskId(StrEnum):
    """The three tasks of the main study."""

    IRON_ARMOR = "iron_armor"
    DIAMOND = "diamond"
    ENCHANTMENT = "enchantment"


class Milestone(BaseModel):
    """One server-verified milestone: an advancement id, its value and the vanilla title/description.

    Titles and descriptions are vanilla 1.19.2's ``language.json`` texts for the advancement (what a
    player sees in the advancement screen); they are shown to the agent.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    advancement: str = Field(pattern=r"^minecraft:story/[a-z_]+$")
    value: int = Field(ge=1, le=100)
    title: str
    description: str

    @property
    def code(self) -> str:
        """The advancement path without ``minecraft:story/`` (e.g. ``mine_stone``)."""
        return self.advancement.removeprefix(STORY)


class TaskSpec(BaseModel):
    """A task: ordered milestones (values strictly increasing, the last one 100) and an action budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: TaskId
    title: str
    objective: str
    budget: int = Field(ge=1)
    milestones: tuple[Milestone, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_order(self) -> TaskSpec:
        values = [m.value for m in self.milestones]
        if any(b <= a for a, b in zip(values, values[1:], strict=False)):
            raise ValueError(f"task {self.id}: milestone values must strictly increase, got {values}")
        if values[-1] != 100:
            raise ValueError(f"task {self.id}: the final milestone must be worth 100, got {values[-1]}")
        codes = [m.advancement for m in self.milestones]
        if len(set(codes)) != len(codes):
            raise ValueError(f"task {self.id}: duplicate milestone in {codes}")
        return self

    @property
    def final(self) -> Milestone:
        """The final milestone (value 100): completing it is success."""
        return self.milestones[-1]

    def values(self) -> dict[str, int]:
        """Advancement id → value, in milestone order."""
        return {m.advancement: m.value for m in self.milestones}

    def score(self, completed: Iterable[str]) -> int:
        """Score of an episode: the value of the deepest completed milestone of this task (0 if none).

        Args:
            completed: advancement ids the server reports as done (others are ignored, as in eq. 1).
        """
        done = set(completed)
        return max([0] + [m.value for m in self.milestones if m.advancement in done])

    def next_milestone(self, completed: Iterable[str]) -> Milestone | None:
        """The first milestone in order that is not completed (``None`` when all are)."""
        done = set(completed)
        return next((m for m in self.milestones if m.advancement not in done), None)


# Vanilla 1.19.2 language.json titles/descriptions (advancements.story.<code>.title/.description).
_ADVANCEMENT_TEXT: dict[str, tuple[str, str]] = {
    "mine_stone": ("Stone Age", "Mine Stone with your new Pickaxe"),
    "upgrade_tools": ("Getting an Upgrade", "Construct a better Pickaxe"),
    "smelt_iron": ("Acquire Hardware", "Smelt an Iron Ingot"),
    "obtain_armor": ("Suit Up", "Protect yourself with a piece of iron armor"),
    "iron_tools": ("Isn't It Iron Pick", "Upgrade your Pickaxe"),
    "mine_diamond": ("Diamonds!", "Acquire diamonds"),
    "form_obsidian": ("Ice Bucket Challenge", "Obtain a block of Obsidian"),
    "enchant_item": ("Enchanter", "Enchant an item at an Enchanting Table"),
}

#: Default milestone values per task (code → value), inferred from the paper's tables (module docstring).
DEFAULT_MILESTONE_VALUES: dict[TaskId, dict[str, int]] = {
    TaskId.IRON_ARMOR: {"mine_stone": 20, "upgrade_tools": 50, "smelt_iron": 65, "obtain_armor": 100},
    TaskId.DIAMOND: {
        "mine_stone": 20,
        "upgrade_tools": 50,
        "smelt_iron": 65,
        "iron_tools": 70,
        "mine_diamond": 100,
    },
    TaskId.ENCHANTMENT: {
        "mine_stone": 20,
        "upgrade_tools": 50,
        "smelt_iron": 65,
        "iron_tools": 70,
        "mine_diamond": 85,
        "form_obsidian": 95,
        "enchant_item": 100,
    },
}

#: Action budgets (paper appendix E): 50 / 50 / 75 semantic actions.
DEFAULT_BUDGETS: dict[TaskId, int] = {TaskId.IRON_ARMOR: 50, TaskId.DIAMOND: 50, TaskId.ENCHANTMENT: 75}

_TASK_TEXT: dict[TaskId, tuple[str, str]] = {
    TaskId.IRON_ARMOR: ("Iron Armor", "Obtain any one piece of iron armor."),
    TaskId.DIAMOND: ("Diamond", "Mine a diamond."),
    TaskId.ENCHANTMENT: ("Enchantment", "Enchant an item at an enchanting table."),
}


def task_spec(
    task: TaskId | str, values: Mapping[str, int] | None = None, budget: int | None = None
) -> TaskSpec:
    """Build a task's spec, optionally with other milestone values or another budget.

    Args:
        task: ``"iron_armor"``, ``"diamond"`` or ``"enchantment"``.
        values: milestone code (``"smelt_iron"``) or full advancement id → value; missing ones keep
            their defaults. The result must still increase strictly and end at 100.
        budget: another action budget (e.g. 200 for the horizon study).

    Returns:
        The validated :class:`TaskSpec`.

    Raises:
        ContractError: unknown task or milestone, or values that break the ordering rules.
    """
    try:
        tid = TaskId(task)
    except ValueError:
        raise ContractError(f"unknown task {task!r}; expected one of {[t.value for t in TaskId]}") from None
    table = dict(DEFAULT_MILESTONE_VALUES[tid])
    for key, value in (values or {}).items():
        code = key.removeprefix(STORY)
        if code not in table:
            raise ContractError(f"task {tid.value}: {key!r} is not one of its milestones {list(table)}")
        table[code] = value
    title, objective = _TASK_TEXT[tid]
    try:
        return TaskSpec(
            id=tid,
            title=title,
            objective=objective,
            budget=DEFAULT_BUDGETS[tid] if budget is None else budget,
            milestones=tuple(
                Milestone(
                    advancement=STORY + code,
                    value=v,
                    title=_ADVANCEMENT_TEXT[code][0],
                    description=_ADVANCEMENT_TEXT[code][1],
                )
                for code, v in table.items()
            ),
        )
    except ValueError as err:
        raise ContractError(f"task {tid.value}: invalid milestone values {table}: {err}") from err


#: The default specs of the three tasks.
TASKS: dict[TaskId, TaskSpec] = {t: task_spec(t) for t in TaskId}
