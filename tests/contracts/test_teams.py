"""Team episode contracts (PillagerBench): identity, seed, blocks, records, grids, published schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mirrorcraft.contracts import (
    OutcomeReport,
    SkillCall,
    TeamEpisodeIdentity,
    TeamEpisodeRecord,
    TeamGrid,
    TeamSystem,
    derive_team_seed,
    read_team_record,
    signature,
)
from mirrorcraft.contracts.schemas import TEAM_SCHEMA_MODELS, schema_documents, team_schema_fingerprint
from mirrorcraft.contracts.teams import TEAM_SCHEMA_FINGERPRINTS, TEAM_SCHEMA_VERSION
from mirrorcraft.errors import ContractError
from tests.contracts.test_team_observation import team_observation

DOCS_SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def ident(**kw: Any) -> TeamEpisodeIdentity:
    base: dict[str, Any] = {
        "scenario": "mushroom_war",
        "tested": "random",
        "opponent": "balanced",
        "tested_side": "red",
        "repeat": 1,
        "block_index": 2,
        "study_seed": 7,
    }
    return TeamEpisodeIdentity.model_validate(base | kw)


def action(index: int, t: float) -> dict[str, Any]:
    call = SkillCall.create("mine", {"block": "red_mushroom_block", "count": 1})
    report = OutcomeReport(skill="mine", status="success", completed=1, ticks_used=30)
    return {
        "index": index,
        "t": t,
        "call": call.model_dump(mode="json"),
        "signature": list(signature(call)),
        "report": report.model_dump(mode="json"),
    }


def record_dict(identity: TeamEpisodeIdentity | None = None, seconds: int | None = None) -> dict[str, Any]:
    identity = identity or ident(game_seconds=4)
    n = identity.game_seconds if seconds is None else seconds
    scores = [{"t": t, "red": float(t // 2), "blue": float(t // 3)} for t in range(1, n + 1)]
    return {
        "schema_version": TEAM_SCHEMA_VERSION,
        "episode_id": identity.episode_id,
        "seed": identity.seed,
        "identity": identity.model_dump(mode="json"),
        "scores": scores,
        "outcome": {
            "red": scores[-1]["red"] if scores else 0.0,
            "blue": scores[-1]["blue"] if scores else 0.0,
            "end_reason": "time_up" if n == identity.game_seconds else "infrastructure_fault",
            "seconds_played": n,
        },
        "trajectories": [
            {"player": "Ryn", "side": "red", "actions": [action(1, 0.0), action(2, 1.5)]},
            {"player": "Raze", "side": "red", "actions": []},
            {"player": "Byte", "side": "blue", "actions": [action(1, 0.2)]},
            {"player": "Blink", "side": "blue"},
        ],
        "chat": [{"t": 1.0, "sender": "Ryn", "side": "red", "channel": "team", "text": "caps west"}],
        "agent_faults": [{"player": "Blink", "side": "blue", "kind": "disconnected", "t": 2.0}],
        "usage": {"red": {"model_calls": 3}},
        "time_mode": "lockstep",
    }


def test_identity_ids_seeds_and_blocks() -> None:
    a = ident()
    assert a.episode_id.startswith("tep-") and len(a.episode_id) == 28
    assert a.seed == derive_team_seed(7, "mushroom_war", "balanced", 1, 2)
    # The seed ignores the side, the arena variant and the tested system (paired sides, mirror, baselines)...
    for other in (
        ident(tested_side="blue"),
        ident(arena_variant="mirrored"),
        ident(tested="do_nothing"),
        ident(tested={"id": "tacticrafter", "model": {"name": "m"}}),
    ):
        assert other.seed == a.seed and other.episode_id != a.episode_id
    # ... but not the opponent, the repeat, the place in the block, the scenario or the study seed.
    for other in (
        ident(opponent="slimy"),
        ident(repeat=2),
        ident(block_index=3),
        ident(scenario="dash_and_dine", opponent="balanced"),
        ident(study_seed=8),
    ):
        assert other.seed != a.seed
    assert a.block_id == ident(block_index=0).block_id != ident(tested_side="blue").block_id
    assert ident(repeat=0).block_id != a.block_id
    assert (a.red.id, a.blue.id, a.opponent_side) == ("random", "balanced", "blue")
    b = ident(tested_side="blue")
    assert (b.red.id, b.blue.id, b.opponent_side) == ("balanced", "random", "red")
    assert TeamSystem.model_validate("balanced") == TeamSystem(id="balanced")
    assert TeamSystem(id="tacticrafter", model={"name": "m"}).label == "tacticrafter (m)"
    # The seed formula, written out: sha256 of the names.
    import hashlib

    assert a.seed == int(hashlib.sha256(b"7_mushroom_war_*_balanced_1_2").hexdigest(), 16) % 2**32


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"block_index": 5}, "block_index 5 >= block_length 5"),
        ({"tested_side": "green"}, "tested_side"),
        ({"scenario": "chess"}, "scenario"),
        ({"opponent": "Not An Id"}, "malformed id"),
    ],
)
def test_bad_identities(kw: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ident(**kw)


def test_record_round_trip_and_views() -> None:
    rec = TeamEpisodeRecord.model_validate(record_dict())
    again = read_team_record(rec.model_dump_json())
    assert again == rec and again.model_dump_json() == rec.model_dump_json()
    assert (rec.outcome.red, rec.outcome.blue) == (2.0, 1.0)
    assert rec.tested_score == 2.0 and rec.opponent_score == 1.0 and not rec.is_fault
    blue = TeamEpisodeRecord.model_validate(record_dict(ident(game_seconds=4, tested_side="blue")))
    assert blue.tested_score == 1.0 and blue.opponent_score == 2.0
    fault = record_dict(seconds=2)
    fault["infrastructure_faults"] = [{"kind": "server_error", "message": "tick loop died"}]
    assert TeamEpisodeRecord.model_validate(fault).is_fault


def _broken(change) -> str:
    d = record_dict()
    change(d)
    with pytest.raises(ContractError) as err:
        read_team_record(d)
    return str(err.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(seed=d["seed"] + 1), "does not match the identity's derived seed"),
        (lambda d: d.update(episode_id="tep-000"), "episode_id"),
        (lambda d: d["scores"].pop(1), r"scores\[1\]\.t is 3, expected 2"),
        (lambda d: d["outcome"].update(red=9.0), "is not the last sample"),
        (lambda d: d["outcome"].update(end_reason="infrastructure_fault"), "needs an infrastructure fault"),
        (
            lambda d: (d["scores"].pop(), d["outcome"].update(seconds_played=3, red=1.0, blue=1.0)),
            "time_up but 3 of 4",
        ),
        (lambda d: d["trajectories"][1].update(player="Byte"), "'Byte' does not play red"),
        (lambda d: d["trajectories"][3].update(player="Ryn", side="red"), "players .* repeat"),
        (lambda d: d["trajectories"][0]["actions"].reverse(), r"index is 2, expected 1"),
        (lambda d: d["trajectories"][0]["actions"][1].update(t=9.0), "after the last second"),
        (lambda d: d["trajectories"][0]["actions"][0].update(signature=["mine", "minecraft:stone"]), "σ"),
        (lambda d: d["chat"][0].update(side=None), "team message needs the sender's side"),
        (lambda d: d["agent_faults"][0].update(side="red"), "'Blink' does not play red"),
        (lambda d: d.update(schema_version=TEAM_SCHEMA_VERSION + 1), "newer than this code"),
        (lambda d: d.pop("schema_version"), "schema_version"),
    ],
)
def test_bad_records_name_the_problem(change, message: str) -> None:
    import re

    text = _broken(change)
    assert re.search(message, text), text


def test_bad_record_text() -> None:
    with pytest.raises(ContractError, match="not valid JSON"):
        read_team_record("{oops")
    with pytest.raises(ContractError, match="expected a JSON object"):
        read_team_record("[1]")


# ------------------------------------------------------------------------------------------------ grids


def test_pillagerbench_preset_has_the_originals_shape() -> None:
    from mirrorcraft.study.team_grid import expand_team_grid

    grid = TeamGrid.pillagerbench(["tacticrafter"])
    ids = expand_team_grid(grid)
    # Per scenario: 4 built-in opponents × 5 consecutive episodes × 3 repeats = 60 (the original, red only),
    # doubled by side = 120; the do-nothing baseline adds the same 120 (S's normal score).
    assert len(ids) == grid.size() == 2 * 2 * 120
    mine = [i for i in ids if i.tested.id == "tacticrafter"]
    for scenario, opponents in (
        ("mushroom_war", ["passive", "balanced", "aggressive", "slimy"]),
        ("dash_and_dine", ["berries", "cake_beetroot", "melon_pumpkin", "potato_cookie"]),
    ):
        sel = [i for i in mine if i.scenario == scenario]
        assert len(sel) == 120
        assert sorted({i.opponent.id for i in sel}) == sorted(opponents)
        assert sum(i.tested_side == "red" for i in sel) == 60
        assert {i.arena_variant for i in sel} == {"original"}
    base = [i for i in ids if i.tested.id == "do_nothing"]
    assert len(base) == 240
    # Baseline episodes meet exactly the tested system's seeds, per opponent, side and repeat.
    key = lambda i: (i.scenario, i.opponent.id, i.tested_side, i.repeat, i.block_index)  # noqa: E731
    assert {key(i): i.seed for i in base} == {key(i): i.seed for i in mine}
    # Blocks: 5 consecutive episodes of one pairing, side and repeat, indices 0..4, one block id.
    blocks = grid.blocks()
    assert len(blocks) == 96
    for block in blocks:
        assert [i.block_index for i in block] == [0, 1, 2, 3, 4]
        assert len({(i.block_id, i.tested.id, i.opponent.id, i.tested_side, i.repeat) for i in block}) == 1
    # The two sides of a repeat share seeds (pairable), repeats do not.
    red0 = [i.seed for i in blocks[0]]
    assert blocks[0][0].tested_side == "red" and blocks[3][0].tested_side == "blue"
    assert [i.seed for i in blocks[3]] == red0 and [i.seed for i in blocks[1]] != red0
    assert len({i.episode_id for i in ids}) == len(ids)


def test_team_grid_yaml(tmp_path: Path) -> None:
    from mirrorcraft.study.team_grid import load_team_grid

    path = tmp_path / "grid.yaml"
    path.write_text(
        "preset: pillagerbench\n"
        "name: mini\n"
        "scenarios: [dash_and_dine]\n"
        "systems: [{id: tacticrafter, model: {name: model-a, temperature: 0.2}}]\n"
        "arena_variants: [original, mirrored]\n"
        "repeats: 1\n"
        "block_length: 2\n"
        "game_seconds: 30\n"
    )
    grid = load_team_grid(path, study_seed=3)
    assert grid.name == "mini" and grid.study_seed == 3
    assert list(grid.opponents) == ["dash_and_dine"]
    ids = grid.expand()
    # 2 systems (with do_nothing) × 4 opponents × 2 variants × 2 sides × 1 repeat × 2 episodes
    assert len(ids) == 64 == grid.size()
    assert {i.game_seconds for i in ids} == {30} and {i.block_length for i in ids} == {2}
    assert ids[0].tested.label == "tacticrafter (model-a)"
    assert load_team_grid("pillagerbench").size() == 480
    path.write_text("preset: pillagerbench\nopponents: {mushroom_war: [balanced, balanced]}\n")
    with pytest.raises(ContractError, match=r"grid\.yaml: invalid team grid: .*duplicates"):
        load_team_grid(path)
    path.write_text("scenarios: [mushroom_war]\nsystems: [random]\nname: x\nrepeats: 0\n")
    with pytest.raises(
        ContractError, match=r"grid\.yaml: invalid team grid: repeats: Input should be greater"
    ):
        load_team_grid(path)
    path.write_text("preset: pillagerbench_v9\n")
    with pytest.raises(ContractError, match="preset 'pillagerbench_v9' unknown"):
        load_team_grid(path)
    path.write_text("name: [\n")
    with pytest.raises(ContractError, match="not valid YAML"):
        load_team_grid(path)
    with pytest.raises(ContractError, match="not a preset"):
        load_team_grid(tmp_path / "missing.yaml")


def test_grid_rules() -> None:
    with pytest.raises(ValueError, match=r"opponents: \['dash_and_dine'\] are not in scenarios"):
        TeamGrid(
            name="x", scenarios=["mushroom_war"], systems=["random"], opponents={"dash_and_dine": ["berries"]}
        )
    with pytest.raises(ValueError, match="systems: duplicates"):
        TeamGrid(name="x", scenarios=["mushroom_war"], systems=["random", "random"])
    one = TeamGrid(name="x", scenarios=["mushroom_war"], systems=["do_nothing"], sides=["blue"], repeats=1)
    assert [s.id for s in one.tested_systems()] == ["do_nothing"] and one.size() == 4 * 5
    off = TeamGrid(name="x", scenarios=["mushroom_war"], systems=["random"], baselines=False, repeats=1)
    assert off.size() == 4 * 2 * 5 and {i.tested.id for i in off.expand()} == {"random"}


# ---------------------------------------------------------------------------------------------- schemas


def team_instances() -> dict[str, list]:
    rec = TeamEpisodeRecord.model_validate(record_dict())
    return {
        "team_episode_identity": [ident(), ident(tested_side="blue", arena_variant="mirrored")],
        "team_episode_record": [rec],
        "team_grid": [
            TeamGrid.pillagerbench(),
            TeamGrid.pillagerbench([{"id": "x", "model": {"name": "m"}}]),
        ],
        "team_observation": [team_observation(), team_observation(time_left_s=12.0, sidebar=None)],
    }


@pytest.mark.parametrize("stem", list(TEAM_SCHEMA_MODELS))
def test_team_instances_validate_against_published_schema(stem: str) -> None:
    schema = json.loads((DOCS_SCHEMAS / f"{stem}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for obj in team_instances()[stem]:
        assert TEAM_SCHEMA_MODELS[stem].model_validate_json(obj.model_dump_json()) == obj
        errors = sorted(validator.iter_errors(obj.model_dump(mode="json")), key=str)
        assert not errors, errors[0]
    assert schema["x-mirrorcraft-team-schema-version"] == TEAM_SCHEMA_VERSION


def test_team_schema_version_guard() -> None:
    assert TEAM_SCHEMA_FINGERPRINTS.get(TEAM_SCHEMA_VERSION) == team_schema_fingerprint(), (
        "the team contracts' structure changed: bump TEAM_SCHEMA_VERSION, add a migration, regenerate "
        "docs/schemas and record the new fingerprint in mirrorcraft/contracts/teams.py"
    )
    docs = schema_documents()
    changed = dict(docs)
    changed["team_grid.schema.json"] = docs["team_grid.schema.json"].replace('"default": 3', '"default": 4')
    assert changed != docs and team_schema_fingerprint(changed) != team_schema_fingerprint(docs)
    # The MirrorCraft fingerprint does not see team documents, and the team one not the package's stamp.
    from mirrorcraft.contracts.schemas import schema_fingerprint

    assert schema_fingerprint(changed) == schema_fingerprint(docs)
    restamped = {
        k: v.replace('"x-mirrorcraft-schema-version": 2', '"x-mirrorcraft-schema-version": 3')
        for k, v in docs.items()
    }
    assert team_schema_fingerprint(restamped) == team_schema_fingerprint(docs)


def test_team_v1_record_is_migrated() -> None:
    # v2 only widened the embedded skill contracts (escape skills, go_to targets, blocks_placed)
    v1 = record_dict() | {"schema_version": 1}
    rec = read_team_record(v1)
    assert rec.schema_version == TEAM_SCHEMA_VERSION == 3
    assert rec == read_team_record(record_dict())
