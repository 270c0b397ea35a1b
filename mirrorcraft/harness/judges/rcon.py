"""Judges over RCON: the same seeded judge on any 1.19.2 server, a user's vanilla jar included (best effort).

Why: the arena saves load on a vanilla server, but a vanilla server cannot run our judge as a tick function.
Here the harness runs the unchanged :class:`~mirrorcraft.harness.judges.base.Judge` (the same class, seeds and
draws as on the embedded server) and gives it a :class:`JudgeWorld` made of vanilla commands sent over RCON:

* ``is_block`` → ``execute if block <x y z> <block>`` ("Test passed" / "Test failed");
* ``place`` → ``setblock <x y z> <state> replace``;
* ``held`` → ``clear <player> <item> 0`` per named item (vanilla counts without removing: "Found N matching
  items on player P"); ``clear`` → ``clear <player>``;
* ``count_blocks`` → one **counting function** per query the judge declares
  (:meth:`Judge.count_queries`): a datapack function of one ``execute if block ... run scoreboard players add``
  line per cell, installed in the save before the server starts (:func:`install_judge_pack`), so a Mushroom
  War area (~1,400 cells) costs three commands instead of ~1,400 round trips (vanilla's RCON thread reads one
  request at a time: requests cannot be pipelined). A count nobody declared falls back to one ``execute if
  block`` per cell (correct, slow).

Timing: :func:`run_rcon_judge` polls the game time (``time query gametime``) and runs the judge's schedule for
every tick that has passed since the last poll, so checks and samples stay one per period and per game second
of *game* time; what a check sees is the world a little after its tick (one RCON round trip per command,
commands run between the server's ticks). That latency and two races are the "best effort": a pick-up between
a Dash & Dine judge's count and its ``clear`` is cleared unscored, and within one check new foods lock in in
the judge's order of :func:`~mirrorcraft.rules.items.foods` (the embedded judge reads slot order). The pack is
visible to nobody but the server (agents see the game only through the protocol).

Tested against the embedded server's RCON and its ``function`` command; no vanilla jar is available here.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mirrorcraft.errors import ContractError
from mirrorcraft.harness.judges.base import TICKS_PER_SECOND, Judge, JudgeWorld, Pos
from mirrorcraft.harness.rcon import RconClient
from mirrorcraft.rules.packs import PACK_FORMAT
from mirrorcraft.worlds.anvil.chunk import BlockState

__all__ = ["JUDGE_PACK", "RconJudgeWorld", "install_judge_pack", "judge_pack_files", "run_rcon_judge"]

#: The judge pack's folder under ``<save>/datapacks/`` and its function namespace.
JUDGE_PACK = "mirrorcraft_judge"
#: The scoreboard objective the counting functions add to (vanilla objective names: at most 16 characters)
#: and the fake holder they count on (``#`` names are never players and are hidden from the sidebar).
COUNT_OBJECTIVE = "mcjudge"
COUNT_HOLDER = "#count"
_QUERY_NAME = re.compile(r"^[a-z0-9_]{1,64}$")
_FOUND = re.compile(r"^Found (\d+) matching items? on player ")
_SCORE = re.compile(r" has (-?\d+) \[")
_GAMETIME = re.compile(r"^The time is (\d+)$")


def _function_id(query: str) -> str:
    return f"{JUDGE_PACK}:count/{query}"


def judge_pack_files(judge: Judge) -> dict[str, bytes]:
    """The judge pack of ``judge``: ``pack.mcmeta`` and one counting function per :meth:`Judge.count_queries`.

    Raises:
        ContractError: a query name is not ``[a-z0-9_]`` (a function path must be a valid resource path).
    """
    files = {
        "pack.mcmeta": json.dumps(
            {"pack": {"pack_format": PACK_FORMAT, "description": "MirrorCraft judge counters (harness only)"}}
        ).encode()
    }
    for name, (cells, block) in sorted(judge.count_queries().items()):
        if not _QUERY_NAME.match(name):
            raise ContractError(f"judge {judge.scenario}: count query {name!r} is not [a-z0-9_]")
        lines = [
            f"execute if block {x} {y} {z} {block} run scoreboard players add {COUNT_HOLDER} {COUNT_OBJECTIVE} 1"
            for x, y, z in cells
        ]
        files[f"data/{JUDGE_PACK}/functions/count/{name}.mcfunction"] = ("\n".join(lines) + "\n").encode()
    return files


def install_judge_pack(save: Path, judge: Judge) -> Path:
    """Write :func:`judge_pack_files` into ``save/datapacks/mirrorcraft_judge/`` (replacing an older copy)
    before the server starts; vanilla enables a new pack found there on load. Returns the pack folder."""
    root = Path(save) / "datapacks" / JUDGE_PACK
    if root.exists():
        shutil.rmtree(root)
    for rel, content in judge_pack_files(judge).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return root


def _state_text(state: BlockState) -> str:
    name, props = state
    return name + ("[" + ",".join(f"{k}={v}" for k, v in props) + "]" if props else "")


class RconJudgeWorld(JudgeWorld):
    """A judge's view of a server through its RCON console (module docstring).

    Args:
        rcon: a connected blocking client (the judge's own connection).
        judge: the judge it serves (its :meth:`Judge.count_queries` name the installed counting functions).
    """

    def __init__(self, rcon: RconClient, judge: Judge) -> None:
        self.rcon = rcon
        self._queries = {
            (tuple(cells), block): name for name, (cells, block) in judge.count_queries().items()
        }
        #: Commands sent, for the benchmark and the tests (how much one judged second costs).
        self.commands_sent = 0

    def command(self, text: str) -> str:
        self.commands_sent += 1
        return self.rcon.command(text)

    def prepare(self) -> None:
        """Create the counting objective and check the judge pack is installed.

        Raises:
            ContractError: a counting function is unknown to the server (the pack was not installed in the
                save before the server started: :func:`install_judge_pack`).
        """
        self.command(f"scoreboard objectives add {COUNT_OBJECTIVE} dummy")
        for name in sorted(set(self._queries.values())):
            self.command(f"scoreboard players set {COUNT_HOLDER} {COUNT_OBJECTIVE} 0")
            reply = self.command(f"function {_function_id(name)}")
            if not reply.startswith("Executed "):
                raise ContractError(
                    f"judge over RCON: function {_function_id(name)} is not on the server ({reply!r}); "
                    f"install the judge pack in the save before starting it (install_judge_pack)"
                )

    def game_time(self) -> int:
        """The server's game time in ticks (``time query gametime``)."""
        reply = self.command("time query gametime")
        m = _GAMETIME.match(reply)
        if m is None:
            raise ContractError(f"judge over RCON: unexpected reply to 'time query gametime': {reply!r}")
        return int(m.group(1))

    def is_block(self, pos: Pos, block: str) -> bool:
        x, y, z = pos
        return self.command(f"execute if block {x} {y} {z} {block}") == "Test passed"

    def place(self, pos: Pos, state: BlockState) -> None:
        x, y, z = pos
        self.command(f"setblock {x} {y} {z} {_state_text(state)} replace")

    def count_blocks(self, cells: Sequence[Pos], block: str) -> int:
        name = self._queries.get((tuple(cells), block))
        if name is None:  # not declared: one test per cell
            return sum(self.is_block(p, block) for p in cells)
        self.command(f"scoreboard players set {COUNT_HOLDER} {COUNT_OBJECTIVE} 0")
        self.command(f"function {_function_id(name)}")
        reply = self.command(f"scoreboard players get {COUNT_HOLDER} {COUNT_OBJECTIVE}")
        m = _SCORE.search(reply)
        if m is None:
            raise ContractError(f"judge over RCON: unexpected reply to a count: {reply!r}")
        return int(m.group(1))

    def held(self, player: str, items: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in items:
            m = _FOUND.match(self.command(f"clear {player} {item} 0"))
            if m is not None and int(m.group(1)) > 0:  # "No items were found" / "No player was found": none
                out[item] = int(m.group(1))
        return out

    def clear(self, player: str) -> None:
        self.command(f"clear {player}")


def run_rcon_judge(
    judge: Judge,
    world: RconJudgeWorld,
    *,
    game_seconds: float,
    poll: float = 0.05,
    stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Judge ``game_seconds`` of game time from now (blocking; run it in a thread beside the episode).

    Every poll reads the game time and runs :meth:`Judge.on_tick` for each tick passed since the last poll, so
    the judge's periods and per-second samples follow game ticks whatever the wall-clock pace (a paused or
    slow server is judged as slowly). Returns the game tick it started at; the scores are ``judge.scores``.
    """
    world.prepare()
    start = world.game_time()
    judge.begin(world, start)
    end = start + round(game_seconds * TICKS_PER_SECOND)
    seen = start
    while seen < end and not stop():
        sleep(poll)
        now = min(world.game_time(), end)
        for tick in range(seen + 1, now + 1):
            judge.on_tick(world, tick)
        seen = max(seen, now)
    return start
