"""Tick functions: scenario logic installed by the harness, run at the start of every game tick.

Why a feature of its own: vanilla runs a datapack's ``#minecraft:tick`` functions first in a server tick
(``MinecraftServer.tickChildren`` ticks the function manager before any level ticks), and that is where a
scenario's judge belongs — PillagerBench's judges regrow mushrooms, re-pollute slime, score inventories.
The judges are benchmark logic hidden from agents (:mod:`mirrorcraft.harness.judges`), so the server knows
none of them: the harness installs a callable here and the server calls it once per tick with the tick
number, before the items phase, as vanilla would call a tick function.

Partial: ``.mcfunction`` files of a datapack are not read or run (no world in the benchmark ships one); only
installed Python callables run. A function that raises is logged and removed, so a broken judge never stops
the tick loop (the episode records the judge's fault).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from mirrorcraft.server.kernel import Kernel

log = logging.getLogger(__name__)

TickFunction = Callable[[int], object]


class TickFunctions:
    """The installed tick functions, run in installation order at the start of each tick."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self._functions: list[tuple[str, TickFunction]] = []
        #: ``(name, repr(error))`` of every function removed because it raised.
        self.failed: list[tuple[str, str]] = []

    def install(self, name: str, fn: TickFunction) -> None:
        """Run ``fn(tick)`` every tick from the next one on (``name`` identifies it in logs and faults)."""
        self._functions.append((name, fn))

    def remove(self, name: str) -> None:
        """Stop running the functions installed under ``name``."""
        self._functions = [(n, f) for n, f in self._functions if n != name]

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self._functions]

    def tick(self) -> None:
        tick = self.kernel.tick_count
        for name, fn in list(self._functions):
            try:
                fn(tick)
            except Exception as err:  # noqa: BLE001 - a judge's bug must not stop the game
                log.exception("tick function %s failed at tick %d; removed", name, tick)
                self.failed.append((name, repr(err)))
                self.remove(name)
