"""Chunk columns and sections in the 1.18+ Anvil NBT layout (DataVersion 3120, Minecraft 1.19.2).

Block states here are ``(name, sorted properties)`` tuples, never numeric ids: numeric ids are a
protocol concern and are assigned by the server through :mod:`mirrorcraft.gamedata`. The on-disk layout
follows https://minecraft.wiki/w/Chunk_format (1.18+):

* root: ``DataVersion``, ``xPos``, ``yPos`` (lowest section, -4), ``zPos``, ``Status`` (``"full"`` in
  1.19.2; 1.20+ writes ``"minecraft:full"``, both are accepted on read), ``LastUpdate``,
  ``InhabitedTime``, ``isLightOn``, ``sections``, ``block_entities``, ``Heightmaps``, ``fluid_ticks``,
  ``block_ticks``, ``PostProcessing``, ``structures``;
* section: ``Y`` (byte), ``block_states`` {``palette`` [{``Name``, ``Properties``}], ``data``},
  ``biomes`` {``palette`` [str], ``data``}, ``SkyLight``/``BlockLight`` (2048 bytes, one nibble per
  block, index ``y*256 + z*16 + x``, even index in the low nibble);
* ``data`` is absent when the palette has one entry; block states use ``max(4, ceillog2(n))`` bits,
  biomes ``ceillog2(n)`` bits (see :mod:`.bits`); heightmaps use 9 bits per column (384 + 1 values)
  and store ``top_y + 1 - min_y``.

Tags we do not model (ticks, structures, post-processing, blending data...) are kept verbatim in
``Chunk.extra`` so a read/write round trip does not lose them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import nbtlib
import numpy as np

from mirrorcraft import DATA_VERSION
from mirrorcraft.errors import WorldError
from mirrorcraft.worlds.anvil import bits

BlockState = tuple[str, tuple[tuple[str, str], ...]]
"""A block state: ``("minecraft:oak_log", (("axis", "y"),))`` with properties sorted by name."""

AIR: BlockState = ("minecraft:air", ())
DEFAULT_BIOME = "minecraft:plains"
SECTION_VOLUME = 4096
BIOME_VOLUME = 64
HEIGHTMAP_TYPES = ("MOTION_BLOCKING", "MOTION_BLOCKING_NO_LEAVES", "OCEAN_FLOOR", "WORLD_SURFACE")

_AIRS = frozenset({"minecraft:air", "minecraft:cave_air", "minecraft:void_air"})
# Fluid blocks and blocks that always carry a fluid state (vanilla counts them as MOTION_BLOCKING).
_FLUIDS = frozenset(
    {
        "minecraft:water",
        "minecraft:lava",
        "minecraft:bubble_column",
        "minecraft:kelp",
        "minecraft:kelp_plant",
        "minecraft:seagrass",
        "minecraft:tall_seagrass",
    }
)
# Blocks whose material does not block motion (Material.blocksMotion() false in 1.19.2). A heuristic
# default only: pass ``is_motion_blocking`` built from real game data for exact heightmaps.
_NON_SOLID = frozenset(
    {
        "minecraft:grass",
        "minecraft:tall_grass",
        "minecraft:fern",
        "minecraft:large_fern",
        "minecraft:dead_bush",
        "minecraft:sugar_cane",
        "minecraft:vine",
        "minecraft:snow",
        "minecraft:cobweb",
        "minecraft:torch",
        "minecraft:wall_torch",
        "minecraft:redstone_wire",
        "minecraft:wheat",
        "minecraft:carrots",
        "minecraft:potatoes",
        "minecraft:beetroots",
        "minecraft:dandelion",
        "minecraft:poppy",
        "minecraft:blue_orchid",
        "minecraft:allium",
        "minecraft:azure_bluet",
        "minecraft:oxeye_daisy",
        "minecraft:cornflower",
        "minecraft:lily_of_the_valley",
        "minecraft:wither_rose",
        "minecraft:sunflower",
        "minecraft:lilac",
        "minecraft:rose_bush",
        "minecraft:peony",
        "minecraft:brown_mushroom",
        "minecraft:red_mushroom",
        "minecraft:lever",
        "minecraft:ladder",
        "minecraft:fire",
        "minecraft:sweet_berry_bush",
        # Material.PLANT in 1.19.2 (no motion blocking although cocoa has a collision box): the arenas' farms.
        "minecraft:cocoa",
        "minecraft:melon_stem",
        "minecraft:pumpkin_stem",
        "minecraft:attached_melon_stem",
        "minecraft:attached_pumpkin_stem",
    }
)
_NON_SOLID_SUFFIXES = ("_sapling", "_tulip", "_button", "_pressure_plate", "_rail", "rail", "_carpet")


def make_state(name: str, properties: dict[str, str] | None = None) -> BlockState:
    """Build a normalised :data:`BlockState` (``minecraft:`` namespace added, properties sorted)."""
    if ":" not in name:
        name = f"minecraft:{name}"
    props = tuple(sorted((str(k), str(v)) for k, v in (properties or {}).items()))
    return (name, props)


def is_air(state: BlockState) -> bool:
    """True for air, cave air and void air."""
    return state[0] in _AIRS


def has_fluid(state: BlockState) -> bool:
    """True if the state carries a fluid (water/lava blocks, waterlogged blocks, kelp, seagrass...)."""
    return state[0] in _FLUIDS or ("waterlogged", "true") in state[1]


def default_blocks_motion(state: BlockState) -> bool:
    """Heuristic for vanilla's ``blocksMotion()``: everything but air, fluids, plants and decorations.

    This is what the heightmaps use when the caller gives no predicate. It is exact for the blocks the
    MirrorCraft generators place; callers with other blocks should pass a predicate from game data.
    """
    name = state[0]
    if name in _AIRS or name in _FLUIDS or name in _NON_SOLID:
        return False
    return not name.endswith(_NON_SOLID_SUFFIXES)


def is_leaves(state: BlockState) -> bool:
    """True for any ``*_leaves`` block (excluded from MOTION_BLOCKING_NO_LEAVES)."""
    return state[0].endswith("_leaves")


def _state_to_nbt(state: BlockState) -> nbtlib.Compound:
    tag = nbtlib.Compound({"Name": nbtlib.String(state[0])})
    if state[1]:
        tag["Properties"] = nbtlib.Compound({k: nbtlib.String(v) for k, v in state[1]})
    return tag


def _state_from_nbt(tag: nbtlib.Compound, what: str) -> BlockState:
    try:
        name = str(tag["Name"])
    except (KeyError, TypeError) as err:
        raise WorldError(f"{what}: palette entry without Name: {tag!r}") from err
    props = tag.get("Properties") or {}
    return (name, tuple(sorted((str(k), str(v)) for k, v in props.items())))


def pack_nibbles(values: np.ndarray) -> nbtlib.ByteArray:
    """Pack a (16,16,16) [y,z,x] array of 0..15 into vanilla's 2048-byte nibble array."""
    flat = np.asarray(values, dtype=np.uint8).ravel()
    if flat.size != SECTION_VOLUME:
        raise ValueError(f"light array must have 4096 entries, got {flat.size}")
    if flat.size and int(flat.max()) > 15:
        raise ValueError(f"light level {int(flat.max())} > 15")
    packed = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)
    return nbtlib.ByteArray(packed.view(np.int8))


