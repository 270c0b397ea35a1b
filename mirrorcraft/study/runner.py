"""The episode runner: one world copy, one server, one body and one agent per episode → an EpisodeRecord.

Why here: the study driver (:func:`~mirrorcraft.study.executors.run_study`) only knows a blocking,
importable callable ``run_episode(identity) -> EpisodeRecord``; this module is that callable
(:func:`run_episode_blocking`, or :func:`make_episode_fn` for explicit settings) and the async runner behind
it (:class:`EpisodeRunner`), which wires the parts built elsewhere (worlds, server, body, skills, agents).

**One reactor, many episodes.** Every episode runs on the process's single Twisted reactor: the embedded
server (in-process, the default), the body, the skills and the agent loop. The blocking entry point starts
the reactor once per worker process in a dedicated thread and submits each episode to it
(:mod:`mirrorcraft.study.runner_reactor`); async callers already on a reactor (tests under pytest-twisted)
``await EpisodeRunner.run(identity)`` directly.

**Per episode** (:meth:`EpisodeRunner.run`):

1. world: the catalogue save of ``identity.world_id`` under ``settings.worlds_dir`` (built if missing and
   ``build_missing``), checked (a Mirror copy must hold and enable its rule pack; the task's milestone
   advancements must exist in the vendored vanilla pack) and byte-copied to a fresh temporary folder;
2. server: :class:`~mirrorcraft.server.EmbeddedServer` on a free port on this reactor (``server="embedded"``),
   :class:`~mirrorcraft.harness.process.ServerProcess` in a child process (``server="child"``), both seeded with
   ``identity.seed``, or the user's vanilla 1.19.2 jar (``server="vanilla"``: a server folder prepared
   from the world copy, ``java -jar`` through :class:`~mirrorcraft.harness.vanilla.VanillaServer`, ready at
   ``Done (`` + an RCON login; :func:`~mirrorcraft.harness.vanilla.vanilla_preflight` fails fast on a
   missing jar, java or EULA flag). The harness's :class:`~mirrorcraft.harness.episode_server.EpisodeServer`
   hides the three behind one interface; every mode serves RCON on 127.0.0.1 with a random password;
3. controls: once the body is in, :class:`~mirrorcraft.harness.control.RconServerControl` applies the
   benchmark :class:`~mirrorcraft.contracts.Controls` over that RCON socket and reads them back; the record's
   ``controls`` are the read-back values, the run notes say ``controls_via: rcon`` and keep every command
   and reply (``rcon_log``). The embedded server's join-time defaults (``ServerConfig.controls``) are only
   a mirror, never a fallback: a refused or unreachable RCON is a ``server_error`` fault;
4. body joins (offline name ``agent``); spawn = the body's feet block and biome once chunks are in;
5. the agent loop (:func:`mirrorcraft.agents.run_episode`) with the identity's budget; before each action
   the evaluator is told which action starts, after it the runner passes a tick barrier
   (:func:`~mirrorcraft.harness.barrier.tick_barrier`) and reads the milestones: S_k is the value of the
   deepest task milestone seen by action k. The loop ends at the final milestone (as the server's
   evaluator reports it, also when granted out of order), budget exhausted, death, or
   ``max_consecutive_policy_errors`` policy errors (no executable action);
6. the record: identity, controls, spawn, milestone values, outcome, S_0 and the trajectory (call, σ,
   report, S_k, policy errors), milestones and encounters from the evaluator, usage/cost and wall time.

**Evaluator.** The runner talks to every evaluator through the
:class:`~mirrorcraft.contracts.interfaces.Evaluator` ABC only (``begin`` before the join, ``joined`` after
the first barrier, ``begin_action`` / ``after_action`` around each action; ``kind`` goes to the record,
``basis`` to the notes' ``evaluator_basis``). Which one depends on the server
(:meth:`~mirrorcraft.harness.episode_server.EpisodeServer.evaluator`): in this process, an
:class:`~mirrorcraft.harness.evaluators.EmbeddedEvaluator` listens to its outcome events
(``EmbeddedEvaluator.attach(game)``); a vanilla jar gets
:class:`~mirrorcraft.harness.report_evaluators.RconEvaluator` (advancement queries over RCON, encounters
derived harness-side from the manifest and outcome reports; the record says ``evaluator: rcon``); a child
process gets :class:`~mirrorcraft.harness.report_evaluators.PacketEvaluator` (milestones from the server's
advancement packets, encounters from manifest + reports).

**Faults.** Failures outside the agent's control become a record with ``end_reason=infrastructure_fault``
(the study driver reruns it under the same id): ``missing_datapack`` (Mirror copy without its enabled rule
pack), ``advancement_unavailable`` (a task milestone has no advancement), ``server_error`` (world missing,
server start failure, the body could not join or get its chunks), ``disconnected`` (the connection closed
during the episode), ``other`` (anything unexpected, with the traceback; LLM failures after retries).
Deaths, exhausted budgets and policy errors are outcomes.

**Agent.** ``identity.model.name == "scripted"`` selects the offline scripted policy whatever
``identity.agent`` says (the smoke grid names configuration ``react`` with model ``scripted``); the scripted
policy refuses rule cards, so it plays disclosed episodes without them (the notes say so). Other models
build ``configuration_for(agent, disclosure)`` on :func:`~mirrorcraft.agents.make_llm_client`, with the
suite's rule card for ReAct w/rules.

Partial (honest state at the time of writing): the vanilla path is tested only up to its fail-fast checks
here (no jar on this machine; ``real_server`` test for a user's jar); with the server in a child process
the tick barrier is a timed wait and the evaluator reads the advancement packets; accelerated tick rates
make the skills' game-time limits shorter in wall time than the body can act (docs/runner.md
"Throughput"). A full scripted Diamond episode currently reaches Score 50
(docs/runner.md "What an episode reaches today").
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import time
import traceback
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts import (
    AgentContext,
    Controls,
    EpisodeIdentity,
    EpisodeRecord,
    OutcomeReport,
    SkillCall,
    SpawnInfo,
    TaskSpec,
    task_spec,
)
from mirrorcraft.errors import WorldError
from mirrorcraft.harness.control import ControlError
from mirrorcraft.harness.episode_server import EpisodeServer
from mirrorcraft.harness.vanilla import vanilla_preflight
from mirrorcraft.study import episode_map
from mirrorcraft.study.runner_concurrency import (
    DEFAULT_MAX_MODEL_CALLS,
    DEFAULT_MAX_SETUPS,
    BoundedLLM,
    Slot,
    model_call_gate,
    setup_gate,
)
from mirrorcraft.study.runner_records import EpisodeFault, FaultKind, build_record, fault_record

#: Environment variables read by :func:`run_episode_blocking` (the study CLI passes no settings object).
ENV_WORLDS = "MIRRORCRAFT_WORLDS"
ENV_SERVER = "MIRRORCRAFT_SERVER"
ENV_TICK_RATE = "MIRRORCRAFT_TICK_RATE"
#: ``free`` (default), ``lockstep`` or ``lockstep-unpaced`` (docs/lockstep.md; the study CLI's ``--clock`` sets it).
ENV_CLOCK = "MIRRORCRAFT_CLOCK"
#: Wall seconds one lockstep tick waits for a silent body (the study CLI's ``--lockstep-timeout``).
ENV_LOCKSTEP_TIMEOUT = "MIRRORCRAFT_LOCKSTEP_TIMEOUT"
#: Model calls in flight at most per worker process (the study CLI's ``--max-model-calls``).
ENV_MODEL_CALLS = "MIRRORCRAFT_MODEL_CALLS"
ENV_RECORDS = "MIRRORCRAFT_EPISODE_DIR"
ENV_SERVER_JAR = "MIRRORCRAFT_SERVER_JAR"
ENV_ACCEPT_EULA = "MIRRORCRAFT_ACCEPT_EULA"
ENV_JAVA = "MIRRORCRAFT_JAVA"
ENV_LLM = "MIRRORCRAFT_LLM"  #: JSON: model name → LLMRuntime fields (endpoint, limits, prices)

AGENT_NAME = "agent"
RULE_PACK_ENTRY = "file/mirrorcraft_rules.zip"


class RunnerSettings(BaseModel):
    """How episodes are run (everything that is not part of the episode identity).

    Attributes:
        worlds_dir: the world catalogue folder (``vanilla/<world>``, ``mirror/<world>/<suite>``).
        build_missing: build a catalogue world that is not there yet (Vanilla first for a Mirror copy).
        world_radius: radius in blocks of worlds built here (None: the generator's default, 256).
        server: ``embedded`` (in-process, this reactor), ``child`` (a child process, another core) or
            ``vanilla`` (the user's 1.19.2 server jar, ``java -jar``; needs ``server_jar`` and
            ``accept_eula``; real time only).
        server_jar / java / accept_eula: the vanilla jar, the Java 17+ executable, and whether the user
            accepted the Minecraft EULA (``eula.txt`` is written only then); see :func:`vanilla_preflight`.
        vanilla_ready_timeout: seconds to wait for the vanilla server's ``Done (`` line and RCON login.
        tick_rate: server ticks per second (20 = real time; higher = accelerated); in lockstep the pace.
        clock: ``free`` (default: the server ticks on the wall clock) or ``lockstep`` (embedded and child
            servers: the server runs a tick only when the body is done with the last one, and the body acts
            only inside a skill call and the barrier after it, so the agent's thinking costs no game
            time; docs/lockstep.md).
        lockstep_paced: lockstep keeps ``tick_rate`` as the minimum tick interval (False: unpaced).
        lockstep_timeout: wall seconds a lockstep tick waits for the body (this bounds the agent's thinking
            time between two actions; past it the server evicts the body to free-running and records it).
        view_distance: chunk radius streamed to the body.
        controls: runtime controls (recorded in every record).
        work_dir: where per-episode world copies go (default: the system temp folder).
        keep_world: keep the played world copy after the episode (debugging).
        records_dir: if set, each record and its run notes are written there as ``<episode_id>.json``.
        spawn_timeout / chunk_timeout: seconds to log in and to receive the chunks around spawn.
        barrier_ticks: server ticks waited by the tick barrier after each action.
        llm_record_dir / llm_replay_dir: record model calls to / replay them from ``<episode_id>.jsonl``.
        llm: model name → :class:`~mirrorcraft.agents.llm.LLMRuntime` fields (api_base, timeout_s,
            max_retries, max_cost_usd, prices): how to reach the model, not part of the identity.
        max_model_calls: model calls in flight at most in this worker process, all its episodes together
            (:mod:`mirrorcraft.study.runner_concurrency`; matters with ``--concurrency`` > 1).
        max_setups: episodes of this worker process in their setup (world copy, server start, join) at
            once; the others queue (run notes ``seconds.queued``), so a setup's timeouts are not eaten by
            its siblings' setups.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    worlds_dir: Path = Path("runs/worlds")
    build_missing: bool = True
    world_radius: int | None = Field(None, ge=16)
    server: Literal["embedded", "child", "vanilla"] = "embedded"
    server_jar: Path | None = None
    java: str = "java"
    accept_eula: bool = False
    vanilla_ready_timeout: float = Field(300.0, gt=0)
    tick_rate: float = Field(20.0, gt=0, le=1000)
    clock: Literal["free", "lockstep"] = "free"
    lockstep_paced: bool = True
    lockstep_timeout: float = Field(300.0, gt=0)
    view_distance: int = Field(4, ge=3, le=16)
    controls: Controls = Field(default_factory=Controls)
    work_dir: Path | None = None
    keep_world: bool = False
    records_dir: Path | None = None
    spawn_timeout: float = Field(30.0, gt=0)
    chunk_timeout: float = Field(30.0, gt=0)
    barrier_ticks: int = Field(2, ge=1)
    llm_record_dir: Path | None = None
    llm_replay_dir: Path | None = None
    llm: dict[str, dict[str, Any]] = Field(default_factory=dict)
    max_model_calls: int = Field(DEFAULT_MAX_MODEL_CALLS, ge=1)
    max_setups: int = Field(DEFAULT_MAX_SETUPS, ge=1)

    @classmethod
    def from_env(cls, **overrides: Any) -> RunnerSettings:
        """Settings from :data:`ENV_WORLDS`, :data:`ENV_SERVER`, :data:`ENV_TICK_RATE`, :data:`ENV_CLOCK`,
        :data:`ENV_LOCKSTEP_TIMEOUT`, :data:`ENV_MODEL_CALLS`, :data:`ENV_RECORDS`, :data:`ENV_SERVER_JAR`,
        :data:`ENV_JAVA` and :data:`ENV_ACCEPT_EULA` (``1``/``true``/``yes``).

        Raises:
            ValueError: :data:`ENV_CLOCK` is not ``free``, ``lockstep`` or ``lockstep-unpaced``.
        """
        data: dict[str, Any] = {}
        if os.environ.get(ENV_WORLDS):
            data["worlds_dir"] = Path(os.environ[ENV_WORLDS])
        if os.environ.get(ENV_SERVER):
            data["server"] = os.environ[ENV_SERVER]
        if os.environ.get(ENV_TICK_RATE):
            data["tick_rate"] = float(os.environ[ENV_TICK_RATE])
        if os.environ.get(ENV_CLOCK):
            mode = os.environ[ENV_CLOCK].strip().lower()
            if mode not in ("free", "lockstep", "lockstep-unpaced"):
                raise ValueError(f"{ENV_CLOCK}={mode!r}: expected free, lockstep or lockstep-unpaced")
            data["clock"] = "free" if mode == "free" else "lockstep"
            data["lockstep_paced"] = mode != "lockstep-unpaced"
        if os.environ.get(ENV_LOCKSTEP_TIMEOUT):
            data["lockstep_timeout"] = float(os.environ[ENV_LOCKSTEP_TIMEOUT])
        if os.environ.get(ENV_MODEL_CALLS):
            data["max_model_calls"] = int(os.environ[ENV_MODEL_CALLS])
        if os.environ.get(ENV_RECORDS):
            data["records_dir"] = Path(os.environ[ENV_RECORDS])
        if os.environ.get(ENV_SERVER_JAR):
            data["server_jar"] = Path(os.environ[ENV_SERVER_JAR])
        if os.environ.get(ENV_JAVA):
            data["java"] = os.environ[ENV_JAVA]
        if os.environ.get(ENV_ACCEPT_EULA):
            data["accept_eula"] = os.environ[ENV_ACCEPT_EULA].strip().lower() in ("1", "true", "yes")
        if os.environ.get(ENV_LLM):
            data["llm"] = json.loads(os.environ[ENV_LLM])
        return cls.model_validate(data | overrides)


class RunNotes(BaseModel):
    """How an episode was run: what the record's schema has no field for (written next to the record)."""

    model_config = ConfigDict(extra="forbid")

    episode_id: str
    world_id: str
    world_source: str = ""
    server: str = ""
    port: int | None = None
    tick_rate: float = 20.0
    clock: str = Field("free", description="'free', 'lockstep' (paced at tick_rate) or 'lockstep-unpaced'.")
    lockstep: dict[str, Any] = Field(
        default_factory=dict,
        description="Lockstep statistics: stalls (the stall bound's evictions), barrier ticks, flush rounds.",
    )
    controls_via: str = Field("none", description="'rcon' once the controls were applied over RCON.")
    rcon_log: list[tuple[str, str]] = Field(
        default_factory=list, description="The control commands sent over RCON and the server's replies."
    )
    evaluator_basis: str = ""
    barrier: dict[str, int] = Field(default_factory=dict, description="Barrier outcome → count.")
    agent_registry_id: str = ""
    rule_cards_given: bool = False
    notes: list[str] = Field(default_factory=list)
    seconds: dict[str, float] = Field(default_factory=dict, description="Wall seconds per phase.")
    server_ticks: int | None = None
    fault: dict[str, Any] | None = None
    map_snapshot: dict[str, Any] | None = Field(
        None, description="Top block and height per column of the explored area (worlds/map_snapshot.py)."
    )


# ---------------------------------------------------------------------------------------------- world


def _level_enabled_packs(level_dat: Path) -> list[str]:
    from mirrorcraft.worlds.anvil.region import nbt_from_bytes

    try:
        root = nbt_from_bytes(gzip.decompress(level_dat.read_bytes()), str(level_dat))
        return [str(s) for s in root["Data"]["DataPacks"]["Enabled"]]
    except (OSError, EOFError, KeyError) as err:
        raise EpisodeFault("server_error", f"{level_dat}: unreadable Data.DataPacks.Enabled ({err})") from err


def check_world(identity: EpisodeIdentity, world: Path, spec: TaskSpec) -> None:
    """Refuse a world copy that cannot give a valid episode (classified :class:`EpisodeFault`).

    Raises:
        EpisodeFault: ``missing_datapack`` (Mirror copy without its rule pack, or pack not enabled in
            ``level.dat``, or a Vanilla world carrying one), ``advancement_unavailable`` (a milestone of
            the task has no advancement JSON in the vendored vanilla pack), ``server_error`` (no save).
    """
    from mirrorcraft.gamedata import VANILLA_PACK_DIR

    level = world / "level.dat"
    if not level.is_file():
        raise EpisodeFault("server_error", f"world {identity.world_id}: {world} has no level.dat")
    pack = world / "datapacks" / RULE_PACK_ENTRY.removeprefix("file/")
    enabled = _level_enabled_packs(level)
    if identity.suite is not None:
        if not pack.is_file():
            raise EpisodeFault("missing_datapack", f"world {identity.world_id}: rule pack {pack} is missing")
        try:
            with zipfile.ZipFile(pack) as zf:
                names = set(zf.namelist())
        except zipfile.BadZipFile as err:
            raise EpisodeFault("missing_datapack", f"world {identity.world_id}: {pack} is not a zip") from err
        if "pack.mcmeta" not in names:
            raise EpisodeFault("missing_datapack", f"world {identity.world_id}: {pack} has no pack.mcmeta")
        if RULE_PACK_ENTRY not in enabled:
            raise EpisodeFault(
                "missing_datapack",
                f"world {identity.world_id}: {level} does not enable {RULE_PACK_ENTRY} (enabled: {enabled})",
            )
    elif pack.exists() or RULE_PACK_ENTRY in enabled:
        raise EpisodeFault(
            "missing_datapack", f"world {identity.world_id}: a Vanilla world must not carry the rule pack"
        )
    adv_dir = Path(VANILLA_PACK_DIR) / "data" / "minecraft" / "advancements"
    for m in spec.milestones:
        path = adv_dir / (m.advancement.split(":", 1)[1] + ".json")
        if not path.is_file():
            raise EpisodeFault("advancement_unavailable", f"milestone {m.advancement}: {path} does not exist")


def resolve_world(identity: EpisodeIdentity, settings: RunnerSettings) -> Path:
    """The catalogue save of the episode's world copy, built first when missing and allowed.

    Raises:
        EpisodeFault: ``server_error`` when the world is missing and may not (or could not) be built.
    """
    from mirrorcraft.worlds.catalogue import build_world, world_path

    path = world_path(settings.worlds_dir, identity.world_id)
    if (path / "level.dat").is_file():
        return path
    if not settings.build_missing:
        raise EpisodeFault("server_error", f"world {identity.world_id} is not built at {path}")
    try:
        build_world(identity.world_id, settings.worlds_dir, settings.world_radius)
    except (WorldError, OSError) as err:
        if not (path / "level.dat").is_file():  # another worker may have built it concurrently
            raise EpisodeFault("server_error", f"world {identity.world_id}: build failed: {err}") from err
    return path


def prepare_world_copy(
    identity: EpisodeIdentity, settings: RunnerSettings, spec: TaskSpec, notes: RunNotes
) -> tuple[Path, Path]:
    """The episode's world copy: the catalogue save resolved (built if allowed), checked, byte-copied into a
    fresh scratch folder (:func:`mirrorcraft.worlds.copies.scratch_folder`: removed at exit and, when this
    worker is killed, by the next start). Returns ``(copy root, world)``; the caller releases the root
    (:func:`mirrorcraft.worlds.copies.release_scratch`).

    Raises:
        EpisodeFault: ``server_error`` (missing or unreadable world), ``missing_datapack`` /
            ``advancement_unavailable`` (:func:`check_world`).
    """
    from mirrorcraft.worlds.anvil import copy_save
    from mirrorcraft.worlds.copies import release_scratch, scratch_folder

    try:
        source = resolve_world(identity, settings)
        notes.world_source = str(source)
        check_world(identity, source, spec)
        copy_root = scratch_folder(f"{identity.episode_id}-", settings.work_dir or None)
        try:
            return copy_root, copy_save(source, copy_root / "world").path
        except BaseException:
            release_scratch(copy_root)
            raise
    except WorldError as err:
        raise EpisodeFault("server_error", f"world {identity.world_id}: {err}") from err


# ---------------------------------------------------------------------------------------------- agent


def build_agent(
    identity: EpisodeIdentity, settings: RunnerSettings, notes: RunNotes
) -> tuple[Any, list[str] | None]:
    """The agent for ``identity`` and the rule cards it is given (module docstring, **Agent**)."""
    from mirrorcraft.agents import LLMSettings, configuration_for, make_agent, make_llm_client

    if identity.model.name == "scripted":
        notes.agent_registry_id = "scripted"
        if identity.disclosure == "disclosed":
            notes.notes.append("scripted policy refuses rule cards: disclosed episode played without them")
        return make_agent("scripted", settings=dict(identity.agent_settings) or None), None
    reg_id = configuration_for(identity.agent, identity.disclosure)
    notes.agent_registry_id = reg_id
    cards = None
    if identity.disclosure == "disclosed" and identity.suite is not None:
        from mirrorcraft.contracts import load_suite

        cards = [load_suite(identity.suite).card_text()]
        notes.rule_cards_given = True

    def jsonl(folder: Path | None) -> Path | None:
        if folder is None:
            return None
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{identity.episode_id}.jsonl"

    llm = make_llm_client(
        LLMSettings.from_model_settings(identity.model, settings.llm.get(identity.model.name)),
        record=jsonl(settings.llm_record_dir),
        replay=jsonl(settings.llm_replay_dir),
    )
    # Every episode of this process shares one bound on the model calls in flight (runner_concurrency).
    llm = BoundedLLM(llm, model_call_gate(settings.max_model_calls))
    agent = make_agent(reg_id, llm=llm, settings=dict(identity.agent_settings) or None)
    return agent, cards


# --------------------------------------------------------------------------------------------- runner


class EpisodeRunner:
    """Runs episodes on the running reactor (call :meth:`run` from a coroutine on the reactor thread).

    Args:
        settings: how episodes are run.
    """

    def __init__(
        self,
        settings: RunnerSettings | None = None,
        *,
        on_server_started: Callable[[Any], None] | None = None,
        wrap_agent: Callable[[Any, EpisodeIdentity], Any] | None = None,
        agent_factory: Callable[[EpisodeIdentity, RunnerSettings, RunNotes], tuple[Any, list[str] | None]]
        | None = None,
    ) -> None:
        self.settings = settings or RunnerSettings()
        self.last_notes: RunNotes | None = None
        #: The running episode's evaluator (hidden from the agent): read by ``mirrorcraft.envs`` for its
        #: per-step Score and the opt-in rule encounters.
        self.last_evaluator: Any = None
        #: Builds the agent instead of :func:`build_agent` (``mirrorcraft.envs`` plugs in the Gymnasium
        #: caller's actions); same arguments and result as :func:`build_agent`.
        self.agent_factory = agent_factory
        #: Called with the started server wrapper (``.embedded`` is the EmbeddedServer in-process): a hook
        #: for tools and fault-injection tests; it must not change the game for a real episode.
        self.on_server_started = on_server_started
        #: ``wrap_agent(agent, identity) -> agent``: a hook at the LLM boundary for benchmarks (e.g. a
        #: simulated model latency before each decision, benchmarks/llm_bound.py); None for a real study.
        self.wrap_agent = wrap_agent

    async def run(self, identity: EpisodeIdentity) -> EpisodeRecord:
        """Play one episode and return its record (a fault record for an infrastructure fault).

        Never raises for a failing episode: unexpected errors become ``other`` faults with the traceback.
        """
        from twisted.internet import reactor

        settings = self.settings
        t0 = time.monotonic()
        notes = RunNotes(
            episode_id=identity.episode_id,
            world_id=identity.world_id,
            server=settings.server,
            tick_rate=settings.tick_rate,
            clock=_clock_mode(settings),
        )
        self.last_notes = notes
        spec = task_spec(identity.task, budget=identity.budget)
        controls = settings.controls
        spawn: SpawnInfo | None = None
        server: EpisodeServer | None = None
        body: Any = None
        control: Any = None
        copy_root: Path | None = None
        world: Path | None = None
        state: dict[str, Any] = {"index": 0, "usage": None, "version": "unknown", "positions": {}}
        phase_start = t0

        def phase(name: str) -> None:
            nonlocal phase_start
            now = time.monotonic()
            notes.seconds[name] = round(now - phase_start, 3)
            phase_start = now

        setup = Slot(setup_gate(settings.max_setups))
        try:
            await setup.acquire()  # many episodes per process: a few set up at once (runner_concurrency)
            phase("queued")
            copy_root, world = prepare_world_copy(identity, settings, spec, notes)
            phase("world")

            server = EpisodeServer(
                settings.server,
                self._server_config(identity, world, copy_root),
                world=world,
                ready_timeout=settings.vanilla_ready_timeout,
            )
            try:
                port = await server.start()
            except Exception as err:  # noqa: BLE001 - any start failure is a server fault
                raise EpisodeFault(
                    "server_error", f"server start failed: {type(err).__name__}: {err}"
                ) from err
            notes.port = port
            if self.on_server_started is not None:
                self.on_server_started(server)
            phase("server_start")

            from mirrorcraft.mcproto_body import Body, BodyConfig
            from mirrorcraft.skills import ActionHistory, ObservationBuilder, SkillSet

            body = Body(
                BodyConfig(
                    port=port,
                    username=AGENT_NAME,
                    view_distance=settings.view_distance,
                    connect_timeout=settings.spawn_timeout,
                )
            )
            builder = ObservationBuilder(body, spec)
            # The evaluator starts before the player joins, so advancements granted at join are kept (index 0).
            try:
                control = server.control(AGENT_NAME)
            except ControlError as err:
                raise EpisodeFault("server_error", str(err)) from err
            running, tick_rate = server, settings.tick_rate

            def ticks() -> int:  # a milestone's tick: the server's when visible, else wall time × rate
                t = running.ticks()
                return t if t is not None else int((time.monotonic() - t0) * tick_rate)

            evaluator = server.evaluator(control, body.advancements.done, ticks)
            self.last_evaluator = evaluator
            notes.evaluator_basis = evaluator.basis
            await evaluator.begin(identity)
            try:
                await body.connect(spawn_timeout=settings.spawn_timeout)
            except Exception as err:  # noqa: BLE001 - joining failed: the server's fault, not the agent's
                raise EpisodeFault(
                    "server_error", f"the body could not join: {type(err).__name__}: {err}"
                ) from err
            if not await body.wait_chunks(radius=2, timeout=settings.chunk_timeout):
                raise EpisodeFault(
                    "server_error", f"chunks around spawn not received in {settings.chunk_timeout}s"
                )
            feet = body.movement.block_position()
            biome = body.world.biome_at(*feet)
            if biome is None:
                raise EpisodeFault("server_error", f"no biome data for the spawn column {feet}")
            spawn = SpawnInfo(position={"x": feet[0], "y": feet[1], "z": feet[2]}, biome=biome)
            phase("join")
            # The controls go over the server's RCON socket for every server (docs/runner.md "Controls");
            # what the server reads back is what the record carries. A failure is an infrastructure fault:
            # there is no silent fallback to the embedded server's join-time defaults (only a mirror).
            try:
                controls = await control.apply_controls(settings.controls)
            except Exception as err:  # noqa: BLE001 - RCON refused or unreachable: the server's fault
                notes.rcon_log = list(control.log)
                raise EpisodeFault(
                    "server_error", f"controls over RCON failed: {type(err).__name__}: {err}"
                ) from err
            notes.controls_via = "rcon"
            notes.rcon_log = list(control.log)
            phase("controls")
            setup.release()

            agent, cards = (self.agent_factory or build_agent)(identity, settings, notes)
            if self.wrap_agent is not None:
                agent = self.wrap_agent(agent, identity)
            skills = SkillSet(body, ticks_per_second=settings.tick_rate)
            history = ActionHistory()
            context = AgentContext(task=spec, skills=skills.specs(), rule_cards=cards, rng_seed=identity.seed)

            def check_alive(index: int | None) -> None:
                from mirrorcraft.mcproto_body.connection import State

                if body.conn.state is not State.PLAYING:
                    raise EpisodeFault("disconnected", "the body's connection to the server closed", index)
                if not server.alive():
                    raise EpisodeFault("server_error", "the server stopped ticking or exited", index)

            async def observe() -> Any:
                check_alive(state["index"] or None)
                obs = builder.build(history)
                # The loop ends when the task view has no next milestone, i.e. when *all* milestones are
                # done in order; the episode must end as soon as the server grants the final one (a diamond
                # can be obtained before stone was mined). The server's evaluator decides.
                final = spec.final.advancement
                if obs.task.next_milestone is not None and any(
                    m.advancement == final for m in await evaluator.milestones()
                ):
                    obs = obs.model_copy(
                        update={"task": obs.task.model_copy(update={"next_milestone": None})}
                    )
                    if "final milestone out of order" not in notes.notes:
                        notes.notes.append("final milestone out of order")
                return obs

            async def execute(call: SkillCall) -> OutcomeReport:
                index = history.actions_used + 1
                state["index"] = index
                check_alive(index)
                evaluator.begin_action(index, call)
                with body.lockstep.acting():  # lockstep: game time runs only while a skill runs
                    report = await _unless_disconnected(body, skills.execute(call), index)
                history.record(call, report)
                state["positions"][index] = episode_map.feet(body)  # the viewer's path
                return report

            async def after_action(index: int, call: SkillCall, report: OutcomeReport) -> None:
                outcome = await _barrier(reactor, server, settings, body)
                notes.barrier[outcome] = notes.barrier.get(outcome, 0) + 1
                check_alive(index)
                await evaluator.after_action(index, call, report)

            from mirrorcraft.agents import run_episode as agent_loop

            # Milestones already granted at join (before any action) are read after a first barrier.
            outcome = await _barrier(reactor, server, settings, body)
            notes.barrier[outcome] = notes.barrier.get(outcome, 0) + 1
            await evaluator.joined()
            run = await agent_loop(agent, context, observe, execute, after_action=after_action)
            state["usage"], state["version"] = run.usage, run.prompt_template_version
            phase("agent_loop")
            notes.server_ticks = server.ticks()
            _lockstep_notes(notes, server, body)
            record = build_record(
                identity,
                spec,
                controls=controls,
                spawn=spawn,
                run=run,
                milestones=await evaluator.milestones(),
                encounters=await evaluator.encounters(),
                wall_time_s=time.monotonic() - t0,
                evaluator=evaluator.kind,
                positions=state["positions"],
            )
        except EpisodeFault as fault:
            record = self._fault(identity, fault, controls, spawn, t0, state, notes)
        except Exception as err:  # noqa: BLE001 - unexpected errors are recorded, classified 'other'
            from mirrorcraft.agents import LLMError
            from mirrorcraft.mcproto_body.connection import State

            kind: FaultKind = "other"
            msg = f"{type(err).__name__}: {err}"
            if isinstance(err, LLMError):
                msg = f"model call failed: {msg}"
                state["usage"] = getattr(err, "usage", None) or state["usage"]  # what the episode spent
            elif body is not None and body.conn.state is not State.PLAYING:
                kind, msg = "disconnected", f"connection closed during the episode ({msg})"
            fault = EpisodeFault(kind, msg, state["index"] or None)
            record = self._fault(identity, fault, controls, spawn, t0, state, notes, traceback.format_exc())
        finally:
            setup.release()
            if control is not None:
                control.close()  # else its connection pins the stopped server's game (memory flatness)
            if settings.records_dir is not None:  # the map goes with the notes; the copy is deleted next
                await episode_map.record_map(server, world, spawn, state["positions"], notes)
            await self._teardown(body, server, copy_root, notes)
        self._write(record, notes)
        return record

    def _server_config(self, identity: EpisodeIdentity, world: Path, copy_root: Path) -> Any:
        """The server's config: RCON on 127.0.0.1 with a random password in every mode (embedded: any
        free port; child: a free port chosen here, since only the game port is reported back; vanilla:
        ``server.properties`` from :func:`~mirrorcraft.harness.vanilla.prepare_server_dir`)."""
        from mirrorcraft.harness.vanilla import VanillaLaunchError, free_port
        from mirrorcraft.protocol.rcon import random_password

        settings = self.settings
        if settings.server == "vanilla":
            from mirrorcraft.harness.vanilla import VanillaServerConfig

            try:
                vanilla_preflight(
                    settings.server_jar, settings.accept_eula, settings.java, settings.tick_rate
                )
            except VanillaLaunchError as err:
                raise EpisodeFault("server_error", str(err)) from err
            assert settings.server_jar is not None
            return VanillaServerConfig(
                jar=settings.server_jar,
                server_dir=copy_root / "server",
                java=settings.java,
                accept_eula=settings.accept_eula,
                view_distance=settings.view_distance,
                simulation_distance=settings.view_distance,
            )
        from mirrorcraft.server.config import ServerConfig

        return ServerConfig(
            world=world,
            port=0,
            tick_rate=settings.tick_rate,
            view_distance=settings.view_distance,
            episode_seed=identity.seed,
            controls=settings.controls,  # the join-time mirror of what RCON applies
            rcon_port=0 if settings.server == "embedded" else free_port(),
            rcon_password=random_password(),
            never_ops=[AGENT_NAME],
            clock=settings.clock,
            lockstep_paced=settings.lockstep_paced,
            lockstep_timeout=settings.lockstep_timeout,
        )

    def _fault(
        self,
        identity: EpisodeIdentity,
        fault: EpisodeFault,
        controls: Controls,
        spawn: SpawnInfo | None,
        t0: float,
        state: dict[str, Any],
        notes: RunNotes,
        tb: str | None = None,
    ) -> EpisodeRecord:
        if tb is None and fault.__cause__ is not None:
            tb = "".join(traceback.format_exception(fault.__cause__))
        notes.fault = {"kind": fault.kind, "message": fault.message, "action_index": fault.action_index}
        return fault_record(
            identity,
            fault,
            controls=controls,
            spawn=spawn,
            tb=tb,
            wall_time_s=time.monotonic() - t0,
            usage=state.get("usage"),
            prompt_template_version=state.get("version", "unknown"),
            evaluator="rcon" if self.settings.server == "vanilla" else "embedded",
        )

    async def _teardown(
        self, body: Any, server: EpisodeServer | None, copy_root: Path | None, notes: RunNotes
    ) -> None:
        t = time.monotonic()
        if body is not None:
            try:
                await body.disconnect()
            except Exception as err:  # noqa: BLE001 - teardown must go on
                notes.notes.append(f"body disconnect: {type(err).__name__}: {err}")
        if server is not None:
            try:
                await server.stop()
            except Exception as err:  # noqa: BLE001
                notes.notes.append(f"server stop: {type(err).__name__}: {err}")
        if copy_root is not None:
            from mirrorcraft.worlds.copies import release_scratch

            release_scratch(copy_root, keep=self.settings.keep_world)
        notes.seconds["teardown"] = round(time.monotonic() - t, 3)

    def _write(self, record: EpisodeRecord, notes: RunNotes) -> None:
        write_record(self.settings.records_dir, record, notes)


def write_record(folder: Path | None, record: EpisodeRecord, notes: RunNotes) -> None:
    """``<folder>/<episode_id>.json``: the record and its run notes, written atomically (nothing when
    ``folder`` is None)."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    data = {"record": record.model_dump(mode="json"), "run_notes": notes.model_dump(mode="json")}
    tmp = folder / f".{record.episode_id}.json.tmp"
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, folder / f"{record.episode_id}.json")


async def _unless_disconnected(body: Any, skill_run: Any, index: int) -> OutcomeReport:
    """Await a skill call, abandoning it at once (``disconnected`` fault) if the connection closes."""
    from twisted.internet import defer

    settled: defer.Deferred[None] = defer.Deferred()

    def settle(result: Any = None) -> Any:
        if not settled.called:
            settled.callback(None)
        return result

    running = defer.ensureDeferred(skill_run)
    running.addBoth(settle)  # passes the skill's result (or failure) through unchanged
    body.conn.on_disconnect(settle)
    await settled
    if running.called:
        report, _ = await running
        return report
    running.cancel()
    running.addErrback(lambda _f: None)
    reason = body.conn.disconnect_reason or "connection closed"
    raise EpisodeFault("disconnected", f"connection closed during action {index}: {reason}", index)


def _clock_mode(settings: RunnerSettings) -> str:
    """The clock mode as the run notes record it."""
    if settings.clock == "free":
        return "free"
    return "lockstep" if settings.lockstep_paced else "lockstep-unpaced"


def _lockstep_notes(notes: RunNotes, server: EpisodeServer, body: Any) -> None:
    """Record the lockstep statistics (embedded server: the clock's own; the body's side in every mode)."""
    if notes.clock == "free":
        return
    clock = getattr(getattr(getattr(server.embedded, "game", None), "kernel", None), "clock", None)
    data: dict[str, Any] = {
        "body_in_lockstep": bool(body.lockstep.active),
        "body_evicted": bool(body.lockstep.evicted),
        "flush_rounds": body.lockstep.sync_rounds,
    }
    if clock is not None and hasattr(clock, "stalls"):
        data |= {"stalls": list(clock.stalls), "barrier_ticks": clock.barrier_ticks}
    notes.lockstep = data
    if body.lockstep.evicted:
        notes.notes.append("lockstep: the server evicted the body (stall bound); the rest ran free")


async def _barrier(clock: Any, server: EpisodeServer, settings: RunnerSettings, body: Any = None) -> str:
    from mirrorcraft.harness.barrier import tick_barrier

    if body is not None and body.lockstep.active:
        # Lockstep: exactly ``barrier_ticks`` server ticks, counted by the body (a wall-clock poll of the
        # server's counter would let a machine-dependent number of ticks run before the body stops acting).
        with body.lockstep.acting():
            await body.movement.wait_ticks(settings.barrier_ticks)
        return "ticks"
    return await tick_barrier(clock, server.tick_clock, settings.tick_rate, ticks=settings.barrier_ticks)


# ------------------------------------------------------------------------------------ blocking entries


def _run_with_settings(settings_json: str, identity: EpisodeIdentity) -> EpisodeRecord:
    from mirrorcraft.study.runner_reactor import call_on_reactor

    runner = EpisodeRunner(RunnerSettings.model_validate_json(settings_json))
    return call_on_reactor(runner.run, identity)


def make_episode_fn(settings: RunnerSettings) -> functools.partial[EpisodeRecord]:
    """A picklable blocking ``run_episode(identity) -> EpisodeRecord`` bound to ``settings``.

    It crosses process boundaries (spawned pool workers, Ray) as the settings' JSON; each worker process
    starts its own reactor thread on first use (:mod:`mirrorcraft.study.runner_reactor`).
    """
    return functools.partial(_run_with_settings, settings.model_dump_json())


def run_episode_blocking(identity: EpisodeIdentity) -> EpisodeRecord:
    """The study driver's episode function (``mirrorcraft.study.runner:run_episode_blocking``).

    Settings come from the environment (:meth:`RunnerSettings.from_env`): ``MIRRORCRAFT_WORLDS`` (catalogue
    folder, default ``runs/worlds``), ``MIRRORCRAFT_SERVER`` (``embedded``/``child``),
    ``MIRRORCRAFT_TICK_RATE``, ``MIRRORCRAFT_CLOCK`` (``free``/``lockstep``/``lockstep-unpaced``),
    ``MIRRORCRAFT_EPISODE_DIR`` (per-episode records + run notes).
    """
    return _run_with_settings(RunnerSettings.from_env().model_dump_json(), identity)


def lower_bound_ticks(record: EpisodeRecord) -> int:
    """In-game ticks the record's actions needed (sum of ``ticks_used``): its wall time at 20 t/s is the
    floor a real-time server imposes (used by benchmarks/episode_throughput.py)."""
    return sum(s.report.ticks_used for s in record.trajectory)


__all__ = [
    "ENV_CLOCK",
    "ENV_LOCKSTEP_TIMEOUT",
    "ENV_MODEL_CALLS",
    "ENV_RECORDS",
    "ENV_SERVER",
    "ENV_TICK_RATE",
    "ENV_WORLDS",
    "EpisodeFault",
    "EpisodeRunner",
    "RunNotes",
    "RunnerSettings",
    "build_agent",
    "build_record",
    "check_world",
    "fault_record",
    "lower_bound_ticks",
    "make_episode_fn",
    "prepare_world_copy",
    "resolve_world",
    "run_episode_blocking",
    "vanilla_preflight",
    "write_record",
]
