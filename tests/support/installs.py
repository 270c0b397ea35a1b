"""One ``npm ci`` per package folder, even when several pytest workers (``-n``) need it at once.

Why: the default tier runs in parallel workers (pytest-xdist); two workers reaching a Mineflayer test
first would run ``npm ci`` in the same folder together, and one would delete the other's files. An
exclusive ``flock`` on a file beside the package serialises them: the first installs, the others find
the marker present and go on.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path


def npm_ci_once(package_dir: Path, marker: Path, why: str) -> Path:
    """``npm ci`` in ``package_dir`` unless ``marker`` exists; returns its ``node_modules``.

    Raises:
        AssertionError: npm is not on PATH (``why`` says which tests need it).
    """
    nm = package_dir / "node_modules"
    # Always through the lock, also when the marker is there: npm writes the marker's package.json long
    # before it has extracted every package, so an unlocked "already installed?" check let a second worker
    # start node on a half-installed tree (MODULE_NOT_FOUND in minecraft-data, seen in a CI run).
    with (package_dir / ".npm-ci.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            npm = shutil.which("npm")
            if npm is None:
                raise AssertionError(f"npm is required for {why} but is not on PATH")
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=package_dir, check=True)
    return nm
