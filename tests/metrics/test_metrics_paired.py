"""Score, SR, RIE_SC/RIE_SR and ΔScore/ΔSR on hand-computed record sets; rounding only at the end."""

from __future__ import annotations

import csv
import math

import pytest
from support.metrics_fixtures import ending_with, ident, reps

from mirrorcraft.metrics import (
    disclosure_delta,
    disclosure_pairs,
    paired_comparisons,
    rie,
    score,
    success_rate,
)
from mirrorcraft.metrics.tables import by_suite, disclosure


def _rie_fixture():
    # plains-1, react, iron_armor, model-a, 3 repetitions each:
    #   Vanilla [100, 65, 50]  → S̄ = 215/3 = 71.667, Ȳ = 1/3 = 33.33 %
    #   M01     [50, 50, 20]   → S̄ = 40,             Ȳ = 0 %        d = (95/3, 33.33)
    #   M02     [100, 100, 65] → S̄ = 265/3 = 88.333, Ȳ = 66.67 %    d = (−50/3, −33.33)
    # taiga-1:
    #   Vanilla [20, 20, 20] → S̄ = 20, Ȳ = 0;  M01 [0, 0, 0] → 0, 0   d = (20, 0); no M02 copy → no pair
    # plus: react_w_rules in plains-1/M01 (Mirror-only, no Vanilla → no comparison), and a direct_llm
    # Vanilla cell with no Mirror episodes (no comparison).
    # RIE_SC = (95/3 − 50/3 + 20) / 3 = 35/3 = 11.667;  RIE_SR = (33.33 − 33.33 + 0) / 3 = 0.
    recs = reps([100, 65, 50])
    recs += reps([50, 50, 20], suite="M01")
    recs += reps([100, 100, 65], suite="M02")
    recs += reps([20, 20, 20], world="taiga-1")
    recs += reps([0, 0, 0], world="taiga-1", suite="M01")
    recs += reps([100, 100, 100], suite="M01", disclosure="disclosed")
    recs += reps([65, 65, 65], agent="direct_llm")
    return recs


def test_score_and_sr_are_plain_means_with_sr_in_percent():
    recs = reps([100, 65, 50])
    assert score(recs) == pytest.approx(215 / 3)
    assert success_rate(recs) == pytest.approx(100 / 3)
    assert math.isnan(score([]))


def test_rie_over_several_pairs():
    comps = paired_comparisons(_rie_fixture())
    assert [(c.world, c.suite, c.configuration) for c in comps] == [
        ("plains-1", "M01", "react"),
        ("plains-1", "M02", "react"),
        ("taiga-1", "M01", "react"),
    ]
    assert [c.d_score for c in comps] == pytest.approx([95 / 3, -50 / 3, 20])
    assert [c.d_sr for c in comps] == pytest.approx([100 / 3, -100 / 3, 0])
    eff = rie(comps)
    assert eff.n_pairs == 3
    assert eff.score == pytest.approx(35 / 3)
    assert eff.sr == pytest.approx(0.0, abs=1e-12)


def test_rie_pairs_only_same_budget_and_model():
    # Same world/task/config but another model: no pair with model-a's Vanilla cell.
    recs = reps([100, 100, 100]) + reps([50, 50, 50], suite="M01", model="model-b")
    assert paired_comparisons(recs) == []
    # Another budget (horizon study) is another cell.
    recs = reps([100]) + [ending_with(ident(suite="M01", budget=200), 50)]
    assert paired_comparisons(recs) == []


def test_disclosure_delta():
    # plains-1/M01 react: hidden [50, 50, 20] → 40, 0 %;   disclosed [100, 65, 50] → 215/3, 33.33 %
    #   d = (95/3, 33.33)
    # plains-1/M02 react: hidden [100, 100, 65] → 265/3, 66.67 %;  disclosed [100]*3 → 100, 100 %
    #   d = (35/3, 33.33)
    # ΔScore = (95/3 + 35/3) / 2 = 65/3 = 21.667;  ΔSR = 33.33
    recs = reps([50, 50, 20], suite="M01") + reps([100, 65, 50], suite="M01", disclosure="disclosed")
    recs += reps([100, 100, 65], suite="M02") + reps([100, 100, 100], suite="M02", disclosure="disclosed")
    recs += reps([100, 100, 100])  # Vanilla episodes never enter Δ
    pairs = disclosure_pairs(recs)
    assert [(p.suite, p.agent) for p in pairs] == [("M01", "react"), ("M02", "react")]
    eff = disclosure_delta(pairs)
    assert eff.score == pytest.approx(65 / 3)
    assert eff.sr == pytest.approx(100 / 3)
    table = disclosure(recs, n_boot=200)
    pooled = table.rows[-1]
    assert pooled["task"] == "pooled"
    assert pooled["d_score"] == pytest.approx(pooled["disclosed_score"] - pooled["hidden_score"])


def test_rounding_happens_only_after_aggregation(tmp_path):
    # plains-1, react, iron_armor: Vanilla [100, 100, 65], M01 [100, 65, 65].
    #   S̄_V = 265/3 = 88.333, S̄_M = 230/3 = 76.667 → RIE_SC = 35/3 = 11.667 → shown "+11.7"
    #   Ȳ_V = 66.667 %, Ȳ_M = 33.333 %           → RIE_SR = 33.333       → shown "+33.3"
    # Rounding the means first would give 88.3 − 76.7 = 11.6 and 66.7 − 33.3 = 33.4: different.
    recs = reps([100, 100, 65]) + reps([100, 65, 65], suite="M01")
    assert round(round(265 / 3, 1) - round(230 / 3, 1), 1) == 11.6  # the early-rounding result we avoid
    assert round(round(200 / 3, 1) - round(100 / 3, 1), 1) == 33.4
    table = by_suite(recs, n_boot=100)
    m01 = table.rows[0]
    assert m01["rie_sc"] == pytest.approx(35 / 3)
    md = table.to_markdown()
    assert "| M01 | 76.7 | 33.3% | +11.7 |" in md
    assert "+33.3" in md and "+33.4" not in md and "+11.6" not in md
    path = table.write_csv(tmp_path / "by_suite.csv")
    rows = list(csv.DictReader(path.open()))
    assert float(rows[0]["rie_sc"]) == pytest.approx(35 / 3, abs=1e-12)  # CSV keeps full precision
    assert float(rows[0]["rie_sr"]) == pytest.approx(100 / 3, abs=1e-12)


def test_fault_records_are_excluded():
    from mirrorcraft.metrics.synthetic import fault_record

    recs = reps([100, 100, 65]) + reps([100, 65, 65], suite="M01")
    faulted = recs + [fault_record(ident(suite="M01", rep=7), "disconnected", "client lost")]
    assert rie(paired_comparisons(faulted)) == rie(paired_comparisons(recs))
