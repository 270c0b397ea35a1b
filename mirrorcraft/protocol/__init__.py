"""Wire codecs for Minecraft Java 1.19.2 (protocol 760) and 1.19 (759), free of sockets.

Bytes in, plain typed objects out (dataclasses), so every codec is tested on vanilla captures. quarry
keeps doing what it does well (framing, login, compression, encryption); this package covers what it
cannot: 1.18+ chunk columns, 1.19 entity metadata, 1.19 command graphs, and every play packet the body and
the embedded server use. See docs/protocol.md.

Entry points: :func:`decode` / :func:`encode` (packet body by name), :func:`decode_frame` /
:func:`encode_frame` (VarInt id + body), :func:`decode_column` / :func:`encode_column` (chunk data).
"""

from mirrorcraft.protocol import chunks, clientbound, serverbound  # noqa: F401  (registers packets)
from mirrorcraft.protocol.buffer import Reader, Slot, Writer
from mirrorcraft.protocol.chunks import ChunkColumn, decode_column, encode_column
from mirrorcraft.protocol.codec import (
    CLIENTBOUND,
    SERVERBOUND,
    Packet,
    decode,
    decode_frame,
    encode,
    encode_frame,
    implemented,
    packet_class,
    packet_id,
    packet_name,
)

__all__ = [
    "CLIENTBOUND",
    "SERVERBOUND",
    "ChunkColumn",
    "Packet",
    "Reader",
    "Slot",
    "Writer",
    "decode",
    "decode_column",
    "decode_frame",
    "encode",
    "encode_column",
    "encode_frame",
    "implemented",
    "packet_class",
    "packet_id",
    "packet_name",
]
