"""The kernel and the composition root on a real sandbox world: the declared tick order and the clock's
catch-up, the packet handlers the features register, the join sequence's hook order, behaviour hooks (a
scenario judge cancelling a dig), and the seeded random streams."""

from __future__ import annotations

from pathlib import Path

from support.fakeplayer import bare, join, new_game, send

from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.config import seeded_rng
from mirrorcraft.server.kernel import Behaviour

# What the server answered before the kernel split (the connection's old on_<packet> methods): the
# connection decodes exactly these, so a packet outside the list is still read and ignored undecoded.
HANDLED = [
    "block_dig",
    "block_place",
    "chat_command",
    "chat_message",
    "client_command",
    "close_window",
    "enchant_item",
    "entity_action",
    "flying",
    "held_item_slot",
    "keep_alive",
    "look",
    "position",
    "position_look",
    "set_creative_slot",
    "tab_complete",
    "teleport_confirm",
    "use_entity",
    "use_item",
    "window_click",
]


def test_the_tick_is_the_declared_phase_list(world: Path) -> None:
    game = new_game(world)
    assert game.kernel.clock.phases == [
        "functions",
        "items",
        "block ticks",
        "spawning",
        "random ticks",
        "furnaces",
        "hoppers",
        "mobs",
        "windows",
        "advancements",
        "thorns",
        "food",
        "delayed digs",
        "admin",
        "movement",
        "keep-alive",
    ]
    assert game.kernel.handlers.packets == HANDLED


def test_tick_functions_run_first_with_the_tick_and_a_failing_one_is_removed(world: Path) -> None:
    game = new_game(world)
    seen: list[tuple[str, int, int]] = []
    (it,) = game.items.spawn(Stack("minecraft:cobblestone", 1), (8.5, 80.0, 8.5))
    game.functions.install("judge", lambda t: seen.append(("judge", t, it.age)))

    def broken(t: int) -> None:
        raise RuntimeError("a judge's bug")

    game.functions.install("broken", broken)
    game.tick()
    game.tick()
    # before the items phase: the item has not aged yet in the tick the function sees
    assert seen == [("judge", 1, 0), ("judge", 2, 1)]  # the tick count of the tick being run
    assert game.functions.names == ["judge"] and game.functions.failed == [
        ("broken", 'RuntimeError("a judge\'s bug")')
    ]
    game.functions.remove("judge")
    game.tick()
    assert len(seen) == 2


def test_catch_up_counts_skipped_ticks_and_replays_item_physics(world: Path) -> None:
    game = new_game(world)
    clock = game.kernel.clock
    (it,) = game.items.spawn(Stack("minecraft:cobblestone", 1), (8.5, 80.0, 8.5))
    clock.advance(3)  # the reactor is two intervals late: 2 skipped ticks count, both replay the items
    assert game.tick_count == 3 and it.age == 3
    clock.advance(150)  # at most 100 skipped ticks count, at most 4 replay the items, then one tick
    assert game.tick_count == 3 + 100 + 1 and it.age == 3 + 4 + 1
    clock.advance(1)  # on time: one tick
    assert game.tick_count == 105 and it.age == 9


def test_join_runs_the_joined_hooks_in_build_order(world: Path) -> None:
    game = new_game(world)
    p = join(game)
    names = p.names()
    after = names[names.index("plugin_message") :]  # the tick rate closes the join sequence
    marks = [
        after.index("advancements"),  # the advancements feature: the tree
        after.index("set_experience"),  # experience: the bar
        after.index("spawn_object"),  # mobs: the cows
        after.index("server_difficulty"),  # admin: difficulty, time, weather, effects
    ]
    assert marks == sorted(marks) and len(set(marks)) == 4
    assert p in game.players and game.players.by_name("alex") is p


def test_a_judge_hook_can_cancel_a_dig(world: Path, sandbox_info) -> None:
    game = new_game(world)
    cane = tuple(sandbox_info["sugar_cane"][0])  # breaks in one tick: the start packet breaks it
    p = join(game, pos=(cane[0] + 1.5, float(cane[1]), cane[2] + 0.5))
    events: list[tuple[str, dict]] = []
    game.subscribe(lambda ev, data: events.append((ev, data)))
    asked: list[Behaviour] = []

    def judge(b: Behaviour) -> None:
        asked.append(b)
        if b["block"] == "minecraft:sugar_cane":
            b.cancel("judge")

    game.events.before("dig", judge)
    state = game.world.get_block(*cane)
    send(game, p, "block_dig", status=0, location=cane, face=1, sequence=3)
    assert game.world.get_block(*cane) == state and asked and asked[0].player is p
    assert not [e for e, _ in events if e in ("block_broken", "outcome")]
    resent = p.packets("block_change")[-1]
    assert resent.location == cane and resent.state == state  # the client's prediction is undone
    assert p.packets("acknowledge_block_changes")[-1].sequence_id == 3
    # without the judge's objection the same dig breaks the block and drops the cane
    game.events.remove("dig", judge)
    send(game, p, "block_dig", status=0, location=cane, face=1, sequence=4)
    assert facts.is_air(game.world.get_block(*cane))
    assert [d["drops"] for e, d in events if e == "block_broken"] == [[("sugar_cane", 1)]]


def test_a_hook_can_cancel_a_placement(world: Path) -> None:
    game = new_game(world)
    p = join(game)
    p.inventory.slots[36] = Stack("minecraft:cobblestone", 2)
    game.events.before("place", lambda b: b.cancel("judge"))
    target = (9, 64, 8)
    send(
        game,
        p,
        "block_place",
        hand=0,
        location=target,
        direction=1,
        cursor_x=0.5,
        cursor_y=1.0,
        cursor_z=0.5,
        inside_block=False,
        sequence=1,
    )
    assert facts.block_name(game.world.get_block(9, 65, 8)) == "air" and bare(p.inventory.slots[36]) == (
        "cobblestone",
        2,
    )


def test_random_streams_are_named_and_shared(world: Path) -> None:
    game = new_game(world, episode_seed=9)
    rng = game.kernel.rng
    seed = game.world.level.seed
    assert rng.stream("loot") is rng.stream("loot")
    expected = seeded_rng(seed, 9, "scatter")
    assert [rng.stream("scatter").random() for _ in range(3)] == [expected.random() for _ in range(3)]
