"""Joining and leaving: the join sequence, the player list, and seeing the other players.

The join sequence (wiki.vg "Protocol" 1.19.2; what Mineflayer needs to fire ``spawn``): ``login`` (the
exact vanilla registry codec of the client's protocol, from gamedata), difficulty, abilities, held slot,
view position and the chunks in view, world border, spawn position, position (teleport id), inventory,
time, weather, the controls' effects, experience, health (Mineflayer fires ``spawn`` on the first
``update_health``); then the player list and the other players and item entities; then the tick rate on
the ``mirrorcraft:tick_rate`` channel (below). The player enters the game, and the ``"joined"`` hooks run
in the features' build order (advancements, experience, cows, the admin state), then the ``join`` event is
published. The player appears where the admin feature's ``spawnRadius`` spread puts it (the benchmark's
``spawnRadius 0``: exactly on the save's spawn point, moved up while it is inside a block;
:mod:`~mirrorcraft.server.kernel.spawn`), in its game mode (a new player: the default game mode) from the
login packet on; the player list carries every player's game mode.

Tick rate: every duration is counted in game ticks (furnace cook and burn times, mob AI, dig timing), so
an accelerated server stays consistent; clients are told the rate at join with a ``custom_payload`` on
channel ``mirrorcraft:tick_rate`` whose data is the ticks per second as ASCII decimal text (e.g.
``b"40.0"``); no such message means vanilla's 20. A lockstep server (``ServerConfig.clock``) also offers
lockstep right after ``login`` on ``mirrorcraft:clock`` (:mod:`~mirrorcraft.server.features.lockstep`).

Leaving: the player is removed and the ``"left"`` hooks drop what is tied to the connection (digging,
keep-alive, the open window, move checks, the spam count). What the features keep by name for a rejoin
(game mode, food, experience, effects, advancements, the enchantment seed — vanilla's ``playerdata/`` and
``advancements/`` files) is kept for the last ``ServerConfig.remembered_players`` players who left; when
one more leaves, the least recently departed is forgotten: the ``"forget"`` hooks run with its name (``b["who"]``)
(vanilla keeps that state on disk for ever; MirrorCraft keeps it only in memory, so it is bounded).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from mirrorcraft.rules.experience import total_xp
from mirrorcraft.server import facts, wire
from mirrorcraft.server.features.admin import GAME_MODE_IDS, Admin
from mirrorcraft.server.features.chunks import Chunks
from mirrorcraft.server.features.food import Food
from mirrorcraft.server.features.inventory import Inventory
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.features.movement import Movement
from mirrorcraft.server.kernel import Kernel, Player

TICK_RATE_CHANNEL = "mirrorcraft:tick_rate"
EFFECT_DURATION = 1_000_000  # ticks; refreshed on join (1.19 has no "infinite" effect duration)
DIFFICULTIES = ["peaceful", "easy", "normal", "hard"]


class Join:
    """Players entering and leaving the game."""

    def __init__(
        self,
        kernel: Kernel,
        chunks: Chunks,
        movement: Movement,
        inventory: Inventory,
        items: Items,
        food: Food,
        admin: Admin,
        offer_lockstep: Callable[[Player], None] | None = None,
    ) -> None:
        self.kernel = kernel
        self.offer_lockstep = offer_lockstep
        self.admin = admin
        self.chunks = chunks
        self.movement = movement
        self.inventory = inventory
        self.items = items
        self.food = food
        self.departed: OrderedDict[str, None] = OrderedDict()  # names that left, least recent first

    def join(self, p: Player) -> None:
        """Send the join sequence, enter ``p`` and announce it."""
        k = self.kernel
        cfg, level, ctl = k.config, k.world.level, k.config.controls
        p.eid = k.new_eid()
        sx, sy, sz = level.spawn
        p.pos = list(self.admin.spawn_position())
        mode = GAME_MODE_IDS[self.admin.game_mode(p)]
        p.send(
            "join_game", wire.login(p.eid, mode, p.protocol_version, 0, cfg.view_distance, cfg.view_distance)
        )
        if self.offer_lockstep is not None:
            # before the first position: a lockstep body never starts its wall-clock movement loop
            self.offer_lockstep(p)
        p.send("server_difficulty", wire.difficulty(DIFFICULTIES.index(ctl.difficulty)))
        p.send("player_abilities", self.admin.abilities(p))
        p.send("held_item_change", wire.held_item_change(p.inventory.held))
        self.chunks.stream(p)
        bc = level.border_center
        p.send("initialize_world_border", wire.initialize_world_border(bc[0], bc[1], level.border_size))
        p.send("spawn_position", wire.spawn_position(sx, sy, sz))
        self.movement.teleport(p, *p.pos)
        self.inventory.send_inventory(p)
        # Negative time of day freezes the client's daylight cycle (wiki.vg "Update Time").
        p.send("time_update", wire.update_time(k.tick_count, -ctl.time_of_day))
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
        p.send("set_experience", wire.experience(0.0, ctl.xp_level, total_xp(ctl.xp_level)))
        p.send("update_health", self.food.health_body(p))  # real food and saturation (the food feature)
        # player list and entities
        everyone = [*k.players, p]
        modes = {o.display_name: GAME_MODE_IDS[self.admin.game_mode(o)] for o in everyone}
        p.send(
            "player_list_item",
            wire.player_info_add([(o.uuid, o.display_name, modes[o.display_name]) for o in everyone]),
        )
        for o in k.players:
            o.send("player_list_item", wire.player_info_add([(p.uuid, p.display_name, mode)]))
            o.send("spawn_player", wire.named_entity_spawn(p.eid, p.uuid, *p.pos, p.yaw, p.pitch))
            p.send("spawn_player", wire.named_entity_spawn(o.eid, o.uuid, *o.pos, o.yaw, o.pitch))
        for it in self.items.entities.values():
            self.items.send_spawn(p, it)
        k.players.add(p)
        self.departed.pop(p.display_name, None)
        p.send("plugin_message", wire.custom_payload(TICK_RATE_CHANNEL, repr(float(cfg.tick_rate)).encode()))
        k.events.notify("joined", p)
        k.emit("join", player=p.display_name)

    def leave(self, p: Player) -> None:
        """Remove a player and tell the others (nothing if it was not in the game)."""
        k = self.kernel
        if not k.players.remove(p):
            return
        k.broadcast("destroy_entities", wire.entity_destroy([p.eid]))
        k.broadcast("player_list_item", wire.player_info_remove([p.uuid]))
        k.events.notify("left", p)
        k.emit("leave", player=p.display_name)
        if k.players.by_name(p.display_name) is None:
            self.departed[p.display_name] = None
            self.departed.move_to_end(p.display_name)
        while len(self.departed) > k.config.remembered_players:
            name, _ = self.departed.popitem(last=False)
            k.events.notify("forget", None, who=name)
