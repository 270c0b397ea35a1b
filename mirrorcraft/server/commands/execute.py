"""``execute``: the sub-commands ``in``, ``as``, ``at``, ``positioned [as]``, ``if|unless entity|block|score``,
``store result|success score`` and ``run``, run the way vanilla's ``ExecuteCommand`` and Brigadier's
``CommandDispatcher.execute`` run them.

Why Brigadier's model matters here: each step turns every current source into zero or more sources
(``as @a`` forks one per player, ``if`` keeps or drops the source, ``in``/``positioned``/``store`` redirect
one to one). Once a *fork* (``as``, ``at``, ``positioned as``, ``if``, ``unless``) has happened, a failing
source is dropped silently instead of failing the whole command, and the command's result is the number
of sources whose command succeeded; without a fork the first failure is the command's failure and the
result is the sum. ``store`` records, per source, where the result (or 1/0 for success) goes once the
command ran; the holders and the objective are resolved when the step runs, as vanilla resolves them when
it builds the callback.

Not implemented (a clear parse error, never a silent difference): ``align``, ``anchored``, ``facing``,
``rotated``, ``on``/``summon`` (1.19.3+ anyway), ``store`` into block/entity/storage NBT or boss bars,
``if|unless blocks|data|predicate|biome``. The embedded server runs the overworld only, so ``in`` accepts
``minecraft:overworld`` and answers ``argument.dimension.invalid`` for anything else.
"""

from __future__ import annotations

from dataclasses import replace

from mirrorcraft.server.commands import components as C
from mirrorcraft.server.commands import model as m
from mirrorcraft.server.commands.base import CommandFailure, ExecutorBase, fail
from mirrorcraft.server.commands.components import Component
from mirrorcraft.server.commands.host import CommandSource

#: Steps that fork (Brigadier ``fork``): after one of them a failing source is dropped silently.
_FORKS = (m.Condition, m.BlockCondition, m.ScoreCondition)

#: ``execute store``'s pending writes for one source: ``(what, holders, objective)``.
Stores = tuple[tuple[str, tuple[str, ...], str], ...]


class ExecuteCommands(ExecutorBase):
    """The ``execute`` family of :class:`~mirrorcraft.server.commands.executor.CommandExecutor`."""

    def _run_execute(self, source: CommandSource, c: m.Execute, out: list[Component]) -> int:
        contexts: list[tuple[CommandSource, Stores]] = [(source, ())]
        forked = False
        for step in c.steps:
            forked = forked or isinstance(step, _FORKS)
            nxt: list[tuple[CommandSource, Stores]] = []
            for s, stores in contexts:
                try:
                    produced = self._step(step, s)
                    if isinstance(step, m.Store):
                        holders = tuple(self._holders(step.targets, s))
                        self._objective(step.objective, writable=True)
                        stores = (*stores, (step.what, holders, step.objective))
                except CommandFailure:
                    self._store(stores, False, 0)
                    if not forked:
                        raise
                    continue
                nxt.extend((p, stores) for p in produced)
            contexts = nxt
        total = successes = 0
        for s, stores in contexts:
            try:
                value = self._dispatch(s, c.run, out)
            except CommandFailure:
                self._store(stores, False, 0)
                if not forked:
                    raise
                continue  # CommandDispatcher.execute: a forked command's failure is not reported
            self._store(stores, True, value)
            total += value
            successes += 1
        return successes if forked else total

    def _step(self, step: m.ExecuteStep, s: CommandSource) -> list[CommandSource]:
        """One step's sources from ``s`` (``ExecuteCommand``'s redirect and fork modifiers)."""
        if isinstance(step, m.Condition):
            found = self._resolve(step.selector, s)
            if step.kind == "if":
                return [s] if found else []
            if step.kind == "unless":
                return [] if found else [s]
            if step.kind == "as":  # source.withEntity(e)
                return [replace(s, entity=e) for e in found]
            if step.kind == "at":  # withPosition, withRotation, withLevel of the entity
                return [replace(s, position=e.position) for e in found]
            return [replace(s, position=e.position) for e in found]  # positioned as
        if isinstance(step, m.InDimension):
            if step.dimension not in self.host.dimensions():
                raise fail("argument.dimension.invalid", step.dimension)
            return [replace(s, dimension=step.dimension)]
        if isinstance(step, m.Positioned):
            return [replace(s, position=step.pos.resolve(s.position))]
        if isinstance(step, m.BlockCondition | m.ScoreCondition):
            holds = self._holds(step, s)
            return [s] if holds != step.negate else []
        return [s]  # store: the pending write is added by the caller

    def _holds(self, cond: m.BlockCondition | m.ScoreCondition, s: CommandSource) -> bool:
        if isinstance(cond, m.BlockCondition):
            x, y, z = cond.pos.block(s.position)
            if not self.host.is_loaded(x, y, z):
                raise fail("argument.pos.unloaded")
            if self.host.block_at(x, y, z) != cond.block.block:
                return False
            props = self.host.block_properties(x, y, z)
            return all(props.get(k) == v for k, v in cond.block.properties)
        # ExecuteCommand.checkScore / checkMatchingScore: a missing score never matches
        target = self._holders(cond.target, s)[0]
        self._objective(cond.objective)
        value = self.scoreboard.score(target, cond.objective)
        if cond.op == "matches":
            return (
                value is not None
                and (cond.low is None or value >= cond.low)
                and (cond.high is None or value <= cond.high)
            )
        assert cond.source is not None and cond.source_objective is not None
        other = self._holders(cond.source, s)[0]
        self._objective(cond.source_objective)
        ref = self.scoreboard.score(other, cond.source_objective)
        if value is None or ref is None:
            return False
        return {
            "<": value < ref,
            "<=": value <= ref,
            "=": value == ref,
            ">": value > ref,
            ">=": value >= ref,
        }[cond.op]

    def _store(self, stores: Stores, success: bool, result: int) -> None:
        for what, holders, objective in stores:
            value = result if what == "result" else int(success)
            for h in holders:
                self.scoreboard.set_score(h, objective, value)

    def _run_entitytest(self, source: CommandSource, c: m.EntityTest, out: list[Component]) -> int:
        # ExecuteCommand.createNumericConditionalHandler: `if` reports the count, `unless` fails with it.
        n = len(self._resolve(c.selector, source))
        if not c.negate:
            if n > 0:
                out.append(C.translatable("commands.execute.conditional.pass_count", n))
                return n
            raise fail("commands.execute.conditional.fail")
        if n == 0:
            out.append(C.translatable("commands.execute.conditional.pass"))
            return 1
        raise fail("commands.execute.conditional.fail_count", n)

    def _run_conditiontest(self, source: CommandSource, c: m.ConditionTest, out: list[Component]) -> int:
        # ExecuteCommand.addConditional's executes: "Test passed" or ERROR_CONDITIONAL_FAILED.
        if self._holds(c.condition, source) != c.condition.negate:
            out.append(C.translatable("commands.execute.conditional.pass"))
            return 1
        raise fail("commands.execute.conditional.fail")
