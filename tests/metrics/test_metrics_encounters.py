"""IRR and RL on hand-written trajectories (σ from real skill calls, rule ids of the real suites)."""

from __future__ import annotations

import math

import pytest
from support.metrics_fixtures import EXPLORE, ident

from mirrorcraft.metrics import encounter_outcomes, irr, recovery_latency, suite_average
from mirrorcraft.metrics.synthetic import synthetic_record
from mirrorcraft.metrics.tables import irr_rl

LOG2 = ("mine", {"block": "oak_log", "count": 2})
LOG4 = ("mine", {"block": "oak_log", "count": 4})  # same σ as LOG2: quantities are ignored
IRON = ("mine", {"block": "iron_ore", "count": 1})
IRON3 = ("mine", {"block": "iron_ore", "count": 3})
P = "minecraft:oak_planks"
TABLE = ("craft_grid", {"workstation": "inventory", "grid": [[P, P], [P, P]]})
SMELT_COAL = ("smelt", {"input": "raw_iron", "fuel": "coal", "count": 2})
SMELT_LOG = ("smelt", {"input": "raw_iron", "fuel": "oak_log", "count": 5})  # same σ: fuel ignored


def test_irr_with_and_without_a_following_action():
    # a1 mine oak_log ×2 (encounter M02.log_drops_four_planks), a2 mine oak_log ×4 → same σ: repeat
    # a3 craft table (encounter M02.book_recipe_yields_enchanting_table), a4 explore → different σ
    # a4 explore is the last action: encounter M02.sugar_cane_adds_leather there has no next action,
    #    so it is not eligible.
    # IRR = 1 repeat / 2 eligible = 0.5
    rec = synthetic_record(
        ident(suite="M02"),
        [LOG2, LOG4, TABLE, EXPLORE],
        [0, 0, 0, 0],
        encounters=[
            ("M02.log_drops_four_planks", 1),
            ("M02.book_recipe_yields_enchanting_table", 3),
            ("M02.sugar_cane_adds_leather", 4),
        ],
    )
    outs = encounter_outcomes([rec])
    assert [(o.index, o.eligible, o.repeated) for o in outs] == [
        (1, True, True),
        (3, True, False),
        (4, False, False),
    ]
    r = irr(outs)
    assert (r.value, r.n) == (0.5, 2)


def test_irr_fuel_and_quantity_do_not_change_sigma():
    rec = synthetic_record(
        ident(suite="M01"),
        [SMELT_COAL, SMELT_LOG],
        [0, 0],
        encounters=[("M01.raw_iron_smelts_to_three_nuggets", 1)],
    )
    assert irr(encounter_outcomes([rec])).value == 1.0


def test_recovery_latency():
    # Scores S_0..S_6 = 0 | 0, 20, 20, 20, 50, 50 (Iron Armor: 20 mine_stone, 50 upgrade_tools).
    # Encounter at i=2: s⁻ = S_1 = 0, S_2 = 20 > 0 → j = 2, latency 0 (the encounter raised the score)
    # Encounter at i=3: s⁻ = S_2 = 20, S_3 = S_4 = 20, S_5 = 50 → j = 5, latency 2
    # Encounter at i=6: s⁻ = S_5 = 50, S_6 = 50, no later action → never recovers: excluded
    # RL = (0 + 2) / 2 = 1.0
    rec = synthetic_record(
        ident(suite="M02"),
        [LOG2, TABLE, EXPLORE, IRON, EXPLORE, IRON3],
        [0, 20, 20, 20, 50, 50],
        encounters=[
            ("M02.log_drops_four_planks", 2),
            ("M02.book_recipe_yields_enchanting_table", 3),
            ("M02.iron_ore_adds_ingot", 6),
        ],
    )
    outs = encounter_outcomes([rec])
    assert [o.latency for o in outs] == [0, 2, None]
    r = recovery_latency(outs)
    assert (r.value, r.n) == (1.0, 2)


def test_no_recovering_encounter_gives_undefined_rl():
    rec = synthetic_record(
        ident(suite="M02"), [LOG2, EXPLORE], [0, 0], encounters=[("M02.log_drops_four_planks", 1)]
    )
    r = recovery_latency(encounter_outcomes([rec]))
    assert r.n == 0 and math.isnan(r.value)


def test_suite_average_weights_suites_equally():
    # react in M01: one episode, 4 eligible encounters, 1 repeat → IRR_M01 = 1/4
    #   a1 craft table (log rule), a2 craft table → repeat; a3 explore (stick rule) → a4 smelt: no;
    #   a5 smelt (iron rule) → a6 explore: no; a7 explore (paper rule) → a8 mine iron: no.
    #   Scores: 0 0 20 20 20 50 50 50 → latencies: i=1: s⁻=0, first S_j>0 at j=3 → 2;
    #   i=3: s⁻=S_2=0, S_3=20 → 0;  i=5: s⁻=S_4=20, S_6=50 → 1;  i=7: s⁻=S_6=50, never → excluded.
    #   RL_M01 = (2 + 0 + 1) / 3 = 1.0
    # react in M02: one eligible encounter that repeats → IRR_M02 = 1;
    #   a1 mine iron (iron rule), a2 mine iron ×3; scores 0, 20 → i=1: s⁻=0, S_2=20 → latency 1; RL_M02 = 1
    # Equal weight: IRR = (0.25 + 1) / 2 = 0.625 (pooling the 5 encounters would give 2/5 = 0.4);
    #               RL = (1.0 + 1) / 2 = 1.0
    m01 = synthetic_record(
        ident(suite="M01"),
        [TABLE, TABLE, EXPLORE, SMELT_COAL, SMELT_COAL, EXPLORE, EXPLORE, IRON],
        [0, 0, 20, 20, 20, 50, 50, 50],
        encounters=[
            ("M01.log_yields_two_planks", 1),
            ("M01.two_planks_yield_one_stick", 3),
            ("M01.raw_iron_smelts_to_three_nuggets", 5),
            ("M01.three_sugar_cane_yield_one_paper", 7),
        ],
    )
    m02 = synthetic_record(
        ident(suite="M02"), [IRON, IRON3], [0, 20], encounters=[("M02.iron_ore_adds_ingot", 1)]
    )
    outs = encounter_outcomes([m01, m02])
    i = suite_average(outs, "irr")
    assert i.per_suite["M01"].value == 0.25 and i.per_suite["M02"].value == 1.0
    assert math.isnan(i.per_suite["M03"].value)
    assert (i.mean, i.n_suites) == (0.625, 2)
    r = suite_average(outs, "rl")
    assert r.per_suite["M01"].value == pytest.approx(1.0)
    assert (r.mean, r.n_suites) == (pytest.approx(1.0), 2)
    table = irr_rl([m01, m02])
    (row,) = table.rows
    assert row["configuration"] == "react"
    assert row["avg_irr"] == pytest.approx(62.5)
    assert row["M01_irr"] == pytest.approx(25.0)
    assert (row["eligible"], row["recovering"]) == (5, 4)
    assert "| react | 25.0% | 1.0 | 100.0% | 1.0 | – | – |" in table.to_markdown()
