"""Milking: a bucket used on a cow becomes a milk bucket (``use_entity`` *interact*).

Vanilla 1.19.2 ``Cow.mobInteract`` with ``ItemUtils.createFilledResult`` (facts in ``rules/data/animals.json``,
:func:`mirrorcraft.rules.animals.milking`): an adult cow within reach (6 blocks, as attacks), an empty bucket
in the hand that interacted. Survival: a single bucket becomes the milk bucket in that hand; a larger stack
shrinks by one and the milk bucket goes into the inventory (dropped in front of the player when it is
full). Creative: the bucket stays and a milk bucket is added only if the inventory holds none. The
``"interact_entity"`` behaviour is asked first (a judge may cancel it); event ``milked``. Baby cows are not
simulated (every cow is an adult). A feature of its own because it needs the game modes (the admin
feature), which are built after the animals (the join sequence sends the animals before the difficulty).
"""

from __future__ import annotations

from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.animals import milking
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.features.admin import Admin
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.features.mobs import Mobs
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.stacks import with_count


class Milking:
    """Buckets on cows for one game."""

    def __init__(self, kernel: Kernel, mobs: Mobs, admin: Admin, items: Items) -> None:
        self.kernel = kernel
        self.mobs = mobs
        self.admin = admin
        self.items = items
        kernel.handlers.register("use_entity", self._on_use_entity)

    def _on_use_entity(self, p: Player, pkt: sb.UseEntity) -> None:
        if pkt.mouse == 0:  # interact (Player.interactOn -> Mob.mobInteract)
            self.interact(p, pkt.target, int(pkt.hand or 0))

    def interact(self, p: Player, target: int, hand: int) -> bool:
        """``p`` uses the item in ``hand`` on entity ``target``; True if it milked a cow."""
        a = self.mobs.animals.get(target)
        if a is None or a.dead_for >= 0 or not self.mobs.in_reach(p, a) or self.admin.is_dead(p):
            return False
        fill = milking(a.type)
        inv = p.inventory
        slot = inv.hand_slot(hand)
        held = inv.slots[slot]
        if fill is None or held is None or held.item != facts.item_key(fill[0]):
            return False
        if self.admin.game_mode(p) == "spectator":
            return False
        if self.kernel.events.behaviour("interact_entity", p, entity=a, type=a.type, hand=hand).cancelled:
            return True
        filled = facts.item_key(fill[1])
        changed: set[int] = {slot}
        if self.admin.game_mode(p) == "creative":  # instabuild: keep the bucket, add milk if there is none
            if not any(s is not None and s.item == filled for s in inv.slots):
                _, more = inv.add(filled, 1)
                changed |= more
        elif held.count == 1:
            inv.slots[slot] = Stack(filled, 1)
        else:
            inv.slots[slot] = with_count(held, held.count - 1)
            left, more = inv.add(filled, 1)
            changed |= more
            if left:
                self.items.throw(p, Stack(filled, left))
        p.send_slots(changed)
        self.kernel.emit("milked", player=p.display_name, entity=a.eid, type=a.type, item=filled)
        return True
