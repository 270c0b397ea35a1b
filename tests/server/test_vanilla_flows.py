"""Vanilla 1.19.2 wire forms and flows of the embedded server, in process (a real game, the one fake player):
chat components byte for byte against the vanilla captures in ``minecraft-packets`` (join line, failure,
admin broadcast, death screen, tab completion), join/leave/death/advancement lines, no recipes or tags to
any client in a world with a rule pack, furnace window properties, double chests, ``spawnRadius``, the
default game mode and ``ops.json``. The same flows through a real Mineflayer client are in
``test_mineflayer_api.py``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
import pytest_twisted
from support.fakeplayer import FakePlayer, bare, click, close_window, join, new_game, send, use_block
from twisted.internet import defer, protocol, reactor

from mirrorcraft.gamedata import menu_type_name
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts, wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands.suggestions import complete

pytestmark = pytest.mark.npm  # the captures come from node_modules/minecraft-packets

T = C.translatable


def _body(raw: bytes) -> bytes:
    return raw[1:] if raw[0] < 0x80 else raw[2:]


def _capture(packets_dir: Path, name: str, n: int) -> tuple[dict, bytes]:
    js = packets_dir / "from-server" / name / f"{n}.json"
    return json.loads(js.read_text()), _body(js.with_suffix(".raw").read_bytes())


def chat_command(game, p: FakePlayer, text: str) -> None:  # noqa: ANN001
    send(game, p, "chat_command", command=text, timestamp=0, salt=0, argument_signatures=[], signed_preview=False,
         previous_messages=[], last_rejected=None)  # fmt: skip


def chat_lines(p: FakePlayer) -> list[dict]:
    return [json.loads(pkt.content) for pkt in p.packets("system_message")]


# ---- wire forms against the captures ----------------------------------------------------------------------


def test_chat_bodies_equal_the_vanilla_captures(packets_dir: Path) -> None:
    # 5: the yellow join line with the newcomer's display name (insertion, /tell click, entity hover)
    j, raw = _capture(packets_dir, "system_chat", 5)
    joined = T("multiplayer.player.joined", C.player_name("tempBot", "56825bf2-67f6-3755-b1bf-e6c96cad3411"))
    assert wire.system_chat(C.styled(joined, color="yellow")) == raw
    # 3: a command failure (sendFailure wraps the message red)
    _, raw = _capture(packets_dir, "system_chat", 3)
    assert wire.system_chat(C.failure(T("commands.setblock.failed"))) == raw
    # 2 and 1: a console command's success broadcast to the ops (numbers as JSON strings)
    _, raw = _capture(packets_dir, "system_chat", 2)
    admin = T("chat.type.admin", C.text("Server"), T("commands.time.set", 13000), italic=True, color="gray")
    assert wire.system_chat(admin) == raw
    _, raw = _capture(packets_dir, "system_chat", 1)
    admin = T(
        "chat.type.admin", C.text("Server"), T("commands.op.success", "nmptestbot"), italic=True, color="gray"
    )
    assert wire.system_chat(admin) == raw
    # the death screen of /kill
    j, raw = _capture(packets_dir, "death_combat_event", 1)
    death = T("death.attack.outOfWorld", C.player_name("nmptestbot", "3591fdca-95ad-32a5-beb1-2a99402471c2"))
    assert wire.death_combat_event(j["playerId"], death) == raw
    # tab completion of "/weather " from the command tree, with the request's id
    j, raw = _capture(packets_dir, "tab_complete", 1)
    s = complete("/weather ", 4, lambda: [])
    assert (s.start, s.length, list(s.matches)) == (9, 0, [m["match"] for m in j["matches"]])
    assert wire.tab_complete(j["transactionId"], s.start, s.length, s.matches) == raw
    # an empty furnace's window properties are all 0 (craft_progress_bar 1-4), 200 once an input is in
    for n, prop in zip(range(1, 5), range(4), strict=True):
        j, raw = _capture(packets_dir, "craft_progress_bar", n)
        assert (j["property"], j["value"]) == (prop, 0) and wire.window_property(1, prop, 0) == raw


def test_rcon_renders_english_and_players_get_components(world: Path, fake_player) -> None:
    game = new_game(world, ops=["op1"])
    op = fake_player(game, "op1")
    other = fake_player(game, "op2")  # not an op: sees no admin lines
    rcon = game.commands.executor.rcon_handler()
    assert rcon("gamemode creative op1") == "Set op1's game mode to Creative Mode"
    lines = chat_lines(op)
    # the target is told its new mode (gameMode.changed) and, being an op, the admin line
    assert T("gameMode.changed", T("gameMode.creative")) in lines
    admin = lines[-1]
    assert admin["translate"] == "chat.type.admin" and admin["with"][0] == {"text": "Rcon"}
    assert admin["with"][1]["translate"] == "commands.gamemode.success.other"
    assert not [x for x in chat_lines(other) if x.get("translate") == "chat.type.admin"]
    op.sent.clear()
    chat_command(game, op, "gamemode survival")
    (reply,) = chat_lines(op)
    assert reply == T("commands.gamemode.success.self", T("gameMode.survival"))
    op.sent.clear()
    chat_command(game, op, "gamemode nonsense")
    first, context = chat_lines(op)
    assert first == C.failure(T("argument.literal.incorrect", "survival")) or first["color"] == "red"
    assert context["extra"][0]["extra"][-1] == T("command.context.here", italic=True, color="red")
    assert rcon("give op1 diamond 2") == "Gave 2 [Diamond] to op1"


def test_join_leave_death_and_advancement_lines(world: Path, fake_player) -> None:
    game = new_game(world)
    a = fake_player(game, "alpha")
    b = fake_player(game, "beta")
    beta = C.player_name("beta", str(b.uuid))
    assert T("multiplayer.player.joined", beta, color="yellow") in chat_lines(a)
    assert not [x for x in chat_lines(b) if x.get("translate") == "multiplayer.player.joined"]
    rcon = game.commands.executor.rcon_handler()
    a.sent.clear()
    b.sent.clear()
    rcon("kill beta")
    death = T("death.attack.outOfWorld", beta)
    assert death in chat_lines(a) and death in chat_lines(b)
    (screen,) = b.packets("death_combat_event")
    assert json.loads(screen.message) == death and screen.entity_id == -1
    rcon("gamerule showDeathMessages false")
    send(game, b, "client_command", action_id=0)
    a.sent.clear()
    rcon("kill beta")
    assert not [x for x in chat_lines(a) if x.get("translate", "").startswith("death.")]
    # an advancement with a display announces itself: chat.type.advancement.<frame>, title in brackets
    send(game, b, "client_command", action_id=0)
    a.sent.clear()
    rcon("advancement grant beta only minecraft:story/mine_stone")
    (line,) = [x for x in chat_lines(a) if x.get("translate", "").startswith("chat.type.advancement")]
    assert line["translate"] == "chat.type.advancement.task" and line["with"][0] == beta
    title = line["with"][1]
    assert title["translate"] == "chat.square_brackets" and title["color"] == "green"
    assert title["with"][0]["translate"] == "advancements.story.mine_stone.title"
    assert C.render(line) == "beta has made the advancement [Stone Age]"
    a.sent.clear()
    game.disconnect(b)
    assert T("multiplayer.player.left", beta, color="yellow") in chat_lines(a)


def _rule_pack(world: Path) -> None:
    """A rule pack like a Mirror world's: one recipe and one tag changed."""
    (world / "datapacks").mkdir(exist_ok=True)
    with zipfile.ZipFile(world / "datapacks" / "rules.zip", "w") as z:
        z.writestr("pack.mcmeta", json.dumps({"pack": {"pack_format": 10, "description": "rules"}}))
        recipe = {"type": "minecraft:crafting_shapeless", "ingredients": [{"item": "minecraft:dirt"}],
                  "result": {"item": "minecraft:diamond", "count": 1}}  # fmt: skip
        z.writestr("data/minecraft/recipes/oak_planks_from_logs.json", json.dumps(recipe))
        z.writestr("data/minecraft/tags/items/logs.json", json.dumps({"values": ["minecraft:dirt"]}))


