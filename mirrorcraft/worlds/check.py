"""Integrity checks of catalogue worlds (``worlds check``): spawn, task resources near spawn, pair identity.

Why: the spec's integrity controls ("verify ... spawn conditions, placed resources in every world") must
hold before any episode runs, and a Mirror copy must differ from its Vanilla save only by its rule pack.
Everything is measured from the save on disk (:func:`mirrorcraft.worlds.measure.dense_from_save`), never
from the generator's own counters.

* :func:`check_world`: the spawn is dry and safe (grass under the feet, two passable blocks, no fluid
  within 2 blocks, level 3x3 ground: :func:`mirrorcraft.worlds.measure.spawn_safety`), and within
  ``radius`` blocks (horizontal distance) of spawn there are at least :data:`RESOURCE_MINIMUMS` of what
  every task needs: logs, stone, coal, iron, diamond, lapis and obsidian blocks, sugar cane beside water
  and cows. The minimums are what the longest vanilla route consumes (e.g. obsidian 4 for the enchanting
  table, diamond 5 = pickaxe 3 + table 2, iron 4 for the cheapest armour piece).
* :func:`check_pair`: every file of the Mirror copy is byte-identical to the Vanilla save's except
  ``datapacks/`` (exactly the rule pack, which must audit clean and equal the compiled suite) and
  ``level.dat``, whose NBT may differ only in ``Data.DataPacks.Enabled`` (:func:`level_dat_diff`).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft.errors import WorldError

__all__ = [
    "DEFAULT_CHECK_RADIUS",
    "RESOURCE_MINIMUMS",
    "PairCheck",
    "ResourceCount",
    "WorldCheck",
    "check_catalogue",
    "check_pair",
    "check_world",
    "level_dat_diff",
]

#: Horizontal distance from spawn within which the task resources are counted.
DEFAULT_CHECK_RADIUS = 96

#: Minimum count of each resource within the check radius (blocks, except sugar cane: columns beside
#: water, and cows: entities).
RESOURCE_MINIMUMS: dict[str, int] = {
    "logs": 8,
    "stone": 64,
    "coal": 4,
    "iron": 4,
    "diamond": 5,
    "lapis": 1,
    "obsidian": 4,
    "sugar_cane_at_water": 1,
    "cows": 1,
}


def _is_resource(name: str) -> str | None:
    bare = name.removeprefix("minecraft:")
    if bare.endswith("_log") and not bare.startswith("stripped_"):
        return "logs"
    if bare in ("stone", "deepslate"):
        return "stone"
    if bare == "obsidian":
        return "obsidian"
    for ore in ("coal", "iron", "diamond", "lapis"):
        if bare in (f"{ore}_ore", f"deepslate_{ore}_ore"):
            return ore
    return None


class ResourceCount(BaseModel):
    """One resource near spawn."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    count: int
    minimum: int
    ok: bool


class WorldCheck(BaseModel):
    """The result of :func:`check_world`."""

    model_config = ConfigDict(extra="forbid")

    path: str
    spawn: tuple[int, int, int]
    spawn_safe: bool
    spawn_details: dict[str, Any]
    radius: int
    resources: dict[str, ResourceCount]
    problems: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the spawn is safe and every resource meets its minimum."""
        return not self.problems


class PairCheck(BaseModel):
    """The result of :func:`check_pair`."""

    model_config = ConfigDict(extra="forbid")

    vanilla: str
    mirror: str
    identical_files: int
    level_dat_diff: list[str]
    datapacks: list[str]
    problems: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the copy differs only by its rule pack."""
        return not self.problems


