"""Fresh world copies for one run: a Vanilla save copied as itself or as one suite's Mirror copy.

Why here: the scripted controls (reachability, paired observations, :mod:`mirrorcraft.skills.controls`)
play every cell in a fresh copy of a world of each kind, and the copies must be made exactly the way the
catalogue makes its Mirror worlds (:func:`~mirrorcraft.worlds.catalogue.mirror_copy`, the one
implementation); the skills may not touch saves or datapacks themselves, so they receive a
:class:`WorldCopies` and ask it for folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from mirrorcraft.contracts.ids import SUITE_IDS
from mirrorcraft.errors import ContractError

__all__ = ["WorldCopies", "make_world_copy"]


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
