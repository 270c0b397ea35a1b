"""Team episodes (PillagerBench on our stack): identity, seed, blocks, the team episode record, team grids.

Two teams of two players meet in an arena (``mushroom_war`` or ``dash_and_dine``, the ``original`` or the
``mirrored`` variant). A study evaluates one **tested** team system against **opponents** (the built-in
scripted systems, or any other system), from both sides. This module is only the data model and the grid
expansion; nothing here runs an episode (docs/pillagerbench.md says what waits for issue 24).

**Episode id.** ``"tep-"`` + 24 hex digits of SHA-256 over the identity's canonical JSON (as
:class:`~mirrorcraft.contracts.EpisodeIdentity` does with ``"ep-"``), so an infrastructure fault reruns under
the same id in every process.

**Seed.** Derived from names as :func:`~mirrorcraft.contracts.derive_seed` derives a MirrorCraft seed::

    seed = int(sha256(f"{study_seed}_{scenario}_*_{opponent}_{repeat}_{index}").hexdigest(), 16) % 2**32

with ``opponent`` the opponent system's id and ``index`` the episode's place in its block. The ``*`` slot
stands for what must **not** change the randomness: the side the tested system plays, the arena variant and
the tested system itself. So the two sides of a pairing meet the same seeds (the metrics pair them), the
mirrored arena meets the same seeds as the original, and the do-nothing baseline that measures an opponent's
normal score meets exactly the seeds of the episodes whose sabotage it measures.

**Block.** The consecutive episodes of one pairing, side, arena variant and repeat (``block_length``, 5 in
the original) form a block: the system objects live across them (the original's multi-round learning), so its
episodes are not independent and the metrics resample whole blocks. :attr:`TeamEpisodeIdentity.block_id`
names it (the identity without ``block_index``).

**Record.** :class:`TeamEpisodeRecord` is one JSON object per episode, versioned by
:data:`TEAM_SCHEMA_VERSION` (its own line, separate from the MirrorCraft record's ``SCHEMA_VERSION``; the
published team schemas carry both stamps, see :mod:`mirrorcraft.contracts.schemas`).
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mirrorcraft.contracts.canonical import canonical_json, sha256_hex
from mirrorcraft.contracts.episodes import (
    InfrastructureFault,
    ModelSettings,
    PolicyError,
    Usage,
    check_action,
)
from mirrorcraft.contracts.ids import parse_id
from mirrorcraft.contracts.observation import Vec3
from mirrorcraft.contracts.skills import OutcomeReport, Signature, SkillCall
from mirrorcraft.errors import ContractError, RegistrationError

__all__ = [
    "ARENA_VARIANTS",
    "BASELINE_SYSTEMS",
    "BUILTIN_OPPONENTS",
    "NORMAL_SCORE_BASELINE",
    "SCENARIOS",
    "SIDES",
    "TEAM_PLAYERS",
    "TEAM_SCHEMA_FINGERPRINTS",
    "TEAM_SCHEMA_VERSION",
    "AgentFault",
    "AgentTrajectory",
    "ChatMessage",
    "ScoreSample",
    "TeamAction",
    "TeamEndReason",
    "TeamEpisodeIdentity",
    "TeamEpisodeRecord",
    "TeamGrid",
    "TeamOutcome",
    "TeamSystem",
    "derive_team_seed",
    "other_side",
    "read_team_record",
]

TEAM_SCHEMA_VERSION = 3

#: team schema version → SHA-256 over the exported team schema files (``schemas.team_schema_fingerprint``).
#: Changing a team contract means: bump TEAM_SCHEMA_VERSION, add a migration to ``TEAM_MIGRATIONS``, regenerate
#: docs/schemas and record the new fingerprint here.
TEAM_SCHEMA_FINGERPRINTS: dict[int, str] = {
    1: "f751534b03cf3ddd274b34e549c884a8bf1413b30aca55a67c0ea3e7b8fafad5",
    #: 2 (unreleased) also carries the team skills of issue 24 (and issue 25's ``take``) in its skill calls and
    #: reports, the team observation (``team_observation``) and the chat log's ``tick`` and ``translate``
    #: (defaults: records written before them load unchanged).
    2: "74bdc61cf5850989ab52ebdbae310224526f114725ca7e85d1069fdcaade24c5",
    #: 3 (issue 27): each team action's ``position`` (the viewer's four paths); optional (null before).
    3: "dbf0775ffb6f85eed6a4fc126e9cf18c60b231ba98b78a3b4d8833ce0ef375e0",
}

Scenario = Literal["mushroom_war", "dash_and_dine"]
SCENARIOS: tuple[str, ...] = ("mushroom_war", "dash_and_dine")
ArenaVariant = Literal["original", "mirrored"]
ARENA_VARIANTS: tuple[str, ...] = ("original", "mirrored")
Side = Literal["red", "blue"]
SIDES: tuple[str, str] = ("red", "blue")

#: Player names per side (the original's, in both scenarios).
TEAM_PLAYERS: dict[str, tuple[str, str]] = {"red": ("Ryn", "Raze"), "blue": ("Byte", "Blink")}
#: The original's built-in opponents per scenario (shared/spec/pillagerbench.md).
BUILTIN_OPPONENTS: dict[str, tuple[str, ...]] = {
    "mushroom_war": ("passive", "balanced", "aggressive", "slimy"),
    "dash_and_dine": ("berries", "cake_beetroot", "melon_pumpkin", "potato_cookie"),
}
#: The original's baselines (the chain-of-thought agent is an LLM system, not a built-in).
BASELINE_SYSTEMS: tuple[str, ...] = ("do_nothing", "random")
#: The system an opponent's normal score is measured against (its mean score against it, S's baseline).
NORMAL_SCORE_BASELINE = "do_nothing"
DEFAULT_GAME_SECONDS = 120
DEFAULT_BLOCK_LENGTH = 5
SEED_SLOT = "*"


def other_side(side: str) -> Side:
    """``red`` ↔ ``blue``."""
    if side not in SIDES:
        raise ContractError(f"side {side!r}: expected red or blue")
    return "blue" if side == "red" else "red"


def derive_team_seed(study_seed: int, scenario: str, opponent: str, repeat: int, index: int) -> int:
    """``sha256(f"{study_seed}_{scenario}_*_{opponent}_{repeat}_{index}") mod 2**32`` (module docstring)."""
    text = f"{study_seed}_{scenario}_{SEED_SLOT}_{opponent}_{repeat}_{index}"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % 2**32


def _registry_id(value: str) -> str:
    try:
        parse_id(value)
    except RegistrationError as err:
        raise ValueError(str(err)) from None
    return value


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TeamSystem(_Frozen):
    """A team system as an episode identity names it: registry id, settings and (for LLM systems) the model.

    A bare string is accepted where a system is expected (``balanced`` → ``{id: balanced}``), so grids read
    naturally in YAML.
    """

    id: str = Field(description="Team-system registry id, e.g. 'balanced', 'do_nothing', 'tacticrafter'.")
    settings: dict[str, int | float | str | bool] = Field(default_factory=dict)
    model: ModelSettings | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"id": data} if isinstance(data, str) else data

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        return _registry_id(v)

    @property
    def label(self) -> str:
        """Table label: the id, with the model name when there is one (``tacticrafter (model-a)``)."""
        return self.id if self.model is None else f"{self.id} ({self.model.name})"


class TeamEpisodeIdentity(_Frozen):
    """Everything that defines a team episode; its canonical JSON hashes to the episode id."""

    scenario: Scenario
    arena_variant: ArenaVariant = "original"
    tested: TeamSystem = Field(description="The system under evaluation.")
    opponent: TeamSystem
    tested_side: Side = Field(description="The side the tested system plays; the opponent plays the other.")
    repeat: int = Field(ge=0)
    block_index: int = Field(ge=0, description="0-based place of the episode in its block.")
    block_length: int = Field(DEFAULT_BLOCK_LENGTH, ge=1)
    game_seconds: int = Field(DEFAULT_GAME_SECONDS, ge=1, description="Episode length in game seconds.")
    study_seed: int = Field(0, ge=0)

    @model_validator(mode="after")
    def _index(self) -> TeamEpisodeIdentity:
        if self.block_index >= self.block_length:
            raise ValueError(f"block_index {self.block_index} >= block_length {self.block_length}")
        return self

    def canonical(self) -> bytes:
        """Canonical JSON bytes of the identity (the episode id's input)."""
        return canonical_json(self.model_dump(mode="json"))

    @property
    def episode_id(self) -> str:
        """``"tep-"`` + 24 hex digits of SHA-256 over :meth:`canonical`."""
        return "tep-" + sha256_hex(self.canonical())[:24]

    @property
    def seed(self) -> int:
        """The episode seed (module docstring): independent of side, arena variant and tested system."""
        return derive_team_seed(
            self.study_seed, self.scenario, self.opponent.id, self.repeat, self.block_index
        )

    @property
    def block_id(self) -> str:
        """``"blk-"`` + 24 hex digits over the identity without ``block_index``: the episode's block."""
        data = self.model_dump(mode="json")
        data.pop("block_index")
        return "blk-" + sha256_hex(canonical_json(data))[:24]

    @property
    def opponent_side(self) -> Side:
        """The side the opponent plays."""
        return other_side(self.tested_side)

    def system_of(self, side: str) -> TeamSystem:
        """The system playing ``side``."""
        return self.tested if side == self.tested_side else self.opponent

    @property
    def red(self) -> TeamSystem:
        """The system playing red."""
        return self.system_of("red")

    @property
    def blue(self) -> TeamSystem:
        """The system playing blue."""
        return self.system_of("blue")


class ScoreSample(_Frozen):
    """Both teams' scores at the end of game second ``t`` (the judges sample once per game second)."""

    t: int = Field(ge=1)
    red: float
    blue: float


class TeamAction(_Frozen):
    """One skill call of one player, when it started (game seconds since the start) and what it did."""

    index: int = Field(ge=1, description="1-based index in the player's trajectory.")
    t: float = Field(ge=0, description="Game seconds since the episode started, when the call began.")
    call: SkillCall
    signature: Signature
    report: OutcomeReport
    policy_errors: list[PolicyError] = Field(default_factory=list, description="Errors re-asked before it.")
    position: Vec3 | None = Field(
        None,
        description="The player's feet position when the call returned (0.1 block; the viewer's path); null "
        "in records before team schema 3.",
    )

    @model_validator(mode="after")
    def _sig(self) -> TeamAction:
        check_action(self.index, self.call, self.signature, self.report)
        return self


class AgentTrajectory(_Frozen):
    """One player's skill calls in order (the two players of a team act concurrently)."""

    player: str
    side: Side
    actions: list[TeamAction] = Field(default_factory=list)
    trailing_policy_errors: list[PolicyError] = Field(default_factory=list)

    @model_validator(mode="after")
    def _order(self) -> AgentTrajectory:
        if self.player not in TEAM_PLAYERS[self.side]:
            raise ValueError(
                f"player {self.player!r} does not play {self.side} (its players: {TEAM_PLAYERS[self.side]})"
            )
        last = 0.0
        for i, a in enumerate(self.actions, start=1):
            if a.index != i:
                raise ValueError(f"{self.player}: actions[{i - 1}].index is {a.index}, expected {i}")
            if a.t < last:
                raise ValueError(
                    f"{self.player}: action {i} starts at t={a.t} before action {i - 1} (t={last})"
                )
            last = a.t
        return self


class ChatMessage(_Frozen):
    """A chat line: when, who (a player, a judge or the server), to whom (everyone or the sender's team).

    ``tick`` and ``translate`` came later with defaults (records without them stay valid): the game tick since
    the episode's first judge tick, and the vanilla chat type's translation key the line arrived as
    (``chat.type.text``, ``chat.type.team.text``, ``chat.type.announcement``...).
    """

    t: float = Field(ge=0, description="Game seconds since the episode started (0 = before the start).")
    tick: int | None = Field(None, ge=0, description="Game ticks since the episode started.")
    sender: str
    side: Side | None = Field(None, description="The sender's side; null for the server and neutral judges.")
    channel: Literal["all", "team"] = "all"
    text: str
    translate: str | None = Field(None, description="The chat type's translation key the line arrived as.")

    @model_validator(mode="after")
    def _team(self) -> ChatMessage:
        if self.channel == "team" and self.side is None:
            raise ValueError("a team message needs the sender's side")
        return self


class AgentFault(_Frozen):
    """An agent that disconnected, crashed or stopped answering; the episode goes on without it."""

    player: str
    side: Side
    kind: Literal["disconnected", "crashed", "unresponsive"]
    t: float = Field(ge=0)
    message: str = ""


class TeamEndReason(StrEnum):
    TIME_UP = "time_up"
    INFRASTRUCTURE_FAULT = "infrastructure_fault"


class TeamOutcome(_Frozen):
    """The final scores (the last sample) and why the episode ended."""

    red: float
    blue: float
    end_reason: TeamEndReason
    seconds_played: int = Field(ge=0)


class TeamEpisodeRecord(_Frozen):
    """The complete record of one team episode (schema version :data:`TEAM_SCHEMA_VERSION`).

    Checked on load: the id and seed match the identity; score samples are one per game second from 1 with
    no gap; the outcome is the last sample; an episode that ran out of time played all its seconds; a fault
    end has a fault; every trajectory and agent fault names a player of its side once; actions and chat lie
    within the seconds played; each action's σ matches its call.
    """

    schema_version: int = TEAM_SCHEMA_VERSION
    episode_id: str
    seed: int
    identity: TeamEpisodeIdentity
    scores: list[ScoreSample]
    outcome: TeamOutcome
    trajectories: list[AgentTrajectory]
    chat: list[ChatMessage] = Field(default_factory=list)
    agent_faults: list[AgentFault] = Field(default_factory=list)
    infrastructure_faults: list[InfrastructureFault] = Field(default_factory=list)
    usage: dict[Side, Usage] = Field(default_factory=dict)
    wall_time_s: float = Field(0.0, ge=0)
    time_mode: Literal["real_time", "lockstep", "accelerated"] = "real_time"
    judge: Literal["embedded", "rcon"] = "embedded"

    @model_validator(mode="after")
    def _consistent(self) -> TeamEpisodeRecord:
        ident, out = self.identity, self.outcome
        if self.schema_version != TEAM_SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {self.schema_version} != {TEAM_SCHEMA_VERSION}: use read_team_record()"
            )
        if self.episode_id != ident.episode_id:
            raise ValueError(
                f"episode_id {self.episode_id!r} does not match the identity ({ident.episode_id!r})"
            )
        if self.seed != ident.seed:
            raise ValueError(f"seed {self.seed} does not match the identity's derived seed {ident.seed}")
        for k, s in enumerate(self.scores):
            if s.t != k + 1:
                raise ValueError(f"scores[{k}].t is {s.t}, expected {k + 1} (one sample per game second)")
        if len(self.scores) != out.seconds_played:
            raise ValueError(
                f"{len(self.scores)} score samples but outcome.seconds_played {out.seconds_played}"
            )
        if out.seconds_played > ident.game_seconds:
            raise ValueError(
                f"outcome.seconds_played {out.seconds_played} > the episode's {ident.game_seconds}"
            )
        last = self.scores[-1] if self.scores else ScoreSample(t=1, red=0.0, blue=0.0)
        if (out.red, out.blue) != (last.red, last.blue):
            raise ValueError(
                f"outcome ({out.red}, {out.blue}) is not the last sample ({last.red}, {last.blue})"
            )
        if out.end_reason == TeamEndReason.TIME_UP and out.seconds_played != ident.game_seconds:
            raise ValueError(
                f"end_reason time_up but {out.seconds_played} of {ident.game_seconds} seconds played"
            )
        if out.end_reason == TeamEndReason.INFRASTRUCTURE_FAULT and not self.infrastructure_faults:
            raise ValueError("end_reason infrastructure_fault needs an infrastructure fault")
        players = [t.player for t in self.trajectories]
        if len(set(players)) != len(players):
            raise ValueError(f"trajectories: players {players} repeat")
        for traj in self.trajectories:
            for a in traj.actions:
                if a.t > out.seconds_played:
                    raise ValueError(f"{traj.player}: action {a.index} at t={a.t} after the last second")
        for f in self.agent_faults:
            if f.player not in TEAM_PLAYERS[f.side]:
                raise ValueError(f"agent fault: {f.player!r} does not play {f.side}")
        for k, c in enumerate(self.chat):
            if c.t > out.seconds_played + 1:
                raise ValueError(f"chat[{k}] at t={c.t} after the episode ended")
        return self

    def score_of(self, side: str) -> float:
        """A side's final score."""
        return self.outcome.red if side == "red" else self.outcome.blue

    @property
    def tested_score(self) -> float:
        """The tested system's final score (P)."""
        return self.score_of(self.identity.tested_side)

    @property
    def opponent_score(self) -> float:
        """The opponent's final score."""
        return self.score_of(self.identity.opponent_side)

    @property
    def is_fault(self) -> bool:
        """True for an infrastructure-fault record (excluded from metrics, rerun under the same id)."""
        return self.outcome.end_reason == TeamEndReason.INFRASTRUCTURE_FAULT


