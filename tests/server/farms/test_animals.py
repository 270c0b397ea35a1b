"""Chickens and cows on the Dash & Dine arena save, against vanilla 1.19.2 (``Chicken.aiStep``: an egg every
``6000 + nextInt(6000)`` ticks, dropped at the feet; ``Cow.mobInteract``: a bucket becomes a milk bucket;
``EntityType`` sizes; the chicken's loot table), and animals staying inside a fence pen."""

from __future__ import annotations

import uuid
from collections import Counter

from support.fakeplayer import FakePlayer, give, join, new_game, send

from mirrorcraft.server.game import Game

CHICKEN, COW = "minecraft:chicken", "minecraft:cow"
#: The cow pen's free space (x0, x1), (z0, z1): fences at x = -9, -6 and z = -11, -8 around the cells x -8..-7,
#: z -10..-9; a joined fence's collision is the 4/16-wide middle of its cell (x or z + 0.375 .. 0.625).
PEN = ((-8.375, -5.625), (-10.375, -7.625))


def arena_game(arena, **config) -> tuple[Game, FakePlayer]:  # noqa: ANN001 - the fixture's factory
    game = new_game(arena("dash_and_dine"), episode_seed=5, **config)
    p = join(game, FakePlayer("Ryn"), (-5.5, -60.0, -9.5))
    p.on_ground = True
    return game, p


def use_entity(game: Game, p: FakePlayer, eid: int, hand: int = 0) -> None:
    send(game, p, "use_entity", target=eid, mouse=0, hand=hand, sneaking=False)


def test_the_arena_animals_load_with_their_egg_timers(arena) -> None:  # noqa: ANN001
    game, _ = arena_game(arena)
    kinds = Counter(a.type for a in game.mobs.animals.values())
    assert kinds == {CHICKEN: 14, COW: 1}
    chickens = [a for a in game.mobs.animals.values() if a.type == CHICKEN]
    assert all(6000 <= a.egg_time < 12000 for a in chickens)  # the builder's EggLayTime values
    assert all(a.health == 4.0 for a in chickens) and game.mobs.cows and len(game.mobs.living()) == 1


def test_egg_intervals_are_vanilla(arena) -> None:  # noqa: ANN001
    game, _ = arena_game(arena)
    draws = [game.mobs._next_egg(6000, 6000) for _ in range(6000)]
    assert min(draws) >= 6000 and max(draws) <= 11999 and len(set(draws)) > 3000
    assert abs(sum(draws) / len(draws) - 8999.5) < 5 * 1732 / len(draws) ** 0.5
    hen = next(a for a in game.mobs.animals.values() if a.type == CHICKEN)
    hen.egg_time = 1
    laid = []
    game.subscribe(lambda e, d: laid.append(d) if e == "egg_laid" else None)
    game.tick()
    assert len(laid) == 1 and 6000 <= hen.egg_time < 12000
    egg = next(it for it in game.items.entities.values() if it.item == "minecraft:egg")
    assert (
        egg.pickup_delay == 10 and egg.pos == hen.pos and egg.vel[1] == 0.2
    )  # at its feet (spawnAtLocation)
    assert abs(egg.vel[0]) <= 0.1 and abs(egg.vel[2]) <= 0.1


def test_animals_stay_inside_the_fence_pen(arena) -> None:  # noqa: ANN001
    game, _ = arena_game(arena)
    game.admin.set_game_rule("randomTickSpeed", 0)  # the arena's 200 would only cost time here
    for k in range(3):
        game.mobs.add(CHICKEN, (-7.5 + 0.3 * k, -60.0, -9.5), 0.0, uuid.UUID(int=k + 1))
    penned = [
        a
        for a in game.mobs.animals.values()
        if PEN[0][0] < a.pos[0] < PEN[0][1] and PEN[1][0] < a.pos[2] < PEN[1][1]
    ]
    assert len(penned) == 4  # the saved cow and the three chickens
    start = [tuple(a.pos) for a in penned]
    for _ in range(3000):
        game.tick()
    assert [tuple(a.pos) for a in penned] != start  # they wander...
    for a in penned:
        (x0, x1), (z0, z1) = PEN
        h = a.rule.width / 2
        assert x0 + h <= a.pos[0] <= x1 - h and z0 + h <= a.pos[2] <= z1 - h, (a.type, a.pos)  # ...never out


def test_a_bucket_on_the_cow_gives_milk(arena) -> None:  # noqa: ANN001
    game, p = arena_game(arena)
    cow = next(iter(game.mobs.cows.values()))
    p.pos = [cow.pos[0] + 2.0, -60.0, cow.pos[2]]
    give(p, 36, "bucket", 1)
    use_entity(game, p, cow.eid)
    assert p.inventory.slots[36].item == "minecraft:milk_bucket" and p.inventory.slots[36].count == 1
    give(p, 36, "bucket", 16)
    use_entity(game, p, cow.eid)
    assert p.inventory.slots[36].count == 15
    assert sum(1 for s in p.inventory.slots if s and s.item == "minecraft:milk_bucket") == 1
    hen = next(a for a in game.mobs.animals.values() if a.type == CHICKEN)
    p.pos = [hen.pos[0] + 1.0, hen.pos[1], hen.pos[2]]
    use_entity(game, p, hen.eid)  # not milkable
    assert p.inventory.slots[36].count == 15
    p.pos = [cow.pos[0] + 9.0, -60.0, cow.pos[2]]
    use_entity(game, p, cow.eid)  # out of reach
    assert p.inventory.slots[36].count == 15
    game.admin.set_game_mode(p, "creative")
    p.pos = [cow.pos[0] + 2.0, -60.0, cow.pos[2]]
    for s in range(len(p.inventory.slots)):
        if s != 36:
            p.inventory.slots[s] = None
    use_entity(game, p, cow.eid)
    use_entity(game, p, cow.eid)
    milk = [s for s in p.inventory.slots if s and s.item == "minecraft:milk_bucket"]
    assert p.inventory.slots[36].count == 15 and len(milk) == 1  # creative keeps the bucket, one milk


def test_a_killed_chicken_drops_its_loot_table(arena) -> None:  # noqa: ANN001
    game, p = arena_game(arena)
    kills, killed = [], []
    game.subscribe(lambda e, d: kills.append(d) if e == "outcome" and d["outcome"].kind == "kill" else None)
    game.subscribe(lambda e, d: killed.append(d) if e == "mob_killed" else None)
    hen = next(a for a in game.mobs.animals.values() if a.type == CHICKEN)
    p.pos = [hen.pos[0] + 1.5, -60.0, hen.pos[2]]
    while hen.dead_for < 0:
        assert game.mobs.attack(p, hen.eid) or hen.hurt_ticks < 10
        for _ in range(10):
            game.tick()
    (event,) = killed  # the drops spawned (they fall into the egg farm's hopper: not counted on the ground)
    drops = dict(event["drops"])
    assert event["entity"] == CHICKEN and drops.get("minecraft:chicken") == 1
    assert drops.get("minecraft:feather", 0) <= 2
    assert kills and kills[0]["outcome"].detail["entity"] == CHICKEN
