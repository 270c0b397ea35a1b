"""Fixtures of the chest tests: a sandbox save built once, fresh copies per test, a packet-recording player.

The menu tests drive a real :class:`~mirrorcraft.server.game.Game` (real sandbox world, real datapacks)
through its packet entry points (``place``, ``click``, ``close_window``); ``FakeChestPlayer`` stands in for
the network connection and records what the server sends, decoded with ``mirrorcraft.protocol``. The body
and Mineflayer tests run the embedded server over 127.0.0.1 instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from mirrorcraft.server.inventory import PlayerInventory


@pytest.fixture(scope="session")
def chests_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox world (spawn 8,65,8 on a y=64 surface), built once per session."""
    from mirrorcraft.worlds.sandbox import build_sandbox

    path = tmp_path_factory.mktemp("chests-sandbox") / "world"
    build_sandbox(path, seed=0)
    return path


@pytest.fixture
def chests_world(chests_sandbox: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sandbox for one test."""
    dst = tmp_path / "world"
    shutil.copytree(chests_sandbox, dst)
    return dst


class FakeChestPlayer:
    """The attributes of a PlayerConnection the game reads, and a log of the packets sent to it."""

    def __init__(self, name: str, pos: tuple[float, float, float], eid: int) -> None:
        self.display_name = name
        self.inventory = PlayerInventory()
        self.pos = list(pos)
        self.yaw = 0.0
        self.pitch = 0.0
        self.sneaking = False
        self.on_ground = True
        self.protocol_version = 760
        self.eid = eid
        self.sent: list[tuple[str, bytes]] = []
        self.loaded_chunks: set[tuple[int, int]] = {(cx, cz) for cx in range(-4, 5) for cz in range(-4, 5)}

    def send(self, name: str, body: bytes) -> None:
        self.sent.append((name, body))

    def kick(self, reason: str) -> None:
        raise AssertionError(f"kicked: {reason}")

    def packets(self, name: str) -> list[Any]:
        """Decoded clientbound packets of one quarry name, in order."""
        from mirrorcraft.protocol.codec import CLIENTBOUND, decode
        from mirrorcraft.protocol.quarry_names import our_name

        return [decode(our_name(n, 760, CLIENTBOUND), b, 760, CLIENTBOUND) for n, b in self.sent if n == name]


@pytest.fixture
def fake_chest_player():
    """Factory: ``fake_chest_player(game, name, pos)`` → a joined :class:`FakeChestPlayer`."""
    made = iter(range(9100, 9200))

    def make(game: Any, name: str = "alex", pos: tuple[float, float, float] = (8.5, 65.0, 8.5)):
        p = FakeChestPlayer(name, pos, next(made))
        game.players[p.eid] = p
        game.rules.joined(p)
        return p

    return make
