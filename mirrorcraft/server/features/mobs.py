"""Cows: loaded from the save's entity chunks, wandering with a seeded AI, hit by players, dying and dropping
their loot table.

Why cows only: they are the benchmark's one mob (leather and beef in the early route; the sandbox places
four). Vanilla behaviour followed, simplified where the benchmark does not need more:

* **spawning**: every ``minecraft:cow`` (``facts.COW_TYPE``) in ``<world>/entities`` (1.17+ entity chunks)
  at start; natural passive-mob spawning (every 400 ticks, ``doMobSpawning``) is
  :mod:`mirrorcraft.server.features.spawning`, which adds its cows through :meth:`Mobs.add_cow`. Cows are
  not written back by ``save`` (partial).
* **wandering** (``RandomStrollGoal``): an idle cow starts a stroll with chance 1/120 per tick to a random
  spot up to 10 blocks away horizontally on standable ground (feet and head free of collision, not water,
  solid block below, up 1 / down 3 per step, inside the border) at 0.1 blocks per tick (a simplification
  of vanilla's attribute-driven walk); every duration is in ticks, so an accelerated server keeps it.
  Like vanilla, a cow more than 32 blocks from every player counts ``noActionTime`` up and, from 100 ticks
  on, starts no stroll (``RandomStrollGoal.canUse`` with ``checkNoActionTime``; ``Mob.checkDespawn``
  resets the count within the creature category's no-despawn distance, 32). Why it matters here: a
  catalogue world holds hundreds of cows, and walking them all cost most of an accelerated server's tick.
  The AI draws from its own seeded stream (``seeded_rng(world seed, episode seed, "mobs")``).
* **attacks** (``use_entity`` with mouse 1, within 6 blocks like vanilla's ``distanceToSqr < 36``):
  the ``"attack"`` behaviour is asked first (a hook may cancel the hit); damage =
  :func:`mirrorcraft.rules.combat.attack_damage` of the held item, its enchantments and the attacker's live
  effects (the item's attack damage, empty hand 1, + Sharpness 0.5 x level + 0.5, + Strength 3 per level,
  - Weakness 4 per level; cited in ``rules/data/combat.json``); the attack cooldown is taken as fully
  charged and there are no critical hits (partial). Invulnerability: a hit
  within 10 ticks of the previous one only deals the excess damage (``LivingEntity.hurt``). Knockback:
  0.4 away from the attacker (``LivingEntity.knockback``), plus Knockback enchantment levels x 0.5.
* **death**: at 0 health the cow's loot table (``<ns>:entities/cow`` from the loaded packs) is rolled
  through the oracle with ``killed_by_player``, the weapon's Looting level and ``on_fire`` (Fire Aspect on
  the weapon sets the cow burning), the drops spawn, and the kill is published as a ``kill`` outcome:
  roll → spawn → publish, the same path a broken block takes; after 20 ticks the body is removed. A
  ``/kill`` rolls the table without a killer and publishes no outcome. Experience orbs are not spawned
  (partial).
* **packets**: spawn_entity (type cow), entity_teleport + head rotation when it moves, entity_velocity on
  knockback, entity_status 2 (hurt) / 3 (death), entity_metadata health (index 9, float type 2 in
  1.19.x, wiki.vg "Entity metadata" LivingEntity), destroy_entities.
* after a hit lands, the ``"mob_hurt"`` hooks run (the food feature charges the attacker exhaustion).
"""

from __future__ import annotations

import logging
import math
import uuid as uuidlib
from dataclasses import dataclass, field
from pathlib import Path

from mirrorcraft.errors import WorldError
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.blocks import NO_FLUID, liquid_of
from mirrorcraft.rules.combat import attack_damage
from mirrorcraft.rules.loot import EntityView, LootContext
from mirrorcraft.server import facts, outcomes, wire
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import PLAYER_EYE, collides
from mirrorcraft.server.kernel.stacks import enchantments_of
from mirrorcraft.server.world_rules import WorldRules
from mirrorcraft.worlds.anvil.save import Save

log = logging.getLogger(__name__)

