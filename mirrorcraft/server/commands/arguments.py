"""Argument parsers of the vanilla 1.19.2 commands (Brigadier's argument types as vanilla registers them):
entity selectors, numbers, words and messages, resource ids (items, blocks, effects), coordinates and
rotations, times, score holders, criteria and text components. Each reproduces vanilla's error texts and
cursor positions (the ``<--[HERE]`` context); :mod:`~mirrorcraft.server.commands.grammar` assembles them
into the command tree.
"""

from __future__ import annotations

import json
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.errors import GameDataError
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.reader import CommandSyntaxError, StringReader
from mirrorcraft.server.commands.scoreboard import DISPLAY_SLOTS
from mirrorcraft.server.commands.selectors import Selector, parse_selector, read_range
from mirrorcraft.server.commands.vocabulary import SIMPLE_CRITERIA, STAT_TYPES, TEAM_COLORS


def entity_arg(*, single: bool, players: bool):
    """``EntityArgument.entity()/entities()/player()/players()``."""

    def parse(r: StringReader) -> Selector:
        sel = parse_selector(r)
        if single and (sel.limit is None or sel.limit > 1):
            r.cursor = 0
            raise r.error("argument.player.toomany" if players else "argument.entity.toomany")
        if players and not sel.players_only and not sel.current_entity:
            r.cursor = 0
            raise r.error("argument.player.entities")
        return sel

    parse.suggest = "entities"  # type: ignore[attr-defined]  # suggestions.py: selector kinds and players
    return parse


def integer(lo: int = -(2**31), hi: int = 2**31 - 1):
    """``IntegerArgumentType.integer(min, max)``."""

    def parse(r: StringReader) -> int:
        start = r.cursor
        v = r.read_int()
        if v < lo:
            r.cursor = start
            raise r.error("argument.integer.low", lo, v)
        if v > hi:
            r.cursor = start
            raise r.error("argument.integer.big", hi, v)
        return v

    return parse


def boolean(r: StringReader) -> bool:
    return r.read_bool()


boolean.suggest = "boolean"  # type: ignore[attr-defined]


def word(r: StringReader) -> str:
    return r.read_unquoted()


def greedy(r: StringReader) -> str:
    text = r.remaining
    r.cursor = len(r.string)
    return text


def message(r: StringReader) -> m.Say:
    """``MessageArgument``: the rest of the line; each ``@`` that starts a valid selector becomes a span
    resolved at execution (an ``@`` without a known selector type stays text; other selector errors fail)."""
    start = r.cursor
    parts: list[tuple[int, int, Selector]] = []
    while r.can_read():
        if r.peek() != "@":
            r.skip()
            continue
        at = r.cursor
        try:
            sel = parse_selector(r)
        except CommandSyntaxError as err:
            if err.key not in ("argument.entity.selector.missing", "argument.entity.selector.unknown"):
                raise
            r.cursor = at + 1
            continue
        parts.append((at - start, r.cursor - start, sel))
    return m.Say(r.string[start:], tuple(parts))


def resource(r: StringReader) -> str:
    return r.read_resource_location()


def item_arg(r: StringReader) -> str:
    """``ItemArgument``: an item id (no tags, NBT not supported by MirrorCraft)."""
    start = r.cursor
    if r.can_read() and r.peek() == "#":
        raise r.error("argument.item.tag.disallowed")
    rid = r.read_resource_location()
    try:
        gamedata.item(rid)
    except GameDataError:
        r.cursor = start
        raise r.error("argument.item.id.invalid", rid) from None
    if r.can_read() and r.peek() == "{":
        raise r.error(None, text="Item NBT is not supported by MirrorCraft's command parser")
    return rid


item_arg.suggest = "items"  # type: ignore[attr-defined]


