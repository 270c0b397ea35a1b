"""Benchmark: mirrorcraft.protocol.chunks vs prismarine-chunk 1.41.0 on the same vanilla chunk bytes.

Usage::

    python benchmarks/chunk_codec.py [--seconds 1.5] [--rounds 5] [--node-modules node_modules]

Inputs are the 10 vanilla map_chunk captures of minecraft-packets 1.9.0 (5 × 1.19.2, 5 × 1.19; 24 sections
each). "Decode" means every block state of all 24 sections is available as a dense array
(:func:`decode_column`, which also yields biomes and palettes). prismarine-chunk's equivalent is
``chunk.load(buffer)`` followed by ``getBlockStateId`` over all 98,304 positions; its bare ``load()`` rate
(lazy: nothing unpacked) is printed too. Both run in this one invocation on the same machine.
Results are recorded in docs/performance.md ("Chunk codec").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mirrorcraft.protocol import decode_column, decode_frame, encode_column
from mirrorcraft.protocol.chunks import MapChunk

REPO = Path(__file__).resolve().parent.parent


def load_columns(node_modules: Path) -> list[bytes]:
    """Chunk-data byte arrays of every captured map_chunk (1.19.2 and 1.19)."""
    out = []
    base = node_modules / "minecraft-packets" / "minecraft-packets" / "data" / "pc"
    for version, proto in (("1.19.2", 760), ("1.19", 759)):
        for raw in sorted((base / version / "from-server" / "map_chunk").glob("*.raw")):
            pkt = decode_frame(raw.read_bytes(), proto)
            assert isinstance(pkt, MapChunk)
            out.append(pkt.chunk_data)
    if not out:
        sys.exit(f"no map_chunk captures under {base}")
    return out


def rate(fn: Callable[[bytes], object], items: list, seconds: float) -> float:
    """Items per second of ``fn`` over ``items``, repeated for about ``seconds``."""
    for it in items:  # warm-up
        fn(it)
    n, t0 = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - t0) < seconds:
        for it in items:
            fn(it)
        n += len(items)
    return n / elapsed


def prismarine_rates(node_modules: Path, columns: list[bytes], seconds: float) -> dict[str, float]:
    """Run benchmarks/prismarine_chunk_bench.js on the same bytes."""
    node = shutil.which("node")
    if node is None:
        sys.exit("node is required for the prismarine-chunk comparison")
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, data in enumerate(columns):
            path = Path(tmp) / f"{i}.bin"
            path.write_bytes(data)
            files.append(str(path))
        payload = json.dumps({"version": "1.19.2", "files": files, "seconds": seconds})
        res = subprocess.run(
            [node, str(REPO / "benchmarks" / "prismarine_chunk_bench.js")],
            input=payload,
            capture_output=True,
            text=True,
            check=True,
            env={"NODE_PATH": str(node_modules), "PATH": "/usr/bin:/bin:/usr/local/bin"},
        )
    return json.loads(res.stdout)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print columns/s and ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.5, help="time per measurement and round")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (ours, then prismarine)")
    ap.add_argument("--node-modules", type=Path, default=REPO / "node_modules")
    args = ap.parse_args(argv)

    columns = load_columns(args.node_modules)
    decoded = [decode_column(c) for c in columns]
    # Sanity: the dense arrays are complete and the encoder is exact before anything is timed.
    assert all(d.blocks.shape == (384, 16, 16) for d in decoded)
    assert all(encode_column(d) == c for d, c in zip(decoded, columns, strict=True))

    # The machine may be shared: interleave the two implementations round by round and report the best
    # and the median round of each, so that a load spike hits both sides alike.
    results: dict[str, list[float]] = {"decode": [], "encode": [], "load_and_read_all": [], "load": []}
    for _ in range(args.rounds):
        results["decode"].append(rate(decode_column, columns, args.seconds))
        results["encode"].append(rate(encode_column, decoded, args.seconds))
        for key, value in prismarine_rates(args.node_modules, columns, args.seconds).items():
            results[key].append(value)

    node_version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, CPython {platform.python_version()}, "
        f"numpy {np.__version__}, node {node_version}"
    )
    print(
        f"inputs: {len(columns)} vanilla columns (24 sections, {sum(map(len, columns)) // len(columns)} B avg); "
        f"{args.rounds} interleaved rounds of {args.seconds:g} s"
    )
    print(f"{'codec':52s} {'best':>9s} {'median':>9s}  columns/s")
    names = {
        "decode": "mirrorcraft decode_column (dense blocks+biomes)",
        "encode": "mirrorcraft encode_column (vanilla-exact bytes)",
        "load_and_read_all": "prismarine-chunk load() + getBlockStateId x 98,304",
        "load": "prismarine-chunk load() only (lazy, nothing read)",
    }
    best = {k: max(v) for k, v in results.items()}
    med = {k: statistics.median(v) for k, v in results.items()}
    for key, name in names.items():
        print(f"{name:52s} {best[key]:9.1f} {med[key]:9.1f}")
    for label, table in (("best", best), ("median", med)):
        print(
            f"ratio decode / prismarine load+read-all ({label}): "
            f"{table['decode'] / table['load_and_read_all']:.2f}x (goal >= 3x); "
            f"vs bare load(): {table['decode'] / table['load']:.2f}x"
        )


if __name__ == "__main__":
    main()
