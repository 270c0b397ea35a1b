"""The body: a pure-Python Minecraft 1.19.2 / 1.19 player on quarry, replacing Mineflayer.

One module per feature, each a class given the modules it depends on (see docs/body.md):
``connection`` (login, keep-alive, teleports, tracing; drops recipe/tag packets unparsed), ``world``
(numpy chunk columns), ``entities``, ``inventory`` + ``windows`` (clicks with vanilla prediction),
``digging`` (vanilla break time), ``placing``, ``physics`` + ``movement`` (20 Hz), ``health``,
``advancements``, and ``bot.Body`` wiring them. It never imports :mod:`mirrorcraft.server`.
"""

from mirrorcraft.mcproto_body.bot import Body
from mirrorcraft.mcproto_body.connection import DROPPED_PACKETS, BodyConfig, Connection
from mirrorcraft.mcproto_body.digging import DigResult, dig_ticks
from mirrorcraft.mcproto_body.placing import PlaceResult
from mirrorcraft.mcproto_body.world import World

__all__ = [
    "DROPPED_PACKETS",
    "Body",
    "BodyConfig",
    "Connection",
    "DigResult",
    "PlaceResult",
    "World",
    "dig_ticks",
]
