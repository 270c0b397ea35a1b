"""The server's packet bodies against real vanilla 1.19.2 captures (minecraft-packets 1.9.0).

For every capture of a packet the server sends, the decoded JSON's field values are fed to the server's
encoder and the bytes must equal the captured body (the ``.raw`` file minus its VarInt packet id).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mirrorcraft.rules.stack import Stack
from mirrorcraft.server import facts, wire

pytestmark = pytest.mark.npm  # needs node_modules (Mineflayer / minecraft-data / minecraft-packets)


def _long(v: Any) -> int:
    if isinstance(v, list):  # minecraft-packets writes i64 as [high, low] 32-bit halves
        hi, lo = v
        val = (hi << 32) | (lo & 0xFFFFFFFF)
        return val - (1 << 64) if val >= 1 << 63 else val
    return int(v)


def _slot(s: dict[str, Any]) -> Stack | None:
    return Stack(facts.item_key_of(s["itemId"]), s["itemCount"]) if s["present"] else None


def _deg(raw: int) -> float:
    return raw * 360.0 / 256.0


ENCODERS: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "block_change": lambda j: wire.block_change(
        j["location"]["x"], j["location"]["y"], j["location"]["z"], j["type"]
    ),
    "set_slot": lambda j: wire.set_slot(j["windowId"], j["stateId"], j["slot"], _slot(j["item"])),
    "window_items": lambda j: wire.window_items(
        j["windowId"], j["stateId"], [_slot(s) for s in j["items"]], _slot(j["carriedItem"])
    ),
    "update_time": lambda j: wire.update_time(_long(j["age"]), _long(j["time"])),
    "keep_alive": lambda j: wire.keep_alive(_long(j["keepAliveId"])),
    "spawn_position": lambda j: wire.spawn_position(
        j["location"]["x"], j["location"]["y"], j["location"]["z"], j["angle"]
    ),
    "named_entity_spawn": lambda j: wire.named_entity_spawn(
        j["entityId"], uuid.UUID(j["playerUUID"]), j["x"], j["y"], j["z"], _deg(j["yaw"]), _deg(j["pitch"])
    ),
    "entity_teleport": lambda j: wire.entity_teleport(
        j["entityId"], j["x"], j["y"], j["z"], _deg(j["yaw"]), _deg(j["pitch"]), j["onGround"]
    ),
    "entity_head_rotation": lambda j: wire.entity_head_rotation(j["entityId"], _deg(j["headYaw"])),
    "collect": lambda j: wire.collect(j["collectedEntityId"], j["collectorEntityId"], j["pickupItemCount"]),
    "acknowledge_player_digging": lambda j: wire.acknowledge_block_changes(j["sequenceId"]),
    "update_view_position": lambda j: wire.update_view_position(j["chunkX"], j["chunkZ"]),
    "unload_chunk": lambda j: wire.unload_chunk(j["chunkX"], j["chunkZ"]),
    "initialize_world_border": lambda j: wire.initialize_world_border(j["x"], j["z"], j["newDiameter"]),
    "entity_effect": lambda j: wire.entity_effect(
        j["entityId"], j["effectId"], j["amplifier"], j["duration"], j["hideParticles"]
    ),
    "experience": lambda j: wire.experience(j["experienceBar"], j["level"], j["totalExperience"]),
    "update_health": lambda j: wire.update_health(j["health"], j["food"], j["foodSaturation"]),
    "game_state_change": lambda j: wire.game_state_change(j["reason"], j["gameMode"]),
    "abilities": lambda j: wire.abilities(j["flags"], j["flyingSpeed"], j["walkingSpeed"]),
    "position": lambda j: wire.player_position(j["x"], j["y"], j["z"], j["yaw"], j["pitch"], j["teleportId"]),
    "held_item_slot": lambda j: wire.held_item_change(j["slot"]),
    "entity_destroy": lambda j: wire.entity_destroy(j["entityIds"]),
    "entity_velocity": lambda j: wire.entity_velocity(
        j["entityId"], (j["velocityX"] / 8000, j["velocityY"] / 8000, j["velocityZ"] / 8000)
    ),
    "spawn_entity": lambda j: wire.spawn_entity(
        j["entityId"],
        uuid.UUID(j["objectUUID"]),
        j["type"],
        j["x"],
        j["y"],
        j["z"],
        (j["velocityX"] / 8000, j["velocityY"] / 8000, j["velocityZ"] / 8000),
        j["objectData"],
        _deg(j["pitch"]),
        _deg(j["yaw"]),
        _deg(j["headPitch"]),
    ),
    "scoreboard_objective": lambda j: wire.scoreboard_objective(
        j["name"], j["action"], json.loads(j["displayText"]) if "displayText" in j else None
    ),
    "scoreboard_score": lambda j: (
        wire.update_score(j["itemName"], j["scoreName"], j["value"])
        if j["action"] == 0
        else wire.remove_score(j["itemName"], j["scoreName"])
    ),
    "scoreboard_display_objective": lambda j: wire.display_scoreboard(j["position"], j["name"]),
    "player_info": lambda j: wire.player_info_add(
        [(uuid.UUID(d["UUID"]), d["name"], d["gamemode"]) for d in j["data"]]
    ),
}

# Captures whose values the server never produces are skipped (documented, not silently):
# player_info entries with skins/ping,
# initialize_world_border with a shrinking border, items with NBT.


def _skip(name: str, j: dict[str, Any]) -> str | None:
    if name == "player_info" and (
        j["action"] != 0 or any(d["properties"] or d["ping"] or "displayName" in d for d in j["data"])
    ):
        return "player_info with properties/ping/display name"
    if name == "initialize_world_border" and (j["oldDiameter"] != j["newDiameter"] or j["speed"]):
        return "moving border"
    if name == "entity_effect" and "factorCodec" in j:
        return "effect with factor codec"
    if name == "position" and (j["flags"] or j["dismountVehicle"]):
        return "relative teleport"
    if name in ("window_items", "set_slot"):
        slots = j.get("items", []) + [j.get("item") or {}, j.get("carriedItem") or {}]
        if any(s.get("nbtData") for s in slots):
            return "item NBT (prismarine-nbt JSON is not converted here)"
    if name == "difficulty":
        return "n/a"
    return None


def _cases(root: Path) -> list[tuple[str, Path]]:
    out = []
    for name in ENCODERS:
        for js in sorted((root / "from-server" / name).glob("*.json")):
            out.append((name, js))
    return out


def test_server_encoders_reproduce_vanilla_captures(packets_dir: Path) -> None:
    checked: dict[str, int] = {}
    for name, js in _cases(packets_dir):
        j = json.loads(js.read_text())
        if _skip(name, j):
            continue
        raw = js.with_suffix(".raw").read_bytes()
        body = raw[1:] if raw[0] < 0x80 else raw[2:]
        assert ENCODERS[name](j) == body, f"{name} {js.name}"
        checked[name] = checked.get(name, 0) + 1
    assert set(checked) >= set(ENCODERS) - {"difficulty"}, sorted(set(ENCODERS) - set(checked))
    assert sum(checked.values()) >= 90  # 101 of the 1.19.2 captures at the time of writing


def test_difficulty_matches_capture(packets_dir: Path) -> None:
    for js in sorted((packets_dir / "from-server" / "difficulty").glob("*.json")):
        j = json.loads(js.read_text())
        raw = js.with_suffix(".raw").read_bytes()
        assert wire.difficulty(j["difficulty"], j["difficultyLocked"]) == raw[1:]


def test_login_matches_capture_except_the_world_list(packets_dir: Path) -> None:
    """The captured login re-encoded with its own values: identical after the world-name list (the server
    announces only the overworld; the capture lists three dimensions), header fields identical too."""
    js = packets_dir / "from-server" / "login" / "1.json"
    j = json.loads(js.read_text())
    raw = js.with_suffix(".raw").read_bytes()[1:]
    ours = wire.login(
        j["entityId"], j["gameMode"], 760, _long(j["hashedSeed"]), j["viewDistance"], j["simulationDistance"]
    )
    assert ours[:7] == raw[:7]  # entity id, hardcore, game mode, previous game mode
    names_end_raw = 7 + 1 + sum(1 + len(n) for n in j["worldNames"])
    names_end_ours = 7 + 1 + 1 + len("minecraft:overworld")
    assert ours[names_end_ours:] == raw[names_end_raw:]


@pytest.mark.parametrize("x,y,z", [(0, 0, 0), (-213, 19, 13), (33554431, 2047, -33554432), (-1, -64, -1)])
def test_position_round_trip(x: int, y: int, z: int) -> None:
    assert wire.unpack_position(wire.position(x, y, z)) == (x, y, z)


def test_teams_packet_modes_match_the_protocol_layout() -> None:
    """No vanilla 1.19.2 capture of ``teams`` exists in minecraft-packets 1.9.0: the layout is checked field by
    field against wiki.vg 1.19.2 "Update Teams" (and minecraft-data's ``packet_teams``): string team, byte
    mode; modes 0/2: chat display name, byte flags, string name tag visibility, string collision rule, VarInt
    colour, chat prefix, chat suffix; modes 0/3/4: VarInt count + strings."""
    body = wire.teams("red", 0, display_name={"text": "R"}, flags=3, color=12, entities=["A"])
    assert body == (
        b"\x03red" + b"\x00" + b'\x0c{"text":"R"}' + b"\x03" + b"\x06always" * 2 + b"\x0c"
        + b'\x0b{"text":""}' * 2 + b"\x01\x01A"
    )  # fmt: skip
    assert wire.teams("red", 1) == b"\x03red\x01"
    assert wire.teams("red", 3, entities=["A", "B"]) == b"\x03red\x03\x02\x01A\x01B"
    assert wire.teams("red", 4, entities=["B"]) == b"\x03red\x04\x01\x01B"
