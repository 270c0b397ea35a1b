"""Server holes (issue 22 part 3): connections that never finish logging in hold no player slot.

Vanilla 1.19.2 counts a player in ``PlayerList.canPlayerLogin`` when its login completes and closes a login
that takes more than 600 ticks (30 s, ``multiplayer.disconnect.slow_login``). Real server, real sockets:
raw handshake-only sockets (:mod:`support.rawclient`) and a real login of our own body.
"""

from __future__ import annotations

import time

import pytest_twisted
from support.rawclient import connect, handshake, login, login_start, until

from mirrorcraft.mcproto_body import Body, BodyConfig


@pytest_twisted.ensureDeferred
async def test_twenty_handshake_only_sockets_do_not_lock_out_a_real_login(start_server) -> None:
    srv = start_server("flood", max_players=20, login_timeout=30.0)
    port = srv.port
    flood = []
    for _ in range(20):
        c = await connect(port)
        c.send_raw(handshake(port))  # 17 bytes: next state login, then nothing
        flood.append(c)
    # one address holds at most 16 connections before play: the 4 oldest were closed
    assert await until(lambda: sum(c.is_closed for c in flood) == 4)
    assert [c.is_closed for c in flood[:4]] == [True] * 4
    assert srv.game.kernel.players.values() == []
    # the project's own body logs in through the flood
    body = Body(BodyConfig(port=port, username="honest", view_distance=2))
    try:
        await body.connect(spawn_timeout=10)
        assert srv.player_names() == ["honest"]
        # a second flood of 20 while the body plays: still nobody locked out, the body still plays
        for _ in range(20):
            c = await connect(port)
            c.send_raw(handshake(port))
            flood.append(c)
        late = await login(port, "late")
        assert sorted(srv.player_names()) == ["honest", "late"]
        assert srv.game.kernel.players.by_name("honest") is not None
        late.transport.loseConnection()
    finally:
        await body.disconnect()
        for c in flood:
            if not c.is_closed:
                c.transport.loseConnection()


@pytest_twisted.ensureDeferred
async def test_idle_logins_time_out_and_a_full_server_counts_only_players(start_server) -> None:
    srv = start_server("timeout", max_players=1, login_timeout=0.5)
    port = srv.port
    idle = await connect(port)
    idle.send_raw(handshake(port))
    silent = await connect(port)  # not even a handshake
    t0 = time.monotonic()
    first = await login(port, "first")  # the one slot: the idle sockets hold none
    assert srv.player_names() == ["first"]
    assert await until(lambda: idle.is_closed and silent.is_closed, timeout=3.0)
    assert 0.4 <= time.monotonic() - t0 <= 2.5
    assert idle.reason == "multiplayer.disconnect.slow_login"  # the client shows "Took too long to log in"
    # the second real login is refused when the login completes: vanilla's server_full
    refused = await connect(port)
    refused.send_raw(handshake(port) + login_start("second"))
    assert await until(lambda: refused.is_closed, timeout=3.0)
    assert refused.reason == "multiplayer.disconnect.server_full"  # "The server is full!"
    assert srv.player_names() == ["first"]
    first.transport.loseConnection()


@pytest_twisted.ensureDeferred
async def test_per_name_memory_is_bounded_to_the_recently_departed(start_server) -> None:
    """Vanilla drops a leaving player's state from memory (``PlayerList.remove`` saves it to
    ``playerdata/``); MirrorCraft keeps the last ``remembered_players`` in memory for a rejoin, no more."""
    srv = start_server("memory", remembered_players=4, view_distance=2)
    g = srv.game
    keeper = await login(srv.port, "keeper")
    g.admin.set_game_mode(srv.player("keeper"), "creative")
    keeper.transport.loseConnection()
    assert await until(lambda: srv.player_names() == [])
    again = await login(srv.port, "keeper")  # within the window: its game mode is remembered
    assert g.admin.game_mode(srv.player("keeper")) == "creative"
    again.transport.loseConnection()
    assert await until(lambda: srv.player_names() == [])
    for i in range(12):
        c = await login(srv.port, f"visitor{i}")
        c.transport.loseConnection()
        assert await until(lambda: srv.player_names() == [])
    per_name = [
        g.admin.players,
        g.advancements.players,
        g.food.players,
        g.effects.players,
        g.experience.players,
    ]
    assert all(len(d) <= 4 for d in per_name), [len(d) for d in per_name]
    assert "keeper" not in g.admin.players and "visitor11" in g.admin.players
    assert g.windows.players == {} and g.movement.states == {}
    late = await login(srv.port, "keeper")  # forgotten: a first join again (the default game mode)
    assert g.admin.game_mode(srv.player("keeper")) == "survival"
    late.transport.loseConnection()


@pytest_twisted.ensureDeferred
async def test_login_names_are_checked_as_vanilla(start_server) -> None:
    """``ServerboundHelloPacket``: ``readUtf(16)``; ``handleHello``: characters 33-126 only."""
    srv = start_server("names")
    for name, reason in [
        ("x" * 17, "Bad packet (ProtocolError: login name of 17 characters: the limit is 16)"),
        ("two words", "Invalid characters in username"),
        ("\u00e9t\u00e9", "Invalid characters in username"),
    ]:
        c = await connect(srv.port)
        c.send_raw(handshake(srv.port) + login_start(name))
        assert await until(lambda c=c: c.is_closed)
        assert c.reason == reason, (name, c.reason)
    ok = await login(srv.port, "x" * 16)
    assert srv.player_names() == ["x" * 16]
    ok.transport.loseConnection()
