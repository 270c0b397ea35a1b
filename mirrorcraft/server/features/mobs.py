"""Animals — cows and chickens: loaded from the save's entity chunks, wandering with a seeded AI, hit by
players, dying and dropping their loot table; chickens lay eggs, cows give milk.

Why these two: cows are the MirrorCraft benchmark's one mob (leather and beef in the early route; the sandbox
places four); the PillagerBench Dash & Dine arena holds a cow to milk and an egg farm of 14 chickens. The
animal types, their sizes, health, walk, egg laying and milking are cited data (``rules/data/animals.json``,
:mod:`mirrorcraft.rules.animals`); what one drops when killed is its loot table ``<ns>:entities/<type>``.
Vanilla behaviour followed, simplified where the benchmarks do not need more:

* **spawning**: every simulated animal (``rules.animals.animal_types``) in ``<world>/entities`` (1.17+ entity
  chunks) at start, with its saved ``Health`` and, for chickens, ``EggLayTime``; natural passive-mob spawning
  (every 400 ticks, ``doMobSpawning``) is :mod:`mirrorcraft.server.features.spawning`, which adds its cows
  through :meth:`Mobs.add_cow`. Animals are not written back by ``save`` (partial).
* **eggs** (``Chicken.aiStep``): a chicken's egg timer counts down every tick; at 0 it drops an egg at its feet
  (``Entity.spawnAtLocation``: an item entity with velocity (±0.1, 0.2, ±0.1) and pickup delay 10) and draws
  the next interval, ``6000 + nextInt(6000)`` ticks, from its own seeded ``eggs`` stream (so eggs never shift
  the AI or loot streams). Event ``egg_laid``.
* **milking** is :mod:`~mirrorcraft.server.features.milking` (it needs the players' game modes).
* **fences**: an animal only steps where its box collides with no block (a fence or wall's collision box is
  1.5 high, so no step up onto it), which keeps animals inside a fenced pen; an unconnected fence post is
  only the post, so the fence feature's connections (:mod:`~mirrorcraft.server.features.shapes`) matter.
* **wandering** (``RandomStrollGoal``): an idle animal starts a stroll with chance 1/120 per tick to a random
  spot up to 10 blocks away horizontally on standable ground (feet and head free of collision, not water,
  solid block below, up 1 / down 3 per step, inside the border) at its walk speed per tick (cows 0.1, a
  simplification of vanilla's attribute-driven walk; chickens 0.125, scaled by their speed attribute);
  every duration is in ticks, so an accelerated server keeps it. Chickens do not flutter down slowly (an
  animal stands on the ground or does not move).
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

from mirrorcraft.errors import ContractError, WorldError
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.rules.animals import AnimalRule, animal, animal_types, dropped_item, layer
from mirrorcraft.rules.blocks import NO_FLUID, liquid_of
from mirrorcraft.rules.combat import attack_damage
from mirrorcraft.rules.loot import EntityView, LootContext
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts, outcomes, wire
from mirrorcraft.server.features.effects import Effects
from mirrorcraft.server.features.items import Items
from mirrorcraft.server.kernel import Kernel, Player
from mirrorcraft.server.kernel.physics import PLAYER_EYE, collides
from mirrorcraft.server.kernel.stacks import enchantments_of
from mirrorcraft.server.world_rules import WorldRules
from mirrorcraft.worlds.anvil.save import Save

log = logging.getLogger(__name__)

_COW: AnimalRule = animal(facts.COW_TYPE)  # type: ignore[assignment]
COW_WIDTH, COW_HEIGHT = _COW.width, _COW.height  # EntityType.COW dimensions (rules/data/animals.json)
COW_HEALTH = _COW.health
WALK = _COW.walk  # blocks per tick
STROLL_CHANCE = 120  # RandomStrollGoal interval
STROLL_RANGE = 10
NO_ACTION_DISTANCE_SQ = 32.0**2  # MobCategory.CREATURE no-despawn distance: nearer players reset noActionTime
NO_ACTION_IDLE = 100  # RandomStrollGoal: no new stroll once noActionTime reaches this
ATTACK_RANGE_SQ = 36.0
DEATH_TICKS = 20
HURT, DEATH = 2, 3  # entity_status events (LivingEntity.handleEntityEvent)


@dataclass
class Animal:
    """One simulated animal (``type``: its namespaced entity type)."""

    eid: int
    uuid: uuidlib.UUID
    pos: list[float]
    yaw: float = 0.0
    health: float = COW_HEALTH
    type: str = facts.COW_TYPE
    egg_time: int | None = None  # ticks to the next laid item (chickens), None for animals that lay none
    target: tuple[float, float, float] | None = None
    vel: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    hurt_ticks: int = 0  # ticks since the last hit (vanilla invulnerableTime counts down from 20)
    last_damage: float = 0.0
    dead_for: int = -1
    on_fire: bool = False
    no_action: int = 0  # vanilla noActionTime: ticks since a player was within 32 blocks

    @property
    def rule(self) -> AnimalRule:
        """The animal's cited body (size, health, walk)."""
        return animal_types()[self.type]


