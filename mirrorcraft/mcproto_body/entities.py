"""Entities the body can see: other players, mobs, item drops and other objects.

Why a separate table: skills need "where is the nearest cow / the log I just broke", and digging needs to
know which item entity was collected by whom. Tracks ``spawn_entity`` (1.19 uses it for mobs and objects
alike), ``named_entity_spawn`` + ``player_info`` (names), the three relative moves (deltas are
``1/4096`` block, wiki.vg "Update Entity Position"), ``entity_teleport``, ``entity_velocity``
(``1/8000`` block per tick), ``entity_metadata`` (incl. the item stack of an item entity: index 8, type
Slot, wiki.vg "Entity metadata#Item Entity"), ``entity_destroy`` and ``collect``. One action acts on an
entity: :meth:`Entities.attack` (as mineflayer's ``bot.attack`` lives in its entities plugin).
"""

from __future__ import annotations

import math
import uuid as uuid_mod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.errors import GameDataError
from mirrorcraft.gamedata import entity_by_id, item_by_id
from mirrorcraft.mcproto_body.connection import Connection
from mirrorcraft.protocol import Packet, Slot
from mirrorcraft.protocol.serverbound import ArmAnimation, UseEntity

#: Metadata index of an item entity's stack (1.19: Entity 0..7, then ItemEntity's Slot at 8).
ITEM_STACK_INDEX = 8
#: Metadata wire type "Slot" (1.19 type ids, wiki.vg "Entity metadata#Entity Metadata Format").
SLOT_TYPE = 6


@dataclass
class Entity:
    """One visible entity.

    Attributes:
        id: Server entity id.
        uuid: Entity UUID.
        type: Entity type name (``minecraft:cow``), ``minecraft:player`` for players.
        kind: minecraft-data's category (``player``, ``animal``, ``hostile``, ``other``...).
        position: Feet position.
        yaw / pitch: Degrees.
        velocity: Blocks per tick.
        on_ground: As last reported.
        metadata: ``{index: value}`` as decoded.
        name: Player name (players only, from player_info).
        item: The stack an item entity carries (``None`` until its metadata arrives).
    """

    id: int
    uuid: uuid_mod.UUID | None
    type: str
    kind: str
    position: tuple[float, float, float]
    yaw: float = 0.0
    pitch: float = 0.0
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    on_ground: bool = False
    metadata: dict[int, Any] = field(default_factory=dict)
    name: str | None = None
    item: Slot | None = None

    @property
    def item_name(self) -> str | None:
        """``minecraft:`` name of the carried stack (item entities)."""
        return None if self.item is None else item_by_id(self.item.item_id).name

    def distance_to(self, pos: tuple[float, float, float]) -> float:
        """Euclidean distance from the feet position to ``pos``."""
        return math.dist(self.position, pos)


@dataclass(frozen=True)
class CollectEvent:
    """An item entity picked up: by whom, what and how many (``item`` may be ``None`` if never seen)."""

    collected_id: int
    collector_id: int
    count: int
    item: Slot | None


def _angle(byte: int) -> float:
    # Angles are 1/256 of a full turn (wiki.vg "Angle").
    return (byte % 256) * 360.0 / 256.0


