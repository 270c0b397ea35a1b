"""Bring your own Mineflayer agent: an episode played by a client MirrorCraft does not drive.

``episode --agent external`` (:func:`run_external_episode`) prepares the episode's world copy (Vanilla or a
Mirror copy, checked like every episode's), starts the embedded server on this reactor running freely at
the configured tick rate, prints its address (:data:`ADDRESS_LINE`), waits for one client to join (a
Voyager or Mindcraft bot, any Mineflayer or vanilla client pointed at it), applies the benchmark controls
over RCON as the runner does, and records an episode until a budget ends it.

**What is recorded in place of skill calls.** The server publishes an outcome event for every dig, craft,
smelt, kill, placement and enchantment (:mod:`mirrorcraft.server.outcomes`); each one of the joined player
is one step of the trajectory, written as the skill call that names the same act
(:func:`call_of`: ``mine`` the block, ``craft_grid`` the grid as laid out, ``smelt`` the input in its
device, ``attack`` the mob, ``place`` the item, ``enchant`` the item), so σ, the rule encounters, S_k and
every report work unchanged. Each step's report is what the server saw (a block broken, the stacks
produced); fields only the agent knows (the fuel a smelt burnt: ``minecraft:air`` = not observed, ticks
spent) are left empty. Smoker takes are not steps (the skill contract has no smoker); they stay in the
evaluator's log. The evaluator is the embedded one, fed event by event: step ``k`` starts at the ``k``-th
act, and the milestones and encounters that follow belong to it.

**Budgets and ends.** The identity's ``budget`` counts these steps (``--budget``, default
:data:`DEFAULT_EVENT_BUDGET`); ``--time-budget`` seconds after the client joined also end the episode.
End reasons: ``final_milestone`` (the task's last milestone), ``budget_exhausted`` (the step budget),
``death`` (the player died), and ``no_executable_action`` when the time budget ran out or the client left
first — the record schema (v2) has no time-limit reason, so the run notes say which of the two it was.
No client within ``--join-timeout`` is an infrastructure fault (``other``).

**Marked external.** ``identity.agent`` and ``identity.model.name`` are ``external`` (no model calls,
no cost): the record goes through ``report`` like any other and forms its own configuration row.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.agents.loop import LoopStep
from mirrorcraft.contracts import (
    EndReason,
    EpisodeIdentity,
    EpisodeRecord,
    ModelSettings,
    OutcomeReport,
    PolicyError,
    SkillCall,
    SpawnInfo,
    TaskId,
    Usage,
    parse_id,
    task_spec,
)
from mirrorcraft.contracts.skills import BlockTally, ItemStack
from mirrorcraft.errors import ContractError

EXTERNAL = "external"
#: The line an external agent's launcher can wait for: ``MIRRORCRAFT_EXTERNAL_SERVER host:port``.
ADDRESS_LINE = "MIRRORCRAFT_EXTERNAL_SERVER"
DEFAULT_EVENT_BUDGET = 500
PROMPT_VERSION = "external"
SMELT_MAX = 64


class ExternalSettings(BaseModel):
    """How an external episode waits for and bounds its client.

    Attributes:
        host / port: where the server listens (port 0 = any free port; the address line says which).
        join_timeout_s: seconds to wait for the client.
        time_budget_s: seconds of play after the client joined.
        player: the client's player name (``None``: the first client to join).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(25565, ge=0, le=65535)
    join_timeout_s: float = Field(600.0, gt=0)
    time_budget_s: float = Field(600.0, gt=0)
    player: str | None = None


def external_identity(
    world: str, task: str, *, budget: int | None = None, repetition: int = 0, study_seed: int = 0
) -> EpisodeIdentity:
    """The identity of an external-agent episode (agent and model ``external``)."""
    parsed = parse_id(world)
    return EpisodeIdentity(
        world=parsed.name,
        suite=parsed.variant,
        task=TaskId(task),
        budget=budget or DEFAULT_EVENT_BUDGET,
        agent=EXTERNAL,
        model=ModelSettings(name=EXTERNAL, temperature=0.0),
        repetition=repetition,
        study_seed=study_seed,
    )


