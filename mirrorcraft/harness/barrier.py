"""The tick barrier: wait until the server has processed everything the body sent for an action.

Why: Score is read after each action only once the server has processed the action's effects. The body's
last packets of an action are written to the loopback socket on the next reactor iteration after the skill
returns; the embedded server reads them on a later iteration, and its tick loop (a ``LoopingCall``) runs at
the start of an iteration, before I/O. So, in-process, the barrier waits until the server's tick counter
has advanced by ``ticks`` (default 2): the second tick runs on an iteration after the one in which the
body's bytes became readable, so every packet of the action was handled and the tick that follows it
(pickups, item physics, advancement checks) ran. With the server in a child process the counter is not
visible; the barrier then waits ``ticks`` tick periods of wall time plus two reactor iterations, a weaker
guarantee that is recorded in the episode's run notes (``barrier: wall``). Over RCON (a vanilla server)
:class:`~mirrorcraft.harness.control.RconServerControl` is itself the barrier: RCON replies are produced
between ticks on the server's main thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import task

__all__ = ["tick_barrier"]


async def _iteration(clock: Any) -> None:
    await task.deferLater(clock, 0, lambda: None)


async def tick_barrier(
    clock: Any,
    server_ticks: Callable[[], int] | None,
    tick_rate: float,
    ticks: int = 2,
    timeout: float = 5.0,
) -> str:
    """Wait until the server has processed everything the body sent so far (module docstring).

    Args:
        clock: the reactor.
        server_ticks: returns the in-process server's tick counter; None for a server in another process.
        tick_rate: server ticks per second.
        ticks: how many server ticks to wait for.
        timeout: wall seconds after which the in-process wait gives up (a stalled tick loop).

    Returns:
        ``"ticks"`` (counter observed), ``"wall"`` (timed wait) or ``"timeout"``.
    """
    if server_ticks is None:
        await task.deferLater(clock, ticks / tick_rate, lambda: None)
        await _iteration(clock)
        await _iteration(clock)
        return "wall"
    start = server_ticks()
    deadline = clock.seconds() + timeout
    step = min(0.01, 0.25 / tick_rate)
    while server_ticks() < start + ticks:
        if clock.seconds() > deadline:
            return "timeout"
        await task.deferLater(clock, step, lambda: None)
    return "ticks"
