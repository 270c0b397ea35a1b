"""The one fake player of the server tests: a real :class:`~mirrorcraft.server.kernel.players.Player` whose
transport records what the server sends, and helpers that drive a real :class:`~mirrorcraft.server.game.Game`
(real world, real datapacks, real rules) through its packet entry points, as a client would.

Why a real ``Player``: the game sees exactly the object a network connection would give it; only the
socket is replaced. Packets a test sends go through the same handler registry the connection dispatches
to (:func:`send`), so a test exercises the features' packet handlers, not private methods.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mirrorcraft.protocol.codec import CLIENTBOUND, SERVERBOUND, decode, encode, packet_class
from mirrorcraft.protocol.quarry_names import our_name
from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts
from mirrorcraft.server.config import ServerConfig
from mirrorcraft.server.game import Game
from mirrorcraft.server.kernel import Player

_UUIDS: Iterator[int] = iter(range(9000, 1 << 30))


class RecordingTransport:
    """Where a fake player's packets go: a list of ``(quarry name, body)``.

    Args:
        strict: A kick fails the test (``AssertionError``) instead of being recorded in :attr:`kicked`.
    """

    def __init__(self, strict: bool = True) -> None:
        self.sent: list[tuple[str, bytes]] = []
        self.strict = strict
        self.kicked: str | None = None

    def send(self, name: str, body: bytes) -> None:
        self.sent.append((name, body))

    def close(self, reason: str) -> None:
        if self.strict:
            raise AssertionError(f"kicked: {reason}")
        self.kicked = reason


class FakePlayer(Player):
    """A player with a recording transport."""

    def __init__(self, name: str = "alex", *, strict: bool = True, protocol_version: int = 760) -> None:
        self.recorder = RecordingTransport(strict)
        super().__init__(name, uuid.UUID(int=next(_UUIDS), version=4), self.recorder, protocol_version)

    @property
    def sent(self) -> list[tuple[str, bytes]]:
        """Every ``(quarry name, body)`` sent to this player, in order."""
        return self.recorder.sent

    @property
    def kicked(self) -> str | None:
        return self.recorder.kicked

    def names(self) -> list[str]:
        """The quarry names of the packets sent, in order."""
        return [n for n, _ in self.sent]

    def packets(self, name: str) -> list[Any]:
        """Decoded clientbound packets of one quarry name, in order."""
        return [
            decode(our_name(n, self.protocol_version, CLIENTBOUND), b, self.protocol_version, CLIENTBOUND)
            for n, b in self.sent
            if n == name
        ]


def new_game(world: Path, **config: Any) -> Game:
    """A game on ``world`` (a fresh copy of a save), not ticking, not listening."""
    return Game(ServerConfig(world=world, port=0, **config))


def join(
    game: Game, p: FakePlayer | None = None, pos: tuple[float, float, float] | None = None
) -> FakePlayer:
    """Log ``p`` (default: a new ``alex``) in through the real join sequence, then stand it at ``pos``
    (default: where the join put it, the world spawn). The join's packets stay in ``p.sent``."""
    p = p if p is not None else FakePlayer()
    game.connect(p)
    if pos is not None:
        p.pos = list(pos)
    p.pending_teleport = None  # the client confirmed the join's teleport
    return p


def send(game: Game, p: Player, packet: str, **fields: Any) -> None:
    """Send one serverbound packet from ``p``: encoded, decoded back (what the connection reads off the wire)
    and dispatched to the handlers the features registered, as the connection does."""
    body = encode(packet_class(packet, SERVERBOUND)(**fields), p.protocol_version)
    if game.kernel.handlers.handles(packet):
        game.kernel.handlers.dispatch(p, packet, decode(packet, body, p.protocol_version, SERVERBOUND))


def click(game: Game, p: Player, window: int, slot: int, button: int = 0, mode: int = 0) -> None:
    """A ``window_click`` with no prediction (the server answers with what it decided)."""
    send(
        game,
        p,
        "window_click",
        window_id=window,
        state_id=-1,
        slot=slot,
        mouse_button=button,
        mode=mode,
        changed_slots=[],
        cursor_item=None,
    )


def use_block(
    game: Game, p: Player, pos: tuple[int, int, int], face: int = 1, hand: int = 0, seq: int = 1
) -> None:
    """A ``use_item_on`` (``block_place``) on the top face of ``pos``."""
    send(
        game,
        p,
        "block_place",
        hand=hand,
        location=pos,
        direction=face,
        cursor_x=0.5,
        cursor_y=1.0,
        cursor_z=0.5,
        inside_block=False,
        sequence=seq,
    )


def close_window(game: Game, p: Player, window: int) -> None:
    send(game, p, "close_window", window_id=window)


def give(p: Player, slot: int, item: str, count: int, nbt: Any = None) -> None:
    """Put a stack straight into a window-0 slot (test set-up, no packet)."""
    p.inventory.slots[slot] = Stack(facts.item_key(item), count, nbt)


def bare(stack: Stack | None) -> tuple[str, int] | None:
    """``(bare item name, count)`` of a stack, for readable assertions."""
    return (stack.item.removeprefix("minecraft:"), stack.count) if stack else None