def test_no_recipes_recipe_book_or_tags_reach_any_client(world: Path, fake_player) -> None:
    _rule_pack(world)
    game = new_game(world, ops=["op"])
    players = [fake_player(game, "agent"), fake_player(game, "op")]
    p = players[0]
    p.inventory.slots[36] = Stack("minecraft:dirt", 4)
    # the rule recipe works in the 2x2 grid (dirt gives a diamond) and is never declared
    click(game, p, 0, 36, 0, 0)  # the dirt to the cursor
    click(game, p, 0, 1, 1, 0)  # one into the grid
    click(game, p, 0, 36, 0, 0)  # the rest back
    click(game, p, 0, 0, 0, 1)  # shift-take the result
    assert any(s and s.item == "minecraft:diamond" for s in p.inventory.slots)
    rcon = game.commands.executor.rcon_handler()
    rcon("advancement grant @a everything")
    for q in players:
        sent = set(q.names())
        assert not sent & {"declare_recipes", "unlock_recipes", "tags"}, sent & {"declare_recipes", "tags"}


# ---- furnaces ---------------------------------------------------------------------------------------------


def test_furnace_window_properties_follow_the_input(world: Path, fake_player) -> None:
    game = new_game(world)
    p = fake_player(game)
    pos = (10, 65, 8)
    game.kernel.set_block(pos, facts.state_id("furnace", {"facing": "north", "lit": "false"}))
    p.inventory.slots[36] = Stack("minecraft:raw_iron", 2)
    p.inventory.slots[37] = Stack("minecraft:coal", 1)
    use_block(game, p, pos)
    wid = p.packets("open_window")[-1].window_id
    props = {x.property: x.value for x in p.packets("window_property")}
    assert props == {0: 0, 1: 0, 2: 0, 3: 0}  # a new furnace: total cook time 0 before any input
    p.sent.clear()
    click(game, p, wid, 30, 0, 0)  # raw iron (hotbar 0 = slot 30) to the cursor
    click(game, p, wid, 0, 0, 0)  # into the input slot
    # (a click without a prediction resyncs the window: every property is sent again)
    assert {x.property: x.value for x in p.packets("window_property")} == {0: 0, 1: 0, 2: 0, 3: 200}
    click(game, p, wid, 31, 0, 0)
    click(game, p, wid, 1, 0, 0)  # coal into the fuel slot
    for _ in range(5):
        game.tick()
    seen = [(x.property, x.value) for x in p.packets("window_property")]
    assert (1, 1600) in seen and (2, 1) in seen and (2, 5) in seen  # updates while the window is open
    close_window(game, p, wid)