def _migrate_team_v1(data: dict[str, Any]) -> dict[str, Any]:
    """v1 → v2: the skill contracts it embeds gained the escape skills, ``go_to`` targets and
    ``blocks_placed`` (MirrorCraft schema 3); every v1 call and report is valid as it is."""
    return dict(data) | {"schema_version": 2}


def _migrate_team_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v2 → v3: v3 added each action's ``position`` (the episode viewer's paths); v2 records did not record
    it, so it stays null."""
    return dict(data) | {"schema_version": 3}


#: Team record migrations from version N to N+1.
TEAM_MIGRATIONS: dict[int, Any] = {1: _migrate_team_v1, 2: _migrate_team_v2}


def read_team_record(data: dict[str, Any] | str | bytes) -> TeamEpisodeRecord:
    """Read a team episode record of any known schema version.

    Raises:
        ContractError: not JSON, unknown/future version, or invalid content (the message names the field).
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            raise ContractError(
                f"team episode record: not valid JSON at line {err.lineno}: {err.msg}"
            ) from err
    if not isinstance(data, dict):
        raise ContractError("team episode record: expected a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or version < 1:
        raise ContractError(f"team episode record: missing or invalid schema_version {version!r}")
    if version > TEAM_SCHEMA_VERSION:
        raise ContractError(
            f"team episode record: schema_version {version} is newer than this code ({TEAM_SCHEMA_VERSION})"
        )
    while version < TEAM_SCHEMA_VERSION:
        data = TEAM_MIGRATIONS[version](data)
        version = data["schema_version"]
    try:
        return TeamEpisodeRecord.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {str(e['msg']).removeprefix('Value error, ')}"
            for e in err.errors()
        )
        raise ContractError(f"team episode record {data.get('episode_id', '?')}: {problems}") from err


