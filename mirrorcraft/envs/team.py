"""The PillagerBench team scenario as a Gymnasium env: one player controlled, the other three by named systems.

Why like this: a team episode (:func:`mirrorcraft.study.team_episode.run_team_episode`) asks each side's
:class:`~mirrorcraft.agents.teams.TeamPolicy` for its players' next calls. :class:`TeamBridge` is the tested
side's policy: it parks a Deferred when the **controlled player** (the side's first player) is free, so
``step`` returns, and delegates the team mate to a named built-in system; the other side is played by the
named opponent. Nothing of the episode is re-implemented (arena copy, teams, judge, scores, record).

Differences from the task envs, all from the scenario's nature (docs/envs.md "Team scenario"):

* the clock runs free by default: the game goes on while the caller thinks (time pressure is the
  scenario's point), so the env is registered ``nondeterministic=True``; ``clock="lockstep"`` makes it
  repeatable (the game waits for the caller after ``think_ticks`` ticks);
* the episode ends at its game-time limit: ``truncated`` (there is no terminal state), reward 0 on every
  step but the last, whose reward is the final score difference (own team − opponent) the judge gave;
* ``action_mode`` is text only: a skill call of any skill (the team skills included), or anything else
  to let one game second pass (then ``info["status"]`` is ``failure`` with the parser's reason, unless the
  text is the word ``wait``).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, ClassVar, Literal

import gymnasium as gym
from gymnasium import error, spaces
from twisted.internet import defer

from mirrorcraft.agents.teams import GameBriefing, TeamPolicy, make_team_policy
from mirrorcraft.contracts import SKILL_NAMES, SkillCall
from mirrorcraft.contracts.team_observation import MAX_CHAT_LINES, TeamObservation, serialize_team_observation
from mirrorcraft.contracts.teams import (
    SCENARIOS,
    SIDES,
    TEAM_PLAYERS,
    TeamEpisodeIdentity,
    TeamEpisodeRecord,
    TeamOutcome,
    TeamSystem,
)
from mirrorcraft.envs.session import EpisodeAborted
from mirrorcraft.envs.spaces import (
    JSON_CHARSET,
    ascii_json,
    body_features,
    body_spaces,
    text_action_space,
    worst_case_payload,
)
from mirrorcraft.errors import MirrorCraftError

#: Characters of a chat line's text and sender, and of the sidebar's title and holders, kept in the text
#: (vanilla: chat lines are at most 256 characters, player names 16, score holders 40).
CHAT_TEXT_CAP = 256
NAME_CAP = 40
TITLE_CAP = 128
#: The tested system's id in the record's identity (the caller, through this env).
TESTED_ID = "gymnasium"


class TeamBridge(TeamPolicy):
    """The tested side's policy: the controlled player asks the env's caller, its mate a built-in system."""

    id = TESTED_ID

    def __init__(self, system: TeamSystem, session: TeamSession, mate: TeamPolicy) -> None:
        super().__init__(system)
        self.session = session
        self.mate = mate

    def think_ticks(self, player: str) -> int:
        """Lockstep: the controlled player's decisions cost the env's ``think_ticks``, the mate's its own."""
        if player == self.session.controlled:
            return self.session.think_ticks
        return self.mate.think_ticks(player)

    def pre_game(self, briefing: GameBriefing) -> None:
        super().pre_game(briefing)
        self.mate.pre_game(briefing)

    async def act(self, view: TeamObservation) -> SkillCall | None:
        if view.player != self.session.controlled:
            return await self.mate.act(view)
        if self.session.aborted:
            raise EpisodeAborted("the env was reset or closed mid-episode")
        pending: defer.Deferred[SkillCall | None] = defer.Deferred()
        self.session.view, self.session.pending = view, pending
        self.session.reached()
        return await pending

    def post_game(self, outcome: TeamOutcome) -> None:
        self.mate.post_game(outcome)


