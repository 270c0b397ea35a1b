"""``kind=biome`` specs: the validated, versioned world-generation spec of one controlled biome.

Role: the single source of numbers for a controlled biome (terrain, surface, resources, ecology, runtime
controls), loaded from the JSON files shipped in ``mirrorcraft/datapacks/biomes/``. The Python world
generator (:mod:`mirrorcraft.worlds.generate`) interprets these specs to write the benchmark's Anvil saves,
and the datapack compiler can turn the same spec into a pack_format 10 ``worldgen`` datapack for a vanilla
server (best effort, statically audited only).

Why pydantic with ``extra="forbid"``: a misspelt field in a hand-edited or LLM-designed spec must fail loudly,
not silently fall back to a default. Every block, feature and entity name is checked against an allow-list,
and every number against bounds; :func:`parse_biome_spec` turns pydantic's errors into one
:class:`~mirrorcraft.errors.DatapackError` that names the file, the dotted field path and the reason.

The numbers in the five shipped specs are the paper's (appendix J, "Biome-Specific Datapack Setups") and
``spec/mirrorcraft.md`` ("Worlds"): gradient endpoints ``a``/``b``, noise weights, final scale 0.64, surface
noise intervals, the 11 shared custom ore bands, tree counts, sugar-cane attempts, cows (weight 24, groups
of 4) and the Peaceful/noon/clear runtime controls. The "ordinary vanilla ore placements" retained by the
paper's biomes are approximated by :data:`VANILLA_ORE_PLACEMENTS` (the 1.18+ overworld ore placed features,
reduced to attempts / size / a uniform or triangular origin-height distribution; air-exposure discard is
ignored) — see ``docs/worldgen.md``.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from mirrorcraft.errors import DatapackError

__all__ = [
    "ALLOWED_BIOMES",
    "ALLOWED_SURFACE_BLOCKS",
    "ALLOWED_ORE_BLOCKS",
    "BIOME_NAMES",
    "BiomeSpec",
    "CreatureSpawn",
    "EcologySpec",
    "OreBand",
    "ResourcesSpec",
    "RuntimeSpec",
    "SurfacePatch",
    "SurfaceSpec",
    "TerrainSpec",
    "TreeCount",
    "VANILLA_ORE_PLACEMENTS",
    "load_biome_spec",
    "parse_biome_spec",
    "shipped_biome_specs",
]

#: The five controlled biomes, by the name used in the catalogue (= the vanilla biome id's path).
BIOME_NAMES: tuple[str, ...] = ("plains", "taiga", "snowy_plains", "jungle", "savanna")

#: Vanilla biome ids a spec may use; keeping vanilla ids keeps the registry codec valid (architecture.md §6).
ALLOWED_BIOMES: frozenset[str] = frozenset(f"minecraft:{name}" for name in BIOME_NAMES)

#: Blocks a spec may put on the surface (top / under / patches / underwater floor).
ALLOWED_SURFACE_BLOCKS: frozenset[str] = frozenset(
    "minecraft:" + n
    for n in (
        "grass_block",
        "dirt",
        "coarse_dirt",
        "podzol",
        "gravel",
        "moss_block",
        "terracotta",
        "sand",
        "stone",
        "clay",
        "mud",
        "rooted_dirt",
    )
)

#: Blocks a spec may use as the deep (underground) block above / below Y=0.
ALLOWED_DEEP_BLOCKS: frozenset[str] = frozenset({"minecraft:stone", "minecraft:deepslate"})

#: Ore bands may place these (the stone variant; the deepslate variant is derived, see :attr:`OreBand.deepslate_block`).
ALLOWED_ORE_BLOCKS: frozenset[str] = frozenset(
    "minecraft:" + n
    for n in (
        "coal_ore",
        "iron_ore",
        "copper_ore",
        "gold_ore",
        "redstone_ore",
        "lapis_ore",
        "emerald_ore",
        "diamond_ore",
        "obsidian",
    )
)

#: Tree shapes the generator knows (one per controlled biome's vanilla tree).
TreeType = Literal["oak", "spruce", "jungle", "acacia"]

#: Passive creatures a spec may place at generation time.
ALLOWED_CREATURES: frozenset[str] = frozenset(
    {"minecraft:cow", "minecraft:sheep", "minecraft:pig", "minecraft:chicken"}
)

_STRICT = ConfigDict(extra="forbid", frozen=True)


class _Model(BaseModel):
    model_config = _STRICT


def _check_name(value: str, allowed: frozenset[str], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"{value!r} is not an allowed {what}; allowed: {sorted(allowed)}")
    return value


class TerrainSpec(_Model):
    """Relief: ``density = final_scale * (gradient(y) + w_c * contour(x,z) + w_u * undulation(x,z))``.

    The vertical gradient is 1.0 at ``Y = gradient_top`` (the paper's *a*) and −1.0 at ``Y =
    gradient_bottom`` (*b*), linear in between and clamped outside. Both noise fields are two-dimensional
    octave noises (first octave and amplitudes as in vanilla's ``NormalNoise`` parameters).
    """

    min_y: Literal[-64] = -64
    max_y: Literal[319] = 319
    sea_level: Annotated[int, Field(ge=-64, le=319)] = 63
    gradient_top: Annotated[int, Field(ge=-64, le=319, description="Y where the gradient is +1.0 (a)")]
    gradient_bottom: Annotated[int, Field(ge=-64, le=319, description="Y where the gradient is -1.0 (b)")]
    contour_weight: Annotated[float, Field(ge=0.0, le=2.0)]
    undulation_weight: Annotated[float, Field(ge=0.0, le=2.0)]
    contour_first_octave: Annotated[int, Field(ge=-12, le=0)] = -8
    contour_amplitudes: Annotated[
        list[Annotated[float, Field(ge=0.0, le=4.0)]], Field(min_length=1, max_length=8)
    ]
    undulation_first_octave: Annotated[int, Field(ge=-12, le=0)] = -5
    undulation_amplitudes: Annotated[
        list[Annotated[float, Field(ge=0.0, le=4.0)]], Field(min_length=1, max_length=8)
    ]
    final_scale: Annotated[float, Field(gt=0.0, le=4.0)] = 0.64
    caves: bool = True
    aquifers: bool = True
    deepslate_top: Annotated[int, Field(ge=-64, le=64, description="deepslate fully below this Y")] = 0
    deepslate_transition: Annotated[
        int, Field(ge=0, le=16, description="blend height above deepslate_top")
    ] = 8

    @model_validator(mode="after")
    def _gradient_order(self) -> TerrainSpec:
        if self.gradient_top >= self.gradient_bottom:
            raise ValueError(
                f"gradient_top ({self.gradient_top}) must be below gradient_bottom ({self.gradient_bottom}): "
                "the gradient runs from +1.0 (solid) at a to -1.0 (air) at b"
            )
        if not (self.gradient_top < self.sea_level + 64 and self.gradient_bottom > self.sea_level - 64):
            raise ValueError("the gradient band must lie within 64 blocks of sea_level")
        return self


class SurfacePatch(_Model):
    """A surface block chosen where the surface noise falls in one of ``intervals`` (inclusive)."""

    block: str
    intervals: Annotated[list[tuple[float, float]], Field(min_length=1, max_length=8)]

    @field_validator("block")
    @classmethod
    def _block(cls, v: str) -> str:
        return _check_name(v, ALLOWED_SURFACE_BLOCKS, "surface block")

    @field_validator("intervals")
    @classmethod
    def _intervals(cls, v: list[tuple[float, float]]) -> list[tuple[float, float]]:
        for lo, hi in v:
            if not (-1.0 <= lo <= hi <= 1.0):
                raise ValueError(f"interval [{lo}, {hi}] must satisfy -1 <= lo <= hi <= 1")
        return v


class SurfaceSpec(_Model):
    """Surface materials: top / under / underwater blocks, noise patches, snow and ice."""

    top_block: str = "minecraft:grass_block"
    under_block: str = "minecraft:dirt"
    under_depth: Annotated[int, Field(ge=1, le=8)] = 3
    underwater_block: str = "minecraft:dirt"
    deep_block: str = "minecraft:stone"
    deep_block_below_zero: str = "minecraft:deepslate"
    patches: Annotated[list[SurfacePatch], Field(max_length=8)] = []
    surface_noise_first_octave: Annotated[int, Field(ge=-10, le=0)] = -6
    surface_noise_amplitudes: Annotated[
        list[Annotated[float, Field(ge=0.0, le=4.0)]], Field(min_length=1, max_length=8)
    ] = [1.0, 1.0, 1.0]
    snow_layers: bool = False
    freeze_water: bool = False

    @field_validator("top_block", "under_block", "underwater_block")
    @classmethod
    def _surface(cls, v: str) -> str:
        return _check_name(v, ALLOWED_SURFACE_BLOCKS, "surface block")

    @field_validator("deep_block", "deep_block_below_zero")
    @classmethod
    def _deep(cls, v: str) -> str:
        return _check_name(v, ALLOWED_DEEP_BLOCKS, "deep block")


class OreBand(_Model):
    """One ore placement: ``attempts`` origins per chunk, blob ``size``, origin Y in [min_y, max_y] inclusive.

    ``distribution`` is ``uniform`` (the paper's custom bands) or ``triangle`` (vanilla's trapezoid height
    provider with plateau 0, used by the approximated vanilla placements). ``rarity`` > 1 means one attempt
    batch every ``rarity`` chunks on average (vanilla ``rarity_filter``).
    """

    name: Annotated[str, Field(pattern=r"^[a-z0-9_]{1,40}$")]
    block: str
    attempts: Annotated[int, Field(ge=0, le=256)]
    size: Annotated[int, Field(ge=1, le=64)]
    min_y: Annotated[int, Field(ge=-200, le=512, description="origins outside -64..319 are failed attempts")]
    max_y: Annotated[int, Field(ge=-200, le=512)]
    distribution: Literal["uniform", "triangle"] = "uniform"
    rarity: Annotated[int, Field(ge=1, le=1000)] = 1
    discard_on_air_chance: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0

    @field_validator("block")
    @classmethod
    def _block(cls, v: str) -> str:
        return _check_name(v, ALLOWED_ORE_BLOCKS, "ore block")

    @model_validator(mode="after")
    def _range(self) -> OreBand:
        if self.min_y > self.max_y:
            raise ValueError(f"min_y ({self.min_y}) must be <= max_y ({self.max_y})")
        return self

    @property
    def deepslate_block(self) -> str:
        """The block placed where the target is deepslate (obsidian has no deepslate variant)."""
        if self.block == "minecraft:obsidian":
            return self.block
        return "minecraft:deepslate_" + self.block.split(":", 1)[1]


class ResourcesSpec(_Model):
    """Ore placements: the vanilla ones retained (approximated) and the appended custom bands."""

    vanilla_placements: Annotated[list[OreBand], Field(max_length=32)] = []
    custom_bands: Annotated[list[OreBand], Field(min_length=1, max_length=32)]
    large_ore_veins: Literal[False] = False
    replaceable: tuple[Literal["minecraft:stone"], Literal["minecraft:deepslate"]] = (
        "minecraft:stone",
        "minecraft:deepslate",
    )

    @model_validator(mode="after")
    def _unique(self) -> ResourcesSpec:
        names = [b.name for b in self.vanilla_placements] + [b.name for b in self.custom_bands]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate ore band names: {dupes}")
        required = {"minecraft:iron_ore", "minecraft:diamond_ore", "minecraft:coal_ore"}
        have = {b.block for b in self.vanilla_placements + self.custom_bands if b.attempts > 0}
        if not required <= have:
            raise ValueError(f"task resources missing from the ore bands: {sorted(required - have)}")
        return self


class TreeCount(_Model):
    """One weighted outcome of the trees-per-chunk count (vanilla ``weighted_list`` count provider)."""

    count: Annotated[int, Field(ge=0, le=128)]
    weight: Annotated[int, Field(ge=1, le=100)]


class CreatureSpawn(_Model):
    """A creature spawner entry (vanilla biome ``spawners.creature``)."""

    type: str
    weight: Annotated[int, Field(ge=1, le=1000)]
    min_count: Annotated[int, Field(ge=1, le=16)]
    max_count: Annotated[int, Field(ge=1, le=16)]

    @field_validator("type")
    @classmethod
    def _type(cls, v: str) -> str:
        return _check_name(v, ALLOWED_CREATURES, "creature")

    @model_validator(mode="after")
    def _counts(self) -> CreatureSpawn:
        if self.min_count > self.max_count:
            raise ValueError(f"min_count ({self.min_count}) must be <= max_count ({self.max_count})")
        return self


class EcologySpec(_Model):
    """Trees, sugar cane, surface lakes and creatures."""

    tree: TreeType
    trees_per_chunk: Annotated[list[TreeCount], Field(min_length=1, max_length=8)]
    sugar_cane_attempts: Annotated[int, Field(ge=0, le=64, description="patch attempts per chunk")]
    sugar_cane_patch_tries: Annotated[int, Field(ge=1, le=64)] = 20
    surface_lake_rarity: Annotated[
        int, Field(ge=0, le=1000, description="one lake per N chunks; 0 = none")
    ] = 0
    creatures: Annotated[list[CreatureSpawn], Field(min_length=1, max_length=8)]
    creature_spawn_probability: Annotated[float, Field(ge=0.0, le=1.0)] = 0.1

    @property
    def expected_trees_per_chunk(self) -> float:
        """Mean of the weighted tree-count distribution."""
        total = sum(t.weight for t in self.trees_per_chunk)
        return sum(t.count * t.weight for t in self.trees_per_chunk) / total

    @model_validator(mode="after")
    def _cows(self) -> EcologySpec:
        if not any(c.type == "minecraft:cow" for c in self.creatures):
            raise ValueError("cows are required (leather for the Enchantment task)")
        return self


class RuntimeSpec(_Model):
    """Runtime controls written to level.dat (the paper's setup function)."""

    difficulty: Literal["peaceful"] = "peaceful"
    day_time: Annotated[int, Field(ge=0, le=23999)] = 6000
    do_daylight_cycle: Literal[False] = False
    do_weather_cycle: Literal[False] = False
    weather: Literal["clear"] = "clear"
    do_mob_spawning: bool = True
    do_patrol_spawning: Literal[False] = False
    do_trader_spawning: Literal[False] = False
    do_insomnia: Literal[False] = False

    def game_rules(self) -> dict[str, str]:
        """The vanilla game-rule strings for level.dat."""
        b = {True: "true", False: "false"}
        return {
            "doDaylightCycle": b[self.do_daylight_cycle],
            "doWeatherCycle": b[self.do_weather_cycle],
            "doMobSpawning": b[self.do_mob_spawning],
            "doPatrolSpawning": b[self.do_patrol_spawning],
            "doTraderSpawning": b[self.do_trader_spawning],
            "doInsomnia": b[self.do_insomnia],
        }


class BiomeSpec(_Model):
    """A complete ``kind=biome`` spec."""

    kind: Literal["biome"]
    id: Annotated[str, Field(pattern=r"^[a-z0-9_]{1,40}$")]
    version: Annotated[int, Field(ge=1)]
    description: Annotated[str, Field(max_length=2000)] = ""
    biome: str
    terrain: TerrainSpec
    surface: SurfaceSpec
    resources: ResourcesSpec
    ecology: EcologySpec
    runtime: RuntimeSpec = RuntimeSpec()

    @field_validator("biome")
    @classmethod
    def _biome(cls, v: str) -> str:
        return _check_name(v, ALLOWED_BIOMES, "biome id")


def _format_errors(err: ValidationError, source: str) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"]) or "<root>"
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}")
    return f"invalid kind=biome spec {source}: " + "; ".join(parts)


def parse_biome_spec(data: dict | str | bytes, source: str = "<spec>") -> BiomeSpec:
    """Validate a ``kind=biome`` spec.

    Args:
        data: the spec as a dict or JSON text.
        source: a name for error messages (usually the file path).

    Returns:
        The validated, immutable spec.

    Raises:
        DatapackError: the JSON is malformed or a field is missing, unknown, out of bounds or not
            allow-listed; the message names ``source``, the dotted field path and the reason.
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            raise DatapackError(
                f"{source}: not valid JSON at line {err.lineno} col {err.colno}: {err.msg}"
            ) from err
    try:
        return BiomeSpec.model_validate(data)
    except ValidationError as err:
        raise DatapackError(_format_errors(err, source)) from err


def load_biome_spec(name_or_path: str | Path) -> BiomeSpec:
    """Load a shipped spec by name (``"plains"``) or any spec file by path.

    Raises:
        DatapackError: unknown name, unreadable file or invalid spec.
    """
    if isinstance(name_or_path, str) and name_or_path in BIOME_NAMES:
        res = resources.files("mirrorcraft.datapacks") / "biomes" / f"{name_or_path}.json"
        return parse_biome_spec(res.read_text(encoding="utf-8"), source=f"biomes/{name_or_path}.json")
    path = Path(name_or_path)
    if not path.is_file():
        raise DatapackError(
            f"no biome spec named {str(name_or_path)!r} (shipped: {list(BIOME_NAMES)}) and no such file"
        )
    return parse_biome_spec(path.read_text(encoding="utf-8"), source=str(path))


def shipped_biome_specs() -> dict[str, BiomeSpec]:
    """The five shipped specs, keyed by biome name, in catalogue order."""
    return {name: load_biome_spec(name) for name in BIOME_NAMES}


def _band(name: str, block: str, attempts: int, size: int, lo: int, hi: int, **kw: object) -> dict:
    return {
        "name": name,
        "block": f"minecraft:{block}",
        "attempts": attempts,
        "size": size,
        "min_y": lo,
        "max_y": hi,
    } | kw


#: The 1.18+/1.19 overworld ore placed features, approximated (retained by the paper's biomes).
#: Sources: vanilla 1.19 ``worldgen/placed_feature/ore_*.json`` values as documented on the Minecraft Wiki's
#: "Ore" page. Simplifications: a trapezoid with zero plateau is a triangle; ``discard_on_air_chance`` is
#: recorded but not simulated (buried variants behave like ordinary ones); as in vanilla, origins sampled
#: outside the world (-64..319) are failed attempts.
VANILLA_ORE_PLACEMENTS: tuple[dict, ...] = (
    _band("vanilla_coal_upper", "coal_ore", 30, 17, 136, 319),
    _band(
        "vanilla_coal_lower", "coal_ore", 20, 17, 0, 192, distribution="triangle", discard_on_air_chance=0.5
    ),
    _band("vanilla_iron_upper", "iron_ore", 90, 9, 80, 384, distribution="triangle"),
    _band("vanilla_iron_middle", "iron_ore", 10, 9, -24, 56, distribution="triangle"),
    _band("vanilla_iron_small", "iron_ore", 10, 4, -64, 72),
    _band("vanilla_copper", "copper_ore", 16, 10, -16, 112, distribution="triangle"),
    _band("vanilla_gold", "gold_ore", 4, 9, -64, 32, distribution="triangle", discard_on_air_chance=0.5),
    _band("vanilla_gold_lower", "gold_ore", 1, 9, -64, -48, rarity=2),
    _band("vanilla_redstone", "redstone_ore", 4, 8, -64, 15),
    _band("vanilla_redstone_lower", "redstone_ore", 8, 8, -96, -32, distribution="triangle"),
    _band("vanilla_lapis", "lapis_ore", 2, 7, -32, 32, distribution="triangle"),
    _band("vanilla_lapis_buried", "lapis_ore", 4, 7, -64, 64, discard_on_air_chance=1.0),
    _band(
        "vanilla_diamond", "diamond_ore", 7, 4, -144, 16, distribution="triangle", discard_on_air_chance=0.5
    ),
    _band("vanilla_diamond_large", "diamond_ore", 1, 12, -144, 16, distribution="triangle", rarity=9),
    _band(
        "vanilla_diamond_buried",
        "diamond_ore",
        4,
        8,
        -144,
        16,
        distribution="triangle",
        discard_on_air_chance=1.0,
    ),
)

#: The paper's 11 shared custom bands (spec/mirrorcraft.md "Worlds"; appendix J tables 10-14).
CUSTOM_ORE_BANDS: tuple[dict, ...] = (
    _band("coal", "coal_ore", 96, 20, 44, 112),
    _band("iron", "iron_ore", 84, 16, 40, 92),
    _band("copper", "copper_ore", 72, 20, 40, 96),
    _band("gold", "gold_ore", 48, 12, 32, 72),
    _band("redstone", "redstone_ore", 48, 14, 28, 68),
    _band("lapis", "lapis_ore", 36, 12, 30, 68),
    _band("emerald", "emerald_ore", 24, 8, 40, 80),
    _band("diamond_main", "diamond_ore", 40, 10, 36, 68),
    _band("diamond_shallow", "diamond_ore", 8, 6, 52, 72),
    _band("obsidian_main", "obsidian", 8, 12, 36, 64),
    _band("obsidian_shallow", "obsidian", 10, 10, 50, 72),
)
