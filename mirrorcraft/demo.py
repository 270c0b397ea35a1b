"""Step 1 of the default job of ``python -m mirrorcraft.run`` (no command): the paired worlds' integrity.

Why this exists: the paper runs integrity and reachability controls before any evaluation. The default job does
the same before its paired evaluation (step 2, ``mirrorcraft.study.episode_cli.run_default_job``):

1. build the Vanilla world ``plains-1`` and its six Mirror copies (real Anvil saves + compiled rule packs);
2. check every pair: the Mirror copy differs from its Vanilla save only by its rule pack;
3. audit each rule pack statically and check that every task stays reachable under each suite.

Everything it writes goes under ``out_dir`` (default ``runs/demo``); it prints where.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

WORLD = "plains-1"
SUITES = ("M01", "M02", "M03", "M04", "M05", "M06")
#: Radius of the demo's worlds: smaller than a study's (256) so the demo finishes in a few minutes.
DEMO_RADIUS = 96


def run_demo(out_dir: Path, radius_blocks: int = DEMO_RADIUS) -> int:
    """Run the default job; returns a process exit code (0 when every check passed)."""
    from mirrorcraft.contracts import load_suite
    from mirrorcraft.datapacks.audit import audit_pack
    from mirrorcraft.datapacks.graph import analyse_suite
    from mirrorcraft.worlds.catalogue import build_world, world_path
    from mirrorcraft.worlds.check import check_pair, check_world

    console = Console()
    console.print(
        "[bold]MirrorCraft default job, step 1/2[/bold]: paired worlds, rule packs, integrity and reachability checks"
    )
    out_dir = Path(out_dir)
    worlds_dir = out_dir / "worlds"
    summary: dict[str, object] = {"world": WORLD, "radius_blocks": radius_blocks, "suites": {}}
    failures = 0

    t0 = time.perf_counter()
    rec = build_world(WORLD, worlds_dir, radius_blocks)
    vanilla = world_path(worlds_dir, WORLD)
    console.print(
        f"built {WORLD} ({'new' if rec.built else 'cached'}) in {time.perf_counter() - t0:.1f}s: {vanilla}"
    )
    wc = check_world(vanilla)
    summary["world_check"] = wc.model_dump()
    console.print(f"world check: spawn {wc.spawn} safe={wc.spawn_safe}; problems: {wc.problems or 'none'}")
    failures += bool(wc.problems)

    table = Table(title=f"{WORLD}: Mirror copies")
    for col in ("suite", "pair identical except pack", "pack audit", "all tasks reachable", "rules"):
        table.add_column(col)
    for suite in SUITES:
        name = f"{WORLD}/{suite}"
        build_world(name, worlds_dir, radius_blocks)
        mirror = world_path(worlds_dir, name)
        pair = check_pair(vanilla, mirror, suite)
        audit = audit_pack(mirror / "datapacks" / "mirrorcraft_rules.zip")
        analysis = analyse_suite(load_suite(suite))
        ok = pair.ok and audit.ok and analysis.accepted
        failures += not ok
        table.add_row(
            suite,
            "yes" if pair.ok else f"NO: {pair.problems}",
            "ok" if audit.ok else f"{len(audit.errors)} errors",
            "yes" if analysis.accepted else f"NO: {analysis.problems}",
            str(len(analysis.rules)),
        )
        summary["suites"][suite] = {  # type: ignore[index]
            "pair_ok": pair.ok,
            "audit_ok": audit.ok,
            "accepted": analysis.accepted,
            "rules": [r.rule_id for r in analysis.rules],
        }
    console.print(table)

    out_dir.mkdir(parents=True, exist_ok=True)
    summary_path = out_dir / "summary.json"
    summary_path.write_text(json.dumps(summary, indent=2, sort_keys=True, default=str) + "\n")
    console.print(f"worlds: {worlds_dir}\nsummary: {summary_path}")
    console.print(
        "[green]all checks passed[/green]" if not failures else f"[red]{failures} check(s) failed[/red]"
    )
    return 0 if not failures else 1
