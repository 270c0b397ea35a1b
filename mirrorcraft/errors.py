"""One exception hierarchy for the whole package (modelled on gymnasium/error.py).

Every failure a user can hit has its own class so callers can catch precisely and messages can name
the file, field or packet that was wrong. Always ``raise NewError(...) from err`` to keep the cause.
"""


class MirrorCraftError(Exception):
    """Base class of every error raised on purpose by mirrorcraft."""


class ProtocolError(MirrorCraftError, ValueError):
    """Malformed or unexpected bytes on the wire (truncated packet, bad palette index, ...)."""


class GameDataError(MirrorCraftError, KeyError):
    """An unknown block, item, state or registry entry was asked of the vanilla game data."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable.
        return str(self.args[0]) if self.args else ""


class DatapackError(MirrorCraftError, ValueError):
    """A datapack or manifest is invalid; the message names the file and the field."""


class WorldError(MirrorCraftError):
    """A save cannot be read, written or checked."""


class RegistrationError(MirrorCraftError):
    """A duplicate or malformed registration in one of the registries (tasks, skills, agents...)."""


class ContractError(MirrorCraftError, ValueError):
    """A record or call violates the benchmark contracts."""
