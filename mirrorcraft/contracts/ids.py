"""Identifiers shared by every contract: resource ids, registry ids and the generic registry.

Two kinds of names travel between the parts of MirrorCraft:

* **Resource ids** of the game (``minecraft:oak_log``, ``minecraft:story/mine_stone``). Every contract stores
  them namespaced; :func:`namespaced` accepts the bare form an LLM tends to write (``oak_log``) and adds
  ``minecraft:``.
* **Registry ids** of the benchmark (worlds ``plains-1``, Mirror copies ``plains-1/M03``, tasks
  ``iron_armor``, skills ``craft_grid``, agent configurations ``react``). They are parsed by exactly one
  regular expression, :data:`REGISTRY_ID_RE`, as Gymnasium parses ``[ns/]Name-vN`` with one regex
  (``gymnasium/envs/registration.py``), so a malformed id fails the same way everywhere.

:class:`Registry` is the small explicit registry every part uses (built at import time, duplicates
rejected with :class:`~mirrorcraft.errors.RegistrationError`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from mirrorcraft.errors import ContractError, RegistrationError

#: A namespaced resource location as the game writes it (wiki.vg "Identifier": ``namespace:path``,
#: namespace ``[a-z0-9.-_]``, path ``[a-z0-9.-_/]``).
RESOURCE_ID_RE = re.compile(r"^[a-z0-9_.-]+:[a-z0-9_./-]+$")
_BARE_ID_RE = re.compile(r"^[a-z0-9_./-]+$")

#: The one regex for benchmark registry ids: a lowercase name made of ``-``-separated words
#: (``plains-1``, ``snowy_plains-2``, ``craft_grid``) and an optional ``/variant`` (``plains-1/M03``).
REGISTRY_ID_RE = re.compile(r"^(?P<name>[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*)(?:/(?P<variant>[A-Za-z0-9_]+))?$")

#: Suite ids M01..M06 (the paper relabels archive suites Mirror01-04, 06, 08 as M01-M06).
SUITE_IDS: tuple[str, ...] = ("M01", "M02", "M03", "M04", "M05", "M06")


def namespaced(name: str, *, field: str = "id") -> str:
    """Return ``name`` as a namespaced resource id, adding ``minecraft:`` to a bare name.

    Args:
        name: ``"oak_log"`` or ``"minecraft:oak_log"`` (surrounding spaces and upper case are tolerated).
        field: what the value is, for the error message.

    Returns:
        The namespaced id, e.g. ``"minecraft:oak_log"``.

    Raises:
        ContractError: ``name`` is not a valid resource location.
    """
    if not isinstance(name, str):
        raise ContractError(f"{field}: expected a resource id string, got {type(name).__name__}")
    text = name.strip().lower()
    if RESOURCE_ID_RE.match(text):
        return text
    if _BARE_ID_RE.match(text):
        return f"minecraft:{text}"
    raise ContractError(f"{field}: {name!r} is not a resource id (expected 'namespace:path' or 'path')")


@dataclass(frozen=True)
class ParsedId:
    """A registry id split by :data:`REGISTRY_ID_RE`."""

    name: str
    variant: str | None

    def __str__(self) -> str:
        return self.name if self.variant is None else f"{self.name}/{self.variant}"


def parse_id(text: str) -> ParsedId:
    """Split a registry id into its name and optional variant.

    Args:
        text: e.g. ``"plains-1"`` or ``"plains-1/M03"``.

    Returns:
        The parsed id.

    Raises:
        RegistrationError: ``text`` does not match :data:`REGISTRY_ID_RE`.
    """
    m = REGISTRY_ID_RE.match(text) if isinstance(text, str) else None
    if m is None:
        raise RegistrationError(
            f"malformed id {text!r}: expected lowercase words joined by '-' with an optional '/variant' "
            "(e.g. 'plains-1', 'plains-1/M03')"
        )
    return ParsedId(m.group("name"), m.group("variant"))


def world_id(world: str, suite: str | None) -> str:
    """The registry id of a world copy: the Vanilla id, or ``<vanilla>/<suite>`` for a Mirror copy."""
    parsed = parse_id(world)
    if parsed.variant is not None:
        raise ContractError(f"world {world!r}: expected a Vanilla world id without '/variant'")
    if suite is None:
        return world
    if suite not in SUITE_IDS:
        raise ContractError(f"suite {suite!r}: expected one of {', '.join(SUITE_IDS)}")
    return f"{world}/{suite}"


T = TypeVar("T")


class Registry(Generic[T]):
    """An explicit, ordered registry of entries under validated ids.

    Built at import time by the part that owns the entries (android_world's ``TaskRegistry``, Gymnasium's
    ``registry``), never filled lazily inside ``__init__`` of something else.

    Args:
        kind: what is registered (``"world"``, ``"skill"``...), used in error messages.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, entry_id: str, entry: T) -> T:
        """Register ``entry`` under ``entry_id`` and return it.

        Raises:
            RegistrationError: the id is malformed or already registered.
        """
        parse_id(entry_id)
        if entry_id in self._entries:
            raise RegistrationError(f"{self.kind} {entry_id!r} is already registered")
        self._entries[entry_id] = entry
        return entry

    def get(self, entry_id: str) -> T:
        """Return the entry registered under ``entry_id``.

        Raises:
            RegistrationError: nothing is registered under that id (the message lists close ids).
        """
        try:
            return self._entries[entry_id]
        except KeyError:
            known = ", ".join(sorted(self._entries)[:20])
            raise RegistrationError(f"no {self.kind} registered as {entry_id!r}; known: {known}") from None

    def ids(self) -> list[str]:
        """All registered ids in registration order."""
        return list(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