class TeamGrid(_Frozen):
    """A team study design that expands deterministically to team episode identities.

    For every scenario, tested system, opponent, arena variant, side, repeat and block index one episode
    (expansion in that order, so a block's episodes are consecutive). ``baselines`` adds the
    :data:`NORMAL_SCORE_BASELINE` system as a tested system (unless it already is one): its episodes measure
    each opponent's normal score on the same seeds, per side and arena variant (the sabotage metric S needs
    them). ``opponents`` defaults to the original's four built-ins of each listed scenario.
    """

    name: str = Field(min_length=1)
    study_seed: int = Field(0, ge=0)
    scenarios: list[Scenario] = Field(min_length=1)
    systems: list[TeamSystem] = Field(min_length=1, description="The tested systems.")
    opponents: dict[Scenario, list[TeamSystem]] = Field(default_factory=dict)
    arena_variants: list[ArenaVariant] = Field(default_factory=lambda: ["original"])
    sides: list[Side] = Field(
        default_factory=lambda: ["red", "blue"], description="The tested system's sides."
    )
    repeats: int = Field(3, ge=1)
    block_length: int = Field(DEFAULT_BLOCK_LENGTH, ge=1)
    game_seconds: int = Field(DEFAULT_GAME_SECONDS, ge=1)
    baselines: bool = True

    @model_validator(mode="before")
    @classmethod
    def _default_opponents(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("opponents") and isinstance(data.get("scenarios"), list):
            data = dict(data)
            data["opponents"] = {
                s: list(BUILTIN_OPPONENTS.get(s, ())) for s in data["scenarios"] if isinstance(s, str)
            }
        return data

    @model_validator(mode="after")
    def _check(self) -> TeamGrid:
        for field in ("scenarios", "arena_variants", "sides"):
            values = getattr(self, field)
            if len(set(values)) != len(values):
                raise ValueError(f"{field}: duplicates in {values}")
        labels = [s.label for s in self.systems]
        if len(set(labels)) != len(labels):
            raise ValueError(f"systems: duplicates in {labels}")
        extra = sorted(set(self.opponents) - set(self.scenarios))
        if extra:
            raise ValueError(f"opponents: {extra} are not in scenarios")
        for s in self.scenarios:
            opp = self.opponents.get(s, [])
            if not opp:
                raise ValueError(f"opponents: no opponent for scenario {s}")
            ids = [o.label for o in opp]
            if len(set(ids)) != len(ids):
                raise ValueError(f"opponents.{s}: duplicates in {ids}")
        return self

    def tested_systems(self) -> list[TeamSystem]:
        """The tested systems, plus the normal-score baseline when ``baselines`` is set."""
        out = list(self.systems)
        if self.baselines and NORMAL_SCORE_BASELINE not in [
            s.id for s in out if not s.settings and s.model is None
        ]:
            out.append(TeamSystem(id=NORMAL_SCORE_BASELINE))
        return out

    def expand(self) -> list[TeamEpisodeIdentity]:
        """All episode identities, in the documented order (a block's episodes are consecutive)."""
        out: list[TeamEpisodeIdentity] = []
        for scenario in self.scenarios:
            for system in self.tested_systems():
                for opponent in self.opponents[scenario]:
                    for variant in self.arena_variants:
                        for side in self.sides:
                            for repeat in range(self.repeats):
                                for index in range(self.block_length):
                                    out.append(
                                        TeamEpisodeIdentity(
                                            scenario=scenario,
                                            arena_variant=variant,
                                            tested=system,
                                            opponent=opponent,
                                            tested_side=side,
                                            repeat=repeat,
                                            block_index=index,
                                            block_length=self.block_length,
                                            game_seconds=self.game_seconds,
                                            study_seed=self.study_seed,
                                        )
                                    )
        return out

    def blocks(self) -> list[list[TeamEpisodeIdentity]]:
        """The expansion cut into blocks (each a list of ``block_length`` consecutive identities)."""
        ids = self.expand()
        return [ids[i : i + self.block_length] for i in range(0, len(ids), self.block_length)]

    def size(self) -> int:
        """Number of episodes :meth:`expand` yields (computed without building them)."""
        per_pairing = len(self.arena_variants) * len(self.sides) * self.repeats * self.block_length
        n_systems = len(self.tested_systems())
        return sum(n_systems * len(self.opponents[s]) * per_pairing for s in self.scenarios)

    @classmethod
    def pillagerbench(cls, systems: list[str | TeamSystem] | None = None, study_seed: int = 0) -> TeamGrid:
        """The original's shape, side-balanced: for each scenario, each built-in opponent × 5 consecutive
        episodes × 3 repeats for the tested system (60 per scenario in the original, which always plays red),
        doubled by side (120), on the original arena, plus the do-nothing baseline's episodes for S.

        The default tested system is the ``random`` baseline; a YAML grid names others (docs/pillagerbench.md).
        """
        return cls.model_validate(
            {
                "name": "pillagerbench",
                "study_seed": study_seed,
                "scenarios": list(SCENARIOS),
                "systems": list(systems) if systems else ["random"],
            }
        )


#: The manifest file of a team study's run folder (``OUT/team_study.json``): how ``report`` tells a team run.
TEAM_STUDY_MANIFEST = "team_study.json"


class TeamStudyManifest(_Frozen):
    """What a team study's run folder was started with: the resolved grid and a digest of its episode ids.

    Written once, before the first episode; a rerun or ``--resume`` into the same folder must bring the same
    grid (the ids follow from it), and ``report RUN_DIR`` recognises a team run by this file. Not part of the
    team record schemas (no fingerprint change): a run-folder file, like the MirrorCraft ``grid.json``.
    """

    kind: Literal["team_study"] = "team_study"
    team_schema_version: int = TEAM_SCHEMA_VERSION
    grid: TeamGrid
    episodes: int = Field(ge=1)
    blocks: int = Field(ge=1)
    episode_ids_sha256: str = Field(
        description="SHA-256 over the expanded episode ids, one per line, in order."
    )

    @classmethod
    def of(cls, grid: TeamGrid) -> TeamStudyManifest:
        """The manifest of ``grid`` (its expansion's size, block count and id digest)."""
        ids = [i.episode_id for i in grid.expand()]
        return cls(
            grid=grid,
            episodes=len(ids),
            blocks=len(ids) // grid.block_length,
            episode_ids_sha256=sha256_hex("\n".join(ids).encode("utf-8")),
        )
