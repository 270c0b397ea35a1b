"""The embedded Minecraft 1.19.2 server (protocol 760, also 1.19 = 759): plays an Anvil save with its
datapacks — a kernel (:mod:`~mirrorcraft.server.kernel`), one feature module per mechanic
(:mod:`~mirrorcraft.server.features`) and the composition root that builds them (:mod:`~mirrorcraft.server.game`).

Public API (imported lazily so ``mirrorcraft.harness.serve_cli`` stays cheap for ``--help``):

* :class:`ServerConfig` — world, bind address, tick rate, view distance, seeds, controls;
* :class:`EmbeddedServer` — ``start() -> port`` on the running Twisted reactor, ``stop()``, ``save()``,
  ``subscribe(listener)`` (published events, the evaluator's outcomes among them) and the test hook
  (``give_item``, ``set_block``, ``teleport``, ``inventory``...);

The same server in a child process is :class:`mirrorcraft.harness.process.ServerProcess` (the harness).

See docs/server.md for behaviour, deliberate deviations from vanilla, and what is not done yet.
"""

from __future__ import annotations

from typing import Any

__all__ = ["EmbeddedServer", "ServerConfig"]


def __getattr__(name: str) -> Any:
    if name == "EmbeddedServer":
        from mirrorcraft.server.embedded import EmbeddedServer

        return EmbeddedServer
    if name == "ServerConfig":
        from mirrorcraft.server.config import ServerConfig

        return ServerConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
