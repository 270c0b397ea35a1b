"""Block states that follow their neighbours, as cited data: huge mushroom faces, fence/wall/pane connections,
hoppers.

Why here: which side of a fence connects, which face of a mushroom block shows, which way a placed hopper
points are Java code of 1.19.2 (``FenceBlock``, ``WallBlock``, ``IronBarsBlock``, ``HugeMushroomBlock``,
``HopperBlock``), not datapack data. The collision boxes that keep animals inside a pen depend on these
states (a fence's arms are in its state). Names live in ``data/shapes.json``; tag names are data and their
members come from the world's packs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from mirrorcraft.rules.mechanics import mechanics_data
from mirrorcraft.rules.packs import namespaced

__all__ = [
    "HopperRule",
    "connection_kind",
    "connection_exceptions",
    "fence_gates",
    "hopper_rule",
    "huge_mushrooms",
    "connection_tags",
    "shape_constants",
]


def shape_constants() -> dict[str, Any]:
    """The hand-authored table of ``data/shapes.json``."""
    return mechanics_data("shapes")


@cache
def huge_mushrooms() -> frozenset[str]:
    """The ``HugeMushroomBlock`` blocks (namespaced)."""
    return frozenset(shape_constants()["huge_mushrooms"])


@cache
def _kinds() -> dict[str, str]:
    c = shape_constants()
    out = {b: "fence" for b in c["fences"]}
    out |= {b: "wall" for b in c["walls"]}
    out |= {b: "pane" for b in c["panes"]}
    return out


def connection_kind(block: str) -> str | None:
    """``"fence"``, ``"wall"`` or ``"pane"`` for a block whose sides connect to its neighbours, else ``None``."""
    return _kinds().get(namespaced(block))


@cache
def fence_gates() -> frozenset[str]:
    """The ``FenceGateBlock`` blocks (namespaced)."""
    return frozenset(shape_constants()["fence_gates"])


def connection_exceptions() -> dict[str, Any]:
    """``Block.isExceptionForConnection``: ``blocks``, ``tags`` (names) and whether leaves count."""
    return dict(shape_constants()["connection_exceptions"])


def connection_tags() -> dict[str, str]:
    """The tag names the connection rules read: ``fences``, ``wooden_fences``, ``walls``."""
    c = shape_constants()
    return {"fences": c["fence_tag"], "wooden_fences": c["wooden_fence_tag"], "walls": c["wall_tag"]}


@dataclass(frozen=True)
class HopperRule:
    """``HopperBlockEntity``: its block, slots, transfer cooldown, and the suck boxes (block units)."""

    block: str
    slots: int
    cooldown: int
    suck_boxes: tuple[tuple[float, float, float, float, float, float], ...]


@cache
def hopper_rule() -> HopperRule:
    """The hopper rule."""
    d = shape_constants()["hopper_rule"]
    boxes = tuple(tuple(v / 16.0 for v in b) for b in d["suck_boxes"])
    return HopperRule(d["block"], int(d["slots"]), int(d["cooldown"]), boxes)  # type: ignore[arg-type]
