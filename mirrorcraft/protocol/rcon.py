"""RCON's wire format: the Source remote-console packets as vanilla 1.19.2 speaks them, free of sockets.

Why here: the embedded server's listener (:mod:`mirrorcraft.server.rcon`) and the harness's clients
(:mod:`mirrorcraft.harness.rcon`) speak the same packets with the same limits; keeping the codec below
both means one encoder, one reassembler and one set of limits, tested without a socket.

Wire format (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol, and vanilla's
``net.minecraft.server.rcon.thread.RconClient``): every packet is a little-endian int32 *length* of the
rest, then int32 *request id*, int32 *type*, the body bytes (UTF-8), a NUL terminator and one NUL pad byte
(so length = 10 + body size). Types: 3 = login, 2 = command (and the login reply), 0 = response.

* login: the reply has the request id (type 2, empty body) on success, id ``-1`` on a wrong password;
* a command before a successful login is answered like a failed login (id ``-1``);
* a reply longer than 4096 characters is split into several type-0 packets of at most 4096 characters
  (``sendCmdResponse``, :func:`fragments`); an unknown type is answered ``Unknown request <hex type>``;
* vanilla reads each request with one 1460-byte socket read, so a request is at most 1460 bytes
  (:data:`MAX_REQUEST`, :func:`encode_request`).

The end of a fragmented reply is found without relying on packet timing: a fragment shorter than 4096
characters is the last one; after a full-size fragment a client sends an unknown-type sentinel
(:data:`SENTINEL_TYPE`) and reads until its ``Unknown request`` reply comes back (vanilla answers requests
in order).
"""

from __future__ import annotations

import secrets
import struct
from dataclasses import dataclass

from mirrorcraft.errors import MirrorCraftError

TYPE_RESPONSE = 0
TYPE_COMMAND = 2
TYPE_AUTH_RESPONSE = 2
TYPE_LOGIN = 3
AUTH_FAILED_ID = -1
FRAGMENT_CHARS = 4096  # vanilla RconClient.sendCmdResponse splits replies at 4096 characters
MAX_REQUEST = 1460  # vanilla reads a request with one read into a 1460-byte buffer
MAX_RESPONSE = 4096 * 4 + 14  # a 4096-character fragment of 4-byte UTF-8 characters plus the header
SENTINEL_TYPE = 0x7F  # any type vanilla does not know; answered "Unknown request 7f"

__all__ = [
    "AUTH_FAILED_ID",
    "FRAGMENT_CHARS",
    "MAX_REQUEST",
    "MAX_RESPONSE",
    "SENTINEL_TYPE",
    "TYPE_AUTH_RESPONSE",
    "TYPE_COMMAND",
    "TYPE_LOGIN",
    "TYPE_RESPONSE",
    "Packet",
    "PacketReader",
    "RconError",
    "RequestIds",
    "encode_packet",
    "encode_request",
    "fragments",
    "random_password",
]


class RconError(MirrorCraftError, ConnectionError):
    """RCON failed: cannot connect, wrong password, malformed packet, or the connection closed."""


@dataclass(frozen=True, slots=True)
class Packet:
    """One RCON packet."""

    request_id: int
    type: int
    body: str


def encode_packet(request_id: int, type_: int, body: str) -> bytes:
    """Serialize a packet (length, id, type, body, NUL, NUL)."""
    payload = struct.pack("<ii", request_id, type_) + body.encode("utf-8") + b"\x00\x00"
    return struct.pack("<i", len(payload)) + payload


def encode_request(request_id: int, type_: int, body: str) -> bytes:
    """Serialize a client request, refusing what vanilla could not read in its one 1460-byte read.

    Raises:
        RconError: the packet is longer than :data:`MAX_REQUEST` bytes (names the size and the body's start).
    """
    data = encode_packet(request_id, type_, body)
    if len(data) > MAX_REQUEST:
        raise RconError(
            f"RCON request of {len(data)} bytes exceeds vanilla's {MAX_REQUEST}-byte limit: {body[:40]!r}..."
        )
    return data


class RequestIds:
    """A client's request ids: 1, 2, ... up to the largest int32, then 1 again (never -1, the refusal id)."""

    def __init__(self) -> None:
        self._next = 1

    def next(self) -> int:
        """The next request id."""
        rid = self._next
        self._next = self._next % 0x7FFFFFFF + 1
        return rid


class PacketReader:
    """Reassembles packets from a byte stream.

    Args:
        max_length: the largest accepted packet (length field + 4); bigger ones raise.
        what: name used in error messages (``"request"`` / ``"response"``).
    """

    def __init__(self, max_length: int, what: str) -> None:
        self._buf = bytearray()
        self._offset = 0
        self.max_length = max_length
        self.what = what

    def feed(self, data: bytes) -> list[Packet]:
        """Add bytes; return the complete packets they finish.

        Raises:
            RconError: a length below 10 or above the limit, or a body without its NUL terminator
                (names the stream offset of the bad packet).
        """
        self._buf += data
        out: list[Packet] = []
        while len(self._buf) >= 4:
            (length,) = struct.unpack_from("<i", self._buf, 0)
            if length < 10 or length + 4 > self.max_length:
                raise RconError(
                    f"RCON {self.what} at stream offset {self._offset}: length field {length} outside "
                    f"10..{self.max_length - 4}"
                )
            if len(self._buf) < 4 + length:
                break
            request_id, type_ = struct.unpack_from("<ii", self._buf, 4)
            raw = bytes(self._buf[12 : 4 + length])
            if raw[-2:] != b"\x00\x00":
                raise RconError(
                    f"RCON {self.what} at stream offset {self._offset}: body of request {request_id} "
                    "is not terminated by two NUL bytes"
                )
            try:
                body = raw[:-2].decode("utf-8")
            except UnicodeDecodeError as err:
                raise RconError(
                    f"RCON {self.what} at stream offset {self._offset}: body is not UTF-8 ({err.reason} at "
                    f"byte {err.start})"
                ) from err
            out.append(Packet(request_id, type_, body))
            del self._buf[: 4 + length]
            self._offset += 4 + length
        return out


def fragments(text: str) -> list[str]:
    """Split a reply as vanilla does: chunks of at most 4096 characters, at least one (maybe empty)."""
    if not text:
        return [""]
    return [text[i : i + FRAGMENT_CHARS] for i in range(0, len(text), FRAGMENT_CHARS)]


def random_password() -> str:
    """A fresh RCON password (``secrets``; 24 URL-safe characters)."""
    return secrets.token_urlsafe(18)
