"""The committed vendored files are exactly what scripts/regen_gamedata.py produces from the pinned packages."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from mirrorcraft import gamedata as gd

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "regen_gamedata.py"


@pytest.fixture(scope="module")
def regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regen_gamedata", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_vendored_files_are_current(regen: ModuleType, node_modules: Path) -> None:
    outputs = regen.generate(regen.Sources(node_modules))
    problems = regen.check(outputs)
    assert not problems, "run `python scripts/regen_gamedata.py`:\n" + "\n".join(problems[:30])
    # the generated recipes/tags count and the vendored data stay small
    assert sum(1 for p in outputs if "recipes" in p.parts) == 1089
    data_size = sum(len(v) for p, v in outputs.items() if p.parent.name == "data" and p.suffix == ".gz")
    assert data_size < 2_000_000


def test_generation_is_deterministic(regen: ModuleType, node_modules: Path) -> None:
    a = regen.generate(regen.Sources(node_modules))
    b = regen.generate(regen.Sources(node_modules))
    assert a == b
    # gzip headers carry no timestamp
    for path, payload in a.items():
        if path.suffix == ".gz":
            assert payload[4:8] == b"\0\0\0\0", path


def test_float32_experience_is_shortest(regen: ModuleType) -> None:
    assert regen._shortest_f32(0.10000000149011612) == "0.1"
    assert regen._shortest_f32(0.3499999940395355) == "0.35"
    assert regen._shortest_f32(1.0) == "1"


def test_vendored_json_is_sorted() -> None:
    raw = gzip.decompress((gd.VANILLA_PACK_DIR.parent / "data" / "items.json.gz").read_bytes())
    assert (
        raw == json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    )
