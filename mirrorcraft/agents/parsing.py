"""Model output → one validated skill call, or a policy error that keeps the raw text.

The output format every prompt asks for is one JSON object ``{"thought": ..., "skill": ..., "args":
{...}}`` (some configurations add fields, e.g. XENON's ``"expect"``). Models wrap JSON in code fences
or prose, so the parser takes the first balanced ``{...}`` that decodes as JSON. Everything that does not
yield an executable call becomes a :class:`~mirrorcraft.contracts.PolicyError` (spec "Action
semantics"): ``unparseable`` (no JSON object, or no ``skill``), ``unknown_skill`` (a name the body does
not offer in this episode) or ``invalid_arguments`` (the contracts' validator message, which names every
bad field). A policy error consumes no budget; the loop re-asks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mirrorcraft.contracts import PolicyError, SkillCall
from mirrorcraft.errors import ContractError


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first balanced JSON object in ``text`` that decodes, or ``None``.

    String literals are respected when matching braces, so ``"{"`` inside a thought does not confuse it.
    """
    start = text.find("{")
    while start != -1:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    try:
                        value = json.loads(text[start : i + 1])
                    except json.JSONDecodeError:
                        break
                    if isinstance(value, dict):
                        return value
                    break
        start = text.find("{", start + 1)
    return None


@dataclass
class ParsedAction:
    """A parsed decision: the validated call, the model's thought and any extra fields it returned."""

    call: SkillCall
    thought: str
    extras: dict[str, Any] = field(default_factory=dict)


def policy_error(kind: str, raw: str, message: str) -> PolicyError:
    """Build a :class:`PolicyError` (``kind`` one of unparseable/unknown_skill/invalid_arguments)."""
    return PolicyError(kind=kind, raw_text=raw, message=message)  # type: ignore[arg-type]


def call_from_object(
    obj: dict[str, Any], raw: str, allowed: set[str] | None = None
) -> SkillCall | PolicyError:
    """Validate ``{"skill": name, "args": {...}}`` (``"name"`` is accepted for ``"skill"``)."""
    name = obj.get("skill", obj.get("name"))
    if not isinstance(name, str) or not name:
        return policy_error("unparseable", raw, 'the JSON object has no "skill" string')
    name = name.strip()
    if allowed is not None and name not in allowed:
        return policy_error(
            "unknown_skill", raw, f"unknown skill {name!r}; available: {', '.join(sorted(allowed))}"
        )
    args = obj.get("args", {})
    if args is None:
        args = {}
    try:
        return SkillCall.create(name, args)
    except ContractError as err:
        kind = "unknown_skill" if str(err).startswith("unknown skill") else "invalid_arguments"
        return policy_error(kind, raw, str(err))


def parse_action(text: str, allowed: set[str] | None = None) -> ParsedAction | PolicyError:
    """Parse a model answer into one skill call.

    Args:
        text: the raw model output.
        allowed: skill names offered in this episode (``None`` = every contract skill).

    Returns:
        :class:`ParsedAction` on success, else a :class:`PolicyError` holding ``text`` verbatim.
    """
    obj = extract_json_object(text)
    if obj is None:
        return policy_error("unparseable", text, "no JSON object found in the answer")
    result = call_from_object(obj, text, allowed)
    if isinstance(result, PolicyError):
        return result
    thought = obj.get("thought", "")
    extras = {k: v for k, v in obj.items() if k not in {"thought", "skill", "name", "args"}}
    return ParsedAction(
        call=result, thought=thought if isinstance(thought, str) else str(thought), extras=extras
    )
