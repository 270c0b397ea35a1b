"""Simple vanilla-like player physics, as pure functions over a block-state lookup.

Why client-side physics: a vanilla server does not move the player; it checks the positions the client
sends (too fast / into blocks → it teleports the player back). So the body must produce the same kind of
motion a vanilla client would: this module follows ``LivingEntity.travel`` / ``Entity.move`` of 1.19
(values from the decompiled client as documented on the Minecraft wiki "Entity#Motion" / "Player#Movement"
and in mineflayer's prismarine-physics, re-derived here, not copied):

* walking: attribute speed 0.1 (Speed effect ×(1 + 0.2·level), sprint ×1.3), ground acceleration
  ``speed · 0.216 / s³`` (block slipperiness ``s``: 0.6, ice 0.98, ...), horizontal drag ``s · 0.91``, air
  acceleration 0.02 (0.026 sprinting); inputs ×0.98; gravity 0.08 then drag 0.98 vertically, ``f``
  horizontally (0.91 in the air);
* jumping: vy = 0.42 (+0.1 per Jump Boost level), sprint-jump adds 0.2 forward;
* collisions: the 0.6×1.8 box is moved along Y, then the larger of X/Z first, against the blocks'
  collision boxes (minecraft-data shapes); step-up of 0.6 on the ground (slabs, paths) — a full block
  needs a jump;
* water (simplified): acceleration 0.02, drag 0.8, sinking 0.02 per tick, jump = swim up 0.04; lava alike
  with drag 0.5;
* sweet berry bushes (``SweetBerryBushBlock.entityInside`` → ``Entity.makeStuckInBlock``): a move that begins
  with the box (deflated by 1e-7) overlapping a bush cell is scaled by the bush rule's stuck multiplier
  (0.8 sideways, 0.75 vertically; ``rules/data/plants.json``) and leaves no velocity behind (``Entity.move``
  zeroes ``deltaMovement`` after a stuck move; gravity and drag then act on zero). Mineflayer's
  prismarine-physics does not model this (only cobwebs), so a Mineflayer bot crosses a berry field faster
  than a vanilla client does.

Not modelled (partial): sneaking edges, ladders/vines climbing, cobwebs, soul-sand/honey slow-down, bubble
columns, knock-back, elytra, boats. Unloaded chunks are solid (the vanilla client does not move there).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np

from mirrorcraft.gamedata import all_blocks, collision_boxes
from mirrorcraft.rules import plants
from mirrorcraft.rules.blocks import NO_FLUID, fluid_of, slipperiness

TICK = 0.05
WIDTH = 0.6
HEIGHT = 1.8
EYE_HEIGHT = 1.62
GRAVITY = 0.08
AIR_DRAG = 0.98
STEP_HEIGHT = 0.6
JUMP_VELOCITY = 0.42
WALK_SPEED = 0.1
SPRINT_FACTOR = 1.3
EPS = 1e-7

Box = tuple[float, float, float, float, float, float]
StateLookup = Callable[[int, int, int], int | None]


@cache
def fluid_table() -> np.ndarray:
    """uint8 per global state: 0 none, 1 water (incl. waterlogged and bubble columns), 2 lava."""
    from mirrorcraft.gamedata import state_tables

    out = np.zeros(len(state_tables().block_id), dtype=np.uint8)
    for b in all_blocks():
        sl = slice(b.min_state, b.max_state + 1)
        fluid = fluid_of(b.name)  # rules/data/blocks.json: blocks that always hold water (1) or lava (2)
        if fluid != NO_FLUID:
            out[sl] = fluid
        elif any(p == "waterlogged" for p, _ in b.properties):
            for s in range(b.min_state, b.max_state + 1):
                if b.state_properties(s).get("waterlogged") == "true":
                    out[s] = 1
    out.setflags(write=False)
    return out


@cache
def slipperiness_table() -> np.ndarray:
    """float32 per global state: block slipperiness (0.6 for almost everything; rules/data/blocks.json)."""
    out = np.full(len(fluid_table()), 0.6, dtype=np.float32)
    for b in all_blocks():
        value = slipperiness(b.name)
        if value != 0.6:
            out[b.min_state : b.max_state + 1] = value
    out.setflags(write=False)
    return out


@cache
def _boxes(state: int) -> tuple[Box, ...]:
    return collision_boxes(state)


@dataclass(frozen=True)
class Controls:
    """Movement keys for one tick (what a player holds down)."""

    forward: bool = False
    back: bool = False
    left: bool = False
    right: bool = False
    jump: bool = False
    sprint: bool = False


@dataclass
class PlayerState:
    """Physical state of the player (feet position, velocity in blocks/tick, yaw/pitch in degrees).

    Attributes:
        speed_level / jump_level: Speed and Jump Boost effect levels (amplifier + 1; 0 = none).
        collided_horizontally / collided_vertically: Set by the last :func:`step`.
    """

    pos: tuple[float, float, float]
    vel: tuple[float, float, float] = (0.0, 0.0, 0.0)
    yaw: float = 0.0
    pitch: float = 0.0
    on_ground: bool = False
    in_water: bool = False
    in_lava: bool = False
    speed_level: int = 0
    jump_level: int = 0
    collided_horizontally: bool = False
    collided_vertically: bool = False
    jump_cooldown: int = 0
    extra: dict = field(default_factory=dict)


def player_box(pos: tuple[float, float, float]) -> Box:
    """The player's AABB at feet position ``pos``."""
    x, y, z = pos
    h = WIDTH / 2
    return (x - h, y, z - h, x + h, y + HEIGHT, z + h)