#: The name the cows' record kept (spawning and the tests use it).
Cow = Animal


def _uuid_from_ints(ints: list[int]) -> uuidlib.UUID:
    v = 0
    for i in ints:
        v = (v << 32) | (int(i) & 0xFFFFFFFF)
    return uuidlib.UUID(int=v)


class Mobs:
    """The animals of one world (cows and chickens)."""

    def __init__(self, kernel: Kernel, rules: WorldRules, items: Items, effects: Effects) -> None:
        self.kernel = kernel
        self.rules = rules
        self.items = items
        self.effects = effects
        self.rng = kernel.rng.stream("mobs")
        self.loot_rng = kernel.rng.stream("loot")
        self.egg_rng = kernel.rng.stream("eggs")
        self.animals: dict[int, Animal] = {}
        if kernel.config.world is not None:
            self._load(Path(kernel.config.world))
        kernel.events.after("joined", lambda b: self.spawn_for(b.player))
        kernel.handlers.register("use_entity", self._on_use_entity)

    @property
    def cows(self) -> dict[int, Animal]:
        """The cows (dying ones included) by entity id (a snapshot: add or remove through :attr:`animals`)."""
        return {eid: a for eid, a in self.animals.items() if a.type == facts.COW_TYPE}

    # ---- loading -----------------------------------------------------------------------------------

    def _load(self, world: Path) -> None:
        if not (world / "entities").is_dir():
            return
        save = Save.open(world)
        for cx, cz in save.entity_chunk_positions():
            for ent in save.read_entities(cx, cz):
                kind = str(ent.get("id"))
                rule = animal(kind) if ":" in kind else None
                if rule is None:
                    continue
                lays = layer(kind)
                try:
                    pos = [float(v) for v in ent["Pos"]]
                    rot = ent.get("Rotation", [0.0, 0.0])
                    uid = _uuid_from_ints(list(ent["UUID"]))
                    health = float(ent.get("Health", rule.health))
                    egg = None
                    if lays is not None:
                        saved = ent.get(lays.saved_as)
                        egg = (
                            int(saved)
                            if saved is not None
                            else self._next_egg(lays.min_ticks, lays.random_ticks)
                        )
                except (KeyError, TypeError, ValueError) as err:
                    raise WorldError(
                        f"{world}/entities chunk ({cx}, {cz}): bad {kind} entry ({err!r})"
                    ) from err
                a = Animal(self.kernel.new_eid(), uid, pos, float(rot[0]), health, kind, egg)
                self.animals[a.eid] = a

    def _next_egg(self, low: int, spread: int) -> int:
        return low + self.egg_rng.randrange(spread)

    # ---- packets -----------------------------------------------------------------------------------

    def living(self) -> list[Animal]:
        """The cows that are alive (not dying): the mob the commands' selectors and the cow tests count."""
        return [c for c in self.animals.values() if c.dead_for < 0 and c.type == facts.COW_TYPE]

    def living_animals(self) -> list[Animal]:
        """Every animal that is alive (not dying), of every type (natural spawning counts them all)."""
        return [c for c in self.animals.values() if c.dead_for < 0]

    def add_cow(self, pos: tuple[float, float, float], yaw: float, uid: uuidlib.UUID) -> Animal:
        """Add a new cow (natural spawning) and show it to every player; it behaves like a saved cow."""
        return self.add(facts.COW_TYPE, pos, yaw, uid)

    def add(self, kind: str, pos: tuple[float, float, float], yaw: float, uid: uuidlib.UUID) -> Animal:
        """Add a new animal of type ``kind`` and show it to every player.

        Raises:
            ContractError: ``kind`` is not a simulated animal.
        """
        rule = animal(kind)
        if rule is None:
            raise ContractError(f"add: {kind!r} is not an animal the server simulates")
        lays = layer(kind)
        egg = self._next_egg(lays.min_ticks, lays.random_ticks) if lays is not None else None
        a = Animal(self.kernel.new_eid(), uid, list(pos), yaw, rule.health, rule.type, egg)
        self.animals[a.eid] = a
        for o in self.kernel.players:
            self._spawn_packets(o, a)
        return a

    def spawn_for(self, p: Player) -> None:
        """Send every living animal to a player who just joined."""
        for a in self.animals.values():
            if a.dead_for < 0:
                self._spawn_packets(p, a)

    def _spawn_packets(self, p: Player, a: Animal) -> None:
        p.send(
            "spawn_object",
            wire.spawn_entity(
                a.eid,
                a.uuid,
                facts.entity_type(a.type),
                *a.pos,
                (0.0, 0.0, 0.0),
                yaw=a.yaw,
                head_yaw=a.yaw,
            ),
        )
        p.send("entity_metadata", wire.living_health_metadata(a.eid, a.health))

    # ---- AI and physics ----------------------------------------------------------------------------

    def _standable(self, x: float, y: float, z: float, rule: AnimalRule = _COW) -> bool:
        world = self.kernel.world
        h = rule.width / 2
        box = (x - h, y, z - h, x + h, y + rule.height, z + h)
        if collides(world, box) or not world.inside_border(x, z):
            return False
        if (
            liquid_of(facts.block_name(world.get_block(math.floor(x), math.floor(y), math.floor(z))))
            != NO_FLUID
        ):
            return False  # feet in the water or lava block (a water plant does not count)
        below = (x - h, y - 0.01, z - h, x + h, y, z + h)
        return collides(world, below)

    def _ground_y(self, x: float, y: float, z: float, rule: AnimalRule = _COW) -> float | None:
        base = math.floor(y + 0.5)
        for dy in (0, 1, -1, -2, -3):
            if self._standable(x, float(base + dy), z, rule):
                return float(base + dy)
        return None

    def tick(self) -> None:
        """One tick of every animal: dying bodies, knockback, strolls, eggs; moved animals are broadcast."""
        k = self.kernel
        players = [tuple(p.pos[:3]) for p in k.players]
        for cow in list(self.animals.values()):
            if cow.dead_for >= 0:
                cow.dead_for += 1
                if cow.dead_for >= DEATH_TICKS:
                    del self.animals[cow.eid]
                    k.broadcast("destroy_entities", wire.entity_destroy([cow.eid]))
                continue
            cow.hurt_ticks += 1
            if cow.egg_time is not None:
                cow.egg_time -= 1
                if cow.egg_time <= 0:
                    self._lay(cow)
            cx, cy, cz = cow.pos
            cow.no_action += 1
            for qx, qy, qz in players:
                dx, dy, dz = qx - cx, qy - cy, qz - cz
                if dx * dx + dy * dy + dz * dz < NO_ACTION_DISTANCE_SQ:
                    cow.no_action = 0
                    break
            moved = False
            walk = cow.rule.walk
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
                if dist < walk:
                    cow.target = None
                else:
                    cow.yaw = math.degrees(math.atan2(-dx, dz))
                    moved = self._step(cow, dx / dist * walk, dz / dist * walk)
                    if not moved:
                        cow.target = None
            if moved:
                k.broadcast("entity_teleport", wire.entity_teleport(cow.eid, *cow.pos, cow.yaw, 0.0, True))
                k.broadcast("entity_head_look", wire.entity_head_rotation(cow.eid, cow.yaw))

    def _lay(self, a: Animal) -> None:
        """``Chicken.aiStep``: drop the laid item at the feet (``spawnAtLocation``), draw the next interval."""
        lays = layer(a.type)
        assert lays is not None
        d = dropped_item()
        rng = self.egg_rng
        v = (
            rng.uniform(-d["velocity_xz"], d["velocity_xz"]),
            d["velocity_y"],
            rng.uniform(-d["velocity_xz"], d["velocity_xz"]),
        )
        self.items.spawn(Stack(lays.item, 1), tuple(a.pos), velocity=v, pickup_delay=int(d["pickup_delay"]))  # type: ignore[arg-type]
        a.egg_time = self._next_egg(lays.min_ticks, lays.random_ticks)
        self.kernel.emit(
            "egg_laid", entity=a.eid, type=a.type, item=lays.item, pos=tuple(a.pos), next=a.egg_time
        )

    def _step(self, cow: Animal, dx: float, dz: float) -> bool:
        nx, nz = cow.pos[0] + dx, cow.pos[2] + dz
        ny = self._ground_y(nx, cow.pos[1], nz, cow.rule)
        if ny is None:
            return False
        cow.pos = [nx, ny, nz]
        return True

    # ---- combat and interaction ----------------------------------------------------------------------

    def _on_use_entity(self, p: Player, pkt: sb.UseEntity) -> None:
        if pkt.mouse == 1:  # attack (0 interact: the milking feature; 2 interact at: armor stands')
            self.attack(p, pkt.target)

    def in_reach(self, p: Player, a: Animal) -> bool:
        """Whether ``a``'s middle is within 6 blocks of ``p``'s eyes (vanilla's ``distanceToSqr < 36``)."""
        ex, ey, ez = p.pos[0], p.pos[1] + PLAYER_EYE, p.pos[2]
        cy = a.pos[1] + a.rule.height / 2
        return (ex - a.pos[0]) ** 2 + (ey - cy) ** 2 + (ez - a.pos[2]) ** 2 < ATTACK_RANGE_SQ

    def attack(self, p: Player, target: int) -> bool:
        """``p`` attacks entity ``target``; True if it was a (living) animal in reach."""
        cow = self.animals.get(target)
        if cow is None or cow.dead_for >= 0:
            return False
        if not self.in_reach(p, cow):
            return False
        k = self.kernel
        if k.events.behaviour("attack", p, entity=cow, type=cow.type).cancelled:
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

    def _die(self, p: Player, cow: Animal, looting: int, weapon: str | None) -> None:
        """Killed by ``p``: roll the loot with the killer → spawn the drops → publish the kill."""
        player = EntityView(type=facts.PLAYER_TYPE, sneaking=bool(p.sneaking))
        ctx = LootContext(
            this_entity=EntityView(type=cow.type, on_fire=cow.on_fire),
            killer=player,
            direct_killer=player,
            killer_player=player,
            looting=looting,
        )
        drops, outcome = self._fall(cow, ctx)
        self.kernel.report(outcomes.kill_event(cow.type, outcome, player=p.display_name))
        self.kernel.emit(
            "mob_killed",
            player=p.display_name,
            entity=cow.type,
            weapon=weapon,
            drops=[(s.item, s.count) for s in drops],
        )

    def kill(self, cow: Animal) -> None:
        """``/kill`` of an animal: death animation and loot rolled without a killer (vanilla ``Entity.kill``);
        not published as a player kill."""
        cow.health = 0.0
        self._fall(cow, LootContext(this_entity=EntityView(type=cow.type, on_fire=cow.on_fire)))

    def _fall(self, cow: Animal, ctx: LootContext):  # noqa: ANN202 - (drops, outcome)
        cow.dead_for = 0
        cow.vel = [0.0, 0.0, 0.0]
        self.kernel.broadcast("entity_status", wire.entity_status(cow.eid, DEATH))
        ns, name = cow.type.split(":", 1)
        drops, outcome = self.rules.roll_loot(f"{ns}:entities/{name}", ctx, self.loot_rng)
        for s in drops:
            self.items.spawn(s, (cow.pos[0], cow.pos[1] + 0.5, cow.pos[2]), pop=True)
        return drops, outcome