def block_arg(*, tags: bool = False):
    """``BlockStateArgument`` (``tags`` False) or a block predicate without tags (fill's filter)."""

    def parse(r: StringReader) -> m.BlockState:
        start = r.cursor
        if r.can_read() and r.peek() == "#":
            if not tags:
                raise r.error("argument.block.tag.disallowed")
            raise r.error(None, text="Block tags are not supported by MirrorCraft's command parser")
        rid = r.read_resource_location()
        try:
            info = gamedata.block(rid)
        except GameDataError:
            r.cursor = start
            raise r.error("argument.block.id.invalid", rid) from None
        props: list[tuple[str, str]] = []
        if r.can_read() and r.peek() == "[":
            r.skip()
            allowed = dict(info.properties)
            r.skip_whitespace()
            while r.can_read() and r.peek() != "]":
                r.skip_whitespace()
                pstart = r.cursor
                key = r.read_string()
                if key not in allowed:
                    r.cursor = pstart
                    raise r.error("argument.block.property.unknown", rid, key)
                if any(k == key for k, _ in props):
                    r.cursor = pstart
                    raise r.error("argument.block.property.duplicate", key, rid)
                r.skip_whitespace()
                if not r.can_read() or r.peek() != "=":
                    raise r.error("argument.block.property.novalue", key, rid)
                r.skip()
                r.skip_whitespace()
                vstart = r.cursor
                value = r.read_string()
                if value not in allowed[key]:
                    r.cursor = vstart
                    raise r.error("argument.block.property.invalid", rid, value, key)
                props.append((key, value))
                r.skip_whitespace()
                if r.can_read() and r.peek() == ",":
                    r.skip()
                    continue
                if not r.can_read() or r.peek() != "]":
                    raise r.error("argument.block.property.unclosed")
            if not r.can_read():
                raise r.error("argument.block.property.unclosed")
            r.skip()
        if r.can_read() and r.peek() == "{":
            raise r.error(None, text="Block NBT is not supported by MirrorCraft's command parser")
        return m.BlockState(rid, tuple(props))

    parse.suggest = "blocks"  # type: ignore[attr-defined]
    return parse


def effect_arg(r: StringReader) -> str:
    """``MobEffectArgument``: unknown ids fail with ``effect.effectNotFound`` (no context, as vanilla)."""
    rid = r.read_resource_location()
    try:
        gamedata.effect(rid)
    except GameDataError:
        raise CommandSyntaxError("effect.effectNotFound", rid) from None
    return rid


effect_arg.suggest = "effects"  # type: ignore[attr-defined]


def _coord(r: StringReader, *, ints: bool, center: bool) -> m.Coord:
    if r.can_read() and r.peek() == "^":
        raise r.error("argument.pos.mixed")
    if not r.can_read():
        raise r.error("argument.pos.missing.int" if ints else "argument.pos.missing.double")
    relative = r.peek() == "~"
    if relative:
        r.skip()
    start = r.cursor
    if r.can_read() and r.peek() != " ":
        value: float = r.read_int() if ints and not relative else r.read_double()
    else:
        value = 0.0
    text = r.string[start : r.cursor]
    if relative:
        return m.Coord(float(value), True)
    if center and not ints and "." not in text:
        value = float(value) + 0.5
    return m.Coord(float(value), False)


def position(*, ints: bool):
    """``BlockPosArgument`` (``ints``) or ``Vec3Argument`` (x/z of whole numbers centred, as vanilla)."""

    def parse(r: StringReader) -> m.Position:
        start = r.cursor
        if r.can_read() and r.peek() == "^":
            raise r.error(
                None, text="Local coordinates (^) are not supported by MirrorCraft's command parser"
            )
        x = _coord(r, ints=ints, center=True)
        if not (r.can_read() and r.peek() == " "):
            r.cursor = start
            raise r.error("argument.pos3d.incomplete")
        r.skip()
        y = _coord(r, ints=ints, center=False)
        if not (r.can_read() and r.peek() == " "):
            r.cursor = start
            raise r.error("argument.pos3d.incomplete")
        r.skip()
        z = _coord(r, ints=ints, center=True)
        return m.Position(x, y, z)

    return parse


def rotation(r: StringReader) -> tuple[m.Coord, m.Coord]:
    """``RotationArgument``: yaw then pitch, ``~`` allowed."""
    start = r.cursor
    if not r.can_read():
        raise r.error("argument.rotation.incomplete")
    yaw = _coord(r, ints=False, center=False)
    if not (r.can_read() and r.peek() == " "):
        r.cursor = start
        raise r.error("argument.rotation.incomplete")
    r.skip()
    pitch = _coord(r, ints=False, center=False)
    return (yaw, pitch)


_TIME_UNITS = {"d": 24000, "s": 20, "t": 1, "": 1}


def time_arg(r: StringReader) -> int:
    """``TimeArgument``: a number with unit ``d``/``s``/``t`` (ticks by default)."""
    f = r.read_float()
    unit = r.read_unquoted()
    if unit not in _TIME_UNITS:
        raise CommandSyntaxError("argument.time.invalid_unit")
    ticks = round(f * _TIME_UNITS[unit])
    if ticks < 0:
        raise CommandSyntaxError("argument.time.invalid_tick_count")
    return ticks


