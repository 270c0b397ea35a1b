"""Encoders vs node-minecraft-protocol's own serializer (bytes nobody here wrote).

A small node script (written to the pytest tmp dir) feeds packet objects to
``require('minecraft-protocol').createSerializer({state: 'play', isServer, version})`` for 1.19.2 and 1.19
(``isServer: false`` for every serverbound packet; ``true`` for the clientbound packets no vanilla capture
covers); our encoder must produce the same bytes for the same values, and our decoder must read them back.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from pathlib import Path

import nbtlib
import pytest

from mirrorcraft.protocol import Slot, decode_frame, encode_frame
from mirrorcraft.protocol import clientbound as cb
from mirrorcraft.protocol import serverbound as sb
from mirrorcraft.protocol.clientbound import PreviousMessage

NODE_SCRIPT = r"""
const mc = require('minecraft-protocol')
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'))
const fix = (v) => {
  if (Array.isArray(v)) return v.map(fix)
  if (v && typeof v === 'object') {
    if ('$buf' in v) return Buffer.from(v.$buf, 'hex')
    if ('$i64' in v) return BigInt(v.$i64)
    const o = {}
    for (const k of Object.keys(v)) o[k] = fix(v[k])
    return o
  }
  return v
}
const sers = {}
const out = cases.map(c => {
  const key = c.version + c.isServer
  sers[key] = sers[key] || mc.createSerializer({ state: 'play', isServer: c.isServer, version: c.version })
  return sers[key].createPacketBuffer({ name: c.name, params: fix(c.params) }).toString('hex')
})
process.stdout.write(JSON.stringify(out))
"""

U1 = uuid.UUID("3591fdca-95ad-32a5-beb1-2a99402471c2")
SIG = bytes(range(16))
SWORD_NBT = nbtlib.Compound({"Damage": nbtlib.Int(3)})


def _slot_js(item_id: int, count: int, damage: int | None = None) -> dict:
    js: dict = {"present": True, "itemId": item_id, "itemCount": count}
    if damage is not None:
        js["nbtData"] = {
            "type": "compound",
            "name": "",
            "value": {"Damage": {"type": "int", "value": damage}},
        }
    return js


def _cases() -> list[tuple[str, str, dict, sb.Packet]]:
    """(version, name, nmp params, our packet object)."""
    common = [
        ("teleport_confirm", {"teleportId": 300}, sb.TeleportConfirm(teleport_id=300)),
        ("client_command", {"actionId": 1}, sb.ClientCommand(action_id=1)),
        (
            "settings",
            {
                "locale": "en_us",
                "viewDistance": 8,
                "chatFlags": 0,
                "chatColors": True,
                "skinParts": 127,
                "mainHand": 1,
                "enableTextFiltering": False,
                "enableServerListing": True,
            },
            sb.Settings(
                locale="en_us",
                view_distance=8,
                chat_flags=0,
                chat_colors=True,
                skin_parts=127,
                main_hand=1,
                enable_text_filtering=False,
                enable_server_listing=True,
            ),
        ),
        (
            "window_click",
            {
                "windowId": 3,
                "stateId": 17,
                "slot": 0,
                "mouseButton": 0,
                "mode": 0,
                "changedSlots": [
                    {"location": 0, "item": {"present": False}},
                    {"location": 37, "item": _slot_js(836, 1, damage=3)},
                ],
                "cursorItem": _slot_js(23, 4),
            },
            sb.WindowClick(
                window_id=3,
                state_id=17,
                slot=0,
                mouse_button=0,
                mode=0,
                changed_slots=[
                    sb.ChangedSlot(location=0, item=None),
                    sb.ChangedSlot(location=37, item=Slot(836, 1, SWORD_NBT)),
                ],
                cursor_item=Slot(23, 4),
            ),
        ),
        ("close_window", {"windowId": 3}, sb.CloseWindowServerbound(window_id=3)),
        ("enchant_item", {"windowId": 2, "enchantment": 1}, sb.EnchantItem(window_id=2, enchantment=1)),
        ("use_entity", {"target": 71, "mouse": 1, "sneaking": False}, sb.UseEntity(target=71, mouse=1)),
        (
            "use_entity",
            {"target": 71, "mouse": 0, "hand": 0, "sneaking": True},
            sb.UseEntity(target=71, mouse=0, hand=0, sneaking=True),
        ),
        (
            "use_entity",
            {"target": 9, "mouse": 2, "x": 0.5, "y": 1.25, "z": -0.5, "hand": 1, "sneaking": False},
            sb.UseEntity(target=9, mouse=2, x=0.5, y=1.25, z=-0.5, hand=1),
        ),
        (
            "keep_alive",
            {"keepAliveId": {"$i64": "1669821234567"}},
            sb.KeepAliveServerbound(keep_alive_id=1669821234567),
        ),
        (
            "position",
            {"x": -306.5, "y": 64.0, "z": -65.25, "onGround": True},
            sb.PlayerPosition(x=-306.5, y=64.0, z=-65.25, on_ground=True),
        ),
        (
            "position_look",
            {"x": 1.5, "y": -60.0, "z": 2.5, "yaw": 90.0, "pitch": -12.5, "onGround": False},
            sb.PlayerPositionLook(x=1.5, y=-60.0, z=2.5, yaw=90.0, pitch=-12.5, on_ground=False),
        ),
        (
            "look",
            {"yaw": 180.0, "pitch": 45.0, "onGround": True},
            sb.PlayerLook(yaw=180.0, pitch=45.0, on_ground=True),
        ),
        ("flying", {"onGround": True}, sb.PlayerOnGround(on_ground=True)),
        ("abilities", {"flags": 2}, sb.PlayerAbilities(flags=2)),
        (
            "block_dig",
            {"status": 0, "location": {"x": -213, "y": -19, "z": 13}, "face": 1, "sequence": 5},
            sb.BlockDig(status=0, location=(-213, -19, 13), face=1, sequence=5),
        ),
        (
            "entity_action",
            {"entityId": 184, "actionId": 3, "jumpBoost": 0},
            sb.EntityAction(entity_id=184, action_id=3, jump_boost=0),
        ),
        ("held_item_slot", {"slotId": 4}, sb.HeldItemSlotServerbound(slot_id=4)),
        (
            "set_creative_slot",
            {"slot": 36, "item": _slot_js(1, 64)},
            sb.SetCreativeSlot(slot=36, item=Slot(1, 64)),
        ),
        (
            "set_creative_slot",
            {"slot": 40, "item": {"present": False}},
            sb.SetCreativeSlot(slot=40, item=None),
        ),
        ("arm_animation", {"hand": 0}, sb.ArmAnimation(hand=0)),
        (
            "block_place",
            {
                "hand": 0,
                "location": {"x": 33554431, "y": -64, "z": -33554432},
                "direction": 1,
                "cursorX": 0.5,
                "cursorY": 1.0,
                "cursorZ": 0.25,
                "insideBlock": False,
                "sequence": 12,
            },
            sb.BlockPlace(
                hand=0,
                location=(33554431, -64, -33554432),
                direction=1,
                cursor_x=0.5,
                cursor_y=1.0,
                cursor_z=0.25,
                inside_block=False,
                sequence=12,
            ),
        ),
        ("use_item", {"hand": 1, "sequence": 7}, sb.UseItem(hand=1, sequence=7)),
        ("pong", {"id": -42}, sb.Pong(id=-42)),
        (
            "custom_payload",
            {"channel": "minecraft:brand", "data": {"$buf": "0776616e696c6c61"}},
            sb.CustomPayloadServerbound(channel="minecraft:brand", data=b"\x07vanilla"),
        ),
    ]
    chat_759 = [
        (
            "chat_message",
            {
                "message": "hello",
                "timestamp": {"$i64": "1669821234567"},
                "salt": {"$i64": "-5"},
                "signature": {"$buf": SIG.hex()},
                "signedPreview": False,
            },
            sb.ChatMessage(message="hello", timestamp=1669821234567, salt=-5, signature=SIG),
        ),
        (
            "chat_command",
            {
                "command": "give @s stone",
                "timestamp": {"$i64": "1"},
                "salt": {"$i64": "2"},
                "argumentSignatures": [{"argumentName": "targets", "signature": {"$buf": "abcd"}}],
                "signedPreview": True,
            },
            sb.ChatCommand(
                command="give @s stone",
                timestamp=1,
                salt=2,
                signed_preview=True,
                argument_signatures=[sb.ArgumentSignature(argument_name="targets", signature=b"\xab\xcd")],
            ),
        ),
    ]
    chat_760 = [
        (
            "chat_message",
            {
                "message": "hello",
                "timestamp": {"$i64": "1669821234567"},
                "salt": {"$i64": "-5"},
                "signature": {"$buf": SIG.hex()},
                "signedPreview": False,
                "previousMessages": [{"messageSender": str(U1), "messageSignature": {"$buf": "0102"}}],
                "lastRejectedMessage": {"sender": str(U1), "signature": {"$buf": "ff"}},
            },
            sb.ChatMessage(
                message="hello",
                timestamp=1669821234567,
                salt=-5,
                signature=SIG,
                previous_messages=[PreviousMessage(sender=U1, signature=b"\x01\x02")],
                last_rejected=sb.RejectedMessage(sender=U1, signature=b"\xff"),
            ),
        ),
        (
            "chat_command",
            {
                "command": "help",
                "timestamp": {"$i64": "1"},
                "salt": {"$i64": "2"},
                "argumentSignatures": [],
                "signedPreview": False,
                "previousMessages": [],
            },
            sb.ChatCommand(command="help", timestamp=1, salt=2),
        ),
    ]
    pos = {"x": -213, "y": -19, "z": 13}
    extra_sb = [
        (
            "tab_complete",
            {"transactionId": 3, "text": "/give @s "},
            sb.TabCompleteRequest(transaction_id=3, text="/give @s "),
        ),
        (
            "query_block_nbt",
            {"transactionId": 1, "location": pos},
            sb.QueryBlockNbt(transaction_id=1, location=(-213, -19, 13)),
        ),
        (
            "query_entity_nbt",
            {"transactionId": 2, "entityId": 70},
            sb.QueryEntityNbt(transaction_id=2, entity_id=70),
        ),
        ("set_difficulty", {"newDifficulty": 2}, sb.SetDifficulty(new_difficulty=2)),
        ("lock_difficulty", {"locked": True}, sb.LockDifficulty(locked=True)),
        ("steer_boat", {"leftPaddle": True, "rightPaddle": False}, sb.SteerBoat(left_paddle=True)),
        (
            "steer_vehicle",
            {"sideways": 0.5, "forward": -1.0, "jump": 1},
            sb.SteerVehicle(sideways=0.5, forward=-1.0, flags=1),
        ),
        ("pick_item", {"slot": 3}, sb.PickItem(slot=3)),
        (
            "craft_recipe_request",
            {"windowId": 1, "recipe": "minecraft:crafting_table", "makeAll": True},
            sb.CraftRecipeRequest(window_id=1, recipe="minecraft:crafting_table", make_all=True),
        ),
        (
            "recipe_book",
            {"bookId": 1, "bookOpen": True, "filterActive": False},
            sb.RecipeBookSettings(book_id=1, book_open=True),
        ),
        (
            "displayed_recipe",
            {"recipeId": "minecraft:stick"},
            sb.DisplayedRecipe(recipe_id="minecraft:stick"),
        ),
        ("name_item", {"name": "Excalibur"}, sb.NameItem(name="Excalibur")),
        ("resource_pack_receive", {"result": 3}, sb.ResourcePackReceive(result=3)),
        ("select_trade", {"slot": 2}, sb.SelectTrade(slot=2)),
        (
            "update_sign",
            {"location": pos, "text1": "a", "text2": "", "text3": "c", "text4": "✓"},
            sb.UpdateSign(location=(-213, -19, 13), text1="a", text2="", text3="c", text4="✓"),
        ),
        ("spectate", {"target": str(U1)}, sb.Spectate(target=U1)),
    ]
    stone = nbtlib.Compound({"id": nbtlib.String("minecraft:chest")})
    extra_cb = [
        ("kick_disconnect", {"reason": '{"text":"bye"}'}, cb.KickDisconnect(reason='{"text":"bye"}')),
        ("animation", {"entityId": 70, "animation": 3}, cb.Animation(entity_id=70, animation=3)),
        (
            "block_break_animation",
            {"entityId": 9, "location": pos, "destroyStage": 4},
            cb.BlockBreakAnimation(entity_id=9, location=(-213, -19, 13), destroy_stage=4),
        ),
        (
            "tile_entity_data",
            {
                "location": pos,
                "action": 1,
                "nbtData": {
                    "type": "compound",
                    "name": "",
                    "value": {"id": {"type": "string", "value": "minecraft:chest"}},
                },
            },
            cb.TileEntityData(location=(-213, -19, 13), type=1, nbt=stone),
        ),
        (
            "block_action",
            {"location": pos, "byte1": 1, "byte2": 1, "blockId": 155},
            cb.BlockAction(location=(-213, -19, 13), action_id=1, action_param=1, block_id=155),
        ),
        ("update_view_distance", {"viewDistance": 10}, cb.UpdateViewDistance(view_distance=10)),
        ("simulation_distance", {"distance": 8}, cb.SimulationDistance(distance=8)),
        ("ping", {"id": 77}, cb.Ping(id=77)),
        (
            "spawn_entity_experience_orb",
            {"entityId": 5, "x": 1.5, "y": 64.0, "z": -2.5, "count": 7},
            cb.SpawnExperienceOrb(entity_id=5, x=1.5, y=64.0, z=-2.5, count=7),
        ),
        (
            "playerlist_header",
            {"header": "{}", "footer": '""'},
            cb.PlayerListHeader(header="{}", footer='""'),
        ),
        (
            "set_passengers",
            {"entityId": 1, "passengers": [2, 3]},
            cb.SetPassengers(entity_id=1, passengers=[2, 3]),
        ),
        ("attach_entity", {"entityId": 1, "vehicleId": -1}, cb.AttachEntity(entity_id=1, vehicle_id=-1)),
        ("clear_titles", {"reset": True}, cb.ClearTitles(reset=True)),
        ("set_title_subtitle", {"text": '"x"'}, cb.SetTitleSubtitle(text='"x"')),
        (
            "set_title_time",
            {"fadeIn": 10, "stay": 70, "fadeOut": 20},
            cb.SetTitleTime(fade_in=10, stay=70, fade_out=20),
        ),
        ("action_bar", {"text": '"hi"'}, cb.ActionBar(text='"hi"')),
        ("camera", {"cameraId": 184}, cb.Camera(camera_id=184)),
        (
            "open_horse_window",
            {"windowId": 2, "nbSlots": 17, "entityId": 99},
            cb.OpenHorseWindow(window_id=2, slot_count=17, entity_id=99),
        ),
        ("open_sign_entity", {"location": pos}, cb.OpenSignEditor(location=(-213, -19, 13))),
        (
            "craft_recipe_response",
            {"windowId": 1, "recipe": "minecraft:stick"},
            cb.CraftRecipeResponse(window_id=1, recipe="minecraft:stick"),
        ),
        ("world_border_center", {"x": 0.5, "z": -8.0}, cb.WorldBorderCenter(x=0.5, z=-8.0)),
        ("world_border_size", {"diameter": 512.0}, cb.WorldBorderSize(diameter=512.0)),
        ("world_border_warning_delay", {"warningTime": 15}, cb.WorldBorderWarningDelay(warning_time=15)),
        ("world_border_warning_reach", {"warningBlocks": 5}, cb.WorldBorderWarningReach(warning_blocks=5)),
        (
            "select_advancement_tab",
            {"id": "minecraft:story/root"},
            cb.SelectAdvancementTab(tab_id="minecraft:story/root"),
        ),
        ("select_advancement_tab", {}, cb.SelectAdvancementTab(tab_id=None)),
        (
            "resource_pack_send",
            {"url": "http://x/p.zip", "hash": "ab", "forced": False},
            cb.ResourcePackSend(url="http://x/p.zip", hash="ab", forced=False),
        ),
        ("end_combat_event", {"duration": 40, "entityId": -1}, cb.EndCombatEvent(duration=40, entity_id=-1)),
        ("enter_combat_event", {}, cb.EnterCombatEvent()),
        ("open_book", {"hand": 0}, cb.OpenBook(hand=0)),
        ("nbt_query_response", {"transactionId": 4}, cb.NbtQueryResponse(transaction_id=4, nbt=None)),
    ]
    out = []
    for version, chat in (("1.19.2", chat_760), ("1.19", chat_759)):
        for name, params, obj in common + chat + extra_sb + extra_cb:
            out.append((version, name, params, obj))
    out.append(
        (
            "1.19.2",
            "message_acknowledgement",
            {"previousMessages": [{"messageSender": str(U1), "messageSignature": {"$buf": "0102"}}]},
            sb.MessageAcknowledgement(previous_messages=[PreviousMessage(sender=U1, signature=b"\x01\x02")]),
        )
    )
    return out


CASES = _cases()


@pytest.fixture(scope="module")
def golden(node_modules: Path, tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is required for the serverbound golden tests")
    script = tmp_path_factory.mktemp("nmp") / "serialize.js"
    script.write_text(NODE_SCRIPT)
    payload = json.dumps(
        [
            {"version": v, "name": n, "params": p, "isServer": o.DIRECTION == "clientbound"}
            for v, n, p, o in CASES
        ]
    )
    res = subprocess.run(
        [node, str(script)],
        input=payload,
        capture_output=True,
        text=True,
        cwd=node_modules.parent,
        env={"NODE_PATH": str(node_modules), "PATH": "/usr/bin:/bin"},
        check=False,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    return [bytes.fromhex(h) for h in json.loads(res.stdout)]


@pytest.mark.npm
@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{v}-{n}-{i}" for i, (v, n, _, _) in enumerate(CASES)])
def test_serverbound_matches_node_minecraft_protocol(golden: list[bytes], i: int) -> None:
    version, name, _, obj = CASES[i]
    proto = 760 if version == "1.19.2" else 759
    assert obj.NAME == name
    assert encode_frame(obj, proto).hex() == golden[i].hex()
    assert decode_frame(golden[i], proto, obj.DIRECTION) == obj


def test_every_required_serverbound_packet_is_covered() -> None:
    required = set(
        "teleport_confirm chat_command chat_message client_command settings window_click close_window "
        "enchant_item use_entity keep_alive position position_look look flying abilities block_dig "
        "entity_action held_item_slot set_creative_slot arm_animation block_place use_item pong "
        "custom_payload".split()
    )
    assert required <= {n for _, n, _, _ in CASES}
