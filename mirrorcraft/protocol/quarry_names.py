"""Bridge between quarry's packet names and ours (node-minecraft-protocol's).

quarry (used by the body and the embedded server for framing, login, compression and encryption) dispatches
play packets by *its* names (``chunk_data``, ``player_block_placement``...). Both name tables are indexed by
the same packet id per protocol, so the bridge goes through the id: quarry's ``packet_idents`` (from its
``data/packets/0759_1.19.csv`` / ``0760_1.19.1.csv``) and our ``data/packet_ids.json``.

Typical use in a quarry ``Protocol.packet_received(buff, name)`` override::

    pkt = decode(our_name(name, self.protocol_version, "clientbound"), buff.read(), self.protocol_version)
"""

from __future__ import annotations

from functools import cache

from quarry.data import packets as quarry_packets

from mirrorcraft.errors import ProtocolError
from mirrorcraft.protocol.codec import PACKET_IDS, Direction, packet_id

_QUARRY_DIR = {"clientbound": "downstream", "serverbound": "upstream"}


@cache
def _tables(proto: int, direction: Direction) -> tuple[dict[str, str], dict[str, str]]:
    qdir = _QUARRY_DIR[direction]
    by_id = {i: n for n, i in PACKET_IDS[proto][direction].items()}
    q2o: dict[str, str] = {}
    for (version, mode, d, qname), ident in quarry_packets.packet_idents.items():
        if version == proto and mode == "play" and d == qdir and ident in by_id:
            q2o[qname] = by_id[ident]
    return q2o, {o: q for q, o in q2o.items()}


def our_name(quarry_name: str, proto: int, direction: Direction) -> str:
    """Our packet name for quarry's play-state ``quarry_name`` in ``proto``."""
    try:
        return _tables(proto, direction)[0][quarry_name]
    except KeyError:
        raise ProtocolError(
            f"quarry has no {direction} play packet {quarry_name!r} in protocol {proto}"
        ) from None


def quarry_name(name: str, proto: int, direction: Direction) -> str:
    """quarry's play-state name for our packet ``name`` (for ``send_packet(name, body)``)."""
    packet_id(name, proto, direction)  # raises a clear error for unknown names
    try:
        return _tables(proto, direction)[1][name]
    except KeyError:
        raise ProtocolError(
            f"quarry has no name for {direction} packet {name!r} in protocol {proto}"
        ) from None
