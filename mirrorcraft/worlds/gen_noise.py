"""Seeded, vectorised 2D gradient (Perlin-style) noise and the generator's random streams.

Role: the only source of randomness for :mod:`mirrorcraft.worlds.generate`. Why our own noise rather than a
PyPI package: the common ones (``noise``, ``opensimplex``) evaluate point by point or are unmaintained C
extensions; a 30-line numpy implementation evaluates a 512x512 field of five octaves in milliseconds, and
because the lattice gradients come from an integer hash of (lattice x, lattice z, seed, field) rather than a
permutation table, the value at a block position depends only on the seed — never on how large an area is
generated or in which order.

Random streams: every stage draws from its own ``numpy.random.Generator`` (PCG64) keyed by
sha256(seed, stage name), so adding draws in one stage does not shift any other stage.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

__all__ = ["octave_noise_2d", "perlin_2d", "stage_rng", "stage_seed"]

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xBF58476D1CE4E5B9)
_M3 = np.uint64(0x94D049BB133111EB)


def stage_seed(seed: int, stage: str) -> int:
    """A 64-bit seed for one generation stage: sha256 of ``"{seed}_{stage}"`` (android_world style)."""
    digest = hashlib.sha256(f"{seed}_{stage}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def stage_rng(seed: int, stage: str) -> np.random.Generator:
    """An independent PCG64 generator for ``stage`` of a world with ``seed``."""
    return np.random.Generator(np.random.PCG64(stage_seed(seed, stage)))


def _hash2(ix: np.ndarray, iz: np.ndarray, key: np.uint64) -> np.ndarray:
    """splitmix64-style hash of integer lattice coordinates (uint64 arithmetic wraps by design)."""
    h = ix.astype(np.uint64) * _M1 ^ (iz.astype(np.uint64) + key) * _M2
    h ^= h >> np.uint64(31)
    h *= _M3
    h ^= h >> np.uint64(29)
    return h


def perlin_2d(x: np.ndarray, z: np.ndarray, key: int) -> np.ndarray:
    """Classic 2D gradient noise at (broadcastable) float coordinates; result roughly in [-1, 1].

    Gradients are 16 unit vectors picked by the lattice hash; the quintic fade makes the field C2.
    """
    k = np.uint64(key & 0xFFFFFFFFFFFFFFFF)
    x0 = np.floor(x)
    z0 = np.floor(z)
    fx = x - x0
    fz = z - z0
    ix = x0.astype(np.int64)
    iz = z0.astype(np.int64)
    angles = np.arange(16) * (2 * np.pi / 16)
    gx_tab = np.cos(angles)
    gz_tab = np.sin(angles)

    def corner(dx: int, dz: int) -> np.ndarray:
        h = (_hash2(ix + dx, iz + dz, k) >> np.uint64(60)).astype(np.intp)
        return gx_tab[h] * (fx - dx) + gz_tab[h] * (fz - dz)

    def fade(t: np.ndarray) -> np.ndarray:
        return t * t * t * (t * (t * 6 - 15) + 10)

    u = fade(fx)
    v = fade(fz)
    n00, n10, n01, n11 = corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1)
    nx0 = n00 + u * (n10 - n00)
    nx1 = n01 + u * (n11 - n01)
    # Max of 2D Perlin with unit gradients is sqrt(2)/2; scale to ~[-1, 1].
    return (nx0 + v * (nx1 - nx0)) * np.sqrt(2.0)


def octave_noise_2d(
    xs: np.ndarray,
    zs: np.ndarray,
    seed: int,
    name: str,
    first_octave: int,
    amplitudes: Sequence[float],
    gain: float = 1.0,
) -> np.ndarray:
    """Octave noise on the grid ``xs`` (columns) x ``zs`` (rows), indexed ``[z, x]``.

    Octave ``i`` has frequency ``2**(first_octave + i)`` per block and weight ``amplitudes[i]``, as in
    vanilla's ``NormalNoise`` parameters. The weighted sum is divided by the sum of the amplitudes and
    multiplied by ``gain``, so the result keeps the scale of one octave (std about 0.35 for ``gain=1``).

    Args:
        xs: 1-D block x coordinates.
        zs: 1-D block z coordinates.
        seed: the world seed.
        name: the field's name (each field gets its own lattice hash key).
        first_octave: log2 of the lowest frequency.
        amplitudes: per-octave weights (zeros skip the octave).
        gain: a final multiplier.

    Returns:
        float64 array of shape ``(len(zs), len(xs))``.
    """
    x = np.asarray(xs, dtype=np.float64)[None, :] + 0.5
    z = np.asarray(zs, dtype=np.float64)[:, None] + 0.5
    total = np.zeros((z.shape[0], x.shape[1]))
    norm = 0.0
    for i, amp in enumerate(amplitudes):
        if amp == 0:
            continue
        freq = 2.0 ** (first_octave + i)
        key = stage_seed(seed, f"noise_{name}_{i}")
        total += amp * perlin_2d(x * freq, z * freq, key)
        norm += amp
    if norm == 0:
        return total
    return total * (gain / norm)
