"""Canonical JSON: the one byte encoding used for hashing identities and serializing observations.

Identical values must give identical bytes across processes, platforms and Python hash seeds, so:
keys sorted, compact separators ``(",", ":")``, UTF-8 without ASCII escaping, no NaN/Infinity, and floats
normalised (``-0.0`` → ``0.0``; callers round floats to a fixed number of decimals first).
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from mirrorcraft.errors import ContractError


def normalize_floats(value: Any, path: str = "$") -> Any:
    """Return ``value`` with every float checked finite and ``-0.0`` replaced by ``0.0``.

    Raises:
        ContractError: a float is NaN or infinite (the message gives its JSON path).
    """
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ContractError(f"{path}: non-finite float {value!r} cannot be serialized")
        return 0.0 if value == 0.0 else value
    if isinstance(value, dict):
        return {k: normalize_floats(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalize_floats(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def canonical_json(value: Any) -> bytes:
    """Encode a JSON-compatible value canonically (sorted keys, compact, UTF-8).

    Args:
        value: dicts, lists, str, int, float, bool, None (e.g. ``model.model_dump(mode="json")``).

    Returns:
        The canonical bytes.
    """
    return json.dumps(
        normalize_floats(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_hex(data: bytes | str) -> str:
    """Hex SHA-256 of bytes or of a UTF-8 string."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()
