"""The default job's short side-balanced team demo, run by the team study runner.

:func:`run_team_demo` plays :func:`demo_grid` — Mushroom War, ``random`` tested against the scripted
``aggressive`` opponent from both sides, plus the ``do_nothing`` baseline that measures the opponent's normal
score (S); 20 game seconds per episode at 200 ticks/s; no API key — through
:func:`~mirrorcraft.study.team_study.run_team_study` in the driver process (the same runner as ``teams
study``, so the demo's folder is a team study folder: rerunning the default job into it continues it, and
``report`` reads it), then writes the team report (:func:`~mirrorcraft.metrics.team_report.team_report`).
In process because the four one-episode blocks are shorter than starting two spawned workers.
"""

from __future__ import annotations

from pathlib import Path

from mirrorcraft.contracts.teams import TEAM_STUDY_MANIFEST, TeamEpisodeRecord, TeamGrid, TeamSystem

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


def run_team_demo(out: Path, *, tick_rate: float = DEMO_TICK_RATE) -> int:
    """The default job's team demo: play :func:`demo_grid` with the team study runner, print each episode and
    P/D per side, write the team report; returns 0 (1 when an episode ended in an infrastructure fault)."""
    from mirrorcraft.metrics.team_report import team_report
    from mirrorcraft.metrics.team_results import load_team_run
    from mirrorcraft.study.team_study import TeamRunSettings, run_team_study

    grid = demo_grid()
    print(f"PillagerBench demo: Mushroom War, random vs aggressive from both sides + the do_nothing baseline "
          f"({grid.size()} episodes of {grid.game_seconds} game s, {tick_rate:g} t/s) → {out}")  # fmt: skip
    old = out / "results.jsonl"
    if old.exists() and not (out / TEAM_STUDY_MANIFEST).exists():  # a demo folder from before team studies
        old.rename(out / "results.before-team-study.jsonl")
        print(
            f"(an older demo's {old.name} without a manifest was moved aside: results.before-team-study.jsonl)"
        )
    summary = run_team_study(out, grid, TeamRunSettings(arenas=out / "worlds", tick_rate=tick_rate), log=None)
    records: list[TeamEpisodeRecord] = load_team_run(out)[0]
    order = {i.episode_id: k for k, i in enumerate(grid.expand())}
    records.sort(key=lambda r: order.get(r.episode_id, len(order)))
    print(f"{'tested':<11}{'side':<6}{'P':>5}{'opponent':>10}{'D':>6}")
    for r in records:
        if r.is_fault:
            print(f"{r.identity.tested.id:<11}{r.identity.tested_side:<6}  infrastructure fault")
            continue
        own, other = r.tested_score, r.opponent_score
        print(f"{r.identity.tested.id:<11}{r.identity.tested_side:<6}{own:>5g}{other:>10g}{own - other:>+6g}")
    paths = team_report(out, n_boot=200, title="Default job: team demo")
    print(
        f"team records: {out / 'results.jsonl'}; tables: {paths[0]} (python -m mirrorcraft.run report {out})"
    )
    return 1 if summary.final_faults else 0
