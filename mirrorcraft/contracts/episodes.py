"""Episodes: identity, deterministic ids and seeds, runtime controls, the episode record, study grids.

**Episode id.** :attr:`EpisodeIdentity.episode_id` is ``"ep-"`` + the first 24 hex digits of SHA-256 over
the identity's canonical JSON (sorted keys, compact separators; :mod:`mirrorcraft.contracts.canonical`),
so it is the same in every process and under every ``PYTHONHASHSEED``. An infrastructure fault reruns
the episode under the same id.

**Seed.** Derived as android_world's ``suite_utils`` does::

    seed = int(sha256(f"{study_seed}_{world}_{suite}_{task}_{rep}").hexdigest(), 16) % 2**32

with exactly these inputs: ``study_seed`` (decimal int), ``world`` = the **Vanilla** world id
(``plains-1``, never ``plains-1/M03``), ``suite`` = the literal ``*`` (the pair wildcard), ``task`` =
the task id (``iron_armor``) and ``rep`` = the repetition (decimal int, from 0). The suite slot is the
constant ``*`` so a Vanilla world and its six Mirror copies share the seed for the same task and
repetition (paired runs need common randomness); the model, agent configuration, disclosure and
budget do not enter either, so every configuration meets the same randomness in the same
world/task/repetition. The runtime seeds every random choice (loot rolls, mob wandering, enchanting
offers) from this value, not from the episode id, which differs between Vanilla and Mirror.

**Record.** :class:`EpisodeRecord` is one JSON object per episode (crafter's ``stats.jsonl`` line),
versioned by ``schema_version``; :func:`read_record` migrates older versions forward.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mirrorcraft.contracts.canonical import canonical_json, sha256_hex
from mirrorcraft.contracts.ids import SUITE_IDS, ParsedId, parse_id, world_id
from mirrorcraft.contracts.observation import BlockPos, Vec3
from mirrorcraft.contracts.rules import RuleEncounter, SuiteId
from mirrorcraft.contracts.skills import OutcomeReport, Signature, SkillCall, signature
from mirrorcraft.contracts.tasks import DEFAULT_BUDGETS, DEFAULT_MILESTONE_VALUES, STORY, TaskId, task_spec
from mirrorcraft.contracts.version import SCHEMA_VERSION
from mirrorcraft.errors import ContractError, RegistrationError

#: The agent configurations of the main study (ReAct w/rules = ``react`` + disclosure ``disclosed``).
AGENT_CONFIGURATIONS: tuple[str, ...] = ("direct_llm", "react", "reflexion", "voyager", "xenon", "adam")

#: The ten Vanilla worlds: two per controlled biome.
BIOMES: tuple[str, ...] = ("plains", "taiga", "snowy_plains", "jungle", "savanna")
VANILLA_WORLDS: tuple[str, ...] = tuple(f"{b}-{i}" for b in BIOMES for i in (1, 2))

SEED_SUITE_SLOT = "*"


def _parse(value: str) -> ParsedId:
    # Inside pydantic validators errors must be ValueError to be reported per field.
    try:
        return parse_id(value)
    except RegistrationError as err:
        raise ValueError(str(err)) from None


def derive_seed(study_seed: int, world: str, suite: str, task: str, rep: int) -> int:
    """``sha256(f"{study_seed}_{world}_{suite}_{task}_{rep}") mod 2**32`` (android_world's derivation).

    Args:
        study_seed: the study's seed.
        world: world id placed in the string as given.
        suite: suite slot placed as given (episodes pass :data:`SEED_SUITE_SLOT`, see module docstring).
        task: task id.
        rep: repetition index.

    Returns:
        A 32-bit unsigned seed.
    """
    text = f"{study_seed}_{world}_{suite}_{task}_{rep}"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % 2**32


class ModelSettings(BaseModel):
    """The language model and its sampling settings (paper: temperature 0.7, 2,048 output tokens,
    provider-side reasoning disabled)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, description="Model name as the LLM client addresses it.")
    temperature: float = Field(0.7, ge=0, le=2)
    max_output_tokens: int = Field(2048, ge=1)
    reasoning: Literal["disabled", "enabled"] = "disabled"


