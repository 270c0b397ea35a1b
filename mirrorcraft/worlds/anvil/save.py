"""A world folder: ``level.dat``, ``region/`` (chunks), ``entities/`` (1.17+ entity storage), ``datapacks/``.

A Mirror world is a byte copy of its Vanilla save (:func:`copy_save`) plus one datapack in
``datapacks/``. Chunk writes group chunks by region and rewrite each touched region file whole through a
temporary file and a rename, so readers never see a half-written region.

Entities live in their own region files since 1.17 (https://minecraft.wiki/w/Entity_format): each chunk
slot holds ``{DataVersion, Position: [I; cx, cz], Entities: [...]}``.
"""

from __future__ import annotations

import re
import shutil
import uuid as uuidlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import nbtlib
import numpy as np

from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil.chunk import Chunk
from mirrorcraft.worlds.anvil.level import LevelData
from mirrorcraft.worlds.anvil.region import (
    RegionFile,
    compress_chunk,
    nbt_from_bytes,
    nbt_to_bytes,
    region_name,
    region_of,
)

_REGION_RE = re.compile(r"^r\.(-?\d+)\.(-?\d+)\.mca$")


class Save:
    """A 1.19.2 world folder on disk.

    Use :meth:`create` for a new world or :meth:`open` for an existing one.

    Attributes:
        path: The world folder.
        level: The parsed ``level.dat``; call :meth:`write_level` after changing it.
    """

    def __init__(self, path: Path, level: LevelData) -> None:
        self.path = Path(path)
        self.level = level

    # -- folders -------------------------------------------------------------------------------------
    @property
    def region_dir(self) -> Path:
        """``<world>/region``: block chunks."""
        return self.path / "region"

    @property
    def entities_dir(self) -> Path:
        """``<world>/entities``: entity chunks (1.17+)."""
        return self.path / "entities"

    @property
    def datapacks_dir(self) -> Path:
        """``<world>/datapacks``: where a Mirror world's rule datapack goes."""
        return self.path / "datapacks"

    @property
    def level_path(self) -> Path:
        """``<world>/level.dat``."""
        return self.path / "level.dat"

    # -- lifecycle -------------------------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path, level: LevelData, *, exist_ok: bool = False) -> Save:
        """Create a world folder with ``level.dat`` and empty ``region``/``entities``/``datapacks``.

        Raises:
            WorldError: If ``path`` already holds a ``level.dat`` and ``exist_ok`` is false.
        """
        path = Path(path)
        if (path / "level.dat").exists() and not exist_ok:
            raise WorldError(f"{path}: a world already exists here")
        save = cls(path, level)
        for d in (save.region_dir, save.entities_dir, save.datapacks_dir):
            d.mkdir(parents=True, exist_ok=True)
        save.write_level()
        return save

    @classmethod
    def open(cls, path: Path) -> Save:
        """Open an existing world.

        Raises:
            WorldError: If ``level.dat`` is missing, corrupt or not DataVersion 3120.
        """
        path = Path(path)
        return cls(path, LevelData.load(path / "level.dat"))

    def write_level(self) -> None:
        """Write ``self.level`` to ``level.dat``."""
        self.level.save(self.level_path)

    # -- chunks ----------------------------------------------------------------------------------------
    def _read_slot(self, folder: Path, cx: int, cz: int) -> tuple[nbtlib.Compound, str] | None:
        path = folder / region_name(*region_of(cx, cz))
        if not path.exists():
            return None
        region = RegionFile.read(path)
        raw = region.chunks.get((cx & 31, cz & 31))
        if raw is None:
            return None
        what = f"{path} chunk ({cx}, {cz})"
        return nbt_from_bytes(raw.decompress(what), what), what

    def read_chunk(self, cx: int, cz: int) -> Chunk | None:
        """Read chunk ``(cx, cz)``; None if it was never written.

        Raises:
            WorldError: Corrupt region, bad compression, truncated data, wrong DataVersion, or a chunk whose
                stored position differs from its slot; the message names the file and chunk.
        """
        got = self._read_slot(self.region_dir, cx, cz)
        if got is None:
            return None
        tag, what = got
        chunk = Chunk.from_nbt(tag, what)
        if (chunk.x, chunk.z) != (cx, cz):
            raise WorldError(f"{what}: slot holds chunk ({chunk.x}, {chunk.z})")
        return chunk

    def write_chunks(self, chunks: Iterable[Chunk], *, timestamp: int = 0) -> None:
        """Write chunks, grouped by region; existing chunks in touched regions are kept.

        Args:
            chunks: The chunks to store (a later chunk with the same position wins).
            timestamp: Region-header timestamp for the written slots (0 keeps builds reproducible).
        """
        by_region: dict[tuple[int, int], list[Chunk]] = defaultdict(list)
        for chunk in chunks:
            by_region[region_of(chunk.x, chunk.z)].append(chunk)
        for (rx, rz), group in sorted(by_region.items()):
            self._write_region(
                self.region_dir / region_name(rx, rz),
                {(c.x, c.z): nbt_to_bytes(c.to_nbt(self.level.data_version)) for c in group},
                timestamp,
            )

    def _write_region(self, path: Path, payloads: Mapping[tuple[int, int], bytes], timestamp: int) -> None:
        region = RegionFile.read(path) if path.exists() else RegionFile(path)
        for (cx, cz), data in payloads.items():
            region.chunks[(cx & 31, cz & 31)] = compress_chunk(data, timestamp)
        region.write()

    def _positions(self, folder: Path) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        if not folder.is_dir():
            return out
        for path in sorted(folder.iterdir()):
            m = _REGION_RE.match(path.name)
            if not m:
                continue
            rx, rz = int(m.group(1)), int(m.group(2))
            for lx, lz in RegionFile.read(path).chunks:
                out.append((rx * 32 + lx, rz * 32 + lz))
        return sorted(out)

    def chunk_positions(self) -> list[tuple[int, int]]:
        """All chunk positions present in ``region/``, sorted."""
        return self._positions(self.region_dir)

    # -- entities --------------------------------------------------------------------------------------
    def read_entities(self, cx: int, cz: int) -> list[nbtlib.Compound]:
        """Entities stored for chunk ``(cx, cz)`` (empty list if none).

        Raises:
            WorldError: As :meth:`read_chunk`, or a wrong DataVersion / Position in the entity chunk.
        """
        got = self._read_slot(self.entities_dir, cx, cz)
        if got is None:
            return []
        tag, what = got
        dv = int(tag.get("DataVersion", -1))
        if dv != self.level.data_version:
            raise WorldError(f"{what}: entity chunk DataVersion {dv}, expected {self.level.data_version}")
        pos = [int(v) for v in tag.get("Position", [])]
        if pos != [cx, cz]:
            raise WorldError(f"{what}: entity chunk Position {pos}, expected [{cx}, {cz}]")
        return [nbtlib.Compound(e) for e in tag.get("Entities", [])]

    def write_entities(
        self, mapping: Mapping[tuple[int, int], Sequence[nbtlib.Compound]], *, timestamp: int = 0
    ) -> None:
        """Store entity lists per chunk (replacing what those chunks held).

        Raises:
            WorldError: If an entity's ``Pos`` lies outside the chunk it is stored under.
        """
        by_region: dict[tuple[int, int], dict[tuple[int, int], bytes]] = defaultdict(dict)
        for (cx, cz), entities in mapping.items():
            for ent in entities:
                if "Pos" in ent:
                    ex, ez = float(ent["Pos"][0]), float(ent["Pos"][2])
                    if (int(np.floor(ex)) >> 4, int(np.floor(ez)) >> 4) != (cx, cz):
                        raise WorldError(
                            f"entity {ent.get('id')} at ({ex}, {ez}) is not in chunk ({cx}, {cz})"
                        )
            tag = nbtlib.Compound(
                {
                    "DataVersion": nbtlib.Int(self.level.data_version),
                    "Position": nbtlib.IntArray([cx, cz]),
                    "Entities": nbtlib.List[nbtlib.Compound]([nbtlib.Compound(e) for e in entities]),
                }
            )
            by_region[region_of(cx, cz)][(cx, cz)] = nbt_to_bytes(tag)
        for (rx, rz), payloads in sorted(by_region.items()):
            self._write_region(self.entities_dir / region_name(rx, rz), payloads, timestamp)

    def entity_chunk_positions(self) -> list[tuple[int, int]]:
        """All chunk positions present in ``entities/``, sorted."""
        return self._positions(self.entities_dir)


