"""The vanilla 1.19.2 command tree MirrorCraft implements, and :func:`parse_command`.

Commands (permission level in brackets, as vanilla's ``Commands`` registers them): give, clear, tp /
teleport, setblock, fill, kill, gamemode, effect, experience / xp, time, weather, gamerule, difficulty,
advancement, execute (``if``/``unless entity``, ``as``, ``at``, ``run``), say, scoreboard (all level 2),
list (0), save-all, stop (4). Argument parsers reproduce vanilla's errors and cursor positions (the
``<--[HERE]`` context); deviations are listed in docs/fidelity.md.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from mirrorcraft import gamedata
from mirrorcraft.errors import GameDataError
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.dispatcher import Context, Node, arg, finish, lit, parse_nodes
from mirrorcraft.server.commands.reader import CommandSyntaxError, StringReader
from mirrorcraft.server.commands.selectors import Selector, parse_selector

#: Vanilla 1.19.2's game rules and their defaults (``GameRules``; rules added in 1.19.3+ are absent).
GAME_RULES: dict[str, bool | int] = {
    "announceAdvancements": True,
    "commandBlockOutput": True,
    "disableElytraMovementCheck": False,
    "disableRaids": False,
    "doDaylightCycle": True,
    "doEntityDrops": True,
    "doFireTick": True,
    "doImmediateRespawn": False,
    "doInsomnia": True,
    "doLimitedCrafting": False,
    "doMobLoot": True,
    "doMobSpawning": True,
    "doPatrolSpawning": True,
    "doTileDrops": True,
    "doTraderSpawning": True,
    "doWardenSpawning": True,
    "doWeatherCycle": True,
    "drowningDamage": True,
    "fallDamage": True,
    "fireDamage": True,
    "forgiveDeadPlayers": True,
    "freezeDamage": True,
    "keepInventory": False,
    "logAdminCommands": True,
    "maxCommandChainLength": 65536,
    "maxEntityCramming": 24,
    "mobGriefing": True,
    "naturalRegeneration": True,
    "playersSleepingPercentage": 100,
    "randomTickSpeed": 3,
    "reducedDebugInfo": False,
    "sendCommandFeedback": True,
    "showDeathMessages": True,
    "spawnRadius": 10,
    "spectatorsGenerateChunks": True,
    "universalAnger": False,
}

#: Permission levels of the root commands (vanilla ``Commands`` registrations).
COMMAND_LEVELS: dict[str, int] = {
    "advancement": 2,
    "clear": 2,
    "difficulty": 2,
    "effect": 2,
    "execute": 2,
    "experience": 2,
    "xp": 2,
    "fill": 2,
    "gamemode": 2,
    "gamerule": 2,
    "give": 2,
    "kill": 2,
    "list": 0,
    "save-all": 4,
    "say": 2,
    "scoreboard": 2,
    "setblock": 2,
    "stop": 4,
    "teleport": 2,
    "tp": 2,
    "time": 2,
    "weather": 2,
}

#: Criteria ``scoreboard objectives add`` accepts besides ``<stat type>:<id>`` (``ObjectiveCriteria``).
SIMPLE_CRITERIA = (
    "dummy",
    "trigger",
    "deathCount",
    "playerKillCount",
    "totalKillCount",
    "health",
    "xp",
    "level",
    "food",
    "air",
    "armor",
)
READ_ONLY_CRITERIA = ("health", "xp", "level", "food", "air", "armor")
STAT_TYPES = ("mined", "crafted", "used", "broken", "picked_up", "dropped", "killed", "killed_by", "custom")
TEAM_COLORS = (
    "black",
    "dark_blue",
    "dark_green",
    "dark_aqua",
    "dark_red",
    "dark_purple",
    "gold",
    "gray",
    "dark_gray",
    "blue",
    "green",
    "aqua",
    "red",
    "light_purple",
    "yellow",
    "white",
)


# -- argument parsers -------------------------------------------------------------------------------


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

    return parse


def effect_arg(r: StringReader) -> str:
    """``MobEffectArgument``: unknown ids fail with ``effect.effectNotFound`` (no context, as vanilla)."""
    rid = r.read_resource_location()
    try:
        gamedata.effect(rid)
    except GameDataError:
        raise CommandSyntaxError("effect.effectNotFound", rid) from None
    return rid


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


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return str(value.get("text", "")) + "".join(_plain(v) for v in value.get("extra", []))
    return str(value)


# -- the tree -----------------------------------------------------------------------------------


def _build_tree() -> Node:  # noqa: C901 - one literal per command, flat on purpose
    root = Node("<root>")
    players = entity_arg(single=False, players=True)
    player = entity_arg(single=True, players=True)
    entities = entity_arg(single=False, players=False)
    entity = entity_arg(single=True, players=False)

    # give <targets> <item> [<count>]
    root.then(
        lit(
            "give",
            arg(
                "targets",
                players,
                arg(
                    "item",
                    item_arg,
                    arg("count", integer(1), builder=lambda a: m.Give(a["targets"], a["item"], a["count"])),
                    builder=lambda a: m.Give(a["targets"], a["item"]),
                ),
            ),
            level=2,
        )
    )

    # clear [<targets>] [<item>] [<maxCount>]
    root.then(
        lit(
            "clear",
            arg(
                "targets",
                players,
                arg(
                    "item",
                    item_arg,
                    arg(
                        "maxCount",
                        integer(0),
                        builder=lambda a: m.Clear(a["targets"], a["item"], a["maxCount"]),
                    ),
                    builder=lambda a: m.Clear(a["targets"], a["item"]),
                ),
                builder=lambda a: m.Clear(a["targets"]),
            ),
            builder=lambda a: m.Clear(),
            level=2,
        )
    )

    # teleport <destination> | <location> | <targets> <location> [<rotation>] | <targets> <destination>
    def tp_tree(name: str) -> Node:
        return lit(
            name,
            arg("location", position(ints=False), builder=lambda a: m.Teleport(None, location=a["location"])),
            arg("destination", entity, builder=lambda a: m.Teleport(None, destination=a["destination"])),
            arg(
                "targets",
                entities,
                arg(
                    "location",
                    position(ints=False),
                    arg(
                        "rotation",
                        rotation,
                        builder=lambda a: m.Teleport(
                            a["targets"], location=a["location"], rotation=a["rotation"]
                        ),
                    ),
                    builder=lambda a: m.Teleport(a["targets"], location=a["location"]),
                ),
                arg(
                    "destination",
                    entity,
                    builder=lambda a: m.Teleport(a["targets"], destination=a["destination"]),
                ),
            ),
            level=2,
        )

    root.then(tp_tree("teleport"), tp_tree("tp"))

    # setblock <pos> <block> [destroy|keep|replace]
    def sb(mode: str):
        return lambda a: m.SetBlock(a["pos"], a["block"], mode)

    root.then(
        lit(
            "setblock",
            arg(
                "pos",
                position(ints=True),
                arg(
                    "block",
                    block_arg(),
                    lit("destroy", builder=sb("destroy")),
                    lit("keep", builder=sb("keep")),
                    lit("replace", builder=sb("replace")),
                    builder=sb("replace"),
                ),
            ),
            level=2,
        )
    )

    # fill <from> <to> <block> [destroy|hollow|keep|outline|replace [<filter>]]
    def fl(mode: str):
        return lambda a: m.Fill(a["from"], a["to"], a["block"], mode, a.get("filter"))

    root.then(
        lit(
            "fill",
            arg(
                "from",
                position(ints=True),
                arg(
                    "to",
                    position(ints=True),
                    arg(
                        "block",
                        block_arg(),
                        *(lit(k, builder=fl(k)) for k in ("destroy", "hollow", "keep", "outline")),
                        lit(
                            "replace",
                            arg("filter", block_arg(tags=True), builder=fl("replace")),
                            builder=fl("replace"),
                        ),
                        builder=fl("replace"),
                    ),
                ),
            ),
            level=2,
        )
    )

    # kill [<targets>]
    root.then(
        lit(
            "kill",
            arg("targets", entities, builder=lambda a: m.Kill(a["targets"])),
            builder=lambda a: m.Kill(),
            level=2,
        )
    )

    # gamemode <mode> [<target>]  (1.19.2: one literal per game mode)
    gm = lit("gamemode", level=2)
    for mode in ("survival", "creative", "adventure", "spectator"):
        gm.then(
            lit(
                mode,
                arg("target", players, builder=lambda a, mode=mode: m.GameModeSet(mode, a["target"])),
                builder=lambda a, mode=mode: m.GameModeSet(mode),
            )
        )
    root.then(gm)

    # effect give <targets> <effect> [<seconds>] [<amplifier>] [<hideParticles>] | effect clear ...
    def eg(a: dict[str, Any]) -> m.EffectGive:
        return m.EffectGive(
            a["targets"], a["effect"], a.get("seconds"), a.get("amplifier", 0), a.get("hideParticles", False)
        )

    root.then(
        lit(
            "effect",
            lit(
                "give",
                arg(
                    "targets",
                    entities,
                    arg(
                        "effect",
                        effect_arg,
                        arg(
                            "seconds",
                            integer(1, 1000000),
                            arg(
                                "amplifier",
                                integer(0, 255),
                                arg("hideParticles", boolean, builder=eg),
                                builder=eg,
                            ),
                            builder=eg,
                        ),
                        builder=eg,
                    ),
                ),
            ),
            lit(
                "clear",
                arg(
                    "targets",
                    entities,
                    arg("effect", effect_arg, builder=lambda a: m.EffectClear(a["targets"], a["effect"])),
                    builder=lambda a: m.EffectClear(a["targets"]),
                ),
                builder=lambda a: m.EffectClear(),
            ),
            level=2,
        )
    )

    # experience|xp add|set <targets> <amount> [levels|points] | query <target> levels|points
    def xp_tree(name: str) -> Node:
        def xb(action: str, unit: str):
            return lambda a: m.Experience(action, a["targets"], a.get("amount"), unit)

        def amount_node(action: str, lo: int) -> Node:
            return arg(
                "amount",
                integer(lo),
                lit("levels", builder=xb(action, "levels")),
                lit("points", builder=xb(action, "points")),
                builder=xb(action, "points"),
            )

        return lit(
            name,
            lit("add", arg("targets", players, amount_node("add", -(2**31)))),
            lit("set", arg("targets", players, amount_node("set", 0))),
            lit(
                "query",
                arg(
                    "targets",
                    player,
                    lit("levels", builder=xb("query", "levels")),
                    lit("points", builder=xb("query", "points")),
                ),
            ),
            level=2,
        )

    root.then(xp_tree("experience"), xp_tree("xp"))

    # time set <time>|day|noon|night|midnight, time add <time>, time query daytime|gametime|day
    named = {"day": 1000, "noon": 6000, "night": 13000, "midnight": 18000}
    tset = lit("set", arg("time", time_arg, builder=lambda a: m.TimeSet(a["time"])))
    for k, v in named.items():
        tset.then(lit(k, builder=lambda a, v=v: m.TimeSet(v)))
    root.then(
        lit(
            "time",
            tset,
            lit("add", arg("time", time_arg, builder=lambda a: m.TimeAdd(a["time"]))),
            lit(
                "query",
                *(lit(q, builder=lambda a, q=q: m.TimeQuery(q)) for q in ("daytime", "gametime", "day")),
            ),
            level=2,
        )
    )

    # weather clear|rain|thunder [<duration>]
    root.then(
        lit(
            "weather",
            *(
                lit(
                    w,
                    arg(
                        "duration", integer(0, 1000000), builder=lambda a, w=w: m.WeatherSet(w, a["duration"])
                    ),
                    builder=lambda a, w=w: m.WeatherSet(w),
                )
                for w in ("clear", "rain", "thunder")
            ),
            level=2,
        )
    )

    # gamerule <rule> [<value>]
    gr = lit("gamerule", level=2)
    for rule, default in GAME_RULES.items():
        parser = boolean if isinstance(default, bool) else integer()
        gr.then(
            lit(
                rule,
                arg("value", parser, builder=lambda a, rule=rule: m.GameRule(rule, a["value"])),
                builder=lambda a, rule=rule: m.GameRule(rule),
            )
        )
    root.then(gr)

    # difficulty [peaceful|easy|normal|hard]
    root.then(
        lit(
            "difficulty",
            *(
                lit(d, builder=lambda a, d=d: m.DifficultyCmd(d))
                for d in ("peaceful", "easy", "normal", "hard")
            ),
            builder=lambda a: m.DifficultyCmd(),
            level=2,
        )
    )

    # advancement grant|revoke <targets> only <adv> [<criterion>] | from|until|through <adv> | everything
    adv = lit("advancement", level=2)
    for action in ("grant", "revoke"):

        def ab(mode: str, action: str = action):
            return lambda a: m.AdvancementCmd(
                action, a["targets"], mode, a.get("advancement"), a.get("criterion")
            )

        adv.then(
            lit(
                action,
                arg(
                    "targets",
                    players,
                    lit(
                        "only",
                        arg(
                            "advancement",
                            resource,
                            arg("criterion", r_greedy_word, builder=ab("only")),
                            builder=ab("only"),
                        ),
                    ),
                    *(
                        lit(mode, arg("advancement", resource, builder=ab(mode)))
                        for mode in ("from", "until", "through")
                    ),
                    lit("everything", builder=ab("everything")),
                ),
            )
        )
    root.then(adv)

    # execute if|unless entity <sel> [...] | as <sel> ... | at <sel> ... | run <command>
    ex = lit("execute", level=2)
    for kind in ("if", "unless"):
        ex.then(
            lit(
                kind,
                lit(
                    "entity",
                    arg(
                        "entities",
                        entities,
                        redirect=ex,
                        modifier=lambda a, kind=kind: m.Condition(kind, a["entities"]),
                        builder=lambda a, kind=kind: m.EntityTest(kind == "unless", a["entities"]),
                    ),
                ),
            )
        )
    ex.then(
        lit("as", arg("targets", entities, redirect=ex, modifier=lambda a: m.Condition("as", a["targets"])))
    )
    ex.then(
        lit("at", arg("targets", entities, redirect=ex, modifier=lambda a: m.Condition("at", a["targets"])))
    )
    ex.then(lit("run", redirect=root))
    root.then(ex)

    root.then(lit("say", arg("message", message, builder=lambda a: a["message"]), level=2))
    root.then(
        lit(
            "list",
            lit("uuids", builder=lambda a: m.ListPlayers(True)),
            builder=lambda a: m.ListPlayers(False),
        )
    )
    root.then(
        lit(
            "save-all",
            lit("flush", builder=lambda a: m.SaveAll(True)),
            builder=lambda a: m.SaveAll(False),
            level=4,
        )
    )
    root.then(lit("stop", builder=lambda a: m.Stop(), level=4))

    # scoreboard objectives add|remove|list, scoreboard players set|add|remove|get|reset|list
    holders = score_holder(multiple=True)
    holder = score_holder(multiple=False)

    def ps(action: str):
        return lambda a: m.PlayersScore(action, a["targets"], a["objective"], a["score"])

    root.then(
        lit(
            "scoreboard",
            lit(
                "objectives",
                lit("list", builder=lambda a: m.ObjectivesList()),
                lit(
                    "add",
                    arg(
                        "objective",
                        word,
                        arg(
                            "criteria",
                            criterion,
                            arg(
                                "displayName",
                                component,
                                builder=lambda a: m.ObjectivesAdd(
                                    a["objective"], a["criteria"], a["displayName"]
                                ),
                            ),
                            builder=lambda a: m.ObjectivesAdd(a["objective"], a["criteria"]),
                        ),
                    ),
                ),
                lit("remove", arg("objective", word, builder=lambda a: m.ObjectivesRemove(a["objective"]))),
            ),
            lit(
                "players",
                lit(
                    "list",
                    arg("target", holder, builder=lambda a: m.PlayersList(a["target"])),
                    builder=lambda a: m.PlayersList(),
                ),
                lit(
                    "set",
                    arg(
                        "targets", holders, arg("objective", word, arg("score", integer(), builder=ps("set")))
                    ),
                ),
                lit(
                    "add",
                    arg(
                        "targets",
                        holders,
                        arg("objective", word, arg("score", integer(0), builder=ps("add"))),
                    ),
                ),
                lit(
                    "remove",
                    arg(
                        "targets",
                        holders,
                        arg("objective", word, arg("score", integer(0), builder=ps("remove"))),
                    ),
                ),
                lit(
                    "get",
                    arg(
                        "target",
                        holder,
                        arg("objective", word, builder=lambda a: m.PlayersGet(a["target"], a["objective"])),
                    ),
                ),
                lit(
                    "reset",
                    arg(
                        "targets",
                        holders,
                        arg(
                            "objective", word, builder=lambda a: m.PlayersReset(a["targets"], a["objective"])
                        ),
                        builder=lambda a: m.PlayersReset(a["targets"]),
                    ),
                ),
            ),
            level=2,
        )
    )
    return root


def r_greedy_word(r: StringReader) -> str:
    """A criterion name (``StringArgumentType.greedyString`` in vanilla's advancement command)."""
    return greedy(r)


@cache
def command_tree() -> Node:
    """The root node (built once)."""
    return _build_tree()


def parse_command(text: str, permission_level: int = 4) -> m.Command:
    """Parse one command line as a source with ``permission_level`` would (a leading ``/`` is skipped).

    Args:
        text: the command, e.g. ``"give @p minecraft:diamond 3"``.
        permission_level: 0 (any player) .. 4 (console, RCON, level-4 ops).

    Returns:
        The typed command (:mod:`mirrorcraft.server.commands.model`).

    Raises:
        CommandSyntaxError: vanilla's parse error; ``.messages()`` are the lines a player would see.
    """
    reader = StringReader(text)
    if reader.can_read() and reader.peek() == "/":
        reader.skip()
        reader = StringReader(text[1:])
    results = parse_nodes(command_tree(), reader, Context(), permission_level)
    chain = finish(results)
    steps: list[m.Condition] = []
    for ctx in chain[:-1]:
        node = ctx.nodes[-1]
        if node.modifier is not None:
            steps.append(node.modifier(ctx.args))
    last = chain[-1]
    builder = last.nodes[-1].builder
    assert builder is not None
    command = builder(last.args)
    if len(chain) > 1 or isinstance(command, m.EntityTest):
        return m.Execute(tuple(steps), command)
    return command
