"""A logging man-in-the-middle proxy: ``python -m mirrorcraft.run proxy --listen PORT --to HOST:PORT``.

Why: when the body and a server disagree (a vanilla jar, the embedded server, Mineflayer), the quickest
diagnosis is a transcript of every play packet in both directions, decoded with the same codecs the body
and the server use (:mod:`mirrorcraft.protocol`). The proxy sits between a client and a server and writes
one JSON line per packet: time, direction, packet name and id, size, and the decoded fields — or the hex
of the body and the decoding error when our codecs cannot read it. Logging never changes or drops a
packet: bytes are forwarded as received, and a decoding failure is logged, not raised.

Built on quarry's proxy (``quarry.net.proxy``): the downstream side is a quarry server the client logs in
to (offline mode), the upstream side is a quarry client that logs in to the real server with the same
name; once both are in the play state every packet goes through :meth:`LoggingBridge.packet_received`.
Login-state packets are handled by each side's own login and are not logged (the log records
``session``/``upstream`` events instead). Only offline-mode servers can be proxied (no Mojang auth).
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import logging
import sys
import time
import uuid
from pathlib import Path
from typing import IO, Any

from quarry.net.proxy import Bridge, DownstreamFactory

from mirrorcraft import PROTOCOL_1_19, PROTOCOL_1_19_2
from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol import decode, packet_id
from mirrorcraft.protocol.quarry_names import our_name

log = logging.getLogger(__name__)

#: quarry's direction names → the protocol's (packets travelling to the client are clientbound).
DIRECTIONS = {"downstream": "clientbound", "upstream": "serverbound"}
MAX_LIST = 64  # long arrays (chunk sections, heightmaps) are summarised past this many elements


def jsonable(value: Any, depth: int = 0) -> Any:
    """A JSON-friendly view of a decoded packet value (dataclasses → dicts, bytes → hex, long arrays
    summarised with their length and first elements)."""
    if depth > 12:
        return repr(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
        return {"hex": raw[:MAX_LIST].hex(), "len": len(raw)} if len(raw) > MAX_LIST else raw.hex()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy arrays
        flat = value.reshape(-1).tolist()
        if len(flat) > MAX_LIST:
            return {"shape": list(value.shape), "dtype": str(value.dtype), "first": flat[:MAX_LIST]}
        return value.tolist()
    if hasattr(value, "snbt"):  # nbtlib tags
        text = value.snbt()
        return text if len(text) <= 4096 else text[:4096] + "..."
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        out = [jsonable(v, depth + 1) for v in items[:MAX_LIST]]
        if len(items) > MAX_LIST:
            out.append({"more": len(items) - MAX_LIST})
        return out
    return repr(value)


class PacketLog:
    """Writes one JSON object per line to a file (or stdout), flushed after every line."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.out.flush()
        self.count += 1


def describe_packet(direction: str, quarry_name: str, body: bytes, proto: int) -> dict[str, Any]:
    """The log record of one play packet (never raises).

    Args:
        direction: quarry's ``downstream`` (to the client) or ``upstream`` (to the server).
        quarry_name: quarry's packet name.
        body: the packet body (after the id, uncompressed).
        proto: protocol version of the session.
    """
    d = DIRECTIONS.get(direction, direction)
    rec: dict[str, Any] = {
        "t": round(time.time(), 6),
        "dir": d,
        "quarry_name": quarry_name,
        "size": len(body),
    }
    try:
        name = our_name(quarry_name, proto, d)  # type: ignore[arg-type]
        rec["name"] = name
        rec["id"] = packet_id(name, proto, d)  # type: ignore[arg-type]
        pkt = decode(name, body, proto, d)  # type: ignore[arg-type]
        rec["fields"] = jsonable(pkt)
    except ProtocolError as err:
        rec.setdefault("name", quarry_name)
        rec["hex"] = body.hex()
        rec["error"] = str(err)
    except Exception as err:  # noqa: BLE001 - a codec bug must not break the session
        rec.setdefault("name", quarry_name)
        rec["hex"] = body.hex()
        rec["error"] = f"{type(err).__name__}: {err}"
    return rec