def unpack_nibbles(array: np.ndarray, what: str) -> np.ndarray:
    """Inverse of :func:`pack_nibbles`; returns uint8 (16,16,16) [y,z,x]."""
    raw = np.asarray(array).astype(np.int8).view(np.uint8)
    if raw.size != SECTION_VOLUME // 2:
        raise WorldError(f"{what}: light array has {raw.size} bytes, expected 2048")
    out = np.empty(SECTION_VOLUME, dtype=np.uint8)
    out[0::2] = raw & 0x0F
    out[1::2] = raw >> 4
    return out.reshape(16, 16, 16)


@dataclass
class Section:
    """One 16x16x16 section of a chunk column.

    Attributes:
        y: Section index (-4..19 in the overworld).
        palette: Block states used by this section.
        blocks: uint16 (16,16,16) ``[y, z, x]`` indices into ``palette``.
        biome_palette: Biome ids such as ``"minecraft:plains"``.
        biomes: uint8 (4,4,4) ``[y, z, x]`` indices into ``biome_palette`` (one cell per 4x4x4 blocks).
        sky_light: uint8 (16,16,16) 0..15, or None when not stored.
        block_light: Same for block light.
    """

    y: int
    palette: list[BlockState]
    blocks: np.ndarray
    biome_palette: list[str]
    biomes: np.ndarray
    sky_light: np.ndarray | None = None
    block_light: np.ndarray | None = None

    def to_nbt(self, what: str = "section") -> nbtlib.Compound:
        """Serialise to the 1.18+ section compound.

        Raises:
            WorldError: If an index is outside its palette or an array has the wrong shape.
        """
        blocks = np.asarray(self.blocks)
        biomes = np.asarray(self.biomes)
        if blocks.shape != (16, 16, 16) or biomes.shape != (4, 4, 4):
            raise WorldError(
                f"{what}: blocks must be (16,16,16) and biomes (4,4,4), got {blocks.shape}, {biomes.shape}"
            )
        if not self.palette or not self.biome_palette:
            raise WorldError(f"{what}: empty block or biome palette")
        if int(blocks.max()) >= len(self.palette) or int(biomes.max()) >= len(self.biome_palette):
            raise WorldError(f"{what}: palette index out of range")
        states = nbtlib.Compound(
            {"palette": nbtlib.List[nbtlib.Compound]([_state_to_nbt(s) for s in self.palette])}
        )
        if len(self.palette) > 1:
            states["data"] = nbtlib.LongArray(
                bits.pack(blocks.ravel(), bits.block_state_bits(len(self.palette)))
            )
        biome_tag = nbtlib.Compound(
            {"palette": nbtlib.List[nbtlib.String]([nbtlib.String(b) for b in self.biome_palette])}
        )
        if len(self.biome_palette) > 1:
            biome_tag["data"] = nbtlib.LongArray(
                bits.pack(biomes.ravel(), bits.biome_bits(len(self.biome_palette)))
            )
        tag = nbtlib.Compound({"Y": nbtlib.Byte(self.y), "block_states": states, "biomes": biome_tag})
        if self.block_light is not None:
            tag["BlockLight"] = pack_nibbles(self.block_light)
        if self.sky_light is not None:
            tag["SkyLight"] = pack_nibbles(self.sky_light)
        return tag

    @classmethod
    def from_nbt(cls, tag: nbtlib.Compound, what: str) -> Section:
        """Parse a section compound; a missing ``block_states`` means all air, missing ``biomes`` plains.

        Raises:
            WorldError: Naming ``what`` and the field that is malformed.
        """
        try:
            y = int(tag["Y"])
        except KeyError as err:
            raise WorldError(f"{what}: section without Y") from err
        what = f"{what} section Y={y}"
        palette: list[BlockState] = [AIR]
        blocks = np.zeros((16, 16, 16), dtype=np.uint16)
        if "block_states" in tag:
            states = tag["block_states"]
            palette = [_state_from_nbt(t, f"{what} block_states") for t in states.get("palette", [])]
            if not palette:
                raise WorldError(f"{what}: block_states.palette is empty")
            if len(palette) > 1:
                if "data" not in states:
                    raise WorldError(f"{what}: block_states.data missing for a {len(palette)}-entry palette")
                idx = bits.unpack(
                    states["data"],
                    bits.block_state_bits(len(palette)),
                    SECTION_VOLUME,
                    what=f"{what} block_states.data",
                )
                if int(idx.max()) >= len(palette):
                    raise WorldError(
                        f"{what}: block_states.data index {int(idx.max())} >= palette size {len(palette)}"
                    )
                blocks = idx.astype(np.uint16).reshape(16, 16, 16)
        biome_palette = [DEFAULT_BIOME]
        biomes = np.zeros((4, 4, 4), dtype=np.uint8)
        if "biomes" in tag:
            btag = tag["biomes"]
            biome_palette = [str(b) for b in btag.get("palette", [])]
            if not biome_palette:
                raise WorldError(f"{what}: biomes.palette is empty")
            if len(biome_palette) > 1:
                if "data" not in btag:
                    raise WorldError(f"{what}: biomes.data missing for a {len(biome_palette)}-entry palette")
                idx = bits.unpack(
                    btag["data"],
                    bits.biome_bits(len(biome_palette)),
                    BIOME_VOLUME,
                    what=f"{what} biomes.data",
                )
                if int(idx.max()) >= len(biome_palette):
                    raise WorldError(
                        f"{what}: biomes.data index {int(idx.max())} >= palette size {len(biome_palette)}"
                    )
                biomes = idx.astype(np.uint8).reshape(4, 4, 4)
        sky = unpack_nibbles(tag["SkyLight"], f"{what} SkyLight") if "SkyLight" in tag else None
        block = unpack_nibbles(tag["BlockLight"], f"{what} BlockLight") if "BlockLight" in tag else None
        return cls(y, palette, blocks, biome_palette, biomes, sky, block)


