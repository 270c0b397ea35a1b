"""Small builders for hand-written record sets in the metrics tests (records are synthetic, not games)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mirrorcraft.contracts import EpisodeIdentity, EpisodeRecord, ModelSettings
from mirrorcraft.metrics.synthetic import synthetic_record

EXPLORE = ("explore", {})


def ident(
    world: str = "plains-1",
    suite: str | None = None,
    *,
    task: str = "iron_armor",
    agent: str = "react",
    model: str = "model-a",
    disclosure: str = "hidden",
    rep: int = 0,
    budget: int | None = None,
) -> EpisodeIdentity:
    """An identity with test defaults (budget: the task's default unless given)."""
    budgets = {"iron_armor": 50, "diamond": 50, "enchantment": 75}
    return EpisodeIdentity(
        world=world,
        suite=suite,
        task=task,
        budget=budget or budgets[task],
        agent=agent,
        model=ModelSettings(name=model),
        disclosure=disclosure,
        repetition=rep,
        study_seed=0,
    )


def ending_with(identity: EpisodeIdentity, final: int) -> EpisodeRecord:
    """A one-action record whose score after that action is ``final`` (a milestone value or 0)."""
    return synthetic_record(identity, [EXPLORE], [final])


def reps(final_scores: Sequence[int], **kw: Any) -> list[EpisodeRecord]:
    """One record per repetition, repetition r ending with ``final_scores[r]``."""
    return [ending_with(ident(rep=r, **kw), s) for r, s in enumerate(final_scores)]