def copy_save(src: Path, dst: Path) -> Save:
    """Byte-copy a world folder (for Mirror worlds) and open the copy.

    Raises:
        WorldError: If ``src`` is not a world or ``dst`` already exists.
    """
    src, dst = Path(src), Path(dst)
    if not (src / "level.dat").is_file():
        raise WorldError(f"{src}: not a world folder (no level.dat)")
    if dst.exists():
        raise WorldError(f"{dst}: destination already exists")
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("session.lock"))
    return Save.open(dst)


def uuid_to_ints(value: uuidlib.UUID) -> tuple[int, int, int, int]:
    """A UUID as the four signed 32-bit ints of an NBT ``UUID`` int array (most significant first)."""
    n = value.int
    words = [(n >> shift) & 0xFFFFFFFF for shift in (96, 64, 32, 0)]
    return tuple(w - (1 << 32) if w >= 1 << 31 else w for w in words)  # type: ignore[return-value]


def _f32(value: float) -> nbtlib.Float:
    """A Float tag holding the float32-rounded value, so it compares equal after a write/read."""
    return nbtlib.Float(float(np.float32(value)))


def _animal_nbt(
    entity_id: str,
    health: float,
    uuid_ints: Sequence[int],
    pos: tuple[float, float, float],
    rotation: tuple[float, float],
) -> nbtlib.Compound:
    """The tags every vanilla 1.19.2 ``Mob``/``AgeableMob`` writes (adult, persistent, standing still)."""
    if len(uuid_ints) != 4:
        raise ValueError(f"uuid_ints must have 4 ints, got {len(uuid_ints)}")
    doubles = nbtlib.List[nbtlib.Double]
    floats = nbtlib.List[nbtlib.Float]
    empty4 = nbtlib.List[nbtlib.Compound]([nbtlib.Compound() for _ in range(4)])
    empty2 = nbtlib.List[nbtlib.Compound]([nbtlib.Compound() for _ in range(2)])
    return nbtlib.Compound(
        {
            "id": nbtlib.String(entity_id),
            "UUID": nbtlib.IntArray(list(uuid_ints)),
            "Pos": doubles([nbtlib.Double(v) for v in pos]),
            "Motion": doubles([nbtlib.Double(0.0)] * 3),
            "Rotation": floats([_f32(rotation[0]), _f32(rotation[1])]),
            "FallDistance": _f32(0.0),
            "Fire": nbtlib.Short(-1),
            "Air": nbtlib.Short(300),
            "OnGround": nbtlib.Byte(1),
            "Invulnerable": nbtlib.Byte(0),
            "PortalCooldown": nbtlib.Int(0),
            "Health": _f32(health),
            "AbsorptionAmount": _f32(0.0),
            "HurtTime": nbtlib.Short(0),
            "HurtByTimestamp": nbtlib.Int(0),
            "DeathTime": nbtlib.Short(0),
            "FallFlying": nbtlib.Byte(0),
            "Brain": nbtlib.Compound({"memories": nbtlib.Compound()}),
            "ArmorItems": empty4,
            "HandItems": empty2,
            "ArmorDropChances": floats([_f32(0.085)] * 4),
            "HandDropChances": floats([_f32(0.085)] * 2),
            "CanPickUpLoot": nbtlib.Byte(0),
            "PersistenceRequired": nbtlib.Byte(1),
            "LeftHanded": nbtlib.Byte(0),
            "Age": nbtlib.Int(0),
            "ForcedAge": nbtlib.Int(0),
            "InLove": nbtlib.Int(0),
        }
    )


