"""Breaking blocks: the start / finish / abort packet exchange, waiting as long as a vanilla client would.

Why compute the time client-side: in survival the vanilla client decides when a block is broken and
sends "finished digging"; the server accepts it only if enough time has passed for *its* formula (with
some slack). So the body must wait as long as a vanilla client would — not less (refused), not much more
(slow). The formula is the server's own, :mod:`mirrorcraft.rules.digging` (Minecraft wiki "Breaking#Speed",
checked against Mineflayer's ``digTime``); which tools speed up and harvest a block come from the vanilla
pack's ``mineable/*`` and ``needs_*_tool`` block tags there (the body never sees a world's tags: a Mirror
pack does not change them).

Packets: ``block_dig`` status 0 start / 1 abort / 2 finish with a 1.19 sequence number, answered by
``acknowledge_player_digging`` and ``block_change``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from twisted.internet import defer, task

from mirrorcraft.errors import ContractError
from mirrorcraft.gamedata import block_of_state, item_by_id, state_tables
from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.mcproto_body.health import Health
from mirrorcraft.mcproto_body.inventory import Inventory
from mirrorcraft.mcproto_body.movement import Movement
from mirrorcraft.mcproto_body.physics import fluid_table
from mirrorcraft.mcproto_body.world import World
from mirrorcraft.protocol.serverbound import ArmAnimation, BlockDig
from mirrorcraft.rules import digging as rules_digging

#: Block faces (wiki.vg "Player Action"): 0 -Y, 1 +Y, 2 -Z, 3 +Z, 4 -X, 5 +X.
FACES = ((0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1), (-1, 0, 0), (1, 0, 0))


def dig_ticks(
    state: int,
    item_name: str | None = None,
    *,
    efficiency: int = 0,
    haste: int = 0,
    mining_fatigue: int = 0,
    on_ground: bool = True,
    in_water: bool = False,
    aqua_affinity: bool = False,
) -> float:
    """Ticks (1/20 s) a survival player needs to break block state ``state``; 0 = instant, ``inf`` = never.

    The body's view of :func:`mirrorcraft.rules.digging.dig_ticks` (it knows blocks by state id).

    Args:
        state: Global block-state id.
        item_name: Held item (bare or namespaced name), ``None`` for a bare hand.
        efficiency: Efficiency enchantment level of the held tool.
        haste / mining_fatigue: Effect levels (amplifier + 1; 0 = none).
        on_ground: Player standing on the ground.
        in_water: Player's eyes in water.
        aqua_affinity: Helmet with Aqua Affinity.
    """
    cond = rules_digging.DigConditions(
        item=item_name,
        efficiency=efficiency,
        haste=haste,
        mining_fatigue=mining_fatigue,
        in_water=in_water,
        aqua_affinity=aqua_affinity,
        on_ground=on_ground,
    )
    return rules_digging.dig_ticks(block_of_state(state), cond)


@dataclass
class DigResult:
    """What happened when digging.

    Attributes:
        position: The block.
        block: Name of the block before digging.
        broken: The block changed to something else (usually air) after we finished.
        new_block: Name of the block afterwards (``None`` if unknown).
        expected_ticks: Break time we waited for (game ticks).
        seconds: Wall time from start to the server's answer (≈ ``expected_ticks`` / the server's tick rate).
        reason: Why it failed (empty when broken).
    """

    position: tuple[int, int, int]
    block: str
    broken: bool
    new_block: str | None
    expected_ticks: float
    seconds: float
    reason: str = ""


class Digger:
    """Digs blocks like a survival client.

    Args:
        conn / world / inventory / movement / health: The body's modules it needs.
        reach: Maximum distance from the eyes to the block centre (vanilla survival: 4.5 to the face; we
            check the centre against 5.0).
        answer_timeout: Seconds to wait for the server's block change after finishing.
    """

    def __init__(
        self,
        conn: Connection,
        world: World,
        inventory: Inventory,
        movement: Movement,
        health: Health,
        reach: float = 5.0,
        answer_timeout: float = 3.0,
    ) -> None:
        self.conn, self.world, self.inventory, self.movement, self.health = (
            conn,
            world,
            inventory,
            movement,
            health,
        )
        self.reach = reach
        self.answer_timeout = answer_timeout
        self.digging: tuple[int, int, int] | None = None
        self._abort = False

    def expected_ticks(self, pos: tuple[int, int, int]) -> float:
        """Break time of the block at ``pos`` with the current held item, effects and situation.

        Raises:
            ContractError: the block's chunk is not loaded.
        """
        state = self.world.state_at(*pos)
        if state is None:
            raise ContractError(f"dig: block {pos} is not loaded")
        st = self.movement.state
        eye = self.movement.eye
        eye_state = self.world.state_at(math.floor(eye[0]), math.floor(eye[1]), math.floor(eye[2]))
        return dig_ticks(
            state,
            self.inventory.held_item_name(),
            haste=self.health.effect_level("minecraft:haste"),
            mining_fatigue=self.health.effect_level("minecraft:mining_fatigue"),
            on_ground=st.on_ground if st is not None else True,
            in_water=eye_state is not None and fluid_table()[eye_state] == 1,
        )

    def abort(self) -> None:
        """Stop the current dig (sends abort when the wait ends)."""
        self._abort = True

    async def dig(self, pos: tuple[int, int, int], face: int | None = None) -> DigResult:
        """Break the block at ``pos``: look at it, start, wait the break time, finish, await the answer.

        Args:
            pos: Block position.
            face: Face clicked (0..5); default the face towards our eyes.

        Returns:
            A :class:`DigResult` (failures are reported, not raised: out of reach, unbreakable, aborted,
            refused by the server).
        """
        clock = self.conn.clock
        state = self.world.state_at(*pos)
        name = block_of_state(state).name if state is not None else "unknown"
        if state is None:
            return DigResult(pos, name, False, None, math.inf, 0.0, "block not loaded")
        if state_tables().is_air[state]:
            return DigResult(pos, name, False, name, 0, 0.0, "nothing to dig (air)")
        centre = (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5)
        eye = self.movement.eye
        if math.dist(eye, centre) > self.reach:
            return DigResult(
                pos, name, False, name, math.inf, 0.0, f"out of reach ({math.dist(eye, centre):.2f})"
            )
        ticks = self.expected_ticks(pos)
        if math.isinf(ticks):
            return DigResult(pos, name, False, name, ticks, 0.0, "unbreakable")
        if face is None:
            face = _facing(eye, pos)
        self.movement.look_at(centre)
        t0 = clock.seconds()
        self.digging = pos
        self._abort = False
        self.conn.send(BlockDig(status=0, location=pos, face=face, sequence=self.conn.next_sequence()))
        self.conn.send(ArmAnimation(hand=0))
        # Wait ``ticks`` game ticks at the server's rate (20 t/s unless it announced another on
        # ``mirrorcraft:tick_rate``). Elapsed ticks are measured on the reactor clock rather than counted per
        # sleep, so timer latency at high rates (10 ms ticks at 100 t/s) does not add up into a slow dig.
        gc = self.movement.game_clock
        waited = 0.0  # game ticks since the start packet
        swings = 0
        last = t0
        while waited < ticks and not self._abort:
            try:
                await task.deferLater(
                    clock, min(gc.tick_seconds, gc.ticks_to_seconds(ticks - waited)), lambda: None
                )
            except defer.CancelledError:
                # the caller gave up (a skill's hard time guard): stop digging like a player who lets go of
                # the button, so the server does not keep a half-dug block for this player
                self.conn.send(
                    BlockDig(status=1, location=pos, face=face, sequence=self.conn.next_sequence())
                )
                self.digging = None
                raise
            now = clock.seconds()
            waited += gc.seconds_to_ticks(now - last)
            last = now
            if int(waited) // 5 > swings:  # the vanilla client swings its arm while digging
                swings = int(waited) // 5
                self.conn.send(ArmAnimation(hand=0))
            if self.world.state_at(*pos) != state:
                break  # someone else broke it (or it was instant)
        if self._abort:
            self.conn.send(BlockDig(status=1, location=pos, face=face, sequence=self.conn.next_sequence()))
            self.digging = None
            return DigResult(pos, name, False, name, ticks, clock.seconds() - t0, "aborted")
        if ticks > 0:
            seq = self.conn.next_sequence()
            self.conn.send(BlockDig(status=2, location=pos, face=face, sequence=seq))
        else:
            seq = self.conn._sequence  # instant break: the start packet was the break
        # Like the vanilla client (BlockStatePredictionHandler), predict the break locally: a server that
        # disagrees sends the real state, before acknowledging the sequence; flying-squid sends nothing.
        if self.world.state_at(*pos) == state:
            self.world.set_state(*pos, 0)
        acked = await self.conn.wait_ack(seq, self.answer_timeout)
        # Late block updates of the same tick: two game ticks, but at least 20 ms of wall time for the socket.
        await task.deferLater(clock, max(0.02, gc.ticks_to_seconds(2)), lambda: None)
        if not acked:
            self.world.set_state(*pos, state)  # no answer: do not trust the prediction
        elif self.world.state_at(*pos) == state and ticks > 0:
            # The server found the finish early (its tick count lags ours: a busy in-process server at a
            # high rate). A vanilla server then delays the break and does it itself once its own count
            # reaches the break time (ServerPlayerGameMode's delayed destroy): wait at most that long.
            end = clock.seconds() + gc.ticks_to_seconds(ticks + 2)
            while self.world.state_at(*pos) == state and clock.seconds() < end:
                await task.deferLater(clock, gc.tick_seconds, lambda: None)
        self.digging = None
        after = self.world.state_at(*pos)
        new_name = block_of_state(after).name if after is not None else None
        broken = after is not None and after != state
        reason = (
            ""
            if broken
            else (
                "the server did not break it (refused, or an early finish it never completed)"
                if acked
                else "no acknowledgement from the server"
            )
        )
        return DigResult(pos, name, broken, new_name, ticks, clock.seconds() - t0, reason)


def _facing(eye: tuple[float, float, float], pos: tuple[int, int, int]) -> int:
    """The face of block ``pos`` that points most towards ``eye``."""
    c = (pos[0] + 0.5, pos[1] + 0.5, pos[2] + 0.5)
    d = (eye[0] - c[0], eye[1] - c[1], eye[2] - c[2])
    axis = max(range(3), key=lambda i: abs(d[i]))
    positive = d[axis] > 0
    return {0: (4, 5), 1: (0, 1), 2: (2, 3)}[axis][1 if positive else 0]


def held_item_name(slot_item_id: int | None) -> str | None:
    """Item name of an item id (helper for callers that hold raw slots)."""
    return None if slot_item_id is None else item_by_id(slot_item_id).name
