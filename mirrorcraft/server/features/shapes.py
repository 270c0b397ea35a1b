"""Block states that follow their neighbours: fence, wall and pane arms, huge mushroom faces.

Why it matters beyond looks: a fence's or wall's collision boxes are in its state (an unconnected post leaves
gaps a chicken walks through), and the Mushroom War caps are mushroom blocks whose faces vanilla hides where
two of them touch. Vanilla 1.19.2 (facts in ``rules/data/shapes.json``, :mod:`mirrorcraft.rules.shapes`):

* **fences** (``FenceBlock``): a side connects to a fence of the same kind (``#fences``, wooden or not by
  ``#wooden_fences``), to a fence gate across it, or to a sturdy face that is not an exception (leaves, barrier,
  pumpkins, melon, shulker boxes); set when placed (``getStateForPlacement``) and when that neighbour changes
  (``updateShape``).
* **walls** (``WallBlock``): a side connects to ``#walls``, a pane or iron bars, a fence gate across it or a
  sturdy face; it is TALL when the block above covers it, else LOW; the post (``up``) follows
  ``shouldRaisePost``.
* **panes and iron bars** (``IronBarsBlock``): a side attaches to another pane, ``#walls`` or a sturdy face.
* **huge mushroom blocks** (``HugeMushroomBlock``): placed with each face showing unless the neighbour there is
  the same block; a face toward a neighbour of the same block is hidden (and never shown again).

Approximations (docs/farming.md): a "sturdy face" and "covers" are a full-cube collision shape (the chest
feature uses the same test); waterlogging follows the water block at the placed cell only.
"""

from __future__ import annotations

from mirrorcraft.rules import shapes
from mirrorcraft.rules.blocks import WATER, liquid_of
from mirrorcraft.rules.nature import leaves
from mirrorcraft.server import facts
from mirrorcraft.server.features.blockupdates import HORIZONTAL, OFFSET, OPPOSITE, BlockUpdates, PlaceContext
from mirrorcraft.server.kernel import Kernel
from mirrorcraft.server.world_rules import WorldRules

Pos = tuple[int, int, int]
#: ``Direction.getClockWise`` for the horizontal directions.
CLOCKWISE = {"north": "east", "east": "south", "south": "west", "west": "north"}
AXIS = {"north": "z", "south": "z", "east": "x", "west": "x"}


