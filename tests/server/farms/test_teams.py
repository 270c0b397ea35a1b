"""Teams, team chat, the sidebar and PvP on a real game, driven through the packet handlers (issue 24).

What is checked against vanilla 1.19.2 facts: the ``team`` / ``teammsg`` / ``scoreboard objectives
setdisplay`` reply components (``TeamCommand``, ``TeamMsgCommand``, ``ScoreboardCommand`` and their language
keys), the ``teams`` packet modes 0-4 and ``ServerScoreboard``'s tracked-objective packets (wiki.vg 1.19.2
"Update Teams", "Update Objectives", "Display Objective", "Update Score"), who receives team chat, and
``ServerPlayer.canHarmPlayer`` (``pvp``, friendly fire). Real sockets: ``test_mineflayer_farm_teams.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fakeplayer import FakePlayer, join, new_game, send

from mirrorcraft.server.commands import components as C
from mirrorcraft.server.game import Game

RED, BLUE = ("Ryn", "Raze"), ("Byte", "Blink")
SPOTS = {
    "Ryn": (8.5, 65.0, 8.5),
    "Raze": (9.5, 65.0, 8.5),
    "Byte": (8.5, 65.0, 10.5),
    "Blink": (9.5, 65.0, 10.5),
}


def _game(world: Path, **config) -> tuple[Game, dict[str, FakePlayer]]:  # noqa: ANN003
    game = new_game(world, ops=["Ryn"], **config)
    players = {n: join(game, FakePlayer(n), pos) for n, pos in SPOTS.items()}
    console(game, "effect clear @a")  # the benchmark controls' Strength and Resistance (tested below)
    return game, players


def run(game: Game, p: FakePlayer, text: str) -> None:
    send(game, p, "chat_command", command=text)


def console(game: Game, text: str):  # noqa: ANN201 - CommandResult
    ex = game.commands.executor
    return ex.run(ex.console_source(), text)


def chat_lines(p: FakePlayer, since: int = 0) -> list[dict]:
    return [json.loads(pkt.content) for pkt in p.packets("system_message")[since:]]


def _two_teams(game: Game) -> None:
    for cmd in ("team add red", 'team add blue {"text":"Blue Team"}', "team modify red color red",
                "team modify blue color blue", "team join red Ryn", "team join red Raze", "team join blue Byte",
                "team join blue Blink"):  # fmt: skip
        assert console(game, cmd).success, cmd


def test_team_commands_reply_with_vanilla_components(world: Path) -> None:
    game, _ = _game(world)
    r = console(game, "team add red")
    assert r.success and r.result == 1
    hover = {"action": "show_text", "contents": {"text": "red"}}
    red = C.translatable("chat.square_brackets", {"insertion": "red", "hoverEvent": hover, "text": "red"})
    assert r.components == [C.translatable("commands.team.add.success", red)]
    assert r.text == "Created team [red]"
    assert console(game, "team add red").messages == ["A team already exists by that name"]
    r = console(game, "team modify red color red")
    assert r.text == "Updated the color for team [red] to red"
    assert r.components[0]["with"][0]["color"] == "red"  # the brackets take the team colour
    assert (
        console(game, "team modify red color red").text == "Nothing changed. That team already has that color"
    )
    assert console(game, "team modify red color bold").text.startswith("Unknown color 'bold'")
    assert console(game, "team modify red friendlyFire false").text == "Disabled friendly fire for team [red]"
    assert console(game, "team modify red friendlyFire false").text == (
        "Nothing changed. Friendly fire is already disabled for that team"
    )
    assert console(game, "team modify red seeFriendlyInvisibles false").text == (
        "Team [red] can no longer see invisible teammates"
    )
    assert console(game, 'team modify red prefix {"text":"[R] "}').text == "Team prefix set to [R] "
    assert (
        console(game, 'team modify red displayName {"text":"Reds"}').text == "Updated the name of team [Reds]"
    )
    assert console(game, "team modify red nametagVisibility hideForOtherTeams").text == (
        'Nametag visibility for team [Reds] is now "Hide for other teams"'
    )
    assert console(game, "team modify nope color red").text == "Unknown team 'nope'"
    r = console(game, "team join red Ryn")
    assert r.text == "Added Ryn to team [Reds]" and r.result == 1
    assert console(game, "team join red @a").text == "Added 4 members to team [Reds]"
    assert console(game, "team list red").text == "Team [Reds] has 4 members: Ryn, Raze, Byte, Blink"
    assert console(game, "team add blue").success
    assert console(game, "team list").text == "There are 2 teams: [Reds], [blue]"
    assert console(game, "team leave Byte").text == "Removed Byte from any team"
    assert console(game, "team empty red").text == "Removed 3 members from team [Reds]"
    assert console(game, "team empty red").text == "Nothing changed. That team is already empty"
    assert console(game, "team list red").text == "There are no members on team [Reds]"
    r = console(game, "team remove red")
    assert r.text == "Removed team [Reds]" and r.result == 1
    assert console(game, "team remove blue").success
    assert console(game, "team list").text == "There are no teams"


def test_team_packets_reach_every_client_and_a_newcomer(world: Path) -> None:
    game, ps = _game(world)
    _two_teams(game)
    console(game, "team modify red friendlyFire false")
    console(game, "team leave Blink")
    modes = [(t.team, t.mode, t.entities) for t in ps["Byte"].packets("teams")]
    assert modes == [
        ("red", 0, []), ("blue", 0, []), ("red", 2, None), ("blue", 2, None), ("red", 3, ["Ryn"]),
        ("red", 3, ["Raze"]), ("blue", 3, ["Byte"]), ("blue", 3, ["Blink"]), ("red", 2, None),
        ("blue", 4, ["Blink"]),
    ]  # fmt: skip
    red = ps["Ryn"].packets("teams")[-2]
    assert (red.color, red.flags, red.display_name) == (12, 0x02, '{"text":"red"}')  # red = ChatFormatting 12
    late = join(game, FakePlayer("Late"))  # PlayerList.updateEntireScoreboard
    got = {t.team: (t.mode, t.entities, t.color, t.flags) for t in late.packets("teams")}
    assert got == {"red": (0, ["Ryn", "Raze"], 12, 0x02), "blue": (0, ["Byte"], 9, 0x03)}
    console(game, "team remove blue")
    assert [(t.team, t.mode) for t in late.packets("teams")][-1] == ("blue", 1)
    console(game, "team join red Ryn")  # addPlayerToTeam: leaves the team first, even this one
    assert [(t.team, t.mode, t.entities) for t in late.packets("teams")][-2:] == [
        ("red", 4, ["Ryn"]),
        ("red", 3, ["Ryn"]),
    ]


def test_sidebar_tracks_shown_objectives_only(world: Path) -> None:
    game, ps = _game(world)
    p = ps["Byte"]
    console(game, "scoreboard objectives add kills dummy")
    console(game, "scoreboard players set Ryn kills 3")
    assert p.packets("scoreboard_objective") == [] and p.packets("update_score") == []  # not shown yet
    r = console(game, "scoreboard objectives setdisplay sidebar kills")
    assert r.text == "Set display slot sidebar to show objective kills"
    assert console(game, "scoreboard objectives setdisplay sidebar kills").text == (
        "Nothing changed. That display slot is already showing that objective"
    )
    (obj,) = p.packets("scoreboard_objective")
    assert (obj.name, obj.mode, obj.display_text, obj.type) == ("kills", 0, '{"text":"kills"}', 0)
    assert [(d.position, d.name) for d in p.packets("display_scoreboard")] == [(1, "kills")]
    assert [(s.item_name, s.score_name, s.value) for s in p.packets("update_score")] == [("Ryn", "kills", 3)]
    console(game, "scoreboard players add Byte kills 2")
    assert (p.packets("update_score")[-1].item_name, p.packets("update_score")[-1].value) == ("Byte", 2)
    late = join(game, FakePlayer("Late"))
    assert [o.name for o in late.packets("scoreboard_objective")] == ["kills"]
    assert {(s.item_name, s.value) for s in late.packets("update_score")} == {("Ryn", 3), ("Byte", 2)}
    r = console(game, 'scoreboard objectives modify kills displayname {"text":"Kills"}')
    assert r.text == "Changed the display name of kills to [Kills]"
    assert console(game, 'scoreboard objectives modify kills displayname {"text":"Kills"}').components == []
    assert console(game, "scoreboard objectives modify kills rendertype hearts").text == (
        "Changed the render type of objective [Kills]"
    )
    changed = [(o.mode, o.display_text, o.type) for o in p.packets("scoreboard_objective")[1:]]
    assert changed == [(2, '{"text":"Kills"}', 0), (2, '{"text":"Kills"}', 1)]
    console(game, "scoreboard players reset Ryn kills")
    assert (p.packets("update_score")[-1].action, p.packets("update_score")[-1].score_name) == (1, "kills")
    assert (
        console(game, "scoreboard objectives setdisplay sidebar").text
        == "Cleared any objectives in display slot sidebar"
    )
    assert (p.packets("scoreboard_objective")[-1].mode, p.packets("scoreboard_objective")[-1].name) == (
        1,
        "kills",
    )
    assert console(game, "scoreboard objectives setdisplay sidebar").text == (
        "Nothing changed. That display slot is already empty"
    )
    assert console(game, "scoreboard objectives setdisplay nowhere kills").text.startswith(
        "Unknown display slot 'nowhere'"
    )
    console(game, "scoreboard objectives setdisplay sidebar.team.red kills")
    assert [(d.position, d.name) for d in p.packets("display_scoreboard")][-1] == (3 + 12, "kills")


def test_team_chat_reaches_only_team_mates_and_chat_reaches_all(world: Path) -> None:
    game, ps = _game(world)
    _two_teams(game)
    console(game, 'team modify red prefix {"text":"[R] "}')
    before = {n: len(chat_lines(p)) for n, p in ps.items()}
    run(game, ps["Ryn"], "teammsg attack at dawn")
    got = {n: chat_lines(p, before[n]) for n, p in ps.items()}
    assert got["Byte"] == [] and got["Blink"] == []
    (sent,) = got["Ryn"]
    (incoming,) = got["Raze"]
    assert sent["translate"] == "chat.type.team.sent" and incoming["translate"] == "chat.type.team.text"
    assert C.render(sent) == "-> [red] <[R] Ryn> attack at dawn"
    assert C.render(incoming) == "[red] <[R] Ryn> attack at dawn"
    team_name, sender, _ = incoming["with"]
    assert team_name["hoverEvent"]["contents"] == {"translate": "chat.type.team.hover"}
    assert team_name["clickEvent"] == {"action": "suggest_command", "value": "/teammsg "}
    assert sender["color"] == "red" and sender["insertion"] == "Ryn"  # Player.getDisplayName with the team
    before = {n: len(chat_lines(p)) for n, p in ps.items()}
    run(game, ps["Byte"], "tm hold the bridge")
    got = {n: [C.render(c) for c in chat_lines(p, before[n])] for n, p in ps.items()}
    assert got == {"Ryn": [], "Raze": [], "Byte": ["-> [Blue Team] <Byte> hold the bridge"],
                   "Blink": ["[Blue Team] <Byte> hold the bridge"]}  # fmt: skip
    console(game, "team leave Blink")
    before = {n: len(chat_lines(p)) for n, p in ps.items()}
    run(game, ps["Blink"], "teammsg anyone?")
    (fail,) = chat_lines(ps["Blink"], before["Blink"])
    assert C.render(fail) == "You must be on a team to message your team" and fail["color"] == "red"
    assert all(chat_lines(p, before[n]) == [] for n, p in ps.items() if n != "Blink")
    send(game, ps["Raze"], "chat_message", message="hello all")
    assert all(C.render(chat_lines(p)[-1]) == "<[R] Raze> hello all" for p in ps.values())
    r = console(game, "give Raze minecraft:bread 1")  # command replies name players as getDisplayName does
    assert r.text == "Gave 1 [Bread] to [R] Raze" and r.components[0]["with"][2]["color"] == "red"


def _hit(game: Game, attacker: FakePlayer, target: FakePlayer) -> float:
    before = target.health
    send(game, attacker, "use_entity", target=target.eid, mouse=1, sneaking=False)
    return before - target.health


@pytest.mark.parametrize("pvp", [True, False])
def test_pvp_follows_the_setting_and_friendly_fire(world: Path, pvp: bool) -> None:
    game, ps = _game(world, pvp=pvp)
    _two_teams(game)
    for _ in range(61):  # ServerPlayer.spawnInvulnerableTime
        game.tick()
    assert _hit(game, ps["Ryn"], ps["Byte"]) == (1.0 if pvp else 0.0)  # an empty hand deals 1
    for _ in range(10):
        game.tick()
    assert _hit(game, ps["Ryn"], ps["Raze"]) == (1.0 if pvp else 0.0)  # friendly fire is on by default
    console(game, "team modify red friendlyFire false")
    for _ in range(10):
        game.tick()
    assert _hit(game, ps["Raze"], ps["Ryn"]) == 0.0  # a team mate: protected
    assert _hit(game, ps["Raze"], ps["Blink"]) == (1.0 if pvp else 0.0)  # the other team: not
    assert _hit(game, ps["Raze"], ps["Blink"]) == 0.0  # within 10 ticks: no more than the last hit
    for _ in range(10):
        game.tick()
    console(game, "effect give Raze minecraft:strength 60 0")
    console(game, "effect give Blink minecraft:resistance 60 0")
    assert _hit(game, ps["Raze"], ps["Blink"]) == pytest.approx(3.2 if pvp else 0.0)  # (1 + 3) x 0.8
    if pvp:
        statuses = [s.entity_id for s in ps["Byte"].packets("entity_status") if s.status == 2]
        assert ps["Blink"].eid in statuses


def test_pvp_kill_has_the_player_death_message(world: Path) -> None:
    game, ps = _game(world)
    _two_teams(game)
    for _ in range(61):
        game.tick()
    ps["Blink"].health = 1.0
    assert _hit(game, ps["Ryn"], ps["Blink"]) == 1.0
    assert game.admin.is_dead(ps["Blink"])
    line = chat_lines(ps["Byte"])[-1]
    assert line["translate"] == "death.attack.player" and C.render(line) == "Blink was slain by Ryn"
    assert _hit(game, ps["Ryn"], ps["Blink"]) == 0.0  # the dead are not hit again


def test_spawn_invulnerability_and_creative(world: Path) -> None:
    game, ps = _game(world)
    assert _hit(game, ps["Ryn"], ps["Byte"]) == 0.0  # just joined: 60 ticks of spawn invulnerability
    for _ in range(61):
        game.tick()
    game.admin.set_game_mode(ps["Byte"], "creative")
    assert _hit(game, ps["Ryn"], ps["Byte"]) == 0.0
    far = ps["Blink"]
    far.pos = [30.5, 65.0, 30.5]
    assert _hit(game, ps["Ryn"], far) == 0.0  # out of reach


def test_team_selector_option(world: Path) -> None:
    game, _ = _game(world)
    _two_teams(game)
    console(game, "team leave Blink")
    assert console(game, "team list red").result == 2
    assert (
        console(game, "kill @a[team=!red,team=!blue]").text == "Killed Blink"
    )  # EntitySelectorOptions "team"
    assert console(game, "xp query @a[team=red,limit=1] levels").success
    r = console(game, "team join blue @a[team=]")  # no team: Blink
    assert r.text == "Added Blink to team [Blue Team]"
    assert console(game, "team leave @a[team=blue]").text == "Removed 2 members from any team"
    assert (
        "inapplicable" in console(game, "kill @a[team=red,team=blue]").components[0]["extra"][0]["translate"]
    )


def test_starvation_kills_with_the_vanilla_death_message(world: Path) -> None:
    game, ps = _game(world)
    _two_teams(game)
    console(game, "difficulty hard")
    p = ps["Byte"]
    game.food.state(p).food = 0
    p.health = 1.0
    for _ in range(81):
        game.tick()
    line = chat_lines(ps["Ryn"])[-1]
    assert line["translate"] == "death.attack.starve" and C.render(line) == "Byte starved to death"
    assert line["with"][0]["color"] == "blue"  # the team-formatted display name
