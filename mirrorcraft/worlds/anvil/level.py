"""``level.dat`` for a 1.19.2 save: the benchmark controls and a generator that never adds terrain.

``level.dat`` is gzip-compressed NBT with one compound ``Data`` (https://minecraft.wiki/w/Java_Edition_level_format).
We write the fields a 1.19.2 server reads when it opens a world it did not create: version info
(``DataVersion`` 3120, ``Version.Name`` "1.19.2"), spawn, time, weather, difficulty, game rules, world
border, data packs and ``WorldGenSettings``.

Generator choice: our Python generator is the source of truth for terrain and worlds are pregenerated out
to the world border. A vanilla server still generates chunks *outside* the border when a player's view
distance reaches past it, so the overworld uses a **void superflat** generator (one air layer, plains
biome, no features, no lakes, no structures): anything vanilla adds beyond the border is empty air instead
of mismatched vanilla terrain. The nether and end keep their vanilla generators so the world is a normal
three-dimension save. ``generate_features`` is off, so no structures are placed either.

The gzip header is written with ``mtime=0`` and ``LastPlayed`` is 0 by default, so the same settings
always give the same bytes.
"""

from __future__ import annotations

import copy
import gzip
from pathlib import Path
from typing import Any

import nbtlib
from pydantic import BaseModel, ConfigDict, Field

from mirrorcraft import DATA_VERSION, MINECRAFT_VERSION
from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil.region import atomic_write, nbt_from_bytes, nbt_to_bytes

# Benchmark controls (paper: fixed noon, clear weather, peaceful, no wandering events).
BENCHMARK_GAME_RULES: dict[str, str] = {
    "doDaylightCycle": "false",
    "doWeatherCycle": "false",
    "doPatrolSpawning": "false",
    "doTraderSpawning": "false",
    "doInsomnia": "false",
    "doWardenSpawning": "false",
    "doMobSpawning": "false",
    "disableRaids": "true",
    "doFireTick": "false",
    "spawnRadius": "0",
}

VOID_FLAT_GENERATOR: dict[str, Any] = {
    "type": "minecraft:flat",
    "settings": {
        "biome": "minecraft:plains",
        "features": False,
        "lakes": False,
        "layers": [{"block": "minecraft:air", "height": 1}],
        "structure_overrides": [],
    },
}


