"""The composition root of the embedded server: the kernel, the world's rules and every feature, built once in
a declared order, and the tick order.

Why a composition root: the features (:mod:`mirrorcraft.server.features`) each receive what they depend on
through their constructors, so *someone* must build them in dependency order — and that order also fixes
the order their hooks run in (hooks run in registration order), which is part of the game's behaviour. It
is written down here, in one place, and nowhere else. The tick order is declared here too (the clock runs
exactly this list; :mod:`~mirrorcraft.server.kernel.clock`).

Build order (each feature after those it depends on) and what it means for the hooks:

* ``"joined"`` (after the join sequence): keep-alive, teams (every team and shown objective to the newcomer),
  chat (the yellow joined line to the others),
  advancements (the tree), experience (the bar), mobs (the cows), admin (difficulty, time, weather,
  effects, game mode) — then the ``join`` event. ``"left"``: movement (the move checks), chat (the left line
  and the spam count), windows (the open window closes) and the per-connection state of keep-alive,
  crafting and digging. ``"forget"`` (a departed player beyond ``ServerConfig.remembered_players``): admin,
  advancements, food, effects, experience, enchanting drop what they keep by name.
* ``"use_block"`` (a ``use_item_on`` before placing): crafting table, furnaces, enchanting table, chests,
  cakes (food), sweet berry bushes (farming); then ``"use_item_on"``: hoes and bone meal (farming).
* ``"use_entity"`` packets: mobs (attacks on animals), PvP (attacks on players), milking (interact).
* ``"block_broken"``: block entities (a furnace's, hopper's or chest's contents drop), food (the breaker's
  exhaustion).
* ``"block_changed"`` (every ``Kernel.set_block``): hoppers (a placed hopper's block entity), block updates
  (the neighbours' shapes, depth first: double chests, fences, crops...), random ticks (the index of ticking
  blocks).

Tick order (vanilla ``ServerLevel.tick``: scheduled block ticks, then the chunk tick — spawning, then random
ticks — then entities and block entities; an effect acts on the tick its duration runs out, so food comes
before admin; ``MinecraftServer.tickChildren`` runs the tick functions before any level): tick functions
(scenario judges), items, block ticks, spawning, random ticks, furnaces, hoppers, mobs, open windows,
advancement triggers, thorns (players who moved through a berry bush), food, delayed digs, admin (day time, weather, effect durations), movement
broadcasts, keep-alive. A late reactor's skipped ticks re-run the items phase (at most 4) before the full
tick (scheduled block ticks that fell due meanwhile run on the next full tick; random ticks are not
replayed).

Adding a mechanic is one feature module plus one line here (build it; add its tick phase if it has one).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.advancements import Advancements
from mirrorcraft.server.features.blockentities import BlockEntities
from mirrorcraft.server.features.blockupdates import BlockUpdates
from mirrorcraft.server.features.chat import Chat
from mirrorcraft.server.features.chests import Chests
from mirrorcraft.server.features.chunks import Chunks
from mirrorcraft.server.features.commands import Commands, KernelCommandHost
from mirrorcraft.server.features.crafting import Crafting
from mirrorcraft.server.features.damage import Damage
from mirrorcraft.server.features.digging import Digging
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.enchanting import Enchanting
from mirrorcraft.server.features.experience import Experience
from mirrorcraft.server.features.farming import Farming
from mirrorcraft.server.features.food import Food
from mirrorcraft.server.features.functions import TickFunctions
from mirrorcraft.server.features.furnaces import Furnaces
from mirrorcraft.server.features.hoppers import Hoppers
from mirrorcraft.server.features.inventory import Inventory
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.features.join import Join
from mirrorcraft.server.features.keepalive import KeepAlive
from mirrorcraft.server.features.light import Light
from mirrorcraft.server.features.lockstep import Lockstep
from mirrorcraft.server.features.milking import Milking
from mirrorcraft.server.features.mobs import Mobs
from mirrorcraft.server.features.movement import Movement
from mirrorcraft.server.features.nature import Nature
from mirrorcraft.server.features.placing import Placing
from mirrorcraft.server.features.pvp import Pvp
from mirrorcraft.server.features.randomticks import RandomTicks
from mirrorcraft.server.features.rcon_listener import RconListener
from mirrorcraft.server.features.shapes import Shapes
from mirrorcraft.server.features.spawning import NaturalSpawner
from mirrorcraft.server.features.teams import Teams
from mirrorcraft.server.features.thorns import Thorns
from mirrorcraft.server.features.windows import Windows
from mirrorcraft.server.kernel import Kernel, Player, Players
from mirrorcraft.server.kernel.events import Events, Listener
from mirrorcraft.server.kernel.world import World
from mirrorcraft.server.world_rules import WorldRules


class Game:
    """One embedded server's game: the kernel, the world's rules and the features.

    Raises:
        WorldError: the save cannot be read.
        DatapackError: a pack of the world is broken (the message names file and field).
        ContractError: the controls name an unknown game rule.
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.kernel = k = Kernel(config)
        self.world_rules = r = WorldRules.load(config)
        self.stop_handlers: list[Callable[[], object]] = []  # run by a ``stop`` command (EmbeddedServer)
        # ---- features, in dependency order (this order is also the hooks' order: module docstring) ----
        self.chunks = Chunks(k)
        self.effects = Effects(k)
        self.movement = Movement(k, self.chunks, self.effects)
        self.keepalive = KeepAlive(k)
        self.teams = Teams(k)
        self.chat = Chat(k, self.teams)
        self.items = Items(k)
        self.inventory = Inventory(k, self.items)
        self.advancements = Advancements(k, r)
        self.experience = Experience(k)
        self.windows = Windows(k, self.inventory, self.items)
        self.crafting = Crafting(k, r, self.windows, self.inventory)
        self.furnaces = Furnaces(k, r, self.windows, self.experience)
        self.enchanting = Enchanting(k, r, self.windows, self.experience, self.advancements)
        self.chests = Chests(k, self.windows)
        self.hoppers = Hoppers(k, self.chests, self.items)
        self.block_entities = BlockEntities(k, self.furnaces, self.chests, self.hoppers, self.items)
        self.mobs = Mobs(k, r, self.items, self.effects)
        self.admin = Admin(
            k, self.effects, self.items, self.inventory, self.experience, self.movement, self.chat
        )
        self.spawning = NaturalSpawner(k, r, self.mobs, self.admin)
        self.digging = Digging(k, r, self.items, self.admin, self.effects)
        self.block_updates = BlockUpdates(k, self.digging)
        self.chests.use_block_updates(self.block_updates)  # chests pair and split through block updates
        self.food = Food(k, self.admin, self.effects, self.items, self.block_updates)
        self.placing = Placing(k, self.block_updates)
        self.damage = Damage(k, self.admin, self.effects)
        self.pvp = Pvp(k, self.admin, self.effects, self.teams, self.chat, self.damage)
        self.thorns = Thorns(k, self.damage, self.chat)
        self.milking = Milking(k, self.mobs, self.admin, self.items)
        self.light = Light(k, self.admin)
        self.random_ticks = RandomTicks(k, self.admin)
        self.shapes = Shapes(k, r, self.block_updates)
        self.farming = Farming(
            k, r, self.block_updates, self.random_ticks, self.light, self.items, self.windows
        )
        self.nature = Nature(k, r, self.admin, self.block_updates, self.random_ticks, self.light, self.shapes)
        # lockstep (ServerConfig.clock): the tick barrier's plugin channel; None when free-running
        self.lockstep = Lockstep(k, batch=config.lockstep_batch) if config.clock == "lockstep" else None
        self.join = Join(
            k,
            self.chunks,
            self.movement,
            self.inventory,
            self.items,
            self.food,
            self.admin,
            offer_lockstep=self.lockstep.offer if self.lockstep is not None else None,
        )
        self.commands = Commands(
            k,
            KernelCommandHost(
                k,
                r,
                self,
                items=self.items,
                inventory=self.inventory,
                movement=self.movement,
                experience=self.experience,
                advancements=self.advancements,
                effects=self.effects,
                mobs=self.mobs,
                admin=self.admin,
                digging=self.digging,
                chat=self.chat,
                seed=config.episode_seed,
            ),
            self.chat,
            self.teams.scoreboard,
        )
        self.rcon = RconListener(k, self.commands)
        self.functions = TickFunctions(k)  # scenario judges the harness installs (vanilla's tick functions)
        # ---- the tick ------------------------------------------------------------------------------------
        k.clock.set_phases(
            [
                (
                    "functions",
                    self.functions.tick,
                ),  # vanilla ticks #minecraft:tick functions before the levels
                ("items", self.items.tick),
                ("block ticks", self.block_updates.tick),  # vanilla: scheduled ticks before the chunk tick
                ("spawning", self.spawning.tick),  # vanilla spawns in the chunk tick, before the entities
                ("random ticks", self.random_ticks.tick),  # the chunk tick after spawning (tickChunk)
                ("furnaces", self.furnaces.tick),
                ("hoppers", self.hoppers.tick),
                ("mobs", self.mobs.tick),
                ("windows", self.windows.tick),
                ("advancements", self.advancements.tick),
                ("thorns", self.thorns.tick),  # entities' tick: moved through a bush since the last one
                ("food", self.food.tick),  # before admin: an effect acts on the tick its duration runs out
                ("delayed digs", self.digging.tick),
                ("admin", self.admin.tick),
                ("movement", self.movement.tick),
                ("keep-alive", self.keepalive.tick),
            ],
            catch_up=[("items", self.items.tick)],
        )

    # ---- the kernel's services, for the server around the game and for tools --------------------------

    @property
    def world(self) -> World:
        return self.kernel.world

    @property
    def players(self) -> Players:
        return self.kernel.players

    @property
    def events(self) -> Events:
        return self.kernel.events

    @property
    def listeners(self) -> list[Listener]:
        """The published-event listeners (``subscribe`` appends; tools may append or remove directly)."""
        return self.kernel.events.listeners

    @property
    def tick_count(self) -> int:
        """Game ticks run so far (the server's clock; skipped catch-up ticks included)."""
        return self.kernel.tick_count

    # load statistics (EmbeddedServer.tick_stats, benchmarks/server_load.py)

    @property
    def tick_times(self) -> list[float]:
        """Seconds of work per recent tick."""
        return self.kernel.clock.tick_times

    @property
    def tick_starts(self) -> list[float]:
        """``perf_counter()`` at each recent tick start (loop jitter = reactor load)."""
        return self.kernel.clock.tick_starts

    @property
    def chunks_sent(self) -> int:
        """Chunk columns streamed so far."""
        return self.chunks.sent

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(event, data)`` for every published event (the harness's evaluator, tools, tests)."""
        self.kernel.events.subscribe(listener)

    # ---- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the tick loop on the running reactor."""
        self.kernel.clock.start()

    @property
    def running(self) -> bool:
        """True while the tick loop runs."""
        return self.kernel.clock.running

    def tick(self) -> None:
        """Run one game tick now (tests and tools; the loop calls the same)."""
        self.kernel.clock.tick()

    def stop(self) -> None:
        """Stop ticking and disconnect everyone."""
        self.kernel.clock.stop()
        for p in self.kernel.players.values():
            p.kick("Server stopped")

    def save(self, world_dir: Path | None = None) -> int:
        """Write the block entities and every changed chunk to the world folder; returns the chunks written."""
        target = Path(world_dir) if world_dir is not None else Path(self.config.world)
        self.block_entities.save(target)
        return self.kernel.world.save(world_dir)

    def request_stop(self) -> None:
        """The ``stop`` command: run the stop handlers (the embedded server stops, saving first)."""
        for fn in list(self.stop_handlers):
            fn()

    def connect(self, p: Player) -> None:
        """``p`` logged in: the join sequence (the network connection calls this)."""
        self.join.join(p)

    def disconnect(self, p: Player) -> None:
        """``p``'s connection closed."""
        self.join.leave(p)
