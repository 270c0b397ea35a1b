"""The game: players joining and leaving, chunk streaming, movement checks, digging with loot, items,
inventory clicks and block placement, driven by a fixed-rate tick loop on the Twisted reactor.

Why one class: every feature touches the same state (the world, the players, the item entities) and runs
on the single reactor thread, so a plain object with one method per player action keeps the flow easy to
follow (each method is the server half of one mineflayer plugin: digging, inventory, place_block...).

Vanilla behaviour followed (wiki.vg "Protocol" 1.19.2 for packets; the Minecraft Wiki for rules):
* join sequence: login (registry codec from gamedata), difficulty, abilities, held slot, view position,
  chunks, world border, spawn position, position (teleport id), inventory, time, weather, effects,
  experience, health (Mineflayer fires ``spawn`` on the first update_health).
* movement: a move is refused with a teleport back when it is more than 10 blocks (vanilla's
  ``moved too quickly`` limit, squared 100), faster horizontally than a sprint-jump with the player's Speed
  level allows (with slack for bunched packets), leaves the world border, or ends inside a block it
  was not already inside. No fall damage (documented choice: Peaceful benchmark, Resistance I).
* digging: see :mod:`mirrorcraft.rules.digging`; a finish that comes too early is *delayed* as in vanilla
  (the block is resent to that client and broken by the server once its own count reaches the break time);
  every dig/place packet is acknowledged with its sequence.
* hunger and eating: :mod:`mirrorcraft.server.food` (``game.food``), ticked before the admin state.
* drops: the block's loot table ``<ns>:blocks/<name>`` from the loaded datapacks (vanilla pack, then the
  save's ``datapacks/``, then extra packs), rolled with a seeded RNG; stacks pop out as item entities.
"""

from __future__ import annotations

import logging
import math
import time
import uuid as uuidlib
from collections.abc import Callable
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.task import LoopingCall

from mirrorcraft.errors import ContractError, WorldError
from mirrorcraft.rules.digging import DigConditions, can_harvest, finish_accepted, progress_per_tick
from mirrorcraft.rules.loot import BlockView, EntityView, LootContext, LootTableSet, ToolView
from mirrorcraft.server import facts, wire
from mirrorcraft.server.config import ServerConfig, seeded_rng
from mirrorcraft.server.connection import PlayerConnection
from mirrorcraft.server.inventory import OFFHAND, SIZE, Click
from mirrorcraft.server.physics import (
    PLAYER_EYE,
    ItemEntity,
    boxes_intersect,
    collides,
    player_box,
)
from mirrorcraft.server.world import World

log = logging.getLogger(__name__)

REACH = 6.0  # blocks from the eyes; vanilla allows sqrt(36) for digging/placing (ServerPlayerGameMode)
MAX_MOVE_SQ = 100.0  # vanilla "moved too quickly" threshold per packet (squared blocks)
SPRINT_JUMP = 0.75  # blocks/tick, a little above vanilla's sprint-jump peak
MOVE_SLACK = 3.0  # bunched packets after a lag spike
FACES = [(0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1), (-1, 0, 0), (1, 0, 0)]
FACE_AXIS = ["y", "y", "z", "z", "x", "x"]
FACE_NAME = ["down", "up", "north", "south", "west", "east"]
# Blocks a placement may replace (vanilla Material.replaceable in 1.19; code, not datapack data).
REPLACEABLE = frozenset(
    {
        "air",
        "cave_air",
        "void_air",
        "water",
        "lava",
        "grass",
        "tall_grass",
        "fern",
        "large_fern",
        "dead_bush",
        "seagrass",
        "tall_seagrass",
        "vine",
        "snow",
        "glow_lichen",
        "light",
        "structure_void",
    }
)
EFFECT_DURATION = 1_000_000  # ticks; refreshed on join (1.19 has no "infinite" effect duration)


