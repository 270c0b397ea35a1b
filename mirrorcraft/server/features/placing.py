"""Placing: ``use_item_on`` — using a block (a window, a cake, a berry bush), using the held item on it (a hoe,
bone meal), or placing the held block against a face.

A ``use_item_on`` is first offered to the ``"use_block"`` behaviour: the features that own a block with a
use (crafting table, furnaces, enchanting table, chests, cakes, sweet berry bushes) act and cancel it, as
vanilla's ``InteractionResult`` consumes the click (``Block.use``). Then to the ``"use_item_on"``
behaviour: the features that own an item with a use on blocks (hoes, bone meal) act and cancel it
(``Item.useOn``). Otherwise the held block is placed, after the ``"place"`` behaviour (a hook may cancel a
placement), and the ``place`` outcome and the ``block_placed`` event are published. Every packet is
acknowledged with its sequence.

The item places its block (``BlockItem``): the block of the same name, or for seeds the plant block
(``ItemNameBlockItem``: wheat seeds place wheat, ``rules.plants.planted_block``). The state placed is this
module's (axis, facing, half, wall torches) refined by the block-updates feature's placement states
(``Block.getStateForPlacement``: fence arms, mushroom faces, leaves that persist, a hopper's facing) — which
may also refuse the placement (a crop off farmland, a cake in the air, cocoa away from a jungle log).

Vanilla behaviour followed (``BlockItem.place``, a subset): the block goes against the clicked face, or
into the clicked block if that block is replaceable (``rules.blocks.replaceable``: air, water, grass, snow
layer...); it fails if the target is occupied, outside the border or build height, or intersects a player
(the client's prediction is undone: both blocks are resent). Logs and pillars take the face's axis; blocks
with a horizontal ``facing`` face the player (stairs face away); slabs and stairs take the clicked half;
torches on a side wall become wall torches (``rules.blocks.wall_variant``). The ``"place"`` before-hooks
see the chosen ``state`` and the clicked ``face`` and may replace the state (the chests feature pairs a
chest with its neighbour, vanilla ``ChestBlock.getStateForPlacement``) or cancel. The held stack shrinks
by one (in creative too: a known difference).
"""

from __future__ import annotations

from mirrorcraft.errors import ContractError, GameDataError
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.blocks import replaceable, wall_variant
from mirrorcraft.rules.plants import planted_block
from mirrorcraft.rules.shapes import hopper_rule
from mirrorcraft.server import facts, outcomes, wire
from mirrorcraft.server.features.blockupdates import BlockUpdates, PlaceContext
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import boxes_intersect, player_box, within_reach
from mirrorcraft.server.kernel.stacks import with_count

Pos = tuple[int, int, int]

FACES = [(0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1), (-1, 0, 0), (1, 0, 0)]
FACE_AXIS = ["y", "y", "z", "z", "x", "x"]
FACE_NAME = ["down", "up", "north", "south", "west", "east"]


class Placing:
    """Block use and placement for one game."""

    def __init__(self, kernel: Kernel, updates: BlockUpdates) -> None:
        self.kernel = kernel
        self.updates = updates
        self._hopper = hopper_rule().block
        kernel.handlers.register("block_place", self._on_block_place)

    def _on_block_place(self, p: Player, pkt: sb.BlockPlace) -> None:
        cursor = (pkt.cursor_x, pkt.cursor_y, pkt.cursor_z)
        self.use_item_on(p, pkt.hand, tuple(pkt.location), pkt.direction, cursor, pkt.sequence)  # type: ignore[arg-type]

    def use_item_on(
        self, p: Player, hand: int, clicked: Pos, face: int, cursor: tuple[float, float, float], sequence: int
    ) -> None:
        """One ``use_item_on``: use the clicked block, or place the held block against ``face``."""
        try:
            ev = self.kernel.events
            if not 0 <= face < 6:
                raise ContractError(f"use_item_on: face {face} outside 0..5")
            if ev.behaviour("use_block", p, hand=hand, pos=clicked).cancelled:
                return
            if ev.behaviour("use_item_on", p, hand=hand, pos=clicked, face=face, cursor=cursor).cancelled:
                return
            self.place(p, hand, clicked, face, cursor)
        finally:
            p.send("acknowledge_block_changes", wire.acknowledge_block_changes(sequence))

    def place(
        self, p: Player, hand: int, clicked: Pos, face: int, cursor: tuple[float, float, float]
    ) -> None:
        """Place the block held in ``hand`` against ``face`` of ``clicked`` (see the module docstring).

        Raises:
            ContractError: ``face`` outside 0..5 (the connection closes on it).
        """
        k = self.kernel
        world = k.world
        inv = p.inventory
        slot = inv.hand_slot(hand)
        stack = inv.slots[slot]
        if not 0 <= face < 6:
            raise ContractError(f"use_item_on: face {face} outside 0..5")
        clicked_state = world.get_block(*clicked)
        if stack is None or not within_reach(p.pos, clicked):
            return
        try:
            block = facts.block(planted_block(stack.item) or stack.item)
        except GameDataError:
            return  # not a block item (food, tools...): nothing to place
        if replaceable(facts.block_name(clicked_state)):
            target = clicked
        else:
            d = FACES[face]
            target = (clicked[0] + d[0], clicked[1] + d[1], clicked[2] + d[2])
        ok = False
        current = world.get_block(*target)
        if replaceable(facts.block_name(current)) and world.inside_border(target[0] + 0.5, target[2] + 0.5):
            state = self.updates.placement_state(
                PlaceContext(
                    p, target, clicked, FACE_NAME[face], self.placement_state(block, face, cursor, p)
                )
            )
        else:
            state = None
        if state is not None:
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
            blocked = any(boxes_intersect(b, player_box(*o.pos)) for o in k.players for b in boxes)
            asked = None
            if not blocked and -64 <= target[1] < 320:
                # before-hooks may cancel, or adjust the state (a chest pairing with its neighbour)
                asked = k.events.behaviour("place", p, pos=target, block=block.name, state=state, face=face)
            if asked is not None and not asked.cancelled:
                state = asked["state"]
                k.set_block(target, state)
                inv.slots[slot] = with_count(stack, stack.count - 1)
                ok = True
                k.report(outcomes.place_event(block.name, pos=target, player=p.display_name))
                k.emit("block_placed", player=p.display_name, pos=target, block=block.name)
        if not ok:
            p.send("block_change", wire.block_change(*target, world.get_block(*target)))
            p.send("block_change", wire.block_change(*clicked, clicked_state))
        p.send_slot(0, slot, inv.slots[slot])

    def placement_state(
        self, block: facts.BlockInfo, face: int, cursor: tuple[float, float, float], p: Player
    ) -> int:
        """Vanilla placement properties: logs/pillars take the clicked face's axis; directional blocks face
        the player; slabs/stairs take the half from where the face was clicked; torches on a side wall
        become wall torches."""
        props = dict(block.properties)
        name = block.name.removeprefix("minecraft:")
        wall = wall_variant(block.name) if face >= 2 else None
        if wall is not None:
            return facts.state_id(wall, {"facing": FACE_NAME[face]})
        if block.name == self._hopper:  # HopperBlock.getStateForPlacement: toward the clicked face, else down
            return block.state(facing=FACE_NAME[face ^ 1] if face >= 2 else "down")
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
