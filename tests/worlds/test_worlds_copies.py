"""World copies for the scripted controls (:mod:`mirrorcraft.worlds.copies`): Vanilla and Mirror copies of a
save made the catalogue's way (the suite's compiled pack in ``datapacks/``, enabled in ``level.dat``)."""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import pytest

from mirrorcraft.errors import ContractError
from mirrorcraft.worlds.copies import make_world_copy


def test_world_copies_are_made_like_the_catalogue(sandbox_template: Path, tmp_path: Path) -> None:
    save = sandbox_template
    van = make_world_copy(save, "vanilla", tmp_path / "v")
    mir = make_world_copy(save, "M03", tmp_path / "m")
    assert not any((van / "datapacks").iterdir())
    pack = mir / "datapacks" / "mirrorcraft_rules.zip"
    with zipfile.ZipFile(pack) as zf:
        assert "pack.mcmeta" in zf.namelist()
    assert b"file/mirrorcraft_rules.zip" in gzip.decompress((mir / "level.dat").read_bytes())
    assert (van / "region").is_dir() and sorted(p.name for p in (van / "region").iterdir()) == sorted(
        p.name for p in (mir / "region").iterdir()
    )
    with pytest.raises(ContractError, match="world kind"):
        make_world_copy(save, "M09", tmp_path / "x")