def score_holder(*, multiple: bool):
    """``ScoreHolderArgument``: ``*``, a selector, or any name up to the next space."""

    def parse(r: StringReader) -> m.ScoreHolders:
        if r.can_read() and r.peek() == "@":
            sel = parse_selector(r)
            if not multiple and (sel.limit is None or sel.limit > 1):
                raise CommandSyntaxError("argument.entity.toomany")
            return m.ScoreHolders(selector=sel)
        start = r.cursor
        while r.can_read() and r.peek() != " ":
            r.skip()
        text = r.string[start : r.cursor]
        if text == "*":
            return m.ScoreHolders(wildcard=True)
        return m.ScoreHolders(name=text)

    return parse


def criterion(r: StringReader) -> str:
    """``ObjectiveCriteriaArgument``: a simple criterion, ``teamkill.<color>``, or ``<stat>:<id>``."""
    start = r.cursor
    while r.can_read() and r.peek() != " ":
        r.skip()
    text = r.string[start : r.cursor]
    if valid_criterion(text):
        return text
    r.cursor = start
    raise CommandSyntaxError("argument.criteria.invalid", text)


def valid_criterion(text: str) -> bool:
    if text in SIMPLE_CRITERIA:
        return True
    head, _, color = text.partition(".")
    if head in ("teamkill", "killedByTeam") and color in TEAM_COLORS:
        return True
    stat, sep, rid = text.partition(":")
    if not sep:
        return False
    ns, _, kind = stat.partition(".")
    return ns == "minecraft" and kind in STAT_TYPES and bool(rid)


def component(r: StringReader) -> str:
    """``ComponentArgument``: a JSON text component; its plain text is kept."""
    start = r.cursor
    try:
        value, end = json.JSONDecoder().raw_decode(r.string, r.cursor)
    except json.JSONDecodeError as err:
        raise r.error("argument.component.invalid", err.msg, at=start) from None
    r.cursor = end
    return _plain(value)


def text_component(r: StringReader) -> dict[str, Any]:
    """``ComponentArgument`` (tellraw, title): a JSON text component, read as vanilla's
    ``Component.Serializer`` reads it (:func:`~mirrorcraft.server.commands.components.parse`)."""
    start = r.cursor
    try:
        value, end = json.JSONDecoder().raw_decode(r.string, r.cursor)
    except json.JSONDecodeError as err:
        raise r.error("argument.component.invalid", err.msg, at=start) from None
    try:
        parsed = C.parse(value)
    except ValueError as err:
        raise r.error("argument.component.invalid", str(err), at=start) from None
    r.cursor = end
    return parsed


def color(r: StringReader) -> str:
    """``ColorArgument``: a ``ChatFormatting`` colour name or ``reset`` (not a format such as ``bold``)."""
    name = r.read_unquoted()
    if name in TEAM_COLORS or name == "reset":
        return name
    raise CommandSyntaxError("argument.color.invalid", name)  # ColorArgument: no cursor context


color.suggest = "colors"  # type: ignore[attr-defined]


def display_slot(r: StringReader) -> int:
    """``ScoreboardSlotArgument``: a display slot name (``list``, ``sidebar``, ``belowName``,
    ``sidebar.team.<color>``) as its id."""
    name = r.read_unquoted()
    if name in DISPLAY_SLOTS:
        return DISPLAY_SLOTS.index(name)
    raise CommandSyntaxError("argument.scoreboardDisplaySlot.invalid", name)  # no cursor context


def game_profiles(r: StringReader) -> tuple[Selector | None, tuple[str, ...]]:
    """``GameProfileArgument``: a player selector, or one profile name (up to the next space)."""
    if r.can_read() and r.peek() == "@":
        sel = parse_selector(r)
        if not sel.players_only:
            r.cursor = 0
            raise r.error("argument.player.entities")
        return sel, ()
    start = r.cursor
    while r.can_read() and r.peek() != " ":
        r.skip()
    return None, (r.string[start : r.cursor],)


game_profiles.suggest = "entities"  # type: ignore[attr-defined]


def int_range(r: StringReader) -> tuple[int | None, int | None]:
    """``RangeArgument.intRange()`` (``execute if score ... matches``): ``5``, ``1..``, ``..3``, ``1..3``."""
    rng = read_range(r, ints=True)
    lo = None if rng.min is None else int(rng.min)
    hi = None if rng.max is None else int(rng.max)
    return lo, hi


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return str(value.get("text", "")) + "".join(_plain(v) for v in value.get("extra", []))
    return str(value)


# -- the tree -----------------------------------------------------------------------------------
