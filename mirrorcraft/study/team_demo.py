"""Team episodes of a grid, one after another, and the default job's short side-balanced team demo.

:func:`run_team_grid` plays a :class:`~mirrorcraft.contracts.TeamGrid`'s episodes in their expansion order
(a block's episodes are consecutive): a block's two system objects are made at its first episode and kept
across its episodes (the original's multi-round learning), each record is appended to
``OUT/results.jsonl`` as one line, and the team tables of :mod:`mirrorcraft.metrics.teams` are written to
``OUT/report/``. **Partial**: this is not yet the resumable team study of issue 25 (no kill-safe store with
fault retries, no resume, no pool or Ray, no checkpoints of system state); it is what the default job's
demo needs, and what a team study will run per block.

The default job's demo (:func:`run_team_demo`): Mushroom War, ``random`` tested against the scripted
``aggressive`` opponent from both sides, plus the ``do_nothing`` baseline that measures the opponent's normal
score (S); 20 game seconds per episode at 200 ticks/s; no API key.
"""

from __future__ import annotations

from pathlib import Path

from mirrorcraft.agents.teams import TeamPolicy, make_team_policy
from mirrorcraft.contracts.teams import SIDES, TeamEpisodeRecord, TeamGrid, TeamSystem
from mirrorcraft.study.team_episode import play_team_episode
from mirrorcraft.worlds.arenas.build import arena_id, build_arena

DEMO_SECONDS = 20
DEMO_TICK_RATE = 200.0


def demo_grid() -> TeamGrid:
    """The default job's team grid: 4 episodes (random and do_nothing tested against aggressive, each from
    both sides)."""
    return TeamGrid(
        name="default-job-teams", scenarios=["mushroom_war"], systems=[TeamSystem(id="random")],
        opponents={"mushroom_war": [TeamSystem(id="aggressive")]}, repeats=1, block_length=1,
        game_seconds=DEMO_SECONDS,
    )  # fmt: skip


def run_team_grid(grid: TeamGrid, out: Path, *, tick_rate: float = 20.0) -> list[TeamEpisodeRecord]:
    """Play every episode of ``grid`` in order (module docstring); returns the records."""
    out.mkdir(parents=True, exist_ok=True)
    worlds = out / "worlds"
    identities = grid.expand()
    for ident in sorted({arena_id(i.scenario, i.arena_variant) for i in identities}):
        build_arena(ident, worlds)
    records: list[TeamEpisodeRecord] = []
    policies: dict[str, TeamPolicy] = {}
    with (out / "results.jsonl").open("a", encoding="utf-8") as results:
        for identity in identities:
            if identity.block_index == 0:  # a new block: fresh system objects, kept across its episodes
                policies = {side: make_team_policy(identity.system_of(side)) for side in SIDES}
            record = play_team_episode(identity, policies, arenas=worlds, tick_rate=tick_rate)
            results.write(record.model_dump_json() + "\n")
            results.flush()
            records.append(record)
    return records


def run_team_demo(out: Path, *, tick_rate: float = DEMO_TICK_RATE) -> int:
    """The default job's team demo: play :func:`demo_grid`, print each episode and P/D per side, write the
    team tables; returns 0."""
    from mirrorcraft.metrics.teams import team_tables, write_team_tables

    grid = demo_grid()
    print(f"PillagerBench demo: Mushroom War, random vs aggressive from both sides + the do_nothing baseline "
          f"({len(grid.expand())} episodes of {grid.game_seconds} game s, {tick_rate:g} t/s) → {out}")  # fmt: skip
    records = run_team_grid(grid, out, tick_rate=tick_rate)
    print(f"{'tested':<11}{'side':<6}{'P':>5}{'opponent':>10}{'D':>6}")
    for r in records:
        own = getattr(r.outcome, r.identity.tested_side)
        other = getattr(r.outcome, r.identity.opponent_side)
        print(f"{r.identity.tested.id:<11}{r.identity.tested_side:<6}{own:>5g}{other:>10g}{own - other:>+6g}")
    paths = write_team_tables(
        team_tables(records, n_boot=200), out / "report", title="Default job: team demo"
    )
    print(f"team records: {out / 'results.jsonl'}; tables: {paths[0]}")
    return 0
