"""Lockstep's quiet ticks (issue 23, CPU): the done offered with a tick's first flush round.

Real embedded server and body over 127.0.0.1. A tick in which the server sends the body nothing after the
announcement takes one round trip (``tick_sync_done`` taken as the done, no echo); a tick in which the
server answers something the body sent (here a chat line, echoed to its sender at once) still gets the
echo, so the body handles the answer *before* its done, as with the plain flush rounds.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest_twisted
from twisted.internet import reactor, task

from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer


@pytest_twisted.ensureDeferred
async def test_quiet_ticks_take_one_round_trip_and_replies_come_before_the_done(
    sandbox_template: Path, tmp_path: Path
) -> None:
    world = tmp_path / "world"
    shutil.copytree(sandbox_template, world)
    srv = EmbeddedServer(
        ServerConfig(
            world=world, port=0, view_distance=4, clock="lockstep", lockstep_paced=False, episode_seed=7
        )
    )
    srv.start()
    body = Body(BodyConfig(port=srv.port, username="quiet", view_distance=4))
    try:
        await body.connect()
        end = time.monotonic() + 5.0
        while body.lockstep.announced is None:
            assert time.monotonic() < end, "the lockstep offer never came"
            await task.deferLater(reactor, 0.01, lambda: None)
        channel = srv.game.lockstep
        assert channel is not None
        heard: list[tuple[int | None, int | None, str]] = []
        body.chat.on_line(lambda line: heard.append((body.lockstep.tick, body.lockstep.acked, line.text)))
        with body.lockstep.acting():
            await body.movement.wait_ticks(20)
            quiet, rounds = channel.quiet_dones, body.lockstep.sync_rounds
            said_at = body.lockstep.tick
            body.chat.say("hello")  # sent within tick said_at, before its first flush round
            await body.movement.wait_ticks(5)
        assert rounds >= 20 and quiet >= rounds - 3  # standing still: (almost) every tick is quiet
        assert channel.rejected == 0
        mine = [h for h in heard if "hello" in h[2]]
        assert mine, f"the chat line never came back: {heard}"
        tick, acked, _ = mine[0]
        assert tick == said_at and acked is not None and acked < said_at  # handled before tick said_at's done
        assert channel.quiet_dones - quiet < body.lockstep.sync_rounds - rounds  # that tick was echoed
    finally:
        await body.disconnect()
        await srv.stop()
