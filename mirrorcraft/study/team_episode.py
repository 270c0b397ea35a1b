"""One team episode (PillagerBench) on the embedded server: four players in two teams, the scenario's judge,
two team systems, a time limit in game seconds, and the team episode record.

The sequence (the original's, on our stack): copy the arena save of the identity's variant; start the
embedded server with the episode seed (every server stream and the judge's derive from it); connect the
judge players a scenario needs, then the four players (``TEAM_PLAYERS``), put each at its spawn in
survival, and make the two vanilla teams (``/team add``, ``join``, colour); attach the judge — its first
tick is the episode's start — and run each system's two players concurrently: a free player asks its
system for a skill call (``None`` lets one game second pass) and runs it through the skills. The episode
ends when the judge has sampled ``game_seconds`` seconds; the scores are the judge's at that second.

Time: game time, so an episode is the same number of game ticks at any ``tick_rate`` (20 is real time; the
scenarios' point is time pressure, so the world runs on while a system thinks, as in the original). A call
still running at time-up is awaited (bounded) and recorded with its full report; it cannot change the
scores, which the judge took at the last second.

Clock (issue 23): ``clock="free"`` (default: the scenarios' point is time pressure, so the world runs on in
real time while a system thinks, as in the original) or ``clock="lockstep"``: the server runs tick n+1 only
when every body — the four players and the judge players — is done with tick n (docs/lockstep.md), so a
slow or loaded machine never costs a player game time. Thinking is charged instead: a decision of a system
costs its :meth:`~mirrorcraft.agents.teams.TeamPolicy.think_ticks` (0 for the built-in systems, which
answer at once; ``think_ticks`` of an LLM system's settings, default 100): the world runs on for that many
ticks, then stands still until the answer is in, and the call starts on the next tick — the same tick
whether the model answered within the charge or long after. Setup, the systems' ``pre_game`` and
``post_game`` cost no ticks; everything in between is counted in ticks by the bodies, never by a wall-clock
poll. What is still not exact: the server handles the packets of two players that arrive between the same
two ticks in arrival order, and both draw from the server's shared random streams (a block's loot, an
item's scatter), so two runs can differ where two players act in the same tick (docs/pillagerbench.md).

Faults: a player whose body disconnects or whose system raises is recorded as an :class:`AgentFault` with
its side, and the episode goes on for the others (its team keeps what it held).

Observation: a free player is shown a :class:`~mirrorcraft.contracts.TeamObservation` built from its own
body (:class:`~mirrorcraft.skills.team_observe.TeamObservationBuilder`: the body's inventory, world view,
scoreboard sidebar and received chat), with its own action history; the time left only when its system's
settings say ``show_time_left: true``.

Chat log: every chat and team-chat line of the episode lands once in the record's ``chat`` (game second and
tick since the start, sender and side, channel, text, the chat type's translation key). A player's line is
taken from the copy the server echoes to the sender itself (every line, public or team, has exactly one),
a line of anyone else (the server's ``/say``, a judge) from the first player who receives it.

**Partial** (docs/pillagerbench.md): only the embedded server runs team episodes (no child process, no
vanilla jar).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from twisted.internet import defer, reactor, task

from mirrorcraft.agents.teams import GameBriefing, TeamPolicy
from mirrorcraft.contracts import SKILL_NAMES, Controls, PolicyError, SkillCall
from mirrorcraft.contracts.team_observation import shows_time_left
from mirrorcraft.contracts.teams import (
    SIDES,
    TEAM_PLAYERS,
    AgentFault,
    AgentTrajectory,
    ChatMessage,
    TeamAction,
    TeamEndReason,
    TeamEpisodeIdentity,
    TeamEpisodeRecord,
    TeamOutcome,
)
from mirrorcraft.harness.judges import attach_judge, make_judge
from mirrorcraft.harness.judges.base import TICKS_PER_SECOND
from mirrorcraft.harness.judges.embedded import connect_judge_players
from mirrorcraft.mcproto_body import Body, BodyConfig
from mirrorcraft.mcproto_body.connection import State
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.embedded import EmbeddedServer
from mirrorcraft.skills import SkillSet
from mirrorcraft.skills.observe import ActionHistory
from mirrorcraft.skills.team_observe import TeamObservationBuilder
from mirrorcraft.study.episode_map import feet
from mirrorcraft.worlds.arenas.build import arena_id, arena_path
from mirrorcraft.worlds.arenas.spec import load_arena_spec

log = logging.getLogger(__name__)

#: Wall seconds a call still running at time-up may take before the episode stops without it.
DRAIN_SECONDS = 15.0
#: The body's chat kinds that are chat (command replies, joins and deaths are ``system`` and not logged).
CHAT_KINDS = ("chat", "team", "team_sent", "emote", "announcement")
#: Vanilla team colours of the two sides (``/team modify <team> color``).
TEAM_COLOURS = {"red": "red", "blue": "blue"}


def briefing_facts(spec: Any, variant: str) -> dict[str, Any]:
    """The scenario's public description of an arena spec as played in ``variant`` (``GameBriefing.facts``):
    the areas' centres, the team blocks, the judge players who take deliveries and where they stand, the points
    of interest. Never the judge's rules or numbers."""
    return {
        "areas": {s: spec.teams[s].area.center for s in SIDES if spec.teams[s].area is not None},
        "team_blocks": {role: dict(by_side) for role, by_side in spec.team_blocks.items()},
        "judges": {j.team: j.name for j in spec.judges if j.team is not None},  # who takes deliveries
        "judge_spots": {j.team: j.pos for j in spec.judges if j.team is not None},  # and where they stand
        "points": spec.points(variant),  # the description's points of interest
    }


