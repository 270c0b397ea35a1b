"""Map colours of blocks and the shaded top-down map image of a :class:`~mirrorcraft.worlds.map_snapshot.MapSnapshot`.

Why data: the colours are vanilla's map colours (``map_colours.json`` cites the source of every number: the
1.19.2 ``MaterialColor`` base colours and the colour each block is registered with), so the viewer's map
reads like an in-game map; changing a colour is a data edit. Height shading is vanilla's map shading: a
column lower than its northern neighbour is drawn at 180/255 of its colour, level at 220/255, higher at full
brightness.
"""

from __future__ import annotations

import base64
import io
import json
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from mirrorcraft.worlds.map_snapshot import UNKNOWN, MapSnapshot

__all__ = ["block_colour", "map_image", "png_data_uri", "shade_multipliers"]

#: Vanilla's map brightness multipliers (out of 255): lower, level, higher than the column to the north.
SHADE = {"lower": 180, "level": 220, "higher": 255}


@cache
def _table() -> dict[str, Any]:
    text = resources.files("mirrorcraft.metrics.pages").joinpath("map_colours.json").read_text("utf-8")
    return json.loads(text)


def block_colour(block: str) -> tuple[int, int, int]:
    """The base map colour of a block id (``minecraft:grass_block`` → GRASS's RGB); unknown blocks grey."""
    table = _table()
    name = block.split(":", 1)[-1]
    key = table["blocks"].get(name)
    if key is None and name in table["flowers"]:
        key = "PLANT"
    if key is None:
        key = next((c for suffix, c in table["suffixes"] if name.endswith(suffix)), None)
    rgb = table["base"].get(key) if key is not None else None
    return tuple(rgb if rgb is not None else table["unknown"])  # type: ignore[return-value]


def shade_multipliers(heights: np.ndarray) -> np.ndarray:
    """Per-column brightness (0..1) from each column's height against its northern (z - 1) neighbour; the
    first row, which has no neighbour in the snapshot, is drawn level."""
    north = np.vstack([heights[:1], heights[:-1]])
    out = np.full(heights.shape, SHADE["level"], dtype=np.float64)
    out[heights > north] = SHADE["higher"]
    out[heights < north] = SHADE["lower"]
    return out / 255.0


def map_image(snapshot: MapSnapshot) -> np.ndarray:
    """RGB image (depth, width, 3) uint8 of the snapshot: block colours, vanilla height shading; unknown
    columns (no chunk in the save) are left white."""
    colours = np.array(
        [(255, 255, 255) if b == UNKNOWN else block_colour(b) for b in snapshot.palette], dtype=np.float64
    )
    idx = snapshot.block_array()
    rgb = colours[idx] * shade_multipliers(snapshot.height_array().astype(np.int32))[..., None]
    rgb[idx == 0] = 255.0
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def png_data_uri(rgb: np.ndarray) -> str:
    """``data:image/png;base64,...`` of an RGB array (written by matplotlib's PNG writer; no file)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import image as mpimg

    buf = io.BytesIO()
    mpimg.imsave(buf, rgb, format="png")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
