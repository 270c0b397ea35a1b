"""Abuse campaign against the embedded server (issue 22 part 3): what a hostile client tries, and what holds.

One in-process server on a fresh copy of the sandbox (20 t/s unless a section says otherwise), attacked over
real sockets by the raw client of the tests (``tests/support/rawclient.py``: it writes every byte):

* ``malformed``: ``--prelogin`` connections that send one malformed frame before or during the login
  (random bytes, an endless VarInt, an oversized frame length, a bad intention, a garbage login packet),
  and ``--postlogin`` players that each send one malformed play packet (a handled packet id with a random
  or truncated body); then ``--decode`` random bodies through the server's own decoder for every packet it
  handles (only ``ProtocolError`` may come out: the connection turns it into a kick). Reported: every
  connection closed, the rate, the worst tick, whether a real login still works.
* ``flood``: 20 and 200 sockets that send only a handshake with next state login, then a real login.
* ``movement``: 40 moves of 2 blocks in one write; walking up to a one-block wall, then one 1.8-block move
  to behind it; hovering 6 s.
* ``window``: a chest opened, the player teleported 30 blocks away, the chest shift-clicked.
* ``chat``: a 32 KB chat line; 30 lines at once.
* ``memory``: bytes kept per distinct player name that joined and left (``tracemalloc``).

Run it against the current tree, or against an older checkout for the "before" column (options the older
``ServerConfig`` lacks are skipped)::

    PYTHONPATH=$PWD python benchmarks/server_abuse.py [--sections ...] [--prelogin 20000] [--json out.json]
    PYTHONPATH=/path/to/old/checkout python benchmarks/server_abuse.py ...
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from twisted.internet import defer, reactor, task

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from support.rawclient import connect, frame, handshake, login, until, varint  # noqa: E402

from mirrorcraft.protocol import serverbound as sb  # noqa: E402
from mirrorcraft.protocol.codec import SERVERBOUND, decode, encode, packet_class, packet_id  # noqa: E402
from mirrorcraft.server.config import ServerConfig  # noqa: E402
from mirrorcraft.server.embedded import EmbeddedServer  # noqa: E402

SECTIONS = ("malformed", "flood", "movement", "window", "chat", "memory")


def sleep(seconds: float) -> defer.Deferred:
    return task.deferLater(reactor, seconds, lambda: None)


def make_server(template: Path, work: Path, name: str, **config: Any) -> EmbeddedServer:
    world = work / name / "world"
    shutil.copytree(template, world)
    known = set(ServerConfig.model_fields)
    config = {k: v for k, v in config.items() if k in known}  # an older checkout lacks some
    srv = EmbeddedServer(ServerConfig(world=world, port=0, view_distance=2, **config))
    srv.start()
    return srv


def worst_tick_ms(srv: EmbeddedServer) -> float:
    times = srv.game.tick_times
    return round(max(times) * 1000, 1) if times else 0.0


async def real_login(srv: EmbeddedServer, name: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        c = await login(srv.port, name, timeout=10)
    except Exception as err:  # noqa: BLE001 - the figure is the refusal
        return {"ok": False, "reason": str(err)[:120]}
    ms = round((time.perf_counter() - t0) * 1000, 1)
    c.transport.loseConnection()
    await until(lambda: name not in srv.player_names(), timeout=5)
    return {"ok": True, "ms": ms}


def garbage_frames(port: int, rng: random.Random) -> bytes:
    kind = rng.randrange(5)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if kind == 1:
        return b"\xff" * 8  # a VarInt that never ends
    if kind == 2:
        return varint(2**21 + rng.randrange(1000)) + b"\x00" * 16  # above vanilla's frame limit
    if kind == 3:
        return frame(
            varint(0) + varint(760) + varint(9) + b"127.0.0.1" + b"\x63\xdd" + varint(7)
        )  # intention 7
    junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    return handshake(port) + frame(varint(rng.randrange(0, 4)) + junk)  # a garbage login packet


async def section_malformed(template: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    # a short login timeout: a frame that announces more bytes than it sends waits for them until then
    srv = make_server(template, work, "malformed", login_timeout=2.0, max_pending_logins_per_address=10**6)
    rng = random.Random(22)
    out: dict[str, Any] = {}
    # pre-login
    t0 = time.perf_counter()
    closed = at_once = 0
    batch = 500
    for start in range(0, args.prelogin, batch):
        conns = []
        for _ in range(min(batch, args.prelogin - start)):
            c = await connect(srv.port)
            c.send_raw(garbage_frames(srv.port, rng))
            conns.append(c)
        await sleep(0.5)
        at_once += sum(c.is_closed for c in conns)
        await until(lambda conns=conns: all(c.is_closed for c in conns), timeout=10)
        closed += sum(c.is_closed for c in conns)
        for c in conns:
            if not c.is_closed:
                c.transport.loseConnection()
    secs = time.perf_counter() - t0
    out["prelogin"] = {
        "connections": args.prelogin,
        "closed_by_server": closed,
        "closed_within_0.5s": at_once,
        "seconds": round(secs, 1),
        "per_second": round(args.prelogin / secs),
        "worst_tick_ms": worst_tick_ms(srv),
        "real_login_after": await real_login(srv, "after1"),
        "players": len(srv.player_names()),
    }
    # post-login: each player sends one malformed play packet of a handled kind
    handled = [n for n in srv.game.kernel.handlers.packets]
    kicked = 0
    reasons: dict[str, int] = {}
    t0 = time.perf_counter()
    for i in range(args.postlogin):
        c = await login(srv.port, f"m{i}")
        name = rng.choice(handled)
        pid = packet_id(name, 760, SERVERBOUND)
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 24)))
        data = varint(pid) + body
        c.send_raw(frame(varint(0) + data) if c.compression >= 0 else frame(data))
        await until(lambda c=c: c.is_closed, timeout=2)
        if c.is_closed:
            kicked += 1
            key = (c.reason or "").split("(")[0].strip()[:40]
            reasons[key] = reasons.get(key, 0) + 1
        else:
            c.transport.loseConnection()
        await until(lambda i=i: f"m{i}" not in srv.player_names(), timeout=5)
    out["postlogin"] = {
        "players": args.postlogin,
        "kicked": kicked,
        "kept_playing": args.postlogin - kicked,
        "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:4]),
        "seconds": round(time.perf_counter() - t0, 1),
        "worst_tick_ms": worst_tick_ms(srv),
        "real_login_after": await real_login(srv, "after2"),
    }
    # the decoder itself, in process
    from mirrorcraft.errors import ProtocolError

    others: dict[str, int] = {}
    t0 = time.perf_counter()
    for _ in range(args.decode):
        name = rng.choice(handled)
        if rng.random() < 0.5:
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 48)))
        else:  # a valid packet, truncated or extended
            body = _valid_body(name, rng)
            body = body[: rng.randrange(len(body) + 1)] if rng.random() < 0.7 else body + b"\x01"
        try:
            decode(name, body, 760, SERVERBOUND)
        except ProtocolError:
            pass
        except Exception as err:  # noqa: BLE001 - counted: the connection would still only kick
            others[type(err).__name__] = others.get(type(err).__name__, 0) + 1
    out["decode"] = {
        "bodies": args.decode,
        "seconds": round(time.perf_counter() - t0, 1),
        "non_protocol_errors": others,
    }
    await srv.stop()
    return out


def _valid_body(name: str, rng: random.Random) -> bytes:
    samples = {
        "position": sb.PlayerPosition(x=1.0, y=2.0, z=3.0, on_ground=True),
        "chat_message": sb.ChatMessage(
            message="hi",
            timestamp=0,
            salt=0,
            signature=b"",
            signed_preview=False,
            previous_messages=[],
            last_rejected=None,
        ),
        "window_click": sb.WindowClick(
            window_id=1, state_id=0, slot=0, mouse_button=0, mode=0, changed_slots=[], cursor_item=None
        ),
    }
    pkt = samples.get(name)
    if pkt is None:
        try:
            pkt = packet_class(name, SERVERBOUND)()
        except TypeError:
            return bytes(rng.randrange(256) for _ in range(8))
    return encode(pkt, 760)


async def section_flood(template: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in (20, 200):
        srv = make_server(template, work, f"flood{n}")
        conns = []
        for _ in range(n):
            c = await connect(srv.port)
            c.send_raw(handshake(srv.port))
            conns.append(c)
        await sleep(0.3)
        out[f"{n}_handshakes"] = {
            "closed_at_once": sum(c.is_closed for c in conns),
            "real_login": await real_login(srv, "honest"),
            "worst_tick_ms": worst_tick_ms(srv),
        }
        for c in conns:
            if not c.is_closed:
                c.transport.loseConnection()
        await srv.stop()
    return out


async def section_movement(template: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    srv = make_server(template, work, "movement", tick_rate=20)
    sx, sy, sz = json.loads((template / "sandbox.json").read_text())["spawn"]
    out: dict[str, Any] = {}
    refused: list[str] = []
    srv.subscribe(lambda ev, d: refused.append(d["reason"]) if ev == "move_refused" else None)
    # burst
    c = await login(srv.port, "burst")
    x0, y0 = sx + 0.5, sy + 40.0
    srv.teleport("burst", x0, y0, sz + 0.5)
    p = srv.player("burst")
    await until(lambda: p.pending_teleport is None)
    c.send_raw(
        b"".join(
            c.framed(sb.PlayerPosition(x=x0 + 2 * k, y=y0, z=sz + 0.5, on_ground=False)) for k in range(1, 41)
        )
    )
    await sleep(0.5)
    out["burst_40x2_blocks"] = {"moved_blocks": round(p.pos[0] - x0, 2), "refused": sorted(set(refused))}
    c.transport.loseConnection()
    # wall
    refused.clear()
    y = sy + 20
    for x in range(sx - 1, sx + 6):
        for dz in (-1, 0, 1):
            srv.set_block(x, y - 1, sz + dz, "stone")
            for dy in (0, 1, 2):
                srv.set_block(x, y + dy, sz + dz, "stone" if x == sx + 3 else "air")
    c = await login(srv.port, "ghost")
    srv.teleport("ghost", sx + 0.5, float(y), sz + 0.5)
    p = srv.player("ghost")
    await until(lambda: p.pending_teleport is None)
    for k in range(1, 12):  # walk up to the wall: x + 0.3 = sx + 2.9
        c.move(sx + 0.5 + 0.2 * k, float(y), sz + 0.5)
        await sleep(0.06)
    c.move(sx + 4.4, float(y), sz + 0.5)  # one 1.8-block hop to behind the wall (x - 0.3 = sx + 4.1)
    await sleep(0.3)
    out["through_a_wall"] = {
        "passed": p.pos[0] > sx + 3,
        "x_after": round(p.pos[0] - sx, 2),
        "refused": sorted(set(refused)),
    }
    c.transport.loseConnection()
    # hover
    c = await login(srv.port, "hover")
    srv.teleport("hover", sx + 0.5, sy + 30.0, sz + 0.5)
    p = srv.player("hover")
    await until(lambda: p.pending_teleport is None)
    t0 = time.perf_counter()
    while not c.is_closed and time.perf_counter() - t0 < 6.0:
        c.move(sx + 0.5, sy + 30.0, sz + 0.5, on_ground=False)
        await sleep(0.05)
    out["hover_6s"] = {
        "kicked": c.is_closed,
        "after_s": round(time.perf_counter() - t0, 2) if c.is_closed else None,
        "reason": c.reason,
    }
    if not c.is_closed:
        c.transport.loseConnection()
    await srv.stop()
    return out


async def section_window(template: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    from mirrorcraft.rules.stack import Stack

    srv = make_server(template, work, "window", tick_rate=20)
    sx, sy, sz = json.loads((template / "sandbox.json").read_text())["spawn"]
    pos = (sx + 2, sy, sz)
    srv.set_block(*pos, "chest")
    srv.set_block(sx + 2, sy + 1, sz, "air")
    srv.game.chests.chest_at(pos).slots[0] = Stack("minecraft:diamond", 10)
    c = await login(srv.port, "looter")
    p = srv.player("looter")
    await until(lambda: p.pending_teleport is None)
    c.send(
        sb.BlockPlace(
            hand=0,
            location=pos,
            direction=1,
            cursor_x=0.5,
            cursor_y=1.0,
            cursor_z=0.5,
            inside_block=False,
            sequence=1,
        )
    )
    await until(lambda: bool(c.decoded("open_window")))
    window = c.decoded("open_window")[-1].window_id
    srv.teleport("looter", sx + 30.5, float(sy + 30), sz + 0.5)
    await sleep(0.3)
    c.send(
        sb.WindowClick(
            window_id=window, state_id=0, slot=0, mouse_button=0, mode=1, changed_slots=[], cursor_item=None
        )
    )
    await sleep(0.3)
    taken = sum(n for item, n in srv.inventory("looter").values() if item == "diamond")
    out = {"diamonds_taken_from_30_blocks": taken, "window_closed_by_server": bool(c.decoded("close_window"))}
    c.transport.loseConnection()
    await srv.stop()
    return out


async def section_chat(template: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    srv = make_server(template, work, "chat", tick_rate=20)

    def line(text: str) -> sb.ChatMessage:
        return sb.ChatMessage(
            message=text,
            timestamp=0,
            salt=0,
            signature=b"",
            signed_preview=False,
            previous_messages=[],
            last_rejected=None,
        )

    out: dict[str, Any] = {}
    c = await login(srv.port, "huge")
    c.send(line("z" * 32767))
    await until(lambda: c.is_closed, timeout=3)
    out["chat_32KB"] = {"kicked": c.is_closed, "reason": (c.reason or "")[:110]}
    c = await login(srv.port, "spam")
    for k in range(30):
        c.send(line(f"line {k}"))
    await until(lambda: c.is_closed, timeout=2)
    out["chat_30_lines_at_once"] = {"kicked": c.is_closed, "reason": c.reason}
    c = await login(srv.port, "long")
    c.send(line("y" * 300))
    await until(lambda: c.is_closed, timeout=2)
    out["chat_300_chars"] = {"kicked": c.is_closed, "reason": (c.reason or "")[:110]}
    if not c.is_closed:
        c.transport.loseConnection()
    await srv.stop()
    return out


async def section_memory(template: Path, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    import gc

    srv = make_server(template, work, "memory", tick_rate=20)

    async def cycle(names: list[str]) -> None:
        for n in names:
            c = await login(srv.port, n)
            await sleep(0.06)
            c.transport.loseConnection()
            await until(lambda n=n: n not in srv.player_names(), timeout=5)

    # Traced from the start, so that what a bound keeps is traced in both snapshots (objects made before
    # ``start`` are invisible, and the kept entries replaced later would count as growth).
    tracemalloc.start()
    await cycle([f"warm{i}" for i in range(100)])  # past any bound, caches warm
    gc.collect()
    s0 = tracemalloc.take_snapshot()
    await cycle([f"name{i}" for i in range(args.names)])
    gc.collect()
    s1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    ours = str(Path(sys.modules["mirrorcraft"].__file__).parent)
    diffs = [st for st in s1.compare_to(s0, "lineno") if st.traceback[0].filename.startswith(ours)]
    grown = sum(st.size_diff for st in diffs)
    top = sorted(diffs, key=lambda st: -st.size_diff)[:3]
    g = srv.game
    out = {
        "names": args.names,
        "bytes_per_name": round(grown / args.names),
        "most_from": [
            f"{Path(t.traceback[0].filename).name}:{t.traceback[0].lineno} {t.size_diff}" for t in top
        ],
        "admin_entries": len(g.admin.players),
        "advancement_entries": len(g.advancements.players),
    }
    await srv.stop()
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="mirrorcraft-abuse-"))
    try:
        from mirrorcraft.worlds.sandbox import build_sandbox

        template = work / "sandbox"
        build_sandbox(template, seed=0)
        results: dict[str, Any] = {}
        for name in args.sections:
            t0 = time.perf_counter()
            results[name] = await globals()[f"section_{name}"](template, work, args)
            results[name]["section_seconds"] = round(time.perf_counter() - t0, 1)
            print(json.dumps({name: results[name]}), flush=True)
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--prelogin", type=int, default=20000, help="malformed pre-login connections")
    ap.add_argument("--postlogin", type=int, default=300, help="players sending one malformed play packet")
    ap.add_argument("--decode", type=int, default=100000, help="random bodies through the decoder")
    ap.add_argument("--names", type=int, default=200, help="distinct names that join and leave (memory)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()

    async def go(_reactor: Any) -> None:
        result = await run(args)
        if args.json is not None:
            args.json.write_text(json.dumps(result, indent=2) + "\n")

    task.react(lambda r: defer.ensureDeferred(go(r)))  # exits the process when done


if __name__ == "__main__":
    main()
