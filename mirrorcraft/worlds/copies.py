"""Fresh world copies for one run: a Vanilla save copied as itself or as one suite's Mirror copy.

Why here: the scripted controls (reachability, paired observations, :mod:`mirrorcraft.skills.controls`)
play every cell in a fresh copy of a world of each kind, and the copies must be made exactly the way the
catalogue makes its Mirror worlds (:func:`~mirrorcraft.worlds.catalogue.mirror_copy`, the one
implementation); the skills may not touch saves or datapacks themselves, so they receive a
:class:`WorldCopies` and ask it for folders.

**Scratch folders** (:func:`scratch_folder`): where ``serve`` and every episode put their temporary world
copy. Each folder holds a lock file that its process keeps locked (``flock``) while it lives; the folder is
removed when the process releases it (:func:`release_scratch`, and at interpreter exit for any it still
holds). A process that is killed (SIGKILL, a crashed pool worker) cannot clean up, but the kernel drops its
lock, so the next process that makes a scratch folder in the same place removes every folder whose lock is
free (:func:`sweep_stale`) — the next start of the same run folder (or of ``serve``) cleans up after the
killed one. A folder kept on purpose (``keep=True``: ``--keep-world``) loses its lock file and is never
swept.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import tempfile
from pathlib import Path

from mirrorcraft.contracts.ids import SUITE_IDS
from mirrorcraft.errors import ContractError

__all__ = [
    "WorldCopies",
    "make_world_copy",
    "release_scratch",
    "scratch_folder",
    "scratch_root",
    "sweep_stale",
]

LOCK_NAME = ".mirrorcraft-scratch.lock"
_held: dict[Path, int] = {}  # scratch folder → the locked file descriptor
_swept: set[Path] = set()  # parents swept by this process


def scratch_root() -> Path:
    """The default parent of scratch folders: ``<temp>/mirrorcraft-copies``."""
    return Path(tempfile.gettempdir()) / "mirrorcraft-copies"


def scratch_folder(prefix: str, parent: Path | None = None) -> Path:
    """A new empty folder under ``parent`` (default :func:`scratch_root`) held by this process until
    :func:`release_scratch` or exit; the first call per parent sweeps the stale folders of killed processes.
    """
    parent = Path(parent) if parent is not None else scratch_root()
    parent.mkdir(parents=True, exist_ok=True)
    if parent not in _swept:
        _swept.add(parent)
        sweep_stale(parent)
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    tmp_lock = path / (LOCK_NAME + ".new")
    fd = os.open(tmp_lock, os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else can hold it
    os.write(fd, f"{os.getpid()}\n".encode())
    os.rename(tmp_lock, path / LOCK_NAME)  # visible to sweepers only once locked
    if not _held:
        atexit.register(_release_all)
    _held[path] = fd
    return path


def release_scratch(path: Path, keep: bool = False) -> None:
    """Remove a scratch folder of this process (or, with ``keep``, leave it for good: no longer swept)."""
    path = Path(path)
    fd = _held.pop(path, None)
    try:
        if keep:
            (path / LOCK_NAME).unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)
    finally:
        if fd is not None:
            os.close(fd)


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Remove the scratch folders under ``parent`` whose process is gone (their lock is free); returns them."""
    parent = Path(parent) if parent is not None else scratch_root()
    removed: list[Path] = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for d in entries:
        lock = d / LOCK_NAME
        if d in _held or not lock.is_file():
            continue
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # held: its process is alive
            continue
        try:
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
        finally:
            os.close(fd)
    return removed


def _release_all() -> None:
    for path in list(_held):
        release_scratch(path)


def make_world_copy(save: Path, kind: str, dest: Path, *, keep_mobs: bool = True) -> Path:
    """A fresh copy of ``save`` as world kind ``kind`` (``vanilla``, or a suite id: its Mirror copy).

    Args:
        save: The Vanilla save folder (``level.dat`` inside).
        kind: ``"vanilla"`` or ``"M01"``..``"M06"``.
        dest: Folder to create (must not exist).
        keep_mobs: False removes the copy's ``entities/`` folder (its saved mobs), see
            :func:`~mirrorcraft.skills.controls.paired_observations`.

    Returns:
        ``dest``.

    Raises:
        ContractError: unknown kind.
        WorldError: ``save`` is not a save folder, or ``dest`` exists.
    """
    if kind != "vanilla" and kind not in SUITE_IDS:
        raise ContractError(f"world kind {kind!r}: expected one of {['vanilla', *SUITE_IDS]}")
    from mirrorcraft.worlds.anvil import copy_save
    from mirrorcraft.worlds.catalogue import mirror_copy

    if kind == "vanilla":
        copy_save(save, dest)
    else:
        mirror_copy(save, dest, kind)
    if not keep_mobs:
        shutil.rmtree(dest / "entities", ignore_errors=True)
    return dest


class WorldCopies:
    """Fresh copies of one Vanilla save in a scratch folder, one per request (the controls' world source).

    Args:
        save: The Vanilla save folder.
        workdir: Where the copies go (``<workdir>/<name>``).
    """

    def __init__(self, save: Path, workdir: Path) -> None:
        self.save = Path(save)
        self.workdir = Path(workdir)

    def fresh(self, kind: str, name: str, *, keep_mobs: bool = True) -> Path:
        """A new copy of world kind ``kind`` at ``<workdir>/<name>`` (:func:`make_world_copy`)."""
        return make_world_copy(self.save, kind, self.workdir / name, keep_mobs=keep_mobs)
