"""Typed command objects: what the parser produces and the executor runs.

Why typed objects rather than executing while parsing (as Brigadier does): a parsed command can be
inspected, logged and tested without a game, and the same object runs against any
:class:`~mirrorcraft.server.commands.host.CommandHost`. Field names follow vanilla's argument names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mirrorcraft.server.commands.selectors import Selector


@dataclass(frozen=True, slots=True)
class Coord:
    """One world coordinate: absolute, or relative (``~``) to the source position."""

    value: float
    relative: bool = False

    def resolve(self, origin: float) -> float:
        return origin + self.value if self.relative else self.value


@dataclass(frozen=True, slots=True)
class Position:
    """Three coordinates (``Vec3Argument`` / ``BlockPosArgument``)."""

    x: Coord
    y: Coord
    z: Coord

    def resolve(self, origin: tuple[float, float, float]) -> tuple[float, float, float]:
        return (self.x.resolve(origin[0]), self.y.resolve(origin[1]), self.z.resolve(origin[2]))

    def block(self, origin: tuple[float, float, float]) -> tuple[int, int, int]:
        x, y, z = self.resolve(origin)
        return (math.floor(x), math.floor(y), math.floor(z))


@dataclass(frozen=True, slots=True)
class BlockState:
    """A block id with explicitly given properties (``oak_log[axis=y]``)."""

    block: str
    properties: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Give:
    targets: Selector
    item: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Clear:
    targets: Selector | None = None
    item: str | None = None
    max_count: int = -1


@dataclass(frozen=True, slots=True)
class Teleport:
    """``tp``: ``targets`` None = the source itself; exactly one of ``destination`` / ``location``."""

    targets: Selector | None
    destination: Selector | None = None
    location: Position | None = None
    rotation: tuple[Coord, Coord] | None = None


@dataclass(frozen=True, slots=True)
class SetBlock:
    pos: Position
    block: BlockState
    mode: str = "replace"


@dataclass(frozen=True, slots=True)
class Fill:
    start: Position
    end: Position
    block: BlockState
    mode: str = "replace"
    filter: BlockState | None = None


@dataclass(frozen=True, slots=True)
class Kill:
    targets: Selector | None = None


@dataclass(frozen=True, slots=True)
class GameModeSet:
    mode: str
    targets: Selector | None = None


@dataclass(frozen=True, slots=True)
class EffectGive:
    targets: Selector
    effect: str
    seconds: int | None = None
    amplifier: int = 0
    hide_particles: bool = False


@dataclass(frozen=True, slots=True)
class EffectClear:
    targets: Selector | None = None
    effect: str | None = None


@dataclass(frozen=True, slots=True)
class Experience:
    """``xp add|set|query``; ``amount`` is None for ``query``."""

    action: str
    targets: Selector
    amount: int | None
    unit: str = "points"


@dataclass(frozen=True, slots=True)
class TimeSet:
    ticks: int


@dataclass(frozen=True, slots=True)
class TimeAdd:
    ticks: int


@dataclass(frozen=True, slots=True)
class TimeQuery:
    what: str


@dataclass(frozen=True, slots=True)
class WeatherSet:
    weather: str
    seconds: int | None = None


@dataclass(frozen=True, slots=True)
class GameRule:
    """``gamerule <rule> [value]``: ``value`` None queries."""

    rule: str
    value: bool | int | None = None


@dataclass(frozen=True, slots=True)
class DifficultyCmd:
    """``difficulty [level]``: ``level`` None queries."""

    level: str | None = None


@dataclass(frozen=True, slots=True)
class AdvancementCmd:
    """``advancement grant|revoke <targets> only|from|until|through|everything [<adv> [criterion]]``."""

    action: str
    targets: Selector
    mode: str
    advancement: str | None = None
    criterion: str | None = None


@dataclass(frozen=True, slots=True)
class Condition:
    """One ``execute`` step: ``if``/``unless entity <sel>`` filters, ``as``/``at <sel>`` and ``positioned as
    <sel>`` (kind ``positioned_as``) fork the source."""

    kind: str
    selector: Selector


@dataclass(frozen=True, slots=True)
class InDimension:
    """``execute in <dimension>``: the rest runs in that level (unknown: ``argument.dimension.invalid``)."""

    dimension: str


@dataclass(frozen=True, slots=True)
class Positioned:
    """``execute positioned <pos>``: the rest runs at ``pos`` (relative to the current position)."""

    pos: Position


@dataclass(frozen=True, slots=True)
class BlockCondition:
    """``if|unless block <pos> <block>``: the block at ``pos`` is ``block`` with the given properties."""

    negate: bool
    pos: Position
    block: BlockState


@dataclass(frozen=True, slots=True)
class ScoreCondition:
    """``if|unless score <target> <objective> (<|<=|=|>|>= <source> <sourceObjective> | matches <range>)``.

    ``op`` is the comparison (``matches`` with ``low``/``high`` bounds, ``None`` = open)."""

    negate: bool
    target: ScoreHolders
    objective: str
    op: str
    source: ScoreHolders | None = None
    source_objective: str | None = None
    low: int | None = None
    high: int | None = None


@dataclass(frozen=True, slots=True)
class Store:
    """``execute store result|success score <targets> <objective>``: after the command, its result (or 1/0
    for success) is written to each target's score."""

    what: str
    targets: ScoreHolders
    objective: str


ExecuteStep = Condition | InDimension | Positioned | BlockCondition | ScoreCondition | Store


@dataclass(frozen=True, slots=True)
class EntityTest:
    """The terminal ``execute if|unless entity <sel>`` (replies ``Test passed[, count: n]``)."""

    negate: bool
    selector: Selector


