"""Round trips of every contract model, and the published JSON schemas (drift + version guard)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from support.contract_samples import observation_parts, sample_identity, sample_record_dict

from mirrorcraft.contracts import (
    SCHEMA_VERSION,
    SKILL_SPECS,
    TASKS,
    ActionLimits,
    Controls,
    EpisodeRecord,
    Observation,
    ObservationBounds,
    OutcomeReport,
    RuleEncounter,
    SkillCall,
    StudyGrid,
    SuiteManifest,
    canonicalize,
    export_schemas,
    load_all_suites,
    schema_fingerprint,
)
from mirrorcraft.contracts.schemas import SCHEMA_MODELS, schema_documents
from mirrorcraft.contracts.version import SCHEMA_FINGERPRINTS

DOCS_SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def instances() -> dict[str, list]:
    record = EpisodeRecord.model_validate(sample_record_dict())
    return {
        "observation": [
            canonicalize(Observation.model_validate(observation_parts(0))),
            Observation.model_validate(observation_parts(3)),
        ],
        "observation_bounds": [ObservationBounds(), ObservationBounds(max_entities=3)],
        "skill_call": [step.call for step in record.trajectory],
        "outcome_report": [step.report for step in record.trajectory]
        + [OutcomeReport(skill="smelt", status="failure", reason="no_workstation", ticks_used=12)],
        "action_limits": [ActionLimits()],
        "task": list(TASKS.values()),
        "suite_manifest": list(load_all_suites().values()),
        "rule_encounter": list(record.encounters),
        "episode_identity": [sample_identity(), sample_identity(suite=None)] + StudyGrid.smoke().expand(),
        "controls": [Controls(), Controls(xp_level=30)],
        "episode_record": [record],
        "study_grid": [StudyGrid.main(), StudyGrid.smoke(), StudyGrid.horizon()],
    }


@pytest.mark.parametrize("stem", list(SCHEMA_MODELS))
def test_round_trip_through_json(stem):
    model = SCHEMA_MODELS[stem]
    objs = instances()[stem]
    assert objs
    for obj in objs:
        text = obj.model_dump_json()
        again = model.model_validate_json(text)
        assert again == obj
        assert again.model_dump_json() == text
        assert model.model_validate(json.loads(text)) == obj


@pytest.mark.parametrize("stem", list(SCHEMA_MODELS))
def test_instances_validate_against_published_schema(stem):
    schema = json.loads((DOCS_SCHEMAS / f"{stem}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for obj in instances()[stem]:
        errors = sorted(validator.iter_errors(obj.model_dump(mode="json")), key=str)
        assert not errors, errors[0]


def test_published_schema_rejects_a_bad_call():
    schema = json.loads((DOCS_SCHEMAS / "skill_call.schema.json").read_text())
    bad = {"name": "mine", "args": {"block": "minecraft:stone", "count": 9}}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
    ok = SkillCall.create("mine", {"block": "stone", "count": 8}).model_dump(mode="json")
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(ok))


def test_checked_in_schemas_match_generated(tmp_path):
    written = export_schemas(tmp_path)
    assert sorted(p.name for p in written) == sorted(schema_documents())
    checked_in = sorted(p.name for p in DOCS_SCHEMAS.iterdir())
    assert checked_in == sorted(p.name for p in written), "regenerate docs/schemas (contracts export)"
    for path in written:
        assert (DOCS_SCHEMAS / path.name).read_text() == path.read_text(), (
            f"docs/schemas/{path.name} differs from the generated schema: run "
            "`python -m mirrorcraft.run contracts export docs/schemas` (and bump SCHEMA_VERSION if the "
            "structure changed)"
        )


def test_schema_version_guard():
    # A structural contract change must come with a new SCHEMA_VERSION and a recorded fingerprint.
    assert SCHEMA_FINGERPRINTS.get(SCHEMA_VERSION) == schema_fingerprint(), (
        "the contracts' structure changed: bump SCHEMA_VERSION, add a record migration, regenerate "
        "docs/schemas and record the new fingerprint in mirrorcraft/contracts/version.py"
    )
    for name, text in schema_documents().items():
        assert json.loads(text)["x-mirrorcraft-schema-version"] == SCHEMA_VERSION, name


def test_fingerprint_ignores_prose_but_not_structure():
    docs = schema_documents()
    reworded = dict(docs)
    reworded["controls.schema.json"] = docs["controls.schema.json"].replace("noon", "midday")
    assert reworded != docs and schema_fingerprint(reworded) == schema_fingerprint(docs)
    changed = dict(docs)
    changed["action_limits.schema.json"] = docs["action_limits.schema.json"].replace(
        '"default": 8', '"default": 9'
    )
    assert changed != docs and schema_fingerprint(changed) != schema_fingerprint(docs)


def test_skill_catalogue_document():
    doc = json.loads((DOCS_SCHEMAS / "skills.json").read_text())
    assert [s["name"] for s in doc["skills"]] == list(SKILL_SPECS)
    assert SuiteManifest.model_json_schema()["properties"]["kind"]["const"] == "mirror"


def test_rule_encounter_requires_a_difference():
    with pytest.raises(ValueError, match="identical"):
        RuleEncounter(
            rule_id="M05.iron_hoe_cooks_to_iron_pickaxe",
            action_index=3,
            signature=("smelt", "minecraft:iron_hoe", "furnace"),
            vanilla_outcome=[{"item": "minecraft:iron_nugget", "count": 1}],
            actual_outcome=[{"item": "minecraft:iron_nugget", "count": 1}],
        )
