"""Entity selectors (``@a @p @s @e @r``, player names, UUIDs) and number ranges, vanilla 1.19.2 syntax.

Why: the benchmark's milestone query is ``execute if entity @p[advancements={...}]``, and every control
command targets players by selector, so selectors must parse (and fail) exactly as vanilla's
``EntitySelectorParser`` does. Supported options: ``name type distance x y z dx dy dz limit sort gamemode
level tag team scores advancements``. ``nbt``, ``predicate``, ``x_rotation``, ``y_rotation`` are
vanilla options MirrorCraft does not evaluate: they fail with a clear "not supported" message instead of
being silently ignored (docs/fidelity.md).
"""

from __future__ import annotations

import math
import re
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass, field

from mirrorcraft.server.commands.host import GAME_MODES, CommandHost, CommandSource, EntityRef
from mirrorcraft.server.commands.reader import CommandSyntaxError, StringReader
from mirrorcraft.server.facts import ITEM_TYPE

UNSUPPORTED_OPTIONS = ("nbt", "predicate", "x_rotation", "y_rotation")
KNOWN_OPTIONS = (
    "name",
    "distance",
    "level",
    "x",
    "y",
    "z",
    "dx",
    "dy",
    "dz",
    "x_rotation",
    "y_rotation",
    "limit",
    "sort",
    "gamemode",
    "team",
    "type",
    "tag",
    "nbt",
    "scores",
    "advancements",
    "predicate",
)
_UUID_RE = re.compile(
    r"^[0-9a-fA-F]{1,8}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,4}-[0-9a-fA-F]{1,12}$"
)


@dataclass(frozen=True, slots=True)
class Range:
    """A ``min..max`` bound (``MinMaxBounds``); either end may be open."""

    min: float | None = None
    max: float | None = None

    def matches(self, value: float) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)


def read_range(reader: StringReader, *, ints: bool) -> Range:
    """Parse ``5``, ``1..``, ``..3``, ``1..3`` (vanilla ``MinMaxBounds.fromReader``: every error points at
    the start of the range)."""
    start = reader.cursor
    try:
        if not reader.can_read():
            raise reader.error("argument.range.empty")
        lo = _read_bound(reader, ints)
        if reader.can_read(2) and reader.peek() == "." and reader.peek(1) == ".":
            reader.cursor += 2
            hi = _read_bound(reader, ints)
            if lo is None and hi is None:
                raise reader.error("argument.range.empty")
        else:
            hi = lo
        if lo is None and hi is None:
            raise reader.error("argument.range.empty")
        if lo is not None and hi is not None and lo > hi:
            raise reader.error("argument.range.swapped")
    except CommandSyntaxError as err:
        reader.cursor = start
        err.cursor = start
        raise
    return Range(lo, hi)


def _read_bound(reader: StringReader, ints: bool) -> float | None:
    start = reader.cursor
    while reader.can_read() and (
        reader.peek().isdigit()
        or reader.peek() == "-"
        or (reader.peek() == "." and not (reader.can_read(2) and reader.peek(1) == "."))
    ):
        reader.skip()
    text = reader.string[start : reader.cursor]
    if not text:
        return None
    try:
        return int(text) if ints else float(text)
    except ValueError:
        # Integer.parseInt / Double.parseDouble failed: readerInvalidInt / readerInvalidDouble
        raise reader.error("parsing.int.invalid" if ints else "parsing.double.invalid", text) from None


