"""Clusters are Vanilla worlds: the bootstrap, the sign-flip test and the MDE; pairs match on the full identity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from support.metrics_fixtures import ending_with, ident, reps

from mirrorcraft.contracts import EpisodeIdentity, ModelSettings
from mirrorcraft.metrics import bootstrap_ci, paired_comparisons, rie
from mirrorcraft.metrics.inference import (
    MAX_EXACT_WORLDS,
    minimum_detectable_effect,
    sign_flip_test,
    world_sd,
    worlds_needed,
    z_total,
)
from mirrorcraft.metrics.paired import model_label, pair_key, unpaired_mirror
from mirrorcraft.metrics.tables import by_configuration, by_suite, significance


def test_the_bootstrap_unit_is_the_vanilla_world_with_all_its_suites():
    # One Vanilla world and six suites: the default job's shape. Resampling (world, suite) pairs gave a
    # pooled interval [+0, +40]; one world says nothing about the spread between worlds: no interval.
    recs = reps([100]) + [
        ending_with(ident(suite=s), 65 if s == "M01" else 100) for s in ("M01", "M02", "M03")
    ]
    comps = paired_comparisons(recs)
    assert {c.unit for c in comps} == {"plains-1"} and len(comps) == 3
    pooled = by_suite(recs, n_boot=200).rows[-1]
    assert pooled["suite"] == "pooled" and pooled["rie_sc"] == pytest.approx(35 / 3)
    assert all(math.isnan(x) for x in pooled["rie_sc_ci"] + pooled["rie_sr_ci"])
    assert (
        "| pooled | 88.3 | 66.7% | +11.7 | – | +33.3 | – | 3 | 3 |" in by_suite(recs, n_boot=50).to_markdown()
    )

    # Two worlds: each replicate draws worlds; a drawn world brings both of its suites.
    two = (
        recs + reps([100], world="taiga-1") + [ending_with(ident("taiga-1", s), 100) for s in ("M01", "M02")]
    )
    comps = paired_comparisons(two)
    values, units = [c.d_score for c in comps], [c.unit for c in comps]
    lo, hi = bootstrap_ci(values, units, n_boot=400, seed=3)
    draws = np.random.default_rng(3).integers(0, 2, size=(400, 2))
    sums = np.array([35.0, 0.0])  # plains-1: 35 + 0 + 0 over 3 comparisons; taiga-1: 0 over 2
    counts = np.array([3.0, 2.0])
    stats = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    assert (lo, hi) == pytest.approx(tuple(np.quantile(stats, [0.025, 0.975])))
    assert set(np.round(stats, 9)) <= {0.0, round(35 / 5, 9), round(35 / 3, 9)}


def test_sign_flip_test_is_exact_over_worlds():
    # Per-world sums 30 and 10 (world a has two differences): the 4 sign assignments give |T| ∝ 40, 20, 20,
    # 40; the observed 40 is reached by 2 of 4 → p = 0.5.
    assert sign_flip_test([10.0, 20.0, 10.0], ["a", "a", "b"]) == 0.5
    assert sign_flip_test([80.0], ["w"]) == 1.0  # one world: both signs are as extreme
    assert math.isnan(sign_flip_test([], []))
    assert sign_flip_test([0.0, 0.0], ["a", "b"]) == 1.0
    # Five worlds all worse in Mirror: only the observed assignment and its mirror image are as extreme.
    assert sign_flip_test([5.0, 6.0, 7.0, 8.0, 9.0], list("abcde")) == pytest.approx(2 / 32)
    # Brute force agrees on an uneven example.
    vals, units = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0], ["a", "a", "b", "c", "d", "e"]
    sums = {"a": 2.0, "b": 4.0, "c": 1.0, "d": -5.0, "e": 9.0}
    obs = abs(sum(sums.values()))
    hits = sum(
        abs(sum(s * v for s, v in zip(signs, sums.values(), strict=True))) >= obs - 1e-12
        for signs in itertools.product((1, -1), repeat=5)
    )
    assert sign_flip_test(vals, units) == hits / 32


def test_sign_flip_test_monte_carlo_above_the_exact_limit():
    k = MAX_EXACT_WORLDS + 4
    vals = [10.0 + i for i in range(k)]
    p = sign_flip_test(vals, [f"w{i}" for i in range(k)], seed=1)
    assert p == sign_flip_test(vals, [f"w{i}" for i in range(k)], seed=1)  # seeded
    assert 0 < p < 0.001  # (1 + hits) / (1 + draws) with no hits among 20,000 draws


def test_minimum_detectable_effect_formula_and_sizing():
    assert z_total() == pytest.approx(1.959964 + 0.841621, abs=1e-5)
    assert minimum_detectable_effect(20.0, 10) == pytest.approx(2.801585 * 20 / math.sqrt(10), rel=1e-5)
    assert minimum_detectable_effect(20.0, 10, alpha=0.01, power=0.9) == pytest.approx(
        (2.575829 + 1.281552) * 20 / math.sqrt(10), rel=1e-5
    )
    assert math.isnan(minimum_detectable_effect(float("nan"), 10))
    # Sizing: σ = 20 points, an RIE of 10 points → (2.8016 · 2)² = 31.4 → 32 worlds.
    assert worlds_needed(20.0, 10.0) == 32
    assert world_sd([10.0, 20.0, 30.0], ["a", "a", "b"]) == pytest.approx(np.std([15.0, 30.0], ddof=1))
    assert math.isnan(world_sd([1.0, 2.0], ["a", "a"]))


def test_significance_table_per_suite():
    # 4 worlds; M01 always worse by 35 points, M02 equal: M01's p = 2/16, M02's p = 1.
    recs = []
    for w in ("plains-1", "plains-2", "taiga-1", "taiga-2"):
        recs += reps([100], world=w) + [ending_with(ident(w, "M01"), 65), ending_with(ident(w, "M02"), 100)]
    rows = {r["suite"]: r for r in significance(recs).rows}
    assert list(rows) == ["M01", "M02", "pooled"]
    assert rows["M01"]["p_sc"] == pytest.approx(2 / 16) and rows["M01"]["rie_sc"] == 35.0
    assert rows["M02"]["p_sc"] == 1.0 and rows["pooled"]["p_sc"] is None  # no pooled test (shared Vanilla)
    assert rows["M01"]["sd_sc"] == 0.0 and rows["M01"]["mde_sc"] == 0.0 and rows["M01"]["worlds"] == 4
    assert rows["pooled"]["sd_sc"] == 0.0 and rows["pooled"]["pairs"] == 8


def _ident(**kw) -> EpisodeIdentity:
    base = ident(suite=kw.pop("suite", None))
    return base.model_copy(update=kw)


def test_pairs_match_the_full_identity_except_suite_and_repetition():
    vanilla = ending_with(ident(rep=0), 100)
    mirror = ending_with(ident(suite="M01", rep=1), 65)
    hot = ending_with(_ident(suite="M01", model=ModelSettings(name="model-a", temperature=0.2)), 0)
    other_seed = ending_with(_ident(suite="M01", study_seed=1), 0)
    settings = ending_with(_ident(suite="M01", agent_settings={"trace_length": 8}), 0)
    assert pair_key(vanilla.identity) == pair_key(mirror.identity)
    for r in (hot, other_seed, settings):
        assert pair_key(r.identity) != pair_key(vanilla.identity)
    comps = paired_comparisons([vanilla, mirror, hot, other_seed, settings])
    assert len(comps) == 1 and rie(comps).score == 35.0  # the foreign temperature/seed/settings never pool
    assert {r.episode_id for r in unpaired_mirror([vanilla, mirror, hot, other_seed, settings])} == {
        hot.episode_id,
        other_seed.episode_id,
        settings.episode_id,
    }
    table = by_configuration([vanilla, mirror, hot])
    labels = [r["model"] for r in table.rows]
    assert "model-a (T=0.7, max_out=2048, reasoning=disabled)" in labels
    assert "model-a (T=0.2, max_out=2048, reasoning=disabled)" in labels
    assert any("1 Mirror episodes have no Vanilla episode" in n for n in table.notes)
    assert model_label(ModelSettings(name="m")) == "m"