class Shapes:
    """Neighbour-dependent block states of one game."""

    def __init__(self, kernel: Kernel, rules: WorldRules, updates: BlockUpdates) -> None:
        self.kernel = kernel
        tags = rules.packs.tags.get("blocks", {})
        tables = facts.state_tables()
        self._block_id = tables.block_id
        self._full = tables.full_cube
        names = shapes.connection_tags()

        def ids(members) -> set[int]:  # noqa: ANN001
            return {facts.block(b).id for b in members}

        self.fences = ids(tags.get(names["fences"], ()))
        self.wooden = ids(tags.get(names["wooden_fences"], ()))
        self.walls_tag = ids(tags.get(names["walls"], ()))
        self.gates = ids(shapes.fence_gates())
        exc = shapes.connection_exceptions()
        self.exceptions = ids(exc["blocks"])
        for t in exc["tags"]:
            self.exceptions |= ids(tags.get(t, ()))
        if exc["leaves"]:
            self.exceptions |= ids(leaves().blocks)
        self.kind: dict[int, str] = {}
        for b in facts.all_blocks():
            k = shapes.connection_kind(b.name)
            if k is not None:
                self.kind[b.id] = k
        self.panes = {i for i, k in self.kind.items() if k == "pane"}
        self.mushrooms = ids(shapes.huge_mushrooms())
        connected = [facts.block_by_id(i).name for i in self.kind]
        updates.on_place(connected, self._place_connected)
        updates.on_shape(connected, self._connected_shape)
        mushroom_names = sorted(shapes.huge_mushrooms())
        updates.on_place(mushroom_names, self._place_mushroom)
        updates.on_shape(mushroom_names, self._mushroom_shape)
        self.leaves = leaves()
        self.logs = ids(tags.get(self.leaves.log_tag, ()))
        self.leaf_ids = ids(self.leaves.blocks)
        updates.on_place(sorted(self.leaves.blocks), self._place_leaves)

    def bid(self, state: int) -> int:
        return int(self._block_id[state])

    def at(self, pos: Pos) -> int:
        return self.kernel.world.get_block(*pos)

    # ---- connections -----------------------------------------------------------------------------------

    def _sturdy(self, state: int) -> bool:
        return bool(self._full[state])

    def _gate_across(self, state: int, toward: str) -> bool:
        """``FenceGateBlock.connectsToDirection(state, toward)``: the gate's facing axis is ``toward``'s clockwise."""
        facing = facts.state_props(state).get("facing")
        return facing is not None and AXIS[facing] == AXIS[CLOCKWISE[toward]]

    def connects(self, kind: str, me: int, neighbour: int, toward: str) -> bool:
        """Whether a ``kind`` block (block id ``me``) connects to ``neighbour`` on the side where ``toward`` is the
        direction from the neighbour back to it."""
        nb = self.bid(neighbour)
        sturdy = nb not in self.exceptions and self._sturdy(neighbour)
        if kind == "fence":
            same = nb in self.fences and (nb in self.wooden) == (me in self.wooden)
            return sturdy or same or (nb in self.gates and self._gate_across(neighbour, toward))
        if kind == "wall":
            return (
                nb in self.walls_tag or sturdy or nb in self.panes
                or (nb in self.gates and self._gate_across(neighbour, toward))
            )  # fmt: skip
        return sturdy or nb in self.panes or nb in self.walls_tag  # pane

    def _sides(self, pos: Pos, state: int, only: str | None = None) -> dict[str, bool]:
        me = self.bid(state)
        kind = self.kind[me]
        props = facts.state_props(state)
        out = {}
        for d in HORIZONTAL:
            if only is not None and d != only:
                out[d] = props[d] != "false" and props[d] != "none"
                continue
            npos = (pos[0] + OFFSET[d][0], pos[1], pos[2] + OFFSET[d][2])
            out[d] = self.connects(kind, me, self.at(npos), OPPOSITE[d])
        return out

    def _state(self, pos: Pos, state: int, sides: dict[str, bool]) -> int:
        b = facts.block_of_state(state)
        props = b.state_properties(state)
        if self.kind[b.id] != "wall":
            props.update({d: "true" if c else "false" for d, c in sides.items()})
            return b.state(**props)
        above = self.at((pos[0], pos[1] + 1, pos[2]))
        covered = self._sturdy(above)
        for d, c in sides.items():
            props[d] = ("tall" if covered else "low") if c else "none"
        props["up"] = "true" if self._raise_post(props, above, covered) else "false"
        return b.state(**props)

    def _raise_post(self, props: dict[str, str], above: int, covered: bool) -> bool:
        """``WallBlock.shouldRaisePost`` (``#wall_post_override`` approximated by the full-cube test)."""
        if self.kind.get(self.bid(above)) == "wall" and facts.state_props(above).get("up") == "true":
            return True
        n, s, e, w = (props[d] == "none" for d in ("north", "south", "east", "west"))
        if (n and s and e and w) or n != s or e != w:
            return True
        if (props["north"] == "tall" and props["south"] == "tall") or (
            props["east"] == "tall" and props["west"] == "tall"
        ):
            return False
        return covered

    def _place_connected(self, ctx: PlaceContext) -> int | None:
        state = self._state(ctx.pos, ctx.state, self._sides(ctx.pos, ctx.state))
        if "waterlogged" in facts.state_props(state):
            wet = liquid_of(facts.block_name(self.at(ctx.pos))) == WATER
            b = facts.block_of_state(state)
            props = b.state_properties(state)
            props["waterlogged"] = "true" if wet else "false"
            state = b.state(**props)
        return state

    def _connected_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        kind = self.kind[self.bid(state)]
        if side in HORIZONTAL:
            return self._state(pos, state, self._sides(pos, state, only=side))
        if side == "up" and kind == "wall":
            return self._state(pos, state, self._sides(pos, state, only="-"))
        return state

    # ---- huge mushrooms ---------------------------------------------------------------------------------

    def _place_mushroom(self, ctx: PlaceContext) -> int | None:
        b = facts.block_of_state(ctx.state)
        props = b.state_properties(ctx.state)
        for d, off in OFFSET.items():
            n = self.at((ctx.pos[0] + off[0], ctx.pos[1] + off[1], ctx.pos[2] + off[2]))
            props[d] = "false" if self.bid(n) == b.id else "true"
        return b.state(**props)

    def _mushroom_shape(self, pos: Pos, state: int, side: str, neighbour: int) -> int:
        b = facts.block_of_state(state)
        if self.bid(neighbour) != b.id:
            return state
        props = b.state_properties(state)
        if props[side] == "false":
            return state
        props[side] = "false"
        return b.state(**props)

    # ---- leaves placement -------------------------------------------------------------------------------

    def leaf_distance(self, pos: Pos) -> int:
        """``LeavesBlock.updateDistance``: 1 + the nearest neighbour's distance (a log is 0), capped at 7."""
        best = self.leaves.decay_distance
        for off in OFFSET.values():
            n = self.at((pos[0] + off[0], pos[1] + off[1], pos[2] + off[2]))
            nb = self.bid(n)
            if nb in self.logs:
                return 1
            if nb in self.leaf_ids:
                best = min(best, int(facts.state_props(n)["distance"]) + 1)
        return min(best, self.leaves.decay_distance)

    def _place_leaves(self, ctx: PlaceContext) -> int | None:
        """``LeavesBlock.getStateForPlacement``: persistent (placed leaves never decay), distance computed."""
        b = facts.block_of_state(ctx.state)
        props = b.state_properties(ctx.state)
        props["persistent"] = "true"
        props["distance"] = str(self.leaf_distance(ctx.pos))
        props["waterlogged"] = "true" if liquid_of(facts.block_name(self.at(ctx.pos))) == WATER else "false"
        return b.state(**props)