async def _sleep(seconds: float) -> None:
    await task.deferLater(reactor, seconds, lambda: None)


#: Game ticks every body acts after the teleports in lockstep (their confirmations and the chunks in view;
#: the free-running episode waits 0.5 wall seconds instead).
SETTLE_TICKS = 10


class _Turn:
    """One body's hold on :meth:`~mirrorcraft.mcproto_body.lockstep.Lockstep.acting` that a player's decision
    can let go (the game then waits for that player) and take again."""

    def __init__(self, body: Body) -> None:
        self.body = body
        self._cm: Any = None

    def take(self) -> None:
        if self._cm is None:
            self._cm = self.body.lockstep.acting()
            self._cm.__enter__()

    def release(self) -> None:
        if self._cm is not None:
            cm, self._cm = self._cm, None
            cm.__exit__(None, None, None)


async def run_team_episode(
    identity: TeamEpisodeIdentity,
    policies: Mapping[str, TeamPolicy],
    *,
    arenas: Path,
    workdir: Path,
    tick_rate: float = 20.0,
    view_distance: int = 4,
    setup: Callable[[EmbeddedServer], object] | None = None,
    drain_seconds: float = DRAIN_SECONDS,
    clock: Literal["free", "lockstep"] = "free",
    lockstep_paced: bool = True,
) -> TeamEpisodeRecord:
    """Play one team episode; ``policies`` maps ``red`` / ``blue`` to the system object playing it.

    Args:
        arenas: a catalogue folder holding the built arena saves (``arenas/<name>/<variant>/``).
        workdir: an empty folder for the episode's world copy (removed by the caller).
        setup: called with the server once the players stand at their spawns, before the judge's first
            tick (a scene for a test or a demo: items given, blocks changed).
        clock: ``free`` (real time at ``tick_rate``) or ``lockstep`` (module docstring, "Clock").
        lockstep_paced: in lockstep, keep ``tick_rate`` as the minimum tick interval (False: as fast as the
            bodies go).
    """
    if clock not in ("free", "lockstep"):
        raise ValueError(f"clock {clock!r}: expected free or lockstep")
    lockstep = clock == "lockstep"
    spec = load_arena_spec(identity.scenario)
    save = arena_path(arenas, arena_id(identity.scenario, identity.arena_variant))
    world = workdir / "world"
    shutil.copytree(save, world)
    level = spec.level
    controls = Controls(
        difficulty=level.difficulty, time_of_day=level.day_time, weather="clear", effects=(), xp_level=0,
        game_rules={},
    )  # fmt: skip  # the arena's own settings: no benchmark effects or levels in team play
    server = EmbeddedServer(
        ServerConfig(
            world=world, port=0, tick_rate=tick_rate, view_distance=view_distance,
            episode_seed=identity.seed, controls=controls, clock=clock, lockstep_paced=lockstep_paced,
            lockstep_batch=lockstep,
        )
    )  # fmt: skip
    server.start()
    game = server.game
    assert game is not None
    console = game.commands.executor.console_source("Server")

    def command(text: str) -> str:
        return game.commands.executor.run(console, text).text

    bodies: dict[str, Body] = {}
    judges: list[Body] = []
    faults: list[AgentFault] = []
    actions: dict[str, list[TeamAction]] = {p: [] for side in SIDES for p in TEAM_PLAYERS[side]}
    #: policy errors of each player not yet filed under an action (the trailing ones at the end)
    pending_errors: dict[str, list[PolicyError]] = {p: [] for side in SIDES for p in TEAM_PLAYERS[side]}
    chat: list[ChatMessage] = []
    turns: dict[str, _Turn] = {}  # lockstep: each body's hold (players by name, then the judges)
    after = contextlib.ExitStack()  # lockstep: every body acts after time-up

    def take_all() -> None:
        for turn in turns.values():
            turn.take()

    def release_all() -> None:
        for turn in turns.values():
            turn.release()

    try:
        judges = await connect_judge_players(server, spec)
        for side in SIDES:
            for name in TEAM_PLAYERS[side]:
                body = Body(BodyConfig(port=server.port, username=name, view_distance=view_distance))
                await body.connect()
                bodies[name] = body
        for side in SIDES:
            team = spec.teams[side]
            command(f"team add {side}")
            command(f"team modify {side} color {TEAM_COLOURS[side]}")
            for name in TEAM_PLAYERS[side]:  # vanilla's <members> is one score holder (or selector) per call
                command(f"team join {side} {name}")
            for name, (x, y, z) in zip(team.players, team.spawns, strict=True):
                command(f"gamemode survival {name}")
                server.teleport(name, x + 0.5, float(y), z + 0.5)
        if lockstep:
            turns = {
                **{f"judge:{k}": _Turn(b) for k, b in enumerate(judges)},
                **{n: _Turn(b) for n, b in bodies.items()},
            }
            take_all()  # every body acts: the teleports confirmed, the chunks in view, in SETTLE_TICKS ticks
            await next(iter(bodies.values())).movement.wait_ticks(SETTLE_TICKS)
            release_all()  # pre_game (a model may think there) costs no ticks
        else:
            await _sleep(0.5)  # the teleports confirmed, the chunks in view
        if setup is not None:
            setup(server)
        facts = briefing_facts(spec, identity.arena_variant)
        broken: set[str] = set()  # sides whose system raised in pre_game: their players stand still
        for side in SIDES:
            try:
                await policies[side].apre_game(
                    GameBriefing(
                        identity.scenario,
                        side,
                        TEAM_PLAYERS[side],
                        identity.block_index,
                        identity.seed,
                        facts=facts,
                        episode_id=identity.episode_id,
                    )  # fmt: skip
                )
            except Exception as err:  # noqa: BLE001 - a system's bug is an agent fault, not an infrastructure one
                log.exception("team system %s crashed in pre_game", policies[side].system.id)
                broken.add(side)
                faults.extend(AgentFault(player=p, side=side, kind="crashed", t=0.0,
                                         message=f"pre_game: {type(err).__name__}: {err}")
                              for p in TEAM_PLAYERS[side])  # fmt: skip
        judge = make_judge(spec, identity.arena_variant, world_seed=game.kernel.rng.world_seed,
                           episode_seed=identity.seed)  # fmt: skip
        limit = identity.game_seconds
        side_of = {p: side for side in SIDES for p in TEAM_PLAYERS[side]}
        side_of |= {j.name: j.team for j in spec.judges if j.team is not None}
        seen: list[tuple[int, str, str]] = []

        def ticks() -> int:
            start = judge.start_tick
            return 0 if start is None else max(0, game.tick_count - start)

        def hear(me: str, line) -> None:  # noqa: ANN001 - a ChatLine of the body's chat module
            if line.kind not in CHAT_KINDS or not line.sender:
                return
            if line.sender in bodies and line.sender != me:
                return  # a player's line is logged from its own echo
            if line.kind == "team" and line.sender in bodies:
                return
            tick = ticks()
            if line.sender not in bodies:  # someone else's: once, from the first player who hears it
                key = (tick // TICKS_PER_SECOND, line.sender, line.text)
                if key in seen:
                    return
                seen.append(key)
            channel = "team" if line.kind in ("team", "team_sent") else "all"
            side = side_of.get(line.sender)
            chat.append(ChatMessage(
                t=round(tick / TICKS_PER_SECOND, 3), tick=tick, sender=line.sender, side=side,
                channel=channel if side is not None else "all", text=line.text, translate=line.key,
            ))  # fmt: skip

        for name, body in bodies.items():
            body.chat.on_line(lambda line, me=name: hear(me, line))
        attach_judge(server, judge)
        take_all()  # lockstep: the judge's first tick runs once every body acts

        def done() -> bool:
            return len(judge.scores) >= limit

        def elapsed() -> float:
            start = judge.start_tick
            return 0.0 if start is None else max(0.0, (game.tick_count - start) / TICKS_PER_SECOND)

        def elapsed_for(body: Body) -> Callable[[], float]:
            """The game seconds since the start as ``body`` knows them: in lockstep its last processed tick
            (a reply handled between two ticks finds the server a tick ahead of the body), else the server's."""
            if not lockstep:
                return elapsed

            def since() -> float:
                start, tick = judge.start_tick, body.lockstep.tick
                if start is None or tick is None:
                    return 0.0
                return max(0.0, (tick - start) / TICKS_PER_SECOND)

            return since

        async def play(side: str, name: str) -> None:
            body, policy = bodies[name], policies[side]
            elapsed = elapsed_for(body)
            skills = SkillSet(body, ticks_per_second=tick_rate, offered=SKILL_NAMES)  # the team skills too
            mate = next(p for p in TEAM_PLAYERS[side] if p != name)
            builder = TeamObservationBuilder(body, side, mate, elapsed, skills=SKILL_NAMES)
            history = ActionHistory()
            timed = shows_time_left(policy.system.settings)
            charge = policy.think_ticks(name) if lockstep else 0
            while judge.start_tick is None:
                await body.movement.wait_ticks(1)
            if side in broken:
                return
            while not done():
                if body.conn.state is not State.PLAYING:
                    faults.append(AgentFault(player=name, side=side, kind="disconnected", t=elapsed(),
                                             message="the player's connection closed"))  # fmt: skip
                    return
                view = builder.build_team(history, time_left=max(0.0, limit - elapsed()) if timed else None)
                asked = elapsed()
                try:
                    call = await (think(name, policy.act(view), charge) if lockstep else policy.act(view))
                except defer.CancelledError:  # the drain after time-up gave up on it: it never answered
                    faults.append(AgentFault(player=name, side=side, kind="unresponsive", t=round(asked, 3),
                                             message=f"its system's act() had not returned {drain_seconds:g} s "
                                                     f"(wall) after time-up"))  # fmt: skip
                    raise
                except Exception as err:  # noqa: BLE001 - a system's bug ends its player's turn, not the episode
                    log.exception("team system %s crashed for %s", policy.system.id, name)
                    faults.append(AgentFault(player=name, side=side, kind="crashed", t=elapsed(),
                                             message=f"{type(err).__name__}: {err}"))  # fmt: skip
                    return
                finally:  # an LLM system's unusable answers and timed-out calls, filed for this player only
                    pending_errors[name].extend(policy.take_policy_errors(name))
                    faults.extend(AgentFault(player=name, side=side, kind=kind, t=round(asked, 3),  # type: ignore[arg-type]
                                             message=message)
                                  for kind, message in policy.take_faults(name))  # fmt: skip
                if done():
                    return
                if call is None:
                    if lockstep:  # one game second counted by the body (a poll would overshoot unpaced)
                        for _ in range(TICKS_PER_SECOND):
                            if done():
                                break
                            await body.movement.wait_ticks(1)
                        continue
                    target = game.tick_count + TICKS_PER_SECOND
                    while game.tick_count < target and not done():
                        await _sleep(1.0 / tick_rate)
                    continue
                t = elapsed()
                report, sig = await skills.execute(call)
                actions[name].append(
                    TeamAction(
                        index=len(actions[name]) + 1, t=round(t, 3), call=call, signature=sig, report=report,
                        policy_errors=pending_errors[name],
                        position=feet(body),  # the viewer's path
                    )
                )  # fmt: skip
                pending_errors[name] = []
                history.record(call, report)

        async def think(name: str, answer: Any, charge: int) -> SkillCall | None:
            """Lockstep: the decision costs ``charge`` ticks; the call starts on the tick after them even when
            the answer took longer (the game waited for it), or at once from a system that answers at once."""
            decision = defer.ensureDeferred(answer)
            if charge == 0 and decision.called:
                return await decision
            body = bodies[name]
            if charge:
                await body.movement.wait_ticks(charge)  # the world runs on while the player thinks
            if not decision.called:
                turns[name].release()  # the rest of the thinking stops the game
                try:
                    await defer.DeferredList([decision], consumeErrors=True)
                finally:
                    turns[name].take()
            await body.movement.wait_ticks(1)
            return await decision

        players = [defer.ensureDeferred(play(side, n)) for side in SIDES for n in TEAM_PLAYERS[side]]
        while not done():
            await _sleep(0.05)
        for turn in turns.values():  # after time-up nobody holds the game: the calls still running drain
            after.enter_context(turn.body.lockstep.acting())
        drained = defer.DeferredList(players, consumeErrors=True)
        drained.addTimeout(drain_seconds, reactor)
        try:
            await drained
        except defer.TimeoutError:
            log.warning("calls still running %.0f s after time-up: stopped without them", drain_seconds)
        game.functions.remove("judge")
        scores = judge.scores[:limit]
        outcome = TeamOutcome(red=scores[-1].red, blue=scores[-1].blue, end_reason=TeamEndReason.TIME_UP,
                              seconds_played=limit)  # fmt: skip
        for side in SIDES:
            try:
                await policies[side].apost_game(outcome)
            except Exception as err:  # noqa: BLE001 - recorded; the record and the study go on
                log.exception("team system %s crashed in post_game", policies[side].system.id)
                faults.extend(AgentFault(player=p, side=side, kind="crashed", t=float(limit),
                                         message=f"post_game: {type(err).__name__}: {err}")
                              for p in TEAM_PLAYERS[side])  # fmt: skip
        usage = {}  # the model calls, tokens and cost of each side's system (its post_game calls included)
        for side in SIDES:
            spent = policies[side].usage()
            if spent is not None:
                usage[side] = spent
        return TeamEpisodeRecord(
            episode_id=identity.episode_id,
            seed=identity.seed,
            identity=identity,
            scores=scores,
            outcome=outcome,
            trajectories=[
                AgentTrajectory(
                    player=p, side=side, actions=actions[p], trailing_policy_errors=pending_errors[p]
                )
                for side in SIDES
                for p in TEAM_PLAYERS[side]
            ],
            chat=[c for c in chat if c.t <= limit + 1],
            agent_faults=faults,
            usage=usage,
        )
    finally:
        after.close()
        release_all()
        for b in [*bodies.values(), *judges]:
            try:
                await b.disconnect()
            except Exception:  # noqa: BLE001 - already gone
                pass
        await defer.maybeDeferred(server.stop)


def play_team_episode(
    identity: TeamEpisodeIdentity,
    policies: Mapping[str, TeamPolicy],
    *,
    arenas: Path,
    tick_rate: float = 20.0,
    clock: Literal["free", "lockstep"] = "free",
    lockstep_paced: bool = True,
) -> TeamEpisodeRecord:
    """:func:`run_team_episode` from a thread that is not the reactor's (a CLI, a study worker, a benchmark):
    in a scratch folder of its own, removed afterwards, on the process's reactor thread."""
    from mirrorcraft.study.runner_reactor import call_on_reactor

    work = Path(tempfile.mkdtemp(prefix="team-episode-"))
    try:
        return call_on_reactor(
            run_team_episode, identity, policies, arenas=arenas, workdir=work, tick_rate=tick_rate,
            clock=clock, lockstep_paced=lockstep_paced,
        )  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
