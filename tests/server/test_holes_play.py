"""Server holes (issue 22 part 3) in play: movement, container distance and chat abuse, each against vanilla
1.19.2's behaviour, on the real embedded server over real sockets (:mod:`support.rawclient` writes every
byte; vanilla's classes are named in each test)."""

from __future__ import annotations

import time
from typing import Any

import pytest
import pytest_twisted
from support.rawclient import login, until
from twisted.internet import task

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.stack import Stack


def _sleep(seconds: float) -> Any:
    from twisted.internet import reactor

    return task.deferLater(reactor, seconds, lambda: None)


def _events(srv: Any) -> list[tuple[str, dict]]:
    out: list[tuple[str, dict]] = []
    srv.subscribe(lambda ev, data: out.append((ev, data)))
    return out


async def _settled(srv: Any, name: str) -> Any:
    """The game player ``name`` once its teleport is confirmed."""
    p = srv.player(name)
    assert await until(lambda: p.pending_teleport is None)
    return p


def _clear(srv: Any, x0: int, x1: int, y: int, z: int) -> None:
    """A flat stone path along x at feet height ``y``: stone below, two air blocks above, at ``z``."""
    for x in range(x0, x1 + 1):
        for dz in (-1, 0, 1):
            srv.set_block(x, y - 1, z + dz, "stone")
            for dy in (0, 1, 2):
                srv.set_block(x, y + dy, z + dz, "air")


@pytest_twisted.ensureDeferred
async def test_a_burst_of_moves_in_one_tick_is_refused_and_a_sustained_two_blocks_a_tick_is_legal(
    start_server, sandbox_info
) -> None:
    """``handleMovePlayer``: squared distance from the tick's start position > 100 x packets this tick (more
    than 5 count as 1) → "moved too quickly", teleport back."""
    srv = start_server("burst", tick_rate=20)
    events = _events(srv)
    c = await login(srv.port, "burster")
    sx, sy, sz = sandbox_info["spawn"]
    air = (sx + 0.5, sy + 40.0, sz + 0.5)  # open sky: nothing to collide with
    srv.teleport("burster", *air)
    p = await _settled(srv, "burster")
    # 40 packets of 2 blocks each in one write: before the fix x went 0.5 -> 78.5
    c.send_raw(
        b"".join(
            c.framed(sb.PlayerPosition(x=air[0] + 2 * k, y=air[1], z=air[2], on_ground=False))
            for k in range(1, 41)
        )
    )
    assert await until(
        lambda: any(
            d.get("reason") == "moved too quickly" for _, d in [e for e in events if e[0] == "move_refused"]
        )
    )
    await _settled(srv, "burster")
    moved = p.pos[0] - air[0]
    assert moved <= 10.0 + 1e-9, moved  # 5 packets of 2 blocks, then refused
    # sustained: one 2-block move per tick for 15 ticks is legal
    events.clear()
    start = p.pos[0]
    for k in range(1, 16):
        c.move(start + 2 * k, air[1], air[2], on_ground=False)
        await _sleep(0.075)  # a 20 t/s tick passes between moves
    assert await until(lambda: p.pos[0] == start + 30)
    assert [e for e in events if e[0] == "move_refused"] == []
    c.transport.loseConnection()


@pytest_twisted.ensureDeferred
async def test_no_move_passes_through_a_one_block_wall(start_server, sandbox_info) -> None:
    """``Entity.collide`` of the move from the last good position: ending > 0.0625 blocks² from where the
    collisions allow → "moved wrongly" (one big packet); small steps into the wall → refused as well."""
    srv = start_server("wall", tick_rate=20)
    events = _events(srv)
    sx, sy, sz = sandbox_info["spawn"]
    y = sy + 20  # a platform in the air, away from terrain
    _clear(srv, sx - 1, sx + 6, y, sz)
    for dy in (0, 1, 2):
        for dz in (-1, 0, 1):
            srv.set_block(sx + 3, y + dy, sz + dz, "stone")  # the wall: x sx+3, one block thick
    c = await login(srv.port, "ghost")
    srv.teleport("ghost", sx + 0.5, float(y), sz + 0.5)
    p = await _settled(srv, "ghost")
    c.move(sx + 0.5, float(y), sz + 0.5)
    # one packet through the wall (1.2 blocks past it: 16 blocks² is not too quick)
    c.move(sx + 4.5, float(y), sz + 0.5)
    assert await until(lambda: ("move_refused", {"player": "ghost", "reason": "moved wrongly"}) in events)
    p = await _settled(srv, "ghost")
    assert p.pos[0] == sx + 0.5
    # up to the wall in small steps, then one 1.8-block hop to behind it (before: accepted, it ends in air)
    for k in range(1, 12):
        c.move(sx + 0.5 + 0.2 * k, float(y), sz + 0.5)
        await _sleep(0.06)
    assert abs(p.pos[0] - (sx + 2.7)) < 1e-9
    events.clear()
    c.move(sx + 4.4, float(y), sz + 0.5)
    assert await until(lambda: ("move_refused", {"player": "ghost", "reason": "moved wrongly"}) in events)
    p = await _settled(srv, "ghost")
    assert abs(p.pos[0] - (sx + 2.7)) < 1e-9
    srv.teleport("ghost", sx + 0.5, float(y), sz + 0.5)
    p = await _settled(srv, "ghost")
    # small steps: the one that enters the wall is refused, nothing ever gets past x = sx + 3
    for k in range(1, 40):
        c.move(sx + 0.5 + 0.2 * k, float(y), sz + 0.5)
        await _sleep(0.01)
    await _sleep(0.2)
    assert p.pos[0] <= sx + 3 - 0.3 + 1e-9, p.pos
    assert any(e[0] == "move_refused" for e in events)
    c.transport.loseConnection()


