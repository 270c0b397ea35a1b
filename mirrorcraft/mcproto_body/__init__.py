"""The body: a pure-Python Minecraft 1.19.2 / 1.19 player on quarry, replacing Mineflayer.

One module per feature, each a class given the modules it depends on (see docs/body.md):
``connection`` (login, keep-alive, teleports, tracing; drops recipe/tag packets unparsed), ``world``
(numpy chunk columns), ``entities``, ``inventory`` + ``windows`` (clicks with vanilla prediction),
``digging`` (vanilla break time), ``placing``, ``physics`` + ``movement`` (one tick per server
game tick), ``tickrate`` (the server's announced rate, 20 by default), ``lockstep`` (the body's clock
and its side of a lockstep server's tick barrier, docs/lockstep.md), ``health``, ``advancements``,
``plants`` (crop ages), ``using`` (use on blocks and entities, toss), ``chat``, ``scoreboard``, and
``bot.Body`` wiring them. It never imports :mod:`mirrorcraft.server`.
"""

from mirrorcraft.mcproto_body.bot import Body
from mirrorcraft.mcproto_body.connection import DROPPED_PACKETS, BodyConfig, Connection
from mirrorcraft.mcproto_body.digging import DigResult, dig_ticks
from mirrorcraft.mcproto_body.placing import PlaceResult
from mirrorcraft.mcproto_body.tickrate import TICK_RATE_CHANNEL, GameClock, seconds_to_ticks, ticks_to_seconds
from mirrorcraft.mcproto_body.world import World

__all__ = [
    "DROPPED_PACKETS",
    "Body",
    "BodyConfig",
    "Connection",
    "DigResult",
    "GameClock",
    "PlaceResult",
    "TICK_RATE_CHANNEL",
    "World",
    "dig_ticks",
    "seconds_to_ticks",
    "ticks_to_seconds",
]
