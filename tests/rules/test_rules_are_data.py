"""Guard: game rules live in datapack JSON, never in engine code (the server, the body, the rules package).

What counts as a rule: anything that decides an outcome a datapack can change — recipe results, block and
entity drops, cooking results, and the tags used for those. Engine code may not name items, blocks or
entities to decide such outcomes (crafter hard-codes cow food and combat damage in ``Player._do_object`` next
to its data-driven rules; this guard keeps that from happening here). Player knowledge (agents' scripted
policies, opponents' plans, the standard reference grids) may name items; it lives in agents and skills,
which this guard does not scan.

The guard parses every module of ``mirrorcraft/server``, ``mirrorcraft/mcproto_body`` and
``mirrorcraft/rules`` and fails on any string literal (docstrings excepted) that

* holds a namespaced id ``minecraft:<path>`` (anywhere in the string, ``#`` for a tag) of a real item,
  block or entity (per minecraft-data 1.19.2) or of a vanilla item/block/entity-type tag (per the vanilla
  pack's tag folders), or
* *is* such an id written bare (``"stone"``, ``"#logs"``), except the few :data:`ORDINARY_WORDS` that are
  also the field names of vanilla JSON formats (``"item"`` is a recipe field before it is an entity type).

Type names such as loot entry or function types (``minecraft:set_count``) are not game content and are not
flagged. How legitimate mechanics (which blocks are ice, which open a menu, what a placement replaces...)
name content without gutting the guard:

1. **Cited mechanics data**: the facts live in ``mirrorcraft/rules/data/*.json`` with a ``_source`` (Java
   class, wiki page) and code asks a function of ``mirrorcraft.rules`` (``rules.blocks``, ``rules.digging``,
   ``rules.combat``...). The guard scans only Python, and :func:`test_mechanics_data_is_cited` fails for a
   data file without its source.
2. **A reviewed allow-list** (:data:`ALLOWED`): per file, the exact ids it may name, with the reason. An
   entry the scan no longer finds fails :func:`test_allow_list_has_no_stale_entries`, so the list only
   shrinks when code is fixed.

Every scanned file must pass (no xfail): the server's mechanics name their blocks and items through
``rules.blocks``, ``rules.items``, ``rules.spawning``, ``rules.devices``, ``rules.combat``; what is left in
:data:`ALLOWED` is protocol and command vocabulary (entity types, window kinds, ``/fill`` and scoreboard
words).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from support.refdata import mcdata_path

import mirrorcraft

PACKAGE = Path(mirrorcraft.__file__).parent
SCANNED = ("server", "mcproto_body", "rules")
FILES = sorted(p for d in SCANNED for p in (PACKAGE / d).rglob("*.py"))
assert {f.relative_to(PACKAGE).parts[0] for f in FILES} == set(SCANNED), "the guard would check nothing"
TAGS_DIR = PACKAGE / "gamedata" / "vanilla_pack" / "data" / "minecraft" / "tags"
DATA_DIR = PACKAGE / "rules" / "data"
ID = re.compile(r"(#?)minecraft:([a-z0-9_./-]+)")

#: Bare words that are content ids but, bare, are field names of vanilla formats; never flagged bare (the
#: namespaced ``minecraft:<word>`` still is).
ORDINARY_WORDS: dict[str, str] = {
    "item": "the field of recipe ingredients/results, sidecars and predicates; the item entity is "
    "minecraft:item",
    "player": "the loot/advancement predicate field and a player's role in a loot context",
    "potion": "an item-predicate field name (unsupported, rejected by name)",
    "target": "a command argument name (/give <target>, /effect <target>)",
}

#: file (relative to ``mirrorcraft/``) → (ids it may name, why). Reviewed; keep it short.
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "mcproto_body/entities.py": (
        frozenset({"minecraft:player", "minecraft:item"}),
        "the entity kinds the body's perception tracks from spawn packets (players; item entities to "
        "collect): which entity a packet describes, never what anything drops",
    ),
    "mcproto_body/windows.py": (
        frozenset(
            {
                "anvil",
                "beacon",
                "blast_furnace",
                "brewing_stand",
                "furnace",
                "grindstone",
                "hopper",
                "lectern",
                "loom",
                "shulker_box",
                "smoker",
                "cartography_table",
                "stonecutter",
            }
        ),  # fmt: skip
        "names of the menu registry (open_window types) and their slot counts: protocol facts that share "
        "the names of blocks",
    ),
    "server/facts.py": (
        frozenset({"minecraft:player", "minecraft:item", "minecraft:cow"}),
        "the entity types the server simulates (PLAYER_TYPE, ITEM_TYPE, COW_TYPE): what a spawn packet, a "
        "selector's snapshot, a save's entity list or a loot context says an entity is, never what it drops "
        "(its loot table's, read from the packs)",
    ),
    "server/wire.py": (
        frozenset({"chest", "furnace", "blast_furnace", "smoker"}),
        "the server's window kinds as open_window encodes them (menu registry names; 'chest' for "
        "generic_9x3) and their container titles: protocol facts that share the names of blocks",
    ),
    "server/features/chests.py": (
        frozenset({"chest"}),
        "the chest window's kind (ChestMenu.kind: a key of wire.MENU_TYPES, and the kind its container_move "
        "events carry), a window name; which blocks are chests is rules.blocks' (menu_blocks)",
    ),
    "server/commands/executor.py": (
        frozenset({"minecraft:air"}),
        "/fill ... hollow fills the inside with air (FillCommand's HOLLOW mode): the command's definition",
    ),
    "server/commands/selectors.py": (
        frozenset({"minecraft:player"}),
        "the selector option type=minecraft:player limits a selector to players (EntitySelectorOptions): "
        "command-language vocabulary",
    ),
    "server/commands/vocabulary.py": (
        frozenset({"air"}),
        "the scoreboard criterion 'air' (ObjectiveCriteria.AIR, a player's breath): a criterion name, "
        "not the block",
    ),
}


@pytest.fixture(scope="module")
def content_ids(node_modules: Path) -> tuple[set[str], set[str]]:
    """(item/block/entity names, tag paths), without the namespace."""
    names: set[str] = set()
    for key in ("items", "blocks", "entities"):
        names |= {e["name"] for e in json.loads(mcdata_path(node_modules, "1.19.2", key).read_text())}
    tags = {
        p.relative_to(TAGS_DIR / kind).with_suffix("").as_posix()
        for kind in ("items", "blocks", "entity_types")
        for p in (TAGS_DIR / kind).rglob("*.json")
    }
    assert len(names) > 1300 and len(tags) > 100, "the guard would recognise no ids"
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


def leaked_ids(source: str, filename: str, names: set[str], tags: set[str]) -> list[tuple[int, str]]:
    """``(line, id)`` for every content id named in a string literal of ``source`` (docstrings excepted)."""
    tree = ast.parse(source, filename)
    skip = docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in skip:
            continue
        text = node.value
        for is_tag, path in ID.findall(text):
            if path in names or path in tags:
                found.append((node.lineno, f"{is_tag}minecraft:{path}"))
        bare_tag = text.startswith("#") and text[1:] in tags
        if (text in names and text not in ORDINARY_WORDS) or bare_tag:
            found.append((node.lineno, text))
    return sorted(found)


def findings(file: Path, names: set[str], tags: set[str]) -> list[str]:
    """The file's leaks that the allow-list does not cover, as ``line: id``."""
    rel = file.relative_to(PACKAGE).as_posix()
    allowed = ALLOWED.get(rel, (frozenset(), ""))[0]
    return [f"{line}: {i}" for line, i in leaked_ids(file.read_text(), rel, names, tags) if i not in allowed]


