"""Score, SR and the paired comparisons: RIE_SC, RIE_SR (Vanilla vs Mirror) and ΔScore, ΔSR (disclosure).

Definitions (spec "Tasks, milestones, Score, SR" and "Paired comparisons"; paper eq. 1-4):

* Score(e) is the record's ``outcome.score`` (deepest completed milestone), success ``outcome.success``
  (Score == 100). SR is reported **in percent**.
* A comparison p is one (Vanilla world, model, task, configuration, budget) cell and one suite: the mean
  over the Vanilla repetitions minus the mean over the repetitions in the paired Mirror copy (``<world>/
  <suite>``). RIE_SC = mean over P of (S̄_V − S̄_M); RIE_SR likewise with success in percent. Positive =
  worse in Mirror. Only configurations that have both Vanilla and Mirror episodes form comparisons
  ("ReAct w/rules" is Mirror-only and has none).
* ΔScore / ΔSR: for each agent run with rules disclosed, the disclosed result minus the hidden result
  in the same Mirror copy, paired like RIE: for each (world, suite, model, task, agent, budget) the mean
  over disclosed repetitions minus the mean over hidden repetitions; Δ = mean over those pairs.

Nothing is rounded here: every function returns floats, and rounding happens only when a table is
formatted (spec: "values are rounded only after aggregation").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import TypeVar

from mirrorcraft.contracts import EndReason, EpisodeRecord

T = TypeVar("T")


def biome_of(world: str) -> str:
    """The biome group of a Vanilla world id: ``snowy_plains-2`` → ``snowy_plains``."""
    return world.rsplit("-", 1)[0]


def is_fault(record: EpisodeRecord) -> bool:
    """True for an infrastructure-fault record (excluded from every metric; retried by the study)."""
    return record.outcome.end_reason == EndReason.INFRASTRUCTURE_FAULT


def condition(record: EpisodeRecord) -> str:
    """``"vanilla"`` or ``"mirror"``."""
    return "vanilla" if record.identity.suite is None else "mirror"


def score(records: Iterable[EpisodeRecord]) -> float:
    """Mean Score of the records (NaN for none)."""
    values = [r.outcome.score for r in records]
    return fmean(values) if values else float("nan")


def success_rate(records: Iterable[EpisodeRecord]) -> float:
    """SR in percent: 100 × share of records whose Score is 100 (NaN for none)."""
    values = [100.0 * r.outcome.success for r in records]
    return fmean(values) if values else float("nan")


def group_by(items: Iterable[T], key: Callable[[T], Hashable]) -> dict[Hashable, list[T]]:
    """Group items by ``key`` keeping first-seen order of the keys."""
    out: dict[Hashable, list[T]] = defaultdict(list)
    for item in items:
        out[key(item)].append(item)
    return dict(out)


@dataclass(frozen=True)
class Comparison:
    """One paired Vanilla/Mirror comparison p ∈ P (means over repetitions; SR in percent)."""

    world: str
    suite: str
    model: str
    task: str
    configuration: str
    budget: int
    vanilla_score: float
    mirror_score: float
    vanilla_sr: float
    mirror_sr: float
    n_vanilla: int
    n_mirror: int

    @property
    def d_score(self) -> float:
        """S̄_V − S̄_M of this comparison."""
        return self.vanilla_score - self.mirror_score

    @property
    def d_sr(self) -> float:
        """Ȳ_V − Ȳ_M of this comparison (percentage points)."""
        return self.vanilla_sr - self.mirror_sr

    @property
    def biome(self) -> str:
        return biome_of(self.world)

    @property
    def unit(self) -> tuple[str, str]:
        """The world pair (Vanilla world, suite): the bootstrap's resampling unit."""
        return (self.world, self.suite)


def _cell(r: EpisodeRecord) -> tuple[str, str, str, str, int]:
    i = r.identity
    return (i.world, i.model.name, i.task.value, i.configuration, i.budget)


