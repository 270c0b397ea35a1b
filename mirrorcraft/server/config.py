"""Configuration of one embedded-server run, and the seeded random streams derived from it.

Why pydantic: the same record starts an in-process server, is serialised to JSON to start a child process
(:class:`~mirrorcraft.harness.process.ServerProcess`), and is stored with an episode so the run can be
repeated. Every random draw the server makes comes from :func:`seeded_rng` (sha256 of the world seed,
the episode seed and a purpose name), so loot rolls and item scatter repeat exactly for the same config.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.contracts.episodes import Controls


class ServerConfig(BaseModel):
    """Everything an :class:`~mirrorcraft.server.EmbeddedServer` needs.

    Attributes:
        world: The Anvil save folder the server plays in (it is modified in place by :meth:`save`; an
            episode runs on a fresh copy, see docs/server.md).
        host / port: Bind address; port 0 picks a free port (read it from ``start()``).
        tick_rate: Game ticks per second (20 is vanilla; tests may accelerate).
        view_distance: Chunk radius streamed around each player (Mineflayer needs ≥ 3).
        episode_seed: Mixed with the world seed into every random stream.
        controls: Benchmark controls applied at join (difficulty, time, weather, effects, xp level).
        keep_alive_interval / keep_alive_timeout: Seconds between keep-alives / before a silent client is
            kicked (vanilla: 15 / 30).
        extra_datapacks: More pack roots (folders or zips) loaded after the save's ``datapacks/``.
        max_players: Refuse logins beyond this (counted when a login completes, as vanilla's
            ``PlayerList.canPlayerLogin``: connections still logging in hold no slot).
        login_timeout: Seconds a connection may take from connecting to entering play (vanilla: 600 ticks
            of ``ServerLoginPacketListenerImpl``, 30 s); then it is closed (``multiplayer.disconnect.
            slow_login`` when it reached the login state).
        remembered_players: How many players who left keep their per-name state (game mode, food, experience,
            effects, advancements, enchantment seed) for a rejoin; the least recently departed beyond this
            is forgotten (vanilla keeps that state on disk in ``playerdata/`` for ever and nothing in
            memory; MirrorCraft keeps it in memory only, bounded).
        max_pending_logins_per_address: Connections of one address not yet in play (handshaking, status,
            logging in) kept at once; one more closes the oldest of them (vanilla has no such bound: a
            MirrorCraft guard against handshake floods that never locks out a fresh login).
        rcon_port / rcon_password: Serve RCON on 127.0.0.1 at this port (0 = any free port; ``None`` = no
            RCON); ``None`` password = a random one (``EmbeddedServer.rcon_password``). docs/control.md.
        ops / never_ops: Op player names (level 4; default none) and names that may never be ops (agents).
        ops_file: Vanilla's ``ops.json`` (read at start when it exists, rewritten by ``op`` / ``deop``);
            ``None``: the ops live only in memory for this run.
        default_game_mode: The game mode of players joining for the first time (``server.properties``
            ``gamemode``; the ``defaultgamemode`` command changes it while the server runs).
        clock: ``"free"`` (default, today's behaviour: ticks at ``tick_rate`` on the wall clock) or
            ``"lockstep"``: tick n+1 runs only after every lockstep client declared it is done with tick n
            (:class:`~mirrorcraft.server.kernel.clock.LockstepClock`, docs/lockstep.md). Only clients that
            register for it on the ``mirrorcraft:tick`` channel take part; others never block the server.
        lockstep_paced: In lockstep, keep ``1 / tick_rate`` as the minimum tick interval (False: unpaced,
            as fast as the barrier allows).
        lockstep_timeout: Wall seconds a lockstep barrier (or the hold before the first lockstep client)
            waits; then the clients that owe their ``tick_done`` are evicted to free-running and the stall is
            recorded. A lockstep client that is *deciding* (its agent thinks between two actions) says so on
            ``mirrorcraft:tick_wait`` and is not evicted by this bound while it keeps saying it, up to
            ``lockstep_think_timeout``.
        lockstep_think_timeout: Wall seconds one barrier may be held by deciding clients (their
            ``tick_wait`` heartbeats) before they are evicted all the same: the longest an agent may think
            between two actions in lockstep (default one hour; an LLM call is minutes at most).
        lockstep_hold_start: In lockstep, hold at tick 0 until the first lockstep client registers (bounded by
            ``lockstep_timeout``), so the ticks before the body joins do not depend on the setup's speed.
        lockstep_batch: In lockstep, hold the lockstep clients' play packets and handle them right before the
            next tick, client by client in name order (as vanilla runs its queued packets between ticks, but
            in an order that does not depend on arrival), so several lockstep clients on one server give the
            same game whatever their packets' arrival order (team episodes set it; docs/lockstep.md).
            Replies then come a tick later. Default off: one body's episode keeps its replies within the tick.
        pvp: Whether players can hurt each other (``server.properties`` ``pvp``, vanilla default true); a
            team without friendly fire protects its members from each other either way.
    """

    model_config = ConfigDict(extra="forbid")

    world: Path
    host: str = "127.0.0.1"
    port: int = Field(25565, ge=0, le=65535)
    tick_rate: float = Field(20.0, gt=0, le=1000)
    view_distance: int = Field(4, ge=2, le=32)
    episode_seed: int = 0
    controls: Controls = Field(default_factory=Controls)
    keep_alive_interval: float = Field(15.0, gt=0)
    keep_alive_timeout: float = Field(30.0, gt=0)
    extra_datapacks: list[Path] = Field(default_factory=list)
    max_players: int = Field(20, ge=1)
    login_timeout: float = Field(30.0, gt=0)
    remembered_players: int = Field(64, ge=0)
    max_pending_logins_per_address: int = Field(16, ge=1)
    rcon_port: int | None = Field(None, ge=0, le=65535)
    rcon_password: str | None = None
    ops: list[str] = Field(default_factory=list)
    never_ops: list[str] = Field(default_factory=list)
    ops_file: Path | None = None
    default_game_mode: Literal["survival", "creative", "adventure", "spectator"] = "survival"
    pvp: bool = True
    clock: Literal["free", "lockstep"] = "free"
    lockstep_paced: bool = True
    lockstep_timeout: float = Field(300.0, gt=0)
    lockstep_think_timeout: float = Field(3600.0, gt=0)
    lockstep_hold_start: bool = True
    lockstep_batch: bool = False


def seeded_rng(world_seed: int, episode_seed: int, purpose: str) -> random.Random:
    """A ``random.Random`` for one purpose (``"loot"``, ``"scatter"``...), fixed by both seeds."""
    digest = hashlib.sha256(f"{world_seed}_{episode_seed}_{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
