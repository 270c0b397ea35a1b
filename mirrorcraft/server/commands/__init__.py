"""Vanilla 1.19.2 commands: syntax, permission levels, reply texts, and an executor over a host.

Why: the paper's worlds run on a vanilla server controlled over RCON; the embedded server accepts the same
command text through this package, so the harness's control code is one path for both (docs/control.md).

* :func:`parse_command` — text → typed command (:mod:`.model`) or :class:`CommandSyntaxError` carrying
  vanilla's message and ``<--[HERE]`` context.
* :class:`CommandExecutor` — runs commands against a :class:`CommandHost`, returns :class:`CommandResult`.
* :class:`OpsList` — ``ops.json``; agent players are never ops.
"""

from mirrorcraft.server.commands.executor import CommandExecutor, CommandResult, rcon_text
from mirrorcraft.server.commands.grammar import parse_command
from mirrorcraft.server.commands.host import (
    AdvancementInfo,
    CommandHost,
    CommandSource,
    EntityRef,
    HostUnsupported,
)
from mirrorcraft.server.commands.ops import OpEntry, OpsList
from mirrorcraft.server.commands.reader import CommandSyntaxError
from mirrorcraft.server.commands.scoreboard import Scoreboard
from mirrorcraft.server.commands.selectors import Selector, parse_selector
from mirrorcraft.server.commands.texts import tr
from mirrorcraft.server.commands.vocabulary import COMMAND_LEVELS, GAME_RULES

__all__ = [
    "COMMAND_LEVELS",
    "GAME_RULES",
    "AdvancementInfo",
    "CommandExecutor",
    "CommandHost",
    "CommandResult",
    "CommandSource",
    "CommandSyntaxError",
    "EntityRef",
    "HostUnsupported",
    "OpEntry",
    "OpsList",
    "Scoreboard",
    "Selector",
    "parse_command",
    "parse_selector",
    "rcon_text",
    "tr",
]