def paired_comparisons(records: Iterable[EpisodeRecord]) -> list[Comparison]:
    """Build P from (non-fault) records.

    Args:
        records: final episode records; fault records are skipped.

    Returns:
        One :class:`Comparison` per (world, model, task, configuration, budget, suite) having at least
        one Vanilla and one Mirror episode, in sorted order.
    """
    vanilla: dict[tuple, list[EpisodeRecord]] = defaultdict(list)
    mirror: dict[tuple, list[EpisodeRecord]] = defaultdict(list)
    for r in records:
        if is_fault(r):
            continue
        if r.identity.suite is None:
            vanilla[_cell(r)].append(r)
        else:
            mirror[(*_cell(r), r.identity.suite)].append(r)
    out = []
    for key in sorted(mirror):
        cell, suite = key[:-1], key[-1]
        v, m = vanilla.get(cell), mirror[key]
        if not v:
            continue
        world, model, task, config, budget = cell
        out.append(
            Comparison(
                world=world,
                suite=suite,
                model=model,
                task=task,
                configuration=config,
                budget=budget,
                vanilla_score=score(v),
                mirror_score=score(m),
                vanilla_sr=success_rate(v),
                mirror_sr=success_rate(m),
                n_vanilla=len(v),
                n_mirror=len(m),
            )
        )
    return out


@dataclass(frozen=True)
class PairedEffect:
    """A mean over paired differences: Score and SR (percentage points) and the number of pairs."""

    score: float
    sr: float
    n_pairs: int


def rie(comparisons: Sequence[Comparison]) -> PairedEffect:
    """RIE_SC and RIE_SR: mean over the comparisons of Vanilla mean minus Mirror mean (NaN when empty)."""
    if not comparisons:
        return PairedEffect(float("nan"), float("nan"), 0)
    return PairedEffect(
        fmean(c.d_score for c in comparisons), fmean(c.d_sr for c in comparisons), len(comparisons)
    )


@dataclass(frozen=True)
class DisclosurePair:
    """One hidden/disclosed pair in a Mirror copy (means over repetitions; SR in percent)."""

    world: str
    suite: str
    model: str
    task: str
    agent: str
    budget: int
    hidden_score: float
    disclosed_score: float
    hidden_sr: float
    disclosed_sr: float

    @property
    def d_score(self) -> float:
        """Disclosed − hidden Score."""
        return self.disclosed_score - self.hidden_score

    @property
    def d_sr(self) -> float:
        """Disclosed − hidden SR (percentage points)."""
        return self.disclosed_sr - self.hidden_sr

    @property
    def unit(self) -> tuple[str, str]:
        return (self.world, self.suite)


def disclosure_pairs(records: Iterable[EpisodeRecord]) -> list[DisclosurePair]:
    """Pair every disclosed Mirror cell with the hidden cell of the same agent (see module docstring)."""
    cells: dict[tuple, dict[str, list[EpisodeRecord]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        i = r.identity
        if is_fault(r) or i.suite is None:
            continue
        key = (i.world, i.suite, i.model.name, i.task.value, i.agent, i.budget)
        cells[key][i.disclosure].append(r)
    out = []
    for key in sorted(cells):
        hidden, disclosed = cells[key].get("hidden"), cells[key].get("disclosed")
        if not hidden or not disclosed:
            continue
        world, suite, model, task, agent, budget = key
        out.append(
            DisclosurePair(
                world=world,
                suite=suite,
                model=model,
                task=task,
                agent=agent,
                budget=budget,
                hidden_score=score(hidden),
                disclosed_score=score(disclosed),
                hidden_sr=success_rate(hidden),
                disclosed_sr=success_rate(disclosed),
            )
        )
    return out


def disclosure_delta(pairs: Sequence[DisclosurePair]) -> PairedEffect:
    """ΔScore and ΔSR: mean over pairs of disclosed minus hidden (NaN when empty)."""
    if not pairs:
        return PairedEffect(float("nan"), float("nan"), 0)
    return PairedEffect(fmean(p.d_score for p in pairs), fmean(p.d_sr for p in pairs), len(pairs))
