"""Random ticks on a real game: ``randomTickSpeed`` draws per section (vanilla ``ServerLevel.tickChunk``), which
chunks tick (``ChunkMap.anyPlayerCloseEnoughForSpawning``: a non-spectator within 128 blocks), their own
seeded streams (nothing else's randomness shifts), and a Vanilla world and its Mirror copy ticking alike."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

from support.fakeplayer import FakePlayer, join, new_game
from support.farm_plots import PLOT_CHUNK, PLOT_Y, Plot, new_plot

from mirrorcraft.server import facts
from mirrorcraft.worlds.catalogue import mirror_copy

Y = PLOT_Y
STREAMS = ("loot", "scatter", "uuid", "mobs", "spawning", "xp", "eggs")


def _busy_plot(plot: Plot) -> None:
    """Things that change under random ticks: a moist wheat field, dirt beside the plot's grass, canes."""
    plot.floor(18, 18, 24, 24, "stone", y=Y - 2)
    plot.put((21, Y - 1, 21), "water")
    for x in range(19, 24):
        for z in range(19, 24):
            if (x, z) != (21, 21):
                plot.put((x, Y - 1, z), "farmland", moisture=7)
                plot.put((x, Y, z), "wheat")
    for x in range(16, 32, 3):
        plot.put((x, 64, 30), "dirt")  # exposed dirt in the sandbox's grass: grass spreads onto it


def _changes(plot: Plot, ticks: int, speed: int) -> list[tuple[tuple[int, int, int], int]]:
    out: list[tuple[tuple[int, int, int], int]] = []
    plot.game.kernel.events.after("block_changed", lambda b: out.append((b["pos"], b["new"])))
    plot.speed(speed)
    plot.tick(ticks)
    return out


def test_random_ticks_draw_from_their_own_streams(make_plot) -> None:
    """The same world ticked with and without random ticks: every other seeded stream ends in the same state
    (random ticks never shift loot, scatter, uuid, mob, spawning, xp or egg randomness)."""
    states = []
    for speed in (0, 400):
        plot = make_plot(f"s{speed}", episode_seed=3)
        _busy_plot(plot)
        changed = _changes(plot, 150, speed)
        assert (len(changed) > 50) == (speed > 0)
        states.append({s: plot.game.kernel.rng.stream(s).getstate() for s in STREAMS})
    assert states[0] == states[1]


def test_same_seeds_tick_alike_in_a_world_and_its_mirror_copy(sandbox_template: Path, tmp_path: Path) -> None:
    """A Vanilla world and its Mirror copy (same world seed, one more datapack) with the same episode seed make
    the same random-tick changes; another episode seed makes others."""
    vanilla = tmp_path / "vanilla"
    shutil.copytree(sandbox_template, vanilla)
    mirror_copy(sandbox_template, tmp_path / "mirror", "M01")
    shutil.copytree(sandbox_template, tmp_path / "other")
    runs = {}
    for name, seed in (("vanilla", 11), ("mirror", 11), ("other", 12)):
        plot = new_plot(tmp_path / name, episode_seed=seed)
        ruled = plot.game.world_rules.packs.rule_ids("recipes", "minecraft:stick")
        assert bool(ruled) == (name == "mirror")  # the copy plays M01's pack (two planks -> one stick)
        _busy_plot(plot)
        runs[name] = _changes(plot, 150, 400)
    assert len(runs["vanilla"]) > 50
    assert runs["vanilla"] == runs["mirror"]
    assert runs["vanilla"] != runs["other"]


def test_draws_per_section_follow_random_tick_speed(plot: Plot) -> None:
    """One randomly ticking block alone in its section is hit ``speed / 4096`` times a tick on average."""
    plot.put((20, Y, 20), "farmland", moisture=7)
    plot.put((21, Y, 20), "water")  # keeps it moist: the block stays the same
    rt = plot.game.random_ticks
    farmland = facts.block("minecraft:farmland").id
    real = rt._handlers[farmland]
    hits = []

    def counted(pos, state) -> None:  # noqa: ANN001 - the handler signature
        hits.append(pos)
        real(pos, state)

    rt._handlers[farmland] = counted
    speed, ticks = 400, 2000
    plot.speed(speed)
    plot.tick(ticks)
    mine = sum(1 for h in hits if h == (20, Y, 20))
    expected = ticks * speed / 4096
    assert abs(mine - expected) < 5 * math.sqrt(expected)
    assert set(hits) == {(20, Y, 20)}  # no other farmland anywhere in the ticking chunk
    plot.speed(0)
    before = rt.hits
    plot.tick(20)
    assert rt.hits == before  # randomTickSpeed 0: no random ticks (read live)


def test_only_sections_with_ticking_blocks_are_indexed(plot: Plot) -> None:
    plot.tick(1)
    rt = plot.game.random_ticks
    col = plot.game.world.column(*PLOT_CHUNK)
    cells = rt.ticking[col.blocks].reshape(24, 4096)
    assert set(rt._rows[PLOT_CHUNK]) == {int(s) for s in range(24) if cells[s].any()}
    plot.put((20, Y, 20), "farmland")  # a ticking block in an empty section gets its row at once
    assert (Y + 64) // 16 in rt._rows[PLOT_CHUNK]


def test_chunks_tick_near_non_spectators_only(world: Path) -> None:
    game = new_game(world, episode_seed=1)
    p = join(game, FakePlayer("a"), (8.5, 65.0, 8.5))
    rt = game.random_ticks
    assert set(rt.ticking_columns()) == p.loaded_chunks  # view distance 4: every held chunk is within 128
    p.loaded_chunks = p.loaded_chunks | {(20, 0)}  # 320 blocks away: held, but not ticking
    assert (20, 0) not in rt.ticking_columns()
    game.admin.set_game_mode(p, "spectator")
    assert rt.ticking_columns() == []
