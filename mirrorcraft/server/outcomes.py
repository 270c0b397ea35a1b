"""What the server tells the hidden evaluator: one :class:`OutcomeEvent` per rule-relevant happening.

Why a published event and not a call into an evaluator: the evaluator is the harness's business (it knows
the episode, its manifest and which skill action is running), the server only knows what happened and what
the world's rules and vanilla's rules gave for it (:class:`~mirrorcraft.rules.oracle.OutcomeOracle`). The
server emits ``"outcome"`` events with one of these as ``outcome``; the harness's
:class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator` subscribes and keeps the log. Nothing here is
ever sent to a client.

The builders below are the one place that decides what each kind's ``detail`` holds (the evaluator's log
and its tests read these fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.skills import ItemStack
from mirrorcraft.rules.cooking import Take
from mirrorcraft.rules.oracle import Outcome
from mirrorcraft.rules.recipes import CraftResult

__all__ = [
    "EventKind",
    "OutcomeEvent",
    "craft_event",
    "dig_event",
    "enchant_event",
    "kill_event",
    "milestone_event",
    "place_event",
    "smelt_event",
]

EventKind = Literal["milestone", "dig", "craft", "smelt", "kill", "place", "enchant"]


class OutcomeEvent(BaseModel):
    """One thing that happened, with its outcome resolved both ways.

    Attributes:
        kind: What happened.
        player: The player's name, if any (a command can break a block without one).
        tick: Server tick (``None``: the receiver's clock).
        detail: Kind-specific facts (block, grid, recipe, device, inputs, advancement...).
        outcome: Actual and vanilla outcomes with rule ids (``None`` for milestones and placements).
    """

    model_config = ConfigDict(frozen=True)

    kind: EventKind
    player: str | None = None
    tick: int | None = None
    detail: dict[str, Any] = Field(default_factory=dict)
    outcome: Outcome | None = None


def milestone_event(advancement: str, *, player: str | None = None, tick: int | None = None) -> OutcomeEvent:
    """An advancement was completed (``minecraft:story/*`` ones become milestones)."""
    return OutcomeEvent(kind="milestone", player=player, tick=tick, detail={"advancement": advancement})


def dig_event(
    block: str,
    outcome: Outcome,
    *,
    pos: tuple[int, int, int] | None = None,
    player: str | None = None,
    tick: int | None = None,
) -> OutcomeEvent:
    """A block was broken; ``outcome`` from :meth:`OutcomeOracle.loot`."""
    detail = {"block": block, "pos": list(pos) if pos else None}
    return OutcomeEvent(kind="dig", player=player, tick=tick, detail=detail, outcome=outcome)


def kill_event(
    entity: str, outcome: Outcome, *, player: str | None = None, tick: int | None = None
) -> OutcomeEvent:
    """A mob died to the player; ``outcome`` from :meth:`OutcomeOracle.loot`."""
    return OutcomeEvent(kind="kill", player=player, tick=tick, detail={"entity": entity}, outcome=outcome)


def craft_event(
    grid: Sequence[Sequence[str | None]],
    result: CraftResult | None,
    outcome: Outcome,
    *,
    player: str | None = None,
    tick: int | None = None,
) -> OutcomeEvent:
    """A crafting result was taken; ``result``/``outcome`` from :meth:`OutcomeOracle.craft`."""
    detail = {"grid": [list(r) for r in grid], "recipe": result.recipe if result else None}
    return OutcomeEvent(kind="craft", player=player, tick=tick, detail=detail, outcome=outcome)


def smelt_event(
    device: str, take: Take, outcome: Outcome, *, player: str | None = None, tick: int | None = None
) -> OutcomeEvent:
    """Items were taken from a cooking device; ``outcome`` from :meth:`OutcomeOracle.cook_take`."""
    detail = {"device": device, "inputs": sorted({u.input for u in take.units}), "xp": take.experience}
    return OutcomeEvent(kind="smelt", player=player, tick=tick, detail=detail, outcome=outcome)


def place_event(
    item: str, *, pos: tuple[int, int, int] | None = None, player: str | None = None, tick: int | None = None
) -> OutcomeEvent:
    """A block or item was placed (no outcome: placing is not rule-changed)."""
    return OutcomeEvent(
        kind="place", player=player, tick=tick, detail={"item": item, "pos": list(pos) if pos else None}
    )


def enchant_event(
    item: str,
    result: str,
    enchantments: dict[str, int],
    levels: int,
    *,
    player: str | None = None,
    tick: int | None = None,
) -> OutcomeEvent:
    """An item was enchanted (not rule-changed in 1.19: actual = vanilla)."""
    stacks = [ItemStack(item=result, count=1)]
    return OutcomeEvent(
        kind="enchant",
        player=player,
        tick=tick,
        detail={"item": item, "enchantments": enchantments, "levels": levels},
        outcome=Outcome(actual=stacks, vanilla=stacks),
    )
