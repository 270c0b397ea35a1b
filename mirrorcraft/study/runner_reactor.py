"""One Twisted reactor per worker process, run in a dedicated thread, that many episodes are submitted to.

Why a thread: a Twisted reactor cannot be restarted once stopped (``ReactorNotRestartable``), yet the study
driver calls a *blocking* ``run_episode(identity) -> EpisodeRecord`` once per episode in long-lived worker
processes (:class:`~mirrorcraft.study.executors.LocalExecutor`, Ray tasks). So the first call starts the
global reactor with ``reactor.run(installSignalHandlers=False)`` in a daemon thread of that process and
every episode, that one included, is handed to it with :func:`twisted.internet.threads.blockingCallFromThread`;
the reactor keeps running between episodes and dies with the process. The embedded server, the body and
the agent loop of an episode all run on that one reactor thread (architecture principle 5).

Two situations are refused with a clear error instead of deadlocking:

* calling :func:`call_on_reactor` *from* the reactor thread (an ``async`` caller already on the reactor must
  ``await`` the coroutine instead, as the tests do under pytest-twisted);
* a reactor that some other code runs in the main thread of the process but that this module did not
  start (the main thread would be blocked waiting for itself).

**Twisted's log buffer** (the leak of a long-lived worker, issue 23): until someone calls
``globalLogBeginner.beginLoggingTo``, Twisted keeps every log event in a ``LimitedHistoryLogObserver`` of up
to 65,536 events, and an event holds its source: ``Starting factory <_Factory>`` pins each episode's
protocol factory, hence its embedded server, its whole game (world columns, rules, recipes, loot tables)
and the body — about 45 MB per episode, measured: RSS 174 → 446 MB over 7 one-action episodes
(``benchmarks/memory_flatness.py``). :func:`ensure_reactor_thread` therefore routes Twisted's log to the
standard :mod:`logging` (``STDLibLogObserver``, logger ``twisted``) before it starts the reactor, unless
the process already began logging elsewhere (:func:`route_twisted_log`).

``twisted.internet.task.react`` is the alternative for a process that runs exactly one batch of episodes
and then exits; the thread form is used because the study workers are reused across episodes.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from twisted.internet import defer, threads

from mirrorcraft.errors import ContractError

T = TypeVar("T")

_lock = threading.Lock()
_thread: threading.Thread | None = None


def _reactor() -> Any:
    from twisted.internet import reactor

    return reactor


def reactor_thread() -> threading.Thread | None:
    """The thread running the reactor if this module started it, else None."""
    return _thread


def route_twisted_log() -> bool:
    """Begin Twisted's logging to the standard :mod:`logging` if nobody has yet (module docstring); the
    events buffered so far are passed on, then the buffer is gone. Returns True when it did so."""
    from twisted.logger import STDLibLogObserver, globalLogBeginner

    if getattr(globalLogBeginner, "_temporaryObserver", None) is None:
        return False  # logging already begun (a tool or test chose its own observer)
    globalLogBeginner.beginLoggingTo([STDLibLogObserver()], redirectStandardIO=False)
    return True


def ensure_reactor_thread(timeout: float = 10.0) -> threading.Thread:
    """Start the global reactor in a daemon thread (once per process) and wait until it runs.

    Returns:
        The reactor thread.

    Raises:
        ContractError: the reactor is already run by someone else, or did not start within ``timeout``.
    """
    global _thread
    reactor = _reactor()
    with _lock:
        if _thread is not None and _thread.is_alive():
            return _thread
        if reactor.running:
            raise ContractError(
                "the Twisted reactor is already running in this process but was not started by the episode "
                "runner: call the async runner (EpisodeRunner.run) from a coroutine on that reactor instead"
            )
        route_twisted_log()
        started = threading.Event()
        reactor.callWhenRunning(started.set)
        _thread = threading.Thread(
            target=reactor.run,
            kwargs={"installSignalHandlers": False},
            name="mirrorcraft-reactor",
            daemon=True,
        )
        _thread.start()
    if not started.wait(timeout):
        raise ContractError(f"the Twisted reactor thread did not start within {timeout}s")
    return _thread


def call_on_reactor(fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """Run the coroutine function ``fn(*args, **kwargs)`` on the reactor thread and block for its result.

    Exceptions raised by the coroutine are re-raised in the calling thread.

    Raises:
        ContractError: called from the reactor thread itself (it would wait for itself forever).
    """
    thread = ensure_reactor_thread()
    if threading.current_thread() is thread:
        raise ContractError("call_on_reactor was called on the reactor thread: await the coroutine instead")
    return threads.blockingCallFromThread(_reactor(), lambda: defer.ensureDeferred(fn(*args, **kwargs)))  # type: ignore[no-any-return]
