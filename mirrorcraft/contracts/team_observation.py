"""The team observation (PillagerBench): what one player of a team system is shown when it is free to act.

It is the MirrorCraft observation's player part (position, survival state, equipment, inventory, nearby blocks,
entities and dropped items, the latest action result, the bounded verified effects and failure constraints,
the skills offered) plus what team play adds:

* **team**: the player's side and its team mate;
* **sidebar**: the objective the scoreboard sidebar shows this player — its title and its scores in vanilla's
  order, highest first — exactly as the body's scoreboard module rebuilt it from the server's
  ``scoreboard_objective`` / ``scoreboard_score`` / ``scoreboard_display_objective`` / ``teams`` packets
  (:mod:`mirrorcraft.mcproto_body.scoreboard`); ``None`` when nothing is on the sidebar;
* **chat**: the most recent chat lines the player received (players' public chat and its own team's chat,
  as the body's chat module parsed them: :mod:`mirrorcraft.mcproto_body.chat`), oldest first, with the game
  second of the episode each arrived in; system lines (command replies, joins) are left out;
* **time left**: game seconds until the episode ends, **only** when the system's setting
  ``show_time_left`` is true (:data:`SHOW_TIME_LEFT`; default off: the original does not tell its agents the
  episode length). Otherwise the field is ``None``.

**What may never appear.** No field carries the judges' rules (food values, lock-in, regrowth chances), the
arena's identity (scenario variant, original or mirrored, the seed) or the episode length (unless the
documented setting says so, as time left). The scenario's public description (areas, farms, judge players)
is the briefing's, given once before the episode. :func:`serialize_team_observation` canonicalizes like the
MirrorCraft observation and refuses text outside the chat that names a variant or the ``mirrorcraft``
namespace (:func:`find_team_leaks`; the chat is the players' own words and is not checked).

Version: the team observation belongs to the team contracts' version line
(:data:`~mirrorcraft.contracts.teams.TEAM_SCHEMA_VERSION`, ``docs/schemas/team_observation.schema.json``);
every observation carries it in ``schema_version``.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mirrorcraft.contracts.canonical import canonical_json
from mirrorcraft.contracts.observation import (
    DEFAULT_BOUNDS,
    ActionResult,
    DroppedItem,
    Equipment,
    FailureConstraint,
    NearbyBlock,
    NearbyEntity,
    ObservationBounds,
    SurvivalState,
    Vec3,
    VerifiedEffect,
    find_leaks,
)
from mirrorcraft.contracts.skills import SKILL_NAMES, ItemStack
from mirrorcraft.contracts.teams import TEAM_PLAYERS, TEAM_SCHEMA_VERSION, Side
from mirrorcraft.errors import ContractError

__all__ = [
    "MAX_CHAT_LINES",
    "SHOW_TIME_LEFT",
    "ChatView",
    "Sidebar",
    "SidebarScore",
    "TeamObservation",
    "find_team_leaks",
    "serialize_team_observation",
    "shows_time_left",
]

#: The team-system setting that shows the time left (``TeamSystem.settings``; default false).
SHOW_TIME_LEFT = "show_time_left"
#: Most recent chat lines shown (older ones stay in the episode record's chat log).
MAX_CHAT_LINES = 10


def shows_time_left(settings: dict[str, object]) -> bool:
    """True when a system's settings switch the time left on (``show_time_left: true``)."""
    value = settings.get(SHOW_TIME_LEFT, False)
    if not isinstance(value, bool):
        raise ContractError(f"setting {SHOW_TIME_LEFT}: expected true or false, got {value!r}")
    return value


