"""Benchmark the biome world generator: time and disk size of one Vanilla world, projected to the catalogue.

Usage::

    python benchmarks/worldgen.py                 # one Plains world at the default radius (256), + measure
    python benchmarks/worldgen.py --biome jungle  # the slowest biome (most trees)
    python benchmarks/worldgen.py --all           # really build all 10 Vanilla worlds (2 seeds x 5 biomes)
    python benchmarks/worldgen.py --radius 128 --keep /tmp/worlds

The 10 Vanilla worlds are independent, so the catalogue projection is ``10 x one world / cores`` when they
are built in a process pool; the script prints both the serial and the 2-core projection. Seeds here are
sha256-derived from the biome name and index; the real catalogue's seeds belong to the catalogue module.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mirrorcraft.datapacks.biome import BIOME_NAMES, load_biome_spec
from mirrorcraft.worlds.generate import DEFAULT_RADIUS_BLOCKS, generate_world
from mirrorcraft.worlds.measure import measure_save


def _seed(biome: str, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"benchmark_{biome}_{index}".encode()).digest()[:8], "little") >> 1


def _build(biome: str, index: int, radius: int, out: Path, measure: bool) -> tuple[float, int, float]:
    spec = load_biome_spec(biome)
    seed = _seed(biome, index)
    t0 = time.perf_counter()
    report = generate_world(spec, seed, out / f"{biome}-{index}", radius_blocks=radius)
    built = time.perf_counter() - t0
    stages = ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.items())
    print(
        f"{biome}-{index} seed {seed}: {built:.1f} s, {report.bytes_on_disk / 1e6:.1f} MB, {report.chunks} chunks"
    )
    print(f"  stages: {stages}")
    measured = 0.0
    if measure:
        t1 = time.perf_counter()
        m = measure_save(report.path)
        measured = time.perf_counter() - t1
        print(
            f"  measured in {measured:.1f} s: trees/chunk {m.trees_per_chunk:.2f}, sugar cane {m.sugar_cane_columns}"
            f" (beside water {m.sugar_cane_beside_water}), cows {m.cows}, relief std {m.relief_std:.2f}"
            f" range {m.relief_range}, snow {m.snow_coverage:.2f}, spawn {m.spawn.spawn if m.spawn else None}"
            f" safe={m.spawn.safe if m.spawn else None}"
        )
        print(f"  ore blocks: {m.ore_blocks}")
    return built, report.bytes_on_disk, measured


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the results."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--biome", default="plains", choices=BIOME_NAMES)
    ap.add_argument("--radius", type=int, default=DEFAULT_RADIUS_BLOCKS)
    ap.add_argument("--all", action="store_true", help="build all 10 Vanilla worlds instead of projecting")
    ap.add_argument("--no-measure", action="store_true", help="skip reading the save back and measuring it")
    ap.add_argument("--keep", type=Path, help="write the worlds here and keep them (default: a temp dir)")
    args = ap.parse_args(argv)

    out = args.keep or Path(tempfile.mkdtemp(prefix="mirrorcraft-worldgen-"))
    out.mkdir(parents=True, exist_ok=True)
    try:
        jobs = [(b, i) for b in BIOME_NAMES for i in (1, 2)] if args.all else [(args.biome, 1)]
        results = [_build(b, i, args.radius, out, not args.no_measure) for b, i in jobs]
        build_s = [r[0] for r in results]
        sizes = [r[1] for r in results]
        print()
        if args.all:
            print(
                f"catalogue of {len(jobs)} worlds: {sum(build_s):.1f} s serial, {sum(sizes) / 1e6:.1f} MB on disk"
            )
        else:
            one, size = build_s[0], sizes[0]
            print(f"one world: {one:.1f} s, {size / 1e6:.1f} MB")
            print(
                f"projected catalogue (10 Vanilla worlds): {10 * one:.0f} s serial, {5 * one:.0f} s on 2 cores,"
                f" {10 * size / 1e6:.0f} MB (+ 60 Mirror copies: {70 * size / 1e6:.0f} MB in all)"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
