"""The farm tests' plot: a real :class:`~mirrorcraft.server.game.Game` on a fresh copy of the sandbox with a
fake player whose client holds the plot's chunk (so it random-ticks), and small helpers to build a test plot in
the open sky (y = 100, sky light 15). Fixtures are in ``tests/server/farms/conftest.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mirrorcraft.server import facts
from mirrorcraft.server.game import Game
from support.fakeplayer import FakePlayer, join, new_game

Pos = tuple[int, int, int]
PLOT_Y = 100  # the plots' ground level: nothing above, sky light 15


class Plot:
    """A game, its player and block helpers for building and reading a test plot."""

    def __init__(self, game: Game, player: FakePlayer) -> None:
        self.game = game
        self.player = player

    def put(self, pos: Pos, block: str, **props: Any) -> int:
        """Set ``block`` with ``props`` at ``pos`` (through the kernel: neighbours update)."""
        state = facts.state_id(f"minecraft:{block}", {k: str(v).lower() for k, v in props.items()})
        self.game.kernel.set_block(pos, state)
        return state

    def name(self, pos: Pos) -> str:
        return facts.block_name(self.game.world.get_block(*pos))

    def props(self, pos: Pos) -> dict[str, str]:
        return facts.state_props(self.game.world.get_block(*pos))

    def age(self, pos: Pos) -> int:
        return int(self.props(pos)["age"])

    def floor(
        self, x0: int, z0: int, x1: int, z1: int, block: str = "stone", y: int = PLOT_Y - 1, **props: Any
    ) -> None:
        for x in range(x0, x1 + 1):
            for z in range(z0, z1 + 1):
                self.put((x, y, z), block, **props)

    def tick(self, n: int = 1) -> None:
        for _ in range(n):
            self.game.tick()

    def speed(self, ticks: int) -> None:
        self.game.admin.set_game_rule("randomTickSpeed", ticks)

    def drops(self) -> dict[str, int]:
        """The item entities lying in the world, ``{bare item: count}``."""
        out: dict[str, int] = {}
        for it in self.game.items.entities.values():
            name = it.item.removeprefix("minecraft:")
            out[name] = out.get(name, 0) + it.count
        return out

    def held(self, item: str) -> int:
        """How many ``item`` (bare name) the player carries."""
        key = f"minecraft:{item}"
        return sum(s.count for s in self.player.inventory.slots if s is not None and s.item == key)

    def clear_drops(self) -> None:
        for it in list(self.game.items.entities.values()):
            self.game.items.remove(it)


PLOT_CHUNK = (1, 1)  # x 16..31, z 16..31: the plots are built here


def new_plot(world: Path, **config: Any) -> Plot:
    """The player's client is made to hold only the plot's chunk, so only that chunk random-ticks (the
    sandbox's grass elsewhere would cost every tick of a fast random-tick test)."""
    game = new_game(world, **config)
    p = join(game, FakePlayer("farmer"), (20.5, float(PLOT_Y), 20.5))
    p.on_ground = True
    p.loaded_chunks = {PLOT_CHUNK}
    return Plot(game, p)