def _compact(indices: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The used palette indices (ascending) and ``indices`` renumbered into them (np.unique, but faster)."""
    flat = indices.ravel().astype(np.intp)
    used = np.flatnonzero(np.bincount(flat, minlength=size))
    remap = np.zeros(size, dtype=np.uint16)
    remap[used] = np.arange(len(used), dtype=np.uint16)
    return used, remap[flat]


MotionPredicate = Callable[[BlockState], bool] | np.ndarray | Sequence[bool]


def _palette_mask(palette: Sequence[BlockState], pred: MotionPredicate | None) -> np.ndarray:
    if pred is None:
        return np.array([default_blocks_motion(s) for s in palette], dtype=bool)
    if callable(pred):
        return np.array([bool(pred(s)) for s in palette], dtype=bool)
    mask = np.asarray(pred, dtype=bool)
    if mask.shape != (len(palette),):
        raise ValueError(
            f"is_motion_blocking array has shape {mask.shape}, palette has {len(palette)} entries"
        )
    return mask


def compute_heightmaps(
    blocks: np.ndarray,
    palette: Sequence[BlockState],
    min_y: int = -64,
    is_motion_blocking: MotionPredicate | None = None,
) -> dict[str, np.ndarray]:
    """Compute the four full-chunk heightmaps of a dense column.

    ``is_motion_blocking`` says which palette entries block motion (vanilla ``blocksMotion()``); it may
    be a callable or a boolean array over ``palette``; default :func:`default_blocks_motion`. Fluids are
    added for MOTION_BLOCKING as vanilla does.

    Args:
        blocks: (H,16,16) ``[y, z, x]`` indices into ``palette``.
        palette: The block states.
        min_y: World y of ``blocks[0]``.
        is_motion_blocking: Predicate as above.

    Returns:
        Name -> int32 (16,16) ``[z, x]`` heights: y + 1 of the highest matching block, ``min_y`` if none.
    """
    solid = _palette_mask(palette, is_motion_blocking)
    fluid = np.array([has_fluid(s) for s in palette], dtype=bool)
    leaves = np.array([is_leaves(s) for s in palette], dtype=bool)
    nonair = np.array([not is_air(s) for s in palette], dtype=bool)
    masks = {
        "WORLD_SURFACE": nonair,
        "MOTION_BLOCKING": solid | fluid,
        "MOTION_BLOCKING_NO_LEAVES": (solid | fluid) & ~leaves,
        "OCEAN_FLOOR": solid,
    }
    out: dict[str, np.ndarray] = {}
    height = blocks.shape[0]
    for name, mask in masks.items():
        hit = mask[blocks]  # (H,16,16)
        top_from_above = np.argmax(hit[::-1], axis=0)
        any_hit = hit.any(axis=0)
        out[name] = np.where(any_hit, min_y + height - top_from_above, min_y).astype(np.int32)
    return out


@dataclass
class Chunk:
    """A chunk column as stored in ``region/r.x.z.mca``.

    Attributes:
        x, z: Chunk coordinates.
        sections: Section index -> :class:`Section`.
        block_entities: Block entity compounds (with world ``x``/``y``/``z`` and ``id``).
        heightmaps: ``"MOTION_BLOCKING"``, ``"WORLD_SURFACE"``... -> int (16,16) ``[z, x]`` absolute heights
            (y + 1 of the top block; the world's ``min_y`` when the column is empty).
        status: Generation status; ``"full"`` for playable chunks (1.19.2 writes it without namespace).
        inhabited_time, last_update: Vanilla ``InhabitedTime`` / ``LastUpdate`` ticks.
        is_light_on: ``isLightOn``; when true vanilla trusts the stored light, otherwise it relights.
        y_pos: Lowest section index (``yPos``), -4 in the 1.19.2 overworld.
        extra: Other root tags (ticks, structures, PostProcessing...) kept verbatim.
    """

    x: int
    z: int
    sections: dict[int, Section]
    block_entities: list[nbtlib.Compound] = field(default_factory=list)
    heightmaps: dict[str, np.ndarray] = field(default_factory=dict)
    status: str = "full"
    inhabited_time: int = 0
    last_update: int = 0
    is_light_on: bool = True
    y_pos: int = -4
    extra: nbtlib.Compound = field(default_factory=nbtlib.Compound)

    @property
    def min_y(self) -> int:
        """World y of the bottom of section ``y_pos``."""
        return self.y_pos * 16

    @classmethod
    def from_dense(
        cls,
        x: int,
        z: int,
        blocks: np.ndarray,
        palette: Sequence[BlockState],
        biomes: np.ndarray,
        biome_palette: Sequence[str],
        min_y: int = -64,
        sky_light: np.ndarray | None = None,
        block_light: np.ndarray | None = None,
        *,
        is_motion_blocking: MotionPredicate | None = None,
        block_entities: Sequence[nbtlib.Compound] = (),
        is_light_on: bool | None = None,
    ) -> Chunk:
        """Build a chunk from dense arrays, with compact per-section palettes and computed heightmaps.

        Args:
            x, z: Chunk coordinates.
            blocks: (H,16,16) ``[y, z, x]`` indices into ``palette`` (H = 384 for the overworld).
            palette: Block states.
            biomes: (H/4,4,4) ``[y, z, x]`` indices into ``biome_palette``.
            biome_palette: Biome ids.
            min_y: World y of ``blocks[0]`` (multiple of 16).
            sky_light, block_light: Optional (H,16,16) 0..15 light arrays.
            is_motion_blocking: See :func:`compute_heightmaps`.
            block_entities: Block entity compounds to store.
            is_light_on: Defaults to True when ``sky_light`` is given, else False (vanilla relights).

        Raises:
            ValueError: On inconsistent shapes or out-of-range indices.
        """
        blocks = np.asarray(blocks)
        biomes = np.asarray(biomes)
        height = blocks.shape[0]
        if blocks.ndim != 3 or blocks.shape[1:] != (16, 16) or height % 16 or min_y % 16:
            raise ValueError(
                f"blocks must be (16k,16,16) with min_y a multiple of 16; got {blocks.shape}, {min_y}"
            )
        if biomes.shape != (height // 4, 4, 4):
            raise ValueError(f"biomes must be {(height // 4, 4, 4)}, got {biomes.shape}")
        if int(blocks.max()) >= len(palette) or int(biomes.max()) >= len(biome_palette):
            raise ValueError("index outside palette in blocks or biomes")
        for name, arr in (("sky_light", sky_light), ("block_light", block_light)):
            if arr is not None and np.asarray(arr).shape != blocks.shape:
                raise ValueError(f"{name} must have shape {blocks.shape}")
        palette = list(palette)
        biome_palette = list(biome_palette)
        sections: dict[int, Section] = {}
        for i in range(height // 16):
            sl = blocks[i * 16 : (i + 1) * 16]
            used, inverse = _compact(sl, len(palette))
            bsl = biomes[i * 4 : (i + 1) * 4]
            bused, binverse = _compact(bsl, len(biome_palette))
            sy = min_y // 16 + i
            sections[sy] = Section(
                y=sy,
                palette=[palette[int(j)] for j in used],
                blocks=inverse.reshape(16, 16, 16).astype(np.uint16),
                biome_palette=[biome_palette[int(j)] for j in bused],
                biomes=binverse.reshape(4, 4, 4).astype(np.uint8),
                sky_light=None
                if sky_light is None
                else np.asarray(sky_light[i * 16 : (i + 1) * 16], dtype=np.uint8),
                block_light=None
                if block_light is None
                else np.asarray(block_light[i * 16 : (i + 1) * 16], dtype=np.uint8),
            )
        heightmaps = compute_heightmaps(blocks, palette, min_y, is_motion_blocking)
        return cls(
            x=x,
            z=z,
            sections=sections,
            block_entities=[nbtlib.Compound(be) for be in block_entities],
            heightmaps=heightmaps,
            is_light_on=(sky_light is not None) if is_light_on is None else is_light_on,
            y_pos=min_y // 16,
        )

    def to_dense(
        self, min_y: int = -64, height: int = 384
    ) -> tuple[np.ndarray, list[BlockState], np.ndarray, list[str]]:
        """Merge the sections into dense arrays (missing sections are air / plains).

        Returns:
            ``(blocks (H,16,16) uint16, palette, biomes (H/4,4,4) uint16, biome_palette)``; ``palette[0]`` is air
            and ``biome_palette[0]`` is plains.
        """
        palette: list[BlockState] = [AIR]
        pindex: dict[BlockState, int] = {AIR: 0}
        biome_palette: list[str] = [DEFAULT_BIOME]
        bindex: dict[str, int] = {DEFAULT_BIOME: 0}
        blocks = np.zeros((height, 16, 16), dtype=np.uint16)
        biomes = np.zeros((height // 4, 4, 4), dtype=np.uint16)
        for sy, sec in self.sections.items():
            i = sy - min_y // 16
            if not 0 <= i < height // 16:
                continue  # light-only sections above/below the world
            remap = np.array([pindex.setdefault(s, len(pindex)) for s in sec.palette], dtype=np.uint16)
            palette = list(pindex)
            blocks[i * 16 : (i + 1) * 16] = remap[sec.blocks]
            bremap = np.array([bindex.setdefault(b, len(bindex)) for b in sec.biome_palette], dtype=np.uint16)
            biome_palette = list(bindex)
            biomes[i * 4 : (i + 1) * 4] = bremap[sec.biomes]
        return blocks, palette, biomes, biome_palette

    def block_at(self, x: int, y: int, z: int) -> BlockState:
        """The block state at world coordinates ``(x, y, z)``; x and z must lie in this chunk.

        Raises:
            ValueError: If ``(x, z)`` is outside this chunk.
        """
        if x >> 4 != self.x or z >> 4 != self.z:
            raise ValueError(f"block ({x}, {y}, {z}) is not in chunk ({self.x}, {self.z})")
        sec = self.sections.get(y >> 4)
        if sec is None:
            return AIR
        return sec.palette[int(sec.blocks[y & 15, z & 15, x & 15])]

    def _section_nbt(self, sec: Section, what: str) -> nbtlib.Compound:
        if self.y_pos <= sec.y < self.y_pos + 24:
            return sec.to_nbt(what)
        # Vanilla stores light for one section below and above the world; those carry no blocks.
        tag = nbtlib.Compound({"Y": nbtlib.Byte(sec.y)})
        if sec.block_light is not None:
            tag["BlockLight"] = pack_nibbles(sec.block_light)
        if sec.sky_light is not None:
            tag["SkyLight"] = pack_nibbles(sec.sky_light)
        return tag

    def _heightmap_nbt(self, name: str, heights: np.ndarray, what: str) -> nbtlib.LongArray:
        rel = np.asarray(heights, dtype=np.int64).ravel() - self.min_y
        if rel.shape != (256,) or rel.min() < 0 or rel.max() > 384:
            raise WorldError(
                f"{what}: heightmap {name} must be 16x16 heights in [{self.min_y}, {self.min_y + 384}]"
            )
        return nbtlib.LongArray(bits.pack(rel, 9))

    def to_nbt(self, data_version: int = DATA_VERSION) -> nbtlib.Compound:
        """Serialise to the root compound stored in a region file."""
        what = f"chunk ({self.x}, {self.z})"
        # One (empty) PostProcessing list per section of the world height: 24 for the 1.19.2 overworld.
        n_sections = 24
        tag = nbtlib.Compound(
            {
                "DataVersion": nbtlib.Int(data_version),
                "xPos": nbtlib.Int(self.x),
                "yPos": nbtlib.Int(self.y_pos),
                "zPos": nbtlib.Int(self.z),
                "Status": nbtlib.String(self.status),
                "LastUpdate": nbtlib.Long(self.last_update),
                "InhabitedTime": nbtlib.Long(self.inhabited_time),
                "isLightOn": nbtlib.Byte(1 if self.is_light_on else 0),
                "sections": nbtlib.List[nbtlib.Compound](
                    [self._section_nbt(self.sections[k], what) for k in sorted(self.sections)]
                ),
                "block_entities": nbtlib.List[nbtlib.Compound](list(self.block_entities)),
                "Heightmaps": nbtlib.Compound(
                    {k: self._heightmap_nbt(k, v, what) for k, v in sorted(self.heightmaps.items())}
                ),
                "fluid_ticks": nbtlib.List[nbtlib.Compound]([]),
                "block_ticks": nbtlib.List[nbtlib.Compound]([]),
                "PostProcessing": nbtlib.List[nbtlib.List[nbtlib.Short]](
                    [nbtlib.List[nbtlib.Short]([]) for _ in range(n_sections)]
                ),
                "structures": nbtlib.Compound({"References": nbtlib.Compound(), "starts": nbtlib.Compound()}),
            }
        )
        for key, value in self.extra.items():
            tag[key] = value
        return tag

    @classmethod
    def from_nbt(cls, tag: nbtlib.Compound, what: str, data_version: int | None = DATA_VERSION) -> Chunk:
        """Parse a region chunk compound.

        Args:
            tag: The root compound.
            what: Description for errors (file and chunk).
            data_version: Required ``DataVersion`` (None accepts any 1.18+ layout).

        Raises:
            WorldError: Wrong DataVersion, pre-1.18 layout, or malformed fields.
        """
        if "DataVersion" not in tag:
            raise WorldError(f"{what}: no DataVersion (pre-1.9 chunk)")
        dv = int(tag["DataVersion"])
        if data_version is not None and dv != data_version:
            raise WorldError(f"{what}: DataVersion {dv}, expected {data_version} (Minecraft 1.19.2)")
        if "Level" in tag or "sections" not in tag:
            raise WorldError(f"{what}: not a 1.18+ chunk (no root 'sections' list)")
        try:
            x, z = int(tag["xPos"]), int(tag["zPos"])
        except KeyError as err:
            raise WorldError(f"{what}: missing {err.args[0]}") from err
        y_pos = int(tag.get("yPos", -4))
        sections = {}
        for stag in tag["sections"]:
            sec = Section.from_nbt(stag, what)
            sections[sec.y] = sec
        heightmaps = {}
        for name, arr in tag.get("Heightmaps", {}).items():
            heightmaps[str(name)] = (
                bits.unpack(arr, 9, 256, what=f"{what} Heightmaps.{name}").reshape(16, 16) + y_pos * 16
            ).astype(np.int32)
        known = {
            "DataVersion", "xPos", "yPos", "zPos", "Status", "LastUpdate", "InhabitedTime", "isLightOn",
            "sections", "block_entities", "Heightmaps",
        }  # fmt: skip
        extra = nbtlib.Compound({k: v for k, v in tag.items() if k not in known})
        status = str(tag.get("Status", "full"))
        return cls(
            x=x,
            z=z,
            sections=sections,
            block_entities=[nbtlib.Compound(be) for be in tag.get("block_entities", [])],
            heightmaps=heightmaps,
            status=status.removeprefix("minecraft:"),
            inhabited_time=int(tag.get("InhabitedTime", 0)),
            last_update=int(tag.get("LastUpdate", 0)),
            is_light_on=bool(int(tag.get("isLightOn", 0))),
            y_pos=y_pos,
            extra=extra,
        )
