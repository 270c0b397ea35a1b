"""JSON-schema export of the contracts, and the fingerprint that guards against silent changes.

:func:`export_schemas` writes one ``<name>.schema.json`` per top-level contract plus ``skills.json``
(the :class:`~mirrorcraft.contracts.skills.SkillSpec` catalogue) into a directory; the copies checked in
under ``docs/schemas/`` must equal a fresh export, and :func:`schema_fingerprint` must equal the value
recorded for :data:`~mirrorcraft.contracts.version.SCHEMA_VERSION` (see ``version.py``). The lead wires
``python -m mirrorcraft.run contracts export DIR`` to :func:`export_schemas`.

Two families, two version lines: the MirrorCraft contracts (:data:`SCHEMA_MODELS`, ``skills.json``), versioned
by ``SCHEMA_VERSION``, and the team contracts of PillagerBench (:data:`TEAM_SCHEMA_MODELS`, files
``team_*.schema.json``), versioned by :data:`~mirrorcraft.contracts.teams.TEAM_SCHEMA_VERSION` with their own
fingerprint (:func:`team_schema_fingerprint`). A team document carries both stamps (the package's
``x-mirrorcraft-schema-version`` and its own ``x-mirrorcraft-team-schema-version``); adding or changing a team
contract therefore needs no MirrorCraft record migration, and the MirrorCraft fingerprint covers only its
own documents.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mirrorcraft.contracts.episodes import Controls, EpisodeIdentity, EpisodeRecord, StudyGrid
from mirrorcraft.contracts.observation import Observation, ObservationBounds
from mirrorcraft.contracts.rules import RuleEncounter, SuiteManifest
from mirrorcraft.contracts.skills import SKILL_SPECS, ActionLimits, OutcomeReport, SkillCall
from mirrorcraft.contracts.tasks import TaskSpec
from mirrorcraft.contracts.team_observation import TeamObservation
from mirrorcraft.contracts.teams import TEAM_SCHEMA_VERSION, TeamEpisodeIdentity, TeamEpisodeRecord, TeamGrid
from mirrorcraft.contracts.version import SCHEMA_VERSION

#: File stem → model, in export order.
SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "observation": Observation,
    "observation_bounds": ObservationBounds,
    "skill_call": SkillCall,
    "outcome_report": OutcomeReport,
    "action_limits": ActionLimits,
    "task": TaskSpec,
    "suite_manifest": SuiteManifest,
    "rule_encounter": RuleEncounter,
    "episode_identity": EpisodeIdentity,
    "controls": Controls,
    "episode_record": EpisodeRecord,
    "study_grid": StudyGrid,
}

#: The team contracts (PillagerBench): file stem → model, in export order.
TEAM_SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "team_episode_identity": TeamEpisodeIdentity,
    "team_episode_record": TeamEpisodeRecord,
    "team_grid": TeamGrid,
    "team_observation": TeamObservation,
}
_TEAM_STAMP = "x-mirrorcraft-team-schema-version"


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def schema_documents() -> dict[str, str]:
    """File name → text of every exported document (deterministic)."""
    docs: dict[str, str] = {}
    for stem, model in SCHEMA_MODELS.items():
        schema = model.model_json_schema(mode="validation")
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"urn:mirrorcraft:contracts:v{SCHEMA_VERSION}:{stem}",
            "x-mirrorcraft-schema-version": SCHEMA_VERSION,
            **schema,
        }
        docs[f"{stem}.schema.json"] = _dump(schema)
    for stem, model in TEAM_SCHEMA_MODELS.items():
        schema = model.model_json_schema(mode="validation")
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"urn:mirrorcraft:contracts:teams:v{TEAM_SCHEMA_VERSION}:{stem}",
            "x-mirrorcraft-schema-version": SCHEMA_VERSION,
            _TEAM_STAMP: TEAM_SCHEMA_VERSION,
            **schema,
        }
        docs[f"{stem}.schema.json"] = _dump(schema)
    docs["skills.json"] = _dump(
        {
            "x-mirrorcraft-schema-version": SCHEMA_VERSION,
            "skills": [spec.model_dump(mode="json") for spec in SKILL_SPECS.values()],
        }
    )
    return docs


def _structure(value: Any) -> Any:
    # Prose (descriptions, titles) may be edited without a version bump; structure may not.
    if isinstance(value, dict):
        return {
            k: _structure(v)
            for k, v in value.items()
            if not (k in ("description", "title") and isinstance(v, str))
        }
    if isinstance(value, list):
        return [_structure(v) for v in value]
    return value


def _is_team(name: str) -> bool:
    return name.removesuffix(".schema.json") in TEAM_SCHEMA_MODELS


def _fingerprint(docs: dict[str, str], drop: tuple[str, ...] = ()) -> str:
    h = hashlib.sha256()
    for name in sorted(docs):
        structure = _structure(json.loads(docs[name]))
        for key in drop:
            structure.pop(key, None)
        h.update(
            name.encode()
            + b"\0"
            + json.dumps(structure, sort_keys=True, separators=(",", ":")).encode()
            + b"\0"
        )
    return h.hexdigest()


def schema_fingerprint(documents: dict[str, str] | None = None) -> str:
    """SHA-256 over the *structure* of the exported MirrorCraft documents (prose stripped), in file-name order.

    Descriptions and titles are left out, so rewording a docstring only needs the schemas regenerated,
    while any structural change (a field, a type, a bound, an enum value) changes the fingerprint and
    so requires a new :data:`SCHEMA_VERSION`. Team documents in ``documents`` are left out: they have their
    own version line (:func:`team_schema_fingerprint`).
    """
    docs = schema_documents() if documents is None else documents
    return _fingerprint({k: v for k, v in docs.items() if not _is_team(k)})


def team_schema_fingerprint(documents: dict[str, str] | None = None) -> str:
    """The same fingerprint over the team documents only, without the MirrorCraft version stamp (so bumping
    ``SCHEMA_VERSION`` does not move it); it must equal ``TEAM_SCHEMA_FINGERPRINTS[TEAM_SCHEMA_VERSION]``."""
    docs = schema_documents() if documents is None else documents
    return _fingerprint(
        {k: v for k, v in docs.items() if _is_team(k)}, drop=("x-mirrorcraft-schema-version", "$id")
    )


def export_schemas(out_dir: Path) -> list[Path]:
    """Write the contracts' JSON schemas and the skill catalogue into ``out_dir``.

    Args:
        out_dir: target directory (created if missing). Existing files of the same names are replaced.

    Returns:
        The written paths, in export order.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_documents().items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
