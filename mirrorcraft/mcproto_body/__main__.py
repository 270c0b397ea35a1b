"""``python -m mirrorcraft.mcproto_body``: connect a body to a server, report what it sees, optionally trace.

A debugging tool for the protocol layer (the benchmark harness builds bodies itself)::

    python -m mirrorcraft.mcproto_body --port 25565 --username probe --trace-packets trace.jsonl --seconds 5

Logs in, waits for the spawn and the 5×5 columns around it, stays ``--seconds``, prints a JSON summary
(position, chunks, inventory, health, packet counts, dropped rule packets, protocol errors) and leaves.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from twisted.internet import defer, reactor

from mirrorcraft.mcproto_body.bot import Body
from mirrorcraft.mcproto_body.connection import BodyConfig


async def _probe(body: Body, seconds: float) -> dict:
    await body.connect()
    chunks = await body.wait_chunks(timeout=30)
    await body.sleep(seconds)
    summary = {
        "position": body.movement.position,
        "chunks_around_loaded": chunks,
        "columns": len(body.world.columns),
        "health": body.health.health,
        "food": body.health.food,
        "inventory": body.inventory.contents(),
        "entities": len(body.entities.by_id),
        "received": dict(body.conn.received_counts),
        "dropped_unparsed": dict(body.conn.dropped_counts),
        "protocol_errors": body.conn.protocol_errors[:20],
        "corrections": body.movement.corrections,
        "tick_rate": body.tick_rate,
        "tick_rate_announced": body.game_clock.announced,
    }
    await body.disconnect()
    return summary


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (1 on connection failure)."""
    ap = argparse.ArgumentParser(
        prog="python -m mirrorcraft.mcproto_body", description=__doc__.splitlines()[0], allow_abbrev=False
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=25565)
    ap.add_argument("--username", default="probe")
    ap.add_argument("--protocol", type=int, default=760, choices=[759, 760])
    ap.add_argument("--view-distance", type=int, default=4)
    ap.add_argument(
        "--trace-packets", type=Path, metavar="FILE", help="append one JSON line per packet to FILE"
    )
    ap.add_argument("--seconds", type=float, default=2.0, help="stay this long after the chunks arrived")
    args = ap.parse_args(argv)
    body = Body(
        BodyConfig(
            host=args.host,
            port=args.port,
            username=args.username,
            protocol=args.protocol,
            view_distance=args.view_distance,
            trace_packets=args.trace_packets,
        )
    )
    result: dict = {}

    def run() -> None:
        d = defer.ensureDeferred(_probe(body, args.seconds))
        d.addCallback(result.update)
        d.addErrback(lambda f: result.update(error=f"{f.type.__name__}: {f.getErrorMessage()}"))
        d.addBoth(lambda _: reactor.stop())

    reactor.callWhenRunning(run)
    reactor.run()
    body.conn.close_trace()
    json.dump(result, sys.stdout, indent=1, default=str)
    print()
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