class Game:
    """All game state and rules of one embedded server."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.world = World(config.world)
        level = self.world.level
        self.players: dict[int, PlayerConnection] = {}
        self.items: dict[int, ItemEntity] = {}
        self.tick_count = 0
        self.tick_times: list[float] = []  # seconds of work per tick
        self.tick_starts: list[float] = []  # perf_counter() at each tick start (loop jitter = reactor load)
        self.chunks_sent = 0
        self._next_eid = 1
        self.loot_rng = seeded_rng(level.seed, config.episode_seed, "loot")
        self.scatter_rng = seeded_rng(level.seed, config.episode_seed, "scatter")
        self.uuid_rng = seeded_rng(level.seed, config.episode_seed, "uuid")
        self.listeners: list[Callable[[str, dict], None]] = []
        from mirrorcraft.server.progress import Rules

        self.rules = Rules(self)  # part 2: one DatapackSet, menus, furnaces, cows, evaluator
        from mirrorcraft.server.admin import ServerAdmin

        self.admin = ServerAdmin(self)  # control plane: time, weather, rules, game modes, effects
        from mirrorcraft.server.spawning import NaturalSpawner

        self.spawning = NaturalSpawner(self)  # natural cow spawning every 400 ticks (doMobSpawning)
        from mirrorcraft.server.food import FoodRules

        self.food = FoodRules(self)  # hunger, saturation, exhaustion and eating (server/food.py)
        self.loot: LootTableSet = self.rules.packs.loot
        self._loop: LoopingCall | None = None

    # ---- datapacks -------------------------------------------------------------------------------------

    def pack_roots(self) -> list[Path]:
        """Pack roots in load order: vendored vanilla pack, the save's ``datapacks/`` (sorted), extras."""
        from mirrorcraft.gamedata import VANILLA_PACK_DIR

        roots = [Path(VANILLA_PACK_DIR)]
        packs = Path(self.config.world) / "datapacks"
        if packs.is_dir():
            for p in sorted(packs.iterdir()):
                if p.is_dir() and (p / "data").is_dir() or (p.is_file() and p.suffix == ".zip"):
                    roots.append(p)
        roots += [Path(p) for p in self.config.extra_datapacks]
        return roots

    # ---- ticking ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the tick loop on the running reactor."""
        # withCount: when the reactor falls behind, the call reports how many intervals passed; game time
        # catches up like vanilla's "Can't keep up" (ticks are not lost, so client-timed digs still match).
        self._loop = LoopingCall.withCount(self._ticks)
        self._loop.start(1.0 / self.config.tick_rate, now=False)

    @property
    def running(self) -> bool:
        """True while the tick loop runs."""
        return self._loop is not None and self._loop.running

    def stop(self) -> None:
        """Stop ticking and disconnect everyone."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        for p in list(self.players.values()):
            p.kick("Server stopped")

    def _ticks(self, count: int) -> None:
        missed = max(0, count - 1)
        self.tick_count += min(missed, 100)  # skipped ticks still count as game time (capped at 5 s)
        for _ in range(min(missed, 4)):  # and some of them still run the item physics
            self._tick_items()
        self.tick()

    def tick(self) -> None:
        """One game tick: items, pickups, player broadcasts, keep-alives."""
        t0 = time.perf_counter()
        self.tick_starts.append(t0)
        try:
            self.tick_count += 1
            self._tick_items()
            self.spawning.tick()  # vanilla spawns in the chunk tick, before the entities tick
            self.rules.tick()
            self.food.tick()  # before the admin tick: an effect acts on the tick its duration runs out
            self._tick_delayed_digs()
            self.admin.tick()
            self._broadcast_moves()
            self._keep_alive()
        except Exception:  # noqa: BLE001 - one bad tick must not stop the loop
            log.exception("tick %d failed", self.tick_count)
        self.tick_times.append(time.perf_counter() - t0)
        if len(self.tick_times) > 100_000:
            del self.tick_times[:50_000]
            del self.tick_starts[:50_000]

    def new_eid(self) -> int:
        eid = self._next_eid
        self._next_eid += 1
        return eid

    def new_uuid(self) -> uuidlib.UUID:
        return uuidlib.UUID(int=self.uuid_rng.getrandbits(128), version=4)

    def emit(self, event: str, **data: object) -> None:
        """Tell in-process listeners (tests, the evaluator) about a game event."""
        for fn in self.listeners:
            fn(event, data)

    # ---- join / leave ----------------------------------------------------------------------------------

    def join(self, p: PlayerConnection) -> None:
        """Send the join sequence and announce the player."""
        cfg, level, ctl = self.config, self.world.level, self.config.controls
        p.eid = self.new_eid()
        sx, sy, sz = level.spawn
        p.pos = [sx + 0.5, float(sy), sz + 0.5]
        while collides(self.world, player_box(*p.pos)) and p.pos[1] < 319:
            p.pos[1] += 1.0
        p.send("join_game", wire.login(p.eid, 0, p.protocol_version, 0, cfg.view_distance, cfg.view_distance))
        difficulty = ["peaceful", "easy", "normal", "hard"].index(ctl.difficulty)
        p.send("server_difficulty", wire.difficulty(difficulty))
        p.send("player_abilities", wire.abilities(0, 0.05, 0.1))
        p.send("held_item_change", wire.held_item_change(p.inventory.held))
        self.stream_chunks(p)
        bc = level.border_center
        p.send("initialize_world_border", wire.initialize_world_border(bc[0], bc[1], level.border_size))
        p.send("spawn_position", wire.spawn_position(sx, sy, sz))
        self.teleport(p, *p.pos)
        self.send_inventory(p)
        # Negative time of day freezes the client's daylight cycle (wiki.vg "Update Time").
        p.send("time_update", wire.update_time(self.tick_count, -ctl.time_of_day))
        rain = 0.0 if ctl.weather == "clear" else 1.0
        p.send("change_game_state", wire.game_state_change(7, rain))  # rain level
        p.send("change_game_state", wire.game_state_change(8, 1.0 if ctl.weather == "thunder" else 0.0))
        for eff in ctl.effects:
            flags = 0 if eff.hide_particles else 0x02  # bit 1: show particles, bit 2: show icon
            flags |= 0x04
            p.send(
                "entity_effect",
                wire.entity_effect(p.eid, facts.effect_id(eff.effect), eff.amplifier, EFFECT_DURATION, flags),
            )
        p.send("set_experience", wire.experience(0.0, ctl.xp_level, _total_xp(ctl.xp_level)))
        p.send("update_health", self.food.health_body(p))  # real food and saturation (server/food.py)
        # player list and entities
        everyone = list(self.players.values()) + [p]
        p.send("player_list_item", wire.player_info_add([(o.uuid, o.display_name, 0) for o in everyone]))
        for o in self.players.values():
            o.send("player_list_item", wire.player_info_add([(p.uuid, p.display_name, 0)]))
            o.send("spawn_player", wire.named_entity_spawn(p.eid, p.uuid, *p.pos, p.yaw, p.pitch))
            p.send("spawn_player", wire.named_entity_spawn(o.eid, o.uuid, *o.pos, o.yaw, o.pitch))
        for it in self.items.values():
            self._send_item_spawn(p, it)
        self.players[p.eid] = p
        p.last_keep_alive = time.monotonic()
        self.emit("join", player=p.display_name)

    def leave(self, p: PlayerConnection) -> None:
        """Remove a player and tell the others."""
        if self.players.pop(p.eid, None) is None:
            return
        for o in self.players.values():
            o.send("destroy_entities", wire.entity_destroy([p.eid]))
            o.send("player_list_item", wire.player_info_remove([p.uuid]))
        self.emit("leave", player=p.display_name)

    # ---- chunks ----------------------------------------------------------------------------------------

    def stream_chunks(self, p: PlayerConnection) -> None:
        """Send the chunks in view distance around ``p`` and unload those that left it."""
        cx, cz = math.floor(p.pos[0]) >> 4, math.floor(p.pos[2]) >> 4
        if p.center_chunk == (cx, cz):
            return
        p.center_chunk = (cx, cz)
        p.send("update_view_position", wire.update_view_position(cx, cz))
        r = self.config.view_distance
        want = {(x, z) for x in range(cx - r, cx + r + 1) for z in range(cz - r, cz + r + 1)}
        for key in sorted(want - p.loaded_chunks, key=lambda k: (k[0] - cx) ** 2 + (k[1] - cz) ** 2):
            p.send("chunk_data", self.world.map_chunk_body(key[0], key[1], p.protocol_version))
            p.loaded_chunks.add(key)
            self.chunks_sent += 1
        for key in p.loaded_chunks - want:
            p.send("unload_chunk", wire.unload_chunk(*key))
            p.loaded_chunks.discard(key)

    # ---- movement --------------------------------------------------------------------------------------

    def teleport(self, p: PlayerConnection, x: float, y: float, z: float) -> None:
        """Move ``p`` and tell its client (it must confirm before its moves count again)."""
        p.pos = [x, y, z]
        p.teleport_counter += 1
        p.pending_teleport = p.teleport_counter
        p.send("player_position_and_look", wire.player_position(x, y, z, p.yaw, p.pitch, p.pending_teleport))
        p.moved = True
        self.stream_chunks(p)

    def _speed_level(self, p: PlayerConnection) -> int:
        for eff in self.admin.effects_of(p):  # control plane: effects change with /effect
            if eff.effect == "minecraft:speed":
                return eff.amplifier + 1
        return 0

    def move(
        self,
        p: PlayerConnection,
        x: float | None,
        y: float | None,
        z: float | None,
        yaw: float | None,
        pitch: float | None,
        on_ground: bool,
    ) -> None:
        """Check and apply one movement packet."""
        if p.pending_teleport is not None:
            return  # vanilla ignores moves until the teleport is confirmed
        if yaw is not None and pitch is not None:
            if not (math.isfinite(yaw) and math.isfinite(pitch)):
                p.kick("Invalid move player packet received")
                return
            if (yaw, pitch) != (p.yaw, p.pitch):
                p.yaw, p.pitch = yaw, pitch
                p.moved = True
        p.on_ground = on_ground
        if x is None or y is None or z is None:
            return
        if not all(math.isfinite(v) and abs(v) < 3.0e7 for v in (x, y, z)):
            p.kick("Invalid move player packet received")
            return
        dx, dy, dz = x - p.pos[0], y - p.pos[1], z - p.pos[2]
        horiz = math.hypot(dx, dz)
        limit = SPRINT_JUMP * (1 + 0.2 * self._speed_level(p)) * MOVE_SLACK
        reason = None
        if dx * dx + dy * dy + dz * dz > MAX_MOVE_SQ:
            reason = "moved too quickly"
        elif horiz > limit:
            reason = "moved too fast horizontally"
        elif not self.world.inside_border(x, z):
            reason = "outside the world border"
        elif collides(self.world, player_box(x, y, z)) and not collides(self.world, player_box(*p.pos)):
            reason = "moved into a block"
        if reason is not None:
            log.info("%s %s (%.2f, %.2f, %.2f)", p.display_name, reason, dx, dy, dz)
            self.emit("move_refused", player=p.display_name, reason=reason)
            self.teleport(p, *p.pos)
            return
        if (x, y, z) != tuple(p.pos):
            p.pos = [x, y, z]
            p.moved = True
            self.stream_chunks(p)

    def _broadcast_moves(self) -> None:
        for p in self.players.values():
            if not p.moved:
                continue
            p.moved = False
            body = wire.entity_teleport(p.eid, *p.pos, p.yaw, p.pitch, p.on_ground)
            head = wire.entity_head_rotation(p.eid, p.yaw)
            for o in self.players.values():
                if o is not p:
                    o.send("entity_teleport", body)
                    o.send("entity_head_look", head)

    # ---- digging ---------------------------------------------------------------------------------------

    def _within_reach(self, p: PlayerConnection, pos: tuple[int, int, int]) -> bool:
        ex, ey, ez = p.pos[0], p.pos[1] + PLAYER_EYE, p.pos[2]
        cx, cy, cz = pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5
        return (ex - cx) ** 2 + (ey - cy) ** 2 + (ez - cz) ** 2 <= (REACH + 1.0) ** 2

    def _dig_conditions(self, p: PlayerConnection) -> DigConditions:
        held = p.inventory.held_stack
        haste = fatigue = 0
        for eff in self.admin.effects_of(p):  # control plane: effects change with /effect
            if eff.effect == "minecraft:haste":
                haste = eff.amplifier + 1
            elif eff.effect == "minecraft:mining_fatigue":
                fatigue = eff.amplifier + 1
        eye = self.world.get_block(
            math.floor(p.pos[0]), math.floor(p.pos[1] + PLAYER_EYE), math.floor(p.pos[2])
        )
        in_water = facts.block_name(eye) == "water"
        return DigConditions(
            item=facts.item_name(held[0]) if held else None,
            haste=haste,
            mining_fatigue=fatigue,
            in_water=in_water,
            on_ground=p.on_ground,
        )

    def dig(
        self, p: PlayerConnection, status: int, pos: tuple[int, int, int], face: int, sequence: int
    ) -> None:
        """Handle player_digging (status 0 start, 1 cancel, 2 finish, 3 drop stack, 4 drop item, 6 swap)."""
        if status in (3, 4):
            self._drop_held(p, whole=status == 3)
            return
        if status == 6:
            inv = p.inventory
            hand = 36 + inv.held
            inv.slots[hand], inv.slots[OFFHAND] = inv.slots[OFFHAND], inv.slots[hand]
            self.send_inventory(p)
            return
        if status == 5:  # release use item: stops eating (server/food.py)
            self.food.release(p)
            return
        if self.admin.handle_dig(p, status, pos):  # control plane: creative/adventure/spectator digging
            p.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))
            return
        state = self.world.get_block(*pos)
        block = facts.block_of_state(state)
        if status == 0:
            if not self._within_reach(p, pos) or facts.is_air(state):
                self._refuse_dig(p, pos, state)
            elif progress_per_tick(block, self._dig_conditions(p)) >= 1.0:
                self.break_block(p, pos)
            else:
                p.dig = (pos, self.tick_count)
        elif status == 1:
            p.dig = None
        elif status == 2:
            started = p.dig
            p.dig = None
            if started is None or started[0] != pos or facts.is_air(state):
                log.info(
                    "%s: finish at %s without a matching start (%s) or on air", p.display_name, pos, started
                )
                self._refuse_dig(p, pos, state)
            elif not finish_accepted(block, cond := self._dig_conditions(p), self.tick_count - started[1]):
                # Vanilla (ServerPlayerGameMode, STOP_DESTROY_BLOCK below 0.7 progress): not refused but
                # *delayed* — the server keeps counting from the start and breaks the block itself once its
                # own progress reaches 1 (see _tick_delayed_digs). The client's prediction is undone now
                # (vanilla's client restores the block when the sequence is acknowledged).
                elapsed = self.tick_count - started[1]
                log.info(
                    "%s: early finish of %s at %s after %d ticks (%s): delayed", p.display_name, block.name,
                    pos, elapsed, cond,
                )  # fmt: skip
                if p.delayed_dig is None:
                    p.delayed_dig = (pos, started[1])
                self.emit("dig_delayed", player=p.display_name, pos=pos, elapsed=elapsed)
                self._refuse_dig(p, pos, state)
            else:
                self.break_block(p, pos)
        p.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))

    def _tick_delayed_digs(self) -> None:
        """Finish the early-finished digs whose progress, counted from their start with the player's
        conditions now, reached 1 (vanilla's ``hasDelayedDestroy``); a block already gone drops the dig."""
        for p in list(self.players.values()):
            if p.delayed_dig is None:
                continue
            pos, start = p.delayed_dig
            state = self.world.get_block(*pos)
            if facts.is_air(state):
                p.delayed_dig = None
                continue
            block = facts.block_of_state(state)
            if progress_per_tick(block, self._dig_conditions(p)) * (self.tick_count - start + 1) >= 1.0:
                p.delayed_dig = None
                self.break_block(p, pos)

    def _refuse_dig(self, p: PlayerConnection, pos: tuple[int, int, int], state: int) -> None:
        p.send("block_change", wire.block_change(*pos, state))

    def break_block(self, p: PlayerConnection | None, pos: tuple[int, int, int]) -> list[tuple[str, int]]:
        """Break the block at ``pos`` as ``p`` (None = no player) and pop its loot. Returns the drops."""
        state = self.world.get_block(*pos)
        block = facts.block_of_state(state)
        self.set_block(pos, 0)
        held = p.inventory.held_stack if p is not None else None
        tool = facts.item_name(held[0]) if held else None
        drops: list[tuple[str, int]] = []
        if p is None or can_harvest(block, tool):
            drops = self.roll_block_loot(state, tool, p)
            for name, count in drops:
                self.spawn_item(
                    facts.item_id(name), count, (pos[0] + 0.5, pos[1] + 0.25, pos[2] + 0.5), pop=True
                )
        self.emit(
            "block_broken", player=p.display_name if p else None, pos=pos, block=block.name, drops=drops
        )
        return drops

    def roll_block_loot(
        self, state: int, tool: str | None, p: PlayerConnection | None
    ) -> list[tuple[str, int]]:
        """Roll ``<ns>:blocks/<name>`` for a broken block state (empty if no pack defines it)."""
        block = facts.block_of_state(state)
        ns, name = block.name.split(":", 1)
        location = f"{ns}:blocks/{name}"
        if location not in self.loot:
            return []
        ctx = LootContext(
            tool=ToolView(item=f"minecraft:{tool}" if tool else None),
            block=BlockView(name=block.name, state=block.state_properties(state)),
            this_entity=EntityView(type="minecraft:player", sneaking=bool(p and p.sneaking)) if p else None,
        )
        stacks = self.rules.roll_loot(location, ctx)  # part 2: rolled with the vanilla twin for the evaluator
        return [(s.name.removeprefix("minecraft:"), s.count) for s in stacks]

    # ---- blocks ----------------------------------------------------------------------------------------

    def set_block(self, pos: tuple[int, int, int], state: int) -> None:
        """Change a block and tell every player that has its chunk."""
        if not self.world.set_block(*pos, state):
            raise WorldError(f"set_block: y={pos[1]} outside the build height")
        body = wire.block_change(*pos, state)
        key = (pos[0] >> 4, pos[2] >> 4)
        for o in self.players.values():
            if key in o.loaded_chunks:
                o.send("block_change", body)

    def place(
        self,
        p: PlayerConnection,
        hand: int,
        clicked: tuple[int, int, int],
        face: int,
        cursor: tuple[float, float, float],
        sequence: int,
    ) -> None:
        """Handle use_item_on: place the held block against ``clicked`` on ``face``."""
        try:
            if not self.rules.use_block(p, hand, clicked):  # part 2: crafting table, furnaces, enchanting
                if not self.rules.block_entities.chests.use(p, hand, clicked):  # chests (server/chests.py)
                    self._place(p, hand, clicked, face, cursor)
        finally:
            p.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))

    def _place(
        self,
        p: PlayerConnection,
        hand: int,
        clicked: tuple[int, int, int],
        face: int,
        cursor: tuple[float, float, float],
    ) -> None:
        inv = p.inventory
        slot = OFFHAND if hand == 1 else 36 + inv.held
        stack = inv.slots[slot]
        if not 0 <= face < 6:
            raise ContractError(f"use_item_on: face {face} outside 0..5")
        clicked_state = self.world.get_block(*clicked)
        if stack is None or not self._within_reach(p, clicked):
            return
        name = facts.item_name(stack[0])
        try:
            block = facts.block(name)
        except KeyError:
            return  # not a block item (food, tools...): nothing to place in part 1
        if facts.block_name(clicked_state) in REPLACEABLE:
            target = clicked
        else:
            d = FACES[face]
            target = (clicked[0] + d[0], clicked[1] + d[1], clicked[2] + d[2])
        ok = False
        current = self.world.get_block(*target)
        if facts.block_name(current) in REPLACEABLE and self.world.inside_border(
            target[0] + 0.5, target[2] + 0.5
        ):
            state = self._placement_state(block, face, cursor, p)
            boxes = [
                (
                    target[0] + b[0],
                    target[1] + b[1],
                    target[2] + b[2],
                    target[0] + b[3],
                    target[1] + b[4],
                    target[2] + b[5],
                )
                for b in facts.collision_boxes(state)
            ]
            blocked = any(
                boxes_intersect(b, player_box(*o.pos)) for o in self.players.values() for b in boxes
            )
            if not blocked and -64 <= target[1] < 320:
                self.set_block(target, state)
                inv.slots[slot] = (stack[0], stack[1] - 1) if stack[1] > 1 else None
                ok = True
                self.emit("block_placed", player=p.display_name, pos=target, block=block.name)
        if not ok:
            p.send("block_change", wire.block_change(*target, self.world.get_block(*target)))
            p.send("block_change", wire.block_change(*clicked, clicked_state))
        inv.state_id += 1
        p.send("set_slot", wire.set_slot(0, inv.state_id, slot, inv.slots[slot]))

    def _placement_state(
        self, block: facts.BlockInfo, face: int, cursor: tuple[float, float, float], p: PlayerConnection
    ) -> int:
        """Vanilla placement properties: logs/pillars take the clicked face's axis; directional blocks face
        the player; slabs/stairs take the half from where the face was clicked; torches on a side wall
        become wall torches."""
        props = dict(block.properties)
        name = block.name.removeprefix("minecraft:")
        if name in ("torch", "soul_torch", "redstone_torch") and face >= 2:
            wall = "wall_torch" if name == "torch" else name.replace("_torch", "_wall_torch")
            return facts.state_id(wall, {"facing": FACE_NAME[face]})
        values: dict[str, str] = {}
        if "axis" in props:
            values["axis"] = FACE_AXIS[face]
        if "facing" in props:
            # the horizontal direction the player looks at (yaw 0 = south, 90 = west)
            yaw = p.yaw % 360
            looking = ["south", "west", "north", "east"][int((yaw + 45) // 90) % 4]
            opposite = {"south": "north", "north": "south", "west": "east", "east": "west"}[looking]
            allowed = props["facing"]
            if name.endswith("_stairs"):
                values["facing"] = looking
            elif opposite in allowed:
                values["facing"] = opposite
        if "half" in props and set(props["half"]) == {"top", "bottom"}:
            values["half"] = "top" if face == 0 or (face != 1 and cursor[1] > 0.5) else "bottom"
        if "type" in props and set(props["type"]) >= {"top", "bottom", "double"}:
            values["type"] = "top" if face == 0 or (face != 1 and cursor[1] > 0.5) else "bottom"
        return block.state(**values)

    # ---- items -----------------------------------------------------------------------------------------

    def spawn_item(
        self,
        item: int,
        count: int,
        pos: tuple[float, float, float],
        *,
        pop: bool = False,
        velocity: tuple[float, float, float] | None = None,
        pickup_delay: int = 10,
    ) -> list[ItemEntity]:
        """Spawn item entities (split into max-size stacks). ``pop`` scatters them like a broken block."""
        out = []
        limit = facts.stack_size(item)
        while count > 0:
            n = min(count, limit)
            count -= n
            rng = self.scatter_rng
            if pop:  # vanilla Block.popResource: ±0.25 offset, velocity ±0.1 / 0.2 up
                p = [
                    pos[0] + rng.uniform(-0.25, 0.25),
                    pos[1] + rng.uniform(-0.25, 0.25),
                    pos[2] + rng.uniform(-0.25, 0.25),
                ]
                v = [rng.uniform(-0.1, 0.1), 0.2, rng.uniform(-0.1, 0.1)]
            else:
                p = list(pos)
                v = list(velocity or (0.0, 0.0, 0.0))
            it = ItemEntity(self.new_eid(), self.new_uuid(), item, n, p, v, pickup_delay=pickup_delay)
            self.items[it.eid] = it
            for o in self.players.values():
                self._send_item_spawn(o, it)
            out.append(it)
        return out

    def _send_item_spawn(self, o: PlayerConnection, it: ItemEntity) -> None:
        o.send(
            "spawn_object",
            wire.spawn_entity(it.eid, it.uuid, facts.entity_type("item"), *it.pos, tuple(it.vel), 1),
        )
        o.send("entity_metadata", wire.item_entity_metadata(it.eid, it.item, it.count))
        o.send("entity_velocity", wire.entity_velocity(it.eid, tuple(it.vel)))
        it.sent_pos = tuple(it.pos)

    def _remove_item(self, it: ItemEntity) -> None:
        self.items.pop(it.eid, None)
        body = wire.entity_destroy([it.eid])
        for o in self.players.values():
            o.send("destroy_entities", body)

    def _tick_items(self) -> None:
        for it in list(self.items.values()):
            if it.eid not in self.items:
                continue
            it.tick(self.world)
            if it.age >= 6000 or it.pos[1] < -128:
                self._remove_item(it)
                continue
            self._merge(it)
            if it.eid not in self.items:
                continue
            if tuple(it.pos) != it.sent_pos:
                body = wire.entity_teleport(it.eid, *it.pos, 0.0, 0.0, it.on_ground)
                for o in self.players.values():
                    o.send("entity_teleport", body)
                it.sent_pos = tuple(it.pos)
            if it.pickup_delay == 0:
                self._pickup(it)

    def _merge(self, it: ItemEntity) -> None:
        limit = facts.stack_size(it.item)
        if it.count >= limit:
            return
        for other in list(self.items.values()):
            if other is it or other.item != it.item or other.count + it.count > limit:
                continue
            if (
                abs(other.pos[0] - it.pos[0]) <= 0.5
                and abs(other.pos[1] - it.pos[1]) <= 0.25
                and abs(other.pos[2] - it.pos[2]) <= 0.5
            ):
                it.count += other.count
                it.pickup_delay = max(it.pickup_delay, other.pickup_delay)
                self._remove_item(other)
                body = wire.item_entity_metadata(it.eid, it.item, it.count)
                for o in self.players.values():
                    o.send("entity_metadata", body)

    def _pickup(self, it: ItemEntity) -> None:
        for p in self.players.values():
            x0, y0, z0, x1, y1, z1 = player_box(*p.pos)
            reach = (x0 - 1.0, y0 - 0.5, z0 - 1.0, x1 + 1.0, y1 + 0.5, z1 + 1.0)
            if not boxes_intersect(reach, it.box()):
                continue
            left, changed = p.inventory.add(it.item, it.count)
            taken = it.count - left
            if taken <= 0:
                continue
            body = wire.collect(it.eid, p.eid, taken)
            for o in self.players.values():
                o.send("collect_item", body)
            for idx in sorted(changed):
                p.inventory.state_id += 1
                p.send("set_slot", wire.set_slot(0, p.inventory.state_id, idx, p.inventory.slots[idx]))
            self.emit("pickup", player=p.display_name, item=facts.item_name(it.item), count=taken)
            if left == 0:
                self._remove_item(it)
                return
            it.count = left
            body = wire.item_entity_metadata(it.eid, it.item, it.count)
            for o in self.players.values():
                o.send("entity_metadata", body)

    def _drop_held(self, p: PlayerConnection, whole: bool) -> None:
        inv = p.inventory
        stack = inv.held_stack
        if stack is None:
            return
        taken = inv.remove_held(stack[1] if whole else 1)
        inv.state_id += 1
        p.send("set_slot", wire.set_slot(0, inv.state_id, 36 + inv.held, inv.held_stack))
        if taken:
            self.throw(p, taken)

    def throw(self, p: PlayerConnection, stack: tuple[int, int]) -> None:
        """Throw a stack from ``p``'s eyes in its look direction (vanilla Player.drop: speed 0.3, delay 40)."""
        yaw, pitch = math.radians(p.yaw), math.radians(p.pitch)
        v = (
            -math.sin(yaw) * math.cos(pitch) * 0.3,
            -math.sin(pitch) * 0.3 + 0.1,
            math.cos(yaw) * math.cos(pitch) * 0.3,
        )
        self.spawn_item(
            stack[0], stack[1], (p.pos[0], p.pos[1] + PLAYER_EYE - 0.3, p.pos[2]), velocity=v, pickup_delay=40
        )
        self.emit("drop", player=p.display_name, item=facts.item_name(stack[0]), count=stack[1])

    # ---- inventory -------------------------------------------------------------------------------------

    def send_inventory(self, p: PlayerConnection) -> None:
        """Full resync of window 0 (window_items with a new state id)."""
        inv = p.inventory
        inv.state_id += 1
        p.send("window_items", wire.window_items(0, inv.state_id, list(inv.slots), inv.cursor))

    def click(self, p: PlayerConnection, c: Click) -> None:
        """Apply a click_window to window 0 and correct the client when its prediction differs."""
        inv = p.inventory
        if self.rules.click(p, c):  # part 2: container windows and the 2x2 crafting result
            return
        try:
            res = inv.click(c.slot, c.button, c.mode)
        except ContractError as err:
            log.info("%s: %s", p.display_name, err)
            self.send_inventory(p)
            return
        for stack in res.thrown:
            self.throw(p, stack)
        predicted = dict(c.changed)
        mismatch = c.state_id != inv.state_id or c.carried != inv.cursor
        for idx in res.changed | set(predicted):
            # a slot the server changed but the client did not list is a misprediction too
            if not 0 <= idx < SIZE or idx not in predicted or predicted[idx] != inv.slots[idx]:
                mismatch = True
        if mismatch:
            self.send_inventory(p)
        self.emit("click", player=p.display_name, slot=c.slot, button=c.button, mode=c.mode, resync=mismatch)

    def close_window(self, p: PlayerConnection, window: int) -> None:
        """Closing the inventory returns the cursor and the crafting grid to the inventory (else drops)."""
        if self.rules.close(p, window):  # part 2: container windows; window 0 also clears the result slot
            return
        inv = p.inventory
        returned = [inv.cursor] + [inv.slots[i] for i in range(1, 5)]
        inv.cursor = None
        for i in range(1, 5):
            inv.slots[i] = None
        for stack in returned:
            if stack:
                left, _ = inv.add(*stack)
                if left:
                    self.throw(p, (stack[0], left))
        if any(returned):
            self.send_inventory(p)

    # ---- keep-alive ------------------------------------------------------------------------------------

    def _keep_alive(self) -> None:
        now = time.monotonic()
        cfg = self.config
        for p in list(self.players.values()):
            if p.keep_alive_id is not None:
                if now - p.keep_alive_sent > cfg.keep_alive_timeout:
                    p.kick("Timed out")
            elif now - p.last_keep_alive >= cfg.keep_alive_interval:
                p.keep_alive_id = int(now * 1000)
                p.keep_alive_sent = now
                p.send("keep_alive", wire.keep_alive(p.keep_alive_id))


def _total_xp(level: int) -> int:
    """Total experience points at the start of ``level`` (Minecraft Wiki "Experience", Java)."""
    if level <= 16:
        return level * level + 6 * level
    if level <= 31:
        return int(2.5 * level * level - 40.5 * level + 360)
    return int(4.5 * level * level - 162.5 * level + 2220)


__all__ = ["Game", "reactor"]