class TeamSession:
    """One team episode on the reactor thread, driven by the env (like :class:`~mirrorcraft.envs.session.EpisodeSession`)."""

    def __init__(
        self,
        identity: TeamEpisodeIdentity,
        mate: str,
        arenas: Path,
        tick_rate: float,
        clock: Literal["free", "lockstep"] = "free",
        think_ticks: int = 0,
    ) -> None:
        from mirrorcraft.contracts.teams import TeamSystem as _TS

        self.identity = identity
        self.side = identity.tested_side
        self.controlled = TEAM_PLAYERS[self.side][0]
        bridge = TeamBridge(identity.tested, self, make_team_policy(_TS(id=mate)))
        other = next(s for s in SIDES if s != self.side)
        self.policies = {self.side: bridge, other: make_team_policy(identity.opponent)}
        self.arenas, self.tick_rate = arenas, tick_rate
        self.clock, self.think_ticks = clock, think_ticks
        self.view: TeamObservation | None = None
        self.pending: defer.Deferred[SkillCall | None] | None = None
        self.record: TeamEpisodeRecord | None = None
        self.error: Any = None
        self.aborted = False
        self._waiter: defer.Deferred[None] | None = None
        self._run: defer.Deferred[TeamEpisodeRecord] | None = None
        self._work = Path(tempfile.mkdtemp(prefix="team-env-"))

    def reached(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.called:
            waiter.callback(None)

    def _finished(self, record: TeamEpisodeRecord) -> None:
        self.record, self.pending = record, None
        shutil.rmtree(self._work, ignore_errors=True)
        self.reached()

    def _crashed(self, failure: Any) -> None:
        self.error, self.pending = failure, None
        shutil.rmtree(self._work, ignore_errors=True)
        self.reached()

    async def start(self) -> None:
        from mirrorcraft.study.team_episode import run_team_episode

        self._waiter = waiter = defer.Deferred()
        self._run = defer.ensureDeferred(
            run_team_episode(
                self.identity,
                self.policies,
                arenas=self.arenas,
                workdir=self._work,
                tick_rate=self.tick_rate,
                clock=self.clock,
                lockstep_paced=False,
            )
        )
        self._run.addCallbacks(self._finished, self._crashed)
        await waiter
        self._raise()

    async def act(self, call: SkillCall | None) -> None:
        if self.pending is None or self.pending.called:
            # time ran out while the caller thought (the runner's drain may have cancelled the turn): the
            # record is made or being made, and the call is not run
            if self.record is None and self.error is None:
                self._waiter = waiter = defer.Deferred()
                await waiter
            self._raise()
            return
        pending, self.pending = self.pending, None
        self._waiter = waiter = defer.Deferred()
        pending.callback(call)
        await waiter
        self._raise()

    async def abort(self) -> None:
        if self._run is None or self._run.called:
            return
        self.aborted = True
        if self.pending is not None:  # cancelled, the player's turn ends quietly (no "crashed" fault logged)
            pending, self.pending = self.pending, None
            pending.cancel()
        self._run.cancel()  # the episode's own finally disconnects the players and stops the server
        try:
            await self._run
        except Exception:  # noqa: BLE001 - cancelled on purpose
            pass
        shutil.rmtree(self._work, ignore_errors=True)

    def _raise(self) -> None:
        if self.error is not None:
            self.error.raiseException()


def _clip(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 3] + "..."


def team_text(view: TeamObservation) -> str:
    """``observation["text"]``: the canonical team observation (``serialize_team_observation``) in printable
    ASCII, chat texts, names and the sidebar title clipped to their caps."""
    chat = [
        c.model_copy(update={"text": _clip(c.text, CHAT_TEXT_CAP), "sender": _clip(c.sender, NAME_CAP)})
        for c in view.chat
    ]
    update: dict[str, Any] = {"chat": chat}
    if view.sidebar is not None:
        scores = [s.model_copy(update={"holder": _clip(s.holder, NAME_CAP)}) for s in view.sidebar.scores]
        update["sidebar"] = view.sidebar.model_copy(
            update={"title": _clip(view.sidebar.title, TITLE_CAP), "scores": scores}
        )
    return ascii_json(serialize_team_observation(view.model_copy(update=update)))


def max_team_chars() -> int:
    """The team text's ``max_length``: a worst-case team observation built from the bounds (as for the tasks)."""
    import json

    from mirrorcraft.contracts import task_spec

    base = worst_case_payload(task_spec("diamond"))
    payload = {k: v for k, v in base.items() if k not in ("task", "biome")}
    big = 10**12
    payload |= {
        "schema_version": "9" * 16,
        "player": "z" * NAME_CAP,
        "side": "blue",
        "teammate": "z" * NAME_CAP,
        "skills": list(SKILL_NAMES),
        "sidebar": {
            "title": "\x01" * TITLE_CAP,
            "scores": [{"holder": "\x01" * NAME_CAP, "score": -big} for _ in range(15)],
        },
        "chat": [
            {"t": big, "sender": "\x01" * NAME_CAP, "channel": "team", "text": "\x01" * CHAT_TEXT_CAP}
            for _ in range(MAX_CHAT_LINES)
        ],
        "time_left_s": 99_999_999.9,
    }
    return len(json.dumps(payload, sort_keys=True, separators=(",", ":")))


class TeamEnv(gym.Env[dict[str, Any], str]):
    """``PillagerBench-MushroomWar-v0`` / ``PillagerBench-DashAndDine-v0`` (module docstring).

    Args:
        scenario: ``mushroom_war`` or ``dash_and_dine``.
        side: the side of the controlled player (its first player: ``Ryn`` for red, ``Byte`` for blue).
        mate: the built-in system playing the controlled player's team mate (default ``random``).
        opponent: the built-in system playing the other side (default: the scenario's first built-in).
        game_seconds: episode length in game seconds (the original: 120).
        tick_rate: server ticks per wall second (20 = real time; the default job's team demo uses 200).
        arenas_dir: the catalogue folder of the arena saves (built there when missing).
        clock: ``free`` (default: the world runs on while the caller thinks; nondeterministic) or
            ``lockstep`` (unpaced: every body in the server's tick barrier, the game waits for the caller, so
            the same seed and actions give the same episode; docs/envs.md "Team scenario").
        think_ticks: in lockstep, the game ticks each of the controlled player's decisions costs (the world
            runs on that long, then waits for the next ``step``; default 0: thinking is free).

    Raises:
        ValueError: a bad argument, before anything starts.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    scenario: ClassVar[str]

    def __init__(
        self,
        *,
        side: str = "red",
        mate: str = "random",
        opponent: str | None = None,
        game_seconds: int = 120,
        tick_rate: float = 20.0,
        arenas_dir: str | Path = "runs/worlds",
        render_mode: str | None = None,
        clock: Literal["free", "lockstep"] = "free",
        think_ticks: int = 0,
    ) -> None:
        from mirrorcraft.agents.teams import TEAM_POLICIES
        from mirrorcraft.contracts.teams import BUILTIN_OPPONENTS

        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r}: MirrorCraft envs do not render (use None)")
        if side not in SIDES:
            raise ValueError(f"side {side!r}: expected red or blue")
        opponent = opponent or BUILTIN_OPPONENTS[self.scenario][0]
        for what, name in (("mate", mate), ("opponent", opponent)):
            if name not in TEAM_POLICIES:
                raise ValueError(
                    f"{what} {name!r}: not a built-in team system ({', '.join(sorted(TEAM_POLICIES))})"
                )
        if not isinstance(game_seconds, int) or game_seconds < 1:
            raise ValueError(f"game_seconds {game_seconds!r}: expected a positive integer")
        if not 0 < tick_rate <= 1000:
            raise ValueError(f"tick_rate {tick_rate!r}: expected 0 < rate <= 1000")
        if clock not in ("free", "lockstep"):
            raise ValueError(f"clock {clock!r}: expected free or lockstep")
        if not isinstance(think_ticks, int) or think_ticks < 0:
            raise ValueError(f"think_ticks {think_ticks!r}: expected a non-negative integer")
        self.clock, self.think_ticks = clock, think_ticks
        self.side, self.mate, self.opponent = side, mate, opponent
        self.game_seconds, self.tick_rate, self.arenas_dir = game_seconds, float(tick_rate), Path(arenas_dir)
        self.render_mode = None
        self.observation_space = spaces.Dict(
            {
                "text": spaces.Text(max_length=max_team_chars(), min_length=2, charset=JSON_CHARSET),
                **body_spaces(),
            }
        )
        self.action_space = text_action_space()
        self._session: TeamSession | None = None
        self._closed = False
        self.last_record: TeamEpisodeRecord | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a fresh copy of the arena (``options={"arena_variant": "mirrored"}`` picks the variant)."""
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"arena_variant"}
        if unknown:
            raise ValueError(f"reset options {sorted(unknown)}: only ['arena_variant'] is accepted")
        variant = options.get("arena_variant", "original")
        if variant not in ("original", "mirrored"):
            raise ValueError(f"arena_variant {variant!r}: expected original or mirrored")
        episode_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self._end()
        from mirrorcraft.worlds.arenas.build import arena_id, arena_path, build_arena

        ident = arena_id(self.scenario, variant)
        if not (arena_path(self.arenas_dir, ident) / "level.dat").is_file():
            build_arena(ident, self.arenas_dir)
        identity = TeamEpisodeIdentity(
            scenario=self.scenario,
            arena_variant=variant,
            tested=TeamSystem(id=TESTED_ID, settings={"mate": self.mate}),
            opponent=TeamSystem(id=self.opponent),
            tested_side=self.side,
            repeat=0,
            block_index=0,
            block_length=1,
            game_seconds=self.game_seconds,
            study_seed=episode_seed,
        )
        session = TeamSession(
            identity, self.mate, self.arenas_dir, self.tick_rate, self.clock, self.think_ticks
        )
        self._closed = False
        self._call(session.start)
        if session.view is None:
            raise MirrorCraftError(
                f"team episode {identity.episode_id}: ended before the player's first turn"
            )
        self._session = session
        info = {"episode_id": identity.episode_id, "player": session.controlled, "side": self.side}
        return self._element(session.view), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """One skill call of the controlled player (or one game second of waiting)."""
        session = self._session
        if session is None:
            raise error.ResetNeeded("no episode is running: call reset() first")
        from mirrorcraft.agents.parsing import parse_action

        info: dict[str, Any] = {"call": None, "status": "success", "reason": None, "message": ""}
        call: SkillCall | None = None
        if isinstance(action, str) and action.strip() == "wait":
            info["message"] = "waited one game second"
        else:
            parsed = parse_action(action if isinstance(action, str) else repr(action), set(SKILL_NAMES))
            if hasattr(parsed, "call"):
                call = parsed.call
                info["call"] = call.model_dump(mode="json")
            else:
                info |= {"status": "failure", "reason": parsed.kind, "message": parsed.message}
        self._call(session.act, call)
        view = session.view
        last = view.last_result if view is not None else None
        if call is not None and last is not None and last.call == call:
            info |= {
                "status": last.report.status,
                "reason": last.report.reason,
                "message": last.report.message,
            }
            info["report"] = last.report.model_dump(mode="json")
        reward, truncated = 0.0, False
        record = session.record
        if record is not None:
            self.last_record, self._session, truncated = record, None, True
            own = getattr(record.outcome, self.side)
            other = getattr(record.outcome, "blue" if self.side == "red" else "red")
            reward = float(own - other)
            info["outcome"] = record.outcome.model_dump(mode="json")
        assert view is not None
        return self._element(view), reward, False, truncated, info

    def close(self) -> None:
        if not self._closed:
            self._end()
            self._closed = True
        super().close()

    def _call(self, fn: Any, *args: Any) -> Any:
        from mirrorcraft.study.runner_reactor import call_on_reactor

        return call_on_reactor(fn, *args)

    def _end(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            self._call(session.abort)

    @staticmethod
    def _element(view: TeamObservation) -> dict[str, Any]:
        return {"text": team_text(view), **body_features(view.position, view.survival)}


class MushroomWarEnv(TeamEnv):
    """``PillagerBench-MushroomWar-v0``."""

    scenario = "mushroom_war"


class DashAndDineEnv(TeamEnv):
    """``PillagerBench-DashAndDine-v0``."""

    scenario = "dash_and_dine"


assert set(SCENARIOS) == {MushroomWarEnv.scenario, DashAndDineEnv.scenario}

__all__ = ["DashAndDineEnv", "MushroomWarEnv", "TeamBridge", "TeamEnv", "max_team_chars", "team_text"]