def block_boxes(lookup: StateLookup, box: Box) -> list[Box]:
    """World-space collision boxes of every block overlapping ``box`` (unloaded blocks are full cubes)."""
    out: list[Box] = []
    x0, y0, z0 = math.floor(box[0]), math.floor(box[1]) - 1, math.floor(box[2])
    x1, y1, z1 = math.floor(box[3] - EPS), math.floor(box[4] - EPS), math.floor(box[5] - EPS)
    for bx in range(x0, x1 + 1):
        for by in range(y0, y1 + 1):
            for bz in range(z0, z1 + 1):
                state = lookup(bx, by, bz)
                if state is None:
                    out.append((bx, by, bz, bx + 1.0, by + 1.0, bz + 1.0))
                    continue
                for b in _boxes(state):
                    out.append((bx + b[0], by + b[1], bz + b[2], bx + b[3], by + b[4], bz + b[5]))
    return out


def _clip(axis: int, box: Box, boxes: list[Box], d: float) -> float:
    """Largest movement ``<= d`` along ``axis`` (0 x, 1 y, 2 z) before ``box`` hits one of ``boxes``."""
    a, b = (axis + 1) % 3, (axis + 2) % 3
    for o in boxes:
        if (
            o[a + 3] <= box[a] + EPS
            or o[a] >= box[a + 3] - EPS
            or o[b + 3] <= box[b] + EPS
            or o[b] >= box[b + 3] - EPS
        ):
            continue
        if d > 0 and o[axis] >= box[axis + 3] - EPS:
            d = min(d, o[axis] - box[axis + 3])
        elif d < 0 and o[axis + 3] <= box[axis] + EPS:
            d = max(d, o[axis + 3] - box[axis])
    return d


def _shift(box: Box, axis: int, d: float) -> Box:
    lst = list(box)
    lst[axis] += d
    lst[axis + 3] += d
    return tuple(lst)  # type: ignore[return-value]


def collide(lookup: StateLookup, box: Box, move: tuple[float, float, float]) -> tuple[float, float, float]:
    """Clip ``move`` against the world: Y first, then the larger horizontal axis (vanilla axis order)."""
    dx, dy, dz = move
    grown = (min(box[0], box[0] + dx), min(box[1], box[1] + dy), min(box[2], box[2] + dz),
             max(box[3], box[3] + dx), max(box[4], box[4] + dy), max(box[5], box[5] + dz))  # fmt: skip
    boxes = block_boxes(lookup, grown)
    out = [0.0, 0.0, 0.0]
    order = (1, 2, 0) if abs(dx) < abs(dz) else (1, 0, 2)
    for axis in order:
        d = (dx, dy, dz)[axis]
        if d != 0.0:
            d = _clip(axis, box, boxes, d)
            box = _shift(box, axis, d)
        out[axis] = d
    return out[0], out[1], out[2]