class EpisodeIdentity(BaseModel):
    """Everything that defines an episode; its canonical JSON hashes to the episode id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    world: str = Field(description="Vanilla world id, e.g. 'plains-1' (the Mirror copy is world + suite).")
    suite: SuiteId | None = Field(description="Rule suite of the Mirror copy; null for the Vanilla world.")
    task: TaskId
    budget: int = Field(ge=1)
    agent: str = Field(description="Agent configuration id, e.g. 'react'.")
    agent_settings: dict[str, int | float | str | bool] = Field(default_factory=dict)
    model: ModelSettings
    disclosure: Literal["hidden", "disclosed"] = "hidden"
    repetition: int = Field(ge=0)
    study_seed: int = Field(ge=0)

    @field_validator("world")
    @classmethod
    def _world(cls, v: str) -> str:
        parsed = _parse(v)
        if parsed.variant is not None:
            raise ValueError(f"world {v!r}: give the Vanilla world id and the suite separately")
        return v

    @field_validator("agent")
    @classmethod
    def _agent(cls, v: str) -> str:
        _parse(v)
        return v

    @model_validator(mode="after")
    def _disclosure(self) -> EpisodeIdentity:
        if self.disclosure == "disclosed" and self.suite is None:
            raise ValueError("rule disclosure is a Mirror-only condition: disclosed episodes need a suite")
        return self

    def canonical(self) -> bytes:
        """Canonical JSON bytes of the identity (the episode id's input)."""
        return canonical_json(self.model_dump(mode="json"))

    @property
    def episode_id(self) -> str:
        """``"ep-"`` + 24 hex digits of SHA-256 over :meth:`canonical`."""
        return "ep-" + sha256_hex(self.canonical())[:24]

    @property
    def seed(self) -> int:
        """The pair-shared seed (module docstring): same for Vanilla and Mirror copies of a world/task/rep."""
        return derive_seed(self.study_seed, self.world, SEED_SUITE_SLOT, self.task.value, self.repetition)

    @property
    def world_id(self) -> str:
        """The world copy played: ``plains-1`` or ``plains-1/M03``."""
        return world_id(self.world, self.suite)

    @property
    def configuration(self) -> str:
        """Configuration label for tables: the agent id, ``react_w_rules`` when rules are disclosed."""
        return f"{self.agent}_w_rules" if self.disclosure == "disclosed" else self.agent


#: Duration of the controls' effects in seconds: 1.19.2's maximum (``effect give`` seconds <= 1,000,000);
#: the embedded server gives the same instances at join as the RCON control applies with ``effect give``.
EFFECT_SECONDS = 1_000_000


class StatusEffect(BaseModel):
    """A status effect given to the player (amplifier is 0-based: Haste II = amplifier 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    effect: str = Field(pattern=r"^minecraft:[a-z_]+$")
    amplifier: int = Field(ge=0, le=255)
    hide_particles: bool = True


class Controls(BaseModel):
    """Runtime controls applied to every episode, and recorded in its record.

    Defaults follow the spec: Peaceful, fixed noon (time 6000), clear weather, no patrols / wandering
    traders / insomnia, natural passive-mob spawning kept, Haste II, Speed I, Resistance I, Strength I
    (the paper gives no levels; these are ours), experience level 100. ``spawnRadius 0`` puts the player
    exactly on the world spawn so paired worlds start identically.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    difficulty: Literal["peaceful", "easy", "normal", "hard"] = "peaceful"
    time_of_day: int = Field(6000, ge=0, lt=24000, description="Game time of day; 6000 = noon.")
    weather: Literal["clear", "rain", "thunder"] = "clear"
    effects: tuple[StatusEffect, ...] = (
        StatusEffect(effect="minecraft:haste", amplifier=1),
        StatusEffect(effect="minecraft:speed", amplifier=0),
        StatusEffect(effect="minecraft:resistance", amplifier=0),
        StatusEffect(effect="minecraft:strength", amplifier=0),
    )
    xp_level: int = Field(100, ge=0)
    game_rules: dict[str, bool | int] = Field(
        default_factory=lambda: {
            "doDaylightCycle": False,
            "doWeatherCycle": False,
            "doPatrolSpawning": False,
            "doTraderSpawning": False,
            "doInsomnia": False,
            "doMobSpawning": True,
            "spawnRadius": 0,
        }
    )
    deterministic: bool = Field(True, description="Seeded randomness and rounded observations.")


class SpawnInfo(BaseModel):
    """Where the player spawned in the world copy, as the server reports it after reset."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    position: BlockPos
    biome: str = Field(pattern=r"^[a-z0-9_.-]+:[a-z0-9_./-]+$", description="Biome at the spawn point.")


class EndReason(StrEnum):
    FINAL_MILESTONE = "final_milestone"
    BUDGET_EXHAUSTED = "budget_exhausted"
    DEATH = "death"
    NO_EXECUTABLE_ACTION = "no_executable_action"
    INFRASTRUCTURE_FAULT = "infrastructure_fault"


class PolicyError(BaseModel):
    """A model output that produced no executable call (costs no budget); the raw text is kept."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["unparseable", "unknown_skill", "invalid_arguments"]
    raw_text: str
    message: str


def check_action(index: int, call: SkillCall, sig: Signature, report: OutcomeReport) -> None:
    """A recorded action is consistent: its σ is σ(call) and its report is the called skill's.

    Raises:
        ValueError: naming the action index and what disagrees (pydantic turns it into a validation error).
    """
    expected = signature(call)
    if tuple(sig) != expected:
        raise ValueError(f"action {index}: signature {list(sig)} != σ(call) {list(expected)}")
    if report.skill != call.name:
        raise ValueError(f"action {index}: report is for {report.skill!r}, call is {call.name!r}")


class ActionStep(BaseModel):
    """One attempted skill call (one unit of budget) and what it did."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=1, description="1-based action index k.")
    call: SkillCall
    signature: Signature
    report: OutcomeReport
    score_after: int = Field(ge=0, le=100, description="S_k, read after a tick barrier.")
    policy_errors: list[PolicyError] = Field(default_factory=list, description="Errors re-asked before it.")
    position: Vec3 | None = Field(
        None,
        description="The player's feet position when the call returned (0.1 block), the path the episode "
        "viewer draws; null in records before schema 4 and when the body had no position.",
    )

    @model_validator(mode="after")
    def _sig(self) -> ActionStep:
        check_action(self.index, self.call, self.signature, self.report)
        return self


class MilestoneEvent(BaseModel):
    """An advancement the server granted: id, the action index after which it was seen (0 = before any
    action) and the server tick."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    advancement: str = Field(pattern=r"^minecraft:story/[a-z_]+$")
    action_index: int = Field(ge=0)
    tick: int = Field(ge=0)


class Usage(BaseModel):
    """Model calls, tokens and API cost of the episode (auxiliary calls included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_calls: int = Field(0, ge=0)
    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    cost_usd: float = Field(0.0, ge=0)


class InfrastructureFault(BaseModel):
    """A fault outside the agent's control (disconnect, missing datapack, advancement unavailable)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["disconnected", "missing_datapack", "advancement_unavailable", "server_error", "other"]
    message: str
    action_index: int | None = None
    traceback: str | None = None


class EpisodeOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    score: int = Field(ge=0, le=100)
    success: bool
    actions_used: int = Field(ge=0)
    end_reason: EndReason


class EpisodeRecord(BaseModel):
    """The complete record of one episode (schema version :data:`SCHEMA_VERSION`).

    Consistency is checked on load: the id and seed match the identity, σ matches each call, action
    indices run 1..n, the score equals the deepest completed milestone under ``milestone_values``,
    success is ``score == 100``, and encounters belong to the episode's suite, one per rule.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = SCHEMA_VERSION
    episode_id: str
    seed: int
    identity: EpisodeIdentity
    controls: Controls
    spawn: SpawnInfo | None = Field(
        description="Spawn position and biome; null only if the episode faulted first."
    )
    milestone_values: dict[str, int] = Field(description="Advancement id → value the score used.")
    outcome: EpisodeOutcome
    initial_score: int = Field(0, ge=0, le=100, description="S_0, before the first action.")
    trajectory: list[ActionStep]
    trailing_policy_errors: list[PolicyError] = Field(
        default_factory=list, description="Policy errors after the last action (e.g. the 3 that ended it)."
    )
    milestones: list[MilestoneEvent]
    encounters: list[RuleEncounter]
    usage: Usage = Usage()
    wall_time_s: float = Field(0.0, ge=0)
    infrastructure_faults: list[InfrastructureFault] = Field(default_factory=list)
    prompt_template_version: str
    evaluator: Literal["embedded", "rcon"]

    @model_validator(mode="after")
    def _consistent(self) -> EpisodeRecord:
        ident = self.identity
        if self.schema_version != SCHEMA_VERSION:
            raise ValueError(f"schema_version {self.schema_version} != {SCHEMA_VERSION}: use read_record()")
        if self.episode_id != ident.episode_id:
            raise ValueError(
                f"episode_id {self.episode_id!r} does not match the identity ({ident.episode_id!r})"
            )
        if self.seed != ident.seed:
            raise ValueError(f"seed {self.seed} does not match the identity's derived seed {ident.seed}")
        spec = task_spec(ident.task, self.milestone_values, budget=ident.budget)
        if list(self.milestone_values) != list(spec.values()):
            raise ValueError(f"milestone_values must list {list(spec.values())} in order")
        for i, step in enumerate(self.trajectory, start=1):
            if step.index != i:
                raise ValueError(f"trajectory[{i - 1}].index is {step.index}, expected {i}")
        n = len(self.trajectory)
        out = self.outcome
        if out.actions_used != n:
            raise ValueError(f"outcome.actions_used {out.actions_used} != {n} trajectory steps")
        if n > ident.budget:
            raise ValueError(f"{n} actions exceed the budget {ident.budget}")
        done = {m.advancement for m in self.milestones}
        unknown = done - set(self.milestone_values)
        if unknown:
            raise ValueError(f"milestones {sorted(unknown)} are not milestones of task {ident.task.value}")
        for m in self.milestones:
            if m.action_index > n:
                raise ValueError(f"milestone {m.advancement} at action {m.action_index} > {n} actions")
        expected = spec.score(done)
        if out.score != expected:
            raise ValueError(f"outcome.score {out.score} != {expected}, the deepest completed milestone")
        # S_k = score of the milestones seen by action k (advancements are never revoked).
        for k, s_k in enumerate(self.scores()):
            seen_by_k = spec.score(m.advancement for m in self.milestones if m.action_index <= k)
            if s_k != seen_by_k:
                where = "initial_score" if k == 0 else f"trajectory[{k - 1}].score_after"
                raise ValueError(f"{where} is {s_k}, but the milestones seen by action {k} give {seen_by_k}")
        if out.success != (out.score == 100):
            raise ValueError("outcome.success must equal (score == 100)")
        if out.end_reason == EndReason.FINAL_MILESTONE and not out.success:
            raise ValueError("end_reason final_milestone requires success")
        if out.end_reason == EndReason.BUDGET_EXHAUSTED and n != ident.budget:
            raise ValueError(f"end_reason budget_exhausted but {n} of {ident.budget} actions used")
        seen: set[str] = set()
        for e in self.encounters:
            if ident.suite is None:
                raise ValueError(f"encounter {e.rule_id} in a Vanilla episode")
            if e.suite != ident.suite:
                raise ValueError(f"encounter {e.rule_id} does not belong to suite {ident.suite}")
            if e.rule_id in seen:
                raise ValueError(f"rule {e.rule_id} has more than one encounter (only the first counts)")
            seen.add(e.rule_id)
            if e.action_index > n:
                raise ValueError(f"encounter {e.rule_id} at action {e.action_index} > {n} actions")
            if tuple(e.signature) != tuple(self.trajectory[e.action_index - 1].signature):
                raise ValueError(f"encounter {e.rule_id}: signature differs from action {e.action_index}'s σ")
        return self

    def scores(self) -> list[int]:
        """S_0..S_n: the score before any action and after each action."""
        return [self.initial_score] + [s.score_after for s in self.trajectory]


def _migrate_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 → v2: v2 added ``milestone_values`` (v1 records were scored with the default table),
    ``trailing_policy_errors`` (v1 dropped the errors that ended an episode; migrated as empty) and
    ``spawn`` (v1 did not record it; migrated as null)."""
    out = dict(data)
    task = TaskId(out["identity"]["task"])
    out.setdefault("milestone_values", {STORY + k: v for k, v in DEFAULT_MILESTONE_VALUES[task].items()})
    out.setdefault("trailing_policy_errors", [])
    out.setdefault("spawn", None)
    out["schema_version"] = 2
    return out


def _migrate_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2 → v3: v3 added the escape skills (``pillar_up``, ``dig_up``, ``tunnel``), ``go_to`` targets (a block
    or an entity besides a position) and ``blocks_placed`` in outcome reports. Every v2 call is a valid v3
    call and a v2 report placed nothing it listed, so the data stay as they are (``blocks_placed`` defaults
    to empty)."""
    out = dict(data)
    out["schema_version"] = 3
    return out


def _migrate_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v3 → v4: v4 added each action's ``position`` (the player's feet after the call, for the episode
    viewer). v3 records did not record it: it stays absent (null), and the viewer draws no path for them."""
    out = dict(data)
    out["schema_version"] = 4
    return out


#: Migrations from version N to N+1. Adding a schema version = bump SCHEMA_VERSION, add a migration here,
#: add the new schema fingerprint in version.py, regenerate docs/schemas and keep an old-record fixture.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _migrate_v1,
    2: _migrate_v2,
    3: _migrate_v3,
}