class Entities:
    """The entity table.

    Args:
        conn: Connection to subscribe to.

    Attributes:
        by_id: ``{entity id: Entity}``.
        self_id: Our own entity id (from the login packet).
        player_names: ``{uuid: name}`` from player_info.
        collected: Every collect event seen (most recent last, capped at 256).
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.by_id: dict[int, Entity] = {}
        self.self_id: int | None = None
        self.player_names: dict[uuid_mod.UUID, str] = {}
        self.collected: list[CollectEvent] = []
        self._collect_listeners: list[Callable[[CollectEvent], None]] = []
        conn.on_reset(self.clear)
        conn.on("login", self._on_login)
        conn.on("respawn", lambda _p: self.by_id.clear())
        conn.on("player_info", self._on_player_info)
        conn.on("spawn_entity", self._on_spawn)
        conn.on("named_entity_spawn", self._on_spawn_player)
        conn.on("rel_entity_move", self._on_move)
        conn.on("entity_move_look", self._on_move)
        conn.on("entity_look", self._on_look)
        conn.on("entity_teleport", self._on_teleport)
        conn.on("entity_velocity", self._on_velocity)
        conn.on("entity_metadata", self._on_metadata)
        conn.on("entity_destroy", self._on_destroy)
        conn.on("collect", self._on_collect)

    # ------------------------------------------------------------------------------------------ queries
    def clear(self) -> None:
        """Forget everything (reconnect)."""
        self.by_id.clear()
        self.collected.clear()

    def on_collect(self, listener: Callable[[CollectEvent], None]) -> None:
        """Call ``listener(event)`` on every collect packet."""
        self._collect_listeners.append(listener)

    def nearest(
        self, pos: tuple[float, float, float], predicate: Callable[[Entity], bool] | None = None
    ) -> Entity | None:
        """The nearest entity (other than ourselves) matching ``predicate``."""
        best, best_d = None, math.inf
        for ent in self.by_id.values():
            if ent.id == self.self_id or (predicate is not None and not predicate(ent)):
                continue
            d = ent.distance_to(pos)
            if d < best_d:
                best, best_d = ent, d
        return best

    def items(self) -> list[Entity]:
        """Item-drop entities."""
        return [e for e in self.by_id.values() if e.type == "minecraft:item"]

    # ------------------------------------------------------------------------------------------ actions
    def attack(self, entity_id: int) -> None:
        """Hit entity ``entity_id`` once with the held item: "Interact" (type attack) then the arm swing.

        The order is vanilla 1.9+'s and mineflayer's ``bot.attack`` (use_entity, then arm_animation); the
        server checks reach and cooldown and applies the damage.
        """
        self.conn.send(UseEntity(target=entity_id, mouse=1, sneaking=False))
        self.conn.send(ArmAnimation(hand=0))

    # ----------------------------------------------------------------------------------------- handlers
    def _on_login(self, pkt: Packet) -> None:
        self.by_id.clear()
        self.self_id = pkt.entity_id  # type: ignore[attr-defined]

    def _on_player_info(self, pkt: Packet) -> None:
        for e in pkt.entries:  # type: ignore[attr-defined]
            if pkt.action == 0 and e.name:  # type: ignore[attr-defined]
                self.player_names[e.uuid] = e.name
            elif pkt.action == 4:  # type: ignore[attr-defined]
                self.player_names.pop(e.uuid, None)

    def _on_spawn(self, pkt: Any) -> None:
        try:
            info = entity_by_id(pkt.type)
            type_name, kind = info.name, info.type
        except GameDataError:
            type_name, kind = f"unknown:{pkt.type}", "unknown"
        self.by_id[pkt.entity_id] = Entity(
            id=pkt.entity_id,
            uuid=pkt.object_uuid,
            type=type_name,
            kind=kind,
            position=(pkt.x, pkt.y, pkt.z),
            yaw=_angle(pkt.yaw),
            pitch=_angle(pkt.pitch),
            velocity=(pkt.velocity_x / 8000, pkt.velocity_y / 8000, pkt.velocity_z / 8000),
        )

    def _on_spawn_player(self, pkt: Any) -> None:
        self.by_id[pkt.entity_id] = Entity(
            id=pkt.entity_id,
            uuid=pkt.player_uuid,
            type="minecraft:player",
            kind="player",
            position=(pkt.x, pkt.y, pkt.z),
            yaw=_angle(pkt.yaw),
            pitch=_angle(pkt.pitch),
            name=self.player_names.get(pkt.player_uuid),
        )

    def _on_move(self, pkt: Any) -> None:
        ent = self.by_id.get(pkt.entity_id)
        if ent is None:
            return
        x, y, z = ent.position
        ent.position = (x + pkt.dx / 4096, y + pkt.dy / 4096, z + pkt.dz / 4096)
        ent.on_ground = pkt.on_ground
        if hasattr(pkt, "yaw"):
            ent.yaw, ent.pitch = _angle(pkt.yaw), _angle(pkt.pitch)

    def _on_look(self, pkt: Any) -> None:
        ent = self.by_id.get(pkt.entity_id)
        if ent is not None:
            ent.yaw, ent.pitch, ent.on_ground = _angle(pkt.yaw), _angle(pkt.pitch), pkt.on_ground

    def _on_teleport(self, pkt: Any) -> None:
        ent = self.by_id.get(pkt.entity_id)
        if ent is not None:
            ent.position = (pkt.x, pkt.y, pkt.z)
            ent.yaw, ent.pitch, ent.on_ground = _angle(pkt.yaw), _angle(pkt.pitch), pkt.on_ground

    def _on_velocity(self, pkt: Any) -> None:
        ent = self.by_id.get(pkt.entity_id)
        if ent is not None:
            ent.velocity = (pkt.velocity_x / 8000, pkt.velocity_y / 8000, pkt.velocity_z / 8000)

    def _on_metadata(self, pkt: Any) -> None:
        ent = self.by_id.get(pkt.entity_id)
        if ent is None:
            return
        for entry in pkt.metadata:
            ent.metadata[entry.index] = entry.value
            # Vanilla puts the stack at index 8; flying-squid 1.12.0 sends it at index 6. An item entity has
            # exactly one Slot-typed entry, so the type identifies it on both.
            if ent.type == "minecraft:item" and (entry.index == ITEM_STACK_INDEX or entry.type == SLOT_TYPE):
                ent.item = entry.value

    def _on_destroy(self, pkt: Any) -> None:
        for eid in pkt.entity_ids:
            self.by_id.pop(eid, None)

    def _on_collect(self, pkt: Any) -> None:
        ent = self.by_id.get(pkt.collected_entity_id)
        ev = CollectEvent(
            collected_id=pkt.collected_entity_id,
            collector_id=pkt.collector_entity_id,
            count=pkt.pickup_item_count,
            item=ent.item if ent is not None else None,
        )
        self.collected.append(ev)
        del self.collected[:-256]
        for listener in list(self._collect_listeners):
            listener(ev)