COW_WIDTH, COW_HEIGHT = 0.9, 1.4  # EntityType.COW dimensions
COW_HEALTH = 10.0
COW_LOOT = "minecraft:entities/cow"
WALK = 0.1  # blocks per tick
STROLL_CHANCE = 120  # RandomStrollGoal interval
STROLL_RANGE = 10
NO_ACTION_DISTANCE_SQ = 32.0**2  # MobCategory.CREATURE no-despawn distance: nearer players reset noActionTime
NO_ACTION_IDLE = 100  # RandomStrollGoal: no new stroll once noActionTime reaches this
ATTACK_RANGE_SQ = 36.0
DEATH_TICKS = 20
HURT, DEATH = 2, 3  # entity_status events (LivingEntity.handleEntityEvent)


@dataclass
class Cow:
    """One cow."""

    eid: int
    uuid: uuidlib.UUID
    pos: list[float]
    yaw: float = 0.0
    health: float = COW_HEALTH
    target: tuple[float, float, float] | None = None
    vel: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    hurt_ticks: int = 0  # ticks since the last hit (vanilla invulnerableTime counts down from 20)
    last_damage: float = 0.0
    dead_for: int = -1
    on_fire: bool = False
    no_action: int = 0  # vanilla noActionTime: ticks since a player was within 32 blocks


def _uuid_from_ints(ints: list[int]) -> uuidlib.UUID:
    v = 0
    for i in ints:
        v = (v << 32) | (int(i) & 0xFFFFFFFF)
    return uuidlib.UUID(int=v)


