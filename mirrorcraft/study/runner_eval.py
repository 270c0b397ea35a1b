"""The runner's evaluator side: the tick barrier, and the harness evaluator used until the server has one.

**Tick barrier** (:func:`tick_barrier`). Score is read after each action only once the server has
processed the action's effects. The body's last packets of an action are written to the loopback socket on
the next reactor iteration after the skill returns; the embedded server reads them on a later iteration,
and its tick loop (a ``LoopingCall``) runs at the start of an iteration, before I/O. So, in-process, the
barrier waits until the server's tick counter has advanced by ``ticks`` (default 2): the second tick runs
on an iteration after the one in which the body's bytes became readable, so every packet of the action was
handled and the tick that follows it (pickups, item physics, advancement checks) ran. With the server in
a child process the counter is not visible; the barrier then waits ``ticks`` tick periods of wall time
plus two reactor iterations, a weaker guarantee that is recorded in the episode's run notes
(``barrier: wall``). Over RCON (a vanilla server) :class:`~mirrorcraft.harness.control.RconServerControl`
is itself the barrier: RCON replies are produced between ticks on the server's main thread.

**Harness evaluator** (:class:`HarnessEvaluator`). The server's own evaluator
(:class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator`) listens to an in-process server's outcome
events; when the server is not in this process (a child process), the runner uses this fallback:

* milestones are the ``minecraft:story/*`` advancements the *server* marked done in the ``advancements``
  packets it sent to the player (the body's :class:`~mirrorcraft.mcproto_body.advancements.Advancements`
  view; the agent sees the same done flags in its task view, never how they are decided), read after the
  barrier and attributed to the action that just ended (0 = before the first action); their tick is the
  server tick when in-process, else wall time since the episode start × tick rate;
* encounters are derived harness-side from the suite manifest and the outcome reports, exactly as the RCON
  evaluator does (:func:`~mirrorcraft.harness.control.detect_encounters`, same limitations, docs/control.md).

The runner records which basis was used in the episode's run notes (``evaluator_basis``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import task

from mirrorcraft.contracts import (
    EpisodeIdentity,
    Evaluator,
    MilestoneEvent,
    OutcomeReport,
    RuleEncounter,
    SkillCall,
    SuiteManifest,
    load_suite,
)
from mirrorcraft.contracts.tasks import STORY


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


class HarnessEvaluator(Evaluator):
    """Milestones from the server's advancement packets, encounters from manifest + reports (docstring).

    Args:
        done: returns the advancement ids the player has completed (e.g. ``body.advancements.done``).
        clock_ticks: returns the tick to record with a milestone.
        suites: suite id → manifest (default: the shipped manifests).
    """

    kind = "embedded"
    basis = "harness: advancements packets + suite manifest and outcome reports"

    def __init__(
        self,
        done: Callable[[], list[str]],
        clock_ticks: Callable[[], int],
        suites: Callable[[str], SuiteManifest] = load_suite,
    ) -> None:
        self._done = done
        self._ticks = clock_ticks
        self._suites = suites
        self._manifest: SuiteManifest | None = None
        self._milestones: list[MilestoneEvent] = []
        self._encounters: list[RuleEncounter] = []

    def poll(self, index: int) -> list[str]:
        """Record story advancements newly done since the last poll against action ``index``."""
        seen = {m.advancement for m in self._milestones}
        new = [a for a in sorted(self._done()) if a.startswith(STORY) and a not in seen]
        tick = max(0, int(self._ticks()))
        self._milestones.extend(MilestoneEvent(advancement=a, action_index=index, tick=tick) for a in new)
        return new

    async def begin(self, identity: EpisodeIdentity) -> None:
        self._manifest = self._suites(identity.suite) if identity.suite else None
        self._milestones = []
        self._encounters = []
        self.poll(0)

    def begin_action(self, index: int, call: SkillCall) -> None:
        """Nothing to attribute server-side; present so the runner treats both evaluators alike."""

    async def after_action(self, index: int, call: SkillCall, report: OutcomeReport) -> None:
        from mirrorcraft.harness.control import detect_encounters

        self.poll(index)
        if self._manifest is not None:
            known = {e.rule_id for e in self._encounters}
            for enc in detect_encounters(self._manifest, index, call, report):
                if enc.rule_id not in known:
                    self._encounters.append(enc)
                    known.add(enc.rule_id)

    async def milestones(self) -> list[MilestoneEvent]:
        return list(self._milestones)

    async def encounters(self) -> list[RuleEncounter]:
        return list(self._encounters)
