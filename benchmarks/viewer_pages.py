"""Benchmark: what the viewer adds — the map snapshot at its largest area, and ``report`` with and without pages.

Usage::

    python benchmarks/viewer_pages.py [--out /tmp/viewer-bench]

1. builds the catalogue world ``plains-1`` with radius 96 under ``OUT/worlds`` (once) and reads the largest map
   snapshot (192 × 192 columns, 144 chunks) from its save with the Anvil reader: seconds, JSON size, and the
   map image (colours + shading + PNG data URI);
2. runs a synthetic study (360 records from ``tests/support/study_episode_fn.py``: no game, so the page count
   and sizes are those of a study of that shape without map snapshots) and times ``report`` with
   ``pages=False`` and ``pages=True``: seconds, files, bytes of HTML.

Results are recorded in docs/viewer.md.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def snapshot(out: Path) -> None:
    from mirrorcraft.metrics.pages.colours import map_image, png_data_uri
    from mirrorcraft.worlds.catalogue import build_world, world_path
    from mirrorcraft.worlds.map_snapshot import snapshot_from_save

    if not (world_path(out, "plains-1") / "level.dat").exists():
        build_world("plains-1", out, 96)
    world = world_path(out, "plains-1")
    snapshot_from_save(world, (-96, -96, 192, 192))  # warm: imports, file cache
    t = time.perf_counter()
    snap = snapshot_from_save(world, (-96, -96, 192, 192))
    dt = time.perf_counter() - t
    png_data_uri(map_image(snap))
    t = time.perf_counter()
    uri = png_data_uri(map_image(snap))
    di = time.perf_counter() - t
    print(
        f"snapshot 192x192: {dt:.2f} s, {len(snap.model_dump_json()) / 1024:.0f} KiB JSON, "
        f"{len(snap.palette)} palette entries; map image {di:.3f} s, {len(uri) / 1024:.0f} KiB data URI"
    )


def report_pages(run: Path) -> None:
    from support.study_episode_fn import synthetic_episode

    from mirrorcraft.contracts import ModelSettings, StudyGrid
    from mirrorcraft.metrics.reporting import report
    from mirrorcraft.study import run_study

    shutil.rmtree(run, ignore_errors=True)
    grid = StudyGrid(
        name="bench",
        worlds=["plains-1", "jungle-2", "taiga-1"],
        tasks=["iron_armor", "diamond"],
        models=[ModelSettings(name="m")],
        configurations=["direct_llm", "react"],
        repetitions=3,
    )
    run_study(run, grid, synthetic_episode, progress=False)
    for pages in (False, True):
        t = time.perf_counter()
        paths = report(run, n_boot=200, plots=True, pages=pages)
        dt = time.perf_counter() - t
        html = sum(p.stat().st_size for p in paths if p.suffix == ".html")
        print(
            f"report, {grid.size()} episodes, pages={pages}: {dt:.2f} s, {len(paths)} files, {html / 1024:.0f} KiB HTML"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", default="/tmp/viewer-bench", help="scratch folder (worlds, the synthetic run)"
    )
    args = parser.parse_args()
    out = Path(args.out)
    snapshot(out / "worlds")
    report_pages(out / "run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
