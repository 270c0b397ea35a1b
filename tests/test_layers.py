"""The package's layers, enforced by import-linter (the contracts live in ``pyproject.toml``).

Why a test: the default test command is what CI runs, so a layer violation fails CI like any other
defect; ``lint-imports`` is the well-kept tool that checks the contracts (layers, forbidden imports, no
cycles inside any package). The second test proves the check can fail: it runs the same contracts over a
copy of one module with a forbidden import added.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _lint(cwd: Path, *, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports (import-linter, in the test extra) is not installed")
    env = {"PYTHONPATH": str(pythonpath), "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin"}
    return subprocess.run(
        [exe, "--no-cache", str(REPO / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_every_import_contract_is_kept() -> None:
    res = _lint(REPO, pythonpath=REPO)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]
    assert "broken" not in res.stdout.lower().replace("0 broken", ""), res.stdout[-4000:]


def test_a_forbidden_import_breaks_the_contracts(tmp_path: Path) -> None:
    pkg = tmp_path / "mirrorcraft"
    shutil.copytree(REPO / "mirrorcraft", pkg, ignore=shutil.ignore_patterns("__pycache__", "*.json.gz"))
    body = pkg / "mcproto_body" / "__init__.py"
    body.write_text(body.read_text() + "\nimport mirrorcraft.server.game  # noqa: E402,F401\n")
    res = _lint(tmp_path, pythonpath=tmp_path)
    assert res.returncode != 0
    assert "mirrorcraft.mcproto_body is not allowed to import mirrorcraft.server" in res.stdout
