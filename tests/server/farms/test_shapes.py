"""Block states that follow their neighbours, placed by use as a client would: fence arms (``FenceBlock``), wall
sides and posts (``WallBlock``), pane arms (``IronBarsBlock``) and huge mushroom faces (``HugeMushroomBlock``)."""

from __future__ import annotations

from support.fakeplayer import give, use_block
from support.farm_plots import PLOT_Y, Plot

Y = PLOT_Y


def place(plot: Plot, item: str, pos: tuple[int, int, int]) -> None:
    """Place ``item`` at ``pos`` by using it on the top face of the block below (the player steps aside)."""
    plot.player.pos = [pos[0] + 0.5, float(pos[1] + 2), pos[2] + 2.5]
    give(plot.player, 36, item, 1)
    use_block(plot.game, plot.player, (pos[0], pos[1] - 1, pos[2]), face=1)
    assert plot.name(pos) == item, (item, pos, plot.name(pos))


def sides(plot: Plot, pos: tuple[int, int, int]) -> dict[str, str]:
    props = plot.props(pos)
    return {d: props[d] for d in ("north", "east", "south", "west")}


def test_fences_connect_to_fences_gates_and_sturdy_faces(plot: Plot) -> None:
    plot.floor(16, 16, 30, 30, "stone", y=Y - 1)
    place(plot, "oak_fence", (20, Y, 20))
    assert sides(plot, (20, Y, 20)) == dict.fromkeys(("north", "east", "south", "west"), "false")
    place(plot, "oak_fence", (21, Y, 20))
    assert plot.props((20, Y, 20))["east"] == "true" and plot.props((21, Y, 20))["west"] == "true"
    plot.put((20, Y, 19), "stone")  # a sturdy face north of it
    assert plot.props((20, Y, 20))["north"] == "true"
    plot.put((19, Y, 20), "oak_leaves", persistent=True)  # leaves are an exception
    assert plot.props((20, Y, 20))["west"] == "false"
    place(plot, "nether_brick_fence", (21, Y, 21))  # not wooden: no arm to the oak fence
    assert plot.props((21, Y, 20))["south"] == "false" and plot.props((21, Y, 21))["north"] == "false"
    plot.put((20, Y, 21), "oak_fence_gate", facing="east")  # across the fence's south side: connects
    assert plot.props((20, Y, 20))["south"] == "true"
    plot.put((20, Y, 21), "oak_fence_gate", facing="north")  # in line: does not
    assert plot.props((20, Y, 20))["south"] == "false"
    plot.game.digging.break_block(None, (21, Y, 20))
    assert plot.props((20, Y, 20))["east"] == "false"


def test_walls_connect_and_raise_their_posts(plot: Plot) -> None:
    plot.floor(16, 16, 30, 30, "stone", y=Y - 1)
    for z in (20, 21, 22):
        place(plot, "cobblestone_wall", (20, Y, z))
    middle = plot.props((20, Y, 21))
    assert (middle["north"], middle["south"], middle["east"], middle["west"]) == (
        "low",
        "low",
        "none",
        "none",
    )
    assert middle["up"] == "false"  # a straight run has no post
    assert plot.props((20, Y, 20))["up"] == "true"  # its end does (north != south)
    plot.put((20, Y + 1, 21), "stone")
    middle = plot.props((20, Y, 21))
    assert (middle["north"], middle["south"]) == ("tall", "tall")  # covered from above
    place(plot, "glass_pane", (21, Y, 21))  # a pane beside a wall: both connect
    assert plot.props((20, Y, 21))["east"] != "none" and plot.props((21, Y, 21))["west"] == "true"


def test_panes_attach_to_panes_and_sturdy_faces_not_fences(plot: Plot) -> None:
    plot.floor(16, 16, 30, 30, "stone", y=Y - 1)
    place(plot, "glass_pane", (24, Y, 24))
    place(plot, "iron_bars", (25, Y, 24))
    assert plot.props((24, Y, 24))["east"] == "true" and plot.props((25, Y, 24))["west"] == "true"
    place(plot, "oak_fence", (24, Y, 25))
    assert plot.props((24, Y, 24))["south"] == "false"


def test_mushroom_blocks_hide_the_faces_they_share(plot: Plot) -> None:
    plot.floor(16, 16, 30, 30, "stone", y=Y - 1)
    place(plot, "red_mushroom_block", (20, Y, 20))
    assert set(plot.props((20, Y, 20)).values()) == {"true"}  # every face shows
    place(plot, "red_mushroom_block", (21, Y, 20))
    assert plot.props((20, Y, 20))["east"] == "false" and plot.props((21, Y, 20))["west"] == "false"
    place(plot, "brown_mushroom_block", (20, Y, 21))  # another block: faces stay
    assert plot.props((20, Y, 20))["south"] == "true"
    plot.game.digging.break_block(None, (21, Y, 20))
    assert plot.props((20, Y, 20))["east"] == "false"  # never shown again (HugeMushroomBlock.updateShape)
