"""The team-play body modules fed with packets encoded by the project's codecs, as the socket would deliver
them: chat and team chat with their senders (the components exactly as the embedded server builds them, and
a vanilla signed ``player_chat``), the scoreboard's sidebar and teams, and plant ripeness from block states."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from mirrorcraft.gamedata import block, state_id
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.mcproto_body.chat import parse_line
from mirrorcraft.mcproto_body.plants import max_age
from mirrorcraft.protocol import clientbound, encode
from mirrorcraft.protocol.buffer import Reader
from mirrorcraft.server.commands import components as C


def feed(body: Body, *pkts) -> None:
    for p in pkts:
        body.conn._received(p.NAME, encode(p))


def login(body: Body, packets_dir: Path) -> None:
    raw = (packets_dir / "from-server" / "login" / "1.raw").read_bytes()
    r = Reader(raw)
    r.varint()
    body.conn._received("login", raw[r.pos :])


def _system(component: dict) -> clientbound.SystemChat:
    return clientbound.SystemChat(content=json.dumps(component), type=1, overlay=False)


def test_chat_and_team_chat_lines_carry_their_sender(packets_dir: Path) -> None:
    body = Body(BodyConfig(port=1, username="Raze"))
    login(body, packets_dir)
    heard = []
    stop = body.chat.on_line(heard.append)
    ryn = C.player_name("Ryn", str(uuid.uuid4()))
    shown = {**ryn, "text": "", "extra": [{"text": "[R] ", "color": "red"}, ryn]}  # a team prefix around it
    team = C.styled({"text": "[red]"}, hoverEvent={"action": "show_text", "contents": {"text": "x"}})
    feed(
        body,
        _system(C.translatable("chat.type.text", ryn, "hello")),
        _system(C.translatable("chat.type.team.text", team, shown, "wheat is ripe")),
        _system(C.translatable("chat.type.team.sent", team, ryn, "mine")),
        _system(C.translatable("multiplayer.player.joined", ryn, color="yellow")),
        clientbound.SystemChat(content=json.dumps({"text": "action bar"}), type=2, overlay=True),
    )
    stop()
    got = [(ln.kind, ln.sender, ln.text, ln.team) for ln in heard]
    assert got == [
        ("chat", "Ryn", "hello", None),
        ("team", "Ryn", "wheat is ripe", "[red]"),
        ("team_sent", "Ryn", "mine", "[red]"),
        ("system", None, "multiplayer.player.joined Ryn", None),
    ]
    assert heard[0].plain == "<Ryn> hello" and heard[1].plain == "[red] <[R] Ryn> wheat is ripe"
    assert body.chat.lines == heard
    # a vanilla server's signed chat: the sender's name from the network name, a team chat by its target
    feed(body, clientbound.PlayerChat(sender=uuid.uuid4(), plain_message="hi", network_name='{"text":"Byte"}',
                                      network_target_name='{"text":"[blue]"}'))  # fmt: skip
    last = body.chat.lines[-1]
    assert (last.kind, last.sender, last.text, last.team) == ("team", "Byte", "hi", "[blue]")
    assert parse_line("not json", 0.0).kind == "system"


def test_scoreboard_sidebar_and_teams() -> None:
    body = Body(BodyConfig(port=1, username="Raze"))
    feed(
        body,
        clientbound.ScoreboardScore(
            item_name="Ryn", action=0, score_name="points", value=5
        ),  # before its objective
        clientbound.ScoreboardObjective(name="points", mode=0, display_text='{"text":"Points"}', type=0),
        clientbound.ScoreboardScore(item_name="Byte", action=0, score_name="points", value=3),
        clientbound.ScoreboardScore(item_name="Alex", action=0, score_name="points", value=3),
    )
    assert body.scoreboard.sidebar() is None  # not displayed yet
    feed(body, clientbound.ScoreboardDisplayObjective(position=1, name="points"))
    assert body.scoreboard.sidebar() == ("Points", [("Ryn", 5), ("Alex", 3), ("Byte", 3)])
    feed(
        body,
        clientbound.ScoreboardScore(item_name="Alex", action=1, score_name="points"),
        clientbound.Teams(
            team="red",
            mode=0,
            display_name='{"text":"red"}',
            flags=0,
            name_tag_visibility="always",
            collision_rule="always",
            color=12,
            prefix='{"text":""}',
            suffix='{"text":""}',
            entities=["Ryn", "Raze"],
        ),  # fmt: skip
        clientbound.ScoreboardObjective(name="red_only", mode=0, display_text='{"text":"Red"}', type=0),
        clientbound.ScoreboardDisplayObjective(position=3 + 12, name="red_only"),
    )
    assert body.scoreboard.sidebar() == ("Points", [("Ryn", 5), ("Byte", 3)])
    assert body.scoreboard.sidebar("Raze") == ("Red", [])  # the team-coloured sidebar wins for a team member
    red = body.scoreboard.team_of("Ryn")
    assert red is not None and red.members == {"Ryn", "Raze"} and not red.friendly_fire
    feed(body, clientbound.Teams(team="red", mode=4, entities=["Raze"]))
    assert body.scoreboard.team_of("Raze") is None
    feed(body, clientbound.ScoreboardObjective(name="points", mode=1))
    assert body.scoreboard.sidebar() is None


def test_plant_ripeness_from_block_states() -> None:
    assert max_age("minecraft:wheat") == 7 and max_age("minecraft:beetroots") == 3
    assert max_age("minecraft:sweet_berry_bush") == 3 and max_age("minecraft:cocoa") == 2
    assert max_age("minecraft:stone") is None
    body = Body(BodyConfig(port=1, username="Raze"))
    assert body.plants.ripe_states("minecraft:wheat") == [state_id("minecraft:wheat", age=7)]
    bush = block("minecraft:sweet_berry_bush")
    ripe = body.plants.ripe_states("minecraft:sweet_berry_bush")
    assert [int(bush.state_properties(s)["age"]) for s in ripe] == [2, 3]  # picked from age 2, as vanilla
