"""mirrorcraft.contracts — the benchmark's data model, shared by every part (see docs/contracts.md).

The server, the body, the skills, the agents, the runner and the metrics are built by different hands;
they agree because the shapes they exchange are written down once, here, as pydantic v2 models with
versioned JSON schemas (:func:`export_schemas`). This package imports nothing else of mirrorcraft but
``errors``; every other package may import it.
"""

from mirrorcraft.contracts.canonical import canonical_json
from mirrorcraft.contracts.episodes import (
    AGENT_CONFIGURATIONS,
    VANILLA_WORLDS,
    ActionStep,
    Controls,
    EndReason,
    EpisodeIdentity,
    EpisodeOutcome,
    EpisodeRecord,
    InfrastructureFault,
    MilestoneEvent,
    ModelSettings,
    PolicyError,
    SpawnInfo,
    StatusEffect,
    StudyGrid,
    Usage,
    derive_seed,
    read_record,
)
from mirrorcraft.contracts.ids import REGISTRY_ID_RE, SUITE_IDS, Registry, namespaced, parse_id, world_id
from mirrorcraft.contracts.interfaces import Agent, AgentContext, Evaluator, ServerControl, Skill
from mirrorcraft.contracts.observation import (
    DEFAULT_BOUNDS,
    Observation,
    ObservationBounds,
    canonicalize,
    find_leaks,
    serialize_observation,
)
from mirrorcraft.contracts.rules import RuleEncounter, SuiteManifest, load_all_suites, load_suite
from mirrorcraft.contracts.schemas import export_schemas, schema_fingerprint
from mirrorcraft.contracts.skills import (
    SKILL_NAMES,
    SKILL_SPECS,
    ActionLimits,
    FailureReason,
    ItemStack,
    OutcomeReport,
    SkillCall,
    SkillSpec,
    signature,
)
from mirrorcraft.contracts.tasks import TASKS, TaskId, TaskSpec, task_spec
from mirrorcraft.contracts.version import SCHEMA_VERSION

__all__ = [
    "AGENT_CONFIGURATIONS",
    "DEFAULT_BOUNDS",
    "REGISTRY_ID_RE",
    "SCHEMA_VERSION",
    "SKILL_NAMES",
    "SKILL_SPECS",
    "SUITE_IDS",
    "TASKS",
    "VANILLA_WORLDS",
    "ActionLimits",
    "ActionStep",
    "Agent",
    "AgentContext",
    "Controls",
    "EndReason",
    "EpisodeIdentity",
    "EpisodeOutcome",
    "EpisodeRecord",
    "Evaluator",
    "FailureReason",
    "InfrastructureFault",
    "ItemStack",
    "MilestoneEvent",
    "ModelSettings",
    "Observation",
    "ObservationBounds",
    "OutcomeReport",
    "PolicyError",
    "Registry",
    "RuleEncounter",
    "ServerControl",
    "Skill",
    "SpawnInfo",
    "SkillCall",
    "SkillSpec",
    "StatusEffect",
    "StudyGrid",
    "SuiteManifest",
    "TaskId",
    "TaskSpec",
    "Usage",
    "canonical_json",
    "canonicalize",
    "derive_seed",
    "export_schemas",
    "find_leaks",
    "load_all_suites",
    "load_suite",
    "namespaced",
    "parse_id",
    "read_record",
    "schema_fingerprint",
    "serialize_observation",
    "signature",
    "task_spec",
    "world_id",
]
