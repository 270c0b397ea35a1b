"""Study grids: a preset name or a YAML file → :class:`StudyGrid` → the list of episode identities.

A grid spec is either a preset (``main``: the paper's 8,640 episodes; ``smoke``: 3 episodes; ``horizon``:
the main shape with a 200-action cap) or a YAML file. The YAML file holds the fields of
:class:`~mirrorcraft.contracts.StudyGrid`, optionally on top of a preset::

    preset: main          # optional: start from a preset, then override fields
    name: main-seed3
    study_seed: 3
    repetitions: 1

A model entry may carry, besides its identity fields (``name``, ``temperature``, ``max_output_tokens``,
``reasoning``), how to reach it — the :class:`~mirrorcraft.agents.llm.LLMRuntime` fields ``api_base``,
``api_key_env``, ``timeout_s``, ``max_retries``, ``max_cost_usd``, ``input_cost_per_token`` and
``output_cost_per_token``::

    models:
      - name: openai/qwen2.5-7b-instruct
        temperature: 0.7
        api_base: http://127.0.0.1:8000/v1
        timeout_s: 30
        max_retries: 1
        max_cost_usd: 0.0           # a cap needs prices: a local model is free
        input_cost_per_token: 0
        output_cost_per_token: 0

These are not part of the episode identity (the same model gives the same episode ids wherever it is
served): :func:`load_study` returns them beside the grid, and ``grid.json`` keeps only the grid.

Expansion order and the episode ids are the contract's (``StudyGrid.expand``; ids are SHA-256 of the
identity's canonical JSON), so the same spec gives the same ids in every process. The run folder keeps
the resolved grid as ``grid.json``; a resume must use the same grid (:func:`check_same_grid`).

:func:`validate_grid` checks what the contract cannot (that every world is a catalogue world, every
configuration an agent the registry builds, every disclosed configuration one that can be disclosed)
before a study spends anything: a grid with an unknown id is refused at once, naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mirrorcraft.agents.llm import LLMRuntime
from mirrorcraft.contracts import VANILLA_WORLDS, EpisodeIdentity, StudyGrid
from mirrorcraft.errors import ContractError

PRESETS: dict[str, Callable[..., StudyGrid]] = {
    "main": StudyGrid.main,
    "smoke": StudyGrid.smoke,
    "horizon": StudyGrid.horizon,
}
GRID_FILE = "grid.json"
#: The run folder's settings manifest: how its episodes are played, beside what they are (``grid.json``).
RUN_SETTINGS_FILE = "run_settings.json"
#: What a run folder started before the manifest existed was played with (the runner's defaults then).
LEGACY_RUN_SETTINGS: dict[str, Any] = {"clock": "free"}
#: Model-entry keys that say how to reach a model (not part of the identity).
RUNTIME_KEYS = frozenset(LLMRuntime.model_fields)
#: The offline policy's model name (the runner plays it whatever the configuration says).
SCRIPTED = "scripted"


class GridError(ContractError):
    """A grid names something that does not exist (a usage error: exit code 2 at the CLI)."""


def _validation_message(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {str(e['msg']).removeprefix('Value error, ')}"
        for e in err.errors()
    )


def split_runtime(data: dict[str, Any], source: str = "grid") -> tuple[dict[str, Any], dict[str, LLMRuntime]]:
    """Take the :data:`RUNTIME_KEYS` out of each model entry: ``(grid fields, model name → runtime)``.

    Raises:
        ContractError: a runtime field is invalid (the message names the model entry and the field).
    """
    models = data.get("models")
    if not isinstance(models, list):
        return data, {}
    out_models, runtimes = [], {}
    for k, entry in enumerate(models):
        if not isinstance(entry, dict):
            out_models.append(entry)
            continue
        runtime = {key: entry[key] for key in entry if key in RUNTIME_KEYS}
        out_models.append({key: v for key, v in entry.items() if key not in RUNTIME_KEYS})
        if runtime:
            try:
                runtimes[str(entry.get("name"))] = LLMRuntime.model_validate(runtime)
            except ValidationError as err:
                msg = _validation_message(err)
                raise ContractError(f"{source}: models.{k} ({entry.get('name')}): {msg}") from err
    return {**data, "models": out_models}, runtimes


def grid_from_mapping(data: dict[str, Any], source: str = "grid") -> StudyGrid:
    """Build a grid from a mapping of :class:`StudyGrid` fields, optionally with ``preset: <name>``.

    Raises:
        ContractError: unknown preset or invalid fields (the message names ``source`` and the field).
    """
    return study_from_mapping(data, source)[0]


def study_from_mapping(data: dict[str, Any], source: str = "grid") -> tuple[StudyGrid, dict[str, LLMRuntime]]:
    """:func:`grid_from_mapping` and the models' runtime fields (:func:`split_runtime`).

    Raises:
        ContractError: unknown preset or invalid fields (the message names ``source`` and the field).
    """
    if not isinstance(data, dict):
        raise ContractError(f"{source}: expected a mapping of grid fields, got {type(data).__name__}")
    data, runtimes = split_runtime(dict(data), source)
    preset = data.pop("preset", None)
    if preset is not None:
        if preset not in PRESETS:
            raise ContractError(f"{source}: preset {preset!r} unknown; expected one of {sorted(PRESETS)}")
        data = PRESETS[preset]().model_dump(mode="json") | data
    try:
        return StudyGrid.model_validate(data), runtimes
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
    return load_study(spec, study_seed=study_seed)[0]


def load_study(spec: str | Path, *, study_seed: int | None = None) -> tuple[StudyGrid, dict[str, LLMRuntime]]:
    """:func:`load_grid` plus the runtime fields of its model entries (model name → :class:`LLMRuntime`).

    Raises:
        ContractError: neither a preset nor a readable file, invalid YAML or invalid fields.
    """
    text = str(spec)
    runtimes: dict[str, LLMRuntime] = {}
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
        grid, runtimes = study_from_mapping(data, str(path))
    if study_seed is not None:
        grid = StudyGrid.model_validate(grid.model_dump() | {"study_seed": study_seed})
    unknown = sorted(set(runtimes) - {m.name for m in grid.models})
    if unknown:
        raise ContractError(f"{text}: runtime fields for models not in the grid: {unknown}")
    return grid, runtimes


def configuration_ids() -> list[str]:
    """The configurations a grid may name: the agent registry's ids (``react-rules`` is a disclosure)."""
    from mirrorcraft.agents import AGENTS

    return [n for n in AGENTS.ids() if n != "react-rules"]