@pytest_twisted.ensureDeferred
async def test_hovering_is_kicked_after_80_ticks_counted_in_the_clients_packets(
    start_server, sandbox_info
) -> None:
    """``tick``: floating (only air around, no flight allowed) for more than 80 ticks kicks with
    ``multiplayer.disconnect.flying``. At 100 t/s the count is the client's: 80 of its move packets (or 4 s
    at 20 a second, whichever comes first)."""
    srv = start_server("hover", tick_rate=100)
    sx, sy, sz = sandbox_info["spawn"]
    c = await login(srv.port, "hoverer")
    srv.teleport("hoverer", sx + 0.5, sy + 30.0, sz + 0.5)
    await _settled(srv, "hoverer")
    sent, t0 = 0, time.monotonic()
    while not c.is_closed and sent < 200:
        c.move(sx + 0.5, sy + 30.0, sz + 0.5, on_ground=False)  # hovering, one packet per server tick
        sent += 1
        await _sleep(0.01)
    assert c.is_closed and c.reason == "Flying is not enabled on this server"
    # not before 80 of its packets (unless 4 s of wall time passed first: a slow reactor), soon after
    assert (sent >= 80 or time.monotonic() - t0 >= 3.9) and sent <= 110, sent


@pytest.mark.npm
@pytest_twisted.ensureDeferred
async def test_a_mineflayer_client_falling_two_seconds_at_100_ticks_per_second_is_not_kicked(
    start_server, spawn_control_bot, sandbox_info, node_modules
) -> None:
    """An honest client's fall of ~40 of its own ticks is ~200 server ticks at 100 t/s: counting server ticks
    would kick it (vanilla's rule at 5x speed); counting the client's own ticks does not."""
    srv = start_server("fall", tick_rate=100)
    events = _events(srv)
    bot = await spawn_control_bot(srv, "faller")
    sx, sy, sz = sandbox_info["spawn"]
    srv.teleport("faller", sx + 0.5, sy + 45.0, sz + 0.5)
    assert await until(lambda: srv.position("faller")[1] < sy + 44.0, timeout=10)
    assert await until(lambda: srv.position("faller")[1] <= sy + 1.0, timeout=10)
    await _sleep(0.5)
    assert "faller" in srv.player_names()
    assert [d for e, d in events if e == "move_refused"] == []
    await bot.cmd("quit")