def test_the_guard_catches_leaks(content_ids: tuple[set[str], set[str]]) -> None:
    names, tags = content_ids
    leaking = '''
"""Docstrings may mention minecraft:stone and "oak_log" as examples."""
DROPS = {"minecraft:iron_ore": "minecraft:raw_iron"}  # comments too: minecraft:dirt
GIVES = {"iron_ore": "raw_iron"}
def f(x):
    """e.g. minecraft:cow"""
    return x == "#minecraft:logs" or f"minecraft:cow{x}" or x in ("#logs", "item", "player")
KIND = "minecraft:set_count"
WORDS = ("pickaxe", "mineable/pickaxe", "minecraft:mineable/pickaxe")
'''
    found = [i for _line, i in leaked_ids(leaking, "leak.py", names, tags)]
    assert found == [
        "minecraft:iron_ore",
        "minecraft:raw_iron",
        "iron_ore",
        "raw_iron",
        "#logs",
        "#minecraft:logs",
        "minecraft:cow",
        "minecraft:mineable/pickaxe",
    ]


def test_the_allow_list_covers_only_its_file_and_ids(content_ids: tuple[set[str], set[str]]) -> None:
    names, tags = content_ids
    text = 'KINDS = {"minecraft:item": 1, "minecraft:player": 2, "minecraft:cow": 3}\n'
    assert [i for _l, i in leaked_ids(text, "x.py", names, tags)] == [
        "minecraft:cow",
        "minecraft:item",
        "minecraft:player",
    ]
    allowed = ALLOWED["mcproto_body/entities.py"][0]
    assert [i for _l, i in leaked_ids(text, "x.py", names, tags) if i not in allowed] == ["minecraft:cow"]


def test_ordinary_words_are_few_and_real_ids(content_ids: tuple[set[str], set[str]]) -> None:
    names, _tags = content_ids
    assert len(ORDINARY_WORDS) <= 6 and set(ORDINARY_WORDS) <= names
    assert all(reason for reason in ORDINARY_WORDS.values())


def test_allow_list_has_no_stale_entries(content_ids: tuple[set[str], set[str]]) -> None:
    names, tags = content_ids
    for rel, (ids, reason) in ALLOWED.items():
        assert reason, rel
        named = {i for _line, i in leaked_ids((PACKAGE / rel).read_text(), rel, names, tags)}
        assert ids <= named, f"{rel}: allow-list entries no longer used: {sorted(ids - named)}"


def test_mechanics_data_is_cited() -> None:
    files = sorted(DATA_DIR.glob("*.json"))
    assert files
    for f in files:
        data = json.loads(f.read_text())
        assert isinstance(data.get("_source"), str) and len(data["_source"]) > 40, f"{f.name}: no _source"


@pytest.mark.parametrize("file", FILES, ids=[f.relative_to(PACKAGE).as_posix() for f in FILES])
def test_no_item_block_or_entity_ids_in_engine_code(
    file: Path, content_ids: tuple[set[str], set[str]]
) -> None:
    names, tags = content_ids
    assert findings(file, names, tags) == []
