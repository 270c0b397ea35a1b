"""Fixtures for the part-2 server tests: a sandbox save built once, fresh copies per test, a fake player.

The menu tests drive a real :class:`~mirrorcraft.server.game.Game` (real world, real datapacks, real rules
engines) through its packet-level entry points (``click``, ``place``, ``close_window``) with a
:class:`FakePlayer` standing in for the network connection; it records the packets the server sends, so
the tests decode them with ``mirrorcraft.protocol``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mirrorcraft.server.inventory import PlayerInventory


@pytest.fixture(scope="session")
def sandbox2_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox world, built once per session (tests copy it)."""
    from mirrorcraft.worlds.sandbox import build_sandbox

    path = tmp_path_factory.mktemp("sandbox2") / "world"
    build_sandbox(path, seed=0)
    return path


@pytest.fixture(scope="session")
def sandbox2_info(sandbox2_template: Path) -> dict[str, Any]:
    return json.loads((sandbox2_template / "sandbox.json").read_text())


@pytest.fixture
def world2(sandbox2_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the sandbox (an episode reset)."""
    dst = tmp_path / "world"
    shutil.copytree(sandbox2_template, dst)
    return dst


class FakePlayer:
    """The attributes of a PlayerConnection the game reads, and a log of the packets sent to it."""

    def __init__(self, name: str, pos: tuple[float, float, float], eid: int = 9000) -> None:
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
        self.loaded_chunks: set[tuple[int, int]] = set()

    def send(self, name: str, body: bytes) -> None:
        self.sent.append((name, body))

    def kick(self, reason: str) -> None:
        raise AssertionError(f"kicked: {reason}")

    def packets(self, name: str) -> list[Any]:
        """Decoded clientbound packets of one quarry name, in order."""
        from mirrorcraft.protocol.codec import CLIENTBOUND, decode
        from mirrorcraft.protocol.quarry_names import our_name

        out = []
        for n, body in self.sent:
            if n == name:
                out.append(decode(our_name(n, 760, CLIENTBOUND), body, 760, CLIENTBOUND))
        return out
