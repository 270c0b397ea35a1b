"""Episode identity, ids, seeds, controls, records (round trip + v1 migration) and study grids."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from support.contract_samples import load_fixture, sample_identity, sample_record_dict

from mirrorcraft.contracts import (
    SCHEMA_VERSION,
    Controls,
    EpisodeIdentity,
    EpisodeRecord,
    ModelSettings,
    SkillCall,
    StudyGrid,
    derive_seed,
    read_record,
)
from mirrorcraft.errors import ContractError

_ID_SCRIPT = """
import json, sys
from mirrorcraft.contracts import EpisodeIdentity, StudyGrid
ident = EpisodeIdentity.model_validate_json(sys.argv[1])
grid = StudyGrid.main(study_seed=3).expand()
print(json.dumps([ident.episode_id, ident.seed, grid[1234].episode_id, grid[1234].seed]))
"""


def test_episode_id_and_seed_stable_across_processes_and_hash_seeds():
    ident = sample_identity()
    results = set()
    for hash_seed in ("0", "1", "12345", "random"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", _ID_SCRIPT, ident.model_dump_json()],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        results.add(out.stdout.strip())
    assert len(results) == 1
    child_id, child_seed, grid_id, grid_seed = json.loads(results.pop())
    g = StudyGrid.main(study_seed=3).expand()[1234]
    assert (child_id, child_seed) == (ident.episode_id, ident.seed)
    assert (grid_id, grid_seed) == (g.episode_id, g.seed)


def test_episode_id_is_hash_of_canonical_identity():
    ident = sample_identity()
    canonical = json.dumps(ident.model_dump(mode="json"), sort_keys=True, separators=(",", ":")).encode()
    assert ident.canonical() == canonical
    assert ident.episode_id == "ep-" + hashlib.sha256(canonical).hexdigest()[:24]
    # Any change of identity changes the id.
    assert sample_identity(repetition=1).episode_id != ident.episode_id
    assert sample_identity(suite=None).episode_id != ident.episode_id
    assert sample_identity(model=ModelSettings(name="gemini-3.1-flash-lite", temperature=0.5)).episode_id != (
        ident.episode_id
    )


def test_seed_formula_and_pairing():
    expected = int(hashlib.sha256(b"7_plains-1_*_iron_armor_0").hexdigest(), 16) % 2**32
    assert derive_seed(7, "plains-1", "*", "iron_armor", 0) == expected
    vanilla = sample_identity(suite=None)
    mirrors = [sample_identity(suite=s) for s in ("M01", "M02", "M03", "M04", "M05", "M06")]
    disclosed = sample_identity(suite="M04", disclosure="disclosed")
    other_config = sample_identity(agent="voyager", model=ModelSettings(name="deepseek-v4-flash"))
    assert {i.seed for i in [vanilla, *mirrors, disclosed, other_config]} == {expected}
    assert len({i.episode_id for i in [vanilla, *mirrors, disclosed, other_config]}) == 9
    assert sample_identity(repetition=1).seed != expected
    assert sample_identity(world="taiga-1").seed != expected
    assert sample_identity(task="diamond").seed != expected
    assert 0 <= expected < 2**32


def test_identity_validation():
    with pytest.raises(ValueError, match="Mirror-only"):
        sample_identity(suite=None, disclosure="disclosed")
    with pytest.raises(ValueError, match="Vanilla world id"):
        sample_identity(world="plains-1/M03")
    with pytest.raises(ValueError, match="malformed id"):
        sample_identity(world="Plains 1")
    assert sample_identity().world_id == "plains-1/M02"
    assert sample_identity(suite=None).world_id == "plains-1"
    assert sample_identity(disclosure="disclosed").configuration == "react_w_rules"


def test_controls_defaults_follow_the_spec():
    c = Controls()
    assert (c.difficulty, c.time_of_day, c.weather, c.xp_level) == ("peaceful", 6000, "clear", 100)
    levels = {e.effect: e.amplifier + 1 for e in c.effects}
    assert levels == {
        "minecraft:haste": 2,
        "minecraft:speed": 1,
        "minecraft:resistance": 1,
        "minecraft:strength": 1,
    }
    assert c.game_rules["doDaylightCycle"] is False and c.game_rules["doWeatherCycle"] is False
    assert c.game_rules["doPatrolSpawning"] is False and c.game_rules["doTraderSpawning"] is False
    assert c.game_rules["doInsomnia"] is False and c.game_rules["doMobSpawning"] is True


@pytest.fixture
def record() -> EpisodeRecord:
    return EpisodeRecord.model_validate(sample_record_dict())


def test_record_round_trip(record):
    text = record.model_dump_json()
    again = EpisodeRecord.model_validate_json(text)
    assert again == record
    assert again.model_dump_json() == text
    assert read_record(text) == record
    assert record.scores() == [0, 0, 0, 0, 0, 0, 20]


def test_v1_record_is_migrated():
    v1 = load_fixture("episode_record_v1.json")
    assert v1["schema_version"] == 1 and "milestone_values" not in v1
    rec = read_record(v1)
    assert rec.schema_version == SCHEMA_VERSION == 4
    assert rec.milestone_values == {
        "minecraft:story/mine_stone": 20,
        "minecraft:story/upgrade_tools": 50,
        "minecraft:story/smelt_iron": 65,
        "minecraft:story/obtain_armor": 100,
    }
    assert rec.trailing_policy_errors == [] and rec.spawn is None
    assert rec.outcome.score == 20 and rec.encounters[0].rule_id == "M02.log_drops_four_planks"
    assert rec.episode_id == rec.identity.episode_id
    # A v1 record is not accepted as current without migration.
    with pytest.raises(ValueError, match="use read_record"):
        EpisodeRecord.model_validate(
            v1 | {"milestone_values": rec.milestone_values, "trailing_policy_errors": [], "spawn": None}
        )


def test_v2_record_is_migrated():
    # v3 added the escape skills, go_to targets and blocks_placed: a v2 record reads unchanged but for them.
    v2 = load_fixture("episode_record_v2.json")
    assert v2["schema_version"] == 2
    rec = read_record(v2)
    assert rec.schema_version == SCHEMA_VERSION == 4
    assert [s.call for s in rec.trajectory] == [SkillCall.model_validate(s["call"]) for s in v2["trajectory"]]
    assert all(s.report.blocks_placed == [] for s in rec.trajectory)
    with pytest.raises(ValueError, match="use read_record"):
        EpisodeRecord.model_validate(v2)
    assert all(s.position is None for s in rec.trajectory)  # v4's positions: not recorded before
    # a v2 go_to call (a position only) is a valid v3 call with no block and no entity target
    old = SkillCall.model_validate({"name": "go_to", "args": {"x": 1, "y": 64, "z": 2}})
    assert old.args == {"x": 1, "y": 64, "z": 2, "block": None, "entity": None}


def test_read_record_rejects_bad_versions_and_json():
    d = sample_record_dict()
    with pytest.raises(ContractError, match="newer than this code"):
        read_record(d | {"schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(ContractError, match="schema_version"):
        read_record({k: v for k, v in d.items() if k != "schema_version"})
    with pytest.raises(ContractError, match="not valid JSON"):
        read_record("{not json")


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda d: d.update(episode_id="ep-000"), "does not match the identity"),
        (lambda d: d.update(seed=d["seed"] + 1), "derived seed"),
        (lambda d: d["outcome"].update(score=50), "deepest completed milestone"),
        (lambda d: d["trajectory"][4].update(score_after=20), "milestones seen by action 5 give 0"),
        (lambda d: d.update(initial_score=20), "initial_score is 20"),
        (lambda d: d["outcome"].update(actions_used=5), "trajectory steps"),
        (lambda d: d["trajectory"][1].update(index=7), "expected 2"),
        (lambda d: d["trajectory"][0].update(signature=["mine", "minecraft:stone"]), r"σ\(call\)"),
        (lambda d: d["outcome"].update(end_reason="budget_exhausted"), "budget_exhausted"),
        (lambda d: d["encounters"].append(dict(d["encounters"][0])), "more than one encounter"),
        (
            lambda d: d["encounters"][0].update(rule_id="M03.log_yields_six_planks"),
            "does not belong to suite",
        ),
        (
            lambda d: d["milestones"].append(
                {"advancement": "minecraft:story/mine_diamond", "action_index": 6, "tick": 2000}
            ),
            "not milestones of task",
        ),  # fmt: skip
        (
            lambda d: d["encounters"][0].update(actual_outcome=[{"item": "minecraft:oak_log", "count": 2}]),
            "outcomes are identical",
        ),  # fmt: skip
    ],
)
def test_record_consistency_is_checked(mutate, fragment):
    d = sample_record_dict()
    mutate(d)
    with pytest.raises(ContractError, match=fragment):
        read_record(d)


def test_main_grid_counts():
    grid = StudyGrid.main()
    episodes = grid.expand()
    assert len(episodes) == grid.size() == 8640
    kinds = Counter(("vanilla" if e.suite is None else e.disclosure) for e in episodes)
    assert kinds == {"vanilla": 1080, "hidden": 6480, "disclosed": 1080}
    assert len({e.episode_id for e in episodes}) == 8640
    assert len({e.world for e in episodes}) == 10
    assert {e.agent for e in episodes if e.disclosure == "disclosed"} == {"react"}
    assert Counter(e.budget for e in episodes) == {50: 5760, 75: 2880}
    # Every Mirror episode has its Vanilla partner with the same seed.
    vanilla_seed = {
        (e.world, e.task, e.model.name, e.agent, e.repetition): e.seed for e in episodes if e.suite is None
    }
    for e in episodes:
        assert e.seed == vanilla_seed[(e.world, e.task, e.model.name, e.agent, e.repetition)]


def test_grid_expansion_is_deterministic_and_ordered():
    a = [e.episode_id for e in StudyGrid.main(study_seed=1).expand()]
    b = [e.episode_id for e in StudyGrid.main(study_seed=1).expand()]
    assert a == b
    first = StudyGrid.main().expand()[:4]
    assert [(e.suite, e.repetition) for e in first] == [(None, 0), (None, 1), (None, 2), ("M01", 0)]
    assert StudyGrid.main(study_seed=2).expand()[0].seed != StudyGrid.main(study_seed=1).expand()[0].seed


def test_smoke_and_horizon_grids():
    smoke = StudyGrid.smoke().expand()
    assert [(e.world_id, e.configuration) for e in smoke] == [
        ("plains-1", "react"), ("plains-1/M01", "react"), ("plains-1/M01", "react_w_rules"),
    ]  # fmt: skip
    horizon = StudyGrid.horizon()
    assert horizon.size() == 8640 and {e.budget for e in horizon.expand()[:50]} == {200}
    with pytest.raises(ValueError, match="duplicates"):
        StudyGrid(name="x", worlds=["plains-1", "plains-1"], tasks=["diamond"],
                  models=[ModelSettings(name="m")], configurations=["react"], repetitions=1)  # fmt: skip


def test_grid_round_trip():
    g = StudyGrid.main()
    assert StudyGrid.model_validate_json(g.model_dump_json()) == g
    assert (
        EpisodeIdentity.model_validate_json(g.expand()[9].model_dump_json()).episode_id
        == g.expand()[9].episode_id
    )


def test_v3_record_is_migrated():
    # v4 added each action's position (the viewer's path): a v3 record reads with no positions.
    v3 = load_fixture("episode_record_v3.json")
    assert v3["schema_version"] == 3 and all("position" not in s for s in v3["trajectory"])
    rec = read_record(v3)
    assert rec.schema_version == SCHEMA_VERSION == 4
    assert rec.trajectory and all(s.position is None for s in rec.trajectory)
    with pytest.raises(ValueError, match="use read_record"):
        EpisodeRecord.model_validate(v3)