class _M(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SidebarScore(_M):
    """One line of the sidebar: a score holder (a player or a fake holder such as ``Red``) and its score."""

    holder: str
    score: int


class Sidebar(_M):
    """The objective on the player's sidebar, as the client shows it (at most 15 lines, highest first)."""

    title: str
    scores: list[SidebarScore] = Field(max_length=15)


class ChatView(_M):
    """One chat line the player received."""

    t: int = Field(ge=0, description="Game second of the episode it arrived in (0 = before the start).")
    sender: str
    channel: Literal["all", "team"] = Field(description="'all': public chat; 'team': the player's team chat.")
    text: str


class TeamObservation(_M):
    """Everything one player of a team system is shown at one decision point (module docstring)."""

    schema_version: Literal[TEAM_SCHEMA_VERSION] = TEAM_SCHEMA_VERSION  # type: ignore[valid-type]
    player: str
    side: Side
    teammate: str
    position: Vec3
    survival: SurvivalState
    equipment: Equipment
    inventory: list[ItemStack]
    nearby_blocks: list[NearbyBlock]
    nearby_entities: list[NearbyEntity]
    dropped_items: list[DroppedItem]
    last_result: ActionResult | None
    effects: list[VerifiedEffect]
    skills: list[str]
    failure_constraints: list[FailureConstraint]
    sidebar: Sidebar | None = None
    chat: list[ChatView] = Field(default_factory=list, max_length=MAX_CHAT_LINES)
    time_left_s: float | None = Field(
        None, ge=0, description="Game seconds left; only with the setting show_time_left (else null)."
    )

    @model_validator(mode="after")
    def _team(self) -> TeamObservation:
        players = TEAM_PLAYERS[self.side]
        if self.player not in players or self.teammate not in players or self.player == self.teammate:
            raise ValueError(
                f"{self.player} and {self.teammate} are not the two players of {self.side} {players}"
            )
        unknown = sorted(set(self.skills) - set(SKILL_NAMES))
        if unknown:
            raise ValueError(f"skills: unknown skills {unknown}")
        return self

    def count(self, item: str) -> int:
        """How many of ``item`` (a namespaced id) the player holds."""
        return sum(s.count for s in self.inventory if s.item == item)


_TEAM_LEAKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("arena variant", re.compile(r"\bmirrored\b|\barena_variant\b", re.IGNORECASE)),
    ("episode length", re.compile(r"\bgame_seconds\b")),
)


def find_team_leaks(text: str) -> list[str]:
    """Leak kinds in ``text``: the MirrorCraft ones (:func:`~mirrorcraft.contracts.find_leaks`) plus the arena
    variant and the episode length's field name. A guard, not a proof."""
    return find_leaks(text) + [name for name, pattern in _TEAM_LEAKS if pattern.search(text)]


def serialize_team_observation(obs: TeamObservation, bounds: ObservationBounds = DEFAULT_BOUNDS) -> bytes:
    """Canonical bytes of a team observation (the MirrorCraft observation's canonical rules for its player
    part: rounded, sorted nearest first, bounded), leak-checked.

    Raises:
        ContractError: inventory overflow, or text that would leak rules, identity or the episode length.
    """
    from mirrorcraft.contracts.observation import Observation, TaskView, canonicalize

    # canonicalize the shared part through the MirrorCraft observation (one set of rules for both)
    task = TaskView(task="diamond", title="", objective="", milestones=[], next_milestone=None,
                    actions_used=0, budget=1)  # fmt: skip  # a placeholder, dropped again below
    shared = {k: getattr(obs, k) for k in Observation.model_fields if k not in ("task", "biome")}
    canon = canonicalize(Observation(task=task, biome="minecraft:plains", **shared), bounds)
    data = obs.model_copy(update={k: getattr(canon, k) for k in shared}).model_dump(mode="json")
    text = canonical_json(data)
    # the chat is the players' own free text (as a quantity is theirs): checked is everything else
    leaks = find_team_leaks(canonical_json({k: v for k, v in data.items() if k != "chat"}).decode("utf-8"))
    if leaks:
        raise ContractError(f"team observation would leak {', '.join(leaks)} to the agent")
    return text
