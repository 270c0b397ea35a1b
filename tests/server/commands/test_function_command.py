"""``function <name>``: a save's datapack functions run as vanilla's ``FunctionCommand`` runs them — lines
trimmed, comments skipped, output suppressed, permission capped at level 2, a failing line skipped, a
function with a line that does not parse unknown — and a bad function file names the file and the line.

(The judge over RCON drives the same command over a real socket: tests/harness/test_judges_rcon.py.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fakeplayer import new_game

from mirrorcraft.errors import DatapackError
from mirrorcraft.rules.datapacks import DatapackSet

MCMETA = json.dumps({"pack": {"pack_format": 10, "description": "test functions"}})


def _pack(save: Path, functions: dict[str, str]) -> Path:
    root = save / "datapacks" / "fns"
    (root / "data" / "t" / "functions").mkdir(parents=True)
    (root / "pack.mcmeta").write_text(MCMETA)
    for name, text in functions.items():
        path = root / "data" / "t" / "functions" / f"{name}.mcfunction"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_function_runs_its_lines_quietly_and_counts_them(arena) -> None:  # noqa: ANN001
    save = arena("mushroom_war")
    _pack(save, {
        "build/two": "# a comment\n\n  setblock 0 -60 0 minecraft:gold_block  \nsay hidden\n",
        "skips": "setblock 0 -60 1 minecraft:not_a_block_state_we_fail_at_run\n",
        "partly": "kill @e[type=minecraft:pig]\nsetblock 0 -60 2 minecraft:iron_block\n",
        "admin": "setblock 0 -60 3 minecraft:stone\nop Ryn\n",
    })  # fmt: skip
    game = new_game(save)
    ex = game.commands.executor
    console = ex.console_source("Server")
    r = ex.run(console, "function t:build/two")
    assert r.success and r.text == "Executed 2 commands from function 't:build/two'"
    assert game.commands.host.block_at(0, -60, 0) == "minecraft:gold_block"
    # a line that fails (no pig to kill) is skipped; the next one runs and both count
    r = ex.run(console, "function t:partly")
    assert r.text == "Executed 2 commands from function 't:partly'"
    assert game.commands.host.block_at(0, -60, 2) == "minecraft:iron_block"
    # functions run at level 2: a level-3 line does not parse, so the function is unknown and nothing runs
    r = ex.run(console, "function t:admin")
    assert not r.success and r.text == "Unknown function t:admin"
    assert game.commands.host.block_at(0, -60, 3) != "minecraft:stone"
    assert ex.run(console, "function t:nope").text == "Unknown function t:nope"
    assert not ex.run(console, "function t:skips").success  # an unknown block: the line does not parse


def test_a_function_file_with_a_slash_command_names_the_file_and_line(tmp_path: Path) -> None:
    root = _pack(tmp_path, {"bad": "# ok\nsay hi\n/say no\n"})
    with pytest.raises(DatapackError, match=r"fns/data/t/functions/bad\.mcfunction.*line 3.*must not start"):
        DatapackSet.load([root])
    good = _pack(tmp_path / "b", {"f": "say a\n  \n# c\nsay b\n"})
    assert DatapackSet.load([good]).functions == {"t:f": ("say a", "say b")}