# ---- double chests ----------------------------------------------------------------------------------------


def _place_chest(game, p: FakePlayer, below: tuple[int, int, int], yaw: float = 0.0) -> None:  # noqa: ANN001
    p.yaw = yaw
    p.inventory.slots[36] = Stack("minecraft:chest", 1)
    use_block(game, p, below)


def _props(game, pos: tuple[int, int, int]) -> dict[str, str]:  # noqa: ANN001
    return facts.state_props(game.world.get_block(*pos))


def test_double_chests_pair_open_one_window_and_split(world: Path, fake_player) -> None:
    game = new_game(world)
    p = fake_player(game)  # at the spawn (8.5, 65, 8.5), looking south (yaw 0): chests face north
    a, b = (9, 65, 10), (10, 65, 10)
    _place_chest(game, p, (a[0], a[1] - 1, a[2]))
    assert _props(game, a)["type"] == "single" and _props(game, a)["facing"] == "north"
    _place_chest(game, p, (b[0], b[1] - 1, b[2]))
    # facing north, its partner a lies west, on its counter-clockwise side: the new chest is `right`, a `left`
    # (ChestBlock.getStateForPlacement; a left half's partner is on its clockwise side)
    assert (_props(game, b)["type"], _props(game, a)["type"]) == ("right", "left")
    game.chests.chest_at(a).slots[0] = Stack("minecraft:oak_log", 3)
    game.chests.chest_at(b).slots[26] = Stack("minecraft:cobblestone", 5)
    p.sent.clear()
    use_block(game, p, a)
    (ow,) = p.packets("open_window")
    assert menu_type_name(ow.inventory_type) == "minecraft:generic_9x6"
    assert json.loads(ow.window_title) == {"translate": "container.chestDouble"}
    items = p.packets("window_items")[-1].items
    assert len(items) == 54 + 36
    # the right half (b) first: its slot 26 is window slot 26; the left half's slot 0 is window slot 27
    assert (items[26].item_id, items[26].count) == (facts.item_id("cobblestone"), 5)
    assert (items[27].item_id, items[27].count) == (facts.item_id("oak_log"), 3)
    lids = sorted((x.location, x.action_param) for x in p.packets("block_action"))
    assert lids == [(a, 1), (b, 1)]  # one lid action per half
    click(game, p, ow.window_id, 26, 0, 1)  # shift-click the right half's cobblestone into the inventory
    assert game.chests.chest_at(b).slots[26] is None and bare(p.inventory.slots[44]) == ("cobblestone", 5)
    # breaking the left half closes the window, drops its logs, tells the other lid, leaves a single chest
    p.sent.clear()
    game.digging.break_block(None, a)
    assert p.packets("close_window") and game.windows.menu_of(p) is None
    assert [(x.location, x.action_param) for x in p.packets("block_action")] == [(b, 0)]
    assert _props(game, b)["type"] == "single"
    assert any(it.item == "minecraft:oak_log" and it.count == 3 for it in game.kernel.items.values())
    # /setblock a chest of the matching type beside a single one pairs them again
    game.commands.executor.rcon_handler()(f"setblock {a[0]} {a[1]} {a[2]} chest[facing=north,type=left]")
    assert _props(game, b)["type"] == "right"
    # a chest above a half changes neither (vanilla pairs only horizontal neighbours)
    game.commands.executor.rcon_handler()(f"setblock {b[0]} {b[1] + 1} {b[2]} chest[facing=north,type=left]")
    assert (_props(game, b)["type"], _props(game, a)["type"]) == ("right", "left")


