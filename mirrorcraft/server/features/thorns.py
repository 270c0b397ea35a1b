"""Sweet berry bush thorns: a player walking through a grown bush is hurt.

Why: PillagerBench's Dash & Dine has a berry farm the players pick by hand; on a vanilla server (the original
runs one) walking into the bushes to pick up the berries costs health, which a harness that skips it would
make free. The slowdown half of the same vanilla code is client physics (the client moves the player; a
vanilla server does not enforce it): our body applies it (:mod:`mirrorcraft.mcproto_body.physics`).

Vanilla 1.19.2 behaviour followed (``SweetBerryBushBlock.entityInside``, ``Entity.checkInsideBlocks``,
``ServerLevel.tickNonPassenger``; the numbers are the berry-bush rule in ``rules/data/plants.json``): for each
block cell the player's box (deflated by 1e-7) overlaps that holds a sweet berry bush of age >= 1, when the
player moved at least 0.003 along x or z since the tick began (``xOld``/``zOld``, set before each tick), it is
hurt by ``sweetBerryBush`` for 1.0 — through :mod:`~mirrorcraft.server.features.damage`, so the 10-tick hurt
cooldown (one thorn hit per 10 ticks while walking through), spawn invulnerability, creative and spectator
immunity and Resistance apply as for any hit; a death says ``death.attack.sweetBerryBush``.

Simplified, and why: vanilla checks the cells after each movement packet, we once per tick against the
position the tick began with (the positions a client sends within one tick are not kept; with the cooldown
the two deal the same damage to a walking player except when a tick's packets leave and re-enter a bush). The
``.player`` death message (killed while fleeing another player) is not chosen: the message is always the
plain one.
"""

from __future__ import annotations

import math

from mirrorcraft.rules import plants
from mirrorcraft.server import facts
from mirrorcraft.server.commands import components as C
from mirrorcraft.server.features.chat import Chat
from mirrorcraft.server.features.damage import Damage
from mirrorcraft.server.kernel import Behaviour, Kernel, Player
from mirrorcraft.server.kernel.physics import player_box

SHRINK = 1e-7  # Entity.checkInsideBlocks deflates the box by this much


class Thorns:
    """Thorn damage of sweet berry bushes, checked once per tick per player."""

    def __init__(self, kernel: Kernel, damage: Damage, chat: Chat) -> None:
        self.kernel = kernel
        self.damage = damage
        self.chat = chat
        self.rule = plants.berry_bush()
        b = facts.block(self.rule.block)
        self._age = {st: int(b.state_properties(st)["age"]) for st in range(b.min_state, b.max_state + 1)}
        self._old: dict[str, tuple[float, float]] = {}  # player → (x, z) when the last tick ended
        kernel.events.after("left", self._left)

    def _left(self, b: Behaviour) -> None:
        self._old.pop(b.player.display_name, None)

    def tick(self) -> None:
        m = self.rule.thorn_min_move
        for p in list(self.kernel.players.values()):
            name = p.display_name
            x, z = p.pos[0], p.pos[2]
            old = self._old.get(name)
            self._old[name] = (x, z)
            if old is None:
                continue
            if abs(x - old[0]) < m and abs(z - old[1]) < m:
                continue
            if self.in_thorns(p):
                self.damage.hurt(
                    p,
                    self.rule.thorn_damage,
                    lambda p=p: C.translatable("death.attack.sweetBerryBush", self.chat.name_of(p)),
                    cause="sweetBerryBush",
                )

    def in_thorns(self, p: Player) -> bool:
        """Whether ``p``'s box overlaps a bush cell old enough to hurt."""
        x0, y0, z0, x1, y1, z1 = player_box(*p.pos)
        world = self.kernel.world
        for bx in range(math.floor(x0 + SHRINK), math.floor(x1 - SHRINK) + 1):
            for by in range(math.floor(y0 + SHRINK), math.floor(y1 - SHRINK) + 1):
                for bz in range(math.floor(z0 + SHRINK), math.floor(z1 - SHRINK) + 1):
                    age = self._age.get(world.get_block(bx, by, bz))
                    if age is not None and age >= self.rule.thorn_min_age:
                        return True
        return False