def check_world(path: str | Path, radius: int = DEFAULT_CHECK_RADIUS) -> WorldCheck:
    """Check spawn safety and the task resources within ``radius`` blocks of spawn.

    Args:
        path: A world folder.
        radius: Horizontal distance from spawn (blocks).

    Returns:
        A :class:`WorldCheck` with counts; ``problems`` names every failed check.

    Raises:
        WorldError: not a readable save.
    """
    from mirrorcraft.worlds.anvil import Save
    from mirrorcraft.worlds.measure import dense_from_save, spawn_safety, sugar_cane_columns

    path = Path(path)
    world, _cows = dense_from_save(path)
    spawn = tuple(Save.open(path).level.spawn)
    sx, _sy, sz = spawn
    safety = spawn_safety(world, spawn)  # type: ignore[arg-type]
    zs = np.arange(world.size_z)[:, None] + world.z0
    xs = np.arange(world.size_x)[None, :] + world.x0
    near = (xs - sx) ** 2 + (zs - sz) ** 2 <= radius * radius
    counts: dict[str, int] = dict.fromkeys(RESOURCE_MINIMUMS, 0)
    kinds = [_is_resource(n) for n in world.palette.names()]
    for kind in sorted({k for k in kinds if k}):
        table = world.palette.where(lambda s, k=kind: _is_resource(s[0]) == k)
        per_column = table[world.blocks].sum(axis=0)
        counts[kind] = int(per_column[near].sum())
    counts["sugar_cane_at_water"] = sum(
        1 for x, _y, z, beside in sugar_cane_columns(world) if beside and math.hypot(x - sx, z - sz) <= radius
    )
    counts["cows"] = _cows_near(Save.open(path), sx, sz, radius)
    resources = {
        k: ResourceCount(count=counts[k], minimum=m, ok=counts[k] >= m) for k, m in RESOURCE_MINIMUMS.items()
    }
    problems = [
        f"{k}: {r.count} within {radius} blocks of spawn, need {r.minimum}"
        for k, r in resources.items()
        if not r.ok
    ]
    if not safety.safe:
        problems.insert(0, f"spawn {spawn} is not safe: {safety.model_dump()}")
    return WorldCheck(
        path=str(path),
        spawn=spawn,  # type: ignore[arg-type]
        spawn_safe=safety.safe,
        spawn_details=safety.model_dump(),
        radius=radius,
        resources=resources,
        problems=problems,
    )


def _cows_near(save: Any, sx: int, sz: int, radius: int) -> int:
    n = 0
    for cx, cz in save.entity_chunk_positions():
        for ent in save.read_entities(cx, cz):
            if str(ent.get("id")) != "minecraft:cow":
                continue
            pos = ent.get("Pos")
            if pos is None or len(pos) != 3:
                continue
            if math.hypot(float(pos[0]) - sx, float(pos[2]) - sz) <= radius:
                n += 1
    return n


def _nbt_diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    import nbtlib

    if isinstance(a, nbtlib.Compound) and isinstance(b, nbtlib.Compound):
        for k in sorted(set(a) | set(b)):
            sub = f"{path}.{k}" if path else k
            if k not in a or k not in b:
                out.append(sub)
            else:
                _nbt_diff(a[k], b[k], sub, out)
    elif type(a) is not type(b) or a != b:
        out.append(path)


