"""Scratch folders of world copies (:mod:`mirrorcraft.worlds.copies`): removed on release and at exit; a
killed process's folder is removed by the next sweep, a living process's or a kept one never."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import mirrorcraft
from mirrorcraft.worlds.copies import LOCK_NAME, release_scratch, scratch_folder, sweep_stale

REPO = Path(mirrorcraft.__file__).resolve().parents[1]


def _child(parent: Path, then: str) -> subprocess.Popen:
    code = textwrap.dedent(
        f"""
        import os, signal, sys, time
        from pathlib import Path
        from mirrorcraft.worlds.copies import scratch_folder
        d = scratch_folder("ep-", Path({str(parent)!r}))
        (d / "world").mkdir()
        print(d, flush=True)
        {then}
        """
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)


def test_killed_processes_copies_are_swept_living_and_kept_ones_are_not(tmp_path: Path) -> None:
    killed = _child(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)")
    killed_dir = Path(killed.stdout.readline().strip())
    killed.wait(timeout=30)
    assert killed_dir.is_dir() and (killed_dir / LOCK_NAME).is_file()  # SIGKILL: no cleanup
    alive = _child(tmp_path, "time.sleep(60)")  # the next start sweeps the killed one's copy
    alive_dir = Path(alive.stdout.readline().strip())
    try:
        assert not killed_dir.exists()
        exited = _child(tmp_path, "sys.exit(0)")  # a normal exit releases its folder (atexit)
        exited_dir = Path(exited.stdout.readline().strip())
        assert exited.wait(timeout=30) == 0 and not exited_dir.exists()
        kept = scratch_folder("kept-", tmp_path)
        release_scratch(kept, keep=True)
        mine = scratch_folder("mine-", tmp_path)
        assert sweep_stale(tmp_path) == []  # alive's is held by its process, mine by this one, kept is kept
        assert alive_dir.is_dir() and kept.is_dir() and mine.is_dir()
        release_scratch(mine)
        assert not mine.exists()
    finally:
        alive.kill()
        alive.wait(timeout=30)
    assert sweep_stale(tmp_path) == [alive_dir]
    assert [p.name for p in tmp_path.iterdir()] == [kept.name]