@dataclass(frozen=True)
class Selector:
    """A parsed entity argument.

    ``kind`` is ``@a @p @s @e @r``, ``name`` (a player name) or ``uuid``. ``text`` is the argument as
    typed. ``limit`` is None for unlimited; ``players_only`` is True when only players can match.
    """

    kind: str
    text: str
    limit: int | None = None
    sort: str = "arbitrary"
    players_only: bool = True
    player_name: str | None = None
    uuid: str | None = None
    names: tuple[tuple[str, bool], ...] = ()
    types: tuple[tuple[str, bool], ...] = ()
    distance: Range | None = None
    level: Range | None = None
    gamemodes: tuple[tuple[str, bool], ...] = ()
    tags: tuple[tuple[str, bool], ...] = ()
    teams: tuple[tuple[str, bool], ...] = ()
    x: float | None = None
    y: float | None = None
    z: float | None = None
    dx: float | None = None
    dy: float | None = None
    dz: float | None = None
    scores: tuple[tuple[str, Range], ...] = ()
    advancements: tuple[tuple[str, bool | tuple[tuple[str, bool], ...]], ...] = ()
    current_entity: bool = False

    @property
    def single(self) -> bool:
        return self.limit == 1

    def resolve(
        self,
        host: CommandHost,
        source: CommandSource,
        scores: Callable[[str, str], int | None] | None = None,
        team_of: Callable[[str], str | None] | None = None,
    ) -> list[EntityRef]:
        """The entities this selector picks, vanilla order (sort, then limit).

        Args:
            host: the game.
            source: the command source (position for ``@p``/``distance``; entity for ``@s``).
            scores: ``(holder, objective) -> score or None`` for the ``scores`` option.
            team_of: ``holder -> team name or None`` for the ``team`` option.
        """
        if self.kind == "name":
            return [p for p in host.players() if p.name == self.player_name]
        if self.kind == "uuid":
            return [e for e in host.entities() if e.uuid.lower() == (self.uuid or "").lower()]
        if self.current_entity:
            candidates = [source.entity] if source.entity is not None else []
        elif self.players_only:
            candidates = list(host.players())
        else:
            candidates = list(host.entities())
        if self.kind == "@e":  # only @e adds the Entity::isAlive predicate (EntitySelectorParser)
            candidates = [e for e in candidates if e.alive]
        origin = (
            self.x if self.x is not None else source.position[0],
            self.y if self.y is not None else source.position[1],
            self.z if self.z is not None else source.position[2],
        )
        out = [e for e in candidates if self._matches(e, origin, host, scores, team_of)]
        if self.sort == "nearest":
            out.sort(key=lambda e: _dist2(e.position, origin))
        elif self.sort == "furthest":
            out.sort(key=lambda e: -_dist2(e.position, origin))
        elif self.sort == "random":
            shuffled: list[EntityRef] = []
            pool = list(out)
            while pool:
                shuffled.append(pool.pop(host.random_int(len(pool))))
            out = shuffled
        if self.limit is not None:
            out = out[: self.limit]
        return out

    def _matches(
        self,
        e: EntityRef,
        origin: tuple[float, float, float],
        host: CommandHost,
        scores: Callable[[str, str], int | None] | None,
        team_of: Callable[[str], str | None] | None = None,
    ) -> bool:
        for name, neg in self.names:
            if (e.name == name) == neg:
                return False
        for typ, neg in self.types:
            if (e.type == typ) == neg:
                return False
        for mode, neg in self.gamemodes:
            if (e.game_mode == mode) == neg:
                return False
        for tag, neg in self.tags:
            has = (tag in e.tags) if tag else bool(e.tags)
            if has == neg:
                return False
        if self.teams:
            # EntitySelectorOptions "team": living entities only; "" is no team (team=! any team)
            if e.type == ITEM_TYPE:
                return False
            team = (team_of(e.name if e.is_player else e.uuid) if team_of is not None else None) or ""
            for name, neg in self.teams:
                if (team == name) == neg:
                    return False
        if self.level is not None and (e.xp_level is None or not self.level.matches(e.xp_level)):
            return False
        if self.distance is not None and not self.distance.matches(math.sqrt(_dist2(e.position, origin))):
            return False
        if any(d is not None for d in (self.dx, self.dy, self.dz)):
            lo = origin
            hi = (origin[0] + (self.dx or 0), origin[1] + (self.dy or 0), origin[2] + (self.dz or 0))
            box_lo = tuple(min(a, b) for a, b in zip(lo, hi, strict=True))
            box_hi = tuple(max(a, b) + 1 for a, b in zip(lo, hi, strict=True))
            # Vanilla tests the entity's bounding box; MirrorCraft tests its feet position.
            if not all(box_lo[i] <= e.position[i] <= box_hi[i] for i in range(3)):
                return False
        if self.scores:
            holder = e.name if e.is_player else e.uuid
            for objective, rng in self.scores:
                value = scores(holder, objective) if scores is not None else None
                if value is None or not rng.matches(value):
                    return False
        if self.advancements:
            if not e.is_player:
                return False
            table = host.advancements()
            for adv, want in self.advancements:
                info = table.get(adv)
                done = host.advancement_criteria(e, adv)
                if isinstance(want, bool):
                    complete = info is not None and info.is_done(done)
                    if complete != want:
                        return False
                else:
                    for criterion, cwant in want:
                        if (criterion in done) != cwant:
                            return False
        return True