# ---- server-side events as skill calls ----------------------------------------------------------------------


def _use_of(item: str) -> str:
    from mirrorcraft.rules.blocks import opens_on_use, wall_variant

    if opens_on_use(item):
        return "workstation"
    return "light" if wall_variant(item) is not None else "build"


def call_of(event: Any) -> tuple[SkillCall, OutcomeReport] | None:
    """The skill call naming the same act as a server outcome event, and the report of what the server saw
    (``None`` for a milestone, or an act no skill names: a smoker's output)."""
    d, out = event.detail, event.outcome
    produced = [ItemStack(item=s.item, count=s.count) for s in (out.actual if out is not None else [])]
    kind = event.kind
    if kind == "dig":
        call = SkillCall.create("mine", {"block": d["block"], "count": 1})
        where = f" at {tuple(d['pos'])}" if d.get("pos") else ""
        report = OutcomeReport(
            skill="mine",
            status="success",
            completed=1,
            blocks_broken=[BlockTally(block=d["block"], count=1)],
            message=f"server-side: broke {d['block']}{where}; dropped {[(s.item, s.count) for s in produced]}",
        )
    elif kind == "craft":
        grid = d["grid"]
        bench = "inventory" if len(grid) == 2 else "crafting_table"
        call = SkillCall.create("craft_grid", {"workstation": bench, "grid": grid, "count": 1})
        report = OutcomeReport(
            skill="craft_grid",
            status="success",
            completed=1,
            produced=produced,
            message="server-side: took a result",
        )
    elif kind == "smelt":
        if d["device"] not in ("furnace", "blast_furnace") or not d.get("inputs"):
            return None
        n = max(1, min(SMELT_MAX, sum(s.count for s in produced)))
        args = {"input": d["inputs"][0], "device": d["device"], "fuel": "minecraft:air", "count": n}
        call = SkillCall.create("smelt", args)
        report = OutcomeReport(
            skill="smelt",
            status="success",
            completed=n,
            produced=produced,
            message="server-side: took from the output slot (fuel not observed: minecraft:air)",
        )
    elif kind == "kill":
        call = SkillCall.create("attack", {"mob": d["entity"], "count": 1})
        report = OutcomeReport(skill="attack", status="success", completed=1, message="server-side: killed")
    elif kind == "place":
        pos = d.get("pos") or [None, None, None]
        args = {"item": d["item"], "use": _use_of(d["item"]), "x": pos[0], "y": pos[1], "z": pos[2]}
        call = SkillCall.create("place", args)
        report = OutcomeReport(skill="place", status="success", completed=1, message="server-side: placed")
    elif kind == "enchant":
        option = max(1, min(3, int(d.get("levels", 1))))  # vanilla spends button + 1 levels
        call = SkillCall.create("enchant", {"item": d["item"], "option": option})
        report = OutcomeReport(
            skill="enchant",
            status="success",
            completed=1,
            produced=produced,
            message="server-side: enchanted",
        )
    else:
        return None
    return call, report


@dataclass
class ExternalRun:
    """What the episode produced (the agent loop's ``EpisodeRun`` shape, without observations)."""

    steps: list[LoopStep]
    end_reason: EndReason
    trailing_policy_errors: list[PolicyError] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    prompt_template_version: str = PROMPT_VERSION