def _to_nbt(value: Any) -> Any:
    """Convert JSON-like Python values to NBT tags (bool -> Byte, int -> Int, float -> Double)."""
    if isinstance(value, nbtlib.tag.Base):
        return value
    if isinstance(value, bool):
        return nbtlib.Byte(1 if value else 0)
    if isinstance(value, int):
        return nbtlib.Int(value)
    if isinstance(value, float):
        return nbtlib.Double(value)
    if isinstance(value, str):
        return nbtlib.String(value)
    if isinstance(value, dict):
        return nbtlib.Compound({str(k): _to_nbt(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        items = [_to_nbt(v) for v in value]
        return nbtlib.List(items) if items else nbtlib.List[nbtlib.String]([])
    raise TypeError(f"cannot store {type(value).__name__} in NBT")


def _vanilla_dimensions(seed: int, overworld_generator: dict[str, Any]) -> nbtlib.Compound:
    dims = {
        "minecraft:overworld": {"type": "minecraft:overworld", "generator": overworld_generator},
        "minecraft:the_nether": {
            "type": "minecraft:the_nether",
            "generator": {
                "type": "minecraft:noise",
                "settings": "minecraft:nether",
                "biome_source": {"type": "minecraft:multi_noise", "preset": "minecraft:nether"},
            },
        },
        "minecraft:the_end": {
            "type": "minecraft:the_end",
            "generator": {
                "type": "minecraft:noise",
                "settings": "minecraft:end",
                "biome_source": {"type": "minecraft:the_end"},
            },
        },
    }
    tag = _to_nbt(dims)
    # Pre-1.19 generators carried a seed; 1.19.2 ignores the extra field, older readers need it.
    for key in ("minecraft:the_nether", "minecraft:the_end"):
        tag[key]["generator"]["seed"] = nbtlib.Long(seed)
    return tag


class LevelData(BaseModel):
    """The parts of ``level.dat`` MirrorCraft controls.

    Defaults are the benchmark controls: survival, peaceful, noon (``day_time`` 6000) with the daylight
    cycle off, clear weather with the weather cycle off, and :data:`BENCHMARK_GAME_RULES`.
    """

    model_config = ConfigDict(extra="forbid")

    level_name: str
    seed: int
    spawn: tuple[int, int, int]
    data_version: int = DATA_VERSION
    version_name: str = MINECRAFT_VERSION
    game_type: int = 0
    difficulty: int = 0
    difficulty_locked: bool = True
    hardcore: bool = False
    allow_commands: bool = False
    time: int = 0
    day_time: int = 6000
    raining: bool = False
    thundering: bool = False
    last_played: int = 0
    game_rules: dict[str, str] = Field(default_factory=lambda: dict(BENCHMARK_GAME_RULES))
    border_center: tuple[float, float] = (0.0, 0.0)
    border_size: float = 59999968.0
    enabled_datapacks: list[str] = Field(default_factory=lambda: ["vanilla"])
    disabled_datapacks: list[str] = Field(default_factory=list)
    generator: dict[str, Any] = Field(default_factory=lambda: copy.deepcopy(VOID_FLAT_GENERATOR))

    def to_nbt(self) -> nbtlib.Compound:
        """The root compound (``{"Data": {...}}``) of ``level.dat``."""
        sx, sy, sz = self.spawn
        data = {
            "DataVersion": nbtlib.Int(self.data_version),
            "version": nbtlib.Int(19133),  # NBT format version of Anvil level.dat
            "Version": {
                "Id": nbtlib.Int(self.data_version),
                "Name": self.version_name,
                "Series": "main",
                "Snapshot": False,
            },
            "LevelName": self.level_name,
            "initialized": True,
            "WasModded": False,
            "ServerBrands": ["mirrorcraft"],
            "allowCommands": self.allow_commands,
            "GameType": nbtlib.Int(self.game_type),
            "Difficulty": nbtlib.Byte(self.difficulty),
            "DifficultyLocked": self.difficulty_locked,
            "hardcore": self.hardcore,
            "LastPlayed": nbtlib.Long(self.last_played),
            "Time": nbtlib.Long(self.time),
            "DayTime": nbtlib.Long(self.day_time),
            "SpawnX": nbtlib.Int(sx),
            "SpawnY": nbtlib.Int(sy),
            "SpawnZ": nbtlib.Int(sz),
            "SpawnAngle": nbtlib.Float(0.0),
            "raining": self.raining,
            "rainTime": nbtlib.Int(0),
            "thundering": self.thundering,
            "thunderTime": nbtlib.Int(0),
            "clearWeatherTime": nbtlib.Int(0),
            "GameRules": {k: str(v) for k, v in sorted(self.game_rules.items())},
            "BorderCenterX": float(self.border_center[0]),
            "BorderCenterZ": float(self.border_center[1]),
            "BorderSize": float(self.border_size),
            "BorderSizeLerpTarget": float(self.border_size),
            "BorderSizeLerpTime": nbtlib.Long(0),
            "BorderSafeZone": 5.0,
            "BorderDamagePerBlock": 0.2,
            "BorderWarningBlocks": 5.0,
            "BorderWarningTime": 15.0,
            "DataPacks": {
                "Enabled": nbtlib.List[nbtlib.String]([nbtlib.String(p) for p in self.enabled_datapacks]),
                "Disabled": nbtlib.List[nbtlib.String]([nbtlib.String(p) for p in self.disabled_datapacks]),
            },
            "WanderingTraderSpawnChance": nbtlib.Int(25),
            "WanderingTraderSpawnDelay": nbtlib.Int(24000),
            "ScheduledEvents": nbtlib.List[nbtlib.Compound]([]),
            "CustomBossEvents": nbtlib.Compound(),
            "WorldGenSettings": {
                "seed": nbtlib.Long(self.seed),
                "generate_features": False,
                "bonus_chest": False,
                "dimensions": _vanilla_dimensions(self.seed, self.generator),
            },
        }
        return nbtlib.Compound({"Data": _to_nbt(data)})

    @classmethod
    def from_nbt(cls, root: nbtlib.Compound, what: str = "level.dat") -> LevelData:
        """Read the fields back from a ``level.dat`` root compound.

        Raises:
            WorldError: Missing ``Data`` or a required field, naming the field.
        """
        if "Data" not in root:
            raise WorldError(f"{what}: no 'Data' compound")
        d = root["Data"]

        def need(key: str) -> Any:
            if key not in d:
                raise WorldError(f"{what}: missing field Data.{key}")
            return d[key]

        wgs = d.get("WorldGenSettings", {})
        try:
            generator = wgs["dimensions"]["minecraft:overworld"]["generator"].unpack()
        except (KeyError, TypeError):
            generator = copy.deepcopy(VOID_FLAT_GENERATOR)
        packs = d.get("DataPacks", {})
        version = d.get("Version", {})
        return cls(
            level_name=str(d.get("LevelName", "")),
            seed=int(wgs.get("seed", 0)),
            spawn=(int(need("SpawnX")), int(need("SpawnY")), int(need("SpawnZ"))),
            data_version=int(need("DataVersion")),
            version_name=str(version.get("Name", "")),
            game_type=int(d.get("GameType", 0)),
            difficulty=int(d.get("Difficulty", 2)),
            difficulty_locked=bool(int(d.get("DifficultyLocked", 0))),
            hardcore=bool(int(d.get("hardcore", 0))),
            allow_commands=bool(int(d.get("allowCommands", 0))),
            time=int(d.get("Time", 0)),
            day_time=int(d.get("DayTime", 0)),
            raining=bool(int(d.get("raining", 0))),
            thundering=bool(int(d.get("thundering", 0))),
            last_played=int(d.get("LastPlayed", 0)),
            game_rules={str(k): str(v) for k, v in d.get("GameRules", {}).items()},
            border_center=(float(d.get("BorderCenterX", 0.0)), float(d.get("BorderCenterZ", 0.0))),
            border_size=float(d.get("BorderSize", 59999968.0)),
            enabled_datapacks=[str(p) for p in packs.get("Enabled", [])],
            disabled_datapacks=[str(p) for p in packs.get("Disabled", [])],
            generator=generator,
        )

    def save(self, path: Path) -> None:
        """Write ``level.dat`` (gzip with a zero mtime, atomic rename)."""
        atomic_write(Path(path), gzip.compress(nbt_to_bytes(self.to_nbt()), compresslevel=6, mtime=0))

    @classmethod
    def load(cls, path: Path, data_version: int | None = DATA_VERSION) -> LevelData:
        """Read ``level.dat``.

        Raises:
            WorldError: Missing file, not gzip, malformed NBT, or a DataVersion other than ``data_version``.
        """
        path = Path(path)
        if not path.is_file():
            raise WorldError(f"{path}: level.dat not found")
        try:
            raw = gzip.decompress(path.read_bytes())
        except (OSError, EOFError) as err:
            raise WorldError(f"{path}: not a gzip-compressed level.dat ({err})") from err
        level = cls.from_nbt(nbt_from_bytes(raw, str(path)), str(path))
        if data_version is not None and level.data_version != data_version:
            raise WorldError(
                f"{path}: DataVersion {level.data_version}, expected {data_version} (Minecraft 1.19.2)"
            )
        return level
