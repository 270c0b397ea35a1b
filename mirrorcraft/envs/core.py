"""The MirrorCraft Gymnasium environments: one task each, one skill call per ``step``.

Why a Gymnasium env: researchers outside LLM agents (RL, planning) expect one; every Minecraft peer
offers one. The env is a thin layer over the benchmark's own episode (:mod:`mirrorcraft.envs.session`):
``reset`` starts a fresh world copy with the embedded server in **lockstep** (unpaced by default: as
fast as the CPU allows, and the game stands still between steps), ``step`` runs one skill call, reward is
the Score gained, and the episode ends where a study episode ends. docs/envs.md is the user's page.

**The reactor.** A Twisted reactor cannot be restarted, and an env is reset many times and often lives
in a process whose main thread belongs to the caller. So every env of a process shares one reactor run
in a daemon thread (:func:`mirrorcraft.study.runner_reactor.ensure_reactor_thread`, the study workers'
design), and each ``reset``/``step``/``close`` is one ``blockingCallFromThread`` onto it. Consequences:
any number of envs in one process step one after the other on that reactor (they never step in
parallel); for parallel envs use ``gymnasium.vector.AsyncVectorEnv(..., context="spawn")`` — each env in
its own process with its own reactor (``fork`` would copy a process whose reactor thread is gone). An env
cannot be used from a thread that already runs a reactor (pytest-twisted tests, a Twisted program): that
raises :class:`~mirrorcraft.errors.ContractError` instead of deadlocking.

**Ends.** ``terminated``: the final milestone, death, or three invalid actions in a row (the benchmark's
``no_executable_action``). ``truncated``: the action budget used up, or an infrastructure fault mid-episode
(``info["fault"]`` says what; a fault during ``reset`` raises :class:`EnvSetupError`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

import gymnasium as gym
import numpy as np
from gymnasium import error, spaces

from mirrorcraft.contracts import (
    MIRRORCRAFT_SKILL_NAMES,
    SUITE_IDS,
    VANILLA_WORLDS,
    EndReason,
    EpisodeIdentity,
    ModelSettings,
    PolicyError,
    SkillCall,
    TaskId,
    task_spec,
)
from mirrorcraft.envs.menu import action_menu
from mirrorcraft.envs.session import DecisionPoint, EpisodeSession
from mirrorcraft.envs.spaces import observation_element, observation_space, text_action_space
from mirrorcraft.errors import MirrorCraftError
from mirrorcraft.study.runner import RunnerSettings

ActionMode = Literal["text", "discrete"]
#: The identity's agent and model of env episodes (records of env episodes say who played them).
AGENT_ID = "gymnasium"
MODEL = ModelSettings(name="gymnasium", temperature=0.0)
#: Options ``reset`` accepts.
RESET_OPTIONS = frozenset({"world"})


class EnvSetupError(MirrorCraftError):
    """``reset`` could not start the episode (world, server or join: the runner's infrastructure fault)."""


def check_world_id(world: str) -> tuple[str, str | None]:
    """``"plains-1"`` → ``("plains-1", None)``; ``"plains-1/M03"`` → ``("plains-1", "M03")``.

    Raises:
        ValueError: not a catalogue world copy (the message lists the valid ones).
    """
    if not isinstance(world, str):
        raise ValueError(f"world must be a string like 'plains-1/M03', got {type(world).__name__}")
    name, _, suite = world.partition("/")
    if name not in VANILLA_WORLDS or (suite and suite not in SUITE_IDS):
        raise ValueError(
            f"world {world!r}: not a catalogue world; expected one of {', '.join(VANILLA_WORLDS)}, "
            f"optionally followed by /{'|/'.join(SUITE_IDS)}"
        )
    return name, suite or None


class MirrorCraftEnv(gym.Env[dict[str, Any], Any]):
    """A MirrorCraft task as a Gymnasium env (module docstring; subclasses fix the task).

    Args:
        action_mode: ``"text"`` (a skill-call JSON text, :func:`~mirrorcraft.envs.spaces.text_action_space`)
            or ``"discrete"`` (an index into :func:`~mirrorcraft.envs.menu.action_menu`).
        world: the world copy ``reset`` plays unless ``options["world"]`` names another.
        budget: actions per episode (default: the task's, 50/50/75).
        worlds_dir: the world catalogue folder (``runs/worlds``); missing worlds are built there first.
        world_radius: radius of worlds built here (None: the generator's 256; tests use 48).
        build_missing: build a missing catalogue world (False: ``reset`` fails with a clear error).
        paced: lockstep paced at 20 ticks/s (real time) instead of unpaced.
        reveal_hidden: put the hidden rule encounters into ``info["encounters"]``. **Never for an agent
            under evaluation**: they are what the benchmark measures whether an agent finds out.
        settings: full :class:`~mirrorcraft.study.runner.RunnerSettings` (overrides the four above; the
            clock is forced to lockstep).
        render_mode: only ``None`` (no rendering; the viewer pages are the offline view of an episode).

    Raises:
        ValueError: a bad argument, before anything starts.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    task: ClassVar[TaskId]

    def __init__(
        self,
        action_mode: ActionMode = "text",
        *,
        world: str = "plains-1",
        budget: int | None = None,
        worlds_dir: str | Path = "runs/worlds",
        world_radius: int | None = None,
        build_missing: bool = True,
        paced: bool = False,
        reveal_hidden: bool = False,
        settings: RunnerSettings | None = None,
        render_mode: str | None = None,
    ) -> None:
        if action_mode not in ("text", "discrete"):
            raise ValueError(f"action_mode {action_mode!r}: expected 'text' or 'discrete'")
        if render_mode is not None:
            raise ValueError(f"render_mode {render_mode!r}: MirrorCraft envs do not render (use None)")
        if budget is not None and (not isinstance(budget, int) or budget < 1):
            raise ValueError(f"budget {budget!r}: expected a positive integer")
        check_world_id(world)
        self.action_mode: ActionMode = action_mode
        self.world = world
        self.spec_task = task_spec(self.task, budget=budget)
        self.budget = self.spec_task.budget
        self.reveal_hidden = reveal_hidden
        base = settings or RunnerSettings(
            worlds_dir=Path(worlds_dir), world_radius=world_radius, build_missing=build_missing
        )
        if base.server == "vanilla":
            raise ValueError(
                "settings.server 'vanilla': the envs run in lockstep, which a vanilla jar cannot join"
            )
        self.settings = base.model_copy(update={"clock": "lockstep", "lockstep_paced": paced})
        self.render_mode = None
        self.observation_space = observation_space(self.spec_task)
        self.menu = action_menu()
        self.action_space: spaces.Space[Any] = (
            text_action_space() if action_mode == "text" else spaces.Discrete(len(self.menu))
        )
        self._allowed = set(MIRRORCRAFT_SKILL_NAMES)
        self._session: EpisodeSession | None = None
        self._point: DecisionPoint | None = None
        self._score = 0
        self._closed = False
        #: The record of the last finished episode (the benchmark's :class:`EpisodeRecord`).
        self.last_record: Any = None

    # -- Gymnasium API ---------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a fresh world copy (``options={"world": "plains-1/M03"}`` picks the copy).

        The episode's seed (the server's randomness, through the identity's ``study_seed``) is ``seed``,
        or drawn from ``self.np_random`` when ``seed`` is None: the same seed and world give the same
        episode.

        Raises:
            ValueError: unknown option keys or a bad world id (nothing started).
            EnvSetupError: the episode could not start (the runner's fault message).
        """
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - RESET_OPTIONS
        if unknown:
            raise ValueError(f"reset options {sorted(unknown)}: only {sorted(RESET_OPTIONS)} are accepted")
        vanilla, suite = check_world_id(options.get("world", self.world))
        episode_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        if episode_seed < 0:
            raise ValueError(f"seed {seed}: expected a non-negative integer")
        self._end_session()
        identity = EpisodeIdentity(
            world=vanilla,
            suite=suite,
            task=self.task,
            budget=self.budget,
            agent=AGENT_ID,
            model=MODEL,
            repetition=0,
            study_seed=episode_seed,
        )
        session = EpisodeSession(identity, self.settings, reveal_hidden=self.reveal_hidden)
        self._closed = False
        point = self._call(session.start)
        if point.finished or point.observation is None:
            record = point.record
            self.last_record = record
            if record is not None and not record.infrastructure_faults:
                why = f"it ended before its first action ({record.outcome.end_reason.value}, Score {point.score})"
            else:
                faults = record.infrastructure_faults if record is not None else []
                why = "did not start: " + "; ".join(f"{f.kind}: {f.message}" for f in faults)
            raise EnvSetupError(f"episode {identity.episode_id} ({identity.world_id}): {why}")
        self._session, self._point, self._score = session, point, point.score
        info = {
            "episode_id": identity.episode_id,
            "score": point.score,
            "actions_used": 0,
            "budget": self.budget,
        }
        if self.reveal_hidden:
            info["encounters"] = point.encounters
        return observation_element(point.observation, self.spec_task), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Run one skill call (or count one invalid action) and return what it did.

        Raises:
            gymnasium.error.ResetNeeded: no episode running (call ``reset``).
            gymnasium.error.InvalidAction: a discrete action outside the menu (a caller bug, not a move).
        """
        session, point = self._session, self._point
        if session is None or point is None or point.finished:
            raise error.ResetNeeded("no episode is running: call reset() first")
        decision, label = self._decision(action)
        index = point.actions_used + 1 if isinstance(decision, SkillCall) else None
        point = self._call(session.act, decision)
        self._point = point
        reward = float(point.score - self._score)
        self._score = point.score
        info: dict[str, Any] = {
            "action_index": index,
            "actions_used": point.actions_used,
            "budget": self.budget,
            "score": point.score,
            "call": decision.model_dump(mode="json") if isinstance(decision, SkillCall) else None,
        }
        if label is not None:
            info["action_label"] = label
        if isinstance(decision, PolicyError):
            info |= {
                "status": "failure",
                "reason": decision.kind,
                "message": decision.message,
                "report": None,
                "policy_error": decision.model_dump(mode="json"),
            }
        else:
            report = self._report(point, index)
            info |= {
                "status": report["status"] if report else "failure",
                "reason": report["reason"] if report else "infrastructure_fault",
                "message": report["message"] if report else "",
                "report": report,
                "policy_error": None,
            }
        terminated = truncated = False
        if point.finished:
            record = point.record
            assert record is not None
            self.last_record = record
            end = record.outcome.end_reason
            terminated = end in (EndReason.FINAL_MILESTONE, EndReason.DEATH, EndReason.NO_EXECUTABLE_ACTION)
            truncated = not terminated
            info["end_reason"] = end.value
            info["outcome"] = record.outcome.model_dump(mode="json")
            info["episode_id"] = record.episode_id
            if record.infrastructure_faults:
                f = record.infrastructure_faults[0]
                info["fault"] = {"kind": f.kind, "message": f.message, "action_index": f.action_index}
            self._session = None
        if self.reveal_hidden:
            info["encounters"] = point.encounters
        assert point.observation is not None
        return observation_element(point.observation, self.spec_task), reward, terminated, truncated, info

    def close(self) -> None:
        """Stop the running episode's server and body (idempotent); the reactor thread stays for the
        process (it cannot be restarted)."""
        if not self._closed:
            self._end_session()
            self._closed = True
        super().close()

    # -- helpers -----------------------------------------------------------------------------------------
    def _call(self, fn: Any, *args: Any) -> Any:
        from mirrorcraft.study.runner_reactor import call_on_reactor

        return call_on_reactor(fn, *args)

    def _end_session(self) -> None:
        session, self._session, self._point = self._session, None, None
        if session is not None:
            self._call(session.abort)

    def _decision(self, action: Any) -> tuple[SkillCall | PolicyError, str | None]:
        if self.action_mode == "discrete":
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item()
            if isinstance(action, bool) or not isinstance(action, int | np.integer):
                raise error.InvalidAction(f"discrete action must be an integer, got {type(action).__name__}")
            if not 0 <= int(action) < len(self.menu):
                raise error.InvalidAction(
                    f"discrete action {action} outside the menu 0..{len(self.menu) - 1}"
                )
            entry = self.menu[int(action)]
            return entry.call, entry.label
        from mirrorcraft.agents.parsing import parse_action, policy_error

        if not isinstance(action, str):
            return policy_error("unparseable", repr(action)[:200], "a text action must be a string"), None
        parsed = parse_action(action, self._allowed)
        return (parsed if isinstance(parsed, PolicyError) else parsed.call), None

    @staticmethod
    def _report(point: DecisionPoint, index: int | None) -> dict[str, Any] | None:
        record = point.record
        if record is not None and record.trajectory and record.trajectory[-1].index == index:
            return record.trajectory[-1].report.model_dump(mode="json")
        last = point.observation.last_result if point.observation is not None else None
        if last is not None and last.action_index == index:
            return last.report.model_dump(mode="json")
        return None


class IronArmorEnv(MirrorCraftEnv):
    """``MirrorCraft-IronArmor-v0``: obtain any piece of iron armour (budget 50)."""

    task = TaskId.IRON_ARMOR


class DiamondEnv(MirrorCraftEnv):
    """``MirrorCraft-Diamond-v0``: mine a diamond (budget 50)."""

    task = TaskId.DIAMOND


class EnchantmentEnv(MirrorCraftEnv):
    """``MirrorCraft-Enchantment-v0``: enchant an item at an enchanting table (budget 75)."""

    task = TaskId.ENCHANTMENT


__all__ = [
    "AGENT_ID",
    "ActionMode",
    "DiamondEnv",
    "EnchantmentEnv",
    "EnvSetupError",
    "IronArmorEnv",
    "MirrorCraftEnv",
    "check_world_id",
]