class Trajectory:
    """Listens to the game: finds the external player, turns its acts into steps, feeds the evaluator event
    by event, and decides when the episode ends (module docstring).

    Args:
        evaluator: an :class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator` (not attached: fed here).
        final: the task's final milestone advancement.
        budget: the step budget.
        player: the expected player name (``None``: the first to join).
        exclude: names that are never the agent (the harness's own clients).
    """

    def __init__(
        self,
        evaluator: Any,
        final: str,
        budget: int,
        player: str | None,
        exclude: frozenset[str] = frozenset(),
    ) -> None:
        from twisted.internet import defer

        self.evaluator = evaluator
        self.final = final
        self.budget = budget
        self.player = player
        self.exclude = exclude
        self.steps: list[LoopStep] = []
        self.skipped: dict[str, int] = {}
        self.joined: defer.Deferred = defer.Deferred()
        self.ended: defer.Deferred = defer.Deferred()
        self.end_reason: EndReason | None = None
        self.end_note = ""

    def _end(self, reason: EndReason, note: str) -> None:
        if self.end_reason is None:
            self.end_reason, self.end_note = reason, note
            self.ended.callback(reason)

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        """A published game event (``game.subscribe``)."""
        if event == "join":
            name = data["player"]
            if not self.joined.called and name not in self.exclude and self.player in (None, name):
                self.player = name
                self.joined.callback(name)
        elif self.player is None or self.end_reason is not None:
            return
        elif event == "outcome":
            self._outcome(data["outcome"])
        elif event == "player_died" and data.get("player") == self.player:
            self._end(EndReason.DEATH, "the player died")
        elif event == "leave" and data.get("player") == self.player:
            self._end(EndReason.NO_EXECUTABLE_ACTION, "the external client left")

    def _outcome(self, o: Any) -> None:
        if o.player != self.player and not (o.kind == "dig" and o.player is None):
            return
        if o.kind == "milestone" or o.player is None:
            self.evaluator.record_event(o)  # with the current step (0 before the first)
        else:
            mapped = call_of(o)
            if mapped is None:
                self.skipped[o.kind] = self.skipped.get(o.kind, 0) + 1
                self.evaluator.record_event(o)
            else:
                call, report = mapped
                index = len(self.steps) + 1
                self.evaluator.begin_action(index, call)
                self.evaluator.record_event(o)
                self.steps.append(LoopStep(index, call, report))
        if o.kind == "milestone" and o.detail.get("advancement") == self.final:
            self._end(EndReason.FINAL_MILESTONE, "the final milestone")
        elif len(self.steps) >= self.budget:
            self._end(EndReason.BUDGET_EXHAUSTED, f"{self.budget} server-side steps")


# ---- the episode -------------------------------------------------------------------------------------------


