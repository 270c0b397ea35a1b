"""The vanilla 1.19.2 command tree MirrorCraft implements, and :func:`parse_command`.

Commands (permission level in brackets, as vanilla's ``Commands`` registers them): give, clear, tp /
teleport, setblock, fill, kill, gamemode, effect, experience / xp, time, weather, gamerule, difficulty,
defaultgamemode, advancement, execute (``in``, ``as``, ``at``, ``positioned [as]``, ``if``/``unless
entity|block|score``, ``store result|success score``, ``run``), say, tellraw, title, scoreboard (with
``objectives setdisplay``), team (all level 2), op, deop (3), list, msg / tell / w, me, teammsg / tm (0), save-all, stop (4). The argument parsers (:mod:`~mirrorcraft.server.commands.arguments`) reproduce
vanilla's errors and cursor positions (the ``<--[HERE]`` context); the game rules, permission levels and
criteria are :mod:`~mirrorcraft.server.commands.vocabulary`; deviations are listed in docs/fidelity.md.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.arguments import (
    block_arg,
    boolean,
    color,
    component,
    criterion,
    display_slot,
    effect_arg,
    entity_arg,
    game_profiles,
    greedy,
    int_range,
    integer,
    item_arg,
    message,
    position,
    resource,
    rotation,
    score_holder,
    text_component,
    time_arg,
    word,
)
from mirrorcraft.server.commands.dispatcher import Context, Node, arg, finish, lit, parse_nodes
from mirrorcraft.server.commands.reader import StringReader
from mirrorcraft.server.commands.vocabulary import GAME_RULES

__all__ = ["command_tree", "parse_command"]


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

    # execute in|as|at|positioned [as]|if|unless entity|block|score|store result|success score ... run
    ex = lit("execute", level=2)
    for kind in ("if", "unless"):
        negate = kind == "unless"

        def score_node(negate: bool = negate) -> Node:
            def cond(op: str):
                def build(a: dict[str, Any]) -> m.ScoreCondition:
                    lo, hi = a.get("range", (None, None))
                    return m.ScoreCondition(
                        negate,
                        a["target"],
                        a["targetObjective"],
                        op,
                        a.get("source"),
                        a.get("sourceObjective"),
                        lo,
                        hi,
                    )

                return build

            def cmp(op: str) -> Node:
                c = cond(op)
                return lit(
                    op,
                    arg(
                        "source",
                        score_holder(multiple=False),
                        arg(
                            "sourceObjective",
                            word,
                            redirect=ex,
                            modifier=c,
                            builder=lambda a, c=c: m.ConditionTest(c(a)),
                        ),
                    ),
                )

            c_match = cond("matches")
            return arg(
                "target",
                score_holder(multiple=False),
                arg(
                    "targetObjective",
                    word,
                    *(cmp(op) for op in ("<", "<=", "=", ">", ">=")),
                    lit(
                        "matches",
                        arg(
                            "range",
                            int_range,
                            redirect=ex,
                            modifier=c_match,
                            builder=lambda a: m.ConditionTest(c_match(a)),
                        ),
                    ),
                ),
            )

        def block_cond(a: dict[str, Any], negate: bool = negate) -> m.BlockCondition:
            return m.BlockCondition(negate, a["pos"], a["block"])

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
                        builder=lambda a, negate=negate: m.EntityTest(negate, a["entities"]),
                    ),
                ),
                lit(
                    "block",
                    arg(
                        "pos",
                        position(ints=True),
                        arg(
                            "block",
                            block_arg(tags=True),
                            redirect=ex,
                            modifier=block_cond,
                            builder=lambda a, bc=block_cond: m.ConditionTest(bc(a)),
                        ),
                    ),
                ),
                lit("score", score_node()),
            )
        )
    ex.then(
        lit("as", arg("targets", entities, redirect=ex, modifier=lambda a: m.Condition("as", a["targets"])))
    )
    ex.then(
        lit("at", arg("targets", entities, redirect=ex, modifier=lambda a: m.Condition("at", a["targets"])))
    )
    ex.then(
        lit(
            "positioned",
            lit(
                "as",
                arg(
                    "targets",
                    entities,
                    redirect=ex,
                    modifier=lambda a: m.Condition("positioned_as", a["targets"]),
                ),
            ),
            arg("pos", position(ints=False), redirect=ex, modifier=lambda a: m.Positioned(a["pos"])),
        )
    )
    ex.then(
        lit("in", arg("dimension", resource, redirect=ex, modifier=lambda a: m.InDimension(a["dimension"])))
    )
    store = lit("store")
    for what in ("result", "success"):
        store.then(
            lit(
                what,
                lit(
                    "score",
                    arg(
                        "targets",
                        score_holder(multiple=True),
                        arg(
                            "objective",
                            word,
                            redirect=ex,
                            modifier=lambda a, what=what: m.Store(what, a["targets"], a["objective"]),
                        ),
                    ),
                ),
                *(
                    lit(other, arg("rest", unsupported_store))
                    for other in ("block", "bossbar", "entity", "storage")
                ),
            )
        )
    ex.then(store)
    ex.then(lit("run", redirect=root))
    root.then(ex)

    # tellraw <targets> <message>; title <targets> clear|reset|title|subtitle|actionbar <title>|times ...
    root.then(
        lit(
            "tellraw",
            arg(
                "targets",
                players,
                arg("message", text_component, builder=lambda a: m.Tellraw(a["targets"], a["message"])),
            ),
            level=2,
        )
    )

    def title_show(action: str) -> Node:
        return lit(
            action,
            arg(
                "title",
                text_component,
                builder=lambda a, action=action: m.Title(a["targets"], action, a["title"]),
            ),
        )

    root.then(
        lit(
            "title",
            arg(
                "targets",
                players,
                lit("clear", builder=lambda a: m.Title(a["targets"], "clear")),
                lit("reset", builder=lambda a: m.Title(a["targets"], "reset")),
                title_show("title"),
                title_show("subtitle"),
                title_show("actionbar"),
                lit(
                    "times",
                    arg(
                        "fadeIn",
                        integer(0),
                        arg(
                            "stay",
                            integer(0),
                            arg(
                                "fadeOut",
                                integer(0),
                                builder=lambda a: m.Title(
                                    a["targets"], "times", times=(a["fadeIn"], a["stay"], a["fadeOut"])
                                ),
                            ),
                        ),
                    ),
                ),
            ),
            level=2,
        )
    )

    # msg|tell|w <targets> <message> (level 0); me <action> (level 0)
    for name in ("msg", "tell", "w"):
        root.then(
            lit(
                name,
                arg(
                    "targets",
                    players,
                    arg("message", message, builder=lambda a: m.Message(a["targets"], a["message"])),
                ),
            )
        )
    root.then(lit("me", arg("action", message, builder=lambda a: m.Emote(a["action"]))))

    # op|deop <targets> (level 3); defaultgamemode <mode> (level 2)
    for action in ("op", "deop"):
        root.then(
            lit(
                action,
                arg(
                    "targets",
                    game_profiles,
                    builder=lambda a, action=action: m.OpCmd(action, a["targets"][0], a["targets"][1]),
                ),
                level=3,
            )
        )
    dgm = lit("defaultgamemode", level=2)
    for mode in ("survival", "creative", "adventure", "spectator"):
        dgm.then(lit(mode, builder=lambda a, mode=mode: m.DefaultGameMode(mode)))
    root.then(dgm)

    root.then(lit("function", arg("name", resource, builder=lambda a: m.FunctionCmd(a["name"])), level=2))
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
                lit(
                    "modify",
                    arg(
                        "objective",
                        word,
                        lit(
                            "displayname",
                            arg(
                                "displayName",
                                component,
                                builder=lambda a: m.ObjectivesModify(
                                    a["objective"], "displayname", a["displayName"]
                                ),
                            ),
                        ),
                        lit(
                            "rendertype",
                            *(
                                lit(
                                    t,
                                    builder=lambda a, t=t: m.ObjectivesModify(
                                        a["objective"], "rendertype", t
                                    ),
                                )
                                for t in ("integer", "hearts")
                            ),
                        ),
                    ),
                ),
                lit(
                    "setdisplay",
                    arg(
                        "slot",
                        display_slot,
                        arg(
                            "objective",
                            word,
                            builder=lambda a: m.ObjectivesSetDisplay(a["slot"], a["objective"]),
                        ),
                        builder=lambda a: m.ObjectivesSetDisplay(a["slot"]),
                    ),
                ),
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
    _team_commands(root)
    return root


def _team_commands(root: Node) -> None:
    """``team`` (level 2, vanilla ``TeamCommand``) and ``teammsg`` / ``tm`` (level 0, ``TeamMsgCommand``)."""
    members = score_holder(multiple=True)

    def modify(option: str, value_node: Node) -> Node:
        return lit(option, value_node)

    def set_to(option: str):
        return lambda a: m.TeamModify(a["team"], option, a["value"])

    def choices(option: str, names: tuple[str, ...]) -> Node:
        node = lit(option)
        for name in names:
            node.then(lit(name, builder=lambda a, name=name: m.TeamModify(a["team"], option, name)))
        return node

    visibility = ("never", "hideForOtherTeams", "hideForOwnTeam", "always")
    team_modify = arg(
        "team",
        word,
        modify("displayName", arg("value", text_component, builder=set_to("displayName"))),
        modify("color", arg("value", color, builder=set_to("color"))),
        modify("friendlyFire", arg("value", boolean, builder=set_to("friendlyFire"))),
        modify("seeFriendlyInvisibles", arg("value", boolean, builder=set_to("seeFriendlyInvisibles"))),
        choices("nametagVisibility", visibility),
        choices("deathMessageVisibility", visibility),
        choices("collisionRule", ("never", "pushOwnTeam", "pushOtherTeams", "always")),
        modify("prefix", arg("value", text_component, builder=set_to("prefix"))),
        modify("suffix", arg("value", text_component, builder=set_to("suffix"))),
    )
    root.then(
        lit(
            "team",
            lit(
                "list",
                arg("team", word, builder=lambda a: m.TeamList(a["team"])),
                builder=lambda a: m.TeamList(),
            ),
            lit(
                "add",
                arg(
                    "team",
                    word,
                    arg(
                        "displayName",
                        text_component,
                        builder=lambda a: m.TeamAdd(a["team"], a["displayName"]),
                    ),
                    builder=lambda a: m.TeamAdd(a["team"]),
                ),
            ),
            lit("remove", arg("team", word, builder=lambda a: m.TeamRemove(a["team"]))),
            lit("empty", arg("team", word, builder=lambda a: m.TeamEmpty(a["team"]))),
            lit(
                "join",
                arg(
                    "team",
                    word,
                    arg("members", members, builder=lambda a: m.TeamJoin(a["team"], a["members"])),
                    builder=lambda a: m.TeamJoin(a["team"]),
                ),
            ),
            lit("leave", arg("members", members, builder=lambda a: m.TeamLeave(a["members"]))),
            lit("modify", team_modify),
            level=2,
        )
    )
    for name in ("teammsg", "tm"):  # vanilla's tm redirects to teammsg: the same syntax and result
        root.then(lit(name, arg("message", message, builder=lambda a: m.TeamMsg(a["message"]))))


def unsupported_store(r: StringReader) -> None:
    """``execute store ... block|bossbar|entity|storage``: NBT and boss bars are not modelled."""
    raise r.error(
        None, text="execute store into block, bossbar, entity or storage NBT is not supported by MirrorCraft"
    )


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
    steps: list[m.ExecuteStep] = []
    for ctx in chain[:-1]:
        node = ctx.nodes[-1]
        if node.modifier is not None:
            steps.append(node.modifier(ctx.args))
    last = chain[-1]
    builder = last.nodes[-1].builder
    assert builder is not None
    command = builder(last.args)
    if len(chain) > 1 or isinstance(command, m.EntityTest | m.ConditionTest):
        return m.Execute(tuple(steps), command)
    return command