@pytest_twisted.ensureDeferred
async def test_a_chest_window_closes_beyond_eight_blocks_and_every_click_is_checked(
    start_server, sandbox_info
) -> None:
    """``AbstractContainerMenu.stillValid``: distanceToSqr(block centre) > 64 closes the window each tick
    (``ServerPlayer.tick``) and a click on an invalid menu is not applied (``handleContainerClick``)."""
    srv = start_server("chest", tick_rate=20)
    sx, sy, sz = sandbox_info["spawn"]
    chest_pos = (sx + 2, sy, sz)
    srv.set_block(*chest_pos, "chest")
    srv.set_block(chest_pos[0], sy + 1, chest_pos[2], "air")  # nothing keeps the lid shut
    srv.game.chests.chest_at(chest_pos).slots[0] = Stack("minecraft:diamond", 10)
    c = await login(srv.port, "looter")
    await _settled(srv, "looter")

    def use() -> None:
        c.send(
            sb.BlockPlace(
                hand=0,
                location=chest_pos,
                direction=1,
                cursor_x=0.5,
                cursor_y=1.0,
                cursor_z=0.5,
                inside_block=False,
                sequence=1,
            )
        )

    def take_all(window: int) -> None:  # shift-click the chest's slot 0
        c.send(
            sb.WindowClick(
                window_id=window,
                state_id=0,
                slot=0,
                mouse_button=0,
                mode=1,
                changed_slots=[],
                cursor_item=None,
            )
        )

    # 1. the tick closes it: teleported 30 blocks away
    use()
    assert await until(lambda: c.decoded("open_window"))
    window = c.decoded("open_window")[-1].window_id
    srv.teleport("looter", sx + 30.5, sy + 30.0, sz + 0.5)
    assert await until(lambda: window in [w.window_id for w in c.decoded("close_window")])
    take_all(window)
    await _sleep(0.2)
    assert srv.game.chests.chest_at(chest_pos).contents() == {"minecraft:diamond": 10}
    assert "diamond" not in {n for n, _ in srv.inventory("looter").values()}
    # 2. the click checks it: no tick between the teleport and the click
    srv.teleport("looter", sx + 0.5, float(sy), sz + 0.5)
    await _settled(srv, "looter")
    closed_before = len(c.decoded("close_window"))
    use()
    assert await until(lambda: len(c.decoded("open_window")) == 2)
    window = c.decoded("open_window")[-1].window_id
    srv.game.kernel.clock.stop()
    try:
        srv.teleport("looter", sx + 30.5, sy + 30.0, sz + 0.5)
        take_all(window)
        assert await until(lambda: len(c.decoded("close_window")) > closed_before)
        assert srv.game.chests.chest_at(chest_pos).contents() == {"minecraft:diamond": 10}
        assert srv.game.windows.menu_of(srv.player("looter")) is None
        # within 8 blocks the same click works (the engine is intact)
        srv.teleport("looter", sx + 0.5, float(sy), sz + 0.5)
        await _settled(srv, "looter")
        use()
        assert await until(lambda: len(c.decoded("open_window")) == 3)
        take_all(c.decoded("open_window")[-1].window_id)
        assert await until(lambda: ("diamond", 10) in srv.inventory("looter").values())
    finally:
        srv.game.kernel.clock.start()
    c.transport.loseConnection()


def _chat(text: str) -> sb.ChatMessage:
    return sb.ChatMessage(
        message=text,
        timestamp=0,
        salt=0,
        signature=b"",
        signed_preview=False,
        previous_messages=[],
        last_rejected=None,
    )


@pytest_twisted.ensureDeferred
async def test_chat_length_and_spam_kick_as_vanilla(start_server) -> None:
    """``readUtf(256)`` of the chat packet (a longer line fails the decoder: the connection closes with its
    message); ``detectRateSpam``: +20 a line, -1 a tick, above 200 kicks (``disconnect.spam``), ops exempt."""
    srv = start_server("chat", tick_rate=20, ops=["boss"])
    ok = await login(srv.port, "fine")
    ok.send(_chat("x" * 256))  # exactly the limit: relayed
    assert await until(lambda: any("x" * 256 in m.content for m in ok.decoded("system_chat")))
    long = await login(srv.port, "long")
    long.send(_chat("y" * 257))
    assert await until(lambda: long.is_closed)
    assert long.reason == (
        "Internal Exception: io.netty.handler.codec.DecoderException: "
        "The received string length is longer than maximum allowed (257 > 256)"
    )
    huge = await login(srv.port, "huge")
    huge.send(
        _chat("z" * 32767)
    )  # 32 KB (the longest string the protocol allows): before the fix "Bad packet (system_chat ...)"
    assert await until(lambda: huge.is_closed)
    assert huge.reason.endswith(
        "The received encoded string buffer length is longer than maximum allowed (32767 > 768)"
    )
    assert not any("z" * 300 in m.content for m in ok.decoded("system_chat"))  # nobody got it
    # spam: 10 lines at once are 200 (not above); the 11th kicks
    spammer = await login(srv.port, "spammer")
    for k in range(10):
        spammer.send(_chat(f"line {k}"))
    await _sleep(0.2)
    assert not spammer.is_closed
    for k in range(3):
        spammer.send(_chat(f"more {k}"))
    assert await until(lambda: spammer.is_closed)
    assert spammer.reason == "Kicked for spamming"
    boss = await login(srv.port, "boss")
    for k in range(30):
        boss.send(_chat(f"op line {k}"))
    await _sleep(0.3)
    assert not boss.is_closed and "boss" in srv.player_names()
    # an honest pace (one line a second = 20 ticks) never accumulates
    assert "fine" in srv.player_names()
    for c in (ok, boss):
        c.transport.loseConnection()