def validate_grid(grid: StudyGrid) -> None:
    """Check the grid's ids against what exists, before anything runs (module docstring).

    Raises:
        GridError: the first problem, naming the field and the known values.
    """
    from mirrorcraft.agents import configuration_for
    from mirrorcraft.errors import MirrorCraftError

    for w in grid.worlds:
        if w not in VANILLA_WORLDS:
            raise GridError(
                f"grid {grid.name}: worlds: {w!r} is not a catalogue world; expected one of "
                f"{', '.join(VANILLA_WORLDS)}"
            )
    known = configuration_ids()
    for field in ("configurations", "disclosed_configurations"):
        for c in getattr(grid, field):
            if c not in known:
                raise GridError(
                    f"grid {grid.name}: {field}: unknown configuration {c!r}; expected one of {', '.join(known)}"
                )
    for c in grid.disclosed_configurations:
        if c not in grid.configurations:
            raise GridError(f"grid {grid.name}: disclosed_configurations: {c!r} is not in configurations")
        try:
            configuration_for(c, "disclosed")
        except MirrorCraftError as err:
            raise GridError(f"grid {grid.name}: disclosed_configurations: {err}") from err


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


def read_run_settings(run_dir: Path) -> dict[str, Any] | None:
    """The run settings stored in a run folder (``run_settings.json``), or None when there are none.

    Raises:
        ContractError: the file exists but is not a JSON object.
    """
    path = run_dir / RUN_SETTINGS_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ContractError(f"{path}: not valid JSON (line {err.lineno}): {err.msg}") from err
    if not isinstance(data, dict):
        raise ContractError(f"{path}: expected a JSON object of run settings")
    return data


def check_run_settings(run_dir: Path, settings: dict[str, Any], *, has_results: bool) -> None:
    """Refuse to resume a run folder with settings that change the game (the clock: a study whose first
    half ran free-running and second half in lockstep would mix two kinds of episode).

    A folder with results but no manifest was started before it existed: it is compared with
    :data:`LEGACY_RUN_SETTINGS` (free-running, the runner's default then).

    Raises:
        ContractError: a stored setting differs (the message names each one, stored and asked).
    """
    stored = read_run_settings(run_dir)
    if stored is None:
        if not has_results:
            return
        stored = dict(LEGACY_RUN_SETTINGS)
    diff = sorted(k for k in settings if k in stored and stored[k] != settings[k])
    if diff:
        said = "; ".join(f"{k}: started with {stored[k]!r}, now {settings[k]!r}" for k in diff)
        raise ContractError(
            f"{run_dir / RUN_SETTINGS_FILE}: the run was started with other settings ({said}); resume it "
            "with the same settings (e.g. the same --clock) or use a new run folder"
        )


def write_run_settings(run_dir: Path, settings: dict[str, Any]) -> Path:
    """Store the run settings (written by the first session; a resume keeps the file)."""
    path = run_dir / RUN_SETTINGS_FILE
    path.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
