"""Score, SR and the paired comparisons: RIE_SC, RIE_SR (Vanilla vs Mirror) and ΔScore, ΔSR (disclosure).

Definitions (spec "Tasks, milestones, Score, SR" and "Paired comparisons"; paper eq. 1-4):

* Score(e) is the record's ``outcome.score`` (deepest completed milestone), success ``outcome.success``
  (Score == 100). SR is reported **in percent**.
* A comparison p is one cell and one suite: the mean over the Vanilla repetitions minus the mean over the
  repetitions in the paired Mirror copy (``<world>/<suite>``). A cell is the **full episode identity
  except suite and repetition** (:func:`pair_key`): Vanilla world, task, budget, agent, agent settings,
  the model with all its settings (temperature, output tokens, reasoning), disclosure and study seed. So
  a record of another temperature or another study seed never pools into someone else's pair.
  RIE_SC = mean over P of (S̄_V − S̄_M); RIE_SR likewise with success in percent. Positive = worse in
  Mirror. Only configurations that have both Vanilla and Mirror episodes form comparisons ("ReAct
  w/rules" is Mirror-only and has none).
* ΔScore / ΔSR: for each agent run with rules disclosed, the disclosed result minus the hidden result
  in the same Mirror copy, paired like RIE: for each cell (full identity except disclosure and
  repetition) the mean over disclosed repetitions minus the mean over hidden repetitions; Δ = mean over
  those pairs.

Nothing is rounded here: every function returns floats, and rounding happens only when a table is
formatted (spec: "values are rounded only after aggregation").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any, TypeVar

from mirrorcraft.contracts import EndReason, EpisodeIdentity, EpisodeRecord, ModelSettings
from mirrorcraft.contracts.canonical import canonical_json

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


def _rest(identity: EpisodeIdentity, *drop: str) -> str:
    """Canonical JSON of the identity without the ``drop`` fields (the exact part of a pairing key)."""
    data = identity.model_dump(mode="json")
    for name in drop:
        data.pop(name)
    return canonical_json(data).decode("utf-8")


def pair_key(identity: EpisodeIdentity) -> tuple[Any, ...]:
    """The Vanilla/Mirror pairing cell of an identity: everything except suite and repetition.

    The readable fields come first so that sorted comparisons keep the table order (world, model, task,
    configuration, budget); the canonical JSON of the rest makes the key exact.
    """
    i = identity
    return (i.world, i.model.name, i.task.value, i.configuration, i.budget, _rest(i, "suite", "repetition"))


def model_label(model: ModelSettings, others: Iterable[ModelSettings] = ()) -> str:
    """The table label of a model: its name, plus its settings when another model of that name differs.

    A valid grid has one settings object per model name; the settings appear only when a report pools
    several (``--include-foreign``), so rows of different temperatures are never merged under one name.
    """
    clash = any(o.name == model.name and o != model for o in others)
    if not clash:
        return model.name
    return f"{model.name} (T={model.temperature:g}, max_out={model.max_output_tokens}, reasoning={model.reasoning})"


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
    model_settings: ModelSettings | None = None  #: the model with its settings (``model`` is its label)

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
    def unit(self) -> str:
        """The Vanilla world: the bootstrap's resampling cluster (it carries all its suites)."""
        return self.world


def paired_comparisons(records: Iterable[EpisodeRecord]) -> list[Comparison]:
    """Build P from (non-fault) records.

    Args:
        records: final episode records; fault records are skipped.

    Returns:
        One :class:`Comparison` per (cell, suite) (:func:`pair_key`) having at least
        one Vanilla and one Mirror episode, in sorted order.
    """
    vanilla: dict[tuple, list[EpisodeRecord]] = defaultdict(list)
    mirror: dict[tuple, list[EpisodeRecord]] = defaultdict(list)
    models: set[ModelSettings] = set()
    for r in records:
        if is_fault(r):
            continue
        models.add(r.identity.model)
        if r.identity.suite is None:
            vanilla[pair_key(r.identity)].append(r)
        else:
            mirror[(*pair_key(r.identity), r.identity.suite)].append(r)
    out = []
    for key in sorted(mirror):
        cell, suite = key[:-1], key[-1]
        v, m = vanilla.get(cell), mirror[key]
        if not v:
            continue
        i = m[0].identity
        out.append(
            Comparison(
                world=i.world,
                suite=suite,
                model=model_label(i.model, models),
                task=i.task.value,
                configuration=i.configuration,
                budget=i.budget,
                vanilla_score=score(v),
                mirror_score=score(m),
                vanilla_sr=success_rate(v),
                mirror_sr=success_rate(m),
                n_vanilla=len(v),
                n_mirror=len(m),
                model_settings=i.model,
            )
        )
    return out


def unpaired_mirror(records: Iterable[EpisodeRecord]) -> list[EpisodeRecord]:
    """Non-fault Mirror records whose cell has no non-fault Vanilla record (they count in Mirror Score and
    SR but in no RIE; the report notes them). Disclosed records are Mirror-only by design and not listed."""
    recs = [r for r in records if not is_fault(r)]
    vanilla = {pair_key(r.identity) for r in recs if r.identity.suite is None}
    return [
        r
        for r in recs
        if r.identity.suite is not None
        and r.identity.disclosure == "hidden"
        and pair_key(r.identity) not in vanilla
    ]


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
    def unit(self) -> str:
        """The Vanilla world: the bootstrap's resampling cluster."""
        return self.world


def disclosure_pairs(records: Iterable[EpisodeRecord]) -> list[DisclosurePair]:
    """Pair every disclosed Mirror cell with the hidden cell of the same agent (see module docstring)."""
    cells: dict[tuple, dict[str, list[EpisodeRecord]]] = defaultdict(lambda: defaultdict(list))
    models: set[ModelSettings] = set()
    for r in records:
        i = r.identity
        if is_fault(r) or i.suite is None:
            continue
        models.add(i.model)
        key = (
            i.world,
            i.suite,
            i.model.name,
            i.task.value,
            i.agent,
            i.budget,
            _rest(i, "disclosure", "repetition"),
        )
        cells[key][i.disclosure].append(r)
    out = []
    for key in sorted(cells):
        hidden, disclosed = cells[key].get("hidden"), cells[key].get("disclosed")
        if not hidden or not disclosed:
            continue
        i = hidden[0].identity
        out.append(
            DisclosurePair(
                world=i.world,
                suite=key[1],
                model=model_label(i.model, models),
                task=i.task.value,
                agent=i.agent,
                budget=i.budget,
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