def entity_nbt_cow(
    uuid_ints: Sequence[int],
    pos: tuple[float, float, float],
    rotation: tuple[float, float] = (0.0, 0.0),
) -> nbtlib.Compound:
    """A vanilla 1.19.2 cow entity compound (adult, full health, persistent, standing still).

    Args:
        uuid_ints: The entity UUID as four signed ints (see :func:`uuid_to_ints`).
        pos: Feet position.
        rotation: (yaw, pitch) in degrees.
    """
    return _animal_nbt("minecraft:cow", 10.0, uuid_ints, pos, rotation)


def entity_nbt_chicken(
    uuid_ints: Sequence[int],
    pos: tuple[float, float, float],
    rotation: tuple[float, float] = (0.0, 0.0),
    egg_lay_time: int = 6000,
) -> nbtlib.Compound:
    """A vanilla 1.19.2 chicken (adult, 4 health, persistent, no jockey).

    Args:
        uuid_ints, pos, rotation: As :func:`entity_nbt_cow`.
        egg_lay_time: Ticks until its next egg (``EggLayTime``; vanilla draws 6000 + rand(6000) at birth and
            after every egg).
    """
    if egg_lay_time < 0:
        raise ValueError(f"egg_lay_time must be >= 0, got {egg_lay_time}")
    tag = _animal_nbt("minecraft:chicken", 4.0, uuid_ints, pos, rotation)
    tag["EggLayTime"] = nbtlib.Int(egg_lay_time)
    tag["IsChickenJockey"] = nbtlib.Byte(0)
    return tag


__all__ = ["Save", "copy_save", "entity_nbt_chicken", "entity_nbt_cow", "uuid_to_ints"]
