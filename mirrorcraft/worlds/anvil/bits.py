"""Packed long arrays as used by 1.16+ Anvil chunks (block states, biomes, heightmaps).

Since 1.16 (20w17a) an entry never spans two longs: each 64-bit word holds ``64 // bits`` entries, the
first entry in the least significant bits, and the unused high bits of a word are zero
(https://minecraft.wiki/w/Chunk_format, "block_states"/"Heightmaps"). NBT long arrays are signed, so the
words are produced as ``uint64`` and viewed as ``int64``.
"""

from __future__ import annotations

import numpy as np

from mirrorcraft.errors import WorldError


def ceil_log2(n: int) -> int:
    """Smallest ``b`` with ``2**b >= n`` (0 for ``n <= 1``), Mojang's ``Mth.ceillog2``."""
    return max(0, (n - 1).bit_length())


def block_state_bits(palette_size: int) -> int:
    """Bits per entry of a section's ``block_states.data`` on disk.

    Vanilla uses the linear/hash-map palettes for 1..8 bits with a floor of 4 bits, and above that the
    plain ``ceillog2`` of the palette size (the on-disk palette is always local, never the global one).

    Args:
        palette_size: Number of entries in the section palette (>= 2; size 1 stores no data).
    """
    return max(4, ceil_log2(palette_size))


def biome_bits(palette_size: int) -> int:
    """Bits per entry of a section's ``biomes.data`` on disk: ``ceillog2`` with no floor (1, 2, 3...)."""
    return ceil_log2(palette_size)


def longs_needed(count: int, bits: int) -> int:
    """Number of longs holding ``count`` entries of ``bits`` bits without spanning."""
    per = 64 // bits
    return -(-count // per)


def pack(values: np.ndarray, bits: int) -> np.ndarray:
    """Pack unsigned integers into a signed ``int64`` array (no entry spans two longs).

    Args:
        values: 1-D array of non-negative integers, each ``< 2**bits``.
        bits: Bits per entry, 1..32.

    Returns:
        The words as ``int64`` (the NBT long-array representation).
    """
    flat = np.asarray(values, dtype=np.uint64).ravel()
    if bits < 1 or bits > 32:
        raise ValueError(f"bits per entry must be 1..32, got {bits}")
    if flat.size and int(flat.max()) >= (1 << bits):
        raise ValueError(f"value {int(flat.max())} does not fit in {bits} bits")
    per = 64 // bits
    n_longs = longs_needed(flat.size, bits)
    padded = np.zeros(n_longs * per, dtype=np.uint64)
    padded[: flat.size] = flat
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(bits)).reshape(1, per)
    words = np.bitwise_or.reduce(padded.reshape(n_longs, per) << shifts, axis=1)
    return words.astype(np.uint64).view(np.int64)


def unpack(words: np.ndarray, bits: int, count: int, *, what: str = "packed array") -> np.ndarray:
    """Unpack ``count`` entries of ``bits`` bits from a long array (inverse of :func:`pack`).

    Args:
        words: The long array (any integer dtype; NBT gives big-endian ``int64``).
        bits: Bits per entry.
        count: Number of entries to read.
        what: Description of the array for error messages (file, chunk, field).

    Raises:
        WorldError: If the array is too short for ``count`` entries.
    """
    if bits < 1 or bits > 32:
        raise WorldError(f"{what}: invalid bits per entry {bits}")
    arr = np.asarray(words).astype(np.int64).view(np.uint64)
    need = longs_needed(count, bits)
    if arr.size < need:
        raise WorldError(f"{what}: {arr.size} longs, need {need} for {count} entries of {bits} bits")
    per = 64 // bits
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(bits)).reshape(1, per)
    mask = np.uint64((1 << bits) - 1)
    out = (arr[:need].reshape(need, 1) >> shifts) & mask
    return out.ravel()[:count].astype(np.int64)