def _dist2(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2


@dataclass
class _Builder:
    kind: str
    start: int
    limit: int | None = None
    sort: str = "arbitrary"
    players_only: bool = True
    current_entity: bool = False
    type_limited: bool = False
    sorted_: bool = False
    opts: dict[str, object] = field(default_factory=dict)
    names: list[tuple[str, bool]] = field(default_factory=list)
    types: list[tuple[str, bool]] = field(default_factory=list)
    gamemodes: list[tuple[str, bool]] = field(default_factory=list)
    tags: list[tuple[str, bool]] = field(default_factory=list)
    teams: list[tuple[str, bool]] = field(default_factory=list)


def parse_selector(reader: StringReader) -> Selector:
    """Parse an entity argument (vanilla ``EntitySelectorParser.parse``)."""
    start = reader.cursor
    if reader.can_read() and reader.peek() == "@":
        reader.skip()
        if not reader.can_read():
            raise reader.error("argument.entity.selector.missing")
        c = reader.read()
        b = _Builder(kind="@" + c, start=start)
        # EntitySelectorParser.parseSelector: @p/@r set an order but not "sorted", so `sort` still applies.
        if c == "p":
            b.limit, b.sort, b.type_limited = 1, "nearest", True
        elif c == "a":
            b.type_limited = True
        elif c == "r":
            b.limit, b.sort, b.type_limited = 1, "random", True
        elif c == "s":
            b.limit, b.current_entity, b.players_only = 1, True, False
        elif c == "e":
            b.players_only = False
        else:
            reader.cursor = start
            raise reader.error("argument.entity.selector.unknown", "@" + c)
        if reader.can_read() and reader.peek() == "[":
            reader.skip()
            _parse_options(reader, b)
        return _finish(b, reader)
    # A player name or a UUID (parseNameOrUUID).
    text = reader.read_string()
    if _UUID_RE.match(text):
        # Java's UUID.fromString accepts short groups ("0-0-0-0-1"): pad each to its full width.
        groups = text.split("-")
        padded = "-".join(g.rjust(w, "0") for g, w in zip(groups, (8, 4, 4, 4, 12), strict=True))
        u = str(uuidlib.UUID(padded))
        return Selector(kind="uuid", text=text, limit=1, players_only=False, uuid=u)
    if not text or len(text) > 16:
        reader.cursor = start
        raise reader.error("argument.entity.invalid")
    return Selector(kind="name", text=text, limit=1, players_only=True, player_name=text)


def _finish(b: _Builder, reader: StringReader) -> Selector:
    o = b.opts
    return Selector(
        kind=b.kind,
        text=reader.string[b.start : reader.cursor],
        limit=b.limit,
        sort=b.sort,
        players_only=b.players_only,
        names=tuple(b.names),
        types=tuple(b.types),
        distance=o.get("distance"),  # type: ignore[arg-type]
        level=o.get("level"),  # type: ignore[arg-type]
        gamemodes=tuple(b.gamemodes),
        tags=tuple(b.tags),
        teams=tuple(b.teams),
        x=o.get("x"),  # type: ignore[arg-type]
        y=o.get("y"),  # type: ignore[arg-type]
        z=o.get("z"),  # type: ignore[arg-type]
        dx=o.get("dx"),  # type: ignore[arg-type]
        dy=o.get("dy"),  # type: ignore[arg-type]
        dz=o.get("dz"),  # type: ignore[arg-type]
        scores=tuple(o.get("scores", ())),  # type: ignore[arg-type]
        advancements=tuple(o.get("advancements", ())),  # type: ignore[arg-type]
        current_entity=b.current_entity,
    )


def _negated(reader: StringReader) -> bool:
    reader.skip_whitespace()
    if reader.can_read() and reader.peek() == "!":
        reader.skip()
        reader.skip_whitespace()
        return True
    return False


def _parse_options(reader: StringReader, b: _Builder) -> None:
    reader.skip_whitespace()
    while reader.can_read() and reader.peek() != "]":
        reader.skip_whitespace()
        opt_start = reader.cursor
        key = reader.read_string()
        if key not in KNOWN_OPTIONS:
            reader.cursor = opt_start
            raise reader.error("argument.entity.options.unknown", key)
        reader.skip_whitespace()
        if not reader.can_read() or reader.peek() != "=":
            reader.cursor = opt_start
            raise reader.error("argument.entity.options.valueless", key)
        reader.skip()
        reader.skip_whitespace()
        _apply_option(reader, b, key, opt_start)
        reader.skip_whitespace()
        if reader.can_read():
            if reader.peek() == ",":
                reader.skip()
                continue
            if reader.peek() != "]":
                raise reader.error("argument.entity.options.unterminated")
    if not reader.can_read():
        raise reader.error("argument.entity.options.unterminated")
    reader.skip()


def _inapplicable(reader: StringReader, key: str, at: int) -> CommandSyntaxError:
    return reader.error("argument.entity.options.inapplicable", key, at=at)


def _apply_option(reader: StringReader, b: _Builder, key: str, at: int) -> None:
    o = b.opts
    if key in UNSUPPORTED_OPTIONS:
        raise reader.error(
            None, text=f"Option '{key}' is not supported by MirrorCraft's command parser", at=at
        )
    if key == "name":
        neg = _negated(reader)
        if key in o and not neg:
            raise _inapplicable(reader, key, at)
        b.names.append((reader.read_string(), neg))
        if not neg:
            o[key] = True
    elif key == "type":
        if b.type_limited:
            raise _inapplicable(reader, key, at)
        neg = _negated(reader)
        if reader.can_read() and reader.peek() == "#":
            raise reader.error(
                None, text="Entity type tags are not supported by MirrorCraft's command parser"
            )
        typ = reader.read_resource_location()
        if not neg:
            if "type" in o:
                raise _inapplicable(reader, key, at)
            o["type"] = typ
            b.players_only = typ == "minecraft:player"
        b.types.append((typ, neg))
    elif key in ("distance", "level"):
        if key in o:
            raise _inapplicable(reader, key, at)
        vstart = reader.cursor
        rng = read_range(reader, ints=key == "level")
        if rng.min is not None and rng.min < 0 or rng.max is not None and rng.max < 0:
            reader.cursor = vstart
            raise reader.error(
                "argument.entity.options.distance.negative"
                if key == "distance"
                else "argument.entity.options.level.negative"
            )
        o[key] = rng
        if key == "level":
            b.players_only = True
    elif key in ("x", "y", "z", "dx", "dy", "dz"):
        if key in o:
            raise _inapplicable(reader, key, at)
        o[key] = reader.read_double()
    elif key == "limit":
        if b.current_entity or "limit" in o:
            raise _inapplicable(reader, key, at)
        vstart = reader.cursor
        n = reader.read_int()
        if n < 1:
            reader.cursor = vstart
            raise reader.error("argument.entity.options.limit.toosmall")
        b.limit = n
        o[key] = n
    elif key == "sort":
        if b.current_entity or b.sorted_:
            raise _inapplicable(reader, key, at)
        vstart = reader.cursor
        word = reader.read_unquoted()
        if word not in ("nearest", "furthest", "random", "arbitrary"):
            reader.cursor = vstart
            raise reader.error("argument.entity.options.sort.irreversible", word)
        b.sort, b.sorted_ = word, True
    elif key == "gamemode":
        neg = _negated(reader)
        vstart = reader.cursor
        word = reader.read_unquoted()
        if word not in GAME_MODES:
            reader.cursor = vstart
            raise reader.error("argument.entity.options.mode.invalid", word)
        b.gamemodes.append((word, neg))
        b.players_only = True
    elif key == "tag":
        neg = _negated(reader)
        b.tags.append((reader.read_unquoted(), neg))
    elif key == "team":
        if "team" in o:  # only one team=<name> (team=!<name> may repeat)
            raise _inapplicable(reader, key, at)
        neg = _negated(reader)
        b.teams.append((reader.read_unquoted(), neg))
        if not neg:
            o["team"] = True
    elif key == "scores":
        if key in o:
            raise _inapplicable(reader, key, at)
        reader.expect("{")
        out: list[tuple[str, Range]] = []
        reader.skip_whitespace()
        while reader.can_read() and reader.peek() != "}":
            reader.skip_whitespace()
            name = reader.read_unquoted()
            reader.skip_whitespace()
            reader.expect("=")
            reader.skip_whitespace()
            out.append((name, read_range(reader, ints=True)))
            reader.skip_whitespace()
            if reader.can_read() and reader.peek() == ",":
                reader.skip()
        reader.expect("}")
        o[key] = out
    elif key == "advancements":
        if key in o:
            raise _inapplicable(reader, key, at)
        o[key] = _parse_advancements(reader)
        b.players_only = True


def _parse_advancements(reader: StringReader) -> list[tuple[str, bool | tuple[tuple[str, bool], ...]]]:
    reader.expect("{")
    out: list[tuple[str, bool | tuple[tuple[str, bool], ...]]] = []
    reader.skip_whitespace()
    while reader.can_read() and reader.peek() != "}":
        reader.skip_whitespace()
        adv = reader.read_resource_location()
        reader.skip_whitespace()
        reader.expect("=")
        reader.skip_whitespace()
        if reader.can_read() and reader.peek() == "{":
            reader.skip()
            crit: list[tuple[str, bool]] = []
            reader.skip_whitespace()
            while reader.can_read() and reader.peek() != "}":
                reader.skip_whitespace()
                name = reader.read_unquoted()
                reader.skip_whitespace()
                reader.expect("=")
                reader.skip_whitespace()
                crit.append((name, reader.read_bool()))
                reader.skip_whitespace()
                if reader.can_read() and reader.peek() == ",":
                    reader.skip()
            reader.expect("}")
            out.append((adv, tuple(crit)))
        else:
            out.append((adv, reader.read_bool()))
        reader.skip_whitespace()
        if reader.can_read() and reader.peek() == ",":
            reader.skip()
    reader.expect("}")
    return out