def level_dat_diff(a: str | Path, b: str | Path) -> list[str]:
    """The NBT paths (``Data.DataPacks.Enabled``) whose values differ between two ``level.dat`` files.

    Raises:
        WorldError: either file is not a gzip NBT ``level.dat``.
    """
    from mirrorcraft.worlds.anvil.region import nbt_from_bytes

    roots = []
    for p in (Path(a), Path(b)):
        try:
            roots.append(nbt_from_bytes(gzip.decompress(p.read_bytes()), str(p)))
        except (OSError, EOFError) as err:
            raise WorldError(f"{p}: not a gzip level.dat ({err})") from err
    out: list[str] = []
    _nbt_diff(roots[0], roots[1], "", out)
    return out


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def check_pair(vanilla: str | Path, mirror: str | Path, suite: str | None = None) -> PairCheck:
    """Check that ``mirror`` is ``vanilla`` plus exactly its rule pack.

    Args:
        vanilla: The Vanilla world folder.
        mirror: The Mirror copy.
        suite: When given, the pack must equal ``build_suite_bytes(load_suite(suite))`` byte for byte.

    Returns:
        A :class:`PairCheck`.
    """
    from mirrorcraft.datapacks.audit import audit_pack
    from mirrorcraft.datapacks.compiler import RULE_PACK_FILENAME
    from mirrorcraft.worlds.catalogue import RULE_PACK_ENTRY

    v, m = Path(vanilla), Path(mirror)
    fv, fm = _files(v), _files(m)
    problems: list[str] = []
    same = 0
    for rel in sorted(set(fv) | set(fm)):
        if rel == "level.dat" or rel.startswith("datapacks/"):
            continue
        if rel not in fv or rel not in fm:
            problems.append(f"{rel}: only in the {'Mirror copy' if rel in fm else 'Vanilla save'}")
        elif fv[rel].read_bytes() != fm[rel].read_bytes():
            problems.append(f"{rel}: bytes differ")
        else:
            same += 1
    vpacks = sorted(r for r in fv if r.startswith("datapacks/"))
    mpacks = sorted(r for r in fm if r.startswith("datapacks/"))
    if vpacks:
        problems.append(f"Vanilla save has datapacks {vpacks}")
    if mpacks != [f"datapacks/{RULE_PACK_FILENAME}"]:
        problems.append(f"Mirror copy must hold exactly datapacks/{RULE_PACK_FILENAME}, has {mpacks}")
    else:
        report = audit_pack(fm[mpacks[0]])
        problems += [f"rule pack audit: {e}" for e in report.errors]
        if suite is not None:
            from mirrorcraft.contracts.rules import load_suite
            from mirrorcraft.datapacks.compiler import build_suite_bytes

            if fm[mpacks[0]].read_bytes() != build_suite_bytes(load_suite(suite)):
                problems.append(f"rule pack is not the compiled {suite} pack")
    diff: list[str] = []
    if "level.dat" in fv and "level.dat" in fm:
        diff = level_dat_diff(fv["level.dat"], fm["level.dat"])
        if diff != ["Data.DataPacks.Enabled"]:
            problems.append(f"level.dat differs at {diff} (only Data.DataPacks.Enabled may)")
        else:
            from mirrorcraft.worlds.anvil import LevelData

            enabled = LevelData.load(fm["level.dat"]).enabled_datapacks
            if enabled != [*LevelData.load(fv["level.dat"]).enabled_datapacks, RULE_PACK_ENTRY]:
                problems.append(f"Mirror level.dat enables {enabled}")
    else:
        problems.append("level.dat missing")
    return PairCheck(
        vanilla=str(v),
        mirror=str(m),
        identical_files=same,
        level_dat_diff=diff,
        datapacks=mpacks,
        problems=problems,
    )


def check_catalogue(
    out: str | Path, only: str | None = None, radius: int = DEFAULT_CHECK_RADIUS
) -> list[WorldCheck | PairCheck]:
    """Check the built worlds selected by ``only`` (see :func:`mirrorcraft.worlds.catalogue.select`).

    Vanilla worlds get :func:`check_world`; Mirror copies get :func:`check_pair` against their Vanilla
    save (their terrain is the Vanilla save's, checked there).

    Raises:
        WorldError: a selected world has not been built.
    """
    from mirrorcraft.worlds.catalogue import select, world_path

    out = Path(out)
    results: list[WorldCheck | PairCheck] = []
    for e in select(only):
        path = world_path(out, e)
        if not path.exists():
            raise WorldError(f"{e.name}: not built under {out} (run `worlds build --only {e.name}`)")
        if e.suite is None:
            results.append(check_world(path, radius))
        else:
            results.append(check_pair(world_path(out, e.vanilla), path, e.suite))
    return results