def test_sneaking_against_a_chest_side_pairs_with_it(world: Path, fake_player) -> None:
    game = new_game(world)
    p = fake_player(game)
    a = (9, 65, 10)
    _place_chest(game, p, (a[0], a[1] - 1, a[2]))  # faces north
    p.sneaking = True
    p.yaw = 90.0  # looking west: on its own a chest would face east
    p.inventory.slots[36] = Stack("minecraft:chest", 1)
    use_block(game, p, a, face=5)  # the east face of chest a
    b = (10, 65, 10)
    # it takes a's facing; a lies west of it, counter-clockwise of north: `right` (a becomes `left`)
    assert (_props(game, b)["facing"], _props(game, b)["type"], _props(game, a)["type"]) == (
        "north",
        "right",
        "left",
    )


# ---- joining: spawnRadius, default game mode, ops.json ------------------------------------------------


def test_spawn_radius_spreads_joins_and_zero_keeps_the_spawn(world: Path) -> None:
    game = new_game(world)
    sx, sy, sz = game.world.level.spawn
    assert join(game, FakePlayer("exact")).pos == [sx + 0.5, float(sy), sz + 0.5]  # controls: spawnRadius 0
    game.commands.executor.rcon_handler()("gamerule spawnRadius 4")
    spots = {tuple(join(game, FakePlayer(f"p{i}")).pos) for i in range(6)}
    assert len(spots) > 1
    for x, y, z in spots:
        assert abs(x - (sx + 0.5)) <= 4 and abs(z - (sz + 0.5)) <= 4 and x % 1 == z % 1 == 0.5
        below = game.world.get_block(int(x // 1), int(y) - 1, int(z // 1))
        assert facts.collision_boxes(below) and facts.is_air(
            game.world.get_block(int(x // 1), int(y), int(z // 1))
        )


def test_default_game_mode_and_ops_file(world: Path, tmp_path: Path) -> None:
    ops_file = tmp_path / "ops.json"
    game = new_game(world, default_game_mode="creative", ops_file=ops_file, ops=["boss"])
    p = join(game, FakePlayer("newbie"))
    (login,) = p.packets("join_game")
    assert login.game_mode == 1 and game.admin.game_mode(p) == "creative"
    (info,) = p.packets("player_list_item")[:1]
    assert info.entries[-1].gamemode == 1
    rcon = game.commands.executor.rcon_handler()
    assert rcon("defaultgamemode adventure") == "The default game mode is now Adventure Mode"
    assert game.admin.game_mode(join(game, FakePlayer("later"))) == "adventure"
    assert game.admin.game_mode(p) == "creative"  # players already known keep theirs
    assert rcon("op newbie") == "Made newbie a server operator"
    assert [e["name"] for e in json.loads(ops_file.read_text())] == ["boss", "newbie"]
    assert (p.eid, 28) in [(s.entity_id, s.status) for s in p.packets("entity_status")]  # 24 + level 4
    assert rcon("op newbie") == "Nothing changed. The player already is an operator"
    assert rcon("op nobody") == "That player does not exist"
    assert rcon("deop newbie") == "Made newbie no longer a server operator"
    assert [e["name"] for e in json.loads(ops_file.read_text())] == ["boss"]
    again = new_game(world, ops_file=ops_file)  # read back at start
    assert again.commands.executor.ops.is_op("boss") and not again.commands.executor.ops.is_op("newbie")


# ---- handshakes: status for any protocol, vanilla's disconnect for a wrong one ------------------------------


class _Handshake(protocol.Protocol):
    """Sends a handshake (and a status request or login start) and collects the answer's first packet."""

    def __init__(self, version: int, intention: int) -> None:
        self.version, self.intention = version, intention
        self.data = b""
        self.done: defer.Deferred = defer.Deferred()

    def connectionMade(self) -> None:  # noqa: N802 - Twisted API
        host = b"localhost"
        hs = (
            b"\x00"
            + _varint(self.version)
            + _varint(len(host))
            + host
            + b"\x63\xdd"
            + _varint(self.intention)
        )
        nxt = b"\x00" if self.intention == 1 else b"\x00" + _varint(3) + b"bot" + b"\x00"
        self.transport.write(_varint(len(hs)) + hs + _varint(len(nxt)) + nxt)

    def dataReceived(self, data: bytes) -> None:  # noqa: N802 - Twisted API
        self.data += data

    def connectionLost(self, reason: object = None) -> None:  # noqa: N802 - Twisted API
        if not self.done.called:
            self.done.callback(self.data)


def _varint(n: int) -> bytes:
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def _read_varint(data: bytes, i: int = 0) -> tuple[int, int]:
    n = shift = 0
    while True:
        b = data[i]
        n |= (b & 0x7F) << shift
        i += 1
        shift += 7
        if not b & 0x80:
            return n, i


async def _exchange(port: int, version: int, intention: int, timeout: float = 5.0) -> bytes:
    proto = _Handshake(version, intention)
    await protocol.ClientCreator(reactor, lambda: proto).connectTCP("127.0.0.1", port)
    if intention == 1:
        reactor.callLater(timeout / 5, proto.transport.loseConnection)  # status: the answer comes at once
    return await proto.done.addTimeout(timeout, reactor)


@pytest_twisted.ensureDeferred
async def test_status_for_any_protocol_and_vanilla_disconnect_for_a_wrong_login(start_server) -> None:
    server = start_server(rcon_port=None)
    for version in (767, 760, 47):
        data = await _exchange(server.port, version, 1)
        length, i = _read_varint(data)
        ident, i = _read_varint(data, i)
        size, i = _read_varint(data, i)
        status = json.loads(data[i : i + size])
        assert ident == 0 and status["version"] == {"name": "1.19.2", "protocol": 760}, status
        assert status["players"] == {"max": 20, "online": 0} and status["description"]["text"]
    for version, key in (
        (765, "multiplayer.disconnect.incompatible"),
        (47, "multiplayer.disconnect.outdated_client"),
    ):
        data = await _exchange(server.port, version, 2)
        length, i = _read_varint(data)
        ident, i = _read_varint(data, i)
        size, i = _read_varint(data, i)
        assert ident == 0  # login disconnect
        assert json.loads(data[i : i + size]) == T(key, "1.19.2")


def test_serve_flags_for_ops_and_the_default_game_mode(world: Path) -> None:
    import argparse

    from mirrorcraft.harness.serve_cli import add_serve_parser, player_settings

    parser = argparse.ArgumentParser()
    add_serve_parser(parser.add_subparsers())
    args = parser.parse_args(
        ["serve", "--world", str(world), "--op", "alice", "--op", "bob", "--gamemode", "creative"]
    )
    settings = player_settings(args, world)
    assert settings == {
        "ops": ["alice", "bob"],
        "ops_file": world.parent / "ops.json",
        "default_game_mode": "creative",
    }
    game = new_game(world, **settings)
    rcon = game.commands.executor.rcon_handler()
    p = join(game, FakePlayer("carol"))
    assert game.admin.game_mode(p) == "creative" and game.commands.executor.ops.is_op("alice")
    assert rcon("op carol") == "Made carol a server operator"
    assert [e["name"] for e in json.loads((world.parent / "ops.json").read_text())] == [
        "alice",
        "bob",
        "carol",
    ]
    in_place = parser.parse_args(["serve", "--world", str(world), "--in-place"])
    assert player_settings(in_place, world)["ops_file"] is None  # never written beside a user's own save
