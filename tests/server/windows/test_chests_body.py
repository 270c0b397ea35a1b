"""Our body (:class:`mirrorcraft.mcproto_body.Body`) and a chest on the embedded server, over 127.0.0.1.

The body places a chest it was given (``server.give_item``), opens it with ``open_container``, moves items
both ways with real click packets (pickup, right-click split, shift-click), closes, reopens, and the
contents are still there. Ground truth is the server's chest block entity and its open menu; after every
step the body's window (predicted and corrected by the server's packets) must equal the server's.
"""

from __future__ import annotations

import json

import pytest
import pytest_twisted

from mirrorcraft.gamedata import item_by_id
from mirrorcraft.mcproto_body import Body, BodyConfig

CHEST = (10, 65, 8)


@pytest.fixture
def server(start_server):
    return start_server(tick_rate=20, view_distance=4, episode_seed=5, rcon_port=None)


def _named(slots) -> list[tuple[str, int] | None]:
    """Slots as ``(minecraft:item, count)`` (body side: protocol Slots; server side: stacks)."""
    out = []
    for s in slots:
        if s is None:
            out.append(None)
        elif hasattr(s, "item_id"):
            out.append((item_by_id(s.item_id).name, s.count))
        else:
            out.append((s.item, s.count))
    return out


def _server_menu(server, name: str):
    p = server.player(name)
    return server.game.windows.menu_of(p)


def _same_view(body: Body, server, name: str) -> None:
    menu = _server_menu(server, name)
    win = body.inventory.window
    assert menu is not None and win is not None and win.id == menu.window_id
    assert _named(win.slots) == _named(menu.all_slots())


@pytest_twisted.ensureDeferred
async def test_body_places_opens_fills_and_empties_a_chest(server) -> None:
    name = "chestbody"
    body = Body(BodyConfig(port=server.port, username=name, view_distance=4))
    await body.connect()
    try:
        assert await body.wait_chunks(radius=2, timeout=30)
        await body.sleep(0.5)
        assert server.give_item(name, "chest", 1) == 1
        assert server.give_item(name, "oak_log", 16) == 16
        assert server.give_item(name, "cobblestone", 10) == 10
        await body.sleep(0.3)

        placed = await body.place(CHEST, "chest")
        assert placed.placed and placed.new_block == "minecraft:chest", placed
        assert server.block_at(*CHEST) == "chest"

        win = await body.open_container(CHEST)
        assert win.type == "minecraft:generic_9x3" and win.container_slots == 27
        assert json.loads(win.title) == {"translate": "container.chest"}
        await body.sleep(0.3)
        _same_view(body, server, name)

        inv = body.inventory
        logs = inv.find("minecraft:oak_log")
        res = await inv.move_stack(logs, 0)  # pickup + place: player → chest slot 0
        assert res.confirmed, res
        cobble = inv.find("minecraft:cobblestone")
        res = await inv.shift_click(cobble)  # player → first free chest slot
        assert res.confirmed, res
        chest = server.game.chests.chest_at(CHEST)
        assert _named(chest.slots[:3]) == [("minecraft:oak_log", 16), ("minecraft:cobblestone", 10), None]
        _same_view(body, server, name)

        await inv.click(0, button=1)  # right click: half of the logs onto the cursor
        spot = inv.empty_slot()
        res = await inv.click(spot)  # ...and into an empty player slot: chest → player
        assert res.confirmed, res
        res = await inv.shift_click(1)  # cobblestone back to the player
        assert res.confirmed, res
        assert _named(chest.slots[:2]) == [("minecraft:oak_log", 8), None]
        _same_view(body, server, name)
        assert inv.count("minecraft:oak_log") == 8 and inv.count("minecraft:cobblestone") == 10

        await inv.close()
        await body.sleep(0.3)
        assert _server_menu(server, name) is None
        assert _named(chest.slots[:1]) == [("minecraft:oak_log", 8)]  # the chest kept them

        again = await body.open_container(CHEST)
        await body.sleep(0.3)
        assert again.id != win.id
        assert _named(again.slots[:27]) == _named(chest.slots)
        _same_view(body, server, name)
        server_inv = {item for item, _n in server.inventory(name).values()}
        assert {"oak_log", "cobblestone"} <= server_inv
        await inv.close()
        await body.sleep(0.2)

        server.save()
        side = json.loads((server.config.world / "mirrorcraft" / "block_entities.json").read_text())
        assert [
            (e["pos"], [(i["Slot"], i["id"], i["Count"]) for i in e["Items"]]) for e in side["chests"]
        ] == [(list(CHEST), [(0, "minecraft:oak_log", 8)])]
    finally:
        await body.disconnect()
