"""Behaviour after rule encounters: Immediate Repeat Rate (IRR) and Recovery Latency (RL).

Definitions (spec "Behaviour after rule encounters"; paper eq. 5-7), per encounter e at action index i
in an episode with n budget-consuming actions a_1..a_n and scores S_0..S_n:

* e is **eligible for IRR** when i < n (at least one more budget-consuming action follows); it
  **repeats** when σ(a_{i+1}) == σ(a_i). IRR = repeats / eligible.
* s⁻ = S_{i−1}; j = min{ j ≥ i : S_j > s⁻ }; e's latency is j − i (0 when the encounter action itself
  raised the score). Encounters without such a j are excluded. RL = mean latency over the others.
* IRR and RL are computed per (suite, configuration) and then averaged with equal weight over the
  suites M01–M06 (:func:`suite_average`).

Our decisions where the paper is silent: within one (suite, configuration) cell, IRR pools the eligible
encounters of all models, tasks, worlds and repetitions (the ratio in eq. 5 over that cell's E⁺), and RL
pools that cell's recovering encounters (eq. 7 over its R). A suite with no eligible (IRR) or no
recovering (RL) encounter has an undefined value; the equal-weight average is taken over the suites
where the value is defined, and the number of suites used is reported next to it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean

from mirrorcraft.contracts import SUITE_IDS, EpisodeRecord, load_suite
from mirrorcraft.metrics.paired import group_by, is_fault


@dataclass(frozen=True)
class EncounterOutcome:
    """What followed one rule encounter."""

    episode_id: str
    suite: str
    configuration: str
    model: str
    task: str
    rule_id: str
    index: int
    eligible: bool  #: another budget-consuming action follows (e ∈ E⁺)
    repeated: bool  #: eligible and σ(a_{i+1}) == σ(a_i)
    latency: int | None  #: j − i, or None when the score never exceeds s⁻ again (e ∉ R)


def encounter_outcomes(records: Iterable[EpisodeRecord]) -> list[EncounterOutcome]:
    """One :class:`EncounterOutcome` per recorded encounter of the (non-fault) records."""
    out = []
    for r in records:
        if is_fault(r) or not r.encounters:
            continue
        scores = r.scores()
        n = len(r.trajectory)
        for e in r.encounters:
            i = e.action_index
            eligible = i < n
            repeated = eligible and tuple(r.trajectory[i].signature) == tuple(r.trajectory[i - 1].signature)
            before = scores[i - 1]
            j = next((k for k in range(i, n + 1) if scores[k] > before), None)
            out.append(
                EncounterOutcome(
                    episode_id=r.episode_id,
                    suite=e.suite,
                    configuration=r.identity.configuration,
                    model=r.identity.model.name,
                    task=r.identity.task.value,
                    rule_id=e.rule_id,
                    index=i,
                    eligible=eligible,
                    repeated=repeated,
                    latency=None if j is None else j - i,
                )
            )
    return out


@functools.cache
def suite_rule_ids(suite: str) -> frozenset[str]:
    """The rule ids of a shipped suite manifest (``load_suite``), cached."""
    return frozenset(r.id for r in load_suite(suite).rules)


def unknown_rule_ids(record: EpisodeRecord) -> list[str]:
    """Encounter rule ids of ``record`` that are not rules of its suite's manifest.

    The contract checks only the pattern (``M03.something``) and the suite prefix; a rule id that no
    manifest declares means the record was not produced by the shipped rule packs (or was edited), so the
    report excludes such a record from every metric.
    """
    if record.identity.suite is None:
        return [e.rule_id for e in record.encounters]
    known = suite_rule_ids(record.identity.suite)
    return [e.rule_id for e in record.encounters if e.rule_id not in known]


@dataclass(frozen=True)
class Ratio:
    """A value with the count it was computed from (NaN value when the count is 0)."""

    value: float
    n: int


def irr(outcomes: Sequence[EncounterOutcome]) -> Ratio:
    """IRR as a fraction in [0, 1] over the eligible encounters of ``outcomes``."""
    eligible = [o for o in outcomes if o.eligible]
    if not eligible:
        return Ratio(float("nan"), 0)
    return Ratio(sum(o.repeated for o in eligible) / len(eligible), len(eligible))


def recovery_latency(outcomes: Sequence[EncounterOutcome]) -> Ratio:
    """RL in semantic actions: mean j − i over the encounters whose score later exceeds s⁻."""
    lat = [o.latency for o in outcomes if o.latency is not None]
    if not lat:
        return Ratio(float("nan"), 0)
    return Ratio(fmean(lat), len(lat))


@dataclass(frozen=True)
class SuiteAverage:
    """Per-suite values of one configuration and their equal-weight mean over the defined suites."""

    per_suite: dict[str, Ratio]
    mean: float
    n_suites: int


def suite_average(outcomes: Sequence[EncounterOutcome], metric: str) -> SuiteAverage:
    """Compute ``metric`` (``"irr"`` or ``"rl"``) per suite, then average equally over M01–M06.

    Args:
        outcomes: encounter outcomes of one configuration (callers group first).
        metric: ``"irr"`` or ``"rl"``.

    Returns:
        The per-suite values (every suite of M01–M06, NaN where undefined) and their equal-weight mean
        over the suites where they are defined.
    """
    fn = {"irr": irr, "rl": recovery_latency}[metric]
    by_suite = group_by(outcomes, lambda o: o.suite)
    per_suite = {s: fn(by_suite.get(s, [])) for s in SUITE_IDS}
    defined = [v.value for v in per_suite.values() if v.n > 0]
    return SuiteAverage(per_suite, fmean(defined) if defined else float("nan"), len(defined))