def move_with_step(
    lookup: StateLookup, pos: tuple[float, float, float], move: tuple[float, float, float], on_ground: bool
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Move the player's box by ``move`` with collisions and vanilla step-up; returns (new pos, actual move)."""
    box = player_box(pos)
    got = collide(lookup, box, move)
    hit_h = abs(got[0] - move[0]) > EPS or abs(got[2] - move[2]) > EPS
    falling_onto = move[1] < 0 and abs(got[1] - move[1]) > EPS
    if hit_h and (on_ground or falling_onto):
        up = collide(lookup, box, (move[0], STEP_HEIGHT, move[2]))
        raised = collide(lookup, box, (0.0, STEP_HEIGHT, 0.0))
        horizontal = collide(lookup, _shift(box, 1, raised[1]), (move[0], 0.0, move[2]))
        cand = (horizontal[0], raised[1], horizontal[2])
        if cand[0] ** 2 + cand[2] ** 2 < up[0] ** 2 + up[2] ** 2:
            cand = up
        moved = _shift(_shift(_shift(box, 0, cand[0]), 1, cand[1]), 2, cand[2])
        down = collide(lookup, moved, (0.0, -cand[1] + move[1], 0.0))
        cand = (cand[0], cand[1] + down[1], cand[2])
        if cand[0] ** 2 + cand[2] ** 2 > got[0] ** 2 + got[2] ** 2 + EPS:
            got = cand
    return (pos[0] + got[0], pos[1] + got[1], pos[2] + got[2]), got


def _fluid_in(lookup: StateLookup, pos: tuple[float, float, float]) -> int:
    """Strongest fluid touching the player's box (shrunk by 0.001 like vanilla's updateInWaterState)."""
    x0, y0, z0, x1, y1, z1 = player_box(pos)
    table = fluid_table()
    best = 0
    for bx in range(math.floor(x0 + 0.001), math.floor(x1 - 0.001) + 1):
        for by in range(math.floor(y0 + 0.001), math.floor(y1 - 0.001) + 1):
            for bz in range(math.floor(z0 + 0.001), math.floor(z1 - 0.001) + 1):
                state = lookup(bx, by, bz)
                if state is not None:
                    best = max(best, int(table[state]))
    return best


@cache
def _stuck_states() -> dict[int, tuple[float, float, float]]:
    """State id → the movement multiplier of a block that makes a player stuck in it (the berry bush)."""
    rule = plants.berry_bush()
    b = next(b for b in all_blocks() if b.name == rule.block)
    return {st: rule.stuck_multiplier for st in range(b.min_state, b.max_state + 1)}


def stuck_multiplier(
    lookup: StateLookup, pos: tuple[float, float, float]
) -> tuple[float, float, float] | None:
    """The multiplier for the next move of a player at ``pos`` (``Entity.checkInsideBlocks``), else None."""
    x0, y0, z0, x1, y1, z1 = player_box(pos)
    stuck = _stuck_states()
    for bx in range(math.floor(x0 + EPS), math.floor(x1 - EPS) + 1):
        for by in range(math.floor(y0 + EPS), math.floor(y1 - EPS) + 1):
            for bz in range(math.floor(z0 + EPS), math.floor(z1 - EPS) + 1):
                state = lookup(bx, by, bz)
                if state is not None and (mult := stuck.get(state)) is not None:
                    return mult
    return None


def step(lookup: StateLookup, st: PlayerState, ctl: Controls) -> PlayerState:
    """Advance the player one tick (50 ms) under ``ctl``; returns the new state (``st`` is not changed)."""
    vx, vy, vz = st.vel
    # Tiny velocities are zeroed (LivingEntity.aiStep, threshold 0.003).
    vx, vy, vz = (0.0 if abs(v) < 0.003 else v for v in (vx, vy, vz))
    fluid = _fluid_in(lookup, st.pos)
    in_water, in_lava = fluid == 1, fluid == 2
    forward = (1.0 if ctl.forward else 0.0) - (1.0 if ctl.back else 0.0)
    strafe = (1.0 if ctl.left else 0.0) - (1.0 if ctl.right else 0.0)
    forward, strafe = forward * 0.98, strafe * 0.98
    sprint = ctl.sprint and forward > 0
    cooldown = max(0, st.jump_cooldown - 1)
    yaw = math.radians(st.yaw)
    if ctl.jump:
        if in_water or in_lava:
            vy += 0.04
        elif st.on_ground and cooldown == 0:
            vy = JUMP_VELOCITY + 0.1 * st.jump_level
            if sprint:
                vx -= math.sin(yaw) * 0.2
                vz += math.cos(yaw) * 0.2
            cooldown = 10
    else:
        cooldown = 0
    speed = WALK_SPEED * (1 + 0.2 * st.speed_level) * (SPRINT_FACTOR if sprint else 1.0)
    if in_water or in_lava:
        accel, slip = 0.02, None
    elif st.on_ground:
        below = lookup(math.floor(st.pos[0]), math.floor(st.pos[1] - 0.5), math.floor(st.pos[2]))
        slip = float(slipperiness_table()[below]) if below is not None else 0.6
        # LivingEntity.getFrictionInfluencedSpeed: the cube of the block's own friction (0.6 -> factor 1.0).
        accel = speed * (0.21600002 / (slip * slip * slip))
    else:
        accel, slip = (0.026 if sprint else 0.02), None
    norm = forward * forward + strafe * strafe
    if norm >= 1e-4:
        norm = math.sqrt(norm)
        scale = accel / max(norm, 1.0)
        fw, sw = forward * scale, strafe * scale
        sin, cos = math.sin(yaw), math.cos(yaw)
        vx += sw * cos - fw * sin
        vz += fw * cos + sw * sin
    stuck = stuck_multiplier(lookup, st.pos)
    move = (vx, vy, vz) if stuck is None else (vx * stuck[0], vy * stuck[1], vz * stuck[2])
    new_pos, got = move_with_step(lookup, st.pos, move, st.on_ground)
    hit_x, hit_z = abs(got[0] - move[0]) > EPS, abs(got[2] - move[2]) > EPS
    hit_y = abs(got[1] - move[1]) > EPS
    on_ground = hit_y and move[1] < 0
    if stuck is not None:  # Entity.move: a stuck move leaves deltaMovement zero
        vx = vy = vz = 0.0
    if hit_x:
        vx = 0.0
    if hit_z:
        vz = 0.0
    if hit_y:
        vy = 0.0
    if in_water or in_lava:
        drag = 0.8 if in_water else 0.5
        vx, vy, vz = vx * drag, vy * drag - 0.02, vz * drag
        if (hit_x or hit_z) and ctl.jump:
            vy = 0.3  # climbing out of water onto a bank (LivingEntity.travel: isFree(… + 0.6) check)
    else:
        f = (slip * 0.91) if (st.on_ground and slip is not None) else 0.91
        vy = (vy - GRAVITY) * AIR_DRAG
        vx, vz = vx * f, vz * f
    return replace(
        st,
        pos=new_pos,
        vel=(vx, vy, vz),
        on_ground=on_ground,
        in_water=in_water,
        in_lava=in_lava,
        collided_horizontally=hit_x or hit_z,
        collided_vertically=hit_y,
        jump_cooldown=cooldown,
    )


def yaw_to(src: tuple[float, float, float], dst: tuple[float, float, float]) -> float:
    """Minecraft yaw (degrees; 0 = +Z south, 90 = -X west) looking from ``src`` towards ``dst``."""
    dx, dz = dst[0] - src[0], dst[2] - src[2]
    return math.degrees(math.atan2(-dx, dz))


def look_at(eye: tuple[float, float, float], target: tuple[float, float, float]) -> tuple[float, float]:
    """``(yaw, pitch)`` in degrees to look from ``eye`` at ``target`` (pitch positive = down)."""
    dx, dy, dz = (target[i] - eye[i] for i in range(3))
    horiz = math.hypot(dx, dz)
    return math.degrees(math.atan2(-dx, dz)), -math.degrees(math.atan2(dy, horiz))