class Mobs:
    """The cows of one world."""

    def __init__(self, kernel: Kernel, rules: WorldRules, items: Items, effects: Effects) -> None:
        self.kernel = kernel
        self.rules = rules
        self.items = items
        self.effects = effects
        self.rng = kernel.rng.stream("mobs")
        self.loot_rng = kernel.rng.stream("loot")
        self.cows: dict[int, Cow] = {}
        if kernel.config.world is not None:
            self._load(Path(kernel.config.world))
        kernel.events.after("joined", lambda b: self.spawn_for(b.player))
        kernel.handlers.register("use_entity", self._on_use_entity)

    # ---- loading -----------------------------------------------------------------------------------

    def _load(self, world: Path) -> None:
        if not (world / "entities").is_dir():
            return
        save = Save.open(world)
        for cx, cz in save.entity_chunk_positions():
            for ent in save.read_entities(cx, cz):
                if str(ent.get("id")) != facts.COW_TYPE:
                    continue
                try:
                    pos = [float(v) for v in ent["Pos"]]
                    rot = ent.get("Rotation", [0.0, 0.0])
                    uid = _uuid_from_ints(list(ent["UUID"]))
                    health = float(ent.get("Health", COW_HEALTH))
                except (KeyError, TypeError, ValueError) as err:
                    raise WorldError(f"{world}/entities chunk ({cx}, {cz}): bad cow entry ({err!r})") from err
                cow = Cow(game_eid := self.kernel.new_eid(), uid, pos, float(rot[0]), health)
                self.cows[game_eid] = cow

    # ---- packets -----------------------------------------------------------------------------------

    def living(self) -> list[Cow]:
        """The cows that are alive (not dying)."""
        return [c for c in self.cows.values() if c.dead_for < 0]

    def add_cow(self, pos: tuple[float, float, float], yaw: float, uid: uuidlib.UUID) -> Cow:
        """Add a new cow (natural spawning) and show it to every player; it behaves like a saved cow."""
        cow = Cow(self.kernel.new_eid(), uid, list(pos), yaw)
        self.cows[cow.eid] = cow
        for o in self.kernel.players:
            self._spawn_packets(o, cow)
        return cow

    def spawn_for(self, p: Player) -> None:
        """Send every living cow to a player who just joined."""
        for cow in self.cows.values():
            if cow.dead_for < 0:
                self._spawn_packets(p, cow)

    def _spawn_packets(self, p: Player, cow: Cow) -> None:
        p.send(
            "spawn_object",
            wire.spawn_entity(
                cow.eid,
                cow.uuid,
                facts.entity_type(facts.COW_TYPE),
                *cow.pos,
                (0.0, 0.0, 0.0),
                yaw=cow.yaw,
                head_yaw=cow.yaw,
            ),
        )
        p.send("entity_metadata", wire.living_health_metadata(cow.eid, cow.health))

    # ---- AI and physics ----------------------------------------------------------------------------

    def _standable(self, x: float, y: float, z: float) -> bool:
        world = self.kernel.world
        h = COW_WIDTH / 2
        box = (x - h, y, z - h, x + h, y + COW_HEIGHT, z + h)
        if collides(world, box) or not world.inside_border(x, z):
            return False
        if (
            liquid_of(facts.block_name(world.get_block(math.floor(x), math.floor(y), math.floor(z))))
            != NO_FLUID
        ):
            return False  # feet in the water or lava block (a water plant does not count)
        below = (x - h, y - 0.01, z - h, x + h, y, z + h)
        return collides(world, below)

    def _ground_y(self, x: float, y: float, z: float) -> float | None:
        base = math.floor(y + 0.5)
        for dy in (0, 1, -1, -2, -3):
            if self._standable(x, float(base + dy), z):
                return float(base + dy)
        return None

    def tick(self) -> None:
        """One tick of every cow: dying bodies, knockback, strolls; moved cows are broadcast."""
        k = self.kernel
        players = [tuple(p.pos[:3]) for p in k.players]
        for cow in list(self.cows.values()):
            if cow.dead_for >= 0:
                cow.dead_for += 1
                if cow.dead_for >= DEATH_TICKS:
                    del self.cows[cow.eid]
                    k.broadcast("destroy_entities", wire.entity_destroy([cow.eid]))
                continue
            cow.hurt_ticks += 1
            cx, cy, cz = cow.pos
            cow.no_action += 1
            for qx, qy, qz in players:
                dx, dy, dz = qx - cx, qy - cy, qz - cz
                if dx * dx + dy * dy + dz * dz < NO_ACTION_DISTANCE_SQ:
                    cow.no_action = 0
                    break
            moved = False
            if abs(cow.vel[0]) > 1e-3 or abs(cow.vel[2]) > 1e-3:
                moved = self._step(cow, cow.vel[0], cow.vel[2])
                cow.vel[0] *= 0.546  # block friction 0.6 x air drag 0.91
                cow.vel[2] *= 0.546
                if not moved:
                    cow.vel = [0.0, 0.0, 0.0]
            elif cow.target is None:
                if cow.no_action < NO_ACTION_IDLE and self.rng.randrange(STROLL_CHANCE) == 0:
                    a = self.rng.uniform(0, 2 * math.pi)
                    r = self.rng.uniform(2, STROLL_RANGE)
                    cow.target = (cow.pos[0] + r * math.cos(a), cow.pos[1], cow.pos[2] + r * math.sin(a))
            else:
                dx, dz = cow.target[0] - cow.pos[0], cow.target[2] - cow.pos[2]
                dist = math.hypot(dx, dz)
                if dist < WALK:
                    cow.target = None
                else:
                    cow.yaw = math.degrees(math.atan2(-dx, dz))
                    moved = self._step(cow, dx / dist * WALK, dz / dist * WALK)
                    if not moved:
                        cow.target = None
            if moved:
                k.broadcast("entity_teleport", wire.entity_teleport(cow.eid, *cow.pos, cow.yaw, 0.0, True))
                k.broadcast("entity_head_look", wire.entity_head_rotation(cow.eid, cow.yaw))

    def _step(self, cow: Cow, dx: float, dz: float) -> bool:
        nx, nz = cow.pos[0] + dx, cow.pos[2] + dz
        ny = self._ground_y(nx, cow.pos[1], nz)
        if ny is None:
            return False
        cow.pos = [nx, ny, nz]
        return True

    # ---- combat ------------------------------------------------------------------------------------

    def _on_use_entity(self, p: Player, pkt: sb.UseEntity) -> None:
        if pkt.mouse == 1:  # attack (0 interact, 2 interact at)
            self.attack(p, pkt.target)

    def attack(self, p: Player, target: int) -> bool:
        """``p`` attacks entity ``target``; True if it was a (living) cow in reach."""
        cow = self.cows.get(target)
        if cow is None or cow.dead_for >= 0:
            return False
        ex, ey, ez = p.pos[0], p.pos[1] + PLAYER_EYE, p.pos[2]
        cy = cow.pos[1] + COW_HEIGHT / 2
        if (ex - cow.pos[0]) ** 2 + (ey - cy) ** 2 + (ez - cow.pos[2]) ** 2 >= ATTACK_RANGE_SQ:
            return False
        k = self.kernel
        if k.events.behaviour("attack", p, entity=cow, type=facts.COW_TYPE).cancelled:
            return True
        held = p.inventory.held_stack
        name = held.item.removeprefix("minecraft:") if held else None
        enchantments = enchantments_of(held)
        ench = {e.removeprefix("minecraft:"): v for e, v in enchantments.items()}
        # The player's live effects (the control plane's /effect changes them), not the configured defaults.
        effects = [(eff.effect, eff.amplifier) for eff in self.effects.effects_of(p)]
        damage = attack_damage(held.item if held else None, enchantments, effects)
        if cow.hurt_ticks < 10:  # still invulnerable: only the excess over the last hit counts
            if damage <= cow.last_damage:
                return True
            dealt = damage - cow.last_damage
        else:
            dealt = damage
            cow.hurt_ticks = 0
        cow.last_damage = damage
        cow.health = max(0.0, cow.health - dealt)
        if ench.get("fire_aspect"):
            cow.on_fire = True
        # knockback away from the attacker (LivingEntity.knockback(0.4 + enchantment, ...))
        strength = 0.4 + 0.5 * ench.get("knockback", 0)
        kx, kz = cow.pos[0] - p.pos[0], cow.pos[2] - p.pos[2]
        d = math.hypot(kx, kz) or 1.0
        cow.vel = [kx / d * strength, 0.4, kz / d * strength]
        cow.target = None
        k.broadcast("entity_status", wire.entity_status(cow.eid, HURT))
        k.broadcast("entity_velocity", wire.entity_velocity(cow.eid, tuple(cow.vel)))
        k.broadcast("entity_metadata", wire.living_health_metadata(cow.eid, cow.health))
        k.events.notify("mob_hurt", p, entity=cow, damage=dealt)
        k.emit("mob_hurt", player=p.display_name, entity=cow.eid, damage=dealt, health=cow.health)
        if cow.health <= 0:
            self._die(p, cow, ench.get("looting", 0), name)
        return True

    def _die(self, p: Player, cow: Cow, looting: int, weapon: str | None) -> None:
        """Killed by ``p``: roll the loot with the killer → spawn the drops → publish the kill."""
        player = EntityView(type=facts.PLAYER_TYPE, sneaking=bool(p.sneaking))
        ctx = LootContext(
            this_entity=EntityView(type=facts.COW_TYPE, on_fire=cow.on_fire),
            killer=player,
            direct_killer=player,
            killer_player=player,
            looting=looting,
        )
        drops, outcome = self._fall(cow, ctx)
        self.kernel.report(outcomes.kill_event(facts.COW_TYPE, outcome, player=p.display_name))
        self.kernel.emit(
            "mob_killed",
            player=p.display_name,
            entity=facts.COW_TYPE,
            weapon=weapon,
            drops=[(s.item, s.count) for s in drops],
        )

    def kill(self, cow: Cow) -> None:
        """``/kill`` of a cow: death animation and loot rolled without a killer (vanilla ``Entity.kill``);
        not published as a player kill."""
        cow.health = 0.0
        self._fall(cow, LootContext(this_entity=EntityView(type=facts.COW_TYPE, on_fire=cow.on_fire)))

    def _fall(self, cow: Cow, ctx: LootContext):  # noqa: ANN202 - (drops, outcome)
        cow.dead_for = 0
        cow.vel = [0.0, 0.0, 0.0]
        self.kernel.broadcast("entity_status", wire.entity_status(cow.eid, DEATH))
        drops, outcome = self.rules.roll_loot(COW_LOOT, ctx, self.loot_rng)
        for s in drops:
            self.items.spawn(s, (cow.pos[0], cow.pos[1] + 0.5, cow.pos[2]), pop=True)
        return drops, outcome
