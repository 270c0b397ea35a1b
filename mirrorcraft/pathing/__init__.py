"""Path planning and following for the body (issue 7, first half).

``grid`` classifies block states for a walking player (numpy tables), ``astar`` plans over a grid
(walk, jump up one, drop up to three, swim, optional dig-through; bounded in nodes and time; pure
functions, unit-tested on synthetic worlds) and floods the walkable region, ``wayout`` names the escape
when no walk reaches a target, ``follower`` drives a :class:`~mirrorcraft.mcproto_body.Body`
along a plan with stuck detection and replanning. Depends on :mod:`mirrorcraft.mcproto_body`, never the
other way round. See docs/body.md.
"""

from mirrorcraft.pathing.astar import (
    Goal,
    PathResult,
    Step,
    find_path,
    flood,
    neighbours,
    search_seconds,
    valid,
)
from mirrorcraft.pathing.follower import FollowResult, PathFollower
from mirrorcraft.pathing.grid import AIR, BLOCKED, BUSH, SOLID, TALL, THORNS, WATER, PathGrid, kind_table
from mirrorcraft.pathing.wayout import WayOut, compass, way_out

__all__ = [
    "AIR",
    "BLOCKED",
    "BUSH",
    "SOLID",
    "TALL",
    "THORNS",
    "WATER",
    "FollowResult",
    "Goal",
    "PathFollower",
    "PathGrid",
    "PathResult",
    "Step",
    "WayOut",
    "compass",
    "find_path",
    "flood",
    "kind_table",
    "neighbours",
    "search_seconds",
    "valid",
    "way_out",
]