@dataclass(frozen=True, slots=True)
class ConditionTest:
    """The terminal ``execute if|unless block ...`` / ``score ...`` (replies ``Test passed`` or fails)."""

    condition: BlockCondition | ScoreCondition


@dataclass(frozen=True, slots=True)
class Execute:
    steps: tuple[ExecuteStep, ...]
    run: object


@dataclass(frozen=True, slots=True)
class Tellraw:
    """``tellraw <targets> <message>``: the component as system chat to each target, no reply."""

    targets: Selector
    message: dict


@dataclass(frozen=True, slots=True)
class Title:
    """``title <targets> clear|reset|title|subtitle|actionbar <title>|times <fadeIn> <stay> <fadeOut>``."""

    targets: Selector
    action: str
    message: dict | None = None
    times: tuple[int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class Message:
    """``msg``/``tell``/``w <targets> <message>``: a private message (``commands.message.display.*``)."""

    targets: Selector
    message: Say


@dataclass(frozen=True, slots=True)
class Emote:
    """``me <action>``: ``* <source> <action>`` to everyone (``chat.type.emote``)."""

    action: Say


@dataclass(frozen=True, slots=True)
class OpCmd:
    """``op <targets>`` / ``deop <targets>``: ``names`` are the typed profile names or a selector."""

    action: str
    selector: Selector | None = None
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DefaultGameMode:
    """``defaultgamemode <mode>``."""

    mode: str


@dataclass(frozen=True, slots=True)
class FunctionCmd:
    """``function <name>``: run a datapack function's commands (function tags ``#...`` are not read)."""

    name: str


@dataclass(frozen=True, slots=True)
class Say:
    """``say <message>``: ``selectors`` are the ``(start, end, selector)`` spans of the message that
    vanilla's ``MessageArgument`` resolves to entity names when the message is sent."""

    message: str
    selectors: tuple[tuple[int, int, Selector], ...] = ()


@dataclass(frozen=True, slots=True)
class ListPlayers:
    uuids: bool = False


@dataclass(frozen=True, slots=True)
class SaveAll:
    flush: bool = False


@dataclass(frozen=True, slots=True)
class Stop:
    pass


@dataclass(frozen=True, slots=True)
class ScoreHolders:
    """A score-holder argument: ``*`` (every tracked holder), a selector, or a literal name."""

    wildcard: bool = False
    selector: Selector | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ObjectivesAdd:
    name: str
    criterion: str
    display_name: str | None = None


@dataclass(frozen=True, slots=True)
class ObjectivesRemove:
    name: str


@dataclass(frozen=True, slots=True)
class ObjectivesList:
    pass


@dataclass(frozen=True, slots=True)
class PlayersScore:
    """``scoreboard players set|add|remove <targets> <objective> <score>``."""

    action: str
    targets: ScoreHolders
    objective: str
    score: int


@dataclass(frozen=True, slots=True)
class PlayersGet:
    target: ScoreHolders
    objective: str


@dataclass(frozen=True, slots=True)
class PlayersReset:
    targets: ScoreHolders
    objective: str | None = None


@dataclass(frozen=True, slots=True)
class PlayersList:
    target: ScoreHolders | None = None


@dataclass(frozen=True, slots=True)
class ObjectivesModify:
    """``scoreboard objectives modify <objective> displayname <displayName>|rendertype integer|hearts``."""

    objective: str
    option: str
    value: str


@dataclass(frozen=True, slots=True)
class ObjectivesSetDisplay:
    """``scoreboard objectives setdisplay <slot> [<objective>]`` (no objective: clear the slot)."""

    slot: int
    objective: str | None = None


@dataclass(frozen=True, slots=True)
class TeamAdd:
    team: str
    display_name: dict | None = None  # a text component (TeamCommand: the name as literal text if absent)


@dataclass(frozen=True, slots=True)
class TeamRemove:
    team: str


@dataclass(frozen=True, slots=True)
class TeamEmpty:
    team: str


@dataclass(frozen=True, slots=True)
class TeamJoin:
    team: str
    members: ScoreHolders | None = None  # None: the source entity


@dataclass(frozen=True, slots=True)
class TeamLeave:
    members: ScoreHolders


@dataclass(frozen=True, slots=True)
class TeamList:
    team: str | None = None


@dataclass(frozen=True, slots=True)
class TeamModify:
    """``team modify <team> <option> <value>``: ``value`` is a component (displayName, prefix, suffix), a
    colour name, a boolean (friendlyFire, seeFriendlyInvisibles) or a visibility / collision rule name."""

    team: str
    option: str
    value: object


@dataclass(frozen=True, slots=True)
class TeamMsg:
    """``teammsg <message>`` / ``tm <message>``."""

    message: Say


Command = (
    Give
    | Clear
    | Teleport
    | SetBlock
    | Fill
    | Kill
    | GameModeSet
    | EffectGive
    | EffectClear
    | Experience
    | TimeSet
    | TimeAdd
    | TimeQuery
    | WeatherSet
    | GameRule
    | DifficultyCmd
    | AdvancementCmd
    | Execute
    | EntityTest
    | ConditionTest
    | Tellraw
    | Title
    | Message
    | Emote
    | OpCmd
    | DefaultGameMode
    | FunctionCmd
    | Say
    | ListPlayers
    | SaveAll
    | Stop
    | ObjectivesAdd
    | ObjectivesRemove
    | ObjectivesList
    | PlayersScore
    | PlayersGet
    | PlayersReset
    | PlayersList
    | ObjectivesSetDisplay
    | ObjectivesModify
    | TeamAdd
    | TeamRemove
    | TeamEmpty
    | TeamJoin
    | TeamLeave
    | TeamList
    | TeamModify
    | TeamMsg
)
