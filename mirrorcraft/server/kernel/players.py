"""The game-side player and the registry of players in the game.

Why a player separate from its connection: the network half (:class:`~mirrorcraft.server.connection.
PlayerConnection`: framing limits, login, decoding, dispatch) and the game half (who the player is, where it
stands, what it carries) change for different reasons, and a player without a socket is useful — the
tests' recording player, and later the scenario judges' server-side players. A :class:`Player` talks to the
outside only through its :class:`Transport` (``send`` a packet body by quarry name, ``close`` with a reason).

What lives here is the state the kernel and most features share (identity, position and look, the
inventory, the chunks the client holds, the pending teleport); a feature's own per-player state (dig in
progress, keep-alive, food, advancements...) lives in that feature, keyed by player name where vanilla keeps
it across reconnects.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Iterable, Iterator
from typing import Protocol

from mirrorcraft import PROTOCOL_1_19_2
from mirrorcraft.server import wire
from mirrorcraft.server.kernel.inventory import PlayerInventory
from mirrorcraft.server.kernel.stacks import Stack


class Transport(Protocol):
    """Where a player's packets go (a network connection, or a recorder in tests)."""

    def send(self, name: str, body: bytes) -> None:
        """Send one play packet body by quarry packet name."""
        ...

    def close(self, reason: str) -> None:
        """Disconnect with a reason shown to the player."""
        ...


class Player:
    """One player in the game.

    Args:
        name: The display name.
        uuid: The player's UUID (offline-mode UUID for network players).
        transport: Where its packets go.
        protocol_version: The client's protocol (760 = 1.19.2, 759 = 1.19).
    """

    def __init__(
        self, name: str, uuid: uuidlib.UUID, transport: Transport, protocol_version: int = PROTOCOL_1_19_2
    ) -> None:
        self.display_name = name
        self.uuid = uuid
        self.transport = transport
        self.protocol_version = protocol_version
        self.eid = 0
        self.pos = [0.0, 0.0, 0.0]
        self.yaw = 0.0
        self.pitch = 0.0
        self.on_ground = False
        self.sneaking = False
        self.health = 20.0
        self.inventory = PlayerInventory()
        self.loaded_chunks: set[tuple[int, int]] = set()
        self.center_chunk: tuple[int, int] | None = None
        self.pending_teleport: int | None = None  # moves are ignored until the client confirms this id
        self.teleport_counter = 0
        self.moved = False  # position or look changed since the last broadcast
        self.sent_packets = 0  # play packets sent to this player so far (lockstep: "anything since?")

    def __repr__(self) -> str:
        return f"Player({self.display_name!r}, eid={self.eid})"

    def send(self, name: str, body: bytes) -> None:
        """Send one play packet body by quarry name."""
        self.sent_packets += 1
        self.transport.send(name, body)

    def kick(self, reason: str) -> None:
        """Disconnect with a reason shown to the player."""
        self.transport.close(reason)

    def send_slot(self, window: int, index: int, stack: Stack | None) -> None:
        """One ``set_slot`` with a new state id — every slot update the server sends, as vanilla's
        ``containerSynchronizer.sendSlotChange`` (``incrementStateId``): a click the client sends before it
        has seen the update is then stale, and a stale click is answered with the whole window *after* it is
        applied, so an update already on its way never overwrites a prediction the server accepted."""
        self.inventory.state_id += 1
        self.send("set_slot", wire.set_slot(window, self.inventory.state_id, index, stack))

    def send_cursor(self) -> None:
        """The carried stack (``set_slot`` window -1, slot -1), with a new state id."""
        self.send_slot(-1, -1, self.inventory.cursor)

    def send_slots(self, slots: Iterable[int]) -> None:
        """Resend window-0 slots after the server changed them, one :meth:`send_slot` each (in slot order) —
        what vanilla's ``broadcastChanges`` does for a slot that changed."""
        for idx in sorted(slots):
            self.send_slot(0, idx, self.inventory.slots[idx])


class Players:
    """The players in the game by entity id, in join order (vanilla ``PlayerList`` order)."""

    def __init__(self) -> None:
        self._by_eid: dict[int, Player] = {}

    def add(self, p: Player) -> None:
        """Enter ``p`` (its ``eid`` must be set)."""
        self._by_eid[p.eid] = p

    def remove(self, p: Player) -> bool:
        """Remove ``p``; False if it was not in the game."""
        return self._by_eid.pop(p.eid, None) is not None

    def by_name(self, name: str) -> Player | None:
        """The player called ``name``, or ``None``."""
        for p in self._by_eid.values():
            if p.display_name == name:
                return p
        return None

    def by_uuid(self, uid: str) -> Player | None:
        """The player whose UUID text is ``uid``, or ``None``."""
        for p in self._by_eid.values():
            if str(p.uuid) == uid:
                return p
        return None

    def get(self, eid: int) -> Player | None:
        return self._by_eid.get(eid)

    def values(self) -> list[Player]:
        """A snapshot list (safe to iterate while players join, leave or are kicked)."""
        return list(self._by_eid.values())

    def __iter__(self) -> Iterator[Player]:
        return iter(self._by_eid.values())

    def __len__(self) -> int:
        return len(self._by_eid)

    def __contains__(self, p: object) -> bool:
        return isinstance(p, Player) and self._by_eid.get(p.eid) is p
