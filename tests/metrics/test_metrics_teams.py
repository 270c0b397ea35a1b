"""Team metrics on hand-computed fixtures: S from a measured baseline, W ties, "–" with < 2 units, whole-block
resampling, side pooling and pairing, arena asymmetry, ratings, tables."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from mirrorcraft.contracts import TeamEpisodeIdentity, TeamEpisodeRecord
from mirrorcraft.metrics.bootstrap import bootstrap_ci
from mirrorcraft.metrics.teams import (
    arena_asymmetry,
    episode_metrics,
    normal_score_table,
    normal_scores,
    ratings,
    resampling_units,
    scaled_pool,
    side_balance,
    stratified_ci,
    team_results,
    team_tables,
    win_value,
    write_team_tables,
)


def rec(
    own: float,
    other: float,
    *,
    tested: str = "random",
    opponent: str = "balanced",
    side: str = "red",
    repeat: int = 0,
    index: int = 0,
    scenario: str = "mushroom_war",
    variant: str = "original",
    block_length: int = 5,
    fault: bool = False,
) -> TeamEpisodeRecord:
    """A 2-second team episode whose tested system ends with ``own`` points and its opponent with ``other``."""
    ident = TeamEpisodeIdentity(
        scenario=scenario,
        arena_variant=variant,
        tested=tested,
        opponent=opponent,
        tested_side=side,
        repeat=repeat,
        block_index=index,
        block_length=block_length,
        game_seconds=2,
    )
    red, blue = (own, other) if side == "red" else (other, own)
    seconds = 1 if fault else 2
    scores = [{"t": 1, "red": 0.0, "blue": 0.0}, {"t": 2, "red": red, "blue": blue}][:seconds]
    last = scores[-1]
    return TeamEpisodeRecord.model_validate(
        {
            "episode_id": ident.episode_id,
            "seed": ident.seed,
            "identity": ident.model_dump(mode="json"),
            "scores": scores,
            "outcome": {
                "red": last["red"],
                "blue": last["blue"],
                "end_reason": "infrastructure_fault" if fault else "time_up",
                "seconds_played": seconds,
            },
            "trajectories": [],
            "infrastructure_faults": [{"kind": "server_error", "message": "x"}] if fault else [],
        }
    )


def row(table, **match):
    (found,) = [r for r in table.rows if all(r.get(k) == v for k, v in match.items())]
    return found


# ------------------------------------------------------------------------------------------------- S


def test_sabotage_comes_from_the_measured_baseline() -> None:
    # The opponent (balanced, blue) scores 6 and 8 against do_nothing on seeds of block indices 0 and 1 ...
    baseline = [
        rec(0, 6, tested="do_nothing", index=0, block_length=2),
        rec(0, 8, tested="do_nothing", index=1, block_length=2),
    ]
    # ... and 4 and 5 against the tested system on the same seeds: S = 6 − 4 = 2 and 8 − 5 = 3.
    tested = [rec(3, 4, index=0, block_length=2), rec(5, 5, index=1, block_length=2)]
    ms = {m.episode_id: m for m in episode_metrics(tested + baseline)}
    assert [ms[r.episode_id].s for r in tested] == [2.0, 3.0]
    assert [ms[r.episode_id].s for r in baseline] == [0.0, 0.0]  # do_nothing against itself: S = 0
    table = team_results(tested + baseline, "mushroom_war", n_boot=200)
    assert row(table, system="random", opponent="balanced", side="red")["s"] == 2.5  # normal 7 − actual 4.5
    # A different measured baseline gives a different S: the normal score is an input, never a constant.
    other = [
        rec(0, 10, tested="do_nothing", index=0, block_length=2),
        rec(0, 10, tested="do_nothing", index=1, block_length=2),
    ]
    assert [m.s for m in episode_metrics(tested, baseline_records=other)] == [6.0, 5.0]
    # Without a baseline on its seed an episode has no S (and the table says so).
    alone = team_results(tested, "mushroom_war", n_boot=200)
    assert row(alone, system="random", opponent="balanced", side="red")["s"] is not None
    assert math.isnan(row(alone, system="random", opponent="balanced", side="red")["s"])
    assert any("2 episodes have no baseline episode" in n for n in alone.notes)


def test_normal_scores_are_per_side_and_arena() -> None:
    base = [
        rec(0, 6, tested="do_nothing", side="red", index=0),  # balanced plays blue: 6
        rec(0, 9, tested="do_nothing", side="blue", index=0),  # balanced plays red: 9
        rec(0, 2, tested="do_nothing", side="red", index=0, variant="mirrored"),  # mirrored arena: 2
    ]
    normals = normal_scores(base)
    seed = base[0].identity.seed
    assert normals[("mushroom_war", "original", "balanced", "blue")] == {seed: 6.0}
    assert normals[("mushroom_war", "original", "balanced", "red")] == {seed: 9.0}
    assert normals[("mushroom_war", "mirrored", "balanced", "blue")] == {seed: 2.0}
    tested = [
        rec(1, 5, side="red", index=0),
        rec(1, 5, side="blue", index=0),
        rec(1, 5, side="red", index=0, variant="mirrored"),
    ]
    assert [m.s for m in episode_metrics(tested, baseline_records=base)] == [1.0, 4.0, -3.0]
    table = normal_score_table(base, "mushroom_war", n_boot=100)
    assert [(r["arena"], r["side"], r["normal"]) for r in table.rows] == [
        ("original", "red", 9.0), ("original", "blue", 6.0), ("mirrored", "blue", 2.0),
    ]  # fmt: skip
    # Fault records never enter a normal score.
    assert normal_scores([rec(0, 50, tested="do_nothing", fault=True)]) == {}


# ------------------------------------------------------------------------------------------------- W


def test_w_ties_and_d() -> None:
    assert (win_value(3, 2), win_value(2, 2), win_value(1, 2)) == (1.0, 0.5, 0.0)
    recs = [rec(3, 2, index=0), rec(2, 2, index=1), rec(0, 4, index=2), rec(7, 7, index=3)]
    ms = episode_metrics(recs)
    assert [m.w for m in ms] == [1.0, 0.5, 0.0, 0.5]
    assert [m.d for m in ms] == [1.0, 0.0, -4.0, 0.0]
    r = row(team_results(recs, "mushroom_war", n_boot=100), system="random", opponent="balanced", side="red")
    assert r["w_pct"] == 50.0 and r["d"] == -0.75 and r["p"] == 3.0 and r["episodes"] == 4


# ------------------------------------------------------------------------------- CIs, units, resampling


def test_fewer_than_two_units_is_a_dash(tmp_path: Path) -> None:
    one_block = [rec(i, 1, index=i) for i in range(5)]
    table = team_results(one_block, "mushroom_war", n_boot=100)
    r = row(table, system="random", opponent="balanced", side="red")
    assert r["units"] == 1 and r["p"] == 2.0
    assert all(math.isnan(x) for x in r["p_ci"])
    assert [x["side"] for x in table.rows] == ["red", "red"]  # no pooled row without both sides
    md = table.to_markdown()
    assert "| random | balanced | original | red | 2.0 | – |" in md
    paths = write_team_tables([table], tmp_path)
    assert [p.name for p in paths] == ["teams.md", "teams_mushroom_war.csv"]
    with (tmp_path / "teams_mushroom_war.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    red = [x for x in rows if x["side"] == "red"][0]
    assert red["p"] == "2.0" and red["p_ci_lo"] == "" and red["p_ci_hi"] == ""
    assert not list(tmp_path.glob(".*.tmp"))


def test_blocks_are_resampled_whole() -> None:
    # Two blocks of 5 episodes: one all 0, one all 10. Whole blocks give replicate means 0, 5 or 10 only,
    # so the 95 % interval is exactly [0, 10]; resampling episodes would give intermediate bounds.
    values = [0.0] * 5 + [10.0] * 5
    units = ["A"] * 5 + ["B"] * 5
    est = stratified_ci(values, units, ["x"] * 10, {"x": 1.0}, n_boot=4000, seed=1)
    assert est.value == 5.0 and est.ci == (0.0, 10.0) and est.units == 2
    # One stratum = the cluster bootstrap of metrics.bootstrap, draw for draw.
    rng = np.random.default_rng(3)
    vals = rng.normal(size=30)
    us = [f"u{k // 4}" for k in range(30)]
    assert stratified_ci(vals, us, [0] * 30, {0: 1.0}, n_boot=500, seed=9).ci == pytest.approx(
        bootstrap_ci(vals, us, n_boot=500, seed=9)
    )
    # Records: a block's episodes share one unit; a repeat played from both sides on the same seeds is one unit.
    recs = [rec(1, 0, side=s, repeat=r, index=i) for s in ("red", "blue") for r in (0, 1) for i in range(5)]
    units_of = resampling_units(recs)
    assert len(set(units_of.values())) == 2
    by_rep = {r.identity.repeat: units_of[r.episode_id] for r in recs}
    for r in recs:
        assert units_of[r.episode_id] == by_rep[r.identity.repeat]
    # Different seeds on the two sides (another study seed on blue) → each block is its own unit.
    other = [rec(1, 0, side="red", index=i) for i in range(5)]
    blue = []
    for i in range(5):
        ident = TeamEpisodeIdentity(
            scenario="mushroom_war", tested="random", opponent="balanced", tested_side="blue", repeat=0,
            block_index=i, study_seed=1, game_seconds=2,
        )  # fmt: skip
        blue.append(
            TeamEpisodeRecord.model_validate(
                rec(1, 0, side="blue", index=i).model_dump(mode="json")
                | {
                    "identity": ident.model_dump(mode="json"),
                    "episode_id": ident.episode_id,
                    "seed": ident.seed,
                }
            )
        )
    assert len(set(resampling_units(other + blue).values())) == 2
    assert len({resampling_units(other + blue)[r.episode_id] for r in blue}) == 1


def test_side_pooling_weighs_each_side_a_half() -> None:
    # Red: one repeat, P = 10; blue: two repeats, P = 0. Pooled P = (10 + 0) / 2, not 10 / 3.
    recs = [rec(10, 0, side="red", repeat=0, index=i) for i in range(5)]
    recs += [rec(0, 0, side="blue", repeat=r, index=i) for r in (0, 1) for i in range(5)]
    table = team_results(recs, "mushroom_war", n_boot=200)
    assert row(table, system="random", opponent="balanced", side="red")["p"] == 10.0
    assert row(table, system="random", opponent="balanced", side="blue")["p"] == 0.0
    pooled = row(table, system="random", opponent="balanced", side="pooled")
    assert pooled["p"] == 5.0 and pooled["episodes"] == 15
    # W: red wins everything, blue ties everything: pooled W = (100 + 50) / 2.
    assert pooled["w_pct"] == 75.0
    # The "all opponents" row exists and matches with a single opponent.
    assert row(table, system="random", opponent="all", side="pooled")["p"] == 5.0


def test_side_gap_is_paired_over_repeats() -> None:
    # Three repeats from both sides on the same seeds; D as red = D as blue + 2 in every repeat (paired): the
    # gap is exactly 2 in every replicate, so its interval is [2, 2] although D itself varies by repeat.
    recs = []
    for r, base in enumerate((0.0, 10.0, -5.0)):
        for i in range(5):
            recs.append(rec(base + 2, 0, side="red", repeat=r, index=i))
            recs.append(rec(base, 0, side="blue", repeat=r, index=i))
    t = side_balance(recs, "mushroom_war", n_boot=500)
    r = row(t, system="random", opponent="balanced", arena="original")
    assert r["gap"] == pytest.approx(2.0) and r["gap_ci"] == pytest.approx((2.0, 2.0)) and r["units"] == 3
    assert r["d_red"] == pytest.approx(np.mean([2, 12, -3])) and r["d_blue"] == pytest.approx(
        np.mean([0, 10, -5])
    )
    pooled = row(
        team_results(recs, "mushroom_war", n_boot=500), system="random", opponent="balanced", side="pooled"
    )
    assert pooled["units"] == 3 and pooled["d_ci"][0] < pooled["d_ci"][1]


def test_arena_asymmetry_splits_content_and_residual() -> None:
    # D: original red 4, original blue -2, mirrored red 0, mirrored blue 2 (two repeats, same values).
    d = {("red", "original"): 4, ("blue", "original"): -2, ("red", "mirrored"): 0, ("blue", "mirrored"): 2}
    recs = [
        rec(float(v), 0.0, side=s, variant=a, repeat=r, index=i)
        for (s, a), v in d.items()
        for r in (0, 1)
        for i in range(5)
    ]
    t = arena_asymmetry(recs, "mushroom_war", n_boot=300)
    r = row(t, system="random", opponent="balanced")
    assert (r["gap_original"], r["gap_mirrored"]) == (6.0, -2.0)
    assert r["content"] == 2.0 and r["residual"] == 1.0 and r["units"] == 2
    assert r["content_ci"] == pytest.approx((2.0, 2.0))
    only_original = [x for x in recs if x.identity.arena_variant == "original"]
    assert arena_asymmetry(only_original, "mushroom_war").rows == []


def test_faults_are_excluded() -> None:
    recs = [rec(1, 0, index=0), rec(100, 0, index=1, fault=True)]
    r = row(team_results(recs, "mushroom_war", n_boot=50), system="random", opponent="balanced", side="red")
    assert r["p"] == 1.0 and r["episodes"] == 1


# --------------------------------------------------------------------------------- ratings, extras, all


def test_ratings_rank_the_stronger_system_first() -> None:
    recs = [
        rec(5, 1, tested="strong", opponent="weak", repeat=r, index=i) for r in range(2) for i in range(5)
    ]
    recs += [rec(2, 2, tested="strong", opponent="even", index=i) for i in range(3)]
    recs += [rec(1, 1, tested="weak", opponent="weak", index=0)]  # self-play: skipped
    t = ratings(recs, "mushroom_war")
    assert [r["system"] for r in t.rows][0] == "strong"
    strong, weak = row(t, system="strong"), row(t, system="weak")
    assert (strong["wins"], strong["ties"], strong["losses"]) == (10, 3, 0)
    assert (weak["wins"], weak["ties"], weak["losses"]) == (0, 0, 10)
    assert strong["mu"] > 25 > weak["mu"] and strong["ordinal"] == pytest.approx(
        strong["mu"] - 3 * strong["sigma"]
    )
    assert ratings(recs, "mushroom_war").rows == t.rows  # deterministic


def test_scaled_pool_is_a_labelled_extra() -> None:
    recs = [rec(10, 0, index=i) for i in range(2)]
    recs += [rec(200, 100, scenario="dash_and_dine", opponent="berries", index=i) for i in range(2)]
    t = scaled_pool(recs, n_boot=50)
    assert "dash_and_dine ÷ 10" in t.title and "not a headline" in t.title
    assert row(t, system="random")["p"] == pytest.approx(15.0)  # (10 + 200 / 10) / 2
    assert row(t, system="random")["sides"] == "red"
    tables = team_tables(recs, n_boot=50)
    names = [x.name for x in tables]
    assert names == [
        "teams_mushroom_war", "side_balance_mushroom_war", "normal_scores_mushroom_war", "ratings_mushroom_war",
        "teams_dash_and_dine", "side_balance_dash_and_dine", "normal_scores_dash_and_dine", "ratings_dash_and_dine",
        "scaled_pool",
    ]  # fmt: skip
    # Headline tables are one scenario each: no row mixes them.
    assert {r["opponent"] for r in tables[0].rows} == {"balanced", "all"}
    assert {r["opponent"] for r in tables[4].rows} == {"berries", "all"}
