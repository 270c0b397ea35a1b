"""Movement: checking the client's moves, teleports, sneaking, and telling the other players.

Vanilla 1.19.2 ``ServerGamePacketListenerImpl.handleMovePlayer`` and ``tick``, followed:

* **Until the pending teleport is confirmed** every move is ignored.
* **Moved too quickly**: each move is measured from the position at the start of the tick
  (``firstGoodX/Y/Z``, reset every tick) and refused with a teleport back when its squared distance exceeds
  ``100 x i`` beyond the expected velocity, ``i`` being the move packets received this tick — as vanilla, a
  count above 5 counts as 1. So a burst of many moves within one tick gets no farther than 10 blocks,
  while a sustained 2 blocks per tick is legal. The expected velocity (``getDeltaMovement``) is 0: the
  server pushes no player (no knockback on players here).
* **Moved wrongly**: the move from the last accepted position is simulated against the blocks' collision
  boxes (``Entity.collide``: y, then the larger horizontal axis, the 0.6 step-up on the ground;
  :func:`~mirrorcraft.server.kernel.physics.collide_move`); a move ending more than 0.0625 blocks²
  (horizontally: vanilla discards the vertical difference) from where the collisions allow is teleported
  back unless the player was already stuck in a block — no passing through a wall, whatever the packet
  size. Creative and spectator players are not checked (vanilla), spectators not collided at all.
* **Moved into a block**: a move whose box meets a block box the old box did not is refused
  (``isPlayerCollidingWithAnythingNew``); leaving the world border is refused too (vanilla collides with
  the border; here it is one more refusal).
* **Floating**: a survival or adventure player without Levitation whose accepted move leaves no block but
  air around its box (grown 0.0625, reaching 0.55 down: ``noBlocksAround``) is floating; vanilla kicks
  (``multiplayer.disconnect.flying``) after more than 80 ticks floating (falls count too: 1.19.2 zeroes
  the vertical difference before that test). On an accelerated server (``tick_rate`` > 20) the limit is
  counted in the client's own ticks, not the server's: floating time in ticks of 20 per second, or the
  client's move packets while floating when it sends more (our body sends one per server tick), whichever
  is more — so an honest Mineflayer client (20 packets a second) at 100 t/s is not kicked after 0.8 s of
  falling, and a hovering client is kicked within 4 s of wall time. At 20 t/s or slower this is vanilla's
  tick count. Deviation: a teleport clears the float count (vanilla keeps counting while it waits for the
  confirmation).
* Non-finite or absurd (>= 3e7) coordinates or angles kick (``multiplayer.disconnect.invalid_player_
  movement``). No fall damage (a documented choice: Peaceful benchmark, Resistance I).

Moved players are broadcast once per tick (``entity_teleport`` + head rotation) by the ``movement`` tick
phase, which also starts the next tick's measurements (``resetPosition``) and counts floating.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.server import wire
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.chunks import Chunks
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.physics import (
    collide_move,
    collides,
    collides_with_anything_new,
    no_blocks_around,
    player_box,
)

log = logging.getLogger(__name__)

MAX_MOVE_SQ = 100.0  # vanilla "moved too quickly": squared blocks per move packet of the tick
MAX_PACKETS = 5  # more move packets in one tick count as one (vanilla)
MOVED_WRONGLY_SQ = 0.0625  # vanilla: squared horizontal blocks between the move and its collision result
FLOAT_LIMIT = 80  # vanilla aboveGroundTickCount > 80 kicks
VANILLA_RATE = 20.0
FLYING = C.render(C.translatable("multiplayer.disconnect.flying"))
INVALID_MOVE = C.render(C.translatable("multiplayer.disconnect.invalid_player_movement"))


@dataclass
class MoveState:
    """One player's movement checks (vanilla's fields of ``ServerGamePacketListenerImpl``)."""

    first_good: tuple[float, float, float] | None = None  # the position at the start of this tick
    received: int = 0  # receivedMovePacketCount
    known: int = 0  # knownMovePacketCount (received, as of the last tick)
    floating: bool = False  # clientIsFloating, from the last accepted move
    float_ticks: float = 0.0  # aboveGroundTickCount, in ticks of 20 per second on an accelerated server
    float_packets: int = 0  # accepted move packets while floating


class Movement:
    """Player movement for one game.

    Attributes:
        game_mode_of: The game mode of a player (``survival`` until the admin feature sets it).
    """

    def __init__(self, kernel: Kernel, chunks: Chunks, effects: Effects) -> None:
        self.kernel = kernel
        self.chunks = chunks
        self.effects = effects
        self.game_mode_of: Callable[[Player], str] = lambda p: "survival"
        self.states: dict[Player, MoveState] = {}
        rate = kernel.config.tick_rate
        self._float_step = min(1.0, VANILLA_RATE / rate)
        self._count_packets = rate > VANILLA_RATE
        h = kernel.handlers
        h.register("teleport_confirm", self._on_teleport_confirm)
        h.register("position", lambda p, k: self.move(p, k.x, k.y, k.z, None, None, k.on_ground))
        h.register("position_look", lambda p, k: self.move(p, k.x, k.y, k.z, k.yaw, k.pitch, k.on_ground))
        h.register("look", lambda p, k: self.move(p, None, None, None, k.yaw, k.pitch, k.on_ground))
        h.register("flying", lambda p, k: self.move(p, None, None, None, None, None, k.on_ground))
        h.register("entity_action", self._on_entity_action)
        kernel.events.after("left", self._left)

    def state(self, p: Player) -> MoveState:
        st = self.states.get(p)
        if st is None:
            st = self.states[p] = MoveState()
        return st

    def _left(self, b: Behaviour) -> None:
        self.states.pop(b.player, None)

    def _on_teleport_confirm(self, p: Player, pkt: sb.TeleportConfirm) -> None:
        if pkt.teleport_id == p.pending_teleport:
            p.pending_teleport = None

    def _on_entity_action(self, p: Player, pkt: sb.EntityAction) -> None:
        if pkt.action_id in (0, 1):  # start / stop sneaking
            p.sneaking = pkt.action_id == 0

    def teleport(self, p: Player, x: float, y: float, z: float) -> None:
        """Move ``p`` and tell its client (it must confirm before its moves count again)."""
        p.pos = [x, y, z]
        p.teleport_counter += 1
        p.pending_teleport = p.teleport_counter
        p.send("player_position_and_look", wire.player_position(x, y, z, p.yaw, p.pitch, p.pending_teleport))
        p.moved = True
        st = self.state(p)
        st.first_good = (x, y, z)  # the next moves are measured from here (vanilla: from the next tick)
        st.floating, st.float_ticks, st.float_packets = False, 0.0, 0
        self.chunks.stream(p)

    def move(
        self,
        p: Player,
        x: float | None,
        y: float | None,
        z: float | None,
        yaw: float | None,
        pitch: float | None,
        on_ground: bool,
    ) -> None:
        """Check and apply one movement packet (``None``: the packet does not carry that value)."""
        if p.pending_teleport is not None:
            return  # vanilla ignores moves until the teleport is confirmed
        if yaw is not None and pitch is not None:
            if not (math.isfinite(yaw) and math.isfinite(pitch)):
                p.kick(INVALID_MOVE)
                return
        if x is not None and y is not None and z is not None:
            if not all(math.isfinite(v) and abs(v) < 3.0e7 for v in (x, y, z)):
                p.kick(INVALID_MOVE)
                return
        else:
            x, y, z = p.pos
        if yaw is not None and pitch is not None and (yaw, pitch) != (p.yaw, p.pitch):
            p.yaw, p.pitch = yaw, pitch
            p.moved = True
        reason = self._check(p, x, y, z)
        if reason is not None:
            log.info(
                "%s %s (%.2f, %.2f, %.2f)", p.display_name, reason, x - p.pos[0], y - p.pos[1], z - p.pos[2]
            )
            self.kernel.emit("move_refused", player=p.display_name, reason=reason)
            self.teleport(p, *p.pos)
            return
        st = self.state(p)
        mode = self.game_mode_of(p)
        st.floating = (
            mode in ("survival", "adventure")
            and self.effects.level(p, "minecraft:levitation") == 0
            and no_blocks_around(self.kernel.world, player_box(x, y, z))
        )
        if st.floating:
            st.float_packets += 1
        p.on_ground = on_ground
        if (x, y, z) != tuple(p.pos):
            p.pos = [x, y, z]
            p.moved = True
            self.chunks.stream(p)

    def _check(self, p: Player, x: float, y: float, z: float) -> str | None:
        """Why vanilla would refuse the move of ``p`` to ``(x, y, z)``, or ``None``."""
        st = self.state(p)
        cx, cy, cz = p.pos
        if st.first_good is None:
            st.first_good = (cx, cy, cz)
        st.received += 1
        i = st.received - st.known
        if i > MAX_PACKETS:
            i = 1
        fx, fy, fz = st.first_good
        if (x - fx) ** 2 + (y - fy) ** 2 + (z - fz) ** 2 > MAX_MOVE_SQ * i:
            return "moved too quickly"
        world = self.kernel.world
        if not world.inside_border(x, z):
            return "outside the world border"
        mode = self.game_mode_of(p)
        if mode == "spectator" or (x, y, z) == (cx, cy, cz):
            return None
        old = player_box(cx, cy, cz)
        mx, _, mz = collide_move(world, old, x - cx, y - cy, z - cz, p.on_ground)
        wrongly = mode != "creative" and (x - cx - mx) ** 2 + (z - cz - mz) ** 2 > MOVED_WRONGLY_SQ
        if wrongly and not collides(world, old):
            return "moved wrongly"
        if collides_with_anything_new(world, old, player_box(x, y, z)):
            return "moved into a block"
        return None

    def tick(self) -> None:
        """Start the next tick's move checks (vanilla ``resetPosition``), count floating (kick after 80
        ticks), then broadcast every player that moved since the last tick to the others."""
        players = self.kernel.players
        for p in players.values():
            st = self.state(p)
            st.first_good = (p.pos[0], p.pos[1], p.pos[2])
            st.known = st.received
            if not st.floating:
                st.float_ticks, st.float_packets = 0.0, 0
                continue
            st.float_ticks += self._float_step
            floated = max(st.float_ticks, st.float_packets) if self._count_packets else st.float_ticks
            if floated > FLOAT_LIMIT:
                log.warning("%s was kicked for floating too long!", p.display_name)
                self.kernel.emit("move_refused", player=p.display_name, reason="floating too long")
                st.floating, st.float_ticks, st.float_packets = False, 0.0, 0
                p.kick(FLYING)
        for p in players:
            if not p.moved:
                continue
            p.moved = False
            body = wire.entity_teleport(p.eid, *p.pos, p.yaw, p.pitch, p.on_ground)
            head = wire.entity_head_rotation(p.eid, p.yaw)
            for o in players:
                if o is not p:
                    o.send("entity_teleport", body)
                    o.send("entity_head_look", head)