def read_record(data: dict[str, Any] | str | bytes) -> EpisodeRecord:
    """Read an episode record of any known schema version, migrating it to the current one.

    Args:
        data: the record as a dict or JSON text.

    Returns:
        The validated current-version record.

    Raises:
        ContractError: not JSON, unknown/future version, or invalid content (message names the field).
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            raise ContractError(f"episode record: not valid JSON at line {err.lineno}: {err.msg}") from err
    if not isinstance(data, dict):
        raise ContractError("episode record: expected a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or version < 1:
        raise ContractError(f"episode record: missing or invalid schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise ContractError(
            f"episode record: schema_version {version} is newer than this code ({SCHEMA_VERSION})"
        )
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version = data["schema_version"]
    try:
        return EpisodeRecord.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in err.errors()
        )
        raise ContractError(f"episode record {data.get('episode_id', '?')}: {problems}") from err


class StudyGrid(BaseModel):
    """A study design that expands deterministically to a list of episode identities.

    Every (world, task, model, configuration, repetition) runs in the Vanilla world (if
    ``include_vanilla``) and in each suite's Mirror copy; each configuration in
    ``disclosed_configurations`` additionally runs with rules disclosed, in Mirror copies only.
    Expansion order: world, task, model, configuration, disclosure (hidden first), suite (Vanilla
    first, then M01..M06), repetition.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    study_seed: int = Field(0, ge=0)
    worlds: list[str] = Field(min_length=1)
    tasks: list[TaskId] = Field(min_length=1)
    models: list[ModelSettings] = Field(min_length=1)
    configurations: list[str] = Field(min_length=1)
    repetitions: int = Field(ge=1)
    suites: list[SuiteId] = Field(default_factory=lambda: list(SUITE_IDS))
    include_vanilla: bool = True
    disclosed_configurations: list[str] = Field(default_factory=lambda: ["react"])
    budget: int | None = Field(None, ge=1, description="Override every task's budget (horizon study: 200).")

    @model_validator(mode="after")
    def _check(self) -> StudyGrid:
        for w in self.worlds:
            if _parse(w).variant is not None:
                raise ValueError(f"worlds: {w!r} must be a Vanilla world id")
        for field in ("worlds", "tasks", "configurations", "suites", "disclosed_configurations"):
            values = getattr(self, field)
            if len(set(values)) != len(values):
                raise ValueError(f"{field}: duplicates in {values}")
        if len({m.name for m in self.models}) != len(self.models):
            raise ValueError("models: duplicate model names")
        if self.disclosed_configurations and not self.suites:
            raise ValueError("disclosed_configurations need at least one suite (disclosure is Mirror-only)")
        return self

    def expand(self) -> list[EpisodeIdentity]:
        """All episode identities of the grid, in the documented order."""
        out: list[EpisodeIdentity] = []
        hidden_suites: list[str | None] = ([None] if self.include_vanilla else []) + list(self.suites)
        for world in self.worlds:
            for task in self.tasks:
                budget = self.budget if self.budget is not None else DEFAULT_BUDGETS[task]
                for model in self.models:
                    for config in self.configurations:
                        conditions = [("hidden", s) for s in hidden_suites]
                        if config in self.disclosed_configurations:
                            conditions += [("disclosed", s) for s in self.suites]
                        for disclosure, suite in conditions:
                            for rep in range(self.repetitions):
                                out.append(
                                    EpisodeIdentity(
                                        world=world,
                                        suite=suite,
                                        task=task,
                                        budget=budget,
                                        agent=config,
                                        model=model,
                                        disclosure=disclosure,
                                        repetition=rep,
                                        study_seed=self.study_seed,
                                    )
                                )
        return out

    def size(self) -> int:
        """Number of episodes :meth:`expand` yields (computed without building them)."""
        per_config = (int(self.include_vanilla) + len(self.suites)) * self.repetitions
        disclosed = sum(1 for c in self.configurations if c in self.disclosed_configurations)
        per_cell = len(self.configurations) * per_config + disclosed * len(self.suites) * self.repetitions
        return len(self.worlds) * len(self.tasks) * len(self.models) * per_cell

    @classmethod
    def main(cls, study_seed: int = 0) -> StudyGrid:
        """The paper's main study: 10 worlds × 3 tasks × 2 models × 6 configurations × 3 reps in Vanilla
        and in each of 6 suites, plus ReAct w/rules in Mirror only: 8,640 episodes."""
        return cls(
            name="main",
            study_seed=study_seed,
            worlds=list(VANILLA_WORLDS),
            tasks=list(TaskId),
            models=[ModelSettings(name="gemini-3.1-flash-lite"), ModelSettings(name="deepseek-v4-flash")],
            configurations=list(AGENT_CONFIGURATIONS),
            repetitions=3,
        )

    @classmethod
    def horizon(cls, study_seed: int = 0) -> StudyGrid:
        """The horizon study's design shape: the main grid with a 200-action cap (SR read at 100/150/200)."""
        return cls.main(study_seed).model_copy(update={"name": "horizon", "budget": 200})

    @classmethod
    def smoke(cls, study_seed: int = 0) -> StudyGrid:
        """A three-episode grid for smoke tests: one world, Iron Armor, an offline scripted policy,
        ReAct in Vanilla, in M01, and in M01 with the rules disclosed."""
        return cls(
            name="smoke",
            study_seed=study_seed,
            worlds=["plains-1"],
            tasks=[TaskId.IRON_ARMOR],
            models=[ModelSettings(name="scripted", temperature=0.0)],
            configurations=["react"],
            repetitions=1,
            suites=["M01"],
        )
