"""Team study grids: a preset name or a YAML file → :class:`~mirrorcraft.contracts.TeamGrid` → identities.

Like :mod:`mirrorcraft.study.grid` for MirrorCraft studies. A spec is the preset ``pillagerbench`` (the
original's shape, side-balanced, with the do-nothing baseline for S) or a YAML file holding
:class:`~mirrorcraft.contracts.TeamGrid` fields, optionally on top of the preset::

    preset: pillagerbench
    name: pb-tacticrafter
    systems:
      - id: tacticrafter
        model: {name: deepseek-v4-flash}
    arena_variants: [original, mirrored]   # add the mirrored arena (the arena's own asymmetry)
    opponents:
      mushroom_war: [balanced, aggressive] # a subset; strings are system ids

Only the data model and its expansion exist so far: no team episode runs yet (docs/pillagerbench.md lists
what waits for the farms/teams issue). The ids are checked for their form here; that each names a registered
team system is for the study layer once the team-system registry exists.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mirrorcraft.contracts import TeamEpisodeIdentity, TeamGrid
from mirrorcraft.errors import ContractError

__all__ = ["TEAM_PRESETS", "expand_team_grid", "load_team_grid", "team_grid_from_mapping"]

TEAM_PRESETS: dict[str, Callable[..., TeamGrid]] = {"pillagerbench": TeamGrid.pillagerbench}


def _message(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {str(e['msg']).removeprefix('Value error, ')}"
        for e in err.errors()
    )


def team_grid_from_mapping(data: Any, source: str = "team grid") -> TeamGrid:
    """A grid from a mapping of :class:`TeamGrid` fields, optionally with ``preset: <name>``.

    Raises:
        ContractError: unknown preset or invalid fields (the message names ``source`` and the field).
    """
    if not isinstance(data, dict):
        raise ContractError(f"{source}: expected a mapping of team grid fields, got {type(data).__name__}")
    data = dict(data)
    preset = data.pop("preset", None)
    if preset is not None:
        if preset not in TEAM_PRESETS:
            raise ContractError(
                f"{source}: preset {preset!r} unknown; expected one of {sorted(TEAM_PRESETS)}"
            )
        base = TEAM_PRESETS[preset]().model_dump(mode="json")
        if "scenarios" in data and "opponents" not in data:
            base.pop("opponents")  # the preset's opponents follow the scenarios given
        data = base | data
    try:
        return TeamGrid.model_validate(data)
    except ValidationError as err:
        raise ContractError(f"{source}: invalid team grid: {_message(err)}") from err


def load_team_grid(spec: str | Path, *, study_seed: int | None = None) -> TeamGrid:
    """Resolve a team grid spec: a preset name or a YAML/JSON file.

    Raises:
        ContractError: neither a preset nor a readable file, invalid YAML or invalid fields.
    """
    text = str(spec)
    if text in TEAM_PRESETS:
        grid = TEAM_PRESETS[text]()
    else:
        path = Path(text)
        if not path.is_file():
            raise ContractError(
                f"team grid {text!r}: not a preset ({', '.join(TEAM_PRESETS)}) and not a file"
            )
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            raise ContractError(f"{path}: cannot read the team grid ({err})") from err
        except yaml.YAMLError as err:
            raise ContractError(f"{path}: not valid YAML: {err}") from err
        grid = team_grid_from_mapping(data, str(path))
    if study_seed is not None:
        grid = team_grid_from_mapping(grid.model_dump(mode="json") | {"study_seed": study_seed}, text)
    return grid


def expand_team_grid(grid: TeamGrid) -> list[TeamEpisodeIdentity]:
    """The grid's identities in expansion order, checked to have distinct ids and whole blocks.

    Raises:
        ContractError: two identities share an id, or a block is not ``block_length`` consecutive episodes of
            one pairing, side, variant and repeat (cannot happen for a valid grid; the runner relies on it).
    """
    identities = grid.expand()
    seen: set[str] = set()
    for ident in identities:
        if ident.episode_id in seen:
            raise ContractError(f"team grid {grid.name}: duplicate episode id {ident.episode_id}")
        seen.add(ident.episode_id)
    for block in grid.blocks():
        if [i.block_index for i in block] != list(range(grid.block_length)) or len(
            {i.block_id for i in block}
        ) != 1:
            raise ContractError(
                f"team grid {grid.name}: a block is not {grid.block_length} consecutive episodes"
            )
    if len(identities) != grid.size():
        raise ContractError(
            f"team grid {grid.name}: expanded {len(identities)} episodes, size() says {grid.size()}"
        )
    return identities
