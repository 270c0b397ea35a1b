"""minecraft-data's 1.19.2 ``language.json`` for the control tests: ``L(key, *args)`` formats a text the
way Java's ``String.format`` does for ``%s`` / ``%1$s``; ``here`` builds Brigadier's context line."""

from __future__ import annotations

import json
import re
from functools import cache

from support.refdata import NODE_MODULES, mcdata_path


@cache
def lang() -> dict[str, str]:
    return json.loads(mcdata_path(NODE_MODULES, "1.19.2", "language").read_text())


def L(key: str, *args: object) -> str:  # noqa: N802 - reads like the Java call
    """minecraft-data's text for ``key`` with Java ``%s`` / ``%1$s`` arguments."""
    it = iter(args)

    def sub(mt: re.Match[str]) -> str:
        return str(args[int(mt.group(1)) - 1]) if mt.group(1) else str(next(it))

    return re.sub(r"%(?:(\d+)\$)?s", sub, lang()[key])


def here(text: str, cursor: int) -> str:
    """Brigadier's context line for an error at ``cursor`` in ``text``."""
    start = max(0, cursor - 10)
    return (
        ("..." if cursor > 10 else "") + text[start:cursor] + text[cursor:] + lang()["command.context.here"]
    )