async def run_external_episode(
    identity: EpisodeIdentity,
    settings: Any,
    external: ExternalSettings,
    *,
    announce: Callable[[str], None] = print,
    on_started: Callable[[Any], None] | None = None,
) -> EpisodeRecord:
    """Play one external-agent episode on the running reactor (module docstring) and return its record.

    Args:
        identity: an :func:`external_identity`.
        settings: the runner's :class:`~mirrorcraft.study.runner.RunnerSettings` (worlds, tick rate,
            controls, records folder).
        external: where to listen and the budgets.
        announce: prints the address line and the instructions.
        on_started: called with the :class:`~mirrorcraft.harness.episode_server.EpisodeServer` once it
            listens (tests start their client there).

    Never raises for a failing episode: failures become fault records, as the runner's.
    """
    from twisted.internet import defer, reactor

    from mirrorcraft.harness.episode_server import EpisodeServer
    from mirrorcraft.harness.evaluators import EmbeddedEvaluator
    from mirrorcraft.protocol.rcon import random_password
    from mirrorcraft.server.config import ServerConfig
    from mirrorcraft.study.runner import RunNotes, prepare_world_copy, write_record
    from mirrorcraft.study.runner_records import EpisodeFault, build_record, fault_record

    t0 = time.monotonic()
    spec = task_spec(identity.task, budget=identity.budget)
    notes = RunNotes(
        episode_id=identity.episode_id,
        world_id=identity.world_id,
        server="embedded",
        tick_rate=settings.tick_rate,
    )
    controls, spawn = settings.controls, None
    server: EpisodeServer | None = None
    copy_root: Path | None = None
    try:
        copy_root, world = prepare_world_copy(identity, settings, spec, notes)
        config = ServerConfig(
            world=world,
            host=external.host,
            port=external.port,
            tick_rate=settings.tick_rate,
            view_distance=settings.view_distance,
            episode_seed=identity.seed,
            controls=settings.controls,
            rcon_port=0,
            rcon_password=random_password(),
        )
        server = EpisodeServer("embedded", config, world=world)
        try:
            port = await server.start()
        except Exception as err:  # noqa: BLE001 - any start failure is a server fault
            raise EpisodeFault("server_error", f"server start failed: {type(err).__name__}: {err}") from err
        notes.port = port
        game = server.embedded.game
        evaluator = EmbeddedEvaluator(clock=lambda: game.tick_count)
        await evaluator.begin(identity)
        traj = Trajectory(evaluator, spec.final.advancement, identity.budget, external.player)
        game.subscribe(traj.on_event)
        announce(f"{ADDRESS_LINE} {external.host}:{port}")
        announce(
            f"waiting {external.join_timeout_s:g} s for one 1.19.2 client (offline mode) to join "
            f"{identity.world_id}, task {identity.task.value}: then {external.time_budget_s:g} s or "
            f"{identity.budget} server-side steps"
        )
        if on_started is not None:
            on_started(server)
        try:
            name = await traj.joined.addTimeout(external.join_timeout_s, reactor)
        except defer.TimeoutError:
            raise EpisodeFault(
                "other", f"no external client joined within {external.join_timeout_s:g} s"
            ) from None
        notes.notes.append(f"external agent: {name}")
        control = server.control(name)
        try:
            controls = await control.apply_controls(settings.controls)
        except Exception as err:  # noqa: BLE001 - RCON refused or unreachable: the server's fault
            notes.rcon_log = list(control.log)
            raise EpisodeFault(
                "server_error", f"controls over RCON failed: {type(err).__name__}: {err}"
            ) from err
        notes.controls_via, notes.rcon_log = "rcon", list(control.log)
        spawn = _spawn(game, name)
        timer = reactor.callLater(
            external.time_budget_s,
            lambda: traj._end(
                EndReason.NO_EXECUTABLE_ACTION, f"the time budget of {external.time_budget_s:g} s"
            ),
        )
        await traj.ended
        if timer.active():
            timer.cancel()
        assert traj.end_reason is not None
        notes.notes.append(f"end: {traj.end_note}")
        if traj.skipped:
            notes.notes.append(f"acts without a skill (in the evaluator's log only): {traj.skipped}")
        notes.server_ticks = server.ticks()
        run = ExternalRun(steps=traj.steps, end_reason=traj.end_reason)
        record = build_record(
            identity,
            spec,
            controls=controls,
            spawn=spawn,
            run=run,
            milestones=await evaluator.milestones(),
            encounters=await evaluator.encounters(),
            wall_time_s=time.monotonic() - t0,
            evaluator="embedded",
        )
    except EpisodeFault as fault:
        notes.fault = {"kind": fault.kind, "message": fault.message, "action_index": fault.action_index}
        record = fault_record(
            identity,
            fault,
            controls=controls,
            spawn=spawn,
            tb=None,
            wall_time_s=time.monotonic() - t0,
            prompt_template_version=PROMPT_VERSION,
        )
    finally:
        if server is not None:
            await server.stop()
        if copy_root is not None:
            from mirrorcraft.worlds.copies import release_scratch

            release_scratch(copy_root, keep=settings.keep_world)
    write_record(settings.records_dir, record, notes)
    return record


def _spawn(game: Any, name: str) -> SpawnInfo:
    """Where the client stood when the controls were applied (feet block) and the biome there."""
    p = game.players.by_name(name)
    if p is None:
        raise ContractError(f"the external client {name!r} left before the episode started")
    x, y, z = (int(v // 1) for v in p.pos)
    return SpawnInfo(position={"x": x, "y": y, "z": z}, biome=game.world.biome_at(x, y, z))