class LoggingBridge(Bridge):
    """quarry bridge that logs every play packet (both directions) and forwards it unchanged."""

    packet_log: PacketLog | None = None

    def _log(self, record: dict[str, Any]) -> None:
        plog = self.downstream_factory.packet_log
        if plog is not None:
            plog.write(record)

    def downstream_ready(self) -> None:
        self._log({"t": round(time.time(), 6), "event": "session", "player": self.downstream.display_name,
                   "protocol": self.downstream.protocol_version})  # fmt: skip
        super().downstream_ready()

    def upstream_ready(self) -> None:
        self._log(
            {
                "t": round(time.time(), 6),
                "event": "upstream",
                "to": f"{self.connect_host}:{self.connect_port}",
            }
        )
        super().upstream_ready()

    def downstream_disconnected(self) -> None:
        self._log({"t": round(time.time(), 6), "event": "client_disconnected"})
        super().downstream_disconnected()

    def upstream_disconnected(self) -> None:
        self._log({"t": round(time.time(), 6), "event": "server_disconnected"})
        super().upstream_disconnected()

    def packet_received(self, buff, direction: str, name: str) -> None:  # noqa: D401 - quarry API
        body = buff.read()
        try:
            self._log(describe_packet(direction, name, body, self.downstream.protocol_version))
        except Exception:  # noqa: BLE001 - logging must never break the session
            log.exception("proxy: could not log %s %s", direction, name)
        if direction == "downstream":
            self.downstream.send_packet(name, body)
        elif direction == "upstream":
            self.upstream.send_packet(name, body)


class ProxyFactory(DownstreamFactory):
    """The listening side: clients connect here; each gets a :class:`LoggingBridge` to ``to``."""

    bridge_class = LoggingBridge
    online_mode = False
    motd = "MirrorCraft logging proxy"
    minecraft_versions = {PROTOCOL_1_19_2: "1.19.2", PROTOCOL_1_19: "1.19"}
    log_level = logging.WARNING

    def __init__(self, connect_host: str, connect_port: int, packet_log: PacketLog | None) -> None:
        super().__init__()
        self.connect_host = connect_host
        self.connect_port = connect_port
        self.packet_log = packet_log


def start_proxy(
    reactor,
    listen_port: int,
    to_host: str,
    to_port: int,
    packet_log: PacketLog | None,
    listen_host: str = "127.0.0.1",
):
    """Listen on ``listen_host:listen_port`` and proxy to ``to_host:to_port``; returns the listening port."""
    factory = ProxyFactory(to_host, to_port, packet_log)
    return reactor.listenTCP(listen_port, factory, interface=listen_host)


def parse_target(text: str) -> tuple[str, int]:
    """``HOST:PORT`` → ``(host, port)``.

    Raises:
        argparse.ArgumentTypeError: not HOST:PORT with a port in 1..65535.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"--to {text!r}: expected HOST:PORT, e.g. 127.0.0.1:25565")
    return host, int(port)


def cmd_proxy(args: argparse.Namespace) -> int:
    """Run the proxy until interrupted."""
    from twisted.internet import reactor

    host, port = args.to
    out: IO[str] = open(args.log, "a", encoding="utf-8") if args.log else sys.stdout  # noqa: SIM115
    plog = PacketLog(out)
    listening = start_proxy(reactor, args.listen, host, port, plog, args.listen_host)
    print(f"proxy: {args.listen_host}:{listening.getHost().port} -> {host}:{port}, log: {args.log or 'stdout'}",
          file=sys.stderr)  # fmt: skip
    try:
        reactor.run()
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def add_proxy_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``proxy`` on the CLI's subparsers (``python -m mirrorcraft.run proxy ...``)."""
    p = subparsers.add_parser(
        "proxy",
        help="logging man-in-the-middle proxy: decode and log every play packet as JSON lines",
        description=(
            "Listen for a Minecraft 1.19.2/1.19 client and forward it to an offline-mode server, logging every "
            "play packet in both directions as one JSON line (decoded fields, or hex when undecodable)."
        ),
        allow_abbrev=False,
    )
    p.add_argument(
        "--listen", type=int, required=True, metavar="PORT", help="port to listen on (0 = any free)"
    )
    p.add_argument("--listen-host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--to", type=parse_target, required=True, metavar="HOST:PORT", help="the server to proxy to"
    )
    p.add_argument(
        "--log", type=Path, default=None, metavar="FILE.jsonl", help="append the log here (default stdout)"
    )
    p.set_defaults(handler=cmd_proxy)
    return p


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (``python -m mirrorcraft.debug.proxy``) until the lead wires the CLI."""
    parser = argparse.ArgumentParser(prog="python -m mirrorcraft.debug.proxy", allow_abbrev=False)
    sub = parser.add_subparsers(required=True)
    add_proxy_parser(sub)
    args = parser.parse_args(["proxy", *(sys.argv[1:] if argv is None else argv)])
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
