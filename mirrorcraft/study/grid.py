"""Study grids: a preset name or a YAML file → :class:`StudyGrid` → the list of episode identities.

A grid spec is either a preset (``main``: the paper's 8,640 episodes; ``smoke``: 3 episodes; ``horizon``:
the main shape with a 200-action cap) or a YAML file. The YAML file holds the fields of
:class:`~mirrorcraft.contracts.StudyGrid`, optionally on top of a preset::

    preset: main          # optional: start from a preset, then override fields
    name: main-seed3
    study_seed: 3
    repetitions: 1

Expansion order and the episode ids are the contract's (``StudyGrid.expand``; ids are SHA-256 of the
identity's canonical JSON), so the same spec gives the same ids in every process. The run folder keeps
the resolved grid as ``grid.json``; a resume must use the same grid (:func:`check_same_grid`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mirrorcraft.contracts import EpisodeIdentity, StudyGrid
from mirrorcraft.errors import ContractError

PRESETS: dict[str, Callable[..., StudyGrid]] = {
    "main": StudyGrid.main,
    "smoke": StudyGrid.smoke,
    "horizon": StudyGrid.horizon,
}
GRID_FILE = "grid.json"


def _validation_message(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {str(e['msg']).removeprefix('Value error, ')}"
        for e in err.errors()
    )


def grid_from_mapping(data: dict[str, Any], source: str = "grid") -> StudyGrid:
    """Build a grid from a mapping of :class:`StudyGrid` fields, optionally with ``preset: <name>``.

    Raises:
        ContractError: unknown preset or invalid fields (the message names ``source`` and the field).
    """
    if not isinstance(data, dict):
        raise ContractError(f"{source}: expected a mapping of grid fields, got {type(data).__name__}")
    data = dict(data)
    preset = data.pop("preset", None)
    if preset is not None:
        if preset not in PRESETS:
            raise ContractError(f"{source}: preset {preset!r} unknown; expected one of {sorted(PRESETS)}")
        data = PRESETS[preset]().model_dump(mode="json") | data
    try:
        return StudyGrid.model_validate(data)
    except ValidationError as err:
        raise ContractError(f"{source}: invalid study grid: {_validation_message(err)}") from err


def load_grid(spec: str | Path, *, study_seed: int | None = None) -> StudyGrid:
    """Resolve a grid spec: a preset name (``main``, ``smoke``, ``horizon``) or a YAML/JSON file.

    Args:
        spec: preset name or path.
        study_seed: override the grid's study seed.

    Returns:
        The validated grid.

    Raises:
        ContractError: neither a preset nor a readable file, invalid YAML or invalid fields.
    """
    text = str(spec)
    if text in PRESETS:
        grid = PRESETS[text]()
    else:
        path = Path(text)
        if not path.is_file():
            raise ContractError(f"grid {text!r}: not a preset ({', '.join(PRESETS)}) and not a file")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as err:
            raise ContractError(f"{path}: not valid YAML: {err}") from err
        grid = grid_from_mapping(data, str(path))
    if study_seed is not None:
        grid = StudyGrid.model_validate(grid.model_dump() | {"study_seed": study_seed})
    return grid


def expand_grid(grid: StudyGrid) -> list[EpisodeIdentity]:
    """The grid's identities in expansion order, checked to have distinct episode ids.

    Raises:
        ContractError: two identities share an id (cannot happen for a valid grid; checked anyway since
            the store relies on it).
    """
    identities = grid.expand()
    seen: dict[str, EpisodeIdentity] = {}
    for ident in identities:
        other = seen.setdefault(ident.episode_id, ident)
        if other is not ident:
            raise ContractError(f"grid {grid.name}: duplicate episode id {ident.episode_id}")
    if len(identities) != grid.size():
        raise ContractError(
            f"grid {grid.name}: expanded {len(identities)} episodes, size() says {grid.size()}"
        )
    return identities


def write_grid(run_dir: Path, grid: StudyGrid) -> Path:
    """Store the resolved grid in the run folder (``grid.json``)."""
    path = run_dir / GRID_FILE
    path.write_text(
        json.dumps(grid.model_dump(mode="json"), indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return path


def read_grid(run_dir: Path) -> StudyGrid | None:
    """The grid stored in a run folder, or None when there is none.

    Raises:
        ContractError: ``grid.json`` exists but is invalid.
    """
    path = run_dir / GRID_FILE
    if not path.exists():
        return None
    try:
        return grid_from_mapping(json.loads(path.read_text(encoding="utf-8")), str(path))
    except json.JSONDecodeError as err:
        raise ContractError(f"{path}: not valid JSON (line {err.lineno}): {err.msg}") from err


def check_same_grid(run_dir: Path, grid: StudyGrid) -> None:
    """Refuse to resume a run folder with another grid than the one it was started with.

    Raises:
        ContractError: the stored grid differs (the message names the differing fields).
    """
    stored = read_grid(run_dir)
    if stored is None or stored == grid:
        return
    a, b = stored.model_dump(mode="json"), grid.model_dump(mode="json")
    diff = sorted(k for k in a if a[k] != b.get(k))
    raise ContractError(
        f"{run_dir / GRID_FILE}: the run was started with another grid (fields differ: {', '.join(diff)}); "
        "use a new run folder or the same grid spec"
    )
