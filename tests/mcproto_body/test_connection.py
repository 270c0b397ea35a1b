"""Connection-level behaviour on real vanilla 1.19.2 bytes (minecraft-packets captures), without a socket.

Every capture is fed through :meth:`Connection._received` exactly as quarry hands play packets over, so
the feature modules' handlers run on vanilla bytes. The rule-revealing packets must be dropped unparsed
and nothing derived from them may be reachable from the body afterwards.
"""

from __future__ import annotations

import ast
import gc
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytest_twisted

from mirrorcraft.errors import ProtocolError
from mirrorcraft.mcproto_body import DROPPED_PACKETS, Body, BodyConfig
from mirrorcraft.protocol import clientbound
from mirrorcraft.protocol import codec as codec_mod
from mirrorcraft.protocol.buffer import Reader

REPO = Path(__file__).resolve().parents[2]
BODY_DIRS = [REPO / "mirrorcraft" / "mcproto_body", REPO / "mirrorcraft" / "pathing"]


def _captures(packets_dir: Path) -> list[tuple[str, bytes]]:
    """``(name, body)`` of every 1.19.2 from-server capture: login, then respawn (it resets the position),
    then the rest in name order."""
    out = []
    for folder in sorted((packets_dir / "from-server").iterdir()):
        for raw in sorted(folder.glob("*.raw")):
            data = raw.read_bytes()
            r = Reader(data)
            r.varint()
            out.append((folder.name, data[r.pos :]))
    out.sort(key=lambda nb: {"login": 0, "respawn": 1}.get(nb[0], 2))
    return out


def _feed(body: Body, captures: list[tuple[str, bytes]]) -> None:
    for name, data in captures:
        body.conn._received(name, data)


def test_dropped_packets_are_never_decoded_or_kept(
    packets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    caps = _captures(packets_dir)
    assert {n for n, _ in caps} >= DROPPED_PACKETS  # the captures really contain them
    decoded: list[str] = []
    real_decode = codec_mod.decode

    def spy(name, body, proto=760, direction="clientbound"):
        decoded.append(name)
        return real_decode(name, body, proto, direction)

    monkeypatch.setattr("mirrorcraft.mcproto_body.connection.decode", spy)
    body = Body(BodyConfig(port=1, username="capture"))
    _feed(body, caps)
    assert not set(decoded) & DROPPED_PACKETS
    assert dict(body.conn.dropped_counts) == {n: sum(1 for m, _ in caps if m == n) for n in DROPPED_PACKETS}
    # Nothing recipe- or tag-shaped is reachable from the body's object graph.
    forbidden = (clientbound.DeclareRecipes, clientbound.UnlockRecipes, clientbound.Tags, clientbound.Recipe)
    seen, stack = set(), [body]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type | type(sys)):
            continue
        seen.add(id(obj))
        assert not isinstance(obj, forbidden), f"{type(obj).__name__} reachable from the body"
        if isinstance(obj, str):
            assert "crafting_shaped" not in obj and "minecraft:planks" not in obj
            continue
        if isinstance(obj, bytes | int | float | bool) or obj is None:
            continue
        stack.extend(r for r in gc.get_referents(obj) if not callable(r) or hasattr(r, "__self__"))
    assert len(seen) > 1000  # the walk really covered the modules' state


def test_cannot_subscribe_to_dropped_packets() -> None:
    body = Body(BodyConfig(port=1, username="capture"))
    for name in DROPPED_PACKETS:
        with pytest.raises(ProtocolError, match="dropped unparsed"):
            body.conn.on(name, lambda p: None)


def test_vanilla_captures_drive_the_modules(packets_dir: Path) -> None:
    body = Body(BodyConfig(port=1, username="capture"))
    _feed(body, _captures(packets_dir))
    assert body.conn.protocol_errors == []
    assert body.world.chunks_decoded >= 5 and body.world.height == 384 and body.world.min_y == -64
    assert body.entities.self_id is not None
    assert body.health.health is not None
    assert body.movement.state is not None  # the captured position packet placed us
    assert body.advancements.titles  # the captured advancements packet was read
    # window_items was fed last among inventory packets: the player window is exactly its decoded JSON.
    items = json.loads((packets_dir / "from-server" / "window_items" / "1.json").read_text())["items"]
    assert [(s.item_id, s.count) if s else None for s in body.inventory.player.slots] == [
        (i["itemId"], i["itemCount"]) if i["present"] else None for i in items
    ]
    body.movement.stop_loop()


def test_set_slot_captures_update_the_player_window(packets_dir: Path) -> None:
    body = Body(BodyConfig(port=1, username="capture"))
    _feed(body, [c for c in _captures(packets_dir) if c[0] in ("login", "set_slot")])
    expected: dict[int, tuple[int, int] | None] = {}
    for path in sorted((packets_dir / "from-server" / "set_slot").glob("*.json")):  # same order as fed
        js = json.loads(path.read_text())
        if js["windowId"] in (0, -2) and js["slot"] >= 0:
            expected[js["slot"]] = (
                (js["item"]["itemId"], js["item"]["itemCount"]) if js["item"]["present"] else None
            )
    assert expected
    for slot, want in expected.items():
        got = body.inventory.player.slots[slot]
        assert (None if got is None else (got.item_id, got.count)) == want, slot


def test_body_and_pathing_never_import_the_server() -> None:
    for folder in BODY_DIRS:
        for path in folder.rglob("*.py"):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                for n in names:
                    assert not n.startswith("mirrorcraft.server"), f"{path.name} imports {n}"
    code = (
        "import sys, mirrorcraft.mcproto_body, mirrorcraft.pathing, mirrorcraft.mcproto_body.bot;"
        "bad = [m for m in sys.modules if m.startswith('mirrorcraft.server')];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_sky_light_from_vanilla_captures(packets_dir: Path) -> None:
    """With ``keep_sky_light``, the air right above the highest block sees the sky (15) and the deep
    underground (y = 0, under stone in these captures) is dark, as in the vanilla world captured."""
    body = Body(BodyConfig(port=1, username="capture"), keep_sky_light=True)
    _feed(body, [c for c in _captures(packets_dir) if c[0] in ("login", "map_chunk", "update_light")])
    checked = 0
    for cx, cz in body.world.columns:
        col = body.world.columns[(cx, cz)]
        for lx, lz in ((3, 5), (12, 9)):
            top = int(np.nonzero(col[:, lz, lx])[0].max()) + body.world.min_y
            x, z = cx * 16 + lx, cz * 16 + lz
            assert body.world.sky_light_at(x, top + 1, z) == 15
            assert body.world.sky_light_at(x, 300, z) == 15
            assert body.world.sky_light_at(x, 0, z) == 0
            checked += 1
    assert checked >= 10
    assert Body(BodyConfig(port=1, username="capture")).world.sky_light_at(0, 64, 0) is None


@pytest_twisted.ensureDeferred
async def test_refused_connection_is_retried_then_reported() -> None:
    """Nothing listens on the port: ``reconnect_attempts`` retries, then a ConnectionError naming the address."""
    from twisted.internet import reactor
    from twisted.internet.protocol import Factory

    port = reactor.listenTCP(0, Factory(), interface="127.0.0.1")
    free = port.getHost().port
    await port.stopListening()  # the port is now closed: connections are refused
    body = Body(BodyConfig(port=free, username="refused", reconnect_attempts=1, reconnect_delay=0.05))
    t0 = reactor.seconds()
    with pytest.raises(ConnectionError, match=f"127.0.0.1:{free}"):
        await body.connect()
    assert reactor.seconds() - t0 >= 0.05  # it waited and tried again
    assert body.conn.state.value == "closed"
