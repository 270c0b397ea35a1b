"""Placing blocks and using items on blocks (``block_place``, the 1.19 "Use Item On" packet).

Why a module of its own: placing is "use the held item on a face of an existing block" — the server
decides what appears (a block, an opened chest, a lit furnace...). The body only chooses the reference
block, the face and the cursor point on that face, as a vanilla client does from its crosshair, and reports
what changed. Each use carries a 1.19 sequence number (wiki.vg "Use Item On"); the server answers with
``acknowledge_player_digging`` (Acknowledge Block Change) and block changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from twisted.internet import task

from mirrorcraft.gamedata import block_of_state
from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.mcproto_body.digging import FACES, _facing
from mirrorcraft.mcproto_body.inventory import Inventory
from mirrorcraft.mcproto_body.movement import Movement
from mirrorcraft.mcproto_body.world import World
from mirrorcraft.protocol.serverbound import ArmAnimation, BlockPlace, EntityAction
from mirrorcraft.rules.blocks import opens_on_use

# Blocks whose "use" opens a menu or toggles something (vanilla ``Block.use``): clicking one to place
# against it opens it instead, unless the player sneaks. Fixed by the game version, no datapack changes it:
# the list is cited data, rules/data/blocks.json (mirrorcraft.rules.blocks.opens_on_use).


@dataclass
class PlaceResult:
    """What a use-on-block did.

    Attributes:
        target: The position a placed block would occupy (reference + face normal).
        placed: The target changed (``new_block`` is what is there now).
        new_block: Block name at the target afterwards (``None`` if unknown).
        reason: Why nothing changed (empty when placed).
    """

    target: tuple[int, int, int]
    placed: bool
    new_block: str | None
    reason: str = ""


class Placer:
    """Uses the held item on blocks.

    Args:
        conn / world / inventory / movement: The body's modules.
        reach: Max eye-to-face-centre distance (vanilla survival reach is 4.5 blocks to the cursor point).
        answer_timeout: Seconds to wait for the server's block change.
        self_id: Returns our entity id (for the sneak command when the only face to click opens a menu).
    """

    def __init__(
        self,
        conn: Connection,
        world: World,
        inventory: Inventory,
        movement: Movement,
        reach: float = 4.5,
        answer_timeout: float = 2.0,
        self_id: Any = None,
    ) -> None:
        self.conn, self.world, self.inventory, self.movement = conn, world, inventory, movement
        self.reach = reach
        self.answer_timeout = answer_timeout
        self.self_id = self_id

    def use_on(
        self,
        ref: tuple[int, int, int],
        face: int,
        cursor: tuple[float, float, float] | None = None,
        hand: int = 0,
    ) -> tuple[int, int, int]:
        """Send one use-item-on packet against face ``face`` of block ``ref``; returns its target cell.

        Args:
            ref: The clicked block.
            face: 0 -Y, 1 +Y, 2 -Z, 3 +Z, 4 -X, 5 +X.
            cursor: Point on the face in block-local 0..1 coordinates (default: the face centre).
            hand: 0 main hand, 1 off hand.
        """
        n = FACES[face]
        if cursor is None:
            cursor = tuple(0.5 + 0.5 * c for c in n)  # type: ignore[assignment]
        point = (ref[0] + cursor[0], ref[1] + cursor[1], ref[2] + cursor[2])
        self.movement.look_at(point)
        self.conn.send(
            BlockPlace(
                hand=hand,
                location=ref,
                direction=face,
                cursor_x=cursor[0],
                cursor_y=cursor[1],
                cursor_z=cursor[2],
                inside_block=False,
                sequence=self.conn.next_sequence(),
            )
        )
        self.conn.send(ArmAnimation(hand=hand))
        return (ref[0] + n[0], ref[1] + n[1], ref[2] + n[2])

    def reference_for(self, target: tuple[int, int, int]) -> tuple[tuple[int, int, int], int] | None:
        """A solid neighbour of ``target`` and the face of it to click to place into ``target``.

        The nearest face to the eye wins, but a block that opens on use (a crafting table, a furnace...)
        is taken only when nothing else touches the target: clicking it would open its menu.
        """
        from mirrorcraft.gamedata import state_tables

        tables = state_tables()
        eye = self.movement.eye
        best = None
        for face, n in enumerate(FACES):
            ref = (target[0] - n[0], target[1] - n[1], target[2] - n[2])
            state = self.world.state_at(*ref)
            if state is None or tables.no_collision[state]:
                continue
            d = math.dist(
                eye, (ref[0] + 0.5 + 0.5 * n[0], ref[1] + 0.5 + 0.5 * n[1], ref[2] + 0.5 + 0.5 * n[2])
            )
            if opens_on_use(block_of_state(state).name):
                d += 100.0
            if best is None or d < best[0]:
                best = (d, ref, face)
        return None if best is None else (best[1], best[2])

    async def place(self, target: tuple[int, int, int], item: str | None = None) -> PlaceResult:
        """Place the held item (or first equip ``item``) into the empty cell ``target``.

        Returns:
            A :class:`PlaceResult`; failures (no item, no neighbour, out of reach, refused) are reported.
        """
        if item is not None and not await self.inventory.equip(item):
            return PlaceResult(target, False, None, f"no {item} in the inventory")
        if self.inventory.held_item is None:
            return PlaceResult(target, False, None, "nothing in hand")
        before = self.world.state_at(*target)
        if before is None:
            return PlaceResult(target, False, None, "target not loaded")
        choice = self.reference_for(target)
        if choice is None:
            return PlaceResult(
                target, False, block_of_state(before).name, "no solid neighbour to place against"
            )
        ref, face = choice
        n = FACES[face]
        face_point = (ref[0] + 0.5 + 0.5 * n[0], ref[1] + 0.5 + 0.5 * n[1], ref[2] + 0.5 + 0.5 * n[2])
        if math.dist(self.movement.eye, face_point) > self.reach + 0.5:
            return PlaceResult(target, False, block_of_state(before).name, "out of reach")
        ref_state = self.world.state_at(*ref)
        sneak = self.self_id is not None and opens_on_use(
            block_of_state(ref_state).name if ref_state else None
        )
        if sneak:  # as a player does: sneaking, the click places against the block instead of opening it
            self.conn.send(EntityAction(entity_id=self.self_id(), action_id=0, jump_boost=0))
        self.use_on(ref, face)
        if sneak:
            self.conn.send(EntityAction(entity_id=self.self_id(), action_id=1, jump_boost=0))
        clock = self.conn.clock
        deadline = clock.seconds() + self.answer_timeout
        while self.world.state_at(*target) == before and clock.seconds() < deadline:
            await task.deferLater(clock, 0.05, lambda: None)
        after = self.world.state_at(*target)
        name = block_of_state(after).name if after is not None else None
        if after is None or after == before:
            return PlaceResult(target, False, name, "the server placed nothing")
        return PlaceResult(target, True, name)

    async def activate(self, pos: tuple[int, int, int]) -> None:
        """Right-click a block (open a chest, a furnace, a crafting table...) on the face towards us."""
        self.use_on(pos, _facing(self.movement.eye, pos))
