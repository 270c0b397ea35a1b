"""Guard: game rules live in datapack JSON, never in ``mirrorcraft/rules/*.py``.

crafter hard-codes cow food and combat damage in ``Player._do_object`` next to its data-driven rules; this
test keeps that from happening here. It parses every rules module and fails on any string literal (docstrings
excepted) holding a ``minecraft:`` id of a real item, block or entity (per minecraft-data 1.19.2) or of a
vanilla item/block tag (per the vanilla pack's tag folders). Type names such as loot entry or function types
are not game content and are not flagged.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import mirrorcraft

RULES_DIR = Path(mirrorcraft.__file__).parent / "rules"
TAGS_DIR = Path(mirrorcraft.__file__).parent / "gamedata" / "vanilla_pack" / "data" / "minecraft" / "tags"
RULE_FILES = sorted(RULES_DIR.glob("*.py"))
assert RULE_FILES, f"no rules modules under {RULES_DIR}: the guard would check nothing"
ID = re.compile(r"(#?)minecraft:([a-z0-9_./-]+)")


def mcdata_path(node_modules: Path, version: str, key: str) -> Path:
    """minecraft-data's file for ``key`` in ``version`` (resolved through ``dataPaths.json``).

    Kept local so this file stands alone (shared paths live in tests/refdata.py).
    """
    base = node_modules / "minecraft-data" / "minecraft-data" / "data"
    folder = json.loads((base / "dataPaths.json").read_text())["pc"][version][key]
    return base / folder / f"{key}.json"


@pytest.fixture(scope="module")
def content_ids(node_modules: Path) -> tuple[set[str], set[str]]:
    names: set[str] = set()
    for key in ("items", "blocks", "entities"):
        names |= {e["name"] for e in json.loads(mcdata_path(node_modules, "1.19.2", key).read_text())}
    tags = (
        {
            p.relative_to(TAGS_DIR / kind).with_suffix("").as_posix()
            for kind in ("items", "blocks")
            for p in (TAGS_DIR / kind).rglob("*.json")
        }
        if TAGS_DIR.is_dir()
        else set()
    )
    return names, tags


def docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
        # attribute docstrings: a bare string right after an assignment
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for prev, stmt in zip(body, body[1:], strict=False):
                if isinstance(prev, ast.Assign | ast.AnnAssign) and isinstance(stmt, ast.Expr):
                    if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                        out.add(id(stmt.value))
    return out


def leaked_ids(source: str, filename: str, names: set[str], tags: set[str]) -> list[str]:
    tree = ast.parse(source, filename)
    skip = docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for is_tag, path in ID.findall(node.value):
                if path in names or path in tags:
                    found.append(f"{filename}:{node.lineno}: {is_tag}minecraft:{path}")
    return found


def test_the_guard_catches_leaks(content_ids: tuple[set[str], set[str]]) -> None:
    names, tags = content_ids
    leaking = '''
"""Docstrings may mention minecraft:stone as an example."""
DROPS = {"minecraft:iron_ore": "minecraft:raw_iron"}
def f(x):
    """e.g. minecraft:cow"""
    return x == "#minecraft:logs" or f"minecraft:cow{x}"
KIND = "minecraft:set_count"
'''
    found = leaked_ids(leaking, "leak.py", names, tags | {"logs"})
    assert [f.split(": ", 1)[1] for f in found] == [
        "minecraft:iron_ore",
        "minecraft:raw_iron",
        "#minecraft:logs",
        "minecraft:cow",
    ]


@pytest.mark.parametrize("file", RULE_FILES, ids=lambda f: f.name)
def test_no_item_block_or_entity_ids_in_rules_code(
    file: Path, content_ids: tuple[set[str], set[str]]
) -> None:
    names, tags = content_ids
    assert leaked_ids(file.read_text(), file.name, names, tags) == []
