"""Agents never import the server, worlds or datapacks packages (architecture: the runner hands "ReAct
w/rules" its rule cards as text), checked on the AST of every module, and in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from support.refdata import REPO_ROOT

AGENTS = REPO_ROOT / "mirrorcraft" / "agents"
FORBIDDEN = ("mirrorcraft.server", "mirrorcraft.worlds", "mirrorcraft.datapacks")


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import: resolve against mirrorcraft.agents
                base = ".".join(["mirrorcraft", "agents"][: 3 - node.level] + ([base] if base else []))
            out += [(node.lineno, base)] + [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return out


def test_no_agent_module_imports_server_worlds_or_datapacks():
    files = sorted(AGENTS.rglob("*.py"))
    assert len(files) >= 10
    bad = [
        f"{p.relative_to(REPO_ROOT)}:{line}: {name}"
        for p in files
        for line, name in _imports(p)
        if name.startswith(FORBIDDEN)
        or name in {"mirrorcraft.server", "mirrorcraft.worlds", "mirrorcraft.datapacks"}
    ]
    assert bad == []


def test_the_ast_check_would_catch_an_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("from mirrorcraft.datapacks import compiler\nimport mirrorcraft.server.wire as w\n")
    names = [n for _, n in _imports(sample)]
    assert "mirrorcraft.datapacks" in names and "mirrorcraft.server.wire" in names


def test_importing_every_agent_leaves_those_packages_unloaded():
    code = (
        "import sys, mirrorcraft.agents as a\n"
        "for n in a.AGENTS.ids(): a.make_agent(n, llm=a.LLMClient(a.LLMSettings(model='m')))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mirrorcraft.server', 'mirrorcraft.worlds', 'mirrorcraft.datapacks'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.strip() == "[]"
