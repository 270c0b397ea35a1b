"""Many episodes per process: the bounded model-call gate every episode of a worker process shares.

Why: an LLM episode spends most of its wall time waiting for the model, so a worker runs several episodes
at once on its one reactor (``--concurrency N``; :class:`~mirrorcraft.study.executors.InProcessExecutor`
and :class:`~mirrorcraft.study.executors.LocalExecutor` give each episode its own thread that blocks in
:func:`~mirrorcraft.study.runner_reactor.call_on_reactor`, while the episodes themselves — world copy,
embedded server, body, agent — all run on the reactor thread). What must then be bounded is not the
episodes but the **model calls in flight**: an API's rate limit, a local vLLM's batch size. The bound is a
:class:`twisted.internet.defer.DeferredSemaphore` per process, taken around each
:meth:`~mirrorcraft.agents.llm.LLMClient.acomplete` by :class:`BoundedLLM`, a thin proxy the runner puts
around the agent's client (``agents/llm.py`` itself is unchanged). Waiting for a slot costs no game time
in lockstep (the agent is deciding; no tick runs) and never blocks the reactor.

``LLMClient.acomplete`` runs the blocking call with ``deferToThread`` on the reactor's thread pool, whose
default maximum is 10 threads: with more episodes than that waiting on the model, calls would queue there,
unbounded by any setting. :func:`model_call_gate` therefore raises the pool to the gate's size (plus a few
threads for other users of the pool).

**Setups are bounded too.** An episode's setup — world copy, server start, the body's join and its first
chunks — is pure CPU on the shared reactor; 64 episodes starting at once each got 1/64 of it, and every
join hit its 30 s ``spawn_timeout`` (measured: 192 ``server_error`` faults, no episode played, in
``benchmarks/llm_bound.py`` at 64 in flight). So at most ``max_setups`` episodes of a process set up at
once (:func:`setup_gate`, default :data:`DEFAULT_MAX_SETUPS`); the others queue before their world copy,
and the run notes say how long (``seconds.queued``). Setup is CPU-bound, so queuing costs nothing in
throughput; the long waits — the model's — overlap freely.

A scripted-policy benchmark that fakes only the model's latency (``benchmarks/llm_bound.py``) takes the
same gate (:func:`model_call_gate`), so it measures the same bound a real study has.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from twisted.internet import defer

T = TypeVar("T")

#: Model calls a worker process has in flight at most, by default (``--max-model-calls``).
DEFAULT_MAX_MODEL_CALLS = 16
#: Episodes of one process in their setup at once, by default (:func:`setup_gate`).
DEFAULT_MAX_SETUPS = 2
#: Reactor pool threads kept beyond the gate's size (DNS lookups and other ``deferToThread`` users).
SPARE_THREADS = 4

_gates: dict[int, defer.DeferredSemaphore] = {}
_setup_gates: dict[int, defer.DeferredSemaphore] = {}
_lock = threading.Lock()


def model_call_gate(limit: int = DEFAULT_MAX_MODEL_CALLS) -> defer.DeferredSemaphore:
    """The process's semaphore of ``limit`` model-call slots (one per limit, shared by every episode).

    Call on the reactor thread (the semaphore's Deferreds fire there). Also makes the reactor's thread
    pool large enough for ``limit`` blocking calls at once (module docstring).

    Raises:
        ValueError: ``limit`` < 1.
    """
    if limit < 1:
        raise ValueError(f"max model calls must be >= 1, got {limit}")
    with _lock:
        gate = _gates.get(limit)
        if gate is None:
            gate = _gates[limit] = defer.DeferredSemaphore(limit)
            from twisted.internet import reactor

            biggest = max(_gates)
            reactor.suggestThreadPoolSize(max(10, biggest + SPARE_THREADS))  # type: ignore[attr-defined]
    return gate


def setup_gate(limit: int = DEFAULT_MAX_SETUPS) -> defer.DeferredSemaphore:
    """The process's semaphore of ``limit`` episode-setup slots (module docstring; one per limit).

    Raises:
        ValueError: ``limit`` < 1.
    """
    if limit < 1:
        raise ValueError(f"max setups must be >= 1, got {limit}")
    with _lock:
        return _setup_gates.setdefault(limit, defer.DeferredSemaphore(limit))


class Slot:
    """One slot of a semaphore, released at most once (early on success, in ``finally`` on failure)."""

    def __init__(self, gate: defer.DeferredSemaphore) -> None:
        self.gate = gate
        self.held = False

    async def acquire(self) -> None:
        await self.gate.acquire()
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.gate.release()


async def gated(gate: defer.DeferredSemaphore, fn: Callable[[], Awaitable[T]]) -> T:
    """Await ``fn()`` holding one slot of ``gate`` (released however ``fn`` ends)."""
    await gate.acquire()
    try:
        return await fn()
    finally:
        gate.release()


class BoundedLLM:
    """An :class:`~mirrorcraft.agents.llm.LLMClient` whose :meth:`acomplete` waits for a slot of ``gate``.

    Everything else (``meter``, ``settings``, ``complete``…) is the wrapped client's, so the agents and the
    record see the same client (usage, recording, replay, cost caps, the hard timeout).
    """

    def __init__(self, inner: Any, gate: defer.DeferredSemaphore) -> None:
        self._inner = inner
        self._gate = gate

    @property
    def inner(self) -> Any:
        """The wrapped client."""
        return self._inner

    async def acomplete(self, messages: list[dict[str, str]], purpose: Any = "action") -> Any:
        """The wrapped client's ``acomplete`` inside one slot of the process's model-call gate."""
        return await gated(self._gate, lambda: self._inner.acomplete(messages, purpose))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


__all__ = [
    "DEFAULT_MAX_MODEL_CALLS",
    "DEFAULT_MAX_SETUPS",
    "BoundedLLM",
    "Slot",
    "gated",
    "model_call_gate",
    "setup_gate",
]
