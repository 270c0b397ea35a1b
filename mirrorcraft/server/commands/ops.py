"""The ops list (``ops.json``, vanilla's format) and permission levels.

Why: vanilla decides who may run a command by the source's permission level — 4 for the console and
RCON, the ``level`` of the player's ``ops.json`` entry for an op, 0 otherwise. MirrorCraft's agent
players are never ops (:meth:`OpsList.level` refuses to grant a level to an agent name), so an agent
typing ``/give`` gets vanilla's refusal (``command.unknown.command``) like any non-op.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mirrorcraft.errors import ContractError


class OpEntry(BaseModel):
    """One ``ops.json`` entry."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    uuid: str = ""
    name: str
    level: int = Field(4, ge=0, le=4)
    bypasses_player_limit: bool = Field(False, alias="bypassesPlayerLimit")


class OpsList:
    """Ops by lower-case name, plus the names that may never be ops (the agent players).

    Args:
        entries: the ops.
        never_ops: player names that get level 0 whatever the list says.
    """

    def __init__(self, entries: list[OpEntry] | None = None, never_ops: set[str] | None = None) -> None:
        self._ops = {e.name.lower(): e for e in entries or []}
        self.never_ops = {n.lower() for n in never_ops or set()}

    @classmethod
    def load(cls, path: Path, never_ops: set[str] | None = None) -> OpsList:
        """Read vanilla's ``ops.json`` (a missing file is an empty list).

        Raises:
            ContractError: the file is not a JSON list of op entries (names the file and the entry).
        """
        if not path.exists():
            return cls([], never_ops)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ContractError(f"{path}: not valid JSON (line {err.lineno}): {err.msg}") from err
        if not isinstance(data, list):
            raise ContractError(f"{path}: expected a JSON list of ops, got {type(data).__name__}")
        entries = []
        for i, raw in enumerate(data):
            try:
                entries.append(OpEntry.model_validate(raw))
            except ValidationError as err:
                raise ContractError(f"{path}: entry {i}: {err.errors()[0]['msg']}") from err
        return cls(entries, never_ops)

    def save(self, path: Path) -> None:
        """Write the list in vanilla's format."""
        data = [e.model_dump(by_alias=True) for e in self._ops.values()]
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    def add(self, name: str, level: int = 4, uuid: str = "") -> None:
        """Make ``name`` an op.

        Raises:
            ContractError: ``name`` is an agent player (agents are never ops).
        """
        if name.lower() in self.never_ops:
            raise ContractError(f"ops: {name!r} is an agent player; agent players are never ops")
        self._ops[name.lower()] = OpEntry(uuid=uuid, name=name, level=level)

    def remove(self, name: str) -> bool:
        """``deop``: ``name`` is no longer an op; False when it was not one."""
        return self._ops.pop(name.lower(), None) is not None

    def is_op(self, name: str) -> bool:
        """Whether ``name`` has an ops entry (vanilla ``PlayerList.isOp``)."""
        return name.lower() in self._ops and name.lower() not in self.never_ops

    def level(self, name: str) -> int:
        """The permission level of a player (0 for non-ops and for agent players)."""
        if name.lower() in self.never_ops:
            return 0
        entry = self._ops.get(name.lower())
        return entry.level if entry else 0

    def names(self) -> list[str]:
        return [e.name for e in self._ops.values()]
