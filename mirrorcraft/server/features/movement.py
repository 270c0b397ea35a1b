"""Movement: checking the client's moves, teleports, sneaking, and telling the other players.

Vanilla behaviour followed (``ServerGamePacketListenerImpl.handleMovePlayer``, simplified): moves are
ignored until the pending teleport is confirmed; a move is refused with a teleport back when it is more
than 10 blocks (vanilla's ``moved too quickly`` limit, squared 100), faster horizontally than a sprint-jump
with the player's Speed level allows (with slack for bunched packets), leaves the world border, or ends
inside a block it was not already inside; non-finite or absurd coordinates or angles kick. No fall damage
(a documented choice: Peaceful benchmark, Resistance I). Moved players are broadcast once per tick
(``entity_teleport`` + head rotation) by the ``movement`` tick phase.
"""

from __future__ import annotations

import logging
import math

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.server import wire
from mirrorcraft.server.features.chunks import Chunks
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import collides, player_box

log = logging.getLogger(__name__)

MAX_MOVE_SQ = 100.0  # vanilla "moved too quickly" threshold per packet (squared blocks)
SPRINT_JUMP = 0.75  # blocks/tick, a little above vanilla's sprint-jump peak
MOVE_SLACK = 3.0  # bunched packets after a lag spike


class Movement:
    """Player movement for one game."""

    def __init__(self, kernel: Kernel, chunks: Chunks, effects: Effects) -> None:
        self.kernel = kernel
        self.chunks = chunks
        self.effects = effects
        h = kernel.handlers
        h.register("teleport_confirm", self._on_teleport_confirm)
        h.register("position", lambda p, k: self.move(p, k.x, k.y, k.z, None, None, k.on_ground))
        h.register("position_look", lambda p, k: self.move(p, k.x, k.y, k.z, k.yaw, k.pitch, k.on_ground))
        h.register("look", lambda p, k: self.move(p, None, None, None, k.yaw, k.pitch, k.on_ground))
        h.register("flying", lambda p, k: self.move(p, None, None, None, None, None, k.on_ground))
        h.register("entity_action", self._on_entity_action)

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
        world = self.kernel.world
        dx, dy, dz = x - p.pos[0], y - p.pos[1], z - p.pos[2]
        horiz = math.hypot(dx, dz)
        limit = SPRINT_JUMP * (1 + 0.2 * self.effects.level(p, "minecraft:speed")) * MOVE_SLACK
        reason = None
        if dx * dx + dy * dy + dz * dz > MAX_MOVE_SQ:
            reason = "moved too quickly"
        elif horiz > limit:
            reason = "moved too fast horizontally"
        elif not world.inside_border(x, z):
            reason = "outside the world border"
        elif collides(world, player_box(x, y, z)) and not collides(world, player_box(*p.pos)):
            reason = "moved into a block"
        if reason is not None:
            log.info("%s %s (%.2f, %.2f, %.2f)", p.display_name, reason, dx, dy, dz)
            self.kernel.emit("move_refused", player=p.display_name, reason=reason)
            self.teleport(p, *p.pos)
            return
        if (x, y, z) != tuple(p.pos):
            p.pos = [x, y, z]
            p.moved = True
            self.chunks.stream(p)

    def tick(self) -> None:
        """Broadcast every player that moved since the last tick to the others."""
        players = self.kernel.players
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
