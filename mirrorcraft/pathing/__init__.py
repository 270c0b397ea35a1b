"""Path planning and following for the body (issue 7, first half).

``grid`` classifies block states for a walking player (numpy tables), ``astar`` plans over a grid
(walk, jump up one, drop up to three, swim, optional dig-through; bounded in nodes and time; pure
functions, unit-tested on synthetic worlds), ``follower`` drives a :class:`~mirrorcraft.mcproto_body.Body`
along a plan with stuck detection and replanning. Depends on :mod:`mirrorcraft.mcproto_body`, never the
other way round. See docs/body.md.
"""

from mirrorcraft.pathing.astar import Goal, PathResult, Step, find_path, neighbours, valid
from mirrorcraft.pathing.follower import FollowResult, PathFollower
from mirrorcraft.pathing.grid import AIR, BLOCKED, SOLID, TALL, WATER, PathGrid, kind_table

__all__ = [
    "AIR",
    "BLOCKED",
    "SOLID",
    "TALL",
    "WATER",
    "FollowResult",
    "Goal",
    "PathFollower",
    "PathGrid",
    "PathResult",
    "Step",
    "find_path",
    "kind_table",
    "neighbours",
    "valid",
]
